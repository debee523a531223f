/* http.c: a FastCGI request and its answer (see http.h); http_route.c serves them. */
#include "config.h"

#include <sys/socket.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
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
#include "base/log.h"
#include "base/sandbox.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/http.h"
#include "http/http_int.h"
#include "store/db.h"

#define HTTP_MAX_PARAMS		64

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
	case 421: return "Misdirected Request";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return status < 500 ? "Error" : "Internal Server Error";
	}
}

const char *
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

void
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
	for (i = 0; i < r->nargs; i++) {
		free(r->args[i].name);
		free(r->args[i].value);
	}
	r->nargs = 0;
	explicit_bzero(&r->who, sizeof(r->who));
}

int
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
	if (r->capture != NULL)
		buf_add(r->capture, p, n);
	else if (r->fr != NULL)
		FCGX_PutStr(p, (int)n, r->fr->out);
	else
		fwrite(p, 1, n, stdout);
}

void
http_respond(struct http_req *r, int status, const char *ctype,
    const char *extra_headers, const char *body, size_t len)
{
	struct buf	 h;
	char		*fixed = NULL;

	if (r->answered)
		return;
	r->answered = 1;
	/*
	 * The one door every answer leaves by: a body declared UTF-8 (JSON, text) is made
	 * so, each invalid byte becoming U+FFFD, whatever produced it (an old database row,
	 * a path from before the index repaired them). In JSON such bytes can only be inside
	 * strings, so the document stays valid.
	 */
	if (ctype != NULL && strcasestr(ctype, "charset=utf-8") != NULL &&
	    !util_utf8_valid(body, len)) {
		if ((fixed = util_utf8_repair(body, len, &len)) == NULL) {
			log_err("%s: out of memory", __func__);
			status = 500;
			body = "{\"error\": \"out of memory\"}";
			len = strlen(body);
		} else {
			log_warn("%s: the answer held bytes that are not UTF-8; they were "
			    "replaced by U+FFFD", __func__);
			body = fixed;
		}
	}
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
	free(fixed);
	if (r->fr == NULL && r->capture == NULL)
		fflush(stdout);
}

void
http_json(struct http_req *r, int status, const char *json)
{
	http_respond(r, status, "application/json; charset=utf-8", NULL, json,
	    strlen(json));
}

/* Seconds a client is told to wait (Retry-After) when the database was busy. */
#define HTTP_BUSY_RETRY_S	5

static void
http_verror(struct http_req *r, int status, const char *extra_headers,
    const char *fmt, va_list ap)
{
	json_object	*o;
	char		 msg[1024], hdr[512];
	const char	*json;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/*
	 * A failure of a statement that waited out another writer's lock is not the server's
	 * fault but a moment's: 503 and when to try again, not 500 (the database is not changed:
	 * the statement failed whole, its transaction rolls back).
	 */
	if (status == 500 && r->db != NULL && db_busy_failures(r->db) > r->busy_base) {
		size_t len = strlen(msg);

		status = 503;
		snprintf(msg + len, sizeof(msg) - len, "%s", "; the database is busy (another "
		    "writer held it past the busy timeout): try again shortly");
		snprintf(hdr, sizeof(hdr), "Retry-After: %d\r\n%s", HTTP_BUSY_RETRY_S,
		    extra_headers != NULL ? extra_headers : "");
		extra_headers = hdr;
	}
	util_utf8_trim(msg);	/* a long message is cut: not inside a character */
	util_utf8_scrub(msg);	/* what it echoes may be any bytes */
	o = json_object_new_object();
	if (r->jsonrpc_errors) {
		json_object *e = json_object_new_object();

		/* -32001: authentication required; -32000: refused by the transport. */
		json_object_object_add(e, "code", json_object_new_int(status == 401 ?
		    -32001 : -32000));
		json_object_object_add(e, "message", json_object_new_string(msg));
		json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
		json_object_object_add(o, "id", NULL);
		json_object_object_add(o, "error", e);
	} else
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
