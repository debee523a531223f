/*
 * ctxd-mcp: the MCP server at /mcp (Streamable HTTP, stateless, JSON answers), a
 * read-only FastCGI responder like ctxd-query. The protocol is lib/mcp.c; this file binds
 * its backend to the query path (lib/search.c), the settings and the API keys.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ctxd.h"
#include "http.h"
#include "mcp.h"
#include "search.h"

struct mcp_ctx {
	sqlite3			*db;
	struct search		*search;
	struct mcp_backend	 be;
};

static int
mcp_be_libraries(void *arg, const char *name, const char *query, struct buf *out)
{
	struct mcp_ctx *c = arg;

	return search_libraries(c->search, name, query, out);
}

static int
mcp_be_context(void *arg, const char *libid, const char *query, long budget,
    struct buf *out)
{
	struct mcp_ctx *c = arg;

	return search_answer(c->search, libid, query, NULL,
	    budget > 0 ? budget : SEARCH_DEFAULT_TOKENS, 0, 0, out);
}

static int
mcp_be_auth_required(void *arg)
{
	struct mcp_ctx *c = arg;

	return settings_get_bool(c->db, "perm.require_mcp_auth", 0);
}

static int
mcp_be_key_valid(void *arg, const char *authorization)
{
	struct mcp_ctx *c = arg;
	enum apikey_result k = apikey_check(c->db, authorization);

	return k == APIKEY_VALID || k == APIKEY_VALID_ADMIN;
}

static char *
mcp_be_allowed_origins(void *arg)
{
	struct mcp_ctx *c = arg;

	return settings_get(c->db, util_data_dir(), "mcp.allowed_origins");
}

static void *
mcp_init(struct sqlite3 **db)
{
	static struct mcp_ctx ctx;

	if (db_open(util_data_dir(), DB_READONLY, &ctx.db) == -1)
		return NULL;
	*db = ctx.db;
	if ((ctx.search = search_open(ctx.db)) == NULL)
		return NULL;
	ctx.be.arg = &ctx;
	ctx.be.libraries = mcp_be_libraries;
	ctx.be.context = mcp_be_context;
	ctx.be.auth_required = mcp_be_auth_required;
	ctx.be.key_valid = mcp_be_key_valid;
	ctx.be.allowed_origins = mcp_be_allowed_origins;
	return &ctx;
}

static void
mcp_serve(struct http_req *r, void *arg)
{
	struct mcp_ctx	*c = arg;
	struct mcp_req	 rq;
	struct mcp_reply rep;

	if (strcmp(r->path, "/mcp") != 0) {
		http_error(r, 404, "no such endpoint: %s", r->path);
		return;
	}
	memset(&rq, 0, sizeof(rq));
	rq.method = r->method;
	rq.content_type = r->content_type;
	rq.content_length = http_header(r, "CONTENT_LENGTH");
	rq.accept = http_header(r, "HTTP_ACCEPT");
	rq.origin = http_header(r, "HTTP_ORIGIN");
	rq.host = http_header(r, "HTTP_HOST");
	rq.forwarded_host = http_header(r, "HTTP_X_FORWARDED_HOST");
	rq.protocol_version = http_header(r, "HTTP_MCP_PROTOCOL_VERSION");
	rq.authorization = r->authorization;
	rq.context7_api_key = http_header(r, "HTTP_CONTEXT7_API_KEY");
	rq.x_api_key = http_header(r, "HTTP_X_API_KEY");
	/*
	 * One read transaction for the request: the settings, the key check and the
	 * answer see one state of the database, for the price of one.
	 */
	if (db_exec(c->db, "BEGIN") == -1) {
		http_error(r, 500, "the database cannot be read; the responder log has "
		    "the details");
		return;
	}
	if (!mcp_check(&c->be, &rq, &rep)) {
		if (http_read_body(r, MCP_MAX_BODY) == -1) {
			db_rollback(c->db);
			return;
		}
		rq.body = r->body;
		rq.body_len = r->body_len;
		mcp_handle(&c->be, &rq, &rep);
	}
	db_rollback(c->db);
	/*
	 * Answers are whole JSON documents, never streams: let nginx buffer them although
	 * the /mcp location turns buffering off (for SSE).
	 */
	http_respond(r, rep.status, "application/json; charset=utf-8",
	    rep.headers != NULL ? rep.headers : "X-Accel-Buffering: yes\r\n",
	    rep.body != NULL ? rep.body : "", rep.body_len);
	mcp_reply_release(&rep);
}

static const struct http_route mcp_routes[] = {
	{ "GET", "/mcp", ACCESS_PUBLIC, NULL, 0, NULL, mcp_serve },
	{ "POST", "/mcp", ACCESS_PUBLIC, NULL, 0, NULL, mcp_serve },
	{ "PUT", "/mcp", ACCESS_PUBLIC, NULL, 0, NULL, mcp_serve },
	{ "PATCH", "/mcp", ACCESS_PUBLIC, NULL, 0, NULL, mcp_serve },
	{ "DELETE", "/mcp", ACCESS_PUBLIC, NULL, 0, NULL, mcp_serve },
	{ "OPTIONS", "/mcp", ACCESS_PUBLIC, NULL, 0, NULL, mcp_serve },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static const struct http_responder mcp_responder = {
	"ctxd-mcp", mcp_init, mcp_routes, 0
};

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, &mcp_responder);
}
