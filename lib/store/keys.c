/* store/keys.c: the rows of the api_keys table. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/keys.h"
#include "store/conn.h"
#include "store/pg.h"

/* An owner's admin flag as an integer on both engines (PostgreSQL's = is a boolean). */
#define KEY_ADMIN	"CASE WHEN k.user_id IS NULL THEN k.admin WHEN u.role = 'admin' " \
			"THEN 1 ELSE 0 END"

int
store_key_insert(struct db *db, long long user_id, const char *name, const char *prefix,
    const char *hash, int admin, const char *created, long long *id)
{
	struct db_stmt	*st = NULL;
	int		 rc = -1;

	if (db_prepare(db, "INSERT INTO api_keys (name, prefix, hash, admin, created_at, "
	    "user_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id", &st) == -1)
		goto out;
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, prefix);
	db_bind_text(st, 3, hash);
	db_bind_int64(st, 4, admin != 0);
	db_bind_text(st, 5, created);
	if (user_id > 0)
		db_bind_int64(st, 6, user_id);
	else
		db_bind_null(st, 6);
	if (db_step(st) != DB_ROW)
		goto out;
	if (id != NULL)
		*id = db_col_int64(st, 0);
	if (db_step(st) != DB_DONE)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * The answers of store_key_lookup a listening connection keeps between requests (db_listen:
 * a query or MCP worker on PostgreSQL), valid keys and unknown ones alike, at most
 * KEY_KEPT (then emptied), dropped when a change of api_keys or users is announced
 * (a key revoked or created, a user disabled or made admin: db_drain_changes).
 */
#define KEY_KEPT	256
static struct {
	struct db	*db;
	unsigned long	 gen;		/* DB_CACHE_KEYS's when filled */
	size_t		 n;
	struct {
		char		 hash[65];
		int		 rc, admin;
		long long	 id, user_id;
	} k[KEY_KEPT];
} key_kept;

int
store_key_lookup(struct db *db, const char *hash, long long *id, long long *user_id,
    int *admin)
{
	struct db_stmt	*st;
	int		 rc = 1, s;
	size_t		 i;

	if (db->listening) {
		if (key_kept.db != db || !db_cache_valid(db, DB_CACHE_KEYS, key_kept.gen)) {
			key_kept.db = db;
			key_kept.gen = db_cache_gen(db, DB_CACHE_KEYS);
			key_kept.n = 0;
		}
		for (i = 0; i < key_kept.n; i++)
			if (strcmp(key_kept.k[i].hash, hash) == 0) {
				*id = key_kept.k[i].id;
				*user_id = key_kept.k[i].user_id;
				*admin = key_kept.k[i].admin;
				return key_kept.k[i].rc;
			}
	}

	if (db_prepare(db, "SELECT k.id, coalesce(k.user_id, 0), " KEY_ADMIN " FROM "
	    "api_keys k LEFT JOIN users u ON u.id = k.user_id WHERE k.hash = ?1 AND "
	    "k.revoked_at IS NULL AND (k.user_id IS NULL OR u.disabled = 0)", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, hash);
	if ((s = db_step(st)) == DB_ROW) {
		*id = db_col_int64(st, 0);
		*user_id = db_col_int64(st, 1);
		*admin = db_col_int64(st, 2) != 0;
		rc = 0;
	} else if (s != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	if (db->listening && rc != -1 && strlen(hash) < sizeof(key_kept.k[0].hash)) {
		if (key_kept.n == KEY_KEPT)
			key_kept.n = 0;
		i = key_kept.n++;
		snprintf(key_kept.k[i].hash, sizeof(key_kept.k[i].hash), "%s", hash);
		key_kept.k[i].rc = rc;
		key_kept.k[i].id = rc == 0 ? *id : 0;
		key_kept.k[i].user_id = rc == 0 ? *user_id : 0;
		key_kept.k[i].admin = rc == 0 ? *admin : 0;
	}
	return rc;
}

/*
 * The file of SQLite connection db's main database into path: 0, or -1 (none: a database
 * in memory or a temporary one).
 */
static int
store_key_file(struct db *db, char *path, size_t pathsz)
{
	struct db_stmt	*st;
	int		 rc = -1, n;

	if (db_prepare(db, "SELECT file FROM pragma_database_list WHERE name = 'main'",
	    &st) == -1)
		return -1;
	if (db_step(st) == DB_ROW && *db_col_text(st, 0) != '\0') {
		n = snprintf(path, pathsz, "%s", db_col_text(st, 0));
		rc = n > 0 && (size_t)n < pathsz ? 0 : -1;
	}
	db_finalize(st);
	return rc;
}

/*
 * Engine: a read-only connection (the query responders') cannot write, so this opens a
 * short-lived read-write one for the one UPDATE: on SQLite the same database file, on
 * PostgreSQL a second connection to DATABASE_URL (the responders' own connection makes its
 * transactions read only, and a failed UPDATE there would abort the request's read
 * transaction). Either waits at most 50 ms for a lock. A writable SQLite connection (the
 * web responders') does not wait at all (db_run_nowait): a touch is best effort, and
 * waiting out another writer's long transaction (an index run's) would hold the request
 * the busy timeout, 10 s, before it even began. Rare: apikey_touch writes a key at most
 * once a few minutes a process.
 */
static const char store_key_touch_sql[] =
    "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR "
    "last_used_at < ?3)";

int
store_key_touch(struct db *db, long long id, const char *now, const char *before)
{
	struct db	*w = db, *own = NULL;
	struct db_stmt	*st = NULL;
	char		 file[4096];
	int		 rc = -1;

	if (db_conn_engine(db) == DB_ENGINE_SQLITE && db_readonly(db)) {
		if (store_key_file(db, file, sizeof(file)) == -1)
			return -1;
		if (db_lite_open(file, SQLITE_OPEN_READWRITE, &own) != SQLITE_OK) {
			db_lite_close(own);
			return -1;
		}
		/* a short busy timeout of this connection only (db_busy_timeout is global) */
		if (db_prepare(own, "PRAGMA busy_timeout = 50", &st) == -1 ||
		    db_step(st) == -1)
			goto out;
		db_finalize(st);
		st = NULL;
		w = own;
	} else if (db_conn_engine(db) == DB_ENGINE_SQLITE)
		return db_run_nowait(db, store_key_touch_sql, "Itt", id, now, before) == -1 ? -1 :
		    0;
	else if (db_conn_engine(db) == DB_ENGINE_POSTGRES && db_readonly(db)) {
		char		 err[256];

		if (db_url() == NULL || (own = db_connect_pg(db_url(), "SET lock_timeout = 50",
		    err, sizeof(err))) == NULL)
			return -1;
		w = own;
	}
	if (db_prepare(w, store_key_touch_sql, &st) == 0) {
		db_bind_int64(st, 1, id);
		db_bind_text(st, 2, now);
		db_bind_text(st, 3, before);
		if (db_step(st) == DB_DONE)
			rc = 0;
	}
out:
	db_finalize(st);
	if (own != NULL && db_conn_engine(own) == DB_ENGINE_POSTGRES)
		db_close(own);
	else
		db_lite_close(own);
	return rc;
}

/* Engine: the CAST gives ?1 a type on PostgreSQL (a user id is a bigint). */
int
store_key_each(struct db *db, long long user_id, int (*cb)(const struct apikey_row *, void *),
    void *arg)
{
	struct db_stmt		*st;
	struct apikey_row	 k;
	int			 s, rc = 0;

	/* user_id -1: every key; 0: operator keys; else that user's keys. */
	if (db_prepare(db, "SELECT k.id, k.name, k.prefix, k.created_at, k.last_used_at, "
	    "k.revoked_at, " KEY_ADMIN ", u.name FROM api_keys k LEFT JOIN users u ON "
	    "u.id = k.user_id WHERE CAST(?1 AS bigint) = -1 OR coalesce(k.user_id, 0) = ?1 "
	    "ORDER BY k.id", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_int64(st, 1, user_id);
	while ((s = db_step(st)) == DB_ROW) {
		k.id = db_col_int64(st, 0);
		k.name = db_col_text(st, 1);
		k.prefix = db_col_text(st, 2);
		k.created = db_col_text(st, 3);
		k.last_used = db_col_null(st, 4) ? NULL : db_col_text(st, 4);
		k.revoked = db_col_null(st, 5) ? NULL : db_col_text(st, 5);
		k.admin = db_col_int64(st, 6) != 0;
		k.owner = db_col_null(st, 7) ? NULL : db_col_text(st, 7);
		if (cb(&k, arg) != 0)
			break;
	}
	if (s != DB_ROW && s != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

/* Engine: the CAST gives ?2 a type on PostgreSQL. */
int
store_key_revoke(struct db *db, long long id, long long user_id, const char *now)
{
	if (db_stmt_run(db, "UPDATE api_keys SET revoked_at = ?3 WHERE id = ?1 AND revoked_at "
	    "IS NULL AND (CAST(?2 AS bigint) = -1 OR coalesce(user_id, 0) = ?2)", "IIt", id,
	    user_id, now) == -1)
		return -1;
	return db_changes(db) > 0 ? 0 : 1;
}
