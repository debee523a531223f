/*
 * test-store-library.c: the store's library and index-write modules on either engine
 * (lib/store/library.c, snippets.c, documents.c, dedup.c, share.c, describe.c): the same
 * calls on a SQLite database (db_open in a temporary DATA_DIR) and, when DATABASE_URL
 * names a server (t/t0021-pg-store-library.sh starts one), on PostgreSQL (the schema of
 * pgstore_migrate in a schema of the test's own, dropped at the end). Each engine's
 * answers are checked, and written to a trace that must be the same for both. On
 * PostgreSQL a second connection checks the locks that stand in for SQLite's one writer.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/db.h"
#include "store/dedup.h"
#include "store/describe.h"
#include "store/documents.h"
#include "store/library.h"
#include "store/pg.h"
#include "store/share.h"
#include "store/snippets.h"
#include "store/stmt.h"
#include "store/users.h"
#include "db-helpers.h"
#include "tap.h"
#include "store-trace.h"

#define SCHEMA	"storelibrary"
#define NOW	"2026-01-01T00:00:00Z"
#define NBIG	2600		/* snippets of big.md: more than a page of each scan */

/* One integer of a query (?1: t, or the integer i when t is NULL), or -1. */
static long long
q_int(struct db *db, const char *sql, const char *t, long long i)
{
	struct db_stmt	*st;
	long long	 v = -1;

	if (db_prepare(db, sql, &st) == -1) {
		printf("# %s: %s\n", sql, db_conn_errmsg(db));
		return -1;
	}
	if (db_param_count(st) >= 1 && t != NULL)
		db_bind_text(st, 1, t);
	else if (db_param_count(st) >= 1)
		db_bind_int64(st, 1, i);
	if (db_step(st) == DB_ROW)
		v = db_col_null(st, 0) ? -2 : db_col_int64(st, 0);
	else
		printf("# %s: %s\n", sql, db_conn_errmsg(db));
	db_finalize(st);
	return v;
}

/* One text of a query (?1 text) into s ("(null)" for NULL, "(none)" without a row). */
static const char *
q_text(struct db *db, const char *sql, const char *t, char *s, size_t sz)
{
	struct db_stmt	*st;

	snprintf(s, sz, "(none)");
	if (db_prepare(db, sql, &st) == -1) {
		printf("# %s: %s\n", sql, db_conn_errmsg(db));
		return s;
	}
	db_bind_text(st, 1, t);
	if (db_step(st) == DB_ROW)
		snprintf(s, sz, "%s", db_col_null(st, 0) ? "(null)" : db_col_text(st, 0));
	db_finalize(st);
	return s;
}

static long long
snippet_id(struct db *db, long long doc, long long ord)
{
	struct db_stmt	*st;
	long long	 v = -1;

	if (db_prepare(db, "SELECT id FROM snippets WHERE document_id = ?1 AND ord = ?2",
	    &st) == -1)
		return -1;
	db_bind_int64(st, 1, doc);
	db_bind_int64(st, 2, ord);
	if (db_step(st) == DB_ROW)
		v = db_col_int64(st, 0);
	db_finalize(st);
	return v;
}

static long long
document_id(struct db *db, const char *library, const char *path)
{
	struct db_stmt	*st;
	long long	 v = -1;

	if (db_prepare(db, "SELECT id FROM documents WHERE library_id = ?1 AND path = ?2",
	    &st) == -1)
		return -1;
	db_bind_text(st, 1, library);
	db_bind_text(st, 2, path);
	if (db_step(st) == DB_ROW)
		v = db_col_int64(st, 0);
	db_finalize(st);
	return v;
}

static void
trace_library(struct db *db, const char *id, long long ann)
{
	struct store_library l;

	if (store_library_load(db, id, &l) == -1) {
		tr("load %s: error", id);
		return;
	}
	if (!l.exists) {
		tr("load %s: none", id);
		return;
	}
	tr("load %s: id=%s url=%s type=%s branch=%s settings=%s title=%s desc=%s host=%s "
	    "run=%s state=%s gitops=%d deleting=%d pending=%d by=%s anon=%d docs=%lld "
	    "snippets=%lld lib_no=%lld family=%s commit=%s indexed_settings=%s", id, l.id,
	    l.url, l.type, l.branch, l.settings, l.title, l.description, l.host,
	    l.run_status, l.state, l.gitops, l.deleting, l.pending, l.created_by == 0 ?
	    "none" : l.created_by == ann ? "ann" : "other", l.created_anonymously,
	    l.total_documents, l.total_snippets, l.lib_no, l.family,
	    l.indexed_commit ? l.indexed_commit : "(null)",
	    l.indexed_settings ? l.indexed_settings : "(null)");
	store_library_release(&l);
}

/* The versions of the libraries (index_version, embed_version), one line. */
static void
trace_versions(struct db *db, const char *what)
{
	struct db_stmt	*st;
	char		 s[1024] = "";
	size_t		 len;

	if (db_prepare(db, DB_PAIR("SELECT id, index_version, embed_version, total_tokens FROM "
	    "libraries ORDER BY id", "SELECT id, index_version, embed_version, total_tokens "
	    "FROM libraries ORDER BY id COLLATE \"C\""), &st) == -1)
		return;
	while (db_step(st) == DB_ROW) {
		len = strlen(s);
		snprintf(s + len, sizeof(s) - len, " %s:%lld/%lld/%lld", db_col_text(st, 0),
		    db_col_int64(st, 1), db_col_int64(st, 2), db_col_int64(st, 3));
	}
	db_finalize(st);
	tr("versions %s:%s", what, s);
}

struct rows {
	char		 s[4096];
	long long	 n, last, owned, dups, sigs, nulls;
	int		 ordered, stop;
	struct db	*pg;		/* PostgreSQL: the connection, to look at its cursor */
	long long	 cursors;	/* ... the dedup cursor open at the first row */
};

/* store_dedup_rows's cursor open on a PostgreSQL connection (pg_cursors). */
#define Q_CURSORS	"SELECT count(*) FROM pg_cursors WHERE name = 'store_dedup_rows'"

static int
dedup_cb(const struct store_dedup_row *r, void *arg)
{
	struct rows	*w = arg;
	size_t		 len = strlen(w->s);
	char		 trail[256], *p;

	if (w->n > 0 && r->id <= w->last)
		w->ordered = 0;
	if (w->n == 0 && w->pg != NULL)
		w->cursors = q_int(w->pg, Q_CURSORS, NULL, 0);
	w->last = r->id;
	w->n++;
	w->owned += r->owned;
	w->dups += r->dup_of != 0;
	if (r->has_sig)
		w->sigs++;
	else
		w->nulls++;
	if (strcmp(r->path, "big.md") == 0)
		return w->stop > 0 && w->n >= w->stop ? -1 : 0;
	snprintf(trail, sizeof(trail), "%s", r->trail);
	for (p = trail; *p != '\0'; p++)
		if (*p == 31)
			*p = '|';
	snprintf(w->s + len, sizeof(w->s) - len, "[%s#%ld hash=%s sig=%s%lld dup=%d %s "
	    "owned=%d]", r->path, r->ord, r->hash, r->has_sig ? "" : "null:", r->sig,
	    r->dup_of != 0, trail, r->owned);
	return w->stop > 0 && w->n >= w->stop ? -1 : 0;
}

static int
describe_cb(const struct store_describe_row *r, void *arg)
{
	struct rows	*w = arg;
	size_t		 len = strlen(w->s);

	if (w->n > 0 && r->id <= w->last)
		w->ordered = 0;
	w->last = r->id;
	w->n++;
	if (w->n <= 3)
		snprintf(w->s + len, sizeof(w->s) - len, "[%s|%s|%s|%.30s|%.20s|%lld]",
		    r->heading, r->page, r->breadcrumb, r->text ? r->text : "(null)", r->code,
		    r->repeated);
	return w->stop > 0 && w->n >= w->stop ? -1 : 0;
}

static int
indexes_cb(const struct store_library_index *l, void *arg)
{
	char	*s = arg;
	size_t	 len = strlen(s);

	if (strcmp(l->id, "stop") == 0)
		return -1;
	snprintf(s + len, 1024 - len, "[%s %s %lld %lld %lld %d]", l->id, l->state, l->lib_no,
	    l->index_version, l->snippets, l->has_index);
	return 0;
}

struct pairs {
	long long	 sum, n;
};

static int
versions_cb(long long lib_no, long long index_version, void *arg)
{
	struct pairs	*p = arg;

	p->sum += lib_no * 1000 + index_version;
	p->n++;
	return 0;
}

static int
versions_stop_cb(long long lib_no, long long index_version, void *arg)
{
	(void)lib_no;
	(void)index_version;
	(void)arg;
	return -1;
}

/* The vector's bytes: NUL, high bytes, every value. */
static unsigned char	 vec[64];

static int
put_vector(struct db *db, const char *hash)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_prepare(db, "INSERT INTO vectors (model, hash, dim, vector) VALUES ('m', ?1, "
	    "16, ?2)", &st) == -1)
		return -1;
	db_bind_text(st, 1, hash);
	db_bind_blob(st, 2, vec, sizeof(vec));
	if (db_step(st) == DB_DONE)
		rc = 0;
	db_finalize(st);
	return rc;
}

static int
vector_same(struct db *db, const char *hash)
{
	struct db_stmt	*st;
	const void	*p;
	size_t		 len = 0;
	int		 same = 0;

	if (db_prepare(db, "SELECT vector FROM vectors WHERE model = 'm' AND hash = ?1",
	    &st) == -1)
		return 0;
	db_bind_text(st, 1, hash);
	if (db_step(st) == DB_ROW) {
		p = db_col_blob(st, 0, &len);
		same = len == sizeof(vec) && memcmp(p, vec, len) == 0;
	}
	db_finalize(st);
	return same;
}

static const char code_json[] = "[{\"language\": \"c\", \"code\": \"printf(\\\"%s\\\\n\\\", "
    "\\\"h\\u00e9\\u2603 ok\\\");\\n\\treturn 0;\"}]";

/* Libraries: create, read, update, rename, the host binding, GitOps rows, versions. */
static void
test_rows(struct db *db, const char *e, long long ann)
{
	struct store_library_values v = { "https://git.example/acme/docs", "git", "main", "{}",
	    "docs", "Docs of acme" };
	struct store_library_values w = { "https://wiki.example/acme/wiki", "wiki", "", "{}",
	    "wiki", "" };
	struct store_library_values m = { "https://gm.example/acme/managed", "git", "main",
	    "{\"depth\":1}", "managed", "Managed" };
	struct store_library l;
	struct store_versions vs;
	char		**ids, *host, s[256];
	size_t		 n, i;
	int		 rc;

	ok(store_library_insert(db, "/acme/docs", "git.example", &v, ann, 0, NOW) == 0 &&
	    store_library_insert(db, "/acme/wiki", "wiki.example", &w, 0, 1, NOW) == 0,
	    "%s: two libraries inserted", e);
	rc = store_library_insert(db, "/acme/docs", "evil.example", &v, 0, 1, NOW);
	eq_int(rc, -1, "%s: a duplicate id refused", e);
	tr("duplicate insert: %d", rc);
	trace_library(db, "/acme/docs", ann);
	trace_library(db, "/acme/wiki", ann);
	ok(store_library_load(db, "/acme/docs", &l) == 0 && l.exists && l.lib_no == 1 &&
	    l.created_by == ann && l.indexed_commit == NULL && strcmp(l.family, "/acme/docs")
	    == 0, "%s: ... read back: lib_no 1, its creator, no index (NULL)", e);
	store_library_release(&l);
	ok(store_library_load(db, "/acme/wiki", &l) == 0 && l.lib_no == 2 &&
	    l.created_by == 0 && l.created_anonymously == 1 && strcmp(l.type, "wiki") == 0,
	    "%s: ... the next lib_no, no creator (NULL), anonymous", e);
	store_library_release(&l);
	ok(store_library_load(db, "/ACME/Docs", &l) == 0 && !l.exists,
	    "%s: load compares the id exactly", e);
	ok(store_library_load_nocase(db, "/ACME/Docs", &l) == 0 && l.exists &&
	    strcmp(l.id, "/acme/docs") == 0, "%s: load_nocase finds it in another case", e);
	tr("nocase: %s", l.exists ? l.id : "none");
	store_library_release(&l);
	ok(store_library_load_nocase(db, "/acme/nope", &l) == 0 && !l.exists,
	    "%s: a missing library: exists 0", e);
	store_library_release(&l);

	v.branch = "v2";
	v.settings = "{\"x\":1}";
	v.type = "website";
	ok(store_library_update(db, "/acme/docs", &v, "2026-01-02T00:00:00Z") == 0,
	    "%s: updated", e);
	ok(store_library_load(db, "/acme/docs", &l) == 0 && strcmp(l.branch, "v2") == 0 &&
	    strcmp(l.type, "git") == 0, "%s: ... the branch, not the type", e);
	store_library_release(&l);
	ok(store_library_update(db, "/acme/nope", &v, NOW) == 0 && db_changes(db) == 0,
	    "%s: updating a missing library changes nothing", e);
	ok(store_library_rename(db, "/acme/docs", "Docs", NULL, NOW) == 0 &&
	    store_library_rename(db, "/acme/wiki", NULL, "The wiki", NOW) == 0,
	    "%s: renamed", e);
	trace_library(db, "/acme/docs", ann);
	trace_library(db, "/acme/wiki", ann);

	host = NULL;
	rc = store_library_bound_host(db, "/ACME/DOCS", &host);
	ok(rc == 1 && host != NULL && strcmp(host, "git.example") == 0,
	    "%s: the bound host, the id in any case", e);
	tr("bound: %d %s", rc, host ? host : "(null)");
	free(host);
	rc = store_library_bound_host(db, "/acme/none", &host);
	ok(rc == 0 && host == NULL, "%s: ... none for an id never added", e);

	ok(store_library_write_managed(db, "/acme/managed", "gm.example", &m, 0) == 0,
	    "%s: a GitOps library written", e);
	m.url = "https://gm2.example/acme/managed";
	ok(store_library_write_managed(db, "/acme/managed", "gm2.example", &m, 1) == 0,
	    "%s: ... rewritten from another host", e);
	store_library_bound_host(db, "/acme/managed", &host);
	ok(host != NULL && strcmp(host, "gm2.example") == 0, "%s: ... the binding follows", e);
	free(host);
	ok(store_library_load(db, "/acme/managed", &l) == 0 && l.gitops == 1 && l.lib_no == 3,
	    "%s: ... managed, lib_no 3", e);
	store_library_release(&l);
	trace_library(db, "/acme/managed", ann);
	ok(store_library_managed(db, &ids, &n) == 0 && n == 1 &&
	    strcmp(ids[0], "/acme/managed") == 0, "%s: the managed ids", e);
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);

	/* versions */
	ok(store_library_version_put(db, "/acme/docs@v1", "/acme/docs", "v1",
	    "https://git.example/acme/docs", "{\"v\":1}", ann, NOW) == 0 &&
	    store_library_version_put(db, "/acme/docs@v0", "/acme/docs", "v0",
	    "https://git.example/acme/docs", "{}", 0, NOW) == 0, "%s: two versions", e);
	ok(store_library_version_put(db, "/acme/docs@v1", "/acme/docs", "v1",
	    "https://git.example/acme/docs2", "{\"v\":2}", ann, "2026-01-03T00:00:00Z") == 0,
	    "%s: ... one put again", e);
	ok(store_library_version_put(db, "/acme/wiki", "/acme/docs", "vx",
	    "https://evil.example/", "{}", 0, NOW) == 0, "%s: a put over a non-version", e);
	ok(store_library_load(db, "/acme/wiki", &l) == 0 &&
	    strcmp(l.url, "https://wiki.example/acme/wiki") == 0,
	    "%s: ... leaves it alone", e);
	store_library_release(&l);
	ok(store_library_version_put(db, "/acme/x@v1", "/acme/none", "v1", "u", "{}", 0, NOW)
	    == 0 && store_library_load(db, "/acme/x@v1", &l) == 0 && !l.exists,
	    "%s: a version of a missing library: nothing", e);
	store_library_release(&l);
	trace_library(db, "/acme/docs@v1", ann);
	trace_library(db, "/acme/docs@v0", ann);
	ok(store_library_version_follow(db, "/acme/docs@v0", "https://git.example/acme/d",
	    "{\"f\":1}", NOW) == 0, "%s: a version follows", e);
	ok(store_library_versions(db, "/acme/docs", &vs) == 0 && vs.n == 2, "%s: the versions",
	    e);
	s[0] = '\0';
	for (i = 0; i < vs.n; i++) {
		n = strlen(s);
		snprintf(s + n, sizeof(s) - n, "%s=%s ", vs.ids[i], vs.branches[i]);
	}
	eq_str(s, "/acme/docs@v0=v0 /acme/docs@v1=v1 ", "%s: ... in id order", e);
	tr("versions of docs: %s", s);
	store_versions_release(&vs);
	ok(store_library_versions(db, "/acme/none", &vs) == 0 && vs.n == 0,
	    "%s: ... none of a missing library", e);
	store_versions_release(&vs);

	ok(store_library_source_title(db, "/acme/wiki", "wiki", "The Wiki") == 0 &&
	    store_library_source_title(db, "/acme/wiki", "wiki", "Other") == 0 &&
	    store_library_source_title(db, "/acme/managed", "managed", "") == 0,
	    "%s: source titles", e);
	ok(strcmp(q_text(db, "SELECT title FROM libraries WHERE id = ?1", "/acme/wiki", s,
	    sizeof(s)), "The Wiki") == 0 && strcmp(q_text(db, "SELECT title FROM libraries "
	    "WHERE id = ?1", "/acme/managed", s, sizeof(s)), "managed") == 0,
	    "%s: ... the default one replaced once, never by an empty one", e);
}

/* Documents and snippets written as the worker does, read back. */
static void
test_write(struct db *db, const char *e, long long *d1, long long *d2)
{
	struct store_document_values dv[3] = {
		{ "README.md", "h1", "Readme", "https://x/README.md", "\"e1\"", NULL },
		{ "guide/a.md", "h2", "Guide", NULL, NULL, "Mon, 01 Jan 2026 00:00:00 GMT" },
		{ "big.md", "h3", "Big", "https://x/big.md", NULL, NULL },
	};
	struct store_snippet_values sv;
	struct store_writer *w;
	struct store_reader *rd;
	char		 hash[65], small[2], *etag, *modified, *url, *big;
	long long	 id, d3, first = 0, sn;
	int		 i, rc, okw = 1;

	ok((w = store_writer_open(db, "/acme/docs")) != NULL, "%s: a writer", e);
	if (w == NULL)
		return;
	ok(store_writer_document(w, &dv[0], d1) == 0 && store_writer_document(w, &dv[1], d2)
	    == 0 && store_writer_document(w, &dv[2], &d3) == 0 && *d2 > *d1 && d3 > *d2,
	    "%s: three documents, their ids", e);
	if ((big = malloc(200001)) == NULL)
		return;
	for (i = 0; i < 200000; i++)
		big[i] = "abcdefghij\"\\{}\n\t\xc3\xa9 "[i % 18];
	big[200000] = '\0';
	/* a 2-byte character cut at the end would be invalid UTF-8 */
	if ((unsigned char)big[199999] == 0xc3)
		big[199999] = 'x';
	memset(&sv, 0, sizeof(sv));
	sv.document_id = *d1;
	sv.path = "README.md";
	for (i = 0; i < 3; i++) {
		sv.ord = i;
		sv.title = i == 0 ? "Install" : i == 1 ? "Install" : "Use";
		sv.breadcrumb = "Readme > Start";
		sv.anchor = i == 0 ? "" : "use";
		sv.text = i == 2 ? big : "Run make.";
		sv.code = i == 1 ? "[]" : code_json;
		sv.tokens = 10 + i;
		sv.hash = i == 0 ? "aa" : i == 1 ? "bb" : "";
		sv.has_sig = i != 1;
		sv.sig = i == 0 ? -9223372036854775807LL : 42;
		if (store_writer_snippet(w, &sv, &id) == -1 || id <= first)
			okw = 0;
		first = id;
	}
	sv.document_id = *d2;
	sv.path = "guide/a.md";
	for (i = 0; i < 2; i++) {
		sv.ord = i;
		sv.title = "Guide";
		sv.breadcrumb = "";
		sv.anchor = "";
		sv.text = "Guide text.";
		sv.code = code_json;
		sv.tokens = 7;
		sv.hash = "cc";
		sv.has_sig = 1;
		sv.sig = 7;
		if (store_writer_snippet(w, &sv, &id) == -1)
			okw = 0;
	}
	sv.document_id = d3;
	sv.path = "big.md";
	for (i = 0; i < NBIG; i++) {
		sv.ord = i;
		sv.title = i % 2 ? "Odd" : "Even";
		sv.breadcrumb = "Big";
		sv.anchor = "";
		sv.text = "t";
		sv.code = "[{\"language\": \"sh\", \"code\": \"ls\"}]";
		sv.tokens = 1;
		sv.hash = "";
		sv.has_sig = 0;
		if (store_writer_snippet(w, &sv, &id) == -1)
			okw = 0;
	}
	ok(okw, "%s: %d snippets through the same statements", e, 5 + NBIG);
	rc = store_writer_document(w, &dv[0], &id);
	eq_int(rc, -1, "%s: a document path twice: refused", e);
	sv.document_id = 999999;
	rc = store_writer_snippet(w, &sv, &id);
	eq_int(rc, -1, "%s: a snippet of a missing document: refused", e);
	sv.document_id = *d1;
	sv.ord = 99;
	ok(store_writer_snippet(w, &sv, &sn) == 0 && sn > id,
	    "%s: ... the writer goes on after an error", e);
	db_stmt_run(db, "DELETE FROM snippets WHERE id = ?1", "I", sn);
	store_writer_close(w);
	ok((w = store_writer_open(db, "/acme/missing")) != NULL &&
	    store_writer_document(w, &dv[0], &id) == -1, "%s: a missing library: refused", e);
	store_writer_close(w);

	/* read back */
	ok(q_int(db, "SELECT count(*) FROM snippets WHERE library_id = ?1", "/acme/docs", 0) ==
	    5 + NBIG, "%s: ... all stored", e);
	sn = snippet_id(db, *d1, 2);
	{
		struct db_stmt	*st;
		int		 same = 0;

		if (db_prepare(db, "SELECT text, code, sig, hash FROM snippets WHERE id = ?1",
		    &st) == 0) {
			db_bind_int64(st, 1, sn);
			if (db_step(st) == DB_ROW)
				same = strcmp(db_col_text(st, 0), big) == 0 &&
				    strcmp(db_col_text(st, 1), code_json) == 0 &&
				    db_col_int64(st, 2) == 42 && strcmp(db_col_text(st, 3), "")
				    == 0 && !db_col_null(st, 3);
			db_finalize(st);
		}
		ok(same, "%s: ... 200 kB of text and the code JSON read back byte for byte", e);
		tr("long text and code: %d", same);
		same = 0;
		if (db_prepare(db, "SELECT sig FROM snippets WHERE document_id = ?1 ORDER BY ord",
		    &st) == 0) {
			db_bind_int64(st, 1, *d1);
			if (db_step(st) == DB_ROW && db_col_int64(st, 0) ==
			    -9223372036854775807LL && db_step(st) == DB_ROW && db_col_null(st, 0))
				same = 1;
			db_finalize(st);
		}
		ok(same, "%s: ... the smallest signature and a NULL one", e);
	}
	free(big);

	ok((rd = store_reader_open(db)) != NULL, "%s: a reader", e);
	if (rd == NULL)
		return;
	rc = store_reader_blob(rd, "/acme/docs", "README.md", hash, sizeof(hash));
	ok(rc == 1 && strcmp(hash, "h1") == 0, "%s: the stored hash", e);
	rc = store_reader_blob(rd, "/acme/docs", "nope.md", hash, sizeof(hash));
	ok(rc == 0 && hash[0] == '\0', "%s: ... none of a missing path", e);
	rc = store_reader_blob(rd, "/acme/docs", "README.md", small, sizeof(small));
	ok(rc == 0 && small[0] == '\0', "%s: ... none when it does not fit", e);
	ok(store_reader_reusable(rd, "/acme/docs@v1", "README.md", "h1", "/acme/docs") == 0,
	    "%s: no reuse of a library not indexed", e);
	store_reader_close(rd);

	ok(store_document_stored(db, "/acme/docs", "README.md", hash, sizeof(hash), &etag,
	    &modified, &url) == 0 && strcmp(hash, "h1") == 0 && etag != NULL &&
	    strcmp(etag, "\"e1\"") == 0 && modified == NULL && url != NULL,
	    "%s: what is stored of a document, NULL kept", e);
	tr("stored: %s %s %s %s", hash, etag ? etag : "(null)", modified ? modified :
	    "(null)", url ? url : "(null)");
	free(etag);
	free(modified);
	free(url);
	ok(store_document_validators(db, "/acme/docs", "README.md", NULL,
	    "Tue, 02 Jan 2026 00:00:00 GMT") == 0 && db_changes(db) == 1,
	    "%s: validators: the new one written", e);
	ok(store_document_validators(db, "/acme/docs", "README.md", "\"e1\"", NULL) == 0 &&
	    db_changes(db) == 0, "%s: ... the same again changes no row", e);
	ok(store_document_validators(db, "/acme/docs", "guide/a.md", "\"g\"", NULL) == 0 &&
	    db_changes(db) == 1, "%s: ... an etag where there was NULL", e);
	store_document_stored(db, "/acme/docs", "README.md", hash, sizeof(hash), &etag,
	    &modified, &url);
	tr("validators: %s %s", etag ? etag : "(null)", modified ? modified : "(null)");
	ok(etag != NULL && strcmp(etag, "\"e1\"") == 0 && modified != NULL,
	    "%s: ... the etag kept, modified set", e);
	free(etag);
	free(modified);
	free(url);
	ok(store_document_stored(db, "/acme/docs", "none.md", hash, sizeof(hash), &etag,
	    &modified, &url) == 0 && hash[0] == '\0' && etag == NULL && modified == NULL &&
	    url == NULL, "%s: ... nothing of a missing document", e);
}

/* The number of snippets of document doc. */
static long long
batch_count(struct db *db, long long doc)
{
	return q_int(db, "SELECT count(*) FROM snippets WHERE document_id = ?1", NULL, doc);
}

/*
 * Snippets written without asking for their ids (as the worker does): at once on SQLite,
 * in bounded batches on PostgreSQL (rows and bytes); a failing row fails its whole batch.
 */
static void
test_batch(struct db *db, const char *e, int pg)
{
	struct store_document_values dv = { "batch.md", "hb", "Batch", NULL, NULL, NULL };
	struct store_snippet_values sv;
	struct store_writer *w = NULL;
	long long	 doc = 0, id = 0, n;
	char		*big;
	int		 i, okw = 1, rc, rc2;

	if ((big = malloc(300001)) == NULL)
		return;
	memset(big, 'b', 300000);
	big[300000] = '\0';
	memset(&sv, 0, sizeof(sv));
	sv.breadcrumb = "Batch";
	sv.anchor = "";
	sv.code = "[]";
	sv.hash = "";
	sv.path = "batch.md";

	ok(db_begin(db) == 0 && (w = store_writer_open(db, "/acme/docs")) != NULL &&
	    store_writer_document(w, &dv, &doc) == 0, "%s: batch: a document", e);
	if (w == NULL)
		goto out;
	sv.document_id = doc;
	for (i = 0; i < 300; i++) {
		sv.ord = i;
		sv.title = i % 2 ? "Odd" : "Even";
		sv.text = "t";
		sv.tokens = i;
		sv.has_sig = i % 3 == 0;
		sv.sig = i;
		if (store_writer_snippet(w, &sv, NULL) == -1)
			okw = 0;
	}
	n = batch_count(db, doc);
	ok(okw && n == (pg ? 256 : 300), "%s: batch: 300 snippets without ids: %lld written "
	    "before the flush (a batch is 256 rows)", e, n);
	ok(store_writer_flush(w) == 0 && batch_count(db, doc) == 300,
	    "%s: batch: ... all 300 after the flush", e);
	ok(store_writer_flush(w) == 0, "%s: batch: ... a flush of nothing", e);
	n = q_int(db, "SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY ord) AS p, "
	    "sig, ord FROM snippets WHERE document_id = ?1) AS q WHERE p > id OR (ord % 3 = 0 "
	    "AND sig <> ord) OR (ord % 3 <> 0 AND sig IS NOT NULL)", NULL, doc);
	eq_int(n, 0, "%s: batch: ... ids in the order of the calls, signatures and NULLs", e);
	for (i = 0; i < 4; i++) {
		sv.ord = 300 + i;
		sv.text = big;
		if (store_writer_snippet(w, &sv, NULL) == -1)
			okw = 0;
	}
	n = batch_count(db, doc);
	ok(okw && n == 304, "%s: batch: 4 snippets of 300 kB: written once over 1 MB "
	    "(%lld)", e, n);
	sv.ord = 304;
	sv.text = "u";
	ok(store_writer_snippet(w, &sv, NULL) == 0 && store_writer_snippet(w, &(struct
	    store_snippet_values){ .document_id = doc, .ord = 305, .title = "Last",
	    .breadcrumb = "", .anchor = "", .text = "v", .code = "[]", .hash = "",
	    .path = "batch.md" }, &id) == 0 && batch_count(db, doc) == 306 &&
	    q_int(db, "SELECT max(id) FROM snippets WHERE document_id = ?1", NULL, doc) == id &&
	    q_int(db, "SELECT ord FROM snippets WHERE id = ?1", NULL, id) == 305,
	    "%s: batch: a snippet whose id is asked for: the batch written, its id given", e);
	store_writer_close(w);
	db_rollback(db);
	ok(q_int(db, "SELECT count(*) FROM documents WHERE path = ?1",
	    "batch.md", 0) == 0, "%s: batch: ... all gone with the rollback", e);

	/* a failing row (title NULL) in a batch, outside a transaction: the statement */
	ok((w = store_writer_open(db, "/acme/docs")) != NULL &&
	    store_writer_document(w, &dv, &doc) == 0, "%s: a failing batch: a document", e);
	if (w == NULL)
		goto out;
	sv.document_id = doc;
	sv.text = "t";
	rc = 0;
	for (i = 0; i < 5; i++) {
		sv.ord = i;
		sv.title = i == 3 ? NULL : "T";
		if (store_writer_snippet(w, &sv, NULL) == -1)
			rc = -1;
	}
	rc2 = store_writer_flush(w);
	n = batch_count(db, doc);
	ok((pg ? rc == 0 && rc2 == -1 && n == 0 : rc == -1 && rc2 == 0 && n == 4),
	    "%s: a failing batch: a NULL title refused %s, %lld of its rows written", e,
	    pg ? "by the flush" : "at once", n);
	sv.title = "T";
	ok(store_writer_snippet(w, &sv, NULL) == 0 && store_writer_flush(w) == 0 &&
	    batch_count(db, doc) == n + 1, "%s: a failing batch: ... the writer goes on", e);
	store_writer_close(w);
	/* in the worker's transaction: the rollback leaves nothing of the job's write */
	ok(db_stmt_run(db, "DELETE FROM documents WHERE id = ?1", "I", doc) == 0 &&
	    db_begin(db) == 0 && (w = store_writer_open(db, "/acme/docs")) != NULL &&
	    store_writer_document(w, &dv, &doc) == 0, "%s: a failing batch in a "
	    "transaction: a document", e);
	if (w == NULL)
		goto out;
	sv.document_id = doc;
	rc = 0;
	for (i = 0; i < 5; i++) {
		sv.ord = i;
		sv.title = i == 3 ? NULL : "T";
		if (store_writer_snippet(w, &sv, NULL) == -1)
			rc = -1;
	}
	if (store_writer_flush(w) == -1)
		rc = -1;
	store_writer_close(w);
	db_rollback(db);
	ok(rc == -1 && q_int(db, "SELECT count(*) FROM documents "
	    "WHERE path = ?1", "batch.md", 0) == 0 && q_int(db, "SELECT count(*) FROM "
	    "snippets WHERE document_id = ?1", NULL, doc) == 0,
	    "%s: a failing batch in a transaction: refused, nothing left after the "
	    "rollback", e);
	tr("batch: %d", rc);
out:
	db_rollback(db);
	free(big);
}

/* The index recorded, the lists of indexes. */
static void
test_indexed(struct db *db, const char *e, long long ann)
{
	struct pairs	 p = { 0, 0 };
	char		 s[1024];

	ok(store_library_indexed(db, "/acme/docs", "c0ffee", "main", "https://x/blob/", 0) ==
	    0, "%s: the index recorded", e);
	trace_library(db, "/acme/docs", ann);
	trace_versions(db, "indexed");
	ok(q_int(db, "SELECT index_version FROM libraries WHERE id = ?1", "/acme/docs", 0) == 1
	    && q_int(db, "SELECT total_tokens FROM libraries WHERE id = ?1", "/acme/docs", 0)
	    == 10 + 11 + 12 + 14 + NBIG, "%s: ... a new index_version, the tokens", e);
	ok(store_library_indexed(db, "/acme/docs@v1", "beef", "v1", "https://x/", 2) == 0 &&
	    strcmp(q_text(db, "SELECT coalesce(indexed_settings, 'null') FROM libraries "
	    "WHERE id = ?1", "/acme/docs@v1", s, sizeof(s)), "null") == 0,
	    "%s: ... no settings recorded after a retry", e);
	ok(q_int(db, "SELECT index_version FROM libraries WHERE id = ?1", "/acme/docs@v1", 0)
	    == 2, "%s: ... the next index_version", e);
	s[0] = '\0';
	ok(store_library_indexes(db, indexes_cb, s) == 0, "%s: the indexes", e);
	tr("indexes: %s", s);
	eq_str(s, "[/acme/docs initial 1 1 2605 1][/acme/docs@v0 initial 5 0 0 0]"
	    "[/acme/docs@v1 initial 4 2 0 1][/acme/managed initial 3 0 0 0]"
	    "[/acme/wiki initial 2 0 0 0]", "%s: ... in id order", e);
	ok(store_library_index_versions(db, versions_cb, &p) == 0 && p.n == 5,
	    "%s: the index versions (%lld)", e, p.n);
	tr("index versions: %lld %lld", p.n, p.sum);
	ok(store_library_index_versions(db, versions_stop_cb, NULL) == -1,
	    "%s: ... a callback's -1 stops it", e);
}

/* Dedup, the sharing of documents between versions, describe. */
static void
test_share(struct db *db, const char *e, long long d1, long long d2)
{
	struct store_reader *rd;
	struct store_doc_pairs pp = { NULL, 0, 0 };
	struct store_dup_change c[2];
	struct rows	 r;
	char		*lib = NULL, s[256];
	long long	 s0, s1, s2, g0, g1, v1doc, v0doc, id, ev;
	int		 rc;

	s0 = snippet_id(db, d1, 0);
	s1 = snippet_id(db, d1, 1);
	s2 = snippet_id(db, d1, 2);
	g0 = snippet_id(db, d2, 0);
	g1 = snippet_id(db, d2, 1);
	ok(put_vector(db, "va") == 0 && put_vector(db, "vb") == 0, "%s: vectors (bytes)", e);
	ok(db_stmt_run(db, "INSERT INTO embeddings (snippet_id, model, hash) VALUES (?1, 'm', "
	    "'va'), (?2, 'm', 'vb'), (?3, 'm', 'va'), (?4, 'm', 'vb')", "IIII", s0, s1, g0, g1)
	    == 0 && db_stmt_run(db, "INSERT INTO snippet_flags (snippet_id, library_id, rule, "
	    "excerpt) VALUES (?1, '/acme/docs', 'secret', 'x'), (?2, '/acme/docs', 'secret', "
	    "'y')", "II", s0, g1) == 0, "%s: embeddings and flags rows", e);

	/* a version shows README.md of /acme/docs */
	ok((rd = store_reader_open(db)) != NULL && (id = store_reader_reusable(rd,
	    "/acme/docs@v1", "README.md", "h1", "/acme/docs")) == d1,
	    "%s: README.md reusable by a version", e);
	ok(store_reader_reusable(rd, "/acme/docs@v1", "README.md", "other", "/acme/docs") == 0
	    && store_reader_reusable(rd, "/acme/docs", "README.md", "h1", "/acme/docs") == 0 &&
	    store_reader_reusable(rd, "/acme/wiki", "README.md", "h1", "/acme/wiki") == 0,
	    "%s: ... not with another hash, not by itself, not outside the family", e);
	store_reader_close(rd);
	ok(store_document_show(db, "/acme/docs@v1", d1) == 0 && store_document_show(db,
	    "/acme/docs@v0", d2) == 0, "%s: shown by two versions", e);
	ok(store_document_show(db, "/acme/docs@v0", 999999) == 0 && db_changes(db) == 0,
	    "%s: ... a missing document shows nothing", e);
	v1doc = document_id(db, "/acme/docs@v1", "README.md");
	v0doc = document_id(db, "/acme/docs@v0", "guide/a.md");
	ok(v1doc > 0 && v0doc > 0 && q_int(db, "SELECT shows FROM documents WHERE "
	    "library_id = ?1", "/acme/docs@v1", 0) == d1, "%s: ... the document shows its "
	    "owner's", e);

	memset(&r, 0, sizeof(r));
	r.ordered = 1;
	ok(store_dedup_rows(db, "/acme/docs@v1", dedup_cb, &r) == 0 && r.n == 3 &&
	    r.owned == 0, "%s: dedup rows of the version: 3 shown", e);
	tr("dedup v1: %s", r.s);
	memset(&r, 0, sizeof(r));
	r.ordered = 1;
	ok(store_dedup_rows(db, "/acme/docs", dedup_cb, &r) == 0 && r.n == 5 + NBIG &&
	    r.owned == r.n && r.ordered, "%s: dedup rows of the library: all %lld, by id, "
	    "past a page", e, r.n);
	ok(r.sigs == 4 && r.nulls == 1 + NBIG, "%s: ... signatures and NULLs (%lld %lld)", e,
	    r.sigs, r.nulls);
	tr("dedup docs: %lld %s", r.n, r.s);
	memset(&r, 0, sizeof(r));
	r.stop = 2500;
	ok(store_dedup_rows(db, "/acme/docs", dedup_cb, &r) == -1 && r.n == 2500,
	    "%s: ... a callback's -1 stops it", e);
	memset(&r, 0, sizeof(r));
	ok(store_dedup_rows(db, "/acme/none", dedup_cb, &r) == 0 && r.n == 0,
	    "%s: ... none of a missing library", e);
	if (db_conn_engine(db) == DB_ENGINE_POSTGRES) {
		/*
		 * One cursor walks the rows once (keyset pages re-walked the rows of other
		 * libraries for every page), closed at the end, after a callback's -1, and
		 * inside the caller's transaction, which goes on.
		 */
		memset(&r, 0, sizeof(r));
		r.pg = db;
		ok(store_dedup_rows(db, "/acme/docs", dedup_cb, &r) == 0 && r.n == 5 + NBIG &&
		    r.cursors == 1 && q_int(db, Q_CURSORS, NULL, 0) == 0,
		    "%s: ... read from one cursor, closed at the end", e);
		memset(&r, 0, sizeof(r));
		r.stop = 2500;
		ok(store_dedup_rows(db, "/acme/docs", dedup_cb, &r) == -1 &&
		    q_int(db, Q_CURSORS, NULL, 0) == 0, "%s: ... closed after a callback's -1",
		    e);
		memset(&r, 0, sizeof(r));
		r.pg = db;
		ok(db_begin(db) == 0 && store_dedup_rows(db, "/acme/docs", dedup_cb, &r) == 0 &&
		    r.n == 5 + NBIG && r.cursors == 1 && db_in_transaction(db) &&
		    q_int(db, Q_CURSORS, NULL, 0) == 0 && db_commit(db) == 0,
		    "%s: ... inside the caller's transaction, which goes on", e);
	}

	/* duplicates decided: s1 a duplicate of s0 loses its vector */
	ev = q_int(db, "SELECT embed_version FROM libraries WHERE id = ?1", "/acme/docs", 0);
	c[0].id = s1;
	c[0].old_dup = 0;
	c[0].new_dup = s0;
	c[1].id = s2;
	c[1].old_dup = 0;
	c[1].new_dup = g0;
	ok(store_dedup_apply(db, "/acme/docs", c, 2) == 0, "%s: dedup decisions written", e);
	ok(q_int(db, "SELECT count(*) FROM embeddings WHERE snippet_id = ?1", NULL, s1) == 0 &&
	    q_int(db, "SELECT count(*) FROM embeddings WHERE snippet_id = ?1", NULL, s0) == 1,
	    "%s: ... the new duplicate's vector row gone", e);
	ok(q_int(db, "SELECT embed_version FROM libraries WHERE id = ?1", "/acme/docs", 0) >
	    ev, "%s: ... a new embed_version", e);
	trace_versions(db, "dedup");
	c[0].old_dup = s0;
	c[0].new_dup = s0;
	ev = q_int(db, "SELECT embed_version FROM libraries WHERE id = ?1", "/acme/docs", 0);
	ok(store_dedup_apply(db, "/acme/docs", c, 1) == 0 && q_int(db, "SELECT embed_version "
	    "FROM libraries WHERE id = ?1", "/acme/docs", 0) == ev,
	    "%s: ... no vector dropped: the same embed_version", e);
	ok(store_dedup_apply(db, "/acme/docs", c, 0) == 0, "%s: ... none to write", e);
	memset(&r, 0, sizeof(r));
	store_dedup_rows(db, "/acme/docs@v1", dedup_cb, &r);
	ok(r.dups == 2, "%s: ... the version shows them", e);
	tr("dedup v1 after: %s", r.s);

	/* s2 is a duplicate of g0 (guide/a.md), which the version does not show */
	ok(store_share_lost(db, "/acme/docs@v1", &pp) == 0 && pp.n == 1 && pp.v[0] == v1doc
	    && pp.v[1] == d1, "%s: lost: the document showing a duplicate kept elsewhere", e);
	ok(store_share_lost(db, "/acme/docs@v0", &pp) == 0 && pp.n == 0,
	    "%s: ... none in the other version", e);
	tr("lost: %zu", pp.n);

	rc = store_share_viewer(db, d1, &id, &lib);
	ok(rc == 1 && id == v1doc && lib != NULL && strcmp(lib, "/acme/docs@v1") == 0,
	    "%s: a viewer of README.md", e);
	tr("viewer: %d %s", rc, lib ? lib : "(null)");
	free(lib);
	ok(store_share_viewer(db, v1doc, &id, &lib) == 0 && lib == NULL,
	    "%s: ... none of a document nobody shows", e);

	ok(store_share_touch(db, "/acme/docs", 0) == 0, "%s: the showing libraries touched", e);
	trace_versions(db, "touch tokens");
	ok(q_int(db, "SELECT total_tokens FROM libraries WHERE id = ?1", "/acme/docs@v1", 0) ==
	    10, "%s: ... their tokens (the kept ones shown)", e);
	ok(store_share_touch(db, "/acme/docs", 1) == 0, "%s: the family touched", e);
	trace_versions(db, "touch vectors");

	ok(store_share_heirs(db, "/acme/docs", NULL, &pp) == 0 && pp.n == 2 && pp.v[0] == d1 &&
	    pp.v[1] == v1doc && pp.v[2] == d2 && pp.v[3] == v0doc,
	    "%s: heirs: each shown owner and its first viewer", e);
	ok(store_share_heirs(db, "/acme/docs", "[\"README.md\", \"big.md\"]", &pp) == 0 &&
	    pp.n == 1 && pp.v[0] == d2, "%s: ... but the paths kept", e);
	ok(store_share_heirs(db, "/acme/docs", "[\"README.md\", \"guide/a.md\"]", &pp) == 0 &&
	    pp.n == 0, "%s: ... none when every shown one is kept", e);
	tr("heirs: %zu", pp.n);

	/* the version takes its copy of README.md: snippets, flags, vectors rows */
	ok(store_share_copy(db, "/acme/docs@v1", v1doc, d1) == 0 && store_share_own(db, v1doc)
	    == 0, "%s: a copy owned", e);
	memset(&r, 0, sizeof(r));
	ok(store_dedup_rows(db, "/acme/docs@v1", dedup_cb, &r) == 0 && r.n == 3 &&
	    r.owned == 3 && r.dups == 0, "%s: ... its own snippets, no duplicate", e);
	tr("copied: %s", r.s);
	ok(q_int(db, "SELECT count(*) FROM snippet_flags WHERE library_id = ?1",
	    "/acme/docs@v1", 0) == 1 && q_int(db, "SELECT count(*) FROM embeddings e JOIN "
	    "snippets s ON s.id = e.snippet_id WHERE s.library_id = ?1", "/acme/docs@v1", 0)
	    == 1, "%s: ... with the flags and vector rows", e);
	ok(store_share_viewer(db, d1, &id, &lib) == 0, "%s: ... nobody shows README.md", e);

	/* guide/a.md's snippets move to the version that showed them */
	ok(store_share_move(db, d2, v0doc) == 0, "%s: snippets moved to the heir", e);
	memset(&r, 0, sizeof(r));
	store_dedup_rows(db, "/acme/docs@v0", dedup_cb, &r);
	ok(r.n == 2 && r.owned == 2 && snippet_id(db, v0doc, 0) == g0,
	    "%s: ... the same snippets (ids), now the version's", e);
	tr("moved: %s", r.s);
	ok(q_int(db, "SELECT count(*) FROM snippet_flags WHERE library_id = ?1",
	    "/acme/docs@v0", 0) == 1, "%s: ... their flags too", e);
	ok(store_documents_delete(db, "/acme/docs", "[\"README.md\", \"big.md\"]") == 0 &&
	    document_id(db, "/acme/docs", "guide/a.md") == -1 && document_id(db, "/acme/docs",
	    "README.md") == d1, "%s: documents deleted but the paths kept", e);
	ok(store_documents_delete(db, "/acme/wiki", NULL) == 0, "%s: ... all of one", e);

	/* describe */
	memset(&r, 0, sizeof(r));
	r.ordered = 1;
	ok(store_describe_todo(db, "/acme/docs", describe_cb, &r) == 0 && r.n == NBIG &&
	    r.ordered, "%s: to describe: the kept code snippets not flagged, by id, past a "
	    "page (%lld)", e, r.n);
	tr("todo: %lld %s", r.n, r.s);
	memset(&r, 0, sizeof(r));
	ok(store_describe_todo(db, "/acme/docs@v1", describe_cb, &r) == 0 && r.n == 1,
	    "%s: ... of the version: its copy's code not flagged, no longer a duplicate", e);
	tr("todo v1: %lld %s", r.n, r.s);
	memset(&r, 0, sizeof(r));
	r.stop = 1500;
	ok(store_describe_todo(db, "/acme/docs", describe_cb, &r) == -1 && r.n == 1500,
	    "%s: ... a callback's -1 stops it", e);
	ok(store_describe_mark(db, snippet_id(db, document_id(db, "/acme/docs", "big.md"), 0))
	    == 0 && store_describe_apply(db, snippet_id(db, v1doc, 2), 1, "New title", 0,
	    NULL, 5) == 0 && store_describe_apply(db, snippet_id(db, v1doc, 0), 0, NULL, 1,
	    "New text", 3) == 0, "%s: described", e);
	memset(&r, 0, sizeof(r));
	store_describe_todo(db, "/acme/docs", describe_cb, &r);
	ok(r.n == NBIG - 1, "%s: ... no longer to describe", e);
	memset(&r, 0, sizeof(r));
	store_describe_todo(db, "/acme/docs@v1", describe_cb, &r);
	ok(r.n == 0, "%s: ... in the version neither", e);
	ok(strcmp(q_text(db, "SELECT title || '/' || CAST(tokens AS text) || '/' || CAST("
	    "described AS text) FROM snippets WHERE library_id = ?1 AND ord = 2",
	    "/acme/docs@v1", s, sizeof(s)), "New title/17/1") == 0, "%s: ... a title (%s)", e,
	    s);
	tr("describe title: %s", s);
	ok(strcmp(q_text(db, "SELECT text || '/' || title || '/' || CAST(tokens AS text) FROM "
	    "snippets WHERE library_id = ?1 AND ord = 0", "/acme/docs@v1", s, sizeof(s)),
	    "New text/Install/13") == 0, "%s: ... a text (%s)", e, s);
	ok(q_int(db, "SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = "
	    "e.snippet_id WHERE s.library_id = ?1", "/acme/docs@v1", 0) == 0,
	    "%s: ... its vector row dropped", e);
	ok(store_describe_apply(db, 999999, 1, "x", 0, NULL, 1) == 0,
	    "%s: ... a missing snippet: nothing", e);
	{
		char	*t = NULL, *d = NULL;

		ok(store_describe_cached(db, "bh", "m", &t, &d) == 0 && t == NULL && d == NULL,
		    "%s: nothing cached", e);
		ok(store_describe_cache_put(db, "bh", "m", "T", "D", NOW) == 0 &&
		    store_describe_cache_put(db, "bh", "m", "T2", "D2", NOW) == 0 &&
		    store_describe_cache_put(db, "bh", "m2", "T3", "", NOW) == 0,
		    "%s: cached, replaced", e);
		rc = store_describe_cached(db, "bh", "m", &t, &d);
		ok(rc == 1 && strcmp(t, "T2") == 0 && strcmp(d, "D2") == 0,
		    "%s: ... the last one read", e);
		tr("cached: %d %s %s", rc, t ? t : "(null)", d ? d : "(null)");
		free(t);
		free(d);
		ok(q_int(db, "SELECT count(*) FROM snippet_descriptions WHERE hash = ?1", "bh", 0)
		    == 2, "%s: ... one row a model", e);
	}
	free(pp.v);
}

/* State changes (the schema's rules), then deletions. */
static void
test_delete(struct db *db, const char *e, long long ann)
{
	struct store_library l;
	char		*host = NULL, **ids, s[256];
	size_t		 n;
	long long	 keep, other;

	ok(db_stmt_run(db, "INSERT INTO jobs (library_id, kind, state, created_at) VALUES "
	    "('/acme/managed', 'delete', 'queued', ?1)", "t", NOW) == 0 &&
	    db_stmt_run(db, "UPDATE libraries SET state = 'delete' WHERE id = '/acme/managed'",
	    "") == 0, "%s: a library to delete", e);
	ok(store_library_load(db, "/acme/managed", &l) == 0 && l.deleting && l.pending &&
	    strcmp(l.state, "delete") == 0, "%s: ... deleting, pending", e);
	store_library_release(&l);
	ok(db_stmt_run(db, "UPDATE libraries SET state = 'finalized' WHERE id = "
	    "'/acme/managed'", "") == 0 && strcmp(q_text(db, "SELECT state FROM libraries WHERE "
	    "id = ?1", "/acme/managed", s, sizeof(s)), "delete") == 0,
	    "%s: ... stays so while its delete job is queued", e);
	ok(store_library_managed(db, &ids, &n) == 0 && n == 0, "%s: ... not managed any more",
	    e);
	free(ids);
	trace_library(db, "/acme/managed", ann);

	keep = q_int(db, "SELECT id FROM jobs WHERE library_id = ?1", "/acme/managed", 0);
	ok(db_stmt_run(db, "INSERT INTO jobs (library_id, kind, state, created_at) VALUES "
	    "('/acme/managed', 'index', 'done', ?1)", "t", NOW) == 0, "%s: an old job", e);
	other = q_int(db, "SELECT max(id) FROM jobs WHERE library_id = ?1", "/acme/managed", 0);
	ok(db_stmt_run(db, "INSERT INTO job_log (job_id, at, level, line) VALUES (?1, ?2, "
	    "'info', 'a'), (?3, ?2, 'info', 'b')", "ItI", keep, NOW, other) == 0,
	    "%s: ... their logs", e);
	ok(store_library_delete(db, "/acme/managed", keep) == 0, "%s: deleted", e);
	ok(store_library_load(db, "/acme/managed", &l) == 0 && !l.exists,
	    "%s: ... the library gone", e);
	ok(q_int(db, "SELECT count(*) FROM jobs WHERE library_id = ?1", "/acme/managed", 0) ==
	    1 && q_int(db, "SELECT count(*) FROM job_log WHERE job_id = ?1", NULL, keep) == 1 &&
	    q_int(db, "SELECT count(*) FROM job_log WHERE job_id = ?1", NULL, other) == 0,
	    "%s: ... the delete job and its log kept, the others gone", e);
	ok(store_library_bound_host(db, "/acme/managed", &host) == 1 && host != NULL &&
	    strcmp(host, "gm2.example") == 0, "%s: ... the host binding outlives it", e);
	tr("bound after delete: %s", host ? host : "(null)");
	free(host);

	/* a library whose document another shows cannot go before it is disowned */
	ok(db_begin(db) == 0, "%s: a transaction", e);
	ok(store_library_delete(db, "/acme/docs@v1", 0) == 0 && store_library_delete(db,
	    "/acme/docs", 0) == 0, "%s: ... the library and its versions deleted", e);
	ok(store_library_delete(db, "/acme/missing", 0) == 0, "%s: ... a missing one: nothing",
	    e);
	ok(db_commit(db) == 0, "%s: ... committed", e);
	ok(q_int(db, "SELECT count(*) FROM snippets WHERE library_id IN (?1, "
	    "'/acme/docs@v1')", "/acme/docs", 0) == 0 && q_int(db, "SELECT count(*) FROM "
	    "documents WHERE library_id IN (?1, '/acme/docs@v1')", "/acme/docs", 0) == 0,
	    "%s: ... their documents and snippets gone", e);
	ok(q_int(db, "SELECT count(*) FROM embeddings", NULL, 0) == 2 && q_int(db, "SELECT "
	    "count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id WHERE "
	    "s.library_id = ?1", "/acme/docs@v0", 0) == 2,
	    "%s: ... their vector rows too, not the version's", e);
	ok(vector_same(db, "va") && vector_same(db, "vb"),
	    "%s: ... the vectors stay, byte for byte", e);
	tr("vectors: %d %d", vector_same(db, "va"), vector_same(db, "vb"));
	trace_versions(db, "end");
}

/* A library /acme/docs@v0 owns guide/a.md; the other to show it. */
static void
test_delete_shown(struct db *db, const char *e)
{
	long long	 v0doc = document_id(db, "/acme/docs@v0", "guide/a.md");
	int		 rc;

	ok(store_document_show(db, "/acme/wiki", v0doc) == 0, "%s: the wiki shows a document",
	    e);
	ok(db_begin(db) == 0, "%s: a transaction", e);
	rc = store_library_delete(db, "/acme/docs@v0", 0);
	eq_int(rc, -1, "%s: ... deleting the owner refused (a constraint)", e);
	tr("delete shown: %d", rc);
	db_rollback(db);
	ok(document_id(db, "/acme/docs@v0", "guide/a.md") == v0doc,
	    "%s: ... rolled back: nothing gone", e);
}

static void
suite(struct db *db, const char *e, int n)
{
	long long	 ann = 0, d1 = 0, d2 = 0;

	cur = trace[n];
	ok(store_user_insert(db, "ann", 0, "h", 0, &ann) == 0, "%s: a user", e);
	test_rows(db, e, ann);
	test_write(db, e, &d1, &d2);
	test_batch(db, e, n);
	test_indexed(db, e, ann);
	test_share(db, e, d1, d2);
	test_delete_shown(db, e);
	test_delete(db, e, ann);
}

/*
 * PostgreSQL's locks where SQLite has one writer: a second connection (b) to the same
 * schema, whose lock waits end after 300 ms.
 */
static void
concurrency(struct db *a, struct pg *pg)
{
	struct db	*b;
	struct store_doc_pairs pp = { NULL, 0, 0 };
	struct store_library_values v = { "https://c.example/x", "git", "", "{}", "x", "" };
	long long	 doc, va, vb;
	int		 rc;

	ok(pg_exec(pg, "SET search_path = " SCHEMA "; SET lock_timeout = '300ms'") == 0 &&
	    (b = db_conn_pg(pg)) != NULL, "postgres: a second connection");
	ok(store_library_insert(a, "/c/one", "c.example", &v, 0, 0, NOW) == 0 &&
	    store_library_insert(a, "/c/two", "c.example", &v, 0, 0, NOW) == 0,
	    "postgres: two libraries");

	/* numbers: a transaction that took one holds the others back until it ends */
	ok(db_begin(a) == 0 && store_library_bump(a, "/c/one", STORE_BUMP_TOKENS) == 0,
	    "postgres: a new index_version in an open transaction");
	rc = store_library_bump(b, "/c/two", STORE_BUMP_TOKENS);
	ok(rc == -1 && db_failure(b) == DB_FAIL_BUSY,
	    "postgres: ... another waits for it (busy)");
	ok(store_library_insert(b, "/c/three", "c.example", &v, 0, 0, NOW) == -1 &&
	    db_failure(b) == DB_FAIL_BUSY, "postgres: ... a new lib_no too");
	ok(db_commit(a) == 0 && (rc == 0 || store_library_bump(b, "/c/two",
	    STORE_BUMP_TOKENS) == 0), "postgres: ... and goes on after its commit");
	va = q_int(a, "SELECT index_version FROM libraries WHERE id = ?1", "/c/one", 0);
	vb = q_int(a, "SELECT index_version FROM libraries WHERE id = ?1", "/c/two", 0);
	ok(va > 0 && vb == va + 1, "postgres: ... distinct versions (%lld, %lld)", va, vb);

	/* heirs: the owner documents locked until the moves are done */
	ok(db_stmt_run(a, "INSERT INTO documents (library_id, path, blob, title) VALUES "
	    "('/c/one', 'a.md', 'h', 'A')", "") == 0, "postgres: a document");
	doc = document_id(a, "/c/one", "a.md");
	ok(db_begin(a) == 0 && store_share_heirs(a, "/c/one", NULL, &pp) == 0 && pp.n == 0,
	    "postgres: heirs chosen in an open transaction");
	ok(store_document_show(b, "/c/two", doc) == -1 && db_failure(b) == DB_FAIL_BUSY,
	    "postgres: ... a new viewer waits for it (busy)");
	ok(store_library_delete(a, "/c/one", 0) == 0 && db_commit(a) == 0,
	    "postgres: ... the owner deleted");
	ok(store_document_show(b, "/c/two", doc) == 0 && db_changes(b) == 0,
	    "postgres: ... then the viewer finds nothing to show");
	free(pp.v);
	db_conn_free(b);
}

int
main(void)
{
	const char	*url = dbh_pg_url();
	struct db	*db = NULL, *pdb = NULL;
	struct pg	*pg2;
	char		 dir[256], err[256] = "";
	size_t		 i;
	int		 rc;

	for (i = 0; i < sizeof(vec); i++)
		vec[i] = (unsigned char)(i * 37 + (i == 0 ? 0 : 1)) ^ (i % 2 ? 0x80 : 0);
	vec[0] = 0;
	vec[1] = 0xff;
	if (dbh_open(dir, sizeof(dir), &db) == -1) {
		ok(0, "a SQLite database in a temporary DATA_DIR");
		return tap_done();
	}
	suite(db, "sqlite", 0);
	if (url == NULL || *url == '\0')
		printf("# DATABASE_URL unset: PostgreSQL is not tried\n");
	else if ((rc = dbh_pg_open(SCHEMA, &pdb, err, sizeof(err))) != 0)
		ok(0, "postgres: a schema of the test's own (%s)", err);
	else {
		ok(db_conn_engine(pdb) == DB_ENGINE_POSTGRES, "postgres: a connection");
		suite(pdb, "postgres", 1);
		is_str(trace[1], trace[0], "SQLite and PostgreSQL answered alike");
		if ((pg2 = pg_connect(url, err, sizeof(err))) == NULL)
			ok(0, "postgres: a second connection: %s", err);
		else {
			concurrency(pdb, pg2);
			pg_close(pg2);
		}
		ok(dbh_pg_close(pdb, SCHEMA) == 0, "postgres: the schema dropped");
	}
	dbh_remove(dir, db);
	return tap_done();
}
