/*
 * web.h: shared by the ctxd-web handlers (fcgi/web.c, fcgi/account.c): the responder's
 * context, the one authorization function and the JSON body validator.
 */
#ifndef WEB_H
#define WEB_H

#include <json.h>

#include "ctxd.h"
#include "http.h"

#define WEB_BODY_MAX	(64 * 1024)

struct web_ctx {
	struct sqlite3	*db;
};

/* What a request needs (web_authorize); 0 with an anonymous setting that is on: nothing. */
#define WEB_NEED_USER		0x01	/* a valid key or session, any role */
#define WEB_NEED_ADMIN		0x02	/* an admin key or an admin's session */
#define WEB_MAY_MUST_CHANGE	0x04	/* allowed while the password must be changed */

enum web_via { WEB_ANONYMOUS, WEB_KEY, WEB_SESSION };

/* Who is asking. user.id is 0 for anonymous requests and operator keys. */
struct web_principal {
	enum web_via	 via;
	int		 admin;
	struct user	 user;
	long long	 key_id;
	long long	 session_id;
	const char	*token;		/* session token (the cookie), valid during the request */
};

/*
 * The one authorization check of ctxd-web. When anon_setting (a perm.anonymous_* setting,
 * or NULL) is on, anyone may and *p is anonymous. Otherwise the request needs an API key
 * (Authorization: Bearer) or a session cookie; a session's state-changing request (any
 * method but GET and HEAD) also needs its CSRF token in X-CSRF-Token. A user who must
 * change the password may only do what WEB_MAY_MUST_CHANGE allows. On refusal answers 401
 * (with WWW-Authenticate: Bearer; the error says "missing" or "invalid") or 403 naming
 * what, and returns -1.
 */
int	 web_authorize(struct http_req *, struct web_ctx *, int need,
	    const char *anon_setting, const char *what, struct web_principal *);

/* Declared fields of a JSON request body (web_json_body). */
enum web_field_type { WEB_STRING, WEB_BOOL };
struct web_field {
	const char		*name;
	enum web_field_type	 type;
	int			 required;
	size_t			 max;		/* WEB_STRING: longest value in bytes */
};

/*
 * Reads and validates a JSON object body against fields: Content-Type application/json,
 * at most WEB_BODY_MAX bytes, no unknown or missing fields, right types and lengths. On
 * failure answers 4xx naming the problem and returns NULL; else the object (caller puts).
 */
json_object *web_json_body(struct http_req *, const struct web_field *, size_t n);
/* A field of a validated body: its string (or NULL when absent) / boolean (or dflt). */
const char *web_json_str(json_object *, const char *name);
int	 web_json_bool(json_object *, const char *name, int dflt);
/* Sends a json-c object with the status and optional extra header lines; puts it. */
void	 web_send(struct http_req *, int status, const char *extra_headers, json_object *);

/* The account handlers (fcgi/account.c): 1 when the path was theirs (answered), else 0. */
int	 account_handle(struct http_req *, struct web_ctx *);

#endif
