/*
 * aws.h: AWS credentials (the standard credential chain) and Signature Version 4 request
 * signing, for the Bedrock AI provider.
 */
#ifndef AWS_H
#define AWS_H

#include <stddef.h>
#include <time.h>

struct curl_slist;

struct aws_creds {
	char	*access_key_id;
	char	*secret_access_key;
	char	*session_token;		/* NULL when none */
	char	*bearer_token;		/* AWS_BEARER_TOKEN_BEDROCK: sent as Authorization: Bearer, no signing */
	time_t	 expires;		/* 0 = does not expire */
	char	 source[64];		/* "environment", "bearer token", "profile default", "container",
					   "web identity", "instance metadata" (never a secret) */
};

/*
 * Resolves credentials the way AWS tools do, first match wins:
 *  1. AWS_BEARER_TOKEN_BEDROCK (bearer_token set, the key fields NULL; source "bearer token");
 *  2. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN) ("environment");
 *  3. the shared files for profile $AWS_PROFILE or "default" ("profile NAME"): section [NAME]
 *     of $AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, else section [profile NAME] (or
 *     [default]) of $AWS_CONFIG_FILE or ~/.aws/config; keys aws_access_key_id,
 *     aws_secret_access_key, aws_session_token;
 *  4. the container endpoint ("container"): http://169.254.170.2 +
 *     AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, else AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or
 *     http to a loopback or the ECS/EKS link-local address only); Authorization header from the
 *     file AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, else AWS_CONTAINER_AUTHORIZATION_TOKEN; JSON
 *     AccessKeyId/SecretAccessKey/Token/Expiration;
 *  5. web identity ("web identity"): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN
 *     [+ AWS_ROLE_SESSION_NAME], an unsigned STS AssumeRoleWithWebIdentity GET to
 *     $AWS_ENDPOINT_URL_STS or https://sts.REGION.amazonaws.com (region NULL or "" means
 *     us-east-1), XML answer;
 *  6. EC2 instance metadata, IMDSv2 only ("instance metadata"): base URL
 *     $AWS_EC2_METADATA_SERVICE_ENDPOINT or http://169.254.169.254; skipped when
 *     AWS_EC2_METADATA_DISABLED=true.
 * Container and metadata requests: 1 s to connect, 2 s in all, no proxy; STS: 5 s in all.
 * On success fills *c (the caller calls aws_creds_release) and returns 0. On failure returns -1,
 * leaves *c empty and writes to err which sources were tried and why each did not answer
 * (never a secret).
 */
int	 aws_creds_load(const char *region, struct aws_creds *c, char *err, size_t errsz);

/* Zeroes the secrets, frees every field and empties *c. Safe on an empty or released struct. */
void	 aws_creds_release(struct aws_creds *c);

/*
 * Signs a request with SigV4 (or, when c->bearer_token is set, only adds
 * "Authorization: Bearer TOKEN"). url: the URL the request goes to, its path already
 * percent-encoded as it will be sent. headers: NULL-terminated "Name: value" strings the request
 * will carry (may be NULL); a given Host, X-Amz-Date, X-Amz-Security-Token or Authorization is
 * ignored (the signer sets those). now: the signing time. Appends to *out (a curl_slist the
 * caller frees; *out may be NULL at the start) "X-Amz-Date: ...", "X-Amz-Security-Token: ..."
 * (with a session token) and "Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
 * Signature=...". Returns 0, or -1 with a message in err (*out unchanged then).
 */
int	 aws_sigv4_sign(const char *method, const char *url, const char *region,
	    const char *service, const char *const *headers, const void *body, size_t bodylen,
	    const struct aws_creds *c, time_t now, struct curl_slist **out, char *err,
	    size_t errsz);

/*
 * The SigV4 canonical request (malloc'd; NULL on a malformed URL or header, or no memory):
 * method, canonical URI (dot segments and empty segments removed, each byte other than an RFC
 * 3986 unreserved one or '/' percent-encoded, so an encoded path is encoded again as non-S3
 * services expect), canonical query (each name and value percent-decoded then encoded, sorted
 * by name then value), canonical headers (host from the URL, x-amz-date = amzdate,
 * x-amz-security-token when session_token is not NULL, plus the given headers: names lowercased,
 * values trimmed with inner runs of spaces collapsed, repeated names joined with ',', sorted),
 * the signed header list and the hex SHA-256 of the body. *signed_headers (when not NULL)
 * receives the malloc'd "host;x-amz-date;..." list.
 */
char	*aws_sigv4_canonical_request(const char *method, const char *url,
	    const char *const *headers, const char *amzdate, const char *session_token,
	    const void *body, size_t bodylen, char **signed_headers);

/*
 * The SigV4 string to sign (malloc'd, NULL on no memory): "AWS4-HMAC-SHA256", amzdate
 * ("YYYYMMDDTHHMMSSZ"), the scope "YYYYMMDD/region/service/aws4_request" and the hex SHA-256 of
 * the canonical request, one per line.
 */
char	*aws_sigv4_string_to_sign(const char *amzdate, const char *region, const char *service,
	    const char *canonical_request);

#endif
