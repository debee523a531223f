/*
 * ctxd-web: the read-write responder for the /api/ paths outside /api/v2/:
 * POST /api/parse and the admin API (lib/adminapi.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json.h>
#include <sqlite3.h>

#include "ctxd.h"
#include "http.h"
#include "adminapi.h"

#define PARSE_BODY_MAX	(64 * 1024)

struct web_ctx {
	sqlite3		*db;
};

static void *
web_init(void)
{
	static struct web_ctx ctx;

	if (db_open(util_data_dir(), DB_READWRITE, &ctx.db) == -1)
		return NULL;
	return &ctx;
}

/*
 * Allows a permissioned operation: with its anonymous switch on anyone may; otherwise
 * an admin API key is needed. Answers 401/403 and returns -1 when refused.
 */
static int
web_permit(struct http_req *r, struct web_ctx *c, const char *anon_setting,
    const char *what)
{
	if (settings_get_bool(c->db, anon_setting, 0))
		return 0;
	switch (apikey_check(c->db, r->authorization)) {
	case APIKEY_VALID_ADMIN:
		return 0;
	case APIKEY_VALID:
		http_error(r, 403, "%s needs an admin API key; this key is not "
		    "an admin's", what);
		return -1;
	case APIKEY_MISSING:
	case APIKEY_INVALID:
		break;
	}
	http_error_hdr(r, 401, "WWW-Authenticate: Bearer\r\n", "%s needs an "
	    "admin API key: the key is %s; send Authorization: Bearer <key>",
	    what, r->authorization == NULL || *r->authorization == '\0' ?
	    "missing" : "invalid");
	return -1;
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

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, "ctxd-web", web_init, web_handle);
}
