/* backup.h: ctxd-admin backup, restore (lib/admin/backup.c) and doctor (lib/admin/doctor.c). */
#ifndef CTXD_BACKUP_H
#define CTXD_BACKUP_H

#include <sys/stat.h>

#include <stddef.h>
#include <stdio.h>

/*
 * Copies DATA_DIR/ctxd.db (dir) into the new file dest (mode 0600, written as dest.tmp
 * and renamed), consistent while the service serves and indexes; with_secret: secret.key
 * too. 0 or -1 (logged).
 */
int	 backup_run(const char *dir, const char *dest, int with_secret);
/* 1 (and *pid) when a process other than this one has dir/ctxd.db open, else 0. */
int	 backup_in_use(const char *dir, long *pid);
/*
 * Replaces dir/ctxd.db by the backup file: refuses while the service has the database
 * open, and a file that fails the integrity check, is not a ctxd database or has a schema
 * newer than this build's (err says why, -1). An older schema is migrated. Returns 1 when
 * secret.key came back too, 0 when the backup had none.
 */
int	 backup_restore(const char *dir, const char *file, char *err, size_t errsz);

/*
 * ctxd-admin doctor: one line per check on out ("ok   ..." or "FIX  ..."); the
 * system paths come from the environment's CTXD_DEFAULTS (/etc/default/ctxd) and are
 * otherwise Debian's. Returns 0 when every check passed, else 1.
 */
int	 doctor_run(const char *dir, FILE *out);
/*
 * The DATA_DIR of the operations commands: $DATA_DIR, else the DATA_DIR of
 * /etc/default/ctxd ($CTXD_DEFAULTS), else util_data_dir()'s default. Static storage.
 */
const char *doctor_data_dir(void);
/*
 * When neither DATA_DIR nor DATABASE_URL is in the environment, sets DATABASE_URL from
 * the service's settings file ($CTXD_DEFAULTS or /etc/default/ctxd) if it names one: an
 * operator's ctxd-admin then uses the service's database, PostgreSQL included. A DATA_DIR
 * given in the environment names another instance: its engine is the environment's.
 */
void	 doctor_database_url(void);

/*
 * Gives path the owner of DATA_DIR (dirst: its stat) when run as root: what ctxd-admin
 * writes into the service's directory (a restore, a segment) stays readable by it.
 */
void	 backup_chown_like(const char *path, const struct stat *dirst);

#endif
