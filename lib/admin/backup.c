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

#include "admin/backup.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "store/backup.h"
#include "store/db.h"

/* Stores DATA_DIR/secret.key into the table backup_secret of db. */
static int
backup_put_secret(struct db *db, const char *dir)
{
	unsigned char	 key[CRYPTO_KEYLEN];
	int		 rc = -1;

	if (crypto_secret_load(dir, key) == 0)
		rc = store_backup_put_secret(db, key, sizeof(key));
	OPENSSL_cleanse(key, sizeof(key));
	return rc;
}

int
backup_run(const char *dir, const char *dest, int with_secret)
{
	struct db	*src = NULL, *dst = NULL;
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
	if (store_backup_create(tmp, 0600, &dst) == -1)
		goto out;
	if (store_backup_copy(src, dst) == -1 ||
	    store_backup_settle(dst) == -1)
		goto out;
	if (with_secret && backup_put_secret(dst, dir) == -1)
		goto out;
	rc = store_backup_close(dst, tmp);
	dst = NULL;
	if (rc == -1)
		goto out;
	rc = -1;
	if (rename(tmp, dest) == -1) {
		log_err("%s: %s: %s", __func__, dest, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	db_close(dst);
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

/* Takes the key out of backup_secret of db (if there) into DATA_DIR/secret.key. */
static int
backup_take_secret(struct db *db, const char *dir, int *restored)
{
	unsigned char	 key[CRYPTO_KEYLEN];
	char		*path = NULL;
	int		 rc = -1, has;

	*restored = 0;
	if ((has = store_backup_get_secret(db, key, sizeof(key))) != 1) {
		OPENSSL_cleanse(key, sizeof(key));
		return has;
	}
	if ((path = util_path_join(dir, "secret.key")) == NULL ||
	    util_write_file(path, key, sizeof(key), 0600) == -1 ||
	    store_backup_drop_secret(db) == -1)
		goto out;
	*restored = 1;
	rc = 0;
out:
	OPENSSL_cleanse(key, sizeof(key));
	free(path);
	return rc;
}

void
backup_chown_like(const char *path, const struct stat *dirst)
{
	if (geteuid() == 0 && chown(path, dirst->st_uid, dirst->st_gid) == -1)
		log_warn("%s: chown %s: %s", __func__, path, strerror(errno));
}

/* Writes the backup src into DATA_DIR/ctxd.db through a temporary file and a rename. */
static int
backup_install(struct db *src, const char *dir, const struct stat *dirst, int *secret)
{
	struct db	*dst = NULL;
	char	*db = NULL, *tmp = NULL, *side = NULL;
	int	 rc = -1;

	if ((db = util_path_join(dir, "ctxd.db")) == NULL ||
	    (tmp = util_path_join(dir, "ctxd.db.restore")) == NULL ||
	    (side = malloc(strlen(db) + 5)) == NULL)
		goto out;
	if (store_backup_create(tmp, 0640, &dst) == -1 || store_backup_copy(src, dst) == -1 ||
	    backup_take_secret(dst, dir, secret) == -1)
		goto out;
	db_close(dst);
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
	db_close(dst);
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
	struct db	*src = NULL, *db = NULL;
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
	if (store_backup_open(file, &src, err, errsz) == -1)
		goto out;
	if (store_backup_check(src, err, errsz) == -1)
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
	db_close(src);
	return rc;
}
