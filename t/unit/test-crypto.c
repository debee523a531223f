/* test-crypto.c: SHA-256, secret key file, AES-256-GCM sealing, constant-time compare. */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "tap.h"

/*
 * Decodes the base64url part of a sealed value, flips a bit of byte flip_at (the last byte
 * when flip_at is past the end) or drops the last byte (truncate), and re-encodes it.
 */
static char *
tamper(const char *sealed, size_t flip_at, int truncate)
{
	unsigned char	*raw = NULL;
	size_t		 len = 0;
	char		*enc, *res = NULL;
	struct buf	 b;

	buf_init(&b);
	if (strncmp(sealed, "v1:", 3) != 0 ||
	    util_b64url_decode(sealed + 3, strlen(sealed + 3), &raw, &len) == -1)
		return NULL;
	if (truncate)
		len--;
	else if (flip_at < len)
		raw[flip_at] ^= 0x01;
	else
		raw[len - 1] ^= 0x80;
	if ((enc = util_b64url_encode(raw, len)) != NULL &&
	    buf_printf(&b, "v1:%s", enc) == 0)
		res = buf_detach(&b);
	buf_release(&b);
	free(enc);
	free(raw);
	return res;
}

static void
test_sha256(void)
{
	char	 hex[65];

	crypto_sha256_hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "sha256(abc) known vector");
	crypto_sha256_hex("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	    "sha256(empty) known vector");
}

static void
test_random_equal(void)
{
	unsigned char	 a[32], b[32];

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	is_int(crypto_random(a, sizeof(a)), 0, "crypto_random succeeds");
	is_int(crypto_random(b, sizeof(b)), 0, "crypto_random succeeds again");
	ok(memcmp(a, b, sizeof(a)) != 0, "two random draws differ");

	memcpy(b, a, sizeof(a));
	is_int(crypto_equal(a, b, sizeof(a)), 1, "crypto_equal: equal buffers");
	b[31] ^= 1;
	is_int(crypto_equal(a, b, sizeof(a)), 0, "crypto_equal: last byte differs");
	b[31] ^= 1;
	b[0] ^= 0x80;
	is_int(crypto_equal(a, b, sizeof(a)), 0, "crypto_equal: first byte differs");
	is_int(crypto_equal("abc", "abd", 2), 1, "crypto_equal compares only n bytes");
	is_int(crypto_equal("x", "y", 0), 1, "crypto_equal: zero length is equal");
}

static void
test_seal(void)
{
	unsigned char	 key[CRYPTO_KEYLEN], key2[CRYPTO_KEYLEN];
	const char	*plain = "ghp_secret token/with+odd=chars";
	char		*s1, *s2, *o, *t;
	char		 big[5000];
	size_t		 i, rawlen;
	const size_t	 plen = strlen(plain);

	for (i = 0; i < sizeof(key); i++) {
		key[i] = (unsigned char)i;
		key2[i] = (unsigned char)(i + 1);
	}
	s1 = crypto_seal(key, plain);
	s2 = crypto_seal(key, plain);
	ok(s1 != NULL && s2 != NULL, "crypto_seal succeeds");
	if (s1 == NULL || s2 == NULL)
		exit(tap_done());
	ok(strncmp(s1, "v1:", 3) == 0, "sealed value starts with v1:");
	rawlen = 12 + plen + 16;
	is_int(strlen(s1), 3 + rawlen / 3 * 4 + (rawlen % 3 ? rawlen % 3 + 1 : 0),
	    "sealed length is v1: + base64url(nonce|ciphertext|tag)");
	ok(strspn(s1 + 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-_") == strlen(s1 + 3), "sealed value is base64url");
	ok(strcmp(s1, s2) != 0, "two seals of the same text differ (random nonce)");
	ok(strstr(s1, "secret") == NULL, "plaintext does not show");

	o = crypto_open(key, s1);
	is_str(o, plain, "open(seal(x)) == x");
	free(o);
	o = crypto_open(key, s2);
	is_str(o, plain, "open of the second seal == x");
	free(o);

	o = crypto_open(key2, s1);
	ok(o == NULL, "open with the wrong key fails");
	free(o);

	t = tamper(s1, 0, 0);
	o = t ? crypto_open(key, t) : NULL;
	ok(t != NULL && o == NULL, "flipped nonce byte fails");
	free(o);
	free(t);
	t = tamper(s1, 12 + 3, 0);
	o = t ? crypto_open(key, t) : NULL;
	ok(t != NULL && o == NULL, "flipped ciphertext byte fails");
	free(o);
	free(t);
	t = tamper(s1, (size_t)-1, 0);
	o = t ? crypto_open(key, t) : NULL;
	ok(t != NULL && o == NULL, "flipped tag byte fails");
	free(o);
	free(t);
	t = tamper(s1, 0, 1);
	o = t ? crypto_open(key, t) : NULL;
	ok(t != NULL && o == NULL, "value missing its last byte fails");
	free(o);
	free(t);

	t = strdup(s1);
	t[strlen(t) - 5] = '\0';
	o = crypto_open(key, t);
	ok(o == NULL, "truncated text fails");
	free(o);
	t[3 + 20] = '\0';
	o = crypto_open(key, t);
	ok(o == NULL, "value shorter than nonce + tag fails");
	free(o);
	free(t);

	t = strdup(s1);
	t[1] = '2';
	o = crypto_open(key, t);
	ok(o == NULL, "wrong version prefix fails");
	free(o);
	t[1] = '1';
	t[10] = '!';
	o = crypto_open(key, t);
	ok(o == NULL, "invalid base64url fails");
	free(o);
	free(t);
	ok(crypto_open(key, "v1:") == NULL, "empty body fails");
	ok(crypto_open(key, "") == NULL, "empty string fails");
	ok(crypto_open(key, NULL) == NULL, "NULL fails");
	free(s1);
	free(s2);

	s1 = crypto_seal(key, "");
	o = s1 ? crypto_open(key, s1) : NULL;
	is_str(o, "", "empty plaintext round trip");
	free(o);
	free(s1);

	for (i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)('a' + i % 26);
	big[sizeof(big) - 1] = '\0';
	s1 = crypto_seal(key, big);
	o = s1 ? crypto_open(key, s1) : NULL;
	is_str(o, big, "5000-byte plaintext round trip");
	free(o);
	free(s1);
}

static void
test_secret(void)
{
	char		 tmpl[] = "/tmp/test-crypto.XXXXXX";
	unsigned char	 key[CRYPTO_KEYLEN], again[CRYPTO_KEYLEN];
	struct stat	 st;
	char		*dir, *path = NULL, *data = NULL, *s, *o;
	size_t		 len = 0;
	int		 fd;

	if ((dir = mkdtemp(tmpl)) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	path = util_path_join(dir, "secret.key");
	is_int(crypto_secret_load(dir, key), -1, "load fails without a key file");
	is_int(crypto_secret_create(dir), 0, "secret created");
	ok(stat(path, &st) == 0, "secret.key exists");
	is_int(st.st_mode & 07777, 0600, "secret.key has mode 0600");
	is_int(st.st_size, CRYPTO_KEYLEN, "secret.key holds 32 bytes");
	ok(util_read_file(path, 1024, &data, &len) == 0 && len == CRYPTO_KEYLEN,
	    "secret.key readable");

	is_int(crypto_secret_load(dir, key), 0, "secret loads");
	ok(data != NULL && memcmp(key, data, CRYPTO_KEYLEN) == 0,
	    "loaded key equals the file contents");

	is_int(crypto_secret_create(dir), 0, "create again with the file present is ok");
	is_int(crypto_secret_load(dir, again), 0, "secret loads again");
	ok(memcmp(key, again, CRYPTO_KEYLEN) == 0, "existing secret was not replaced");

	s = crypto_seal(key, "token");
	o = s ? crypto_open(again, s) : NULL;
	is_str(o, "token", "seal/open with the stored key");
	free(o);
	free(s);

	chmod(path, 0644);
	is_int(crypto_secret_load(dir, key), -1, "load refuses mode 0644");
	chmod(path, 0640);
	is_int(crypto_secret_load(dir, key), -1, "load refuses mode 0640");
	chmod(path, 0600);
	is_int(crypto_secret_load(dir, key), 0, "load accepts mode 0600 again");

	fd = open(path, O_WRONLY | O_APPEND);
	ok(fd != -1 && write(fd, "x", 1) == 1, "append a byte");
	if (fd != -1)
		close(fd);
	is_int(crypto_secret_load(dir, key), -1, "load refuses 33 bytes");
	ok(truncate(path, 31) == 0, "truncate to 31 bytes");
	is_int(crypto_secret_load(dir, key), -1, "load refuses 31 bytes");

	unlink(path);
	rmdir(dir);
	free(path);
	free(data);
}

int
main(void)
{
	log_init("test-crypto");
	test_sha256();
	test_random_equal();
	test_seal();
	test_secret();
	return tap_done();
}
