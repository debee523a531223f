/*
 * admin.c: the settings API and the setup wizard of ctxd-web (ctxd-web(8), ADMIN API):
 * GET, PUT and PATCH /api/settings (secrets write-only, all or nothing), GET /api/setup,
 * POST /api/setup/{step} and POST /api/setup/{step}/skip.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json.h>

#include "admin/setup.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/http.h"
#include "store/settings.h"
#include "web.h"

static const struct validate_field admin_no_fields[] = {
	{ .name = NULL }
};
/*
 * A settings body: its members are the settings table's (settings_describe), which
 * settings_apply_json checks (names, types, values); the validator reads the JSON.
 */
static const struct validate_table admin_settings_body = {
	.fields = admin_no_fields,
	.allow_unknown = 1,
	.what = "setting"
};

/* Answers a failed settings_apply_json / setup_step_save. */
static void
admin_apply_error(struct http_req *r, enum settings_apply_result rc, const char *err)
{
	if (rc == SETTINGS_APPLY_DBERR)
		web_util_dberr(r, __func__, "database error");
	else
		http_error(r, 400, "%s", err);
}

/* 1 for a policy.* setting, which only /api/policies reads and writes (license). */
static int
admin_settings_policy(const char *name)
{
	return strncmp(name, "policy.", 7) == 0;
}

static void
admin_settings_send(struct http_req *r)
{
	json_object	*o = json_object_new_object();
	json_object	*s = settings_json(r->db, util_data_dir(), NULL);
	char		 name[64];
	struct json_object_iterator it, end;

	for (it = json_object_iter_begin(s), end = json_object_iter_end(s);
	    !json_object_iter_equal(&it, &end);) {
		snprintf(name, sizeof(name), "%s", json_object_iter_peek_name(&it));
		json_object_iter_next(&it);
		if (admin_settings_policy(name))
			json_object_object_del(s, name);
	}
	json_object_object_add(o, "settings", s);
	web_util_send(r, 200, NULL, o);
}

void
admin_settings_get(struct http_req *r, void *arg)
{
	(void)arg;
	if (validate_query(r, &web_util_no_params) == 0)
		admin_settings_send(r);
}

/* PUT and PATCH /api/settings: both write the settings named, all or nothing. */
void
admin_settings_put(struct http_req *r, void *arg)
{
	enum settings_apply_result rc;
	json_object	*body;
	char		 err[600];

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 ||
	    (body = validate_body(r, &admin_settings_body)) == NULL)
		return;
	json_object_object_foreach(body, k, v) {
		(void)v;
		if (admin_settings_policy(k)) {
			http_error(r, 400, "%.64s is a policy: change it with PUT "
			    "/api/policies", k);
			goto out;
		}
	}
	if ((rc = settings_save_json(r->db, util_data_dir(), body, err,
	    sizeof(err))) != SETTINGS_APPLY_OK) {
		admin_apply_error(r, rc, err);
		goto out;
	}
	admin_settings_send(r);
out:
	json_object_put(body);
}

void
admin_setup_get(struct http_req *r, void *arg)
{
	(void)arg;
	if (validate_query(r, &web_util_no_params) == 0)
		web_util_send(r, 200, NULL, setup_json(r->db, util_data_dir()));
}

/* Saves (skip 0: with the body's settings) or skips the step named in the path. */
static void
admin_setup_step(struct http_req *r, int skip)
{
	const struct setup_step *s;
	enum settings_apply_result rc;
	json_object	*body = NULL;
	char		 err[600];

	if ((s = setup_step(http_arg(r, "step"))) == NULL) {
		http_error(r, 404, "no such setup step: %s (the steps are ai-provider, "
		    "embedding, git-tokens, who-can-read)", r->path);
		return;
	}
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	if (!skip && (body = validate_body(r, &admin_settings_body)) == NULL)
		return;
	if ((rc = setup_step_save(r->db, util_data_dir(), s, body, err, sizeof(err))) !=
	    SETTINGS_APPLY_OK)
		admin_apply_error(r, rc, err);
	else
		web_util_send(r, 200, NULL, setup_step_json(r->db, util_data_dir(), s));
	json_object_put(body);
}

void
admin_setup_save(struct http_req *r, void *arg)
{
	(void)arg;
	admin_setup_step(r, 0);
}

void
admin_setup_skip(struct http_req *r, void *arg)
{
	(void)arg;
	admin_setup_step(r, 1);
}
