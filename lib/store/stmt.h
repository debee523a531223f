/*
 * store/stmt.h: statements on either storage engine (docs/DESIGN.md, "Two engines"): one
 * call for each step of a statement's life, whichever engine the connection is, so that a
 * store module is written once. A statement's text is the shared dialect with ?N
 * parameters, or a DB_PAIR (store/sqltext.h).
 *
 * Binding: text and blobs are not copied on SQLite (as SQLITE_STATIC): they must stay valid
 * until the statement is stepped to its end, reset or finalized; PostgreSQL copies them.
 * Reading: a column's text or blob is valid until the next step, reset or finalize.
 */
#ifndef STORE_STMT_H
#define STORE_STMT_H

#include <stdarg.h>
#include <stddef.h>

#include "store/sqltext.h"

struct db;		/* a connection to the store, of either engine */
struct db_stmt;		/* a prepared statement */
struct sqlite3;
struct pg;

/* What db_step found. */
#define DB_ROW	1	/* a row is there to read */
#define DB_DONE	0	/* no more rows, or a statement that returns none */

/*
 * A connection of either engine around a connection opened by the engine's own call
 * (db_open's SQLite connection, pg_connect's); db_conn_free releases the wrapper only.
 * NULL when memory is short.
 */
struct db *db_conn_sqlite(struct sqlite3 *);
struct db *db_conn_pg(struct pg *);
/*
 * pg_connect(url) wrapped as a connection, session (SET statements, kept for a reconnect;
 * NULL: none) run on it: NULL with why (never the URL's password) when it cannot be.
 */
struct db *db_connect_pg(const char *url, const char *session, char *why, size_t whysz);
void	 db_conn_free(struct db *);
enum db_engine db_conn_engine(const struct db *);
/* The message of the connection's last error (never NULL). */
const char *db_conn_errmsg(struct db *);

/* Prepares sql: 0 with *out set, or -1 (db_conn_errmsg says why; nothing logged). */
int	 db_prepare(struct db *, const char *sql, struct db_stmt **out);
/* The number of the statement's last parameter. */
int	 db_param_count(struct db_stmt *);
/* Parameter i (1-based); NULL text binds NULL. 0, or -1. */
int	 db_bind_text(struct db_stmt *, int i, const char *text);
int	 db_bind_int64(struct db_stmt *, int i, long long v);
int	 db_bind_null(struct db_stmt *, int i);
int	 db_bind_blob(struct db_stmt *, int i, const void *p, size_t len);
/* DB_ROW, DB_DONE, or -1 (db_conn_errmsg says why). */
int	 db_step(struct db_stmt *);
/* Column i (0-based) of the current row: NULL reads "" as text, 0 as a number. */
int	 db_col_null(struct db_stmt *, int i);
const char *db_col_text(struct db_stmt *, int i);
long long db_col_int64(struct db_stmt *, int i);
double	 db_col_double(struct db_stmt *, int i);
const void *db_col_blob(struct db_stmt *, int i, size_t *len);
/* Ready to run again; the bindings are kept. */
void	 db_reset(struct db_stmt *);
void	 db_finalize(struct db_stmt *);
/* Rows the connection's last INSERT, UPDATE or DELETE changed. */
long long db_changes(struct db *);
/*
 * db_run (store/db.h) on either engine: prepares sql, binds ?1, ?2, ... in order from the
 * arguments as types says ('t' text, NULL binds NULL; 'i' int; 'I' long long; values past
 * the statement's last parameter are ignored), runs it to its end and finalizes it. 0, or
 * -1 logged with the engine's message (db_changes then tells the rows changed).
 */
int	 db_stmt_run(struct db *, const char *sql, const char *types, ...);
/*
 * The integer in the first column of the first row a statement without parameters answers
 * (either engine): 0 with *out set, or -1 (no row, or an error; nothing logged).
 */
int	 db_stmt_int(struct db *, const char *sql, long long *out);
/* db_stmt_run with the arguments as a va_list, its log lines prefixed with who. */
int	 db_stmt_runv(struct db *, const char *who, const char *sql, const char *types,
	    va_list ap);

#endif
