/* store/dedup.c: the rows a dedup pass reads and writes (store/dedup.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/db.h"
#include "store/dedup.h"
#include "store/library.h"
#include "store/stmt.h"

/*
 * The rows of store_dedup_rows a FETCH returns at most on PostgreSQL, which fetches a
 * statement's rows whole: a library's snippets are read from a server-side cursor, in
 * pages. SQLite streams its rows: one statement reads them all.
 */
#define STORE_DEDUP_PAGE	2000
#define STORE_DEDUP_FETCH	"FETCH 2000 FROM "	/* STORE_DEDUP_PAGE rows */

/*
 * Engine: reads the view library_snippets (a library's own and shown snippets); chr(31)
 * is SQLite's char(31); the flag as an integer (a comparison is a boolean on PostgreSQL).
 */
#define STORE_DEDUP_COLS(chr)							\
	"SELECT s.id, s.ord, s.hash, s.sig, coalesce(s.dup_of, 0), d.path, d.title || "	\
	chr "(31) || s.breadcrumb || " chr "(31) || s.heading, s.owner_document_id, CASE "	\
	"WHEN s.owner_id = ?1 THEN 1 ELSE 0 END FROM library_snippets s JOIN documents d "	\
	"ON d.id = s.document_id WHERE s.library_id = ?1 "

/*
 * PostgreSQL: one cursor walks the library's rows once (a keyset page by s.id, whose
 * filter is on documents and whose order on snippets, walked the rows of other libraries
 * again for every page: quadratic). Ordered by s.id + 0 so that the planner sorts the
 * library's rows rather than walking every snippet in id order for a cursor's fast start.
 */
#define STORE_DEDUP_CURSOR	"store_dedup_rows"

static int
store_dedup_row(struct db_stmt *st, struct store_dedup_row *r)
{
	r->id = db_col_int64(st, 0);
	r->ord = (long)db_col_int64(st, 1);
	r->hash = db_col_text(st, 2);
	r->has_sig = !db_col_null(st, 3);
	r->sig = db_col_int64(st, 3);
	r->dup_of = db_col_int64(st, 4);
	r->path = db_col_text(st, 5);
	r->trail = db_col_text(st, 6);
	r->owner_doc = db_col_int64(st, 7);
	r->owned = (int)db_col_int64(st, 8);
	return 0;
}

/* PostgreSQL: inside a transaction (the caller's, else one of its own, read only). */
static int
store_dedup_rows_pg(struct db *db, const char *library_id,
    int (*fn)(const struct store_dedup_row *, void *), void *arg)
{
	struct store_dedup_row r;
	struct db_stmt	*st = NULL;
	long long	 rows;
	int		 s = -1, rc = -1, tx, open = 0, stopped = 0;

	tx = !db_in_transaction(db);
	if (tx && db_begin_read(db) == -1)
		goto out;
	if (db_prepare(db, "DECLARE " STORE_DEDUP_CURSOR " NO SCROLL CURSOR FOR "
	    STORE_DEDUP_COLS("chr") "ORDER BY s.id + 0", &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	if (db_step(st) != DB_DONE)
		goto out;
	open = 1;
	db_finalize(st);
	if (db_prepare(db, STORE_DEDUP_FETCH STORE_DEDUP_CURSOR, &st) == -1)
		goto out;
	do {
		db_reset(st);
		rows = 0;
		while ((s = db_step(st)) == DB_ROW) {
			store_dedup_row(st, &r);
			rows++;
			if (fn(&r, arg) == -1) {
				stopped = 1;
				break;
			}
		}
	} while (!stopped && s == DB_DONE && rows == STORE_DEDUP_PAGE);
	if (stopped || s == DB_DONE)
		rc = 0;
out:
	db_finalize(st);
	if (rc == -1)
		log_err("store_dedup_rows: %s: %s", library_id, db_conn_errmsg(db));
	if (open && db_exec(db, "CLOSE " STORE_DEDUP_CURSOR) == -1)
		rc = -1;
	if (tx && (rc == -1 || db_commit(db) == -1)) {
		db_rollback(db);
		rc = -1;
	}
	return stopped ? -1 : rc;
}

int
store_dedup_rows(struct db *db, const char *library_id,
    int (*fn)(const struct store_dedup_row *, void *), void *arg)
{
	struct store_dedup_row r;
	struct db_stmt	*st = NULL;
	int		 s = -1, rc = -1;

	if (db_conn_engine(db) == DB_ENGINE_POSTGRES)
		return store_dedup_rows_pg(db, library_id, fn, arg);
	/* SQLite: the statement of the keyset pages it ran before, all in one (no limit) */
	if (db_prepare(db, STORE_DEDUP_COLS("char") "AND s.id > ?2 ORDER BY s.id LIMIT ?3",
	    &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	db_bind_int64(st, 2, 0);
	db_bind_int64(st, 3, -1);
	while ((s = db_step(st)) == DB_ROW) {
		store_dedup_row(st, &r);
		if (fn(&r, arg) == -1) {
			db_finalize(st);
			return -1;
		}
	}
	if (s == DB_DONE)
		rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * The two statements are prepared once and run for every change (reset and bound anew).
 * Engine: the new embed_version is taken after store_library_numbers_lock.
 */
int
store_dedup_apply(struct db *db, const char *library_id, const struct store_dup_change *c,
    size_t n)
{
	struct db_stmt	*upd = NULL, *dele = NULL;
	size_t		 i, vectors = 0;
	int		 rc = -1;

	if (db_prepare(db, "UPDATE snippets SET dup_of = ?2 WHERE id = ?1", &upd) == -1 ||
	    db_prepare(db, "DELETE FROM embeddings WHERE snippet_id = ?1", &dele) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		db_reset(upd);
		db_bind_int64(upd, 1, c[i].id);
		if (c[i].new_dup != 0)
			db_bind_int64(upd, 2, c[i].new_dup);
		else
			db_bind_null(upd, 2);
		if (db_step(upd) != DB_DONE)
			goto out;
		if (c[i].old_dup == 0) {
			db_reset(dele);
			db_bind_int64(dele, 1, c[i].id);
			if (db_step(dele) != DB_DONE)
				goto out;
			vectors += (size_t)db_changes(db);
		}
	}
	if (vectors > 0) {
		db_finalize(upd);
		upd = NULL;
		if (store_library_numbers_lock(db) == -1 ||
		    db_prepare(db, "UPDATE libraries SET embed_version = (SELECT "
		    "max(embed_version) + 1 FROM libraries) WHERE id = ?1", &upd) == -1)
			goto out;
		db_bind_text(upd, 1, library_id);
		if (db_step(upd) != DB_DONE)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(upd);
	db_finalize(dele);
	return rc;
}
