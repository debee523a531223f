/*
 * http_validate.c: the edge validator's HTTP faces (validate.h declares the tables): a
 * request's query parameters and JSON body checked against a table, the 4xx answered here.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json.h>

#include "base/validate.h"
#include "http/http.h"

int
validate_query(struct http_req *r, const struct validate_table *t)
{
	const struct validate_field *f;
	const char	*v;
	char		 err[512];
	size_t		 i;

	/* Every name and value, declared or not, is text: an error may echo it. */
	for (i = 0; i < r->nparams; i++) {
		if (validate_utf8_chars(r->params[i].name,
		    strlen(r->params[i].name)) == -1) {
			http_error(r, 400, "a parameter name is not valid UTF-8");
			return -1;
		}
		if (validate_utf8_chars(r->params[i].value,
		    strlen(r->params[i].value)) == -1) {
			http_error(r, 400, "parameter '%.64s' is not valid UTF-8",
			    r->params[i].name);
			return -1;
		}
	}
	if (!t->allow_unknown)
		for (i = 0; i < r->nparams; i++)
			if (validate_find(t, r->params[i].name) == NULL) {
				http_error(r, 400, "unknown parameter '%.64s'",
				    r->params[i].name);
				return -1;
			}
	for (f = t->fields; f->name != NULL; f++) {
		if ((v = http_param(r, f->name)) == NULL) {
			if (f->required == 1) {
				http_error(r, 400, "missing required parameter '%s'",
				    f->name);
				return -1;
			}
			continue;
		}
		if (validate_param(f, v, err, sizeof(err)) == -1) {
			http_error(r, 400, "%s", err);
			return -1;
		}
	}
	return 0;
}

int
validate_read_body(struct http_req *r)
{
	if (r->content_type == NULL ||
	    strncasecmp(r->content_type, "application/json", 16) != 0 ||
	    (r->content_type[16] != '\0' && r->content_type[16] != ';')) {
		http_error(r, 415, "Content-Type must be application/json");
		return -1;
	}
	return http_read_body(r, VALIDATE_BODY_MAX);
}

json_object *
validate_body(struct http_req *r, const struct validate_table *t)
{
	json_object	*o;
	char		 err[512];

	if (validate_read_body(r) == -1)
		return NULL;
	if ((o = validate_json(t, r->body, r->body_len, err, sizeof(err))) == NULL)
		http_error(r, strcmp(err, "out of memory") == 0 ? 500 : 400, "%s", err);
	return o;
}
