/*
 * db-helpers.h: a database for the tests of the query path (test-mcp.c, fuzz-mcp.c): a
 * temporary DATA_DIR with the schema and small libraries, indexed as the worker leaves
 * them (documents, snippets, an indexed commit). Include after ctxd.h. All static
 * inline, so a test that uses only some of them builds without unused-function warnings.
 */
#ifndef DB_HELPERS_H
#define DB_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/db.h"
#include "store/conn.h"
#include "store/pg.h"
#include "store/pgstore.h"

/* One snippet of a test library. */
struct dbh_snippet {
	const char	*title;
	const char	*text;
	const char	*code;		/* JSON [{"language": …, "code": …}] */
};

/*
 * DATABASE_URL as the test process found it (NULL: unset or empty). dbh_open unsets it, so
 * that db_open there opens SQLite; a test of both engines reaches PostgreSQL through
 * dbh_pg_open.
 */
static inline const char *
dbh_pg_url(void)
{
	static char	 url[1024];
	static int	 got;
	const char	*u;

	if (!got) {
		u = getenv("DATABASE_URL");
		snprintf(url, sizeof(url), "%s", u != NULL ? u : "");
		got = 1;
	}
	return url[0] != '\0' ? url : NULL;
}

/*
 * Creates a temporary directory (under $TMPDIR, else /tmp) into dir (at least 64 bytes),
 * sets DATA_DIR to it and opens the database there read-write, creating the schema. The
 * database is SQLite whatever DATABASE_URL says (see dbh_pg_url).
 */
static inline int
dbh_open(char *dir, size_t dirsz, struct db **db)
{
	const char	*tmp = getenv("TMPDIR");

	(void)dbh_pg_url();
	unsetenv("DATABASE_URL");

	snprintf(dir, dirsz, "%s/ctxd-unit.XXXXXX", tmp != NULL && *tmp != '\0' ? tmp :
	    "/tmp");
	if (mkdtemp(dir) == NULL || setenv("DATA_DIR", dir, 1) == -1)
		return -1;
	return db_open(dir, DB_READWRITE, db);
}

/*
 * A PostgreSQL connection to dbh_pg_url's server in a schema of the test's own (dropped
 * first if a killed run left it), with the store's schema (pgstore_migrate): 0, or -1 with
 * why in err. 1 (nothing opened) when DATABASE_URL was unset. Close with dbh_pg_close.
 */
static inline int
dbh_pg_open(const char *schema, struct db **out, char *err, size_t errlen)
{
	struct pg	*pg;
	char		 sql[256];
	int		 from;

	*out = NULL;
	if (dbh_pg_url() == NULL)
		return 1;
	if ((pg = pg_connect(dbh_pg_url(), err, errlen)) == NULL)
		return -1;
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s; "
	    "SET search_path = %s", schema, schema, schema);
	if (pg_exec(pg, sql) == -1) {
		snprintf(err, errlen, "%s", pg_errmsg(pg));
		pg_close(pg);
		return -1;
	}
	if (pgstore_migrate(pg, &from, err, errlen) == -1 || (*out = db_conn_pg(pg)) == NULL) {
		pg_close(pg);
		return -1;
	}
	return 0;
}

/* Drops dbh_pg_open's schema and closes its connection: 0, or -1. */
static inline int
dbh_pg_close(struct db *db, const char *schema)
{
	char	 sql[128];
	int	 rc;

	if (db == NULL)
		return 0;
	snprintf(sql, sizeof(sql), "SET search_path = public; DROP SCHEMA %s CASCADE", schema);
	rc = db_exec(db, sql);
	db_close(db);
	return rc;
}

/* Closes db and removes the directory dbh_open made. */
static inline void
dbh_remove(const char *dir, struct db *db)
{
	static const char *const files[] = { "ctxd.db", "ctxd.db-wal", "ctxd.db-shm" };
	char		 path[1024];
	size_t		 i;
	int		 n;

	db_close(db);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		n = snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (n > 0 && (size_t)n < sizeof(path))
			unlink(path);
	}
	rmdir(dir);
}

/*
 * Adds library id with number lib_no in state (finalized, initial, error…); indexed 1
 * gives it an index (an indexed commit) made of the n snippets sn, in one document.
 */
static inline int
dbh_library(struct db *db, const char *id, int lib_no, const char *state, int indexed,
    const struct dbh_snippet *sn, size_t n)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO libraries (id, lib_no, url, host, title, "
	    "description, state, indexed_commit, last_error, total_snippets, created_at, "
	    "updated_at) VALUES (?1, ?2, 'https://git.example/' || ?1, 'git.example', "
	    "substr(?1, 2), 'Docs of ' || ?1, ?3, CASE WHEN ?4 THEN 'c0ffee' END, "
	    "CASE WHEN ?3 = 'error' THEN 'the clone failed' END, ?5, 'x', 'x')", -1, &st,
	    NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, lib_no);
	sqlite3_bind_text(st, 3, state, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, indexed);
	sqlite3_bind_int(st, 5, (int)n);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO documents (id, library_id, path, blob, title) "
	    "VALUES (?1, ?2, 'README.md', 'b', 'Readme')", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int(st, 1, lib_no);
	sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	for (i = 0; i < n; i++) {
		sqlite3_finalize(st);
		if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO snippets (id, library_id, "
		    "document_id, ord, title, breadcrumb, anchor, text, code, tokens) VALUES "
		    "(?1, ?2, ?3, ?1, ?4, ?4, '', ?5, ?6, 20)", -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_int(st, 1, lib_no * 100 + (int)i);
		sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, lib_no);
		sqlite3_bind_text(st, 4, sn[i].title, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, sn[i].text, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, sn[i].code, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		fprintf(stderr, "dbh_library %s: %s\n", id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}

#endif
