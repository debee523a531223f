/* store/inspect.c: the database as it is, for the doctor and the health probe. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/inspect.h"
#include "store/conn.h"
#include "store/pg.h"

/*
 * PostgreSQL (DATABASE_URL): a connection of its own whose transactions are read only,
 * locks waited for 5 s, without db_open's migration or version check (the doctor reports
 * an older or newer schema itself).
 */
static struct db *
store_inspect_open_pg(const char *url, char *why, size_t whysz)
{
	return db_connect_pg(url, "SET default_transaction_read_only = on; "
	    "SET lock_timeout = 5000", why, whysz);
}

/*
 * Engine: SQLite's file is opened directly, read-only, without db_open's setup (that
 * part is SQLite's by nature: a file in DATA_DIR, SQLite's open flags), its busy timeout
 * that of this connection only (db_busy_timeout is the process's); PostgreSQL's database
 * of DATABASE_URL with a read-only connection.
 */
struct db *
store_inspect_connect(const char *dir, char *why, size_t whysz)
{
	struct db	*db = NULL;
	struct db_stmt	*st = NULL;
	char		*path;

	snprintf(why, whysz, "cannot be read");
	if (db_url() != NULL)
		return store_inspect_open_pg(db_url(), why, whysz);
	path = util_path_join(dir, "ctxd.db");
	if (path == NULL || access(path, R_OK) != 0 ||
	    db_lite_open(path, SQLITE_OPEN_READONLY, &db) != SQLITE_OK ||
	    db_prepare(db, "PRAGMA busy_timeout = 5000", &st) == -1 || db_step(st) == -1) {
		db_finalize(st);
		db_lite_close(db);
		db = NULL;
	} else
		db_finalize(st);
	free(path);
	return db;
}

struct db *
store_inspect_open(const char *dir)
{
	struct db	*db;
	char		 why[512];

	if ((db = store_inspect_connect(dir, why, sizeof(why))) == NULL && db_url() != NULL)
		log_err("cannot connect to PostgreSQL (DATABASE_URL): %s", why);
	return db;
}

int
store_inspect_where(char *out, size_t outsz)
{
	if (db_url() == NULL) {
		snprintf(out, outsz, "SQLite %s", sqlite3_libversion());
		return 0;
	}
	return pg_url_describe(db_url(), out, outsz);
}

const char *
store_inspect_server(struct db *db)
{
	static char	 v[64];

	if (db == NULL || db->pg == NULL)
		snprintf(v, sizeof(v), "SQLite %s", sqlite3_libversion());
	else
		snprintf(v, sizeof(v), "PostgreSQL %s", pg_server_version(db->pg));
	return v;
}

/* The day (YYYY-MM-DD, UTC) of schema_history's Unix time is made here for both engines. */
int
store_inspect_last_upgrade(struct db *db, int *from, char *release, size_t releasesz,
    char *day, size_t daysz)
{
	struct db_stmt	*st = NULL;
	struct tm	 tm;
	time_t		 at;
	char		 ymd[32];
	int		 rc = -1;

	if (db_prepare(db, "SELECT from_version, release, at FROM schema_history ORDER BY "
	    "id DESC LIMIT 1", &st) == 0 && db_step(st) == DB_ROW) {
		at = (time_t)db_col_int64(st, 2);
		if (gmtime_r(&at, &tm) == NULL ||
		    strftime(ymd, sizeof(ymd), "%Y-%m-%d", &tm) == 0)
			ymd[0] = '\0';
		*from = (int)db_col_int64(st, 0);
		snprintf(release, releasesz, "%s", db_col_text(st, 1));
		snprintf(day, daysz, "%s", ymd);
		rc = 0;
	}
	db_finalize(st);
	return rc;
}

int
store_inspect_counts(struct db *db, long long *queued, long long *running,
    long long *libraries)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_prepare(db, "SELECT (SELECT count(*) FROM jobs WHERE state = 'queued'), "
	    "(SELECT count(*) FROM jobs WHERE state = 'running'), (SELECT count(*) FROM "
	    "libraries)", &st) == 0) {
		if (db_step(st) == DB_ROW) {
			*queued = db_col_int64(st, 0);
			*running = db_col_int64(st, 1);
			*libraries = db_col_int64(st, 2);
			rc = 0;
		}
		db_finalize(st);
	}
	if (rc == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	return rc;
}
