/*
 * http.h: the FastCGI responder frame shared by ctxd-query, ctxd-mcp, ctxd-web and
 * ctxd-hook: socket handling, pre-forked workers, request parsing, the route matcher and
 * responses. A responder is a route table (struct http_route) and an init function:
 * http_serve runs it, and for every request the matcher picks the row, answers 404 or 405
 * (with Allow) itself, runs the row's authorization (access.h) and calls the row's
 * handler.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>

#include "http/access.h"

struct json_object;

struct FCGX_Request;
struct buf;
struct db;

#define HTTP_MAX_ARGS	4	/* captures of one route pattern */

struct http_param {
	char	*name;
	char	*value;
};

struct http_req {
	struct FCGX_Request *fr;	/* NULL in plain CGI mode (one request, stdio) */
	char		**envp;
	const char	*method;
	const char	*path;		/* URI path without the query string */
	const char	*content_type;
	const char	*authorization;
	int		 https;		/* request came over HTTPS */
	struct http_param *params;	/* decoded query string */
	size_t		 nparams;
	char		*body;		/* after http_read_body */
	size_t		 body_len;
	int		 answered;
	int		 db_lost;	/* the database connection was lost (db_drain_changes) */
	unsigned long	 busy_base;	/* db_busy_failures when the request began */
	int		 jsonrpc_errors;	/* http_error answers JSON-RPC error objects */
	struct buf	*capture;	/* tests: the response goes here, not to a client */
	/* Set by the route matcher before the handler runs: */
	struct db	*db;		/* the responder's database connection */
	struct access_principal who;	/* who is asking (access_check) */
	struct http_param args[HTTP_MAX_ARGS];	/* the pattern's {captures} */
	size_t		 nargs;
};

/* Answers one request; must call http_respond/http_error (else a 500 is sent). */
typedef void (*http_handler_fn)(struct http_req *, void *ctx);

/*
 * One row of a responder's route table. A pattern is a path whose segments are literal or
 * a capture: "{name}" matches one non-empty segment, "{name*}" one or more segments (so
 * "/api/libraries/{id*}/refresh" matches "/api/libraries/acme/docs/refresh" with id
 * "acme/docs"). A row with method "GET" also answers HEAD. A table ends with a row whose
 * path is NULL.
 */
struct http_route {
	const char	*method;
	const char	*path;
	enum access_who	 who;		/* who may call (access_check) */
	const char	*anon;		/* its perm.anonymous_* switch (ACCESS_USER or
					   ACCESS_ADMIN), or NULL */
	int		 flags;		/* ACCESS_MAY_MUST_CHANGE */
	const char	*what;		/* the operation, for refusals: "listing the jobs" */
	http_handler_fn	 handler;
};

/* A responder: its name, its route table and the per-process set-up. */
struct http_responder {
	const char		*prog;
	/* Called once per worker process after fork: the handler context (or NULL on
	 * failure) and, in *db, the connection the matcher authorizes with. */
	void			*(*init)(struct db **db);
	const struct http_route	*routes;
	int			 jsonrpc_errors;	/* errors as JSON-RPC objects (/mcp) */
	/*
	 * Read-only responders: the authorization and the handler of a request run in one
	 * read transaction, so they see one state of the database for the price of one.
	 */
	int			 read_transaction;
	/* Install the seccomp filter of lib/base/sandbox.h in each worker after init. */
	int			 sandbox;
	/*
	 * When not NULL: one more process beside the workers, supervised like them, runs
	 * background(fd) (which installs the filter itself after its set-up) until SIGTERM: fd is the read end of a pipe (O_NONBLOCK) whose write end each worker
	 * finds with http_background_fd. The workers ask it for work that should not hold a
	 * request up (ctxd-query and ctxd-mcp: local copies, search/copier.h). Its exit
	 * status as a worker's.
	 */
	int			(*background)(int fd);
};

/*
 * In a worker of a responder with a background process: the write end of the pipe to it
 * (O_NONBLOCK: a write that would wait fails with EAGAIN). Else -1.
 */
int	 http_background_fd(void);

/*
 * Runs a responder: parses --socket PATH, --workers N and --help, checks LICENSE_KEY,
 * opens the listen socket (or uses fd 0), pre-forks the workers, restarts any that die
 * and stops them all on SIGTERM/SIGINT. Returns the process exit status.
 */
int	 http_serve(int argc, char **argv, const struct http_responder *);

/*
 * The route matcher: refuses a request whose Host (or X-Forwarded-Host) is not a name of
 * this server (421, see http_host_known), finds the row of routes for r's method and
 * path, answers 404 (no row's pattern matches) or 405 with an Allow header (no matching
 * row has the method), else runs access_check for the row (answering 401/403 on
 * refusal) and calls its handler with ctx. r->db is set to db, r->args to the captures,
 * r->who to the caller.
 */
void	 http_route(struct http_req *, const struct http_route *routes,
	    struct db *db, void *ctx);
/*
 * 1 when host (len bytes of a Host value, name[:port]) names this server: an IP
 * address, localhost or a name under .localhost, the machine's host name, or an entry of
 * names (setting server.hostnames: comma- or blank-separated host[:port]; an entry
 * without a port matches any port). names may be NULL.
 */
int	 http_host_known(const char *host, size_t len, const char *names);
/* The value of capture name of the matched pattern, or NULL. */
const char *http_arg(const struct http_req *, const char *name);

/* The first value of query parameter name, or NULL. */
const char *http_param(const struct http_req *, const char *name);
/* A request header by CGI name ("HTTP_X_API_KEY"), or NULL. */
const char *http_header(const struct http_req *, const char *cgi_name);
/* Reads the request body; -1 (and answers 413/400) when larger than max or short. */
int	 http_read_body(struct http_req *, size_t max);
/* Sends status, Content-Type, optional extra header lines ("Name: value\r\n"), body. */
void	 http_respond(struct http_req *, int status, const char *ctype,
	    const char *extra_headers, const char *body, size_t len);
/* Sends {"error": message} with the status. */
void	 http_error(struct http_req *, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Same, with extra header lines ("Name: value\r\n"). */
void	 http_error_hdr(struct http_req *, int status, const char *extra_headers,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Sends a json-c object (as text) with the status. */
void	 http_json(struct http_req *, int status, const char *json);
/* Percent-decodes (and '+' to space) in place; -1 on a bad escape or a NUL byte. */
int	 http_urldecode(char *);

/* ---------------------------------------------------------------- http_validate.c */
struct validate_table;

/* Checks the request's query parameters against t; answers 400 and returns -1 when bad. */
int	 validate_query(struct http_req *, const struct validate_table *t);
/*
 * Reads the request's body into r->body: Content-Type application/json, else 415; at most
 * VALIDATE_BODY_MAX bytes, else 413. 0, or -1 after answering. (For a caller whose body
 * checker takes text: gitsrc_parse_request.)
 */
int	 validate_read_body(struct http_req *);
/*
 * Reads the request's body (Content-Type application/json, else 415; at most
 * VALIDATE_BODY_MAX bytes, else 413) and checks it against t: the object (caller puts),
 * or NULL after answering 4xx.
 */
struct json_object *validate_body(struct http_req *, const struct validate_table *t);

#endif
