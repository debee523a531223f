/* access.c: the one authorization check of the responders (see access.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "auth/apikey.h"
#include "auth/session.h"
#include "auth/user.h"
#include "http/access.h"
#include "http/http.h"
#include "store/settings.h"

/* The value of cookie name in the Cookie header (copied into out), or NULL. */
static const char *
access_cookie(struct http_req *r, const char *name, char *out, size_t outsz)
{
	const char	*h = http_header(r, "HTTP_COOKIE"), *p, *e;
	size_t		 n = strlen(name);

	if (h == NULL)
		return NULL;
	for (p = h; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		while (*p == ' ' || *p == '\t')
			p++;
		if ((e = strchr(p, ';')) == NULL)
			e = p + strlen(p);
		if ((size_t)(e - p) > n && strncmp(p, name, n) == 0 && p[n] == '=') {
			if ((size_t)(e - p - n - 1) >= outsz)
				return NULL;
			memcpy(out, p + n + 1, (size_t)(e - p - n - 1));
			out[e - p - n - 1] = '\0';
			return out;
		}
	}
	return NULL;
}

static void
access_unauthorized(struct http_req *r, const char *what, const char *why)
{
	http_error_hdr(r, 401, "WWW-Authenticate: Bearer\r\n", "%s needs authentication: "
	    "%s", what, why);
}

/*
 * The API key a caller sent: Authorization, or else context7-api-key or x-api-key (with or
 * without "Bearer "), as an Authorization value in out. NULL when none was sent. Every
 * route that takes a key reads it here, so the three headers work alike everywhere.
 */
static const char *
access_reader_key(struct http_req *r, char *out, size_t outsz)
{
	static const char *const hdrs[] = { "HTTP_CONTEXT7_API_KEY", "HTTP_X_API_KEY" };
	const char	*v;
	size_t		 i;
	int		 n;

	if (r->authorization != NULL && *r->authorization != '\0')
		return r->authorization;
	for (i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
		if ((v = http_header(r, hdrs[i])) == NULL || *v == '\0')
			continue;
		if (strncasecmp(v, "Bearer ", 7) == 0)
			v += 7;
		n = snprintf(out, outsz, "Bearer %s", v);
		/* A value longer than any key is sent on as one that is no key. */
		return n > 0 && (size_t)n < outsz ? out : "Bearer -";
	}
	return NULL;
}

/* ACCESS_READER: a valid API key when perm.require_mcp_auth is on. */
static int
access_reader(struct http_req *r, struct db *db, struct access_principal *p)
{
	struct apikey_info key;
	const char	*auth;
	char		 buf[256];
	enum apikey_result k;

	if (!settings_get_bool(db, "perm.require_mcp_auth", 0))
		return 0;
	auth = access_reader_key(r, buf, sizeof(buf));
	k = apikey_lookup(db, auth, &key);
	explicit_bzero(buf, sizeof(buf));
	if (k == APIKEY_VALID || k == APIKEY_VALID_ADMIN) {
		p->via = ACCESS_KEY;
		p->key_id = key.id;
		p->admin = key.admin;
		return 0;
	}
	http_error_hdr(r, 401, k == APIKEY_MISSING ?
	    "WWW-Authenticate: Bearer realm=\"ctxd\"\r\n" :
	    "WWW-Authenticate: Bearer realm=\"ctxd\", error=\"invalid_token\"\r\n",
	    "authentication required: the API key is %s; send Authorization: Bearer "
	    "<key> with an API key", k == APIKEY_MISSING ? "missing" : "invalid");
	return -1;
}

/*
 * Who sent the request (an API key in any of the headers access_reader_key reads, or the
 * session cookie) into p. -1 when no one: unless quiet, after answering 401 (or 500).
 */
static int
access_identify(struct http_req *r, struct db *db, const char *what,
    struct access_principal *p, int quiet)
{
	struct apikey_info key;
	const char	*auth, *why = NULL;
	char		 buf[256];
	long long	 uid = 0;
	int		 rc, status = 401;

	auth = access_reader_key(r, buf, sizeof(buf));
	if (auth != NULL) {
		switch (apikey_lookup(db, auth, &key)) {
		case APIKEY_VALID:
		case APIKEY_VALID_ADMIN:
			p->via = ACCESS_KEY;
			p->key_id = key.id;
			p->admin = key.admin;
			uid = key.user_id;
			break;
		case APIKEY_MISSING:
		case APIKEY_INVALID:
			why = "the API key is invalid (unknown, revoked or malformed); "
			    "send Authorization: Bearer <key>";
			break;
		}
		explicit_bzero(buf, sizeof(buf));
	} else if (access_cookie(r, SESSION_COOKIE, p->token, sizeof(p->token)) != NULL) {
		if ((rc = session_lookup(db, p->token, &p->session_id, &uid)) == -1) {
			status = 500;
			why = "the session could not be checked";
		} else if (rc == 1)
			why = "the session is invalid (expired or ended); sign in again";
		else
			p->via = ACCESS_SESSION;
	} else
		why = "the API key is missing; send Authorization: Bearer <key> or sign in";
	if (why == NULL && uid != 0) {
		if ((rc = user_by_id(db, uid, &p->user)) == -1) {
			status = 500;
			why = "the user could not be read";
		} else if (rc == 1 || p->user.disabled)
			why = "the session is invalid (its user is disabled or deleted)";
		else if (p->via == ACCESS_SESSION)
			p->admin = p->user.admin;
	}
	if (why == NULL)
		return 0;
	if (!quiet && status == 500)
		http_error(r, 500, "%s", why);
	else if (!quiet)
		access_unauthorized(r, what, why);
	return -1;
}

/* 1 when a session's request that changes something lacks the session's CSRF token. */
static int
access_csrf_missing(struct http_req *r, const struct access_principal *p)
{
	return p->via == ACCESS_SESSION && strcmp(r->method, "GET") != 0 &&
	    strcmp(r->method, "HEAD") != 0 &&
	    !session_csrf_ok(p->token, http_header(r, "HTTP_X_CSRF_TOKEN"));
}

/*
 * A row whose anonymous switch is on lets anyone through; a caller who came with a valid
 * credential (a session with its CSRF token, a password that need not change) is still
 * known to the handler, which may allow them more (an admin re-scoping a library). Any
 * other credential is ignored: the caller is anonymous.
 */
static void
access_anonymous(struct http_req *r, struct db *db, const char *what,
    struct access_principal *p)
{
	if (access_identify(r, db, what, p, 1) == -1 || access_csrf_missing(r, p) ||
	    p->user.must_change) {
		explicit_bzero(p, sizeof(*p));
		p->via = ACCESS_ANONYMOUS;
	}
}

int
access_check(struct http_req *r, struct db *db, enum access_who who, int flags,
    const char *anon_setting, const char *what, struct access_principal *p)
{
	memset(p, 0, sizeof(*p));
	switch (who) {
	case ACCESS_PUBLIC:
		if (flags & ACCESS_IDENTIFY)
			access_anonymous(r, db, what, p);
		return 0;
	case ACCESS_READER:
		return access_reader(r, db, p);
	case ACCESS_USER:
	case ACCESS_ADMIN:
		if (anon_setting != NULL && settings_get_bool(db, anon_setting, 0)) {
			access_anonymous(r, db, what, p);
			return 0;
		}
		break;
	}
	if ((flags & ACCESS_MAY_ANONYMOUS) && access_reader_key(r, p->token,
	    sizeof(p->token)) == NULL && access_cookie(r, SESSION_COOKIE, p->token,
	    sizeof(p->token)) == NULL) {
		explicit_bzero(p, sizeof(*p));
		p->via = ACCESS_ANONYMOUS;
		return 0;
	}
	if (access_identify(r, db, what, p, 0) == -1)
		return -1;
	if (access_csrf_missing(r, p)) {
		http_error(r, 403, "%s with a session needs the session's CSRF token in "
		    "the X-CSRF-Token header (missing or wrong)", what);
		return -1;
	}
	if (p->user.must_change && !(flags & ACCESS_MAY_MUST_CHANGE)) {
		http_error(r, 403, "the password of %s must be changed first (POST "
		    "/api/password); until then nothing else is allowed", p->user.name);
		return -1;
	}
	if (who == ACCESS_ADMIN && !p->admin) {
		http_error(r, 403, "%s needs an admin; %s is not one", what,
		    p->via == ACCESS_KEY ? "this API key" : p->user.name);
		return -1;
	}
	return 0;
}
