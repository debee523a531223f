/*
 * admin_providers.c: POST /api/providers/test (ctxd-web(8)): one real call to the
 * configured LLM or embedding provider, the check of ctxd-admin provider test, for the
 * web UI's "Test" buttons.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "admin/provcheck.h"
#include "ai/provider.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/http.h"
#include "search/upstream.h"
#include "store/aiconfig.h"
#include "web.h"

/* The time budget of one test call: under nginx's fastcgi_read_timeout of /api/. */
#define ADMIN_PROVIDERS_TIMEOUT_MS	20000

static const struct validate_field admin_providers_fields[] = {
	{ .name = "kind", .type = VALIDATE_STRING, .required = 1, .min = 1, .max = 8,
	    .choices = "llm|embed" },
	{ .name = NULL }
};
static const struct validate_table admin_providers_body = {
	.fields = admin_providers_fields,
	.what = "field"
};

/*
 * Adds the report of the provider check (one line a step) to o as "lines", and
 * "message": its last line, the outcome in words.
 */
static void
admin_providers_report(json_object *o, const struct provcheck *c)
{
	json_object	*lines;
	size_t		 i;

	lines = json_object_new_array();
	for (i = 0; i < c->nlines; i++)
		json_object_array_add(lines, json_object_new_string(c->lines[i]));
	json_object_object_add(o, "message",
	    json_object_new_string(c->nlines > 0 ? c->lines[c->nlines - 1] : ""));
	json_object_object_add(o, "lines", lines);
}

/* 1 when a provider is set for kind ("llm" or "embed"), 0 when none is, -1 on error. */
static int
admin_providers_configured(struct db *db, const char *kind)
{
	struct provider_cfg	 llm, emb;
	int			 rc;

	memset(&llm, 0, sizeof(llm));
	memset(&emb, 0, sizeof(emb));
	if (aiconfig_load(db, util_data_dir(), &llm, &emb) == -1)
		return -1;
	rc = (strcmp(kind, "llm") == 0 ? llm.vendor : emb.vendor) != NULL;
	provider_cfg_release(&llm);
	provider_cfg_release(&emb);
	return rc;
}

/*
 * POST /api/providers/test {"kind": "llm"|"embed"}: runs the provider test of the saved
 * ai.* settings and answers 200 {"kind", "ok", "configured", "message", "lines"}. A failed
 * call is not an HTTP error: ok is false and the lines say why (class and message, never
 * a key); "configured" is false when no provider is set for the kind.
 */
void
admin_providers_test(struct http_req *r, void *arg)
{
	struct provcheck *c = NULL;
	json_object	*body, *o;
	const char	*kind;
	int		 rc, configured;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	if ((body = validate_body(r, &admin_providers_body)) == NULL)
		return;
	kind = validate_str(body, "kind");
	if ((configured = admin_providers_configured(r->db, kind)) == -1) {
		http_error(r, 500, "the ai.* settings could not be read");
		goto out;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		http_error(r, 500, "the provider test could not run");
		goto out;
	}
	c->llm = strcmp(kind, "llm") == 0;
	c->embed = !c->llm;
	c->timeout_ms = ADMIN_PROVIDERS_TIMEOUT_MS;
	rc = provcheck_run(r->db, util_data_dir(), c);
	o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "ok", json_object_new_boolean(rc == 0 && configured));
	json_object_object_add(o, "configured", json_object_new_boolean(configured));
	admin_providers_report(o, c);
	web_util_send(r, 200, NULL, o);
out:
	free(c);
	json_object_put(body);
}

/*
 * POST /api/upstream/test (no body needed): one real library search at the upstream
 * (upstream_test) and 200 {"ok", "configured", "message"}. A failed call is not an HTTP
 * error: ok is false and message says why (never the key).
 */
void
admin_upstream_test(struct http_req *r, void *arg)
{
	json_object	*o;
	char		 msg[512];
	int		 rc, configured;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	configured = upstream_enabled(r->db, util_data_dir());
	rc = upstream_test(r->db, util_data_dir(), msg, sizeof(msg));
	o = json_object_new_object();
	json_object_object_add(o, "ok", json_object_new_boolean(rc == 0));
	json_object_object_add(o, "configured", json_object_new_boolean(configured));
	json_object_object_add(o, "message", json_object_new_string(msg));
	web_util_send(r, 200, NULL, o);
}
