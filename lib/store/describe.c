/* store/describe.c: the rows of the describe step (store/describe.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/db.h"
#include "store/describe.h"
#include "store/stmt.h"

/*
 * The rows of store_describe_todo a statement returns at most on PostgreSQL, which
 * fetches them whole at the first step: a library's snippets are read in pages by id
 * (keyset). SQLite streams its rows: one statement reads them all.
 */
#define STORE_DESCRIBE_PAGE	1000

/* ?2: the last id read, ?3: the page (-1 on SQLite: no limit). */
int
store_describe_todo(struct db *db, const char *library_id,
    int (*fn)(const struct store_describe_row *, void *), void *arg)
{
	struct store_describe_row r;
	struct db_stmt	*st = NULL;
	long long	 last = 0, page, rows;
	int		 s = -1, rc = -1;

	page = db_conn_engine(db) == DB_ENGINE_POSTGRES ? STORE_DESCRIBE_PAGE : -1;
	if (db_prepare(db, "WITH c AS (SELECT heading, count(*) AS n FROM snippets WHERE "
	    "library_id = ?1 AND dup_of IS NULL GROUP BY heading) "
	    "SELECT s.id, s.heading, d.title, s.breadcrumb, s.text, s.code, c.n "
	    "FROM snippets s JOIN documents d ON d.id = s.document_id "
	    "JOIN c ON c.heading = s.heading WHERE s.library_id = ?1 AND s.id > ?2 AND "
	    "s.described = 0 AND s.dup_of IS NULL AND s.code <> '[]' AND NOT EXISTS "
	    "(SELECT 1 FROM snippet_flags f WHERE f.snippet_id = s.id) ORDER BY s.id "
	    "LIMIT ?3", &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	db_bind_int64(st, 3, page);
	do {
		db_reset(st);
		db_bind_int64(st, 2, last);
		rows = 0;
		while ((s = db_step(st)) == DB_ROW) {
			r.id = last = db_col_int64(st, 0);
			r.heading = db_col_text(st, 1);
			r.page = db_col_text(st, 2);
			r.breadcrumb = db_col_text(st, 3);
			r.text = db_col_null(st, 4) ? NULL : db_col_text(st, 4);
			r.code = db_col_text(st, 5);
			r.repeated = db_col_int64(st, 6);
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

int
store_describe_mark(struct db *db, long long id)
{
	return db_run(db, "UPDATE snippets SET described = 1 WHERE id = ?1", "I", id);
}

int
store_describe_cached(struct db *db, const char *hash, const char *model, char **title,
    char **desc)
{
	struct db_stmt	*st;
	int		 rc = -1, s;

	*title = *desc = NULL;
	if (db_prepare(db, "SELECT title, description FROM snippet_descriptions WHERE hash = "
	    "?1 AND model = ?2", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, hash);
	db_bind_text(st, 2, model);
	if ((s = db_step(st)) == DB_ROW) {
		if ((*title = strdup(db_col_text(st, 0))) != NULL &&
		    (*desc = strdup(db_col_text(st, 1))) != NULL)
			rc = 1;
		else {
			log_err("%s: out of memory", __func__);
			free(*title);
			*title = NULL;
		}
	} else if (s == DB_DONE)
		rc = 0;
	else
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * Engine: an upsert on the key (hash, model), one text on both (SQLite 3.24+), where
 * SQLite's INSERT OR REPLACE has no PostgreSQL twin.
 */
int
store_describe_cache_put(struct db *db, const char *hash, const char *model,
    const char *title, const char *desc, const char *now)
{
	return db_run(db, "INSERT INTO snippet_descriptions (hash, model, title, description, "
	    "created_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (hash, model) DO UPDATE SET "
	    "title = excluded.title, description = excluded.description, created_at = "
	    "excluded.created_at", "ttttt", hash, model, title, desc, now);
}

/* Engine: the flags compared with 0 (CASE WHEN needs a boolean on PostgreSQL). */
int
store_describe_apply(struct db *db, long long id, int set_title, const char *title,
    int set_text, const char *text, long long tokens)
{
	struct db_stmt	*st = NULL;
	int		 rc = -1;

	if (db_prepare(db, "UPDATE snippets SET title = CASE WHEN CAST(?2 AS bigint) <> 0 "
	    "THEN CAST(?3 AS text) ELSE title END, text = CASE WHEN CAST(?4 AS bigint) <> 0 "
	    "THEN CAST(?5 AS text) ELSE text END, tokens = tokens + ?6, described = 1 WHERE "
	    "id = ?1", &st) == -1)
		goto out;
	db_bind_int64(st, 1, id);
	db_bind_int64(st, 2, set_title);
	db_bind_text(st, 3, title);
	db_bind_int64(st, 4, set_text);
	db_bind_text(st, 5, text);
	db_bind_int64(st, 6, tokens);
	if (db_step(st) != DB_DONE)
		goto out;
	if (db_run(db, "DELETE FROM embeddings WHERE snippet_id = ?1", "I", id) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: snippet %lld: %s", __func__, id, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}
