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

#include "auth/session.h"
#include "auth/user.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/sessions.h"

#define SESSION_RANDOM		32
#define SESSION_TOUCH_S		60	/* last_seen is written at most once a minute */

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
session_create(struct db *db, long long user_id, long long *id)
{
	unsigned char	 rnd[SESSION_RANDOM];
	char		*tok = NULL, hash[65];
	time_t		 now = time(NULL);

	if (crypto_random(rnd, sizeof(rnd)) == -1 ||
	    (tok = util_b64url_encode(rnd, sizeof(rnd))) == NULL)
		goto fail;
	crypto_sha256_hex(tok, strlen(tok), hash);
	/* Expired sessions of everybody go at each sign-in: the table stays small. */
	if (store_session_expire(db, (long long)(now - SESSION_IDLE_S),
	    (long long)(now - SESSION_MAX_S)) == -1 ||
	    store_session_insert(db, user_id, hash, (long long)now, id) == -1)
		goto fail;
	explicit_bzero(rnd, sizeof(rnd));
	return tok;
fail:
	explicit_bzero(rnd, sizeof(rnd));
	if (tok != NULL)
		explicit_bzero(tok, strlen(tok));
	free(tok);
	return NULL;
}

int
session_lookup(struct db *db, const char *token, long long *id, long long *user_id)
{
	char		 hash[65];
	time_t		 now = time(NULL);
	long long	 seen = 0;
	int		 rc;

	if (token == NULL || !session_token_shape(token))
		return 1;
	crypto_sha256_hex(token, strlen(token), hash);
	rc = store_session_lookup(db, hash, (long long)(now - SESSION_IDLE_S),
	    (long long)(now - SESSION_MAX_S), id, user_id, &seen);
	if (rc == 0 && now - seen >= SESSION_TOUCH_S)
		(void)store_session_touch(db, *id, (long long)now);
	return rc;
}

int
session_end(struct db *db, long long id)
{
	return store_session_delete(db, id);
}

int
session_end_user(struct db *db, long long user_id, long long keep_id)
{
	return store_session_delete_user(db, user_id, keep_id);
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

static void	 session_throttle_alert(struct db *, const char *key, time_t now);

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
session_throttle_scope_wait(struct db *db, const struct throttle_scope *s, const char *key,
    time_t now)
{
	long		 wait = 0, failures, last, locked;
	int		 rc;

	if ((rc = store_throttle_get(db, s->scope, key, &failures, &last, &locked)) == -1)
		return -1;
	if (rc == 0) {
		if (locked > now)
			wait = locked - now;
		else if (now - last <= THROTTLE_WINDOW_S && failures >= s->free &&
		    last + session_throttle_delay(s, failures) > now)
			wait = last + session_throttle_delay(s, failures) - now;
	}
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
session_throttle_wait(struct db *db, const char *name, const char *addr)
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
session_throttle_scope_fail(struct db *db, const struct throttle_scope *s, const char *key,
    time_t now)
{
	/* A new count when the last failure is out of the window; a lock at s->lock. */
	if (store_throttle_fail(db, s->scope, key, (long long)now, THROTTLE_WINDOW_S) == -1)
		return -1;
	if (s->lock == 0)
		return 0;
	return store_throttle_lock(db, s->scope, key, (long long)now, s->lock,
	    THROTTLE_LOCK_S);
}

int
session_throttle_fail(struct db *db, const char *name, const char *addr)
{
	time_t		 now = time(NULL);
	char		 key[USER_NAME_MAX + 1], pair[USER_NAME_MAX + 128];

	session_throttle_key(name, key);
	/* Old rows go first, so names never tried again do not pile up. */
	store_throttle_prune(db, (long long)(now - THROTTLE_WINDOW_S), (long long)now);
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
session_throttle_count(struct db *db, const char *key, time_t now, long *failures,
    long *addrs)
{
	if (store_throttle_count(db, key, (long long)now, THROTTLE_WINDOW_S, failures,
	    addrs) == -1)
		return -1;
	return *failures >= THROTTLE_ALERT;
}

/* Logs the alert for user key at THROTTLE_ALERT failures and at each multiple of it. */
static void
session_throttle_alert(struct db *db, const char *key, time_t now)
{
	long	 failures, addrs;

	if (session_throttle_count(db, key, now, &failures, &addrs) == 1 &&
	    failures % THROTTLE_ALERT == 0)
		log_warn("%ld failed sign-ins for %s from %ld address%s in the last %d "
		    "min", failures, key, addrs, addrs == 1 ? "" : "es",
		    THROTTLE_WINDOW_S / 60);
}

struct session_alerts {
	struct db	*db;
	json_object	*a;
	time_t		 now;
};

static void
session_throttle_alert_line(const char *key, void *arg)
{
	struct session_alerts	*sa = arg;
	long			 failures, addrs;
	char			 line[USER_NAME_MAX + 128];

	if (session_throttle_count(sa->db, key, sa->now, &failures, &addrs) != 1)
		return;
	snprintf(line, sizeof(line), "%ld failed sign-ins for %s from %ld "
	    "address%s in the last %d min", failures, key, addrs, addrs == 1 ?
	    "" : "es", THROTTLE_WINDOW_S / 60);
	json_object_array_add(sa->a, json_object_new_string(line));
}

json_object *
session_throttle_alerts(struct db *db)
{
	struct session_alerts	 sa;

	sa.db = db;
	sa.now = time(NULL);
	if ((sa.a = json_object_new_array()) == NULL)
		return NULL;
	(void)store_throttle_each_alert(db, THROTTLE_ALERT, (long long)sa.now,
	    THROTTLE_WINDOW_S, session_throttle_alert_line, &sa);
	return sa.a;
}

int
session_throttle_clear(struct db *db, const char *name)
{
	char		 key[USER_NAME_MAX + 1];

	session_throttle_key(name, key);
	return store_throttle_clear(db, key);
}

/*
 * Forgets the failures of name (its count over every address) and of the pair of addr
 * and name (NULL: none), after a good sign-in from addr. The pairs of other addresses
 * stay: a sign-in does not lift a lock someone else earned.
 */
static int
session_throttle_forgive(struct db *db, const char *name, const char *addr)
{
	char		 key[USER_NAME_MAX + 1], pair[USER_NAME_MAX + 128];

	session_throttle_key(name, key);
	session_throttle_pair(addr != NULL ? addr : "", key, pair, sizeof(pair));
	return store_throttle_forgive(db, key, pair, addr != NULL);
}

char *
session_sign_in(struct db *db, const struct user *u, const char *rehash_password,
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
