/*
 * test-fetch.c: the HTTP client engine (lib/net/fetch.c) against a local HTTP server forked by
 * the test on 127.0.0.1 (one child per connection): deadline, size cap, retry on 503,
 * Retry-After, redirects (none by default; followed with credentials dropped on a host
 * change), the address policy and secret scrubbing. Nothing leaves 127.0.0.1.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "http-helpers.h"
#include "net/fetch.h"
#include "tap.h"

static int	 srv_port;
static pid_t	 srv_pid = -1;
static int	*srv_hits;	/* shared with the server: requests per counter below */

enum { HIT_FLAKY, HIT_RA, HIT_ALL };

static void
srv_reply(int fd, int status, const char *extra, const char *body, size_t len)
{
	char	 head[512];
	int	 n;

	n = snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Length: %zu\r\n"
	    "%sConnection: close\r\n\r\n", status, len, extra);
	if (write(fd, head, (size_t)n) != n || write(fd, body, len) == -1)
		return;
}

/* Answers one request. */
static void
srv_handle(int fd)
{
	char	 req[16384], v[512], path[256], out[2048], loc[256];
	static char big[100000];

	req_read(fd, req, sizeof(req));
	__atomic_add_fetch(&srv_hits[HIT_ALL], 1, __ATOMIC_SEQ_CST);
	{
		const char *sp = strchr(req, ' ');
		size_t pn = sp != NULL ? strcspn(sp + 1, " \r\n") : 0;

		snprintf(path, sizeof(path), "%.*s", (int)pn, sp != NULL ? sp + 1 : "");
	}
	if (strcmp(path, "/ok") == 0)
		srv_reply(fd, 200, "", "hello", 5);
	else if (strcmp(path, "/slow") == 0) {
		sleep(3);
		srv_reply(fd, 200, "", "late", 4);
	} else if (strcmp(path, "/big") == 0) {
		memset(big, 'x', sizeof(big));
		srv_reply(fd, 200, "", big, sizeof(big));
	} else if (strcmp(path, "/flaky") == 0) {
		if (__atomic_add_fetch(&srv_hits[HIT_FLAKY], 1, __ATOMIC_SEQ_CST) == 1)
			srv_reply(fd, 503, "", "busy", 4);
		else
			srv_reply(fd, 200, "", "recovered", 9);
	} else if (strcmp(path, "/ra") == 0) {
		if (__atomic_add_fetch(&srv_hits[HIT_RA], 1, __ATOMIC_SEQ_CST) == 1)
			srv_reply(fd, 429, "Retry-After: 1\r\n", "slow down", 9);
		else
			srv_reply(fd, 200, "", "after", 5);
	} else if (strcmp(path, "/always503") == 0)
		srv_reply(fd, 503, "", "down", 4);
	else if (strncmp(path, "/redir-to/", 10) == 0) {
		/* /redir-to/HOST/PATH: 302 to http://HOST:PORT/PATH */
		const char *h = path + 10, *s = strchr(h, '/');

		snprintf(loc, sizeof(loc), "Location: http://%.*s:%d%s\r\n",
		    (int)(s != NULL ? s - h : 0), h, srv_port, s != NULL ? s : "/");
		srv_reply(fd, 302, loc, "", 0);
	} else if (strcmp(path, "/loop") == 0)
		srv_reply(fd, 302, "Location: /loop\r\n", "", 0);
	else if (strcmp(path, "/to-ftp") == 0)
		srv_reply(fd, 302, "Location: ftp://127.0.0.1/x\r\n", "", 0);
	else if (strcmp(path, "/headers") == 0) {
		snprintf(out, sizeof(out), "auth=%s key=%s other=%s",
		    req_header(req, "Authorization", v, sizeof(v)) ? v : "-",
		    req_header(req, "X-Api-Key", v + 200, 150) ? v + 200 : "-",
		    req_header(req, "X-Other", v + 400, 100) ? v + 400 : "-");
		srv_reply(fd, 200, "", out, strlen(out));
	} else
		srv_reply(fd, 404, "", "no", 2);
}

/* Forks the server on 127.0.0.1 (an ephemeral port, in srv_port). */
static int
srv_start(void)
{
	struct sockaddr_in	 sa;
	socklen_t		 sl = sizeof(sa);
	int			 s, c, one = 1;
	pid_t			 pid;

	srv_hits = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	    -1, 0);
	if (srv_hits == MAP_FAILED)
		return -1;
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) == -1 || listen(s, 64) == -1 ||
	    getsockname(s, (struct sockaddr *)&sa, &sl) == -1)
		return -1;
	srv_port = ntohs(sa.sin_port);
	if ((srv_pid = fork()) == -1)
		return -1;
	if (srv_pid == 0) {
		signal(SIGCHLD, SIG_IGN);
		for (;;) {
			if ((c = accept(s, NULL, NULL)) == -1)
				continue;
			if ((pid = fork()) == 0) {
				close(s);
				srv_handle(c);
				close(c);
				_exit(0);
			}
			close(c);
		}
	}
	close(s);
	return 0;
}

static long long
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sets r up for GET http://127.0.0.1:PORT/path. */
static void
req_get(struct fetch_req *r, char *url, size_t urlsz, const char *path)
{
	fetch_req_init(r);
	snprintf(url, urlsz, "http://127.0.0.1:%d%s", srv_port, path);
	r->url = url;
	r->timeout_ms = 5000;
}

static void
test_basic(void)
{
	int			 rc;
	struct fetch		 f;
	struct fetch_req	 r[3];
	char			 u[3][128];
	size_t			 i;

	fetch_init(&f);
	f.inflight = 2;
	for (i = 0; i < 3; i++)
		req_get(&r[i], u[i], sizeof(u[i]), i == 1 ? "/nothere" : "/ok");
	rc = fetch_run(&f, r, 3);
	ok(rc == 0, "three requests, two at a time");
	ok(r[0].result == FETCH_OK && r[0].status == 200 && r[0].answer.p != NULL &&
	    strcmp(r[0].answer.p, "hello") == 0, "200 with its body");
	ok(r[1].result == FETCH_OK && r[1].status == 404, "404 is an answer");
	ok(r[2].status == 200 && r[0].ntries == 1, "one try each");
	for (i = 0; i < 3; i++)
		fetch_req_release(&r[i]);
	fetch_release(&f);
}

static void
test_deadline_and_cap(void)
{
	int			 rc;
	struct fetch		 f;
	struct fetch_req	 r;
	char			 u[128];
	long long		 t0;

	fetch_init(&f);
	req_get(&r, u, sizeof(u), "/slow");
	r.timeout_ms = 600;
	r.tries = 3;
	t0 = now_ms();
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_ETIMEOUT,
	    "a slow answer past the deadline: timeout (%s)", r.error);
	ok(now_ms() - t0 < 1500, "the deadline holds, retries included (%lld ms)",
	    now_ms() - t0);
	fetch_req_release(&r);

	req_get(&r, u, sizeof(u), "/big");
	r.max_size = 1000;
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_ETOOBIG,
	    "an answer past the cap is aborted");
	ok(strstr(r.error, "larger than 1000 bytes") != NULL, "and says so: %s", r.error);
	ok(r.answer.len <= 1000, "no more than the cap is kept");
	fetch_req_release(&r);
	req_get(&r, u, sizeof(u), "/big");
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.answer.len == 100000, "the default cap is larger");
	fetch_req_release(&r);
	fetch_release(&f);
}

static void
test_retries(void)
{
	int			 rc;
	struct fetch		 f;
	struct fetch_req	 r;
	char			 u[128];
	long long		 t0, ms;

	fetch_init(&f);
	req_get(&r, u, sizeof(u), "/flaky");
	r.tries = 3;
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.status == 200 && r.ntries == 2 &&
	    strcmp(r.answer.p, "recovered") == 0, "503 then 200: retried once (%d tries)",
	    r.ntries);
	fetch_req_release(&r);

	req_get(&r, u, sizeof(u), "/ra");
	r.tries = 2;
	t0 = now_ms();
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.status == 200 && r.ntries == 2,
	    "429 with Retry-After then 200");
	ms = now_ms() - t0;
	ok(ms >= 1000, "Retry-After: 1 honoured (%lld ms)", ms);
	fetch_req_release(&r);

	req_get(&r, u, sizeof(u), "/always503");
	r.tries = 1;
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.status == 503 && r.ntries == 1,
	    "no retry without tries: the 503 is the answer");
	fetch_req_release(&r);
	req_get(&r, u, sizeof(u), "/always503");
	r.tries = 5;
	r.retry = FETCH_RETRY_CONNECT;
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.ntries == 1, "only the classes asked for are retried");
	fetch_req_release(&r);
	fetch_release(&f);
}

static int
util_test_endswith(const char *s, const char *end)
{
	size_t	 a = strlen(s), b = strlen(end);

	return a >= b && strcmp(s + a - b, end) == 0;
}

static void
test_redirects(void)
{
	int			 rc;
	struct fetch		 f;
	struct fetch_req	 r;
	char			 u[128], p[128];

	fetch_init(&f);
	req_get(&r, u, sizeof(u), "/redir-to/127.0.0.1/ok");
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.status == 302, "a redirect is not followed by default");
	ok(fetch_answer_header(&r, "location", p, sizeof(p)) == 1 &&
	    util_test_endswith(p, "/ok"), "the answer's Location header is kept: %s", p);
	ok(r.final_url != NULL && strcmp(r.final_url, u) == 0,
	    "final_url is the URL asked when nothing was followed");
	fetch_req_release(&r);
	ok(r.final_url == NULL && r.answer_headers.p == NULL,
	    "release frees the answer's headers and final URL");

	req_get(&r, u, sizeof(u), "/redir-to/127.0.0.1/headers");
	r.redirects = 3;
	r.headers[0] = "Authorization: Bearer tok-same-host";
	r.headers[1] = "X-Api-Key: key-same-host";
	r.headers[2] = "X-Other: kept";
	r.secret_headers = 1u << 1;
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.status == 200 && r.answer.p != NULL &&
	    strcmp(r.answer.p, "auth=Bearer tok-same-host key=key-same-host other=kept") == 0,
	    "followed on the same host with every header: %s", r.answer.p);
	ok(r.final_url != NULL && util_test_endswith(r.final_url, "/headers"),
	    "final_url is the redirect's target: %s", r.final_url);
	ok(fetch_answer_header(&r, "Location", p, sizeof(p)) == 0 && p[0] == '\0' &&
	    fetch_answer_header(&r, "CONTENT-LENGTH", p, sizeof(p)) == 1 &&
	    strcmp(p, "54") == 0, "the headers are the last answer's only: "
	    "Content-Length %s, no Location", p);
	fetch_req_release(&r);

	snprintf(p, sizeof(p), "/redir-to/localhost/headers");
	req_get(&r, u, sizeof(u), p);
	r.redirects = 3;
	r.headers[0] = "Authorization: Bearer tok-other-host";
	r.headers[1] = "X-Api-Key: key-other-host";
	r.headers[2] = "X-Other: kept";
	r.secret_headers = 1u << 1;
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.status == 200 && r.answer.p != NULL &&
	    strcmp(r.answer.p, "auth=- key=- other=kept") == 0,
	    "followed to another host without Authorization or secret headers: %s",
	    r.answer.p);
	fetch_req_release(&r);

	req_get(&r, u, sizeof(u), "/loop");
	r.redirects = 2;
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_EREDIRECT &&
	    strstr(r.error, "more than 2 redirects") != NULL, "a loop stops: %s", r.error);
	fetch_req_release(&r);
	req_get(&r, u, sizeof(u), "/to-ftp");
	r.redirects = 2;
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_EREDIRECT,
	    "a redirect to ftp is refused: %s", r.error);
	fetch_req_release(&r);
	fetch_release(&f);
}

/*
 * fetch_policy_allow on one address under the policy of list: 1 allowed, 0 refused, -1 when
 * the list or the address does not parse.
 */
static int
allowed(const char *list, const char *addr)
{
	struct fetch_policy	 p;
	struct sockaddr_in	 s4;
	struct sockaddr_in6	 s6;
	char			 err[128];
	int			 r;

	memset(&s4, 0, sizeof(s4));
	memset(&s6, 0, sizeof(s6));
	s4.sin_family = AF_INET;
	s6.sin6_family = AF_INET6;
	if (fetch_policy_parse(list, &p, err, sizeof(err)) == -1)
		return -1;
	if (inet_pton(AF_INET, addr, &s4.sin_addr) == 1)
		r = fetch_policy_allow(&p, (struct sockaddr *)&s4, sizeof(s4));
	else if (inet_pton(AF_INET6, addr, &s6.sin6_addr) == 1)
		r = fetch_policy_allow(&p, (struct sockaddr *)&s6, sizeof(s6));
	else
		r = -1;
	fetch_policy_release(&p);
	return r;
}

/* The verdicts of the policy: list, address, expected. */
static const struct {
	const char	*list, *addr;
	int		 want;
} policy_cases[] = {
	/* Nothing listed: public addresses only. */
	{ "", "8.8.8.8", 1 },
	{ "", "2606:4700:4700::1111", 1 },
	{ "", "::ffff:8.8.8.8", 1 },
	{ "", "172.32.0.1", 1 },		/* just outside 172.16/12 */
	{ "", "127.0.0.1", 0 },
	{ "", "127.255.255.254", 0 },
	{ "", "::1", 0 },
	{ "", "::ffff:127.0.0.1", 0 },		/* IPv4-mapped loopback */
	{ "", "::ffff:169.254.169.254", 0 },	/* IPv4-mapped metadata */
	{ "", "::ffff:0.0.0.0", 0 },
	{ "", "::ffff:10.0.0.1", 0 },
	{ "", "::ffff:0:7f00:1", 0 },		/* IPv4-translated (SIIT) loopback */
	{ "", "::ffff:0:a9fe:a9fe", 0 },	/* IPv4-translated metadata */
	{ "", "::ffff:0:808:808", 1 },		/* IPv4-translated 8.8.8.8 */
	{ "127.0.0.0/8", "::ffff:0:7f00:1", 1 },	/* its IPv4 address listed */
	{ "::ffff:0:0/96", "127.0.0.1", 1 },	/* the mapped range is all of IPv4 */
	{ "::ffff:0:0/96", "169.254.169.254", 0 },	/* metadata still one by one */
	{ "::ffff:0:0/96", "::1", 0 },
	{ "::ffff:169.254.169.254", "169.254.169.254", 1 },	/* mapped /128: IPv4 /32 */
	{ FETCH_POLICY_DEFAULT, "::ffff:0:7f00:1", 0 },
	{ "", "0.0.0.0", 0 },			/* reaches the loopback on Linux */
	{ "", "::", 0 },
	{ "", "::127.0.0.1", 0 },		/* IPv4-compatible */
	{ "", "169.254.169.254", 0 },		/* cloud metadata */
	{ "", "169.254.170.2", 0 },
	{ "", "100.100.100.200", 0 },
	{ "", "168.63.129.16", 0 },		/* public, but Azure's platform host */
	{ "", "fd00:ec2::254", 0 },
	{ "", "fe80::1", 0 },
	{ "", "10.1.2.3", 0 },
	{ "", "100.64.0.1", 0 },
	{ "", "224.0.0.1", 0 },
	{ "", "255.255.255.255", 0 },
	{ "", "64:ff9b::7f00:1", 0 },		/* NAT64 of 127.0.0.1 */
	{ "", "64:ff9b::808:808", 1 },		/* NAT64 of 8.8.8.8 */
	{ "", "2002:7f00:1::", 0 },		/* 6to4 of 127.0.0.1 */
	{ "", "2002:808:808::", 1 },
	/* The default lists nothing: public addresses only, no private range. */
	{ FETCH_POLICY_DEFAULT, "10.1.2.3", 0 },
	{ FETCH_POLICY_DEFAULT, "172.20.0.1", 0 },
	{ FETCH_POLICY_DEFAULT, "192.168.1.1", 0 },
	{ FETCH_POLICY_DEFAULT, "fd12:3456::1", 0 },
	{ FETCH_POLICY_DEFAULT, "::ffff:192.168.1.1", 0 },
	{ FETCH_POLICY_DEFAULT, "127.0.0.1", 0 },
	{ FETCH_POLICY_DEFAULT, "169.254.169.254", 0 },
	{ FETCH_POLICY_DEFAULT, "8.8.8.8", 1 },
	/* The private ranges listed (the old default): never the metadata address inside. */
#define PRIVATE "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7"
	{ PRIVATE, "10.1.2.3", 1 },
	{ PRIVATE, "172.20.0.1", 1 },
	{ PRIVATE, "192.168.1.1", 1 },
	{ PRIVATE, "fd12:3456::1", 1 },
	{ PRIVATE, "::ffff:192.168.1.1", 1 },
	{ PRIVATE, "fd00:ec2::254", 0 },
	{ PRIVATE, "127.0.0.1", 0 },
	{ PRIVATE, "::1", 0 },
	{ PRIVATE, "169.254.169.254", 0 },
	{ PRIVATE, "0.0.0.0", 0 },
	{ PRIVATE, "8.8.8.8", 1 },
	/* The loopback and link-local listed; metadata still needs its own entry. */
	{ "127.0.0.0/8, 169.254.0.0/16", "127.5.5.5", 1 },
	{ "127.0.0.0/8, 169.254.0.0/16", "::ffff:127.0.0.1", 1 },
	{ "127.0.0.0/8, 169.254.0.0/16", "169.254.1.1", 1 },
	{ "127.0.0.0/8, 169.254.0.0/16", "169.254.169.254", 0 },
	{ "127.0.0.0/8, 169.254.0.0/16", "::1", 0 },
	{ "169.254.169.254 ::1", "169.254.169.254", 1 },
	{ "169.254.169.254 ::1", "::1", 1 },
	{ "169.254.169.254 ::1", "169.254.169.253", 0 },
	{ "::ffff:127.0.0.0/104", "127.0.0.1", 1 },	/* a mapped network is IPv4 */
	{ "::ffff:127.0.0.0/104", "128.0.0.1", 1 },
	{ "::ffff:127.0.0.0/104", "::1", 0 },
	{ "0.0.0.0/0, ::/0", "0.0.0.0", 1 },
	{ "0.0.0.0/0, ::/0", "127.0.0.1", 1 },
	{ "0.0.0.0/0, ::/0", "fe80::1", 1 },
	{ "0.0.0.0/0, ::/0", "169.254.169.254", 0 },
	{ "0.0.0.0/0, ::/0", "fd00:ec2::254", 0 },
	/* Not a list. */
	{ "10.0.0.0/33", "10.0.0.1", -1 },
	{ "::1/129", "::1", -1 },
	{ "1.2.3.4/", "1.2.3.4", -1 },
	{ "example.com", "1.2.3.4", -1 },
};

static void
test_policy_cases(void)
{
	size_t	 i;
	int	 got;

	for (i = 0; i < sizeof(policy_cases) / sizeof(policy_cases[0]); i++) {
		got = allowed(policy_cases[i].list, policy_cases[i].addr);
		ok(got == policy_cases[i].want, "policy \"%s\": %s %s (got %d)",
		    policy_cases[i].list, policy_cases[i].addr, policy_cases[i].want == 1 ?
		    "allowed" : policy_cases[i].want == 0 ? "refused" : "does not parse",
		    got);
	}
}

static void
test_policy(void)
{
	int			 rc;
	struct fetch		 f;
	struct fetch_policy	 pol;
	struct fetch_req	 r;
	char			 u[128], err[128], want[160];
	int			 hits;

	ok(fetch_policy_parse("10.0.0.0/8", &pol, err, sizeof(err)) == 0 && pol.n == 1,
	    "parse 10.0.0.0/8");
	fetch_init(&f);
	f.allow = fetch_policy_allow;
	f.allow_arg = &pol;
	hits = srv_hits[HIT_ALL];
	req_get(&r, u, sizeof(u), "/ok");
	r.tries = 3;
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_EPOLICY && r.ntries == 1,
	    "127.0.0.1 refused when only 10.0.0.0/8 is allowed, not retried");
	snprintf(want, sizeof(want), "address 127.0.0.1 of host 127.0.0.1:%d is not allowed "
	    "by fetch.allowed_networks", srv_port);
	is_str(r.error, want, "the error names the address, the host and the setting");
	ok(srv_hits[HIT_ALL] == hits, "nothing reached the server");
	fetch_req_release(&r);
	fetch_policy_release(&pol);

	ok(fetch_policy_parse("127.0.0.0/8, ::1/128 10.0.0.0/8", &pol, err, sizeof(err)) ==
	    0 && pol.n == 3, "parse a list of three");
	req_get(&r, u, sizeof(u), "/redir-to/127.0.0.1/ok");
	rc = fetch_run(&f, &r, 1);
	ok(rc == 0 && r.status == 302, "allowed when 127.0.0.0/8 is listed");
	fetch_req_release(&r);
	fetch_policy_release(&pol);
	ok(fetch_policy_parse("10.0.0.0/33", &pol, err, sizeof(err)) == -1 &&
	    strstr(err, "10.0.0.0/33") != NULL, "a bad prefix is refused: %s", err);
	fetch_release(&f);

	/* The process-wide policy, checked again on each redirect hop. */
	ok(fetch_policy_parse("127.0.0.1/32", &pol, err, sizeof(err)) == 0, "parse one host");
	fetch_policy_use(&pol);
	ok(fetch_policy_current() == &pol, "the process-wide policy is in force");
	fetch_init(&f);
	hits = srv_hits[HIT_ALL];
	req_get(&r, u, sizeof(u), "/redir-to/127.0.0.2/ok");
	r.redirects = 2;
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_EPOLICY && strstr(r.error, "address 127.0.0.2 ") !=
	    NULL, "a redirect to 127.0.0.2 is refused by the process-wide policy: %s",
	    r.error);
	ok(srv_hits[HIT_ALL] == hits + 1, "the first hop was made, the second not");
	fetch_req_release(&r);
	f.allow = fetch_allow_any;
	req_get(&r, u, sizeof(u), "/redir-to/127.0.0.2/ok");
	r.redirects = 2;
	rc = fetch_run(&f, &r, 1);
	ok(r.result != FETCH_EPOLICY, "fetch_allow_any opts a run out of it (%s)",
	    r.error);
	fetch_req_release(&r);
	fetch_release(&f);
	fetch_policy_use(NULL);
	fetch_policy_release(&pol);
	ok(fetch_policy_current() == NULL, "and NULL ends it");
	test_policy_cases();
}

/* A pretry hook whose error names the secrets it was given. */
static int
leaky_hook(void *arg, const struct fetch_req *r, const char *url, struct curl_slist **h,
    char *err, size_t errsz)
{
	(void)arg;
	(void)h;
	snprintf(err, errsz, "cannot sign %s with %s and sk-registered-0123456789", url,
	    r->headers[0]);
	return -1;
}

static void test_scrub_forms(void);

static void
test_secrets(void)
{
	int			 rc;
	struct fetch		 f;
	struct fetch_req	 r;
	char			 u[256];

	fetch_init(&f);
	ok(fetch_secret(&f, "sk-registered-0123456789") == 0, "register a secret");
	fetch_req_init(&r);
	snprintf(u, sizeof(u), "http://user:pw-in-url-4242@127.0.0.1:%d/ok?key=query-secret-77",
	    srv_port);
	r.url = u;
	r.headers[0] = "Authorization: Bearer tok-in-header-99";
	r.pretry = leaky_hook;
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_EINTERNAL, "a failing hook fails");
	ok(strstr(r.error, "sk-registered") == NULL && strstr(r.error, "tok-in-header") ==
	    NULL && strstr(r.error, "pw-in-url") == NULL &&
	    strstr(r.error, "query-secret") == NULL && strstr(r.error, "[redacted]") != NULL,
	    "its error holds no secret: %s", r.error);
	fetch_req_release(&r);

	/* A registered secret in libcurl's own message. */
	fetch_init(&f);
	fetch_secret(&f, "127.0.0.1");
	fetch_req_init(&r);
	r.url = "http://127.0.0.1:1/";
	rc = fetch_run(&f, &r, 1);
	ok(rc == -1 && r.result == FETCH_ECONNECT, "connect refused");
	ok(strstr(r.error, "127.0.0.1") == NULL && *r.reason != '\0',
	    "libcurl's message is scrubbed too: %s", r.error);
	fetch_req_release(&r);
	fetch_release(&f);

	snprintf(u, sizeof(u), "abc sk-secret-1234 def sk-sec");
	fetch_scrub(u, sizeof(u), "sk-secret-1234");
	is_str(u, "abc [redacted] def ", "fetch_scrub: whole and cut-short secrets");
	test_scrub_forms();
}

/* fetch_scrub: a secret's start of 8 bytes or more and its base64 forms are redacted. */
static void
test_scrub_forms(void)
{
	static const char tok[] = "ghp_0123456789abcdefXYZ";
	static const struct {
		const char *in, *secret, *want, *desc;
	} c[] = {
		{ "key abcdefgh123 and abcdefg.", "abcdefghijklmnop",
		  "key [redacted]123 and abcdefg.",
		  "a start of 8 bytes is redacted mid-text, one of 7 is not" },
		{ "Basic eC1hY2Nlc3MtdG9rZW46Z2hwXzAxMjM0NTY3ODlhYmNkZWZYWVo= failed", tok,
		  "Basic eC1hY2Nlc3MtdG9rZW46[redacted]o= failed",
		  "base64 of user:secret (secret at a 3-byte boundary)" },
		{ "Basic dTpnaHBfMDEyMzQ1Njc4OWFiY2RlZlhZWg==", tok, "Basic dTp[redacted]g==",
		  "base64 of u:secret (secret 2 bytes into a group)" },
		{ "Basic eHU6Z2hwXzAxMjM0NTY3ODlhYmNkZWZYWVo= cut: Z2hwXzAx.", tok,
		  "Basic eHU6[redacted]o= cut: [redacted].", "a base64 form's start of 8" },
		{ "t=c2t-fn5-fn5-fn5-fn5-fg&u=c2t+fn5+fn5+fn5+fn5+fg==", "sk~~~~~~~~~~~~~~",
		  "t=[redacted]g&u=[redacted]g==", "base64url and base64 of the secret" },
		{ "short: sk-1 c2stMQ==", "sk-1", "short: [redacted] c2stMQ==",
		  "a secret under 8 bytes: only itself" },
	};
	char	 u[256];
	size_t	 i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(u, sizeof(u), "%s", c[i].in);
		fetch_scrub(u, sizeof(u), c[i].secret);
		is_str(u, c[i].want, c[i].desc);
	}
}

int
main(void)
{
	int	 st;

	if (srv_start() == -1) {
		printf("Bail out! cannot start the local server\n");
		return 1;
	}
	ok(fetch_global_init() == 0, "libcurl starts");
	test_basic();
	test_deadline_and_cap();
	test_retries();
	test_redirects();
	test_policy();
	test_secrets();
	fetch_global_cleanup();
	kill(srv_pid, SIGTERM);
	waitpid(srv_pid, &st, 0);
	return tap_done();
}
