/*
 * mcp.c: the MCP server of ctxd-mcp (see mcp.h): Streamable HTTP without sessions, every
 * POST answered on its own, so that any pre-forked worker answers any request.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/http.h"
#include "mcp/mcp.h"
#include "mcp/mcp_int.h"
#include "store/settings.h"

/* Newest first: the order of negotiation. */
static const char *const mcp_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};

const char mcp_instructions[] =
    "ctxd serves up-to-date documentation of the libraries indexed on this instance "
    "(the organisation's own repositories and the public ones it chose). Use it "
    "whenever a task involves a library, framework, SDK, API or CLI tool: its API, "
    "configuration, setup, version changes, errors or usage examples, even for a "
    "library you think you know, since the indexed documentation is newer than your "
    "training data and may be private. Call resolve-library-id first to turn a name "
    "into a library ID (/owner/repo), unless the user gave an ID of that form; then "
    "call query-docs with that ID and one specific question per concept. Do not use "
    "it for general programming questions that involve no particular library.";

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
    const char *names, const char *allowed)
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
	/*
	 * The origin must be one of the server's own names, not merely the Host the client
	 * sent: a DNS-rebinding page sends its own name as both.
	 */
	if (!http_host_known(auth, alen, names))
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
void
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

json_object *
mcp_error(json_object *id, int code, const char *fmt, ...)
{
	json_object	*o, *e;
	char		 msg[700];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	util_utf8_trim(msg);	/* '%.100s' counts bytes: not inside a character */
	util_utf8_scrub(msg);	/* what it echoes may be any bytes */
	o = json_object_new_object();
	e = json_object_new_object();
	json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(o, "id", id != NULL ? json_object_get(id) : NULL);
	json_object_object_add(e, "code", json_object_new_int(code));
	json_object_object_add(e, "message", json_object_new_string(msg));
	json_object_object_add(o, "error", e);
	return o;
}

json_object *
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

int
mcp_check(struct mcp_ctx *c, const struct mcp_req *rq, struct mcp_reply *r)
{
	long	 len = 0;
	int	 ok;
	char	*allowed, *names;

	memset(r, 0, sizeof(*r));
	if (rq->origin != NULL && *rq->origin != '\0' &&
	    !mcp_origin_allowed(rq->origin, rq->host, rq->forwarded_host, NULL, NULL)) {
		allowed = settings_get(c->db, util_data_dir(), "mcp.allowed_origins");
		names = settings_get(c->db, util_data_dir(), "server.hostnames");
		ok = mcp_origin_allowed(rq->origin, rq->host, rq->forwarded_host, names,
		    allowed);
		free(allowed);
		free(names);
		if (!ok)
			return mcp_refuse(r, 403, NULL, RPC_TRANSPORT, "Forbidden: the "
			    "Origin of this request is not this server's (its names are IP "
			    "addresses, localhost, the machine's host name and setting "
			    "server.hostnames); an operator can allow it with setting "
			    "mcp.allowed_origins");
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

/* The listing of tool t: name, title, description, inputSchema, annotations. */
static json_object *
mcp_tool_listing(const struct mcp_tool *t)
{
	json_object	*o, *schema, *ann;

	if ((schema = validate_schema(t->args)) == NULL) {
		log_err("%s: the input schema of %s: out of memory", __func__, t->name);
		return NULL;
	}
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "title", json_object_new_string(t->title));
	json_object_object_add(o, "description", json_object_new_string(t->description));
	json_object_object_add(o, "inputSchema", schema);
	/* Every tool of this server only reads this server's index. */
	ann = json_object_new_object();
	json_object_object_add(ann, "title", json_object_new_string(t->title));
	json_object_object_add(ann, "readOnlyHint", json_object_new_boolean(1));
	json_object_object_add(ann, "destructiveHint", json_object_new_boolean(0));
	json_object_object_add(ann, "idempotentHint", json_object_new_boolean(1));
	json_object_object_add(ann, "openWorldHint", json_object_new_boolean(0));
	json_object_object_add(o, "annotations", ann);
	return o;
}

/* tools/list: the rows of mcp_tools that are not hidden, in table order. */
json_object *
mcp_tools_list(json_object *id)
{
	const struct mcp_tool *t;
	json_object	*res, *tools, *o;

	tools = json_object_new_array();
	for (t = mcp_tools; t->name != NULL; t++) {
		if (t->hidden)
			continue;
		if ((o = mcp_tool_listing(t)) == NULL) {
			json_object_put(tools);
			return mcp_error(id, RPC_INTERNAL_ERROR, "Internal error");
		}
		json_object_array_add(tools, o);
	}
	res = json_object_new_object();
	json_object_object_add(res, "tools", tools);
	return mcp_result(id, res);
}

/* The aliases ("a|b") of argument name in t's alias list, or NULL. */
static const char *
mcp_aliases_of(const struct mcp_tool *t, const char *name)
{
	const struct mcp_alias *a;

	for (a = t->aliases; a != NULL && a->name != NULL; a++)
		if (strcmp(a->name, name) == 0)
			return a->aliases;
	return NULL;
}

/*
 * The value of argument f in args: under its own name, else under the first of its
 * aliases present (JSON null counts as absent). Borrowed; NULL when absent.
 */
static json_object *
mcp_arg_value(const struct mcp_tool *t, const struct validate_field *f, json_object *args)
{
	const char	*p, *bar;
	char		 name[64];
	json_object	*v;
	size_t		 n;

	if (args == NULL)
		return NULL;
	if (json_object_object_get_ex(args, f->name, &v) &&
	    !json_object_is_type(v, json_type_null))
		return v;
	for (p = mcp_aliases_of(t, f->name); p != NULL; p = bar != NULL ? bar + 1 : NULL) {
		bar = strchr(p, '|');
		n = bar != NULL ? (size_t)(bar - p) : strlen(p);
		if (n >= sizeof(name))
			continue;
		memcpy(name, p, n);
		name[n] = '\0';
		if (json_object_object_get_ex(args, name, &v) &&
		    !json_object_is_type(v, json_type_null))
			return v;
	}
	return NULL;
}

/*
 * A number argument (f of type VALIDATE_INT) as models send it: a fraction or a whole
 * number in a string becomes a whole number, brought into f's bounds. A new reference;
 * other values are returned as they are, for the validator to refuse.
 */
static json_object *
mcp_arg_number(const struct validate_field *f, json_object *v)
{
	double	 d;
	long	 x;

	if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
		/* Bounded before the conversion, which overflow would make undefined. */
		d = json_object_get_double(v);
		x = !(d > (double)f->min) ? f->min : d >= (double)f->max ? f->max :
		    (long)d;	/* NaN: the minimum */
		return json_object_new_int64(x);
	}
	if (json_object_is_type(v, json_type_string) &&
	    util_parse_long(json_object_get_string(v), 0, 1L << 40, &x) == 0)
		return json_object_new_int64(x > f->max ? f->max : x < f->min ? f->min : x);
	return json_object_get(v);
}

/*
 * The arguments of tool t from the client's args (NULL: none): each declared argument
 * under its own name, taken from its name or an alias; numbers as mcp_arg_number says.
 * Undeclared members are left out. The caller puts the object.
 */
static json_object *
mcp_args(const struct mcp_tool *t, json_object *args)
{
	const struct validate_field *f;
	json_object	*o = json_object_new_object(), *v;

	for (f = t->args->fields; f->name != NULL; f++) {
		if ((v = mcp_arg_value(t, f, args)) == NULL)
			continue;
		json_object_object_add(o, f->name, f->type == VALIDATE_INT ?
		    mcp_arg_number(f, v) : json_object_get(v));
	}
	return o;
}

#define MCP_MAX_ARGS	16	/* declared arguments of one tool */

/*
 * Checks args against t's table. 0 when fit; else -1 with the error in err and *shape
 * 1 when an argument is missing or of the wrong type (a protocol error), 0 when a value
 * is out of its bounds (empty, too long: a tool error the model can correct).
 */
static int
mcp_args_check(const struct mcp_tool *t, json_object *args, int *shape, char *err,
    size_t errsz)
{
	struct validate_field loose[MCP_MAX_ARGS + 1];
	struct validate_table lt = *t->args;
	char		 why[512];
	size_t		 i;

	*shape = 0;
	if (validate_object(t->args, args, err, errsz) == 0)
		return 0;
	/* The same table without the bounds tells which kind of error it was. */
	for (i = 0; i < MCP_MAX_ARGS && t->args->fields[i].name != NULL; i++) {
		loose[i] = t->args->fields[i];
		if (loose[i].type == VALIDATE_STRING) {
			loose[i].min = loose[i].max = 0;
			loose[i].choices = NULL;
			loose[i].check = NULL;
		}
	}
	memset(&loose[i], 0, sizeof(loose[i]));
	lt.fields = loose;
	if (validate_object(&lt, args, why, sizeof(why)) == -1) {
		snprintf(err, errsz, "%s", why);
		*shape = 1;
	}
	return -1;
}

/* The names of the listed tools, "a, b and c", into out. */
static void
mcp_tool_names(char *out, size_t outsz)
{
	const struct mcp_tool *t;
	size_t		 n = 0, k = 0, len;

	for (t = mcp_tools; t->name != NULL; t++)
		n += !t->hidden;
	*out = '\0';
	for (t = mcp_tools; t->name != NULL; t++) {
		if (t->hidden)
			continue;
		len = strlen(out);
		snprintf(out + len, outsz - len, "%s%s", k == 0 ? "" : k + 1 == n ?
		    " and " : ", ", t->name);
		k++;
	}
}

/*
 * tools/call: finds the tool by name, checks its arguments and calls its handler. A
 * missing argument or one of the wrong type is a protocol error (-32602) for the legacy
 * revisions, as their clients expect; with args_as_tool_error (2026-07-28) it is a tool
 * result with isError, as 2025-11-25 and later advise for input validation.
 */
json_object *
mcp_tools_call(struct mcp_ctx *c, json_object *params, json_object *id,
    int args_as_tool_error)
{
	const struct mcp_tool *t;
	json_object	*v, *args = NULL, *res;
	const char	*name;
	char		 err[512];
	int		 shape;

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
	for (t = mcp_tools; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			break;
	if (t->name == NULL) {
		mcp_tool_names(err, sizeof(err));
		return mcp_error(id, RPC_INVALID_PARAMS, "Unknown tool: '%.100s' (this "
		    "server has %s)", name, err);
	}
	args = mcp_args(t, args);
	if (mcp_args_check(t, args, &shape, err, sizeof(err)) == -1)
		res = shape && !args_as_tool_error ? mcp_error(id, RPC_INVALID_PARAMS,
		    "Invalid params: %s", err) :
		    mcp_result(id, mcp_tool_text(err, strlen(err), 1));
	else if ((v = t->handler(c, args)) == NULL)
		res = mcp_error(id, RPC_INTERNAL_ERROR, "Internal error: the tool %s "
		    "failed; the server log has the details", t->name);
	else
		res = mcp_result(id, v);
	json_object_put(args);
	return res;
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

enum mcp_kind
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
mcp_request(struct mcp_ctx *c, json_object *m)
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
		return mcp_tools_call(c, params, id, 0);
	return mcp_error(id, RPC_METHOD_NOT_FOUND, "Method not found: '%.100s'", method);
}

int
mcp_is_initialize(json_object *m)
{
	json_object	*v;

	return json_object_is_type(m, json_type_object) &&
	    json_object_object_get_ex(m, "method", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), "initialize") == 0;
}

json_object *
mcp_limit_error(json_object *id, size_t limit, size_t n)
{
	return mcp_error(id, MCP_RPC_LIMIT, "Answer too large: the answer to this POST may "
	    "have at most %zu bytes (%d KiB per request it holds, at most %d KiB in all); "
	    "this request was not answered: send it again on its own or with a smaller "
	    "budget%s", limit, MCP_CALL_MAX_BYTES / 1024, MCP_MAX_ANSWER / 1024, n > 1 ?
	    ", and the requests after it in another POST" : "");
}

/* The error answering request id (borrowed) not begun within the batch's time. */
static json_object *
mcp_time_error(json_object *id, long ms)
{
	return mcp_error(id, MCP_RPC_LIMIT, "Time limit: the requests of a batch are begun "
	    "within %ld s of its first; this one was not run: send it again in another "
	    "POST", ms / 1000);
}

/* Appends the JSON text of o (consumed) to out; -1 on no memory. */
static int
mcp_append(struct buf *out, json_object *o)
{
	const char	*s;
	size_t		 len = 0;
	int		 rc;

	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	rc = s == NULL || buf_add(out, s, len) == -1 ? -1 : 0;
	json_object_put(o);
	return rc;
}

/* The response to message m of a batch (NULL for a notification or a response). */
static json_object *
mcp_batch_one(struct mcp_ctx *c, json_object *m)
{
	json_object	*resp, *id;

	switch (mcp_classify(m, &resp)) {
	case MCP_INVALID:
		return resp;
	case MCP_NOTIFICATION:
	case MCP_RESPONSE:
		return NULL;
	case MCP_REQUEST:
		break;
	}
	if (!mcp_is_initialize(m))
		return mcp_request(c, m);
	json_object_object_get_ex(m, "id", &id);
	return mcp_error(id, RPC_INVALID_REQUEST, "Invalid Request: initialize must not "
	    "be part of a batch");
}

/*
 * Answers the batch root (a JSON array; the caller puts it) under protocol version: 400
 * when empty, longer than MCP_MAX_BATCH or when the version has no batches, else one
 * response per request (202 when there is none), within the answer's byte limit
 * (mcp.h): the answers are written out one by one, and once one would pass the limit,
 * it and the requests after it are answered with MCP_RPC_LIMIT errors, not run; so are
 * the requests not begun within the batch's time (MCP_BATCH_MS).
 */
static void
mcp_batch(struct mcp_ctx *c, json_object *root, const char *version, struct mcp_reply *r)
{
	json_object	*resp, *m, *id;
	struct buf	 out, one;
	size_t		 i, n, k = 0, limit;
	long long	 start = util_now_ms();
	long		 ms = c->batch_ms > 0 ? c->batch_ms : MCP_BATCH_MS;
	int		 full = 0, late = 0;

	n = json_object_array_length(root);
	if (n == 0 || n > MCP_MAX_BATCH || !mcp_version_batches(version)) {
		mcp_reply_json(r, 400, n == 0 ? mcp_error(NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: empty batch") : n > MCP_MAX_BATCH ? mcp_error(NULL,
		    RPC_INVALID_REQUEST, "Invalid Request: a batch may hold at most %d "
		    "messages, this one has %zu: send the others in further POSTs",
		    MCP_MAX_BATCH, n) : mcp_error(NULL, RPC_INVALID_REQUEST, "Invalid "
		    "Request: JSON-RPC batches are not part of MCP protocol version %s: "
		    "send one message per POST", version));
		return;
	}
	limit = n * MCP_CALL_MAX_BYTES < MCP_MAX_ANSWER ? n * MCP_CALL_MAX_BYTES :
	    MCP_MAX_ANSWER;
	buf_init(&out);
	buf_init(&one);
	if (buf_addc(&out, '[') == -1)
		goto nomem;
	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(root, i);
		if (!full && !late && util_now_ms() - start >= ms)
			late = 1;
		if (full || late) {
			/* Past a limit: requests are not run (invalid ones still told). */
			switch (mcp_classify(m, &resp)) {
			case MCP_INVALID:
				break;
			case MCP_REQUEST:
				json_object_object_get_ex(m, "id", &id);
				resp = full ? mcp_limit_error(id, limit, n) :
				    mcp_time_error(id, ms);
				break;
			default:
				continue;
			}
		} else if ((resp = mcp_batch_one(c, m)) == NULL)
			continue;
		buf_reset(&one);
		if (mcp_append(&one, resp) == -1)
			goto nomem;
		if (!full && out.len + one.len + 2 > limit) {
			/* This answer is dropped: an error says why, short as the rest. */
			full = 1;
			id = NULL;
			json_object_object_get_ex(m, "id", &id);
			buf_reset(&one);
			if (mcp_append(&one, mcp_limit_error(json_object_is_type(m,
			    json_type_object) ? id : NULL, limit, n)) == -1)
				goto nomem;
		}
		if ((k++ > 0 && buf_addc(&out, ',') == -1) ||
		    buf_add(&out, one.p, one.len) == -1)
			goto nomem;
	}
	buf_release(&one);
	if (k == 0) {
		buf_release(&out);
		mcp_reply_json(r, 202, NULL);
		return;
	}
	if (buf_addc(&out, ']') == -1)
		goto nomem;
	r->status = 200;
	r->body = out.p;	/* the buffer's text is NUL-terminated */
	r->body_len = out.len;
	return;
nomem:
	buf_release(&one);
	buf_release(&out);
	log_err("%s: out of memory", __func__);
	mcp_reply_json(r, 500, mcp_error(NULL, RPC_INTERNAL_ERROR, "Internal error: out "
	    "of memory"));
}

/* ------------------------------------------------------------------ ids as sent */

/*
 * json-c reads a whole number past 64 bits as the largest or smallest 64-bit one, so an
 * id such as 18446744073709551616 would be echoed as another number. The id is echoed as
 * its original text instead: the text of each message's "id" is found in the body (which
 * json-c has parsed, so it is well formed) and set as the id object's serialization.
 */

/* The index just past the JSON value at s[i]. */
static size_t
mcp_skip_value(const char *s, size_t n, size_t i)
{
	size_t	 depth = 0;

	if (i >= n)
		return n;
	if (s[i] != '{' && s[i] != '[') {
		if (s[i] == '"' || s[i] == '\'')
			return validate_skip_string(s, n, i);
		while (i < n && strchr(",:]} \t\r\n/", s[i]) == NULL)
			i++;
		return i;
	}
	while (i < n) {
		if (s[i] == '"' || s[i] == '\'') {
			i = validate_skip_string(s, n, i);
			continue;
		}
		if (s[i] == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*')) {
			i = validate_skip_blank(s, n, i);
			continue;
		}
		if (s[i] == '{' || s[i] == '[')
			depth++;
		else if ((s[i] == '}' || s[i] == ']') && --depth == 0)
			return i + 1;
		i++;
	}
	return n;
}

/* 1 when the quoted name s[a..b) (quotes included) is "id", escaped or not. */
static int
mcp_is_id_name(const char *s, size_t a, size_t b)
{
	json_object	*o;
	char		*tok;
	int		 yes;

	if (b - a == 4 && s[a + 1] == 'i' && s[a + 2] == 'd')
		return 1;
	if (b - a > 32 || memchr(s + a, '\\', b - a) == NULL ||
	    (tok = strndup(s + a, b - a)) == NULL)
		return 0;
	o = json_tokener_parse(tok);
	yes = json_object_is_type(o, json_type_string) &&
	    strcmp(json_object_get_string(o), "id") == 0;
	json_object_put(o);
	free(tok);
	return yes;
}

/*
 * The text of the "id" member of the object at s[i] into [*a, *b): 1, or 0 when it has
 * none.
 */
static int
mcp_id_text(const char *s, size_t n, size_t i, size_t *a, size_t *b)
{
	size_t	 ks, ke;

	for (i++; (i = validate_skip_blank(s, n, i)) < n && (s[i] == '"' || s[i] == '\'');) {
		ks = i;
		ke = validate_skip_string(s, n, i);
		if ((i = validate_skip_blank(s, n, ke)) >= n || s[i] != ':')
			return 0;
		*a = validate_skip_blank(s, n, i + 1);
		*b = mcp_skip_value(s, n, *a);
		if (mcp_is_id_name(s, ks, ke))
			return 1;
		if ((i = validate_skip_blank(s, n, *b)) >= n || s[i] != ',')
			return 0;
		i++;
	}
	return 0;
}

/* 1 when s[a..b) is a whole number as JSON writes one: -?(0|[1-9][0-9]*). */
static int
mcp_is_integer_text(const char *s, size_t a, size_t b)
{
	if (a < b && s[a] == '-')
		a++;
	if (a >= b || (s[a] == '0' && b - a > 1))
		return 0;
	for (; a < b; a++)
		if (s[a] < '0' || s[a] > '9')
			return 0;
	return 1;
}

/* 1 when the whole number text s[a..b) is the value json-c read for it, id. */
static int
mcp_same_number(const char *s, size_t a, size_t b, json_object *id)
{
	char		 num[32], *end;
	long long	 x;
	unsigned long long u;

	if (b - a >= sizeof(num))
		return s[a] == '-' ? json_object_get_int64(id) == INT64_MIN :
		    json_object_get_uint64(id) == UINT64_MAX;
	memcpy(num, s + a, b - a);
	num[b - a] = '\0';
	errno = 0;
	if (*num == '-') {
		x = strtoll(num, &end, 10);
		return errno == ERANGE ? json_object_get_int64(id) == INT64_MIN :
		    json_object_get_int64(id) == x;
	}
	u = strtoull(num, &end, 10);
	return errno == ERANGE ? json_object_get_uint64(id) == UINT64_MAX :
	    json_object_get_uint64(id) == u;
}

/* Makes the integer id of message m serialize as the text at s[i] sends. */
static void
mcp_raw_id(json_object *m, const char *s, size_t n, size_t i)
{
	json_object	*id;
	size_t		 a, b;
	char		*text;

	if (!json_object_is_type(m, json_type_object) ||
	    !json_object_object_get_ex(m, "id", &id) ||
	    !json_object_is_type(id, json_type_int) || i >= n || s[i] != '{' ||
	    !mcp_id_text(s, n, i, &a, &b) || !mcp_is_integer_text(s, a, b) ||
	    !mcp_same_number(s, a, b, id) || (text = strndup(s + a, b - a)) == NULL)
		return;
	json_object_set_serializer(id, json_object_userdata_to_json_string, text,
	    json_object_free_userdata);
}

/* Applies mcp_raw_id to the message, or to each message of the batch, in root. */
static void
mcp_raw_ids(const char *s, size_t n, json_object *root)
{
	size_t	 i, k;

	if ((i = validate_skip_blank(s, n, 0)) >= n)
		return;
	if (!json_object_is_type(root, json_type_array)) {
		mcp_raw_id(root, s, n, i);
		return;
	}
	if (s[i] != '[')
		return;
	for (k = 0, i++; k < json_object_array_length(root) && k < MCP_MAX_BATCH; k++) {
		if ((i = validate_skip_blank(s, n, i)) >= n || s[i] == ']')
			return;
		mcp_raw_id(json_object_array_get_idx(root, k), s, n, i);
		if ((i = validate_skip_blank(s, n, mcp_skip_value(s, n, i))) >= n ||
		    s[i] != ',')
			return;
		i++;
	}
}

json_object *
mcp_parse(const struct mcp_req *rq, struct mcp_reply *r)
{
	static json_tokener *tok;
	json_object	*root = NULL;
	enum json_tokener_error jerr;
	size_t		 end;
	char		 key[128];

	memset(r, 0, sizeof(*r));
	/* One tokener for the life of the process: making one costs more than a parse. */
	if (tok == NULL && (tok = json_tokener_new()) == NULL) {
		mcp_reply_json(r, 500, mcp_error(NULL, RPC_INTERNAL_ERROR,
		    "Internal error: out of memory"));
		return NULL;
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
		return NULL;
	}
	/* json-c keeps the last of two equal names: which one the client meant is unknown. */
	if (validate_json_unique(rq->body, rq->body_len, root, key, sizeof(key)) == -1) {
		json_object_put(root);
		mcp_reply_json(r, 400, mcp_error(NULL, RPC_INVALID_REQUEST, "Invalid "
		    "Request: %s%.64s%s appears twice in one object of the message",
		    *key != '\0' ? "the name '" : "a member name", key,
		    *key != '\0' ? "'" : ""));
		return NULL;
	}
	mcp_raw_ids(rq->body, rq->body_len, root);
	return root;
}

void
mcp_legacy(struct mcp_ctx *c, const struct mcp_req *rq, json_object *root,
    struct mcp_reply *r)
{
	json_object	*resp;
	const char	*version;

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
			mcp_reply_json(r, 200, mcp_request(c, root));
			if (r->body_len > MCP_CALL_MAX_BYTES) {
				json_object_object_get_ex(root, "id", &resp);
				mcp_reply_release(r);
				mcp_reply_json(r, 200, mcp_limit_error(resp,
				    MCP_CALL_MAX_BYTES, 1));
			}
			break;
		}
		json_object_put(root);
		return;
	}

	mcp_batch(c, root, version, r);
	json_object_put(root);
}
