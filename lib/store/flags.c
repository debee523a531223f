/*
 * store/flags.c: the snippet_flags rows (store/flags.h).
 * Engine: the served flags read the view library_snippets.
 */
#include "config.h"

#include "base/log.h"
#include "store/db.h"
#include "store/flags.h"
#include "store/stmt.h"

/*
 * An upsert on the key (snippet_id, rule), one text for both engines (SQLite's INSERT OR
 * REPLACE has no PostgreSQL twin). On PostgreSQL it is one statement, so two writers of
 * the same flag need no lock of their own.
 */
int
store_flag_put(struct db *db, long long snippet_id, const char *library_id, const char *rule,
    const char *excerpt)
{
	return db_run(db, "INSERT INTO snippet_flags (snippet_id, library_id, rule, excerpt) "
	    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (snippet_id, rule) DO UPDATE SET "
	    "library_id = excluded.library_id, excerpt = excluded.excerpt", "Ittt", snippet_id,
	    library_id, rule, excerpt);
}

/*
 * The flagged rows of served snippets (not duplicates) of library ?1: its own and those it
 * shows from other versions (lib/index/share.h; their flags rows carry the owner's id).
 */
#define STORE_FLAGS_FROM \
	"FROM library_snippets s JOIN snippet_flags f ON f.snippet_id = s.id " \
	"WHERE s.library_id = ?1 AND s.dup_of IS NULL"

/* Column i's text, NULL for a NULL column. */
static const char *
store_flags_col(struct db_stmt *st, int i)
{
	return db_col_null(st, i) ? NULL : db_col_text(st, i);
}

/* Runs sql (one integer, ?1 library_id) into *n. */
static int
store_flags_int(struct db *db, const char *sql, const char *library_id, long long *n,
    const char *fn)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_prepare(db, sql, &st) == -1) {
		log_err("%s: %s", fn, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	if (db_step(st) == DB_ROW) {
		*n = db_col_int64(st, 0);
		rc = 0;
	} else
		log_err("%s: %s", fn, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

int
store_flags_snippets(struct db *db, const char *library_id, long long *n)
{
	return store_flags_int(db, "SELECT count(DISTINCT f.snippet_id) " STORE_FLAGS_FROM,
	    library_id, n, __func__);
}

int
store_flags_total(struct db *db, const char *library_id, long long *n)
{
	return store_flags_int(db, "SELECT count(*) " STORE_FLAGS_FROM, library_id, n,
	    __func__);
}

/* Engine: the rules of one count in byte order (COLLATE "C" on PostgreSQL). */
int
store_flags_rules(struct db *db, const char *library_id,
    int (*fn)(const char *, long long, void *), void *arg)
{
	struct db_stmt	*st;
	int		 step, rc = 0;

	if (db_prepare(db, DB_PAIR(
	    "SELECT f.rule, count(*) " STORE_FLAGS_FROM " GROUP BY f.rule ORDER BY 2 DESC, 1",
	    "SELECT f.rule, count(*) " STORE_FLAGS_FROM " GROUP BY f.rule ORDER BY 2 DESC, "
	    "f.rule COLLATE \"C\""), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	while ((step = db_step(st)) == DB_ROW)
		if ((rc = fn(store_flags_col(st, 0), db_col_int64(st, 1), arg)) == -1)
			break;
	if (rc == 0 && step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

int
store_flags_places(struct db *db, const char *library_id, int limit,
    int (*fn)(const char *, void *), void *arg)
{
	struct db_stmt	*st;
	int		 step, rc = 0;

	if (db_prepare(db, "SELECT d.path || CASE WHEN s.anchor <> '' THEN "
	    "'#' || s.anchor ELSE '' END FROM library_snippets s JOIN documents d ON d.id = "
	    "s.document_id WHERE s.library_id = ?1 AND s.id IN (SELECT f.snippet_id "
	    STORE_FLAGS_FROM ") ORDER BY s.id LIMIT ?2", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	db_bind_int64(st, 2, limit);
	while ((step = db_step(st)) == DB_ROW)
		if ((rc = fn(store_flags_col(st, 0), arg)) == -1)
			break;
	if (rc == 0 && step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

/* Engine: a snippet's rules in byte order (COLLATE "C" on PostgreSQL). */
#define STORE_FLAGS_LIST(rule) \
	"SELECT f.snippet_id, s.title, l.blob_prefix, " \
	"l.indexed_commit, d.path, s.anchor, f.rule, f.excerpt, d.url " \
	"FROM library_snippets s JOIN snippet_flags f ON f.snippet_id = s.id JOIN " \
	"documents d ON d.id = s.document_id JOIN libraries l ON l.id = s.library_id " \
	"WHERE s.library_id = ?1 AND s.dup_of IS NULL ORDER BY f.snippet_id, " rule \
	" LIMIT ?2 OFFSET ?3"

int
store_flags_list(struct db *db, const char *library_id, long limit, long offset,
    int (*fn)(const struct store_flag_row *, void *), void *arg)
{
	struct store_flag_row r;
	struct db_stmt	*st;
	int		 step, rc = 0;

	if (db_prepare(db, DB_PAIR(STORE_FLAGS_LIST("f.rule"),
	    STORE_FLAGS_LIST("f.rule COLLATE \"C\"")), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	db_bind_int64(st, 2, limit);
	db_bind_int64(st, 3, offset);
	while ((step = db_step(st)) == DB_ROW) {
		r.snippet_id = db_col_int64(st, 0);
		r.title = store_flags_col(st, 1);
		r.blob_prefix = store_flags_col(st, 2);
		r.indexed_commit = store_flags_col(st, 3);
		r.path = store_flags_col(st, 4);
		r.anchor = store_flags_col(st, 5);
		r.rule = store_flags_col(st, 6);
		r.excerpt = store_flags_col(st, 7);
		r.url = store_flags_col(st, 8);
		if ((rc = fn(&r, arg)) == -1)
			break;
	}
	if (rc == 0 && step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}
