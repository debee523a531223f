/*
 * apikey.h: what the server (apikey.c) and the client tool (cli/setup.c)
 * share about API keys: their prefix. The server's functions of apikey.c follow.
 */
#ifndef APIKEY_H
#define APIKEY_H

#include "store/keys.h"

struct db;

#define APIKEY_PREFIX	"ctxd_"

/* Creates a key named name; returns the value (malloc'd), shown once; stores its hash. */
char	*apikey_create(struct db *, const char *name, int admin);
/* Same, owned by user_id (0: an operator key, admin as given); *id gets its row id. */
char	*apikey_create_for(struct db *, long long user_id, const char *name, int admin,
	    long long *id);
enum apikey_result { APIKEY_MISSING, APIKEY_INVALID, APIKEY_VALID, APIKEY_VALID_ADMIN };
/*
 * Checks an "Authorization" header value (or NULL). A valid key's use is recorded in
 * last_used_at (at most once a minute per process, also from a read-only connection).
 */
enum apikey_result apikey_check(struct db *, const char *authorization);
struct apikey_info {
	long long	 id;
	long long	 user_id;	/* 0: operator key */
	int		 admin;
};
/* apikey_check that also tells which key it was (info zeroed unless valid). */
enum apikey_result apikey_lookup(struct db *, const char *authorization,
	    struct apikey_info *);
/* Calls cb for the keys of user_id (0: operator keys, -1: all), oldest first. */
int	 apikey_each(struct db *, long long user_id,
	    int (*cb)(const struct apikey_row *, void *), void *);
/* Revokes key id if owned by user_id (-1: any owner); 0 done, 1 no such live key. */
int	 apikey_revoke(struct db *, long long id, long long user_id);

#endif
