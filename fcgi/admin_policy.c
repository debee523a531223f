/*
 * admin_policy.c: the policies API of ctxd-web (ctxd-web(8), ADMIN API: policies): read
 * and change the policies for public documentation, try a library id against them, and
 * read their audit trail. Every route is the admins'; reading, changing and trying the
 * policies also need a valid, unexpired license (lib/sources/policy.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json.h>

#include "base/util.h"
#include "base/validate.h"
#include "http/access.h"
#include "http/http.h"
#include "sources/policy.h"
#include "store/settings.h"
#include "web.h"

#define ADMIN_POLICY_GLOB_MAX	200	/* characters of one glob */
#define ADMIN_POLICY_AUDIT_MAX	500	/* most audit entries one answer lists */

/* One glob of an allow or block list: one policy_check_globs glob, without a comma. */
static int
admin_policy_glob(const char *v, char *err, size_t errsz)
{
	if (strchr(v, ',') != NULL) {
		snprintf(err, errsz, "must not contain ','");
		return -1;
	}
	return policy_check_globs(v, err, errsz);
}

static const struct validate_field admin_policy_fields[] = {
	{ .name = "git", .type = VALIDATE_BOOL },
	{ .name = "website", .type = VALIDATE_BOOL },
	{ .name = "llmstxt", .type = VALIDATE_BOOL },
	{ .name = "openapi", .type = VALIDATE_BOOL },
	{ .name = "other", .type = VALIDATE_BOOL },
	{ .name = "allow", .type = VALIDATE_LIST, .max = 100,
	    .elem_max = ADMIN_POLICY_GLOB_MAX, .check = admin_policy_glob },
	{ .name = "block", .type = VALIDATE_LIST, .max = 100,
	    .elem_max = ADMIN_POLICY_GLOB_MAX, .check = admin_policy_glob },
	{ .name = "minTrust", .type = VALIDATE_NUMBER, .max = POLICY_MAX_TRUST },
	{ .name = NULL }
};
static const struct validate_table admin_policy_body = {
	.fields = admin_policy_fields,
	.what = "field"
};

static const struct validate_field admin_policy_try_fields[] = {
	{ .name = "libraryId", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = 512 },
	{ .name = "sourceType", .type = VALIDATE_STRING, .max = 64 },
	{ .name = "trustScore", .type = VALIDATE_NUMBER, .max = POLICY_MAX_TRUST },
	{ .name = NULL }
};
static const struct validate_table admin_policy_try_body = {
	.fields = admin_policy_try_fields,
	.what = "field"
};

static const struct validate_field admin_policy_audit_fields[] = {
	{ .name = "limit", .type = VALIDATE_INT, .min = 1, .max = ADMIN_POLICY_AUDIT_MAX },
	{ .name = NULL }
};
static const struct validate_table admin_policy_audit_params = {
	.fields = admin_policy_audit_fields,
	.what = "parameter"
};

/* 0 when the license is valid, else answers 403 saying why and returns -1. */
static int
admin_policy_licensed(struct http_req *r)
{
	char	 why[200];

	if (policy_license_ok(why, sizeof(why)))
		return 0;
	http_error(r, 403, "%s: the policies need a valid license key", why);
	return -1;
}

/* Answers 200 with the policies. */
static void
admin_policy_send(struct http_req *r)
{
	struct policy	 p;
	json_object	*o;

	if (policy_load(r->db, util_data_dir(), &p) == -1) {
		web_util_dberr(r, __func__, "database error");
		return;
	}
	o = policy_json(&p);
	policy_release(&p);
	if (o == NULL)
		http_error(r, 500, "out of memory");
	else
		web_util_send(r, 200, NULL, o);
}

void
admin_policy_get(struct http_req *r, void *arg)
{
	(void)arg;
	if (validate_query(r, &web_util_no_params) == 0 && admin_policy_licensed(r) == 0)
		admin_policy_send(r);
}

/* Who is asking, for the audit trail: "user NAME (session)", "... (API key N)", "API key N". */
static void
admin_policy_actor(const struct http_req *r, char *out, size_t outsz)
{
	const struct access_principal *w = &r->who;

	if (w->via == ACCESS_SESSION)
		snprintf(out, outsz, "user %s (session)", w->user.name);
	else if (w->via == ACCESS_KEY && w->user.id != 0)
		snprintf(out, outsz, "user %s (API key %lld)", w->user.name, w->key_id);
	else if (w->via == ACCESS_KEY)
		snprintf(out, outsz, "operator API key %lld", w->key_id);
	else
		snprintf(out, outsz, "anonymous");
}

/* PUT /api/policies: the fields given change, all or nothing, with an audit row. */
void
admin_policy_put(struct http_req *r, void *arg)
{
	enum settings_apply_result rc;
	json_object	*body;
	char		 err[600], actor[200];

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 || admin_policy_licensed(r) == -1 ||
	    (body = validate_body(r, &admin_policy_body)) == NULL)
		return;
	admin_policy_actor(r, actor, sizeof(actor));
	rc = policy_save_json(r->db, util_data_dir(), body, actor, err, sizeof(err));
	json_object_put(body);
	if (rc == SETTINGS_APPLY_DBERR)
		web_util_dberr(r, __func__, "database error");
	else if (rc == SETTINGS_APPLY_BAD)
		http_error(r, 400, "%s", err);
	else
		admin_policy_send(r);
}

/* POST /api/policies/try: {"allowed", "why"} for a library of the upstream. */
void
admin_policy_try(struct http_req *r, void *arg)
{
	json_object	*body, *v, *o;
	const char	*type = NULL;
	double		 trust = -1;
	char		 why[400];
	int		 allowed;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 || admin_policy_licensed(r) == -1 ||
	    (body = validate_body(r, &admin_policy_try_body)) == NULL)
		return;
	if (json_object_object_get_ex(body, "sourceType", &v) && v != NULL)
		type = json_object_get_string(v);
	if (json_object_object_get_ex(body, "trustScore", &v) && v != NULL)
		trust = json_object_get_double(v);
	allowed = policy_check(r->db, util_data_dir(), json_object_get_string(
	    json_object_object_get(body, "libraryId")), type, trust, why, sizeof(why));
	json_object_put(body);
	if (allowed == -1) {
		web_util_dberr(r, __func__, "database error");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "allowed", json_object_new_boolean(allowed));
	json_object_object_add(o, "why", json_object_new_string(why));
	web_util_send(r, 200, NULL, o);
}

/* GET /api/policies/audit[?limit=N]: the changes of the policies, newest first. */
void
admin_policy_audit(struct http_req *r, void *arg)
{
	json_object	*a, *o;

	(void)arg;
	if (validate_query(r, &admin_policy_audit_params) == -1)
		return;
	if ((a = policy_audit_json(r->db, web_util_param_long(r, "limit", 100))) == NULL) {
		web_util_dberr(r, __func__, "database error");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "entries", a);
	web_util_send(r, 200, NULL, o);
}
