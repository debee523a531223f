/* crypto.h: random bytes, hashes, constant-time comparison and the sealing of stored secrets (OpenSSL). */
#ifndef CRYPTO_H
#define CRYPTO_H

#include <stddef.h>

#define CRYPTO_KEYLEN	32

int	 crypto_random(void *, size_t);
/* SHA-256 of data as 64 lowercase hex digits + NUL. */
void	 crypto_sha256_hex(const void *, size_t, char out[65]);
/* Loads DATA_DIR/secret.key (32 bytes, refuses if group/other can read it). */
int	 crypto_secret_load(const char *datadir, unsigned char key[CRYPTO_KEYLEN]);
/* Creates DATA_DIR/secret.key (0600) if missing; 0 if created or present. */
int	 crypto_secret_create(const char *datadir);
/* AES-256-GCM: returns "v1:" + base64url(nonce|ciphertext|tag), malloc'd. */
char	*crypto_seal(const unsigned char key[CRYPTO_KEYLEN], const char *plain);
/* Inverse of crypto_seal; NULL on tampering or wrong key. Caller frees. */
char	*crypto_open(const unsigned char key[CRYPTO_KEYLEN], const char *sealed);
/* Constant-time equality of two equal-length buffers. */
int	 crypto_equal(const void *, const void *, size_t);

#endif /* CRYPTO_H */
