/* catalog.c: libraries and jobs as JSON rows (see catalog.h). */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/log.h"
#include "net/fetch.h"
#include "search/catalog.h"
#include "search/format.h"
#include "search/inject.h"
#include "search/search.h"
#include "store/catalog.h"

/* A result column and its JSON member: text (null when NULL), whole number or boolean. */
struct catalog_col {
	const char	*name;
	enum { CATALOG_TEXT, CATALOG_INT, CATALOG_BOOL } type;
};

/* The columns of a library row (but settings) and of a job row (store/catalog.h). */
static const struct catalog_col catalog_lib_cols[] = {
	{ "id", CATALOG_TEXT }, { "title", CATALOG_TEXT },
	{ "description", CATALOG_TEXT }, { "sourceType", CATALOG_TEXT },
	{ "url", CATALOG_TEXT }, { "branch", CATALOG_TEXT }, { "state", CATALOG_TEXT },
	{ "runStatus", CATALOG_TEXT }, { "gitops", CATALOG_BOOL },
	{ "lastIndexedCommit", CATALOG_TEXT }, { "lastIndexedBranch", CATALOG_TEXT },
	{ "lastIndexedAt", CATALOG_TEXT }, { "lastError", CATALOG_TEXT },
	{ "documents", CATALOG_INT }, { "snippets", CATALOG_INT },
	{ "tokens", CATALOG_INT }, { "runStarted", CATALOG_TEXT },
	{ "runFinished", CATALOG_TEXT }, { "createdAt", CATALOG_TEXT },
	{ "updatedAt", CATALOG_TEXT },
};
static const struct catalog_col catalog_job_cols[] = {
	{ "id", CATALOG_INT }, { "libraryId", CATALOG_TEXT }, { "kind", CATALOG_TEXT },
	{ "state", CATALOG_TEXT }, { "force", CATALOG_BOOL },
	{ "attempts", CATALOG_INT }, { "message", CATALOG_TEXT },
	{ "createdAt", CATALOG_TEXT }, { "startedAt", CATALOG_TEXT },
	{ "finishedAt", CATALOG_TEXT }, { "cancelRequested", CATALOG_BOOL },
};
#define CATALOG_NLIB	(sizeof(catalog_lib_cols) / sizeof(catalog_lib_cols[0]))
#define CATALOG_NJOB	(sizeof(catalog_job_cols) / sizeof(catalog_job_cols[0]))
_Static_assert(CATALOG_NLIB == STORE_CATALOG_NLIB, "a library row's columns");
_Static_assert(CATALOG_NJOB == STORE_CATALOG_NJOB, "a job row's columns");

/* The progress columns that follow them in a job row: the job's "progress". */
static const struct catalog_col catalog_progress_cols[] = {
	{ "phase", CATALOG_TEXT }, { "documentsTotal", CATALOG_INT },
	{ "documentsDone", CATALOG_INT }, { "snippetsTotal", CATALOG_INT },
	{ "describeTotal", CATALOG_INT }, { "described", CATALOG_INT },
	{ "embedTotal", CATALOG_INT }, { "embedded", CATALOG_INT },
	{ "updatedAt", CATALOG_TEXT },
};
#define CATALOG_NPROGRESS \
	(sizeof(catalog_progress_cols) / sizeof(catalog_progress_cols[0]))
#define CATALOG_NJOBCOLS (CATALOG_NJOB + CATALOG_NPROGRESS)
_Static_assert(CATALOG_NPROGRESS == STORE_CATALOG_NPROGRESS, "a job's progress columns");

static json_object *
catalog_text(const struct store_row *r, int i)
{
	const char	*t = store_row_text(r, i);

	return t != NULL ? json_object_new_string(t) : NULL;
}

/* The n columns of the current row from column first on as an object. */
static json_object *
catalog_cols(const struct store_row *r, int first, const struct catalog_col *c, size_t n)
{
	json_object	*o = json_object_new_object(), *v;
	size_t		 i;
	int		 col;

	for (i = 0; i < n; i++) {
		col = first + (int)i;
		switch (c[i].type) {
		case CATALOG_INT:
			v = json_object_new_int64(store_row_int(r, col));
			break;
		case CATALOG_BOOL:
			v = json_object_new_boolean(store_row_int(r, col) != 0);
			break;
		default:
			v = catalog_text(r, col);
			break;
		}
		json_object_object_add(o, c[i].name, v);
	}
	return o;
}

/* The first n columns of the current row as an object. */
static json_object *
catalog_row(const struct store_row *r, const struct catalog_col *c, size_t n)
{
	return catalog_cols(r, 0, c, n);
}

/* A job row with its "progress" object. */
static json_object *
catalog_job_row(const struct store_row *r)
{
	json_object	*o = catalog_row(r, catalog_job_cols, CATALOG_NJOB), *q;

	json_object_object_add(o, "progress", catalog_cols(r, (int)CATALOG_NJOB,
	    catalog_progress_cols, CATALOG_NPROGRESS));
	/* a queued job: its place in the queue, and the job of its library it waits for */
	if (store_row_text(r, (int)CATALOG_NJOBCOLS) != NULL) {
		q = json_object_new_object();
		json_object_object_add(q, "position", json_object_new_int64(store_row_int(r,
		    (int)CATALOG_NJOBCOLS)));
		json_object_object_add(q, "waitsForJob", store_row_text(r,
		    (int)CATALOG_NJOBCOLS + 1) != NULL ? json_object_new_int64(store_row_int(r,
		    (int)CATALOG_NJOBCOLS + 1)) : NULL);
		json_object_object_add(o, "queue", q);
	}
	return o;
}

/* A library row with its source settings (the fields of its type; never a secret). */
static json_object *
catalog_lib_row(const struct store_row *r)
{
	json_object	*o = catalog_row(r, catalog_lib_cols, CATALOG_NLIB);
	const char	*s;

	if ((s = store_row_text(r, (int)CATALOG_NLIB)) != NULL)
		json_object_object_add(o, "settings", json_tokener_parse(s));
	/* The library a version belongs to, and a library's versions. */
	json_object_object_add(o, "versionOf", catalog_text(r, (int)CATALOG_NLIB + 1));
	if ((s = store_row_text(r, (int)CATALOG_NLIB + 2)) != NULL)
		json_object_object_add(o, "versions", json_tokener_parse(s));
	return o;
}

/* Adds each library row to the JSON array arg. */
static int
catalog_add_lib(const struct store_row *r, void *arg)
{
	json_object_array_add(arg, catalog_lib_row(r));
	return 0;
}

/* The jobs read so far: at most max in a; more when there was another one. */
struct catalog_jobs_read {
	json_object	*a;
	long		 n, max;
	int		 more;
	long long	 last;
};

static int
catalog_add_job(const struct store_row *r, void *arg)
{
	struct catalog_jobs_read *j = arg;

	if (j->n == j->max) {
		j->more = 1;
		return 1;
	}
	j->last = store_row_int(r, 0);
	json_object_array_add(j->a, catalog_job_row(r));
	j->n++;
	return 0;
}

json_object *
catalog_libraries(struct db *db, const char *state, long limit, long offset)
{
	json_object	*o = json_object_new_object(), *a;
	long long	 n;

	if (store_catalog_count_libraries(db, state, &n) == -1)
		goto err;
	json_object_object_add(o, "total", json_object_new_int64(n));
	a = json_object_new_array();
	json_object_object_add(o, "libraries", a);
	if (store_catalog_libraries(db, state, limit, offset, catalog_add_lib, a) == -1)
		goto err;
	json_object_object_add(o, "limit", json_object_new_int64(limit));
	json_object_object_add(o, "offset", json_object_new_int64(offset));
	return o;
err:
	json_object_put(o);
	return NULL;
}

/* Keeps the library row in the json_object * arg. */
static int
catalog_one_lib(const struct store_row *r, void *arg)
{
	*(json_object **)arg = catalog_lib_row(r);
	return 1;
}

int
catalog_library(struct db *db, const char *id, json_object **out)
{
	struct catalog_jobs_read j;
	json_object	*o = NULL;
	int		 rc;

	*out = NULL;
	if ((rc = store_catalog_library(db, id, catalog_one_lib, &o)) <= 0)
		return rc;
	memset(&j, 0, sizeof(j));
	j.a = json_object_new_array();
	j.max = 10;
	json_object_object_add(o, "jobs", j.a);
	if (store_catalog_jobs(db, id, NULL, NULL, LLONG_MAX, 10, catalog_add_job,
	    &j) == -1 ||
	    inject_catalog(db, id, o) == -1) {	/* "flagged" and "held" (inject.h) */
		log_err("%s: %s: the library's jobs or flags could not be read", __func__, id);
		json_object_put(o);
		return -1;
	}
	*out = o;
	return 1;
}

/* One row of catalog_snippets' page query as its JSON object. */
static json_object *
catalog_snippet_row(const struct store_row *r)
{
	json_object	*o = json_object_new_object(), *code;
	const char	*c = store_row_text(r, 6);
	char		*src;

	json_object_object_add(o, "id", json_object_new_int64(store_row_int(r, 0)));
	json_object_object_add(o, "title", catalog_text(r, 1));
	json_object_object_add(o, "breadcrumb", catalog_text(r, 2));
	src = format_source_of(store_row_text(r, 11), store_row_text(r, 9),
	    store_row_text(r, 10), store_row_text(r, 4), store_row_text(r, 3));
	json_object_object_add(o, "source", src != NULL ? json_object_new_string(src) :
	    NULL);
	free(src);
	json_object_object_add(o, "path", catalog_text(r, 4));
	json_object_object_add(o, "text", catalog_text(r, 5));
	code = c != NULL ? json_tokener_parse(c) : NULL;
	if (code == NULL || !json_object_is_type(code, json_type_array)) {
		json_object_put(code);
		code = json_object_new_array();
	}
	json_object_object_add(o, "code", code);
	json_object_object_add(o, "tokens", json_object_new_int64(store_row_int(r, 7)));
	json_object_object_add(o, "flags", catalog_text(r, 8));
	return o;
}

static int
catalog_add_snippet(const struct store_row *r, void *arg)
{
	json_object_array_add(arg, catalog_snippet_row(r));
	return 0;
}

int
catalog_snippets(struct db *db, const char *id, const char *q, long limit,
    long offset, json_object **out)
{
	json_object	*o = NULL, *a;
	long long	 n;
	int		 rc;

	*out = NULL;
	if (q != NULL && *q == '\0')
		q = NULL;
	if ((rc = store_catalog_count_snippets(db, id, q, &n)) <= 0)
		return rc;
	o = json_object_new_object();
	json_object_object_add(o, "libraryId", json_object_new_string(id));
	json_object_object_add(o, "q", q != NULL ? json_object_new_string(q) : NULL);
	json_object_object_add(o, "total", json_object_new_int64(n));
	json_object_object_add(o, "limit", json_object_new_int64(limit));
	json_object_object_add(o, "offset", json_object_new_int64(offset));
	a = json_object_new_array();
	json_object_object_add(o, "snippets", a);
	if (store_catalog_snippets(db, id, q, limit, offset, catalog_add_snippet, a) == -1) {
		json_object_put(o);
		return -1;
	}
	*out = o;
	return 1;
}

json_object *
catalog_jobs(struct db *db, const struct catalog_job_filter *f)
{
	struct catalog_jobs_read j;
	json_object	*o;

	memset(&j, 0, sizeof(j));
	j.a = json_object_new_array();
	j.max = f->limit;
	if (store_catalog_jobs(db, f->library, f->state, f->kind, f->before, f->limit + 1,
	    catalog_add_job, &j) == -1) {
		json_object_put(j.a);
		return NULL;
	}
	o = json_object_new_object();
	json_object_object_add(o, "jobs", j.a);
	json_object_object_add(o, "nextBefore", j.more ? json_object_new_int64(j.last) :
	    NULL);
	return o;
}

/* Keeps the job row, with its number of log lines, in the json_object * arg. */
static int
catalog_one_job(const struct store_row *r, void *arg)
{
	json_object	*o = catalog_job_row(r);

	json_object_object_add(o, "logLines", json_object_new_int64(store_row_int(r,
	    (int)CATALOG_NJOBCOLS + STORE_CATALOG_NQUEUE)));
	*(json_object **)arg = o;
	return 1;
}

int
catalog_job(struct db *db, long long id, json_object **out)
{
	*out = NULL;
	return store_catalog_job(db, id, catalog_one_job, out);
}

/* The log lines read so far (catalog_job_log). */
struct catalog_lines {
	json_object	*a;
	long long	 last;
};

static int
catalog_add_line(const struct store_row *r, void *arg)
{
	struct catalog_lines *c = arg;
	json_object	*l = json_object_new_object();

	c->last = store_row_int(r, 0);
	json_object_object_add(l, "id", json_object_new_int64(c->last));
	json_object_object_add(l, "at", catalog_text(r, 1));
	json_object_object_add(l, "level", catalog_text(r, 2));
	json_object_object_add(l, "line", catalog_text(r, 3));
	json_object_array_add(c->a, l);
	return 0;
}

json_object *
catalog_job_log(struct db *db, long long id, long long after, long limit)
{
	struct catalog_lines c = { json_object_new_array(), after };
	json_object	*o;

	if (store_catalog_job_log(db, id, after, limit, catalog_add_line, &c) == -1) {
		json_object_put(c.a);
		return NULL;
	}
	o = json_object_new_object();
	json_object_object_add(o, "lines", c.a);
	json_object_object_add(o, "nextAfter", json_object_new_int64(c.last));
	return o;
}

json_object *
catalog_bundle_libraries(struct db *db)
{
	json_object	*a = json_object_new_array();

	store_catalog_bundle_libraries(db, catalog_add_lib, a);
	return a;
}

/* The jobs of the bundle: the array, and the log of the job read last. */
struct catalog_bundle {
	json_object	*a, *lines;
};

static int
catalog_bundle_job(const struct store_row *r, void *arg)
{
	struct catalog_bundle *b = arg;
	json_object	*job = catalog_job_row(r);

	b->lines = json_object_new_array();
	json_object_object_add(job, "log", b->lines);
	json_object_array_add(b->a, job);
	return 0;
}

static int
catalog_bundle_line(const struct store_row *r, void *arg)
{
	struct catalog_bundle *b = arg;
	json_object	*l = json_object_new_object();

	json_object_object_add(l, "at", catalog_text(r, 0));
	json_object_object_add(l, "level", catalog_text(r, 1));
	json_object_object_add(l, "line", catalog_text(r, 2));
	json_object_array_add(b->lines, l);
	return 0;
}

json_object *
catalog_bundle_jobs(struct db *db, int njobs, int nlines)
{
	struct catalog_bundle b = { json_object_new_array(), NULL };

	store_catalog_bundle_jobs(db, njobs, nlines, catalog_bundle_job,
	    catalog_bundle_line, &b);
	return b.a;
}
