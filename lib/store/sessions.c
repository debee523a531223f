/* store/sessions.c: the rows of the sessions and login_throttle tables. */
#include "config.h"

#include <stddef.h>

#include "base/log.h"
#include "store/sessions.h"
#include "store/stmt.h"

int
store_session_expire(struct db *db, long long seen_before, long long created_before)
{
	return db_stmt_run(db, "DELETE FROM sessions WHERE last_seen < ?1 OR created < ?2",
	    "II", seen_before, created_before);
}

int
store_session_insert(struct db *db, long long user_id, const char *hash, long long now,
    long long *id)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_prepare(db, "INSERT INTO sessions (user_id, hash, created, last_seen) VALUES "
	    "(?1, ?2, ?3, ?3) RETURNING id", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_int64(st, 1, user_id);
	db_bind_text(st, 2, hash);
	db_bind_int64(st, 3, now);
	if (db_step(st) == DB_ROW) {
		if (id != NULL)
			*id = db_col_int64(st, 0);
		if (db_step(st) == DB_DONE)
			rc = 0;
	}
	if (rc == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

int
store_session_lookup(struct db *db, const char *hash, long long seen_after,
    long long created_after, long long *id, long long *user_id, long long *seen)
{
	struct db_stmt	*st;
	int		 rc = 1, s;

	if (db_prepare(db, "SELECT id, user_id, last_seen FROM sessions WHERE hash = ?1 AND "
	    "last_seen >= ?2 AND created >= ?3", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, hash);
	db_bind_int64(st, 2, seen_after);
	db_bind_int64(st, 3, created_after);
	if ((s = db_step(st)) == DB_ROW) {
		*id = db_col_int64(st, 0);
		*user_id = db_col_int64(st, 1);
		*seen = db_col_int64(st, 2);
		rc = 0;
	} else if (s != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

int
store_session_touch(struct db *db, long long id, long long now)
{
	return db_stmt_run(db, "UPDATE sessions SET last_seen = ?2 WHERE id = ?1", "II", id,
	    now);
}

int
store_session_delete(struct db *db, long long id)
{
	return db_stmt_run(db, "DELETE FROM sessions WHERE id = ?1", "I", id);
}

int
store_session_delete_user(struct db *db, long long user_id, long long keep_id)
{
	return db_stmt_run(db, "DELETE FROM sessions WHERE user_id = ?1 AND id != ?2", "II",
	    user_id, keep_id);
}

int
store_throttle_get(struct db *db, const char *scope, const char *key, long *failures,
    long *last, long *locked)
{
	struct db_stmt	*st;
	int		 rc = 1;

	if (db_prepare(db, "SELECT failures, last_at, locked_until FROM login_throttle "
	    "WHERE scope = ?1 AND key = ?2", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, scope);
	db_bind_text(st, 2, key);
	if (db_step(st) == DB_ROW) {
		*failures = (long)db_col_int64(st, 0);
		*last = (long)db_col_int64(st, 1);
		*locked = (long)db_col_int64(st, 2);
		rc = 0;
	}
	db_finalize(st);
	return rc;
}

/*
 * Engine: an upsert (INSERT ... ON CONFLICT (scope, key) DO UPDATE), which needs the
 * unique key (scope, key) of login_throttle; PostgreSQL has the same syntax (a bare column
 * in DO UPDATE is the row already there on both).
 */
int
store_throttle_fail(struct db *db, const char *scope, const char *key, long long now,
    long window)
{
	return db_stmt_run(db, "INSERT INTO login_throttle (scope, key, failures, last_at, "
	    "locked_until) VALUES (?1, ?2, 1, ?3, 0) ON CONFLICT (scope, key) DO UPDATE SET "
	    "failures = CASE WHEN login_throttle.last_at < ?3 - ?4 THEN 1 ELSE "
	    "login_throttle.failures + 1 END, last_at = ?3", "ttII", scope, key, now,
	    (long long)window);
}

/* Engine: the CAST types ?3 + ?5 for PostgreSQL, which cannot infer a sum of parameters. */
int
store_throttle_lock(struct db *db, const char *scope, const char *key, long long now,
    int lock_at, long lock_s)
{
	return db_stmt_run(db, "UPDATE login_throttle SET locked_until = CAST(?3 AS bigint) + "
	    "?5, failures = 0 WHERE scope = ?1 AND key = ?2 AND failures >= ?4", "ttIiI",
	    scope, key, now, lock_at, (long long)lock_s);
}

void
store_throttle_prune(struct db *db, long long last_before, long long now)
{
	(void)db_stmt_run(db, "DELETE FROM login_throttle WHERE last_at < ?1 AND "
	    "locked_until < ?2", "II", last_before, now);
}

/*
 * Engine: a pair's key "ADDR NAME" splits at its first space, found by instr() on SQLite
 * and strpos() on PostgreSQL; the CAST types ?2 - ?3 for PostgreSQL.
 */
int
store_throttle_count(struct db *db, const char *key, long long now, long window,
    long *failures, long *addrs)
{
	struct db_stmt	*st;
	int		 rc = -1;

#define THROTTLE_COUNT(find)	"SELECT u.failures, (SELECT count(*) FROM login_throttle " \
	"p WHERE p.scope = 'addr' AND " find "(p.key, ' ') > 0 AND substr(p.key, " find \
	"(p.key, ' ') + 1) = u.key AND p.last_at >= CAST(?2 AS bigint) - ?3) FROM " \
	"login_throttle u WHERE u.scope = 'user' AND u.key = ?1 AND u.last_at >= " \
	"CAST(?2 AS bigint) - ?3"
	*failures = *addrs = 0;
	if (db_prepare(db, DB_PAIR(THROTTLE_COUNT("instr"), THROTTLE_COUNT("strpos")),
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
#undef THROTTLE_COUNT
	db_bind_text(st, 1, key);
	db_bind_int64(st, 2, now);
	db_bind_int64(st, 3, window);
	switch (db_step(st)) {
	case DB_ROW:
		*failures = (long)db_col_int64(st, 0);
		*addrs = (long)db_col_int64(st, 1);
		/* FALLTHROUGH */
	case DB_DONE:
		rc = 0;
		break;
	default:
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	}
	db_finalize(st);
	return rc;
}

/*
 * Engine: the CAST types ?2 - ?3 for PostgreSQL; keys in SQLite's order (bytes) on both
 * (a PostgreSQL database's default collation may be a language's).
 */
int
store_throttle_each_alert(struct db *db, int min_failures, long long now, long window,
    void (*cb)(const char *, void *), void *arg)
{
	struct db_stmt	*st;

#define THROTTLE_ALERT(bytes)	"SELECT key FROM login_throttle WHERE scope = 'user' AND " \
	"failures >= ?1 AND last_at >= CAST(?2 AS bigint) - ?3 ORDER BY failures DESC, " \
	"key" bytes " LIMIT 20"
	if (db_prepare(db, DB_PAIR(THROTTLE_ALERT(""), THROTTLE_ALERT(" COLLATE \"C\"")),
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
#undef THROTTLE_ALERT
	db_bind_int64(st, 1, min_failures);
	db_bind_int64(st, 2, now);
	db_bind_int64(st, 3, window);
	while (db_step(st) == DB_ROW)
		if (!db_col_null(st, 0))
			cb(db_col_text(st, 0), arg);
	db_finalize(st);
	return 0;
}

/* Engine: a pair's key "ADDR NAME" splits at its first space (instr(), strpos()). */
int
store_throttle_clear(struct db *db, const char *key)
{
#define THROTTLE_CLEAR(find)	"DELETE FROM login_throttle WHERE (scope = 'user' AND " \
	"key = ?1) OR (scope = 'addr' AND " find "(key, ' ') > 0 AND substr(key, " find \
	"(key, ' ') + 1) = ?1)"
	return db_stmt_run(db, DB_PAIR(THROTTLE_CLEAR("instr"), THROTTLE_CLEAR("strpos")),
	    "t", key);
#undef THROTTLE_CLEAR
}

int
store_throttle_forgive(struct db *db, const char *key, const char *pair, int with_pair)
{
	return db_stmt_run(db, "DELETE FROM login_throttle WHERE (scope = 'user' AND key = ?1) "
	    "OR (scope = 'addr' AND key = ?2 AND ?3 <> 0)", "tti", key, pair, with_pair != 0);
}
