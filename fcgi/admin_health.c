/*
 * admin_health.c: the status endpoints of ctxd-web: GET /api/health and GET /api/ready
 * (no credential), GET /api/support-bundle and GET /api/client-config (ctxd-web(8)).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json.h>

#include "admin/bundle.h"
#include "admin/health.h"
#include "auth/session.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/access.h"
#include "http/http.h"
#include "store/settings.h"
#include "web.h"

/*
 * GET /api/health: the whole report for an admin's key or session, with the alerts of the
 * login throttle; anyone else learns only whether the service is healthy (the status code
 * and "status").
 */
void
admin_health_health(struct http_req *r, void *arg)
{
	json_object	*o;
	int		 healthy;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	o = health_json(util_data_dir(), &healthy);
	/* The route identifies the caller without refusing anyone (ACCESS_IDENTIFY). */
	if (!r->who.admin) {
		json_object_put(o);
		o = health_brief_json(healthy);
	} else
		json_object_object_add(o, "alerts", session_throttle_alerts(r->db));
	web_util_send(r, healthy ? 200 : 503, NULL, o);
}

void
admin_health_ready(struct http_req *r, void *arg)
{
	struct health_probe p;
	json_object	*o;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	health_probe(util_data_dir(), &p);
	if (!p.ok) {
		http_error(r, 503, "not ready: the database cannot be opened or its "
		    "schema is not version %d", p.schema);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "ready", json_object_new_boolean(1));
	json_object_object_add(o, "schemaVersion", json_object_new_int(p.schema));
	web_util_send(r, 200, NULL, o);
}

void
admin_health_bundle(struct http_req *r, void *arg)
{
	struct buf	 out;
	char		 name[64], hdr[160];

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	buf_init(&out);
	if (bundle_build(r->db, util_data_dir(), &out, name, sizeof(name)) == -1)
		http_error(r, 500, "the support bundle could not be built; the "
		    "responder log has the details");
	else {
		snprintf(hdr, sizeof(hdr), "Content-Disposition: attachment; "
		    "filename=\"%s.tar.gz\"\r\n", name);
		http_respond(r, 200, "application/gzip", hdr, out.p, out.len);
	}
	buf_release(&out);
}

/*
 * GET /api/client-config: what the ctxd client tool needs to configure a coding agent.
 * Public: it says whether /mcp wants a key, never anything secret. mcpUrl is the path
 * below the deployment's root URL.
 */
void
admin_health_client_config(struct http_req *r, void *arg)
{
	json_object	*o;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "mcpAuthRequired", json_object_new_boolean(
	    settings_get_bool(r->db, "perm.require_mcp_auth", 0)));
	json_object_object_add(o, "mcpUrl", json_object_new_string("/mcp"));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	web_util_send(r, 200, NULL, o);
}
