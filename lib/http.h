/*
 * http.h: the FastCGI responder frame shared by ctxd-query, ctxd-web (and later ctxd-mcp,
 * ctxd-hook): socket handling, pre-forked workers, request parsing and responses.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>

struct FCGX_Request;

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
};

/* Called once per worker process after fork; returns the handler context or NULL. */
typedef void *(*http_init_fn)(void);
/* Answers one request; must call http_respond/http_error (else a 500 is sent). */
typedef void (*http_handle_fn)(struct http_req *, void *ctx);

/*
 * Runs a responder: parses --socket PATH, --workers N and --help, checks LICENSE_KEY,
 * opens the listen socket (or uses fd 0), pre-forks the workers, restarts any that die
 * and stops them all on SIGTERM/SIGINT. Returns the process exit status.
 */
int	 http_serve(int argc, char **argv, const char *prog, http_init_fn, http_handle_fn);

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

#endif
