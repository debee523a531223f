/*
 * apikey.c: API keys ("ctxd_" + 43 random base64url characters), stored as SHA-256.
 *
 * A key belongs to a user (api_keys.user_id) or, when made by "ctxd-admin key create"
 * without --user, to nobody: an operator key whose admin flag is its own. A user's key is an
 * admin key exactly while its user has the admin role; a disabled user's keys are invalid.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/apikey.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "store/keys.h"

#define APIKEY_RANDOM	32		/* bytes of randomness in a key */
#define APIKEY_SHOWN	12		/* characters kept as the display prefix */
#define APIKEY_TOUCH_S	60		/* last_used_at is written at most once a minute */
#define APIKEY_TOUCHED	32		/* keys remembered per process for that */

char *
apikey_create_for(struct db *db, long long user_id, const char *name, int admin,
    long long *id)
{
	unsigned char	 rnd[APIKEY_RANDOM];
	char		*enc = NULL, hash[65], prefix[APIKEY_SHOWN + 1], now[32];
	struct buf	 key;
	char		*ret = NULL;

	buf_init(&key);
	if (crypto_random(rnd, sizeof(rnd)) == -1 ||
	    (enc = util_b64url_encode(rnd, sizeof(rnd))) == NULL ||
	    buf_printf(&key, "%s%s", APIKEY_PREFIX, enc) == -1)
		goto out;
	crypto_sha256_hex(key.p, key.len, hash);
	snprintf(prefix, sizeof(prefix), "%s", key.p);
	util_iso8601(time(NULL), now, sizeof(now));
	if (store_key_insert(db, user_id, name, prefix, hash, admin, now, id) == 0)
		ret = buf_detach(&key);
out:
	explicit_bzero(rnd, sizeof(rnd));
	free(enc);
	if (key.p != NULL)
		explicit_bzero(key.p, key.len);
	buf_release(&key);
	return ret;
}

char *
apikey_create(struct db *db, const char *name, int admin)
{
	return apikey_create_for(db, 0, name, admin, NULL);
}

/*
 * Records that key id was used. The query responders hold a read-only connection (query_only):
 * for them
 * a short-lived read-write connection is opened (busy timeout 50 ms; any failure only
 * skips this record). Each process writes a key at most once per APIKEY_TOUCH_S.
 */
static void
apikey_touch(struct db *db, long long id)
{
	static struct { long long id; time_t at; } seen[APIKEY_TOUCHED];
	static size_t	 next;
	char		 now[32], before[32];
	time_t		 t = time(NULL);
	size_t		 i;

	for (i = 0; i < APIKEY_TOUCHED; i++)
		if (seen[i].id == id && t - seen[i].at < APIKEY_TOUCH_S)
			return;
	util_iso8601(t, now, sizeof(now));
	util_iso8601(t - APIKEY_TOUCH_S, before, sizeof(before));
	if (store_key_touch(db, id, now, before) == 0) {
		seen[next].id = id;
		seen[next].at = t;
		next = (next + 1) % APIKEY_TOUCHED;
	}
}

enum apikey_result
apikey_lookup(struct db *db, const char *authorization, struct apikey_info *info)
{
	const char	*k;
	char		 hash[65];
	long long	 id, user_id;
	int		 admin;
	enum apikey_result r = APIKEY_INVALID;

	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (authorization == NULL || *authorization == '\0')
		return APIKEY_MISSING;
	if (strncasecmp(authorization, "Bearer ", 7) != 0)
		return APIKEY_INVALID;
	for (k = authorization + 7; *k == ' '; k++)
		continue;
	if (strncmp(k, APIKEY_PREFIX, strlen(APIKEY_PREFIX)) != 0 || strlen(k) > 200)
		return APIKEY_INVALID;
	crypto_sha256_hex(k, strlen(k), hash);
	/* The lookup is by hash: a timing difference reveals nothing about a key. */
	if (store_key_lookup(db, hash, &id, &user_id, &admin) == 0) {
		r = admin ? APIKEY_VALID_ADMIN : APIKEY_VALID;
		if (info != NULL) {
			info->id = id;
			info->user_id = user_id;
			info->admin = admin;
		}
		apikey_touch(db, id);
	}
	return r;
}

enum apikey_result
apikey_check(struct db *db, const char *authorization)
{
	return apikey_lookup(db, authorization, NULL);
}

int
apikey_each(struct db *db, long long user_id, int (*cb)(const struct apikey_row *, void *),
    void *arg)
{
	return store_key_each(db, user_id, cb, arg);
}

int
apikey_revoke(struct db *db, long long id, long long user_id)
{
	char		 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	return store_key_revoke(db, id, user_id, now);
}
