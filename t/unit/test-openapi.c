/*
 * test-openapi.c: lib/parse/openapi.c and openapi_doc.c. The snippets of real specs from the
 * fixtures (titles, anchors, parameters, compact schemas, curl lines, webhooks, the
 * overview), a YAML spec and its JSON twin giving the same snippets, $refs (JSON pointer
 * escapes, cycles cut as "→ Name", unresolved ones named, files bundled under
 * x-ctxd-files, the keys of relative files), and the loader's bounds (a billion-laughs
 * YAML, deep nesting, not a spec).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "doc-helpers.h"
#include "parse/openapi.h"
#include "parse/parse.h"
#include "tap.h"

static char *
fixture(const char *rel, size_t *len)
{
	const char	*corpora = getenv("CORPORA");
	char		 path[4096], *data = NULL;

	snprintf(path, sizeof(path), "%s/fixtures/openapi/%s", corpora != NULL ? corpora :
	    "t/corpora", rel);
	if (util_read_file(path, 64 << 20, &data, len) == -1)
		return NULL;
	return data;
}

/* Parses a fixture (or a literal spec when rel starts with '{' or "openapi"). */
static int
spec(const char *rel, struct doc *d)
{
	char	*data = NULL;
	size_t	 len;
	int	 rc = -1;

	memset(d, 0, sizeof(*d));
	if (rel[0] == '{' || strncmp(rel, "openapi", 7) == 0 || strncmp(rel, "swagger", 7) == 0)
		rc = doc_parse_as(DOC_FORMAT_OPENAPI, "inline.json", rel, strlen(rel), d, NULL);
	else if ((data = fixture(rel, &len)) != NULL)
		rc = doc_parse_as(DOC_FORMAT_OPENAPI, rel, data, len, d, NULL);
	free(data);
	ok(rc == 0, "parse %.40s", rel);
	return rc;
}

static const struct doc_section *
anchor(const struct doc *d, const char *a)
{
	size_t	 i;

	for (i = 0; i < d->nsecs; i++)
		if (strcmp(d->secs[i].anchor, a) == 0)
			return &d->secs[i];
	return NULL;
}

static const char *
code(const struct doc_section *s)
{
	return s != NULL && s->ncode > 0 ? s->code[0].code : NULL;
}

static int
has(const struct doc_section *s, const char *needle)
{
	return s != NULL && strstr(s->text, needle) != NULL;
}

static void
test_petstore30(void)
{
	struct doc	 d;
	const struct doc_section *s;

	if (spec("learn-openapis/examples/v3.0/petstore.yaml", &d) == -1)
		return;
	is_str(d.title, "Swagger Petstore", "3.0: the document title is info.title");
	is_int(d.nsecs, 4, "3.0: the overview and one section per operation");
	s = anchor(&d, "overview");
	ok(has(s, "Swagger Petstore, version 1.0.0 (OpenAPI 3.0.0): 3 operations"),
	    "overview: title, version, count");
	ok(has(s, "Servers:\n- http://petstore.swagger.io/v1"), "overview: servers");
	s = anchor(&d, "listPets");
	is_str(s_title(s), "GET /pets — List all pets", "title METHOD path — summary");
	is_str(s != NULL ? s->breadcrumb : NULL,
	    "Swagger Petstore > pets > GET /pets — List all pets",
	    "breadcrumbs: info.title > tag > operation");
	ok(has(s, "- `limit` (query): integer(int32) — How many items to return at one "
	    "time (max 100)"), "a parameter: name, in, type, description");
	ok(has(s, "- `200`: A paged array of pets — [Pet { id: integer(int64) (required), "
	    "name: string (required), tag: string }]"), "a response with its compact schema");
	is_str(code(s), "curl -X GET 'http://petstore.swagger.io/v1/pets'",
	    "curl on the first server");
	s = anchor(&d, "showPetById");
	ok(has(s, "- `petId` (path, required): string — The id of the pet to retrieve"),
	    "a required path parameter");
	is_str(code(s), "curl -X GET 'http://petstore.swagger.io/v1/pets/<petId>'",
	    "path parameters become placeholders");
	s = anchor(&d, "createPets");
	ok(has(s, "Request body (application/json, required): Pet { id: integer(int64) "
	    "(required), name: string (required), tag: string }"), "the request body");
	is_str(code(s), "curl -X POST 'http://petstore.swagger.io/v1/pets' \\\n"
	    "  -H 'Content-Type: application/json' \\\n"
	    "  -d '{\"id\":0,\"name\":\"string\",\"tag\":\"string\"}'",
	    "curl with a JSON body made from the schema");
	doc_release(&d);
}

static void
test_swagger20(void)
{
	struct doc	 d;
	const struct doc_section *s;

	if (spec("learn-openapis/examples/v2.0/json/petstore-expanded.json", &d) == -1)
		return;
	s = anchor(&d, "findPets");
	ok(s != NULL && strncmp(s->title, "GET /pets — ", 12) == 0,
	    "2.0: operation title");
	ok(has(s, "- `tags` (query): [string] — tags to filter by"),
	    "2.0: a parameter's type from the parameter itself");
	is_str(code(s), "curl -X GET 'http://petstore.swagger.io/api/pets'",
	    "2.0: curl on scheme://host/basePath, no body header without a body");
	s = anchor(&d, "addPet");
	ok(has(s, "Request body (application/json, required): NewPet { name: string "
	    "(required), tag: string } — Pet to add to the store"),
	    "2.0: the body parameter is the request body");
	ok(has(s, "- `200`: pet response — Pet NewPet { name: string (required), tag: "
	    "string } & { id: integer(int64) (required) }"), "2.0: allOf parts joined by &");
	doc_release(&d);
}

/* The sections of two docs are the same (title, anchor, breadcrumb, text, code). */
static int
same_doc(const struct doc *a, const struct doc *b)
{
	size_t	 i;

	if (a->nsecs != b->nsecs || strcmp(a->title, b->title) != 0)
		return 0;
	for (i = 0; i < a->nsecs; i++)
		if (strcmp(a->secs[i].title, b->secs[i].title) != 0 ||
		    strcmp(a->secs[i].anchor, b->secs[i].anchor) != 0 ||
		    strcmp(a->secs[i].breadcrumb, b->secs[i].breadcrumb) != 0 ||
		    strcmp(a->secs[i].text, b->secs[i].text) != 0 ||
		    a->secs[i].ncode != b->secs[i].ncode || (a->secs[i].ncode > 0 &&
		    strcmp(a->secs[i].code[0].code, b->secs[i].code[0].code) != 0))
			return 0;
	return 1;
}

static void
test_twins(void)
{
	static const char *const twins[] = {
		"v3.0/petstore", "v3.0/petstore-expanded", "v3.0/link-example",
		"v3.0/uspto", "v3.0/api-with-examples", "v3.1/webhook-example",
		"v2.0/JSON/petstore-minimal", NULL
	};
	struct doc	 dj, dy;
	char		 pj[256], py[256], *p;
	size_t		 i;

	for (i = 0; twins[i] != NULL; i++) {
		snprintf(pj, sizeof(pj), "learn-openapis/examples/%s.json", twins[i]);
		snprintf(py, sizeof(py), "learn-openapis/examples/%s.yaml", twins[i]);
		if ((p = strstr(pj, "/JSON/")) != NULL)
			memcpy(p, "/json/", 6);
		if ((p = strstr(py, "/JSON/")) != NULL)
			memcpy(p, "/yaml/", 6);
		if (spec(pj, &dj) == -1)
			continue;
		if (spec(py, &dy) == 0) {
			ok(same_doc(&dj, &dy) && dj.nsecs > 1,
			    "%s: the YAML gives the JSON twin's snippets", twins[i]);
			doc_release(&dy);
		}
		doc_release(&dj);
	}
}

static void
test_webhooks(void)
{
	struct doc	 d;
	const struct doc_section *s;

	if (spec("learn-openapis/examples/v3.1/tictactoe.yaml", &d) == -1)
		return;
	s = anchor(&d, "webhook-markOperationWebhook");
	is_str(s_title(s), "POST markStatus (webhook) — Status of mark operation",
	    "3.1: a webhook's section, its anchor webhook-operationId");
	is_str(s != NULL ? s->breadcrumb : NULL, "Tic Tac Toe > Webhooks > POST markStatus "
	    "(webhook) — Status of mark operation", "... under Webhooks");
	ok(s != NULL && s->ncode == 0, "... without a curl example");
	s = anchor(&d, "get-board");
	ok(has(s, "status { winner: string (one of: ., X, O), board: [[string (one of: ., "
	    "X, O)]] }"), "arrays are not levels: [[mark]] shown in full");
	is_str(code(s), "curl -X GET '$BASE_URL/board' \\\n  -H 'api-key: $API_KEY'",
	    "no server: $BASE_URL; an apiKey header from the security requirement");
	s = anchor(&d, "overview");
	ok(has(s, "- bearerHttpAuthentication: http Bearer — Bearer token using a JWT"),
	    "overview: security schemes");
	doc_release(&d);
}

/* A callback is a section under its operation; a response's links name their target. */
static void
test_callbacks_links(void)
{
	struct doc	 d;
	const struct doc_section *s;

	if (spec("learn-openapis/examples/v3.0/callback-example.yaml", &d) == -1)
		return;
	s = anchor(&d, "callback-post-streams-onData-post");
	is_str(s_title(s), "POST {$request.query.callbackUrl}/data (callback onData of POST "
	    "/streams)", "3.0: a callback's section: method, URL expression, name, operation");
	is_str(s != NULL ? s->breadcrumb : NULL, "Callback Example > POST /streams > POST "
	    "{$request.query.callbackUrl}/data (callback onData of POST /streams)",
	    "... under its operation");
	ok(has(s, "Request body (application/json): { timestamp: string(date-time), "
	    "userData: string } — subscription payload"), "... with the body the API sends");
	ok(has(s, "- `202`: Your server implementation should return this HTTP status code "
	    "if the data was received successfully"), "... and the answers it expects");
	ok(s != NULL && s->ncode == 0, "... and no curl line (the API makes the request)");
	s = anchor(&d, "post-streams");
	ok(s != NULL && s->ncode == 1 && !has(s, "timestamp"),
	    "the operation keeps its curl line, the callback's body is not in its text");
	doc_release(&d);
	if (spec("learn-openapis/examples/v3.0/link-example.yaml", &d) == -1)
		return;
	s = anchor(&d, "getRepositoriesByOwner");
	ok(has(s, "- `200`: repositories owned by the supplied user — [repository { slug: "
	    "string, owner: user { username: string, uuid: string } }]; links: "
	    "`userRepository` → `getRepository` (username: `$response.body#/owner/username`, "
	    "slug: `$response.body#/slug`)"), "a response's link ($ref to components/links): "
	    "its target operation and parameters");
	doc_release(&d);
}

static void
test_refs(void)
{
	struct doc	 d;
	const struct doc_section *s;

	if (spec("{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"R\",\"version\":\"1\"},"
	    "\"servers\":[{\"url\":\"https://{host}/v1/\",\"variables\":{\"host\":"
	    "{\"default\":\"api.example.com\"}}}],"
	    "\"paths\":{\"/nodes/{id}\":{\"parameters\":[{\"$ref\":\"#/components/"
	    "parameters/Id\"}],\"get\":{\"operationId\":\"getNode\",\"responses\":{\"200\":"
	    "{\"description\":\"ok\",\"content\":{\"application/json\":{\"schema\":"
	    "{\"$ref\":\"#/components/schemas/Node\"}}}},\"404\":{\"$ref\":\"#/paths/~1nodes"
	    "~1{id}/get/responses/200\"},\"500\":{\"description\":\"x\",\"content\":{"
	    "\"application/json\":{\"schema\":{\"$ref\":\"#/components/schemas/a~1b~0c\"}}}},"
	    "\"502\":{\"description\":\"y\",\"content\":{\"application/json\":{\"schema\":"
	    "{\"$ref\":\"#/components/schemas/Missing\"}}}},\"503\":{\"description\":\"z\","
	    "\"content\":{\"application/json\":{\"schema\":{\"$ref\":\"Other.yaml#/Thing\"}}}}"
	    "}}}},\"components\":{\"parameters\":{\"Id\":{\"name\":\"id\",\"in\":\"path\","
	    "\"required\":true,\"schema\":{\"type\":\"string\"}}},\"schemas\":{\"Node\":{"
	    "\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},\"next\":{"
	    "\"$ref\":\"#/components/schemas/Node\"}}},\"a/b~c\":{\"type\":\"integer\"}}}}",
	    &d) == -1)
		return;
	s = anchor(&d, "getNode");
	ok(has(s, "- `id` (path, required): string"), "a path-level parameter by $ref");
	ok(has(s, "- `200`: ok — Node { value: string, next: → Node }"),
	    "a cycle is cut with a reference");
	ok(has(s, "- `404`: ok — Node {"), "a $ref with ~1 escapes (a path) resolves");
	ok(has(s, "- `500`: x — integer"), "a $ref with ~1 and ~0 escapes resolves");
	ok(has(s, "- `502`: y — → Missing"), "an unresolved $ref is named");
	ok(has(s, "- `503`: z — → Thing"), "a $ref to a file that is not there is named");
	is_str(code(s), "curl -X GET 'https://api.example.com/v1/nodes/<id>'",
	    "server variables filled with their defaults");
	doc_release(&d);
	/* the same spec with the other file bundled */
	if (spec("{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"B\",\"version\":\"1\"},\"paths\":"
	    "{\"/t\":{\"get\":{\"summary\":\"Get t\",\"responses\":{\"200\":{\"description\":"
	    "\"ok\",\"content\":{\"application/json\":{\"schema\":{\"$ref\":"
	    "\"sub/Other.yaml#/Thing\"}}}}}}}},\"x-ctxd-files\":{\"sub/Other.yaml\":{\"Thing\":"
	    "{\"type\":\"object\",\"properties\":{\"up\":{\"$ref\":\"../Top.yaml\"}}}},"
	    "\"Top.yaml\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}}}}}",
	    &d) == -1)
		return;
	s = anchor(&d, "get-t");
	is_str(s_title(s), "GET /t — Get t", "no operationId: the method-path anchor");
	ok(has(s, "- `200`: ok — Thing { up: Top { n: number } }"),
	    "$refs into bundled files, relative to the file they are in");
	doc_release(&d);
}

static void
test_relative_server(void)
{
	struct doc	 d;

	if (spec("{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"S\",\"version\":\"1\"},"
	    "\"servers\":[{\"url\":\"/api/v3\"}],\"x-ctxd-url\":\"https://h.example:8443/"
	    "specs/a.json?x=1\",\"paths\":{\"/x\":{\"get\":{\"operationId\":\"x\"}}}}",
	    &d) == 0) {
		is_str(code(anchor(&d, "x")), "curl -X GET 'https://h.example:8443/api/v3/x'",
		    "a relative server resolves on the spec's URL");
		doc_release(&d);
	}
	if (spec("{\"swagger\":\"2.0\",\"info\":{\"title\":\"S\",\"version\":\"1\"},"
	    "\"basePath\":\"/v2\",\"x-ctxd-url\":\"http://127.0.0.1:9/s/a.yaml\",\"paths\":"
	    "{\"/x\":{\"get\":{\"operationId\":\"x\"}}}}", &d) == 0) {
		is_str(code(anchor(&d, "x")), "curl -X GET 'http://127.0.0.1:9/v2/x'",
		    "2.0 without host: the host serving the spec");
		doc_release(&d);
	}
}

/* JSON nulls where strings belong (fuzz-openapi found the first: a NULL to strlen). */
static void
test_nulls(void)
{
	struct doc	 d;

	if (spec("{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"S\",\"version\":\"1\"},"
	    "\"paths\":{\"/x\":{\"get\":{\"operationId\":\"x\",\"tags\":[null,\"t\"]}}}}",
	    &d) == 0) {
		ok(has(anchor(&d, "x"), "Tags: t") && !has(anchor(&d, "x"), "Tags: ,"),
		    "a null tag is left out");
		doc_release(&d);
	}
	if (spec("{\"swagger\":\"2.0\",\"info\":{\"title\":\"S\",\"version\":\"1\"},"
	    "\"host\":\"h.example\",\"schemes\":[null],\"consumes\":[null],\"paths\":"
	    "{\"/x\":{\"post\":{\"operationId\":\"x\",\"parameters\":[{\"in\":\"body\","
	    "\"name\":\"b\",\"schema\":{\"type\":\"object\"}}]}}}}", &d) == 0) {
		ok(code(anchor(&d, "x")) != NULL && strncmp(code(anchor(&d, "x")),
		    "curl -X POST 'https://h.example/x'", 34) == 0, "a null scheme: https");
		doc_release(&d);
	}
}

static void
test_ref_keys(void)
{
	char	 k[OPENAPI_KEY_MAX + 1];

	is_int(openapi_ref_key("", "#/a/b", k, sizeof(k)), 0, "a local ref: 0");
	ok(openapi_ref_key("", "Pet.yaml", k, sizeof(k)) == 1 && strcmp(k, "Pet.yaml") == 0,
	    "a file next to the spec");
	ok(openapi_ref_key("", "./x/../Pet.yaml#/a", k, sizeof(k)) == 1 &&
	    strcmp(k, "Pet.yaml") == 0, ". and .. resolved");
	ok(openapi_ref_key("", "../common/Error.yaml", k, sizeof(k)) == 1 &&
	    strcmp(k, "../common/Error.yaml") == 0, "one folder up");
	ok(openapi_ref_key("../common/Error.yaml", "Pet.yaml", k, sizeof(k)) == 1 &&
	    strcmp(k, "../common/Pet.yaml") == 0, "relative to the file of the ref");
	ok(openapi_ref_key("a/b.yaml", "../c.yaml", k, sizeof(k)) == 1 &&
	    strcmp(k, "c.yaml") == 0, "back up to the spec's folder");
	is_int(openapi_ref_key("", "../../x.yaml", k, sizeof(k)), -1, "two folders up: no");
	is_int(openapi_ref_key("../a.yaml", "../x.yaml", k, sizeof(k)), -1,
	    "two folders up from a file one up: no");
	is_int(openapi_ref_key("", "http://169.254.169.254/x.yaml", k, sizeof(k)), -1,
	    "an absolute URL: no");
	is_int(openapi_ref_key("", "//evil.example/x.yaml", k, sizeof(k)), -1,
	    "a network-path reference: no");
	is_int(openapi_ref_key("", "/etc/passwd", k, sizeof(k)), -1, "an absolute path: no");
	is_int(openapi_ref_key("", "x.yaml?a=1", k, sizeof(k)), -1, "a query: no");
}

static void
test_load_bounds(void)
{
	struct buf	 b;
	json_object	*t = NULL;
	char		 err[256];
	int		 i;

	buf_init(&b);
	/* billion laughs: 9 levels of 10 aliases each */
	buf_adds(&b, "a0: &a0 [lol]\n");
	for (i = 1; i < 10; i++)
		buf_printf(&b, "a%d: &a%d [*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d]\n",
		    i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	is_int(openapi_load(b.p, b.len, OPENAPI_YAML, &t, err, sizeof(err)), -1,
	    "a billion-laughs YAML is refused");
	ok(strstr(err, "nodes") != NULL, "... for its node count (%s)", err);
	json_object_put(t);
	buf_reset(&b);
	for (i = 0; i < 300; i++)
		buf_adds(&b, "[");
	is_int(openapi_load(b.p, b.len, OPENAPI_JSON, &t, err, sizeof(err)), -1,
	    "JSON nested 300 deep is refused");
	is_int(openapi_load(b.p, b.len, OPENAPI_YAML, &t, err, sizeof(err)), -1,
	    "YAML flow nested 300 deep is refused");
	ok(strstr(err, "deeper") != NULL, "... saying so (%s)", err);
	buf_reset(&b);
	buf_adds(&b, "x: &x {a: 1}\ny: *x\nz: {<<: *x, b: 2}\nq: 2.0\nn: ~\ns: '3'\n");
	if (openapi_load(b.p, b.len, OPENAPI_AUTO, &t, err, sizeof(err)) == 0) {
		is_str(json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN),
		    "{\"x\":{\"a\":1},\"y\":{\"a\":1},\"z\":{\"a\":1,\"b\":2},\"q\":2.0,"
		    "\"n\":null,\"s\":\"3\"}", "YAML: aliases, merge keys, scalars resolved");
		json_object_put(t);
	} else
		ok(0, "YAML: aliases, merge keys, scalars resolved (%s)", err);
	is_int(openapi_load("a: [1", 5, OPENAPI_AUTO, &t, err, sizeof(err)), -1,
	    "broken YAML is refused");
	ok(strncmp(err, "not JSON or YAML: ", 18) == 0, "... saying so (%s)", err);
	buf_release(&b);
}

static void
test_not_a_spec(void)
{
	json_object	*t = NULL;
	char		 err[256];
	struct doc	 d;

	ok(openapi_load("{\"type\":\"object\"}", 17, OPENAPI_AUTO, &t, err,
	    sizeof(err)) == 0 && openapi_version(t, err, sizeof(err)) == -1,
	    "a JSON object without openapi/swagger is not a spec");
	is_str(err, "not an OpenAPI document: it has no openapi or swagger key", "... saying so");
	json_object_put(t);
	ok(openapi_load("swagger: 2.0\n", 13, OPENAPI_AUTO, &t, err, sizeof(err)) == 0 &&
	    openapi_version(t, err, sizeof(err)) == 2, "swagger: 2.0 unquoted (a number) is 2.0");
	json_object_put(t);
	ok(openapi_load("openapi: 4.0.0\n", 15, OPENAPI_AUTO, &t, err, sizeof(err)) == 0 &&
	    openapi_version(t, err, sizeof(err)) == -1, "openapi 4.0.0 is not read");
	json_object_put(t);
	is_int(doc_parse_as(DOC_FORMAT_OPENAPI, "x.json", "[1]", 3, &d, NULL), -1,
	    "the parser fails on what is not a spec");
}

/*
 * An operation's Keywords line: the method's verbs, the operationId, the path's segments,
 * the tags and the parameters' names in words, each once; an operation that is a $ref of
 * its own (as in the large multi-file specs) is read through it.
 */
static void
test_keywords(void)
{
	struct doc	 d;
	const struct doc_section *s;

	if (spec("openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n"
	    "  /v2/droplets:\n"
	    "    delete:\n      operationId: droplets_destroy_byTag\n      tags: [Droplets]\n"
	    "      parameters:\n      - {name: tag_name, in: query, required: true, schema: {type: string}}\n"
	    "      responses: {'204': {description: gone}}\n"
	    "    get: {$ref: '#/x-ops/list'}\n"
	    "  /v2/droplets/{droplet_id}:\n"
	    "    get: {operationId: droplets_get, responses: {'200': {description: ok}}}\n"
	    "    patch: {operationId: resetAuth, responses: {'200': {description: ok}}}\n"
	    "x-ops:\n  list: {operationId: droplets_list, summary: List all Droplets, "
	    "responses: {'200': {description: ok}}}\n", &d) == -1)
		return;
	s = anchor(&d, "droplets_destroy_byTag");
	ok(has(s, "Keywords: delete remove destroy droplets by tag v2 name."),
	    "DELETE: its verbs, the operationId, path, tag and parameter in words, each once");
	ok(has(anchor(&d, "droplets_list"), "Keywords: list get read view see droplets v2."),
	    "GET of a collection lists, reads, views (an operation that is a $ref is read "
	    "through it)");
	ok(has(anchor(&d, "droplets_get"), "Keywords: get fetch show read view see single "
	    "details droplets v2 droplet id."), "GET of an item gets, the details of a single one");
	ok(has(anchor(&d, "resetAuth"), "Keywords: update change set replace reset auth v2 "
	    "droplets droplet id."), "PATCH updates; camelCase split");
	doc_release(&d);
}

/*
 * Operations found by what they do: a path segment standing for the caller makes a GET an
 * item's and says "current my"; a tag's name joins the line without its version.
 */
static void
test_keywords_more(void)
{
	struct doc	 d;

	if (spec("openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n"
	    "  /users/@me:\n"
	    "    get: {operationId: get_my_user, responses: {'200': {description: ok}}}\n"
	    "  /users/@me/guilds:\n"
	    "    get: {operationId: list_my_guilds, responses: {'200': {description: ok}}}\n"
	    "  /me.json:\n"
	    "    get: {operationId: whoami, responses: {'200': {description: ok}}}\n"
	    "  /v1/Services:\n"
	    "    post: {operationId: CreateService, tags: [MessagingV1Service], "
	    "responses: {'201': {description: ok}}}\n"
	    "  /v1/Other:\n"
	    "    post: {operationId: CreateOther, tags: [Plain, V2], "
	    "responses: {'201': {description: ok}}}\n", &d) == -1)
		return;
	ok(has(anchor(&d, "get_my_user"), "Keywords: get fetch show read view see single "
	    "details current my user users me."),
	    "GET /users/@me: an item (the caller), its words say current");
	ok(has(anchor(&d, "list_my_guilds"), "Keywords: list get read view see current my guilds "
	    "users me."),
	    "GET /users/@me/guilds lists the caller's guilds: current too");
	ok(has(anchor(&d, "whoami"), "Keywords: get fetch show read view see single "
	    "details current my whoami me json."),
	    "GET /me.json: an item (the extension aside)");
	ok(has(anchor(&d, "CreateService"), "Keywords: create add new start open service v1 "
	    "services messaging messagingservice."),
	    "a versioned tag also joins as one word unversioned");
	ok(has(anchor(&d, "CreateOther"), "Keywords: create add new start open other v1 plain "
	    "v2."),
	    "a tag without a version, or with one part only, does not");
	doc_release(&d);
}

/*
 * The overview lists the tags that have a description; a bare tag's name is its
 * operations' heading trail already, and a list of them made the overview the answer to
 * questions naming a resource.
 */
static void
test_overview_tags(void)
{
	struct doc	 d;
	const struct doc_section *s;

	if (spec("openapi: 3.0.0\ninfo: {title: T, version: '1'}\n"
	    "tags:\n- {name: Api20100401Call}\n- {name: Flights, description: Every flight}\n"
	    "- {name: Api20100401IncomingPhoneNumber}\npaths:\n"
	    "  /calls:\n"
	    "    post: {operationId: CreateCall, tags: [Api20100401Call], "
	    "responses: {'201': {description: ok}}}\n", &d) == -1)
		return;
	s = anchor(&d, "overview");
	ok(has(s, "\n\nTags:\n- Flights — Every flight"), "overview: a described tag is listed");
	ok(s != NULL && !has(s, "Api20100401Call") && !has(s, "IncomingPhoneNumber"),
	    "overview: bare tag names are not");
	ok(has(anchor(&d, "CreateCall"), "Tags: Api20100401Call"),
	    "the operation still names its tag");
	doc_release(&d);
	if (spec("openapi: 3.0.0\ninfo: {title: T, version: '1'}\n"
	    "tags:\n- {name: Bare}\npaths: {}\n", &d) == -1)
		return;
	ok(anchor(&d, "overview") != NULL && !has(anchor(&d, "overview"), "Tags:"),
	    "overview: no Tags list when no tag has a description");
	doc_release(&d);
}

/*
 * An operation's text stays short: a curl example's JSON body is made less deep while it
 * is long, a form body lists at most 8 fields, an error response's schema shows one level.
 */
static void
test_compact(void)
{
	struct doc	 d;
	const struct doc_section *s;
	struct buf	 y;
	const char	*c;
	int		 i, n;

	buf_init(&y);
	buf_adds(&y, "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n"
	    "  /deep:\n    post:\n      operationId: deep\n"
	    "      requestBody: {content: {application/json: {schema: {$ref: "
	    "'#/components/schemas/Top'}}}}\n"
	    "      responses:\n        '200': {description: ok}\n"
	    "        '404': {description: no, content: {application/json: {schema: "
	    "{$ref: '#/components/schemas/Top'}}}}\n"
	    "  /form:\n    post:\n      operationId: form\n"
	    "      requestBody: {content: {application/x-www-form-urlencoded: {schema: "
	    "{type: object, properties: {");
	for (i = 0; i < 12; i++) {
		char f[64];

		snprintf(f, sizeof(f), "%sField%d: {type: string}", i > 0 ? ", " : "", i);
		buf_adds(&y, f);
	}
	buf_adds(&y, "}}}}}\n      responses: {'200': {description: ok}}\n"
	    "components:\n  schemas:\n"
	    "    Top: {type: object, properties: {mid: {$ref: '#/components/schemas/Mid'}}}\n"
	    "    Mid: {type: object, properties: {");
	for (i = 0; i < 30; i++) {
		char f[128];

		snprintf(f, sizeof(f), "%slongPropertyName%d: {type: object, properties: "
		    "{leaf: {type: string}}}", i > 0 ? ", " : "", i);
		buf_adds(&y, f);
	}
	buf_adds(&y, "}}\n");
	if (spec(y.p, &d) == -1) {
		buf_release(&y);
		return;
	}
	buf_release(&y);
	s = anchor(&d, "deep");
	c = code(s);
	ok(c != NULL && strstr(c, "\"leaf\"") == NULL && strstr(c, "-d '{\"mid\":{") != NULL,
	    "a long JSON body in curl is made less deep (%zu bytes)", c != NULL ? strlen(c) : 0);
	ok(has(s, "- `404`: no — Top { mid: → Mid }"), "an error response shows one level");
	c = code(anchor(&d, "form"));
	for (n = 0; c != NULL && (c = strstr(c, "--data-urlencode")) != NULL; c++)
		n++;
	is_int(n, 8, "a form body's curl lists at most 8 of its 12 fields");
	doc_release(&d);
}

int
main(void)
{
	log_init("test-openapi");
	test_petstore30();
	test_swagger20();
	test_twins();
	test_webhooks();
	test_callbacks_links();
	test_refs();
	test_relative_server();
	test_nulls();
	test_ref_keys();
	test_load_bounds();
	test_not_a_spec();
	test_keywords();
	test_keywords_more();
	test_overview_tags();
	test_compact();
	return tap_done();
}
