/* store/embeddings.c: the rows of the embed step (store/embeddings.h). */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/db.h"
#include "store/embeddings.h"
#include "store/stmt.h"

/*
 * The vectors of a library read at once on PostgreSQL, whose rows come whole at the first
 * step (a page of 1536 floats each is 1.5 MB as bytea, twice that as text on the wire).
 */
#define STORE_VECTORS_PAGE	256

/* Engine: reads the view library_snippets (a library's own and shown snippets). */
int
store_embed_todo(struct db *db, const char *library_id, long long after, const char *model,
    size_t limit, int (*fn)(const struct store_embed_row *, void *), void *arg)
{
	struct store_embed_row r;
	struct db_stmt	*q = NULL;
	int		 s = -1, rc = -1;

	if (db_prepare(db, "SELECT s.id, s.title, s.breadcrumb, s.text, "
	    "s.code FROM library_snippets s WHERE s.library_id = ?1 AND s.id > ?2 AND "
	    "s.dup_of IS NULL AND NOT "
	    "EXISTS (SELECT 1 FROM embeddings m WHERE m.snippet_id = s.id AND "
	    "m.model = ?3) ORDER BY s.id LIMIT ?4", &q) == -1)
		goto out;
	db_bind_text(q, 1, library_id);
	db_bind_int64(q, 2, after);
	db_bind_text(q, 3, model);
	db_bind_int64(q, 4, (long long)limit);
	while ((s = db_step(q)) == DB_ROW) {
		r.id = db_col_int64(q, 0);
		r.title = db_col_text(q, 1);
		r.breadcrumb = db_col_text(q, 2);
		r.text = db_col_text(q, 3);
		r.code = db_col_text(q, 4);
		if (fn(&r, arg) == -1) {
			db_finalize(q);
			return -1;
		}
	}
	if (s == DB_DONE)
		rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(q);
	return rc;
}

/* Engine: reads the view library_snippets. */
int
store_embed_missing(struct db *db, const char *library_id, const char *model, size_t *n)
{
	struct db_stmt	*q = NULL;
	int		 rc = -1;

	if (db_prepare(db, "SELECT count(*) FROM library_snippets s WHERE "
	    "s.library_id = ?1 AND s.dup_of IS NULL AND NOT EXISTS "
	    "(SELECT 1 FROM embeddings m WHERE m.snippet_id = s.id AND m.model = ?2)",
	    &q) == -1)
		goto out;
	db_bind_text(q, 1, library_id);
	db_bind_text(q, 2, model);
	if (db_step(q) == DB_ROW) {
		*n = (size_t)db_col_int64(q, 0);
		rc = 0;
	}
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(q);
	return rc;
}

/*
 * ON CONFLICT DO NOTHING: an embeddings row that exists stays. Engine: the CAST gives ?1
 * its type on PostgreSQL (a parameter in a SELECT list has none). On PostgreSQL a vector
 * that store_vectors_gc of another connection deletes meanwhile makes the foreign key
 * refuse the row (an error for the caller), never a row naming no vector.
 */
int
store_embeddings_reuse(struct db *db, const char *model, struct store_embedding *v, size_t n)
{
	struct db_stmt	*st = NULL;
	size_t		 i;
	int		 rc = -1;

	if (db_prepare(db, "INSERT INTO embeddings (snippet_id, model, hash) "
	    "SELECT CAST(?1 AS bigint), model, hash FROM vectors WHERE model = ?2 AND "
	    "hash = ?3 ON CONFLICT DO NOTHING", &st) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		db_reset(st);
		db_bind_int64(st, 1, v[i].snippet_id);
		db_bind_text(st, 2, model);
		db_bind_text(st, 3, v[i].hash);
		if (db_step(st) != DB_DONE)
			goto out;
		v[i].reused = db_changes(db) > 0;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * Upserts, one text for both engines: a vector once per (model, hash), and the snippet's
 * embeddings row on its key (snippet_id, model) (SQLite's INSERT OR REPLACE before).
 */
int
store_embeddings_put(struct db *db, const char *model, size_t dim,
    const struct store_embedding *v, size_t n)
{
	struct db_stmt	*sv = NULL, *se = NULL;
	size_t		 i;
	int		 rc = -1;

	if (db_prepare(db, "INSERT INTO vectors (model, hash, dim, vector) "
	    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (model, hash) DO NOTHING", &sv) == -1 ||
	    db_prepare(db, "INSERT INTO embeddings (snippet_id, model, hash) VALUES (?1, ?2, "
	    "?3) ON CONFLICT (snippet_id, model) DO UPDATE SET hash = excluded.hash",
	    &se) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		if (v[i].vector == NULL)
			continue;
		db_reset(sv);
		db_bind_text(sv, 1, model);
		db_bind_text(sv, 2, v[i].hash);
		db_bind_int64(sv, 3, (long long)dim);
		db_bind_blob(sv, 4, v[i].vector, dim * sizeof(float));
		db_reset(se);
		db_bind_int64(se, 1, v[i].snippet_id);
		db_bind_text(se, 2, model);
		db_bind_text(se, 3, v[i].hash);
		if (db_step(sv) != DB_DONE || db_step(se) != DB_DONE)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(sv);
	db_finalize(se);
	return rc;
}

/* 1 when a vector is named by no embeddings row, 0 when none is, -1 on errors. */
static int
store_vectors_unnamed(struct db *db)
{
	struct db_stmt	*st = NULL;
	int		 rc = -1;

	if (db_prepare(db, "SELECT EXISTS (SELECT 1 FROM vectors v WHERE NOT "
	    "EXISTS (SELECT 1 FROM embeddings e WHERE e.model = v.model AND e.hash = "
	    "v.hash))", &st) == 0 && db_step(st) == DB_ROW)
		rc = db_col_int64(st, 0) != 0;
	else
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * Engine: SQLite deletes by rowid from a scan of the (model, hash) index; PostgreSQL's
 * vectors have no rowid (an anti-join on the key). On PostgreSQL another connection's
 * embeddings row not yet committed that names a vector holds a lock on it (its foreign
 * key): the DELETE waits for it (lock_timeout, then busy) and cannot leave that row
 * naming nothing.
 */
int
store_vectors_gc(struct db *db, size_t *deleted)
{
	int	 own = !db_in_transaction(db), rc = -1;

	*deleted = 0;
	/*
	 * On its own, nothing to delete takes no write lock (every index job ends here,
	 * embedder configured or not, and would wait for another job's write): a vector
	 * left unnamed meanwhile is deleted by the gc of the job that left it.
	 */
	if (own && (rc = store_vectors_unnamed(db)) != 1)
		return rc;
	rc = -1;
	if (own && db_begin(db) == -1)
		return -1;
	/*
	 * One scan of the (model, hash) index of vectors, not of the table, whose rows hold
	 * the vectors (30,000 of 1536 floats: 11 MB read instead of 250 MB, 10 ms instead of
	 * 60 ms warm), and a look-up in embeddings_hash per vector. (db_stmt_run: it takes
	 * a DB_PAIR's half on either engine.)
	 */
	if (db_stmt_run(db, DB_PAIR("DELETE FROM vectors WHERE rowid IN (SELECT v.rowid FROM "
	    "vectors v WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = v.model "
	    "AND e.hash = v.hash))",
	    "DELETE FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE "
	    "e.model = v.model AND e.hash = v.hash)"), "") == -1)
		goto out;
	*deleted = (size_t)db_changes(db);
	if (own && db_commit(db) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		if (own)
			db_rollback(db);
		*deleted = 0;
	}
	return rc;
}

/* The rows of store_vectors_load; page: the keyset condition of the PostgreSQL half. */
#define STORE_VECTORS_SQL(page) \
    "SELECT e.snippet_id, s.document_id, s.tokens, v.dim, v.vector " \
    "FROM library_snippets s JOIN embeddings e ON e.snippet_id = s.id AND e.model = ?2 " \
    "JOIN vectors v ON v.model = e.model AND v.hash = e.hash " \
    "WHERE s.library_id = ?1" page " ORDER BY s.id"

/*
 * Engine: reads the view library_snippets. PostgreSQL reads the rows in pages of
 * STORE_VECTORS_PAGE (keyset: the snippet ids above the last one, ?3 and ?4 of its half),
 * in one snapshot (a read transaction of their own unless the caller holds one); SQLite
 * in one statement as ever, the rows streamed (its half without the LIMIT, which would
 * make SQLite sort in a B-tree instead of its sorter).
 */
int
store_vectors_load(struct db *db, const char *library_id, const char *model,
    int (*fn)(const struct store_vector_row *, void *), void *arg)
{
	static const char sql[] = DB_PAIR(STORE_VECTORS_SQL(""),
	    STORE_VECTORS_SQL(" AND s.id > ?3") " LIMIT ?4");
	struct store_vector_row r;
	struct db_stmt	*st = NULL;
	long long	 after = LLONG_MIN, page, got;
	int		 step = -1, rc = -1, own = 0;

	page = db_conn_engine(db) == DB_ENGINE_POSTGRES ? STORE_VECTORS_PAGE : -1;
	if (page > 0 && !db_in_transaction(db)) {
		if (db_begin_read(db) == -1)
			goto out;
		own = 1;
	}
	if (db_prepare(db, sql, &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	db_bind_text(st, 2, model);
	if (page > 0)
		db_bind_int64(st, 4, page);
	do {
		db_reset(st);
		if (page > 0)
			db_bind_int64(st, 3, after);
		got = 0;
		while ((step = db_step(st)) == DB_ROW) {
			got++;
			r.snippet_id = after = db_col_int64(st, 0);
			r.document_id = db_col_int64(st, 1);
			r.tokens = (int)db_col_int64(st, 2);
			r.dim = db_col_int64(st, 3);
			r.vector = db_col_blob(st, 4, &r.bytes);
			if (fn(&r, arg) == -1) {
				db_finalize(st);
				if (own)
					db_rollback(db);
				return -1;
			}
		}
	} while (step == DB_DONE && page > 0 && got == page);
	if (step == DB_DONE && (!own || db_commit(db) == 0)) {
		own = 0;
		rc = 0;
	}
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(st);
	if (own)
		db_rollback(db);
	return rc;
}
