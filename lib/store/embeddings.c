/* store/embeddings.c: the rows of the embed step (store/embeddings.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/embeddings.h"
#include "store/conn.h"

/* Engine: reads the view library_snippets (a library's own and shown snippets). */
int
store_embed_todo(struct db *db, const char *library_id, long long after, const char *model,
    size_t limit, int (*fn)(const struct store_embed_row *, void *), void *arg)
{
	struct store_embed_row r;
	sqlite3_stmt	*q = NULL;
	int		 s = SQLITE_ERROR, rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT s.id, s.title, s.breadcrumb, s.text, "
	    "s.code FROM library_snippets s WHERE s.library_id = ?1 AND s.id > ?2 AND "
	    "s.dup_of IS NULL AND NOT "
	    "EXISTS (SELECT 1 FROM embeddings m WHERE m.snippet_id = s.id AND "
	    "m.model = ?3) ORDER BY s.id LIMIT ?4", -1, &q, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(q, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, after);
	sqlite3_bind_text(q, 3, model, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, (long long)limit);
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		r.id = sqlite3_column_int64(q, 0);
		r.title = db_column_text(q, 1);
		r.breadcrumb = db_column_text(q, 2);
		r.text = db_column_text(q, 3);
		r.code = db_column_text(q, 4);
		if (fn(&r, arg) == -1) {
			sqlite3_finalize(q);
			return -1;
		}
	}
	if (s == SQLITE_DONE)
		rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(q);
	return rc;
}

/* Engine: reads the view library_snippets. */
int
store_embed_missing(struct db *db, const char *library_id, const char *model, size_t *n)
{
	sqlite3_stmt	*q = NULL;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT count(*) FROM library_snippets s WHERE "
	    "s.library_id = ?1 AND s.dup_of IS NULL AND NOT EXISTS "
	    "(SELECT 1 FROM embeddings m WHERE m.snippet_id = s.id AND m.model = ?2)",
	    -1, &q, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(q, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, model, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW) {
		*n = (size_t)sqlite3_column_int64(q, 0);
		rc = 0;
	}
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(q);
	return rc;
}

/* Engine: ON CONFLICT DO NOTHING (an embeddings row that exists stays). */
int
store_embeddings_reuse(struct db *db, const char *model, struct store_embedding *v, size_t n)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO embeddings (snippet_id, model, hash) "
	    "SELECT ?1, model, hash FROM vectors WHERE model = ?2 AND hash = ?3 "
	    "ON CONFLICT DO NOTHING", -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, v[i].snippet_id);
		sqlite3_bind_text(st, 2, model, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, v[i].hash, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		v[i].reused = sqlite3_changes(db_lite(db)) > 0;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}

/* Engine: ON CONFLICT DO NOTHING and INSERT OR REPLACE (upserts). */
int
store_embeddings_put(struct db *db, const char *model, size_t dim,
    const struct store_embedding *v, size_t n)
{
	sqlite3_stmt	*sv = NULL, *se = NULL;
	size_t		 i;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO vectors (model, hash, dim, vector) "
	    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (model, hash) DO NOTHING", -1, &sv,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db_lite(db), "INSERT OR REPLACE INTO embeddings (snippet_id, "
	    "model, hash) VALUES (?1, ?2, ?3)", -1, &se, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		if (v[i].vector == NULL)
			continue;
		sqlite3_reset(sv);
		sqlite3_bind_text(sv, 1, model, -1, SQLITE_STATIC);
		sqlite3_bind_text(sv, 2, v[i].hash, -1, SQLITE_STATIC);
		sqlite3_bind_int64(sv, 3, (long long)dim);
		sqlite3_bind_blob(sv, 4, v[i].vector, (int)(dim * sizeof(float)),
		    SQLITE_STATIC);
		sqlite3_reset(se);
		sqlite3_bind_int64(se, 1, v[i].snippet_id);
		sqlite3_bind_text(se, 2, model, -1, SQLITE_STATIC);
		sqlite3_bind_text(se, 3, v[i].hash, -1, SQLITE_STATIC);
		if (sqlite3_step(sv) != SQLITE_DONE || sqlite3_step(se) != SQLITE_DONE)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(sv);
	sqlite3_finalize(se);
	return rc;
}

int
store_vectors_gc(struct db *db, size_t *deleted)
{
	int	 own = sqlite3_get_autocommit(db_lite(db)), rc = -1;

	*deleted = 0;
	if (own && db_begin(db) == -1)
		return -1;
	/*
	 * One scan of the (model, hash) index of vectors, not of the table, whose rows hold
	 * the vectors (30,000 of 1536 floats: 11 MB read instead of 250 MB, 10 ms instead of
	 * 60 ms warm), and a look-up in embeddings_hash per vector.
	 */
	if (db_run(db, "DELETE FROM vectors WHERE rowid IN (SELECT v.rowid FROM vectors v "
	    "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = v.model AND "
	    "e.hash = v.hash))", "") == -1)
		goto out;
	*deleted = (size_t)sqlite3_changes(db_lite(db));
	if (own && db_commit(db) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		if (own)
			db_rollback(db);
		*deleted = 0;
	}
	return rc;
}

/* Engine: reads the view library_snippets. */
int
store_vectors_load(struct db *db, const char *library_id, const char *model,
    int (*fn)(const struct store_vector_row *, void *), void *arg)
{
	static const char sql[] =
	    "SELECT e.snippet_id, s.document_id, s.tokens, v.dim, v.vector "
	    "FROM library_snippets s JOIN embeddings e ON e.snippet_id = s.id AND e.model = ?2 "
	    "JOIN vectors v ON v.model = e.model AND v.hash = e.hash "
	    "WHERE s.library_id = ?1 ORDER BY s.id";
	struct store_vector_row r;
	sqlite3_stmt	*st = NULL;
	int		 step = SQLITE_ERROR, rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, model, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		r.snippet_id = sqlite3_column_int64(st, 0);
		r.document_id = sqlite3_column_int64(st, 1);
		r.tokens = sqlite3_column_int(st, 2);
		r.dim = sqlite3_column_int64(st, 3);
		r.vector = sqlite3_column_blob(st, 4);
		r.bytes = (size_t)sqlite3_column_bytes(st, 4);
		if (fn(&r, arg) == -1) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (step == SQLITE_DONE)
		rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}
