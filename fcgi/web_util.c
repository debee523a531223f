/* web_util.c: the helpers shared by the handlers of ctxd-web (see web.h). */
#include "config.h"

#include <limits.h>
#include <string.h>

#include <json.h>

#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/http.h"
#include "store/db.h"
#include "web.h"

void
web_util_send(struct http_req *r, int status, const char *extra_headers, json_object *o)
{
	const char	*json;

	if (o == NULL) {
		http_error(r, 500, "out of memory");
		return;
	}
	json = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	http_respond(r, status, "application/json; charset=utf-8", extra_headers, json,
	    strlen(json));
	json_object_put(o);
}

void
web_util_dberr(struct http_req *r, const char *func, const char *msg)
{
	log_err("%s: %s", func, db_errmsg(r->db));
	http_error(r, 500, "%s; the responder log has the details", msg);
}

static const struct validate_field web_util_no_fields[] = {
	{ .name = NULL }
};
const struct validate_table web_util_no_params = {
	.fields = web_util_no_fields,
	.what = "parameter"
};

long
web_util_param_long(struct http_req *r, const char *name, long dflt)
{
	const char	*v = http_param(r, name);
	long		 n = dflt;

	if (v != NULL)
		util_parse_long(v, LONG_MIN, LONG_MAX, &n);
	return n;
}
