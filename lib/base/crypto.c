/* crypto.c: random bytes, SHA-256, the data folder's secret key and AES-256-GCM sealing. */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"

#define SECRET_FILE	"secret.key"
#define SEAL_PREFIX	"v1:"
#define SEAL_NONCELEN	12
#define SEAL_TAGLEN	16

/* Fills p with n bytes from the OpenSSL CSPRNG. */
int
crypto_random(void *p, size_t n)
{
	unsigned char	*c = p;
	int		 chunk;

	while (n > 0) {
		chunk = n > INT_MAX ? INT_MAX : (int)n;
		if (RAND_bytes(c, chunk) != 1) {
			log_err("%s: RAND_bytes failed", __func__);
			return -1;
		}
		c += chunk;
		n -= (size_t)chunk;
	}
	return 0;
}

/* On the (practically impossible) failure of the digest, out is the empty string. */
void
crypto_sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char	 md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;

	if (EVP_Digest(p, n, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32) {
		log_err("%s: EVP_Digest failed", __func__);
		out[0] = '\0';
		return;
	}
	util_hex(md, mdlen, out);
}

/*
 * Creates datadir/secret.key with 32 random bytes, mode 0600, never replacing an existing
 * file (O_EXCL): 0 when the file was created or already exists.
 */
int
crypto_secret_create(const char *datadir)
{
	unsigned char	 key[CRYPTO_KEYLEN];
	char		*path;
	size_t		 off = 0;
	ssize_t		 w;
	int		 fd = -1, rc = -1, created = 0;

	if ((path = util_path_join(datadir, SECRET_FILE)) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1) {
		if (errno == EEXIST) {
			rc = 0;
			goto out;
		}
		log_err("%s: %s: %s", __func__, path, strerror(errno));
		goto out;
	}
	created = 1;
	if (fchmod(fd, 0600) == -1) {
		log_err("%s: %s: chmod: %s", __func__, path, strerror(errno));
		goto out;
	}
	if (crypto_random(key, sizeof(key)) == -1)
		goto out;
	while (off < sizeof(key)) {
		w = write(fd, key + off, sizeof(key) - off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			log_err("%s: %s: write: %s", __func__, path,
			    w == -1 ? strerror(errno) : "short write");
			goto out;
		}
		off += (size_t)w;
	}
	if (fsync(fd) == -1) {
		log_err("%s: %s: fsync: %s", __func__, path, strerror(errno));
		goto out;
	}
	rc = close(fd);
	fd = -1;
	if (rc == -1)
		log_err("%s: %s: close: %s", __func__, path, strerror(errno));
out:
	if (fd != -1)
		close(fd);
	if (rc == -1 && created)
		unlink(path);
	OPENSSL_cleanse(key, sizeof(key));
	free(path);
	return rc;
}

/*
 * Loads datadir/secret.key into key. Refuses a file that is not a regular file, that group
 * or other may access, or whose size is not exactly CRYPTO_KEYLEN bytes.
 */
int
crypto_secret_load(const char *datadir, unsigned char key[CRYPTO_KEYLEN])
{
	struct stat	 st;
	char		*path;
	size_t		 off = 0;
	ssize_t		 r;
	int		 fd = -1, rc = -1;

	if ((path = util_path_join(datadir, SECRET_FILE)) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		log_err("%s: %s: %s", __func__, path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) == -1) {
		log_err("%s: %s: stat: %s", __func__, path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		log_err("%s: %s: not a regular file", __func__, path);
		goto out;
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		log_err("%s: %s: refusing a secret key that group or other may access "
		    "(mode %04o); run chmod 600 on it", __func__, path,
		    (unsigned int)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_size != CRYPTO_KEYLEN) {
		log_err("%s: %s: refusing a secret key of %lld bytes (want %d)",
		    __func__, path, (long long)st.st_size, CRYPTO_KEYLEN);
		goto out;
	}
	while (off < CRYPTO_KEYLEN) {
		r = read(fd, key + off, CRYPTO_KEYLEN - off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			log_err("%s: %s: read: %s", __func__, path,
			    r == -1 ? strerror(errno) : "short file");
			goto out;
		}
		off += (size_t)r;
	}
	rc = 0;
out:
	if (rc == -1)
		OPENSSL_cleanse(key, CRYPTO_KEYLEN);
	if (fd != -1)
		close(fd);
	free(path);
	return rc;
}

/*
 * Encrypts the string plain with AES-256-GCM under a fresh random 12-byte nonce. Returns
 * "v1:" + base64url(nonce | ciphertext | 16-byte tag), malloc'd, or NULL.
 */
char *
crypto_seal(const unsigned char key[CRYPTO_KEYLEN], const char *plain)
{
	EVP_CIPHER_CTX	*ctx = NULL;
	unsigned char	*raw = NULL;
	struct buf	 b;
	char		*enc = NULL, *res = NULL;
	size_t		 plen, rawlen;
	int		 n, ctlen;

	buf_init(&b);
	plen = strlen(plain);
	if (plen > (size_t)INT_MAX - SEAL_NONCELEN - SEAL_TAGLEN - 16) {
		log_err("%s: plaintext too long", __func__);
		return NULL;
	}
	rawlen = SEAL_NONCELEN + plen + SEAL_TAGLEN;
	if ((raw = malloc(rawlen)) == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	if (crypto_random(raw, SEAL_NONCELEN) == -1)
		goto out;
	if ((ctx = EVP_CIPHER_CTX_new()) == NULL ||
	    EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, SEAL_NONCELEN,
	    NULL) != 1 ||
	    EVP_EncryptInit_ex(ctx, NULL, NULL, key, raw) != 1) {
		log_err("%s: cipher setup failed", __func__);
		goto out;
	}
	ctlen = 0;
	if (plen > 0) {
		if (EVP_EncryptUpdate(ctx, raw + SEAL_NONCELEN, &n,
		    (const unsigned char *)plain, (int)plen) != 1) {
			log_err("%s: encryption failed", __func__);
			goto out;
		}
		ctlen = n;
	}
	if (EVP_EncryptFinal_ex(ctx, raw + SEAL_NONCELEN + ctlen, &n) != 1 ||
	    (size_t)(ctlen + n) != plen ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, SEAL_TAGLEN,
	    raw + SEAL_NONCELEN + plen) != 1) {
		log_err("%s: encryption failed", __func__);
		goto out;
	}
	if ((enc = util_b64url_encode(raw, rawlen)) == NULL ||
	    buf_adds(&b, SEAL_PREFIX) == -1 || buf_adds(&b, enc) == -1) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	res = buf_detach(&b);
out:
	EVP_CIPHER_CTX_free(ctx);
	free(raw);
	free(enc);
	buf_release(&b);
	return res;
}

/*
 * Decrypts a crypto_seal string. NULL (with a warning) on a bad format, a wrong key or any
 * change to the sealed text; otherwise the NUL-terminated plaintext, malloc'd.
 */
char *
crypto_open(const unsigned char key[CRYPTO_KEYLEN], const char *sealed)
{
	EVP_CIPHER_CTX	*ctx = NULL;
	unsigned char	*raw = NULL, *plain = NULL, *tag;
	size_t		 rawlen = 0, ctlen = 0, plen = 0;
	char		*res = NULL;
	int		 n;

	if (sealed == NULL ||
	    strncmp(sealed, SEAL_PREFIX, strlen(SEAL_PREFIX)) != 0) {
		log_warn("%s: not a sealed value", __func__);
		return NULL;
	}
	sealed += strlen(SEAL_PREFIX);
	if (util_b64url_decode(sealed, strlen(sealed), &raw, &rawlen) == -1 ||
	    rawlen < SEAL_NONCELEN + SEAL_TAGLEN ||
	    rawlen - SEAL_NONCELEN - SEAL_TAGLEN > (size_t)INT_MAX - 16) {
		log_warn("%s: malformed sealed value", __func__);
		goto out;
	}
	ctlen = rawlen - SEAL_NONCELEN - SEAL_TAGLEN;
	tag = raw + SEAL_NONCELEN + ctlen;
	if ((plain = malloc(ctlen + 1)) == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	if ((ctx = EVP_CIPHER_CTX_new()) == NULL ||
	    EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, SEAL_NONCELEN,
	    NULL) != 1 ||
	    EVP_DecryptInit_ex(ctx, NULL, NULL, key, raw) != 1) {
		log_err("%s: cipher setup failed", __func__);
		goto out;
	}
	if (ctlen > 0) {
		if (EVP_DecryptUpdate(ctx, plain, &n, raw + SEAL_NONCELEN,
		    (int)ctlen) != 1) {
			log_warn("%s: decryption failed", __func__);
			goto out;
		}
		plen = (size_t)n;
	}
	if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, SEAL_TAGLEN,
	    tag) != 1 ||
	    EVP_DecryptFinal_ex(ctx, plain + plen, &n) <= 0) {
		log_warn("%s: authentication failed (wrong key or altered value)",
		    __func__);
		goto out;
	}
	plen += (size_t)n;
	plain[plen] = '\0';
	res = (char *)plain;
	plain = NULL;
out:
	EVP_CIPHER_CTX_free(ctx);
	if (plain != NULL) {
		OPENSSL_cleanse(plain, ctlen + 1);
		free(plain);
	}
	free(raw);
	return res;
}

/* 1 when the n bytes at a and b are equal, else 0, in time independent of the contents. */
int
crypto_equal(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}
