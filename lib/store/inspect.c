/* store/inspect.c: the database as it is, for the doctor and the health probe. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/log.h"
#include "base/util.h"
#include "store/inspect.h"
#include "store/conn.h"

/* Engine: opens SQLite's file directly, read-only, without db_open's setup. */
struct db *
store_inspect_open(const char *dir)
{
	struct db	*db = NULL;
	char	*path = util_path_join(dir, "ctxd.db");

	if (path == NULL || access(path, R_OK) != 0 ||
	    db_lite_open(path, SQLITE_OPEN_READONLY, &db) != SQLITE_OK) {
		if (db != NULL)
			db_lite_close(db);
		db = NULL;
	} else
		sqlite3_busy_timeout(db_lite(db), 5000);
	free(path);
	return db;
}

/* Engine: date(at, 'unixepoch') turns the Unix time into its day. */
int
store_inspect_last_upgrade(struct db *db, int *from, char *release, size_t releasesz,
    char *day, size_t daysz)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT from_version, release, date(at, "
	    "'unixepoch') FROM schema_history ORDER BY id DESC LIMIT 1", -1, &st,
	    NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		*from = sqlite3_column_int(st, 0);
		snprintf(release, releasesz, "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(day, daysz, "%s", (const char *)sqlite3_column_text(st, 2));
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_inspect_counts(struct db *db, long long *queued, long long *running,
    long long *libraries)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT (SELECT count(*) FROM jobs WHERE state = "
	    "'queued'), (SELECT count(*) FROM jobs WHERE state = 'running'), (SELECT "
	    "count(*) FROM libraries)", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			*queued = sqlite3_column_int64(st, 0);
			*running = sqlite3_column_int64(st, 1);
			*libraries = sqlite3_column_int64(st, 2);
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	if (rc == -1)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	return rc;
}
