/*
 * admin_gitops.c: the GitOps API of ctxd-web (ctxd-web(8), ADMIN API: GitOps): the
 * status, the configuration (the gitops.* settings under API names) and "run a sync now".
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <json.h>

#include "base/util.h"
#include "base/validate.h"
#include "gitops/gitops.h"
#include "http/access.h"
#include "http/http.h"
#include "store/jobs.h"
#include "store/settings.h"
#include "web.h"

#define ADMIN_GITOPS_WAIT_S	20	/* default bounded wait of POST /api/gitops/reconcile */
#define ADMIN_GITOPS_WAIT_MAX	60

/* The body of PUT /api/gitops/config and the setting each field writes. */
static const struct validate_field admin_gitops_config_fields[] = {
	{ .name = "enabled", .type = VALIDATE_BOOL },
	{ .name = "repoUrl", .type = VALIDATE_STRING, .max = 2048 },
	{ .name = "manifestPath", .type = VALIDATE_STRING, .max = 1024 },
	{ .name = "branch", .type = VALIDATE_STRING, .max = 255 },
	{ .name = "schedule", .type = VALIDATE_STRING, .max = 200 },
	{ .name = "prune", .type = VALIDATE_BOOL },
	{ .name = NULL }
};
static const struct validate_table admin_gitops_config_body = {
	.fields = admin_gitops_config_fields,
	.what = "field"
};
static const char *const admin_gitops_settings[] = {
	"gitops.enabled", "gitops.repo_url", "gitops.manifest_path", "gitops.branch",
	"gitops.schedule", "gitops.prune", NULL
};

static const struct validate_field admin_gitops_reconcile_fields[] = {
	{ .name = "wait", .type = VALIDATE_INT, .max = ADMIN_GITOPS_WAIT_MAX },
	{ .name = NULL }
};
static const struct validate_table admin_gitops_reconcile_params = {
	.fields = admin_gitops_reconcile_fields,
	.what = "parameter"
};

static void
admin_gitops_send_status(struct http_req *r)
{
	json_object	*o = gitops_status(r->db, util_data_dir());

	if (o == NULL)
		web_util_dberr(r, __func__, "database error");
	else
		web_util_send(r, 200, NULL, o);
}

void
admin_gitops_status(struct http_req *r, void *arg)
{
	(void)arg;
	if (validate_query(r, &web_util_no_params) == 0)
		admin_gitops_send_status(r);
}

/* A 400 for a setting's error err, naming the body's field when err names its setting. */
static void
admin_gitops_bad(struct http_req *r, const char *err)
{
	size_t	 i, n;

	for (i = 0; admin_gitops_settings[i] != NULL; i++) {
		n = strlen(admin_gitops_settings[i]);
		if (strncmp(err, admin_gitops_settings[i], n) == 0 &&
		    (err[n] == ' ' || err[n] == ':')) {
			http_error(r, 400, "field '%s' (%s)%s",
			    admin_gitops_config_fields[i].name, admin_gitops_settings[i],
			    err + n);
			return;
		}
	}
	http_error(r, 400, "%s", err);
}

/* PUT /api/gitops/config: the fields given become the gitops.* settings, all or nothing. */
void
admin_gitops_config(struct http_req *r, void *arg)
{
	enum settings_apply_result rc;
	json_object	*body, *s = NULL, *v;
	char		 err[600];
	size_t		 i;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 ||
	    (body = validate_body(r, &admin_gitops_config_body)) == NULL)
		return;
	if ((s = json_object_new_object()) == NULL) {
		http_error(r, 500, "out of memory");
		goto out;
	}
	for (i = 0; admin_gitops_config_fields[i].name != NULL; i++)
		if (json_object_object_get_ex(body, admin_gitops_config_fields[i].name, &v))
			json_object_object_add(s, admin_gitops_settings[i],
			    json_object_get(v));
	if ((rc = settings_save_json(r->db, util_data_dir(), s, err, sizeof(err))) !=
	    SETTINGS_APPLY_OK) {
		if (rc == SETTINGS_APPLY_DBERR)
			web_util_dberr(r, __func__, "database error");
		else
			admin_gitops_bad(r, err);
		goto out;
	}
	admin_gitops_send_status(r);
out:
	json_object_put(s);
	json_object_put(body);
}

/*
 * POST /api/gitops/reconcile: queues a sync (joining one already queued), starts the
 * worker and waits for the run at most ?wait seconds (default ADMIN_GITOPS_WAIT_S; the
 * responder does no work itself): 200 with the finished run (counts, entries, errors),
 * 422 when it failed (an invalid manifest, an unreachable repository), 202 with the run
 * still queued or running when the wait ends (GET /api/gitops/status follows it).
 */
void
admin_gitops_reconcile(struct http_req *r, void *arg)
{
	json_object	*o;
	long long	 id;
	long		 wait, i;
	int		 done = 0, found;
	const char	*state;

	(void)arg;
	if (validate_query(r, &admin_gitops_reconcile_params) == -1)
		return;
	wait = web_util_param_long(r, "wait", ADMIN_GITOPS_WAIT_S);
	if (gitops_queue_sync(r->db, r->who.via == ACCESS_SESSION ? "manual" : "api",
	    &id) == -1) {
		web_util_dberr(r, __func__, "database error");
		return;
	}
	jobs_spawn_worker();
	for (i = 0; i < wait * 10 && (done = gitops_run_finished(r->db, id)) == 0; i++)
		usleep(100000);
	if (done == -1 || (o = gitops_run_json(r->db, id, &found)) == NULL) {
		web_util_dberr(r, __func__, "database error");
		return;
	}
	state = json_object_get_string(json_object_object_get(o, "state"));
	if (done && strcmp(state, "failed") == 0)
		json_object_object_add(o, "error", json_object_get(json_object_object_get(o,
		    "message")));
	web_util_send(r, !done ? 202 : strcmp(state, "failed") == 0 ? 422 : 200, NULL, o);
}
