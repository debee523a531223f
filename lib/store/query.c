/* store/query.c: the reads of the query path (store/query.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/query.h"
#include "store/conn.h"

struct store_query {
	struct db		*db;
	sqlite3_stmt	*lib;
	sqlite3_stmt	*snippet;
	sqlite3_stmt	*libs;
	sqlite3_stmt	*prev;
	sqlite3_stmt	*text;
	sqlite3_stmt	*setting;	/* content.injection */
	sqlite3_stmt	*anyflag;	/* has the library a flagged snippet */
	sqlite3_stmt	*isflag;	/* is a snippet flagged */
	sqlite3_stmt	*docpath;	/* a document's path */
};

static const char store_query_lib_sql[] =
    "SELECT id, state, lib_no, indexed_commit IS NOT NULL, "
    "coalesce(last_error, ''), total_snippets, index_version, embed_version, title, "
    "source_type FROM libraries WHERE id = ?1";

/* Snippet ?1's document path and title. */
static const char store_query_docpath_sql[] =
    "SELECT d.path, s.title FROM snippets s JOIN documents d ON d.id = s.document_id "
    "WHERE s.id = ?1";

/*
 * A library shows its own snippets and those of documents of other versions it shares
 * (lib/index/share.h, the view library_snippets). Engine: group_concat (SQLite's string
 * aggregate) joins a snippet's flags and the versions below.
 */
/* Snippet ?1 as library ?2 shows it: the Source line names its document and commit. */
static const char store_query_snippet_sql[] =
    "SELECT s.title, s.breadcrumb, s.anchor, s.text, s.code, s.tokens, d.path, "
    "d.title, l.blob_prefix, l.indexed_commit, s.document_id, s.ord, "
    "(SELECT group_concat(rule, ', ') FROM snippet_flags WHERE snippet_id = s.id), "
    "d.url FROM library_snippets s JOIN documents d ON d.id = s.document_id "
    "JOIN libraries l ON l.id = s.library_id WHERE s.id = ?1 AND s.library_id = ?2";

/* The heading trails of the (at most ?3) snippets before ord ?2 of document ?1, nearest first. */
static const char store_query_prev_sql[] =
    "SELECT id, title, breadcrumb, ord FROM library_snippets WHERE document_id = ?1 AND "
    "ord < ?2 ORDER BY ord DESC LIMIT ?3";

/* A snippet's text, and whether it is flagged (lib/search/inject.h). */
static const char store_query_text_sql[] =
    "SELECT text, EXISTS (SELECT 1 FROM snippet_flags WHERE snippet_id = ?1) "
    "FROM snippets WHERE id = ?1";

/* A setting (content.injection, read for each answer). */
static const char store_query_setting_sql[] =
    "SELECT value FROM settings WHERE name = ?1";

/*
 * Whether a library has flagged snippets (its own or shown from another library of its
 * family: flags rows carry the owner's id), and whether a snippet is flagged.
 */
static const char store_query_anyflag_sql[] =
    "SELECT 1 FROM libraries l JOIN libraries v ON v.id = coalesce(l.version_of, l.id) OR "
    "v.version_of = coalesce(l.version_of, l.id) JOIN snippet_flags f ON f.library_id = "
    "v.id JOIN library_snippets s ON s.id = f.snippet_id AND s.library_id = ?1 WHERE "
    "l.id = ?1 LIMIT 1";
static const char store_query_isflag_sql[] =
    "SELECT 1 FROM snippet_flags WHERE snippet_id = ?1 LIMIT 1";

/* Engine: json_group_array makes the versions' list. */
static const char store_query_libs_sql[] =
    "SELECT id, title, description, coalesce(indexed_branch, branch), updated_at, "
    "state, total_tokens, total_snippets, host, (SELECT json_group_array(branch) FROM "
    "(SELECT v.branch FROM libraries v WHERE v.version_of = libraries.id AND "
    "v.state <> 'delete' ORDER BY v.branch)), source_type FROM libraries "
    "WHERE state <> 'delete' AND version_of IS NULL";

/* The versions of a library that have an index, for the 404 of another one. */
static const char store_query_versions_sql[] =
    "SELECT group_concat(branch, ', ') FROM (SELECT branch FROM libraries WHERE "
    "version_of = ?1 AND state <> 'delete' AND indexed_commit IS NOT NULL ORDER BY branch)";

/*
 * The stored libraries whose id equals ?1 but for ASCII case, in byte order.
 * Engine: COLLATE NOCASE compares ASCII letters without case.
 */
static const char store_query_nocase_sql[] =
    "SELECT id FROM libraries WHERE id = ?1 COLLATE NOCASE AND state <> 'delete' "
    "ORDER BY id";

static int
store_query_prepare(struct db *db, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v3(db_lite(db), sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) ==
	    SQLITE_OK ? 0 : -1;
}

struct store_query *
store_query_open(struct db *db)
{
	struct store_query *q;

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		log_err("%s: out of memory", __func__);
		return NULL;
	}
	q->db = db;
	if (store_query_prepare(db, store_query_lib_sql, &q->lib) == -1 ||
	    store_query_prepare(db, store_query_snippet_sql, &q->snippet) == -1 ||
	    store_query_prepare(db, store_query_libs_sql, &q->libs) == -1 ||
	    store_query_prepare(db, store_query_prev_sql, &q->prev) == -1 ||
	    store_query_prepare(db, store_query_text_sql, &q->text) == -1 ||
	    store_query_prepare(db, store_query_setting_sql, &q->setting) == -1 ||
	    store_query_prepare(db, store_query_anyflag_sql, &q->anyflag) == -1 ||
	    store_query_prepare(db, store_query_isflag_sql, &q->isflag) == -1 ||
	    store_query_prepare(db, store_query_docpath_sql, &q->docpath) == -1) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		store_query_close(q);
		return NULL;
	}
	return q;
}

void
store_query_close(struct store_query *q)
{
	if (q == NULL)
		return;
	sqlite3_finalize(q->lib);
	sqlite3_finalize(q->snippet);
	sqlite3_finalize(q->libs);
	sqlite3_finalize(q->prev);
	sqlite3_finalize(q->text);
	sqlite3_finalize(q->setting);
	sqlite3_finalize(q->anyflag);
	sqlite3_finalize(q->isflag);
	sqlite3_finalize(q->docpath);
	free(q);
}

int
store_query_library(struct store_query *q, const char *id,
    void (*fn)(const struct store_query_lib *, void *), void *arg)
{
	struct store_query_lib l;
	int		 step;

	sqlite3_reset(q->lib);
	sqlite3_bind_text(q->lib, 1, id, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(q->lib)) == SQLITE_ROW) {
		l.id = db_column_text(q->lib, 0);
		l.state = db_column_text(q->lib, 1);
		l.lib_no = sqlite3_column_int64(q->lib, 2);
		l.has_index = sqlite3_column_int(q->lib, 3);
		l.error = db_column_text(q->lib, 4);
		l.snippets = sqlite3_column_int64(q->lib, 5);
		l.index_version = sqlite3_column_int64(q->lib, 6);
		l.embed_version = sqlite3_column_int64(q->lib, 7);
		l.title = db_column_text(q->lib, 8);
		l.source_type = db_column_text(q->lib, 9);
		fn(&l, arg);
	} else if (step != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
	sqlite3_reset(q->lib);
	return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
}

int
store_query_nocase(struct store_query *q, const char *id, int (*fn)(const char *, void *),
    void *arg)
{
	sqlite3_stmt	*st = NULL;
	const char	*have;
	int		 step;

	if (sqlite3_prepare_v2(db_lite(q->db), store_query_nocase_sql, -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if ((have = (const char *)sqlite3_column_text(st, 0)) != NULL &&
		    fn(have, arg) == 1)
			break;
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
	sqlite3_finalize(st);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -1;
}

int
store_query_versions(struct store_query *q, const char *base, char **have)
{
	sqlite3_stmt	*st = NULL;
	const char	*t;
	int		 rc = 0;

	*have = NULL;
	if (sqlite3_prepare_v2(db_lite(q->db), store_query_versions_sql, -1, &st, NULL) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, base, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (t = (const char *)sqlite3_column_text(st, 0)) != NULL &&
	    (*have = strdup(t)) == NULL)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

int
store_query_snippet(struct store_query *q, long long id, const char *library_id,
    int (*fn)(const struct store_query_snippet *, void *), void *arg)
{
	struct store_query_snippet r;
	sqlite3_stmt	*st = q->snippet;
	int		 step, rc = -1;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, library_id, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(st)) == SQLITE_DONE)
		rc = 1;
	else if (step == SQLITE_ROW) {
		r.title = db_column_text(st, 0);
		r.breadcrumb = db_column_text(st, 1);
		r.anchor = (const char *)sqlite3_column_text(st, 2);
		r.text = db_column_text(st, 3);
		r.code = (const char *)sqlite3_column_text(st, 4);
		r.tokens = sqlite3_column_int(st, 5);
		r.path = (const char *)sqlite3_column_text(st, 6);
		r.page_title = db_column_text(st, 7);
		r.blob_prefix = (const char *)sqlite3_column_text(st, 8);
		r.indexed_commit = (const char *)sqlite3_column_text(st, 9);
		r.document_id = sqlite3_column_int64(st, 10);
		r.ord = sqlite3_column_int64(st, 11);
		r.flags = (const char *)sqlite3_column_text(st, 12);
		r.url = (const char *)sqlite3_column_text(st, 13);
		rc = fn(&r, arg);
	} else
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
	sqlite3_reset(st);
	return rc;
}

int
store_query_prev(struct store_query *q, long long doc, long long ord, int limit,
    int (*fn)(long long, const char *, const char *, long long, void *), void *arg)
{
	int	 step;

	sqlite3_reset(q->prev);
	sqlite3_bind_int64(q->prev, 1, doc);
	sqlite3_bind_int64(q->prev, 2, ord);
	sqlite3_bind_int(q->prev, 3, limit);
	while ((step = sqlite3_step(q->prev)) == SQLITE_ROW)
		if (fn(sqlite3_column_int64(q->prev, 0),
		    (const char *)sqlite3_column_text(q->prev, 1),
		    (const char *)sqlite3_column_text(q->prev, 2),
		    sqlite3_column_int64(q->prev, 3), arg) == 1)
			break;
	sqlite3_reset(q->prev);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -1;
}

int
store_query_snippet_place(struct store_query *q, long long id, char *path, size_t pathsz,
    char *title, size_t titlesz)
{
	const char	*p, *t;
	int		 rc = 0;

	*path = *title = '\0';
	sqlite3_reset(q->docpath);
	sqlite3_bind_int64(q->docpath, 1, id);
	if (sqlite3_step(q->docpath) == SQLITE_ROW &&
	    (p = (const char *)sqlite3_column_text(q->docpath, 0)) != NULL) {
		t = (const char *)sqlite3_column_text(q->docpath, 1);
		snprintf(path, pathsz, "%s", p);
		snprintf(title, titlesz, "%s", t != NULL ? t : "");
		rc = 1;
	}
	sqlite3_reset(q->docpath);
	return rc;
}

int
store_query_text(struct store_query *q, long long id, char **text, int *flagged)
{
	const char	*t;
	int		 rc = 0;

	*text = NULL;
	*flagged = 0;
	sqlite3_reset(q->text);
	sqlite3_bind_int64(q->text, 1, id);
	if (sqlite3_step(q->text) == SQLITE_ROW &&
	    (t = (const char *)sqlite3_column_text(q->text, 0)) != NULL) {
		*flagged = sqlite3_column_int(q->text, 1);
		rc = (*text = strdup(t)) != NULL ? 1 : -1;
	}
	sqlite3_reset(q->text);
	return rc;
}

int
store_query_setting(struct store_query *q, const char *name, char *out, size_t outsz)
{
	const char	*t;
	int		 rc = 0;

	*out = '\0';
	sqlite3_reset(q->setting);
	sqlite3_bind_text(q->setting, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(q->setting) == SQLITE_ROW) {
		if ((t = (const char *)sqlite3_column_text(q->setting, 0)) != NULL)
			snprintf(out, outsz, "%s", t);
		rc = 1;
	}
	sqlite3_reset(q->setting);
	return rc;
}

int
store_query_any_flagged(struct store_query *q, const char *library_id)
{
	int	 step;

	sqlite3_reset(q->anyflag);
	sqlite3_bind_text(q->anyflag, 1, library_id, -1, SQLITE_STATIC);
	step = sqlite3_step(q->anyflag);
	sqlite3_reset(q->anyflag);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
		return -1;
	}
	return step == SQLITE_ROW;
}

int
store_query_flagged(struct store_query *q, long long id)
{
	int	 step;

	sqlite3_reset(q->isflag);
	sqlite3_bind_int64(q->isflag, 1, id);
	step = sqlite3_step(q->isflag);
	sqlite3_reset(q->isflag);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
		return -1;
	}
	return step == SQLITE_ROW;
}

int
store_query_libraries(struct store_query *q,
    int (*fn)(const struct store_query_libs_row *, void *), void *arg)
{
	struct store_query_libs_row r;
	sqlite3_stmt	*st = q->libs;
	int		 step, rc = 0;

	sqlite3_reset(st);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		r.id = (const char *)sqlite3_column_text(st, 0);
		r.title = (const char *)sqlite3_column_text(st, 1);
		r.description = (const char *)sqlite3_column_text(st, 2);
		r.branch = (const char *)sqlite3_column_text(st, 3);
		r.updated_at = (const char *)sqlite3_column_text(st, 4);
		r.state = (const char *)sqlite3_column_text(st, 5);
		r.tokens = sqlite3_column_int64(st, 6);
		r.snippets = sqlite3_column_int64(st, 7);
		r.host = (const char *)sqlite3_column_text(st, 8);
		r.versions = (const char *)sqlite3_column_text(st, 9);
		r.type = (const char *)sqlite3_column_text(st, 10);
		if ((rc = fn(&r, arg)) == -1)
			break;
	}
	if (rc == 0 && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(q->db)));
		rc = -1;
	}
	sqlite3_reset(st);
	return rc;
}
