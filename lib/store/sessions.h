/*
 * store/sessions.h: the sessions table (sign-in sessions, by the SHA-256 of their token)
 * and the login_throttle table (failed sign-ins by scope and key). Times are Unix seconds;
 * auth/session.h holds the rules.
 */
#ifndef STORE_SESSIONS_H
#define STORE_SESSIONS_H

struct db;

/* Deletes the sessions last seen before seen_before or created before created_before. */
int	 store_session_expire(struct db *, long long seen_before,
	    long long created_before);
/* A new session of user_id (hash: of its token) at now: 0 and *id (may be NULL), or -1. */
int	 store_session_insert(struct db *, long long user_id, const char *hash,
	    long long now, long long *id);
/*
 * The live session of token hash (seen at or after seen_after, created at or after
 * created_after): 0 with its id, user and last sight, 1 none, -1 error.
 */
int	 store_session_lookup(struct db *, const char *hash, long long seen_after,
	    long long created_after, long long *id, long long *user_id, long long *seen);
int	 store_session_touch(struct db *, long long id, long long now);
int	 store_session_delete(struct db *, long long id);
/* Deletes every session of user_id but keep_id (0: all). */
int	 store_session_delete_user(struct db *, long long user_id, long long keep_id);

/* The row of (scope, key): 0 with its counts, 1 none (or unreadable), -1 error. */
int	 store_throttle_get(struct db *, const char *scope, const char *key,
	    long *failures, long *last, long *locked);
/*
 * Counts one failure of (scope, key) at now: a new count when the last failure is more
 * than window seconds old.
 */
int	 store_throttle_fail(struct db *, const char *scope, const char *key,
	    long long now, long window);
/* Locks (scope, key) until now + lock_s when it has lock_at failures (the count restarts). */
int	 store_throttle_lock(struct db *, const char *scope, const char *key,
	    long long now, int lock_at, long lock_s);
/* Forgets the rows last failed before last_before whose lock ended before now. */
void	 store_throttle_prune(struct db *, long long last_before, long long now);
/*
 * The failures of user key in the window seconds before now and the number of pairs
 * ("ADDR KEY") that failed in it: 0 (both 0 when none), -1 error.
 */
int	 store_throttle_count(struct db *, const char *key, long long now, long window,
	    long *failures, long *addrs);
/*
 * Calls cb for the user keys with min_failures or more in the window seconds before now,
 * most failures first, at most 20.
 */
int	 store_throttle_each_alert(struct db *, int min_failures, long long now,
	    long window, void (*cb)(const char *key, void *), void *arg);
/* Forgets user key's row and every pair of it. */
int	 store_throttle_clear(struct db *, const char *key);
/* Forgets user key's row, and with_pair, the row of pair. */
int	 store_throttle_forgive(struct db *, const char *key, const char *pair,
	    int with_pair);

#endif /* STORE_SESSIONS_H */
