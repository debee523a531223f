/*
 * ctxd-query: the read-only REST responder for GET /api/v2/context and
 * GET /api/v2/libs/search (spec/interface.md, spec/compat.md).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/access.h"
#include "http/http.h"
#include "search/format.h"
#include "search/copier.h"
#include "search/search.h"
#include "sources/libid.h"
#include "store/db.h"

struct query_ctx {
	struct db	*db;
	struct search	*search;
};

static void *
query_init(struct db **db)
{
	static struct query_ctx ctx;

	if (db_open(util_data_dir(), DB_READONLY, &ctx.db) == -1)
		return NULL;
	/* PostgreSQL: keeps what it reads between requests, told of changes (db.h) */
	if (db_listen(ctx.db) == -1)
		return NULL;
	if ((ctx.search = search_open(ctx.db)) == NULL)
		return NULL;
	/* PostgreSQL: the local copies it lacks are built by the copier (search/copier.h) */
	search_set_copier(ctx.search, http_background_fd());
	*db = ctx.db;
	return &ctx;
}

/* GET /api/v2/context: clients of the hosted API may send more parameters than these. */
static const struct validate_field query_context_fields[] = {
	{ .name = "libraryId", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = SEARCH_TEXT_MAX, .check = libid_check },
	{ .name = "query", .type = VALIDATE_STRING, .max = SEARCH_TEXT_MAX },
	{ .name = "topic", .type = VALIDATE_STRING, .max = SEARCH_TEXT_MAX },
	{ .name = "type", .type = VALIDATE_STRING, .choices = "txt|json" },
	{ .name = "fast", .type = VALIDATE_BOOL },
	{ .name = "tokens", .type = VALIDATE_STRING, .min = 1, .max = 24,
	    .check = format_check_tokens },
	{ .name = NULL }
};
static const struct validate_table query_context_params = {
	.fields = query_context_fields,
	.allow_unknown = 1,
	.what = "parameter"
};

static void
query_context(struct http_req *r, void *arg)
{
	struct query_ctx *c = arg;
	const char	*libid, *query, *type, *fast, *tokens, *topic;
	struct buf	 out;
	char		 hdr[48];
	long		 budget = FORMAT_DEFAULT_TOKENS;
	struct access_principal who;
	int		 json, status;

	if (validate_query(r, &query_context_params) == -1)
		return;
	libid = http_param(r, "libraryId");
	/* Older clients send the question as "topic" only. */
	topic = http_param(r, "topic");
	if ((query = http_param(r, "query")) == NULL && topic != NULL && *topic != '\0')
		query = topic;
	else if (query == NULL || *query == '\0') {
		http_error(r, 400, query == NULL ? "missing required parameter 'query'" :
		    "parameter 'query' must not be empty");
		return;
	}
	type = http_param(r, "type");
	fast = http_param(r, "fast");
	json = type != NULL && strcmp(type, "json") == 0;
	if ((tokens = http_param(r, "tokens")) != NULL)
		budget = format_budget(tokens);
	buf_init(&out);
	search_set_detail(c->search, r->who.admin);
	status = search_answer(c->search, libid, query, topic, budget,
	    fast != NULL && strcmp(fast, "true") == 0, json, &out);
	/*
	 * A failed indexing is told in full to an admin; the caller is identified only then
	 * (a credential is looked up on this path only when perm.require_mcp_auth is on).
	 */
	if (status == 422 && !r->who.admin && access_check(r, r->db, ACCESS_PUBLIC,
	    ACCESS_IDENTIFY, NULL, "the context API", &who) == 0 && who.admin) {
		search_set_detail(c->search, 1);
		status = search_answer(c->search, libid, query, topic, budget, 0, json, &out);
	}
	explicit_bzero(&who, sizeof(who));
	if (status == -1)
		http_error(r, 500, "out of memory");
	else if (status != 200)
		http_error(r, status, "%s", out.p);
	else if (json)
		http_json(r, 200, out.p);
	else {
		/* The answer's size in tokens as the budget counts them (the web UI). */
		snprintf(hdr, sizeof(hdr), "X-Ctxd-Tokens: %zu\r\n",
		    tokenize_estimate(out.p, out.len));
		http_respond(r, 200, "text/plain; charset=utf-8", hdr, out.p, out.len);
	}
	buf_release(&out);
}

/* GET /api/v2/libs/search. */
static const struct validate_field query_libs_fields[] = {
	{ .name = "libraryName", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = SEARCH_TEXT_MAX },
	{ .name = "query", .type = VALIDATE_STRING, .max = SEARCH_TEXT_MAX },
	{ .name = NULL }
};
static const struct validate_table query_libs_params = {
	.fields = query_libs_fields,
	.allow_unknown = 1,
	.what = "parameter"
};

static void
query_libs_search(struct http_req *r, void *arg)
{
	struct query_ctx *c = arg;
	struct buf	 out;

	if (validate_query(r, &query_libs_params) == -1)
		return;
	buf_init(&out);
	if (search_libraries(c->search, http_param(r, "libraryName"),
	    http_param(r, "query"), &out) == -1)
		http_error(r, 500, "the library search failed; the responder log "
		    "has the details");
	else
		http_json(r, 200, out.p);
	buf_release(&out);
}

/* The routes of ctxd-query (nginx: location /api/v2/). */
static const struct http_route query_routes[] = {
	{ "GET", "/api/v2/context", ACCESS_READER, NULL, 0, "the context API",
	    query_context },
	{ "GET", "/api/v2/libs/search", ACCESS_READER, NULL, 0, "the library search",
	    query_libs_search },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static const struct http_responder query_responder = {
	"ctxd-query", query_init, query_routes, 0, 1, 1, copier_main
};

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, &query_responder);
}
