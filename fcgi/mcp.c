/*
 * ctxd-mcp: the MCP server at /mcp (Streamable HTTP, stateless, JSON answers), a
 * read-only FastCGI responder like ctxd-query. Its one route (nginx: location = /mcp)
 * takes the POST to lib/mcp/mcp.c, which speaks the protocol and holds the tools.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "http/access.h"
#include "http/http.h"
#include "mcp/mcp.h"
#include "search/copier.h"
#include "search/search.h"
#include "store/db.h"

static void *
mcp_init(struct db **db)
{
	static struct mcp_ctx ctx;

	if (db_open(util_data_dir(), DB_READONLY, &ctx.db) == -1)
		return NULL;
	/* PostgreSQL: keeps what it reads between requests, told of changes (db.h) */
	if (db_listen(ctx.db) == -1)
		return NULL;
	*db = ctx.db;
	if ((ctx.search = search_open(ctx.db)) == NULL)
		return NULL;
	/* PostgreSQL: the local copies it lacks are built by the copier (search/copier.h) */
	search_set_copier(ctx.search, http_background_fd());
	return &ctx;
}

/*
 * POST /mcp: the transport checks that are not authorization (mcp_check), then the
 * JSON-RPC message (mcp_handle), answered as one JSON document.
 */
static void
mcp_post(struct http_req *r, void *arg)
{
	struct mcp_ctx	*c = arg;
	struct mcp_req	 rq;
	struct mcp_reply rep;

	memset(&rq, 0, sizeof(rq));
	rq.content_type = r->content_type;
	rq.content_length = http_header(r, "CONTENT_LENGTH");
	rq.accept = http_header(r, "HTTP_ACCEPT");
	rq.origin = http_header(r, "HTTP_ORIGIN");
	rq.host = http_header(r, "HTTP_HOST");
	rq.forwarded_host = http_header(r, "HTTP_X_FORWARDED_HOST");
	rq.protocol_version = http_header(r, "HTTP_MCP_PROTOCOL_VERSION");
	rq.mcp_method = http_header(r, "HTTP_MCP_METHOD");
	rq.mcp_name = http_header(r, "HTTP_MCP_NAME");
	/* The request's read transaction is http_serve's (read_transaction below). */
	if (!mcp_check(c, &rq, &rep)) {
		if (http_read_body(r, MCP_MAX_BODY) == -1)
			return;
		rq.body = r->body;
		rq.body_len = r->body_len;
		mcp_handle(c, &rq, &rep);
	}
	/*
	 * Answers are whole JSON documents, never streams: let nginx buffer them although
	 * the /mcp location turns buffering off (for SSE).
	 */
	http_respond(r, rep.status, "application/json; charset=utf-8",
	    rep.headers != NULL ? rep.headers : "X-Accel-Buffering: yes\r\n",
	    rep.body != NULL ? rep.body : "", rep.body_len);
	mcp_reply_release(&rep);
}

/*
 * The routes of ctxd-mcp (nginx: location = /mcp). Stateless: no SSE stream to GET, no
 * session to DELETE, so any other method is 405 with Allow: POST, as a JSON-RPC error.
 */
static const struct http_route mcp_routes[] = {
	{ "POST", "/mcp", ACCESS_READER, NULL, 0, "the MCP server", mcp_post },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static const struct http_responder mcp_responder = {
	"ctxd-mcp", mcp_init, mcp_routes, 1, 1, 1, copier_main
};

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, &mcp_responder);
}
