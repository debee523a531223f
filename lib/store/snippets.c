/* store/snippets.c: the documents and snippets rows of an index run (store/snippets.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/log.h"
#include "store/db.h"
#include "store/snippets.h"
#include "store/stmt.h"

struct store_reader {
	struct db	*db;
	struct db_stmt	*blob, *reuse;
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
	if (db_prepare(db, "SELECT blob FROM documents WHERE library_id = ?1 AND path = ?2",
	    &rd->blob) == -1 ||
	    db_prepare(db, "SELECT d.id FROM documents d JOIN libraries l ON l.id = "
	    "d.library_id WHERE d.path = ?2 AND d.blob = ?3 AND l.id <> ?1 AND (l.id = ?4 OR "
	    "l.version_of = ?4) AND l.indexed_commit IS NOT NULL AND l.state <> 'delete' "
	    "ORDER BY EXISTS (SELECT 1 FROM snippets s WHERE s.document_id = d.shows AND "
	    "s.dup_of IS NOT NULL) LIMIT 1", &rd->reuse) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
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
	db_finalize(rd->blob);
	db_finalize(rd->reuse);
	free(rd);
}

int
store_reader_blob(struct store_reader *rd, const char *library_id, const char *path,
    char *hash, size_t hashsz)
{
	const char	*b;
	int		 step, rc = 0;

	*hash = '\0';
	db_reset(rd->blob);
	db_bind_text(rd->blob, 1, library_id);
	db_bind_text(rd->blob, 2, path);
	if ((step = db_step(rd->blob)) == DB_ROW && !db_col_null(rd->blob, 0) &&
	    strlen(b = db_col_text(rd->blob, 0)) < hashsz) {
		memcpy(hash, b, strlen(b) + 1);
		rc = 1;
	}
	if (step != DB_ROW && step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(rd->db));
		rc = -1;
	}
	db_reset(rd->blob);
	return rc;
}

long long
store_reader_reusable(struct store_reader *rd, const char *library_id, const char *path,
    const char *hash, const char *family)
{
	long long	 id = 0;

	db_reset(rd->reuse);
	db_bind_text(rd->reuse, 1, library_id);
	db_bind_text(rd->reuse, 2, path);
	db_bind_text(rd->reuse, 3, hash);
	db_bind_text(rd->reuse, 4, family);
	if (db_step(rd->reuse) == DB_ROW)
		id = db_col_int64(rd->reuse, 0);
	db_reset(rd->reuse);
	return id;
}

/*
 * The statements of store_documents_delete: [0] those but the paths kept (?2), [1] all.
 * The DB_PAIR statements of this file run through db_stmt_run, which picks the engine's
 * half (db_run hands SQLite the text as it is).
 * Engine: json_each reads the JSON array of paths kept (json_array_elements_text on
 * PostgreSQL).
 */
static const char *const store_documents_delete_sql[2] = {
	DB_PAIR("DELETE FROM documents WHERE library_id = ?1 AND path NOT IN "
	    "(SELECT value FROM json_each(?2))",
	    "DELETE FROM documents WHERE library_id = ?1 AND path NOT IN "
	    "(SELECT value FROM json_array_elements_text(CAST(?2 AS json)))"),
	"DELETE FROM documents WHERE library_id = ?1",
};

int
store_documents_delete(struct db *db, const char *library_id, const char *keep_json)
{
	return db_stmt_run(db, store_documents_delete_sql[keep_json == NULL], "tt",
	    library_id, keep_json);
}

/*
 * Engine: on PostgreSQL the document copied is locked (FOR KEY SHARE, as the foreign key
 * check of snippets_from would) while it is read: a transaction deleting it meanwhile
 * (SQLite's one writer rules that out) is waited for, and then the document is gone and
 * nothing is inserted, as on SQLite, instead of a foreign key error.
 */
int
store_document_show(struct db *db, const char *library_id, long long from)
{
	return db_stmt_run(db, DB_PAIR("INSERT INTO documents (library_id, path, blob, title, "
	    "url, "
	    "etag, modified, snippets_from) SELECT ?1, path, blob, title, url, etag, "
	    "modified, shows FROM documents WHERE id = ?2",
	    "INSERT INTO documents (library_id, path, blob, title, url, etag, modified, "
	    "snippets_from) SELECT CAST(?1 AS text), path, blob, title, url, etag, modified, "
	    "shows FROM documents WHERE id = ?2 FOR KEY SHARE"), "tI", library_id, from);
}

/* Engine: IS NOT (SQLite) is IS DISTINCT FROM (PostgreSQL): NULLs compare as values. */
int
store_document_validators(struct db *db, const char *library_id, const char *path,
    const char *etag, const char *modified)
{
	return db_stmt_run(db, DB_PAIR("UPDATE documents SET etag = coalesce(?3, etag), "
	    "modified = "
	    "coalesce(?4, modified) WHERE library_id = ?1 AND path = ?2 AND (etag IS NOT "
	    "coalesce(?3, etag) OR modified IS NOT coalesce(?4, modified))",
	    "UPDATE documents SET etag = coalesce(CAST(?3 AS text), etag), modified = "
	    "coalesce(CAST(?4 AS text), modified) WHERE library_id = ?1 AND path = ?2 AND "
	    "(etag IS DISTINCT FROM coalesce(CAST(?3 AS text), etag) OR modified IS "
	    "DISTINCT FROM coalesce(CAST(?4 AS text), modified))"), "tttt", library_id, path,
	    etag, modified);
}

/*
 * The bounds of a batch of snippets on PostgreSQL (store_writer_snippet): rows, and bytes
 * of their text columns (the JSON sent is a little larger). A row larger than the bytes
 * is a batch of its own.
 */
#define STORE_BATCH_ROWS	256
#define STORE_BATCH_BYTES	(1024 * 1024)

struct store_writer {
	struct db	*db;
	const char	*library_id;
	struct db_stmt	*doc, *sn;
	/* PostgreSQL: the snippets waiting to be written in one statement (batch) */
	struct db_stmt	*batch;
	json_object	*rows;		/* a JSON array, one object a snippet */
	size_t		 nrows, bytes;
	char		*first;		/* the path of the batch's first row (for the log) */
};

/*
 * The two statements are prepared once and run for every row (reset and bound anew): a
 * run writes up to hundreds of thousands of snippets.
 * Engine: RETURNING id (SQLite 3.35+ and PostgreSQL) gives the new row's id. On
 * PostgreSQL, where each statement is a round trip to the server, the snippets whose id
 * the caller does not need wait in a batch written by one INSERT ... SELECT from the
 * JSON array of its rows (json_to_recordset; ORDER BY i keeps the order of the calls, so
 * the ids are given in the same order as one INSERT a row would give them).
 */
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
	if (db_prepare(db, "INSERT INTO documents (library_id, path, blob, title, url, etag, "
	    "modified) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id", &w->doc) == -1 ||
	    db_prepare(db, "INSERT INTO snippets (library_id, document_id, ord, title, "
	    "breadcrumb, anchor, text, code, tokens, hash, sig, heading) VALUES (?1, ?2, ?3, "
	    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?4) RETURNING id", &w->sn) == -1 ||
	    (db_conn_engine(db) == DB_ENGINE_POSTGRES && db_prepare(db, "INSERT INTO "
	    "snippets (library_id, document_id, ord, title, breadcrumb, anchor, text, code, "
	    "tokens, hash, sig, heading) SELECT CAST(?1 AS text), r.d, r.o, r.t, r.b, r.a, "
	    "r.x, r.c, r.k, r.h, r.s, r.t FROM json_to_recordset(CAST(?2 AS json)) AS r(i "
	    "bigint, d bigint, o bigint, t text, b text, a text, x text, c text, k bigint, "
	    "h text, s bigint) ORDER BY r.i RETURNING id", &w->batch) == -1)) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		store_writer_close(w);
		return NULL;
	}
	return w;
}

/* Forgets the snippets of the batch (written or not). */
static void
store_writer_forget(struct store_writer *w)
{
	json_object_put(w->rows);
	w->rows = NULL;
	w->nrows = w->bytes = 0;
	free(w->first);
	w->first = NULL;
}

void
store_writer_close(struct store_writer *w)
{
	if (w == NULL)
		return;
	db_finalize(w->doc);
	db_finalize(w->sn);
	db_finalize(w->batch);
	store_writer_forget(w);
	free(w);
}

/*
 * Writes the batch's snippets with one statement: the id of its last into *last (when not
 * NULL), 0; or -1 (logged) when the statement failed: then none of them is written (one
 * statement), and the caller's transaction is to be rolled back as after any failed write.
 */
static int
store_writer_batch(struct store_writer *w, const char *path, long long *last)
{
	long long	 id, max = 0;
	size_t		 n = 0;
	int		 step, rc = -1;

	if (w->nrows == 0)
		return 0;
	db_reset(w->batch);
	db_bind_text(w->batch, 1, w->library_id);
	db_bind_text(w->batch, 2, json_object_to_json_string_ext(w->rows,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	while ((step = db_step(w->batch)) == DB_ROW) {
		id = db_col_int64(w->batch, 0);
		if (id > max)
			max = id;
		n++;
	}
	if (step != DB_DONE)
		log_err("%s: a batch of %zu snippets (files %s to %s): %s", __func__,
		    w->nrows, w->first, path, db_conn_errmsg(w->db));
	else if (n != w->nrows)
		log_err("%s: a batch of %zu snippets (files %s to %s): %zu written",
		    __func__, w->nrows, w->first, path, n);
	else
		rc = 0;
	db_reset(w->batch);
	if (rc == 0 && last != NULL)
		*last = max;
	store_writer_forget(w);
	return rc;
}

int
store_writer_flush(struct store_writer *w)
{
	return w->batch == NULL ? 0 : store_writer_batch(w, "the last", NULL);
}

/* A text of a batch's row: its JSON string (NULL: JSON null), its length added to w->bytes. */
static json_object *
store_writer_text(struct store_writer *w, const char *s)
{
	if (s == NULL)
		return NULL;
	w->bytes += strlen(s);
	return json_object_new_string(s);
}

/*
 * PostgreSQL: adds v to the batch; writes the batch when the caller wants the new id
 * (id not NULL) or when it reached its bounds. 0, or -1 (logged).
 */
static int
store_writer_queue(struct store_writer *w, const struct store_snippet_values *v,
    long long *id)
{
	json_object	*o;

	if ((w->rows == NULL && (w->rows = json_object_new_array()) == NULL) ||
	    (w->first == NULL && (w->first = strdup(v->path ? v->path : "")) == NULL) ||
	    (o = json_object_new_object()) == NULL) {
		log_err("%s: out of memory", __func__);
		store_writer_forget(w);
		return -1;
	}
	json_object_object_add(o, "i", json_object_new_int64((int64_t)w->nrows));
	json_object_object_add(o, "d", json_object_new_int64(v->document_id));
	json_object_object_add(o, "o", json_object_new_int64(v->ord));
	json_object_object_add(o, "t", store_writer_text(w, v->title));
	json_object_object_add(o, "b", store_writer_text(w, v->breadcrumb));
	json_object_object_add(o, "a", store_writer_text(w, v->anchor));
	json_object_object_add(o, "x", store_writer_text(w, v->text));
	json_object_object_add(o, "c", store_writer_text(w, v->code));
	json_object_object_add(o, "k", json_object_new_int64(v->tokens));
	json_object_object_add(o, "h", store_writer_text(w, v->hash));
	json_object_object_add(o, "s", v->has_sig ? json_object_new_int64(v->sig) : NULL);
	json_object_array_add(w->rows, o);
	w->nrows++;
	if (id != NULL || w->nrows >= STORE_BATCH_ROWS || w->bytes >= STORE_BATCH_BYTES)
		return store_writer_batch(w, v->path ? v->path : "", id);
	return 0;
}

/* Steps the INSERT ... RETURNING id st to its end: its id into *id (if not NULL), 0; or -1. */
static int
store_writer_insert(struct db_stmt *st, long long *id)
{
	if (db_step(st) != DB_ROW)
		return -1;
	if (id != NULL)
		*id = db_col_int64(st, 0);
	return db_step(st) == DB_DONE ? 0 : -1;
}

int
store_writer_document(struct store_writer *w, const struct store_document_values *v,
    long long *id)
{
	db_reset(w->doc);
	db_bind_text(w->doc, 1, w->library_id);
	db_bind_text(w->doc, 2, v->path);
	db_bind_text(w->doc, 3, v->hash);
	db_bind_text(w->doc, 4, v->title);
	db_bind_text(w->doc, 5, v->url);
	db_bind_text(w->doc, 6, v->etag);
	db_bind_text(w->doc, 7, v->modified);
	if (store_writer_insert(w->doc, id) == -1) {
		log_err("%s: %s: %s", __func__, v->path, db_conn_errmsg(w->db));
		return -1;
	}
	return 0;
}

int
store_writer_snippet(struct store_writer *w, const struct store_snippet_values *v,
    long long *id)
{
	if (w->batch != NULL)
		return store_writer_queue(w, v, id);
	db_reset(w->sn);
	db_bind_text(w->sn, 1, w->library_id);
	db_bind_int64(w->sn, 2, v->document_id);
	db_bind_int64(w->sn, 3, v->ord);
	db_bind_text(w->sn, 4, v->title);
	db_bind_text(w->sn, 5, v->breadcrumb);
	db_bind_text(w->sn, 6, v->anchor);
	db_bind_text(w->sn, 7, v->text);
	db_bind_text(w->sn, 8, v->code);
	db_bind_int64(w->sn, 9, v->tokens);
	db_bind_text(w->sn, 10, v->hash);
	if (v->has_sig)
		db_bind_int64(w->sn, 11, v->sig);
	else
		db_bind_null(w->sn, 11);
	if (store_writer_insert(w->sn, id) == -1) {
		log_err("%s: %s: %s", __func__, v->path, db_conn_errmsg(w->db));
		return -1;
	}
	return 0;
}

/*
 * The tables an index run writes and the questions read, each with its ANALYZE (one
 * constant statement a table: no name is ever spliced into SQL).
 */
static const struct {
	const char	*name, *analyze;
} store_analyzed[] = {
	{ "snippets", "ANALYZE snippets" },
	{ "documents", "ANALYZE documents" },
	{ "snippet_flags", "ANALYZE snippet_flags" },
	{ "libraries", "ANALYZE libraries" },
};

/*
 * 1 when table ?1's statistics lag: never taken (reltuples -1: PostgreSQL 14 and later),
 * or more rows changed since they were than autovacuum's default threshold for ANALYZE
 * (50 plus a tenth of the table).
 */
static const char store_analyze_due_sql[] =
    "SELECT CASE WHEN c.reltuples < 0 OR coalesce(t.n_mod_since_analyze, 0) > 50 + "
    "0.1 * c.reltuples THEN 1 ELSE 0 END FROM pg_class c LEFT JOIN pg_stat_user_tables t "
    "ON t.relid = c.oid WHERE c.oid = to_regclass(?1::text)";

int
store_analyze(struct db *db)
{
	struct db_stmt	*st = NULL;
	size_t		 i;
	int		 n = 0, due, step;

	if (db_conn_engine(db) != DB_ENGINE_POSTGRES)
		return 0;
	if (db_prepare(db, store_analyze_due_sql, &st) == -1) {
		log_err("%s: %s", __func__, db_errmsg(db));
		return -1;
	}
	for (i = 0; i < sizeof(store_analyzed) / sizeof(store_analyzed[0]); i++) {
		db_reset(st);
		db_bind_text(st, 1, store_analyzed[i].name);
		if ((step = db_step(st)) != DB_ROW && step != DB_DONE) {
			log_err("%s: %s", __func__, db_errmsg(db));
			n = -1;
			break;
		}
		due = step == DB_ROW && db_col_int64(st, 0) != 0;
		db_reset(st);
		if (!due)
			continue;
		if (db_run(db, store_analyzed[i].analyze, "") == -1) {
			log_err("%s: %s", __func__, db_errmsg(db));
			n = -1;
			break;
		}
		n++;
	}
	db_finalize(st);
	return n;
}
