/*
 * fts.c: the full-text columns of the snippets, made from the rows that hold their text
 * (snippets, documents) when an index is built: no table keeps them.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/buf.h"
#include "base/log.h"
#include "store/db.h"
#include "store/fts.h"
#include "store/stmt.h"

/*
 * The snippets read at once on PostgreSQL, whose rows come whole at the first step (a
 * library's text can be hundreds of MB; a page of snippets is a few MB).
 */
#define STORE_FTS_PAGE	1000

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

/* The rows of store_fts_rows; page: the keyset condition of the PostgreSQL half. */
#define STORE_FTS_SQL(page) \
    "SELECT s.id, s.document_id, s.tokens, s.title, s.breadcrumb, s.text, s.code, " \
    "d.path, EXISTS (SELECT 1 FROM snippet_flags f WHERE f.snippet_id = s.id) " \
    "FROM library_snippets s JOIN documents d ON d.id = s.document_id " \
    "WHERE s.library_id = ?1 AND s.dup_of IS NULL" page " ORDER BY s.id"

/*
 * The columns are made here from the rows that hold the text (no table keeps a second copy
 * of it): the snippets a library shows but its duplicates (dup_of), with the path of the
 * document that shows each.
 * Engine: reads the view library_snippets. PostgreSQL reads the rows in pages of
 * STORE_FTS_PAGE (keyset: the snippet ids above the last one, ?2 and ?3 of its half), in
 * one snapshot (a read transaction of their own unless the caller holds one); SQLite in
 * one statement as ever, the rows streamed (its half without the LIMIT, which would make
 * SQLite sort in a B-tree instead of its sorter: a third slower).
 */
int
store_fts_rows(struct db *db, const char *library_id,
    int (*fn)(const struct store_fts_row *, void *), void *arg)
{
	static const char sql[] = DB_PAIR(STORE_FTS_SQL(""),
	    STORE_FTS_SQL(" AND s.id > ?2") " LIMIT ?3");
	struct store_fts_row r;
	struct buf	 title, code;
	struct db_stmt	*st = NULL;
	const char	*text;
	long long	 after = LLONG_MIN, page, got;
	int		 step = -1, rc = -1, col, nomem = 0, own = 0;

	buf_init(&title);
	buf_init(&code);
	page = db_conn_engine(db) == DB_ENGINE_POSTGRES ? STORE_FTS_PAGE : -1;
	if (page > 0 && !db_in_transaction(db)) {
		if (db_begin_read(db) == -1)
			goto out;
		own = 1;
	}
	if (db_prepare(db, sql, &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	if (page > 0)
		db_bind_int64(st, 3, page);
	do {
		db_reset(st);
		if (page > 0)
			db_bind_int64(st, 2, after);
		got = 0;
		while ((step = db_step(st)) == DB_ROW) {
			got++;
			r.id = after = db_col_int64(st, 0);
			r.document_id = db_col_int64(st, 1);
			r.tokens = (int)db_col_int64(st, 2);
			r.title = db_col_text(st, 3);
			r.flagged = db_col_int64(st, 8) != 0;
			/*
			 * body, breadcrumb and path as stored; title and code made of theirs
			 * (NOT NULL columns all: none is NULL)
			 */
			for (col = 1; col < STORE_FTS_NCOLS; col++) {
				r.text[col] = db_col_text(st, 3 + col);
				r.len[col] = strlen(r.text[col]);
			}
			text = r.text[2];
			buf_reset(&code);
			if (store_fts_title(db_col_text(st, 3), text, &title) == -1 ||
			    store_code_text(r.text[3], &code) == -1) {
				log_err("%s: %s: out of memory", __func__, library_id);
				nomem = 1;
				step = -1;
				break;
			}
			r.text[0] = title.p != NULL ? title.p : "";
			r.len[0] = title.len;
			r.text[3] = code.p != NULL ? code.p : "";
			r.len[3] = code.len;
			if (fn(&r, arg) == -1) {
				db_finalize(st);
				if (own)
					db_rollback(db);
				buf_release(&title);
				buf_release(&code);
				return -1;
			}
		}
	} while (step == DB_DONE && page > 0 && got == page);
	if (step == DB_DONE && (!own || db_commit(db) == 0)) {
		own = 0;
		rc = 0;
	}
out:
	if (rc == -1 && !nomem)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(st);
	if (own)
		db_rollback(db);
	buf_release(&title);
	buf_release(&code);
	return rc;
}
