/*
 * mcp.h: the MCP server of ctxd-mcp (Streamable HTTP, stateless), without FastCGI: the
 * HTTP checks of a POST to /mcp, JSON-RPC 2.0 parsing, version negotiation, the tools and
 * their text. The responder (fcgi/mcp.c) fills a struct mcp_req from the request and
 * sends the struct mcp_reply back; the unit test does the same with a stub backend.
 */
#ifndef MCP_H
#define MCP_H

#include <stddef.h>

struct buf;

#define MCP_MAX_BODY		(256 * 1024)	/* bytes of one POST body */
#define MCP_PARAM_MAX		500		/* characters of a tool's text argument */
#define MCP_VERSION_NEWEST	"2025-11-25"

/* What the tools and the auth check call; fcgi/mcp.c binds it to search.c and apikey.c. */
struct mcp_backend {
	void	*arg;
	/* Library search JSON ({"results": [...]}) into out; -1 on an internal error. */
	int	(*libraries)(void *arg, const char *name, const char *query, struct buf *out);
	/*
	 * The context text of a library for a question into out (search_answer's
	 * contract): returns the HTTP-like status, 200 with the text, anything else with an
	 * error message in out; -1 on an internal error.
	 */
	int	(*context)(void *arg, const char *libid, const char *query, long budget,
		    struct buf *out);
	/* 1 when setting perm.require_mcp_auth is on. */
	int	(*auth_required)(void *arg);
	/* 1 when "Bearer <key>" is a valid API key. */
	int	(*key_valid)(void *arg, const char *authorization);
	/* Extra allowed origins (setting mcp.allowed_origins) or NULL; caller frees. */
	char	*(*allowed_origins)(void *arg);
};

/* One HTTP request to /mcp: the CGI variables it needs (NULL when absent). */
struct mcp_req {
	const char	*method;		/* REQUEST_METHOD */
	const char	*content_type;
	const char	*content_length;
	const char	*accept;
	const char	*origin;
	const char	*host;			/* HTTP_HOST */
	const char	*forwarded_host;	/* HTTP_X_FORWARDED_HOST */
	const char	*protocol_version;	/* HTTP_MCP_PROTOCOL_VERSION */
	const char	*authorization;
	const char	*context7_api_key;	/* HTTP_CONTEXT7_API_KEY */
	const char	*x_api_key;		/* HTTP_X_API_KEY */
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
 * Checks a request before its body is read: method (405 unless POST), Origin (403 when
 * foreign), authentication (401 when required and no valid key), Content-Type (415),
 * Accept (406) and Content-Length (413 over MCP_MAX_BODY). Returns 1 with reply filled
 * when the request is answered, 0 when the body should be read and mcp_handle called.
 */
int	 mcp_check(const struct mcp_backend *, const struct mcp_req *, struct mcp_reply *);
/*
 * Answers the JSON-RPC message (or batch, where the protocol version allows it) in
 * req->body. Always fills reply: 200 with the response(s), 202 (no body) when the POST
 * held only notifications or responses, 400 with a JSON-RPC error for a parse error, an
 * invalid message, a refused batch or an unsupported MCP-Protocol-Version header.
 */
void	 mcp_handle(const struct mcp_backend *, const struct mcp_req *, struct mcp_reply *);
void	 mcp_reply_release(struct mcp_reply *);

/* The protocol version answered to a client asking for version (NULL: the newest). */
const char *mcp_negotiate(const char *version);
/* 1 when version is one this server speaks. */
int	 mcp_version_supported(const char *version);
/*
 * 1 when origin ("scheme://host[:port]") is allowed for a request with Host host (and
 * X-Forwarded-Host fwd_host): same host and port (default ports ignored), or listed in
 * allowed (comma- or blank-separated origins, or "*"). Every argument but origin may be
 * NULL.
 */
int	 mcp_origin_allowed(const char *origin, const char *host, const char *fwd_host,
	    const char *allowed);
/*
 * The text of resolve-library-id from library search JSON ({"results": [...]}) into out
 * (compat.md). -1 on malformed JSON.
 */
int	 mcp_format_libraries(const char *json, struct buf *out);

#endif
