/* session.h: sign-in sessions and their CSRF tokens. */
#ifndef SESSION_H
#define SESSION_H

#include <stddef.h>

struct json_object;
struct db;
struct user;

#define SESSION_COOKIE		"ctxd_session"
#define SESSION_IDLE_S		(8 * 3600)	/* ends after 8 hours without a request */
#define SESSION_MAX_S		(24 * 3600)	/* and 24 hours after sign-in in any case */
#define SESSION_CSRF_LEN	43

/*
 * Signs user u in from address addr (may be NULL), in one transaction: stores a new hash
 * of rehash_password when it is not NULL (the stored one was made with weaker
 * parameters), forgets the sign-in failures of u's name and of addr with it (not those of
 * other addresses with it) and opens a session. Its token (malloc'd) and *id, or NULL on
 * error.
 */
char	*session_sign_in(struct db *, const struct user *u, const char *rehash_password,
	    const char *addr, long long *id);
/* Opens a session for user_id: returns its token (malloc'd), stores only its hash. */
char	*session_create(struct db *, long long user_id, long long *id);
/* 0 and the ids when token names a live session (its last_seen is updated), 1 if not. */
int	 session_lookup(struct db *, const char *token, long long *id,
	    long long *user_id);
int	 session_end(struct db *, long long id);
/* Ends every session of user_id except keep_id (0: all). */
int	 session_end_user(struct db *, long long user_id, long long keep_id);
/* The CSRF token of a session token (HMAC-SHA256 of it, base64url). */
void	 session_csrf(const char *token, char out[SESSION_CSRF_LEN + 1]);
/* 1 when sent is the CSRF token of the session token (constant time). */
int	 session_csrf_ok(const char *token, const char *sent);
/*
 * Seconds before name (any case) may try to sign in again from addr; 0: now; -1 error.
 * Failures are counted per name and address together, per address and, with a high
 * ceiling that only slows down, per name (lib/auth/session.c, "login throttle").
 */
long	 session_throttle_wait(struct db *, const char *name, const char *addr);
/* Counts a failed sign-in against name (any case) from addr; logs an alert past a few. */
int	 session_throttle_fail(struct db *, const char *name, const char *addr);
/* Forgets name's failures from every address (a password reset, an unlock); any case. */
int	 session_throttle_clear(struct db *, const char *name);
/*
 * The alerts of the login throttle for the health report, a JSON array of lines "N failed
 * sign-ins for NAME from M addresses in the last 15 min" (users with many failures).
 */
struct json_object *session_throttle_alerts(struct db *);

#endif /* SESSION_H */
