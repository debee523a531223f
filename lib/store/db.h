/* db.h: the one SQLite database: open, migrate, transactions, statements. */
#ifndef DB_H
#define DB_H

#include <stddef.h>

struct db;
struct sqlite3_stmt;

/* The schema version this build writes: 1 + the migrations in sql/. */
int	 db_schema_version(void);

enum db_mode { DB_READONLY, DB_READWRITE };

/*
 * Opens the store: the PostgreSQL database of DATABASE_URL when it is set (db_url), else
 * DATA_DIR/ctxd.db. DB_READWRITE creates and migrates it; DB_READONLY refuses a
 * missing database or one whose schema is older or newer than this build's. SQLite:
 * registers the "ctxd" FTS5 tokenizer, sets WAL, busy timeout, foreign keys and defensive
 * mode. PostgreSQL: a DB_READONLY connection's transactions are read only.
 */
int	 db_open(const char *datadir, enum db_mode, struct db **out);
/* db_open of DATA_DIR/ctxd.db whatever DATABASE_URL says (migrate-to-postgres's source). */
int	 db_open_sqlite(const char *datadir, enum db_mode, struct db **out);
void	 db_close(struct db *);
/*
 * DATABASE_URL from the environment (the package's /etc/default/ctxd sets it for every
 * executable), or NULL when it is unset or empty: the embedded SQLite database.
 */
const char *db_url(void);
/* How long a statement waits for another connection's write lock before SQLITE_BUSY. */
void	 db_busy_timeout(struct db *, long ms);
/*
 * What this process's statements have waited so far for another connection's lock: the
 * time in ms and the number of statements that waited.
 */
void	 db_busy_waited(long long *ms, long long *waits);
/* Runs one constant SQL string (no parameters; a DB_PAIR runs the engine's half). */
int	 db_exec(struct db *, const char *sql);
/*
 * Runs one constant SQL statement that returns no row, its parameters ?1, ?2, ... bound
 * in order from the arguments as types says (a DB_PAIR, store/sqltext.h: the engine's
 * half), one letter each: 't' text (const char *,
 * NULL binds NULL; not copied), 'i' int, 'I' long long. Values past the statement's
 * last parameter are ignored (one call shape can run each of a list of statements).
 * Logs and returns -1 on error.
 */
int	 db_run(struct db *, const char *sql, const char *types, ...);
/*
 * db_run for a write that may be skipped: when another connection holds the write lock it
 * returns 1 at once (nothing written) instead of waiting; 0 written, -1 error (logged).
 */
int	 db_run_nowait(struct db *, const char *sql, const char *types, ...);
/*
 * Sets the process umask to keep DATA_DIR private (at least 027: folders 0750, files
 * 0640); every server executable calls it first, and db_open again (which also creates
 * the database 0640 and tightens looser modes it finds in DATA_DIR, with a log line).
 */
void	 db_umask(void);
/*
 * The database's size and how much of it free pages take, in bytes: deleted rows leave
 * pages SQLite reuses but never gives back to the disk. 0, or -1 on a database error.
 */
int	 db_space(struct db *, long long *size, long long *freeb);
/*
 * Rewrites the database without its free pages (VACUUM) and truncates the write-ahead
 * log, so the files shrink to what the rows take. It needs free disk space for a copy of
 * the database, and waits (the busy timeout) for a writer to finish. 0, or -1 with the
 * SQLite error (the database unchanged: VACUUM is one transaction).
 */
int	 db_compact(struct db *);
int	 db_begin(struct db *);		/* BEGIN IMMEDIATE */
int	 db_begin_read(struct db *);	/* BEGIN (deferred): one snapshot to read */
int	 db_commit(struct db *);
void	 db_rollback(struct db *);
/* 1 when the connection is inside a transaction (begun, not yet ended), else 0. */
int	 db_in_transaction(struct db *);

/*
 * The schema version a database is at (0: a new one). 0, or -1.
 * Engine: SQLite's PRAGMA user_version holds it.
 */
int	 db_user_version(struct db *, int *);
/*
 * 1 when the connection cannot write: opened read-only, or DB_READONLY (or unknown).
 * Engine: sqlite3_db_readonly and PRAGMA query_only.
 */
int	 db_readonly(struct db *);
/* The message of the connection's last error (for the log; never NULL). */
const char *db_errmsg(struct db *);
/* What the connection's last failed call met. */
enum db_failure {
	DB_FAIL_OTHER,
	DB_FAIL_BUSY,		/* another connection holds a lock */
	DB_FAIL_FULL		/* the disk (or the temporary folder) is full */
};
enum db_failure db_failure(struct db *);
/*
 * How many statements of the connection so far failed because another connection held a
 * lock past the busy timeout (SQLite: a wait of the busy handler that ran out; PostgreSQL:
 * lock_timeout, a serialization failure, a deadlock, a cancelled statement). A count that
 * only grows: a caller compares it before and after (http_dispatch: a 503, not a 500).
 */
unsigned long db_busy_failures(struct db *);
/*
 * The round trips to the server the connection has made so far (PostgreSQL: every call
 * that waited for an answer); always 0 on SQLite, whose reads are local.
 */
unsigned long db_round_trips(struct db *);
/*
 * What a process that listens for changes may cache between requests (docs/DESIGN.md,
 * "Two engines"): the tables whose changes PostgreSQL announces on channel ctxd_changes
 * (triggers of sql/pg/0019-notify.sql, in the writer's transaction).
 */
enum db_cache {
	DB_CACHE_LIBRARIES,	/* libraries rows */
	DB_CACHE_SETTINGS,	/* settings rows */
	DB_CACHE_KEYS,		/* api_keys and users rows (who a key is) */
	DB_CACHE_N
};
/*
 * PostgreSQL: LISTEN ctxd_changes on the connection, after which the store's modules
 * keep what they read of the tables of enum db_cache between requests, until
 * db_drain_changes hears of a change. SQLite: nothing (its reads are local; nothing is
 * cached). 0, or -1 (logged).
 */
int	 db_listen(struct db *);
/*
 * Before each request of a listening connection: takes the notifications that have
 * arrived (no round trip) and drops the caches of the tables they name. 0; -1 when the
 * connection is lost (every cache dropped; the caller should not go on with it).
 */
int	 db_drain_changes(struct db *);
/* 1 when the connection listens for changes (db_listen on PostgreSQL), else 0. */
int	 db_listening(struct db *);
/* The generation of kind k's caches (store modules compare it with db_cache_valid). */
unsigned long db_cache_gen(struct db *, enum db_cache k);
/* The storage engine's name and version, e.g. for a support bundle ("3.40.1"). */
const char *db_engine_version(void);

/* Column i's text, or "" for NULL: valid until the next step or finalize of st. */
const char *db_column_text(struct sqlite3_stmt *st, int i);
/*
 * The text of column i of st's current row, malloc'd; a copy of dflt (or NULL when dflt is
 * NULL) when the column is NULL. NULL when memory is short.
 */
char	*db_column_dup(struct sqlite3_stmt *st, int i, const char *dflt);

#endif /* DB_H */
