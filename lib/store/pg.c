/* pg.c: PostgreSQL through libpq (pg.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "base/log.h"
#include "store/pg.h"
#include "store/sqltext.h"

/* A session's settings: the store's text is UTF-8, its times UTC. */
#define PG_SESSION	"SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC'"
/* The caller's own SETs kept for a reconnect (read only, lock_timeout, ...). */
#define PG_SETS_MAX	8

struct pg {
	PGconn		*conn;
	unsigned long	 next_name;	/* prepared statements are named s1, s2, ... */
	long long	 changes;
	char		 err[512];
	enum pg_failure	 failure;
	char		 version[32];
	unsigned long	 trips;		/* calls that waited for the server (pg_round_trips) */
	unsigned long	 busy;		/* errors that were PG_FAIL_BUSY (pg_busy_failures) */
	int		 in_tx;		/* inside a transaction when the last statement began */
	int		 lost;		/* the connection went and is not back (pg_ready) */
	int		 session_ok;	/* PG_SESSION ran on this connection */
	/* The caller's session settings (SET outside a transaction), run again after a reconnect. */
	char		*sets[PG_SETS_MAX];
	int		 sets_lost;	/* one did not fit: a reconnect would lose it */
	unsigned long	 gen;		/* the connections so far (pg_ready's reconnects) */
	unsigned long	 notices_gen;	/* the connection pg_notices last read */
};

struct pg_stmt {
	struct pg	*db;
	char		 name[24];
	char		*text;		/* its text, to prepare it again on a new connection */
	unsigned long	 gen;		/* the connection it is prepared on (struct pg's gen) */
	int		 nparams;
	/* The parameters as libpq takes them: a value (NULL: SQL NULL), its length, 1 for bytes. */
	char		**values;
	int		*lengths, *formats;
	PGresult	*res;		/* the rows, fetched at the first step */
	int		 row;		/* the current row, -1 before the first */
	unsigned char	*blob;		/* the last pg_column_blob's bytes */
};

/* Records the error of res (or of the connection when res is NULL). */
static void
pg_set_error(struct pg *db, const PGresult *res)
{
	const char	*msg = res != NULL ? PQresultErrorMessage(res) : PQerrorMessage(db->conn);
	const char	*state = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	size_t		 len;

	snprintf(db->err, sizeof(db->err), "%s", msg != NULL && *msg != '\0' ? msg :
	    "unknown PostgreSQL error");
	len = strlen(db->err);
	while (len > 0 && (db->err[len - 1] == '\n' || db->err[len - 1] == ' '))
		db->err[--len] = '\0';
	db->failure = PG_FAIL_OTHER;
	if (state == NULL)
		return;
	/* lock_not_available, serialization_failure, deadlock_detected, query_canceled */
	if (strcmp(state, "55P03") == 0 || strcmp(state, "40001") == 0 ||
	    strcmp(state, "40P01") == 0 || strcmp(state, "57014") == 0) {
		db->failure = PG_FAIL_BUSY;
		db->busy++;
	} else if (strcmp(state, "53100") == 0)		/* disk_full */
		db->failure = PG_FAIL_FULL;
	else if (strncmp(state, "23", 2) == 0)		/* integrity_constraint_violation */
		db->failure = PG_FAIL_CONSTRAINT;
}

/* Runs sql, a command (no rows), on the connection as it is: 0, or -1 with the error set. */
static int
pg_command(struct pg *db, const char *sql)
{
	PGresult	*res;
	int		 rc = 0;

	res = PQexec(db->conn, sql);
	db->trips++;
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		pg_set_error(db, res);
		rc = -1;
	}
	PQclear(res);
	return rc;
}

/* The message libpq gives for a URL it cannot parse is not shown: it may quote the password. */
#define PG_URL_UNPARSED	"the URL cannot be parsed (libpq's message is not shown: it may " \
			"quote the password): its form is postgresql://user:password@host:port/database"

/* Writes msg into err with every occurrence of secret (when not empty) as "********". */
static void
pg_scrub(char *err, size_t errlen, const char *msg, const char *secret)
{
	size_t		 n = secret != NULL ? strlen(secret) : 0, o = 0;
	const char	*p;

	if (errlen == 0)
		return;
	for (p = msg; *p != '\0' && *p != '\n' && o + 1 < errlen; ) {
		if (n > 0 && strncmp(p, secret, n) == 0) {
			o += (size_t)snprintf(err + o, errlen - o, "********");
			if (o >= errlen)
				o = errlen - 1;
			p += n;
		} else
			err[o++] = *p++;
	}
	err[o] = '\0';
}

int
pg_url_describe(const char *url, char *out, size_t outlen)
{
	PQconninfoOption *opts, *o;
	char		*perr = NULL;
	const char	*host = NULL, *port = NULL, *dbname = NULL, *user = NULL;

	if ((opts = PQconninfoParse(url, &perr)) == NULL) {
		PQfreemem(perr);
		snprintf(out, outlen, "%s", PG_URL_UNPARSED);
		return -1;
	}
	for (o = opts; o->keyword != NULL; o++) {
		if (o->val == NULL || *o->val == '\0')
			continue;
		if (strcmp(o->keyword, "host") == 0 ||
		    (strcmp(o->keyword, "hostaddr") == 0 && host == NULL))
			host = o->val;
		else if (strcmp(o->keyword, "port") == 0)
			port = o->val;
		else if (strcmp(o->keyword, "dbname") == 0)
			dbname = o->val;
		else if (strcmp(o->keyword, "user") == 0)
			user = o->val;
	}
	snprintf(out, outlen, "host %s, port %s, database %s, user %s",
	    host != NULL ? host : "(the local socket)", port != NULL ? port : "(default)",
	    dbname != NULL ? dbname : "(the user's name)",
	    user != NULL ? user : "(the login name)");
	PQconninfoFree(opts);
	return 0;
}

/*
 * The password: libpq quotes the text of a URL it cannot parse (a bad percent-encoding,
 * a bracket left open), so such a URL's message is replaced by PG_URL_UNPARSED, and the
 * password of one it parses is masked in the message of a failed connection.
 */
struct pg *
pg_connect(const char *url, char *err, size_t errlen)
{
	PQconninfoOption *opts, *o;
	struct pg	*db;
	char		*perr = NULL;
	int		 v;

	if ((opts = PQconninfoParse(url, &perr)) == NULL) {
		PQfreemem(perr);
		snprintf(err, errlen, "%s", PG_URL_UNPARSED);
		return NULL;
	}
	if ((db = calloc(1, sizeof(*db))) == NULL) {
		PQconninfoFree(opts);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	db->conn = PQconnectdb(url);
	if (db->conn == NULL || PQstatus(db->conn) != CONNECTION_OK) {
		for (o = opts; o->keyword != NULL && strcmp(o->keyword, "password") != 0; o++)
			;
		pg_scrub(err, errlen, db->conn != NULL ? PQerrorMessage(db->conn) :
		    "out of memory", o->keyword != NULL ? o->val : NULL);
		PQconninfoFree(opts);
		PQfinish(db->conn);
		free(db);
		return NULL;
	}
	PQconninfoFree(opts);
	v = PQserverVersion(db->conn);
	snprintf(db->version, sizeof(db->version), "%d.%d", v / 10000, v % 10000);
	if (pg_command(db, PG_SESSION) == -1) {
		snprintf(err, errlen, "%s", db->err);
		err[strcspn(err, "\n")] = '\0';
		pg_close(db);
		return NULL;
	}
	db->session_ok = 1;
	return db;
}

void
pg_close(struct pg *db)
{
	int	 i;

	if (db == NULL)
		return;
	for (i = 0; i < PG_SETS_MAX; i++)
		free(db->sets[i]);
	PQfinish(db->conn);
	free(db);
}

const char *
pg_errmsg(struct pg *db)
{
	return db->err[0] != '\0' ? db->err : "no error";
}

unsigned long
pg_busy_failures(struct pg *db)
{
	return db->busy;
}

enum pg_failure
pg_failure(struct pg *db)
{
	return db->failure;
}

const char *
pg_server_version(struct pg *db)
{
	return db->version;
}

/*
 * Before a statement: a connection the server closed (PostgreSQL restarted, a failover, an
 * administrator's pg_terminate_backend, an idle timeout) is opened again, so that a
 * long-lived process (a responder's worker) does not fail every request after it. Only
 * outside a transaction: a connection lost inside one fails each statement until the
 * transaction's end (sql is its ROLLBACK or COMMIT), which the server rolled back already.
 * The new session gets PG_SESSION and the caller's own SETs again (pg_keep_set), and the
 * statements prepared before are prepared again when they run (pg_step). While the server
 * stays away each statement tries once (logged once). 0, or -1 with the error set.
 */
static int
pg_ready(struct pg *db, const char *sql)
{
	char		 why[256];
	int		 i;

	if (PQstatus(db->conn) == CONNECTION_OK) {
		if ((db->in_tx = PQtransactionStatus(db->conn) != PQTRANS_IDLE))
			return 0;
		/*
		 * A closed connection shows when the input waiting is read (no wait): the
		 * server's last message (FATAL: terminating connection), then its end.
		 */
		if (PQconsumeInput(db->conn) == 1 && PQconsumeInput(db->conn) == 1 &&
		    PQstatus(db->conn) == CONNECTION_OK) {
			if (db->session_ok)
				return 0;
			goto session;
		}
	}
	snprintf(why, sizeof(why), "%s", PQerrorMessage(db->conn));
	why[strcspn(why, "\n")] = '\0';
	db->failure = PG_FAIL_OTHER;
	if (db->in_tx) {
		if (strcmp(sql, "ROLLBACK") == 0 || strcmp(sql, "COMMIT") == 0)
			db->in_tx = 0;
		snprintf(db->err, sizeof(db->err), "the connection to PostgreSQL was lost inside "
		    "a transaction: %s", why);
		return -1;
	}
	if (db->sets_lost) {
		snprintf(db->err, sizeof(db->err), "the connection to PostgreSQL was lost (%s), "
		    "and a session setting of it would be lost with a new one", why);
		return -1;
	}
	if (!db->lost)
		log_warn("the connection to PostgreSQL was lost (%s): connecting again", why);
	db->lost = 1;
	db->session_ok = 0;
	PQreset(db->conn);
	if (PQstatus(db->conn) != CONNECTION_OK) {
		snprintf(db->err, sizeof(db->err), "cannot connect to PostgreSQL again: %s",
		    PQerrorMessage(db->conn));
		db->err[strcspn(db->err, "\n")] = '\0';
		return -1;
	}
session:
	if (pg_command(db, PG_SESSION) == -1)
		return -1;
	for (i = 0; i < PG_SETS_MAX && db->sets[i] != NULL; i++)
		if (pg_command(db, db->sets[i]) == -1)
			return -1;
	db->session_ok = 1;
	if (db->lost) {
		db->gen++;	/* the statements prepared before are gone */
		log_info("connected to PostgreSQL again");
	}
	db->lost = 0;
	return 0;
}

/* 1 when sql is session settings only: "SET name = value" statements, none SET LOCAL. */
static int
pg_is_session_set(const char *sql)
{
	const char	*p = sql;

	while (*p != '\0') {
		p += strspn(p, " \t\n");
		if (*p == '\0')
			break;
		if (strncmp(p, "SET ", 4) != 0 || strncmp(p, "SET LOCAL ", 10) == 0 ||
		    strncmp(p, "SET CONSTRAINTS ", 16) == 0 ||
		    strncmp(p, "SET TRANSACTION ", 16) == 0 || strncmp(p, "SET SESSION ", 12) == 0)
			return 0;
		p += strcspn(p, ";");
		if (*p == ';')
			p++;
	}
	return p != sql;
}

/*
 * Session settings sql ran outside a transaction (pg_is_session_set): kept for pg_ready to
 * run again on a new connection, in place of an earlier one of the same first name.
 */
static void
pg_keep_set(struct pg *db, const char *sql)
{
	size_t	 key;
	int	 i;

	if (!pg_is_session_set(sql))
		return;
	key = strcspn(sql, "=");
	for (i = 0; i < PG_SETS_MAX && db->sets[i] != NULL; i++)
		if (strncmp(db->sets[i], sql, key) == 0 && db->sets[i][key] == '=')
			break;
	if (i == PG_SETS_MAX) {
		db->sets_lost = 1;
		return;
	}
	free(db->sets[i]);
	if ((db->sets[i] = strdup(sql)) == NULL) {
		db->sets_lost = 1;
		/* no hole: the later ones move up */
		for (; i + 1 < PG_SETS_MAX; i++)
			db->sets[i] = db->sets[i + 1];
		db->sets[PG_SETS_MAX - 1] = NULL;
	}
}

int
pg_exec(struct pg *db, const char *sql)
{
	PGresult	*res;
	ExecStatusType	 st;
	int		 rc = 0;

	sql = sqltext_pick(sql, DB_ENGINE_POSTGRES);
	if (pg_ready(db, sql) == -1)
		return -1;
	res = PQexec(db->conn, sql);
	st = PQresultStatus(res);
	db->trips++;
	if (!db->in_tx && (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK))
		pg_keep_set(db, sql);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		pg_set_error(db, res);
		rc = -1;
	}
	PQclear(res);
	return rc;
}

int
pg_prepare(struct pg *db, const char *sql, struct pg_stmt **out)
{
	struct pg_stmt	*st;
	PGresult	*res;
	char		*text;
	int		 n;

	*out = NULL;
	if (pg_ready(db, "") == -1)
		return -1;
	if ((text = sqltext_postgres(sql, &n)) == NULL) {
		snprintf(db->err, sizeof(db->err), "%s", errno == EINVAL ?
		    "a parameter number out of range" : "out of memory");
		db->failure = PG_FAIL_OTHER;
		return -1;
	}
	if ((st = calloc(1, sizeof(*st))) == NULL ||
	    (st->values = calloc((size_t)n + 1, sizeof(*st->values))) == NULL ||
	    (st->lengths = calloc((size_t)n + 1, sizeof(*st->lengths))) == NULL ||
	    (st->formats = calloc((size_t)n + 1, sizeof(*st->formats))) == NULL) {
		if (st != NULL) {
			free(st->values);
			free(st->lengths);
		}
		free(st);
		free(text);
		snprintf(db->err, sizeof(db->err), "out of memory");
		return -1;
	}
	st->db = db;
	st->nparams = n;
	st->row = -1;
	snprintf(st->name, sizeof(st->name), "s%lu", ++db->next_name);
	st->text = text;
	st->gen = db->gen;
	res = PQprepare(db->conn, st->name, text, n, NULL);
	db->trips++;
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		pg_set_error(db, res);
		PQclear(res);
		free(st->text);
		free(st->values);
		free(st->lengths);
		free(st->formats);
		free(st);
		return -1;
	}
	PQclear(res);
	*out = st;
	return 0;
}

int
pg_param_count(struct pg_stmt *st)
{
	return st->nparams;
}

/* Clears parameter i (1-based) to NULL: 0, or -1 when out of range. */
static int
pg_param(struct pg_stmt *st, int i)
{
	if (i < 1 || i > st->nparams) {
		snprintf(st->db->err, sizeof(st->db->err), "parameter %d of %d", i,
		    st->nparams);
		return -1;
	}
	i--;
	free(st->values[i]);
	st->values[i] = NULL;
	st->lengths[i] = 0;
	st->formats[i] = 0;
	return 0;
}

int
pg_bind_text(struct pg_stmt *st, int i, const char *text)
{
	if (pg_param(st, i) == -1)
		return -1;
	if (text == NULL)
		return 0;
	if ((st->values[i - 1] = strdup(text)) == NULL)
		return -1;
	st->lengths[i - 1] = (int)strlen(text);
	return 0;
}

int
pg_bind_int64(struct pg_stmt *st, int i, long long v)
{
	char	 num[24];

	snprintf(num, sizeof(num), "%lld", v);
	return pg_bind_text(st, i, num);
}

int
pg_bind_null(struct pg_stmt *st, int i)
{
	return pg_param(st, i);
}

int
pg_bind_blob(struct pg_stmt *st, int i, const void *bytes, size_t len)
{
	if (pg_param(st, i) == -1 || len > INT32_MAX ||
	    (st->values[i - 1] = malloc(len ? len : 1)) == NULL)
		return -1;
	memcpy(st->values[i - 1], bytes, len);
	st->lengths[i - 1] = (int)len;
	st->formats[i - 1] = 1;
	return 0;
}

int
pg_step(struct pg_stmt *st)
{
	ExecStatusType	 status;
	const char	*tuples;

	PQfreemem(st->blob);
	st->blob = NULL;
	if (st->res == NULL) {
		/* a statement kept across a reconnect (pg_ready) is prepared again */
		if (pg_ready(st->db, "") == -1)
			return -1;
		if (st->gen != st->db->gen) {
			st->res = PQprepare(st->db->conn, st->name, st->text, st->nparams, NULL);
			st->db->trips++;
			if (PQresultStatus(st->res) != PGRES_COMMAND_OK) {
				pg_set_error(st->db, st->res);
				PQclear(st->res);
				st->res = NULL;
				return -1;
			}
			PQclear(st->res);
			st->gen = st->db->gen;
		}
		st->res = PQexecPrepared(st->db->conn, st->name, st->nparams,
		    (const char *const *)st->values, st->lengths, st->formats, 0);
		st->db->trips++;
		status = PQresultStatus(st->res);
		if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
			pg_set_error(st->db, st->res);
			PQclear(st->res);
			st->res = NULL;
			return -1;
		}
		tuples = PQcmdTuples(st->res);
		st->db->changes = tuples != NULL && *tuples != '\0' ? strtoll(tuples, NULL, 10) : 0;
		st->row = -1;
	}
	if (st->row + 1 < PQntuples(st->res)) {
		st->row++;
		return 1;
	}
	st->row = PQntuples(st->res);
	return 0;
}

int
pg_column_count(struct pg_stmt *st)
{
	return st->res != NULL ? PQnfields(st->res) : 0;
}

/* 1 when the current row has a column i. */
static int
pg_has(struct pg_stmt *st, int i)
{
	return st->res != NULL && st->row >= 0 && st->row < PQntuples(st->res) &&
	    i >= 0 && i < PQnfields(st->res);
}

int
pg_column_null(struct pg_stmt *st, int i)
{
	return !pg_has(st, i) || PQgetisnull(st->res, st->row, i);
}

const char *
pg_column_text(struct pg_stmt *st, int i)
{
	return pg_has(st, i) ? PQgetvalue(st->res, st->row, i) : "";
}

long long
pg_column_int64(struct pg_stmt *st, int i)
{
	const char	*v = pg_column_text(st, i);

	/* A boolean column reads as 1 or 0, as SQLite's do. */
	if (v[0] == 't' && v[1] == '\0')
		return 1;
	return strtoll(v, NULL, 10);
}

double
pg_column_double(struct pg_stmt *st, int i)
{
	return strtod(pg_column_text(st, i), NULL);
}

const void *
pg_column_blob(struct pg_stmt *st, int i, size_t *len)
{
	*len = 0;
	PQfreemem(st->blob);
	st->blob = NULL;
	if (pg_column_null(st, i))
		return NULL;
	st->blob = PQunescapeBytea((const unsigned char *)PQgetvalue(st->res, st->row, i),
	    len);
	return st->blob;
}

void
pg_reset(struct pg_stmt *st)
{
	PQfreemem(st->blob);
	st->blob = NULL;
	PQclear(st->res);
	st->res = NULL;
	st->row = -1;
}

void
pg_finalize(struct pg_stmt *st)
{
	PGresult	*res;
	char		 sql[64];
	int		 i;

	if (st == NULL)
		return;
	pg_reset(st);
	snprintf(sql, sizeof(sql), "DEALLOCATE %s", st->name);
	if (st->gen == st->db->gen && PQstatus(st->db->conn) == CONNECTION_OK &&
	    PQtransactionStatus(st->db->conn) != PQTRANS_INERROR) {
		res = PQexec(st->db->conn, sql);
		st->db->trips++;
		PQclear(res);
	}
	for (i = 0; i < st->nparams; i++)
		free(st->values[i]);
	free(st->text);
	free(st->values);
	free(st->lengths);
	free(st->formats);
	free(st);
}

int
pg_notices(struct pg *db, void (*fn)(const char *payload, void *), void *arg)
{
	PGnotify	*n;
	int		 count = 0;

	/*
	 * A connection pg_ready opened again has lost the LISTENs of the one before, and the
	 * notifications sent meanwhile: said as a lost connection, once.
	 */
	if (db->notices_gen != db->gen) {
		db->notices_gen = db->gen;
		snprintf(db->err, sizeof(db->err), "it was opened again, its notifications "
		    "missed");
		db->failure = PG_FAIL_OTHER;
		return -1;
	}
	/*
	 * Reads what the socket holds without waiting (libpq's socket is non-blocking); twice,
	 * so that a connection the server closed shows (its last message, then its end).
	 */
	if (PQstatus(db->conn) != CONNECTION_OK || PQconsumeInput(db->conn) == 0 ||
	    PQconsumeInput(db->conn) == 0 || PQstatus(db->conn) != CONNECTION_OK) {
		pg_set_error(db, NULL);
		return -1;
	}
	while ((n = PQnotifies(db->conn)) != NULL) {
		fn(n->extra != NULL ? n->extra : "", arg);
		PQfreemem(n);
		count++;
	}
	return count;
}

unsigned long
pg_round_trips(struct pg *db)
{
	return db->trips;
}

long long
pg_changes(struct pg *db)
{
	return db->changes;
}

int
pg_begin(struct pg *db)
{
	return pg_exec(db, "BEGIN");
}

int
pg_commit(struct pg *db)
{
	return pg_exec(db, "COMMIT");
}

void
pg_rollback(struct pg *db)
{
	if (pg_exec(db, "ROLLBACK") == -1)
		log_warn("%s: %s", __func__, pg_errmsg(db));
}

int
pg_in_transaction(struct pg *db)
{
	PGTransactionStatusType t = PQtransactionStatus(db->conn);

	return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}
