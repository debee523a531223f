/*
 * session.c: sign-in sessions of the web UI and the login throttle.
 *
 * A session token is 32 random bytes (base64url) handed to the browser in a cookie; the
 * database keeps only its SHA-256. The CSRF token is derived from the session token
 * (HMAC-SHA256 keyed with it), so it is never stored and cannot be computed without the
 * cookie. Times are Unix seconds.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sqlite3.h>

#include "auth/session.h"
#include "auth/user.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "store/db.h"

#define SESSION_RANDOM		32
#define SESSION_TOUCH_S		60	/* last_seen is written at most once a minute */

static void
session_dberr(struct sqlite3 *db, const char *fn)
{
	log_err("%s: %s", fn, sqlite3_errmsg(db));
}

/* 1 when the token has the shape of one we hand out (43 base64url characters). */
static int
session_token_shape(const char *t)
{
	size_t	 i;

	for (i = 0; t[i] != '\0'; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
		    (t[i] >= '0' && t[i] <= '9') || t[i] == '-' || t[i] == '_'))
			return 0;
	return i == 43;
}

char *
session_create(struct sqlite3 *db, long long user_id, long long *id)
{
	unsigned char	 rnd[SESSION_RANDOM];
	sqlite3_stmt	*st = NULL;
	char		*tok = NULL, hash[65];
	time_t		 now = time(NULL);

	if (crypto_random(rnd, sizeof(rnd)) == -1 ||
	    (tok = util_b64url_encode(rnd, sizeof(rnd))) == NULL)
		goto fail;
	crypto_sha256_hex(tok, strlen(tok), hash);
	/* Expired sessions of everybody go at each sign-in: the table stays small. */
	if (sqlite3_prepare_v2(db, "DELETE FROM sessions WHERE last_seen < ?1 OR "
	    "created < ?2", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)(now - SESSION_IDLE_S));
	sqlite3_bind_int64(st, 2, (sqlite3_int64)(now - SESSION_MAX_S));
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "INSERT INTO sessions (user_id, hash, created, "
	    "last_seen) VALUES (?1, ?2, ?3, ?3)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, user_id);
	sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)now);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(db);
	explicit_bzero(rnd, sizeof(rnd));
	return tok;
dberr:
	session_dberr(db, __func__);
	sqlite3_finalize(st);
fail:
	explicit_bzero(rnd, sizeof(rnd));
	if (tok != NULL)
		explicit_bzero(tok, strlen(tok));
	free(tok);
	return NULL;
}

int
session_lookup(struct sqlite3 *db, const char *token, long long *id, long long *user_id)
{
	sqlite3_stmt	*st;
	char		 hash[65];
	time_t		 now = time(NULL), seen = 0;
	int		 rc = 1, s;

	if (token == NULL || !session_token_shape(token))
		return 1;
	crypto_sha256_hex(token, strlen(token), hash);
	if (sqlite3_prepare_v2(db, "SELECT id, user_id, last_seen FROM sessions WHERE "
	    "hash = ?1 AND last_seen >= ?2 AND created >= ?3", -1, &st, NULL) !=
	    SQLITE_OK) {
		session_dberr(db, __func__);
		return -1;
	}
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)(now - SESSION_IDLE_S));
	sqlite3_bind_int64(st, 3, (sqlite3_int64)(now - SESSION_MAX_S));
	if ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*user_id = sqlite3_column_int64(st, 1);
		seen = (time_t)sqlite3_column_int64(st, 2);
		rc = 0;
	} else if (s != SQLITE_DONE) {
		session_dberr(db, __func__);
		rc = -1;
	}
	sqlite3_finalize(st);
	if (rc == 0 && now - seen >= SESSION_TOUCH_S) {
		if (sqlite3_prepare_v2(db, "UPDATE sessions SET last_seen = ?2 WHERE "
		    "id = ?1", -1, &st, NULL) != SQLITE_OK) {
			session_dberr(db, __func__);
			return rc;
		}
		sqlite3_bind_int64(st, 1, *id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)now);
		if (sqlite3_step(st) != SQLITE_DONE)
			session_dberr(db, __func__);
		sqlite3_finalize(st);
	}
	return rc;
}

/* Runs "DELETE FROM sessions WHERE ..." with ?1 and ?2 bound. */
static int
session_delete(struct sqlite3 *db, const char *sql, long long a, long long b)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		session_dberr(db, __func__);
		return -1;
	}
	sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		session_dberr(db, __func__);
	sqlite3_finalize(st);
	return rc;
}

int
session_end(struct sqlite3 *db, long long id)
{
	return session_delete(db, "DELETE FROM sessions WHERE id = ?1", id, 0);
}

int
session_end_user(struct sqlite3 *db, long long user_id, long long keep_id)
{
	return session_delete(db, "DELETE FROM sessions WHERE user_id = ?1 AND "
	    "id != ?2", user_id, keep_id);
}

void
session_csrf(const char *token, char out[SESSION_CSRF_LEN + 1])
{
	static const char msg[] = "ctxd csrf token v1";
	unsigned char	 mac[32];
	unsigned int	 maclen = 0;
	char		*enc;

	out[0] = '\0';
	if (HMAC(EVP_sha256(), token, (int)strlen(token), (const unsigned char *)msg,
	    sizeof(msg) - 1, mac, &maclen) == NULL || maclen != 32)
		return;
	if ((enc = util_b64url_encode(mac, sizeof(mac))) != NULL) {
		snprintf(out, SESSION_CSRF_LEN + 1, "%s", enc);
		free(enc);
	}
	explicit_bzero(mac, sizeof(mac));
}

int
session_csrf_ok(const char *token, const char *sent)
{
	char	 want[SESSION_CSRF_LEN + 1];
	int	 ok;

	if (sent == NULL || strlen(sent) != SESSION_CSRF_LEN)
		return 0;
	session_csrf(token, want);
	ok = strlen(want) == SESSION_CSRF_LEN && crypto_equal(want, sent,
	    SESSION_CSRF_LEN);
	explicit_bzero(want, sizeof(want));
	return ok;
}

/* ------------------------------------------------------------------ login throttle */

/*
 * Failed sign-ins are counted per user name and client address together (the pair), per
 * address and per user name. A count older than THROTTLE_WINDOW_S starts again. Past
 * "free" failures each further attempt must wait 5 s * 2^(failures - free) (at most 5
 * minutes) after the last failure; at "lock" failures (0: never) the pair or address is
 * refused for THROTTLE_LOCK_S. So failures from address A against user U slow down and
 * lock (A, U) and A, never U from another address; the user's own count, over every
 * address, has a high ceiling that only slows down guessing spread over many addresses,
 * and reaching THROTTLE_ALERT failures raises an alert (the log, the health report).
 *
 * Rows of scope "addr" hold an address ("ADDR") or a pair ("ADDR NAME": an address has no
 * space), rows of scope "user" a name; names are lowercased (session_throttle_key).
 */
#define THROTTLE_WINDOW_S	900
#define THROTTLE_LOCK_S		900
#define THROTTLE_BASE_S		5
#define THROTTLE_MAX_DELAY_S	300
#define THROTTLE_ALERT		10	/* a user's failures (any address) worth an alert */

static void	 session_throttle_alert(sqlite3 *, const char *key, time_t now);

struct throttle_scope {
	const char	*scope;
	int		 free;
	int		 lock;
};

static const struct throttle_scope throttle_pair = { "addr", 3, 10 };
static const struct throttle_scope throttle_addr = { "addr", 10, 50 };
static const struct throttle_scope throttle_user = { "user", 30, 0 };

static long
session_throttle_delay(const struct throttle_scope *s, long failures)
{
	long	 d = THROTTLE_BASE_S;
	long	 i;

	for (i = s->free; i < failures && d < THROTTLE_MAX_DELAY_S; i++)
		d *= 2;
	return d > THROTTLE_MAX_DELAY_S ? THROTTLE_MAX_DELAY_S : d;
}

/* Seconds until key may try again in scope s (0: now); -1 on error. */
static long
session_throttle_scope_wait(struct sqlite3 *db, const struct throttle_scope *s, const char *key,
    time_t now)
{
	sqlite3_stmt	*st;
	long		 wait = 0, failures, last, locked;

	if (sqlite3_prepare_v2(db, "SELECT failures, last_at, locked_until FROM "
	    "login_throttle WHERE scope = ?1 AND key = ?2", -1, &st, NULL) != SQLITE_OK) {
		session_dberr(db, __func__);
		return -1;
	}
	sqlite3_bind_text(st, 1, s->scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		failures = (long)sqlite3_column_int64(st, 0);
		last = (long)sqlite3_column_int64(st, 1);
		locked = (long)sqlite3_column_int64(st, 2);
		if (locked > now)
			wait = locked - now;
		else if (now - last <= THROTTLE_WINDOW_S && failures >= s->free &&
		    last + session_throttle_delay(s, failures) > now)
			wait = last + session_throttle_delay(s, failures) - now;
	}
	sqlite3_finalize(st);
	return wait;
}

/*
 * The user scope's key of a name in key: its lowercase form, cut at USER_NAME_MAX bytes,
 * so that "Alice" and "alice" count, wait and are forgiven as one.
 */
static void
session_throttle_key(const char *name, char key[USER_NAME_MAX + 1])
{
	size_t	 i;

	for (i = 0; name[i] != '\0' && i < USER_NAME_MAX; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	key[i] = '\0';
}

/* The pair's key of addr and name's key in out: "ADDR NAME". */
static void
session_throttle_pair(const char *addr, const char *key, char *out, size_t outsz)
{
	snprintf(out, outsz, "%.*s %s", (int)strcspn(addr, " "), addr, key);
}

long
session_throttle_wait(struct sqlite3 *db, const char *name, const char *addr)
{
	time_t	 now = time(NULL);
	char	 key[USER_NAME_MAX + 1], pair[USER_NAME_MAX + 128];
	long	 a, b, c;

	session_throttle_key(name, key);
	session_throttle_pair(addr, key, pair, sizeof(pair));
	if ((a = session_throttle_scope_wait(db, &throttle_user, key, now)) == -1 ||
	    (b = session_throttle_scope_wait(db, &throttle_addr, addr, now)) == -1 ||
	    (c = session_throttle_scope_wait(db, &throttle_pair, pair, now)) == -1)
		return -1;
	if (b > a)
		a = b;
	return c > a ? c : a;
}

static int
session_throttle_scope_fail(struct sqlite3 *db, const struct throttle_scope *s, const char *key,
    time_t now)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	/* A new count when the last failure is out of the window; a lock at s->lock. */
	if (sqlite3_prepare_v2(db, "INSERT INTO login_throttle (scope, key, failures, "
	    "last_at, locked_until) VALUES (?1, ?2, 1, ?3, 0) ON CONFLICT (scope, key) "
	    "DO UPDATE SET failures = CASE WHEN last_at < ?3 - ?4 THEN 1 ELSE "
	    "failures + 1 END, last_at = ?3", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, s->scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 4, THROTTLE_WINDOW_S);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	st = NULL;
	if (s->lock == 0) {
		rc = 0;
		goto out;
	}
	if (sqlite3_prepare_v2(db, "UPDATE login_throttle SET locked_until = ?3 + ?5, "
	    "failures = 0 WHERE scope = ?1 AND key = ?2 AND failures >= ?4", -1, &st,
	    NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, s->scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)now);
	sqlite3_bind_int(st, 4, s->lock);
	sqlite3_bind_int64(st, 5, THROTTLE_LOCK_S);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	session_dberr(db, __func__);
out:
	sqlite3_finalize(st);
	return rc;
}

int
session_throttle_fail(struct sqlite3 *db, const char *name, const char *addr)
{
	time_t		 now = time(NULL);
	sqlite3_stmt	*st;
	char		 key[USER_NAME_MAX + 1], pair[USER_NAME_MAX + 128];

	session_throttle_key(name, key);
	/* Old rows go first, so names never tried again do not pile up. */
	if (sqlite3_prepare_v2(db, "DELETE FROM login_throttle WHERE last_at < ?1 AND "
	    "locked_until < ?2", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)(now - THROTTLE_WINDOW_S));
		sqlite3_bind_int64(st, 2, (sqlite3_int64)now);
		(void)sqlite3_step(st);
	}
	sqlite3_finalize(st);
	session_throttle_pair(addr, key, pair, sizeof(pair));
	if (session_throttle_scope_fail(db, &throttle_user, key, now) == -1 ||
	    session_throttle_scope_fail(db, &throttle_addr, addr, now) == -1 ||
	    session_throttle_scope_fail(db, &throttle_pair, pair, now) == -1)
		return -1;
	session_throttle_alert(db, key, now);
	return 0;
}

/*
 * The failures of user key (over every address) and the number of addresses they came
 * from, in the window before now: 1 when there are THROTTLE_ALERT or more, else 0 (-1 on
 * error).
 */
static int
session_throttle_count(struct sqlite3 *db, const char *key, time_t now, long *failures,
    long *addrs)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	*failures = *addrs = 0;
	if (sqlite3_prepare_v2(db, "SELECT u.failures, (SELECT count(*) FROM login_throttle "
	    "p WHERE p.scope = 'addr' AND instr(p.key, ' ') > 0 AND substr(p.key, "
	    "instr(p.key, ' ') + 1) = u.key AND p.last_at >= ?2 - ?3) FROM login_throttle "
	    "u WHERE u.scope = 'user' AND u.key = ?1 AND u.last_at >= ?2 - ?3", -1, &st,
	    NULL) != SQLITE_OK) {
		session_dberr(db, __func__);
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 3, THROTTLE_WINDOW_S);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		*failures = (long)sqlite3_column_int64(st, 0);
		*addrs = (long)sqlite3_column_int64(st, 1);
		/* FALLTHROUGH */
	case SQLITE_DONE:
		rc = *failures >= THROTTLE_ALERT;
		break;
	default:
		session_dberr(db, __func__);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Logs the alert for user key at THROTTLE_ALERT failures and at each multiple of it. */
static void
session_throttle_alert(struct sqlite3 *db, const char *key, time_t now)
{
	long	 failures, addrs;

	if (session_throttle_count(db, key, now, &failures, &addrs) == 1 &&
	    failures % THROTTLE_ALERT == 0)
		log_warn("%ld failed sign-ins for %s from %ld address%s in the last %d "
		    "min", failures, key, addrs, addrs == 1 ? "" : "es",
		    THROTTLE_WINDOW_S / 60);
}

json_object *
session_throttle_alerts(struct sqlite3 *db)
{
	sqlite3_stmt	*st;
	json_object	*a = json_object_new_array();
	time_t		 now = time(NULL);
	const char	*key;
	long		 failures, addrs;
	char		 line[USER_NAME_MAX + 128];

	if (a == NULL)
		return NULL;
	if (sqlite3_prepare_v2(db, "SELECT key FROM login_throttle WHERE scope = 'user' "
	    "AND failures >= ?1 AND last_at >= ?2 - ?3 ORDER BY failures DESC, key "
	    "LIMIT 20", -1, &st, NULL) != SQLITE_OK) {
		session_dberr(db, __func__);
		return a;
	}
	sqlite3_bind_int(st, 1, THROTTLE_ALERT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 3, THROTTLE_WINDOW_S);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if ((key = (const char *)sqlite3_column_text(st, 0)) == NULL ||
		    session_throttle_count(db, key, now, &failures, &addrs) != 1)
			continue;
		snprintf(line, sizeof(line), "%ld failed sign-ins for %s from %ld "
		    "address%s in the last %d min", failures, key, addrs, addrs == 1 ?
		    "" : "es", THROTTLE_WINDOW_S / 60);
		json_object_array_add(a, json_object_new_string(line));
	}
	sqlite3_finalize(st);
	return a;
}

int
session_throttle_clear(struct sqlite3 *db, const char *name)
{
	sqlite3_stmt	*st;
	char		 key[USER_NAME_MAX + 1];
	int		 rc = -1;

	session_throttle_key(name, key);

	if (sqlite3_prepare_v2(db, "DELETE FROM login_throttle WHERE (scope = 'user' "
	    "AND key = ?1) OR (scope = 'addr' AND instr(key, ' ') > 0 AND substr(key, "
	    "instr(key, ' ') + 1) = ?1)", -1, &st, NULL) != SQLITE_OK) {
		session_dberr(db, __func__);
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		session_dberr(db, __func__);
	sqlite3_finalize(st);
	return rc;
}

/*
 * Forgets the failures of name (its count over every address) and of the pair of addr
 * and name (NULL: none), after a good sign-in from addr. The pairs of other addresses
 * stay: a sign-in does not lift a lock someone else earned.
 */
static int
session_throttle_forgive(struct sqlite3 *db, const char *name, const char *addr)
{
	sqlite3_stmt	*st;
	char		 key[USER_NAME_MAX + 1], pair[USER_NAME_MAX + 128];
	int		 rc = -1;

	session_throttle_key(name, key);
	session_throttle_pair(addr != NULL ? addr : "", key, pair, sizeof(pair));
	if (sqlite3_prepare_v2(db, "DELETE FROM login_throttle WHERE (scope = 'user' "
	    "AND key = ?1) OR (scope = 'addr' AND key = ?2 AND ?3)", -1, &st, NULL) !=
	    SQLITE_OK) {
		session_dberr(db, __func__);
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, pair, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, addr != NULL);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		session_dberr(db, __func__);
	sqlite3_finalize(st);
	return rc;
}

char *
session_sign_in(struct sqlite3 *db, const struct user *u, const char *rehash_password,
    const char *addr, long long *id)
{
	char	*token = NULL;

	if (db_begin(db) == -1)
		return NULL;
	if ((rehash_password != NULL && user_set_password(db, u->id, rehash_password,
	    u->must_change) != 0) || session_throttle_forgive(db, u->name, addr) == -1 ||
	    (token = session_create(db, u->id, id)) == NULL || db_commit(db) == -1) {
		db_rollback(db);
		if (token != NULL)
			explicit_bzero(token, strlen(token));
		free(token);
		return NULL;
	}
	return token;
}
