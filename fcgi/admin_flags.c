/*
 * admin_flags.c: GET /api/libraries/{owner}/{id*}/flagged of ctxd-web (ctxd-web(8)): the snippets
 * of a library that the content rules flagged at indexing (lib/search/inject.h, ctxd-content(7)),
 * for any signed-in user or key: what content.injection holds back or marks.
 */
#include "config.h"

#include <string.h>

#include <json.h>

#include "base/validate.h"
#include "http/http.h"
#include "search/inject.h"
#include "web.h"

static const struct validate_field admin_flags_fields[] = {
	{ .name = "limit", .type = VALIDATE_INT, .min = 1, .max = 500 },
	{ .name = "offset", .type = VALIDATE_INT, .max = 1000000000 },
	{ .name = NULL }
};
static const struct validate_table admin_flags_params = {
	.fields = admin_flags_fields,
	.what = "parameter"
};

void
admin_flags_list(struct http_req *r, void *arg)
{
	json_object	*o;
	char		 id[512];
	int		 rc;

	(void)arg;
	if (admin_libraries_id(r, id, sizeof(id)) == -1 ||
	    validate_query(r, &admin_flags_params) == -1)
		return;
	if ((rc = inject_list(r->db, id, web_util_param_long(r, "limit", 100),
	    web_util_param_long(r, "offset", 0), &o)) == 1)
		web_util_send(r, 200, NULL, o);
	else if (rc == 0)
		http_error(r, 404, "library %s does not exist", id);
	else
		web_util_dberr(r, __func__, "database error");
}
