/* aws.c: AWS credentials (the standard credential chain) and Signature Version 4 signing. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/buf.h"
#include "base/util.h"
#include "net/aws.h"
#include "net/fetch.h"

#define AWS_MAX_RESPONSE	(256 * 1024)	/* credential endpoint answers */
#define AWS_MAX_FILE		(1024 * 1024)	/* shared files, token files */
#define AWS_META_CONNECT_MS	1000L
#define AWS_META_TOTAL_MS	2000L
#define AWS_STS_CONNECT_MS	5000L
#define AWS_STS_TOTAL_MS	5000L
#define AWS_IMDS_DEFAULT	"http://169.254.169.254"
#define AWS_ECS_HOST		"http://169.254.170.2"

/* ---------------------------------------------------------------- small helpers */

/* Zeroes a buffer's whole allocation, then releases it. */
static void
aws_buf_wipe(struct buf *b)
{
	if (b->p != NULL)
		explicit_bzero(b->p, b->cap);
	buf_release(b);
}

/* Zeroes a NUL-terminated string, then frees it. */
static void
aws_free_secret(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static void
aws_seterr(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
aws_seterr(char *err, size_t errsz, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL || errsz == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

static char *
aws_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A formatted, malloc'd string; NULL on no memory. */
static char *
aws_printf(const char *fmt, ...)
{
	struct buf	 b;
	va_list		 ap;
	int		 rc;

	buf_init(&b);
	va_start(ap, fmt);
	rc = buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (rc == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

static int
aws_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Appends n bytes of s, each byte other than an RFC 3986 unreserved one as %XX. */
static int
aws_uri_encode(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	unsigned char	 c;
	size_t		 i;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (aws_unreserved(c)) {
			if (buf_addc(b, (char)c) == -1)
				return -1;
		} else if (buf_addc(b, '%') == -1 ||
		    buf_addc(b, hex[c >> 4]) == -1 ||
		    buf_addc(b, hex[c & 15]) == -1)
			return -1;
	}
	return 0;
}

/* Percent-decodes n bytes of s (a '%' not followed by two hex digits stays); malloc'd. */
static char *
aws_uri_decode(const char *s, size_t n)
{
	struct buf	 b;
	size_t		 i;
	int		 hi, lo;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n &&
		    (hi = util_hexval(s[i + 1])) != -1 &&
		    (lo = util_hexval(s[i + 2])) != -1) {
			if (buf_addc(&b, (char)(hi << 4 | lo)) == -1)
				goto fail;
			i += 2;
		} else if (buf_addc(&b, s[i]) == -1)
			goto fail;
	}
	return buf_detach(&b);
fail:
	buf_release(&b);
	return NULL;
}

static int
aws_sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char	 md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;

	if (EVP_Digest(n ? p : "", n, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != 32)
		return -1;
	util_hex(md, 32, out);
	return 0;
}

static int
aws_hmac(const void *key, size_t keylen, const char *msg, unsigned char out[32])
{
	unsigned int	 outlen = 0;

	if (HMAC(EVP_sha256(), key, (int)keylen, (const unsigned char *)msg,
	    strlen(msg), out, &outlen) == NULL || outlen != 32)
		return -1;
	return 0;
}

/* Trims ASCII whitespace at both ends, in place; returns s. */
static char *
aws_trim(char *s)
{
	char	*e;

	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
	    e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* A value that may go into an HTTP header line: no control characters but tab. */
static int
aws_header_safe(const char *s)
{
	for (; *s != '\0'; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 0;
	return 1;
}

static const char *
aws_getenv(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/* ---------------------------------------------------------------- SigV4 */

struct aws_url {
	char	*host;		/* lowercased, with a non-default port */
	char	*path;		/* as written, "/" when empty */
	char	*query;		/* as written, "" when none */
};

static void
aws_url_release(struct aws_url *u)
{
	free(u->host);
	free(u->path);
	free(u->query);
	memset(u, 0, sizeof(*u));
}

/*
 * Splits scheme://[userinfo@]host[:port][/path][?query][#fragment] without rewriting the
 * path (curl's URL API would normalise it, and the signature covers the bytes as sent).
 */
static int
aws_url_split(const char *url, struct aws_url *u)
{
	const char	*p, *auth, *ae, *at, *pe, *qe;
	size_t		 slen, n, i;
	int		 https;

	memset(u, 0, sizeof(*u));
	if ((p = strstr(url, "://")) == NULL)
		return -1;
	slen = (size_t)(p - url);
	https = slen == 5 && strncasecmp(url, "https", 5) == 0;
	if (!https && !(slen == 4 && strncasecmp(url, "http", 4) == 0))
		return -1;
	auth = p + 3;
	ae = auth + strcspn(auth, "/?#");
	for (at = ae; at > auth && at[-1] != '@'; at--)
		;
	if (at > auth)
		auth = at;
	n = (size_t)(ae - auth);
	if (https && n > 4 && strncmp(ae - 4, ":443", 4) == 0)
		n -= 4;
	else if (!https && n > 3 && strncmp(ae - 3, ":80", 3) == 0)
		n -= 3;
	if (n == 0 || (u->host = strndup(auth, n)) == NULL)
		goto fail;
	for (i = 0; i < n; i++) {
		if ((unsigned char)u->host[i] <= ' ' || u->host[i] == 0x7f)
			goto fail;
		u->host[i] = (char)tolower((unsigned char)u->host[i]);
	}
	pe = ae + strcspn(ae, "?#");
	u->path = pe > ae ? strndup(ae, (size_t)(pe - ae)) : strdup("/");
	if (*pe == '?') {
		qe = pe + 1 + strcspn(pe + 1, "#");
		u->query = strndup(pe + 1, (size_t)(qe - pe - 1));
	} else
		u->query = strdup("");
	if (u->path == NULL || u->query == NULL)
		goto fail;
	return 0;
fail:
	aws_url_release(u);
	return -1;
}

/*
 * Canonical URI: removes empty, "." and ".." segments (RFC 3986 dot-segment removal plus
 * collapsed slashes, as the SigV4 normalisation for non-S3 services does), then encodes each
 * segment's bytes (an already encoded path is thus encoded twice).
 */
static int
aws_canon_uri(struct buf *b, const char *path)
{
	const char	**seg = NULL;
	size_t		*len = NULL, nseg = 0, cap, i, n;
	const char	*p, *e;
	int		 trailing = 0, dot, dotdot, rc = -1;

	for (cap = 1, p = path; *p != '\0'; p++)
		if (*p == '/')
			cap++;
	if ((seg = calloc(cap, sizeof(*seg))) == NULL ||
	    (len = calloc(cap, sizeof(*len))) == NULL)
		goto out;
	for (p = path;; p = e + 1) {
		e = p + strcspn(p, "/");
		n = (size_t)(e - p);
		dot = n == 1 && p[0] == '.';
		dotdot = n == 2 && p[0] == '.' && p[1] == '.';
		if (dotdot && nseg > 0)
			nseg--;
		else if (n > 0 && !dot && !dotdot) {
			seg[nseg] = p;
			len[nseg++] = n;
		}
		if (*e == '\0') {
			trailing = n == 0 || dot || dotdot;
			break;
		}
	}
	if (nseg == 0) {
		rc = buf_addc(b, '/');
		goto out;
	}
	for (i = 0; i < nseg; i++)
		if (buf_addc(b, '/') == -1 || aws_uri_encode(b, seg[i], len[i]) == -1)
			goto out;
	if (trailing && buf_addc(b, '/') == -1)
		goto out;
	rc = 0;
out:
	free(seg);
	free(len);
	return rc;
}

struct aws_kv {
	char	*k;
	char	*v;
	size_t	 idx;
};

static int
aws_kv_cmp(const void *a, const void *b)
{
	const struct aws_kv	*x = a, *y = b;
	int			 c;

	if ((c = strcmp(x->k, y->k)) != 0)
		return c;
	if (x->v != NULL && y->v != NULL && (c = strcmp(x->v, y->v)) != 0)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void
aws_kv_free(struct aws_kv *kv, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(kv[i].k);
		aws_free_secret(kv[i].v);
	}
	free(kv);
}

/* Encodes "name" or "name=value" (decoded first) into a new string. */
static char *
aws_query_part(const char *s, size_t n)
{
	struct buf	 b;
	char		*dec;

	buf_init(&b);
	if ((dec = aws_uri_decode(s, n)) == NULL)
		return NULL;
	if (buf_add(&b, "", 0) == -1 || aws_uri_encode(&b, dec, strlen(dec)) == -1) {
		aws_free_secret(dec);
		aws_buf_wipe(&b);
		return NULL;
	}
	aws_free_secret(dec);
	return buf_detach(&b);
}

/* Canonical query string: pairs decoded, encoded, sorted by name then value, '&'-joined. */
static int
aws_canon_query(struct buf *b, const char *q)
{
	struct aws_kv	*kv = NULL;
	const char	*p, *e, *eq;
	size_t		 n = 0, cap = 1, i;
	int		 rc = -1;

	for (p = q; *p != '\0'; p++)
		if (*p == '&')
			cap++;
	if ((kv = calloc(cap, sizeof(*kv))) == NULL)
		return -1;
	for (p = q; *p != '\0'; p = *e == '&' ? e + 1 : e) {
		e = p + strcspn(p, "&");
		if (e > p) {
			eq = memchr(p, '=', (size_t)(e - p));
			if (eq == NULL)
				eq = e;
			kv[n].idx = n;
			if ((kv[n].k = aws_query_part(p, (size_t)(eq - p))) == NULL ||
			    (kv[n].v = aws_query_part(eq < e ? eq + 1 : e,
			    eq < e ? (size_t)(e - eq - 1) : 0)) == NULL) {
				n++;
				goto out;
			}
			n++;
		}
		if (*e == '\0')
			break;
	}
	qsort(kv, n, sizeof(*kv), aws_kv_cmp);
	for (i = 0; i < n; i++)
		if ((i > 0 && buf_addc(b, '&') == -1) ||
		    buf_printf(b, "%s=%s", kv[i].k, kv[i].v) == -1)
			goto out;
	rc = 0;
out:
	aws_kv_free(kv, n);
	return rc;
}

/* A header value for the canonical form: trimmed, runs of spaces and tabs made one space. */
static char *
aws_header_value(const char *s)
{
	struct buf	 b;
	int		 sp = 0;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s != '\0'; s++) {
		if (*s == ' ' || *s == '\t') {
			sp = 1;
			continue;
		}
		if ((sp && buf_addc(&b, ' ') == -1) || buf_addc(&b, *s) == -1) {
			aws_buf_wipe(&b);
			return NULL;
		}
		sp = 0;
	}
	return buf_detach(&b);
}

static int
aws_reserved_header(const char *lname)
{
	return strcmp(lname, "host") == 0 || strcmp(lname, "x-amz-date") == 0 ||
	    strcmp(lname, "x-amz-security-token") == 0 ||
	    strcmp(lname, "authorization") == 0;
}

/* Adds one header (name lowercased, value canonicalised) to kv[*n]. */
static int
aws_kv_add(struct aws_kv *kv, size_t *n, const char *name, size_t namelen,
    const char *value)
{
	size_t	 i;

	if (namelen == 0)
		return -1;
	kv[*n].idx = *n;
	if ((kv[*n].k = strndup(name, namelen)) == NULL)
		return -1;
	(*n)++;
	for (i = 0; i < namelen; i++) {
		if ((unsigned char)name[i] <= ' ' || name[i] == ':' || name[i] == 0x7f)
			return -1;
		kv[*n - 1].k[i] = (char)tolower((unsigned char)name[i]);
	}
	if (!aws_header_safe(value) ||
	    (kv[*n - 1].v = aws_header_value(value)) == NULL)
		return -1;
	return 0;
}

static int
aws_kv_cmp_name(const void *a, const void *b)
{
	const struct aws_kv	*x = a, *y = b;
	int			 c;

	if ((c = strcmp(x->k, y->k)) != 0)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

char *
aws_sigv4_canonical_request(const char *method, const char *url,
    const char *const *headers, const char *amzdate, const char *session_token,
    const void *body, size_t bodylen, char **signed_headers)
{
	struct aws_url	 u;
	struct aws_kv	*kv = NULL;
	struct buf	 b, sh;
	const char	*colon;
	char		 hash[65];
	size_t		 nh = 0, n = 0, i;
	char		*res = NULL;

	buf_init(&b);
	buf_init(&sh);
	if (signed_headers != NULL)
		*signed_headers = NULL;
	if (method == NULL || *method == '\0' || url == NULL || amzdate == NULL ||
	    (body == NULL && bodylen > 0) || aws_url_split(url, &u) == -1)
		return NULL;
	for (; headers != NULL && headers[nh] != NULL; nh++)
		;
	if ((kv = calloc(nh + 3, sizeof(*kv))) == NULL)
		goto out;
	if (aws_kv_add(kv, &n, "host", 4, u.host) == -1 ||
	    aws_kv_add(kv, &n, "x-amz-date", 10, amzdate) == -1 ||
	    (session_token != NULL && aws_kv_add(kv, &n, "x-amz-security-token", 20,
	    session_token) == -1))
		goto out;
	for (i = 0; i < nh; i++) {
		if ((colon = strchr(headers[i], ':')) == NULL ||
		    aws_kv_add(kv, &n, headers[i], (size_t)(colon - headers[i]),
		    colon + 1) == -1)
			goto out;
		if (aws_reserved_header(kv[n - 1].k)) {
			n--;
			free(kv[n].k);
			aws_free_secret(kv[n].v);
			kv[n].k = kv[n].v = NULL;
		}
	}
	qsort(kv, n, sizeof(*kv), aws_kv_cmp_name);
	if (buf_printf(&b, "%s\n", method) == -1 ||
	    aws_canon_uri(&b, u.path) == -1 || buf_addc(&b, '\n') == -1 ||
	    aws_canon_query(&b, u.query) == -1 || buf_addc(&b, '\n') == -1)
		goto out;
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(kv[i].k, kv[i - 1].k) == 0) {
			if (buf_printf(&b, ",%s", kv[i].v) == -1)
				goto out;
			continue;
		}
		if ((i > 0 && buf_addc(&b, '\n') == -1) ||
		    buf_printf(&b, "%s:%s", kv[i].k, kv[i].v) == -1 ||
		    (sh.len > 0 && buf_addc(&sh, ';') == -1) ||
		    buf_adds(&sh, kv[i].k) == -1)
			goto out;
	}
	if (aws_sha256_hex(body, bodylen, hash) == -1 ||
	    buf_printf(&b, "\n\n%s\n%s", sh.p, hash) == -1)
		goto out;
	if (signed_headers != NULL && (*signed_headers = buf_detach(&sh)) == NULL)
		goto out;
	res = buf_detach(&b);
out:
	aws_url_release(&u);
	aws_kv_free(kv, n);
	aws_buf_wipe(&b);
	buf_release(&sh);
	if (res == NULL && signed_headers != NULL) {
		free(*signed_headers);
		*signed_headers = NULL;
	}
	return res;
}

char *
aws_sigv4_string_to_sign(const char *amzdate, const char *region, const char *service,
    const char *canonical_request)
{
	struct buf	 b;
	char		 hash[65];

	buf_init(&b);
	if (strlen(amzdate) < 8 ||
	    aws_sha256_hex(canonical_request, strlen(canonical_request), hash) == -1 ||
	    buf_printf(&b, "AWS4-HMAC-SHA256\n%s\n%.8s/%s/%s/aws4_request\n%s", amzdate,
	    amzdate, region, service, hash) == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* A region or service name: non-empty, [A-Za-z0-9._-] only. */
static int
aws_scope_word(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return 0;
	return 1;
}

/* Appends the headers in lines[] to *out only when every append succeeds. */
static int
aws_slist_extend(struct curl_slist **out, const char *const *lines, size_t n)
{
	struct curl_slist	*l = NULL, *t, *tail;
	size_t			 i;

	for (i = 0; i < n; i++) {
		if ((t = curl_slist_append(l, lines[i])) == NULL) {
			curl_slist_free_all(l);
			return -1;
		}
		l = t;
	}
	if (*out == NULL)
		*out = l;
	else {
		for (tail = *out; tail->next != NULL; tail = tail->next)
			;
		tail->next = l;
	}
	return 0;
}

int
aws_sigv4_sign(const char *method, const char *url, const char *region,
    const char *service, const char *const *headers, const void *body, size_t bodylen,
    const struct aws_creds *c, time_t now, struct curl_slist **out, char *err,
    size_t errsz)
{
	struct buf	 ksecret, line;
	struct tm	 tm;
	unsigned char	 k1[32], k2[32];
	char		 amzdate[32], date[16], sig[65];
	char		*creq = NULL, *sts = NULL, *signed_h = NULL;
	char		*lines[3] = { NULL, NULL, NULL };
	size_t		 nl = 0, i;
	int		 rc = -1;

	buf_init(&ksecret);
	buf_init(&line);
	if (c == NULL || out == NULL || url == NULL || method == NULL) {
		aws_seterr(err, errsz, "missing argument");
		return -1;
	}
	if (c->bearer_token != NULL) {
		if (!aws_header_safe(c->bearer_token)) {
			aws_seterr(err, errsz, "bearer token holds control characters");
			return -1;
		}
		if (buf_printf(&line, "Authorization: Bearer %s", c->bearer_token) == -1)
			goto nomem;
		lines[0] = line.p;
		if (aws_slist_extend(out, (const char *const *)lines, 1) == -1)
			goto nomem;
		aws_buf_wipe(&line);
		return 0;
	}
	if (c->access_key_id == NULL || c->secret_access_key == NULL ||
	    !aws_header_safe(c->access_key_id) || strchr(c->access_key_id, '/') != NULL ||
	    (c->session_token != NULL && !aws_header_safe(c->session_token))) {
		aws_seterr(err, errsz, "incomplete or malformed AWS credentials");
		return -1;
	}
	if (!aws_scope_word(region) || !aws_scope_word(service)) {
		aws_seterr(err, errsz, "bad AWS region or service name");
		return -1;
	}
	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(amzdate, sizeof(amzdate), "%Y%m%dT%H%M%SZ", &tm) != 16 ||
	    strftime(date, sizeof(date), "%Y%m%d", &tm) != 8) {
		aws_seterr(err, errsz, "bad signing time");
		return -1;
	}
	if ((creq = aws_sigv4_canonical_request(method, url, headers, amzdate,
	    c->session_token, body, bodylen, &signed_h)) == NULL) {
		aws_seterr(err, errsz, "cannot build the canonical request "
		    "(malformed URL or header)");
		return -1;
	}
	if ((sts = aws_sigv4_string_to_sign(amzdate, region, service, creq)) == NULL)
		goto nomem;
	if (buf_printf(&ksecret, "AWS4%s", c->secret_access_key) == -1)
		goto nomem;
	if (aws_hmac(ksecret.p, ksecret.len, date, k1) == -1 ||
	    aws_hmac(k1, 32, region, k2) == -1 ||
	    aws_hmac(k2, 32, service, k1) == -1 ||
	    aws_hmac(k1, 32, "aws4_request", k2) == -1 ||
	    aws_hmac(k2, 32, sts, k1) == -1) {
		aws_seterr(err, errsz, "HMAC-SHA256 failed");
		goto out;
	}
	util_hex(k1, 32, sig);
	if ((lines[nl++] = aws_printf("X-Amz-Date: %s", amzdate)) == NULL)
		goto nomem;
	if (c->session_token != NULL) {
		if ((lines[nl++] = aws_printf("X-Amz-Security-Token: %s",
		    c->session_token)) == NULL)
			goto nomem;
	}
	if ((lines[nl++] = aws_printf("Authorization: AWS4-HMAC-SHA256 "
	    "Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, Signature=%s",
	    c->access_key_id, date, region, service, signed_h, sig)) == NULL)
		goto nomem;
	if (aws_slist_extend(out, (const char *const *)lines, nl) == -1)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	aws_seterr(err, errsz, "out of memory");
out:
	explicit_bzero(k1, sizeof(k1));
	explicit_bzero(k2, sizeof(k2));
	aws_buf_wipe(&ksecret);
	aws_buf_wipe(&line);
	for (i = 0; i < nl; i++)
		aws_free_secret(lines[i]);
	aws_free_secret(creq);
	free(sts);
	free(signed_h);
	return rc;
}

/* ---------------------------------------------------------------- credentials */

void
aws_creds_release(struct aws_creds *c)
{
	if (c == NULL)
		return;
	aws_free_secret(c->access_key_id);
	aws_free_secret(c->secret_access_key);
	aws_free_secret(c->session_token);
	aws_free_secret(c->bearer_token);
	memset(c, 0, sizeof(*c));
}

/* Parses "YYYY-MM-DDTHH:MM:SS[.fff](Z|+00:00)"; 0 when absent or unparsable. */
static time_t
aws_parse_time(const char *s)
{
	struct tm	 tm;
	const char	*p;

	if (s == NULL)
		return 0;
	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return 0;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (strcmp(p, "Z") != 0 && strcmp(p, "+00:00") != 0 && *p != '\0')
		return 0;
	return timegm(&tm);
}

/* Fills c from copies of the strings; akid and secret must be non-empty. */
static int
aws_creds_set(struct aws_creds *c, const char *akid, const char *secret,
    const char *token, const char *expiration, const char *source)
{
	memset(c, 0, sizeof(*c));
	if (akid == NULL || *akid == '\0' || secret == NULL || *secret == '\0')
		return -1;
	if ((c->access_key_id = strdup(akid)) == NULL ||
	    (c->secret_access_key = strdup(secret)) == NULL ||
	    (token != NULL && *token != '\0' &&
	    (c->session_token = strdup(token)) == NULL)) {
		aws_creds_release(c);
		return -1;
	}
	c->expires = aws_parse_time(expiration);
	snprintf(c->source, sizeof(c->source), "%s", source);
	return 0;
}

/*
 * Looks for section sect in an INI text and takes the three credential keys from it.
 * Returns 1 when the section exists (keys may still be missing), 0 when not.
 */
static int
aws_ini_section(char *text, const char *sect, char **akid, char **secret, char **token)
{
	char	*line, *next, *eq, *k, *v, **dst;
	size_t	 n;
	int	 in = 0, found = 0;

	for (line = text; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line = aws_trim(line);
		if (*line == '\0' || *line == '#' || *line == ';')
			continue;
		n = strlen(line);
		if (*line == '[' && line[n - 1] == ']') {
			line[n - 1] = '\0';
			in = strcmp(aws_trim(line + 1), sect) == 0;
			found |= in;
			continue;
		}
		if (!in || (eq = strchr(line, '=')) == NULL)
			continue;
		*eq = '\0';
		k = aws_trim(line);
		v = aws_trim(eq + 1);
		if (strcasecmp(k, "aws_access_key_id") == 0)
			dst = akid;
		else if (strcasecmp(k, "aws_secret_access_key") == 0)
			dst = secret;
		else if (strcasecmp(k, "aws_session_token") == 0)
			dst = token;
		else
			continue;
		aws_free_secret(*dst);
		if ((*dst = strdup(v)) == NULL)
			return -1;
	}
	return found;
}

/*
 * Reads one shared file and its profile section sect (or, when absent, alt when not NULL).
 * Returns 1 with credentials in c, 0 when the file or the profile is not there or incomplete
 * (why says which), -1 on no memory.
 */
static int
aws_shared_file(const char *path, const char *sect, const char *alt, const char *profile,
    struct aws_creds *c, struct buf *why)
{
	char	*text = NULL, *copy = NULL, *akid = NULL, *secret = NULL, *token = NULL;
	const char *found;
	char	 source[64];
	size_t	 len = 0;
	int	 rc = 0, f;

	if (util_read_file(path, AWS_MAX_FILE, &text, &len) == -1) {
		if (buf_printf(why, " %s: %s;", path, errno == ENOENT ?
		    "not found" : strerror(errno)) == -1)
			rc = -1;
		return rc;
	}
	if (alt != NULL && (copy = strdup(text)) == NULL) {
		rc = -1;
		goto out;
	}
	found = sect;
	if ((f = aws_ini_section(text, sect, &akid, &secret, &token)) == 0 && alt != NULL) {
		found = alt;
		f = aws_ini_section(copy, alt, &akid, &secret, &token);
	}
	if (f == -1)
		rc = -1;
	else if (f == 0) {
		if (buf_printf(why, " %s: no [%s]%s%s%s;", path, sect,
		    alt != NULL ? " or [" : "", alt != NULL ? alt : "",
		    alt != NULL ? "]" : "") == -1)
			rc = -1;
	} else if (akid == NULL || *akid == '\0' || secret == NULL || *secret == '\0') {
		if (buf_printf(why, " %s: [%s] has no aws_access_key_id/"
		    "aws_secret_access_key;", path, found) == -1)
			rc = -1;
	} else {
		snprintf(source, sizeof(source), "profile %s", profile);
		rc = aws_creds_set(c, akid, secret, token, NULL, source) == -1 ? -1 : 1;
	}
out:
	explicit_bzero(text, len);
	free(text);
	if (copy != NULL) {
		explicit_bzero(copy, len);
		free(copy);
	}
	aws_free_secret(akid);
	aws_free_secret(secret);
	aws_free_secret(token);
	return rc;
}

/*
 * The sources after the environment. Each aws_try_* returns 1 with credentials in c, 0 when
 * its source is not configured or did not answer (the reason appended to why, never a
 * secret), -1 on no memory.
 */
static int
aws_try_profile(struct aws_creds *c, struct buf *why)
{
	const char	*profile, *home, *cf, *cfg;
	char		*dflt_cred = NULL, *dflt_cfg = NULL, *sect = NULL;
	int		 rc = -1, r;

	if ((profile = aws_getenv("AWS_PROFILE")) == NULL)
		profile = "default";
	home = aws_getenv("HOME");
	if ((cf = aws_getenv("AWS_SHARED_CREDENTIALS_FILE")) == NULL && home != NULL) {
		if ((dflt_cred = util_path_join(home, ".aws/credentials")) == NULL)
			goto out;
		cf = dflt_cred;
	}
	if ((cfg = aws_getenv("AWS_CONFIG_FILE")) == NULL && home != NULL) {
		if ((dflt_cfg = util_path_join(home, ".aws/config")) == NULL)
			goto out;
		cfg = dflt_cfg;
	}
	if (buf_printf(why, "profile %s:", profile) == -1)
		goto out;
	if (cf == NULL && cfg == NULL) {
		rc = buf_adds(why, " HOME unset;") == -1 ? -1 : 0;
		goto out;
	}
	if (cf != NULL && (r = aws_shared_file(cf, profile, NULL, profile, c, why)) != 0) {
		rc = r;
		goto out;
	}
	if (cfg != NULL) {
		if ((sect = aws_printf("profile %s", profile)) == NULL)
			goto out;
		if ((r = aws_shared_file(cfg, sect, strcmp(profile, "default") == 0 ?
		    "default" : NULL, profile, c, why)) != 0) {
			rc = r;
			goto out;
		}
	}
	rc = 0;
out:
	free(dflt_cred);
	free(dflt_cfg);
	free(sect);
	return rc;
}

/*
 * One HTTP exchange with a credential endpoint, through fetch.c: no retry, no redirect,
 * at most AWS_MAX_RESPONSE bytes. hdrs: NULL-terminated header lines (all treated as
 * secrets). Returns 0 with the body of a 200, or -1 with the reason in why (no URL, no
 * secret) and the body of another status.
 */
static int
aws_http(const char *method, const char *url, const char *const *hdrs, long connect_ms,
    long total_ms, int noproxy, struct buf *body, long *status, struct buf *why)
{
	struct fetch		 f;
	struct fetch_req	 r;
	size_t			 i, n = 0;
	int			 rc = -1;

	*status = 0;
	fetch_init(&f);
	/* The operator's environment names these endpoints (instance metadata, container
	 * credentials): fetch.allowed_networks guards what users can name, not them. */
	f.allow = fetch_allow_any;
	fetch_req_init(&r);
	for (i = 0; hdrs != NULL && hdrs[i] != NULL && n < FETCH_MAX_HEADERS - 1; i++)
		r.headers[n++] = hdrs[i];
	r.secret_headers = (1u << n) - 1;
	if (strcmp(method, "PUT") == 0)
		r.headers[n++] = "Content-Type:";
	r.method = method;
	r.url = url;
	r.connect_ms = connect_ms;
	r.timeout_ms = total_ms;
	r.noproxy = noproxy;
	r.max_size = AWS_MAX_RESPONSE;
	if (fetch_run(&f, &r, 1) == -1) {
		buf_printf(why, " %s;", *r.reason ? r.reason : r.error);
		goto out;
	}
	*status = r.status;
	if (r.answer.len > 0 && buf_add(body, r.answer.p, r.answer.len) == -1) {
		buf_adds(why, " out of memory;");
		goto out;
	}
	if (*status != 200) {
		buf_printf(why, " HTTP %ld;", *status);
		goto out;
	}
	rc = 0;
out:
	fetch_req_release(&r);
	fetch_release(&f);
	return rc;
}

static const char *
aws_json_str(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Credentials from a container or instance metadata JSON answer. */
static int
aws_creds_json(struct aws_creds *c, const struct buf *body, const char *source,
    struct buf *why)
{
	struct json_object	*o;
	const char		*code;
	int			 rc = 0;

	if (body->p == NULL || (o = json_tokener_parse(body->p)) == NULL) {
		buf_adds(why, " answer is not JSON;");
		return 0;
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		buf_adds(why, " answer is not a JSON object;");
		return 0;
	}
	if ((code = aws_json_str(o, "Code")) != NULL && strcmp(code, "Success") != 0)
		buf_adds(why, " answer Code is not Success;");
	else if (aws_creds_set(c, aws_json_str(o, "AccessKeyId"),
	    aws_json_str(o, "SecretAccessKey"), aws_json_str(o, "Token"),
	    aws_json_str(o, "Expiration"), source) == -1)
		buf_adds(why, " answer lacks AccessKeyId/SecretAccessKey;");
	else
		rc = 1;
	json_object_put(o);
	return rc;
}

/* Host of an http URL allowed as a full container credentials URI. */
static int
aws_container_host_ok(const char *url)
{
	static const char *const ok[] = { "localhost", "[::1]", "169.254.170.2",
	    "169.254.170.23", "[fd00:ec2::23]", NULL };
	CURLU		*u;
	char		*scheme = NULL, *host = NULL;
	size_t		 i;
	int		 good = 0;

	if ((u = curl_url()) == NULL)
		return 0;
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		goto out;
	if (strcasecmp(scheme, "https") == 0) {
		good = 1;
		goto out;
	}
	if (strcasecmp(scheme, "http") != 0)
		goto out;
	if (strncmp(host, "127.", 4) == 0)
		good = 1;
	for (i = 0; ok[i] != NULL; i++)
		if (strcasecmp(host, ok[i]) == 0)
			good = 1;
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return good;
}

static int
aws_try_container(struct aws_creds *c, struct buf *why)
{
	const char	*rel, *full, *tokfile, *tok;
	const char	*hdrs[2] = { NULL, NULL };
	char		*url = NULL, *ftok = NULL, *auth = NULL;
	struct buf	 body;
	long		 status;
	int		 rc = -1;

	buf_init(&body);
	rel = aws_getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
	full = aws_getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI");
	if (buf_adds(why, " container:") == -1)
		return -1;
	if (rel == NULL && full == NULL)
		return buf_adds(why, " unset;") == -1 ? -1 : 0;
	if (rel != NULL) {
		if (*rel != '/')
			return buf_adds(why, " relative URI must start with '/';") == -1 ? -1 : 0;
		if ((url = aws_printf("%s%s", AWS_ECS_HOST, rel)) == NULL)
			return -1;
	} else {
		if (!aws_container_host_ok(full))
			return buf_adds(why, " full URI must be https or a loopback/"
			    "link-local http URL;") == -1 ? -1 : 0;
		if ((url = strdup(full)) == NULL)
			return -1;
	}
	if ((tokfile = aws_getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")) != NULL) {
		if (util_read_file(tokfile, AWS_MAX_FILE, &ftok, NULL) == -1) {
			rc = buf_printf(why, " cannot read %s: %s;", tokfile,
			    strerror(errno)) == -1 ? -1 : 0;
			goto out;
		}
		tok = aws_trim(ftok);
	} else
		tok = aws_getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN");
	if (tok != NULL) {
		if (!aws_header_safe(tok)) {
			rc = buf_adds(why, " authorization token holds control "
			    "characters;") == -1 ? -1 : 0;
			goto out;
		}
		if ((auth = aws_printf("Authorization: %s", tok)) == NULL)
			goto out;
		hdrs[0] = auth;
	}
	rc = 0;
	if (aws_http("GET", url, hdrs, AWS_META_CONNECT_MS, AWS_META_TOTAL_MS, 1, &body,
	    &status, why) == 0)
		rc = aws_creds_json(c, &body, "container", why);
out:
	free(url);
	aws_free_secret(ftok);
	aws_free_secret(auth);
	aws_buf_wipe(&body);
	return rc;
}

/* The text of the first <tag>...</tag> in an XML document, entities decoded; malloc'd. */
static char *
aws_xml_tag(const char *doc, const char *tag)
{
	static const struct {
		const char	*ent;
		char		 c;
	} ents[] = { { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
	    { "&quot;", '"' }, { "&apos;", '\'' } };
	char		 open[64], close[64];
	const char	*s, *e, *p;
	struct buf	 b;
	size_t		 i;

	if ((size_t)snprintf(open, sizeof(open), "<%s>", tag) >= sizeof(open) ||
	    (size_t)snprintf(close, sizeof(close), "</%s>", tag) >= sizeof(close) ||
	    (s = strstr(doc, open)) == NULL)
		return NULL;
	s += strlen(open);
	if ((e = strstr(s, close)) == NULL)
		return NULL;
	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	for (p = s; p < e; p++) {
		for (i = 0; *p == '&' && i < sizeof(ents) / sizeof(ents[0]); i++)
			if (strncmp(p, ents[i].ent, strlen(ents[i].ent)) == 0)
				break;
		if (*p == '&' && i < sizeof(ents) / sizeof(ents[0])) {
			if (buf_addc(&b, ents[i].c) == -1)
				goto fail;
			p += strlen(ents[i].ent) - 1;
		} else if (buf_addc(&b, *p) == -1)
			goto fail;
	}
	return buf_detach(&b);
fail:
	aws_buf_wipe(&b);
	return NULL;
}

static int
aws_try_web_identity(const char *region, struct aws_creds *c, struct buf *why)
{
	const char	*tokfile, *arn, *sess, *ep;
	char		*tok = NULL, *base = NULL, *akid = NULL, *secret = NULL;
	char		*stoken = NULL, *exp = NULL, *code = NULL;
	char		 defsess[64];
	struct buf	 url, body;
	long		 status;
	size_t		 n;
	int		 rc = -1;

	buf_init(&url);
	buf_init(&body);
	tokfile = aws_getenv("AWS_WEB_IDENTITY_TOKEN_FILE");
	arn = aws_getenv("AWS_ROLE_ARN");
	if (buf_adds(why, " web identity:") == -1)
		return -1;
	if (tokfile == NULL || arn == NULL)
		return buf_adds(why, " unset;") == -1 ? -1 : 0;
	if ((sess = aws_getenv("AWS_ROLE_SESSION_NAME")) == NULL) {
		snprintf(defsess, sizeof(defsess), "ctxd-%lld", (long long)time(NULL));
		sess = defsess;
	}
	if (region == NULL || *region == '\0')
		region = "us-east-1";
	if ((ep = aws_getenv("AWS_ENDPOINT_URL_STS")) != NULL)
		base = strdup(ep);
	else if (!aws_scope_word(region))
		return buf_adds(why, " bad region;") == -1 ? -1 : 0;
	else
		base = aws_printf("https://sts.%s.amazonaws.com", region);
	if (base == NULL)
		return -1;
	for (n = strlen(base); n > 0 && base[n - 1] == '/'; n--)
		base[n - 1] = '\0';
	if (util_read_file(tokfile, AWS_MAX_FILE, &tok, NULL) == -1) {
		rc = buf_printf(why, " cannot read %s: %s;", tokfile,
		    strerror(errno)) == -1 ? -1 : 0;
		goto out;
	}
	if (buf_printf(&url, "%s/?Action=AssumeRoleWithWebIdentity&Version=2011-06-15"
	    "&RoleArn=", base) == -1 || aws_uri_encode(&url, arn, strlen(arn)) == -1 ||
	    buf_adds(&url, "&RoleSessionName=") == -1 ||
	    aws_uri_encode(&url, sess, strlen(sess)) == -1 ||
	    buf_adds(&url, "&WebIdentityToken=") == -1 ||
	    aws_uri_encode(&url, aws_trim(tok), strlen(aws_trim(tok))) == -1)
		goto out;
	rc = 0;
	if (aws_http("GET", url.p, NULL, AWS_STS_CONNECT_MS, AWS_STS_TOTAL_MS, 0, &body,
	    &status, why) == -1) {
		if (body.p != NULL && (code = aws_xml_tag(body.p, "Code")) != NULL &&
		    aws_header_safe(code) && strlen(code) < 100)
			buf_printf(why, " STS error %s;", code);
		goto out;
	}
	if (body.p != NULL) {
		akid = aws_xml_tag(body.p, "AccessKeyId");
		secret = aws_xml_tag(body.p, "SecretAccessKey");
		stoken = aws_xml_tag(body.p, "SessionToken");
		exp = aws_xml_tag(body.p, "Expiration");
	}
	if (aws_creds_set(c, akid, secret, stoken, exp, "web identity") == -1)
		rc = buf_adds(why, " STS answer lacks credentials;") == -1 ? -1 : 0;
	else
		rc = 1;
out:
	aws_free_secret(tok);
	free(base);
	aws_free_secret(akid);
	aws_free_secret(secret);
	aws_free_secret(stoken);
	free(exp);
	free(code);
	aws_buf_wipe(&url);
	aws_buf_wipe(&body);
	return rc;
}

/* An IAM role name: [A-Za-z0-9+=,.@_-], 1 to 128 characters. */
static int
aws_role_name_ok(const char *s)
{
	size_t	 n = strlen(s), i;

	if (n == 0 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("+=,.@_-", s[i]) == NULL)
			return 0;
	return 1;
}

static int
aws_try_imds(struct aws_creds *c, struct buf *why)
{
	const char	*dis, *ep;
	const char	*hdrs[2] = { NULL, NULL };
	char		*base = NULL, *url = NULL, *tokhdr = NULL, *role;
	struct buf	 body;
	long		 status;
	size_t		 n;
	int		 rc = -1;

	buf_init(&body);
	if (buf_adds(why, " instance metadata:") == -1)
		return -1;
	if ((dis = aws_getenv("AWS_EC2_METADATA_DISABLED")) != NULL &&
	    strcasecmp(dis, "true") == 0)
		return buf_adds(why, " disabled;") == -1 ? -1 : 0;
	ep = aws_getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT");
	if ((base = strdup(ep != NULL ? ep : AWS_IMDS_DEFAULT)) == NULL)
		return -1;
	for (n = strlen(base); n > 0 && base[n - 1] == '/'; n--)
		base[n - 1] = '\0';

	if ((url = aws_printf("%s/latest/api/token", base)) == NULL)
		goto out;
	hdrs[0] = "X-aws-ec2-metadata-token-ttl-seconds: 21600";
	rc = 0;
	if (aws_http("PUT", url, hdrs, AWS_META_CONNECT_MS, AWS_META_TOTAL_MS, 1, &body,
	    &status, why) == -1)
		goto out;
	rc = -1;
	if (body.p == NULL || !aws_header_safe(aws_trim(body.p)) ||
	    *aws_trim(body.p) == '\0') {
		rc = buf_adds(why, " bad session token;") == -1 ? -1 : 0;
		goto out;
	}
	if ((tokhdr = aws_printf("X-aws-ec2-metadata-token: %s", aws_trim(body.p))) == NULL)
		goto out;
	hdrs[0] = tokhdr;
	aws_buf_wipe(&body);
	free(url);
	if ((url = aws_printf("%s/latest/meta-data/iam/security-credentials/", base)) == NULL)
		goto out;
	rc = 0;
	if (aws_http("GET", url, hdrs, AWS_META_CONNECT_MS, AWS_META_TOTAL_MS, 1, &body,
	    &status, why) == -1)
		goto out;
	rc = -1;
	role = body.p != NULL ? aws_trim(body.p) : NULL;
	if (role != NULL)
		role[strcspn(role, "\r\n")] = '\0';
	if (role == NULL || !aws_role_name_ok(role)) {
		rc = buf_adds(why, " no valid IAM role name;") == -1 ? -1 : 0;
		goto out;
	}
	free(url);
	if ((url = aws_printf("%s/latest/meta-data/iam/security-credentials/%s", base,
	    role)) == NULL)
		goto out;
	aws_buf_wipe(&body);
	rc = 0;
	if (aws_http("GET", url, hdrs, AWS_META_CONNECT_MS, AWS_META_TOTAL_MS, 1, &body,
	    &status, why) == -1)
		goto out;
	rc = aws_creds_json(c, &body, "instance metadata", why);
out:
	free(base);
	free(url);
	aws_free_secret(tokhdr);
	aws_buf_wipe(&body);
	return rc;
}

int
aws_creds_load(const char *region, struct aws_creds *c, char *err, size_t errsz)
{
	const char	*bt, *ak, *sk;
	struct buf	 why;
	int		 r;

	buf_init(&why);
	memset(c, 0, sizeof(*c));
	if ((bt = aws_getenv("AWS_BEARER_TOKEN_BEDROCK")) != NULL) {
		if ((c->bearer_token = strdup(bt)) == NULL)
			goto nomem;
		snprintf(c->source, sizeof(c->source), "bearer token");
		return 0;
	}
	if (buf_adds(&why, "bearer token: unset; environment:") == -1)
		goto nomem;
	ak = aws_getenv("AWS_ACCESS_KEY_ID");
	sk = aws_getenv("AWS_SECRET_ACCESS_KEY");
	if (ak != NULL && sk != NULL) {
		if (aws_creds_set(c, ak, sk, aws_getenv("AWS_SESSION_TOKEN"), NULL,
		    "environment") == -1)
			goto nomem;
		buf_release(&why);
		return 0;
	}
	if (buf_adds(&why, ak != NULL || sk != NULL ? " incomplete; " : " unset; ") == -1)
		goto nomem;
	if ((r = aws_try_profile(c, &why)) == -1)
		goto nomem;
	if (r == 0 && (r = aws_try_container(c, &why)) == -1)
		goto nomem;
	if (r == 0 && (r = aws_try_web_identity(region, c, &why)) == -1)
		goto nomem;
	if (r == 0 && (r = aws_try_imds(c, &why)) == -1)
		goto nomem;
	if (r == 1) {
		buf_release(&why);
		return 0;
	}
	if (why.len > 0 && why.p[why.len - 1] == ';')
		why.p[--why.len] = '\0';
	aws_seterr(err, errsz, "no AWS credentials found (tried %s)", why.p);
	buf_release(&why);
	aws_creds_release(c);
	return -1;
nomem:
	aws_creds_release(c);
	buf_release(&why);
	aws_seterr(err, errsz, "out of memory while loading AWS credentials");
	return -1;
}
