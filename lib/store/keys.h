/*
 * store/keys.h: the api_keys table: API keys by the SHA-256 of their value, each owned by
 * a user or by nobody (an operator key); auth/apikey.h makes and checks them.
 */
#ifndef STORE_KEYS_H
#define STORE_KEYS_H

struct db;

struct apikey_row {
	long long	 id;
	const char	*name, *prefix, *created;
	const char	*last_used, *revoked;	/* NULL when never / not */
	const char	*owner;			/* user name, NULL for an operator key */
	int		 admin;
};

/*
 * A new key of user_id (0: an operator key), created at created (ISO 8601): 0 and *id
 * (may be NULL), or -1.
 */
int	 store_key_insert(struct db *, long long user_id, const char *name,
	    const char *prefix, const char *hash, int admin, const char *created,
	    long long *id);
/*
 * The live key of hash (not revoked, its user not disabled): 0 with its id, owner (0:
 * none) and whether it is an admin key (an operator key's own flag, else its user's
 * role), 1 none, -1 error.
 */
int	 store_key_lookup(struct db *, const char *hash, long long *id,
	    long long *user_id, int *admin);
/*
 * Sets key id's last use to now (ISO 8601) unless it is after before; from a read-only
 * connection through a short-lived read-write one (busy timeout 50 ms). 0 done, -1 not.
 */
int	 store_key_touch(struct db *, long long id, const char *now, const char *before);
/* Calls cb for the keys of user_id (0: operator keys, -1: all), oldest first. */
int	 store_key_each(struct db *, long long user_id,
	    int (*cb)(const struct apikey_row *, void *), void *);
/* Revokes key id (at now) if owned by user_id (-1: any owner); 0 done, 1 none, -1 error. */
int	 store_key_revoke(struct db *, long long id, long long user_id, const char *now);

#endif /* STORE_KEYS_H */
