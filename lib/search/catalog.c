/* catalog.c: libraries and jobs as JSON rows (see catalog.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json.h>
#include <sqlite3.h>

#include "base/log.h"
#include "net/fetch.h"
#include "search/catalog.h"
#include "search/format.h"
#include "search/inject.h"
#include "search/search.h"

#define CATALOG_LIB_COLS \
	"id, title, description, source_type, url, branch, state, run_status, gitops, " \
	"indexed_commit, indexed_branch, (SELECT max(j.finished_at) FROM jobs j WHERE " \
	"j.library_id = libraries.id AND j.kind = 'index' AND j.state = 'done'), " \
	"last_error, total_documents, total_snippets, total_tokens, run_started, " \
	"run_finished, created_at, updated_at, settings, version_of, " \
	"(SELECT json_group_array(json_object('version', v.branch, 'id', v.id, 'state', " \
	"v.state, 'snippets', v.total_snippets, 'lastIndexedCommit', v.indexed_commit)) " \
	"FROM (SELECT * FROM libraries v WHERE v.version_of = libraries.id ORDER BY " \
	"v.branch) v)"

#define CATALOG_JOB_COLS \
	"id, library_id, kind, state, force, attempts, message, created_at, " \
	"started_at, finished_at, cancel_requested, phase, docs_total, docs_done, " \
	"snippets_total, describe_total, described, embed_total, embedded, progress_at"

/* A result column and its JSON member: text (null when NULL), whole number or boolean. */
struct catalog_col {
	const char	*name;
	enum { CATALOG_TEXT, CATALOG_INT, CATALOG_BOOL } type;
};

/* The columns of CATALOG_LIB_COLS (but settings) and CATALOG_JOB_COLS, in order. */
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

/* The progress columns that follow them in CATALOG_JOB_COLS: the job's "progress". */
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

static json_object *
catalog_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t != NULL ? json_object_new_string((const char *)t) : NULL;
}

/* The n columns of the current row from column first on as an object. */
static json_object *
catalog_cols(sqlite3_stmt *st, int first, const struct catalog_col *c, size_t n)
{
	json_object	*o = json_object_new_object(), *v;
	size_t		 i;
	int		 col;

	for (i = 0; i < n; i++) {
		col = first + (int)i;
		switch (c[i].type) {
		case CATALOG_INT:
			v = json_object_new_int64(sqlite3_column_int64(st, col));
			break;
		case CATALOG_BOOL:
			v = json_object_new_boolean(sqlite3_column_int(st, col));
			break;
		default:
			v = catalog_text(st, col);
			break;
		}
		json_object_object_add(o, c[i].name, v);
	}
	return o;
}

/* The first n columns of the current row as an object. */
static json_object *
catalog_row(sqlite3_stmt *st, const struct catalog_col *c, size_t n)
{
	return catalog_cols(st, 0, c, n);
}

/* A job row (CATALOG_JOB_COLS) with its "progress" object. */
static json_object *
catalog_job_row(sqlite3_stmt *st)
{
	json_object	*o = catalog_row(st, catalog_job_cols, CATALOG_NJOB);

	json_object_object_add(o, "progress", catalog_cols(st, (int)CATALOG_NJOB,
	    catalog_progress_cols, CATALOG_NPROGRESS));
	return o;
}

/* A library row with its source settings (the fields of its type; never a secret). */
static json_object *
catalog_lib_row(sqlite3_stmt *st)
{
	json_object	*o = catalog_row(st, catalog_lib_cols, CATALOG_NLIB);
	const char	*s;

	if ((s = (const char *)sqlite3_column_text(st, (int)CATALOG_NLIB)) != NULL)
		json_object_object_add(o, "settings", json_tokener_parse(s));
	/* The library a version belongs to, and a library's versions. */
	json_object_object_add(o, "versionOf", catalog_text(st, (int)CATALOG_NLIB + 1));
	if ((s = (const char *)sqlite3_column_text(st, (int)CATALOG_NLIB + 2)) != NULL)
		json_object_object_add(o, "versions", json_tokener_parse(s));
	return o;
}

/* The rows of a prepared job query as an array (at most max; *more when there are more). */
static json_object *
catalog_job_rows(sqlite3_stmt *st, long max, int *more, long long *last)
{
	json_object	*a = json_object_new_array();
	long		 n = 0;
	int		 rc;

	*more = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == max) {
			*more = 1;
			break;
		}
		*last = sqlite3_column_int64(st, 0);
		json_object_array_add(a, catalog_job_row(st));
		n++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

/* Adds row(st) to a for each row st steps to; 0 at the end, -1 on a database error. */
static int
catalog_add_rows(sqlite3_stmt *st, json_object *(*row)(sqlite3_stmt *), json_object *a)
{
	int	 rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_object_array_add(a, row(st));
	return rc == SQLITE_DONE ? 0 : -1;
}

static void
catalog_dberr(sqlite3 *db, const char *func)
{
	log_err("%s: %s", func, sqlite3_errmsg(db));
}

json_object *
catalog_libraries(sqlite3 *db, const char *state, long limit, long offset)
{
	sqlite3_stmt	*st = NULL;
	json_object	*o = json_object_new_object(), *a;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM libraries WHERE (?1 IS NULL OR "
	    "state = ?1)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		goto dberr;
	json_object_object_add(o, "total", json_object_new_int64(sqlite3_column_int64(st,
	    0)));
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT " CATALOG_LIB_COLS " FROM libraries WHERE "
	    "(?1 IS NULL OR state = ?1) ORDER BY id LIMIT ?2 OFFSET ?3", -1, &st,
	    NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, limit);
	sqlite3_bind_int64(st, 3, offset);
	a = json_object_new_array();
	json_object_object_add(o, "libraries", a);
	if (catalog_add_rows(st, catalog_lib_row, a) == -1)
		goto dberr;
	sqlite3_finalize(st);
	json_object_object_add(o, "limit", json_object_new_int64(limit));
	json_object_object_add(o, "offset", json_object_new_int64(offset));
	return o;
dberr:
	catalog_dberr(db, __func__);
	sqlite3_finalize(st);
	json_object_put(o);
	return NULL;
}

int
catalog_library(sqlite3 *db, const char *id, json_object **out)
{
	sqlite3_stmt	*st = NULL;
	json_object	*o = NULL, *jobs;
	long long	 last;
	int		 rc, more;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT " CATALOG_LIB_COLS " FROM libraries WHERE "
	    "id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
		sqlite3_finalize(st);
		return 0;
	}
	if (rc != SQLITE_ROW)
		goto dberr;
	o = catalog_lib_row(st);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT " CATALOG_JOB_COLS " FROM jobs WHERE "
	    "library_id = ?1 ORDER BY id DESC LIMIT 10", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((jobs = catalog_job_rows(st, 10, &more, &last)) == NULL)
		goto dberr;
	sqlite3_finalize(st);
	json_object_object_add(o, "jobs", jobs);
	if (inject_catalog(db, id, o) == -1)	/* "flagged" and "held" (inject.h) */
		goto dberr;
	*out = o;
	return 1;
dberr:
	catalog_dberr(db, __func__);
	sqlite3_finalize(st);
	json_object_put(o);
	return -1;
}

/*
 * The snippets of catalog_snippets: ?1 library, ?2 filter (NULL: none); those it shows
 * from other versions too (lib/index/share.h), with its own documents.
 */
#define CATALOG_SNIPPETS_WHERE \
	"FROM library_snippets s JOIN documents d ON d.id = s.document_id JOIN libraries l " \
	"ON l.id = s.library_id WHERE " \
	"s.library_id = ?1 AND s.dup_of IS NULL AND (?2 IS NULL OR " \
	"instr(lower(s.title), lower(?2)) > 0 OR instr(lower(s.text), lower(?2)) > 0 OR " \
	"instr(lower(s.code), lower(?2)) > 0 OR instr(lower(d.path), lower(?2)) > 0)"

/* One row of catalog_snippets' page query as its JSON object. */
static json_object *
catalog_snippet_row(sqlite3_stmt *st)
{
	json_object	*o = json_object_new_object(), *code;
	const char	*c = (const char *)sqlite3_column_text(st, 6);
	char		*src;

	json_object_object_add(o, "id", json_object_new_int64(sqlite3_column_int64(st,
	    0)));
	json_object_object_add(o, "title", catalog_text(st, 1));
	json_object_object_add(o, "breadcrumb", catalog_text(st, 2));
	src = format_source_of((const char *)sqlite3_column_text(st, 11),
	    (const char *)sqlite3_column_text(st, 9),
	    (const char *)sqlite3_column_text(st, 10),
	    (const char *)sqlite3_column_text(st, 4),
	    (const char *)sqlite3_column_text(st, 3));
	json_object_object_add(o, "source", src != NULL ? json_object_new_string(src) :
	    NULL);
	free(src);
	json_object_object_add(o, "path", catalog_text(st, 4));
	json_object_object_add(o, "text", catalog_text(st, 5));
	code = c != NULL ? json_tokener_parse(c) : NULL;
	if (code == NULL || !json_object_is_type(code, json_type_array)) {
		json_object_put(code);
		code = json_object_new_array();
	}
	json_object_object_add(o, "code", code);
	json_object_object_add(o, "tokens", json_object_new_int64(
	    sqlite3_column_int64(st, 7)));
	json_object_object_add(o, "flags", catalog_text(st, 8));
	return o;
}

int
catalog_snippets(sqlite3 *db, const char *id, const char *q, long limit, long offset,
    json_object **out)
{
	sqlite3_stmt	*st = NULL;
	json_object	*o = NULL, *a;
	int		 rc;

	*out = NULL;
	if (q != NULL && *q == '\0')
		q = NULL;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) " CATALOG_SNIPPETS_WHERE
	    ") FROM libraries WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, q, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
		sqlite3_finalize(st);
		return 0;
	}
	if (rc != SQLITE_ROW)
		goto dberr;
	o = json_object_new_object();
	json_object_object_add(o, "libraryId", json_object_new_string(id));
	json_object_object_add(o, "q", q != NULL ? json_object_new_string(q) : NULL);
	json_object_object_add(o, "total", json_object_new_int64(sqlite3_column_int64(st,
	    0)));
	json_object_object_add(o, "limit", json_object_new_int64(limit));
	json_object_object_add(o, "offset", json_object_new_int64(offset));
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT s.id, s.title, s.breadcrumb, s.anchor, d.path, "
	    "s.text, s.code, s.tokens, (SELECT group_concat(rule, ', ') FROM "
	    "snippet_flags WHERE snippet_id = s.id), l.blob_prefix, l.indexed_commit, "
	    "d.url " CATALOG_SNIPPETS_WHERE " ORDER BY d.path, s.ord LIMIT ?3 OFFSET ?4",
	    -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, q, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, limit);
	sqlite3_bind_int64(st, 4, offset);
	a = json_object_new_array();
	json_object_object_add(o, "snippets", a);
	if (catalog_add_rows(st, catalog_snippet_row, a) == -1)
		goto dberr;
	sqlite3_finalize(st);
	*out = o;
	return 1;
dberr:
	catalog_dberr(db, __func__);
	sqlite3_finalize(st);
	json_object_put(o);
	return -1;
}

json_object *
catalog_jobs(sqlite3 *db, const struct catalog_job_filter *f)
{
	sqlite3_stmt	*st = NULL;
	json_object	*o, *a;
	long long	 last = 0;
	int		 more;

	if (sqlite3_prepare_v2(db, "SELECT " CATALOG_JOB_COLS " FROM jobs WHERE "
	    "(?1 IS NULL OR library_id = ?1) AND (?2 IS NULL OR state = ?2) AND "
	    "(?3 IS NULL OR kind = ?3) AND id < ?4 ORDER BY id DESC LIMIT ?5", -1,
	    &st, NULL) != SQLITE_OK) {
		catalog_dberr(db, __func__);
		return NULL;
	}
	sqlite3_bind_text(st, 1, f->library, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, f->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, f->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, f->before);
	sqlite3_bind_int64(st, 5, f->limit + 1);
	if ((a = catalog_job_rows(st, f->limit, &more, &last)) == NULL) {
		catalog_dberr(db, __func__);
		sqlite3_finalize(st);
		return NULL;
	}
	sqlite3_finalize(st);
	o = json_object_new_object();
	json_object_object_add(o, "jobs", a);
	json_object_object_add(o, "nextBefore", more ? json_object_new_int64(last) :
	    NULL);
	return o;
}

int
catalog_job(sqlite3 *db, long long id, json_object **out)
{
	sqlite3_stmt	*st;
	int		 rc;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT " CATALOG_JOB_COLS ", (SELECT count(*) FROM "
	    "job_log WHERE job_id = jobs.id) FROM jobs WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK) {
		catalog_dberr(db, __func__);
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = catalog_job_row(st);
		json_object_object_add(*out, "logLines",
		    json_object_new_int64(sqlite3_column_int64(st, (int)CATALOG_NJOBCOLS)));
	} else if (rc != SQLITE_DONE)
		catalog_dberr(db, __func__);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

json_object *
catalog_job_log(sqlite3 *db, long long id, long long after, long limit)
{
	sqlite3_stmt	*st;
	json_object	*o, *a, *l;
	long long	 last = after;
	int		 rc;

	if (sqlite3_prepare_v2(db, "SELECT id, at, level, line FROM job_log WHERE "
	    "job_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3", -1, &st, NULL) !=
	    SQLITE_OK) {
		catalog_dberr(db, __func__);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, after);
	sqlite3_bind_int64(st, 3, limit);
	a = json_object_new_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		last = sqlite3_column_int64(st, 0);
		l = json_object_new_object();
		json_object_object_add(l, "id", json_object_new_int64(last));
		json_object_object_add(l, "at", catalog_text(st, 1));
		json_object_object_add(l, "level", catalog_text(st, 2));
		json_object_object_add(l, "line", catalog_text(st, 3));
		json_object_array_add(a, l);
	}
	if (rc != SQLITE_DONE) {
		catalog_dberr(db, __func__);
		sqlite3_finalize(st);
		json_object_put(a);
		return NULL;
	}
	sqlite3_finalize(st);
	o = json_object_new_object();
	json_object_object_add(o, "lines", a);
	json_object_object_add(o, "nextAfter", json_object_new_int64(last));
	return o;
}

json_object *
catalog_bundle_libraries(sqlite3 *db)
{
	sqlite3_stmt	*st;
	json_object	*a = json_object_new_array();

	if (sqlite3_prepare_v2(db, "SELECT " CATALOG_LIB_COLS " FROM libraries ORDER BY "
	    "id LIMIT 1000", -1, &st, NULL) != SQLITE_OK) {
		catalog_dberr(db, __func__);
		return a;
	}
	while (sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, catalog_lib_row(st));
	sqlite3_finalize(st);
	return a;
}

json_object *
catalog_bundle_jobs(sqlite3 *db, int njobs, int nlines)
{
	sqlite3_stmt	*st, *lt = NULL;
	json_object	*a = json_object_new_array(), *job, *lines, *l;

	if (sqlite3_prepare_v2(db, "SELECT " CATALOG_JOB_COLS " FROM jobs ORDER BY id "
	    "DESC LIMIT ?1", -1, &st, NULL) != SQLITE_OK) {
		catalog_dberr(db, __func__);
		return a;
	}
	if (sqlite3_prepare_v2(db, "SELECT at, level, line FROM (SELECT id, at, level, "
	    "line FROM job_log WHERE job_id = ?1 ORDER BY id DESC LIMIT ?2) ORDER BY "
	    "id", -1, &lt, NULL) != SQLITE_OK) {
		catalog_dberr(db, __func__);
		sqlite3_finalize(st);
		return a;
	}
	sqlite3_bind_int(st, 1, njobs);
	while (sqlite3_step(st) == SQLITE_ROW) {
		job = catalog_job_row(st);
		lines = json_object_new_array();
		sqlite3_reset(lt);
		sqlite3_bind_int64(lt, 1, sqlite3_column_int64(st, 0));
		sqlite3_bind_int(lt, 2, nlines);
		while (sqlite3_step(lt) == SQLITE_ROW) {
			l = json_object_new_object();
			json_object_object_add(l, "at", catalog_text(lt, 0));
			json_object_object_add(l, "level", catalog_text(lt, 1));
			json_object_object_add(l, "line", catalog_text(lt, 2));
			json_object_array_add(lines, l);
		}
		json_object_object_add(job, "log", lines);
		json_object_array_add(a, job);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(lt);
	return a;
}

