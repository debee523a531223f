/*
 * test-entry.c: the one validator of source entries (lib/sources/entry.c): every refusal of the
 * issue's list names its field, the ids of each type, the defaults of the stored settings,
 * and the multipart/form-data splitter of uploads (lib/http/multipart.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/multipart.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/gitsrc.h"
#include "sources/request.h"
#include "tap.h"

/* Expects entry json to be refused with an error containing want. */
static void
refused(const char *json, const char *want)
{
	struct parse_req p;
	char		 err[600] = "";
	int		 rc;

	rc = entry_parse_text(json, strlen(json), &p, err, sizeof(err));
	ok(rc == -1 && strstr(err, want) != NULL, "refused: %s", json);
	if (rc != -1 || strstr(err, want) == NULL)
		printf("#   rc %d, error '%s', want '%s'\n", rc, err, want);
	if (rc == 0)
		backend_req_release(&p);
}

/* Expects entry json to be accepted with id, type and settings (NULL: not checked). */
static void
accepted(const char *json, const char *type, const char *id, const char *settings)
{
	struct parse_req p;
	char		 err[600] = "";
	int		 rc;

	rc = entry_parse_text(json, strlen(json), &p, err, sizeof(err));
	ok(rc == 0 && strcmp(p.type, type) == 0 && strcmp(p.id, id) == 0 &&
	    (settings == NULL || (p.settings != NULL && strcmp(p.settings,
	    settings) == 0)), "accepted as %s %s: %s", type, id, json);
	if (rc != 0)
		printf("#   error: %s\n", err);
	else {
		if (strcmp(p.id, id) != 0 || strcmp(p.type, type) != 0)
			printf("#   got %s %s\n", p.type, p.id);
		if (settings != NULL && (p.settings == NULL ||
		    strcmp(p.settings, settings) != 0))
			printf("#   settings %s\n", p.settings ? p.settings : "NULL");
		backend_req_release(&p);
	}
}

static void
test_refusals(void)
{
	refused("[]", "must be a JSON object");
	refused("{\"type\":\"svn\",\"url\":\"https://h/a/b\"}", "field 'type' must be one of");
	refused("{\"type\":7,\"url\":\"https://h/a/b\"}", "field 'type' must be a string");
	refused("{\"type\":\"website\"}", "missing required field 'url'");
	refused("{}", "missing required field 'url'");
	refused("{\"url\":\"https://h/a/b\",\"repoUrl\":\"https://h/a/b\"}",
	    "not both");
	refused("{\"url\":\"https://h/a/b\",\"maxDepth\":2}",
	    "field 'maxDepth' is not a field of a git source (website sources have it)");
	refused("{\"type\":\"website\",\"url\":\"https://h/\",\"branch\":\"main\"}",
	    "field 'branch' is not a field of a website source (git sources have it)");
	refused("{\"type\":\"openapi\",\"url\":\"https://h/o.json\",\"maxPages\":3}",
	    "field 'maxPages' is not a field of a openapi source");
	refused("{\"type\":\"llmstxt\",\"url\":\"https://h/llms.txt\",\"spaceKey\":\"A\"}",
	    "field 'spaceKey' is not a field of a llmstxt source (wiki sources have it)");
	refused("{\"type\":\"website\",\"url\":\"https://h/\",\"colour\":1}",
	    "unknown field 'colour'");
	refused("{\"type\":\"website\",\"url\":\"https://h/\",\"maxPages\":\"10\"}",
	    "field 'maxPages' must be a whole number");
	refused("{\"type\":\"website\",\"url\":\"https://h/\",\"maxPages\":0}",
	    "field 'maxPages' must be a whole number from 1");
	refused("{\"type\":\"website\",\"url\":\"https://h/\",\"maxDepth\":-1}",
	    "field 'maxDepth' must be a whole number from 0 to 20");
	refused("{\"type\":\"website\",\"url\":\"https://h/\",\"excludePatterns\":\"/a\"}",
	    "field 'excludePatterns'");
	refused("{\"type\":\"website\",\"url\":42}", "field 'url' must be a string");
	refused("{\"type\":\"website\",\"url\":\"ftp://h/\"}",
	    "field 'url' must be an http or https URL");
	refused("{\"type\":\"website\",\"url\":\"https://u:p@h/\"}",
	    "field 'url' must not carry credentials");
	refused("{\"type\":\"website\",\"url\":\"https://h/\",\"title\":\"\"}",
	    "field 'title'");
	refused("{\"type\":\"llmstxt\",\"url\":\"https://h/docs/readme.txt\"}",
	    "field 'url' must point to a file named llms.txt, llms-full.txt or "
	    "llms-small.txt");
	refused("{\"type\":\"llmstxt\",\"repoUrl\":\"https://h/llms.txt.bak\"}",
	    "field 'repoUrl' must point to a file named llms.txt");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\"}",
	    "a wiki source needs 'spaceKey' (a whole space) or 'pageUrls' (pages)");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\",\"spaceKey\":\"ENG\","
	    "\"pageUrls\":[\"https://w/x\"]}", "'spaceKey' or 'pageUrls', not both");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\",\"spaceKey\":\"EN G\"}",
	    "field 'spaceKey' must be letters");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\",\"spaceKey\":\"ENG\","
	    "\"includeSubPages\":true}", "'includeSubPages' goes with 'pageUrls'");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\",\"pageUrls\":[\"https://w/x\"],"
	    "\"spaceId\":\"1\"}", "'spaceId' and 'spaceName' go with 'spaceKey'");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\",\"pageUrls\":[]}",
	    "field 'pageUrls' must list at least one page");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\",\"pageUrls\":[\"notaurl\"]}",
	    "field 'pageUrls[0]'");
	refused("{\"type\":\"wiki\",\"url\":\"https://w/\",\"pageUrls\":[\"https://w/a\","
	    "3]}", "field 'pageUrls'");
	refused("{\"url\":\"https://github.com/a/b\",\"folders\":[\"../x\"]}",
	    "'folders' entry 1");
	refused("{\"url\":\"https://github.com/a\"}", "must end in /owner/repo");
}

static void
test_ids(void)
{
	accepted("{\"url\":\"https://github.com/Acme/Docs.git\"}", "git", "/Acme/Docs",
	    NULL);
	accepted("{\"type\":\"git\",\"repoUrl\":\"https://github.com/a/b\",\"title\":\"B\","
	    "\"branch\":\"dev\"}", "git", "/a/b", NULL);
	accepted("{\"type\":\"website\",\"url\":\"https://Docs.Example.com/Guide/\"}",
	    "website", "/websites/docs_example_com_guide",
	    "{\"maxPages\":100,\"maxDepth\":3,\"excludePatterns\":[]}");
	accepted("{\"type\":\"website\",\"url\":\"http://127.0.0.1:8080/typer/index.html\","
	    "\"maxPages\":5,\"maxDepth\":0,\"excludePatterns\":[\"/blog/*\"]}", "website",
	    "/websites/127_0_0_1_8080_typer",
	    "{\"maxPages\":5,\"maxDepth\":0,\"excludePatterns\":[\"/blog/*\"]}");
	accepted("{\"type\":\"website\",\"url\":\"https://example.com\"}", "website",
	    "/websites/example_com", NULL);
	accepted("{\"type\":\"llmstxt\",\"url\":\"https://docs.example.com/llms.txt\"}",
	    "llmstxt", "/llmstxt/docs_example_com-llms.txt", "{\"maxPages\":100}");
	accepted("{\"type\":\"llmstxt\",\"url\":\"https://x.io/v2/LLMS-FULL.txt\","
	    "\"maxPages\":7}", "llmstxt", "/llmstxt/x_io_v2-llms-full.txt",
	    "{\"maxPages\":7}");
	accepted("{\"type\":\"openapi\",\"url\":\"https://api.example.com/v1/openapi.yaml\"}",
	    "openapi", "/openapi/api_example_com_v1", "{}");
	accepted("{\"type\":\"wiki\",\"url\":\"https://w.example.com/wiki\","
	    "\"spaceKey\":\"ENG\"}", "wiki", "/wiki/eng", "{\"spaceKey\":\"ENG\"}");
	accepted("{\"type\":\"wiki\",\"url\":\"https://w/\",\"pageUrls\":"
	    "[\"https://w/wiki/spaces/ENG/pages/123/Intro\"],\"title\":\"Onboarding Guide\"}",
	    "wiki", "/wiki/onboarding_guide",
	    "{\"pageUrls\":[\"https://w/wiki/spaces/ENG/pages/123/Intro\"],"
	    "\"includeSubPages\":false}");
	accepted("{\"type\":\"wiki\",\"url\":\"https://w/\",\"pageUrls\":"
	    "[\"https://w/pages/viewpage.action?pageId=42\"],\"includeSubPages\":true}",
	    "wiki", "/wiki/pages_viewpage_action_pageid_42",
	    "{\"pageUrls\":[\"https://w/pages/viewpage.action?pageId=42\"],"
	    "\"includeSubPages\":true}");
}

static void
test_upload_id(void)
{
	char	 id[512], err[256];

	ok(entry_upload_id("Pet Store API", "x.yaml", id, sizeof(id), err,
	    sizeof(err)) == 0 && strcmp(id, "/openapi/pet_store_api") == 0,
	    "an upload's id comes from its title: %s", id);
	ok(entry_upload_id(NULL, "petstore-expanded.yaml", id, sizeof(id), err,
	    sizeof(err)) == 0 && strcmp(id, "/openapi/petstore_expanded") == 0,
	    "... else from its file name without the extension: %s", id);
	ok(entry_upload_id("!!!", NULL, id, sizeof(id), err, sizeof(err)) == -1 &&
	    strstr(err, "projectTitle") != NULL, "nothing usable is refused: %s", err);
}

static void
test_multipart(void)
{
	static const char body[] =
	    "preamble\r\n--XyZ\r\n"
	    "Content-Disposition: form-data; name=\"projectTitle\"\r\n\r\n"
	    "Pets\r\n--XyZ\r\n"
	    "Content-Disposition: form-data; name=\"openapiFile\"; filename=\"p.yaml\"\r\n"
	    "Content-Type: application/yaml\r\n\r\n"
	    "openapi: 3.0.0\r\ninfo: {}\r\n--XyZ--\r\n";
	struct multipart_part parts[MULTIPART_MAX_PARTS];
	const struct multipart_part *f;
	char		 err[256] = "";
	size_t		 n;

	ok(multipart_parse("multipart/form-data; boundary=XyZ", body, sizeof(body) - 1,
	    parts, &n, err, sizeof(err)) == 0 && n == 2, "two parts: %s", err);
	f = multipart_find(parts, n, "openapiFile");
	ok(f != NULL && strcmp(f->filename, "p.yaml") == 0 &&
	    strcmp(f->type, "application/yaml") == 0 && f->len == 24 &&
	    memcmp(f->data, "openapi: 3.0.0\r\ninfo: {}", 24) == 0,
	    "the file part: its name, type and bytes (CRLF inside kept)");
	f = multipart_find(parts, n, "projectTitle");
	ok(f != NULL && f->filename[0] == '\0' && f->len == 4 &&
	    memcmp(f->data, "Pets", 4) == 0, "the text part");
	ok(multipart_parse("multipart/form-data; boundary=\"XyZ\"", body,
	    sizeof(body) - 1, parts, &n, err, sizeof(err)) == 0 && n == 2,
	    "a quoted boundary");
	ok(multipart_parse("application/json", body, sizeof(body) - 1, parts, &n, err,
	    sizeof(err)) == -1 && strstr(err, "multipart/form-data") != NULL,
	    "another type is refused: %s", err);
	ok(multipart_parse("multipart/form-data; boundary=Other", body,
	    sizeof(body) - 1, parts, &n, err, sizeof(err)) == -1 &&
	    strstr(err, "malformed") != NULL, "a missing boundary: %s", err);
	ok(multipart_parse("multipart/form-data; boundary=XyZ", body, 60, parts, &n,
	    err, sizeof(err)) == -1, "a body cut short");
	ok(multipart_parse("multipart/form-data; boundary=XyZ",
	    "--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--", 43, parts, &n, err,
	    sizeof(err)) == -1 && strstr(err, "Content-Disposition") != NULL,
	    "a part without Content-Disposition: %s", err);
}

/*
 * The source types are their back ends' declarations: each says what it is and what its
 * URL is, each field has a label and a doc, and GET /api/sources/types shows exactly the
 * registry's types, the common fields first.
 */
static void
test_types(void)
{
	const struct backend_ops *t;
	const struct validate_field *f;
	json_object	*a = entry_types_json(), *o, *fields, *first;
	const char	*svn = "{\"type\":\"svn\",\"url\":\"https://h/a/b\"}";
	char		 err[256];
	size_t		 i, nfields;
	int		 named;

	for (i = 0; (t = backend_at(i)) != NULL; i++) {
		ok(t->label != NULL && t->about != NULL && t->url_doc != NULL &&
		    t->entry != NULL && t->fields != NULL,
		    "type %s: label, about, URL doc, fields and id rule", t->type);
		named = 1;
		nfields = 0;
		for (f = t->fields; f->name != NULL; f++, nfields++)
			named &= f->label != NULL && f->doc != NULL;
		ok(named, "type %s: each of its %zu fields has a label and a doc", t->type,
		    nfields);
		o = json_object_array_get_idx(a, i);
		ok(o != NULL && strcmp(json_object_get_string(json_object_object_get(o,
		    "type")), t->type) == 0 && json_object_object_get_ex(o, "fields",
		    &fields) && json_object_array_length(fields) >= nfields + 4 &&
		    (first = json_object_array_get_idx(fields, 0)) != NULL &&
		    strcmp(json_object_get_string(json_object_object_get(first, "name")),
		    "type") == 0, "GET /api/sources/types: %s, the common fields first",
		    t->type);
		/* The error naming the types lists this one. */
		ok(entry_parse_text(svn, strlen(svn), &(struct parse_req){ 0 }, err,
		    sizeof(err)) == -1 &&
		    strstr(err, t->type) != NULL, "the unknown type's error names %s",
		    t->type);
	}
	ok(i >= 5 && json_object_array_length(a) == i,
	    "the JSON has the registry's %zu types", i);
	json_object_put(a);
}

int
main(void)
{
	test_types();
	test_refusals();
	test_ids();
	test_upload_id();
	test_multipart();
	return tap_done();
}
