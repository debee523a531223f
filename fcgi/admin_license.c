/*
 * admin_license.c: the license card of ctxd-web: GET /api/license (the key in force, its
 * terms, where it comes from and whether this is a development build) and POST
 * /api/license (verify a purchased key and install it in DATA_DIR/license.key).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admin/health.h"
#include "base/license.h"
#include "base/log.h"
#include "web.h"

static const struct validate_field admin_license_fields[] = {
	{ .name = "key", .type = VALIDATE_STRING, .required = 1, .min = 1, .max = 4096 },
	{ .name = NULL }
};
static const struct validate_table admin_license_body = {
	.fields = admin_license_fields,
	.what = "field"
};

static void
admin_license_send(struct http_req *r, int status, const struct license *installed)
{
	json_object	*o, *i;
	const char	*from = NULL;
	char		*key, date[11];
	int		 ok;

	key = license_key_load(&from);
	free(key);
	o = health_license_json(1, &ok);
	json_object_object_add(o, "source", json_object_new_string(from == NULL ? "none" :
	    strcmp(from, "file") == 0 ? "file" : "environment"));
	if (installed != NULL && license_format_date(installed->expires, date) == 0) {
		i = json_object_new_object();
		json_object_object_add(i, "plan", json_object_new_string(installed->plan));
		json_object_object_add(i, "licensee",
		    json_object_new_string(installed->licensee));
		json_object_object_add(i, "expires", json_object_new_string(date));
		json_object_object_add(o, "installed", i);
	}
	web_util_send(r, status, NULL, o);
}

/* GET /api/license */
void
admin_license_get(struct http_req *r, void *arg)
{
	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	admin_license_send(r, 200, NULL);
}

/* POST /api/license {"key": "ctxd1...."}: a valid signed key replaces the installed one. */
void
admin_license_install(struct http_req *r, void *arg)
{
	json_object		*body;
	struct license		 lic;
	enum license_status	 st;
	const char		*key;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 ||
	    (body = validate_body(r, &admin_license_body)) == NULL)
		return;
	key = json_object_get_string(json_object_object_get(body, "key"));
	key += strspn(key, " \t\r\n");
	st = license_verify_any(key, license_now(), &lic);
	if (strncmp(key, "ctxd-trial.", 11) == 0) {
		json_object_put(body);
		http_error(r, 400, "key: a trial is started with ctxd-admin license trial, "
		    "not installed");
		return;
	}
	if (st != LICENSE_OK) {
		json_object_put(body);
		http_error(r, 400, "key: not installed: the key is %s%s",
		    license_status_str(st), st == LICENSE_BAD_SIGNATURE ?
		    " (it was not issued for this build)" : "");
		return;
	}
	if (license_key_store(key) == -1) {
		json_object_put(body);
		log_err("%s: cannot write the license key file", __func__);
		http_error(r, 500, "cannot write the license key file (see the log)");
		return;
	}
	json_object_put(body);
	log_info("license installed: plan %s", lic.plan);
	admin_license_send(r, 200, &lic);
}
