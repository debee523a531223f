/*
 * access.h: the one authorization check of the responders. A route row (http.h) names who
 * may call it; the route matcher runs access_check before the row's handler, so no
 * handler checks credentials itself. Credentials: an API key (Authorization: Bearer, or
 * the context7-api-key or x-api-key header, on every route) or the session cookie (with
 * its CSRF token in X-CSRF-Token on any method but GET and HEAD).
 */
#ifndef ACCESS_H
#define ACCESS_H

#include "auth/user.h"

struct http_req;
struct db;

/* Who may call a route. */
enum access_who {
	ACCESS_PUBLIC,		/* anyone: no credential is looked at */
	ACCESS_READER,		/* anyone; with setting perm.require_mcp_auth on, only the
				   bearer of a valid API key (a session is not enough) */
	ACCESS_USER,		/* a key or session of any user, or anyone when the row's
				   perm.anonymous_* switch is on */
	ACCESS_ADMIN		/* an admin's key or session, or anyone when the row's
				   perm.anonymous_* switch is on */
};

/* Row flags. */
#define ACCESS_MAY_MUST_CHANGE	0x01	/* allowed while the password must be changed */
#define ACCESS_IDENTIFY		0x04	/* ACCESS_PUBLIC: never refused, but the caller of
					   a valid credential (a session with its CSRF
					   token on a change, a password that need not
					   change) is identified, else anonymous: for a
					   public answer that shows an admin more
					   (GET /api/health) */
#define ACCESS_MAY_ANONYMOUS	0x02	/* ACCESS_USER: a caller with no credential at all
					   (no API key, no session cookie) passes as
					   anonymous for the handler to answer; a credential
					   that is not valid is still refused (401) */

enum access_via { ACCESS_ANONYMOUS, ACCESS_KEY, ACCESS_SESSION };

/* Who is asking (after access_check). user.id is 0 for anonymous callers and operator keys. */
struct access_principal {
	enum access_via	 via;
	int		 admin;
	struct user	 user;
	long long	 key_id;
	long long	 session_id;
	char		 token[128];	/* the session token (the cookie) */
};

/*
 * Decides whether the request may go on, as described for enum access_who; anon_setting
 * is the row's perm.anonymous_* switch (ACCESS_USER, ACCESS_ADMIN; may be NULL). With
 * the switch on, a caller with a valid credential is still identified in *p (else *p is
 * anonymous), so that a handler can allow an admin more. flags are the row's
 * ACCESS_* flags, what names the operation in refusals ("listing the jobs"). Fills *p.
 * On refusal answers 401 (WWW-Authenticate: Bearer; the error says whether the
 * credential is missing or invalid, never more) or 403 naming what is missing, and
 * returns -1; 0 when allowed.
 */
int	 access_check(struct http_req *, struct db *, enum access_who, int flags,
	    const char *anon_setting, const char *what, struct access_principal *p);

#endif
