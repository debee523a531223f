/*
 * test-validate.c: input validation at the edge: the validator of lib/base/validate.c rule by
 * rule, parse requests, URLs, ids and query strings.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/http.h"
#include "search/search.h"
#include "sources/gitsrc.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "sources/select.h"
#include "tap.h"

/* Expects a parse request to fail with an error containing want. */
static void
parse_fails(const char *json, const char *want, const char *name)
{
	struct parse_req p;
	char		 err[512] = "";
	int		 rc;

	rc = gitsrc_parse_request(json, strlen(json), &p, err, sizeof(err));
	ok(rc == -1 && strstr(err, want) != NULL, "%s", name);
	if (rc != -1 || strstr(err, want) == NULL)
		printf("#   rc %d, error '%s', want '%s'\n", rc, err, want);
}

static void
id_is(const char *url, const char *want_id, const char *want_host)
{
	char	 id[512], host[256], err[512];
	int	 rc = libid_from_url(url, id, sizeof(id), host, sizeof(host),
		    err, sizeof(err));

	ok(rc == 0 && strcmp(id, want_id) == 0 && strcmp(host, want_host) == 0,
	    "id of %s is %s on %s", url, want_id, want_host);
	if (rc != 0)
		printf("#   error: %s\n", err);
	else if (strcmp(id, want_id) != 0 || strcmp(host, want_host) != 0)
		printf("#   got %s on %s\n", id, host);
}

static void
id_fails(const char *url, const char *want)
{
	char	 id[512], host[256], err[512] = "";
	int	 rc = libid_from_url(url, id, sizeof(id), host, sizeof(host),
		    err, sizeof(err));

	ok(rc == -1 && strstr(err, want) != NULL, "%s refused (%s)", url, want);
	if (rc != -1 || strstr(err, want) == NULL)
		printf("#   rc %d error '%s'\n", rc, err);
}

/* A check function: no "..". */
static int
no_dotdot(const char *v, char *err, size_t errsz)
{
	if (strstr(v, "..") == NULL)
		return 0;
	snprintf(err, errsz, "must not contain '..'");
	return -1;
}

static const struct validate_field rule_fields[] = {
	{ .name = "req", .type = VALIDATE_STRING, .required = 1 },
	{ .name = "text", .type = VALIDATE_STRING, .min = 2, .max = 500 },
	{ .name = "nonempty", .type = VALIDATE_STRING, .min = 1, .max = 10 },
	{ .name = "type", .type = VALIDATE_STRING, .choices = "txt|json" },
	{ .name = "three", .type = VALIDATE_STRING, .choices = "a|b|c" },
	{ .name = "path", .type = VALIDATE_STRING, .max = 100, .check = no_dotdot },
	{ .name = "flag", .type = VALIDATE_BOOL },
	{ .name = "n", .type = VALIDATE_INT, .min = 1, .max = 10 },
	{ .name = "list", .type = VALIDATE_LIST, .max = 2, .elem_max = 3,
	    .check = no_dotdot },
	{ .name = "obj", .type = VALIDATE_OBJECT },
	{ .name = "num", .type = VALIDATE_NUMBER, .max = 100 },
	{ .name = NULL }
};
static const struct validate_table rule_table = { .fields = rule_fields, .what = "field" };
static const struct validate_table rule_open = {
	.fields = rule_fields,
	.allow_unknown = 1,
	.what = "field"
};

/* Expects json to pass (want NULL) or fail with an error containing want. */
static void
rule(const struct validate_table *t, const char *json, const char *want, const char *name)
{
	json_object	*o;
	char		 err[512] = "";

	o = validate_json(t, json, strlen(json), err, sizeof(err));
	if (want == NULL)
		ok(o != NULL, "%s", name);
	else
		ok(o == NULL && strstr(err, want) != NULL, "%s", name);
	if ((want == NULL) != (o != NULL) || (want != NULL && strstr(err, want) == NULL))
		printf("#   error '%s', want '%s'\n", err, want != NULL ? want : "(none)");
	json_object_put(o);
}

static void
test_rules(void)
{
	struct buf	 b;
	json_object	*o;
	char		 err[256];
	int		 i;

	rule(&rule_table, "{\"req\":\"x\"}", NULL, "the required field alone passes");
	rule(&rule_table, "{}", "missing required field 'req'", "required: absent");
	rule(&rule_table, "{\"req\":null}", "missing required field 'req'",
	    "required: null counts as absent");
	rule(&rule_table, "{\"req\":\"x\",\"zz\":1}", "unknown field 'zz'",
	    "an unknown key is refused");
	rule(&rule_open, "{\"req\":\"x\",\"zz\":1}", NULL,
	    "an unknown key passes a table that allows them");
	rule(&rule_table, "{\"req\":5}", "field 'req' must be a string", "a string's type");
	rule(&rule_table, "{\"req\":\"x\",\"num\":7.5}", NULL, "a number: a decimal passes");
	rule(&rule_table, "{\"req\":\"x\",\"num\":100}", NULL, "a number: a whole one at max");
	rule(&rule_table, "{\"req\":\"x\",\"num\":100.5}",
	    "field 'num' must be a number from 0 to 100", "a number above max");
	rule(&rule_table, "{\"req\":\"x\",\"num\":-0.1}", "must be a number", "a number below min");
	rule(&rule_table, "{\"req\":\"x\",\"num\":\"5\"}", "must be a number", "a number as a string");

	/* Lengths are characters: 500 of U+65E5 are 1500 bytes. */
	buf_init(&b);
	buf_adds(&b, "{\"req\":\"x\",\"text\":\"");
	for (i = 0; i < 500; i++)
		buf_adds(&b, "\xe6\x97\xa5");
	buf_adds(&b, "\"}");
	rule(&rule_table, b.p, NULL, "500 Japanese characters (1500 bytes) pass a max of 500");
	buf_release(&b);
	buf_init(&b);
	buf_adds(&b, "{\"req\":\"x\",\"text\":\"");
	for (i = 0; i < 501; i++)
		buf_adds(&b, "\xe6\x97\xa5");
	buf_adds(&b, "\"}");
	rule(&rule_table, b.p, "field 'text' is longer than 500 characters",
	    "501 do not, and the error names the field and the bound");
	buf_release(&b);
	rule(&rule_table, "{\"req\":\"x\",\"text\":\"\xc3\xa9\"}", "field 'text' is "
	    "shorter than 2 characters", "one 2-byte character is under a min of 2");
	rule(&rule_table, "{\"req\":\"x\",\"nonempty\":\"\"}",
	    "field 'nonempty' must not be empty", "an empty string under a min of 1");
	rule(&rule_table, "{\"req\":\"a\\u0000b\"}", "field 'req' holds a NUL character",
	    "a NUL character is refused");
	rule(&rule_table, "{\"req\":\"a\xff\"}", "field 'req' is not valid UTF-8",
	    "bad UTF-8 is refused");
	is_int(validate_utf8_chars("\xc0\xaf", 2), -1, "an overlong form is not UTF-8");
	is_int(validate_utf8_chars("\xed\xa0\x80", 3), -1, "a surrogate is not UTF-8");
	is_int(validate_utf8_chars("\xe6\x97", 2), -1, "a cut character is not UTF-8");
	is_int(validate_utf8_chars("a\xc3\xa9\xf0\x9f\x98\x80", 7), 3,
	    "1-, 2- and 4-byte characters count one each");

	rule(&rule_table, "{\"req\":\"x\",\"type\":\"json\"}", NULL, "a choice passes");
	rule(&rule_table, "{\"req\":\"x\",\"type\":\"xml\"}",
	    "field 'type' must be 'txt' or 'json'", "another value names the two choices");
	rule(&rule_table, "{\"req\":\"x\",\"three\":\"d\"}",
	    "field 'three' must be one of 'a', 'b' or 'c'", "and three choices");
	rule(&rule_table, "{\"req\":\"x\",\"path\":\"a/../b\"}",
	    "field 'path' must not contain '..'", "a string's check function");

	rule(&rule_table, "{\"req\":\"x\",\"flag\":false}", NULL, "a bool passes");
	rule(&rule_table, "{\"req\":\"x\",\"flag\":\"yes\"}",
	    "field 'flag' must be true or false", "a string is no bool");
	rule(&rule_table, "{\"req\":\"x\",\"n\":10}", NULL, "an int at its max passes");
	rule(&rule_table, "{\"req\":\"x\",\"n\":0}",
	    "field 'n' must be a whole number from 1 to 10", "an int under its min");
	rule(&rule_table, "{\"req\":\"x\",\"n\":11}", "from 1 to 10", "an int over its max");
	rule(&rule_table, "{\"req\":\"x\",\"n\":\"5\"}", "from 1 to 10", "a string is no int");
	rule(&rule_table, "{\"req\":\"x\",\"n\":5.5}", "from 1 to 10",
	    "a fraction is no int");

	rule(&rule_table, "{\"req\":\"x\",\"list\":[\"a\",\"abc\"]}", NULL,
	    "a list within its bounds passes");
	rule(&rule_table, "{\"req\":\"x\",\"list\":[\"a\",\"b\",\"c\"]}",
	    "field 'list' has more than 2 entries", "too many entries");
	rule(&rule_table, "{\"req\":\"x\",\"list\":[\"abcd\"]}",
	    "field 'list' entry 1 is longer than 3 characters", "an entry too long");
	rule(&rule_table, "{\"req\":\"x\",\"list\":[\"a\",\"\"]}",
	    "field 'list' entry 2 must not be empty", "an empty entry");
	rule(&rule_table, "{\"req\":\"x\",\"list\":[\"..\"]}",
	    "field 'list' entry 1 must not contain '..'", "an entry's check function");
	rule(&rule_table, "{\"req\":\"x\",\"list\":[1]}",
	    "field 'list' must be a list of strings", "a number in a list");
	rule(&rule_table, "{\"req\":\"x\",\"list\":\"a\"}",
	    "field 'list' must be a list of strings", "a string is no list");

	rule(&rule_table, "{\"req\":\"x\",\"obj\":{\"k\":1}}", NULL, "an object passes");
	rule(&rule_table, "{\"req\":\"x\",\"obj\":[]}", "field 'obj' must be an object",
	    "an array is no object");

	rule(&rule_table, "{\"req\":", "not valid JSON", "truncated JSON");
	rule(&rule_table, "{\"req\":\"x\"} {}", "not valid JSON", "trailing characters");
	rule(&rule_table, "[1]", "request body must be a JSON object", "an array body");
	rule(&rule_table, "\"req\"", "request body must be a JSON object", "a string body");

	o = validate_json(&rule_table, "{\"req\":\"v\",\"flag\":true,\"n\":7}", 29, err,
	    sizeof(err));
	ok(o != NULL && strcmp(validate_str(o, "req"), "v") == 0 &&
	    validate_str(o, "text") == NULL, "validate_str: the value, NULL when absent");
	ok(o != NULL && validate_bool(o, "flag", 0) == 1 && validate_bool(o, "zz", 1) == 1,
	    "validate_bool: the value, else the default");
	ok(o != NULL && validate_long(o, "n", 0) == 7 && validate_long(o, "zz", -1) == -1,
	    "validate_long: the value, else the default");
	json_object_put(o);
}

/*
 * Runs validate_query over parameters "req=x" (unless only_second) and name=value
 * against a table of rule_fields; its return value, the answer (if any) in out.
 */
static int
query_run(const char *name, const char *value, int only_second, struct buf *out)
{
	static const struct validate_table t = {
		.fields = rule_fields, .what = "parameter"
	};
	struct http_param p[2] = { { "req", "x" }, { NULL, NULL } };
	struct http_req	 r;

	memset(&r, 0, sizeof(r));
	buf_release(out);
	buf_init(out);
	r.method = "GET";
	r.path = "/t";
	r.capture = out;
	p[1].name = (char *)name;
	p[1].value = (char *)value;
	r.params = only_second ? p + 1 : p;
	r.nparams = only_second ? 1 : 2;
	return validate_query(&r, &t);
}

/* The query string rules: validate_query answers 400 itself (captured here). */
static void
test_query(void)
{
	struct buf	 out;

	buf_init(&out);
	ok(query_run("flag", "maybe", 0, &out) == -1 && out.p != NULL &&
	    strstr(out.p, "Status: 400") != NULL &&
	    strstr(out.p, "parameter 'flag' must be 'true' or 'false'") != NULL,
	    "a bool parameter is 'true' or 'false' (400)");
	ok(query_run("page", "2", 0, &out) == -1 && out.p != NULL &&
	    strstr(out.p, "unknown parameter 'page'") != NULL,
	    "an unknown parameter is refused");
	ok(query_run("n", "11", 0, &out) == -1 && out.p != NULL &&
	    strstr(out.p, "parameter 'n' must be a whole number from 1 to 10") != NULL,
	    "an int parameter out of bounds");
	ok(query_run("n", "7", 0, &out) == 0 && out.p == NULL,
	    "good parameters pass, no answer");
	ok(query_run("n", "7", 1, &out) == -1 && out.p != NULL &&
	    strstr(out.p, "missing required parameter 'req'") != NULL,
	    "a required parameter");
	buf_release(&out);
}

/* Expects JSON text to parse and validate_json_unique to give rc and key want. */
static void
unique_is(const char *text, int rc, const char *want, const char *name)
{
	json_object	*o = json_tokener_parse(text);
	char		 key[128] = "unset";
	int		 got;

	if (o == NULL) {
		ok(0, "%s (the JSON does not parse)", name);
		return;
	}
	got = validate_json_unique(text, strlen(text), o, key, sizeof(key));
	ok(got == rc && (rc == 0 || strcmp(key, want) == 0), "%s", name);
	if (got != rc || (rc != 0 && strcmp(key, want) != 0))
		printf("#   rc %d, key '%s'\n", got, key);
	json_object_put(o);
}

/* Duplicate member names (json-c keeps the last one), UTF-8 scrubbing, library ids. */
static void
test_edge(void)
{
	struct validate_table t = { .fields = NULL, .allow_unknown = 1, .what = "field" };
	static const struct validate_field none[] = { { .name = NULL } };
	char	 s[64], err[256];
	json_object *o;
	struct buf big;
	int	 i;

	unique_is("{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":3},{\"a\":4}]}", 0, "",
	    "the same name in different objects is no duplicate");
	unique_is("{\"a\":1,\"a\":2}", -1, "a", "a name twice: refused and named");
	unique_is("{\"x\":[{\"k\":1,\"j\":0,\"k\":2}]}", -1, "k", "deep in an array too");
	unique_is("{\"ab\":1,\"a\\u0062\":2}", -1, "ab", "an escaped spelling is the same name");
	unique_is("{\"s\":\"a\\\":b\",\"t\":1}", 0, "",
	    "a quote and a colon inside a string are not a name");
	unique_is("{\"v\":\"\\\\\",\"w\":1}", 0, "", "an escaped backslash before a quote");
	unique_is("{'q':1,\"q\":2}", -1, "q", "single quotes (json-c takes them) count");
	unique_is("{\"c\" /* x: */ :1, // \"c\":\n\"d\":2}", 0, "",
	    "comments (json-c takes them) are skipped");
	unique_is("[\"a\", \"a\"]", 0, "", "equal strings in an array are no names");
	t.fields = none;
	snprintf(s, sizeof(s), "{\"repoUrl\":1,\"repoUrl\":2}");
	o = validate_json(&t, s, strlen(s), err, sizeof(err));
	ok(o == NULL && strstr(err, "the name 'repoUrl' appears twice") != NULL,
	    "validate_json refuses a duplicate and names it");
	json_object_put(o);
	/* Linear: 20,000 names in one object (a quadratic check would take seconds). */
	buf_init(&big);
	buf_adds(&big, "{");
	for (i = 0; i < 20000; i++)
		buf_printf(&big, "%s\"k%d\":%d", i > 0 ? "," : "", i, i);
	buf_adds(&big, ",\"k19999\":0}");
	o = json_tokener_parse(big.p);
	ok(o != NULL && validate_json_unique(big.p, big.len, o, s, sizeof(s)) == -1 &&
	    strcmp(s, "k19999") == 0, "20,001 names with one repeated: found");
	json_object_put(o);
	buf_release(&big);

	/*
	 * Brackets nested past the naming pass's depth (found by fuzz-json on text whose
	 * comments hid them from json-c): counted, never recorded past its stack.
	 */
	buf_init(&big);
	for (i = 0; i < 400; i++)
		buf_adds(&big, "[");
	buf_adds(&big, "{\"a\":1,\"a\":2}");
	for (i = 0; i < 400; i++)
		buf_adds(&big, "]");
	o = json_tokener_parse("{\"a\":1}");
	ok(validate_json_unique(big.p, big.len, o, s, sizeof(s)) == -1,
	    "nesting past the naming depth: counted without writing past the stack");
	json_object_put(o);
	buf_release(&big);

	snprintf(s, sizeof(s), "ok \xff\xfe caf\xc3\xa9 \xe2\x82 \xc0\xaf end");
	util_utf8_scrub(s);
	is_str(s, "ok ?? caf\xc3\xa9 ?? ?? end", "scrub: invalid bytes become '?'");
	ok(validate_utf8_chars(s, strlen(s)) != -1, "scrub: the result is UTF-8");

	ok(libid_check("/a/b", err, sizeof(err)) == 0, "id /a/b");
	ok(libid_check("/a/b/v1.2", err, sizeof(err)) == 0, "id with a version");
	ok(libid_check("/a/b@v1", err, sizeof(err)) == 0, "id with @version");
	ok(libid_check("/../../etc/passwd", err, sizeof(err)) == -1 &&
	    strstr(err, "malformed library id") != NULL, "id /../../etc/passwd: malformed");
	ok(libid_check("/a//b", err, sizeof(err)) == -1, "empty segment");
	ok(libid_check("/a/b/", err, sizeof(err)) == -1, "empty last segment");
	ok(libid_check("/a/./b", err, sizeof(err)) == -1, "'.' segment");
	ok(libid_check("a/b", err, sizeof(err)) == -1, "no leading '/'");
	ok(libid_check("/a", err, sizeof(err)) == -1, "one segment");
	ok(libid_check("/a/b\tc", err, sizeof(err)) == -1, "a control character");
}

/* The server's names (lib/http/http.c): what a Host header may be. */
static void
test_hosts(void)
{
	char	 name[256], port[8];

	ok(util_host_split("Docs.Example.com.:8080", 22, name, sizeof(name), port,
	    sizeof(port)) == 0 && strcmp(name, "docs.example.com") == 0 &&
	    strcmp(port, "8080") == 0, "split: lowercased, trailing dot dropped, port");
	ok(util_host_split("[::1]:3000", 10, name, sizeof(name), port, sizeof(port)) == 0 &&
	    strcmp(name, "::1") == 0 && strcmp(port, "3000") == 0, "split: [v6]:port");
	ok(util_host_split("a b", 3, name, sizeof(name), port, sizeof(port)) == -1,
	    "split: a blank is refused");
	ok(util_host_split("a:x", 3, name, sizeof(name), port, sizeof(port)) == -1,
	    "split: a port that is no number is refused");
	ok(http_host_known("127.0.0.1:3000", 14, NULL), "an IPv4 address");
	ok(http_host_known("[::1]", 5, NULL), "an IPv6 address");
	ok(http_host_known("LOCALHOST", 9, NULL), "localhost");
	ok(http_host_known("app.localhost:1", 15, NULL), "a name under .localhost");
	ok(!http_host_known("localhost.evil.example", 22, NULL), "not localhost.evil.example");
	ok(!http_host_known("evillocalhost", 13, NULL), "nor evillocalhost");
	ok(!http_host_known("docs.example.com", 16, NULL), "a DNS name, unlisted");
	ok(http_host_known("docs.example.com:8443", 21, "a.example, docs.example.com"),
	    "listed without a port: any port");
	ok(!http_host_known("docs.example.com:8443", 21, "docs.example.com:443"),
	    "listed with another port: refused");
	ok(http_host_known("docs.example.com", 16, "docs.example.com:443"),
	    "a Host without a port matches an entry on 443");
	ok(!http_host_known("example.com", 11, "docs.example.com"), "whole names only");
}

int
main(void)
{
	struct parse_req p;
	struct libid	 l;
	char		 err[512], big[70000], q[64];
	char		*settings;

	test_rules();
	test_query();
	ok(gitsrc_parse_request("{\"repoUrl\":\"https://github.com/a/b\"}", 36, &p,
	    err, sizeof(err)) == 0, "minimal request accepted");
	is_str(p.repo_url, "https://github.com/a/b", "repoUrl kept");
	is_str(p.branch, "", "branch defaults to the default branch");
	backend_req_release(&p);

	{
		const char *full = "{\"repoUrl\":\"http://git.internal:8080/team/"
		    "docs.git\",\"branch\":\"release/2.x\",\"folders\":[\"docs\"],"
		    "\"excludeFolders\":[\"docs/old\",\"node_modules\"],"
		    "\"excludeFiles\":[\"*.txt\"],\"indexSourceCode\":true}";

		ok(gitsrc_parse_request(full, strlen(full), &p, err,
		    sizeof(err)) == 0, "full request accepted");
		is_str(p.branch, "release/2.x", "branch kept");
		is_int(p.rules.nfolders, 1, "one folder");
		is_int(p.rules.nexclude_folders, 2, "two excluded folders");
		is_str(p.rules.exclude_files[0], "*.txt", "excluded file pattern");
		is_int(p.rules.index_source, 1, "indexSourceCode");
		settings = gitsrc_settings_json(&p);
		is_str(settings, "{\"folders\":[\"docs\"],\"excludeFolders\":"
		    "[\"docs/old\",\"node_modules\"],\"excludeFiles\":[\"*.txt\"],"
		    "\"indexSourceCode\":true}", "settings JSON is canonical");
		backend_req_release(&p);
		{
			struct select_rules r;

			ok(gitsrc_rules(settings, &r) == 0 &&
			    r.nexclude_folders == 2 && r.index_source == 1 &&
			    strcmp(r.folders[0], "docs") == 0,
			    "settings JSON reads back as rules");
			select_rules_release(&r);
		}
		free(settings);
	}

	parse_fails("", "not valid JSON", "empty body");
	parse_fails("{\"repoUrl\":", "not valid JSON", "truncated JSON");
	parse_fails("{\"repoUrl\":\"https://github.com/a/b\"} x", "not valid JSON",
	    "trailing junk");
	parse_fails("[1,2]", "must be a JSON object", "array body");
	parse_fails("{}", "missing required field 'repoUrl'", "no repoUrl");
	parse_fails("{\"repoUrl\":null}", "missing required field 'repoUrl'",
	    "null repoUrl");
	parse_fails("{\"repoUrl\":42}", "field 'repoUrl' must be a string",
	    "numeric repoUrl");
	parse_fails("{\"repoUrl\":\"not a url\"}", "'repoUrl' is not a URL",
	    "repoUrl not a URL");
	parse_fails("{\"repoUrl\":\"ftp://h/a/b\"}", "http or https",
	    "ftp repoUrl");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"branch\":7}",
	    "field 'branch' must be a string", "numeric branch");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"branch\":\"a..b\"}",
	    "field 'branch' is not a valid git branch name", "bad branch");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"folders\":\"docs\"}",
	    "field 'folders' must be a list of strings", "folders not a list");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"folders\":[1]}",
	    "'folders' must be a list of strings", "folders with a number");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"excludeFolders\":[\"../x\"]}",
	    "'excludeFolders' entry 1", "folder with ..");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"indexSourceCode\":\"yes\"}",
	    "field 'indexSourceCode' must be true or false", "string boolean");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"repourl\":\"x\"}",
	    "unknown field 'repourl'", "unknown field");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "{\"repoUrl\":\"https://h/a/", 24);
	memcpy(big + sizeof(big) - 3, "\"}", 2);
	parse_fails(big, "longer than 2048", "oversize repoUrl");

	id_is("https://github.com/curl/curl", "/curl/curl", "github.com");
	id_is("https://github.com/curl/curl.git", "/curl/curl", "github.com");
	id_is("https://GitLab.Example.com/group/sub/proj.git/", "/sub/proj",
	    "gitlab.example.com");
	id_is("http://127.0.0.1:8080/git/private/acme/docs.git", "/acme/docs",
	    "127.0.0.1:8080");
	id_fails("https://user:tok@github.com/a/b", "must not carry credentials");
	id_fails("https://github.com/onlyone", "must end in /owner/repo");
	id_fails("https://github.com/a/b?x=1", "must not have a query");
	id_fails("https://github.com/a/b%20c", "must end in /owner/repo");
	id_fails("file:///srv/a/b", "http or https");

	/* the normal form of a client's id (libid.h; more in t/unit/test-policy.c) */
	ok(libid_normalize("/a/b", &l, err, sizeof(err)) == 0 && strcmp(l.id, "/a/b") == 0 &&
	    !l.versioned, "plain id");
	libid_release(&l);
	ok(libid_normalize("/a/b/v1.2.3", &l, err, sizeof(err)) == 0 &&
	    strcmp(l.id, "/a/b/v1.2.3") == 0 && l.baselen == 4 && l.versioned,
	    "version id: /version");
	libid_release(&l);
	ok(libid_normalize("/a/B@v2", &l, err, sizeof(err)) == 0 &&
	    strcmp(l.id, "/a/B/v2") == 0 && strcmp(l.key, "/a/b/v2") == 0,
	    "version id: @version made /version, key in lower case");
	libid_release(&l);
	ok(libid_normalize("/a/b@", &l, err, sizeof(err)) == 0 && strcmp(l.id, "/a/b") == 0 &&
	    !l.versioned, "version id: an empty version is none");
	libid_release(&l);
	ok(libid_normalize("a/b", &l, err, sizeof(err)) == -1, "no leading slash");
	ok(libid_normalize("/a", &l, err, sizeof(err)) == -1, "no repo");
	ok(libid_normalize("//b", &l, err, sizeof(err)) == -1, "empty owner");
	ok(libid_normalize("/a/", &l, err, sizeof(err)) == -1, "empty repo");
	ok(libid_normalize("/a/b/v2/", &l, err, sizeof(err)) == -1, "trailing slash refused");

	snprintf(q, sizeof(q), "a+b%%20c%%2Fd");
	ok(http_urldecode(q) == 0 && strcmp(q, "a b c/d") == 0, "urldecode");
	snprintf(q, sizeof(q), "bad%%zz");
	ok(http_urldecode(q) == -1, "bad escape refused");
	snprintf(q, sizeof(q), "nul%%00");
	ok(http_urldecode(q) == -1, "NUL byte refused");
	test_edge();
	test_hosts();
	return tap_done();
}
