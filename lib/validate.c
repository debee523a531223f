/* validate.c: the one edge validator (see validate.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "ctxd.h"
#include "http.h"
#include "validate.h"

long
validate_utf8_chars(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	unsigned	 c, min;
	long		 chars = 0;
	int		 more;

	while (p < e) {
		c = *p++;
		if (c < 0x80)
			more = 0, min = 0;
		else if ((c & 0xe0) == 0xc0)
			more = 1, c &= 0x1f, min = 0x80;
		else if ((c & 0xf0) == 0xe0)
			more = 2, c &= 0x0f, min = 0x800;
		else if ((c & 0xf8) == 0xf0)
			more = 3, c &= 0x07, min = 0x10000;
		else
			return -1;
		if (e - p < more)
			return -1;
		for (; more > 0; more--, p++) {
			if ((*p & 0xc0) != 0x80)
				return -1;
			c = c << 6 | (*p & 0x3f);
		}
		/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
		if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
			return -1;
		chars++;
	}
	return chars;
}

/* Writes "must be 'a' or 'b'" / "must be one of 'a', 'b' or 'c'" for choices "a|b|c". */
static void
validate_choices_text(const char *choices, char *out, size_t outsz)
{
	struct buf	 b;
	const char	*p = choices, *bar;
	size_t		 n = 1, i;

	for (bar = choices; (bar = strchr(bar, '|')) != NULL; bar++)
		n++;
	buf_init(&b);
	buf_adds(&b, n > 2 ? "must be one of " : "must be ");
	for (i = 0; i < n; i++) {
		bar = strchr(p, '|');
		buf_printf(&b, "%s'%.*s'", i == 0 ? "" : i == n - 1 ? " or " : ", ",
		    (int)(bar != NULL ? (size_t)(bar - p) : strlen(p)), p);
		p = bar != NULL ? bar + 1 : p;
	}
	snprintf(out, outsz, "%s", b.p != NULL ? b.p : "must be a documented value");
	buf_release(&b);
}

/* 1 when v (n bytes) is one of choices "a|b|c". */
static int
validate_in_choices(const char *choices, const char *v, size_t n)
{
	const char	*p = choices, *bar;
	size_t		 k;

	for (;;) {
		bar = strchr(p, '|');
		k = bar != NULL ? (size_t)(bar - p) : strlen(p);
		if (k == n && strncmp(p, v, n) == 0)
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

/* validate_string with the field already named in label ("field 'folders' entry 2"). */
static int
validate_text(const struct validate_field *f, const char *label, const char *v, size_t n,
    char *err, size_t errsz)
{
	char	 why[256];
	long	 chars;

	if (memchr(v, '\0', n) != NULL) {
		snprintf(err, errsz, "%s holds a NUL character", label);
		return -1;
	}
	if ((chars = validate_utf8_chars(v, n)) == -1) {
		snprintf(err, errsz, "%s is not valid UTF-8", label);
		return -1;
	}
	if (chars == 0 && f->min > 0) {
		snprintf(err, errsz, "%s must not be empty", label);
		return -1;
	}
	if (chars < f->min) {
		snprintf(err, errsz, "%s is shorter than %ld characters", label, f->min);
		return -1;
	}
	if (f->max > 0 && chars > f->max) {
		snprintf(err, errsz, "%s is longer than %ld characters", label, f->max);
		return -1;
	}
	if (f->choices != NULL && !validate_in_choices(f->choices, v, n)) {
		validate_choices_text(f->choices, why, sizeof(why));
		snprintf(err, errsz, "%s %s", label, why);
		return -1;
	}
	if (f->check != NULL && f->check(v, why, sizeof(why)) == -1) {
		snprintf(err, errsz, "%s %s", label, why);
		return -1;
	}
	return 0;
}

int
validate_string(const struct validate_field *f, const char *kind, const char *v,
    size_t n, char *err, size_t errsz)
{
	char	 label[128];

	snprintf(label, sizeof(label), "%s '%.64s'", kind, f->name);
	return validate_text(f, label, v, n, err, errsz);
}

/* The elements of a list field. */
static int
validate_list(const struct validate_field *f, const char *kind, json_object *v, char *err,
    size_t errsz)
{
	struct validate_field elem = *f;
	json_object	*e;
	char		 label[128];
	size_t		 i, n;

	if (!json_object_is_type(v, json_type_array)) {
		snprintf(err, errsz, "%s '%s' must be a list of strings", kind, f->name);
		return -1;
	}
	n = json_object_array_length(v);
	if (f->max > 0 && n > (size_t)f->max) {
		snprintf(err, errsz, "%s '%s' has more than %ld entries", kind, f->name,
		    f->max);
		return -1;
	}
	elem.min = 1;
	elem.max = f->elem_max;
	elem.choices = NULL;
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(v, i);
		if (!json_object_is_type(e, json_type_string)) {
			snprintf(err, errsz, "%s '%s' must be a list of strings", kind,
			    f->name);
			return -1;
		}
		snprintf(label, sizeof(label), "%s '%.64s' entry %zu", kind, f->name,
		    i + 1);
		if (validate_text(&elem, label, json_object_get_string(e),
		    (size_t)json_object_get_string_len(e), err, errsz) == -1)
			return -1;
	}
	return 0;
}

/* One present, non-null member v of declared field f. */
static int
validate_member(const struct validate_field *f, const char *kind, json_object *v,
    char *err, size_t errsz)
{
	int64_t	 x;

	switch (f->type) {
	case VALIDATE_STRING:
		if (!json_object_is_type(v, json_type_string)) {
			snprintf(err, errsz, "%s '%s' must be a string", kind, f->name);
			return -1;
		}
		return validate_string(f, kind, json_object_get_string(v),
		    (size_t)json_object_get_string_len(v), err, errsz);
	case VALIDATE_BOOL:
		if (!json_object_is_type(v, json_type_boolean)) {
			snprintf(err, errsz, "%s '%s' must be true or false", kind, f->name);
			return -1;
		}
		return 0;
	case VALIDATE_INT:
		x = json_object_get_int64(v);
		if (!json_object_is_type(v, json_type_int) || x < f->min || x > f->max) {
			snprintf(err, errsz, "%s '%s' must be a whole number from %ld to "
			    "%ld", kind, f->name, f->min, f->max);
			return -1;
		}
		return 0;
	case VALIDATE_LIST:
		return validate_list(f, kind, v, err, errsz);
	case VALIDATE_OBJECT:
		if (!json_object_is_type(v, json_type_object)) {
			snprintf(err, errsz, "%s '%s' must be an object", kind, f->name);
			return -1;
		}
		return 0;
	}
	return -1;
}

static const struct validate_field *
validate_find(const struct validate_table *t, const char *name)
{
	const struct validate_field *f;

	for (f = t->fields; f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

int
validate_object(const struct validate_table *t, json_object *o, char *err, size_t errsz)
{
	const struct validate_field *f;
	const char	*kind = t->what != NULL ? t->what : "field";
	json_object	*v;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errsz, "request body must be a JSON object");
		return -1;
	}
	if (!t->allow_unknown) {
		json_object_object_foreach(o, key, val) {
			(void)val;
			if (validate_find(t, key) == NULL) {
				snprintf(err, errsz, "unknown %s '%.64s'", kind, key);
				return -1;
			}
		}
	}
	for (f = t->fields; f->name != NULL; f++) {
		if (!json_object_object_get_ex(o, f->name, &v) ||
		    json_object_is_type(v, json_type_null)) {
			if (f->required) {
				snprintf(err, errsz, "missing required %s '%s'", kind,
				    f->name);
				return -1;
			}
			continue;
		}
		if (validate_member(f, kind, v, err, errsz) == -1)
			return -1;
	}
	return 0;
}

json_object *
validate_json(const struct validate_table *t, const char *text, size_t n, char *err,
    size_t errsz)
{
	json_tokener	*tok;
	json_object	*root = NULL;
	enum json_tokener_error jerr;

	if (n > INT_MAX || (tok = json_tokener_new()) == NULL) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, (int)n);
	jerr = json_tokener_get_error(tok);
	if (root == NULL || jerr != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != n) {
		snprintf(err, errsz, "request body is not valid JSON: %s",
		    jerr != json_tokener_success ? json_tokener_error_desc(jerr) :
		    "trailing characters after the value");
		goto fail;
	}
	if (validate_object(t, root, err, errsz) == -1)
		goto fail;
	json_tokener_free(tok);
	return root;
fail:
	json_tokener_free(tok);
	json_object_put(root);
	return NULL;
}

/* One query parameter value v of declared field f. */
static int
validate_param(const struct validate_field *f, const char *v, char *err, size_t errsz)
{
	struct validate_field b = *f;
	long	 x;

	switch (f->type) {
	case VALIDATE_STRING:
		return validate_string(f, "parameter", v, strlen(v), err, errsz);
	case VALIDATE_BOOL:
		b.choices = "true|false";
		b.min = b.max = 0;
		b.check = NULL;
		return validate_string(&b, "parameter", v, strlen(v), err, errsz);
	case VALIDATE_INT:
		if (util_parse_long(v, f->min, f->max, &x) == -1) {
			snprintf(err, errsz, "parameter '%s' must be a whole number from "
			    "%ld to %ld", f->name, f->min, f->max);
			return -1;
		}
		return 0;
	case VALIDATE_LIST:
	case VALIDATE_OBJECT:
		break;
	}
	snprintf(err, errsz, "parameter '%s' cannot be given in a query string", f->name);
	return -1;
}

int
validate_query(struct http_req *r, const struct validate_table *t)
{
	const struct validate_field *f;
	const char	*v;
	char		 err[512];
	size_t		 i;

	if (!t->allow_unknown)
		for (i = 0; i < r->nparams; i++)
			if (validate_find(t, r->params[i].name) == NULL) {
				http_error(r, 400, "unknown parameter '%.64s'",
				    r->params[i].name);
				return -1;
			}
	for (f = t->fields; f->name != NULL; f++) {
		if ((v = http_param(r, f->name)) == NULL) {
			if (f->required) {
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

const char *
validate_str(json_object *o, const char *name)
{
	json_object	*v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int
validate_bool(json_object *o, const char *name, int dflt)
{
	json_object	*v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_boolean))
		return dflt;
	return json_object_get_boolean(v);
}

long
validate_long(json_object *o, const char *name, long dflt)
{
	json_object	*v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_int))
		return dflt;
	return (long)json_object_get_int64(v);
}
