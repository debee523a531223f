/* store/backup.c: the database side of backup and restore (see store/backup.h). */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/backup.h"
#include "store/db.h"
#include "store/conn.h"

int
store_backup_create(const char *path, mode_t mode, struct db **dst)
{
	int	 fd, rc;

	unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode)) == -1) {
		log_err("%s: %s: %s", __func__, path, strerror(errno));
		return -1;
	}
	close(fd);
	if ((rc = db_lite_open(path, SQLITE_OPEN_READWRITE, dst)) != SQLITE_OK) {
		log_err("%s: %s: %s", __func__, path, sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

int
store_backup_copy(struct db *src, struct db *dst)
{
	sqlite3_backup	*b;
	int		 rc;

	if ((b = sqlite3_backup_init(db_lite(dst), "main", db_lite(src), "main")) == NULL) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(dst)));
		return -1;
	}
	/* One step: one read transaction on src, hence one consistent snapshot. */
	while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED)
		sqlite3_sleep(100);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

int
store_backup_settle(struct db *dst)
{
	return db_exec(dst, "PRAGMA journal_mode = DELETE");
}

int
store_backup_close(struct db *db, const char *path)
{
	int	 rc;

	if ((rc = db_lite_close(db)) != SQLITE_OK) {
		log_err("%s: %s: %s", __func__, path, sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

int
store_backup_put_secret(struct db *db, const unsigned char *key, size_t len)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (db_exec(db, "CREATE TABLE backup_secret (key BLOB NOT NULL)") == -1)
		return -1;
	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO backup_secret (key) VALUES (?1)", -1,
	    &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_blob(st, 1, key, (int)len, SQLITE_TRANSIENT) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

int
store_backup_get_secret(struct db *db, unsigned char *key, size_t len)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT key FROM backup_secret", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;		/* made without --with-secret */
	if (sqlite3_step(st) != SQLITE_ROW ||
	    sqlite3_column_bytes(st, 0) != (int)len)
		log_err("%s: the secret key in the backup is damaged", __func__);
	else {
		memcpy(key, sqlite3_column_blob(st, 0), len);
		rc = 1;
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_backup_drop_secret(struct db *db)
{
	return db_exec(db, "DROP TABLE backup_secret");
}

int
store_backup_open(const char *file, struct db **db, char *err, size_t errsz)
{
	*db = NULL;
	int	 rc;

	if ((rc = db_lite_open(file, SQLITE_OPEN_READONLY, db)) != SQLITE_OK) {
		snprintf(err, errsz, "cannot open %s: %s", file, sqlite3_errstr(rc));
		*db = NULL;
		return -1;
	}
	return 0;
}

int
store_backup_check(struct db *db, char *err, size_t errsz)
{
	sqlite3_stmt	*st = NULL;
	const char	*v;
	int		 version = -1, rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errsz, "not an SQLite database (%s)", sqlite3_errmsg(db_lite(db)));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW ||
	    (v = (const char *)sqlite3_column_text(st, 0)) == NULL || strcmp(v, "ok") != 0) {
		snprintf(err, errsz, "the integrity check fails (%s)",
		    sqlite3_errcode(db_lite(db)) == SQLITE_ROW || sqlite3_errcode(db_lite(db)) == SQLITE_OK ?
		    "damaged pages" : sqlite3_errmsg(db_lite(db)));
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT (SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'table' AND name = 'libraries'), (SELECT user_version FROM "
	    "pragma_user_version)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != 1) {
		snprintf(err, errsz, "not a ctxd database");
		goto out;
	}
	version = sqlite3_column_int(st, 1);
	if (version < 1 || version > db_schema_version()) {
		snprintf(err, errsz, "schema version %d, and this ctxd reads versions 1 to "
		    "%d: install a newer ctxd", version, db_schema_version());
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}
