/*
 * http_int.h: what http.c (the request and its answer) gives http_route.c (serving) and no
 * one else: a request's CGI variables, its query parameters, its release.
 */
#ifndef HTTP_INT_H
#define HTTP_INT_H

struct http_req;

/* The CGI variable name of the request (FastCGI environment), or NULL. */
const char *http_env(const struct http_req *, const char *name);
/* Splits the query string into decoded parameters; -1 on a malformed one. */
int	 http_parse_query(struct http_req *, const char *qs);
/* Frees what the request holds (parameters, body) and clears it for the next one. */
void	 http_req_release(struct http_req *);

#endif
