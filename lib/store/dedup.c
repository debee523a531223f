/* store/dedup.c: the rows a dedup pass reads and writes (store/dedup.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/conn.h"
#include "store/dedup.h"

/* Engine: reads the view library_snippets (a library's own and shown snippets). */
int
store_dedup_rows(struct db *db, const char *library_id,
    int (*fn)(const struct store_dedup_row *, void *), void *arg)
{
	struct store_dedup_row r;
	sqlite3_stmt	*st = NULL;
	int		 s = SQLITE_ERROR, rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT s.id, s.ord, s.hash, s.sig, "
	    "coalesce(s.dup_of, 0), d.path, d.title || char(31) || s.breadcrumb || "
	    "char(31) || s.heading, s.owner_document_id, s.owner_id = ?1 FROM "
	    "library_snippets s JOIN documents d ON d.id = s.document_id WHERE "
	    "s.library_id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		r.id = sqlite3_column_int64(st, 0);
		r.ord = (long)sqlite3_column_int64(st, 1);
		r.hash = db_column_text(st, 2);
		r.has_sig = sqlite3_column_type(st, 3) != SQLITE_NULL;
		r.sig = sqlite3_column_int64(st, 3);
		r.dup_of = sqlite3_column_int64(st, 4);
		r.path = db_column_text(st, 5);
		r.trail = db_column_text(st, 6);
		r.owner_doc = sqlite3_column_int64(st, 7);
		r.owned = sqlite3_column_int(st, 8);
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
store_dedup_apply(struct db *db, const char *library_id, const struct store_dup_change *c,
    size_t n)
{
	sqlite3_stmt	*upd = NULL, *dele = NULL;
	size_t		 i, vectors = 0;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "UPDATE snippets SET dup_of = ?2 WHERE id = ?1",
	    -1, &upd, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db_lite(db), "DELETE FROM embeddings WHERE snippet_id = ?1", -1,
	    &dele, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		sqlite3_reset(upd);
		sqlite3_bind_int64(upd, 1, c[i].id);
		if (c[i].new_dup != 0)
			sqlite3_bind_int64(upd, 2, c[i].new_dup);
		else
			sqlite3_bind_null(upd, 2);
		if (sqlite3_step(upd) != SQLITE_DONE)
			goto out;
		if (c[i].old_dup == 0) {
			sqlite3_reset(dele);
			sqlite3_bind_int64(dele, 1, c[i].id);
			if (sqlite3_step(dele) != SQLITE_DONE)
				goto out;
			vectors += (size_t)sqlite3_changes(db_lite(db));
		}
	}
	if (vectors > 0) {
		sqlite3_finalize(upd);
		if (sqlite3_prepare_v2(db_lite(db), "UPDATE libraries SET embed_version = (SELECT "
		    "max(embed_version) + 1 FROM libraries) WHERE id = ?1", -1, &upd,
		    NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_text(upd, 1, library_id, -1, SQLITE_STATIC);
		if (sqlite3_step(upd) != SQLITE_DONE)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(upd);
	sqlite3_finalize(dele);
	return rc;
}
