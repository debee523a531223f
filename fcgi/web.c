/*
 * ctxd-web: the read-write responder for the /api/ paths outside /api/v2/: POST /api/parse,
 * the account API (fcgi/account.c) and the admin API (lib/adminapi.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json.h>
#include <sqlite3.h>

#include "ctxd.h"
#include "http.h"
#include "adminapi.h"
#include "web.h"

#define PARSE_BODY_MAX	(64 * 1024)

static int	 web_admin_gate(struct http_req *, void *, const char *, const char *);

static void *
web_init(struct sqlite3 **db)
{
	static struct web_ctx ctx;

	if (db_open(util_data_dir(), DB_READWRITE, &ctx.db) == -1)
		return NULL;
	adminapi_set_gate(web_admin_gate, &ctx);
	*db = ctx.db;
	return &ctx;
}

/* The value of cookie name in the Cookie header (copied into out), or NULL. */
static const char *
web_cookie(struct http_req *r, const char *name, char *out, size_t outsz)
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
web_unauthorized(struct http_req *r, const char *what, const char *why)
{
	http_error_hdr(r, 401, "WWW-Authenticate: Bearer\r\n", "%s needs authentication: "
	    "%s", what, why);
}

int
web_authorize(struct http_req *r, struct web_ctx *c, int need,
    const char *anon_setting, const char *what, struct web_principal *p)
{
	struct apikey_info	 key;
	static char		 token[128];
	long long		 uid = 0;
	int			 rc;

	memset(p, 0, sizeof(*p));
	if (anon_setting != NULL && settings_get_bool(c->db, anon_setting, 0))
		return 0;
	if (r->authorization != NULL && *r->authorization != '\0') {
		switch (apikey_lookup(c->db, r->authorization, &key)) {
		case APIKEY_VALID:
		case APIKEY_VALID_ADMIN:
			break;
		case APIKEY_MISSING:
		case APIKEY_INVALID:
			web_unauthorized(r, what, "the API key is invalid (unknown, "
			    "revoked or malformed); send Authorization: Bearer <key>");
			return -1;
		}
		p->via = WEB_KEY;
		p->key_id = key.id;
		p->admin = key.admin;
		uid = key.user_id;
	} else if (web_cookie(r, SESSION_COOKIE, token, sizeof(token)) != NULL) {
		if ((rc = session_lookup(c->db, token, &p->session_id, &uid)) == -1) {
			http_error(r, 500, "the session could not be checked");
			return -1;
		}
		if (rc == 1) {
			web_unauthorized(r, what, "the session is invalid (expired or "
			    "ended); sign in again");
			return -1;
		}
		p->via = WEB_SESSION;
		p->token = token;
	} else {
		web_unauthorized(r, what, "the API key is missing; send "
		    "Authorization: Bearer <key> or sign in");
		return -1;
	}
	if (uid != 0) {
		if ((rc = user_by_id(c->db, uid, &p->user)) == -1) {
			http_error(r, 500, "the user could not be read");
			return -1;
		}
		if (rc == 1 || p->user.disabled) {
			web_unauthorized(r, what, "the session is invalid (its user "
			    "is disabled or deleted)");
			return -1;
		}
		if (p->via == WEB_SESSION)
			p->admin = p->user.admin;
	}
	if (p->via == WEB_SESSION && strcmp(r->method, "GET") != 0 &&
	    strcmp(r->method, "HEAD") != 0 &&
	    !session_csrf_ok(p->token, http_header(r, "HTTP_X_CSRF_TOKEN"))) {
		http_error(r, 403, "%s with a session needs the session's CSRF token in "
		    "the X-CSRF-Token header (missing or wrong)", what);
		return -1;
	}
	if (p->user.must_change && !(need & WEB_MAY_MUST_CHANGE)) {
		http_error(r, 403, "the password of %s must be changed first (POST "
		    "/api/password); until then nothing else is allowed", p->user.name);
		return -1;
	}
	if ((need & WEB_NEED_ADMIN) && !p->admin) {
		http_error(r, 403, "%s needs an admin; %s is not one", what,
		    p->via == WEB_KEY ? "this API key" : p->user.name);
		return -1;
	}
	return 0;
}

/*
 * Allows an operation. A permissioned one (anon_setting names its perm.anonymous_* switch):
 * with the switch on anyone may, otherwise a key or a session (+ CSRF token) of any user.
 * Without a switch (anon_setting NULL): an admin's key or session only. Answers 401/403 and
 * returns -1 when refused. (web_authorize says who is asking, for handlers that need it.)
 */
static int
web_permit(struct http_req *r, struct web_ctx *c, const char *anon_setting,
    const char *what)
{
	struct web_principal p;

	return web_authorize(r, c, anon_setting != NULL ? WEB_NEED_USER : WEB_NEED_ADMIN,
	    anon_setting, what, &p);
}

/* web_permit as the admin API's gate (lib/adminapi.h). */
static int
web_admin_gate(struct http_req *r, void *ctx, const char *anon_setting, const char *what)
{
	return web_permit(r, ctx, anon_setting, what);
}

json_object *
web_json_body(struct http_req *r, const struct web_field *f, size_t n)
{
	json_tokener	*tok;
	json_object	*root, *v;
	size_t		 i;

	if (r->content_type == NULL ||
	    strncasecmp(r->content_type, "application/json", 16) != 0 ||
	    (r->content_type[16] != '\0' && r->content_type[16] != ';')) {
		http_error(r, 415, "Content-Type must be application/json");
		return NULL;
	}
	if (http_read_body(r, WEB_BODY_MAX) == -1)
		return NULL;
	if ((tok = json_tokener_new()) == NULL) {
		http_error(r, 500, "out of memory");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, r->body, (int)r->body_len);
	if (root == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != r->body_len) {
		http_error(r, 400, "request body is not valid JSON");
		goto fail;
	}
	if (!json_object_is_type(root, json_type_object)) {
		http_error(r, 400, "request body must be a JSON object");
		goto fail;
	}
	json_object_object_foreach(root, key, val) {
		(void)val;
		for (i = 0; i < n; i++)
			if (strcmp(f[i].name, key) == 0)
				break;
		if (i == n) {
			http_error(r, 400, "unknown field '%.64s'", key);
			goto fail;
		}
	}
	for (i = 0; i < n; i++) {
		if (!json_object_object_get_ex(root, f[i].name, &v) ||
		    json_object_is_type(v, json_type_null)) {
			if (f[i].required) {
				http_error(r, 400, "missing required field '%s'",
				    f[i].name);
				goto fail;
			}
			continue;
		}
		if (f[i].type == WEB_BOOL && !json_object_is_type(v, json_type_boolean)) {
			http_error(r, 400, "field '%s' must be true or false", f[i].name);
			goto fail;
		}
		if (f[i].type == WEB_STRING) {
			if (!json_object_is_type(v, json_type_string)) {
				http_error(r, 400, "field '%s' must be a string",
				    f[i].name);
				goto fail;
			}
			if ((size_t)json_object_get_string_len(v) > f[i].max) {
				http_error(r, 400, "field '%s' is longer than %zu bytes",
				    f[i].name, f[i].max);
				goto fail;
			}
			if (strlen(json_object_get_string(v)) !=
			    (size_t)json_object_get_string_len(v)) {
				http_error(r, 400, "field '%s' holds a NUL character",
				    f[i].name);
				goto fail;
			}
		}
	}
	json_tokener_free(tok);
	return root;
fail:
	json_tokener_free(tok);
	json_object_put(root);
	return NULL;
}

const char *
web_json_str(json_object *o, const char *name)
{
	json_object	*v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int
web_json_bool(json_object *o, const char *name, int dflt)
{
	json_object	*v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_boolean))
		return dflt;
	return json_object_get_boolean(v);
}

void
web_send(struct http_req *r, int status, const char *extra_headers, json_object *o)
{
	const char	*json = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);

	http_respond(r, status, "application/json; charset=utf-8", extra_headers, json,
	    strlen(json));
	json_object_put(o);
}

/* The URL that identifies a repository: lowercase host, no trailing ".git" or '/'. */
static char *
web_canonical_url(const char *url)
{
	char	*u = strdup(url);
	size_t	 n;

	if (u == NULL)
		return NULL;
	n = strlen(u);
	while (n > 0 && u[n - 1] == '/')
		u[--n] = '\0';
	if (util_str_endswith(u, ".git"))
		u[n - 4] = '\0';
	return u;
}

/*
 * Inserts or updates the library for a parse request and queues its job, in one
 * transaction. Answers the error itself and returns -1 on a conflict or failure.
 */
static int
web_upsert_library(struct http_req *r, struct web_ctx *c, const struct parse_req *p,
    const char *id, const char *host, long long *job_id)
{
	sqlite3_stmt	*st = NULL;
	char		*settings = NULL, *url = NULL, now[32];
	const char	*title;
	int		 rc = -1, exists = 0;

	if ((settings = library_settings_json(p)) == NULL ||
	    (url = web_canonical_url(p->repo_url)) == NULL) {
		http_error(r, 500, "out of memory");
		goto out;
	}
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(c->db) == -1)
		goto dberr;
	if (sqlite3_prepare_v2(c->db, "SELECT url FROM libraries WHERE id = ?1", -1,
	    &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *have = (const char *)sqlite3_column_text(st, 0);

		if (strcasecmp(have, url) != 0) {
			http_error(r, 409, "library %s already exists for %s; "
			    "remove it before adding %s", id, have, url);
			goto fail;
		}
		exists = 1;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (exists && jobs_delete_pending(c->db, id, NULL) == 1) {
		http_error(r, 409, "library %s is being deleted; add it again when "
		    "the deletion has finished", id);
		goto fail;
	}
	if (exists) {
		if (sqlite3_prepare_v2(c->db, "UPDATE libraries SET branch = ?2, "
		    "settings = ?3, url = ?4, updated_at = ?5 WHERE id = ?1", -1,
		    &st, NULL) != SQLITE_OK)
			goto dberr;
	} else {
		if (sqlite3_prepare_v2(c->db, "INSERT INTO libraries (id, lib_no, "
		    "url, host, branch, settings, title, created_at, updated_at) "
		    "VALUES (?1, (SELECT coalesce(max(lib_no), 0) + 1 FROM "
		    "libraries), ?4, ?6, ?2, ?3, ?7, ?5, ?5)", -1, &st, NULL) !=
		    SQLITE_OK)
			goto dberr;
		title = strrchr(id, '/') + 1;
		sqlite3_bind_text(st, 6, host, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, title, -1, SQLITE_STATIC);
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, p->branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, settings, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	if (jobs_enqueue(c->db, id, 0, job_id) == -1 || db_commit(c->db) == -1)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(c->db));
	http_error(r, 500, "the library could not be stored; the responder log "
	    "has the details");
fail:
	db_rollback(c->db);
out:
	sqlite3_finalize(st);
	free(settings);
	free(url);
	return rc;
}

static void
web_parse(struct http_req *r, struct web_ctx *c)
{
	struct parse_req p;
	json_object	*o;
	long long	 job_id;
	char		 err[512], id[512], host[256], msg[600];

	if (strcmp(r->method, "POST") != 0) {
		http_error(r, 405, "/api/parse accepts only POST");
		return;
	}
	if (web_permit(r, c, "perm.anonymous_parse", "parsing a repository") == -1)
		return;
	if (r->content_type == NULL ||
	    strncasecmp(r->content_type, "application/json", 16) != 0 ||
	    (r->content_type[16] != '\0' && r->content_type[16] != ';')) {
		http_error(r, 415, "Content-Type must be application/json");
		return;
	}
	if (http_read_body(r, PARSE_BODY_MAX) == -1)
		return;
	if (library_parse_request(r->body, r->body_len, &p, err, sizeof(err)) == -1) {
		http_error(r, 400, "%s", err);
		return;
	}
	if (library_id_from_url(p.repo_url, id, sizeof(id), host, sizeof(host), err,
	    sizeof(err)) == -1) {
		http_error(r, 400, "%s", err);
		goto out;
	}
	if (web_upsert_library(r, c, &p, id, host, &job_id) == -1)
		goto out;
	if (jobs_spawn_worker() == -1)
		log_warn("the worker could not be started now; cron will run "
		    "job %lld", job_id);
	snprintf(msg, sizeof(msg), "indexing of %s is queued as job %lld", id, job_id);
	o = json_object_new_object();
	json_object_object_add(o, "libraryId", json_object_new_string(id));
	json_object_object_add(o, "jobId", json_object_new_int64(job_id));
	json_object_object_add(o, "message", json_object_new_string(msg));
	http_json(r, 202, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
out:
	library_parse_request_release(&p);
}

/*
 * GET /api/client-config: what the ctxd client tool needs to configure a coding agent. Public
 * (no credential): it says whether /mcp wants a key, never anything secret. mcpUrl is the
 * path below the deployment's root URL.
 */
static void
web_client_config(struct http_req *r, struct web_ctx *c)
{
	json_object	*o;

	if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0) {
		http_error_hdr(r, 405, "Allow: GET, HEAD\r\n",
		    "/api/client-config accepts only GET");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "mcpAuthRequired", json_object_new_boolean(
	    settings_get_bool(c->db, "perm.require_mcp_auth", 0)));
	json_object_object_add(o, "mcpUrl", json_object_new_string("/mcp"));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	http_json(r, 200, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void
web_handle(struct http_req *r, void *arg)
{
	struct web_ctx	*c = arg;

	if (account_handle(r, c))
		return;
	if (strcmp(r->path, "/api/parse") == 0)
		web_parse(r, c);
	else if (strcmp(r->path, "/api/client-config") == 0)
		web_client_config(r, c);
	/* Admin API (lib/adminapi.c; ctxd-web(8), ADMIN API). */
	else if (strcmp(r->path, "/api/health") == 0)
		adminapi_health(r, c->db);
	else if (strcmp(r->path, "/api/ready") == 0)
		adminapi_ready(r, c->db);
	else if (strcmp(r->path, "/api/settings") == 0)
		adminapi_settings(r, c->db);
	else if (adminapi_under(r->path, "/api/setup"))
		adminapi_setup(r, c->db);
	else if (adminapi_under(r->path, "/api/libraries"))
		adminapi_libraries(r, c->db);
	else if (adminapi_under(r->path, "/api/jobs"))
		adminapi_jobs(r, c->db);
	else if (strcmp(r->path, "/api/support-bundle") == 0)
		adminapi_support_bundle(r, c->db);
	else
		http_error(r, 404, "no such endpoint: %s", r->path);
}

static const struct http_route web_routes[] = {
	{ "GET", "/{path*}", ACCESS_PUBLIC, NULL, 0, NULL, web_handle },
	{ "POST", "/{path*}", ACCESS_PUBLIC, NULL, 0, NULL, web_handle },
	{ "PUT", "/{path*}", ACCESS_PUBLIC, NULL, 0, NULL, web_handle },
	{ "PATCH", "/{path*}", ACCESS_PUBLIC, NULL, 0, NULL, web_handle },
	{ "DELETE", "/{path*}", ACCESS_PUBLIC, NULL, 0, NULL, web_handle },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static const struct http_responder web_responder = {
	"ctxd-web", web_init, web_routes, 0
};

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, &web_responder);
}
