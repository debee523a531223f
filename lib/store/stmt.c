/* stmt.c: statements on either storage engine (stmt.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/conn.h"
#include "store/pg.h"
#include "store/stmt.h"

struct db_stmt {
	struct db	*db;
	sqlite3_stmt	*lite;
	struct pg_stmt	*pg;
};

static struct db *
db_conn_new(enum db_engine e, sqlite3 *lite, struct pg *pg)
{
	struct db	*db = calloc(1, sizeof(*db));

	if (db != NULL) {
		db->engine = e;
		db->lite = lite;
		db->pg = pg;
		db->readonly = -1;
	}
	return db;
}

struct db *
db_conn_sqlite(sqlite3 *lite)
{
	return db_conn_new(DB_ENGINE_SQLITE, lite, NULL);
}

struct db *
db_conn_pg(struct pg *pg)
{
	return db_conn_new(DB_ENGINE_POSTGRES, NULL, pg);
}

struct db *
db_connect_pg(const char *url, const char *session, char *why, size_t whysz)
{
	struct pg	*pg;
	struct db	*db;

	if ((pg = pg_connect(url, why, whysz)) == NULL)
		return NULL;
	if (session != NULL && pg_exec(pg, session) == -1) {
		snprintf(why, whysz, "%s", pg_errmsg(pg));
		pg_close(pg);
		return NULL;
	}
	if ((db = db_conn_pg(pg)) == NULL) {
		snprintf(why, whysz, "out of memory");
		pg_close(pg);
	}
	return db;
}

void
db_conn_free(struct db *db)
{
	free(db);
}

enum db_engine
db_conn_engine(const struct db *db)
{
	return db->engine;
}

const char *
db_conn_errmsg(struct db *db)
{
	return db->lite != NULL ? sqlite3_errmsg(db->lite) : pg_errmsg(db->pg);
}

int
db_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	struct db_stmt	*st;
	int		 rc;

	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return -1;
	st->db = db;
	if (db->lite != NULL)
		rc = sqlite3_prepare_v2(db->lite, sqltext_pick(sql, DB_ENGINE_SQLITE), -1,
		    &st->lite, NULL) == SQLITE_OK ? 0 : -1;
	else
		rc = pg_prepare(db->pg, sql, &st->pg);
	if (rc == -1) {
		sqlite3_finalize(st->lite);
		free(st);
		return -1;
	}
	*out = st;
	return 0;
}

int
db_param_count(struct db_stmt *st)
{
	if (st->lite != NULL)
		return sqlite3_bind_parameter_count(st->lite);
	return pg_param_count(st->pg);
}

int
db_bind_text(struct db_stmt *st, int i, const char *text)
{
	if (st->lite != NULL)
		return (text != NULL ? sqlite3_bind_text(st->lite, i, text, -1, SQLITE_STATIC) :
		    sqlite3_bind_null(st->lite, i)) == SQLITE_OK ? 0 : -1;
	return pg_bind_text(st->pg, i, text);
}

int
db_bind_int64(struct db_stmt *st, int i, long long v)
{
	if (st->lite != NULL)
		return sqlite3_bind_int64(st->lite, i, v) == SQLITE_OK ? 0 : -1;
	return pg_bind_int64(st->pg, i, v);
}

int
db_bind_null(struct db_stmt *st, int i)
{
	if (st->lite != NULL)
		return sqlite3_bind_null(st->lite, i) == SQLITE_OK ? 0 : -1;
	return pg_bind_null(st->pg, i);
}

int
db_bind_blob(struct db_stmt *st, int i, const void *p, size_t len)
{
	if (st->lite != NULL)
		return sqlite3_bind_blob64(st->lite, i, p, len, SQLITE_STATIC) == SQLITE_OK ?
		    0 : -1;
	return pg_bind_blob(st->pg, i, p, len);
}

int
db_step(struct db_stmt *st)
{
	int	 rc;

	if (st->lite == NULL)
		return pg_step(st->pg);
	rc = sqlite3_step(st->lite);
	return rc == SQLITE_ROW ? DB_ROW : rc == SQLITE_DONE ? DB_DONE : -1;
}

int
db_col_null(struct db_stmt *st, int i)
{
	if (st->lite != NULL)
		return sqlite3_column_type(st->lite, i) == SQLITE_NULL;
	return pg_column_null(st->pg, i);
}

const char *
db_col_text(struct db_stmt *st, int i)
{
	const unsigned char *t;

	if (st->lite == NULL)
		return pg_column_text(st->pg, i);
	t = sqlite3_column_text(st->lite, i);
	return t != NULL ? (const char *)t : "";
}

long long
db_col_int64(struct db_stmt *st, int i)
{
	if (st->lite != NULL)
		return sqlite3_column_int64(st->lite, i);
	return pg_column_int64(st->pg, i);
}

double
db_col_double(struct db_stmt *st, int i)
{
	if (st->lite != NULL)
		return sqlite3_column_double(st->lite, i);
	return pg_column_double(st->pg, i);
}

const void *
db_col_blob(struct db_stmt *st, int i, size_t *len)
{
	const void	*p;

	if (st->lite == NULL)
		return pg_column_blob(st->pg, i, len);
	p = sqlite3_column_blob(st->lite, i);
	*len = (size_t)sqlite3_column_bytes(st->lite, i);
	return p;
}

void
db_reset(struct db_stmt *st)
{
	if (st->lite != NULL)
		sqlite3_reset(st->lite);
	else
		pg_reset(st->pg);
}

void
db_finalize(struct db_stmt *st)
{
	if (st == NULL)
		return;
	if (st->lite != NULL)
		sqlite3_finalize(st->lite);
	else
		pg_finalize(st->pg);
	free(st);
}

long long
db_changes(struct db *db)
{
	if (db->lite != NULL)
		return sqlite3_changes64(db->lite);
	return pg_changes(db->pg);
}

int
db_stmt_int(struct db *db, const char *sql, long long *out)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_prepare(db, sql, &st) == -1)
		return -1;
	if (db_step(st) == DB_ROW) {
		*out = db_col_int64(st, 0);
		rc = 0;
	}
	db_finalize(st);
	return rc;
}

int
db_stmt_run(struct db *db, const char *sql, const char *types, ...)
{
	va_list		 ap;
	int		 rc;

	va_start(ap, types);
	rc = db_stmt_runv(db, __func__, sql, types, ap);
	va_end(ap);
	return rc;
}

int
db_stmt_runv(struct db *db, const char *who, const char *sql, const char *types, va_list ap)
{
	struct db_stmt	*st;
	const char	*t;
	int		 i, n, rc = 0;

	if (db_prepare(db, sql, &st) == -1) {
		log_err("%s: %s", who, db_conn_errmsg(db));
		return -1;
	}
	n = db_param_count(st);
	for (i = 1; i <= n && types[i - 1] != '\0' && rc == 0; i++)
		switch (types[i - 1]) {
		case 't':
			t = va_arg(ap, const char *);
			rc = db_bind_text(st, i, t);
			break;
		case 'i':
			rc = db_bind_int64(st, i, va_arg(ap, int));
			break;
		case 'I':
			rc = db_bind_int64(st, i, va_arg(ap, long long));
			break;
		default:
			rc = -1;
		}
	if (rc == 0 && db_step(st) != DB_DONE)
		rc = -1;
	if (rc == -1)
		log_err("%s: %s", who, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}
