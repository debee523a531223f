/*
 * db.c: opening, configuring and migrating the store: DATA_DIR/ctxd.db (SQLite, the
 * embedded default), or the PostgreSQL database DATABASE_URL names (docs/DESIGN.md, "Two
 * engines"). Each call here works on either engine; a PostgreSQL connection has no
 * SQLite handle (db_lite is NULL).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/tokenizer.h"
#include "base/util.h"
#include "store/db.h"
#include "store/conn.h"
#include "store/pg.h"
#include "store/pgstore.h"

/* Compiled in from sql/ by script/sql2c (lib/sql_schema.c). */
extern const char sql_schema[];
extern const char *const sql_migrations[];	/* [0] upgrades version 1 to 2, ... */
extern const int sql_version;

int
db_schema_version(void)
{
	return sql_version;
}

int
db_exec(struct db *db, const char *sql)
{
	char	*msg = NULL;

	if (db->pg != NULL) {
		if (pg_exec(db->pg, sql) == -1) {
			log_err("%s: %s", __func__, pg_errmsg(db->pg));
			return -1;
		}
		return 0;
	}
	if (sqlite3_exec(db_lite(db), sqltext_pick(sql, DB_ENGINE_SQLITE), NULL, NULL, &msg) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, msg ? msg : sqlite3_errmsg(db_lite(db)));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* The busy timeout this process's connections wait (each process has one connection). */
static int	 db_busy_ms = 10000;
static int	 db_nowait;		/* db_run_nowait: no waiting at all */
static long long db_waited_us;		/* time slept waiting for another's lock */
static long long db_waits;		/* statements that found the database busy */
static long long db_wait_from_us;	/* when the current wait began */
static unsigned long db_gave_up;	/* waits that ran out the busy timeout (db_busy_failures) */

static long long
db_clock_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * The busy handler of every connection: polls the lock every millisecond, then every 2
 * and 5 ms, until the busy timeout. SQLite's own (sqlite3_busy_timeout) sleeps up to
 * 100 ms at a time, so a job waiting behind another's short write transaction lost most
 * of that sleep after the lock was free; the polls cost a failed lock attempt each. The
 * time slept is counted (db_busy_waited).
 */
static int
db_busy(void *arg, int count)
{
	long long	 now = db_clock_us();
	int		 us;

	(void)arg;
	if (db_nowait || db_busy_ms <= 0)
		return 0;
	if (count == 0) {
		db_wait_from_us = now;
		db_waits++;
	} else if (now - db_wait_from_us >= (long long)db_busy_ms * 1000) {
		db_gave_up++;
		return 0;
	}
	us = count < 20 ? 1000 : count < 60 ? 2000 : 5000;
	usleep((useconds_t)us);
	db_waited_us += db_clock_us() - now;
	return 1;
}

/* PostgreSQL's lock_timeout for the busy timeout (a SET takes no bound parameter). */
static int
db_pg_lock_timeout(struct db *db)
{
	char	 sql[64];

	snprintf(sql, sizeof(sql), "SET lock_timeout = %d", db_busy_ms);
	return db_exec(db, sql);
}

void
db_busy_timeout(struct db *db, long ms)
{
	db_busy_ms = ms > INT_MAX ? INT_MAX : ms < 0 ? 0 : (int)ms;
	if (db->pg != NULL)
		(void)db_pg_lock_timeout(db);
	else
		sqlite3_busy_handler(db_lite(db), db_busy, NULL);
}

unsigned long
db_busy_failures(struct db *db)
{
	if (db == NULL)
		return 0;
	return db->pg != NULL ? pg_busy_failures(db->pg) : db_gave_up;
}

void
db_busy_waited(long long *ms, long long *waits)
{
	*ms = db_waited_us / 1000;
	*waits = db_waits;
}

/*
 * On PostgreSQL a write transaction is a plain BEGIN (read committed): rows are locked as
 * they are written, not the whole database, so a module that reads and then writes what
 * it read locks those rows (SELECT ... FOR UPDATE) where SQLite's one writer made that
 * implicit. A read transaction is one snapshot (repeatable read), as SQLite's.
 */
int
db_begin(struct db *db)
{
	return db_exec(db, db->pg != NULL ? "BEGIN" : "BEGIN IMMEDIATE");
}

int
db_begin_read(struct db *db)
{
	return db_exec(db, db->pg != NULL ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
}

int
db_in_transaction(struct db *db)
{
	if (db->pg != NULL)
		return pg_in_transaction(db->pg);
	return !sqlite3_get_autocommit(db_lite(db));
}

const char *
db_errmsg(struct db *db)
{
	return db_conn_errmsg(db);
}

enum db_failure
db_failure(struct db *db)
{
	int	 code;

	if (db->pg != NULL)
		switch (pg_failure(db->pg)) {
		case PG_FAIL_BUSY:
			return DB_FAIL_BUSY;
		case PG_FAIL_FULL:
			return DB_FAIL_FULL;
		default:
			return DB_FAIL_OTHER;
		}
	code = sqlite3_errcode(db_lite(db)) & 0xff;	/* extended codes are on */

	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return DB_FAIL_BUSY;
	if (code == SQLITE_FULL)
		return DB_FAIL_FULL;
	return DB_FAIL_OTHER;
}

int
db_listen(struct db *db)
{
	if (db->pg == NULL)
		return 0;
	if (db_exec(db, "LISTEN ctxd_changes") == -1)
		return -1;
	db->listening = 1;
	return 0;
}

/* The tables a notification of ctxd_changes names (its payload), and their caches. */
static const struct {
	const char	*table;
	enum db_cache	 kind;
} db_change_tables[] = {
	{ "libraries", DB_CACHE_LIBRARIES },
	{ "settings", DB_CACHE_SETTINGS },
	{ "api_keys", DB_CACHE_KEYS },
	{ "users", DB_CACHE_KEYS },
};

static void
db_change_heard(const char *payload, void *arg)
{
	struct db	*db = arg;
	size_t		 i;
	int		 k;

	for (i = 0; i < sizeof(db_change_tables) / sizeof(db_change_tables[0]); i++)
		if (strcmp(payload, db_change_tables[i].table) == 0) {
			db->gen[db_change_tables[i].kind]++;
			return;
		}
	/* A payload of another kind (a newer writer's): drop everything. */
	for (k = 0; k < DB_CACHE_N; k++)
		db->gen[k]++;
}

int
db_drain_changes(struct db *db)
{
	int	 k;

	if (db->pg == NULL || !db->listening)
		return 0;
	if (pg_notices(db->pg, db_change_heard, db) == -1) {
		for (k = 0; k < DB_CACHE_N; k++)
			db->gen[k]++;
		db->listening = 0;
		log_err("%s: the connection to PostgreSQL is lost (%s): every cache dropped",
		    __func__, pg_errmsg(db->pg));
		return -1;
	}
	return 0;
}

int
db_listening(struct db *db)
{
	return db != NULL && db->listening;
}

unsigned long
db_cache_gen(struct db *db, enum db_cache k)
{
	return db->gen[k];
}

unsigned long
db_round_trips(struct db *db)
{
	return db != NULL && db->pg != NULL ? pg_round_trips(db->pg) : 0;
}

const char *
db_engine_version(void)
{
	return sqlite3_libversion();
}

int
db_commit(struct db *db)
{
	return db_exec(db, "COMMIT");
}

void
db_rollback(struct db *db)
{
	if (db->pg != NULL)
		pg_rollback(db->pg);
	else if (!sqlite3_get_autocommit(db_lite(db)))
		sqlite3_exec(db_lite(db), "ROLLBACK", NULL, NULL, NULL);
}

/* Binds the values of ap to st as types says (see db_run; db_run_nowait's SQLite path). */
static int
db_bindv(sqlite3_stmt *st, const char *types, va_list ap)
{
	const char	*t;
	int		 i, n, rc = 0;

	n = sqlite3_bind_parameter_count(st);
	for (i = 1; i <= n && types[i - 1] != '\0' && rc == SQLITE_OK; i++) {
		switch (types[i - 1]) {
		case 't':
			t = va_arg(ap, const char *);
			rc = t != NULL ? sqlite3_bind_text(st, i, t, -1, SQLITE_STATIC) :
			    sqlite3_bind_null(st, i);
			break;
		case 'i':
			rc = sqlite3_bind_int(st, i, va_arg(ap, int));
			break;
		case 'I':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, long long));
			break;
		default:
			return -1;
		}
	}
	return rc == SQLITE_OK ? 0 : -1;
}

int
db_run(struct db *db, const char *sql, const char *types, ...)
{
	va_list		 ap;
	int		 rc;

	va_start(ap, types);
	rc = db_stmt_runv(db, __func__, sql, types, ap);
	va_end(ap);
	return rc;
}

int
db_run_nowait(struct db *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt	*st = NULL;
	va_list		 ap;
	int		 rc = -1, step = SQLITE_OK;

	/*
	 * PostgreSQL has no one writer to skip: rows are locked one by one, and the write
	 * waits for a row another transaction holds (lock_timeout) as any other.
	 */
	if (db->pg != NULL) {
		va_start(ap, types);
		rc = db_stmt_runv(db, __func__, sql, types, ap);
		va_end(ap);
		return rc;
	}
	db_nowait = 1;
	if (sqlite3_prepare_v2(db_lite(db), sqltext_pick(sql, DB_ENGINE_SQLITE), -1, &st,
	    NULL) != SQLITE_OK)
		goto out;
	va_start(ap, types);
	rc = db_bindv(st, types, ap);
	va_end(ap);
	if (rc == 0 && (step = sqlite3_step(st)) != SQLITE_DONE)
		rc = (step & 0xff) == SQLITE_BUSY ? 1 : -1;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	db_nowait = 0;
	return rc;
}

/* The integer a PRAGMA that reads one (constant pragma) answers: 0, or -1. */
static int
db_pragma_int(struct db *db, const char *pragma, int *out)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), pragma, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int
db_user_version(struct db *db, int *out)
{
	long long	 v = 0;

	if (db->pg != NULL) {
		/* ctxd_schema holds it (sql/pg/schema.sql); no table yet: version 0 */
		if (db_stmt_int(db, "SELECT to_regclass('ctxd_schema') IS NOT NULL", &v) == -1)
			return -1;
		if (v != 0 && db_stmt_int(db, "SELECT version FROM ctxd_schema", &v) == -1)
			return -1;
		*out = (int)v;
		return 0;
	}
	return db_pragma_int(db, "PRAGMA user_version", out);
}

int
db_readonly(struct db *db)
{
	long long	 ro = 1;
	int		 on = 1;

	/* Set once at db_open: asked once (a key's use asks it for each write). */
	if (db->pg != NULL) {
		if (db->readonly == -1 && db_stmt_int(db, "SELECT current_setting("
		    "'default_transaction_read_only') = 'on'", &ro) == 0)
			db->readonly = ro != 0;
		return db->readonly != 0;
	}

	if (sqlite3_db_readonly(db_lite(db), "main") == 1)
		return 1;
	(void)db_pragma_int(db, "PRAGMA query_only", &on);
	return on != 0;
}

/* 1 when the database has the table schema_history (a build with sql/0008-schema-history.sql). */
static int
db_has_history(struct db *db)
{
	sqlite3_stmt	*st;
	int		 has = 0;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND "
	    "name = 'schema_history'", -1, &st, NULL) != SQLITE_OK)
		return 0;
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

/* Creates or upgrades the schema inside one transaction. */
static int
db_migrate(struct db *db, const char *path)
{
	int	 v, from, target = sql_version;
	char	 pragma[64];

	/* Current already (every open but the first after an upgrade): no write lock taken. */
	if (db_user_version(db, &v) == 0 && v == target)
		return 0;
	if (db_begin(db) == -1)
		return -1;
	if (db_user_version(db, &v) == -1)
		goto fail;
	if (v > target) {
		log_err("database %s has schema version %d, newer than this "
		    "build's version %d: install a newer ctxd", path, v, target);
		goto fail;
	}
	from = v;
	/* A new database gets the version 1 schema, then every migration. */
	if (v == 0) {
		if (db_exec(db, sql_schema) == -1)
			goto fail;
		v = 1;
	}
	for (; v < target; v++)
		if (db_exec(db, sql_migrations[v - 1]) == -1) {
			log_err("%s: migration to version %d failed", __func__, v + 1);
			goto fail;
		}
	/* The history of the schema (sql/0008-schema-history.sql): a row for each change. */
	if (from != target && db_has_history(db) && db_run(db, "INSERT INTO schema_history (from_version, "
	    "to_version, release, at) VALUES (?1, ?2, ?3, CAST(strftime('%s', 'now') AS "
	    "INTEGER))", "iit", from, target, PACKAGE_VERSION) == -1)
		goto fail;
	/* PRAGMA takes no bound parameters; the value is our own integer. */
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", target);
	if (db_exec(db, pragma) == -1 || db_commit(db) == -1)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return -1;
}

/* ------------------------------------------------------------ the files of DATA_DIR */

/* What group-write and others lose on everything of DATA_DIR: folders 0750, files 0640. */
#define DB_UMASK	027

void
db_umask(void)
{
	mode_t	 old = umask(DB_UMASK);

	umask(old | DB_UMASK);
}

/*
 * Takes the bits away from path's mode when it has any of them (a file or a folder, not a
 * link: opened with O_NOFOLLOW, changed through the descriptor), with a log line.
 */
static void
db_tighten(const char *path, mode_t away)
{
	struct stat	 st;
	mode_t		 mode;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) &&
	    ((mode = st.st_mode & 07777) & away) != 0) {
		if (fchmod(fd, mode & ~away) == -1)
			log_warn("cannot tighten the mode %04o of %s: %s", (unsigned)mode,
			    path, strerror(errno));
		else
			log_warn("tightened the mode of %s from %04o to %04o: the data "
			    "folder is the service's alone", path, (unsigned)mode,
			    (unsigned)(mode & ~away));
	}
	close(fd);
}

/*
 * DATA_DIR and what it holds at its top (the database with its WAL and SHM, the logs, the
 * lock, secret.key, repos/) lose any mode bit beyond 0750 for folders and 0640 for files
 * (0600 for secret.key): a looser mode left by an older version or by hand is tightened,
 * once per process.
 */
static void
db_protect(const char *datadir)
{
	static int	 done;
	DIR		*d;
	struct dirent	*de;
	char		*p;

	if (done)
		return;
	done = 1;
	db_tighten(datadir, DB_UMASK);
	if ((d = opendir(datadir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (p = util_path_join(datadir, de->d_name)) == NULL)
			continue;
		db_tighten(p, strcmp(de->d_name, "secret.key") == 0 ? 077 : DB_UMASK);
		free(p);
	}
	closedir(d);
}

/* Creates an empty database file with mode 0640 (SQLite gives its WAL and SHM the same). */
static int
db_create(const char *path)
{
	int	 fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640)) == -1) {
		log_err("cannot create database %s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

const char *
db_url(void)
{
	const char	*url = getenv("DATABASE_URL");

	return url != NULL && *url != '\0' ? url : NULL;
}

/*
 * db_open on PostgreSQL: connects, then creates or migrates the schema (DB_READWRITE, under
 * pgstore_migrate's advisory lock) or checks that it is this build's (DB_READONLY, whose
 * transactions are then read only).
 */
static int
db_open_pg(const char *url, enum db_mode mode, struct db **out)
{
	struct db	*db;
	char		 err[512] = "";
	int		 from, v;

	if (strncmp(url, "postgresql://", 13) != 0 && strncmp(url, "postgres://", 11) != 0) {
		log_err("DATABASE_URL is not a postgresql:// URL: unset it to use the "
		    "embedded SQLite database, or name a PostgreSQL database");
		return -1;
	}
	if ((db = db_connect_pg(url, NULL, err, sizeof(err))) == NULL) {
		log_err("cannot connect to PostgreSQL (DATABASE_URL): %s", err);
		return -1;
	}
	if (mode == DB_READWRITE) {
		if (pgstore_migrate(db->pg, &from, err, sizeof(err)) == -1) {
			log_err("PostgreSQL (DATABASE_URL): %s", err);
			goto fail;
		}
	} else {
		if (db_user_version(db, &v) == -1)
			goto fail;
		if (v == 0) {
			log_err("PostgreSQL (DATABASE_URL) has no ctxd schema: run ctxd-admin "
			    "init");
			goto fail;
		}
		if (v != sql_version) {
			log_err("PostgreSQL (DATABASE_URL) has schema version %d, %s than this "
			    "build's version %d: %s", v, v > sql_version ? "newer" : "older",
			    sql_version, v > sql_version ? "install a newer ctxd" :
			    "run ctxd-admin init to migrate it");
			goto fail;
		}
		if (db_exec(db, "SET default_transaction_read_only = on") == -1)
			goto fail;
	}
	if (db_pg_lock_timeout(db) == -1)
		goto fail;
	*out = db;
	return 0;
fail:
	db_close(db);
	return -1;
}

int
db_open(const char *datadir, enum db_mode mode, struct db **out)
{
	*out = NULL;
	if (db_url() != NULL) {
		db_umask();
		db_protect(datadir);
		return db_open_pg(db_url(), mode, out);
	}
	return db_open_sqlite(datadir, mode, out);
}

int
db_open_sqlite(const char *datadir, enum db_mode mode, struct db **out)
{
	struct db	*db = NULL;
	sqlite3		*lite = NULL;
	char	*path;
	int	 flags, v, rc = -1;
	struct stat st;

	*out = NULL;
	db_umask();
	db_protect(datadir);
	if ((path = util_path_join(datadir, "ctxd.db")) == NULL)
		return -1;
	if (mode == DB_READONLY && stat(path, &st) == -1) {
		log_err("database %s does not exist: run ctxd-admin init", path);
		goto out;
	}
	if (mode == DB_READWRITE && stat(path, &st) == -1 && db_create(path) == -1)
		goto out;
	flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	if (mode == DB_READWRITE)
		flags |= SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &lite, flags, NULL) != SQLITE_OK) {
		log_err("cannot open database %s: %s", path,
		    lite ? sqlite3_errmsg(lite) : "out of memory");
		goto out;
	}
	if ((db = db_conn_sqlite(lite)) == NULL) {
		log_err("cannot open database %s: out of memory", path);
		goto out;
	}
	lite = NULL;
	sqlite3_extended_result_codes(db_lite(db), 1);
	sqlite3_db_config(db_lite(db), SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db_lite(db), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_busy_handler(db_lite(db), db_busy, NULL);
	if (tokenize_register(db) == -1)
		goto out;
	if (db_exec(db, "PRAGMA journal_mode = WAL") == -1 ||
	    db_exec(db, "PRAGMA synchronous = NORMAL") == -1 ||
	    db_exec(db, "PRAGMA foreign_keys = ON") == -1)
		goto out;
	if (mode == DB_READWRITE) {
		if (db_migrate(db, path) == -1)
			goto out;
	} else {
		if (db_user_version(db, &v) == -1)
			goto out;
		if (v > sql_version) {
			log_err("database %s has schema version %d, newer than "
			    "this build's version %d: install a newer ctxd",
			    path, v, sql_version);
			goto out;
		}
		if (v < sql_version) {
			log_err("database %s has schema version %d, older than "
			    "this build's version %d: run ctxd-admin init to "
			    "migrate it", path, v, sql_version);
			goto out;
		}
		if (db_exec(db, "PRAGMA query_only = ON") == -1)
			goto out;
	}
	*out = db;
	db = NULL;
	rc = 0;
out:
	db_lite_close(db);
	sqlite3_close(lite);
	free(path);
	return rc;
}

void
db_close(struct db *db)
{
	if (db != NULL && db->pg != NULL) {
		pg_close(db->pg);
		db_conn_free(db);
		return;
	}
	(void)db_lite_close(db);
}

int
db_lite_open(const char *path, int flags, struct db **out)
{
	sqlite3	*lite = NULL;
	int	 rc;

	*out = NULL;
	if ((rc = sqlite3_open_v2(path, &lite, flags, NULL)) != SQLITE_OK) {
		sqlite3_close(lite);
		return rc;
	}
	if ((*out = db_conn_sqlite(lite)) == NULL) {
		sqlite3_close(lite);
		return SQLITE_NOMEM;
	}
	return SQLITE_OK;
}

int
db_lite_close(struct db *db)
{
	int	 rc = SQLITE_OK;

	if (db == NULL)
		return rc;
	/* A connection with statements left open is closed when they are. */
	if ((rc = sqlite3_close(db_lite(db))) != SQLITE_OK)
		sqlite3_close_v2(db_lite(db));
	db_conn_free(db);
	return rc;
}

int
db_space(struct db *db, long long *size, long long *freeb)
{
	static const char *const sql[3] = {
		"PRAGMA page_size", "PRAGMA page_count", "PRAGMA freelist_count"
	};
	sqlite3_stmt	*st = NULL;
	long long	 v[3];
	size_t		 i;

	if (db->pg != NULL) {
		/* PostgreSQL gives dead rows' space back by itself (autovacuum) */
		*freeb = 0;
		return db_stmt_int(db, "SELECT pg_database_size(current_database())", size);
	}

	for (i = 0; i < 3; i++) {
		if (sqlite3_prepare_v2(db_lite(db), sql[i], -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
			sqlite3_finalize(st);
			return -1;
		}
		v[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
	}
	*size = v[0] * v[1];
	*freeb = v[0] * v[2];
	return 0;
}

int
db_compact(struct db *db)
{
	if (db_exec(db, "VACUUM") == -1)
		return -1;
	if (db->pg != NULL)
		return 0;
	/* The rewrite went through the log: give its pages back too. */
	return db_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
}

const char *
db_column_text(sqlite3_stmt *st, int i)
{
	const char	*v = (const char *)sqlite3_column_text(st, i);

	return v != NULL ? v : "";
}

char *
db_column_dup(sqlite3_stmt *st, int i, const char *dflt)
{
	const char	*v = (const char *)sqlite3_column_text(st, i);

	if (v == NULL)
		v = dflt;
	return v != NULL ? strdup(v) : NULL;
}
