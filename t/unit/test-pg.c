/*
 * test-pg.c: PostgreSQL through libpq (lib/store/pg.c) and the statements' text for either
 * engine (lib/store/sqltext.c). The text checks always run; the engine's need a server:
 * DATABASE_URL names it (t/t0018-pg-engine.sh starts one), else they are skipped.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "store/pg.h"
#include "store/pgstore.h"
#include "store/sqltext.h"
#include "tap.h"

static void
test_text(void)
{
	static const struct {
		const char *in, *want;
		int n;
		const char *desc;
	} c[] = {
		{ "SELECT ?1, ?2 WHERE a = ?1", "SELECT $1, $2 WHERE a = $1", 2, "?N becomes $N" },
		{ "VALUES (?, ?, ?5, ?)", "VALUES ($1, $2, $5, $6)", 6,
		  "a bare ? is one more than the largest so far" },
		{ "SELECT '?1', 'it''s ?', \"a?b\", ?1", "SELECT '?1', 'it''s ?', \"a?b\", $1", 1,
		  "not inside string literals (with doubled quotes) or quoted identifiers" },
		{ "SELECT 1 -- ?2\n, ?1 /* ?3 */", "SELECT 1 -- ?2\n, $1 /* ?3 */", 1,
		  "not inside comments" },
		{ "SELECT 'unterminated ?1", "SELECT 'unterminated ?1", 0,
		  "an unterminated literal is copied as it is" },
		{ DB_PAIR("SELECT group_concat(x, ?1)", "SELECT string_agg(x, ?1)"),
		  "SELECT string_agg(x, $1)", 1, "a pair: PostgreSQL's half" },
	};
	size_t	 i;
	char	*r;
	int	 n;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		r = sqltext_postgres(c[i].in, &n);
		is_str(r, c[i].want, "%s", c[i].desc);
		is_int(n, c[i].n, "%s: its parameter count", c[i].desc);
		free(r);
	}
	errno = 0;
	ok(sqltext_postgres("SELECT ?0", &n) == NULL && errno == EINVAL, "?0 is refused");
	ok(sqltext_postgres("SELECT ?99999", &n) == NULL && errno == EINVAL,
	    "a parameter past 32767 is refused");
	is_str(sqltext_pick("SELECT 1", DB_ENGINE_SQLITE), "SELECT 1", "a plain text: SQLite's");
	is_str(sqltext_pick("SELECT 1", DB_ENGINE_POSTGRES), "SELECT 1", "... and PostgreSQL's");
	is_str(sqltext_pick(DB_PAIR("SELECT 1", "SELECT 2"), DB_ENGINE_SQLITE), "SELECT 1",
	    "a pair: SQLite's half");
	is_str(sqltext_pick(DB_PAIR("SELECT 1", "SELECT 2"), DB_ENGINE_POSTGRES), "SELECT 2",
	    "a pair: PostgreSQL's half");
}

/*
 * Messages about a URL never hold its password: libpq quotes a URL it cannot parse, and a
 * connection's message may hold an option's value (no server needed: each fails first).
 */
static void
test_url_password(void)
{
	char	 err[512], d[256];

	ok(pg_connect("postgresql://ann:p%zzS3cretPw@127.0.0.1:1/ctxd", err, sizeof(err)) ==
	    NULL && *err != '\0', "a URL libpq cannot parse: NULL and why (%s)", err);
	ok(strstr(err, "S3cretPw") == NULL, "... without the password");
	ok(pg_connect("postgresql://ann:S3cretPw@[::1/ctxd", err, sizeof(err)) == NULL &&
	    strstr(err, "S3cretPw") == NULL, "a bracket left open: no password either (%s)",
	    err);
	ok(pg_connect("postgresql://ann:verify-S3cret@127.0.0.1:1/ctxd?sslmode=verify-S3cret",
	    err, sizeof(err)) == NULL && strstr(err, "S3cret") == NULL &&
	    strstr(err, "********") != NULL, "a message quoting a value that is the password: "
	    "it is masked (%s)", err);
	ok(pg_url_describe("postgresql://ann:S3cretPw@db.example:5433/docs?sslmode=require", d,
	    sizeof(d)) == 0, "describe a URL");
	is_str(d, "host db.example, port 5433, database docs, user ann",
	    "... host, port, database and user, not the password");
	ok(pg_url_describe("dbname=docs password=S3cretPw", d, sizeof(d)) == 0 &&
	    strstr(d, "S3cretPw") == NULL, "a keyword string: %s", d);
	is_str(d, "host (the local socket), port (default), database docs, user (the login name)",
	    "... libpq's defaults said so");
	ok(pg_url_describe("postgresql://ann:p%zzS3cretPw@h/db", d, sizeof(d)) == -1 &&
	    strstr(d, "S3cretPw") == NULL && strstr(d, "cannot be parsed") != NULL,
	    "a URL libpq cannot parse: -1, said without the password");
}

static void
test_engine(const char *url)
{
	struct pg	*db, *db2;
	struct pg_stmt	*ins, *sel, *upd, *pair;
	const unsigned char bytes[] = { 0, 1, 2, 0xff, 0, 'x' };
	const unsigned char *got;
	char		 err[256];
	size_t		 len;
	int		 rows;

	ok(pg_connect("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", err,
	    sizeof(err)) == NULL && *err != '\0', "a server that is not there: NULL and why (%s)",
	    err);
	if ((db = pg_connect(url, err, sizeof(err))) == NULL) {
		ok(0, "connect: %s", err);
		return;
	}
	ok(strncmp(pg_server_version(db), "1", 1) == 0, "the server's version (%s)",
	    pg_server_version(db));
	ok(pg_exec(db, "DROP TABLE IF EXISTS t; CREATE TABLE t (id bigserial PRIMARY KEY, "
	    "name text UNIQUE NOT NULL, n bigint, b bytea, flag boolean)") == 0,
	    "exec: several statements");
	ok(pg_prepare(db, "INSERT INTO t (name, n, b, flag) VALUES (?1, ?2, ?3, ?4)",
	    &ins) == 0, "prepare an insert");
	pg_bind_text(ins, 1, "caf\xc3\xa9 \xe6\x97\xa5");
	pg_bind_int64(ins, 2, 9007199254740993LL);
	pg_bind_blob(ins, 3, bytes, sizeof(bytes));
	pg_bind_int64(ins, 4, 1);
	is_int(pg_step(ins), 0, "an insert returns no row");
	is_int(pg_changes(db), 1, "one row changed");
	pg_reset(ins);
	is_int(pg_step(ins), -1, "the same name again: refused");
	is_int(pg_failure(db), PG_FAIL_CONSTRAINT, "... by a constraint");
	ok(strstr(pg_errmsg(db), "unique") != NULL, "... and the message says so (%s)",
	    pg_errmsg(db));
	pg_reset(ins);
	pg_bind_text(ins, 1, "second");
	pg_bind_null(ins, 2);
	pg_bind_null(ins, 3);
	pg_bind_int64(ins, 4, 0);
	is_int(pg_step(ins), 0, "rebound and run again");
	ok(pg_bind_text(ins, 5, "x") == -1, "a parameter past the statement's is refused");

	ok(pg_prepare(db, "SELECT id, name, n, b, flag FROM t ORDER BY id", &sel) == 0,
	    "prepare a select");
	ok(pg_prepare(db, "UPDATE t SET n = coalesce(n, 0) + 1 WHERE id = ?1", &upd) == 0,
	    "prepare an update");
	rows = 0;
	while (pg_step(sel) == 1) {
		rows++;
		if (rows == 1) {
			is_str(pg_column_text(sel, 1), "caf\xc3\xa9 \xe6\x97\xa5", "UTF-8 text back");
			ok(pg_column_int64(sel, 2) == 9007199254740993LL, "a 64-bit integer back");
			got = pg_column_blob(sel, 3, &len);
			ok(got != NULL && len == sizeof(bytes) && memcmp(got, bytes, len) == 0,
			    "bytes with NULs back");
			is_int(pg_column_int64(sel, 4), 1, "a boolean reads 1");
		} else {
			ok(pg_column_null(sel, 2) && pg_column_int64(sel, 2) == 0 &&
			    strcmp(pg_column_text(sel, 2), "") == 0,
			    "NULL: null, 0 and the empty text");
			is_int(pg_column_int64(sel, 4), 0, "false reads 0");
		}
		/* Another statement runs while this one's rows are read, as with SQLite. */
		pg_reset(upd);
		pg_bind_int64(upd, 1, pg_column_int64(sel, 0));
		ok(pg_step(upd) == 0 && pg_changes(db) == 1, "an update while the rows are read");
	}
	is_int(rows, 2, "two rows");
	is_int(pg_column_count(sel), 5, "five columns");
	ok(pg_column_null(sel, 0), "no current row past the end");

	ok(pg_begin(db) == 0 && pg_in_transaction(db), "begin");
	pg_reset(ins);
	pg_bind_text(ins, 1, "rolled back");
	pg_step(ins);
	pg_rollback(db);
	ok(!pg_in_transaction(db), "rolled back");
	pg_reset(sel);
	rows = 0;
	while (pg_step(sel) == 1)
		rows++;
	is_int(rows, 2, "the rolled back row is not there");

	ok(pg_prepare(db, DB_PAIR("SELECT group_concat(name, ?1) FROM t",
	    "SELECT string_agg(name, ?1 ORDER BY id) FROM t"), &pair) == 0 &&
	    pg_bind_text(pair, 1, "|") == 0 && pg_step(pair) == 1,
	    "a pair runs PostgreSQL's half");
	is_str(pg_column_text(pair, 0), "caf\xc3\xa9 \xe6\x97\xa5|second", "... with its parameter");

	/* A second connection waits for no lock it cannot get: it is told the row is busy. */
	if ((db2 = pg_connect(url, err, sizeof(err))) != NULL) {
		pg_begin(db);
		pg_exec(db, "UPDATE t SET n = 0 WHERE name = 'second'");
		pg_exec(db2, "SET lock_timeout = '100ms'");
		ok(pg_exec(db2, "UPDATE t SET n = 1 WHERE name = 'second'") == -1 &&
		    pg_failure(db2) == PG_FAIL_BUSY, "a lock not granted in time: busy (%s)",
		    pg_errmsg(db2));
		pg_rollback(db);
		pg_close(db2);
	} else
		ok(0, "second connection: %s", err);
	pg_finalize(sel);
	ok(pg_prepare(db, "SELECT nonsense FROM nowhere", &sel) == -1 && sel == NULL &&
	    strstr(pg_errmsg(db), "nowhere") != NULL,
	    "a statement the server refuses: -1 and its message (%s)", pg_errmsg(db));
	pg_finalize(ins);
	pg_finalize(upd);
	pg_finalize(pair);
	pg_exec(db, "DROP TABLE t");
	pg_close(db);
}

/* The schema of sql/pg/, created and migrated by pgstore_migrate, in a schema of its own. */
static void
test_migrate(const char *url)
{
	struct pg	*db;
	struct pg_stmt	*st;
	char		 err[256] = "";
	int		 from = -1;

	if ((db = pg_connect(url, err, sizeof(err))) == NULL) {
		ok(0, "connect: %s", err);
		return;
	}
	ok(pg_exec(db, "DROP SCHEMA IF EXISTS mig CASCADE; CREATE SCHEMA mig; "
	    "SET search_path = mig") == 0, "a schema of the test's own");
	ok(pgstore_migrate(db, &from, err, sizeof(err)) == 0 && from == 0,
	    "a new database: the schema made (%s)", err);
	ok(pg_prepare(db, "SELECT version FROM ctxd_schema", &st) == 0 && pg_step(st) == 1 &&
	    pg_column_int64(st, 0) == db_schema_version(), "... at this build's version %d",
	    db_schema_version());
	pg_finalize(st);
	ok(pg_prepare(db, "SELECT from_version, to_version FROM schema_history", &st) == 0 &&
	    pg_step(st) == 1 && pg_column_int64(st, 0) == 0 &&
	    pg_column_int64(st, 1) == db_schema_version() && pg_step(st) == 0,
	    "... and its history says so");
	pg_finalize(st);
	ok(pgstore_migrate(db, &from, err, sizeof(err)) == 0 && from == db_schema_version(),
	    "opened again: nothing to do");
	ok(pg_exec(db, "UPDATE ctxd_schema SET version = version + 1") == 0 &&
	    pgstore_migrate(db, &from, err, sizeof(err)) == -1 && strstr(err, "newer") != NULL,
	    "a newer schema is refused (%s)", err);
	ok(pg_exec(db, "SET search_path = public; DROP SCHEMA mig CASCADE") == 0, "dropped");
	pg_close(db);
}

/* The one integer sql answers on db, or -1. */
static long long
one_int(struct pg *db, const char *sql)
{
	struct pg_stmt	*st;
	long long	 v = -1;

	if (pg_prepare(db, sql, &st) == -1)
		return -1;
	if (pg_step(st) == 1)
		v = pg_column_int64(st, 0);
	pg_finalize(st);
	return v;
}

/* The server ends connection pid (waiting until it is gone), as a restart or failover would. */
static int
drop_connection(struct pg *admin, long long pid)
{
	struct pg_stmt	*st;
	int		 rc;

	if (pg_prepare(admin, "SELECT pg_terminate_backend(?1::int, 10000)::int", &st) == -1)
		return -1;
	pg_bind_int64(st, 1, pid);
	rc = pg_step(st) == 1 && pg_column_int64(st, 0) == 1 ? 0 : -1;
	pg_finalize(st);
	return rc;
}

/*
 * A connection the server closed is opened again at the next statement outside a
 * transaction, with the caller's session settings and its prepared statements; inside a
 * transaction the statements fail until the transaction's end.
 */
static void
test_reconnect(const char *url)
{
	struct pg	*db, *admin;
	struct pg_stmt	*kept, *st;
	char		 err[256] = "";
	long long	 pid;

	if ((db = pg_connect(url, err, sizeof(err))) == NULL ||
	    (admin = pg_connect(url, err, sizeof(err))) == NULL) {
		ok(0, "connect: %s", err);
		pg_close(db);
		return;
	}
	ok(pg_exec(db, "SET lock_timeout = 1234") == 0, "a session setting");
	ok(pg_prepare(db, "SELECT ?1::bigint + 1", &kept) == 0 && pg_bind_int64(kept, 1, 41) == 0,
	    "a statement kept");
	pid = one_int(db, "SELECT pg_backend_pid()");
	ok(drop_connection(admin, pid) == 0, "the server drops the connection");
	is_int(one_int(db, "SELECT 1"), 1, "the next statement connects again");
	ok(one_int(db, "SELECT pg_backend_pid()") != pid, "... a new connection");
	ok(pg_prepare(db, "SHOW lock_timeout", &st) == 0 && pg_step(st) == 1 &&
	    strcmp(pg_column_text(st, 0), "1234ms") == 0, "... with the session setting again");
	pg_finalize(st);
	ok(pg_step(kept) == 1 && pg_column_int64(kept, 0) == 42,
	    "a statement prepared before it runs (prepared again)");
	pg_reset(kept);
	ok(drop_connection(admin, one_int(db, "SELECT pg_backend_pid()")) == 0,
	    "dropped again, while the statement is kept");
	ok(pg_step(kept) == 1 && pg_column_int64(kept, 0) == 42,
	    "its next run connects again and prepares it");
	pg_reset(kept);

	pid = one_int(db, "SELECT pg_backend_pid()");
	ok(pg_begin(db) == 0 && drop_connection(admin, pid) == 0,
	    "dropped inside a transaction");
	ok(pg_exec(db, "SELECT 1") == -1, "... the statement fails");
	ok(pg_exec(db, "SELECT 1") == -1 && strstr(pg_errmsg(db), "inside a transaction") != NULL,
	    "... and so does the next, not on another connection (%s)", pg_errmsg(db));
	pg_rollback(db);
	is_int(one_int(db, "SELECT 1"), 1, "after the transaction's end a statement connects again");
	pg_finalize(kept);
	pg_close(admin);
	pg_close(db);
}

int
main(void)
{
	const char	*url = getenv("DATABASE_URL");

	test_text();
	test_url_password();
	if (url != NULL && *url != '\0') {
		test_engine(url);
		test_migrate(url);
		test_reconnect(url);
	}
	else
		printf("# DATABASE_URL unset: the engine's checks are skipped "
		    "(t/t0018-pg-engine.sh runs them on a cluster of its own)\n");
	return tap_done();
}
