/*
 * admin_explain.c: GET /api/libraries/{owner}/{id*}/explain of ctxd-web (ctxd-web(8), ADMIN
 * API): the candidates of the answer to a question, best first, with their scores and what
 * became of each (lib/search/search.h, search_explain), for the web UI's "Try a question" box.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <json.h>

#include "base/buf.h"
#include "base/validate.h"
#include "http/http.h"
#include "search/format.h"
#include "search/search.h"
#include "web.h"

static const struct validate_field admin_explain_fields[] = {
	{ .name = "query", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = SEARCH_TEXT_MAX },
	{ .name = "tokens", .type = VALIDATE_STRING, .min = 1, .max = 24,
	    .check = format_check_tokens },
	{ .name = "fast", .type = VALIDATE_BOOL },
	{ .name = NULL }
};
static const struct validate_table admin_explain_params = {
	.fields = admin_explain_fields,
	.what = "parameter"
};

/* Adds key: s (NULL: null) to o; -1 when memory is short. */
static int
admin_explain_str(json_object *o, const char *key, const char *s)
{
	json_object	*v = NULL;

	if (s != NULL && (v = json_object_new_string(s)) == NULL)
		return -1;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/* The trace t of the answer to query about id as JSON (NULL when memory is short). */
static json_object *
admin_explain_json(const char *id, const char *query, const struct search_trace *t)
{
	json_object	*o, *terms, *cands, *c;
	size_t		 i;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if ((terms = json_object_new_array()) == NULL ||
	    json_object_object_add(o, "terms", terms) != 0)
		goto fail_terms;
	for (i = 0; i < t->nterms; i++)
		if (json_object_array_add(terms, json_object_new_string(t->terms[i])) != 0)
			goto fail;
	if ((cands = json_object_new_array()) == NULL ||
	    json_object_object_add(o, "candidates", cands) != 0) {
		json_object_put(cands);
		goto fail;
	}
	for (i = 0; i < t->n; i++) {
		const struct search_trace_row *r = &t->rows[i];

		if ((c = json_object_new_object()) == NULL ||
		    json_object_array_add(cands, c) != 0) {
			json_object_put(c);
			goto fail;
		}
		if (json_object_object_add(c, "rank", json_object_new_int64((int64_t)i + 1)) ||
		    json_object_object_add(c, "snippetId", json_object_new_int64(r->id)) ||
		    json_object_object_add(c, "score", json_object_new_double(r->score)) ||
		    json_object_object_add(c, "tokens", json_object_new_int(r->tokens)) ||
		    json_object_object_add(c, "place", json_object_new_int64(
		    (int64_t)r->place)) ||
		    admin_explain_str(c, "fate", search_fate_code(r->fate)) == -1 ||
		    admin_explain_str(c, "why", search_fate_name(r->fate)) == -1 ||
		    admin_explain_str(c, "title", r->title) == -1 ||
		    admin_explain_str(c, "breadcrumb", r->breadcrumb) == -1 ||
		    admin_explain_str(c, "source", r->source) == -1)
			goto fail;
	}
	if (admin_explain_str(o, "libraryId", id) == -1 ||
	    admin_explain_str(o, "query", query) == -1 ||
	    json_object_object_add(o, "tokens", json_object_new_int64(t->budget)) ||
	    json_object_object_add(o, "used", json_object_new_int64(t->used)) ||
	    json_object_object_add(o, "placed", json_object_new_int64((int64_t)t->placed)) ||
	    admin_explain_str(o, "ranking", t->hybrid ? "hybrid" : "lexical") == -1 ||
	    json_object_object_add(o, "reranked", json_object_new_boolean(t->reranked)))
		goto fail;
	return o;
fail_terms:
	json_object_put(terms);
fail:
	json_object_put(o);
	return NULL;
}

void
admin_explain_get(struct http_req *r, void *arg)
{
	struct search	*s;
	struct search_trace t;
	json_object	*o;
	struct buf	 out;
	const char	*fast, *tokens;
	char		 id[512];
	int		 status;

	(void)arg;
	if (admin_libraries_id(r, id, sizeof(id)) == -1 ||
	    validate_query(r, &admin_explain_params) == -1)
		return;
	/*
	 * A search of its own per request: the admin responder keeps no library's index in
	 * memory between requests (explaining is rare; the query responders serve).
	 */
	if ((s = search_open(r->db)) == NULL) {
		web_util_dberr(r, __func__, "the search could not be prepared");
		return;
	}
	memset(&t, 0, sizeof(t));
	buf_init(&out);
	fast = http_param(r, "fast");
	tokens = http_param(r, "tokens");
	status = search_explain(s, id, http_param(r, "query"), tokens != NULL ?
	    format_budget(tokens) : FORMAT_DEFAULT_TOKENS,
	    fast == NULL || strcmp(fast, "false") != 0, &t, &out);
	if (status == -1)
		http_error(r, 500, "out of memory");
	else if (status != 200)
		http_error(r, status, "%s", out.p);
	else if ((o = admin_explain_json(id, http_param(r, "query"), &t)) == NULL)
		http_error(r, 500, "out of memory");
	else
		web_util_send(r, 200, NULL, o);
	search_trace_release(&t);
	buf_release(&out);
	search_close(s);
}
