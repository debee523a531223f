/* test-license.c: minting and verifying Ed25519 license keys, and license_check_env. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/buf.h"
#include "base/license.h"
#include "base/log.h"
#include "base/util.h"
#include "tap.h"

static char	 tmpdir[] = "/tmp/test-license.XXXXXX";
static char	*path_a, *path_ec;
static EVP_PKEY	*key_a;
static unsigned char pub_a[32], pub_b[32];

/* UTC time of a date and time of day. */
static time_t
utc(int y, int m, int d, int hh, int mm, int ss)
{
	struct tm	 tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	return timegm(&tm);
}

/* Generates a key of the given type; writes its PEM private key to path when not NULL. */
static EVP_PKEY *
genkey(int type, const char *path, unsigned char pub[32])
{
	EVP_PKEY_CTX	*pctx = NULL;
	EVP_PKEY	*pkey = NULL;
	BIO		*bio;
	size_t		 publen = 32;

	if (type == EVP_PKEY_ED25519) {
		if ((pctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL)) == NULL ||
		    EVP_PKEY_keygen_init(pctx) != 1 ||
		    EVP_PKEY_keygen(pctx, &pkey) != 1) {
			EVP_PKEY_CTX_free(pctx);
			return NULL;
		}
		EVP_PKEY_CTX_free(pctx);
		if (EVP_PKEY_get_raw_public_key(pkey, pub, &publen) != 1 ||
		    publen != 32) {
			EVP_PKEY_free(pkey);
			return NULL;
		}
	} else if ((pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256")) == NULL)
		return NULL;
	if (path != NULL) {
		if ((bio = BIO_new_file(path, "w")) == NULL ||
		    PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL,
		    NULL) != 1) {
			BIO_free(bio);
			EVP_PKEY_free(pkey);
			return NULL;
		}
		BIO_free(bio);
	}
	return pkey;
}

/* Signs an arbitrary payload like license_mint does, to build keys mint would refuse. */
static char *
sign_payload(const char *json)
{
	EVP_MD_CTX	*mctx;
	unsigned char	 sig[64];
	size_t		 siglen = sizeof(sig);
	struct buf	 b;
	char		*p, *s = NULL;

	buf_init(&b);
	p = util_b64url_encode((const unsigned char *)json, strlen(json));
	buf_printf(&b, "ctxd1.%s", p);
	if ((mctx = EVP_MD_CTX_new()) != NULL &&
	    EVP_DigestSignInit(mctx, NULL, NULL, NULL, key_a) == 1 &&
	    EVP_DigestSign(mctx, sig, &siglen, (unsigned char *)b.p, b.len) == 1)
		s = util_b64url_encode(sig, siglen);
	EVP_MD_CTX_free(mctx);
	buf_printf(&b, ".%s", s ? s : "");
	free(p);
	free(s);
	return buf_detach(&b);
}

static char *
mint(const char *path, const char *id, time_t issued, time_t expires)
{
	struct license	 lic;

	memset(&lic, 0, sizeof(lic));
	snprintf(lic.plan, sizeof(lic.plan), "trial");
	snprintf(lic.licensee, sizeof(lic.licensee), "Acme Corp");
	snprintf(lic.id, sizeof(lic.id), "%s", id);
	lic.issued = issued;
	lic.expires = expires;
	return license_mint(path, &lic);
}

/* The decoded payload JSON of a key (malloc'd) or NULL. */
static char *
payload_of(const char *key)
{
	const char	*p = key + 6, *dot;
	unsigned char	*raw;
	size_t		 len;
	struct buf	 b;

	if (strncmp(key, "ctxd1.", 6) != 0 || (dot = strchr(p, '.')) == NULL ||
	    util_b64url_decode(p, (size_t)(dot - p), &raw, &len) == -1)
		return NULL;
	buf_init(&b);
	buf_add(&b, raw, len);
	free(raw);
	return buf_detach(&b);
}

/* Replaces the payload of key by json, keeping the signature. */
static char *
with_payload(const char *key, const char *json)
{
	const char	*dot = strchr(key + 6, '.');
	char		*p;
	struct buf	 b;

	buf_init(&b);
	p = util_b64url_encode((const unsigned char *)json, strlen(json));
	buf_printf(&b, "ctxd1.%s%s", p, dot);
	free(p);
	return buf_detach(&b);
}

static void
test_valid(void)
{
	struct license	 out;
	struct buf	 b;
	char		*key, *pl, *s;
	time_t		 iss = utc(2024, 1, 1, 0, 0, 0);
	time_t		 exp = utc(2024, 1, 31, 12, 30, 0);
	time_t		 end = utc(2024, 1, 31, 23, 59, 59);
	size_t		 i, dots = 0;

	key = mint(path_a, "lic-0001", iss, exp);
	ok(key != NULL, "mint a valid key");
	if (key == NULL)
		return;
	ok(strncmp(key, "ctxd1.", 6) == 0, "key starts with ctxd1.");
	for (i = 0; key[i] != '\0'; i++)
		dots += key[i] == '.';
	is_int(dots, 2, "key has three parts");
	pl = payload_of(key);
	is_str(pl, "{\"v\":1,\"plan\":\"trial\",\"licensee\":\"Acme Corp\","
	    "\"id\":\"lic-0001\",\"issued\":\"2024-01-01\",\"expires\":\"2024-01-31\"}",
	    "payload is the compact JSON");
	free(pl);

	is_int(license_verify(key, pub_a, utc(2024, 1, 15, 8, 0, 0), &out), LICENSE_OK,
	    "valid key verifies");
	is_str(out.plan, "trial", "plan parsed");
	is_str(out.licensee, "Acme Corp", "licensee parsed");
	is_str(out.id, "lic-0001", "id parsed");
	is_int(out.issued, iss, "issued is UTC midnight");
	is_int(out.expires, end, "expires is the end of the expiry day");
	is_int(license_verify(key, pub_a, end, NULL), LICENSE_OK,
	    "valid through 23:59:59 of the expiry day");
	is_int(license_verify(key, pub_a, end + 1, &out), LICENSE_EXPIRED,
	    "expired one second later");

	buf_init(&b);
	buf_printf(&b, "  %s\r\n", key);
	s = buf_detach(&b);
	is_int(license_verify(s, pub_a, iss, NULL), LICENSE_OK,
	    "surrounding whitespace and newline are trimmed");
	free(s);
	free(key);

	key = mint(path_a, "", iss, exp);
	ok(key != NULL && license_verify(key, pub_a, iss, &out) == LICENSE_OK,
	    "mint with an empty id");
	is_int(strlen(out.id), 32, "generated id has 32 characters");
	is_int(strspn(out.id, "0123456789abcdef"), 32, "generated id is hex");
	free(key);
}

static void
test_expired(void)
{
	struct license	 out;
	char		*key;
	char		 date[11];

	key = mint(path_a, "lic-old", utc(2020, 2, 15, 0, 0, 0),
	    utc(2020, 3, 15, 0, 0, 0));
	ok(key != NULL, "mint an expired key");
	if (key == NULL)
		return;
	is_int(license_verify(key, pub_a, utc(2024, 6, 1, 0, 0, 0), &out),
	    LICENSE_EXPIRED, "expired key reports LICENSE_EXPIRED");
	is_int(out.expires, utc(2020, 3, 15, 23, 59, 59), "expiry time filled in");
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&out.expires));
	is_str(date, "2020-03-15", "expiry date filled in");
	is_str(out.plan, "trial", "plan filled in for an expired key");
	free(key);
}

static void
test_bad_signature(void)
{
	struct license	 out;
	char		*key, *pl, *bad, *c;
	time_t		 now = utc(2024, 1, 10, 0, 0, 0);

	key = mint(path_a, "lic-0002", utc(2024, 1, 1, 0, 0, 0),
	    utc(2024, 12, 31, 0, 0, 0));
	ok(key != NULL, "mint a key");
	if (key == NULL)
		return;
	is_int(license_verify(key, pub_b, now, &out), LICENSE_BAD_SIGNATURE,
	    "another public key: bad signature");
	is_str(out.licensee, "Acme Corp", "payload filled in despite the bad signature");

	pl = payload_of(key);
	c = pl ? strstr(pl, "Acme") : NULL;
	ok(c != NULL, "payload holds the licensee");
	if (c != NULL) {
		c[3] = 'f';
		bad = with_payload(key, pl);
		is_int(license_verify(bad, pub_a, now, &out), LICENSE_BAD_SIGNATURE,
		    "one payload byte changed: bad signature");
		is_str(out.licensee, "Acmf Corp", "changed payload parsed");
		free(bad);
	}
	free(pl);

	bad = strdup(key);
	c = bad + strlen(bad) - 10;
	*c = *c == 'A' ? 'B' : 'A';
	is_int(license_verify(bad, pub_a, now, NULL), LICENSE_BAD_SIGNATURE,
	    "one signature character changed: bad signature");
	free(bad);
	free(key);
}

static void
test_malformed(void)
{
	struct buf	 b;
	char		*key, *k, *dot;
	time_t		 now = utc(2024, 1, 10, 0, 0, 0);
	static const char *bad_payloads[] = {
		"{\"v\":1,\"plan\":\"trial\",\"licensee\":\"A\",\"id\":\"x\","
		    "\"issued\":\"2024-01-01\"}",
		"{\"v\":1,\"plan\":\"trial\",\"licensee\":\"A\",\"id\":\"x\","
		    "\"issued\":\"2024-01-01\",\"expires\":\"2024-02-30\"}",
		"{\"v\":1,\"plan\":\"trial\",\"licensee\":\"A\",\"id\":\"x\","
		    "\"issued\":\"2024-01-01\",\"expires\":\"2024-1-30\"}",
		"{\"v\":1,\"plan\":\"trial\",\"licensee\":\"A\",\"id\":\"x\","
		    "\"issued\":\"2024-01-01\",\"expires\":20241230}",
		"{\"v\":2,\"plan\":\"trial\",\"licensee\":\"A\",\"id\":\"x\","
		    "\"issued\":\"2024-01-01\",\"expires\":\"2024-12-30\"}",
		"{\"plan\":\"trial\",\"licensee\":\"A\",\"id\":\"x\","
		    "\"issued\":\"2024-01-01\",\"expires\":\"2024-12-30\"}",
		"[1,2,3]",
		"{\"v\":1,\"plan\":\"trial\"",
	};
	static const char *names[] = {
		"JSON missing expires", "impossible date", "date not YYYY-MM-DD",
		"date not a string", "version 2", "no version", "JSON not an object",
		"truncated JSON",
	};
	char		 name[64];
	size_t		 i;

	for (i = 0; i < sizeof(bad_payloads) / sizeof(bad_payloads[0]); i++) {
		key = sign_payload(bad_payloads[i]);
		snprintf(name, sizeof(name), "malformed: %s", names[i]);
		is_int(license_verify(key, pub_a, now, NULL), LICENSE_MALFORMED, name);
		free(key);
	}
	key = sign_payload("{\"v\":1,\"plan\":\"trial\",\"licensee\":\"A\",\"id\":\"x\","
	    "\"issued\":\"2024-02-29\",\"expires\":\"2024-12-30\"}");
	is_int(license_verify(key, pub_a, now, NULL), LICENSE_OK,
	    "control: hand-signed payload with a leap day verifies");
	free(key);

	is_int(license_verify("garbage", pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: garbage");
	is_int(license_verify("ctxd1.", pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: prefix only");
	is_int(license_verify("ctxd1.eyJ2IjoxfQ", pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: missing signature part");

	key = mint(path_a, "lic-0003", utc(2024, 1, 1, 0, 0, 0),
	    utc(2024, 12, 31, 0, 0, 0));
	ok(key != NULL, "mint a key to break");
	if (key == NULL)
		return;
	buf_init(&b);
	dot = strchr(key + 6, '.');

	buf_printf(&b, "ctxd2.%s", key + 6);
	is_int(license_verify(b.p, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: wrong prefix");
	buf_reset(&b);
	buf_printf(&b, "%s.AAAA", key);
	is_int(license_verify(b.p, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: extra part");
	buf_reset(&b);
	buf_add(&b, key, (size_t)(dot - key) + 1);
	is_int(license_verify(b.p, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: empty signature");
	buf_reset(&b);
	buf_printf(&b, "ctxd1.%s", dot);
	is_int(license_verify(b.p, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: empty payload");
	buf_reset(&b);
	buf_printf(&b, "ctxd1.!!%s", key + 8);
	is_int(license_verify(b.p, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: bad base64 in the payload");
	buf_reset(&b);
	buf_add(&b, key, (size_t)(dot - key) + 1);
	buf_adds(&b, "*");
	buf_adds(&b, dot + 2);
	is_int(license_verify(b.p, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: bad base64 in the signature");
	buf_reset(&b);
	buf_add(&b, key, strlen(key) - 8);
	is_int(license_verify(b.p, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: short signature");
	buf_reset(&b);
	k = strdup(key);
	k[strlen(k) / 2] = ' ';
	is_int(license_verify(k, pub_a, now, NULL), LICENSE_MALFORMED,
	    "malformed: inner space");
	free(k);
	buf_release(&b);
	free(key);
}

static void
test_missing(void)
{
	struct license	 out;

	memset(&out, 'x', sizeof(out));
	is_int(license_verify(NULL, pub_a, 0, &out), LICENSE_MISSING, "NULL is missing");
	is_str(out.plan, "", "out cleared for a missing key");
	is_int(license_verify("", pub_a, 0, NULL), LICENSE_MISSING, "empty is missing");
	is_int(license_verify(" \n", pub_a, 0, NULL), LICENSE_MISSING,
	    "whitespace only is missing");
}

static void
test_mint_errors(void)
{
	struct license	 lic;
	char		*key, *nopath;

	key = mint(path_ec, "x", utc(2024, 1, 1, 0, 0, 0), utc(2024, 2, 1, 0, 0, 0));
	ok(key == NULL, "mint refuses an EC (non-Ed25519) key");
	free(key);
	nopath = util_path_join(tmpdir, "nonexistent.pem");
	key = mint(nopath, "x", utc(2024, 1, 1, 0, 0, 0), utc(2024, 2, 1, 0, 0, 0));
	ok(key == NULL, "mint refuses a missing key file");
	free(key);
	free(nopath);
	memset(&lic, 0, sizeof(lic));
	lic.issued = utc(2024, 1, 1, 0, 0, 0);
	lic.expires = utc(2024, 2, 1, 0, 0, 0);
	key = license_mint(path_a, &lic);
	ok(key == NULL, "mint refuses an empty plan");
	free(key);
}

static void
test_print(void)
{
	struct license	 lic;
	char		*text = NULL;
	size_t		 len = 0;
	FILE		*fp;

	memset(&lic, 0, sizeof(lic));
	snprintf(lic.plan, sizeof(lic.plan), "trial");
	snprintf(lic.licensee, sizeof(lic.licensee), "Acme Corp");
	snprintf(lic.id, sizeof(lic.id), "lic-0001");
	lic.issued = utc(2024, 1, 1, 0, 0, 0);
	lic.expires = utc(2024, 1, 31, 23, 59, 59);
	fp = open_memstream(&text, &len);
	license_print(&lic, LICENSE_EXPIRED, fp);
	fclose(fp);
	is_str(text, "plan: trial\nlicensee: Acme Corp\nid: lic-0001\n"
	    "issued: 2024-01-01\nexpires: 2024-01-31\nstatus: expired\n",
	    "license_print output");
	free(text);
	text = NULL;
	fp = open_memstream(&text, &len);
	license_print(&lic, LICENSE_MALFORMED, fp);
	fclose(fp);
	is_str(text, "status: malformed\n", "license_print of a malformed key");
	free(text);

	is_str(license_status_str(LICENSE_OK), "valid", "status word: valid");
	is_str(license_status_str(LICENSE_EXPIRED), "expired", "status word: expired");
	is_str(license_status_str(LICENSE_BAD_SIGNATURE), "bad signature",
	    "status word: bad signature");
	is_str(license_status_str(LICENSE_MALFORMED), "malformed",
	    "status word: malformed");
	is_str(license_status_str(LICENSE_MISSING), "missing", "status word: missing");
}

/* Runs license_check_env("test-license") and returns what it wrote to stderr. */
static char *
check_env(int *rc)
{
	FILE		*tf;
	struct buf	 b;
	char		 chunk[512];
	size_t		 n;
	int		 saved;

	buf_init(&b);
	buf_adds(&b, "");
	fflush(stderr);
	if ((tf = tmpfile()) == NULL || (saved = dup(2)) == -1) {
		*rc = -2;
		return buf_detach(&b);
	}
	dup2(fileno(tf), 2);
	*rc = license_check_env("test-license");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tf);
	while ((n = fread(chunk, 1, sizeof(chunk), tf)) > 0)
		buf_add(&b, chunk, n);
	fclose(tf);
	return buf_detach(&b);
}

static void
test_check_env(void)
{
	const char	*top = getenv("top_srcdir");
	const char	*badsig = "test-license: LICENSE_KEY has a bad signature: "
	    "it was not issued for this build\n";
	char		*devkey = NULL, *devpub = NULL, *key, *msg, *last, *nl;
	struct buf	 b;
	time_t		 now = time(NULL);
	int		 rc, devbuild;

	buf_init(&b);
	buf_printf(&b, "%s/keys/dev-license.key", top ? top : ".");
	devkey = buf_detach(&b);
	buf_printf(&b, "%s/keys/dev-license.pub.hex", top ? top : ".");
	ok(util_read_file(b.p, 4096, &devpub, NULL) == 0,
	    "read keys/dev-license.pub.hex");
	buf_release(&b);
	if (devpub == NULL) {
		free(devkey);
		return;
	}
	while ((nl = strrchr(devpub, '\n')) != NULL && nl[1] == '\0')
		*nl = '\0';
	last = (nl = strrchr(devpub, '\n')) != NULL ? nl + 1 : devpub;
	devbuild = strcmp(last, CTXD_LICENSE_PUBKEY) == 0;
	printf("# built with the %s license verification key\n",
	    devbuild ? "development" : "release");

	key = mint(devkey, "", now - 86400, now + 30 * 86400);
	ok(key != NULL, "mint with keys/dev-license.key");
	setenv("LICENSE_KEY", key ? key : "", 1);
	msg = check_env(&rc);
	if (devbuild) {
		is_int(rc, 0, "check_env: valid key accepted");
		is_str(msg, "", "check_env: prints nothing for a valid key");
	} else {
		is_int(rc, -1, "check_env: dev key refused by a release build");
		is_str(msg, badsig, "check_env: bad signature message");
	}
	free(msg);
	free(key);

	key = mint(devkey, "", utc(2020, 2, 15, 0, 0, 0), utc(2020, 3, 15, 0, 0, 0));
	setenv("LICENSE_KEY", key ? key : "", 1);
	msg = check_env(&rc);
	is_int(rc, -1, "check_env: expired key refused");
	is_str(msg, devbuild ?
	    "test-license: LICENSE_KEY expired on 2020-03-15 (plan trial): install "
	    "a new key with ctxd-admin license install FILE\n" : badsig,
	    "check_env: expired message");
	free(msg);
	free(key);

	key = mint(path_a, "", now - 86400, now + 30 * 86400);
	setenv("LICENSE_KEY", key ? key : "", 1);
	msg = check_env(&rc);
	is_int(rc, -1, "check_env: key from another signer refused");
	is_str(msg, badsig, "check_env: bad signature message");
	free(msg);
	free(key);

	setenv("LICENSE_KEY", "not-a-license", 1);
	msg = check_env(&rc);
	is_int(rc, -1, "check_env: garbage refused");
	is_str(msg, "test-license: LICENSE_KEY is malformed: not a ctxd license key\n",
	    "check_env: malformed message");
	free(msg);

	setenv("DATA_DIR", "/nonexistent-ctxd-test", 1);
	setenv("LICENSE_KEY", "", 1);
	msg = check_env(&rc);
	is_int(rc, -1, "check_env: empty refused");
	is_str(msg, "test-license: LICENSE_KEY is missing: set it to your ctxd "
	    "license key, or run ctxd-admin license trial (a 30-day evaluation) or "
	    "ctxd-admin license install FILE\n", "check_env: missing message (empty)");
	free(msg);

	unsetenv("LICENSE_KEY");
	msg = check_env(&rc);
	is_int(rc, -1, "check_env: unset refused");
	is_str(msg, "test-license: LICENSE_KEY is missing: set it to your ctxd "
	    "license key, or run ctxd-admin license trial (a 30-day evaluation) or "
	    "ctxd-admin license install FILE\n", "check_env: missing message (unset)");
	free(msg);

	free(devpub);
	free(devkey);
}

int
main(void)
{
	EVP_PKEY	*b, *ec;
	unsigned char	 unused[32];

	log_init("test-license");
	if (mkdtemp(tmpdir) == NULL) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	path_a = util_path_join(tmpdir, "a.pem");
	path_ec = util_path_join(tmpdir, "ec.pem");
	key_a = genkey(EVP_PKEY_ED25519, path_a, pub_a);
	b = genkey(EVP_PKEY_ED25519, NULL, pub_b);
	ec = genkey(EVP_PKEY_EC, path_ec, unused);
	ok(key_a != NULL && b != NULL && ec != NULL, "generate test keys");
	if (key_a == NULL || b == NULL || ec == NULL)
		return tap_done();

	test_valid();
	test_expired();
	test_bad_signature();
	test_malformed();
	test_missing();
	test_mint_errors();
	test_print();
	test_check_env();

	unlink(path_a);
	unlink(path_ec);
	rmdir(tmpdir);
	free(path_a);
	free(path_ec);
	EVP_PKEY_free(key_a);
	EVP_PKEY_free(b);
	EVP_PKEY_free(ec);
	return tap_done();
}
