/*
 * http_route.c: serving the requests of a responder (http.h): the server's names (421
 * for another Host), the route matcher with its authorization check (access.c), the
 * dispatch to the handler, and the FastCGI process model (pre-forked workers under a
 * supervisor, sandboxed). The request and its answer are http.c's.
 */
#include "config.h"

#include <sys/socket.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>
#include <json.h>

#include "base/buf.h"
#include "base/license.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/access.h"
#include "http/http.h"
#include "http/http_int.h"
#include "store/db.h"
#include "store/settings.h"

#define HTTP_MAX_WORKERS	64
#define HTTP_QUICK_FAIL_S	2	/* a worker dying sooner failed at start */
#define HTTP_MAX_QUICK_FAILS	5
/*
 * The background process's failures never stop the workers (it serves none of their
 * answers): after each quick one it starts again later, the wait doubling from
 * HTTP_BG_DELAY_MS up to HTTP_BG_DELAY_MAX_MS.
 */
#define HTTP_BG_DELAY_MS	250
#define HTTP_BG_DELAY_MAX_MS	60000
#define HTTP_MAX_ROUTES		128	/* rows of one route table */

/* Where a pattern's capture stands in the pattern and in the path. */
struct http_span {
	const char	*name, *value;
	size_t		 name_len, value_len;
};

static volatile sig_atomic_t http_stop;
/* A worker's end of the pipe to the background process (http_background_fd); -1: none. */
static int http_bg_fd = -1;

/* ------------------------------------------------------------------ the server's names */

/* 1 when name (lowercase, no port) is an IP address, localhost or this machine's name. */
static int
http_host_builtin(const char *name)
{
	static char	 self[256];
	static int	 have_self;
	unsigned char	 addr[sizeof(struct in6_addr)];
	size_t		 n = strlen(name);

	if (inet_pton(AF_INET, name, addr) == 1 || inet_pton(AF_INET6, name, addr) == 1)
		return 1;
	if (strcmp(name, "localhost") == 0 ||
	    (n > 10 && strcmp(name + n - 10, ".localhost") == 0))
		return 1;
	if (!have_self) {
		if (gethostname(self, sizeof(self) - 1) == -1)
			self[0] = '\0';
		self[sizeof(self) - 1] = '\0';
		for (n = 0; self[n] != '\0'; n++)
			if (self[n] >= 'A' && self[n] <= 'Z')
				self[n] = (char)(self[n] - 'A' + 'a');
		have_self = 1;
	}
	return self[0] != '\0' && strcmp(name, self) == 0;
}

int
http_host_known(const char *host, size_t len, const char *names)
{
	char		 name[256], port[8], ename[256], eport[8];
	const char	*p, *e;

	if (util_host_split(host, len, name, sizeof(name), port, sizeof(port)) == -1)
		return 0;
	if (http_host_builtin(name))
		return 1;
	for (p = names; p != NULL && *p != '\0'; p = e) {
		p += strspn(p, ", \t");
		e = p + strcspn(p, ", \t");
		if (e == p || util_host_split(p, (size_t)(e - p), ename, sizeof(ename),
		    eport, sizeof(eport)) == -1 || strcmp(name, ename) != 0)
			continue;
		/* An entry without a port: any port; a Host without one: 80 or 443. */
		if (*eport == '\0' || strcmp(eport, port) == 0 || (*port == '\0' &&
		    (strcmp(eport, "80") == 0 || strcmp(eport, "443") == 0)))
			return 1;
	}
	return 0;
}

/*
 * The Host check of every route: the Host header, and each entry of X-Forwarded-Host
 * when another proxy sent one, must name this server (http_host_known, with setting
 * server.hostnames read only when needed), else 421 naming the value and the setting.
 * A request without Host (HTTP/1.0) passes: no browser sends one. 0 when it passes.
 */
static int
http_check_host(struct http_req *r, struct db *db)
{
	const char	*h[2], *p, *e;
	char		*names = NULL;
	int		 loaded = 0, rc = 0;
	size_t		 i;

	h[0] = http_header(r, "HTTP_HOST");
	h[1] = http_header(r, "HTTP_X_FORWARDED_HOST");
	for (i = 0; i < 2 && rc == 0; i++) {
		for (p = h[i]; p != NULL && *p != '\0' && rc == 0; p = e) {
			p += strspn(p, ", \t");
			e = p + (i == 0 ? strlen(p) : strcspn(p, ", \t"));
			if (e == p || http_host_known(p, (size_t)(e - p), NULL))
				continue;
			if (!loaded) {
				names = settings_get(db, util_data_dir(), "server.hostnames");
				loaded = 1;
			}
			if (http_host_known(p, (size_t)(e - p), names))
				continue;
			http_error(r, 421, "this server does not answer to the %s '%.*s': "
			    "it answers to IP addresses, localhost, the machine's host name "
			    "and the names in setting server.hostnames; an operator who "
			    "serves ctxd under this name adds it there (ctxd-admin settings "
			    "set server.hostnames NAME[:PORT],...)", i == 0 ? "Host" :
			    "X-Forwarded-Host", (int)((e - p) > 200 ? 200 : (e - p)), p);
			rc = -1;
		}
	}
	free(names);
	return rc;
}

/* ------------------------------------------------------------------ the route matcher */

const char *
http_arg(const struct http_req *r, const char *name)
{
	size_t	 i;

	for (i = 0; i < r->nargs; i++)
		if (strcmp(r->args[i].name, name) == 0)
			return r->args[i].value;
	return NULL;
}

/* Length of the path segment at s (up to '/' or the end). */
static size_t
http_seglen(const char *s)
{
	return strcspn(s, "/");
}

/*
 * 1 when the pattern pat matches path (both after a '/'), recording the captures'
 * positions in cap (name and value spans, *ncap of them) and counting literal segments in
 * *lit; 0 when not. "{name*}" tries the longest run of segments first.
 */
static int
http_match(const char *pat, const char *path, struct http_span *cap, size_t *ncap,
    int *lit)
{
	size_t	 pl = http_seglen(pat), sl = http_seglen(path), n0 = *ncap;
	int	 lit0 = *lit;
	const char *end;

	if (pl == 0 && *pat == '\0')
		return *path == '\0';
	if (pat[0] == '{' && pl >= 3 && pat[pl - 1] == '}') {
		int	 many = pat[pl - 2] == '*';

		if (sl == 0 || *ncap == HTTP_MAX_ARGS)
			return 0;
		cap[*ncap].name = pat + 1;
		cap[*ncap].name_len = pl - 2 - (size_t)many;
		cap[*ncap].value = path;
		if (!many) {
			cap[*ncap].value_len = sl;
			(*ncap)++;
			if ((pat[pl] == '\0') != (path[sl] == '\0'))
				goto no;
			if (pat[pl] == '\0' || http_match(pat + pl + 1, path + sl + 1, cap,
			    ncap, lit))
				return 1;
			goto no;
		}
		/* One or more segments: the longest that lets the rest match. */
		for (end = path + strlen(path); end > path; end--) {
			if (*end != '\0' && *end != '/')
				continue;
			if (end[-1] == '/')
				continue;	/* no empty segment at the end of a run */
			cap[n0].value_len = (size_t)(end - path);
			*ncap = n0 + 1;
			*lit = lit0;
			if (pat[pl] == '\0' ? *end == '\0' : *end == '/' &&
			    http_match(pat + pl + 1, end + 1, cap, ncap, lit))
				return 1;
		}
		goto no;
	}
	if (pl != sl || strncmp(pat, path, pl) != 0)
		return 0;
	(*lit)++;
	if ((pat[pl] == '\0') != (path[sl] == '\0'))
		goto no;
	if (pat[pl] == '\0' || http_match(pat + pl + 1, path + sl + 1, cap, ncap, lit))
		return 1;
no:
	*ncap = n0;
	*lit = lit0;
	return 0;
}

/* 1 when a row for method m answers the request's method (GET rows answer HEAD). */
static int
http_method_is(const char *m, const char *method)
{
	return strcmp(m, method) == 0 ||
	    (strcmp(method, "HEAD") == 0 && strcmp(m, "GET") == 0);
}

/* Copies the captures into r->args; -1 when out of memory. */
static int
http_set_args(struct http_req *r, const struct http_span *cap, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		r->args[i].name = strndup(cap[i].name, cap[i].name_len);
		r->args[i].value = strndup(cap[i].value, cap[i].value_len);
		r->nargs = i + 1;
		if (r->args[i].name == NULL || r->args[i].value == NULL)
			return -1;
	}
	return 0;
}

/* Answers 405 naming the methods of the rows whose pattern matched best. */
static void
http_not_allowed(struct http_req *r, const struct http_route *routes, const int *best,
    int top)
{
	struct buf	 allow, hdr;
	size_t		 i, k;

	buf_init(&allow);
	buf_init(&hdr);
	for (i = 0; routes[i].path != NULL && i < HTTP_MAX_ROUTES; i++) {
		if (best[i] != top)
			continue;
		for (k = 0; k < i; k++)		/* each method once */
			if (best[k] == top && strcmp(routes[k].method, routes[i].method) == 0)
				break;
		if (k == i)
			buf_printf(&allow, "%s%s", allow.len > 0 ? ", " : "",
			    routes[i].method);
	}
	if (allow.p == NULL || buf_printf(&hdr, "Allow: %s\r\n", allow.p) == -1)
		http_error(r, 500, "out of memory");
	else
		http_error_hdr(r, 405, hdr.p, "%s accepts only %s", r->path, allow.p);
	buf_release(&allow);
	buf_release(&hdr);
}

void
http_route(struct http_req *r, const struct http_route *routes, struct db *db,
    void *ctx)
{
	struct http_span cap[HTTP_MAX_ARGS], got[HTTP_MAX_ARGS];
	const struct http_route *row = NULL;
	int		 best[HTTP_MAX_ROUTES], lit, top = -1, rowlit = -1;
	size_t		 i, ncap, ngot = 0;

	r->db = db;
	if (http_check_host(r, db) == -1)
		return;
	if (r->path[0] != '/') {
		http_error(r, 404, "no such endpoint: %s", r->path);
		return;
	}
	/* The best match: most literal segments, then the first row of the table. */
	for (i = 0; routes[i].path != NULL && i < HTTP_MAX_ROUTES; i++) {
		ncap = 0;
		lit = 0;
		best[i] = -1;
		if (!http_match(routes[i].path + 1, r->path + 1, cap, &ncap, &lit))
			continue;
		best[i] = lit;
		if (lit > top)
			top = lit;
		if (http_method_is(routes[i].method, r->method) && lit > rowlit) {
			row = &routes[i];
			rowlit = lit;
			memcpy(got, cap, ncap * sizeof(cap[0]));
			ngot = ncap;
		}
	}
	if (top == -1) {
		http_error(r, 404, "no such endpoint: %s", r->path);
		return;
	}
	if (row == NULL || rowlit < top) {
		http_not_allowed(r, routes, best, top);
		return;
	}
	if (http_set_args(r, got, ngot) == -1) {
		http_error(r, 500, "out of memory");
		return;
	}
	if (access_check(r, db, row->who, row->flags, row->anon, row->what, &r->who) == -1)
		return;
	row->handler(r, ctx);
}

/*
 * The log context of a request: "request ID", ID being nginx's $request_id (the site
 * passes it as REQUEST_ID) when it is 1 to 32 hex digits, else this process's own count.
 */
static void
http_log_context(struct http_req *r)
{
	static unsigned long	 n;
	const char		*id = http_env(r, "REQUEST_ID");
	char			 ctx[64];
	size_t			 len = id != NULL ? strlen(id) : 0;

	n++;
	if (len > 0 && len <= 32 && strspn(id, "0123456789abcdef") == len)
		snprintf(ctx, sizeof(ctx), "request %s", id);
	else
		snprintf(ctx, sizeof(ctx), "request %ld-%lu", (long)getpid(), n);
	log_set_context(ctx);
}

/*
 * CTXD_LOG_ROUND_TRIPS=1: one log line per request with the round trips it cost the
 * database server (PostgreSQL; 0 on SQLite), for tests and for an operator measuring a
 * node. Read once per process; off, a request pays one test of a static.
 */
static int
http_trips_wanted(void)
{
	static int	 wanted = -1;
	const char	*v;

	if (wanted == -1)
		wanted = (v = getenv("CTXD_LOG_ROUND_TRIPS")) != NULL && strcmp(v, "1") == 0;
	return wanted;
}

/* Fills r from the request environment and answers one request. */
static void
http_dispatch(struct http_req *r, const struct http_responder *rs, struct db *db,
    void *ctx)
{
	const char	*uri, *q, *https;
	char		*path = NULL;
	unsigned long	 trips = 0;

	http_log_context(r);
	if (http_trips_wanted())
		trips = db_round_trips(db);
	r->busy_base = db_busy_failures(db);
	/* What changed since the last request drops what this worker keeps (db_listen). */
	if (db != NULL && db_drain_changes(db) == -1)
		r->db_lost = 1;
	r->jsonrpc_errors = rs->jsonrpc_errors;
	r->method = http_env(r, "REQUEST_METHOD");
	if (r->method == NULL)
		r->method = "GET";
	r->content_type = http_env(r, "CONTENT_TYPE");
	r->authorization = http_env(r, "HTTP_AUTHORIZATION");
	https = http_env(r, "HTTPS");
	r->https = https != NULL && strcasecmp(https, "on") == 0;
	/* DOCUMENT_URI is nginx's decoded, normalised path; REQUEST_URI the raw one. */
	if ((uri = http_env(r, "DOCUMENT_URI")) != NULL)
		path = strdup(uri);
	else if ((uri = http_env(r, "REQUEST_URI")) != NULL) {
		path = strdup(uri);
		if (path != NULL && (q = strchr(path, '?')) != NULL)
			path[q - path] = '\0';
	} else
		path = strdup("/");
	r->path = path;
	if (path == NULL)
		http_error(r, 500, "out of memory");
	else if (http_parse_query(r, http_env(r, "QUERY_STRING")) == -1)
		http_error(r, 400, "malformed query string");
	else if (r->db_lost)
		http_error(r, 503, "the database connection was lost; try again");
	else if (rs->read_transaction && !db_listening(db) && db_begin_read(db) == -1)
		http_error(r, 500, "the database cannot be read; the responder log has "
		    "the details");
	else {
		/*
		 * A listening worker (PostgreSQL) reads without a transaction: BEGIN and
		 * ROLLBACK would cost two round trips (search.c says why that holds).
		 */
		http_route(r, rs->routes, db, ctx);
		if (rs->read_transaction && !db_listening(db))
			db_rollback(db);
	}
	if (!r->answered)
		http_error(r, 500, "the request could not be answered");
	if (http_trips_wanted()) {
		char	 esc[160];

		log_escape(path != NULL ? path : "?", esc, sizeof(esc));
		log_info("round trips: %lu (%s %s, worker %ld)", db_round_trips(db) - trips,
		    r->method, esc, (long)getpid());
	}
	http_req_release(r);
	free(path);
	r->path = NULL;
	log_set_context(NULL);
}

static void
http_on_signal(int sig)
{
	http_stop = 1;
}

/* After init: the seccomp filter of a responder that asks for it (unless turned off). */
static int
http_sandbox(const struct http_responder *rs)
{
	char	 err[256];

	if (!rs->sandbox || !sandbox_wanted())
		return 0;
	if (sandbox_install(err, sizeof(err)) == -1) {
		log_err("%s (CTXD_SECCOMP=off runs without it)", err);
		return -1;
	}
	return 0;
}

int
http_background_fd(void)
{
	return http_bg_fd;
}

/*
 * The background process (struct http_responder's background), after delay_ms: its exit
 * status. It never accepts: the listening socket sock is let go (/dev/null in its place, so
 * that the descriptor is not reused), which a supervisor that ends does not then leave open
 * in it.
 */
static int
http_background(int fd, int sock, long delay_ms, const struct http_responder *rs)
{
	struct timespec	 ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
	int		 nul;

	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		(void)dup2(nul, sock);
		close(nul);
	}
	/* SIGTERM ends it unless background handles it (to end what it does, then return) */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	while (delay_ms > 0 && nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
	return rs->background(fd);
}

/* One worker: accept and answer until told to stop. */
static int
http_worker(int sock, const struct http_responder *rs)
{
	FCGX_Request	 fr;
	struct http_req	 r;
	struct db	*db = NULL;
	void		*ctx;

	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if ((ctx = rs->init(&db)) == NULL || http_sandbox(rs) == -1)
		return 1;
	if (FCGX_InitRequest(&fr, sock, 0) != 0)
		return 1;
	while (FCGX_Accept_r(&fr) >= 0) {
		memset(&r, 0, sizeof(r));
		r.fr = &fr;
		r.envp = fr.envp;
		http_dispatch(&r, rs, db, ctx);
		FCGX_Finish_r(&fr);
		/* Its caches are gone with the connection: the supervisor starts another. */
		if (r.db_lost)
			return 1;
	}
	return 0;
}

static void
http_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--socket PATH] [--workers N]\n", prog);
}

/*
 * Parses --socket PATH, --workers N and --help into *sockpath and *nworkers. Returns -1 to
 * go on, else the exit status (0 after --help, 2 on a usage error).
 */
static int
http_options(int argc, char **argv, const char *prog, const char **sockpath,
    long *nworkers)
{
	int	 i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			*sockpath = argv[++i];
		else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
			if (util_parse_long(argv[++i], 1, HTTP_MAX_WORKERS,
			    nworkers) == -1) {
				fprintf(stderr, "%s: --workers must be 1 to %d\n",
				    prog, HTTP_MAX_WORKERS);
				return 2;
			}
		} else if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			http_usage(prog);
			return 0;
		} else {
			http_usage(prog);
			return 2;
		}
	}
	if (*nworkers < 1)
		*nworkers = 1;
	if (*nworkers > HTTP_MAX_WORKERS)
		*nworkers = HTTP_MAX_WORKERS;
	return -1;
}

/* Plain CGI (no socket on fd 0): answers the one request in the environment. */
static int
http_cgi(const struct http_responder *rs)
{
	struct http_req	 r;
	struct db	*db = NULL;
	void		*ctx;

	if ((ctx = rs->init(&db)) == NULL || http_sandbox(rs) == -1)
		return 1;
	memset(&r, 0, sizeof(r));
	http_dispatch(&r, rs, db, ctx);
	return 0;
}

/*
 * Keeps nworkers workers answering on sock until SIGTERM/SIGINT: forks them, restarts any
 * that die, and gives up (returning 1) when they keep failing at start. Returns the exit
 * status.
 */
static int
http_supervise(const struct http_responder *rs, int sock, long nworkers)
{
	pid_t		 kids[HTTP_MAX_WORKERS + 1], pid;
	time_t		 started[HTTP_MAX_WORKERS + 1];
	int		 i, status, quick_fails = 0, rc = 0, bg[2] = { -1, -1 };
	long		 nkids = nworkers, bg_delay_ms = 0;

	memset(kids, 0, sizeof(kids));
	memset(started, 0, sizeof(started));
	/* kids[nworkers]: the background process, fed by the workers through bg */
	if (rs->background != NULL) {
		if (pipe(bg) == -1 || fcntl(bg[0], F_SETFL, O_NONBLOCK) == -1 ||
		    fcntl(bg[1], F_SETFL, O_NONBLOCK) == -1) {
			log_err("pipe: %s", strerror(errno));
			return 1;
		}
		nkids++;
	}
	while (!http_stop) {
		for (i = 0; i < nkids && !http_stop; i++) {
			if (kids[i] != 0)
				continue;
			if ((pid = fork()) == -1) {
				log_err("fork: %s", strerror(errno));
				sleep(1);
				continue;
			}
			if (pid == 0 && i == nworkers) {
				close(bg[1]);
				_exit(http_background(bg[0], sock, bg_delay_ms, rs));
			}
			if (pid == 0) {
				if (bg[0] != -1)
					close(bg[0]);
				http_bg_fd = bg[1];
				_exit(http_worker(sock, rs));
			}
			kids[i] = pid;
			started[i] = time(NULL);
		}
		pid = waitpid(-1, &status, 0);
		if (pid == -1)
			continue;
		for (i = 0; i < nkids; i++) {
			if (kids[i] != pid)
				continue;
			kids[i] = 0;
			if (http_stop)
				break;
			if (i == nworkers) {
				if (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
				    time(NULL) - started[i] < HTTP_QUICK_FAIL_S)
					bg_delay_ms = bg_delay_ms == 0 ? HTTP_BG_DELAY_MS :
					    bg_delay_ms * 2 > HTTP_BG_DELAY_MAX_MS ?
					    HTTP_BG_DELAY_MAX_MS : bg_delay_ms * 2;
				else
					bg_delay_ms = 0;
				log_warn("background process %ld exited (status %d); starting it "
				    "again in %ld ms", (long)pid, status, bg_delay_ms);
				continue;
			}
			log_warn("worker %ld exited (status %d); restarting it", (long)pid,
			    status);
			/*
			 * A worker that fails at once (database missing, schema refused)
			 * will fail again: after HTTP_MAX_QUICK_FAILS in a row, stop and
			 * let the operator (or the service manager) see why.
			 */
			if (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
			    time(NULL) - started[i] < HTTP_QUICK_FAIL_S) {
				if (++quick_fails >= HTTP_MAX_QUICK_FAILS) {
					log_err("workers keep failing at start; stopping");
					http_stop = 1;
					rc = 1;
				} else
					sleep(1);
			} else
				quick_fails = 0;
		}
	}
	for (i = 0; i < nkids; i++)
		if (kids[i] != 0)
			kill(kids[i], SIGTERM);
	while (wait(NULL) > 0)
		continue;
	if (bg[0] != -1) {
		close(bg[0]);
		close(bg[1]);
	}
	return rc;
}

int
http_serve(int argc, char **argv, const struct http_responder *rs)
{
	const char	*sockpath = NULL;
	long		 nworkers = sysconf(_SC_NPROCESSORS_ONLN);
	int		 sock = 0, rc;
	struct sigaction sa;
	struct stat	 st;

	log_init(rs->prog);
	db_umask();
	if ((rc = http_options(argc, argv, rs->prog, &sockpath, &nworkers)) != -1)
		return rc;
	if (license_check_env(rs->prog) == -1)
		return 1;
	license_log_build();
	if (FCGX_Init() != 0) {
		log_err("cannot initialise libfcgi");
		return 1;
	}
	if (sockpath == NULL && FCGX_IsCGI())
		return http_cgi(rs);
	if (sockpath != NULL) {
		if (lstat(sockpath, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(sockpath);
		if ((sock = FCGX_OpenSocket(sockpath, 128)) == -1) {
			log_err("cannot listen on %s: %s", sockpath, strerror(errno));
			return 1;
		}
		chmod(sockpath, 0660);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = http_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	log_info("serving with %ld workers on %s%s", nworkers,
	    sockpath ? sockpath : "fd 0", !rs->sandbox ? "" : sandbox_wanted() ?
	    " (seccomp filter on)" : " (seccomp filter off: CTXD_SECCOMP=off)");
	rc = http_supervise(rs, sock, nworkers);
	if (sockpath != NULL)
		unlink(sockpath);
	return rc;
}
