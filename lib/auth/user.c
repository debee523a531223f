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

#include "auth/user.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "store/users.h"

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

int
user_by_name(struct db *db, const char *name, struct user *u, char **hash)
{
	return store_user_by_name(db, name, u, hash);
}

int
user_by_id(struct db *db, long long id, struct user *u)
{
	return store_user_by_id(db, id, u);
}

int
user_create(struct db *db, const char *name, int admin, const char *password,
    int must_change, long long *id, char *err, size_t errsz)
{
	char		*hash = NULL;
	int		 rc;

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
	rc = store_user_insert(db, name, admin, hash, must_change, id);
	if (rc == 1)
		snprintf(err, errsz, "a user named %s already exists", name);
	else if (rc == -1)
		snprintf(err, errsz, "database error");
	explicit_bzero(hash, strlen(hash));
	free(hash);
	return rc == 0 ? 0 : -1;
}

int
user_set_password(struct db *db, long long id, const char *password, int must_change)
{
	char	*hash;
	int	 rc;

	if ((hash = user_password_hash(password)) == NULL)
		return -1;
	rc = store_user_set_password(db, id, hash, must_change);
	explicit_bzero(hash, strlen(hash));
	free(hash);
	return rc;
}

int
user_set_role(struct db *db, long long id, int admin)
{
	return store_user_set_role(db, id, admin);
}

int
user_set_disabled(struct db *db, long long id, int disabled)
{
	return store_user_set_disabled(db, id, disabled);
}

int
user_delete(struct db *db, long long id)
{
	return store_user_delete(db, id);
}

int
user_other_admins(struct db *db, long long id)
{
	return store_user_other_admins(db, id);
}

int
user_each(struct db *db, int (*cb)(const struct user *, void *), void *arg)
{
	return store_user_each(db, cb, arg);
}
