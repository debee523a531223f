/* validate.c: the one edge validator (see validate.h). */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "base/buf.h"
#include "base/util.h"
#include "base/validate.h"

long
validate_utf8_chars(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	size_t		 k;
	long		 chars = 0;

	for (; p < e; p += k, chars++)
		if ((k = util_utf8_len(p, (size_t)(e - p))) == 0)
			return -1;
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
	case VALIDATE_NUMBER:
		if ((!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double)) ||
		    !(json_object_get_double(v) >= (double)f->min &&
		    json_object_get_double(v) <= (double)f->max)) {
			snprintf(err, errsz, "%s '%s' must be a number from %ld to %ld",
			    kind, f->name, f->min, f->max);
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

/* See validate.h. */
const struct validate_field *
validate_find(const struct validate_table *t, const char *name)
{
	const struct validate_field *f;

	for (f = t->fields; f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

int
validate_object_field(const struct validate_table *t, json_object *o, const char *key,
    char *err, size_t errsz)
{
	const struct validate_field *f = validate_find(t, key);
	const char	*kind = t->what != NULL ? t->what : "field";
	json_object	*v;

	if (f == NULL) {
		if (t->allow_unknown)
			return 0;
		snprintf(err, errsz, "unknown %s '%.64s'", kind, key);
		return -1;
	}
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	return validate_member(f, kind, v, err, errsz);
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
			if (f->required == 1) {
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

/* ------------------------------------------------------------------ duplicate names */

#define VALIDATE_DEPTH_MAX	128	/* nesting the naming pass follows */

/* A member name found in the text: the object it belongs to and its decoded name. */
struct validate_key {
	size_t		 obj;		/* ordinal of its object in the text */
	char		*name;
};

/* Number of member names of the objects in the parsed value o and below it. */
static size_t
validate_count_members(json_object *o)
{
	size_t	 n = 0, i, len;

	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v) {
			(void)k;
			n += 1 + validate_count_members(v);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		len = json_object_array_length(o);
		for (i = 0; i < len; i++)
			n += validate_count_members(json_object_array_get_idx(o, i));
	}
	return n;
}

/* See validate.h. */
size_t
validate_skip_blank(const char *s, size_t n, size_t i)
{
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')
			i++;
		else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				continue;
			i += 2;
		} else
			break;
	}
	return i < n ? i : n;
}

size_t
validate_skip_string(const char *s, size_t n, size_t i)
{
	char	 q = s[i];

	for (i++; i < n && s[i] != q; i++)
		if (s[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

/*
 * Walks JSON text s (n bytes, well-formed: json-c parsed it) and counts its member names:
 * the strings followed by ':'. With keys, also records each one's object and decoded
 * name (keys has room for all); then -1 when the nesting is too deep or memory is short.
 */
static long
validate_text_keys(const char *s, size_t n, struct validate_key *keys)
{
	size_t	 stack[VALIDATE_DEPTH_MAX], depth = 0, nobj = 0, i = 0, end, k;
	long	 count = 0;
	char	*tok;

	while ((i = validate_skip_blank(s, n, i)) < n) {
		if (s[i] == '"' || s[i] == '\'') {
			end = validate_skip_string(s, n, i);
			k = validate_skip_blank(s, n, end);
			if (k < n && s[k] == ':') {
				if (keys != NULL) {
					json_object *o;

					if (depth == 0 || (tok = strndup(s + i, end - i)) == NULL)
						return -1;
					o = json_tokener_parse(tok);
					free(tok);
					keys[count].obj = stack[depth - 1];
					keys[count].name = strdup(o != NULL ?
					    json_object_get_string(o) : "");
					json_object_put(o);
					if (keys[count].name == NULL)
						return -1;
				}
				count++;
			}
			i = end;
			continue;
		}
		if (s[i] == '{' || s[i] == '[') {
			if (depth >= VALIDATE_DEPTH_MAX) {	/* counted, not recorded */
				if (keys != NULL)
					return -1;
			} else
				stack[depth] = s[i] == '{' ? nobj++ : (size_t)-1;
			depth++;
		} else if ((s[i] == '}' || s[i] == ']') && depth > 0)
			depth--;
		i++;
	}
	return count;
}

static int
validate_key_cmp(const void *a, const void *b)
{
	const struct validate_key *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
validate_json_unique(const char *text, size_t n, json_object *root, char *key,
    size_t keysz)
{
	struct validate_key *keys;
	long		 count, i, got;

	count = validate_text_keys(text, n, NULL);
	if (count <= 0 || (size_t)count <= validate_count_members(root))
		return 0;
	/* Some name came twice: find which (only on this error path, n log n). */
	*key = '\0';
	if ((keys = calloc((size_t)count, sizeof(*keys))) == NULL)
		return -1;
	got = validate_text_keys(text, n, keys);
	if (got == count) {
		qsort(keys, (size_t)count, sizeof(*keys), validate_key_cmp);
		for (i = 1; i < count; i++)
			if (keys[i].obj == keys[i - 1].obj &&
			    strcmp(keys[i].name, keys[i - 1].name) == 0) {
				snprintf(key, keysz, "%s", keys[i].name);
				util_utf8_trim(key);
				util_utf8_scrub(key);
				break;
			}
	}
	for (i = 0; i < count; i++)
		free(keys[i].name);
	free(keys);
	return -1;
}

json_object *
validate_json(const struct validate_table *t, const char *text, size_t n, char *err,
    size_t errsz)
{
	json_tokener	*tok;
	json_object	*root = NULL;
	enum json_tokener_error jerr;
	char		 key[128];

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
	if (validate_json_unique(text, n, root, key, sizeof(key)) == -1) {
		snprintf(err, errsz, "request body is not valid JSON: %s%.64s%s appears "
		    "twice in one object", *key != '\0' ? "the name '" : "a member name",
		    key, *key != '\0' ? "'" : "");
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

/* See validate.h. */
int
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
	case VALIDATE_NUMBER:
		break;
	}
	snprintf(err, errsz, "parameter '%s' cannot be given in a query string", f->name);
	return -1;
}

int
validate_given(json_object *o, const char *name)
{
	json_object	*v;

	return json_object_object_get_ex(o, name, &v) &&
	    !json_object_is_type(v, json_type_null);
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

json_object *
validate_schema(const struct validate_table *t)
{
	static const char *const types[] = {
		[VALIDATE_STRING] = "string", [VALIDATE_BOOL] = "boolean",
		[VALIDATE_INT] = "number", [VALIDATE_LIST] = "array",
		[VALIDATE_OBJECT] = "object", [VALIDATE_NUMBER] = "number"
	};
	const struct validate_field *f;
	json_object	*schema, *props, *req, *p, *e;
	const char	*c, *bar;

	if ((schema = json_object_new_object()) == NULL)
		return NULL;
	props = json_object_new_object();
	req = json_object_new_array();
	json_object_object_add(schema, "type", json_object_new_string("object"));
	json_object_object_add(schema, "properties", props);
	for (f = t->fields; f->name != NULL; f++) {
		p = json_object_new_object();
		json_object_object_add(p, "type", json_object_new_string(types[f->type]));
		if (f->type == VALIDATE_LIST) {
			e = json_object_new_object();
			json_object_object_add(e, "type", json_object_new_string("string"));
			json_object_object_add(p, "items", e);
		}
		if (f->type == VALIDATE_STRING && f->choices != NULL) {
			e = json_object_new_array();
			for (c = f->choices;; c = bar + 1) {
				bar = strchr(c, '|');
				json_object_array_add(e, json_object_new_string_len(c,
				    bar != NULL ? (int)(bar - c) : (int)strlen(c)));
				if (bar == NULL)
					break;
			}
			json_object_object_add(p, "enum", e);
		}
		if (f->doc != NULL)
			json_object_object_add(p, "description",
			    json_object_new_string(f->doc));
		json_object_object_add(props, f->name, p);
		if (f->required)
			json_object_array_add(req, json_object_new_string(f->name));
	}
	if (json_object_array_length(req) > 0)
		json_object_object_add(schema, "required", req);
	else
		json_object_put(req);
	return schema;
}
