/*
 * user.c: user accounts: a name, a role (admin or member), a scrypt password hash, a
 * disabled flag and a must-change-password flag (the default admin/admin account has it).
 *
 * A password hash is stored as "scrypt$LOG2N$R$P$SALT$HASH" (SALT and HASH base64url), so
 * the parameters of each hash travel with it and can be raised later.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "auth/user.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"

#define USER_LOG2N	15		/* N = 32768: 32 MiB and about 0.1 s per hash */
#define USER_R		8
#define USER_P		1
#define USER_SALT	16
#define USER_HASHLEN	32
#define USER_MAXMEM	(256UL * 1024 * 1024)

/* A hash of a random password, verified when a name is unknown (same work, no match). */
static const char user_dummy_hash[] =
    "scrypt$15$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

static int
user_scrypt(const char *pw, const unsigned char *salt, size_t saltlen, long log2n,
    long r, long p, unsigned char *out, size_t outlen)
{
	if (EVP_PBE_scrypt(pw, strlen(pw), salt, saltlen, (uint64_t)1 << log2n,
	    (uint64_t)r, (uint64_t)p, USER_MAXMEM, out, outlen) != 1) {
		log_err("%s: EVP_PBE_scrypt failed", __func__);
		return -1;
	}
	return 0;
}

char *
user_password_hash(const char *password)
{
	unsigned char	 salt[USER_SALT], h[USER_HASHLEN];
	char		*s = NULL, *hs = NULL, *ret = NULL;
	struct buf	 b;

	buf_init(&b);
	if (crypto_random(salt, sizeof(salt)) == -1 ||
	    user_scrypt(password, salt, sizeof(salt), USER_LOG2N, USER_R, USER_P, h,
	    sizeof(h)) == -1)
		goto out;
	if ((s = util_b64url_encode(salt, sizeof(salt))) == NULL ||
	    (hs = util_b64url_encode(h, sizeof(h))) == NULL ||
	    buf_printf(&b, "scrypt$%d$%d$%d$%s$%s", USER_LOG2N, USER_R, USER_P, s,
	    hs) == -1)
		goto out;
	ret = buf_detach(&b);
out:
	explicit_bzero(h, sizeof(h));
	free(s);
	free(hs);
	buf_release(&b);
	return ret;
}

int
user_password_verify(const char *stored, const char *password, int *weaker)
{
	char		*copy, *f[6], *save = NULL, *t;
	unsigned char	*salt = NULL, *want = NULL, got[128];
	size_t		 saltlen = 0, wantlen = 0;
	long		 log2n, r, p;
	int		 n = 0, rc = -1;

	if (weaker != NULL)
		*weaker = 0;
	if ((copy = strdup(stored)) == NULL)
		return -1;
	for (t = strtok_r(copy, "$", &save); t != NULL && n < 6;
	    t = strtok_r(NULL, "$", &save))
		f[n++] = t;
	if (n != 6 || t != NULL || strcmp(f[0], "scrypt") != 0 ||
	    util_parse_long(f[1], 10, 22, &log2n) == -1 ||
	    util_parse_long(f[2], 1, 32, &r) == -1 ||
	    util_parse_long(f[3], 1, 16, &p) == -1 ||
	    (uint64_t)128 * (uint64_t)r * ((uint64_t)1 << log2n) * (uint64_t)p >
	    USER_MAXMEM / 2 ||
	    util_b64url_decode(f[4], strlen(f[4]), &salt, &saltlen) == -1 ||
	    util_b64url_decode(f[5], strlen(f[5]), &want, &wantlen) == -1 ||
	    saltlen < 8 || wantlen < 16 || wantlen > sizeof(got)) {
		log_err("%s: a stored password hash is malformed", __func__);
		goto out;
	}
	if (user_scrypt(password, salt, saltlen, log2n, r, p, got, wantlen) == -1)
		goto out;
	rc = crypto_equal(got, want, wantlen);
	if (weaker != NULL)
		*weaker = log2n < USER_LOG2N || r < USER_R || p < USER_P;
out:
	explicit_bzero(got, sizeof(got));
	free(copy);
	free(salt);
	free(want);
	return rc;
}

void
user_password_dummy(const char *password)
{
	(void)user_password_verify(user_dummy_hash, password, NULL);
}

int
user_valid_name(const char *name)
{
	size_t	 i;

	if (name == NULL || *name == '\0' || strlen(name) > USER_NAME_MAX)
		return 0;
	for (i = 0; name[i] != '\0'; i++)
		if (!isalnum((unsigned char)name[i]) && strchr("._@-", name[i]) == NULL)
			return 0;
	return 1;
}

int
user_valid_password(const char *pw, const char *name, char *err, size_t errsz)
{
	size_t	 n = strlen(pw);

	if (n < USER_PASSWORD_MIN) {
		snprintf(err, errsz, "the password must have at least %d characters",
		    USER_PASSWORD_MIN);
		return -1;
	}
	if (n > USER_PASSWORD_MAX) {
		snprintf(err, errsz, "the password must have at most %d characters",
		    USER_PASSWORD_MAX);
		return -1;
	}
	if (name != NULL && strcasecmp(pw, name) == 0) {
		snprintf(err, errsz, "the password must not be the user name");
		return -1;
	}
	return 0;
}

static void
user_from_row(sqlite3_stmt *st, struct user *u)
{
	memset(u, 0, sizeof(*u));
	u->id = sqlite3_column_int64(st, 0);
	snprintf(u->name, sizeof(u->name), "%s", (const char *)sqlite3_column_text(st, 1));
	u->admin = strcmp((const char *)sqlite3_column_text(st, 2), "admin") == 0;
	u->disabled = sqlite3_column_int(st, 3);
	u->must_change = sqlite3_column_int(st, 4);
	snprintf(u->created, sizeof(u->created), "%s",
	    (const char *)sqlite3_column_text(st, 5));
	snprintf(u->updated, sizeof(u->updated), "%s",
	    (const char *)sqlite3_column_text(st, 6));
}

#define USER_COLUMNS	"id, name, role, disabled, must_change_password, created_at, " \
			"updated_at, password"

/* One user by name (byname) or id; 0 found, 1 none, -1 error. *hash gets the hash. */
static int
user_get(struct sqlite3 *db, const char *name, long long id, struct user *u, char **hash)
{
	sqlite3_stmt	*st;
	int		 rc = 1, s;

	if (hash != NULL)
		*hash = NULL;
	if (sqlite3_prepare_v2(db, name != NULL ?
	    "SELECT " USER_COLUMNS " FROM users WHERE name = ?1" :
	    "SELECT " USER_COLUMNS " FROM users WHERE id = ?2", -1, &st, NULL) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	if (name != NULL)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, id);
	if ((s = sqlite3_step(st)) == SQLITE_ROW) {
		user_from_row(st, u);
		if (hash != NULL &&
		    (*hash = strdup((const char *)sqlite3_column_text(st, 7))) == NULL)
			rc = -1;
		else
			rc = 0;
	} else if (s != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int
user_by_name(struct sqlite3 *db, const char *name, struct user *u, char **hash)
{
	return user_get(db, name, 0, u, hash);
}

int
user_by_id(struct sqlite3 *db, long long id, struct user *u)
{
	return user_get(db, NULL, id, u, NULL);
}

int
user_create(struct sqlite3 *db, const char *name, int admin, const char *password,
    int must_change, long long *id, char *err, size_t errsz)
{
	sqlite3_stmt	*st = NULL;
	char		*hash = NULL, now[32];
	int		 rc = -1, s;

	if (!user_valid_name(name)) {
		snprintf(err, errsz, "a user name has 1 to %d letters, digits or . _ @ -",
		    USER_NAME_MAX);
		return -1;
	}
	if (user_valid_password(password, name, err, errsz) == -1)
		return -1;
	if ((hash = user_password_hash(password)) == NULL) {
		snprintf(err, errsz, "the password could not be hashed");
		return -1;
	}
	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, "INSERT INTO users (name, role, password, "
	    "must_change_password, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, "
	    "?5, ?5)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, admin ? "admin" : "member", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, must_change != 0);
	sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
	if (((s = sqlite3_step(st)) & 0xff) == SQLITE_CONSTRAINT) {
		snprintf(err, errsz, "a user named %s already exists", name);
		goto out;
	}
	if (s != SQLITE_DONE)
		goto dberr;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(db);
	rc = 0;
	goto out;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(db));
	snprintf(err, errsz, "database error");
out:
	sqlite3_finalize(st);
	if (hash != NULL)
		explicit_bzero(hash, strlen(hash));
	free(hash);
	return rc;
}

/*
 * Runs one UPDATE/DELETE of a user: ?1 = id, and where the statement names them ?2 = text,
 * ?3 = num, ?4 = now. 0 when a row changed, 1 when none did, -1 on error.
 */
static int
user_write(struct sqlite3 *db, const char *sql, long long id, const char *text, int num)
{
	sqlite3_stmt	*st;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int(st, 3, num);
	if (sqlite3_bind_parameter_count(st) >= 4)
		sqlite3_bind_text(st, 4, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = sqlite3_changes(db) > 0 ? 0 : 1;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

int
user_set_password(struct sqlite3 *db, long long id, const char *password, int must_change)
{
	char	*hash;
	int	 rc;

	if ((hash = user_password_hash(password)) == NULL)
		return -1;
	rc = user_write(db, "UPDATE users SET password = ?2, must_change_password = ?3, "
	    "updated_at = ?4 WHERE id = ?1", id, hash, must_change != 0);
	explicit_bzero(hash, strlen(hash));
	free(hash);
	return rc;
}

int
user_set_role(struct sqlite3 *db, long long id, int admin)
{
	return user_write(db, "UPDATE users SET role = ?2, updated_at = ?4 WHERE "
	    "id = ?1", id, admin ? "admin" : "member", 0);
}

int
user_set_disabled(struct sqlite3 *db, long long id, int disabled)
{
	return user_write(db, "UPDATE users SET disabled = ?3, updated_at = ?4 WHERE "
	    "id = ?1", id, NULL, disabled != 0);
}

int
user_delete(struct sqlite3 *db, long long id)
{
	return user_write(db, "DELETE FROM users WHERE id = ?1", id, NULL, 0);
}

int
user_other_admins(struct sqlite3 *db, long long id)
{
	sqlite3_stmt	*st;
	int		 n = -1;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM users WHERE role = 'admin' "
	    "AND disabled = 0 AND id != ?1", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

int
user_each(struct sqlite3 *db, int (*cb)(const struct user *, void *), void *arg)
{
	sqlite3_stmt	*st;
	struct user	 u;
	int		 s, rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT " USER_COLUMNS " FROM users ORDER BY name",
	    -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		user_from_row(st, &u);
		if (cb(&u, arg) != 0)
			break;
	}
	if (s != SQLITE_ROW && s != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}
