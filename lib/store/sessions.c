/* store/sessions.c: the rows of the sessions and login_throttle tables. */
#include "config.h"

#include <stddef.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/sessions.h"
#include "store/conn.h"

int
store_session_expire(struct db *db, long long seen_before, long long created_before)
{
	return db_run(db, "DELETE FROM sessions WHERE last_seen < ?1 OR created < ?2", "II",
	    seen_before, created_before);
}

int
store_session_insert(struct db *db, long long user_id, const char *hash, long long now,
    long long *id)
{
	if (db_run(db, "INSERT INTO sessions (user_id, hash, created, last_seen) VALUES "
	    "(?1, ?2, ?3, ?3)", "ItI", user_id, hash, now) == -1)
		return -1;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(db_lite(db));
	return 0;
}

int
store_session_lookup(struct db *db, const char *hash, long long seen_after,
    long long created_after, long long *id, long long *user_id, long long *seen)
{
	sqlite3_stmt	*st;
	int		 rc = 1, s;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT id, user_id, last_seen FROM sessions WHERE "
	    "hash = ?1 AND last_seen >= ?2 AND created >= ?3", -1, &st, NULL) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, seen_after);
	sqlite3_bind_int64(st, 3, created_after);
	if ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*user_id = sqlite3_column_int64(st, 1);
		*seen = sqlite3_column_int64(st, 2);
		rc = 0;
	} else if (s != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_session_touch(struct db *db, long long id, long long now)
{
	return db_run(db, "UPDATE sessions SET last_seen = ?2 WHERE id = ?1", "II", id, now);
}

int
store_session_delete(struct db *db, long long id)
{
	return db_run(db, "DELETE FROM sessions WHERE id = ?1", "I", id);
}

int
store_session_delete_user(struct db *db, long long user_id, long long keep_id)
{
	return db_run(db, "DELETE FROM sessions WHERE user_id = ?1 AND id != ?2", "II",
	    user_id, keep_id);
}

int
store_throttle_get(struct db *db, const char *scope, const char *key, long *failures,
    long *last, long *locked)
{
	sqlite3_stmt	*st;
	int		 rc = 1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT failures, last_at, locked_until FROM "
	    "login_throttle WHERE scope = ?1 AND key = ?2", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*failures = (long)sqlite3_column_int64(st, 0);
		*last = (long)sqlite3_column_int64(st, 1);
		*locked = (long)sqlite3_column_int64(st, 2);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Engine: an upsert (INSERT ... ON CONFLICT (scope, key) DO UPDATE), which needs the
 * unique key (scope, key) of login_throttle; PostgreSQL has the same syntax.
 */
int
store_throttle_fail(struct db *db, const char *scope, const char *key, long long now,
    long window)
{
	return db_run(db, "INSERT INTO login_throttle (scope, key, failures, last_at, "
	    "locked_until) VALUES (?1, ?2, 1, ?3, 0) ON CONFLICT (scope, key) DO UPDATE SET "
	    "failures = CASE WHEN last_at < ?3 - ?4 THEN 1 ELSE failures + 1 END, "
	    "last_at = ?3", "ttII", scope, key, now, (long long)window);
}

int
store_throttle_lock(struct db *db, const char *scope, const char *key, long long now,
    int lock_at, long lock_s)
{
	return db_run(db, "UPDATE login_throttle SET locked_until = ?3 + ?5, failures = 0 "
	    "WHERE scope = ?1 AND key = ?2 AND failures >= ?4", "ttIiI", scope, key, now,
	    lock_at, (long long)lock_s);
}

void
store_throttle_prune(struct db *db, long long last_before, long long now)
{
	(void)db_run(db, "DELETE FROM login_throttle WHERE last_at < ?1 AND "
	    "locked_until < ?2", "II", last_before, now);
}

/* Engine: instr() and substr() split a pair's key "ADDR NAME" at its space. */
int
store_throttle_count(struct db *db, const char *key, long long now, long window,
    long *failures, long *addrs)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	*failures = *addrs = 0;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT u.failures, (SELECT count(*) FROM login_throttle "
	    "p WHERE p.scope = 'addr' AND instr(p.key, ' ') > 0 AND substr(p.key, "
	    "instr(p.key, ' ') + 1) = u.key AND p.last_at >= ?2 - ?3) FROM login_throttle "
	    "u WHERE u.scope = 'user' AND u.key = ?1 AND u.last_at >= ?2 - ?3", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int64(st, 3, window);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		*failures = (long)sqlite3_column_int64(st, 0);
		*addrs = (long)sqlite3_column_int64(st, 1);
		/* FALLTHROUGH */
	case SQLITE_DONE:
		rc = 0;
		break;
	default:
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_throttle_each_alert(struct db *db, int min_failures, long long now, long window,
    void (*cb)(const char *, void *), void *arg)
{
	sqlite3_stmt	*st;
	const char	*key;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT key FROM login_throttle WHERE scope = 'user' "
	    "AND failures >= ?1 AND last_at >= ?2 - ?3 ORDER BY failures DESC, key "
	    "LIMIT 20", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_int(st, 1, min_failures);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int64(st, 3, window);
	while (sqlite3_step(st) == SQLITE_ROW)
		if ((key = (const char *)sqlite3_column_text(st, 0)) != NULL)
			cb(key, arg);
	sqlite3_finalize(st);
	return 0;
}

/* Engine: instr() and substr() split a pair's key "ADDR NAME" at its space. */
int
store_throttle_clear(struct db *db, const char *key)
{
	return db_run(db, "DELETE FROM login_throttle WHERE (scope = 'user' AND key = ?1) "
	    "OR (scope = 'addr' AND instr(key, ' ') > 0 AND substr(key, instr(key, ' ') + "
	    "1) = ?1)", "t", key);
}

int
store_throttle_forgive(struct db *db, const char *key, const char *pair, int with_pair)
{
	return db_run(db, "DELETE FROM login_throttle WHERE (scope = 'user' AND key = ?1) "
	    "OR (scope = 'addr' AND key = ?2 AND ?3)", "tti", key, pair, with_pair != 0);
}
