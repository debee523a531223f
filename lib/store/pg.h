/*
 * store/pg.h: PostgreSQL through libpq, the engine of DATABASE_URL=postgresql://...
 * (docs/DESIGN.md, "Two engines"). Its calls mirror SQLite's that lib/store makes, so a
 * statement runs the same way on either engine: prepare once (the text in the shared
 * dialect with ?N parameters, or a DB_PAIR: store/sqltext.h), bind, step through the rows,
 * reset, finalize. Values travel as text (bytea as binary parameters), a row's columns
 * are read as text, integers or blobs.
 *
 * Contract that differs from SQLite: a statement's rows are fetched whole at its first
 * step, so another statement may run on the connection while its rows are read (as with
 * SQLite), at the cost of holding the result in memory: a scan of a whole large table
 * pages with LIMIT/OFFSET or keyset conditions instead.
 */
#ifndef STORE_PG_H
#define STORE_PG_H

#include <stddef.h>

struct pg;		/* a connection */
struct pg_stmt;		/* a prepared statement */

/* What a failed call met (as enum db_failure: the store maps them). */
enum pg_failure {
	PG_FAIL_OTHER,
	PG_FAIL_BUSY,	/* a lock not available, a serialization failure, a deadlock */
	PG_FAIL_FULL,	/* the disk is full */
	PG_FAIL_CONSTRAINT	/* a unique, foreign key or check constraint refused a row */
};

/*
 * Connects to url (a postgresql:// URL or a libpq keyword string). NULL on failure with
 * why in err, the password never in it.
 */
struct pg *pg_connect(const char *url, char *err, size_t errlen);
/*
 * What url names, for a message (never its password): "host H, port P, database D,
 * user U", each part libpq would take by default said so. 0, or -1 when libpq cannot
 * parse url (out then says that, without libpq's message: it may quote the password).
 */
int	 pg_url_describe(const char *url, char *out, size_t outlen);
void	 pg_close(struct pg *);
/* The message of the connection's last error (never NULL). */
const char *pg_errmsg(struct pg *);
enum pg_failure pg_failure(struct pg *);
/* The errors of the connection so far that were PG_FAIL_BUSY (a count that only grows). */
unsigned long pg_busy_failures(struct pg *);
/* The server's version, e.g. "15.18"; "" when unknown. */
const char *pg_server_version(struct pg *);

/* Runs sql (no parameters; several statements allowed). 0, or -1. */
int	 pg_exec(struct pg *, const char *sql);

/* Prepares sql on the server. 0 with *out set, or -1 (pg_errmsg says why). */
int	 pg_prepare(struct pg *, const char *sql, struct pg_stmt **out);
/* The number of the statement's last parameter. */
int	 pg_param_count(struct pg_stmt *);
/* Parameter i (1-based) for the next execution; text is copied. 0, or -1 (out of range). */
int	 pg_bind_text(struct pg_stmt *, int i, const char *text);
int	 pg_bind_int64(struct pg_stmt *, int i, long long v);
int	 pg_bind_null(struct pg_stmt *, int i);
int	 pg_bind_blob(struct pg_stmt *, int i, const void *p, size_t len);
/*
 * Executes the statement at its first call and returns its rows one by one: 1 a row is
 * there, 0 no more rows (or a statement that returns none), -1 an error.
 */
int	 pg_step(struct pg_stmt *);
int	 pg_column_count(struct pg_stmt *);
/* The current row's column i (0-based): NULL is "" for text and 0 for a number. */
int	 pg_column_null(struct pg_stmt *, int i);
const char *pg_column_text(struct pg_stmt *, int i);
long long pg_column_int64(struct pg_stmt *, int i);
double	 pg_column_double(struct pg_stmt *, int i);
/* A bytea column's bytes (valid until the next step, reset or finalize). */
const void *pg_column_blob(struct pg_stmt *, int i, size_t *len);
/* Ready to execute again with the bindings kept (as sqlite3_reset). */
void	 pg_reset(struct pg_stmt *);
void	 pg_finalize(struct pg_stmt *);
/* Rows the last INSERT, UPDATE or DELETE of the connection changed. */
long long pg_changes(struct pg *);
/*
 * The notifications (LISTEN) that have reached the connection so far, without a round
 * trip: reads what the socket holds, then calls fn with each one's payload. The count,
 * or -1 when the connection is lost.
 */
int	 pg_notices(struct pg *, void (*fn)(const char *payload, void *), void *arg);
/*
 * The calls of the connection so far that waited for the server (each PQexec,
 * PQprepare, PQexecPrepared): a counter the responders log per request on demand.
 */
unsigned long pg_round_trips(struct pg *);

/* Transactions: BEGIN, COMMIT, ROLLBACK; 1 when inside one. */
int	 pg_begin(struct pg *);
int	 pg_commit(struct pg *);
void	 pg_rollback(struct pg *);
int	 pg_in_transaction(struct pg *);

#endif
