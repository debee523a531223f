/*
 * backup.c: ctxd-admin backup and restore. A backup is one SQLite file made with SQLite's
 * online backup API from one read transaction (WAL: the responders and the worker go on
 * reading and writing, and the copy is the database as it was when the backup began). On
 * request it also holds secret.key, in a table of its own (backup_secret) that restore
 * takes out again.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <sqlite3.h>

#include "admin/backup.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "store/db.h"

#define BACKUP_SECRET_TABLE \
	"CREATE TABLE backup_secret (key BLOB NOT NULL)"

/* Copies the whole database src (schema "main") into dst in one step. */
static int
backup_copy(struct sqlite3 *src, struct sqlite3 *dst)
{
	sqlite3_backup	*b;
	int		 rc;

	if ((b = sqlite3_backup_init(dst, "main", src, "main")) == NULL) {
		log_err("%s: %s", __func__, sqlite3_errmsg(dst));
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

/* Stores DATA_DIR/secret.key into the table backup_secret of db. */
static int
backup_put_secret(struct sqlite3 *db, const char *dir)
{
	unsigned char	 key[CRYPTO_KEYLEN];
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (crypto_secret_load(dir, key) == -1)
		goto out;
	if (db_exec(db, BACKUP_SECRET_TABLE) == -1)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT INTO backup_secret (key) VALUES (?1)", -1,
	    &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_blob(st, 1, key, sizeof(key), SQLITE_TRANSIENT) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	OPENSSL_cleanse(key, sizeof(key));
	return rc;
}

/*
 * Makes path anew, empty, with mode (a stale one from an earlier run is removed first;
 * never through a symbolic link), and opens it as the SQLite database *dst. 0, or -1
 * logged.
 */
static int
backup_create(const char *path, mode_t mode, struct sqlite3 **dst)
{
	int	 fd;

	unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode)) == -1) {
		log_err("%s: %s: %s", __func__, path, strerror(errno));
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(path, dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		log_err("%s: %s: %s", __func__, path, *dst != NULL ?
		    sqlite3_errmsg(*dst) : "out of memory");
		return -1;
	}
	return 0;
}

int
backup_run(const char *dir, const char *dest, int with_secret)
{
	struct sqlite3	*src = NULL, *dst = NULL;
	char		*tmp = NULL;
	size_t		 n;
	int		 rc = -1;

	n = strlen(dest) + sizeof(".tmp");
	if ((tmp = malloc(n)) == NULL)
		goto out;
	snprintf(tmp, n, "%s.tmp", dest);
	if (db_open(dir, DB_READONLY, &src) == -1)
		goto out;
	/* The copy is readable by its owner only: it holds password hashes and keys. */
	if (backup_create(tmp, 0600, &dst) == -1)
		goto out;
	if (backup_copy(src, dst) == -1 ||
	    db_exec(dst, "PRAGMA journal_mode = DELETE") == -1)
		goto out;
	if (with_secret && backup_put_secret(dst, dir) == -1)
		goto out;
	if (sqlite3_close(dst) != SQLITE_OK) {
		log_err("%s: %s: %s", __func__, tmp, sqlite3_errmsg(dst));
		goto out;
	}
	dst = NULL;
	if (rename(tmp, dest) == -1) {
		log_err("%s: %s: %s", __func__, dest, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (dst != NULL)
		sqlite3_close(dst);
	if (rc == -1 && tmp != NULL)
		unlink(tmp);
	db_close(src);
	free(tmp);
	return rc;
}

int
backup_in_use(const char *dir, long *pid)
{
	char		 dbpath[PATH_MAX + 16], fddir[64], link[PATH_MAX + 320];
	char		 target[PATH_MAX];
	DIR		*proc, *fds;
	struct dirent	*p, *f;
	ssize_t		 len;
	long		 n, self = (long)getpid();

	if (realpath(dir, target) == NULL)
		return 0;
	snprintf(dbpath, sizeof(dbpath), "%s/ctxd.db", target);
	if ((proc = opendir("/proc")) == NULL)
		return 0;
	*pid = 0;
	while (*pid == 0 && (p = readdir(proc)) != NULL) {
		if (util_parse_long(p->d_name, 1, LONG_MAX, &n) == -1 || n == self)
			continue;
		snprintf(fddir, sizeof(fddir), "/proc/%ld/fd", n);
		if ((fds = opendir(fddir)) == NULL)
			continue;
		while ((f = readdir(fds)) != NULL) {
			snprintf(link, sizeof(link), "%s/%s", fddir, f->d_name);
			if ((len = readlink(link, target, sizeof(target) - 1)) <= 0)
				continue;
			target[len] = '\0';
			if (strncmp(target, dbpath, strlen(dbpath)) == 0) {
				*pid = n;
				break;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	return *pid != 0;
}

/*
 * Checks the backup file db: integrity, a ctxd database (the libraries table), a schema
 * version this build can open (older ones are migrated after the restore). Says why not
 * in err.
 */
static int
backup_check(struct sqlite3 *db, char *err, size_t errsz)
{
	sqlite3_stmt	*st = NULL;
	const char	*v;
	int		 version = -1, rc = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errsz, "not an SQLite database (%s)", sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW ||
	    (v = (const char *)sqlite3_column_text(st, 0)) == NULL || strcmp(v, "ok") != 0) {
		snprintf(err, errsz, "the integrity check fails (%s)",
		    sqlite3_errcode(db) == SQLITE_ROW || sqlite3_errcode(db) == SQLITE_OK ?
		    "damaged pages" : sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM sqlite_schema WHERE "
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

/* Takes the key out of backup_secret of db (if there) into DATA_DIR/secret.key. */
static int
backup_take_secret(struct sqlite3 *db, const char *dir, int *restored)
{
	sqlite3_stmt	*st = NULL;
	char		*path = NULL;
	int		 rc = -1;

	*restored = 0;
	if (sqlite3_prepare_v2(db, "SELECT key FROM backup_secret", -1, &st,
	    NULL) != SQLITE_OK) {
		rc = 0;		/* made without --with-secret */
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW ||
	    sqlite3_column_bytes(st, 0) != CRYPTO_KEYLEN) {
		log_err("%s: the secret key in the backup is damaged", __func__);
		goto out;
	}
	if ((path = util_path_join(dir, "secret.key")) == NULL ||
	    util_write_file(path, sqlite3_column_blob(st, 0), CRYPTO_KEYLEN, 0600) == -1)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (db_exec(db, "DROP TABLE backup_secret") == -1)
		goto out;
	*restored = 1;
	rc = 0;
out:
	sqlite3_finalize(st);
	free(path);
	return rc;
}

/* Gives path the owner of DATA_DIR (a restore as root into the service's directory). */
static void
backup_chown_like(const char *path, const struct stat *dirst)
{
	if (geteuid() == 0 && chown(path, dirst->st_uid, dirst->st_gid) == -1)
		log_warn("%s: chown %s: %s", __func__, path, strerror(errno));
}

/* Writes the backup src into DATA_DIR/ctxd.db through a temporary file and a rename. */
static int
backup_install(struct sqlite3 *src, const char *dir, const struct stat *dirst, int *secret)
{
	struct sqlite3	*dst = NULL;
	char	*db = NULL, *tmp = NULL, *side = NULL;
	int	 rc = -1;

	if ((db = util_path_join(dir, "ctxd.db")) == NULL ||
	    (tmp = util_path_join(dir, "ctxd.db.restore")) == NULL ||
	    (side = malloc(strlen(db) + 5)) == NULL)
		goto out;
	if (backup_create(tmp, 0640, &dst) == -1 || backup_copy(src, dst) == -1 ||
	    backup_take_secret(dst, dir, secret) == -1)
		goto out;
	sqlite3_close(dst);
	dst = NULL;
	/* The old database's WAL and shared memory belong to it: they go first. */
	snprintf(side, strlen(db) + 5, "%s-wal", db);
	unlink(side);
	snprintf(side, strlen(db) + 5, "%s-shm", db);
	unlink(side);
	if (rename(tmp, db) == -1) {
		log_err("%s: %s: %s", __func__, db, strerror(errno));
		goto out;
	}
	backup_chown_like(db, dirst);
	if (*secret) {
		free(side);
		if ((side = util_path_join(dir, "secret.key")) != NULL)
			backup_chown_like(side, dirst);
	}
	rc = 0;
out:
	if (dst != NULL)
		sqlite3_close(dst);
	if (rc == -1 && tmp != NULL)
		unlink(tmp);
	free(db);
	free(tmp);
	free(side);
	return rc;
}

int
backup_restore(const char *dir, const char *file, char *err, size_t errsz)
{
	struct sqlite3	*src = NULL, *db = NULL;
	struct stat	 dirst;
	long		 pid;
	int		 secret = 0, rc = -1;

	err[0] = '\0';
	if (stat(dir, &dirst) == -1 || !S_ISDIR(dirst.st_mode)) {
		snprintf(err, errsz, "%s is not a directory (run ctxd-admin init)", dir);
		goto out;
	}
	if (backup_in_use(dir, &pid)) {
		snprintf(err, errsz, "the service is running (process %ld has %s/ctxd.db "
		    "open): stop it first (systemctl stop ctxd.target)", pid, dir);
		goto out;
	}
	if (sqlite3_open_v2(file, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errsz, "cannot open %s: %s", file,
		    src ? sqlite3_errmsg(src) : "no memory");
		goto out;
	}
	if (backup_check(src, err, errsz) == -1)
		goto out;
	if (backup_install(src, dir, &dirst, &secret) == -1) {
		snprintf(err, errsz, "cannot write %s/ctxd.db (see the messages above)", dir);
		goto out;
	}
	/* An older backup gets this build's schema now (the responders want it). */
	if (db_open(dir, DB_READWRITE, &db) == -1) {
		snprintf(err, errsz, "the restored database cannot be migrated");
		goto out;
	}
	rc = secret;
out:
	db_close(db);
	if (src != NULL)
		sqlite3_close(src);
	return rc;
}
