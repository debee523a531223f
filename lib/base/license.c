/*
 * license.c: Ed25519-signed license keys.
 *
 * A key is "ctxd1." + base64url(payload) + "." + base64url(signature), where payload is
 * compact JSON {"v":1,"plan":...,"licensee":...,"id":...,"issued":"YYYY-MM-DD",
 * "expires":"YYYY-MM-DD"} and the signature is Ed25519 over the ASCII bytes
 * "ctxd1.<payload base64url>". A key is valid through the end (23:59:59 UTC) of its
 * expiry date.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/license.h"
#include "base/log.h"
#include "base/util.h"

#define LICENSE_PREFIX	"ctxd1."
#define LICENSE_SIGLEN	64
#define LICENSE_PUBLEN	32
#define LICENSE_WS	" \t\r\n\v\f"
#define LICENSE_TRIAL_PREFIX	"ctxd-trial."

/* Parses exactly "YYYY-MM-DD" (a real calendar date, 1970..9999) to UTC midnight. */
static int
license_parse_date(const char *s, time_t *out)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	struct tm	 tm;
	int		 i, y = 0, m = 0, d = 0, leap;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return -1;
	for (i = 0; i < 10; i++) {
		if (i == 4 || i == 7)
			continue;
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (i < 4)
			y = y * 10 + (s[i] - '0');
		else if (i < 7)
			m = m * 10 + (s[i] - '0');
		else
			d = d * 10 + (s[i] - '0');
	}
	if (y < 1970 || m < 1 || m > 12 || d < 1)
		return -1;
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d > mdays[m - 1] + (m == 2 && leap))
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	if ((*out = timegm(&tm)) == (time_t)-1)
		return -1;
	return 0;
}

int
license_format_date(time_t t, char out[11])
{
	struct tm	 tm;

	out[0] = '\0';
	if (gmtime_r(&t, &tm) == NULL || tm.tm_year < 70 || tm.tm_year > 9999 - 1900)
		return -1;
	if (strftime(out, 11, "%Y-%m-%d", &tm) != 10)
		return -1;
	return 0;
}

/*
 * Copies the string member name of obj into dst (dstsz bytes with the NUL). -1 when the
 * member is missing, not a string, holds a NUL byte, is too long, or is empty and
 * nonempty is set.
 */
static int
license_get_str(struct json_object *obj, const char *name, char *dst, size_t dstsz,
    int nonempty)
{
	struct json_object	*v;
	const char		*s;
	size_t			 len;

	if (!json_object_object_get_ex(obj, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return -1;
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (s == NULL || strlen(s) != len || len >= dstsz || (nonempty && len == 0))
		return -1;
	memcpy(dst, s, len + 1);
	return 0;
}

/* Parses a decoded payload into lic; -1 on anything but a complete version 1 payload. */
static int
license_parse_payload(const unsigned char *p, size_t len, struct license *lic)
{
	struct json_tokener	*tok = NULL;
	struct json_object	*obj = NULL, *v;
	char			 date[16];
	int			 rc = -1;

	if (len == 0 || len > 4096 || memchr(p, '\0', len) != NULL)
		return -1;
	if ((tok = json_tokener_new()) == NULL)
		return -1;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, (const char *)p, (int)len);
	if (obj == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len ||
	    !json_object_is_type(obj, json_type_object))
		goto out;
	if (!json_object_object_get_ex(obj, "v", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != 1)
		goto out;
	if (license_get_str(obj, "plan", lic->plan, sizeof(lic->plan), 1) == -1 ||
	    license_get_str(obj, "licensee", lic->licensee, sizeof(lic->licensee),
	    0) == -1 ||
	    license_get_str(obj, "id", lic->id, sizeof(lic->id), 1) == -1)
		goto out;
	if (license_get_str(obj, "issued", date, sizeof(date), 1) == -1 ||
	    license_parse_date(date, &lic->issued) == -1)
		goto out;
	if (license_get_str(obj, "expires", date, sizeof(date), 1) == -1 ||
	    license_parse_date(date, &lic->expires) == -1)
		goto out;
	lic->expires += 24 * 60 * 60 - 1;
	rc = 0;
out:
	json_object_put(obj);
	json_tokener_free(tok);
	return rc;
}

/* 1 when sig is a valid Ed25519 signature of msg under the raw public key pub, else 0. */
static int
license_ed25519_verify(const unsigned char pub[LICENSE_PUBLEN], const unsigned char *msg,
    size_t msglen, const unsigned char *sig, size_t siglen)
{
	EVP_PKEY	*pkey = NULL;
	EVP_MD_CTX	*mctx = NULL;
	int		 good = 0;

	if ((pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub,
	    LICENSE_PUBLEN)) == NULL)
		goto out;
	if ((mctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestVerifyInit(mctx, NULL, NULL, NULL, pkey) != 1)
		goto out;
	good = EVP_DigestVerify(mctx, sig, siglen, msg, msglen) == 1;
out:
	EVP_MD_CTX_free(mctx);
	EVP_PKEY_free(pkey);
	return good;
}

enum license_status
license_verify(const char *key, const unsigned char pub[32], time_t now,
    struct license *out)
{
	struct license		 lic;
	enum license_status	 st = LICENSE_MALFORMED;
	unsigned char		*payload = NULL, *sig = NULL;
	size_t			 len, plen = 0, siglen = 0;
	char			*k = NULL, *p, *dot, *s;

	memset(&lic, 0, sizeof(lic));
	if (out != NULL)
		memset(out, 0, sizeof(*out));
	if (key == NULL)
		return LICENSE_MISSING;
	key += strspn(key, LICENSE_WS);
	len = strlen(key);
	while (len > 0 && strchr(LICENSE_WS, key[len - 1]) != NULL)
		len--;
	if (len == 0)
		return LICENSE_MISSING;
	if ((k = strndup(key, len)) == NULL) {
		log_err("%s: out of memory", __func__);
		return LICENSE_MALFORMED;
	}
	if (strncmp(k, LICENSE_PREFIX, strlen(LICENSE_PREFIX)) != 0)
		goto out;
	p = k + strlen(LICENSE_PREFIX);
	if ((dot = strchr(p, '.')) == NULL || dot == p)
		goto out;
	s = dot + 1;
	if (*s == '\0' || strchr(s, '.') != NULL)
		goto out;
	if (util_b64url_decode(p, (size_t)(dot - p), &payload, &plen) == -1 ||
	    license_parse_payload(payload, plen, &lic) == -1)
		goto out;
	if (out != NULL)
		*out = lic;
	if (util_b64url_decode(s, strlen(s), &sig, &siglen) == -1 ||
	    siglen != LICENSE_SIGLEN)
		goto out;
	if (!license_ed25519_verify(pub, (const unsigned char *)k, (size_t)(dot - k), sig,
	    siglen)) {
		st = LICENSE_BAD_SIGNATURE;
		goto out;
	}
	st = now > lic.expires ? LICENSE_EXPIRED : LICENSE_OK;
out:
	free(k);
	free(payload);
	free(sig);
	return st;
}

int
license_check_env(const char *prog)
{
	struct license		 lic;
	enum license_status	 st;
	const char		*from = NULL;
	char			 date[11], *key;

	key = license_key_load(&from);
	st = license_verify_any(key, license_now(), &lic);
	free(key);
	switch (st) {
	case LICENSE_OK:
		return 0;
	case LICENSE_MISSING:
		fprintf(stderr, "%s: LICENSE_KEY is missing: set it to your "
		    "ctxd license key, or run ctxd-admin license trial (a 30-day "
		    "evaluation) or ctxd-admin license install FILE\n", prog);
		break;
	case LICENSE_MALFORMED:
		fprintf(stderr, "%s: %s is malformed: not a ctxd "
		    "license key\n", prog, from != NULL && strcmp(from, "file") == 0 ?
		    "the installed license key" : "LICENSE_KEY");
		break;
	case LICENSE_BAD_SIGNATURE:
		fprintf(stderr, "%s: %s has a bad signature: it was not "
		    "issued for this build\n", prog, from != NULL &&
		    strcmp(from, "file") == 0 ? "the installed license key" :
		    "LICENSE_KEY");
		break;
	case LICENSE_EXPIRED:
		if (license_format_date(lic.expires, date) == -1)
			date[0] = '\0';
		fprintf(stderr, "%s: %s expired on %s (plan %s): install a new key "
		    "with ctxd-admin license install FILE\n", prog, from != NULL &&
		    strcmp(from, "file") == 0 ? "the installed license key" :
		    "LICENSE_KEY", date, lic.plan);
		break;
	}
	return -1;
}

/* Passphrase callback that supplies none, so an encrypted key fails instead of prompting. */
static int
license_no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

/* Adds a string member; -1 on allocation failure. */
static int
license_json_add_str(struct json_object *obj, const char *name, const char *val)
{
	struct json_object	*v;

	if ((v = json_object_new_string(val)) == NULL)
		return -1;
	if (json_object_object_add(obj, name, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/*
 * Builds the payload JSON of lic (id: the given one or fresh random hex) and signs it with
 * the Ed25519 private key of the PEM file keypath. The result is checked with license_verify
 * before it is returned (valid or, for a key minted already expired, expired).
 */
char *
license_mint(const char *keypath, const struct license *lic)
{
	BIO			*bio = NULL;
	EVP_PKEY		*pkey = NULL;
	EVP_MD_CTX		*mctx = NULL;
	struct json_object	*obj = NULL, *v;
	struct buf		 b;
	enum license_status	 st;
	unsigned char		 rnd[16], sig[LICENSE_SIGLEN], pub[LICENSE_PUBLEN];
	char			 id[sizeof(lic->id)], issued[11], expires[11];
	char			*pb = NULL, *sb = NULL, *res = NULL;
	const char		*json;
	size_t			 siglen = sizeof(sig), publen = sizeof(pub);

	buf_init(&b);
	if (strnlen(lic->plan, sizeof(lic->plan)) == 0 ||
	    strnlen(lic->plan, sizeof(lic->plan)) == sizeof(lic->plan) ||
	    strnlen(lic->licensee, sizeof(lic->licensee)) == sizeof(lic->licensee) ||
	    strnlen(lic->id, sizeof(lic->id)) == sizeof(lic->id)) {
		log_err("%s: plan, licensee or id empty or too long", __func__);
		return NULL;
	}
	if (license_format_date(lic->issued, issued) == -1 ||
	    license_format_date(lic->expires, expires) == -1) {
		log_err("%s: issue or expiry date out of range", __func__);
		return NULL;
	}
	if (lic->id[0] != '\0')
		memcpy(id, lic->id, strlen(lic->id) + 1);
	else {
		if (crypto_random(rnd, sizeof(rnd)) == -1)
			return NULL;
		util_hex(rnd, sizeof(rnd), id);
	}

	if ((bio = BIO_new_file(keypath, "r")) == NULL) {
		log_err("%s: %s: %s", __func__, keypath, strerror(errno));
		goto out;
	}
	if ((pkey = PEM_read_bio_PrivateKey(bio, NULL, license_no_passphrase,
	    NULL)) == NULL) {
		log_err("%s: %s: not a PEM private key", __func__, keypath);
		goto out;
	}
	if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_ED25519) {
		log_err("%s: %s: not an Ed25519 private key", __func__, keypath);
		goto out;
	}

	if ((obj = json_object_new_object()) == NULL ||
	    (v = json_object_new_int(1)) == NULL)
		goto nomem;
	if (json_object_object_add(obj, "v", v) != 0) {
		json_object_put(v);
		goto nomem;
	}
	if (license_json_add_str(obj, "plan", lic->plan) == -1 ||
	    license_json_add_str(obj, "licensee", lic->licensee) == -1 ||
	    license_json_add_str(obj, "id", id) == -1 ||
	    license_json_add_str(obj, "issued", issued) == -1 ||
	    license_json_add_str(obj, "expires", expires) == -1)
		goto nomem;
	if ((json = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE)) == NULL)
		goto nomem;
	if ((pb = util_b64url_encode((const unsigned char *)json,
	    strlen(json))) == NULL ||
	    buf_printf(&b, "%s%s", LICENSE_PREFIX, pb) == -1)
		goto nomem;

	if ((mctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(mctx, NULL, NULL, NULL, pkey) != 1 ||
	    EVP_DigestSign(mctx, sig, &siglen, (const unsigned char *)b.p,
	    b.len) != 1 || siglen != LICENSE_SIGLEN) {
		log_err("%s: signing failed", __func__);
		goto out;
	}
	if ((sb = util_b64url_encode(sig, siglen)) == NULL ||
	    buf_printf(&b, ".%s", sb) == -1)
		goto nomem;

	if (EVP_PKEY_get_raw_public_key(pkey, pub, &publen) != 1 ||
	    publen != sizeof(pub)) {
		log_err("%s: cannot derive the public key", __func__);
		goto out;
	}
	st = license_verify(b.p, pub, lic->issued, NULL);
	if (st != LICENSE_OK && st != LICENSE_EXPIRED) {
		log_err("%s: minted key does not verify: %s", __func__,
		    license_status_str(st));
		goto out;
	}
	res = buf_detach(&b);
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	OPENSSL_cleanse(sig, sizeof(sig));
	EVP_MD_CTX_free(mctx);
	EVP_PKEY_free(pkey);
	BIO_free(bio);
	json_object_put(obj);
	free(pb);
	free(sb);
	buf_release(&b);
	return res;
}

/*
 * Prints plan, licensee, id, issued, expires and status, one "name: value" per line. For a
 * missing or malformed key (no payload) only the status line is printed.
 */
void
license_print(const struct license *lic, enum license_status st, FILE *fp)
{
	char	 issued[11], expires[11];

	if (lic != NULL && st != LICENSE_MISSING && st != LICENSE_MALFORMED) {
		if (license_format_date(lic->issued, issued) == -1)
			issued[0] = '\0';
		if (license_format_date(lic->expires, expires) == -1)
			expires[0] = '\0';
		fprintf(fp, "plan: %s\nlicensee: %s\nid: %s\nissued: %s\n"
		    "expires: %s\n", lic->plan, lic->licensee, lic->id, issued,
		    expires);
	}
	fprintf(fp, "status: %s\n", license_status_str(st));
}

const char *
license_status_str(enum license_status st)
{
	switch (st) {
	case LICENSE_OK:
		return "valid";
	case LICENSE_MISSING:
		return "missing";
	case LICENSE_MALFORMED:
		return "malformed";
	case LICENSE_BAD_SIGNATURE:
		return "bad signature";
	case LICENSE_EXPIRED:
		return "expired";
	}
	return "unknown";
}

int
license_dev_build(void)
{
	return CTXD_LICENSE_DEV;
}

int
license_pubkey(unsigned char pub[32])
{
	return util_unhex(CTXD_LICENSE_PUBKEY, pub, LICENSE_PUBLEN);
}

time_t
license_now(void)
{
	const char	*s = getenv("CTXD_LICENSE_NOW");
	time_t		 t;

	/* The clock override exists for tests of expiry; a release build ignores it. */
	if (!CTXD_LICENSE_DEV || s == NULL || *s == '\0')
		return time(NULL);
	if (license_parse_date(s, &t) == -1)
		return time(NULL);
	return t + 12 * 60 * 60;
}

char *
license_key_path(void)
{
	return util_path_join(util_data_dir(), LICENSE_FILE);
}

char *
license_key_load(const char **from)
{
	const char	*env = getenv("LICENSE_KEY");
	char		*path, *key = NULL;

	if (env != NULL && env[strspn(env, LICENSE_WS)] != '\0') {
		if (from != NULL)
			*from = "LICENSE_KEY";
		return strdup(env);
	}
	if (from != NULL)
		*from = NULL;
	if ((path = license_key_path()) == NULL)
		return NULL;
	if (util_read_file(path, 8192, &key, NULL) == 0 && from != NULL)
		*from = "file";
	free(path);
	return key;
}

/*
 * A trial token "ctxd-trial.YYYY-MM-DD" (the start date) is an evaluation: plan "trial",
 * valid LICENSE_TRIAL_DAYS days from its start. It is not signed: ctxd-admin license trial
 * writes it once per instance and records the start in the database.
 */
static enum license_status
license_verify_trial(const char *key, time_t now, struct license *lic)
{
	char	 date[11];
	size_t	 len;

	key += strspn(key, LICENSE_WS);
	len = strcspn(key, LICENSE_WS);
	if (len != strlen(LICENSE_TRIAL_PREFIX) + 10 ||
	    key[len + strspn(key + len, LICENSE_WS)] != '\0')
		return LICENSE_MALFORMED;
	memcpy(date, key + strlen(LICENSE_TRIAL_PREFIX), 10);
	date[10] = '\0';
	if (license_parse_date(date, &lic->issued) == -1)
		return LICENSE_MALFORMED;
	snprintf(lic->plan, sizeof(lic->plan), "trial");
	snprintf(lic->licensee, sizeof(lic->licensee), "evaluation");
	snprintf(lic->id, sizeof(lic->id), "trial-%s", date);
	lic->expires = lic->issued + (LICENSE_TRIAL_DAYS - 1) * 24 * 60 * 60 +
	    24 * 60 * 60 - 1;
	return now > lic->expires ? LICENSE_EXPIRED : LICENSE_OK;
}

enum license_status
license_verify_any(const char *key, time_t now, struct license *out)
{
	unsigned char	 pub[LICENSE_PUBLEN];
	struct license	 lic;
	const char	*k;

	memset(&lic, 0, sizeof(lic));
	if (out != NULL)
		memset(out, 0, sizeof(*out));
	if (key != NULL) {
		k = key + strspn(key, LICENSE_WS);
		if (strncmp(k, LICENSE_TRIAL_PREFIX, strlen(LICENSE_TRIAL_PREFIX)) == 0) {
			enum license_status st = license_verify_trial(k, now, &lic);

			if (out != NULL && st != LICENSE_MALFORMED)
				*out = lic;
			return st;
		}
	}
	if (license_pubkey(pub) == -1)
		return LICENSE_BAD_SIGNATURE;
	return license_verify(key, pub, now, out);
}

int
license_key_store(const char *key)
{
	struct stat	 sb;
	char		*path, *line;
	size_t		 len;
	int		 rc;

	key += strspn(key, LICENSE_WS);
	len = strlen(key);
	while (len > 0 && strchr(LICENSE_WS, key[len - 1]) != NULL)
		len--;
	if ((line = malloc(len + 2)) == NULL)
		return -1;
	memcpy(line, key, len);
	line[len] = '\n';
	line[len + 1] = '\0';
	if ((path = license_key_path()) == NULL) {
		free(line);
		return -1;
	}
	rc = util_write_file(path, line, len + 1, 0600);
	/* written by root for a service that runs as DATA_DIR's owner: give it to that owner */
	if (rc == 0 && geteuid() == 0 && stat(util_data_dir(), &sb) == 0 &&
	    chown(path, sb.st_uid, sb.st_gid) == -1)
		rc = -1;
	free(path);
	free(line);
	return rc;
}

/*
 * An info line, not a warning: a development build is what script/server runs, whose start
 * stays quiet; the Status page and ctxd-admin license show mark it prominently.
 */
void
license_log_build(void)
{
	if (license_dev_build())
		log_info("development build: it trusts the development license key, which "
		    "anyone with the source tree can sign with; not for production");
}
