/*
 * fuzz-headers.c: the request headers as the responders read them: Authorization (an API
 * key, "Bearer" or not), the Cookie header (the session cookie among others), X-CSRF-Token,
 * the readers' context7-api-key and x-api-key, the request method and path, through the
 * route matcher (lib/http/http.c: http_route, 404/405/Allow, captures) and the one
 * authorization check (lib/http/access.c) against a real temporary database holding a user, a
 * session and an API key (removed at exit); and the MCP Origin/Host check.
 *
 * The input is lines: method, path, Authorization, Cookie, X-CSRF-Token, x-api-key,
 * context7-api-key, Origin, Host. In any of them "@KEY@", "@ADMINKEY@", "@SESSION@" and
 * "@CSRF@" become the real key, admin key, session token and its CSRF token, so that
 * the fuzzer reaches the paths past a valid credential.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../unit/db-helpers.h"
#include "auth/apikey.h"
#include "auth/session.h"
#include "auth/user.h"
#include "base/buf.h"
#include "http/access.h"
#include "http/http.h"
#include "mcp/mcp.h"
#include "store/db.h"
#include "store/settings.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	LLVMFuzzerInitialize(int *, char ***);

static char	 fz_dir[512];
static struct db	*fz_db;
static char	*fz_key, *fz_admin, *fz_session;
static char	 fz_csrf[SESSION_CSRF_LEN + 1];

static void
fz_handler(struct http_req *r, void *ctx)
{
	const char	*id = http_arg(r, "id");

	http_respond(r, 200, "text/plain", NULL, id != NULL ? id : "ok",
	    id != NULL ? strlen(id) : 2);
}

static const struct http_route fz_routes[] = {
	{ "GET", "/p", ACCESS_PUBLIC, NULL, 0, "the public thing", fz_handler },
	{ "GET", "/r", ACCESS_READER, NULL, 0, "reading", fz_handler },
	{ "POST", "/r", ACCESS_READER, NULL, 0, "reading", fz_handler },
	{ "GET", "/u", ACCESS_USER, NULL, 0, "the user thing", fz_handler },
	{ "POST", "/u", ACCESS_USER, NULL, ACCESS_MAY_MUST_CHANGE, "the user thing",
	    fz_handler },
	{ "POST", "/anon", ACCESS_USER, "perm.anonymous_refresh", 0, "a refresh",
	    fz_handler },
	{ "GET", "/a", ACCESS_ADMIN, NULL, 0, "the admin thing", fz_handler },
	{ "PUT", "/a", ACCESS_ADMIN, NULL, 0, "the admin thing", fz_handler },
	{ "GET", "/libs/{id*}", ACCESS_USER, NULL, 0, "a library", fz_handler },
	{ "DELETE", "/libs/{id*}", ACCESS_ADMIN, NULL, 0, "a library", fz_handler },
	{ "POST", "/libs/{id*}/refresh", ACCESS_USER, "perm.anonymous_refresh", 0,
	    "a refresh", fz_handler },
	{ "GET", "/jobs/{id}/log", ACCESS_ADMIN, NULL, 0, "a job's log", fz_handler },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static void
fz_cleanup(void)
{
	free(fz_key);
	free(fz_admin);
	free(fz_session);
	dbh_remove(fz_dir, fz_db);
}

/* The database, made at the first input; -1 when it cannot be. */
static int
fz_setup(void)
{
	static int	 state;
	long long	 uid, sid;
	char		 err[256];

	if (state != 0)
		return state;
	state = -1;
	if (dbh_open(fz_dir, sizeof(fz_dir), &fz_db) == -1 ||
	    user_create(fz_db, "alice", 0, "correct horse battery", 0, &uid, err,
	    sizeof(err)) == -1 ||
	    (fz_key = apikey_create_for(fz_db, uid, "k", 0, NULL)) == NULL ||
	    (fz_admin = apikey_create(fz_db, "adm", 1)) == NULL ||
	    (fz_session = session_create(fz_db, uid, &sid)) == NULL ||
	    settings_set(fz_db, fz_dir, "perm.require_mcp_auth", "true", err,
	    sizeof(err)) == -1)
		return -1;
	session_csrf(fz_session, fz_csrf);
	atexit(fz_cleanup);
	state = 1;
	return 1;
}

/* Line s with the markers replaced (malloc'd). */
static char *
fz_expand(const char *s, size_t n)
{
	static const char *const marks[] = { "@KEY@", "@ADMINKEY@", "@SESSION@", "@CSRF@" };
	const char	*vals[4] = { fz_key, fz_admin, fz_session, fz_csrf };
	struct buf	 b;
	size_t		 i, k;

	buf_init(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < n;) {
		for (k = 0; k < 4; k++)
			if (n - i >= strlen(marks[k]) &&
			    memcmp(s + i, marks[k], strlen(marks[k])) == 0)
				break;
		if (k < 4) {
			buf_adds(&b, vals[k]);
			i += strlen(marks[k]);
		} else
			buf_addc(&b, s[i++]);
	}
	return buf_detach(&b);
}

/*
 * The database (and, for headers, the scrypt-hashed user) is made before fuzzing starts:
 * libFuzzer's -timeout applies to each input, and the setup is not the input's cost.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* A set-up that fails would make every input a no-op: stop loudly instead. */
	if (fz_setup() == -1) {
		fprintf(stderr, "%s: the fuzz target's set-up failed\n", __FILE__);
		abort();
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const envs[] = {
		NULL, NULL, "HTTP_AUTHORIZATION", "HTTP_COOKIE", "HTTP_X_CSRF_TOKEN",
		"HTTP_X_API_KEY", "HTTP_CONTEXT7_API_KEY", "HTTP_ORIGIN", "HTTP_HOST",
	};
	const char	*s = (const char *)data, *end = s + size, *nl;
	char		*v[9] = { NULL };
	struct http_req	 r;
	struct buf	 out;
	size_t		 i;

	if (fz_setup() == -1 || memchr(data, '\0', size) != NULL)
		return 0;
	for (i = 0; i < 9 && s <= end; i++) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		v[i] = fz_expand(s, (size_t)(nl - s));
		s = nl + 1;
	}
	for (i = 2; i < 9; i++) {
		if (v[i] != NULL)
			setenv(envs[i], v[i], 1);
		else
			unsetenv(envs[i]);
	}
	memset(&r, 0, sizeof(r));
	buf_init(&out);
	r.method = v[0] != NULL && *v[0] != '\0' ? v[0] : "GET";
	r.path = v[1] != NULL ? v[1] : "/";
	r.authorization = v[2];
	r.capture = &out;
	if (db_exec(fz_db, "BEGIN") == 0) {
		http_route(&r, fz_routes, fz_db, NULL);
		db_rollback(fz_db);
	}
	for (i = 0; i < r.nargs; i++) {
		free(r.args[i].name);
		free(r.args[i].value);
	}
	if (v[7] != NULL)
		mcp_origin_allowed(v[7], v[8], v[8], "x.example, y.example:8443",
		    "https://x.example, *x");
	if (v[8] != NULL)
		http_host_known(v[8], strlen(v[8]), "x.example, [::1]:3000, y.example:8443");
	buf_release(&out);
	for (i = 0; i < 9; i++)
		free(v[i]);
	return 0;
}
