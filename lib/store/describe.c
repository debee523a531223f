/* store/describe.c: the rows of the describe step (store/describe.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/conn.h"
#include "store/describe.h"

int
store_describe_todo(struct db *db, const char *library_id,
    int (*fn)(const struct store_describe_row *, void *), void *arg)
{
	struct store_describe_row r;
	sqlite3_stmt	*st = NULL;
	int		 s = SQLITE_ERROR, rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "WITH c AS (SELECT heading, count(*) AS n FROM "
	    "snippets WHERE library_id = ?1 AND dup_of IS NULL GROUP BY heading) "
	    "SELECT s.id, s.heading, d.title, s.breadcrumb, s.text, s.code, c.n "
	    "FROM snippets s JOIN documents d ON d.id = s.document_id "
	    "JOIN c ON c.heading = s.heading WHERE s.library_id = ?1 AND "
	    "s.described = 0 AND s.dup_of IS NULL AND s.code <> '[]' AND NOT EXISTS "
	    "(SELECT 1 FROM snippet_flags f WHERE f.snippet_id = s.id) ORDER BY s.id",
	    -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		r.id = sqlite3_column_int64(st, 0);
		r.heading = db_column_text(st, 1);
		r.page = db_column_text(st, 2);
		r.breadcrumb = db_column_text(st, 3);
		r.text = (const char *)sqlite3_column_text(st, 4);
		r.code = db_column_text(st, 5);
		r.repeated = sqlite3_column_int64(st, 6);
		if (fn(&r, arg) == -1) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (s == SQLITE_DONE)
		rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
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
	sqlite3_stmt	*st;
	int		 rc = -1, s;

	*title = *desc = NULL;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT title, description FROM snippet_descriptions "
	    "WHERE hash = ?1 AND model = ?2", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, model, -1, SQLITE_STATIC);
	if ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if ((*title = strdup(db_column_text(st, 0))) != NULL &&
		    (*desc = strdup(db_column_text(st, 1))) != NULL)
			rc = 1;
		else {
			log_err("%s: out of memory", __func__);
			free(*title);
			*title = NULL;
		}
	} else if (s == SQLITE_DONE)
		rc = 0;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}

/* Engine: INSERT OR REPLACE (an upsert on the key hash, model). */
int
store_describe_cache_put(struct db *db, const char *hash, const char *model,
    const char *title, const char *desc, const char *now)
{
	return db_run(db, "INSERT OR REPLACE INTO snippet_descriptions (hash, model, title, "
	    "description, created_at) VALUES (?1, ?2, ?3, ?4, ?5)", "ttttt", hash, model,
	    title, desc, now);
}

int
store_describe_apply(struct db *db, long long id, int set_title, const char *title,
    int set_text, const char *text, long long tokens)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "UPDATE snippets SET title = CASE WHEN ?2 THEN "
	    "?3 ELSE title END, text = CASE WHEN ?4 THEN ?5 ELSE text END, "
	    "tokens = tokens + ?6, described = 1 WHERE id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, set_title);
	sqlite3_bind_text(st, 3, title, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, set_text);
	sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, tokens);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	if (db_run(db, "DELETE FROM embeddings WHERE snippet_id = ?1", "I", id) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: snippet %lld: %s", __func__, id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}
