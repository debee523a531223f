/*
 * store/backup.h: the database side of ctxd-admin backup and restore (admin/backup.h): a
 * backup is one database file, copied from one read transaction, that may also hold
 * secret.key in a table of its own (backup_secret).
 *
 * Engine: all of it is SQLite's: the online backup API, a database that is one file,
 * PRAGMA integrity_check and user_version, sqlite_schema.
 */
#ifndef STORE_BACKUP_H
#define STORE_BACKUP_H

#include <sys/types.h>

#include <stddef.h>

struct db;

/*
 * Makes path anew, empty, with mode (a stale one from an earlier run is removed first;
 * never through a symbolic link), and opens it as the database *dst. 0, or -1 logged.
 */
int	 store_backup_create(const char *path, mode_t mode, struct db **dst);
/* Copies the whole database src into dst in one step (one consistent snapshot). */
int	 store_backup_copy(struct db *src, struct db *dst);
/* Makes the copy dst a file of its own (no write-ahead log beside it). */
int	 store_backup_settle(struct db *dst);
/* Closes a copy: 0, or -1 logged with path when it could not be written out. */
int	 store_backup_close(struct db *, const char *path);
/* Stores key (len bytes) into the table backup_secret of db. 0, or -1 logged. */
int	 store_backup_put_secret(struct db *, const unsigned char *key, size_t len);
/*
 * The key of backup_secret into key (len bytes): 1, 0 when the backup has no such table,
 * -1 when it is damaged (logged).
 */
int	 store_backup_get_secret(struct db *, unsigned char *key, size_t len);
/* Drops backup_secret, once its key is out. */
int	 store_backup_drop_secret(struct db *);
/* Opens the backup file read-only into *db: 0, or -1 with why in err. */
int	 store_backup_open(const char *file, struct db **db, char *err, size_t errsz);
/*
 * Checks the backup db: integrity, a ctxd database (the libraries table), a schema
 * version this build can open (older ones are migrated after the restore). 0, or -1 with
 * why in err.
 */
int	 store_backup_check(struct db *, char *err, size_t errsz);

#endif /* STORE_BACKUP_H */
