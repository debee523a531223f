/*
 * ghapp.c: the GitHub-type App connection: its JWT, installation tokens (cached sealed in
 * table ghapp_tokens), the git credentials of a repository, the webhook signature. See
 * ghapp.h. The documented shapes: POST /app/installations/{id}/access_tokens answers 201
 * {"token": "...", "expires_at": "YYYY-MM-DDTHH:MM:SSZ", ...};
 * GET /repos/{owner}/{repo}/installation answers {"id": N, ...}; both take
 * "Authorization: Bearer JWT".
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "net/fetch.h"
#include "sources/backend.h"
#include "sources/ghapp.h"
#include "sources/libid.h"
#include "store/db.h"
#include "store/ghapp.h"
#include "store/netpolicy.h"
#include "store/settings.h"

/* "base64url(a).base64url(b)" (malloc'd) or NULL. */
static char *
ghapp_b64_pair(const char *a, const char *b)
{
	char	*ea = util_b64url_encode((const unsigned char *)a, strlen(a));
	char	*eb = util_b64url_encode((const unsigned char *)b, strlen(b));
	struct buf out;

	char	*res = NULL;

	buf_init(&out);
	if (ea != NULL && eb != NULL && buf_printf(&out, "%s.%s", ea, eb) == 0)
		res = buf_detach(&out);
	buf_release(&out);
	free(ea);
	free(eb);
	return res;
}

/* RS256 signature of msg with the RSA key of pem, base64url (malloc'd), or NULL + err. */
static char *
ghapp_rs256(const char *pem, const char *msg, char *err, size_t errsz)
{
	BIO		*bio = NULL;
	EVP_PKEY	*key = NULL;
	EVP_MD_CTX	*md = NULL;
	unsigned char	*sig = NULL;
	size_t		 siglen = 0;
	char		*out = NULL;

	if ((bio = BIO_new_mem_buf(pem, -1)) == NULL ||
	    (key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)) == NULL) {
		snprintf(err, errsz, "the App's private key (setting "
		    "git.github.app_private_key) is not a PEM private key");
		goto out;
	}
	if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) {
		snprintf(err, errsz, "the App's private key (setting "
		    "git.github.app_private_key) is not an RSA key");
		goto out;
	}
	if ((md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(md, NULL, &siglen, (const unsigned char *)msg,
	    strlen(msg)) != 1 || (sig = malloc(siglen)) == NULL ||
	    EVP_DigestSign(md, sig, &siglen, (const unsigned char *)msg,
	    strlen(msg)) != 1 || (out = util_b64url_encode(sig, siglen)) == NULL)
		snprintf(err, errsz, "signing the App's JWT failed");
out:
	free(sig);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(key);
	BIO_free(bio);
	return out;
}

char *
ghapp_jwt(const char *app_id, const char *pem, time_t now, char *err, size_t errsz)
{
	char		 payload[128], *head = NULL, *sig = NULL, *jwt = NULL;
	long		 id;
	struct buf	 b;

	buf_init(&b);
	if (app_id == NULL || util_parse_long(app_id, 1, 1000000000000000L, &id) == -1) {
		snprintf(err, errsz, "the App id (setting git.github.app_id) is not a number");
		return NULL;
	}
	if (pem == NULL || *pem == '\0') {
		snprintf(err, errsz, "the App's private key (setting "
		    "git.github.app_private_key) is not set");
		return NULL;
	}
	snprintf(payload, sizeof(payload), "{\"iat\":%lld,\"exp\":%lld,\"iss\":\"%ld\"}",
	    (long long)now - GHAPP_JWT_PAST, (long long)now + GHAPP_JWT_LIFE, id);
	if ((head = ghapp_b64_pair("{\"alg\":\"RS256\",\"typ\":\"JWT\"}", payload)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if ((sig = ghapp_rs256(pem, head, err, errsz)) == NULL)
		goto out;
	if (buf_printf(&b, "%s.%s", head, sig) == -1)
		snprintf(err, errsz, "out of memory");
	else
		jwt = buf_detach(&b);
out:
	buf_release(&b);
	free(head);
	free(sig);
	return jwt;
}

void
ghapp_hmac(const char *secret, const void *body, size_t len, unsigned char mac[32])
{
	unsigned int	 maclen = 32;

	if (HMAC(EVP_sha256(), secret, (int)strlen(secret), body, len, mac,
	    &maclen) == NULL || maclen != 32)
		memset(mac, 0, 32);
}

int
ghapp_signature_ok(const char *secret, const void *body, size_t len, const char *header)
{
	unsigned char	 want[32], got[32];
	int		 ok;

	if (secret == NULL || *secret == '\0' || header == NULL ||
	    strncmp(header, "sha256=", 7) != 0 || strlen(header + 7) != 64 ||
	    util_unhex(header + 7, got, sizeof(got)) == -1)
		return 0;
	ghapp_hmac(secret, body, len, want);
	ok = crypto_equal(want, got, sizeof(want));
	explicit_bzero(want, sizeof(want));
	return ok;
}

/*
 * The row of hook_deliveries that remembers a body: "sha256:" and its hex digest (a
 * delivery id never has a colon).
 */
static void
ghapp_delivery_body_key(const void *body, size_t len, char key[72])
{
	char	 hex[65];

	crypto_sha256_hex(body != NULL ? body : "", len, hex);
	snprintf(key, 72, "sha256:%s", hex);
}

enum ghapp_delivery
ghapp_delivery_new(struct db *db, const char *id, const void *body, size_t len)
{
	long long	 now = (long long)time(NULL);
	char		 key[72];
	int		 fresh;

	ghapp_delivery_body_key(body, len, key);
	if (db_begin(db) == -1)
		return GHAPP_DELIVERY_ERROR;
	if ((fresh = store_delivery_add(db, id, now)) == -1)
		goto fail;
	if (fresh == 0) {
		if (db_commit(db) == -1)
			goto fail;
		return GHAPP_DELIVERY_REPEATED;
	}
	/* The body: new, or seen longer ago than GHAPP_REPLAY_S (then it is new again). */
	if (store_delivery_expire(db, key, now - GHAPP_REPLAY_S) == -1 ||
	    (fresh = store_delivery_add(db, key, now)) == -1)
		goto fail;
	if (store_delivery_trim(db, GHAPP_DELIVERIES_KEPT) == -1 || db_commit(db) == -1)
		goto fail;
	return fresh ? GHAPP_DELIVERY_NEW : GHAPP_DELIVERY_REPLAYED;
fail:
	db_rollback(db);
	return GHAPP_DELIVERY_ERROR;
}

void
ghapp_delivery_forget(struct db *db, const char *id, const void *body, size_t len)
{
	char	 key[72];

	ghapp_delivery_body_key(body, len, key);
	store_delivery_forget(db, id, key);
}

int
ghapp_api_base(struct db *db, const char *datadir, char *out, size_t sz)
{
	char	*api = settings_get(db, datadir, "git.github.api_url");
	char	*host = NULL;
	size_t	 n;
	int	 rc = -1;

	if (api != NULL && *api != '\0') {
		n = strlen(api);
		while (n > 0 && api[n - 1] == '/')
			n--;
		if ((size_t)snprintf(out, sz, "%.*s", (int)n, api) < sz)
			rc = 0;
		goto out;
	}
	host = settings_get(db, datadir, "git.github.host");
	if (host == NULL || strcmp(host, "github.com") == 0)
		rc = (size_t)snprintf(out, sz, "https://api.github.com") < sz ? 0 : -1;
	else
		rc = (size_t)snprintf(out, sz, "https://%s/api/v3", host) < sz ? 0 : -1;
out:
	free(api);
	free(host);
	return rc;
}

int
ghapp_configured(struct db *db, const char *datadir)
{
	(void)datadir;
	return settings_is_set(db, "git.github.app_id") &&
	    settings_is_set(db, "git.github.app_private_key");
}

/* One API call of the App: the request, its client and what it needs. */
struct ghapp_call {
	struct fetch	 f;
	struct fetch_req q;
	char		 auth[2048];
	char		 url[1024];
};

/*
 * Runs method (GET or POST) on the API path with "Authorization: Bearer bearer" under the
 * address policy, and parses its 2xx answer as a JSON object into *out. -1 with err
 * naming the URL and status. The caller releases c->q.
 */
static int
ghapp_call(struct db *db, const char *datadir, struct ghapp_call *c, const char *method,
    const char *path, const char *bearer, json_object **out, char *err, size_t errsz)
{
	char	 base[512];

	*out = NULL;
	fetch_init(&c->f);
	fetch_req_init(&c->q);
	if (ghapp_api_base(db, datadir, base, sizeof(base)) == -1 ||
	    (size_t)snprintf(c->url, sizeof(c->url), "%s%s", base, path) >= sizeof(c->url) ||
	    (size_t)snprintf(c->auth, sizeof(c->auth), "Authorization: Bearer %s",
	    bearer) >= sizeof(c->auth)) {
		snprintf(err, errsz, "the GitHub App's API URL or JWT is too long");
		return -1;
	}
	fetch_secret(&c->f, bearer);
	netpolicy_load(db, datadir);
	c->q.method = method;
	c->q.url = c->url;
	c->q.headers[0] = c->auth;
	c->q.headers[1] = "Accept: application/vnd.github+json";
	c->q.headers[2] = "X-GitHub-Api-Version: 2022-11-28";
	c->q.secret_headers = 1;
	c->q.timeout_ms = GHAPP_TIMEOUT_MS;
	c->q.max_size = GHAPP_ANSWER_MAX;
	c->q.tries = 3;
	(void)fetch_run(&c->f, &c->q, 1);
	fetch_release(&c->f);
	if (c->q.result != FETCH_OK || c->q.status < 200 || c->q.status > 299) {
		backend_http_error(&c->q, err, errsz);
		return -1;
	}
	if (c->q.answer.p == NULL || (*out = json_tokener_parse(c->q.answer.p)) == NULL ||
	    !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		snprintf(err, errsz, "the GitHub API's answer to %s is not a JSON object",
		    c->url);
		return -1;
	}
	return 0;
}

/* The installation id: the setting, else looked up for the repository at url. */
static int
ghapp_installation(struct db *db, const char *datadir, const char *url, const char *jwt,
    long *id, char *err, size_t errsz)
{
	struct ghapp_call c;
	json_object	*o = NULL, *v;
	char		 repo[512], host[256], path[600];
	int		 rc = -1;

	if ((*id = settings_get_long(db, datadir, "git.github.app_installation_id", 0)) > 0)
		return 0;
	if (url == NULL || libid_from_url(url, repo, sizeof(repo), host, sizeof(host),
	    err, errsz) == -1) {
		snprintf(err, errsz, "no GitHub App installation: setting "
		    "git.github.app_installation_id is blank and no repository names one");
		return -1;
	}
	snprintf(path, sizeof(path), "/repos%s/installation", repo);
	if (ghapp_call(db, datadir, &c, "GET", path, jwt, &o, err, errsz) == -1)
		goto out;
	if (!json_object_object_get_ex(o, "id", &v) || !json_object_is_type(v, json_type_int) ||
	    (*id = (long)json_object_get_int64(v)) < 1) {
		snprintf(err, errsz, "the GitHub API's answer to %s has no installation id",
		    c.url);
		goto out;
	}
	rc = 0;
out:
	json_object_put(o);
	fetch_req_release(&c.q);
	return rc;
}

/* The cached token of installation id when it has more than the margin left, else NULL. */
static char *
ghapp_cache_get(struct db *db, const char *datadir, long id, time_t now)
{
	unsigned char	 key[CRYPTO_KEYLEN];
	char		*sealed, *token = NULL;

	sealed = store_ghapp_token_get(db, (long long)id, (long long)now + GHAPP_TOKEN_MARGIN);
	if (sealed != NULL && crypto_secret_load(datadir, key) == 0)
		token = crypto_open(key, sealed);
	explicit_bzero(key, sizeof(key));
	free(sealed);
	return token;
}

/* Caches token (sealed) for installation id until expires. Failure only logs. */
static void
ghapp_cache_put(struct db *db, const char *datadir, long id, const char *token,
    time_t expires)
{
	unsigned char	 key[CRYPTO_KEYLEN];
	char		*sealed = NULL;

	if (crypto_secret_load(datadir, key) == 0)
		sealed = crypto_seal(key, token);
	explicit_bzero(key, sizeof(key));
	if (sealed == NULL || store_ghapp_token_put(db, (long long)id, sealed,
	    (long long)expires) == -1)
		log_warn("%s: the installation token is not cached", __func__);
	free(sealed);
}

/* token and expires_at of a mint answer; -1 with err when either is missing or bad. */
static int
ghapp_mint_answer(json_object *o, const char *url, char **token, time_t *expires,
    char *err, size_t errsz)
{
	json_object	*t, *e;
	const char	*s, *p;
	struct tm	 tm;

	memset(&tm, 0, sizeof(tm));
	if (!json_object_object_get_ex(o, "token", &t) ||
	    !json_object_is_type(t, json_type_string) ||
	    !json_object_object_get_ex(o, "expires_at", &e) ||
	    !json_object_is_type(e, json_type_string))
		goto bad;
	s = json_object_get_string(t);
	if (*s == '\0' || strlen(s) > GHAPP_TOKEN_MAX)
		goto bad;
	for (p = s; *p != '\0'; p++)
		if (*p <= ' ' || *p > '~' || *p == ':')
			goto bad;
	p = strptime(json_object_get_string(e), "%Y-%m-%dT%H:%M:%S", &tm);
	if (p == NULL || (*p != 'Z' && *p != '\0') || (*expires = timegm(&tm)) == -1)
		goto bad;
	if ((*token = strdup(s)) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	return 0;
bad:
	snprintf(err, errsz, "the GitHub API's answer to %s has no valid token and "
	    "expires_at", url);
	return -1;
}

int
ghapp_installation_token(struct db *db, const char *datadir, const char *url, char **token,
    char *err, size_t errsz)
{
	struct ghapp_call c;
	json_object	*o = NULL;
	char		*app = NULL, *pem = NULL, *jwt = NULL, path[128];
	time_t		 now = time(NULL), expires = 0;
	long		 id;
	int		 rc = -1;

	*token = NULL;
	fetch_req_init(&c.q);
	if (!ghapp_configured(db, datadir))
		return 1;
	app = settings_get(db, datadir, "git.github.app_id");
	pem = settings_get(db, datadir, "git.github.app_private_key");
	if ((jwt = ghapp_jwt(app, pem, now, err, errsz)) == NULL ||
	    ghapp_installation(db, datadir, url, jwt, &id, err, errsz) == -1)
		goto out;
	if ((*token = ghapp_cache_get(db, datadir, id, now)) != NULL) {
		rc = 0;
		goto out;
	}
	snprintf(path, sizeof(path), "/app/installations/%ld/access_tokens", id);
	if (ghapp_call(db, datadir, &c, "POST", path, jwt, &o, err, errsz) == -1 ||
	    ghapp_mint_answer(o, c.url, token, &expires, err, errsz) == -1)
		goto out;
	log_info("%s: minted an installation token for installation %ld, valid until "
	    "%lld", __func__, id, (long long)expires);
	ghapp_cache_put(db, datadir, id, *token, expires);
	rc = 0;
out:
	json_object_put(o);
	fetch_req_release(&c.q);
	if (pem != NULL)
		explicit_bzero(pem, strlen(pem));
	free(pem);
	free(app);
	free(jwt);
	return rc;
}

int
ghapp_git_credentials(struct db *db, const char *datadir, const char *url,
    const char *host, char **user, char **token, const char **kind, char *note,
    size_t notesz)
{
	char	*app = NULL;
	int	 rc;

	*note = '\0';
	rc = ghapp_host_credentials(db, datadir, host, user, token, kind);
	if (strcmp(*kind, "github") != 0 ||
	    ghapp_installation_token(db, datadir, url, &app, note, notesz) != 0)
		return rc;
	if (*token != NULL)
		explicit_bzero(*token, strlen(*token));
	free(*token);
	*token = app;
	return 1;
}

/* 1 when url names the same host and /owner/repo as want_host and want_id. */
static int
ghapp_same_repo(json_object *repo, const char *key, const char *want_host,
    const char *want_id)
{
	json_object	*v;
	char		 id[512], host[256], err[256];

	if (!json_object_object_get_ex(repo, key, &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    libid_from_url(json_object_get_string(v), id, sizeof(id), host,
	    sizeof(host), err, sizeof(err)) == -1)
		return 0;
	return strcasecmp(host, want_host) == 0 && strcasecmp(id, want_id) == 0;
}

/* The string member key of o, or NULL. */
static const char *
ghapp_str(json_object *o, const char *key)
{
	json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

enum ghapp_push
ghapp_push_match(const char *body, size_t len, const char *repo_url, const char *branch,
    char *why, size_t whysz)
{
	json_tokener	*tok = NULL;
	json_object	*o = NULL, *repo = NULL, *del;
	enum ghapp_push	 rc = GHAPP_PUSH_IGNORE;
	char		 id[512], host[256], err[256];
	const char	*ref, *want;

	if (len > INT32_MAX || (tok = json_tokener_new()) == NULL ||
	    (o = json_tokener_parse_ex(tok, body, (int)len)) == NULL ||
	    json_tokener_get_parse_end(tok) != len || !json_object_is_type(o, json_type_object)) {
		snprintf(why, whysz, "the payload is not a JSON object");
		rc = GHAPP_PUSH_BAD;
		goto out;
	}
	ref = ghapp_str(o, "ref");
	if (!json_object_object_get_ex(o, "repository", &repo) ||
	    !json_object_is_type(repo, json_type_object) || ref == NULL) {
		snprintf(why, whysz, "the payload has no repository and ref");
		rc = GHAPP_PUSH_BAD;
		goto out;
	}
	if (repo_url == NULL || *repo_url == '\0' || libid_from_url(repo_url, id,
	    sizeof(id), host, sizeof(host), err, sizeof(err)) == -1) {
		snprintf(why, whysz, "no GitOps manifest repository is configured");
		goto out;
	}
	if (!ghapp_same_repo(repo, "clone_url", host, id) &&
	    !ghapp_same_repo(repo, "html_url", host, id)) {
		snprintf(why, whysz, "a push to another repository than the manifest's");
		goto out;
	}
	want = branch != NULL && *branch != '\0' ? branch : ghapp_str(repo, "default_branch");
	if (want == NULL || strncmp(ref, "refs/heads/", 11) != 0 ||
	    strcmp(ref + 11, want) != 0) {
		snprintf(why, whysz, "a push to another branch than the manifest's");
		goto out;
	}
	if (json_object_object_get_ex(o, "deleted", &del) && json_object_get_boolean(del)) {
		snprintf(why, whysz, "the manifest's branch was deleted");
		goto out;
	}
	snprintf(why, whysz, "a push to the manifest's branch");
	rc = GHAPP_PUSH_SYNC;
out:
	json_object_put(o);
	if (tok != NULL)
		json_tokener_free(tok);
	return rc;
}

int
ghapp_host_credentials(struct db *db, const char *datadir, const char *host,
    char **user, char **token, const char **kind)
{
	char	*gh = settings_get(db, datadir, "git.github.host");
	char	*gl = settings_get(db, datadir, "git.gitlab.host");

	*user = *token = NULL;
	*kind = "other";
	if (gh != NULL && strcmp(gh, host) == 0) {
		*kind = "github";
		*token = settings_get(db, datadir, "git.github.token");
		*user = strdup("x-access-token");
	} else if (gl != NULL && strcmp(gl, host) == 0) {
		*kind = "gitlab";
		*token = settings_get(db, datadir, "git.gitlab.token");
		*user = strdup("oauth2");
	}
	free(gh);
	free(gl);
	return *token != NULL && **token != '\0' ? 1 : 0;
}
