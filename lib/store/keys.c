/* store/keys.c: the rows of the api_keys table. */
#include "config.h"

#include <stddef.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/keys.h"
#include "store/conn.h"

int
store_key_insert(struct db *db, long long user_id, const char *name, const char *prefix,
    const char *hash, int admin, const char *created, long long *id)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO api_keys (name, prefix, hash, admin, "
	    "created_at, user_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, prefix, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, admin != 0);
	sqlite3_bind_text(st, 5, created, -1, SQLITE_STATIC);
	if (user_id > 0)
		sqlite3_bind_int64(st, 6, user_id);
	else
		sqlite3_bind_null(st, 6);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(db_lite(db));
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}

int
store_key_lookup(struct db *db, const char *hash, long long *id, long long *user_id,
    int *admin)
{
	sqlite3_stmt	*st;
	int		 rc = 1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT k.id, coalesce(k.user_id, 0), CASE WHEN "
	    "k.user_id IS NULL THEN k.admin ELSE u.role = 'admin' END FROM api_keys k "
	    "LEFT JOIN users u ON u.id = k.user_id WHERE k.hash = ?1 AND "
	    "k.revoked_at IS NULL AND (k.user_id IS NULL OR u.disabled = 0)", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*user_id = sqlite3_column_int64(st, 1);
		*admin = sqlite3_column_int(st, 2) != 0;
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Engine: a read-only SQLite connection (the query responders') cannot write, so this
 * opens the same database file read-write for the one UPDATE; an engine with
 * per-statement permissions would write through the caller's connection.
 */
int
store_key_touch(struct db *db, long long id, const char *now, const char *before)
{
	struct db	*w = db, *own = NULL;
	sqlite3_stmt	*st = NULL;
	const char	*file;
	int		 rc = -1;

	if (db_readonly(db)) {
		if ((file = sqlite3_db_filename(db_lite(db), "main")) == NULL || *file == '\0')
			return -1;
		if (db_lite_open(file, SQLITE_OPEN_READWRITE, &own) !=
		    SQLITE_OK) {
			db_lite_close(own);
			return -1;
		}
		sqlite3_busy_timeout(db_lite(own), 50);
		w = own;
	}
	if (sqlite3_prepare_v2(db_lite(w), "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 "
	    "AND (last_used_at IS NULL OR last_used_at < ?3)", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, before, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_DONE)
			rc = 0;
	}
	sqlite3_finalize(st);
	db_lite_close(own);
	return rc;
}

int
store_key_each(struct db *db, long long user_id, int (*cb)(const struct apikey_row *, void *),
    void *arg)
{
	sqlite3_stmt		*st;
	struct apikey_row	 k;
	int			 s, rc = 0;

	/* user_id -1: every key; 0: operator keys; else that user's keys. */
	if (sqlite3_prepare_v2(db_lite(db), "SELECT k.id, k.name, k.prefix, k.created_at, "
	    "k.last_used_at, k.revoked_at, CASE WHEN k.user_id IS NULL THEN k.admin "
	    "ELSE u.role = 'admin' END, u.name FROM api_keys k LEFT JOIN users u ON "
	    "u.id = k.user_id WHERE ?1 = -1 OR coalesce(k.user_id, 0) = ?1 ORDER BY k.id",
	    -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, user_id);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		k.id = sqlite3_column_int64(st, 0);
		k.name = (const char *)sqlite3_column_text(st, 1);
		k.prefix = (const char *)sqlite3_column_text(st, 2);
		k.created = (const char *)sqlite3_column_text(st, 3);
		k.last_used = (const char *)sqlite3_column_text(st, 4);
		k.revoked = (const char *)sqlite3_column_text(st, 5);
		k.admin = sqlite3_column_int(st, 6);
		k.owner = (const char *)sqlite3_column_text(st, 7);
		if (cb(&k, arg) != 0)
			break;
	}
	if (s != SQLITE_ROW && s != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_key_revoke(struct db *db, long long id, long long user_id, const char *now)
{
	if (db_run(db, "UPDATE api_keys SET revoked_at = ?3 WHERE id = ?1 AND revoked_at IS "
	    "NULL AND (?2 = -1 OR coalesce(user_id, 0) = ?2)", "IIt", id, user_id, now) == -1)
		return -1;
	return sqlite3_changes(db_lite(db)) > 0 ? 0 : 1;
}
