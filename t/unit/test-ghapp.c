/*
 * test-ghapp.c: the GitHub-type App's helpers: the RS256 JWT (verified with the public
 * key, its claims decoded), the webhook signature check (GitHub's documented example),
 * the push-event decision.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "base/util.h"
#include "sources/ghapp.h"
#include "tap.h"

/* A new RSA key as PEM (malloc'd) and its EVP_PKEY in *key. */
static char *
new_key(EVP_PKEY **key)
{
	BIO	*bio = BIO_new(BIO_s_mem());
	char	*p, *pem = NULL;
	long	 n;

	*key = EVP_RSA_gen(2048);
	if (*key == NULL || bio == NULL ||
	    !PEM_write_bio_PrivateKey(bio, *key, NULL, NULL, 0, NULL, NULL))
		goto out;
	n = BIO_get_mem_data(bio, &p);
	if ((pem = malloc((size_t)n + 1)) != NULL) {
		memcpy(pem, p, (size_t)n);
		pem[n] = '\0';
	}
out:
	BIO_free(bio);
	return pem;
}

/* 1 when jwt's signature verifies with key; the claims JSON in *claims. */
static int
verify_jwt(const char *jwt, EVP_PKEY *key, json_object **claims, json_object **head)
{
	const char	*d1 = strchr(jwt, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	unsigned char	*sig = NULL, *pl = NULL, *hd = NULL;
	size_t		 siglen, pllen, hdlen;
	EVP_MD_CTX	*md = EVP_MD_CTX_new();
	char		*s;
	int		 ok = 0;

	*claims = *head = NULL;
	if (d2 == NULL || strchr(d2 + 1, '.') != NULL ||
	    util_b64url_decode(d2 + 1, strlen(d2 + 1), &sig, &siglen) == -1 ||
	    util_b64url_decode(d1 + 1, (size_t)(d2 - d1 - 1), &pl, &pllen) == -1 ||
	    util_b64url_decode(jwt, (size_t)(d1 - jwt), &hd, &hdlen) == -1)
		goto out;
	if ((s = strndup((char *)pl, pllen)) != NULL)
		*claims = json_tokener_parse(s);
	free(s);
	if ((s = strndup((char *)hd, hdlen)) != NULL)
		*head = json_tokener_parse(s);
	free(s);
	ok = EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, key) == 1 &&
	    EVP_DigestVerify(md, sig, siglen, (const unsigned char *)jwt,
	    (size_t)(d2 - jwt)) == 1;
out:
	EVP_MD_CTX_free(md);
	free(sig);
	free(pl);
	free(hd);
	return ok;
}

static long long
member(json_object *o, const char *k)
{
	json_object	*v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : -1;
}

static void
test_jwt(void)
{
	EVP_PKEY	*key = NULL, *other = NULL;
	json_object	*claims, *head, *v;
	char		*pem = new_key(&key), *pem2 = new_key(&other), *jwt, err[256];
	time_t		 now = 1700000000;

	ok(pem != NULL && pem2 != NULL, "RSA keys generated");
	jwt = ghapp_jwt("31337", pem, now, err, sizeof(err));
	ok(jwt != NULL, "a JWT is made (%s)", jwt ? "" : err);
	ok(verify_jwt(jwt, key, &claims, &head), "its RS256 signature verifies");
	is_str(json_object_get_string(json_object_object_get_ex(head, "alg", &v) ? v : NULL),
	    "RS256", "header alg RS256");
	is_int(member(claims, "iat"), now - 60, "iat 60 s in the past");
	is_int(member(claims, "exp"), now + 540, "exp 9 minutes ahead (GitHub: at most 10)");
	ok(member(claims, "exp") - now <= 600, "exp within 10 minutes");
	is_str(json_object_get_string(json_object_object_get_ex(claims, "iss", &v) ? v : NULL),
	    "31337", "iss is the App id");
	json_object_put(claims);
	json_object_put(head);
	ok(!verify_jwt(jwt, other, &claims, &head), "another key does not verify it");
	json_object_put(claims);
	json_object_put(head);
	free(jwt);

	ok(ghapp_jwt("31337", "not a key", now, err, sizeof(err)) == NULL &&
	    strstr(err, "not a PEM private key") != NULL, "a bad PEM is refused: %s", err);
	ok(ghapp_jwt("31x", pem, now, err, sizeof(err)) == NULL &&
	    strstr(err, "git.github.app_id") != NULL, "a bad App id is refused");
	ok(ghapp_jwt("1", "", now, err, sizeof(err)) == NULL, "no key is refused");
	EVP_PKEY_free(key);
	EVP_PKEY_free(other);
	free(pem);
	free(pem2);
}

static void
test_signature(void)
{
	/* GitHub's documented example ("Validating webhook deliveries"). */
	const char	*secret = "It's a Secret to Everybody", *body = "Hello, World!";
	const char	*good = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
	char		 bad[80];

	ok(ghapp_signature_ok(secret, body, strlen(body), good), "GitHub's example verifies");
	ok(!ghapp_signature_ok(secret, body, strlen(body) - 1, good), "another body does not");
	ok(!ghapp_signature_ok("It's a secret to everybody", body, strlen(body), good),
	    "another secret does not");
	snprintf(bad, sizeof(bad), "%s", good);
	bad[strlen(bad) - 1] = '6';
	ok(!ghapp_signature_ok(secret, body, strlen(body), bad), "one digit off does not");
	ok(!ghapp_signature_ok(secret, body, strlen(body), good + 7), "no sha256= prefix");
	ok(!ghapp_signature_ok(secret, body, strlen(body), "sha256="), "an empty digest");
	snprintf(bad, sizeof(bad), "%s0", good);
	ok(!ghapp_signature_ok(secret, body, strlen(body), bad), "a digit too many");
	snprintf(bad, sizeof(bad), "%s", good);
	bad[10] = 'g';
	ok(!ghapp_signature_ok(secret, body, strlen(body), bad), "a non-hex digit");
	ok(!ghapp_signature_ok(secret, body, strlen(body), NULL), "no header");
	ok(!ghapp_signature_ok("", body, strlen(body), good), "no secret");
}

static enum ghapp_push
push(const char *json, const char *url, const char *branch, char *why, size_t sz)
{
	return ghapp_push_match(json, strlen(json), url, branch, why, sz);
}

/* Adversarial payloads: deep nesting is refused, a huge ref is compared once. */
static void
test_push_bounds(const char *repo)
{
	size_t		 n = 4 * 1024 * 1024, i;
	char		*big = malloc(n + 200), why[128];
	long long	 t0;

	if (big == NULL)
		return;
	for (i = 0; i < n; i++)
		big[i] = '[';
	t0 = util_now_ms();
	is_int(ghapp_push_match(big, n, repo, "main", why, sizeof(why)), GHAPP_PUSH_BAD,
	    "4 MB of '[': refused (json-c's depth limit)");
	memcpy(big, "{\"ref\":\"refs/heads/", 19);
	for (i = 19; i < n; i++)
		big[i] = 'a';
	snprintf(big + n - 100, 200, "\",\"repository\":{\"clone_url\":"
	    "\"https://github.com/acme/manifest\"}}");
	is_int(ghapp_push_match(big, strlen(big), repo, "main", why, sizeof(why)),
	    GHAPP_PUSH_IGNORE, "a 4 MB ref: another branch");
	ok(util_now_ms() - t0 < 5000, "both in linear time (%lld ms)", util_now_ms() - t0);
	free(big);
}

static void
test_push(void)
{
	const char	*repo = "https://github.com/acme/manifest";
	const char	*p = "{\"ref\":\"refs/heads/main\",\"repository\":{\"full_name\":"
	    "\"acme/manifest\",\"clone_url\":\"https://github.com/acme/manifest.git\","
	    "\"html_url\":\"https://github.com/acme/manifest\",\"default_branch\":\"main\"}}";
	char		 why[128];

	is_int(push(p, repo, "main", why, sizeof(why)), GHAPP_PUSH_SYNC, "the branch: sync");
	is_int(push(p, repo, "", why, sizeof(why)), GHAPP_PUSH_SYNC,
	    "branch blank, the default branch: sync");
	is_int(push(p, "https://GitHub.com/ACME/manifest.git/", "main", why, sizeof(why)),
	    GHAPP_PUSH_SYNC, "case, .git and a slash aside: sync");
	is_int(push(p, repo, "dev", why, sizeof(why)), GHAPP_PUSH_IGNORE, "another branch");
	ok(strstr(why, "another branch") != NULL, "why: %s", why);
	is_int(push(p, "https://github.com/acme/other", "main", why, sizeof(why)),
	    GHAPP_PUSH_IGNORE, "another repository");
	ok(strstr(why, "another repository") != NULL, "why: %s", why);
	is_int(push(p, "https://gitlab.com/acme/manifest", "main", why, sizeof(why)),
	    GHAPP_PUSH_IGNORE, "the same path on another host");
	is_int(push(p, "", "main", why, sizeof(why)), GHAPP_PUSH_IGNORE, "no manifest repo");
	is_int(push("{\"ref\":\"refs/tags/main\",\"repository\":{\"clone_url\":"
	    "\"https://github.com/acme/manifest.git\"}}", repo, "main", why, sizeof(why)),
	    GHAPP_PUSH_IGNORE, "a tag of the branch's name");
	is_int(push("{\"ref\":\"refs/heads/main\",\"deleted\":true,\"repository\":"
	    "{\"clone_url\":\"https://github.com/acme/manifest.git\"}}", repo, "main", why,
	    sizeof(why)), GHAPP_PUSH_IGNORE, "the branch deleted");
	is_int(push("{\"ref\":\"refs/heads/main\",\"repository\":{\"clone_url\":"
	    "\"https://github.com/acme/manifest.git\"}}", repo, "", why, sizeof(why)),
	    GHAPP_PUSH_IGNORE, "branch blank and no default_branch");
	is_int(push("[1,2]", repo, "main", why, sizeof(why)), GHAPP_PUSH_BAD, "an array");
	is_int(push("{\"ref\":1}", repo, "main", why, sizeof(why)), GHAPP_PUSH_BAD,
	    "no repository");
	is_int(push("{} {}", repo, "main", why, sizeof(why)), GHAPP_PUSH_BAD, "trailing data");
	is_int(push("{\"ref\":", repo, "main", why, sizeof(why)), GHAPP_PUSH_BAD, "cut short");
	is_int(ghapp_push_match(p, strlen(p) - 1, repo, "main", why, sizeof(why)),
	    GHAPP_PUSH_BAD, "the length is respected");
	test_push_bounds(repo);
}

int
main(void)
{
	test_jwt();
	test_signature();
	test_push();
	return tap_done();
}
