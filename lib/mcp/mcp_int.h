/*
 * mcp_int.h: what the two eras of ctxd-mcp share inside lib/ (not for the responders):
 * mcp.c holds the JSON-RPC plumbing, the tools and the legacy revisions (2024-11-05 to
 * 2025-11-25, initialize handshake); mcp2026.c the 2026-07-28 revision (no handshake,
 * every request carries its version and capabilities in params._meta) and mcp_handle,
 * which parses a body (mcp_parse) and chooses the era, so that mcp.c never calls
 * mcp2026.c.
 */
#ifndef MCP_INT_H
#define MCP_INT_H

#include <stddef.h>

#include <json.h>

struct mcp_ctx;
struct mcp_reply;
struct mcp_req;

/* JSON-RPC 2.0 error codes, and the server-defined ones for transport refusals. */
#define RPC_PARSE_ERROR		-32700
#define RPC_INVALID_REQUEST	-32600
#define RPC_METHOD_NOT_FOUND	-32601
#define RPC_INVALID_PARAMS	-32602
#define RPC_INTERNAL_ERROR	-32603
#define RPC_TRANSPORT		-32000	/* refused by the HTTP transport (403, 415…) */
/* Errors of MCP 2026-07-28 (its range -32020 to -32099). */
#define RPC_HEADER_MISMATCH	-32020
#define RPC_MISSING_CAPABILITY	-32021
#define RPC_UNSUPPORTED_VERSION	-32022

/* The server's instructions to the model (initialize, server/discover). */
extern const char mcp_instructions[];

/* Message kinds. */
enum mcp_kind { MCP_REQUEST, MCP_NOTIFICATION, MCP_RESPONSE, MCP_INVALID };

/*
 * Classifies one message; for MCP_INVALID *resp is the error response (with the id when
 * it could be read).
 */
enum mcp_kind mcp_classify(json_object *m, json_object **resp);
/* 1 when m is an initialize request. */
int	 mcp_is_initialize(json_object *m);

/* A JSON-RPC error response for id (borrowed; NULL: null). */
json_object *mcp_error(json_object *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A JSON-RPC result response for id (borrowed); result is consumed. */
json_object *mcp_result(json_object *id, json_object *result);
/* The error answering request id (borrowed) whose answer would pass limit bytes. */
json_object *mcp_limit_error(json_object *id, size_t limit, size_t n);
/* Sets reply to status with the JSON text of o (consumed; NULL: no body). */
void	 mcp_reply_json(struct mcp_reply *r, int status, json_object *o);

/* The responses to tools/list and tools/call (see mcp.c). */
json_object *mcp_tools_list(json_object *id);
json_object *mcp_tools_call(struct mcp_ctx *c, json_object *params, json_object *id,
	    int args_as_tool_error);

/*
 * The body of rq parsed (a message or a batch; ids as the client wrote them), or NULL
 * with r filled with the error (400 for a body that is not one JSON value, or that repeats
 * a member name). The caller puts it.
 */
json_object *mcp_parse(const struct mcp_req *rq, struct mcp_reply *r);
/* Answers root (consumed), parsed by mcp_parse, under the legacy revisions. */
void	 mcp_legacy(struct mcp_ctx *c, const struct mcp_req *rq, json_object *root,
	    struct mcp_reply *r);

#endif
