/*
 * mcp.h: the MCP server of ctxd-mcp (Streamable HTTP, stateless), without FastCGI. It is
 * dual-era: the legacy revisions 2024-11-05 to 2025-11-25 (initialize handshake, mcp.c)
 * and 2026-07-28 (no handshake: version and capabilities in every request's
 * params._meta, server/discover, Mcp-Method and Mcp-Name headers; lib/mcp/mcp2026.c, which
 * also holds mcp_handle) on the one endpoint; mcp_handle tells them apart by the request.
 *
 * A POST to /mcp travels: nginx → fcgi/mcp.c's route table (POST only; who may call: the
 * matcher runs access_check) → its handler, which fills a struct mcp_req and calls
 * mcp_check (the transport rules that are not authorization) and mcp_handle (JSON-RPC
 * 2.0, batches, version negotiation, initialize, ping, tools/list, tools/call). The tools
 * are one table, mcp_tools (mcp_tools.c): tools/list renders it, tools/call finds the row
 * by name, checks the arguments against the row's validate table (validate.h) and calls
 * the row's handler, which calls lib/search/search.c with the caller's struct mcp_ctx.
 * A request's integer id is echoed as the client wrote it, even past 64 bits.
 */
#ifndef MCP_H
#define MCP_H

#include <stddef.h>

#include <json.h>

struct buf;
struct search;
struct db;
struct validate_table;

#define MCP_MAX_BODY		(256 * 1024)	/* bytes of one POST body */
/*
 * A JSON-RPC batch holds at most MCP_MAX_BATCH messages (400 past it). The answer to one
 * POST has at most MCP_CALL_MAX_BYTES per request it holds (a tools/call with the largest
 * budget, FORMAT_MAX_TOKENS, JSON-escaped, fits) and never more than MCP_MAX_ANSWER; a
 * request whose answer would pass that is answered with error MCP_RPC_LIMIT instead, and
 * the requests after it are not run.
 */
#define MCP_MAX_BATCH		32
#define MCP_CALL_MAX_BYTES	(1024 * 1024)
#define MCP_MAX_ANSWER		(4 * 1024 * 1024)
/*
 * The requests of a batch are begun within MCP_BATCH_MS of its first (the answers of
 * /api/v2/ have 30 s in nginx): those left are answered with error MCP_RPC_LIMIT.
 */
#define MCP_BATCH_MS		(25 * 1000)
#define MCP_RPC_LIMIT		-32003	/* JSON-RPC error: a limit of this server */
#define MCP_VERSION_NEWEST	"2025-11-25"	/* the newest with initialize */
#define MCP_VERSION_MODERN	"2026-07-28"	/* served without a handshake */
/*
 * How long (ms) a 2026-07-28 client may keep the answers of tools/list and server/discover
 * (ttlMs; cacheScope "public": they are the same for every caller). They change only when
 * ctxd is upgraded.
 */
#define MCP_CACHE_TTL_MS	3600000

/* What the tools work on: the responder's read-only database and its query path. */
struct mcp_ctx {
	struct db	*db;		/* settings (mcp.allowed_origins) */
	struct search	*search;	/* search_open(db) */
	long		 batch_ms;	/* 0: MCP_BATCH_MS (a test's shorter time) */
};

/* One HTTP request to /mcp: the CGI variables the transport needs (NULL when absent). */
struct mcp_req {
	const char	*content_type;
	const char	*content_length;
	const char	*accept;
	const char	*origin;
	const char	*host;			/* HTTP_HOST */
	const char	*forwarded_host;	/* HTTP_X_FORWARDED_HOST */
	const char	*protocol_version;	/* HTTP_MCP_PROTOCOL_VERSION */
	const char	*mcp_method;		/* HTTP_MCP_METHOD (2026-07-28) */
	const char	*mcp_name;		/* HTTP_MCP_NAME (2026-07-28) */
	const char	*body;			/* for mcp_handle */
	size_t		 body_len;
};

/* The answer: status, extra header lines ("Name: value\r\n", static) and a body. */
struct mcp_reply {
	int		 status;
	const char	*headers;		/* NULL: none */
	char		*body;			/* JSON, or NULL for no body (202) */
	size_t		 body_len;
};

/*
 * A tool's handler: the tools/call result ({"content": [...], "isError": ...}) for args,
 * an object holding only the row's declared arguments under their own names, already
 * checked against the row's table. NULL on an internal error (logged), which the caller
 * answers with JSON-RPC error -32603.
 */
typedef json_object *(*mcp_tool_fn)(struct mcp_ctx *, json_object *args);

/* Other names clients send for argument name: "a|b", in order of precedence. */
struct mcp_alias {
	const char	*name;
	const char	*aliases;
};

/*
 * One tool. args declares the arguments (lengths in characters); an argument of type
 * VALIDATE_INT also takes a fraction or a whole number in a string, and values past its
 * bounds are brought to them. aliases (NULL, or ending with a NULL name) lists other
 * names of arguments. A hidden tool answers tools/call but is not listed.
 */
struct mcp_tool {
	const char			*name;
	const char			*title;
	const char			*description;
	const struct validate_table	*args;		/* its arguments, and its
							   inputSchema (validate_schema) */
	const struct mcp_alias		*aliases;
	int				 hidden;
	mcp_tool_fn			 handler;
};

/* The tools of this server (mcp_tools.c), ending with a row whose name is NULL. */
extern const struct mcp_tool mcp_tools[];

/*
 * Checks a request before its body is read: Origin (403 when foreign and not listed in
 * setting mcp.allowed_origins), Content-Type (415), Accept (406) and Content-Length
 * (400 when malformed, 413 over MCP_MAX_BODY). Returns 1 with reply filled when the
 * request is answered, 0 when the body should be read and mcp_handle called.
 */
int	 mcp_check(struct mcp_ctx *, const struct mcp_req *, struct mcp_reply *);
/*
 * Answers the JSON-RPC message (or batch, where the protocol version allows it) in
 * req->body. Always fills reply: 200 with the response(s), 202 (no body) when the POST
 * held only notifications or responses, 400 with a JSON-RPC error for a parse error, an
 * invalid message, a refused batch or an unsupported MCP-Protocol-Version header. A
 * 2026-07-28 request (see ctxd-mcp(8) for how it is recognised) is also answered 400 for invalid params._meta
 * (-32602), headers that do not match the body (-32020) or an unsupported version
 * (-32022), and 404 (-32601) for a method this server does not have.
 */
void	 mcp_handle(struct mcp_ctx *, const struct mcp_req *, struct mcp_reply *);
void	 mcp_reply_release(struct mcp_reply *);

/* The protocol version answered to a client asking for version (NULL: the newest). */
const char *mcp_negotiate(const char *version);
/* 1 when version is one this server speaks. */
int	 mcp_version_supported(const char *version);
/*
 * 1 when origin ("scheme://host[:port]") is allowed for a request with Host host (and
 * X-Forwarded-Host fwd_host): listed in allowed (comma- or blank-separated origins, or
 * "*"), or one of the server's own names (http_host_known with names, the setting
 * server.hostnames) with the host and port the request was sent to (default ports
 * ignored). Every argument but origin may be NULL.
 */
int	 mcp_origin_allowed(const char *origin, const char *host, const char *fwd_host,
	    const char *names, const char *allowed);

/* A tools/call result with the one text item text (len bytes); isError when is_error. */
json_object *mcp_tool_text(const char *text, size_t len, int is_error);
/*
 * The text of resolve-library-id from library search JSON ({"results": [...]}) into out
 * (compat.md). -1 on malformed JSON.
 */
int	 mcp_tools_format_libraries(const char *json, struct buf *out);

#endif
