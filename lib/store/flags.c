/*
 * store/flags.c: the snippet_flags rows (store/flags.h).
 * Engine: the served flags read the view library_snippets.
 */
#include "config.h"

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/flags.h"
#include "store/conn.h"

/* Engine: INSERT OR REPLACE (an upsert on the key snippet_id, rule). */
int
store_flag_put(struct db *db, long long snippet_id, const char *library_id, const char *rule,
    const char *excerpt)
{
	return db_run(db, "INSERT OR REPLACE INTO snippet_flags (snippet_id, library_id, "
	    "rule, excerpt) VALUES (?1, ?2, ?3, ?4)", "Ittt", snippet_id, library_id, rule,
	    excerpt);
}

/*
 * The flagged rows of served snippets (not duplicates) of library ?1: its own and those it
 * shows from other versions (lib/index/share.h; their flags rows carry the owner's id).
 */
#define STORE_FLAGS_FROM \
	"FROM library_snippets s JOIN snippet_flags f ON f.snippet_id = s.id " \
	"WHERE s.library_id = ?1 AND s.dup_of IS NULL"

/* Runs sql (one integer, ?1 library_id) into *n. */
static int
store_flags_int(struct db *db, const char *sql, const char *library_id, long long *n,
    const char *fn)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), sql, -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", fn, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		rc = 0;
	} else
		log_err("%s: %s", fn, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
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

int
store_flags_rules(struct db *db, const char *library_id,
    int (*fn)(const char *, long long, void *), void *arg)
{
	sqlite3_stmt	*st;
	int		 step, rc = 0;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT f.rule, count(*) " STORE_FLAGS_FROM
	    " GROUP BY f.rule ORDER BY 2 DESC, 1", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = fn((const char *)sqlite3_column_text(st, 0),
		    sqlite3_column_int64(st, 1), arg)) == -1)
			break;
	if (rc == 0 && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_flags_places(struct db *db, const char *library_id, int limit,
    int (*fn)(const char *, void *), void *arg)
{
	sqlite3_stmt	*st;
	int		 step, rc = 0;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT d.path || CASE WHEN s.anchor <> '' THEN "
	    "'#' || s.anchor ELSE '' END FROM library_snippets s JOIN documents d ON d.id = "
	    "s.document_id WHERE s.library_id = ?1 AND s.id IN (SELECT f.snippet_id "
	    STORE_FLAGS_FROM ") ORDER BY s.id LIMIT ?2", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, limit);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = fn((const char *)sqlite3_column_text(st, 0), arg)) == -1)
			break;
	if (rc == 0 && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_flags_list(struct db *db, const char *library_id, long limit, long offset,
    int (*fn)(const struct store_flag_row *, void *), void *arg)
{
	struct store_flag_row r;
	sqlite3_stmt	*st;
	int		 step, rc = 0;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT f.snippet_id, s.title, l.blob_prefix, "
	    "l.indexed_commit, d.path, s.anchor, f.rule, f.excerpt, d.url "
	    "FROM library_snippets s JOIN snippet_flags f ON f.snippet_id = s.id JOIN "
	    "documents d ON d.id = s.document_id JOIN libraries l ON l.id = s.library_id "
	    "WHERE s.library_id = ?1 AND s.dup_of IS NULL ORDER BY f.snippet_id, f.rule "
	    "LIMIT ?2 OFFSET ?3", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, limit);
	sqlite3_bind_int64(st, 3, offset);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		r.snippet_id = sqlite3_column_int64(st, 0);
		r.title = (const char *)sqlite3_column_text(st, 1);
		r.blob_prefix = (const char *)sqlite3_column_text(st, 2);
		r.indexed_commit = (const char *)sqlite3_column_text(st, 3);
		r.path = (const char *)sqlite3_column_text(st, 4);
		r.anchor = (const char *)sqlite3_column_text(st, 5);
		r.rule = (const char *)sqlite3_column_text(st, 6);
		r.excerpt = (const char *)sqlite3_column_text(st, 7);
		r.url = (const char *)sqlite3_column_text(st, 8);
		if ((rc = fn(&r, arg)) == -1)
			break;
	}
	if (rc == 0 && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}
