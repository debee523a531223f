/*
 * web.h: the handlers of ctxd-web, one file per concern, for the route table in
 * fcgi/web.c, and the few helpers they share (fcgi/web_util.c). A handler runs after the
 * route matcher (lib/http/http.c) has authorized the caller (r->who); it validates its query
 * parameters and body with lib/base/validate.h and calls lib/ for the work. The paths and
 * shapes are documented in ctxd-web(8).
 */
#ifndef WEB_H
#define WEB_H

#include <json.h>


struct http_req;
struct validate_table;
#include "http/http.h"
#include "base/validate.h"

/* ------------------------------------------------------------------ web_util.c */

/* Sends a json-c object (NULL: a 500) with the status and extra header lines; puts it. */
void	 web_util_send(struct http_req *, int status, const char *extra_headers,
	    json_object *);
/* Logs func's database error and answers 500 with msg (the log has the details). */
void	 web_util_dberr(struct http_req *, const char *func, const char *msg);
/* The query parameters of a route that declares none: any is refused. */
extern const struct validate_table web_util_no_params;
/* A whole-number query parameter validate_query has checked, or dflt when absent. */
long	 web_util_param_long(struct http_req *, const char *name, long dflt);

/* ------------------------------------------------------------------ admin_libraries.c */

/*
 * The library id of the path ("{owner}/{id*}": "acme" and "docs" are "/acme/docs") in id:
 * two or more segments of letters, digits, '.', '-', '_' (not "." or ".."). Answers 404
 * and returns -1 when bad. (The routes under /api/libraries/{owner}/{id*}: the owner is a
 * segment of its own, so /api/libraries/acme/snippets is the library /acme/snippets, not
 * the snippets of a library /acme.)
 */
int	 admin_libraries_id(struct http_req *, char *id, size_t idsz);
void	 admin_libraries_parse(struct http_req *, void *);	/* POST /api/parse */
void	 admin_libraries_create(struct http_req *, void *);	/* POST /api/libraries */
void	 admin_libraries_parse_website(struct http_req *, void *); /* POST /api/parse-website */
void	 admin_libraries_parse_openapi(struct http_req *, void *); /* POST /api/parse-openapi */
void	 admin_libraries_parse_upload(struct http_req *, void *);
void	 admin_libraries_types(struct http_req *, void *);
					/* POST /api/parse-openapi-upload */
void	 admin_libraries_list(struct http_req *, void *);	/* GET /api/libraries */
void	 admin_libraries_get(struct http_req *, void *);	/* GET .../{owner}/{repo} */
void	 admin_libraries_rename(struct http_req *, void *);	/* PATCH .../{owner}/{repo} */
void	 admin_libraries_refresh(struct http_req *, void *);	/* POST .../refresh */
void	 admin_libraries_delete(struct http_req *, void *);	/* DELETE .../{owner}/{repo} */

/* ------------------------------------------------------------------ admin_flags.c */

void	 admin_flags_list(struct http_req *, void *);		/* GET .../flagged */
/* admin_snippets.c */
void	 admin_snippets_list(struct http_req *, void *);	/* GET .../snippets */
/* admin_explain.c */
void	 admin_explain_get(struct http_req *, void *);		/* GET .../explain */

/* ------------------------------------------------------------------ admin_jobs.c */

void	 admin_jobs_list(struct http_req *, void *);		/* GET /api/jobs */
void	 admin_jobs_get(struct http_req *, void *);		/* GET /api/jobs/{id} */
void	 admin_jobs_log(struct http_req *, void *);		/* GET /api/jobs/{id}/log */
void	 admin_jobs_cancel(struct http_req *, void *);		/* POST .../cancel */

/* ------------------------------------------------------------------ admin.c */

void	 admin_settings_get(struct http_req *, void *);		/* GET /api/settings */
void	 admin_settings_put(struct http_req *, void *);		/* PUT, PATCH */
void	 admin_setup_get(struct http_req *, void *);		/* GET /api/setup */
void	 admin_setup_save(struct http_req *, void *);		/* POST /api/setup/{step} */
void	 admin_setup_skip(struct http_req *, void *);		/* POST .../{step}/skip */

/* --------------------------------------------------------------- admin_providers.c */

void	 admin_providers_test(struct http_req *, void *);	/* POST /api/providers/test */

/* ------------------------------------------------------------------ admin_license.c */

void	 admin_license_get(struct http_req *, void *);		/* GET /api/license */
void	 admin_license_install(struct http_req *, void *);	/* POST /api/license */

/* ------------------------------------------------------------------ admin_health.c */

void	 admin_health_health(struct http_req *, void *);	/* GET /api/health */
void	 admin_health_ready(struct http_req *, void *);		/* GET /api/ready */
void	 admin_health_bundle(struct http_req *, void *);	/* GET /api/support-bundle */
void	 admin_health_client_config(struct http_req *, void *);	/* GET /api/client-config */

/* ------------------------------------------------------------------ account.c */

void	 account_session_get(struct http_req *, void *);	/* GET /api/session */
void	 account_login(struct http_req *, void *);		/* POST /api/session */
void	 account_logout(struct http_req *, void *);		/* DELETE /api/session */
void	 account_password(struct http_req *, void *);		/* POST /api/password */
void	 account_keys_list(struct http_req *, void *);		/* GET /api/keys */
void	 account_keys_create(struct http_req *, void *);	/* POST /api/keys */
void	 account_keys_revoke(struct http_req *, void *);	/* DELETE /api/keys/{id} */
void	 account_users_list(struct http_req *, void *);		/* GET /api/users */
void	 account_users_create(struct http_req *, void *);	/* POST /api/users */
void	 account_users_get(struct http_req *, void *);		/* GET /api/users/{name} */
void	 account_users_patch(struct http_req *, void *);	/* PATCH */
void	 account_users_delete(struct http_req *, void *);	/* DELETE */

/* ------------------------------------------------------------------ admin_gitops.c */

void	 admin_gitops_status(struct http_req *, void *);	/* GET /api/gitops/status */
void	 admin_gitops_config(struct http_req *, void *);	/* PUT /api/gitops/config */
void	 admin_gitops_reconcile(struct http_req *, void *);	/* POST /api/gitops/reconcile */

void	 admin_upstream_test(struct http_req *, void *);	/* POST /api/upstream/test */

/* ------------------------------------------------------------------ admin_policy.c */

void	 admin_policy_get(struct http_req *, void *);		/* GET /api/policies */
void	 admin_policy_put(struct http_req *, void *);		/* PUT /api/policies */
void	 admin_policy_try(struct http_req *, void *);		/* POST /api/policies/try */
void	 admin_policy_audit(struct http_req *, void *);	/* GET /api/policies/audit */

#endif
