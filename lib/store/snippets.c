/* store/snippets.c: the documents and snippets rows of an index run (store/snippets.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/conn.h"
#include "store/snippets.h"

struct store_reader {
	struct db		*db;
	sqlite3_stmt	*blob, *reuse;
};

struct store_reader *
store_reader_open(struct db *db)
{
	struct store_reader *rd;

	if ((rd = calloc(1, sizeof(*rd))) == NULL) {
		log_err("%s: out of memory", __func__);
		return NULL;
	}
	rd->db = db;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT blob FROM documents WHERE library_id = ?1 AND "
	    "path = ?2", -1, &rd->blob, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db_lite(db), "SELECT d.id FROM documents d JOIN libraries l ON l.id = "
	    "d.library_id WHERE d.path = ?2 AND d.blob = ?3 AND l.id <> ?1 AND (l.id = ?4 OR "
	    "l.version_of = ?4) AND l.indexed_commit IS NOT NULL AND l.state <> 'delete' "
	    "ORDER BY EXISTS (SELECT 1 FROM snippets s WHERE s.document_id = d.shows AND "
	    "s.dup_of IS NOT NULL) LIMIT 1", -1, &rd->reuse, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		store_reader_close(rd);
		return NULL;
	}
	return rd;
}

void
store_reader_close(struct store_reader *rd)
{
	if (rd == NULL)
		return;
	sqlite3_finalize(rd->blob);
	sqlite3_finalize(rd->reuse);
	free(rd);
}

int
store_reader_blob(struct store_reader *rd, const char *library_id, const char *path,
    char *hash, size_t hashsz)
{
	const char	*b;
	int		 step, rc = 0;

	*hash = '\0';
	sqlite3_reset(rd->blob);
	sqlite3_bind_text(rd->blob, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(rd->blob, 2, path, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(rd->blob)) == SQLITE_ROW &&
	    (b = (const char *)sqlite3_column_text(rd->blob, 0)) != NULL &&
	    strlen(b) < hashsz) {
		memcpy(hash, b, strlen(b) + 1);
		rc = 1;
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(rd->db)));
		rc = -1;
	}
	sqlite3_reset(rd->blob);
	return rc;
}

long long
store_reader_reusable(struct store_reader *rd, const char *library_id, const char *path,
    const char *hash, const char *family)
{
	long long	 id = 0;

	sqlite3_reset(rd->reuse);
	sqlite3_bind_text(rd->reuse, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(rd->reuse, 2, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(rd->reuse, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(rd->reuse, 4, family, -1, SQLITE_STATIC);
	if (sqlite3_step(rd->reuse) == SQLITE_ROW)
		id = sqlite3_column_int64(rd->reuse, 0);
	sqlite3_reset(rd->reuse);
	return id;
}

/*
 * The statements of store_documents_delete: [0] those but the paths kept (?2), [1] all.
 * Engine: json_each reads the JSON array of paths kept.
 */
static const char *const store_documents_delete_sql[2] = {
	"DELETE FROM documents WHERE library_id = ?1 AND path NOT IN "
	"(SELECT value FROM json_each(?2))",
	"DELETE FROM documents WHERE library_id = ?1",
};

int
store_documents_delete(struct db *db, const char *library_id, const char *keep_json)
{
	return db_run(db, store_documents_delete_sql[keep_json == NULL], "tt", library_id,
	    keep_json);
}

int
store_document_show(struct db *db, const char *library_id, long long from)
{
	return db_run(db, "INSERT INTO documents (library_id, path, blob, title, url, "
	    "etag, modified, snippets_from) SELECT ?1, path, blob, title, url, etag, "
	    "modified, shows FROM documents WHERE id = ?2", "tI", library_id, from);
}

int
store_document_validators(struct db *db, const char *library_id, const char *path,
    const char *etag, const char *modified)
{
	return db_run(db, "UPDATE documents SET etag = coalesce(?3, etag), modified = "
	    "coalesce(?4, modified) WHERE library_id = ?1 AND path = ?2 AND (etag IS NOT "
	    "coalesce(?3, etag) OR modified IS NOT coalesce(?4, modified))", "tttt",
	    library_id, path, etag, modified);
}

struct store_writer {
	struct db		*db;
	const char	*library_id;
	sqlite3_stmt	*doc, *sn;
};

struct store_writer *
store_writer_open(struct db *db, const char *library_id)
{
	struct store_writer *w;

	if ((w = calloc(1, sizeof(*w))) == NULL) {
		log_err("%s: out of memory", __func__);
		return NULL;
	}
	w->db = db;
	w->library_id = library_id;
	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO documents (library_id, path, "
	    "blob, title, url, etag, modified) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1,
	    &w->doc, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db_lite(db), "INSERT INTO snippets (library_id, "
	    "document_id, ord, title, breadcrumb, anchor, text, code, tokens, hash, "
	    "sig, heading) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?4)",
	    -1, &w->sn, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		store_writer_close(w);
		return NULL;
	}
	return w;
}

void
store_writer_close(struct store_writer *w)
{
	if (w == NULL)
		return;
	sqlite3_finalize(w->doc);
	sqlite3_finalize(w->sn);
	free(w);
}

int
store_writer_document(struct store_writer *w, const struct store_document_values *v,
    long long *id)
{
	sqlite3_reset(w->doc);
	sqlite3_bind_text(w->doc, 1, w->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->doc, 2, v->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->doc, 3, v->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->doc, 4, v->title, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->doc, 5, v->url, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->doc, 6, v->etag, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->doc, 7, v->modified, -1, SQLITE_STATIC);
	if (sqlite3_step(w->doc) != SQLITE_DONE) {
		log_err("%s: %s: %s", __func__, v->path, sqlite3_errmsg(db_lite(w->db)));
		return -1;
	}
	*id = sqlite3_last_insert_rowid(db_lite(w->db));
	return 0;
}

int
store_writer_snippet(struct store_writer *w, const struct store_snippet_values *v,
    long long *id)
{
	sqlite3_reset(w->sn);
	sqlite3_bind_text(w->sn, 1, w->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(w->sn, 2, v->document_id);
	sqlite3_bind_int64(w->sn, 3, v->ord);
	sqlite3_bind_text(w->sn, 4, v->title, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->sn, 5, v->breadcrumb, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->sn, 6, v->anchor, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->sn, 7, v->text, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->sn, 8, v->code, -1, SQLITE_STATIC);
	sqlite3_bind_int(w->sn, 9, v->tokens);
	sqlite3_bind_text(w->sn, 10, v->hash, -1, SQLITE_STATIC);
	if (v->has_sig)
		sqlite3_bind_int64(w->sn, 11, v->sig);
	else
		sqlite3_bind_null(w->sn, 11);
	if (sqlite3_step(w->sn) != SQLITE_DONE)
		goto err;
	*id = sqlite3_last_insert_rowid(db_lite(w->db));
	return 0;
err:
	log_err("%s: %s: %s", __func__, v->path, sqlite3_errmsg(db_lite(w->db)));
	return -1;
}
