/* apikey.c: API keys ("ctxd_" + 43 random base64url characters), stored as SHA-256. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ctxd.h"

#define APIKEY_RANDOM	32		/* bytes of randomness in a key */
#define APIKEY_SHOWN	12		/* characters kept as the display prefix */

char *
apikey_create(sqlite3 *db, const char *name, int admin)
{
	unsigned char	 rnd[APIKEY_RANDOM];
	char		*enc = NULL, hash[65], prefix[APIKEY_SHOWN + 1], now[32];
	struct buf	 key;
	sqlite3_stmt	*st = NULL;
	char		*ret = NULL;

	buf_init(&key);
	if (crypto_random(rnd, sizeof(rnd)) == -1 ||
	    (enc = util_b64url_encode(rnd, sizeof(rnd))) == NULL ||
	    buf_printf(&key, "%s%s", APIKEY_PREFIX, enc) == -1)
		goto out;
	crypto_sha256_hex(key.p, key.len, hash);
	snprintf(prefix, sizeof(prefix), "%s", key.p);
	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, "INSERT INTO api_keys (name, prefix, hash, admin, "
	    "created_at) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, prefix, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, admin != 0);
	sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	ret = buf_detach(&key);
	goto out;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(db));
out:
	explicit_bzero(rnd, sizeof(rnd));
	sqlite3_finalize(st);
	free(enc);
	if (key.p != NULL)
		explicit_bzero(key.p, key.len);
	buf_release(&key);
	return ret;
}

enum apikey_result
apikey_check(sqlite3 *db, const char *authorization)
{
	sqlite3_stmt	*st;
	const char	*k;
	char		 hash[65];
	enum apikey_result r = APIKEY_INVALID;

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
	if (sqlite3_prepare_v2(db, "SELECT admin FROM api_keys WHERE hash = ?1 AND "
	    "revoked_at IS NULL", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return APIKEY_INVALID;
	}
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		r = sqlite3_column_int(st, 0) ? APIKEY_VALID_ADMIN : APIKEY_VALID;
	sqlite3_finalize(st);
	return r;
}
