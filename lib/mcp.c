/*
 * mcp.c: the MCP server of ctxd-mcp (see mcp.h): Streamable HTTP without sessions, every
 * POST answered on its own, so that any pre-forked worker answers any request.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "ctxd.h"
#include "mcp.h"

/* JSON-RPC 2.0 error codes, and the server-defined ones for transport refusals. */
#define RPC_PARSE_ERROR		-32700
#define RPC_INVALID_REQUEST	-32600
#define RPC_METHOD_NOT_FOUND	-32601
#define RPC_INVALID_PARAMS	-32602
#define RPC_INTERNAL_ERROR	-32603
#define RPC_TRANSPORT		-32000	/* refused by the HTTP transport (405, 403, 415…) */
#define RPC_UNAUTHORIZED	-32001	/* authentication required (401) */

/* Newest first: the order of negotiation. */
static const char *const mcp_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};

static const char mcp_instructions[] =
    "ctxd serves up-to-date documentation of the libraries indexed on this instance "
    "(the organisation's own repositories and the public ones it chose). Use it "
    "whenever a task involves a library, framework, SDK, API or CLI tool: its API, "
    "configuration, setup, version changes, errors or usage examples, even for a "
    "library you think you know, since the indexed documentation is newer than your "
    "training data and may be private. Call resolve-library-id first to turn a name "
    "into a library ID (/owner/repo), unless the user gave an ID of that form; then "
    "call query-docs with that ID and one specific question per concept. Do not use "
    "it for general programming questions that involve no particular library.";

/* tools/list: the JSON text of the tools array (get-library-docs works but is unlisted). */
static const char mcp_tools_json[] =
    "[{\"name\":\"resolve-library-id\","
    "\"title\":\"Resolve library ID\","
    "\"description\":\"Finds the library ID (/owner/repo) that query-docs needs, "
    "among the libraries indexed on this ctxd instance, for the name of a library, "
    "framework, SDK, API or CLI tool. Call it before query-docs unless the user "
    "already gave an ID of the form /owner/repo or /owner/repo/version.\\n\\n"
    "Returns the matching libraries, best first, each with its title, library ID, "
    "description, number of code snippets, source reputation and, when known, its "
    "versions. Choose the library whose name and description fit the task best; more "
    "code snippets means better coverage. When nothing matches, the library is not "
    "indexed here: say so instead of guessing an ID. Do not call it more than 3 times "
    "for one question.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"libraryName\":{\"type\":\"string\",\"description\":\"Name of the library to "
    "look for, as its users write it (e.g. 'Next.js', 'express', 'requests').\"},"
    "\"query\":{\"type\":\"string\",\"description\":\"What the user is trying to do "
    "with the library; used to rank the matching libraries. Do not include secrets "
    "such as API keys or passwords.\"}},"
    "\"required\":[\"libraryName\",\"query\"]},"
    "\"annotations\":{\"title\":\"Resolve library ID\",\"readOnlyHint\":true,"
    "\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":false}},"
    "{\"name\":\"query-docs\","
    "\"title\":\"Query documentation\","
    "\"description\":\"Returns the documentation snippets of one library that best "
    "answer a question: explanations and code examples with their source URLs, from "
    "the library's indexed documentation on this ctxd instance, as plain text ready "
    "to use. Needs the exact library ID from resolve-library-id, or one the user gave "
    "as /owner/repo or /owner/repo/version.\\n\\n"
    "Ask about one concept per call and be specific (good: 'set up JWT "
    "authentication middleware'; too vague: 'auth'); call it again for another "
    "concept rather than combining several in one query. Do not call it more than 3 "
    "times for one question.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"libraryId\":{\"type\":\"string\",\"description\":\"Exact library ID, e.g. "
    "'/vercel/next.js' or '/vercel/next.js/v14.3.0', from resolve-library-id or "
    "from the user.\"},"
    "\"query\":{\"type\":\"string\",\"description\":\"The question, about one "
    "concept, in natural language (at most 500 characters). Do not include secrets "
    "such as API keys or passwords.\"}},"
    "\"required\":[\"libraryId\",\"query\"]},"
    "\"annotations\":{\"title\":\"Query documentation\",\"readOnlyHint\":true,"
    "\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":false}}]";

/* Argument names, canonical first, then the aliases clients send (compat.md). */
static const char *const mcp_arg_query[] = { "query", "userQuery", "question", NULL };
static const char *const mcp_arg_libid[] = { "libraryId", "context7CompatibleLibraryID",
    "libraryID", NULL };
static const char *const mcp_arg_libname[] = { "libraryName", NULL };
static const char *const mcp_arg_topic[] = { "topic", "query", "userQuery", "question",
    NULL };

/* ------------------------------------------------------------------ versions, origin */

int
mcp_version_supported(const char *v)
{
	size_t	 i;

	if (v == NULL)
		return 0;
	for (i = 0; i < sizeof(mcp_versions) / sizeof(mcp_versions[0]); i++)
		if (strcmp(v, mcp_versions[i]) == 0)
			return 1;
	return 0;
}

const char *
mcp_negotiate(const char *v)
{
	size_t	 i;

	if (v != NULL)
		for (i = 0; i < sizeof(mcp_versions) / sizeof(mcp_versions[0]); i++)
			if (strcmp(v, mcp_versions[i]) == 0)
				return mcp_versions[i];
	return MCP_VERSION_NEWEST;
}

/* 1 when a message batch may be sent under version v (JSON-RPC batches: until 2025-03-26). */
static int
mcp_version_batches(const char *v)
{
	return strcmp(v, "2025-03-26") == 0 || strcmp(v, "2024-11-05") == 0;
}

/*
 * Copies host[:port] into out in lower case, without the default port of scheme
 * ("http" 80, "https" 443). -1 when it does not fit or is empty.
 */
static int
mcp_hostport(const char *s, size_t len, const char *scheme, char *out, size_t outsz)
{
	size_t	 i;
	const char *dflt = NULL;

	if (len == 0 || len >= outsz)
		return -1;
	for (i = 0; i < len; i++) {
		char c = s[i];

		out[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	out[len] = '\0';
	if (scheme != NULL && strcasecmp(scheme, "http") == 0)
		dflt = ":80";
	else if (scheme != NULL && strcasecmp(scheme, "https") == 0)
		dflt = ":443";
	if (dflt != NULL && len > strlen(dflt) && out[len - strlen(dflt) - 1] != ':' &&
	    strcmp(out + len - strlen(dflt), dflt) == 0)
		out[len - strlen(dflt)] = '\0';
	return 0;
}

/* 1 when origin is one of the entries of list (comma or blank separated, "*" = any). */
static int
mcp_origin_listed(const char *origin, size_t olen, const char *list)
{
	const char	*p = list, *e;
	size_t		 n;

	while (p != NULL && *p != '\0') {
		p += strspn(p, ", \t");
		e = p + strcspn(p, ", \t");
		n = (size_t)(e - p);
		while (n > 0 && p[n - 1] == '/')
			n--;
		if ((n == 1 && *p == '*') ||
		    (n > 0 && n == olen && strncasecmp(p, origin, n) == 0))
			return 1;
		p = e;
	}
	return 0;
}

int
mcp_origin_allowed(const char *origin, const char *host, const char *fwd_host,
    const char *allowed)
{
	char		 scheme[8], a[300], b[300];
	const char	*sep, *auth;
	size_t		 olen, alen, slen;

	olen = strlen(origin);
	while (olen > 0 && origin[olen - 1] == '/')
		olen--;
	if (allowed != NULL && mcp_origin_listed(origin, olen, allowed))
		return 1;
	if ((sep = strstr(origin, "://")) == NULL)
		return 0;		/* "null" and other opaque origins */
	slen = (size_t)(sep - origin);
	if (slen == 0 || slen >= sizeof(scheme))
		return 0;
	memcpy(scheme, origin, slen);
	scheme[slen] = '\0';
	auth = sep + 3;
	alen = olen - (size_t)(auth - origin);
	if (auth > origin + olen || memchr(auth, '/', alen) != NULL ||
	    memchr(auth, '@', alen) != NULL)
		return 0;
	if (mcp_hostport(auth, alen, scheme, a, sizeof(a)) == -1)
		return 0;
	if (host != NULL && mcp_hostport(host, strlen(host), scheme, b, sizeof(b)) == 0 &&
	    strcmp(a, b) == 0)
		return 1;
	/* Behind another proxy: the first X-Forwarded-Host is the host the client used. */
	if (fwd_host != NULL && mcp_hostport(fwd_host, strcspn(fwd_host, ", "), scheme,
	    b, sizeof(b)) == 0 && strcmp(a, b) == 0)
		return 1;
	return 0;
}

/* ------------------------------------------------------------------ replies */

void
mcp_reply_release(struct mcp_reply *r)
{
	free(r->body);
	r->body = NULL;
	r->body_len = 0;
}

/* Sets reply to status with the JSON text of o (consumed; NULL: no body). */
static void
mcp_reply_json(struct mcp_reply *r, int status, json_object *o)
{
	const char	*s;
	size_t		 len = 0;

	r->status = status;
	r->body = NULL;
	r->body_len = 0;
	if (o == NULL)
		return;
	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (s != NULL && (r->body = malloc(len + 1)) != NULL) {
		memcpy(r->body, s, len + 1);
		r->body_len = len;
	} else {
		r->status = 500;
		log_err("%s: out of memory", __func__);
	}
	json_object_put(o);
}

/* A JSON-RPC error response for id (borrowed; NULL: null). */
static json_object *
mcp_error(json_object *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static json_object *
mcp_error(json_object *id, int code, const char *fmt, ...)
{
	json_object	*o, *e;
	char		 msg[700];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o = json_object_new_object();
	e = json_object_new_object();
	json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(o, "id", id != NULL ? json_object_get(id) : NULL);
	json_object_object_add(e, "code", json_object_new_int(code));
	json_object_object_add(e, "message", json_object_new_string(msg));
	json_object_object_add(o, "error", e);
	return o;
}

/* A JSON-RPC result response for id (borrowed); result is consumed. */
static json_object *
mcp_result(json_object *id, json_object *result)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(o, "id", json_object_get(id));
	json_object_object_add(o, "result", result);
	return o;
}

/* A transport-level refusal: status, extra headers and a JSON-RPC error without id. */
static int
mcp_refuse(struct mcp_reply *r, int status, const char *headers, int code,
    const char *msg)
{
	mcp_reply_json(r, status, mcp_error(NULL, code, "%s", msg));
	r->headers = headers;
	return 1;
}

/* ------------------------------------------------------------------ HTTP checks */

/* 1 when content type ct is application/json (parameters such as charset allowed). */
static int
mcp_is_json_type(const char *ct)
{
	static const char want[] = "application/json";

	if (ct == NULL || strncasecmp(ct, want, sizeof(want) - 1) != 0)
		return 0;
	ct += sizeof(want) - 1;
	return *ct == '\0' || *ct == ';' || *ct == ' ' || *ct == '\t';
}

/* 1 when the media range parameters in [p, e) say q=0 (the type is refused). */
static int
mcp_q_zero(const char *p, const char *e)
{
	const char	*v;
	size_t		 k;

	for (; p + 2 < e; p++) {
		if ((*p != 'q' && *p != 'Q') || p[1] != '=')
			continue;
		v = p + 2;
		for (k = 0; v + k < e && (v[k] == '0' || v[k] == '.'); k++)
			continue;
		return k > 0 && (v + k == e || v[k] == ' ' || v[k] == ';');
	}
	return 0;
}

/* 1 when an Accept header admits a JSON answer (no header admits anything). */
static int
mcp_accepts_json(const char *accept)
{
	const char	*p = accept, *e;
	size_t		 n;

	if (accept == NULL || *accept == '\0')
		return 1;
	while (*p != '\0') {
		p += strspn(p, ", \t");
		e = p + strcspn(p, ",");
		n = strcspn(p, ";, \t");
		if (((n == 16 && strncasecmp(p, "application/json", 16) == 0) ||
		    (n == 13 && strncasecmp(p, "application/*", 13) == 0) ||
		    (n == 3 && strncmp(p, "*/*", 3) == 0)) && !mcp_q_zero(p + n, e))
			return 1;
		p = e;
	}
	return 0;
}

/* 1 when the request carries a valid API key in one of the three headers. */
static int
mcp_authenticated(const struct mcp_backend *be, const struct mcp_req *rq, int *given)
{
	const char	*raw[2] = { rq->context7_api_key, rq->x_api_key };
	struct buf	 b;
	size_t		 i;
	int		 ok = 0;

	*given = 0;
	if (rq->authorization != NULL && *rq->authorization != '\0') {
		*given = 1;
		if (be->key_valid(be->arg, rq->authorization))
			return 1;
	}
	buf_init(&b);
	for (i = 0; i < 2 && !ok; i++) {
		if (raw[i] == NULL || *raw[i] == '\0')
			continue;
		*given = 1;
		buf_reset(&b);
		/* A client may put "Bearer " in these headers too. */
		if (strncasecmp(raw[i], "Bearer ", 7) == 0)
			ok = buf_adds(&b, raw[i]) == 0 && be->key_valid(be->arg, b.p);
		else
			ok = buf_printf(&b, "Bearer %s", raw[i]) == 0 &&
			    be->key_valid(be->arg, b.p);
	}
	if (b.p != NULL)
		explicit_bzero(b.p, b.len);
	buf_release(&b);
	return ok;
}

int
mcp_check(const struct mcp_backend *be, const struct mcp_req *rq, struct mcp_reply *r)
{
	long	 len = 0;
	int	 given, ok;
	char	*allowed;

	memset(r, 0, sizeof(*r));
	if (rq->method == NULL || strcmp(rq->method, "POST") != 0)
		return mcp_refuse(r, 405, "Allow: POST\r\n", RPC_TRANSPORT,
		    "Method not allowed: this MCP server is stateless and answers only "
		    "POST (no SSE stream to GET, no session to DELETE)");
	if (rq->origin != NULL && *rq->origin != '\0' &&
	    !mcp_origin_allowed(rq->origin, rq->host, rq->forwarded_host, NULL)) {
		allowed = be->allowed_origins != NULL ?
		    be->allowed_origins(be->arg) : NULL;
		ok = allowed != NULL && mcp_origin_allowed(rq->origin, rq->host,
		    rq->forwarded_host, allowed);
		free(allowed);
		if (!ok)
			return mcp_refuse(r, 403, NULL, RPC_TRANSPORT, "Forbidden: the "
			    "Origin of this request is not this server's; an operator can "
			    "allow it with setting mcp.allowed_origins");
	}
	if (be->auth_required(be->arg) && !mcp_authenticated(be, rq, &given)) {
		if (given)
			return mcp_refuse(r, 401, "WWW-Authenticate: Bearer realm=\"ctxd\", "
			    "error=\"invalid_token\"\r\n", RPC_UNAUTHORIZED,
			    "Unauthorized: the API key is not valid (revoked, or not a key "
			    "of this server)");
		return mcp_refuse(r, 401, "WWW-Authenticate: Bearer realm=\"ctxd\"\r\n",
		    RPC_UNAUTHORIZED, "Unauthorized: this server requires an API key: "
		    "send it as 'Authorization: Bearer <key>'");
	}
	if (!mcp_is_json_type(rq->content_type))
		return mcp_refuse(r, 415, NULL, RPC_TRANSPORT, "Unsupported Media Type: "
		    "the body must be a JSON-RPC message with Content-Type: "
		    "application/json");
	if (!mcp_accepts_json(rq->accept))
		return mcp_refuse(r, 406, NULL, RPC_TRANSPORT, "Not Acceptable: this "
		    "server answers application/json; the Accept header must allow it");
	if (rq->content_length != NULL && *rq->content_length != '\0' &&
	    util_parse_long(rq->content_length, 0, 1L << 40, &len) == -1)
		return mcp_refuse(r, 400, NULL, RPC_TRANSPORT,
		    "Bad Request: invalid Content-Length");
	if (len > MCP_MAX_BODY)
		return mcp_refuse(r, 413, NULL, RPC_TRANSPORT, "Payload Too Large: one "
		    "JSON-RPC message may have at most 262144 bytes");
	return 0;
}

/* ------------------------------------------------------------------ tools */

/*
 * The first of names present in args as a string into *out (NULL when none). -1 with an
 * error response in *err when one is present with another type.
 */
static int
mcp_arg(json_object *args, const char *const *names, json_object *id, const char **out,
    json_object **err)
{
	json_object	*v;

	*out = NULL;
	for (; *names != NULL; names++) {
		if (args == NULL || !json_object_object_get_ex(args, *names, &v) ||
		    json_object_is_type(v, json_type_null))
			continue;
		if (!json_object_is_type(v, json_type_string)) {
			*err = mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: "
			    "argument '%s' must be a string", *names);
			return -1;
		}
		*out = json_object_get_string(v);
		return 0;
	}
	return 0;
}

/* A tools/call result with one text item; isError when is_error. */
static json_object *
mcp_tool_text(const char *text, size_t len, int is_error)
{
	json_object	*res = json_object_new_object(), *content, *item;

	content = json_object_new_array();
	item = json_object_new_object();
	json_object_object_add(item, "type", json_object_new_string("text"));
	json_object_object_add(item, "text", json_object_new_string_len(text, (int)len));
	json_object_array_add(content, item);
	json_object_object_add(res, "content", content);
	if (is_error)
		json_object_object_add(res, "isError", json_object_new_boolean(1));
	return res;
}

static json_object *
mcp_tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static json_object *
mcp_tool_error(const char *fmt, ...)
{
	char	 msg[700];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mcp_tool_text(msg, strlen(msg), 1);
}

/* NULL when v (argument name) is a fit text argument, else the tool error saying why. */
static json_object *
mcp_check_text(const char *name, const char *v)
{
	if (*v == '\0')
		return mcp_tool_error("argument '%s' must not be empty", name);
	if (strlen(v) > MCP_PARAM_MAX)
		return mcp_tool_error("argument '%s' is longer than %d characters", name,
		    MCP_PARAM_MAX);
	return NULL;
}

int
mcp_format_libraries(const char *json, struct buf *out)
{
	json_object	*root, *results, *r, *v;
	size_t		 i, n, k;
	double		 trust;
	const char	*rep;
	int		 rc = -1;

	if ((root = json_tokener_parse(json)) == NULL)
		return -1;
	if (!json_object_object_get_ex(root, "results", &results) ||
	    !json_object_is_type(results, json_type_array))
		goto out;
	n = json_object_array_length(results);
	if (n == 0) {
		rc = buf_adds(out, "No libraries matched that name on this server. Check "
		    "the spelling or try the repository or package name; if the library "
		    "is not indexed here, an operator can add it.");
		goto out;
	}
	if (buf_adds(out, "Available Libraries:\n\n") == -1)
		goto out;
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(results, i);
		if (i > 0 && buf_adds(out, "\n----------\n") == -1)
			goto out;
#define STR(key) (json_object_object_get_ex(r, key, &v) && \
	json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "")
		if (buf_printf(out, "- Title: %s\n- Context7-compatible library ID: %s\n"
		    "- Description: %s", STR("title"), STR("id"), STR("description")) == -1)
			goto out;
		if (json_object_object_get_ex(r, "totalSnippets", &v) &&
		    json_object_get_int64(v) != -1 &&
		    buf_printf(out, "\n- Code Snippets: %lld",
		    (long long)json_object_get_int64(v)) == -1)
			goto out;
		rep = "Unknown";
		if (json_object_object_get_ex(r, "trustScore", &v) &&
		    (trust = json_object_get_double(v)) >= 0)
			rep = trust >= 7 ? "High" : trust >= 4 ? "Medium" : "Low";
		if (buf_printf(out, "\n- Source Reputation: %s", rep) == -1)
			goto out;
		if (json_object_object_get_ex(r, "benchmarkScore", &v) &&
		    json_object_get_double(v) > 0 &&
		    buf_printf(out, "\n- Benchmark Score: %s", json_object_to_json_string_ext(
		    v, JSON_C_TO_STRING_PLAIN)) == -1)
			goto out;
		if (json_object_object_get_ex(r, "versions", &v) &&
		    json_object_is_type(v, json_type_array) &&
		    json_object_array_length(v) > 0) {
			if (buf_adds(out, "\n- Versions: ") == -1)
				goto out;
			for (k = 0; k < json_object_array_length(v); k++)
				if (buf_printf(out, "%s%s", k > 0 ? ", " : "",
				    json_object_get_string(json_object_array_get_idx(v,
				    k))) == -1)
					goto out;
		}
		if (*STR("source") != '\0' &&
		    buf_printf(out, "\n- Source: %s", STR("source")) == -1)
			goto out;
#undef STR
	}
	rc = 0;
out:
	json_object_put(root);
	return rc;
}

static json_object *
mcp_tool_resolve(const struct mcp_backend *be, json_object *args, json_object *id)
{
	const char	*name, *query;
	json_object	*err = NULL, *res;
	struct buf	 json, text;

	if (mcp_arg(args, mcp_arg_libname, id, &name, &err) == -1 ||
	    mcp_arg(args, mcp_arg_query, id, &query, &err) == -1)
		return err;
	if (name == NULL)
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: missing "
		    "required argument 'libraryName'");
	if ((res = mcp_check_text("libraryName", name)) != NULL ||
	    (query != NULL && (res = mcp_check_text("query", query)) != NULL))
		return mcp_result(id, res);
	buf_init(&json);
	buf_init(&text);
	if (be->libraries(be->arg, name, query != NULL && *query != '\0' ? query : NULL,
	    &json) == -1 || mcp_format_libraries(json.p, &text) == -1)
		res = mcp_result(id, mcp_tool_error("the library search failed; the "
		    "server log has the details"));
	else
		res = mcp_result(id, mcp_tool_text(text.p, text.len, 0));
	buf_release(&json);
	buf_release(&text);
	return res;
}

/*
 * query-docs, and the legacy get-library-docs (legacy 1: topic is the question, tokens
 * the budget, and with no topic the question is "<repo> overview").
 */
static json_object *
mcp_tool_docs(const struct mcp_backend *be, json_object *args, json_object *id,
    int legacy)
{
	const char	*libid, *query;
	json_object	*err = NULL, *res, *v;
	struct buf	 out, q;
	long		 budget = 0;
	int		 status;

	if (mcp_arg(args, mcp_arg_libid, id, &libid, &err) == -1 ||
	    mcp_arg(args, legacy ? mcp_arg_topic : mcp_arg_query, id, &query, &err) == -1)
		return err;
	if (libid == NULL)
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: missing "
		    "required argument '%s'", legacy ? "context7CompatibleLibraryID" :
		    "libraryId");
	if (query == NULL && !legacy)
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: missing "
		    "required argument 'query'");
	if (legacy && args != NULL && json_object_object_get_ex(args, "tokens", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		if (json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double)) {
			double d = json_object_get_double(v);

			/* Bounded before the conversion, which overflow would make undefined. */
			budget = d >= 100000000 ? 100000000 : d >= 1 ? (long)d : 1;
		} else if (!json_object_is_type(v, json_type_string) ||
		    util_parse_long(json_object_get_string(v), 0, 100000000, &budget) == -1)
			return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: "
			    "argument 'tokens' must be a whole number");
		if (budget < 1)
			budget = 1;	/* raised to the minimum by the context code */
	}
	if ((res = mcp_check_text("libraryId", libid)) != NULL ||
	    (query != NULL && (res = mcp_check_text(legacy ? "topic" : "query",
	    query)) != NULL))
		return mcp_result(id, res);
	buf_init(&out);
	buf_init(&q);
	if (query == NULL) {
		const char *repo = strrchr(libid, '/');

		if (buf_printf(&q, "%s overview getting started",
		    repo != NULL && repo[1] != '\0' ? repo + 1 : libid) == -1) {
			res = mcp_error(id, RPC_INTERNAL_ERROR, "Internal error");
			goto out;
		}
		query = q.p;
	}
	status = be->context(be->arg, libid, query, budget, &out);
	if (status == -1 || out.p == NULL)
		res = mcp_error(id, RPC_INTERNAL_ERROR, "Internal error: the context "
		    "could not be built");
	else
		res = mcp_result(id, mcp_tool_text(out.p, out.len, status != 200));
out:
	buf_release(&out);
	buf_release(&q);
	return res;
}

static json_object *
mcp_tools_call(const struct mcp_backend *be, json_object *params, json_object *id)
{
	json_object	*v, *args = NULL;
	const char	*name;

	if (params == NULL || !json_object_object_get_ex(params, "name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: tools/call "
		    "needs the tool's 'name'");
	name = json_object_get_string(v);
	if (json_object_object_get_ex(params, "arguments", &args) &&
	    !json_object_is_type(args, json_type_null) &&
	    !json_object_is_type(args, json_type_object))
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: 'arguments' "
		    "must be an object");
	if (args != NULL && !json_object_is_type(args, json_type_object))
		args = NULL;
	if (strcmp(name, "resolve-library-id") == 0)
		return mcp_tool_resolve(be, args, id);
	if (strcmp(name, "query-docs") == 0)
		return mcp_tool_docs(be, args, id, 0);
	if (strcmp(name, "get-library-docs") == 0)
		return mcp_tool_docs(be, args, id, 1);
	return mcp_error(id, RPC_INVALID_PARAMS, "Unknown tool: '%.100s' (this server "
	    "has resolve-library-id and query-docs)", name);
}

/* ------------------------------------------------------------------ JSON-RPC */

static json_object *
mcp_initialize(json_object *params, json_object *id)
{
	json_object	*v, *res, *caps, *tools, *info;

	if (params == NULL || !json_object_object_get_ex(params, "protocolVersion", &v) ||
	    !json_object_is_type(v, json_type_string))
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: initialize "
		    "needs 'protocolVersion' (a string)");
	res = json_object_new_object();
	json_object_object_add(res, "protocolVersion",
	    json_object_new_string(mcp_negotiate(json_object_get_string(v))));
	caps = json_object_new_object();
	tools = json_object_new_object();
	json_object_object_add(tools, "listChanged", json_object_new_boolean(0));
	json_object_object_add(caps, "tools", tools);
	json_object_object_add(res, "capabilities", caps);
	info = json_object_new_object();
	json_object_object_add(info, "name", json_object_new_string("ctxd"));
	json_object_object_add(info, "title", json_object_new_string(
	    "ctxd documentation"));
	json_object_object_add(info, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(res, "serverInfo", info);
	json_object_object_add(res, "instructions",
	    json_object_new_string(mcp_instructions));
	return mcp_result(id, res);
}

static json_object *
mcp_tools_list(json_object *id)
{
	json_object	*res = json_object_new_object(), *tools;

	if ((tools = json_tokener_parse(mcp_tools_json)) == NULL) {
		json_object_put(res);
		log_err("%s: the tools JSON does not parse", __func__);
		return mcp_error(id, RPC_INTERNAL_ERROR, "Internal error");
	}
	json_object_object_add(res, "tools", tools);
	return mcp_result(id, res);
}

/* Message kinds. */
enum mcp_kind { MCP_REQUEST, MCP_NOTIFICATION, MCP_RESPONSE, MCP_INVALID };

/*
 * Classifies one message; for MCP_INVALID *resp is the error response (with the id when
 * it could be read).
 */
static enum mcp_kind
mcp_classify(json_object *m, json_object **resp)
{
	json_object	*v, *id = NULL, *method = NULL, *params;
	int		 has_id, has_method;

	*resp = NULL;
	if (!json_object_is_type(m, json_type_object)) {
		*resp = mcp_error(NULL, RPC_INVALID_REQUEST, "Invalid Request: a "
		    "JSON-RPC message must be an object");
		return MCP_INVALID;
	}
	has_id = json_object_object_get_ex(m, "id", &id);
	if (has_id && !json_object_is_type(id, json_type_string) &&
	    !json_object_is_type(id, json_type_int)) {
		*resp = mcp_error(NULL, RPC_INVALID_REQUEST, "Invalid Request: 'id' "
		    "must be a string or an integer");
		return MCP_INVALID;
	}
	if (!json_object_object_get_ex(m, "jsonrpc", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "2.0") != 0) {
		*resp = mcp_error(id, RPC_INVALID_REQUEST, "Invalid Request: "
		    "'jsonrpc' must be \"2.0\"");
		return MCP_INVALID;
	}
	has_method = json_object_object_get_ex(m, "method", &method);
	if (!has_method) {
		if (has_id && (json_object_object_get_ex(m, "result", &v) ||
		    json_object_object_get_ex(m, "error", &v)))
			return MCP_RESPONSE;
		*resp = mcp_error(id, RPC_INVALID_REQUEST, "Invalid Request: a message "
		    "needs a 'method' (or, for a response, 'id' and 'result' or "
		    "'error')");
		return MCP_INVALID;
	}
	if (!json_object_is_type(method, json_type_string)) {
		*resp = mcp_error(id, RPC_INVALID_REQUEST, "Invalid Request: 'method' "
		    "must be a string");
		return MCP_INVALID;
	}
	if (json_object_object_get_ex(m, "params", &params) &&
	    !json_object_is_type(params, json_type_object) &&
	    !json_object_is_type(params, json_type_array)) {
		*resp = mcp_error(id, RPC_INVALID_REQUEST, "Invalid Request: 'params' "
		    "must be an object");
		return MCP_INVALID;
	}
	return has_id ? MCP_REQUEST : MCP_NOTIFICATION;
}

/* The response to one request (classified MCP_REQUEST). */
static json_object *
mcp_request(const struct mcp_backend *be, json_object *m)
{
	json_object	*id, *v, *params = NULL;
	const char	*method;

	json_object_object_get_ex(m, "id", &id);
	json_object_object_get_ex(m, "method", &v);
	method = json_object_get_string(v);
	if (json_object_object_get_ex(m, "params", &params) &&
	    !json_object_is_type(params, json_type_object)) {
		if (json_object_is_type(params, json_type_array))
			return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: MCP "
			    "params are an object, not an array");
		params = NULL;
	}
	if (strcmp(method, "initialize") == 0)
		return mcp_initialize(params, id);
	if (strcmp(method, "ping") == 0)
		return mcp_result(id, json_object_new_object());
	if (strcmp(method, "tools/list") == 0)
		return mcp_tools_list(id);
	if (strcmp(method, "tools/call") == 0)
		return mcp_tools_call(be, params, id);
	return mcp_error(id, RPC_METHOD_NOT_FOUND, "Method not found: '%.100s'", method);
}

/* 1 when m is an initialize request. */
static int
mcp_is_initialize(json_object *m)
{
	json_object	*v;

	return json_object_is_type(m, json_type_object) &&
	    json_object_object_get_ex(m, "method", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), "initialize") == 0;
}

void
mcp_handle(const struct mcp_backend *be, const struct mcp_req *rq, struct mcp_reply *r)
{
	static json_tokener *tok;
	json_object	*root = NULL, *resp, *arr;
	enum json_tokener_error jerr;
	const char	*version;
	size_t		 end, i, n;

	memset(r, 0, sizeof(*r));
	/* One tokener for the life of the process: making one costs more than a parse. */
	if (tok == NULL && (tok = json_tokener_new()) == NULL) {
		mcp_reply_json(r, 500, mcp_error(NULL, RPC_INTERNAL_ERROR,
		    "Internal error: out of memory"));
		return;
	}
	json_tokener_reset(tok);
	if (rq->body != NULL && rq->body_len > 0 && rq->body_len < (size_t)1 << 30)
		root = json_tokener_parse_ex(tok, rq->body, (int)rq->body_len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (root == NULL && jerr == json_tokener_continue) {
		/* A bare number may go on: a blank after the body ends it. */
		root = json_tokener_parse_ex(tok, " ", 1);
		jerr = json_tokener_get_error(tok);
		end = rq->body_len;
	}
	if (root != NULL)
		while (end < rq->body_len && strchr(" \t\r\n", rq->body[end]) != NULL)
			end++;
	if (root == NULL || jerr != json_tokener_success || end != rq->body_len ||
	    memchr(rq->body, '\0', rq->body_len) != NULL) {
		json_object_put(root);
		mcp_reply_json(r, 400, mcp_error(NULL, RPC_PARSE_ERROR, "Parse error: "
		    "the body is not one JSON value (%s)", rq->body_len == 0 ?
		    "it is empty" : jerr != json_tokener_success ?
		    json_tokener_error_desc(jerr) : "trailing characters"));
		return;
	}

	/*
	 * The version in effect: the MCP-Protocol-Version header (sent by clients from
	 * 2025-06-18 on, after initialize), else 2025-03-26 as the transport says.
	 */
	version = rq->protocol_version;
	if (version != NULL && !mcp_version_supported(version) && !mcp_is_initialize(root)) {
		json_object_put(root);
		mcp_reply_json(r, 400, mcp_error(NULL, RPC_TRANSPORT, "Bad Request: "
		    "unsupported MCP-Protocol-Version '%.40s' (supported: 2025-11-25, "
		    "2025-06-18, 2025-03-26, 2024-11-05)", version));
		return;
	}
	if (version == NULL || !mcp_version_supported(version))
		version = "2025-03-26";

	if (!json_object_is_type(root, json_type_array)) {
		switch (mcp_classify(root, &resp)) {
		case MCP_INVALID:
			mcp_reply_json(r, 400, resp);
			break;
		case MCP_NOTIFICATION:
		case MCP_RESPONSE:
			mcp_reply_json(r, 202, NULL);
			break;
		case MCP_REQUEST:
			mcp_reply_json(r, 200, mcp_request(be, root));
			break;
		}
		json_object_put(root);
		return;
	}

	/* A batch. */
	n = json_object_array_length(root);
	if (n == 0 || !mcp_version_batches(version)) {
		mcp_reply_json(r, 400, mcp_error(NULL, RPC_INVALID_REQUEST, n == 0 ?
		    "Invalid Request: empty batch" : "Invalid Request: JSON-RPC batches "
		    "are not part of MCP protocol version %s: send one message per POST",
		    version));
		json_object_put(root);
		return;
	}
	arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(root, i);

		switch (mcp_classify(m, &resp)) {
		case MCP_INVALID:
			json_object_array_add(arr, resp);
			break;
		case MCP_NOTIFICATION:
		case MCP_RESPONSE:
			break;
		case MCP_REQUEST:
			if (mcp_is_initialize(m)) {
				json_object *id;

				json_object_object_get_ex(m, "id", &id);
				json_object_array_add(arr, mcp_error(id,
				    RPC_INVALID_REQUEST, "Invalid Request: initialize "
				    "must not be part of a batch"));
			} else
				json_object_array_add(arr, mcp_request(be, m));
			break;
		}
	}
	json_object_put(root);
	if (json_object_array_length(arr) == 0) {
		json_object_put(arr);
		mcp_reply_json(r, 202, NULL);
	} else
		mcp_reply_json(r, 200, arr);
}
