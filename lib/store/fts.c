/*
 * fts.c: the full-text rows of the snippets (snippets_fts, an FTS5 table: engine-specific).
 * dedup, share and describe (re)write a snippet's row through store_fts_put.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>
#include <sqlite3.h>

#include "base/buf.h"
#include "base/log.h"
#include "store/fts.h"
#include "store/conn.h"

int
store_code_text(const char *json, struct buf *b)
{
	json_object	*arr, *o, *c;
	size_t		 i, n;
	int		 rc = 0;

	if (json == NULL || (arr = json_tokener_parse(json)) == NULL)
		return 0;
	if (json_object_is_type(arr, json_type_array)) {
		n = json_object_array_length(arr);
		for (i = 0; i < n && rc == 0; i++) {
			o = json_object_array_get_idx(arr, i);
			if (json_object_object_get_ex(o, "code", &c) &&
			    json_object_is_type(c, json_type_string))
				rc = buf_adds(b, json_object_get_string(c)) == -1 ||
				    buf_addc(b, '\n') == -1 ? -1 : 0;
		}
	}
	json_object_put(arr);
	return rc;
}

int
store_fts_title(const char *title, const char *text, struct buf *b)
{
	const char	*k, *e;

	buf_reset(b);
	if (buf_adds(b, title != NULL ? title : "") == -1)
		return -1;
	if (text == NULL || (k = strstr(text, STORE_FTS_KEYWORDS)) == NULL)
		return 0;
	k += strlen(STORE_FTS_KEYWORDS);
	if ((e = strchr(k, '\n')) == NULL)
		e = k + strlen(k);
	if (e - k > 2048)
		e = k + 2048;
	return buf_addc(b, '\n') == -1 || buf_add(b, k, (size_t)(e - k)) == -1 ? -1 : 0;
}

int
store_fts_put(struct db *db, long long id)
{
	sqlite3_stmt	*q = NULL, *del = NULL, *ins = NULL;
	struct buf	 code, title;
	int		 i, rc = -1;

	buf_init(&code);
	buf_init(&title);
	if (sqlite3_prepare_v2(db_lite(db), "SELECT 'l' || l.lib_no, s.title, s.breadcrumb, "
	    "s.text, s.code, d.path FROM snippets s JOIN documents d ON d.id = "
	    "s.document_id JOIN libraries l ON l.id = s.library_id WHERE s.id = ?1",
	    -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db_lite(db), "DELETE FROM snippets_fts WHERE rowid = ?1", -1,
	    &del, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db_lite(db), "INSERT INTO snippets_fts (rowid, lib, title, "
	    "breadcrumb, body, code, path) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1,
	    &ins, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) != SQLITE_ROW)
		goto out;
	if (store_code_text((const char *)sqlite3_column_text(q, 4), &code) == -1 ||
	    store_fts_title((const char *)sqlite3_column_text(q, 1),
	    (const char *)sqlite3_column_text(q, 3), &title) == -1)
		goto out;
	sqlite3_bind_int64(del, 1, id);
	if (sqlite3_step(del) != SQLITE_DONE)
		goto out;
	sqlite3_bind_int64(ins, 1, id);
	for (i = 0; i < 4; i++)
		sqlite3_bind_value(ins, i + 2, sqlite3_column_value(q, i));
	sqlite3_bind_text(ins, 3, title.p != NULL ? title.p : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, 6, code.p ? code.p : "", -1, SQLITE_STATIC);
	sqlite3_bind_value(ins, 7, sqlite3_column_value(q, 5));
	if (sqlite3_step(ins) != SQLITE_DONE)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: snippet %lld: %s", __func__, id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(q);
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	buf_release(&code);
	buf_release(&title);
	return rc;
}

/* Engine: reads the FTS5 table's columns, and the view library_snippets. */
int
store_fts_rows(struct db *db, const char *library_id,
    int (*fn)(const struct store_fts_row *, void *), void *arg)
{
	static const char sql[] =
	    "SELECT s.id, s.document_id, s.tokens, f.title, f.breadcrumb, f.body, "
	    "f.code, f.path FROM library_snippets s JOIN snippets_fts f ON f.rowid = s.id "
	    "WHERE s.library_id = ?1 ORDER BY s.id";
	struct store_fts_row r;
	sqlite3_stmt	*st = NULL;
	int		 step = SQLITE_ERROR, rc = -1, col;

	if (sqlite3_prepare_v2(db_lite(db), sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		r.id = sqlite3_column_int64(st, 0);
		r.document_id = sqlite3_column_int64(st, 1);
		r.tokens = sqlite3_column_int(st, 2);
		for (col = 0; col < STORE_FTS_NCOLS; col++) {
			r.text[col] = (const char *)sqlite3_column_text(st, 3 + col);
			r.len[col] = (size_t)sqlite3_column_bytes(st, 3 + col);
		}
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
