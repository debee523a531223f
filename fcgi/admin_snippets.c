/*
 * admin_snippets.c: GET /api/libraries/{owner}/{id*}/snippets of ctxd-web (ctxd-web(8), ADMIN
 * API): a page of a library's served snippets, filtered, for the web UI's snippet browser
 * (lib/search/catalog.h, catalog_snippets).
 */
#include "config.h"

#include <json.h>

#include "base/validate.h"
#include "http/http.h"
#include "search/catalog.h"
#include "web.h"

static const struct validate_field admin_snippets_fields[] = {
	{ .name = "q", .type = VALIDATE_STRING, .max = 200 },
	{ .name = "limit", .type = VALIDATE_INT, .min = 1, .max = 100 },
	{ .name = "offset", .type = VALIDATE_INT, .max = 1000000 },
	{ .name = NULL }
};
static const struct validate_table admin_snippets_params = {
	.fields = admin_snippets_fields,
	.what = "parameter"
};

void
admin_snippets_list(struct http_req *r, void *arg)
{
	json_object	*o;
	char		 id[512];
	int		 rc;

	(void)arg;
	if (admin_libraries_id(r, id, sizeof(id)) == -1 ||
	    validate_query(r, &admin_snippets_params) == -1)
		return;
	if ((rc = catalog_snippets(r->db, id, http_param(r, "q"),
	    web_util_param_long(r, "limit", 20), web_util_param_long(r, "offset", 0),
	    &o)) == 1)
		web_util_send(r, 200, NULL, o);
	else if (rc == 0)
		http_error(r, 404, "library %s does not exist", id);
	else
		web_util_dberr(r, __func__, "database error");
}
