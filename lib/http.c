/* http.c: the FastCGI responder frame (see http.h). */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>
#include <json.h>

#include "ctxd.h"
#include "http.h"

#define HTTP_MAX_WORKERS	64
#define HTTP_MAX_PARAMS		64
#define HTTP_QUICK_FAIL_S	2	/* a worker dying sooner failed at start */
#define HTTP_MAX_QUICK_FAILS	5

static volatile sig_atomic_t http_stop;

static const char *
http_status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 409: return "Conflict";
	case 413: return "Payload Too Large";
	case 415: return "Unsupported Media Type";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return status < 500 ? "Error" : "Internal Server Error";
	}
}

static const char *
http_env(const struct http_req *r, const char *name)
{
	return r->fr != NULL ? FCGX_GetParam(name, r->envp) : getenv(name);
}

const char *
http_header(const struct http_req *r, const char *cgi_name)
{
	return http_env(r, cgi_name);
}

const char *
http_param(const struct http_req *r, const char *name)
{
	size_t	 i;

	for (i = 0; i < r->nparams; i++)
		if (strcmp(r->params[i].name, name) == 0)
			return r->params[i].value;
	return NULL;
}

int
http_urldecode(char *s)
{
	char	*w = s;
	int	 hi, lo;

	for (; *s != '\0'; s++) {
		if (*s == '+')
			*w++ = ' ';
		else if (*s == '%') {
			if ((hi = util_hexval(s[1])) == -1 ||
			    (lo = util_hexval(s[2])) == -1 || (hi == 0 && lo == 0))
				return -1;
			*w++ = (char)(hi << 4 | lo);
			s += 2;
		} else
			*w++ = *s;
	}
	*w = '\0';
	return 0;
}

static void
http_req_release(struct http_req *r)
{
	size_t	 i;

	for (i = 0; i < r->nparams; i++) {
		free(r->params[i].name);
		free(r->params[i].value);
	}
	free(r->params);
	free(r->body);
	r->params = NULL;
	r->nparams = 0;
	r->body = NULL;
}

/* Splits the query string into decoded parameters; -1 on a malformed one. */
static int
http_parse_query(struct http_req *r, const char *qs)
{
	char	*copy, *pair, *save = NULL, *eq;

	if (qs == NULL || *qs == '\0')
		return 0;
	if ((copy = strdup(qs)) == NULL)
		return -1;
	if ((r->params = calloc(HTTP_MAX_PARAMS, sizeof(*r->params))) == NULL) {
		free(copy);
		return -1;
	}
	for (pair = strtok_r(copy, "&", &save); pair != NULL;
	    pair = strtok_r(NULL, "&", &save)) {
		struct http_param *p;

		if (r->nparams == HTTP_MAX_PARAMS)
			break;
		p = &r->params[r->nparams];
		if ((eq = strchr(pair, '=')) != NULL)
			*eq++ = '\0';
		p->name = strdup(pair);
		p->value = strdup(eq != NULL ? eq : "");
		if (p->name == NULL || p->value == NULL) {
			free(p->name);
			free(p->value);
			free(copy);
			return -1;
		}
		r->nparams++;
		if (http_urldecode(p->name) == -1 || http_urldecode(p->value) == -1) {
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

static void
http_write(struct http_req *r, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (r->fr != NULL)
		FCGX_PutStr(p, (int)n, r->fr->out);
	else
		fwrite(p, 1, n, stdout);
}

void
http_respond(struct http_req *r, int status, const char *ctype,
    const char *extra_headers, const char *body, size_t len)
{
	struct buf	 h;

	if (r->answered)
		return;
	r->answered = 1;
	buf_init(&h);
	if (buf_printf(&h, "Status: %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nCache-Control: no-store\r\n"
	    "X-Content-Type-Options: nosniff\r\n%s\r\n", status,
	    http_status_text(status), ctype, len,
	    extra_headers != NULL ? extra_headers : "") == 0) {
		http_write(r, h.p, h.len);
		if (strcmp(r->method, "HEAD") != 0)
			http_write(r, body, len);
	}
	buf_release(&h);
	if (r->fr == NULL)
		fflush(stdout);
}

void
http_json(struct http_req *r, int status, const char *json)
{
	http_respond(r, status, "application/json; charset=utf-8", NULL, json,
	    strlen(json));
}

static void
http_verror(struct http_req *r, int status, const char *extra_headers,
    const char *fmt, va_list ap)
{
	json_object	*o;
	char		 msg[1024];
	const char	*json;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	o = json_object_new_object();
	json_object_object_add(o, "error", json_object_new_string(msg));
	json = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	http_respond(r, status, "application/json; charset=utf-8", extra_headers,
	    json, strlen(json));
	json_object_put(o);
}

void
http_error(struct http_req *r, int status, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	http_verror(r, status, NULL, fmt, ap);
	va_end(ap);
}

void
http_error_hdr(struct http_req *r, int status, const char *extra_headers,
    const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	http_verror(r, status, extra_headers, fmt, ap);
	va_end(ap);
}

int
http_read_body(struct http_req *r, size_t max)
{
	const char	*cl = http_env(r, "CONTENT_LENGTH");
	long		 n = 0;
	size_t		 got = 0;
	int		 k;

	if (cl != NULL && *cl != '\0' && util_parse_long(cl, 0, 1L << 40, &n) == -1) {
		http_error(r, 400, "invalid Content-Length");
		return -1;
	}
	if ((size_t)n > max) {
		http_error(r, 413, "request body is larger than %zu bytes", max);
		return -1;
	}
	if ((r->body = malloc((size_t)n + 1)) == NULL) {
		http_error(r, 500, "out of memory");
		return -1;
	}
	while (got < (size_t)n) {
		if (r->fr != NULL)
			k = FCGX_GetStr(r->body + got, (int)((size_t)n - got),
			    r->fr->in);
		else
			k = (int)fread(r->body + got, 1, (size_t)n - got, stdin);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	if (got != (size_t)n) {
		http_error(r, 400, "request body is shorter than its Content-Length");
		return -1;
	}
	r->body[got] = '\0';
	r->body_len = got;
	return 0;
}

/* Fills r from the request environment and answers one request. */
static void
http_dispatch(struct http_req *r, http_handle_fn handle, void *ctx)
{
	const char	*uri, *q, *https;
	char		*path = NULL;

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
	else
		handle(r, ctx);
	if (!r->answered)
		http_error(r, 500, "the request could not be answered");
	http_req_release(r);
	free(path);
	r->path = NULL;
}

static void
http_on_signal(int sig)
{
	http_stop = 1;
}

/* One worker: accept and answer until told to stop. */
static int
http_worker(int sock, http_init_fn init, http_handle_fn handle)
{
	FCGX_Request	 fr;
	struct http_req	 r;
	void		*ctx;

	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if ((ctx = init()) == NULL)
		return 1;
	if (FCGX_InitRequest(&fr, sock, 0) != 0)
		return 1;
	while (FCGX_Accept_r(&fr) >= 0) {
		memset(&r, 0, sizeof(r));
		r.fr = &fr;
		r.envp = fr.envp;
		http_dispatch(&r, handle, ctx);
		FCGX_Finish_r(&fr);
	}
	return 0;
}

static void
http_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--socket PATH] [--workers N]\n", prog);
}

int
http_serve(int argc, char **argv, const char *prog, http_init_fn init,
    http_handle_fn handle)
{
	const char	*sockpath = NULL;
	pid_t		 kids[HTTP_MAX_WORKERS];
	time_t		 started[HTTP_MAX_WORKERS];
	long		 nworkers = sysconf(_SC_NPROCESSORS_ONLN);
	int		 i, sock = 0, status, quick_fails = 0, rc = 0;
	struct sigaction sa;
	struct stat	 st;
	pid_t		 pid;

	log_init(prog);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			sockpath = argv[++i];
		else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
			if (util_parse_long(argv[++i], 1, HTTP_MAX_WORKERS,
			    &nworkers) == -1) {
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
	if (nworkers < 1)
		nworkers = 1;
	if (nworkers > HTTP_MAX_WORKERS)
		nworkers = HTTP_MAX_WORKERS;
	if (license_check_env(prog) == -1)
		return 1;
	if (FCGX_Init() != 0) {
		log_err("cannot initialise libfcgi");
		return 1;
	}

	/* Plain CGI (no socket on fd 0): answer the one request in the environment. */
	if (sockpath == NULL && FCGX_IsCGI()) {
		struct http_req r;
		void *ctx;

		if ((ctx = init()) == NULL)
			return 1;
		memset(&r, 0, sizeof(r));
		http_dispatch(&r, handle, ctx);
		return 0;
	}
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
	memset(kids, 0, sizeof(kids));
	memset(started, 0, sizeof(started));
	log_info("serving with %ld workers on %s", nworkers,
	    sockpath ? sockpath : "fd 0");
	while (!http_stop) {
		for (i = 0; i < nworkers && !http_stop; i++) {
			if (kids[i] != 0)
				continue;
			if ((pid = fork()) == -1) {
				log_err("fork: %s", strerror(errno));
				sleep(1);
				continue;
			}
			if (pid == 0)
				_exit(http_worker(sock, init, handle));
			kids[i] = pid;
			started[i] = time(NULL);
		}
		pid = waitpid(-1, &status, 0);
		if (pid == -1)
			continue;
		for (i = 0; i < nworkers; i++) {
			if (kids[i] != pid)
				continue;
			kids[i] = 0;
			if (http_stop)
				break;
			log_warn("worker %ld exited (status %d); restarting it",
			    (long)pid, status);
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
	for (i = 0; i < nworkers; i++)
		if (kids[i] != 0)
			kill(kids[i], SIGTERM);
	while (wait(NULL) > 0)
		continue;
	if (sockpath != NULL)
		unlink(sockpath);
	return rc;
}
