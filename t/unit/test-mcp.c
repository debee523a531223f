/* test-mcp.c: the MCP protocol of ctxd-mcp (lib/mcp.c) against a stub backend. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ctxd.h"
#include "mcp.h"
#include "tap.h"

/* ------------------------------------------------------------------ stub backend */

static int	 stub_auth;		/* perm.require_mcp_auth */
static const char *stub_allowed;	/* mcp.allowed_origins */
static char	 last_libid[600], last_query[600];
static long	 last_budget;
static int	 context_calls;

static int
stub_libraries(void *arg, const char *name, const char *query, struct buf *out)
{
	(void)arg;
	(void)query;
	if (strcmp(name, "none") == 0)
		return buf_adds(out, "{\"results\":[],\"searchFilterApplied\":false}");
	if (strcmp(name, "broken") == 0)
		return -1;
	return buf_adds(out, "{\"results\":[{\"id\":\"/acme/widgets\",\"title\":\"Widgets\","
	    "\"description\":\"Widget docs\",\"totalSnippets\":42,\"trustScore\":7,"
	    "\"benchmarkScore\":-1,\"versions\":[],\"source\":\"Local (Private)\"},"
	    "{\"id\":\"/acme/gadgets\",\"title\":\"Gadgets\",\"description\":\"\","
	    "\"totalSnippets\":-1,\"trustScore\":-1,\"benchmarkScore\":55.5,"
	    "\"versions\":[\"v1\",\"v2\"]},"
	    "{\"id\":\"/x/y\",\"title\":\"Y\",\"description\":\"d\",\"totalSnippets\":3,"
	    "\"trustScore\":4}],\"searchFilterApplied\":false}");
}

static int
stub_context(void *arg, const char *libid, const char *query, long budget,
    struct buf *out)
{
	(void)arg;
	context_calls++;
	snprintf(last_libid, sizeof(last_libid), "%s", libid);
	snprintf(last_query, sizeof(last_query), "%s", query);
	last_budget = budget;
	if (strcmp(libid, "/acme/pending") == 0) {
		buf_adds(out, "library /acme/pending is being indexed for the first time");
		return 202;
	}
	if (strcmp(libid, "/nobody/nothing") == 0) {
		buf_adds(out, "library /nobody/nothing does not exist");
		return 404;
	}
	buf_printf(out, "### Answer\n\nSource: https://x/%s\n\nabout %s", libid, query);
	return 200;
}

static int
stub_auth_required(void *arg)
{
	(void)arg;
	return stub_auth;
}

static int
stub_key_valid(void *arg, const char *authorization)
{
	(void)arg;
	return strcmp(authorization, "Bearer ctxd_good") == 0;
}

static char *
stub_allowed_origins(void *arg)
{
	(void)arg;
	return stub_allowed != NULL ? strdup(stub_allowed) : NULL;
}

static const struct mcp_backend be = {
	NULL, stub_libraries, stub_context, stub_auth_required, stub_key_valid,
	stub_allowed_origins
};

/* ------------------------------------------------------------------ helpers */

static struct mcp_req
req(const char *body)
{
	struct mcp_req r;

	memset(&r, 0, sizeof(r));
	r.method = "POST";
	r.content_type = "application/json";
	r.accept = "application/json, text/event-stream";
	r.host = "docs.example.com";
	r.body = body;
	r.body_len = body != NULL ? strlen(body) : 0;
	return r;
}

/* Runs check + handle; returns the status, the parsed body in *o (NULL when none). */
static int
post(struct mcp_req *r, json_object **o, const char **headers)
{
	struct mcp_reply rep;
	int	 status;

	if (!mcp_check(&be, r, &rep))
		mcp_handle(&be, r, &rep);
	status = rep.status;
	if (headers != NULL)
		*headers = rep.headers;
	*o = rep.body != NULL ? json_tokener_parse(rep.body) : NULL;
	if (rep.body != NULL && *o == NULL)
		printf("# body is not JSON: %s\n", rep.body);
	mcp_reply_release(&rep);
	return status;
}

static int
rpc(const char *body, json_object **o)
{
	struct mcp_req r = req(body);

	return post(&r, o, NULL);
}

/* The integer at a dotted path ("error.code"), or -99999. */
static long
jint(json_object *o, const char *path)
{
	char	 buf[128], *p, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = strtok_r(buf, ".", &save); p != NULL && o != NULL;
	    p = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, p, &o))
			return -99999;
	return o != NULL ? (long)json_object_get_int64(o) : -99999;
}

static const char *
jstr(json_object *o, const char *path)
{
	char	 buf[128], *p, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = strtok_r(buf, ".", &save); p != NULL && o != NULL;
	    p = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, p, &o))
			return NULL;
	return o != NULL ? json_object_get_string(o) : NULL;
}

/* The text of a tools/call result (content[0].text). */
static const char *
tool_text(json_object *o, int *is_error)
{
	json_object	*res, *content, *v;

	*is_error = -1;
	if (!json_object_object_get_ex(o, "result", &res) ||
	    !json_object_object_get_ex(res, "content", &content) ||
	    json_object_array_length(content) != 1)
		return NULL;
	*is_error = json_object_object_get_ex(res, "isError", &v) &&
	    json_object_get_boolean(v);
	return jstr(json_object_array_get_idx(content, 0), "text");
}

static char *
call(const char *tool, const char *args, int *status, int *is_error, long *code)
{
	char		 body[2048];
	json_object	*o;
	const char	*t;
	char		*ret;

	snprintf(body, sizeof(body), "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}", tool, args);
	*status = rpc(body, &o);
	*code = jint(o, "error.code");
	t = tool_text(o, is_error);
	ret = t != NULL ? strdup(t) : NULL;
	json_object_put(o);
	return ret;
}

/* ------------------------------------------------------------------ tests */

static void
test_versions(void)
{
	static const char *v[] = { "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25" };
	char		 body[512];
	json_object	*o;
	size_t		 i;

	for (i = 0; i < 4; i++) {
		snprintf(body, sizeof(body), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
		    "\"initialize\",\"params\":{\"protocolVersion\":\"%s\","
		    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
		    v[i]);
		is_int(rpc(body, &o), 200, "initialize %s: 200", v[i]);
		is_str(jstr(o, "result.protocolVersion"), v[i], "initialize %s: echoed", v[i]);
		json_object_put(o);
	}
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"initialize\",\"params\":"
	    "{\"protocolVersion\":\"2099-01-01\",\"capabilities\":{}}}", &o), 200,
	    "initialize with an unknown version: 200");
	is_str(jstr(o, "result.protocolVersion"), "2025-11-25", "answered with the newest");
	is_str(jstr(o, "result.serverInfo.name"), "ctxd", "server name ctxd");
	is_str(jstr(o, "result.serverInfo.version"), PACKAGE_VERSION, "package version");
	ok(jstr(o, "result.capabilities.tools") != NULL, "capability tools");
	ok(jstr(o, "result.instructions") != NULL &&
	    strstr(jstr(o, "result.instructions"), "resolve-library-id") != NULL,
	    "instructions name the tools");
	is_str(jstr(o, "id"), "a", "string id echoed");
	json_object_put(o);
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}",
	    &o), 200, "initialize without protocolVersion: 200");
	is_int(jint(o, "error.code"), -32602, "... -32602");
	json_object_put(o);
	ok(mcp_version_supported("2025-06-18") && !mcp_version_supported("2025-01-01"),
	    "mcp_version_supported");
	is_str(mcp_negotiate(NULL), MCP_VERSION_NEWEST, "mcp_negotiate(NULL)");
}

static void
test_methods(void)
{
	json_object	*o, *tools;
	struct mcp_req	 r;
	size_t		 i;
	int		 seen = 0;

	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", &o), 200, "ping 200");
	ok(json_object_object_get_ex(o, "result", &tools) &&
	    json_object_object_length(tools) == 0, "ping result {}");
	is_int(jint(o, "id"), 2, "ping id");
	json_object_put(o);

	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}", &o), 200,
	    "tools/list 200");
	ok(json_object_object_get_ex(o, "result", &tools) &&
	    json_object_object_get_ex(tools, "tools", &tools), "tools/list has tools");
	is_int(json_object_array_length(tools), 2, "two tools listed");
	for (i = 0; i < json_object_array_length(tools); i++) {
		json_object *t = json_object_array_get_idx(tools, i);
		const char *n = jstr(t, "name");

		if (n != NULL && strcmp(n, "resolve-library-id") == 0 &&
		    jstr(t, "inputSchema.properties.libraryName") != NULL)
			seen |= 1;
		if (n != NULL && strcmp(n, "query-docs") == 0 &&
		    jstr(t, "inputSchema.properties.libraryId") != NULL &&
		    jstr(t, "description") != NULL)
			seen |= 2;
	}
	is_int(seen, 3, "resolve-library-id and query-docs with their schemas");
	json_object_put(o);

	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\"}", &o), 200,
	    "unknown method: 200");
	is_int(jint(o, "error.code"), -32601, "unknown method: -32601");
	is_int(jint(o, "id"), 4, "unknown method: id kept");
	json_object_put(o);

	is_int(rpc("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &o),
	    202, "notification: 202");
	ok(o == NULL, "notification: no body");
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"method\":\"no/such/thing\"}", &o), 202,
	    "unknown notification: 202");
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}", &o), 202,
	    "response: 202");
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":1,\"message\":\"x\"}}",
	    &o), 202, "error response: 202");

	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":1,", &o), 400, "truncated JSON: 400");
	is_int(jint(o, "error.code"), -32700, "truncated JSON: -32700");
	ok(json_object_object_get_ex(o, "id", &tools) && tools == NULL, "... id null");
	json_object_put(o);
	is_int(rpc("", &o), 400, "empty body: 400");
	is_int(jint(o, "error.code"), -32700, "empty body: -32700");
	json_object_put(o);
	is_int(rpc("{} {}", &o), 400, "two values: 400");
	is_int(jint(o, "error.code"), -32700, "two values: -32700");
	json_object_put(o);
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n", &o), 200,
	    "trailing newline accepted");
	json_object_put(o);

	is_int(rpc("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"}", &o), 400,
	    "jsonrpc 1.0: 400");
	is_int(jint(o, "error.code"), -32600, "jsonrpc 1.0: -32600");
	is_int(jint(o, "id"), 5, "jsonrpc 1.0: id kept");
	json_object_put(o);
	is_int(rpc("42", &o), 400, "a number: 400");
	is_int(jint(o, "error.code"), -32600, "a number: -32600");
	json_object_put(o);
	is_int(rpc("4 2", &o), 400, "two numbers: 400");
	is_int(jint(o, "error.code"), -32700, "two numbers: -32700");
	json_object_put(o);
	is_int(rpc("\"ping\"", &o), 400, "a string: 400");
	is_int(jint(o, "error.code"), -32600, "a string: -32600");
	json_object_put(o);
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":7}", &o), 400,
	    "numeric method: 400");
	is_int(jint(o, "error.code"), -32600, "numeric method: -32600");
	json_object_put(o);
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", &o), 400,
	    "object id: 400");
	is_int(jint(o, "error.code"), -32600, "object id: -32600");
	json_object_put(o);
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":3}", &o),
	    400, "numeric params: 400");
	json_object_put(o);
	is_int(rpc("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":[]}",
	    &o), 200, "array params: 200");
	is_int(jint(o, "error.code"), -32602, "array params: -32602");
	json_object_put(o);

	r = req("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
	r.protocol_version = "2025-06-18";
	is_int(post(&r, &o, NULL), 200, "MCP-Protocol-Version 2025-06-18: 200");
	json_object_put(o);
	r.protocol_version = "1999-01-01";
	is_int(post(&r, &o, NULL), 400, "unsupported MCP-Protocol-Version: 400");
	ok(jstr(o, "error.message") != NULL &&
	    strstr(jstr(o, "error.message"), "MCP-Protocol-Version") != NULL,
	    "... says why");
	json_object_put(o);
	r = req("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
	    "{\"protocolVersion\":\"2025-06-18\"}}");
	r.protocol_version = "1999-01-01";
	is_int(post(&r, &o, NULL), 200, "initialize ignores the version header");
	json_object_put(o);
}

static void
test_batches(void)
{
	static const char batch[] = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"},"
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"},"
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":"
	    "{\"protocolVersion\":\"2025-03-26\"}}, 5]";
	json_object	*o;
	struct mcp_req	 r;

	r = req(batch);
	is_int(post(&r, &o, NULL), 200, "batch without version header (2025-03-26): 200");
	ok(json_object_is_type(o, json_type_array) && json_object_array_length(o) == 5,
	    "five responses (the notification has none)");
	if (json_object_is_type(o, json_type_array) && json_object_array_length(o) == 5) {
		is_int(jint(json_object_array_get_idx(o, 0), "id"), 1, "ping answered");
		ok(jstr(json_object_array_get_idx(o, 1), "result.tools") != NULL,
		    "tools/list answered");
		is_int(jint(json_object_array_get_idx(o, 2), "error.code"), -32601,
		    "unknown method in a batch: -32601");
		is_int(jint(json_object_array_get_idx(o, 3), "error.code"), -32600,
		    "initialize in a batch: -32600");
		is_int(jint(json_object_array_get_idx(o, 4), "error.code"), -32600,
		    "a number in a batch: -32600");
	}
	json_object_put(o);
	r.protocol_version = "2025-03-26";
	is_int(post(&r, &o, NULL), 200, "batch under 2025-03-26: 200");
	json_object_put(o);
	r.protocol_version = "2024-11-05";
	is_int(post(&r, &o, NULL), 200, "batch under 2024-11-05: 200");
	json_object_put(o);
	r.protocol_version = "2025-06-18";
	is_int(post(&r, &o, NULL), 400, "batch under 2025-06-18: 400");
	is_int(jint(o, "error.code"), -32600, "... -32600");
	json_object_put(o);
	r.protocol_version = "2025-11-25";
	is_int(post(&r, &o, NULL), 400, "batch under 2025-11-25: 400");
	json_object_put(o);
	is_int(rpc("[]", &o), 400, "empty batch: 400");
	is_int(jint(o, "error.code"), -32600, "empty batch: -32600");
	json_object_put(o);
	is_int(rpc("[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]", &o),
	    202, "batch of notifications: 202");
	ok(o == NULL, "... no body");
}

static void
test_http(void)
{
	struct mcp_req	 r;
	json_object	*o;
	const char	*h;

	r = req("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	r.method = "GET";
	is_int(post(&r, &o, &h), 405, "GET: 405");
	ok(h != NULL && strstr(h, "Allow: POST") != NULL, "GET: Allow: POST");
	ok(jint(o, "error.code") != -99999, "GET: JSON-RPC error body");
	json_object_put(o);
	r.method = "DELETE";
	is_int(post(&r, &o, NULL), 405, "DELETE: 405");
	json_object_put(o);

	r = req("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	r.content_type = "text/plain";
	is_int(post(&r, &o, NULL), 415, "text/plain: 415");
	json_object_put(o);
	r.content_type = NULL;
	is_int(post(&r, &o, NULL), 415, "no Content-Type: 415");
	json_object_put(o);
	r.content_type = "application/json-patch+json";
	is_int(post(&r, &o, NULL), 415, "application/json-patch+json: 415");
	json_object_put(o);
	r.content_type = "Application/JSON; charset=utf-8";
	is_int(post(&r, &o, NULL), 200, "application/json with charset: 200");
	json_object_put(o);

	r = req("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	r.accept = "text/event-stream";
	is_int(post(&r, &o, NULL), 406, "Accept: text/event-stream only: 406");
	json_object_put(o);
	r.accept = "text/html, application/json;q=0";
	is_int(post(&r, &o, NULL), 406, "application/json;q=0: 406");
	json_object_put(o);
	r.accept = "*/*";
	is_int(post(&r, &o, NULL), 200, "Accept */*: 200");
	json_object_put(o);
	r.accept = "text/event-stream, application/json;q=0.5";
	is_int(post(&r, &o, NULL), 200, "application/json;q=0.5: 200");
	json_object_put(o);
	r.accept = NULL;
	is_int(post(&r, &o, NULL), 200, "no Accept: 200");
	json_object_put(o);

	r.content_length = "262145";
	is_int(post(&r, &o, NULL), 413, "Content-Length over the limit: 413");
	is_int(jint(o, "error.code"), -32000, "... JSON-RPC error body");
	json_object_put(o);
	r.content_length = "262144";
	is_int(post(&r, &o, NULL), 200, "Content-Length at the limit: read");
	json_object_put(o);

	/* Origin. */
	r = req("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	r.origin = "https://docs.example.com";
	is_int(post(&r, &o, NULL), 200, "same-host Origin: 200");
	json_object_put(o);
	r.origin = "https://evil.example.net";
	is_int(post(&r, &o, NULL), 403, "foreign Origin: 403");
	ok(jint(o, "error.code") != -99999, "foreign Origin: JSON-RPC error body");
	json_object_put(o);
	stub_allowed = "https://a.example.org, https://evil.example.net/";
	is_int(post(&r, &o, NULL), 200, "Origin in mcp.allowed_origins: 200");
	json_object_put(o);
	stub_allowed = "*";
	r.origin = "null";
	is_int(post(&r, &o, NULL), 200, "mcp.allowed_origins *: any origin");
	json_object_put(o);
	stub_allowed = NULL;
	is_int(post(&r, &o, NULL), 403, "Origin null: 403");
	json_object_put(o);

	ok(mcp_origin_allowed("http://127.0.0.1:3000", "127.0.0.1:3000", NULL, NULL),
	    "origin with port = Host");
	ok(mcp_origin_allowed("HTTP://Docs.Example.com:80", "docs.example.com", NULL, NULL),
	    "default port and case ignored");
	ok(mcp_origin_allowed("https://docs.example.com", "docs.example.com:443", NULL, NULL),
	    "default https port on Host ignored");
	ok(!mcp_origin_allowed("http://127.0.0.1:3001", "127.0.0.1:3000", NULL, NULL),
	    "other port refused");
	ok(!mcp_origin_allowed("http://docs.example.com.evil.net", "docs.example.com", NULL,
	    NULL), "suffix trick refused");
	ok(!mcp_origin_allowed("http://user@docs.example.com", "docs.example.com", NULL,
	    NULL), "userinfo refused");
	ok(mcp_origin_allowed("https://docs.example.com", "ctxd:3000",
	    "docs.example.com, proxy", NULL), "X-Forwarded-Host counts");
	ok(!mcp_origin_allowed("https://a.example.org", "b", NULL, "https://a.example.org.x"),
	    "allowed list matches whole entries");
}

static void
test_auth(void)
{
	struct mcp_req	 r;
	json_object	*o;
	const char	*h;

	stub_auth = 1;
	r = req("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	is_int(post(&r, &o, &h), 401, "auth required, no key: 401");
	ok(h != NULL && strncmp(h, "WWW-Authenticate: Bearer", 24) == 0,
	    "... WWW-Authenticate: Bearer");
	is_int(jint(o, "error.code"), -32001, "... JSON-RPC error body");
	ok(json_object_object_get_ex(o, "jsonrpc", NULL), "... with jsonrpc");
	json_object_put(o);
	r.authorization = "Bearer ctxd_bad";
	is_int(post(&r, &o, &h), 401, "wrong key: 401");
	ok(h != NULL && strstr(h, "invalid_token") != NULL, "... invalid_token");
	json_object_put(o);
	r.authorization = "Bearer ctxd_good";
	is_int(post(&r, &o, NULL), 200, "Authorization: Bearer key: 200");
	json_object_put(o);
	r.authorization = NULL;
	r.context7_api_key = "ctxd_good";
	is_int(post(&r, &o, NULL), 200, "context7-api-key header: 200");
	json_object_put(o);
	r.context7_api_key = NULL;
	r.x_api_key = "ctxd_good";
	is_int(post(&r, &o, NULL), 200, "x-api-key header: 200");
	json_object_put(o);
	r.x_api_key = "Bearer ctxd_good";
	is_int(post(&r, &o, NULL), 200, "x-api-key with Bearer: 200");
	json_object_put(o);
	r.x_api_key = "ctxd_bad";
	is_int(post(&r, &o, NULL), 401, "wrong x-api-key: 401");
	json_object_put(o);
	r = req("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	is_int(post(&r, &o, NULL), 401, "notification without key: 401");
	json_object_put(o);
	stub_auth = 0;
}

static void
test_tools(void)
{
	int	 status, err;
	long	 code;
	char	*t;

	t = call("resolve-library-id", "{\"libraryName\":\"widgets\",\"query\":\"how\"}",
	    &status, &err, &code);
	is_int(status, 200, "resolve-library-id: 200");
	is_int(err, 0, "resolve-library-id: not an error");
	is_str(t, "Available Libraries:\n\n"
	    "- Title: Widgets\n"
	    "- Context7-compatible library ID: /acme/widgets\n"
	    "- Description: Widget docs\n"
	    "- Code Snippets: 42\n"
	    "- Source Reputation: High\n"
	    "- Source: Local (Private)\n"
	    "----------\n"
	    "- Title: Gadgets\n"
	    "- Context7-compatible library ID: /acme/gadgets\n"
	    "- Description: \n"
	    "- Source Reputation: Unknown\n"
	    "- Benchmark Score: 55.5\n"
	    "- Versions: v1, v2\n"
	    "----------\n"
	    "- Title: Y\n"
	    "- Context7-compatible library ID: /x/y\n"
	    "- Description: d\n"
	    "- Code Snippets: 3\n"
	    "- Source Reputation: Medium", "resolve-library-id: compat.md text");
	free(t);
	t = call("resolve-library-id", "{\"libraryName\":\"none\",\"question\":\"q\"}",
	    &status, &err, &code);
	ok(t != NULL && strncmp(t, "No libraries matched", 20) == 0 && err == 0,
	    "no match: a plain sentence");
	free(t);
	t = call("resolve-library-id", "{\"query\":\"q\"}", &status, &err, &code);
	is_int(code, -32602, "resolve-library-id without libraryName: -32602");
	free(t);
	t = call("resolve-library-id", "{\"libraryName\":5}", &status, &err, &code);
	is_int(code, -32602, "numeric libraryName: -32602");
	free(t);
	t = call("resolve-library-id", "{\"libraryName\":\"\"}", &status, &err, &code);
	is_int(err, 1, "empty libraryName: isError");
	free(t);
	t = call("resolve-library-id", "{\"libraryName\":\"broken\"}", &status, &err, &code);
	is_int(err, 1, "search failure: isError");
	free(t);

	t = call("query-docs", "{\"libraryId\":\"/acme/widgets\",\"query\":\"install\"}",
	    &status, &err, &code);
	is_str(t, "### Answer\n\nSource: https://x//acme/widgets\n\nabout install",
	    "query-docs: the context text as it is");
	is_int(err, 0, "query-docs: not an error");
	is_int(last_budget, 0, "query-docs: default budget");
	free(t);
	t = call("query-docs", "{\"context7CompatibleLibraryID\":\"/a/b\",\"userQuery\":"
	    "\"u\"}", &status, &err, &code);
	ok(strcmp(last_libid, "/a/b") == 0 && strcmp(last_query, "u") == 0,
	    "aliases context7CompatibleLibraryID and userQuery");
	free(t);
	t = call("query-docs", "{\"libraryID\":\"/c/d\",\"question\":\"v\"}",
	    &status, &err, &code);
	ok(strcmp(last_libid, "/c/d") == 0 && strcmp(last_query, "v") == 0,
	    "aliases libraryID and question");
	free(t);
	t = call("query-docs", "{\"libraryId\":\"/nobody/nothing\",\"query\":\"x\"}",
	    &status, &err, &code);
	is_int(status, 200, "unknown library: HTTP 200");
	is_int(err, 1, "unknown library: isError");
	ok(t != NULL && strstr(t, "does not exist") != NULL, "... with the error text");
	free(t);
	t = call("query-docs", "{\"libraryId\":\"/acme/pending\",\"query\":\"x\"}",
	    &status, &err, &code);
	is_int(err, 1, "library being indexed: isError");
	free(t);
	t = call("query-docs", "{\"libraryId\":\"/a/b\"}", &status, &err, &code);
	is_int(code, -32602, "query-docs without query: -32602");
	free(t);
	context_calls = 0;
	t = call("query-docs", "{\"libraryId\":\"/a/b\",\"query\":\"\"}", &status, &err,
	    &code);
	ok(err == 1 && context_calls == 0, "empty query: isError, no search");
	free(t);

	t = call("get-library-docs", "{\"context7CompatibleLibraryID\":\"/e/f\",\"topic\":"
	    "\"routing\",\"tokens\":3000}", &status, &err, &code);
	ok(err == 0 && strcmp(last_libid, "/e/f") == 0 && strcmp(last_query, "routing") == 0
	    && last_budget == 3000, "get-library-docs: topic -> query, tokens -> budget");
	free(t);
	t = call("get-library-docs", "{\"context7CompatibleLibraryID\":\"/e/frob\","
	    "\"tokens\":\"1200\"}", &status, &err, &code);
	ok(err == 0 && strcmp(last_query, "frob overview getting started") == 0 &&
	    last_budget == 1200, "get-library-docs without topic; tokens as a string");
	free(t);
	t = call("get-library-docs", "{\"context7CompatibleLibraryID\":\"/e/f\",\"tokens\":"
	    "1e300}", &status, &err, &code);
	ok(err == 0 && last_budget == 100000000, "get-library-docs: huge tokens bounded");
	free(t);
	t = call("get-library-docs", "{\"context7CompatibleLibraryID\":\"/e/f\",\"tokens\":"
	    "-5}", &status, &err, &code);
	ok(err == 0 && last_budget == 1, "get-library-docs: negative tokens -> the minimum");
	free(t);
	t = call("get-library-docs", "{\"context7CompatibleLibraryID\":\"/e/f\",\"tokens\":"
	    "true}", &status, &err, &code);
	is_int(code, -32602, "get-library-docs with boolean tokens: -32602");
	free(t);

	t = call("no-such-tool", "{}", &status, &err, &code);
	is_int(status, 200, "unknown tool: 200");
	is_int(code, -32602, "unknown tool: -32602");
	free(t);
	t = call("query-docs", "[]", &status, &err, &code);
	is_int(code, -32602, "arguments not an object: -32602");
	free(t);
}

int
main(void)
{
	struct buf	 b;

	log_init("test-mcp");
	test_versions();
	test_methods();
	test_batches();
	test_http();
	test_auth();
	test_tools();
	buf_init(&b);
	is_int(mcp_format_libraries("{\"results\":", &b), -1, "malformed search JSON: -1");
	buf_release(&b);
	return tap_done();
}
