/*
 * mcp2026.c: MCP revision 2026-07-28 at /mcp, beside the legacy revisions of mcp.c
 * (a "dual-era" server, spec: basic/versioning). A 2026-07-28 request has no initialize
 * before it: it carries its version and the client's capabilities in params._meta and
 * mirrors them in HTTP headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name), which are
 * checked against the body. Its results carry resultType and the server's identity in
 * _meta; those of tools/list and server/discover carry caching hints (ttlMs, cacheScope).
 * Nothing is kept between requests, as for the legacy revisions.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "mcp/mcp.h"
#include "mcp/mcp_int.h"

#define META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define META_CAPS	"io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT	"io.modelcontextprotocol/clientInfo"
#define META_SERVER	"io.modelcontextprotocol/serverInfo"
#define MCP_NAME_MAX	1024	/* bytes of a decoded Mcp-Name value */

/* Every version this server speaks, newest first (server/discover, -32022). */
static const char *const mcp2026_all[] = {
	MCP_VERSION_MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};

/* The object member name of o (borrowed), or NULL when o is no object or lacks it. */
static json_object *
mcp2026_member(json_object *o, const char *name)
{
	json_object	*v;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, name, &v))
		return NULL;
	return v;
}

/* params._meta of message m (borrowed), or NULL. */
static json_object *
mcp2026_meta(json_object *m)
{
	json_object	*meta = mcp2026_member(mcp2026_member(m, "params"), "_meta");

	return meta != NULL && json_object_is_type(meta, json_type_object) ? meta : NULL;
}

/*
 * 1 when message root (the parsed body) is to be served under 2026-07-28: its
 * params._meta names a protocol version that is not a legacy one, or the
 * MCP-Protocol-Version header does and it is not an initialize request.
 */
static int
mcp2026_is_modern(const struct mcp_req *rq, json_object *root)
{
	json_object	*v;

	if ((v = mcp2026_member(mcp2026_meta(root), META_VERSION)) != NULL &&
	    !(json_object_is_type(v, json_type_string) &&
	    mcp_version_supported(json_object_get_string(v))))
		return 1;
	/* An initialize is legacy whatever the header says: it starts a legacy session. */
	return rq->protocol_version != NULL && !mcp_version_supported(rq->protocol_version) &&
	    !mcp_is_initialize(root);
}

/* ------------------------------------------------------------------ headers */

/* Sets *p, *n to the value s without the blanks (space, tab) around it. */
static void
mcp2026_trim(const char *s, const char **p, size_t *n)
{
	size_t	 len;

	s += strspn(s, " \t");
	len = strlen(s);
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	*p = s;
	*n = len;
}

/* The value of Base64 character c, or -1. */
static int
mcp2026_b64(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/*
 * Decodes the Base64 text s[0..n) (standard alphabet, padded to a multiple of 4) into out
 * (outsz bytes). The length, or -1 when it is not strict Base64 or does not fit.
 */
static long
mcp2026_unbase64(const char *s, size_t n, unsigned char *out, size_t outsz)
{
	size_t		 i, k = 0, pad = 0;
	unsigned long	 acc = 0;
	int		 bits = 0, d;

	if (n == 0 || n % 4 != 0)
		return -1;
	while (pad < 2 && s[n - 1 - pad] == '=')
		pad++;
	for (i = 0; i < n - pad; i++) {
		if ((d = mcp2026_b64(s[i])) == -1)
			return -1;
		acc = (acc << 6 | (unsigned long)d) & 0xffffff;
		if ((bits += 6) >= 8) {
			bits -= 8;
			if (k >= outsz)
				return -1;
			out[k++] = (unsigned char)(acc >> bits);
		}
	}
	return (long)k;
}

/*
 * The value of an Mcp-Name header h into out (NUL-terminated): without the blanks
 * around it, decoded when it has the form =?base64?...?=. -1 with why set when it holds
 * characters a header value may not have, or is not valid Base64.
 */
static int
mcp2026_header_value(const char *h, char *out, size_t outsz, const char **why)
{
	static const char pre[] = "=?base64?";
	const char	*p;
	size_t		 n, i;
	long		 len;

	mcp2026_trim(h, &p, &n);
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] > 0x7e) {
			*why = "holds a character that is not visible ASCII";
			return -1;
		}
	if (n >= sizeof(pre) - 1 + 2 && strncmp(p, pre, sizeof(pre) - 1) == 0 &&
	    p[n - 2] == '?' && p[n - 1] == '=') {
		len = mcp2026_unbase64(p + sizeof(pre) - 1, n - (sizeof(pre) - 1) - 2,
		    (unsigned char *)out, outsz - 1);
		if (len == -1 || memchr(out, '\0', (size_t)len) != NULL) {
			*why = "is not valid Base64 inside =?base64?...?=";
			return -1;
		}
		out[len] = '\0';
		return 0;
	}
	if (n >= outsz) {
		*why = "is too long";
		return -1;
	}
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/* ------------------------------------------------------------------ results */

/* The server's identity: name and version (Implementation). */
static json_object *
mcp2026_server_info(void)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string("ctxd"));
	json_object_object_add(o, "title", json_object_new_string("ctxd documentation"));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	return o;
}

/*
 * Completes the result of response resp as 2026-07-28 wants it: resultType "complete",
 * the server's identity in _meta and, when cacheable, ttlMs and cacheScope "public".
 * An error response is left as it is.
 */
static void
mcp2026_finish(json_object *resp, int cacheable)
{
	json_object	*res, *meta;

	if ((res = mcp2026_member(resp, "result")) == NULL ||
	    !json_object_is_type(res, json_type_object))
		return;
	json_object_object_add(res, "resultType", json_object_new_string("complete"));
	if ((meta = mcp2026_member(res, "_meta")) == NULL ||
	    !json_object_is_type(meta, json_type_object)) {
		meta = json_object_new_object();
		json_object_object_add(res, "_meta", meta);
	}
	json_object_object_add(meta, META_SERVER, mcp2026_server_info());
	if (cacheable) {
		json_object_object_add(res, "ttlMs", json_object_new_int(MCP_CACHE_TTL_MS));
		json_object_object_add(res, "cacheScope", json_object_new_string("public"));
	}
}

/* server/discover: the versions, capabilities and instructions of this server. */
static json_object *
mcp2026_discover(json_object *id)
{
	json_object	*res, *versions, *caps, *tools;
	size_t		 i;

	res = json_object_new_object();
	versions = json_object_new_array();
	for (i = 0; i < sizeof(mcp2026_all) / sizeof(mcp2026_all[0]); i++)
		json_object_array_add(versions, json_object_new_string(mcp2026_all[i]));
	json_object_object_add(res, "supportedVersions", versions);
	caps = json_object_new_object();
	tools = json_object_new_object();
	json_object_object_add(tools, "listChanged", json_object_new_boolean(0));
	json_object_object_add(caps, "tools", tools);
	json_object_object_add(res, "capabilities", caps);
	json_object_object_add(res, "instructions", json_object_new_string(mcp_instructions));
	return mcp_result(id, res);
}

/*
 * The UnsupportedProtocolVersionError for id (borrowed) asking for version v, found in
 * where (the header or _meta).
 */
static json_object *
mcp2026_unsupported(json_object *id, const char *v, const char *where)
{
	json_object	*o, *e, *data, *list;
	size_t		 i;

	o = mcp_error(id, RPC_UNSUPPORTED_VERSION, "Unsupported protocol version '%.40s' "
	    "(%s): this server speaks 2026-07-28 (version and capabilities in params._meta of "
	    "each request), and 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05 after an "
	    "initialize request (without io.modelcontextprotocol/protocolVersion in _meta)",
	    v, where);
	data = json_object_new_object();
	list = json_object_new_array();
	for (i = 0; i < sizeof(mcp2026_all) / sizeof(mcp2026_all[0]); i++)
		json_object_array_add(list, json_object_new_string(mcp2026_all[i]));
	json_object_object_add(data, "supported", list);
	json_object_object_add(data, "requested", json_object_new_string(v));
	if (json_object_object_get_ex(o, "error", &e))
		json_object_object_add(e, "data", data);
	else
		json_object_put(data);
	return o;
}

/* ------------------------------------------------------------------ requests */

/*
 * Checks the request m (id borrowed) against the 2026-07-28 rules: params._meta, the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. NULL when it may be served,
 * else the error response, with the HTTP status in *status.
 */
static json_object *
mcp2026_check(const struct mcp_req *rq, json_object *m, json_object *id,
    const char *method, int *status)
{
	json_object	*meta, *v, *caps, *params;
	const char	*pv, *hv, *why = NULL, *field = NULL, *body_name = NULL;
	char		 name[MCP_NAME_MAX + 1];
	size_t		 hn;

	*status = 400;
	meta = mcp2026_meta(m);
	v = mcp2026_member(meta, META_VERSION);
	caps = mcp2026_member(meta, META_CAPS);
	pv = v != NULL && json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
	if (pv == NULL && rq->protocol_version != NULL &&
	    !mcp_version_supported(rq->protocol_version) &&
	    strcmp(rq->protocol_version, MCP_VERSION_MODERN) != 0)
		return mcp2026_unsupported(id, rq->protocol_version,
		    "the MCP-Protocol-Version header");
	if (meta == NULL)
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: a 2026-07-28 "
		    "request carries params._meta with '" META_VERSION "' and '" META_CAPS
		    "'; this one has no params._meta object");
	if (pv == NULL)
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: params._meta "
		    "needs '" META_VERSION "' (a string)");
	if (caps == NULL || !json_object_is_type(caps, json_type_object))
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: params._meta "
		    "needs '" META_CAPS "' (an object, {} for none)");
	if ((v = mcp2026_member(meta, META_CLIENT)) != NULL &&
	    !json_object_is_type(v, json_type_object))
		return mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: '" META_CLIENT
		    "' in params._meta must be an object");

	if (rq->protocol_version == NULL)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: the "
		    "MCP-Protocol-Version header is missing (params._meta says '%.40s')", pv);
	mcp2026_trim(rq->protocol_version, &hv, &hn);
	if (hn != strlen(pv) || strncmp(hv, pv, hn) != 0)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: "
		    "MCP-Protocol-Version header '%.40s' does not match '%.40s' in "
		    "params._meta", rq->protocol_version, pv);
	if (strcmp(pv, MCP_VERSION_MODERN) != 0)
		return mcp2026_unsupported(id, pv, "params._meta and the "
		    "MCP-Protocol-Version header");

	if (rq->mcp_method == NULL)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: the Mcp-Method "
		    "header is missing (the body's method is '%.100s')", method);
	mcp2026_trim(rq->mcp_method, &hv, &hn);
	if (hn != strlen(method) || strncmp(hv, method, hn) != 0)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: Mcp-Method "
		    "header '%.100s' does not match the body's method '%.100s'",
		    rq->mcp_method, method);

	/* Mcp-Name mirrors params.name (tools/call, prompts/get) or params.uri. */
	if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
		field = "name";
	else if (strcmp(method, "resources/read") == 0)
		field = "uri";
	if (field == NULL)
		return NULL;
	params = mcp2026_member(m, "params");
	if ((v = mcp2026_member(params, field)) != NULL &&
	    json_object_is_type(v, json_type_string))
		body_name = json_object_get_string(v);
	if (body_name == NULL && rq->mcp_name == NULL)
		return NULL;	/* the missing name is the method's own error */
	if (body_name == NULL)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: an Mcp-Name "
		    "header but no params.%s in the body", field);
	if (rq->mcp_name == NULL)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: the Mcp-Name "
		    "header is missing (params.%s is '%.100s')", field, body_name);
	if (mcp2026_header_value(rq->mcp_name, name, sizeof(name), &why) == -1)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: the Mcp-Name "
		    "header %s", why);
	if (strcmp(name, body_name) != 0)
		return mcp_error(id, RPC_HEADER_MISMATCH, "Header mismatch: Mcp-Name header "
		    "'%.100s' does not match params.%s '%.100s'", name, field, body_name);
	return NULL;
}

/* The answer to request m of method (m and id borrowed), with its HTTP status. */
static json_object *
mcp2026_request(struct mcp_ctx *c, const struct mcp_req *rq, json_object *m,
    json_object *id, const char *method, int *status)
{
	json_object	*resp, *params;

	if ((resp = mcp2026_check(rq, m, id, method, status)) != NULL)
		return resp;
	*status = 200;
	params = mcp2026_member(m, "params");
	if (strcmp(method, "server/discover") == 0) {
		resp = mcp2026_discover(id);
		mcp2026_finish(resp, 1);
	} else if (strcmp(method, "tools/list") == 0) {
		resp = mcp_tools_list(id);
		mcp2026_finish(resp, 1);
	} else if (strcmp(method, "tools/call") == 0) {
		resp = mcp_tools_call(c, params, id, 1);
		mcp2026_finish(resp, 0);
	} else {
		*status = 404;
		if (strcmp(method, "initialize") == 0 || strcmp(method, "ping") == 0 ||
		    strcmp(method, "logging/setLevel") == 0)
			resp = mcp_error(id, RPC_METHOD_NOT_FOUND, "Method not found: "
			    "'%s' is not part of MCP 2026-07-28 (a legacy client sends "
			    "initialize without io.modelcontextprotocol/protocolVersion in "
			    "params._meta)", method);
		else
			resp = mcp_error(id, RPC_METHOD_NOT_FOUND, "Method not found: "
			    "'%.100s' (this server has server/discover, tools/list and "
			    "tools/call)", method);
	}
	return resp;
}

/* Answers root (borrowed), a message or a batch, under 2026-07-28. */
static void
mcp2026_handle(struct mcp_ctx *c, const struct mcp_req *rq, json_object *root,
    struct mcp_reply *r)
{
	json_object	*resp, *id = NULL, *v;
	int		 status = 200;

	memset(r, 0, sizeof(*r));
	if (json_object_is_type(root, json_type_array)) {
		mcp_reply_json(r, 400, mcp_error(NULL, RPC_INVALID_REQUEST, "Invalid "
		    "Request: JSON-RPC batches are not part of MCP protocol version "
		    "2026-07-28: send one message per POST"));
		return;
	}
	switch (mcp_classify(root, &resp)) {
	case MCP_INVALID:
		mcp_reply_json(r, 400, resp);
		return;
	case MCP_NOTIFICATION:
	case MCP_RESPONSE:
		mcp_reply_json(r, 202, NULL);
		return;
	case MCP_REQUEST:
		break;
	}
	json_object_object_get_ex(root, "id", &id);
	if ((v = mcp2026_member(root, "params")) != NULL &&
	    !json_object_is_type(v, json_type_object)) {
		mcp_reply_json(r, 400, mcp_error(id, RPC_INVALID_PARAMS, "Invalid params: "
		    "MCP params are an object, not an array"));
		return;
	}
	json_object_object_get_ex(root, "method", &v);
	resp = mcp2026_request(c, rq, root, id, json_object_get_string(v), &status);
	mcp_reply_json(r, status, resp);
	if (r->body_len > MCP_CALL_MAX_BYTES) {
		mcp_reply_release(r);
		mcp_reply_json(r, 200, mcp_limit_error(id, MCP_CALL_MAX_BYTES, 1));
	}
}

/* ------------------------------------------------------------------ both eras */

void
mcp_handle(struct mcp_ctx *c, const struct mcp_req *rq, struct mcp_reply *r)
{
	json_object	*root;

	if ((root = mcp_parse(rq, r)) == NULL)
		return;
	if (!mcp2026_is_modern(rq, root)) {
		mcp_legacy(c, rq, root, r);
		return;
	}
	mcp2026_handle(c, rq, root, r);
	json_object_put(root);
}
