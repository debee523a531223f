/*
 * fetch.c: the one HTTP client engine over libcurl (see fetch.h): a multi handle, deadlines,
 * size caps, retries with backoff and Retry-After, a redirect policy, secret scrubbing and
 * the address policy hook.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "net/fetch.h"

/* Per-request secrets: values of credential headers (whole and last word), URL parts. */
#define FETCH_XSECRETS	(2 * FETCH_MAX_HEADERS + 8)

enum { XF_WAIT, XF_RUN, XF_DONE };

/* The engine's state of one request. */
struct fetch_xfer {
	struct fetch		*f;
	struct fetch_req	*req;
	CURL			*easy;
	struct curl_slist	*hdrs;
	char			*url;		/* the URL of the next try or hop (malloc'd) */
	int			 cross;		/* url left the first scheme/host/port */
	int			 get;		/* a redirect turned the request into a GET */
	int			 hops;		/* redirects followed */
	int			 state;
	long long		 at;		/* not started before (monotonic ms) */
	long long		 deadline;
	int			 toobig;
	int			 refused;	/* the address policy refused an address */
	char			 refused_addr[INET6_ADDRSTRLEN];
	char			 curlerr[CURL_ERROR_SIZE];
	char			*secrets[FETCH_XSECRETS + 1];	/* NULL-ended, malloc'd */
	size_t			 nsecrets;
};

/* Failure of one try: its class, whether a retry may help, its message. */
struct fetch_fail {
	int		 result;
	unsigned	 retry;		/* FETCH_RETRY_* class, 0: never retried */
	long long	 retry_after;	/* ms, from Retry-After */
};

static int	fetch_inited;
/* fetch_policy_use's policy (the caller's), or NULL. */
static const struct fetch_policy *fetch_process_policy;

int
fetch_global_init(void)
{
	if (fetch_inited)
		return 0;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -1;
	fetch_inited = 1;
	return 0;
}

void
fetch_global_cleanup(void)
{
	if (!fetch_inited)
		return;
	curl_global_cleanup();
	fetch_inited = 0;
}

void
fetch_init(struct fetch *f)
{
	memset(f, 0, sizeof(*f));
}

void
fetch_release(struct fetch *f)
{
	fetch_init(f);
}

int
fetch_secret(struct fetch *f, const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	if (f->nsecrets >= FETCH_MAX_SECRETS)
		return -1;
	f->secrets[f->nsecrets++] = s;
	f->secrets[f->nsecrets] = NULL;
	return 0;
}

void
fetch_req_init(struct fetch_req *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->answer);
	buf_init(&r->answer_headers);
}

void
fetch_req_release(struct fetch_req *r)
{
	if (r->answer.p != NULL)
		explicit_bzero(r->answer.p, r->answer.cap);
	buf_release(&r->answer);
	if (r->answer_headers.p != NULL)
		explicit_bzero(r->answer_headers.p, r->answer_headers.cap);
	buf_release(&r->answer_headers);
	free(r->final_url);
	r->final_url = NULL;
}

int
fetch_answer_header(const struct fetch_req *r, const char *name, char *out, size_t sz)
{
	const char	*p = r->answer_headers.p, *e, *v, *ve;
	size_t		 n = strlen(name), len;
	int		 found = 0;

	if (sz > 0)
		out[0] = '\0';
	for (; p != NULL && *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		e = p + strcspn(p, "\n");
		if ((size_t)(e - p) <= n || strncasecmp(p, name, n) != 0 || p[n] != ':')
			continue;
		for (v = p + n + 1; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		for (ve = e; ve > v && (ve[-1] == '\r' || ve[-1] == ' ' ||
		    ve[-1] == '\t'); ve--)
			;
		len = (size_t)(ve - v);
		if (sz > 0) {
			if (len >= sz)
				len = sz - 1;
			memcpy(out, v, len);
			out[len] = '\0';
		}
		found = 1;
	}
	return found;
}

static long long
fetch_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ scrubbing */

/* Cuts a tail of s that is the start of secret (4 bytes or more). */
static void
fetch_cut_partial(char *s, const char *secret)
{
	size_t	 n = strlen(s), m = strlen(secret), k;

	for (k = (n < m ? n : m - 1); k >= 4; k--)
		if (memcmp(s + n - k, secret, k) == 0) {
			s[n - k] = '\0';
			return;
		}
}

/* A secret's start this long is as good as the secret: it is redacted wherever it is. */
#define FETCH_SCRUB_PREFIX	8

/*
 * Replaces in s every occurrence of needle, and of its first FETCH_SCRUB_PREFIX bytes or
 * more, with red (into b); 0, or -1 when out of memory.
 */
static int
fetch_scrub_needle(struct buf *b, const char *s, const char *needle, const char *red)
{
	size_t	 n = strlen(needle), min = n < FETCH_SCRUB_PREFIX ? n : FETCH_SCRUB_PREFIX;
	size_t	 k;
	const char *p = s, *from = s;

	buf_init(b);
	if (buf_add(b, "", 0) == -1)
		return -1;
	while (*p != '\0') {
		for (k = 0; k < n && p[k] == needle[k]; k++)
			;
		if (k < min) {
			p++;
			continue;
		}
		if (buf_add(b, from, (size_t)(p - from)) == -1 || buf_adds(b, red) == -1)
			return -1;
		p += k;
		from = p;
	}
	return buf_adds(b, from);
}

/*
 * The secret's base64 forms (standard and URL alphabets) as they show inside a longer
 * encoded text (an Authorization: Basic header encodes "user:secret"): for each of the
 * three alignments, the characters only the secret's bytes decide. Into out[6]
 * (malloc'd, NULL when too short to tell), -1 when out of memory.
 */
static int
fetch_scrub_b64(const char *secret, char *out[6])
{
	static const char std[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char url[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t		 n = strlen(secret), k, t, i, first, last, bit;
	unsigned	 v;
	const unsigned char *sec = (const unsigned char *)secret;
	int		 a;

	for (i = 0; i < 6; i++)
		out[i] = NULL;
	for (k = 0; k < 3; k++) {
		t = k + n;			/* k bytes before the secret */
		first = (8 * k + 5) / 6;	/* characters wholly of the secret's bits */
		last = 8 * t / 6;
		if (last < first + FETCH_SCRUB_PREFIX)
			continue;
		for (a = 0; a < 2; a++) {
			if ((out[k * 2 + a] = malloc(last - first + 1)) == NULL)
				return -1;
			for (i = first; i < last; i++) {
				for (v = 0, bit = 6 * i; bit < 6 * i + 6; bit++)
					v = v << 1 | (bit / 8 < k ? 0u :
					    (sec[bit / 8 - k] >> (7 - bit % 8)) & 1u);
				out[k * 2 + a][i - first] = (a ? url : std)[v];
			}
			out[k * 2 + a][last - first] = '\0';
		}
	}
	return 0;
}

void
fetch_scrub(char *s, size_t sz, const char *secret)
{
	static const char	 red[] = "[redacted]";
	struct buf		 b;
	char			*forms[7] = { NULL };
	size_t			 i;

	if (s == NULL || sz == 0 || secret == NULL || *secret == '\0')
		return;
	/* The secret, its start of 8 bytes or more, its base64 forms (when long enough). */
	forms[0] = (char *)(uintptr_t)secret;
	if (strlen(secret) >= FETCH_SCRUB_PREFIX && fetch_scrub_b64(secret, forms + 1) == -1)
		goto fail;
	for (i = 0; i < 7; i++) {
		if (forms[i] == NULL)
			continue;
		if (fetch_scrub_needle(&b, s, forms[i], red) == -1) {
			buf_release(&b);
			goto fail;
		}
		snprintf(s, sz, "%s", b.p);
		buf_release(&b);
	}
	fetch_cut_partial(s, secret);
	for (i = 1; i < 7; i++)
		free(forms[i]);
	return;
fail:
	/* Without memory, drop the text rather than leak the secret. */
	snprintf(s, sz, "%s", red);
	for (i = 1; i < 7; i++)
		free(forms[i]);
}

/* Removes every secret the run and the request know of from s. */
static void
fetch_scrub_all(const struct fetch_xfer *x, char *s, size_t sz)
{
	size_t	 i;

	for (i = 0; i < x->f->nsecrets; i++)
		fetch_scrub(s, sz, x->f->secrets[i]);
	for (i = 0; i < x->nsecrets; i++)
		fetch_scrub(s, sz, x->secrets[i]);
}

/* Sets the request's result and its message (formatted, then scrubbed). */
static void
fetch_fail_msg(struct fetch_xfer *x, int result, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
fetch_fail_msg(struct fetch_xfer *x, int result, const char *fmt, ...)
{
	va_list	 ap;

	x->req->result = result;
	va_start(ap, fmt);
	vsnprintf(x->req->error, sizeof(x->req->error), fmt, ap);
	va_end(ap);
	fetch_scrub_all(x, x->req->error, sizeof(x->req->error));
	fetch_scrub_all(x, x->req->reason, sizeof(x->req->reason));
}

/* Adds a copy of s[0..n) to the request's secrets (n 0: ignored). */
static int
fetch_xsecret(struct fetch_xfer *x, const char *s, size_t n)
{
	if (n == 0 || x->nsecrets >= FETCH_XSECRETS)
		return 0;
	if ((x->secrets[x->nsecrets] = strndup(s, n)) == NULL)
		return -1;
	x->nsecrets++;
	return 0;
}

/* 1 when a header line carries a credential by its name. */
static int
fetch_credential_header(const char *line)
{
	static const char *const names[] = { "authorization:", "proxy-authorization:",
	    "cookie:" };
	size_t	 i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncasecmp(line, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

/* 1 when header i of r is a credential: marked secret or named so. */
static int
fetch_header_secret(const struct fetch_req *r, size_t i)
{
	return (i < sizeof(r->secret_headers) * 8 && (r->secret_headers & (1u << i))) ||
	    fetch_credential_header(r->headers[i]);
}

/* The value of a header line and its last word, as secrets. */
static int
fetch_header_secrets(struct fetch_xfer *x, const char *line)
{
	const char	*v = strchr(line, ':'), *w;
	size_t		 n;

	if (v == NULL)
		return 0;
	for (v++; *v == ' ' || *v == '\t'; v++)
		;
	n = strlen(v);
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (fetch_xsecret(x, v, n) == -1)
		return -1;
	for (w = v + n; w > v && w[-1] != ' '; w--)
		;
	return w > v ? fetch_xsecret(x, w, (size_t)(v + n - w)) : 0;
}

/* The URL's password, query and long query values, as secrets. */
static int
fetch_url_secrets(struct fetch_xfer *x, const char *url)
{
	CURLU		*u;
	char		*pw = NULL, *q = NULL, *p, *e;
	int		 rc = -1;

	if ((u = curl_url()) == NULL)
		return -1;
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		rc = 0;
		goto out;
	}
	if (curl_url_get(u, CURLUPART_PASSWORD, &pw, 0) == CURLUE_OK &&
	    fetch_xsecret(x, pw, strlen(pw)) == -1)
		goto out;
	if (curl_url_get(u, CURLUPART_QUERY, &q, 0) == CURLUE_OK) {
		if (fetch_xsecret(x, q, strlen(q)) == -1)
			goto out;
		for (p = q; p != NULL && *p != '\0'; p = *e ? e + 1 : NULL) {
			e = p + strcspn(p, "&");
			if ((p = memchr(p, '=', (size_t)(e - p))) != NULL && e - p > 8 &&
			    fetch_xsecret(x, p + 1, (size_t)(e - p - 1)) == -1)
				goto out;
		}
	}
	rc = 0;
out:
	if (pw != NULL)
		explicit_bzero(pw, strlen(pw));
	curl_free(pw);
	curl_free(q);
	curl_url_cleanup(u);
	return rc;
}

void
fetch_host(const char *url, char *out, size_t sz)
{
	const char	*p = strstr(url, "://"), *at;
	size_t		 n;

	p = p != NULL ? p + 3 : url;
	n = strcspn(p, "/?#");
	if ((at = memchr(p, '@', n)) != NULL) {
		n -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	snprintf(out, sz, "%.*s", (int)n, p);
}

char *
fetch_escape(const char *s)
{
	char	*e, *r;

	if ((e = curl_easy_escape(NULL, s, 0)) == NULL)
		return NULL;
	r = strdup(e);
	curl_free(e);
	return r;
}

/* ------------------------------------------------------------ one transfer */

static size_t
fetch_write(char *p, size_t size, size_t nmemb, void *arg)
{
	struct fetch_xfer	*x = arg;
	size_t			 n = size * nmemb;
	size_t			 max = x->req->max_size ? x->req->max_size :
				    (size_t)FETCH_MAX_SIZE;

	if (n > max || x->req->answer.len + n > max) {
		x->toobig = 1;
		return 0;
	}
	if (buf_add(&x->req->answer, p, n) == -1)
		return 0;
	return n;
}

/* Keeps the header lines of the answer (a new status line starts them again). */
static size_t
fetch_header_line(char *p, size_t size, size_t nmemb, void *arg)
{
	struct fetch_xfer	*x = arg;
	size_t			 n = size * nmemb;
	struct buf		*h = &x->req->answer_headers;

	if (n >= 5 && strncmp(p, "HTTP/", 5) == 0)
		buf_reset(h);
	if (h->len + n <= FETCH_MAX_HEADER_BYTES && memchr(p, '\0', n) == NULL)
		buf_add(h, p, n);
	return n;
}

/*
 * libcurl's socket opener: asks the address policy (the run's, else the process-wide one)
 * about the resolved address first. A refused address gets no socket (libcurl then tries
 * the next one, or fails to connect).
 */
static curl_socket_t
fetch_opensocket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct fetch_xfer	*x = arg;
	fetch_allow_fn		 allow = x->f->allow;
	void			*allow_arg = x->f->allow_arg;

	if (allow == NULL && fetch_process_policy != NULL) {
		allow = fetch_policy_allow;
		allow_arg = (void *)(uintptr_t)fetch_process_policy;
	}
	if (purpose == CURLSOCKTYPE_IPCXN && allow != NULL &&
	    !allow(allow_arg, &a->addr, a->addrlen)) {
		x->refused = 1;
		fetch_addr_text(&a->addr, x->refused_addr, sizeof(x->refused_addr));
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* Frees a header list, zeroing each line first (they may carry credentials). */
static void
fetch_slist_free(struct curl_slist *l)
{
	struct curl_slist	*p;

	for (p = l; p != NULL; p = p->next)
		if (p->data != NULL)
			explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(l);
}

static int
fetch_slist_add(struct curl_slist **l, const char *line)
{
	struct curl_slist	*t;

	if ((t = curl_slist_append(*l, line)) == NULL)
		return -1;
	*l = t;
	return 0;
}

/*
 * x->hdrs for the next try or hop: the request's headers (without the credentials once
 * the URL left the first origin), the pretry hook's, and "Expect:" with a body.
 */
static int
fetch_headers(struct fetch_xfer *x)
{
	struct fetch_req	*r = x->req;
	char			 err[256];
	size_t			 i;

	fetch_slist_free(x->hdrs);
	x->hdrs = NULL;
	for (i = 0; i < FETCH_MAX_HEADERS && r->headers[i] != NULL; i++) {
		if (x->cross && fetch_header_secret(r, i))
			continue;
		if (fetch_slist_add(&x->hdrs, r->headers[i]) == -1)
			goto nomem;
	}
	if (r->body != NULL && !x->get && fetch_slist_add(&x->hdrs, "Expect:") == -1)
		goto nomem;
	if (r->pretry != NULL && !x->cross) {
		err[0] = '\0';
		if (r->pretry(r->pretry_arg, r, x->url, &x->hdrs, err, sizeof(err)) == -1) {
			fetch_fail_msg(x, FETCH_EINTERNAL, "%s", err);
			return -1;
		}
	}
	return 0;
nomem:
	fetch_fail_msg(x, FETCH_EINTERNAL, "out of memory");
	return -1;
}

/* The method and body options of the next try or hop. */
static void
fetch_method(struct fetch_xfer *x)
{
	struct fetch_req	*r = x->req;
	const char		*m = r->method;

	if (m == NULL)
		m = r->body != NULL ? "POST" : "GET";
	if (x->get || strcmp(m, "GET") == 0) {
		curl_easy_setopt(x->easy, CURLOPT_HTTPGET, 1L);
		return;
	}
	if (strcmp(m, "POST") != 0)
		curl_easy_setopt(x->easy, CURLOPT_CUSTOMREQUEST, m);
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, r->body != NULL ?
	    (const char *)r->body : "");
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE,
	    (curl_off_t)(r->body != NULL ? r->bodylen : 0));
}

/* Starts the next try or hop of x on the multi handle. */
static int
fetch_start(CURLM *multi, struct fetch_xfer *x)
{
	struct fetch_req	*r = x->req;
	long long		 left = x->deadline - fetch_now_ms();
	long			 conn = r->connect_ms > 0 ? r->connect_ms : FETCH_CONNECT_MS;

	if (left < 1)
		left = 1;
	buf_reset(&r->answer);
	buf_reset(&r->answer_headers);
	r->result = FETCH_OK;
	r->status = 0;
	r->error[0] = r->reason[0] = '\0';
	if (x->hops == 0)
		r->ntries++;
	x->toobig = x->refused = 0;
	x->curlerr[0] = '\0';
	if (fetch_headers(x) == -1)
		return -1;
	if (x->easy == NULL && (x->easy = curl_easy_init()) == NULL)
		goto nomem;
	curl_easy_reset(x->easy);
	curl_easy_setopt(x->easy, CURLOPT_URL, x->url);
	fetch_method(x);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, fetch_write);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, fetch_header_line);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_OPENSOCKETFUNCTION, fetch_opensocket);
	curl_easy_setopt(x->easy, CURLOPT_OPENSOCKETDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->curlerr);
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)left);
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)(left < conn ? left :
	    conn));
	curl_easy_setopt(x->easy, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(x->easy, CURLOPT_UNRESTRICTED_AUTH, 0L);
	curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_USERAGENT, r->user_agent != NULL ?
	    r->user_agent : "ctxd");
	curl_easy_setopt(x->easy, CURLOPT_ACCEPT_ENCODING, "");
	if (r->noproxy)
		curl_easy_setopt(x->easy, CURLOPT_NOPROXY, "*");
	if (curl_multi_add_handle(multi, x->easy) != CURLM_OK)
		goto nomem;
	x->state = XF_RUN;
	return 0;
nomem:
	fetch_fail_msg(x, FETCH_EINTERNAL, "out of memory");
	return -1;
}

/* Class of a transfer failure, and whether a retry may help. */
static void
fetch_classify(const struct fetch_xfer *x, CURLcode cc, struct fetch_fail *ff)
{
	ff->retry = 0;
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		ff->result = FETCH_EDNS;
		break;
	case CURLE_COULDNT_CONNECT:
		ff->result = x->refused ? FETCH_EPOLICY : FETCH_ECONNECT;
		ff->retry = x->refused ? 0 : FETCH_RETRY_CONNECT;
		break;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_USE_SSL_FAILED:
		ff->result = FETCH_ETLS;
		break;
	case CURLE_OPERATION_TIMEDOUT:
		ff->result = FETCH_ETIMEOUT;
		ff->retry = FETCH_RETRY_TRANSFER;
		break;
	case CURLE_WRITE_ERROR:
		ff->result = x->toobig ? FETCH_ETOOBIG : FETCH_EINTERNAL;
		break;
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		ff->result = FETCH_ENETWORK;
		ff->retry = FETCH_RETRY_TRANSFER;
		break;
	default:
		ff->result = FETCH_ENETWORK;
		break;
	}
}

/* The message of a transfer failure (ff->result set). */
static void
fetch_curl_msg(struct fetch_xfer *x, CURLcode cc, const struct fetch_fail *ff)
{
	struct fetch_req	*r = x->req;
	size_t			 max = r->max_size ? r->max_size : (size_t)FETCH_MAX_SIZE;
	char			 host[256];

	snprintf(r->reason, sizeof(r->reason), "%s", curl_easy_strerror(cc));
	if (ff->result == FETCH_EPOLICY) {
		fetch_host(x->url, host, sizeof(host));
		fetch_fail_msg(x, ff->result, "address %s of host %s is not allowed by "
		    FETCH_POLICY_SETTING, x->refused_addr, host);
	} else if (ff->result == FETCH_ETOOBIG)
		fetch_fail_msg(x, ff->result, "the answer is larger than %zu bytes", max);
	else if (ff->result == FETCH_EINTERNAL && cc == CURLE_WRITE_ERROR)
		fetch_fail_msg(x, ff->result, "out of memory");
	else if (cc == CURLE_OPERATION_TIMEDOUT && r->timeout_setting != NULL)
		fetch_fail_msg(x, ff->result, "no complete answer within %.1f s (setting %s)",
		    (double)(r->timeout_ms > 0 ? r->timeout_ms : FETCH_TIMEOUT_MS) / 1000,
		    r->timeout_setting);
	else
		fetch_fail_msg(x, ff->result, "%s", x->curlerr[0] ? x->curlerr :
		    curl_easy_strerror(cc));
}

/* 1 when URLs a and b differ in scheme, host or port (or one does not parse). */
static int
fetch_cross_origin(const char *a, const char *b)
{
	static const CURLUPart parts[] = { CURLUPART_SCHEME, CURLUPART_HOST,
	    CURLUPART_PORT };
	CURLU		*ua = curl_url(), *ub = curl_url();
	char		*pa, *pb;
	size_t		 i;
	int		 cross = 1;

	if (ua == NULL || ub == NULL ||
	    curl_url_set(ua, CURLUPART_URL, a, 0) != CURLUE_OK ||
	    curl_url_set(ub, CURLUPART_URL, b, 0) != CURLUE_OK)
		goto out;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		pa = pb = NULL;
		curl_url_get(ua, parts[i], &pa, CURLU_DEFAULT_PORT);
		curl_url_get(ub, parts[i], &pb, CURLU_DEFAULT_PORT);
		cross = pa == NULL || pb == NULL || strcasecmp(pa, pb) != 0;
		curl_free(pa);
		curl_free(pb);
		if (cross)
			goto out;
	}
out:
	curl_url_cleanup(ua);
	curl_url_cleanup(ub);
	return cross;
}

/*
 * A 3xx answer when redirects are followed: 1 when x is set for the next hop, 0 when the
 * answer has no Location (it is the answer), -1 when the redirect is refused (x failed).
 */
static int
fetch_redirect(struct fetch_xfer *x, long status)
{
	struct fetch_req	*r = x->req;
	const char		*m = r->method != NULL ? r->method :
				    r->body != NULL ? "POST" : "GET";
	char			*loc = NULL, *next;

	if (curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc) != CURLE_OK ||
	    loc == NULL)
		return 0;
	if (x->hops >= r->redirects) {
		fetch_fail_msg(x, FETCH_EREDIRECT, "more than %d redirects", r->redirects);
		return -1;
	}
	if (strncasecmp(loc, "http://", 7) != 0 && strncasecmp(loc, "https://", 8) != 0) {
		fetch_fail_msg(x, FETCH_EREDIRECT, "a redirect to a scheme other than "
		    "http or https");
		return -1;
	}
	if ((next = strdup(loc)) == NULL || fetch_url_secrets(x, next) == -1) {
		free(next);
		fetch_fail_msg(x, FETCH_EINTERNAL, "out of memory");
		return -1;
	}
	x->cross = fetch_cross_origin(r->url, next);
	if (status == 303 || ((status == 301 || status == 302) && strcmp(m, "POST") == 0))
		x->get = 1;
	free(x->url);
	x->url = next;
	x->hops++;
	return 1;
}

/* Delay before the next try: exponential with jitter, at least retry_after. */
static long long
fetch_backoff(int ntries, long long retry_after)
{
	uint32_t	 rnd = 0;
	long long	 base, d;

	base = FETCH_BACKOFF_MS << (ntries > 1 ? (ntries - 1 < 20 ? ntries - 1 : 20) : 0);
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd = (uint32_t)fetch_now_ms();
	d = base / 2 + (long long)(rnd % (uint32_t)(base / 2 + 1));
	return d > retry_after ? d : retry_after;
}

/*
 * Handles one finished try or hop of x: the next hop, a retry after a backoff (state
 * XF_WAIT), or the end (XF_DONE, with its result).
 */
static void
fetch_finish(CURLM *multi, struct fetch_xfer *x, CURLcode cc)
{
	struct fetch_req	*r = x->req;
	struct fetch_fail	 ff;
	curl_off_t		 ra = 0;
	long long		 now = fetch_now_ms(), delay;
	unsigned		 allowed = r->retry ? r->retry : FETCH_RETRY_ALL;
	int			 tries = r->tries > 1 ? r->tries : 1;

	curl_multi_remove_handle(multi, x->easy);
	x->state = XF_DONE;
	memset(&ff, 0, sizeof(ff));
	if (cc == CURLE_OK) {
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &r->status);
		if (r->status >= 300 && r->status < 400 && r->redirects > 0) {
			switch (fetch_redirect(x, r->status)) {
			case 1:
				x->state = XF_WAIT;
				x->at = now;
				return;
			case -1:
				return;
			}
		}
		if (r->status != 408 && r->status != 429 && r->status < 500)
			return;
		ff.retry = FETCH_RETRY_HTTP;
		if (curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK &&
		    ra > 0)
			ff.retry_after = (long long)ra * 1000;
	} else {
		fetch_classify(x, cc, &ff);
		fetch_curl_msg(x, cc, &ff);
	}
	if (!(ff.retry & allowed) || r->ntries >= tries)
		return;
	delay = fetch_backoff(r->ntries, ff.retry_after);
	if (now + delay >= x->deadline)
		return;
	x->state = XF_WAIT;
	x->at = now + delay;
	x->hops = 0;
	x->get = 0;
	x->cross = 0;
	free(x->url);
	if ((x->url = strdup(r->url)) == NULL) {
		x->state = XF_DONE;
		fetch_fail_msg(x, FETCH_EINTERNAL, "out of memory");
	}
}

/* ------------------------------------------------------------ the run */

/* Prepares x for r: its URL, its secrets, its deadline from start. */
static int
fetch_xfer_setup(struct fetch *f, struct fetch_xfer *x, struct fetch_req *r,
    long long start)
{
	size_t	 i;

	x->f = f;
	x->req = r;
	x->state = XF_WAIT;
	x->at = start;
	x->deadline = start + (r->timeout_ms > 0 ? r->timeout_ms : FETCH_TIMEOUT_MS);
	r->result = FETCH_OK;
	r->status = 0;
	r->ntries = 0;
	r->error[0] = r->reason[0] = '\0';
	buf_reset(&r->answer);
	if (r->url == NULL) {
		x->state = XF_DONE;
		fetch_fail_msg(x, FETCH_EINTERNAL, "no URL");
		return 0;
	}
	for (i = 0; i < FETCH_MAX_HEADERS && r->headers[i] != NULL; i++)
		if (fetch_header_secret(r, i) && fetch_header_secrets(x, r->headers[i]) == -1)
			return -1;
	if ((x->url = strdup(r->url)) == NULL || fetch_url_secrets(x, r->url) == -1)
		return -1;
	return 0;
}

static void
fetch_xfers_free(CURLM *multi, struct fetch_xfer *xs, size_t n)
{
	size_t	 i, j;

	for (i = 0; xs != NULL && i < n; i++) {
		if (xs[i].state == XF_RUN && multi != NULL)
			curl_multi_remove_handle(multi, xs[i].easy);
		if (xs[i].easy != NULL)
			curl_easy_cleanup(xs[i].easy);
		fetch_slist_free(xs[i].hdrs);
		if (xs[i].req != NULL && xs[i].url != NULL) {
			free(xs[i].req->final_url);
			xs[i].req->final_url = xs[i].url;
			xs[i].url = NULL;
		}
		free(xs[i].url);
		for (j = 0; j < xs[i].nsecrets; j++) {
			explicit_bzero(xs[i].secrets[j], strlen(xs[i].secrets[j]));
			free(xs[i].secrets[j]);
		}
	}
	free(xs);
}

/* Ends every unfinished request with FETCH_ESTOPPED. */
static void
fetch_stop(CURLM *multi, struct fetch_xfer *xs, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (xs[i].state == XF_DONE)
			continue;
		if (xs[i].state == XF_RUN)
			curl_multi_remove_handle(multi, xs[i].easy);
		xs[i].state = XF_DONE;
		fetch_fail_msg(&xs[i], FETCH_ESTOPPED, "stopped: another request failed");
	}
}

/*
 * Starts the waiting requests that are due, within the in-flight limit; ends those past
 * their deadline. Returns how long to wait at most (ms) for the next thing to do.
 */
static long long
fetch_schedule(struct fetch *f, CURLM *multi, struct fetch_xfer *xs, size_t n)
{
	size_t		 i, running = 0, max = f->inflight ? f->inflight : FETCH_INFLIGHT;
	long long	 now = fetch_now_ms(), wait = 1000;
	struct fetch_xfer *x;

	for (i = 0; i < n; i++)
		running += xs[i].state == XF_RUN;
	for (i = 0; i < n; i++) {
		x = &xs[i];
		if (x->state != XF_WAIT)
			continue;
		if (now >= x->deadline) {
			x->state = XF_DONE;
			fetch_fail_msg(x, FETCH_ETIMEOUT, "no answer within %ld ms",
			    x->req->timeout_ms > 0 ? x->req->timeout_ms :
			    FETCH_TIMEOUT_MS);
			continue;
		}
		if (x->at > now) {
			if (x->at - now < wait)
				wait = x->at - now;
			continue;
		}
		if (running >= max)
			continue;
		if (fetch_start(multi, x) == -1) {
			x->state = XF_DONE;
			continue;
		}
		running++;
	}
	return wait;
}

/* 1 when x ended without a 2xx answer. */
static int
fetch_failed(const struct fetch_xfer *x)
{
	return x->state == XF_DONE && (x->req->result != FETCH_OK || x->req->status < 200 ||
	    x->req->status > 299);
}

int
fetch_run(struct fetch *f, struct fetch_req *reqs, size_t n)
{
	struct fetch_xfer	*xs = NULL, *x;
	CURLM			*multi = NULL;
	CURLMsg			*msg;
	long long		 start = fetch_now_ms(), wait;
	size_t			 i, done;
	int			 still, left, rc = -1;

	if (n == 0)
		return 0;
	if (fetch_global_init() == -1 || (xs = calloc(n, sizeof(*xs))) == NULL ||
	    (multi = curl_multi_init()) == NULL)
		goto nomem;
	for (i = 0; i < n; i++)
		if (fetch_xfer_setup(f, &xs[i], &reqs[i], start) == -1)
			goto nomem;
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
	    (long)(f->inflight ? f->inflight : FETCH_INFLIGHT));
	for (;;) {
		wait = fetch_schedule(f, multi, xs, n);
		for (i = done = 0; i < n; i++) {
			done += xs[i].state == XF_DONE;
			if (f->failfast && fetch_failed(&xs[i])) {
				fetch_stop(multi, xs, n);
				done = n;
				break;
			}
		}
		if (done == n)
			break;
		if (curl_multi_perform(multi, &still) != CURLM_OK)
			goto nomem;
		done = 0;
		while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			x = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			if (x != NULL) {
				fetch_finish(multi, x, msg->data.result);
				done = 1;
			}
		}
		/* Something ended: schedule again before waiting. */
		if (done)
			continue;
		if (wait < 1)
			wait = 1;
		if (curl_multi_poll(multi, NULL, 0, (int)wait, NULL) != CURLM_OK)
			goto nomem;
	}
	rc = 0;
	for (i = 0; i < n; i++)
		if (reqs[i].result != FETCH_OK)
			rc = -1;
	goto out;
nomem:
	for (i = 0; i < n; i++) {
		reqs[i].result = FETCH_EINTERNAL;
		snprintf(reqs[i].error, sizeof(reqs[i].error), "out of memory");
	}
out:
	fetch_xfers_free(multi, xs, n);
	if (multi != NULL)
		curl_multi_cleanup(multi);
	return rc;
}

/* ------------------------------------------------------------ the address policy */

#define V4(a, b, c, d, bits)	{ AF_INET, { a, b, c, d }, bits }
#define V6(bits, ...)		{ AF_INET6, { __VA_ARGS__ }, bits }

/* Addresses that are not public: refused unless a listed network holds them. */
static const struct fetch_net fetch_special[] = {
	V4(0, 0, 0, 0, 8),		/* "this host" (0.0.0.0 reaches the loopback) */
	V4(10, 0, 0, 0, 8),		/* private */
	V4(100, 64, 0, 0, 10),		/* shared address space (carrier NAT) */
	V4(127, 0, 0, 0, 8),		/* loopback */
	V4(169, 254, 0, 0, 16),		/* link-local */
	V4(172, 16, 0, 0, 12),		/* private */
	V4(192, 0, 0, 0, 24),		/* IETF protocol assignments */
	V4(192, 0, 2, 0, 24),		/* documentation */
	V4(192, 88, 99, 0, 24),		/* 6to4 relay anycast */
	V4(192, 168, 0, 0, 16),		/* private */
	V4(198, 18, 0, 0, 15),		/* benchmarking */
	V4(198, 51, 100, 0, 24),	/* documentation */
	V4(203, 0, 113, 0, 24),		/* documentation */
	V4(224, 0, 0, 0, 4),		/* multicast */
	V4(240, 0, 0, 0, 4),		/* reserved, broadcast */
	V6(96, 0),			/* ::, ::1 and the IPv4-compatible ::/96 */
	V6(64, 0x01, 0x00),		/* discard-only 100::/64 */
	V6(23, 0x20, 0x01),		/* IETF protocol assignments 2001::/23 */
	V6(32, 0x20, 0x01, 0x0d, 0xb8),	/* documentation */
	V6(48, 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01),	/* local-use NAT64 */
	V6(7, 0xfc),			/* unique local fc00::/7 */
	V6(10, 0xfe, 0x80),		/* link-local fe80::/10 */
	V6(10, 0xfe, 0xc0),		/* site-local fec0::/10 */
	V6(8, 0xff),			/* multicast */
};

/* Cloud metadata and platform services: reached only when listed one by one. */
static const struct fetch_net fetch_metadata[] = {
	V4(169, 254, 169, 254, 32),	/* AWS, GCP, Azure, OpenStack ... */
	V4(169, 254, 170, 2, 32),	/* AWS ECS task credentials */
	V4(169, 254, 170, 23, 32),	/* AWS EKS pod identity */
	V4(100, 100, 100, 200, 32),	/* Alibaba Cloud */
	V4(168, 63, 129, 16, 32),	/* Azure platform (WireServer) */
	V4(192, 0, 0, 192, 32),		/* Oracle Cloud */
	V6(128, 0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54),
	V6(128, 0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x23),
};

#undef V4
#undef V6

/* Parses one "ADDRESS[/BITS]" of len bytes into *net. */
static int
fetch_net_parse(const char *s, size_t len, struct fetch_net *net)
{
	char		 a[INET6_ADDRSTRLEN + 8], *slash, *end;
	long		 bits;
	unsigned	 max;

	if (len == 0 || len >= sizeof(a))
		return -1;
	memcpy(a, s, len);
	a[len] = '\0';
	if ((slash = strchr(a, '/')) != NULL)
		*slash++ = '\0';
	memset(net, 0, sizeof(*net));
	if (inet_pton(AF_INET, a, net->addr) == 1) {
		net->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, a, net->addr) == 1) {
		net->family = AF_INET6;
		max = 128;
	} else
		return -1;
	net->prefix = max;
	if (slash != NULL) {
		errno = 0;
		bits = strtol(slash, &end, 10);
		if (*slash == '\0' || *end != '\0' || errno != 0 || bits < 0 ||
		    bits > (long)max)
			return -1;
		net->prefix = (unsigned)bits;
	}
	/* ::ffff:a.b.c.d/N is the IPv4 network a.b.c.d/(N - 96): addresses match as IPv4. */
	if (net->family == AF_INET6 && net->prefix >= 96 &&
	    IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)(const void *)net->addr)) {
		memmove(net->addr, net->addr + 12, 4);
		memset(net->addr + 4, 0, 12);
		net->family = AF_INET;
		net->prefix -= 96;
	}
	return 0;
}

int
fetch_policy_parse(const char *list, struct fetch_policy *p, char *err, size_t errsz)
{
	struct fetch_net	*t;
	const char		*s = list != NULL ? list : "";
	size_t			 len;

	memset(p, 0, sizeof(*p));
	for (;;) {
		s += strspn(s, ", \t\n");
		if (*s == '\0')
			return 0;
		len = strcspn(s, ", \t\n");
		if ((t = reallocarray(p->nets, p->n + 1, sizeof(*t))) == NULL) {
			snprintf(err, errsz, "out of memory");
			goto fail;
		}
		p->nets = t;
		if (fetch_net_parse(s, len, &p->nets[p->n]) == -1) {
			snprintf(err, errsz, "not a network: \"%.*s\" (ADDRESS or "
			    "ADDRESS/BITS)", (int)(len < 64 ? len : 64), s);
			goto fail;
		}
		p->n++;
		s += len;
	}
fail:
	fetch_policy_release(p);
	return -1;
}

void
fetch_policy_release(struct fetch_policy *p)
{
	free(p->nets);
	p->nets = NULL;
	p->n = 0;
}

/* 1 when the first bits of a and b are equal. */
static int
fetch_prefix_eq(const unsigned char *a, const unsigned char *b, unsigned bits)
{
	unsigned	 whole = bits / 8, rest = bits % 8;
	unsigned char	 mask;

	if (memcmp(a, b, whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	mask = (unsigned char)(0xff << (8 - rest));
	return (a[whole] & mask) == (b[whole] & mask);
}

/* The first of nets[0..n) that holds address a of family fam (exact: /32 or /128 only). */
static const struct fetch_net *
fetch_net_find(const struct fetch_net *nets, size_t n, int fam, const unsigned char *a,
    int exact)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (nets[i].family == fam && (!exact || nets[i].prefix ==
		    (fam == AF_INET ? 32u : 128u)) &&
		    fetch_prefix_eq(a, nets[i].addr, nets[i].prefix))
			return &nets[i];
	return NULL;
}

#define FETCH_NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* The policy's verdict on one address (fam, a), as fetch_policy_allow describes it. */
static int
fetch_policy_judge(const struct fetch_policy *p, int fam, const unsigned char *a)
{
	if (fetch_net_find(fetch_metadata, FETCH_NELEM(fetch_metadata), fam, a, 0) != NULL)
		return fetch_net_find(p->nets, p->n, fam, a, 1) != NULL;
	if (fetch_net_find(p->nets, p->n, fam, a, 0) != NULL)
		return 1;
	return fetch_net_find(fetch_special, FETCH_NELEM(fetch_special), fam, a, 0) == NULL;
}

int
fetch_policy_allow(void *arg, const struct sockaddr *sa, socklen_t len)
{
	static const unsigned char nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	/* IPv4-translated ::ffff:0:a.b.c.d (SIIT, RFC 2765) */
	static const unsigned char siit[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 };
	const struct fetch_policy	*p = arg;
	const struct sockaddr_in	*v4;
	const struct sockaddr_in6	*v6;
	const unsigned char		*a;

	if (p == NULL || sa == NULL)
		return 0;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(*v4)) {
		v4 = (const struct sockaddr_in *)(const void *)sa;
		return fetch_policy_judge(p, AF_INET, (const unsigned char *)&v4->sin_addr);
	}
	if (sa->sa_family != AF_INET6 || len < (socklen_t)sizeof(*v6))
		return 0;
	v6 = (const struct sockaddr_in6 *)(const void *)sa;
	a = (const unsigned char *)&v6->sin6_addr;
	if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr))
		return fetch_policy_judge(p, AF_INET, a + 12);
	/* NAT64, SIIT and 6to4 addresses lead to their IPv4 address: it must pass too. */
	if ((memcmp(a, nat64, sizeof(nat64)) == 0 || memcmp(a, siit, sizeof(siit)) == 0) &&
	    !fetch_policy_judge(p, AF_INET, a + 12))
		return 0;
	if (a[0] == 0x20 && a[1] == 0x02 && !fetch_policy_judge(p, AF_INET, a + 2))
		return 0;
	return fetch_policy_judge(p, AF_INET6, a);
}

int
fetch_allow_any(void *arg, const struct sockaddr *sa, socklen_t len)
{
	return 1;
}

void
fetch_policy_use(const struct fetch_policy *p)
{
	fetch_process_policy = p;
}

const struct fetch_policy *
fetch_policy_current(void)
{
	return fetch_process_policy;
}

void
fetch_addr_text(const struct sockaddr *sa, char *out, size_t sz)
{
	const void	*ip = NULL;

	if (sa->sa_family == AF_INET)
		ip = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		ip = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (ip == NULL || inet_ntop(sa->sa_family, ip, out, (socklen_t)sz) == NULL)
		snprintf(out, sz, "?");
}
