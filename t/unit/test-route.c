/*
 * test-route.c: the route matcher of lib/http/http.c against a small table: 404, 405 with
 * Allow, HEAD answered by a GET row, captures ({id}, {id*} over several segments, the row
 * with most literal segments wins) and the authorization each row names, checked against
 * a real database (the handler is not called on refusal).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "auth/apikey.h"
#include "auth/user.h"
#include "base/buf.h"
#include "base/util.h"
#include "http/access.h"
#include "http/http.h"
#include "store/db.h"
#include "store/settings.h"
#include "tap.h"

/* What the last handler saw. */
struct seen {
	const char	*handler;	/* NULL: none was called */
	char		 id[128];
	int		 admin;
};

static void
seen_set(struct http_req *r, void *ctx, const char *name)
{
	struct seen	*s = ctx;
	const char	*id = http_arg(r, "id");

	s->handler = name;
	snprintf(s->id, sizeof(s->id), "%s", id != NULL ? id : "");
	s->admin = r->who.admin;
	http_respond(r, 200, "text/plain", NULL, "ok", 2);
}

#define HANDLER(n) static void h_##n(struct http_req *r, void *c) { seen_set(r, c, #n); }
HANDLER(public)
HANDLER(user)
HANDLER(admin)
HANDLER(admin_put)
HANDLER(anon)
HANDLER(lib_get)
HANDLER(lib_delete)
HANDLER(lib_refresh)
HANDLER(job)
HANDLER(job_log)

static const struct http_route routes[] = {
	{ "GET", "/t/public", ACCESS_PUBLIC, NULL, 0, "the public thing", h_public },
	{ "GET", "/t/user", ACCESS_USER, NULL, 0, "the user thing", h_user },
	{ "GET", "/t/admin", ACCESS_ADMIN, NULL, 0, "the admin thing", h_admin },
	{ "PUT", "/t/admin", ACCESS_ADMIN, NULL, 0, "the admin thing", h_admin_put },
	{ "POST", "/t/anon", ACCESS_USER, "perm.anonymous_refresh", 0, "the anon thing",
	    h_anon },
	{ "GET", "/t/libs/{id*}", ACCESS_PUBLIC, NULL, 0, "a library", h_lib_get },
	{ "DELETE", "/t/libs/{id*}", ACCESS_PUBLIC, NULL, 0, "a library", h_lib_delete },
	{ "POST", "/t/libs/{id*}/refresh", ACCESS_PUBLIC, NULL, 0, "a refresh",
	    h_lib_refresh },
	{ "GET", "/t/jobs/{id}", ACCESS_PUBLIC, NULL, 0, "a job", h_job },
	{ "GET", "/t/jobs/{id}/log", ACCESS_PUBLIC, NULL, 0, "a job's log", h_job_log },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static struct db		*db;
static struct seen	 seen;
static struct buf	 out;

/* Runs one request through the matcher: its status (the response is in out). */
static int
run(const char *method, const char *path, const char *auth)
{
	struct http_req	 r;
	size_t		 i;
	int		 status = 0;

	memset(&r, 0, sizeof(r));
	memset(&seen, 0, sizeof(seen));
	buf_release(&out);
	buf_init(&out);
	r.method = method;
	r.path = path;
	r.authorization = auth;
	r.capture = &out;
	http_route(&r, routes, db, &seen);
	for (i = 0; i < r.nargs; i++) {
		free(r.args[i].name);
		free(r.args[i].value);
	}
	if (out.p != NULL)
		sscanf(out.p, "Status: %d", &status);
	return status;
}

/* The value of header name in the last response ("" when absent). */
static const char *
header(const char *name)
{
	static char	 v[256];
	const char	*p, *e;
	size_t		 n = strlen(name);

	v[0] = '\0';
	for (p = out.p; p != NULL && *p != '\0' && strncmp(p, "\r\n", 2) != 0; p = e + 2) {
		if ((e = strstr(p, "\r\n")) == NULL)
			break;
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			snprintf(v, sizeof(v), "%.*s", (int)(e - p - n - 2), p + n + 2);
			break;
		}
	}
	return v;
}

/* 1 when the body of the last response holds s. */
static int
body_has(const char *s)
{
	const char	*b = out.p != NULL ? strstr(out.p, "\r\n\r\n") : NULL;

	return b != NULL && strstr(b, s) != NULL;
}

static void
test_match(void)
{
	is_int(run("GET", "/t/nothing", NULL), 404, "an unknown path: 404");
	ok(body_has("no such endpoint: /t/nothing"), "which the error names");
	is_int(run("GET", "/t/public/x", NULL), 404, "a longer path: 404");
	is_int(run("GET", "/t/jobs", NULL), 404, "a capture needs a segment: 404");
	is_int(run("GET", "/t/jobs//log", NULL), 404, "an empty segment: 404");
	ok(seen.handler == NULL, "no handler was called");

	is_int(run("POST", "/t/public", NULL), 405, "another method: 405");
	is_str(header("Allow"), "GET", "Allow names the row's method");
	ok(body_has("/t/public accepts only GET"), "and so does the error");
	is_int(run("DELETE", "/t/admin", NULL), 405, "two rows, neither DELETE: 405");
	is_str(header("Allow"), "GET, PUT", "Allow names both, in table order");
	is_int(run("GET", "/t/libs/acme/docs/refresh", NULL), 405,
	    "GET on the refresh row: 405 (its literal beats the GET row's capture)");
	is_str(header("Allow"), "POST", "Allow: POST");
	is_int(run("POST", "/t/jobs/7/log", NULL), 405, "POST on a job's log: 405");
	is_str(header("Allow"), "GET", "Allow: GET");

	is_int(run("HEAD", "/t/public", NULL), 200, "HEAD is answered by the GET row");
	is_str(seen.handler, "public", "by its handler");
	ok(!body_has("ok"), "without a body");

	is_int(run("GET", "/t/jobs/42", NULL), 200, "{id}: 200");
	ok(seen.handler != NULL && strcmp(seen.handler, "job") == 0 &&
	    strcmp(seen.id, "42") == 0, "{id} captures 42");
	is_int(run("GET", "/t/jobs/42/log", NULL), 200, "{id}/log: 200");
	ok(seen.handler != NULL && strcmp(seen.handler, "job_log") == 0 &&
	    strcmp(seen.id, "42") == 0, "the log row, with id 42");
	is_int(run("GET", "/t/libs/acme/docs", NULL), 200, "{id*}: 200");
	is_str(seen.id, "acme/docs", "{id*} captures two segments");
	is_int(run("GET", "/t/libs/a/b/c/d", NULL), 200, "{id*} over four segments");
	is_str(seen.id, "a/b/c/d", "captures them all");
	is_int(run("POST", "/t/libs/acme/docs/refresh", NULL), 200, "{id*}/refresh: 200");
	ok(seen.handler != NULL && strcmp(seen.handler, "lib_refresh") == 0 &&
	    strcmp(seen.id, "acme/docs") == 0, "the refresh row, id without /refresh");
	is_int(run("DELETE", "/t/libs/acme/docs/refresh", NULL), 405,
	    "DELETE .../refresh: 405, the refresh row matches best");
	is_str(header("Allow"), "POST", "Allow: POST");
	is_int(run("GET", "/t/libs/x", NULL), 200, "{id*} over one segment");
	is_str(seen.id, "x", "captures it");
}

static void
test_access(const char *dir, const char *akey, const char *mkey)
{
	char	 err[256];

	is_int(run("GET", "/t/public", NULL), 200, "PUBLIC: no credential passes");
	is_int(run("GET", "/t/public", "Bearer ctxd_nope"), 200,
	    "PUBLIC: a bad credential is not even looked at");
	is_int(run("GET", "/t/user", NULL), 401, "USER: no credential: 401");
	ok(seen.handler == NULL, "the handler is not called");
	is_str(header("WWW-Authenticate"), "Bearer", "401 with WWW-Authenticate: Bearer");
	ok(body_has("the user thing needs authentication: the API key is missing"),
	    "the error names the operation and says the key is missing");
	is_int(run("GET", "/t/user", "Bearer ctxd_nope"), 401, "USER: an unknown key: 401");
	ok(body_has("the API key is invalid"), "says it is invalid");
	is_int(run("GET", "/t/user", mkey), 200, "USER: a member key passes");
	ok(seen.handler != NULL && !seen.admin, "the handler sees a member");
	is_int(run("GET", "/t/admin", mkey), 403, "ADMIN: a member key: 403");
	ok(seen.handler == NULL, "the handler is not called");
	ok(body_has("the admin thing needs an admin"), "the error names the operation");
	is_int(run("GET", "/t/admin", NULL), 401, "ADMIN: no credential: 401");
	is_int(run("GET", "/t/admin", akey), 200, "ADMIN: an admin key passes");
	ok(seen.handler != NULL && seen.admin, "the handler sees an admin");
	is_int(run("POST", "/t/anon", NULL), 401, "USER with its switch off: 401");
	ok(seen.handler == NULL, "the handler is not called");
	ok(settings_set(db, dir, "perm.anonymous_refresh", "true", err, sizeof(err)) == 0,
	    "switch perm.anonymous_refresh on");
	is_int(run("POST", "/t/anon", NULL), 200, "USER with its switch on: anyone");
	is_str(seen.handler, "anon", "the handler is called");
	is_int(run("POST", "/t/anon", "Bearer ctxd_nope"), 200,
	    "whatever credential comes along");
	is_int(run("GET", "/t/user", NULL), 401, "another row's switch does not count");
}

/* The Host check: before anything else, the request must name one of the server's names. */
static void
test_host(const char *dir)
{
	char	 err[256];

	setenv("HTTP_HOST", "rebind.example:3000", 1);
	is_int(run("GET", "/t/public", NULL), 421, "a Host that is not the server's: 421");
	ok(seen.handler == NULL, "the handler is not called");
	ok(body_has("the Host 'rebind.example:3000'") && body_has("server.hostnames"),
	    "the error names the Host and the setting");
	is_int(run("GET", "/t/nothing", NULL), 421, "even before the path is matched");
	setenv("HTTP_HOST", "127.0.0.1:3000", 1);
	is_int(run("GET", "/t/public", NULL), 200, "an IP address: 200");
	setenv("HTTP_HOST", "localhost", 1);
	is_int(run("GET", "/t/public", NULL), 200, "localhost: 200");
	ok(settings_set(db, dir, "server.hostnames", "rebind.example", err,
	    sizeof(err)) == 0, "server.hostnames names it");
	setenv("HTTP_HOST", "rebind.example:3000", 1);
	is_int(run("GET", "/t/public", NULL), 200, "then it is answered");
	setenv("HTTP_X_FORWARDED_HOST", "localhost, evil.example", 1);
	is_int(run("GET", "/t/public", NULL), 421, "an X-Forwarded-Host entry that is not: 421");
	ok(body_has("the X-Forwarded-Host 'evil.example'"), "naming it");
	unsetenv("HTTP_X_FORWARDED_HOST");
	unsetenv("HTTP_HOST");
	is_int(run("GET", "/t/public", NULL), 200, "no Host at all (HTTP/1.0): 200");
	ok(settings_unset(db, "server.hostnames") == 0, "server.hostnames unset");
}

/* An anonymous switch: anyone passes, but a valid credential is still known. */
static void
test_anonymous(const char *akey)
{
	is_int(run("POST", "/t/anon", akey), 200, "switch on: an admin key passes");
	ok(seen.handler != NULL && seen.admin, "and the handler still sees an admin");
	is_int(run("POST", "/t/anon", "Bearer ctxd_nope"), 200, "an unknown key passes");
	ok(seen.handler != NULL && !seen.admin, "as anonymous");
	setenv("HTTP_X_API_KEY", akey + 7, 1);
	is_int(run("GET", "/t/admin", NULL), 200, "an admin key in x-api-key: 200");
	unsetenv("HTTP_X_API_KEY");
	setenv("HTTP_CONTEXT7_API_KEY", akey, 1);
	is_int(run("GET", "/t/admin", NULL), 200, "in context7-api-key with Bearer: 200");
	unsetenv("HTTP_CONTEXT7_API_KEY");
}

/* The number in s, -1 when none. */
static long
header_number(const char *s)
{
	long	 n = -1;

	util_parse_long(s, 0, 1L << 30, &n);
	return n;
}

/* Sends body as ctype through http_respond (the one output point); the response in out. */
static const char *
respond(const char *ctype, const char *body, size_t len)
{
	struct http_req	 r;
	const char	*p;

	memset(&r, 0, sizeof(r));
	buf_release(&out);
	buf_init(&out);
	r.method = "GET";
	r.capture = &out;
	http_respond(&r, 200, ctype, NULL, body, len);
	buf_add(&out, "", 0);
	return out.p != NULL && (p = strstr(out.p, "\r\n\r\n")) != NULL ? p + 4 : "";
}

/* Whatever the handler built, an answer declared UTF-8 leaves as UTF-8. */
static void
test_utf8_out(void)
{
	static const char bad[] = "{\"path\":\"docs/bad\xff\xfe.md\"}";
	const char	*b;

	b = respond("application/json; charset=utf-8", bad, sizeof(bad) - 1);
	is_str(b, "{\"path\":\"docs/bad\xef\xbf\xbd\xef\xbf\xbd.md\"}",
	    "JSON with bytes that are not UTF-8: each is U+FFFD");
	is_int(header_number(header("Content-Length")), (long)strlen(b),
	    "Content-Length counts the repaired body");
	b = respond("text/plain; charset=utf-8", "a\xc0\xaf", 3);
	is_str(b, "a\xef\xbf\xbd\xef\xbf\xbd", "text declared UTF-8: repaired too");
	b = respond("application/json; charset=utf-8", "{\"t\":\"caf\xc3\xa9\"}", 13);
	is_str(b, "{\"t\":\"caf\xc3\xa9\"}", "valid UTF-8 is sent as it is");
	b = respond("application/gzip", "\x1f\x8b\xff", 3);
	ok(memcmp(b, "\x1f\x8b\xff", 3) == 0 && strcmp(header("Content-Length"), "3") == 0,
	    "a binary body is not touched");
}

int
main(void)
{
	char		 dir[] = "/tmp/test-route.XXXXXX", err[256], akey[128], mkey[128];
	char		*k;
	long long	 id, uid;

	buf_init(&out);
	if (mkdtemp(dir) == NULL || setenv("DATA_DIR", dir, 1) == -1) {
		printf("Bail out! no temporary folder\n");
		return 1;
	}
	if (db_open(dir, DB_READWRITE, &db) == -1) {
		printf("Bail out! the database could not be created\n");
		return 1;
	}
	test_match();
	test_utf8_out();
	k = apikey_create_for(db, 0, "operator", 1, &id);
	ok(k != NULL, "an admin key");
	snprintf(akey, sizeof(akey), "Bearer %s", k != NULL ? k : "-");
	free(k);
	ok(user_create(db, "mia", 0, "a long password 1", 0, &uid, err, sizeof(err)) == 0,
	    "a member");
	k = apikey_create_for(db, uid, "mia's", 0, &id);
	ok(k != NULL, "a member key");
	snprintf(mkey, sizeof(mkey), "Bearer %s", k != NULL ? k : "-");
	free(k);
	test_access(dir, akey, mkey);
	test_anonymous(akey);
	test_host(dir);
	buf_release(&out);
	db_close(db);
	{
		char	 cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			printf("# %s could not be removed\n", dir);
	}
	return tap_done();
}
