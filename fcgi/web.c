/*
 * ctxd-web: the read-write responder for the /api/ paths outside /api/v2/ (nginx: location
 * /api/). This file holds its main, its per-worker set-up and its one route table: every
 * path, method, who may call it and the handler (fcgi/web.h says which file holds each).
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "base/util.h"
#include "gitops/gitops.h"
#include "http/access.h"
#include "http/http.h"
#include "store/db.h"
#include "store/jobs.h"
#include "web.h"

/*
 * Opens the worker's read-write connection. The handlers take what they need from the
 * request (r->db, r->who); the context is the connection, kept in a static so that it
 * stays reachable for the life of the process.
 */
static void *
web_init(struct db **db)
{
	static struct db *web_db;

	if (db_open(util_data_dir(), DB_READWRITE, &web_db) == -1)
		return NULL;
	*db = web_db;
	return web_db;
}

#define PUBLIC		ACCESS_PUBLIC, NULL, 0
#define PUBLIC_WHO	ACCESS_PUBLIC, NULL, ACCESS_IDENTIFY
#define USER		ACCESS_USER, NULL, 0
#define USER_ANON(s)	ACCESS_USER, s, 0
#define USER_MUST	ACCESS_USER, NULL, ACCESS_MAY_MUST_CHANGE
#define USER_OR_NOBODY	ACCESS_USER, NULL, ACCESS_MAY_MUST_CHANGE | ACCESS_MAY_ANONYMOUS
#define ADMIN		ACCESS_ADMIN, NULL, 0
#define ADMIN_ANON(s)	ACCESS_ADMIN, s, 0

/*
 * The routes of ctxd-web. Columns: method (GET also answers HEAD), path ({x} one segment,
 * {x*} one or more), who may call (ACCESS_USER or ACCESS_ADMIN with its perm.anonymous_*
 * switch; USER_MUST: also while the password must be changed; USER_OR_NOBODY: also a caller
 * with no credential at all, whom the handler answers; PUBLIC_WHO: anyone, the caller of a
 * valid credential identified), the operation as refusals name it, handler.
 */
static const struct http_route web_routes[] = {
	/* ctxd-web(8), POST /api/parse and GET /api/client-config */
	{ "POST", "/api/parse", USER_ANON("perm.anonymous_parse"), "parsing a repository",
	    admin_libraries_parse },
	{ "POST", "/api/libraries", USER_ANON("perm.anonymous_parse"), "adding a source",
	    admin_libraries_create },
	{ "POST", "/api/parse-website", USER_ANON("perm.anonymous_parse"),
	    "parsing a website", admin_libraries_parse_website },
	{ "POST", "/api/parse-openapi", USER_ANON("perm.anonymous_parse"),
	    "parsing an OpenAPI description", admin_libraries_parse_openapi },
	{ "POST", "/api/parse-openapi-upload", USER_ANON("perm.anonymous_parse"),
	    "parsing an OpenAPI description", admin_libraries_parse_upload },
	{ "GET", "/api/sources/types", USER_ANON("perm.anonymous_parse"),
	    "reading the source types", admin_libraries_types },
	{ "GET", "/api/client-config", PUBLIC, "reading the client configuration",
	    admin_health_client_config },

	/* ctxd-web(8), ADMIN API: health and readiness */
	{ "GET", "/api/health", PUBLIC_WHO, "the health report", admin_health_health },
	{ "GET", "/api/ready", PUBLIC, "the readiness probe", admin_health_ready },
	{ "GET", "/api/license", ADMIN, "reading or installing the license", admin_license_get },
	{ "POST", "/api/license", ADMIN, "reading or installing the license",
	    admin_license_install },

	/* ctxd-web(8), ADMIN API: settings and the setup wizard */
	{ "GET", "/api/settings", ADMIN, "reading or changing the settings",
	    admin_settings_get },
	{ "PUT", "/api/settings", ADMIN, "reading or changing the settings",
	    admin_settings_put },
	{ "PATCH", "/api/settings", ADMIN, "reading or changing the settings",
	    admin_settings_put },
	{ "GET", "/api/setup", ADMIN, "reading the setup state", admin_setup_get },
	{ "POST", "/api/setup/{step}", ADMIN, "saving a setup step", admin_setup_save },
	{ "POST", "/api/setup/{step}/skip", ADMIN, "saving a setup step",
	    admin_setup_skip },
	{ "POST", "/api/providers/test", ADMIN, "testing an AI provider",
	    admin_providers_test },
	{ "POST", "/api/upstream/test", ADMIN, "testing the upstream",
	    admin_upstream_test },

	/* ctxd-web(8), ADMIN API: libraries */
	{ "GET", "/api/libraries", ADMIN, "listing the libraries", admin_libraries_list },
	{ "GET", "/api/libraries/{owner}/{id*}", ADMIN, "reading a library",
	    admin_libraries_get },
	{ "PATCH", "/api/libraries/{owner}/{id*}", ADMIN,
	    "changing a library's title or description", admin_libraries_rename },
	{ "DELETE", "/api/libraries/{owner}/{id*}", USER_ANON("perm.anonymous_delete"),
	    "deleting a library", admin_libraries_delete },
	{ "POST", "/api/libraries/{owner}/{id*}/refresh",
	    USER_ANON("perm.anonymous_refresh"), "refreshing a library",
	    admin_libraries_refresh },
	{ "GET", "/api/libraries/{owner}/{id*}/flagged", USER,
	    "reading a library's flagged snippets", admin_flags_list },
	{ "GET", "/api/libraries/{owner}/{id*}/snippets", ADMIN, "reading a library's snippets",
	    admin_snippets_list },
	{ "GET", "/api/libraries/{owner}/{id*}/explain", ADMIN, "explaining an answer",
	    admin_explain_get },

	/* ctxd-web(8), ADMIN API: jobs */
	{ "GET", "/api/jobs", ADMIN, "listing the jobs", admin_jobs_list },
	{ "GET", "/api/jobs/{id}", ADMIN, "reading a job", admin_jobs_get },
	{ "GET", "/api/jobs/{id}/log", ADMIN, "reading a job", admin_jobs_log },
	{ "POST", "/api/jobs/{id}/cancel", ADMIN, "cancelling a job", admin_jobs_cancel },

	/* ctxd-web(8), ADMIN API: GitOps */
	{ "GET", "/api/gitops/status", ADMIN, "reading the GitOps status",
	    admin_gitops_status },
	{ "PUT", "/api/gitops/config", ADMIN, "changing the GitOps configuration",
	    admin_gitops_config },
	{ "POST", "/api/gitops/reconcile", ADMIN, "running a GitOps sync",
	    admin_gitops_reconcile },

	/* ctxd-web(8), ADMIN API: policies (and a valid license) */
	{ "GET", "/api/policies", ADMIN, "reading the policies", admin_policy_get },
	{ "PUT", "/api/policies", ADMIN, "changing the policies", admin_policy_put },
	{ "POST", "/api/policies/try", ADMIN, "trying the policies", admin_policy_try },
	{ "GET", "/api/policies/audit", ADMIN, "reading the policies' audit trail",
	    admin_policy_audit },

	/* ctxd-web(8), ADMIN API: the support bundle */
	{ "GET", "/api/support-bundle", ADMIN_ANON("perm.anonymous_support_bundle"),
	    "downloading the support bundle", admin_health_bundle },

	/* ctxd-web(8), ACCOUNT API: sessions and passwords */
	{ "GET", "/api/session", USER_OR_NOBODY, "reading the session",
	    account_session_get },
	{ "POST", "/api/session", PUBLIC, "signing in", account_login },
	{ "DELETE", "/api/session", USER_MUST, "signing out", account_logout },
	{ "POST", "/api/password", USER_MUST, "changing a password", account_password },

	/* ctxd-web(8), ACCOUNT API: API keys */
	{ "GET", "/api/keys", USER, "listing API keys", account_keys_list },
	{ "POST", "/api/keys", USER, "creating an API key", account_keys_create },
	{ "DELETE", "/api/keys/{id}", USER, "revoking an API key", account_keys_revoke },

	/* ctxd-web(8), ACCOUNT API: users (admins) */
	{ "GET", "/api/users", ADMIN, "managing users", account_users_list },
	{ "POST", "/api/users", ADMIN, "managing users", account_users_create },
	{ "GET", "/api/users/{name}", ADMIN, "managing users", account_users_get },
	{ "PATCH", "/api/users/{name}", ADMIN, "managing users", account_users_patch },
	{ "DELETE", "/api/users/{name}", ADMIN, "managing users", account_users_delete },

	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static const struct http_responder web_responder = {
	"ctxd-web", web_init, web_routes, 0, 0, 0, NULL
};

/*
 * Instance start: with GitOps enabled, ctxd-web (the one read-write responder, started
 * once per instance by script/server or its service unit) queues a "start" sync and
 * starts the worker before it serves. Not for --help / -h.
 */
static void
web_gitops_start(int argc, char *argv[])
{
	struct db	*db = NULL;
	int		 i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return;
	db_umask();
	if (db_open(util_data_dir(), DB_READWRITE, &db) == -1)
		return;
	if (gitops_on_start(db) == 1)
		jobs_spawn_worker();
	db_close(db);
}

int
main(int argc, char *argv[])
{
	web_gitops_start(argc, argv);
	return http_serve(argc, argv, &web_responder);
}
