/* test-cliedit: the JSON, TOML and marked-block editors of the ctxd client tool. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "../../cli/cli.h"
#include "tap.h"

static char *
toml(const char *in, const char *key, char *err, size_t errsz)
{
	char	*out = NULL;

	err[0] = '\0';
	if (tomledit_set(in, strlen(in), "ctxd", "http://h:1/mcp", "Authorization",
	    key, &out, err, errsz) == -1)
		return NULL;
	return out;
}

static void
test_toml(void)
{
	char		 err[512], *a, *b;
	const char	*in;

	a = toml("", NULL, err, sizeof(err));
	is_str(a, "[mcp_servers.ctxd]\nurl = \"http://h:1/mcp\"\n", "toml: empty file");
	free(a);

	in = "# my config\nmodel = \"o3\" # inline comment\n\n[mcp_servers.other]\n"
	    "command = \"x\"\nargs = [\n  \"[mcp_servers.ctxd]\",\n  [1, 2],\n]\n";
	a = toml(in, "Bearer k\"1", err, sizeof(err));
	ok(a != NULL && strncmp(a, in, strlen(in)) == 0, "toml: other lines kept");
	is_str(a != NULL ? a + strlen(in) : NULL, "\n[mcp_servers.ctxd]\n"
	    "url = \"http://h:1/mcp\"\n\n[mcp_servers.ctxd.http_headers]\n"
	    "Authorization = \"Bearer k\\\"1\"\n", "toml: appended after a blank line, "
	    "string escaped; a [ inside an array is no header");
	b = toml(a, "Bearer k\"1", err, sizeof(err));
	is_str(b, a, "toml: second run identical");
	free(b);
	b = toml(a, NULL, err, sizeof(err));
	ok(b != NULL && strncmp(b, in, strlen(in)) == 0 && strcmp(b + strlen(in),
	    "\n[mcp_servers.ctxd]\nurl = \"http://h:1/mcp\"\n") == 0,
	    "toml: without a key the headers table goes");
	free(b);
	free(a);

	/* replaced in place, sub-tables dropped, comments before the next table kept */
	in = "a = 1\n[mcp_servers.ctxd]\nurl = \"old\"\n# about b\n[b]\nx = 1\n"
	    "[mcp_servers.ctxd.env]\nK = \"\"\"\n[not a table]\n\"\"\"\n\n[c]\n";
	a = toml(in, NULL, err, sizeof(err));
	is_str(a, "a = 1\n[mcp_servers.ctxd]\nurl = \"http://h:1/mcp\"\n# about b\n[b]\n"
	    "x = 1\n\n[c]\n", "toml: replaced in place, multi-line string skipped");
	free(a);

	/* quoted and spaced header names are the same table; CRLF kept */
	in = "[ mcp_servers . \"ctxd\" ]\r\nurl = 'x'\r\n\r\n[d]\r\n";
	a = toml(in, NULL, err, sizeof(err));
	is_str(a, "[mcp_servers.ctxd]\r\nurl = \"http://h:1/mcp\"\r\n\r\n[d]\r\n",
	    "toml: quoted header, CRLF");
	free(a);

	ok(toml("mcp_servers = { ctxd = { url = \"x\" } }\n", NULL, err,
	    sizeof(err)) == NULL && strstr(err, "inline") != NULL,
	    "toml: refuses an inline mcp_servers (%s)", err);
	ok(toml("[mcp_servers]\nctxd.url = \"x\"\n", NULL, err, sizeof(err)) == NULL,
	    "toml: refuses a dotted-key server (%s)", err);
	ok(toml("[[mcp_servers]]\nname = \"x\"\n", NULL, err, sizeof(err)) == NULL,
	    "toml: refuses an array of tables (%s)", err);
	ok(toml("a = \"\"\"\nopen\n", NULL, err, sizeof(err)) == NULL,
	    "toml: refuses an unterminated string (%s)", err);
	ok(toml("a = [1,\n", NULL, err, sizeof(err)) == NULL,
	    "toml: refuses an open array (%s)", err);
	ok(toml("[a\n", NULL, err, sizeof(err)) == NULL, "toml: refuses a bad header");
	a = toml("[mcp_servers]\nother = { url = \"y\" }\n", NULL, err, sizeof(err));
	ok(a != NULL, "toml: another server inline under [mcp_servers] is fine");
	free(a);
}

static void
test_json(void)
{
	json_object	*e;
	char		 err[512], *a = NULL, *b = NULL;
	const char	*in;

	e = json_object_new_object();
	json_object_object_add(e, "url", json_object_new_string("http://h/mcp"));
	ok(jsonedit_set("", 0, "mcpServers", "ctxd", e, &a, err, sizeof(err)) == 0,
	    "json: empty file");
	is_str(a, "{\n  \"mcpServers\": {\n    \"ctxd\": {\n      \"url\": "
	    "\"http://h/mcp\"\n    }\n  }\n}\n", "json: pretty, no escaped slashes");
	free(a);

	in = "{\"z\": 1.50, \"mcpServers\": {\"a\": {\"command\": \"x\"}, \"ctxd\": 1}, "
	    "\"b\": [true]}";
	e = json_object_new_object();
	json_object_object_add(e, "url", json_object_new_string("u"));
	ok(jsonedit_set(in, strlen(in), "mcpServers", "ctxd", e, &a, err,
	    sizeof(err)) == 0, "json: edit");
	ok(a != NULL && strstr(a, "\"z\": 1.50") != NULL && strstr(a, "\"command\": \"x\"")
	    && strstr(a, "\"url\": \"u\"") != NULL && strstr(a, "\"b\"") > strstr(a, "ctxd"),
	    "json: other members and order kept");
	e = json_object_new_object();
	json_object_object_add(e, "url", json_object_new_string("u"));
	ok(jsonedit_set(a, strlen(a), "mcpServers", "ctxd", e, &b, err, sizeof(err)) == 0 &&
	    strcmp(a, b) == 0, "json: second run identical");
	free(a);
	free(b);

	in = "{ // comment\n \"a\": 1 }";
	ok(jsonedit_set(in, strlen(in), "k", "ctxd", json_object_new_object(), &a, err,
	    sizeof(err)) == -1 && strstr(err, "comments") != NULL,
	    "json: refuses comments (%s)", err);
	in = "{\"a\": ";
	ok(jsonedit_set(in, strlen(in), "k", "ctxd", json_object_new_object(), &a, err,
	    sizeof(err)) == -1, "json: refuses truncated JSON (%s)", err);
	in = "[1]";
	ok(jsonedit_set(in, strlen(in), "k", "ctxd", json_object_new_object(), &a, err,
	    sizeof(err)) == -1, "json: refuses a top-level array (%s)", err);
	in = "{\"k\": []}";
	ok(jsonedit_set(in, strlen(in), "k", "ctxd", json_object_new_object(), &a, err,
	    sizeof(err)) == -1, "json: refuses a servers key that is no object (%s)", err);
	in = "{} x";
	ok(jsonedit_set(in, strlen(in), "k", "ctxd", json_object_new_object(), &a, err,
	    sizeof(err)) == -1, "json: refuses trailing text (%s)", err);
}

static void
test_block(void)
{
	char		 err[256], *a = NULL, *b = NULL;
	const char	*B = "<!-- ctxd:begin -->", *E = "<!-- ctxd:end -->";
	const char	*in = "# Project\n\nRules.";

	ok(blockedit_set(in, strlen(in), B, E, "rule\n", &a, err, sizeof(err)) == 0,
	    "block: append");
	is_str(a, "# Project\n\nRules.\n\n<!-- ctxd:begin -->\nrule\n<!-- ctxd:end -->\n",
	    "block: appended after a blank line");
	ok(blockedit_set(a, strlen(a), B, E, "rule\n", &b, err, sizeof(err)) == 0 &&
	    strcmp(a, b) == 0, "block: second run identical");
	free(b);
	ok(blockedit_set(a, strlen(a), B, E, "new\n", &b, err, sizeof(err)) == 0,
	    "block: replace");
	is_str(b, "# Project\n\nRules.\n\n<!-- ctxd:begin -->\nnew\n<!-- ctxd:end -->\n",
	    "block: replaced, not duplicated");
	free(a);
	free(b);
	in = "x\n<!-- ctxd:begin -->\nold\n";
	ok(blockedit_set(in, strlen(in), B, E, "r\n", &a, err, sizeof(err)) == -1,
	    "block: refuses a begin without end (%s)", err);
	ok(blockedit_set("", 0, B, E, "r\n", &a, err, sizeof(err)) == 0 &&
	    strcmp(a, "<!-- ctxd:begin -->\nr\n<!-- ctxd:end -->\n") == 0,
	    "block: new file");
	free(a);
}

int
main(void)
{
	test_toml();
	test_json();
	test_block();
	return tap_done();
}
