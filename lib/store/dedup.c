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
 * The rows of store_dedup_rows a statement returns at most on PostgreSQL, which fetches
 * them whole at the first step: a library's snippets are read in pages by id (keyset).
 * SQLite streams its rows: one statement reads them all.
 */
#define STORE_DEDUP_PAGE	2000

/*
 * Engine: reads the view library_snippets (a library's own and shown snippets); chr(31)
 * is SQLite's char(31); the flag as an integer (a comparison is a boolean on PostgreSQL).
 * ?2: the last id read, ?3: the page (-1 on SQLite: no limit).
 */
#define STORE_DEDUP_ROWS(chr)							\
	"SELECT s.id, s.ord, s.hash, s.sig, coalesce(s.dup_of, 0), d.path, d.title || "	\
	chr "(31) || s.breadcrumb || " chr "(31) || s.heading, s.owner_document_id, CASE "	\
	"WHEN s.owner_id = ?1 THEN 1 ELSE 0 END FROM library_snippets s JOIN documents d "	\
	"ON d.id = s.document_id WHERE s.library_id = ?1 AND s.id > ?2 ORDER BY s.id "	\
	"LIMIT ?3"

int
store_dedup_rows(struct db *db, const char *library_id,
    int (*fn)(const struct store_dedup_row *, void *), void *arg)
{
	struct store_dedup_row r;
	struct db_stmt	*st = NULL;
	long long	 last = 0, page, rows;
	int		 s = -1, rc = -1;

	page = db_conn_engine(db) == DB_ENGINE_POSTGRES ? STORE_DEDUP_PAGE : -1;
	if (db_prepare(db, DB_PAIR(STORE_DEDUP_ROWS("char"), STORE_DEDUP_ROWS("chr")),
	    &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	db_bind_int64(st, 3, page);
	do {
		db_reset(st);
		db_bind_int64(st, 2, last);
		rows = 0;
		while ((s = db_step(st)) == DB_ROW) {
			r.id = last = db_col_int64(st, 0);
			r.ord = (long)db_col_int64(st, 1);
			r.hash = db_col_text(st, 2);
			r.has_sig = !db_col_null(st, 3);
			r.sig = db_col_int64(st, 3);
			r.dup_of = db_col_int64(st, 4);
			r.path = db_col_text(st, 5);
			r.trail = db_col_text(st, 6);
			r.owner_doc = db_col_int64(st, 7);
			r.owned = (int)db_col_int64(st, 8);
			rows++;
			if (fn(&r, arg) == -1) {
				db_finalize(st);
				return -1;
			}
		}
	} while (s == DB_DONE && rows == page);
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
