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

#include <sqlite3.h>

#include "auth/apikey.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"

#define APIKEY_RANDOM	32		/* bytes of randomness in a key */
#define APIKEY_SHOWN	12		/* characters kept as the display prefix */
#define APIKEY_TOUCH_S	60		/* last_used_at is written at most once a minute */
#define APIKEY_TOUCHED	32		/* keys remembered per process for that */

char *
apikey_create_for(struct sqlite3 *db, long long user_id, const char *name, int admin,
    long long *id)
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
	    "created_at, user_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL) !=
	    SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, prefix, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, admin != 0);
	sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
	if (user_id > 0)
		sqlite3_bind_int64(st, 6, user_id);
	else
		sqlite3_bind_null(st, 6);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(db);
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

char *
apikey_create(struct sqlite3 *db, const char *name, int admin)
{
	return apikey_create_for(db, 0, name, admin, NULL);
}

/* 1 when the connection is read-only by PRAGMA query_only (db_open's DB_READONLY). */
static int
apikey_query_only(struct sqlite3 *db)
{
	sqlite3_stmt	*st;
	int		 on = 1;

	if (sqlite3_prepare_v2(db, "PRAGMA query_only", -1, &st, NULL) != SQLITE_OK)
		return 1;
	if (sqlite3_step(st) == SQLITE_ROW)
		on = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return on;
}

/*
 * Records that key id was used. The query responders hold a read-only connection (query_only):
 * for them
 * a short-lived read-write connection is opened (busy timeout 50 ms; any failure only
 * skips this record). Each process writes a key at most once per APIKEY_TOUCH_S.
 */
static void
apikey_touch(struct sqlite3 *db, long long id)
{
	static struct { long long id; time_t at; } seen[APIKEY_TOUCHED];
	static size_t	 next;
	struct sqlite3	*w = db, *own = NULL;
	sqlite3_stmt	*st = NULL;
	const char	*file;
	char		 now[32], before[32];
	time_t		 t = time(NULL);
	size_t		 i;

	for (i = 0; i < APIKEY_TOUCHED; i++)
		if (seen[i].id == id && t - seen[i].at < APIKEY_TOUCH_S)
			return;
	if (sqlite3_db_readonly(db, "main") == 1 || apikey_query_only(db)) {
		if ((file = sqlite3_db_filename(db, "main")) == NULL || *file == '\0')
			return;
		if (sqlite3_open_v2(file, &own, SQLITE_OPEN_READWRITE, NULL) !=
		    SQLITE_OK) {
			sqlite3_close(own);
			return;
		}
		sqlite3_busy_timeout(own, 50);
		w = own;
	}
	util_iso8601(t, now, sizeof(now));
	util_iso8601(t - APIKEY_TOUCH_S, before, sizeof(before));
	if (sqlite3_prepare_v2(w, "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 "
	    "AND (last_used_at IS NULL OR last_used_at < ?3)", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, before, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_DONE) {
			seen[next].id = id;
			seen[next].at = t;
			next = (next + 1) % APIKEY_TOUCHED;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(own);
}

enum apikey_result
apikey_lookup(struct sqlite3 *db, const char *authorization, struct apikey_info *info)
{
	sqlite3_stmt	*st;
	const char	*k;
	char		 hash[65];
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
	if (sqlite3_prepare_v2(db, "SELECT k.id, coalesce(k.user_id, 0), CASE WHEN "
	    "k.user_id IS NULL THEN k.admin ELSE u.role = 'admin' END FROM api_keys k "
	    "LEFT JOIN users u ON u.id = k.user_id WHERE k.hash = ?1 AND "
	    "k.revoked_at IS NULL AND (k.user_id IS NULL OR u.disabled = 0)", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return APIKEY_INVALID;
	}
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		r = sqlite3_column_int(st, 2) ? APIKEY_VALID_ADMIN : APIKEY_VALID;
		if (info != NULL) {
			info->id = sqlite3_column_int64(st, 0);
			info->user_id = sqlite3_column_int64(st, 1);
			info->admin = r == APIKEY_VALID_ADMIN;
		}
		apikey_touch(db, sqlite3_column_int64(st, 0));
	}
	sqlite3_finalize(st);
	return r;
}

enum apikey_result
apikey_check(struct sqlite3 *db, const char *authorization)
{
	return apikey_lookup(db, authorization, NULL);
}

int
apikey_each(struct sqlite3 *db, long long user_id, int (*cb)(const struct apikey_row *, void *),
    void *arg)
{
	sqlite3_stmt	*st;
	struct apikey_row k;
	int		 s, rc = 0;

	/* user_id -1: every key; 0: operator keys; else that user's keys. */
	if (sqlite3_prepare_v2(db, "SELECT k.id, k.name, k.prefix, k.created_at, "
	    "k.last_used_at, k.revoked_at, CASE WHEN k.user_id IS NULL THEN k.admin "
	    "ELSE u.role = 'admin' END, u.name FROM api_keys k LEFT JOIN users u ON "
	    "u.id = k.user_id WHERE ?1 = -1 OR coalesce(k.user_id, 0) = ?1 ORDER BY k.id",
	    -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, user_id);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		k.id = sqlite3_column_int64(st, 0);
		k.name = (const char *)sqlite3_column_text(st, 1);
		k.prefix = (const char *)sqlite3_column_text(st, 2);
		k.created = (const char *)sqlite3_column_text(st, 3);
		k.last_used = (const char *)sqlite3_column_text(st, 4);
		k.revoked = (const char *)sqlite3_column_text(st, 5);
		k.admin = sqlite3_column_int(st, 6);
		k.owner = (const char *)sqlite3_column_text(st, 7);
		if (cb(&k, arg) != 0)
			break;
	}
	if (s != SQLITE_ROW && s != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int
apikey_revoke(struct sqlite3 *db, long long id, long long user_id)
{
	sqlite3_stmt	*st;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, "UPDATE api_keys SET revoked_at = ?3 WHERE id = ?1 "
	    "AND revoked_at IS NULL AND (?2 = -1 OR coalesce(user_id, 0) = ?2)", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, user_id);
	sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = sqlite3_changes(db) > 0 ? 0 : 1;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}
