/*
 * ctxd-query: the read-only REST responder for GET /api/v2/context and
 * GET /api/v2/libs/search (spec/interface.md, spec/compat.md).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ctxd.h"
#include "http.h"
#include "search.h"

#define PARAM_MAX	500	/* bound of libraryId, query, libraryName, topic */

struct query_ctx {
	sqlite3		*db;
	struct search	*search;
};

static void *
query_init(void)
{
	static struct query_ctx ctx;

	if (db_open(util_data_dir(), DB_READONLY, &ctx.db) == -1)
		return NULL;
	if ((ctx.search = search_open(ctx.db)) == NULL)
		return NULL;
	return &ctx;
}

/*
 * Fetches a required text parameter bounded to 1..PARAM_MAX characters; answers 400 and
 * returns NULL when it is missing, empty or too long.
 */
static const char *
query_required(struct http_req *r, const char *name)
{
	const char	*v = http_param(r, name);

	if (v == NULL) {
		http_error(r, 400, "missing required parameter '%s'", name);
		return NULL;
	}
	if (*v == '\0') {
		http_error(r, 400, "parameter '%s' must not be empty", name);
		return NULL;
	}
	if (strlen(v) > PARAM_MAX) {
		http_error(r, 400, "parameter '%s' is longer than %d characters",
		    name, PARAM_MAX);
		return NULL;
	}
	return v;
}

/* An optional parameter: NULL when absent; answers 400 and sets *bad when too long. */
static const char *
query_optional(struct http_req *r, const char *name, int *bad)
{
	const char	*v = http_param(r, name);

	if (v != NULL && strlen(v) > PARAM_MAX) {
		http_error(r, 400, "parameter '%s' is longer than %d characters",
		    name, PARAM_MAX);
		*bad = 1;
	}
	return v;
}

static void
query_context(struct http_req *r, struct query_ctx *c)
{
	const char	*libid, *query, *type, *fast, *tokens, *topic;
	struct buf	 out;
	long		 budget = SEARCH_DEFAULT_TOKENS;
	int		 json = 0, bad = 0, status;

	if ((libid = query_required(r, "libraryId")) == NULL)
		return;
	/* Older clients send the question as "topic" only. */
	topic = query_optional(r, "topic", &bad);
	if (bad)
		return;
	if (http_param(r, "query") == NULL && topic != NULL && *topic != '\0')
		query = topic;
	else if ((query = query_required(r, "query")) == NULL)
		return;
	type = query_optional(r, "type", &bad);
	fast = bad ? NULL : query_optional(r, "fast", &bad);
	tokens = bad ? NULL : query_optional(r, "tokens", &bad);
	if (bad)
		return;
	if (type != NULL && strcmp(type, "txt") != 0 && strcmp(type, "json") != 0) {
		http_error(r, 400, "parameter 'type' must be 'txt' or 'json'");
		return;
	}
	json = type != NULL && strcmp(type, "json") == 0;
	if (fast != NULL && strcmp(fast, "true") != 0 && strcmp(fast, "false") != 0) {
		http_error(r, 400, "parameter 'fast' must be 'true' or 'false'");
		return;
	}
	if (tokens != NULL && util_parse_long(tokens, 1, SEARCH_MAX_TOKENS,
	    &budget) == -1) {
		http_error(r, 400, "parameter 'tokens' must be a whole number "
		    "from %d to %d", SEARCH_MIN_TOKENS, SEARCH_MAX_TOKENS);
		return;
	}
	/* As the hosted API does, a budget under the minimum is raised to it. */
	buf_init(&out);
	status = search_answer(c->search, libid, query, topic, budget,
	    fast != NULL && strcmp(fast, "true") == 0, json, &out);
	if (status == -1)
		http_error(r, 500, "out of memory");
	else if (status != 200)
		http_error(r, status, "%s", out.p);
	else if (json)
		http_json(r, 200, out.p);
	else
		http_respond(r, 200, "text/plain; charset=utf-8", NULL, out.p, out.len);
	buf_release(&out);
}

static void
query_libs_search(struct http_req *r, struct query_ctx *c)
{
	const char	*name, *query;
	struct buf	 out;
	int		 bad = 0;

	if ((name = query_required(r, "libraryName")) == NULL)
		return;
	query = query_optional(r, "query", &bad);
	if (bad)
		return;
	buf_init(&out);
	if (search_libraries(c->search, name, query, &out) == -1)
		http_error(r, 500, "the library search failed; the responder log "
		    "has the details");
	else
		http_json(r, 200, out.p);
	buf_release(&out);
}

/*
 * With perm.require_mcp_auth on, search and context need a valid personal API key: answers
 * 401 (the error says "missing" or "invalid") and returns -1 without one. With it off no
 * credential is looked at.
 */
static int
query_authorized(struct http_req *r, struct query_ctx *c)
{
	enum apikey_result k;

	if (!settings_get_bool(c->db, "perm.require_mcp_auth", 0))
		return 0;
	if ((k = apikey_check(c->db, r->authorization)) == APIKEY_VALID ||
	    k == APIKEY_VALID_ADMIN)
		return 0;
	http_error_hdr(r, 401, "WWW-Authenticate: Bearer\r\n", "authentication "
	    "required: the API key is %s; send Authorization: Bearer <key> with a "
	    "personal API key", k == APIKEY_MISSING ? "missing" : "invalid");
	return -1;
}

static void
query_handle(struct http_req *r, void *arg)
{
	struct query_ctx *c = arg;

	if (strcmp(r->path, "/api/v2/context") == 0 ||
	    strcmp(r->path, "/api/v2/libs/search") == 0) {
		if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0) {
			http_error(r, 405, "%s accepts only GET", r->path);
			return;
		}
		if (query_authorized(r, c) == -1)
			return;
		if (r->path[8] == 'c')
			query_context(r, c);
		else
			query_libs_search(r, c);
		return;
	}
	http_error(r, 404, "no such endpoint: %s", r->path);
}

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, "ctxd-query", query_init, query_handle);
}
