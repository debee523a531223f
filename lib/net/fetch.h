/*
 * fetch.h: the one HTTP client engine, over libcurl. Every outbound HTTP request of ctxd (AI
 * providers, AWS credential endpoints, the client tool) goes through it.
 *
 * A run (struct fetch) sends one or many requests (struct fetch_req) concurrently on a curl
 * multi handle, at most fetch.inflight at once. Each request has a deadline (retries
 * included), a cap on the answer's size (the transfer is aborted past it and says so),
 * retries with exponential backoff and jitter for the transient failures it names (429,
 * 408, 5xx; connect failures; a try's timeout or a broken transfer), honouring Retry-After
 * (seconds or HTTP date) when it fits the deadline, and a redirect policy: none followed by
 * default (a 3xx is the answer); or up to N, only to http/https, and the headers that carry
 * credentials (Authorization, Cookie, and those marked secret) are dropped when the scheme,
 * host or port changes.
 *
 * Address policy: fetch.allow, when set, is asked about each resolved address before a
 * socket connects to it (every redirect hop and every address of a name included; with a
 * proxy, the proxy's address). A refused address fails the request with FETCH_EPOLICY.
 * Without it, the process-wide policy of fetch_policy_use applies when one was set (the
 * server sets it from the setting fetch.allowed_networks), else every address may be
 * reached (the client tool). fetch_policy_parse turns a CIDR list into a policy for
 * fetch_policy_allow; fetch_allow_any opts a request out of the process-wide policy.
 *
 * Errors: this module does not log. A failed request has its class in req.result and one
 * line in req.error that never holds a header value marked secret, the URL's password or
 * query, or any secret registered with fetch_secret.
 *
 * Self-contained: needs only buf.c (and libcurl); the client tool links it without the
 * server library.
 */
#ifndef FETCH_H
#define FETCH_H

#include <sys/socket.h>
#include <sys/types.h>

#include <stddef.h>

#include "base/buf.h"

struct curl_slist;
struct sockaddr;

enum fetch_result {
	FETCH_OK = 0,		/* an HTTP answer was received (any status) */
	FETCH_EDNS,		/* the host name does not resolve */
	FETCH_ECONNECT,		/* connection refused or unreachable */
	FETCH_ETLS,		/* TLS handshake or certificate */
	FETCH_ETIMEOUT,		/* the request's deadline passed */
	FETCH_ETOOBIG,		/* the answer is larger than max_size */
	FETCH_EPOLICY,		/* the address policy refused the address */
	FETCH_EREDIRECT,	/* too many redirects, or one to another scheme */
	FETCH_ENETWORK,		/* another transfer failure */
	FETCH_ESTOPPED,		/* not finished: another request failed first (failfast) */
	FETCH_EINTERNAL		/* out of memory, bad argument, a hook's failure */
};

/* Classes of failures that may be retried (struct fetch_req.retry). */
#define FETCH_RETRY_HTTP	0x1	/* HTTP 408, 429, 5xx */
#define FETCH_RETRY_CONNECT	0x2	/* connection refused or unreachable */
#define FETCH_RETRY_TRANSFER	0x4	/* a try's timeout, a broken or empty answer */
#define FETCH_RETRY_ALL		0x7

#define FETCH_MAX_HEADERS	16
#define FETCH_MAX_SECRETS	16
#define FETCH_MAX_SIZE		(64L * 1024 * 1024)	/* default answer cap */
#define FETCH_TIMEOUT_MS	30000L	/* default deadline of a request */
#define FETCH_CONNECT_MS	10000L	/* default connect phase of one try */
#define FETCH_BACKOFF_MS	500L	/* first backoff step; doubles with each try */
#define FETCH_INFLIGHT		4	/* default transfers at once */
#define FETCH_MAX_HEADER_BYTES	(64 * 1024)	/* kept of an answer's header lines */

struct fetch_req;

/* May a socket connect to this address? 1 yes, 0 no. */
typedef int (*fetch_allow_fn)(void *arg, const struct sockaddr *, socklen_t);

/*
 * Before each try, and each redirect hop that stays on the same scheme, host and port: may
 * add headers that depend on the time or the URL, such as a signature, to *hdrs (a
 * curl_slist). url is the URL about to be requested. 0, or -1 with a reason in err (the
 * request then fails with FETCH_EINTERNAL and that reason, scrubbed).
 */
typedef int (*fetch_pretry_fn)(void *arg, const struct fetch_req *, const char *url,
    struct curl_slist **hdrs, char *err, size_t errsz);

struct fetch_req {
	/* in (fetch_req_init zeroes; every pointer stays the caller's) */
	const char	*method;	/* NULL: POST with a body, else GET */
	const char	*url;
	const char	*headers[FETCH_MAX_HEADERS + 1];	/* "Name: value", NULL-ended */
	unsigned	 secret_headers;	/* bit i: headers[i] carries a credential */
	const void	*body;
	size_t		 bodylen;
	long		 timeout_ms;	/* deadline from the start of the run (0: default) */
	const char	*timeout_setting;	/* what sets timeout_ms, named when it
					   passes ("sources.page_timeout_s"); NULL: none */
	long		 connect_ms;	/* connect phase of one try (0: default) */
	size_t		 max_size;	/* answer cap in bytes (0: FETCH_MAX_SIZE) */
	int		 tries;		/* tries in all (0 or 1: no retry) */
	unsigned	 retry;		/* FETCH_RETRY_* classes retried (0: all) */
	int		 redirects;	/* 0: none followed; N: follow up to N */
	int		 noproxy;	/* 1: never through a proxy */
	const char	*user_agent;	/* NULL: "ctxd" */
	fetch_pretry_fn	 pretry;	/* may be NULL */
	void		*pretry_arg;
	/* out */
	int		 result;	/* enum fetch_result */
	long		 status;	/* HTTP status of the answer; 0 without one */
	struct buf	 answer;	/* the answer's body (NUL-terminated when not empty) */
	struct buf	 answer_headers; /* its header lines, "Name: value\r\n" each (at
					 * most FETCH_MAX_HEADER_BYTES; fetch_answer_header) */
	char		*final_url;	/* the URL that gave the answer, after redirects
					 * (malloc'd; NULL when no request was made) */
	int		 ntries;	/* tries made */
	char		 error[256];	/* when result != FETCH_OK: one line, no secret */
	char		 reason[96];	/* ... and libcurl's short text of it ("" if none) */
};

struct fetch {
	size_t		 inflight;	/* transfers at once (0: FETCH_INFLIGHT) */
	int		 failfast;	/* the first request without a 2xx answer ends the run */
	fetch_allow_fn	 allow;		/* address policy (NULL: every address) */
	void		*allow_arg;
	const char	*secrets[FETCH_MAX_SECRETS + 1];	/* NULL-ended, see fetch_secret */
	size_t		 nsecrets;
};

/* libcurl's process-wide set-up (idempotent; called by fetch_run when needed). */
int	 fetch_global_init(void);
void	 fetch_global_cleanup(void);

void	 fetch_init(struct fetch *);
/* Forgets the secrets (they stay the caller's). */
void	 fetch_release(struct fetch *);
/*
 * Registers a secret (kept by pointer, not copied) to be removed from every error message
 * of the run. NULL or "" is ignored. -1 when FETCH_MAX_SECRETS are registered already.
 */
int	 fetch_secret(struct fetch *, const char *);

void	 fetch_req_init(struct fetch_req *);
/* Frees the answer (zeroed first: an answer may echo a credential); the inputs stay. */
void	 fetch_req_release(struct fetch_req *);
/*
 * The value of the answer's header name (case-insensitive; the last one when repeated),
 * trimmed, cut to sz - 1 bytes: 1 when present, else 0 with out "".
 */
int	 fetch_answer_header(const struct fetch_req *, const char *name, char *out,
	    size_t sz);

/*
 * Runs reqs[0..n) to the end: each gets a result, a status and an answer. Returns 0 when
 * every request has result FETCH_OK (whatever its status), -1 when one has not (with
 * failfast, the first request without a 2xx answer ends the run: it keeps its result and
 * status, the unfinished ones get FETCH_ESTOPPED). A request may be run again after
 * fetch_req_release.
 */
int	 fetch_run(struct fetch *, struct fetch_req *reqs, size_t n);

/*
 * Replaces with "[redacted]" every occurrence in s (NUL-terminated, sz bytes) of secret, of
 * its first 8 bytes or more, and (a secret of 8 bytes or more) of its base64 and base64url
 * forms (as inside an encoded "user:secret") or their first 8 characters or more; cuts a
 * tail of s that is the start of secret (4 bytes or more: a text cut short).
 */
void	 fetch_scrub(char *s, size_t sz, const char *secret);

/* "host[:port]" of a URL, for messages (never userinfo, path or query). */
void	 fetch_host(const char *url, char *out, size_t sz);

/* Percent-encodes s for a URL's query (malloc'd; NULL on no memory). */
char	*fetch_escape(const char *s);

/* ------------------------------------------------------------ the address policy */

struct fetch_net {
	int		 family;	/* AF_INET or AF_INET6 */
	unsigned char	 addr[16];
	unsigned	 prefix;	/* bits */
};

struct fetch_policy {
	struct fetch_net *nets;
	size_t		 n;
};

/*
 * A source's fetch that failed talking to the remote has a message "could not fetch URL:
 * WHY"; callers who are not admins are shown "could not fetch URL" only (WHY may tell a
 * port scan what answers where).
 */
#define FETCH_FAILED_PREFIX	"could not fetch "

/* The server's setting that holds the list of allowed networks (named in messages). */
#define FETCH_POLICY_SETTING	"fetch.allowed_networks"
/* Its default: none listed, public addresses only (an admin lists private networks). */
#define FETCH_POLICY_DEFAULT	""

/*
 * Parses a list of networks, "127.0.0.0/8, ::1/128, 10.0.0.0/8" (comma or blank
 * separated; an address without /N is one host; an IPv4-mapped IPv6 network
 * ::ffff:a.b.c.d/N is stored as the IPv4 network), into *p (fetch_policy_release frees
 * it). 0, or -1 with the reason in err.
 */
int	 fetch_policy_parse(const char *list, struct fetch_policy *p, char *err,
	    size_t errsz);
void	 fetch_policy_release(struct fetch_policy *);
/*
 * A fetch_allow_fn: 1 when the address may be reached under the struct fetch_policy at
 * arg (its listed networks):
 *  - a cloud metadata address (169.254.169.254, 169.254.170.2, 169.254.170.23,
 *    100.100.100.200, 168.63.129.16, 192.0.0.192, fd00:ec2::254, fd00:ec2::23) only when
 *    it is listed as a single address (a /32 or /128), never through a wider network;
 *  - any other address lying in a listed network;
 *  - else a public address; never a special-purpose one (this host 0/8, loopback 127/8
 *    and ::1, link-local 169.254/16 and fe80::/10, the private ranges 10/8, 172.16/12,
 *    192.168/16 and fc00::/7, shared 100.64/10, the documentation, benchmarking,
 *    multicast and reserved ranges, ::, ::/96, 100::/64, 2001::/23, fec0::/10).
 * An IPv4-mapped IPv6 address is judged as its IPv4 address, and so is the IPv4 address
 * inside a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) one. NULL arg: refuses all.
 */
int	 fetch_policy_allow(void *arg, const struct sockaddr *, socklen_t);
/* A fetch_allow_fn that allows every address (endpoints the operator's environment names). */
int	 fetch_allow_any(void *arg, const struct sockaddr *, socklen_t);

/*
 * The process-wide policy: applies to every run whose fetch.allow is NULL, and to the
 * git transport (lib/sources/gitrepo.c). p is kept by pointer (NULL: none, every address).
 */
void	 fetch_policy_use(const struct fetch_policy *p);
const struct fetch_policy *fetch_policy_current(void);
/* The address of an IPv4 or IPv6 socket address as text ("?" for another family). */
void	 fetch_addr_text(const struct sockaddr *, char *out, size_t sz);

#endif
