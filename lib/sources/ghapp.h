/*
 * ghapp.h: the GitHub-type App connection (Settings > Integrations): the RS256 JWT the App
 * signs with its private key, installation access tokens minted with it and cached
 * (sealed) in the database until shortly before they expire, the git credentials of a
 * repository on the GitHub-type host (the App's token, else the personal token), and the
 * webhook signature (X-Hub-Signature-256) check.
 *
 * Settings: git.github.app_id, git.github.app_private_key (PEM, sealed),
 * git.github.app_installation_id (blank: looked up for the repository),
 * git.github.api_url (blank: derived from git.github.host), git.github.webhook_secret.
 * Every API request goes through lib/net/fetch.c under the address policy of
 * fetch.allowed_networks, with the JWT and the tokens registered as secrets.
 */
#ifndef GHAPP_H
#define GHAPP_H

#include <stddef.h>
#include <time.h>

struct db;

#define GHAPP_JWT_PAST		60	/* iat: this many seconds ago (clock drift) */
#define GHAPP_JWT_LIFE		540	/* exp: this many seconds from now (GitHub: <= 600) */
#define GHAPP_TOKEN_MARGIN	300	/* a cached token is renewed this long before expiry */
#define GHAPP_TOKEN_MAX		255	/* longest installation token accepted */
#define GHAPP_ANSWER_MAX	(256 * 1024)	/* cap of an API answer */
#define GHAPP_TIMEOUT_MS	20000L	/* deadline of one API request */

/*
 * The App's JWT: base64url({"alg":"RS256","typ":"JWT"}) "." base64url({"iat": now - 60,
 * "exp": now + 540, "iss": "APP_ID"}) "." base64url(RSASSA-PKCS1-v1_5 SHA-256 signature)
 * with the RSA private key pem. malloc'd, or NULL with the reason in err (never the key).
 */
char	*ghapp_jwt(const char *app_id, const char *pem, time_t now, char *err,
	    size_t errsz);

/* HMAC-SHA256 of body under secret, 32 bytes into mac. */
void	 ghapp_hmac(const char *secret, const void *body, size_t len,
	    unsigned char mac[32]);
/*
 * 1 when header (the X-Hub-Signature-256 value, "sha256=" and 64 hex digits) is the
 * HMAC-SHA256 of body under secret, compared in constant time; 0 otherwise (NULL, wrong
 * shape or wrong MAC).
 */
int	 ghapp_signature_ok(const char *secret, const void *body, size_t len,
	    const char *header);

/* What ghapp_delivery_new found. */
enum ghapp_delivery {
	GHAPP_DELIVERY_ERROR = -1,	/* a database error */
	GHAPP_DELIVERY_NEW,		/* a new delivery: act on it */
	GHAPP_DELIVERY_REPEATED,	/* its X-GitHub-Delivery id was seen before */
	GHAPP_DELIVERY_REPLAYED		/* a new id, but the same body came within
					   GHAPP_REPLAY_S: a replay */
};
#define GHAPP_DELIVERIES_KEPT	2000	/* ids and body hashes remembered, newest first */
#define GHAPP_REPLAY_S		300	/* a body seen again this soon is a replay */

/*
 * Remembers a verified webhook delivery: its id (X-GitHub-Delivery) and the SHA-256 of
 * its body with the time. Only the newest GHAPP_DELIVERIES_KEPT of them are kept.
 */
enum ghapp_delivery ghapp_delivery_new(struct db *, const char *id, const void *body,
	    size_t len);
/* Forgets delivery id and its body, so that a redelivery is acted on (after a failure). */
void	 ghapp_delivery_forget(struct db *, const char *id, const void *body,
	    size_t len);

/*
 * The REST API base of the GitHub-type host, without a trailing slash, into out:
 * git.github.api_url when set, else https://api.github.com for github.com and
 * https://HOST/api/v3 (GitHub Enterprise Server) for another host. 0, or -1 (too long).
 */
int	 ghapp_api_base(struct db *, const char *datadir, char *out, size_t sz);

/* 1 when the App is configured (App id and private key set), else 0. */
int	 ghapp_configured(struct db *, const char *datadir);

/*
 * An installation access token of the App for the repository at url (its last two path
 * segments are owner/repo, used only when git.github.app_installation_id is blank) into
 * *token (malloc'd): the cached one while it has more than GHAPP_TOKEN_MARGIN seconds
 * left, else a new one (POST /app/installations/{id}/access_tokens), cached sealed.
 * 0 with *token; 1 when the App is not configured (*token NULL); -1 with err naming the
 * URL and HTTP status (never a credential).
 */
int	 ghapp_installation_token(struct db *, const char *datadir, const char *url,
	    char **token, char *err, size_t errsz);

/*
 * Git credentials for a repository host (host[:port]): the GitHub-type token for the
 * GitHub-type host (user x-access-token), the GitLab-type token for the GitLab-type host
 * (user oauth2), none elsewhere; *kind "github", "gitlab" or "other". *user and *token
 * are malloc'd (NULL when none; the caller wipes the token). 1 when a token is set, else 0.
 * The git back end's clones and the GitOps manifest repository (lib/gitops/gitops.c) use it.
 */
int	 ghapp_host_credentials(struct db *db, const char *datadir, const char *host,
	    char **user, char **token, const char **kind);

/*
 * The git credentials for the repository at url on host ("host[:port]"):
 * ghapp_host_credentials (the personal GitHub-type token, the GitLab-type token, or none
 * elsewhere), except that on the GitHub-type host the App's installation token, when the
 * App is configured and one can be had, replaces the personal token (user
 * "x-access-token"). When the App is configured but gave no token, the reason goes to note
 * (else note is ""). Returns 1 when a token is set, else 0 (as ghapp_host_credentials).
 */
int	 ghapp_git_credentials(struct db *, const char *datadir, const char *url,
	    const char *host, char **user, char **token, const char **kind, char *note,
	    size_t notesz);

/* What a webhook delivery asks for (ghapp_push_match). */
enum ghapp_push {
	GHAPP_PUSH_SYNC,	/* a push to the manifest repository's branch: sync */
	GHAPP_PUSH_IGNORE,	/* anything else: acknowledged, ignored (why says) */
	GHAPP_PUSH_BAD		/* not a JSON object of a push event (why says) */
};

/*
 * Decides on a push event's payload (body, len bytes): GHAPP_PUSH_SYNC when its
 * repository is repo_url (the same host and owner/repo, case-insensitive, ".git" and
 * slashes aside; tried with the payload's clone_url and html_url) and its ref is
 * refs/heads/BRANCH, BRANCH being branch or, when branch is "", the payload's
 * repository.default_branch; a deleted branch is ignored. why gets a short reason.
 */
enum ghapp_push ghapp_push_match(const char *body, size_t len, const char *repo_url,
	    const char *branch, char *why, size_t whysz);

#endif
