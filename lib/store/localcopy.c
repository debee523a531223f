/* store/localcopy.c: a library's local copy (store/localcopy.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/log.h"
#include "base/util.h"
#include "store/conn.h"
#include "store/db.h"
#include "store/localcopy.h"
#include "store/stmt.h"

/* Documents a page of the build reads (four statements a page). */
#define LOCALCOPY_PAGE	256

/*
 * The copy's schema: the columns store/query.c's SQLite statements read, under the names
 * of the store's own schema (lib/store/sql_schema.c), and the view library_snippets as
 * the store defines it; copy_of says whose copy it is. The indexes are those the
 * statements use, made after the rows.
 */
static const char localcopy_schema_sql[] =
    "PRAGMA journal_mode = OFF;"
    "PRAGMA synchronous = OFF;"
    "CREATE TABLE copy_of (library_id TEXT NOT NULL, lib_no INTEGER NOT NULL, "
    "index_version INTEGER NOT NULL);"
    "CREATE TABLE libraries (id TEXT PRIMARY KEY, version_of TEXT, blob_prefix TEXT, "
    "indexed_commit TEXT);"
    "CREATE TABLE documents (id INTEGER PRIMARY KEY, library_id TEXT NOT NULL, "
    "shows INTEGER NOT NULL, path TEXT NOT NULL, title TEXT NOT NULL, url TEXT);"
    "CREATE TABLE snippets (id INTEGER PRIMARY KEY, library_id TEXT NOT NULL, "
    "document_id INTEGER NOT NULL, ord INTEGER NOT NULL, title TEXT NOT NULL, "
    "breadcrumb TEXT NOT NULL, anchor TEXT NOT NULL, text TEXT NOT NULL, "
    "code TEXT NOT NULL, tokens INTEGER NOT NULL);"
    "CREATE TABLE snippet_flags (snippet_id INTEGER NOT NULL, library_id TEXT NOT NULL, "
    "rule TEXT NOT NULL, PRIMARY KEY (snippet_id, rule)) WITHOUT ROWID;"
    "CREATE VIEW library_snippets AS SELECT d.library_id AS library_id, d.id AS "
    "document_id, s.id AS id, s.library_id AS owner_id, s.document_id AS "
    "owner_document_id, s.ord AS ord, s.title AS title, s.breadcrumb AS breadcrumb, "
    "s.anchor AS anchor, s.text AS text, s.code AS code, s.tokens AS tokens "
    "FROM documents d JOIN snippets s ON s.document_id = d.shows;"
    "BEGIN;";
static const char localcopy_index_sql[] =
    "CREATE INDEX snippets_document ON snippets(document_id, ord);"
    "CREATE INDEX documents_shown ON documents(library_id, shows);"
    "CREATE INDEX snippet_flags_library ON snippet_flags(library_id, snippet_id);"
    "COMMIT;";

/*
 * The reads, on the store (PostgreSQL): ?1 the library; a page is its documents ?2 < id <= ?3
 * (the first ?3 after ?2, in order of id).
 */
static const char localcopy_lib_sql[] =
    "SELECT lib_no, index_version, blob_prefix, indexed_commit, total_snippets FROM "
    "libraries WHERE id = ?1";
static const char localcopy_docs_sql[] =
    "SELECT id, library_id, shows, path, title, url FROM documents WHERE library_id = ?1 "
    "AND id > ?2 ORDER BY id LIMIT ?3";
/* the documents another version owns that the page's show (their path: docpath) */
static const char localcopy_owners_sql[] =
    "SELECT o.id, o.library_id, o.shows, o.path, o.title, o.url FROM documents d JOIN "
    "documents o ON o.id = d.shows WHERE d.library_id = ?1 AND d.id > ?2 AND d.id <= ?3 "
    "AND o.id <> d.id";
static const char localcopy_snippets_sql[] =
    "SELECT s.id, s.library_id, s.document_id, s.ord, s.title, s.breadcrumb, s.anchor, "
    "s.text, s.code, s.tokens FROM documents d JOIN snippets s ON s.document_id = d.shows "
    "WHERE d.library_id = ?1 AND d.id > ?2 AND d.id <= ?3";
static const char localcopy_flags_sql[] =
    "SELECT f.snippet_id, f.rule FROM documents d JOIN snippets s ON s.document_id = "
    "d.shows JOIN snippet_flags f ON f.snippet_id = s.id WHERE d.library_id = ?1 AND "
    "d.id > ?2 AND d.id <= ?3";

/* The writes, on the copy (a document or snippet shown twice is written once). */
static const char localcopy_put_doc_sql[] =
    "INSERT OR IGNORE INTO documents (id, library_id, shows, path, title, url) VALUES "
    "(?1, ?2, ?3, ?4, ?5, ?6)";
static const char localcopy_put_snippet_sql[] =
    "INSERT OR IGNORE INTO snippets (id, library_id, document_id, ord, title, breadcrumb, "
    "anchor, text, code, tokens) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
/* a flag carries the copy's library (what store_query_any_flagged's family join needs) */
static const char localcopy_put_flag_sql[] =
    "INSERT OR IGNORE INTO snippet_flags (snippet_id, rule, library_id) VALUES (?1, ?2, ?3)";

/* The copy being written: the source's statements and the copy's. */
struct localcopy_build {
	struct db	*src, *dst;
	const char	*library_id;
	struct db_stmt	*docs, *owners, *snippets, *flags;
	struct db_stmt	*put_doc, *put_snippet, *put_flag;
	long long	 nsnippets;
};

/* Binds column i of the source's row as parameter i + 1 of the copy's statement. */
static void
localcopy_bind_col(struct db_stmt *to, struct db_stmt *from, int i, int number)
{
	if (db_col_null(from, i))
		db_bind_null(to, i + 1);
	else if (number)
		db_bind_int64(to, i + 1, db_col_int64(from, i));
	else
		db_bind_text(to, i + 1, db_col_text(from, i));
}

/*
 * Runs the source's statement st (bound) and writes each row with put: numbers says which
 * of its ncols columns are numbers ('1'); the copy's library id is parameter ncols + 1
 * when with_lib. The last document id read into *last when last is not NULL. The rows
 * read, or -1 (logged).
 */
static long long
localcopy_move(struct localcopy_build *b, struct db_stmt *st, struct db_stmt *put,
    const char *numbers, int ncols, int with_lib, long long *last)
{
	long long	 n = 0;
	int		 step, i;

	while ((step = db_step(st)) == DB_ROW) {
		db_reset(put);
		for (i = 0; i < ncols; i++)
			localcopy_bind_col(put, st, i, numbers[i] == '1');
		if (with_lib)
			db_bind_text(put, ncols + 1, b->library_id);
		if (db_step(put) != DB_DONE) {
			log_err("%s: %s: the copy: %s", __func__, b->library_id,
			    db_conn_errmsg(b->dst));
			db_reset(put);
			db_reset(st);
			return -1;
		}
		db_reset(put);
		if (last != NULL)
			*last = db_col_int64(st, 0);
		n++;
	}
	if (step != DB_DONE) {
		log_err("%s: %s: %s", __func__, b->library_id, db_conn_errmsg(b->src));
		db_reset(st);
		return -1;
	}
	db_reset(st);
	return n;
}

/*
 * Copies a page of the documents after *after, the documents they show, their snippets
 * and flags, and moves *after to its last: 1 when more may follow, 0 done, -1 (logged).
 */
static int
localcopy_page(struct localcopy_build *b, long long *after)
{
	struct db_stmt	*range[] = { b->owners, b->snippets, b->flags };
	long long	 last = *after, n, k;
	size_t		 i;

	db_bind_text(b->docs, 1, b->library_id);
	db_bind_int64(b->docs, 2, *after);
	db_bind_int64(b->docs, 3, LOCALCOPY_PAGE);
	if ((n = localcopy_move(b, b->docs, b->put_doc, "101000", 6, 0, &last)) <= 0)
		return (int)n;
	for (i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		db_bind_text(range[i], 1, b->library_id);
		db_bind_int64(range[i], 2, *after);
		db_bind_int64(range[i], 3, last);
	}
	if (localcopy_move(b, b->owners, b->put_doc, "101000", 6, 0, NULL) == -1 ||
	    (k = localcopy_move(b, b->snippets, b->put_snippet, "1011000001", 10, 0,
	    NULL)) == -1 ||
	    localcopy_move(b, b->flags, b->put_flag, "10", 2, 1, NULL) == -1)
		return -1;
	b->nsnippets += k;
	*after = last;
	return n == LOCALCOPY_PAGE;
}

/* Writes the copy into the open file b->dst, the source in its read transaction. */
static int
localcopy_fill(struct localcopy_build *b, long long lib_no, long long index_version,
    const char *blob_prefix, const char *commit)
{
	long long	 after = 0;
	int		 more;

	if (db_exec(b->dst, localcopy_schema_sql) == -1 ||
	    db_run(b->dst, "INSERT INTO copy_of (library_id, lib_no, index_version) VALUES "
	    "(?1, ?2, ?3)", "tII", b->library_id, lib_no, index_version) == -1 ||
	    db_run(b->dst, "INSERT INTO libraries (id, version_of, blob_prefix, "
	    "indexed_commit) VALUES (?1, NULL, ?2, ?3)", "ttt", b->library_id, blob_prefix,
	    commit) == -1)
		return -1;
	if (db_prepare(b->src, localcopy_docs_sql, &b->docs) == -1 ||
	    db_prepare(b->src, localcopy_owners_sql, &b->owners) == -1 ||
	    db_prepare(b->src, localcopy_snippets_sql, &b->snippets) == -1 ||
	    db_prepare(b->src, localcopy_flags_sql, &b->flags) == -1) {
		log_err("%s: %s: %s", __func__, b->library_id, db_conn_errmsg(b->src));
		return -1;
	}
	if (db_prepare(b->dst, localcopy_put_doc_sql, &b->put_doc) == -1 ||
	    db_prepare(b->dst, localcopy_put_snippet_sql, &b->put_snippet) == -1 ||
	    db_prepare(b->dst, localcopy_put_flag_sql, &b->put_flag) == -1) {
		log_err("%s: %s: the copy: %s", __func__, b->library_id,
		    db_conn_errmsg(b->dst));
		return -1;
	}
	while ((more = localcopy_page(b, &after)) == 1)
		;
	if (more == -1)
		return -1;
	return db_exec(b->dst, localcopy_index_sql);
}

int
localcopy_build(struct db *db, const char *library_id, long long lib_no,
    long long index_version, long long max_snippets, const char *path)
{
	struct localcopy_build b;
	struct db_stmt	*st = NULL;
	char		 tmp[4096], *blob_prefix = NULL, *commit = NULL;
	const char	*name, *slash;
	long long	 t0 = util_now_ms(), total = 0;
	int		 rc = -1, step, began = 0;

	memset(&b, 0, sizeof(b));
	b.src = db;
	b.library_id = library_id;
	name = (slash = strrchr(path, '/')) != NULL ? slash + 1 : path;
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.%ld.tmp", (int)(name - path), path, name,
	    (long)getpid()) >= (int)sizeof(tmp)) {
		log_err("%s: %s: path too long", __func__, path);
		return -1;
	}
	(void)unlink(tmp);
	/* one snapshot: the library's rows as of one committed version */
	if (db_begin_read(db) == -1)
		goto out;
	began = 1;
	if (db_prepare(db, localcopy_lib_sql, &st) == -1) {
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
		goto out;
	}
	db_bind_text(st, 1, library_id);
	if ((step = db_step(st)) != DB_ROW) {
		if (step == DB_DONE) {
			log_info("%s: %s: no such library any more: no local copy", __func__,
			    library_id);
			rc = 1;
		} else
			log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
		goto out;
	}
	if (db_col_int64(st, 0) != lib_no || db_col_int64(st, 1) != index_version) {
		log_info("%s: %s: at index version %lld now, not %lld: no local copy of %lld",
		    __func__, library_id, db_col_int64(st, 1), index_version, index_version);
		rc = 1;
		goto out;
	}
	total = db_col_int64(st, 4);
	if (total > max_snippets) {
		log_info("%s: %s: %lld snippets, more than a local copy holds (%lld): its "
		    "answers read the database", __func__, library_id, total, max_snippets);
		rc = 1;
		goto out;
	}
	if ((!db_col_null(st, 2) && (blob_prefix = strdup(db_col_text(st, 2))) == NULL) ||
	    (!db_col_null(st, 3) && (commit = strdup(db_col_text(st, 3))) == NULL)) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	db_finalize(st);
	st = NULL;
	if (db_lite_open(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, &b.dst) != SQLITE_OK) {
		log_err("%s: %s: cannot create %s", __func__, library_id, tmp);
		goto out;
	}
	if (localcopy_fill(&b, lib_no, index_version, blob_prefix, commit) == -1)
		goto out;
	db_finalize(b.put_doc);
	db_finalize(b.put_snippet);
	db_finalize(b.put_flag);
	b.put_doc = b.put_snippet = b.put_flag = NULL;
	if (db_lite_close(b.dst) != SQLITE_OK) {
		b.dst = NULL;
		log_err("%s: %s: cannot close %s", __func__, library_id, tmp);
		goto out;
	}
	b.dst = NULL;
	if (util_fsync_path(tmp) == -1 || rename(tmp, path) == -1) {
		log_err("%s: %s: %s: %s", __func__, library_id, path, strerror(errno));
		goto out;
	}
	/* the new name on disk too (a copy lost in a crash would only be built again) */
	if (snprintf(tmp, sizeof(tmp), "%.*s", (int)(name - path), path) < (int)sizeof(tmp) &&
	    util_fsync_path(name == path ? "." : tmp) == -1)
		log_warn("%s: %s: fsync of its folder: %s", __func__, path, strerror(errno));
	log_info("%s: local copy %s written: %lld snippets in %lld ms", library_id, path,
	    b.nsnippets, util_now_ms() - t0);
	rc = 0;
out:
	db_finalize(st);
	db_finalize(b.docs);
	db_finalize(b.owners);
	db_finalize(b.snippets);
	db_finalize(b.flags);
	db_finalize(b.put_doc);
	db_finalize(b.put_snippet);
	db_finalize(b.put_flag);
	if (b.dst != NULL)
		(void)db_lite_close(b.dst);
	if (rc != 0)
		(void)unlink(tmp);
	if (began)
		db_rollback(db);	/* read only: nothing to keep */
	free(blob_prefix);
	free(commit);
	return rc;
}

/* The URI "file:<path>?immutable=1", path's '%', '?' and '#' escaped: 0, or -1 (too long). */
static int
localcopy_uri(const char *path, char *uri, size_t urisz)
{
	size_t	 n = 0;
	int	 k;

	if ((k = snprintf(uri, urisz, "file:")) < 0 || (size_t)k >= urisz)
		return -1;
	n = (size_t)k;
	for (; *path != '\0'; path++) {
		if (n + 4 >= urisz)
			return -1;
		if (*path == '%' || *path == '?' || *path == '#')
			n += (size_t)snprintf(uri + n, urisz - n, "%%%02X", (unsigned char)*path);
		else
			uri[n++] = *path;
	}
	uri[n] = '\0';
	if ((k = snprintf(uri + n, urisz - n, "?immutable=1")) < 0 || (size_t)k >= urisz - n)
		return -1;
	return 0;
}

struct db *
localcopy_open(const char *path, const char *library_id, long long lib_no,
    long long index_version, char *why, size_t whysz)
{
	struct db	*db = NULL;
	struct db_stmt	*st = NULL;
	char		 uri[4200];
	int		 rc;

	*why = '\0';
	if (access(path, F_OK) == -1) {
		snprintf(why, whysz, "%s", strerror(errno));
		return NULL;
	}
	/*
	 * Immutable: a copy is never written once renamed into place (a new version is
	 * another file), so SQLite takes no file lock and looks for no journal at each
	 * statement (two fcntl and a stat each: a quarter of a question's time on a VM).
	 */
	if (localcopy_uri(path, uri, sizeof(uri)) == -1) {
		snprintf(why, whysz, "path too long");
		errno = EINVAL;
		return NULL;
	}
	if ((rc = db_lite_open(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
	    SQLITE_OPEN_NOMUTEX, &db)) != SQLITE_OK) {
		snprintf(why, whysz, "%s", sqlite3_errstr(rc));
		errno = EINVAL;
		return NULL;
	}
	sqlite3_db_config(db_lite(db), SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db_lite(db), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	if (db_prepare(db, "SELECT library_id, lib_no, index_version FROM copy_of", &st) ==
	    -1 || db_step(st) != DB_ROW) {
		snprintf(why, whysz, "not a local copy: %s", db_conn_errmsg(db));
		goto bad;
	}
	if (strcmp(db_col_text(st, 0), library_id) != 0 || db_col_int64(st, 1) != lib_no ||
	    db_col_int64(st, 2) != index_version) {
		snprintf(why, whysz, "the copy of another library or version");
		goto bad;
	}
	db_finalize(st);
	/* its pages mapped, as the segments are: the node's page cache holds them once */
	if (db_exec(db, "PRAGMA mmap_size = 1073741824; PRAGMA cache_size = 0") == -1) {
		snprintf(why, whysz, "%s", db_conn_errmsg(db));
		st = NULL;
		goto bad;
	}
	return db;
bad:
	db_finalize(st);
	(void)db_lite_close(db);
	errno = EINVAL;
	return NULL;
}

static const char localcopy_libraries_sql[] =
    "SELECT id, lib_no, index_version, total_snippets FROM libraries WHERE "
    "indexed_commit IS NOT NULL AND state <> 'delete' ORDER BY lib_no";

int
localcopy_libraries(struct db *db, void (*fn)(const struct localcopy_lib *, void *),
    void *arg)
{
	struct db_stmt	*st;
	struct localcopy_lib lib;
	int		 step;

	if (db_prepare(db, localcopy_libraries_sql, &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	while ((step = db_step(st)) == DB_ROW) {
		lib.id = db_col_text(st, 0);
		lib.lib_no = db_col_int64(st, 1);
		lib.index_version = db_col_int64(st, 2);
		lib.snippets = db_col_int64(st, 3);
		fn(&lib, arg);
	}
	if (step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return step == DB_DONE ? 0 : -1;
}
