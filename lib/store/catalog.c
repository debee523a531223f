/* store/catalog.c: the read-only queries of the admin API's lists (store/catalog.h). */
#include "config.h"

#include <stddef.h>

#include "base/log.h"
#include "store/catalog.h"
#include "store/jobs.h"
#include "store/stmt.h"

struct store_row {
	struct db_stmt	*st;
};

const char *
store_row_text(const struct store_row *r, int col)
{
	return db_col_null(r->st, col) ? NULL : db_col_text(r->st, col);
}

long long
store_row_int(const struct store_row *r, int col)
{
	return db_col_int64(r->st, col);
}

/*
 * The columns of a library row (store/catalog.h).
 * Engine: the versions' JSON is SQLite's json_group_array and json_object, PostgreSQL's
 * json_agg and json_build_object ('[]' without a version, as SQLite's), each ordered by
 * branch in byte order (COLLATE "C" on PostgreSQL). PostgreSQL spaces its JSON text
 * differently; the callers parse it.
 */
#define STORE_CATALOG_LIB_COLS_COMMON \
	"id, title, description, source_type, url, branch, state, run_status, gitops, " \
	"indexed_commit, indexed_branch, (SELECT max(j.finished_at) FROM jobs j WHERE " \
	"j.library_id = libraries.id AND j.kind = 'index' AND j.state = 'done'), " \
	"last_error, total_documents, total_snippets, total_tokens, run_started, " \
	"run_finished, created_at, updated_at, settings, version_of, "
#define STORE_CATALOG_LIB_COLS_LITE STORE_CATALOG_LIB_COLS_COMMON \
	"(SELECT json_group_array(json_object('version', v.branch, 'id', v.id, 'state', " \
	"v.state, 'snippets', v.total_snippets, 'lastIndexedCommit', v.indexed_commit)) " \
	"FROM (SELECT * FROM libraries v WHERE v.version_of = libraries.id ORDER BY " \
	"v.branch) v)"
#define STORE_CATALOG_LIB_COLS_PG STORE_CATALOG_LIB_COLS_COMMON \
	"(SELECT coalesce(json_agg(json_build_object('version', v.branch, 'id', v.id, " \
	"'state', v.state, 'snippets', v.total_snippets, 'lastIndexedCommit', " \
	"v.indexed_commit) ORDER BY v.branch COLLATE \"C\")::text, '[]') FROM libraries v " \
	"WHERE v.version_of = libraries.id)"
/*
 * A statement of library rows: where (with ?1, ...) and then order (SQLite's byte order of
 * ids: COLLATE "C" on PostgreSQL) and what follows.
 */
#define STORE_CATALOG_LIB_SQL(where, order, rest) DB_PAIR( \
	"SELECT " STORE_CATALOG_LIB_COLS_LITE " FROM libraries " where order rest, \
	"SELECT " STORE_CATALOG_LIB_COLS_PG " FROM libraries " where order " COLLATE \"C\"" rest)

/*
 * Engine: two output columns are named id on PostgreSQL (the job's and its waited-for
 * job's), whose ORDER BY prefers output names: the statements order by jobs.id; a parameter
 * only tested for NULL is typed (CAST ... AS text).
 */
#define STORE_CATALOG_JOB_COLS \
	"id, library_id, kind, state, force, attempts, message, created_at, " \
	"started_at, finished_at, cancel_requested, phase, docs_total, docs_done, " \
	"snippets_total, describe_total, described, embed_total, embedded, progress_at, " \
	"(SELECT pos FROM queue WHERE qid = jobs.id), (SELECT o.id FROM jobs o WHERE " \
	"o.state = 'running' AND jobs.state = 'queued' AND " \
	JOBS_SQL_SAME_FAMILY("o", "jobs") " LIMIT 1)"
/*
 * The queued jobs' places (pos) as jobs_claim (store/jobs.c) would take them if nothing
 * more were queued: class (the service's and admins' first), then each queuer's k-th job
 * in turn (turn), the queuer served longest ago first (its last claim_no), then the oldest.
 * Engine: window functions.
 */
#define STORE_CATALOG_QUEUE_WITH \
	"WITH " JOBS_SQL_LAST ", " \
	"waiting AS (SELECT j.id AS qid, " JOBS_SQL_CLASS("j") " AS class, row_number() " \
	"OVER (PARTITION BY coalesce(j.queued_via, ''), coalesce(j.queued_by, 0) ORDER BY " \
	"j.id) AS turn, coalesce(l.c, 0) AS lastc FROM jobs j LEFT JOIN last l ON " \
	JOBS_SQL_LAST_OF("l", "j") " WHERE j.state = 'queued'), " \
	"queue AS (SELECT qid, row_number() OVER (ORDER BY class, turn, lastc, qid) AS pos " \
	"FROM waiting) "

static struct db_stmt *
store_catalog_prepare(struct db *db, const char *sql, const char *func)
{
	struct db_stmt	*st;

	if (db_prepare(db, sql, &st) == -1) {
		log_err("%s: %s", func, db_conn_errmsg(db));
		return NULL;
	}
	return st;
}

/*
 * Steps st to its end, calling fn with each row until it returns 1 (stop) or -1 (fail),
 * and finalizes it: 1 when there was a row, 0 when none, -1 (logged unless fn failed).
 */
static int
store_catalog_rows(struct db *db, struct db_stmt *st, store_row_fn fn, void *arg,
    const char *func)
{
	struct store_row r = { st };
	int		 step, rc = 0, any = 0;

	while ((step = db_step(st)) == DB_ROW) {
		any = 1;
		if ((rc = fn(&r, arg)) != 0)
			break;
	}
	if (rc == 0 && step != DB_DONE) {
		log_err("%s: %s", func, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc == -1 ? -1 : any;
}

int
store_catalog_count_libraries(struct db *db, const char *state, long long *n)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if ((st = store_catalog_prepare(db, "SELECT count(*) FROM libraries WHERE (CAST(?1 "
	    "AS text) IS NULL OR state = ?1)", __func__)) == NULL)
		return -1;
	db_bind_text(st, 1, state);
	if (db_step(st) == DB_ROW) {
		*n = db_col_int64(st, 0);
		rc = 0;
	} else
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

int
store_catalog_libraries(struct db *db, const char *state, long limit, long offset,
    store_row_fn fn, void *arg)
{
	struct db_stmt	*st;

	if ((st = store_catalog_prepare(db, STORE_CATALOG_LIB_SQL("WHERE (CAST(?1 AS text) "
	    "IS NULL OR state = ?1) ", "ORDER BY id", " LIMIT ?2 OFFSET ?3"), __func__)) == NULL)
		return -1;
	db_bind_text(st, 1, state);
	db_bind_int64(st, 2, limit);
	db_bind_int64(st, 3, offset);
	return store_catalog_rows(db, st, fn, arg, __func__) == -1 ? -1 : 0;
}

int
store_catalog_library(struct db *db, const char *id, store_row_fn fn, void *arg)
{
	struct db_stmt	*st;

	if ((st = store_catalog_prepare(db, STORE_CATALOG_LIB_SQL("WHERE id = ?1 ",
	    "ORDER BY id", ""), __func__)) == NULL)
		return -1;
	db_bind_text(st, 1, id);
	return store_catalog_rows(db, st, fn, arg, __func__);
}

int
store_catalog_jobs(struct db *db, const char *library_id, const char *state,
    const char *kind, long long before, long limit, store_row_fn fn, void *arg)
{
	struct db_stmt	*st;

	if ((st = store_catalog_prepare(db, STORE_CATALOG_QUEUE_WITH "SELECT "
	    STORE_CATALOG_JOB_COLS " FROM jobs "
	    "WHERE (CAST(?1 AS text) IS NULL OR library_id = ?1) AND (CAST(?2 AS text) "
	    "IS NULL OR state = ?2) AND (CAST(?3 AS text) IS NULL OR kind = ?3) AND "
	    "jobs.id < ?4 ORDER BY jobs.id DESC LIMIT ?5",
	    __func__)) == NULL)
		return -1;
	db_bind_text(st, 1, library_id);
	db_bind_text(st, 2, state);
	db_bind_text(st, 3, kind);
	db_bind_int64(st, 4, before);
	db_bind_int64(st, 5, limit);
	return store_catalog_rows(db, st, fn, arg, __func__) == -1 ? -1 : 0;
}

int
store_catalog_job(struct db *db, long long id, store_row_fn fn, void *arg)
{
	struct db_stmt	*st;

	if ((st = store_catalog_prepare(db, STORE_CATALOG_QUEUE_WITH "SELECT "
	    STORE_CATALOG_JOB_COLS ", (SELECT count(*) FROM job_log WHERE job_id = jobs.id) "
	    "FROM jobs WHERE id = ?1",
	    __func__)) == NULL)
		return -1;
	db_bind_int64(st, 1, id);
	return store_catalog_rows(db, st, fn, arg, __func__);
}

int
store_catalog_job_log(struct db *db, long long id, long long after, long limit,
    store_row_fn fn, void *arg)
{
	struct db_stmt	*st;

	if ((st = store_catalog_prepare(db, "SELECT id, at, level, line FROM job_log WHERE "
	    "job_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3", __func__)) == NULL)
		return -1;
	db_bind_int64(st, 1, id);
	db_bind_int64(st, 2, after);
	db_bind_int64(st, 3, limit);
	return store_catalog_rows(db, st, fn, arg, __func__) == -1 ? -1 : 0;
}

/*
 * The snippets of store_catalog_snippets: ?1 library, ?2 filter (NULL: none); those it
 * shows from other versions too (lib/index/share.h), with its own documents.
 * Engine: reads the view library_snippets; instr() finds the filter (a substring)
 * (PostgreSQL: strpos, and lower() of the "C" collation, which folds ASCII only as
 * SQLite's does), and the page's flags are joined with SQLite's group_concat (PostgreSQL:
 * string_agg, in rule order as SQLite's primary key gives them); pages in byte order of
 * path (COLLATE "C" on PostgreSQL).
 */
#define STORE_CATALOG_SNIPPETS_FROM \
	"FROM library_snippets s JOIN documents d ON d.id = s.document_id JOIN libraries l " \
	"ON l.id = s.library_id WHERE s.library_id = ?1 AND s.dup_of IS NULL AND "
#define STORE_CATALOG_SNIPPETS_WHERE_LITE STORE_CATALOG_SNIPPETS_FROM \
	"(?2 IS NULL OR " \
	"instr(lower(s.title), lower(?2)) > 0 OR instr(lower(s.text), lower(?2)) > 0 OR " \
	"instr(lower(s.code), lower(?2)) > 0 OR instr(lower(d.path), lower(?2)) > 0)"
#define STORE_CATALOG_LOWER(x)	"lower(" x " COLLATE \"C\")"
#define STORE_CATALOG_SNIPPETS_WHERE_PG STORE_CATALOG_SNIPPETS_FROM \
	"(CAST(?2 AS text) IS NULL OR " \
	"strpos(" STORE_CATALOG_LOWER("s.title") ", " STORE_CATALOG_LOWER("?2") ") > 0 OR " \
	"strpos(" STORE_CATALOG_LOWER("s.text") ", " STORE_CATALOG_LOWER("?2") ") > 0 OR " \
	"strpos(" STORE_CATALOG_LOWER("s.code") ", " STORE_CATALOG_LOWER("?2") ") > 0 OR " \
	"strpos(" STORE_CATALOG_LOWER("d.path") ", " STORE_CATALOG_LOWER("?2") ") > 0)"

int
store_catalog_count_snippets(struct db *db, const char *id, const char *q, long long *n)
{
	struct db_stmt	*st;
	int		 step;

	if ((st = store_catalog_prepare(db, DB_PAIR("SELECT (SELECT count(*) "
	    STORE_CATALOG_SNIPPETS_WHERE_LITE ") FROM libraries WHERE id = ?1",
	    "SELECT (SELECT count(*) " STORE_CATALOG_SNIPPETS_WHERE_PG ") FROM libraries "
	    "WHERE id = ?1"), __func__)) == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_text(st, 2, q);
	if ((step = db_step(st)) == DB_ROW)
		*n = db_col_int64(st, 0);
	else if (step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return step == DB_ROW ? 1 : step == DB_DONE ? 0 : -1;
}

int
store_catalog_snippets(struct db *db, const char *id, const char *q, long limit,
    long offset, store_row_fn fn, void *arg)
{
	struct db_stmt	*st;

	if ((st = store_catalog_prepare(db, DB_PAIR("SELECT s.id, s.title, s.breadcrumb, "
	    "s.anchor, d.path, s.text, s.code, s.tokens, (SELECT group_concat(rule, ', ') "
	    "FROM snippet_flags WHERE snippet_id = s.id), l.blob_prefix, l.indexed_commit, "
	    "d.url " STORE_CATALOG_SNIPPETS_WHERE_LITE " ORDER BY d.path, s.ord LIMIT ?3 "
	    "OFFSET ?4", "SELECT s.id, s.title, s.breadcrumb, s.anchor, d.path, s.text, "
	    "s.code, s.tokens, (SELECT string_agg(rule, ', ' ORDER BY rule COLLATE \"C\") "
	    "FROM snippet_flags WHERE snippet_id = s.id), l.blob_prefix, l.indexed_commit, "
	    "d.url " STORE_CATALOG_SNIPPETS_WHERE_PG " ORDER BY d.path COLLATE \"C\", s.ord "
	    "LIMIT ?3 OFFSET ?4"), __func__)) == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_text(st, 2, q);
	db_bind_int64(st, 3, limit);
	db_bind_int64(st, 4, offset);
	return store_catalog_rows(db, st, fn, arg, __func__) == -1 ? -1 : 0;
}

int
store_catalog_bundle_libraries(struct db *db, store_row_fn fn, void *arg)
{
	struct db_stmt	*st;

	if ((st = store_catalog_prepare(db, STORE_CATALOG_LIB_SQL("", "ORDER BY id",
	    " LIMIT 1000"), __func__)) == NULL)
		return -1;
	return store_catalog_rows(db, st, fn, arg, __func__) == -1 ? -1 : 0;
}

int
store_catalog_bundle_jobs(struct db *db, int njobs, int nlines, store_row_fn job_fn,
    store_row_fn line_fn, void *arg)
{
	struct db_stmt	*st, *lt;
	struct store_row j, l;
	int		 rc = 0;

	if ((st = store_catalog_prepare(db, STORE_CATALOG_QUEUE_WITH "SELECT "
	    STORE_CATALOG_JOB_COLS " FROM jobs "
	    "ORDER BY jobs.id DESC LIMIT ?1", __func__)) == NULL)
		return -1;
	/* Engine: PostgreSQL names every subquery in FROM */
	if ((lt = store_catalog_prepare(db, "SELECT at, level, line FROM (SELECT id, at, "
	    "level, line FROM job_log WHERE job_id = ?1 ORDER BY id DESC LIMIT ?2) AS t "
	    "ORDER BY id", __func__)) == NULL) {
		db_finalize(st);
		return -1;
	}
	j.st = st;
	l.st = lt;
	db_bind_int64(st, 1, njobs);
	while (rc == 0 && db_step(st) == DB_ROW) {
		if ((rc = job_fn(&j, arg)) != 0)
			break;
		db_reset(lt);
		db_bind_int64(lt, 1, db_col_int64(st, 0));
		db_bind_int64(lt, 2, nlines);
		while (rc == 0 && db_step(lt) == DB_ROW)
			rc = line_fn(&l, arg);
	}
	db_finalize(st);
	db_finalize(lt);
	return rc == -1 ? -1 : 0;
}
