/*
 * openapi.c: loading an OpenAPI description (JSON with json-c, YAML with libyaml's event
 * parser into the same json-c tree) and resolving its $refs (JSON pointers in the same
 * document, or in the files bundled under OPENAPI_FILES_KEY). The snippets are made in
 * openapi_doc.c. Contracts in openapi.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>
#include <yaml.h>

#include "base/buf.h"
#include "base/util.h"
#include "parse/openapi.h"
#include "parse/openapi_int.h"

/* Nodes a YAML document may expand to through aliases: this plus its length in bytes. */
#define OPENAPI_YAML_NODES	100000

/* ---------------------------------------------------------------- YAML */

/* A container being filled while the YAML events come. */
struct openapi_frame {
	json_object	*obj;		/* object or array */
	char		*key;		/* mapping: the key awaiting its value, else NULL */
	char		*anchor;	/* registered when the container ends */
};

struct openapi_yaml {
	struct openapi_frame st[OPENAPI_MAX_DEPTH];
	int		 depth;
	json_object	*anchors;	/* anchor name -> its (finished) node */
	json_object	*root;
	int		 have_root;
	size_t		 nodes, max_nodes;
	char		*err;
	size_t		 errsz;
};

json_object *
openapi_yaml_plain(const char *s, size_t n, int *isnull)
{
	char		 tmp[64], *end;
	long long	 ll;
	double		 d;
	size_t		 i, digits = 0;

	*isnull = 0;
	if (n == 0 || (n == 1 && *s == '~') || (n == 4 && (strncmp(s, "null", 4) == 0 ||
	    strncmp(s, "Null", 4) == 0 || strncmp(s, "NULL", 4) == 0))) {
		*isnull = 1;
		return NULL;
	}
	if ((n == 4 && strncasecmp(s, "true", 4) == 0) ||
	    (n == 5 && strncasecmp(s, "false", 5) == 0))
		return json_object_new_boolean(*s == 't' || *s == 'T');
	if (n >= sizeof(tmp))
		return json_object_new_string_len(s, (int)n);
	for (i = 0; i < n; i++) {
		if (isdigit((unsigned char)s[i]))
			digits++;
		else if (strchr("+-.eE", s[i]) == NULL)
			return json_object_new_string_len(s, (int)n);
	}
	if (digits == 0)
		return json_object_new_string_len(s, (int)n);
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	if (digits == n - (*s == '-' || *s == '+') && n < 19) {
		ll = strtoll(tmp, &end, 10);
		if (errno == 0 && *end == '\0')
			return json_object_new_int64(ll);
	}
	d = strtod(tmp, &end);
	if (errno == 0 && *end == '\0')
		return json_object_new_double(d);
	return json_object_new_string_len(s, (int)n);
}

/* A copy of o for an alias, counted against the node budget; -1 past it or too deep. */
static int
openapi_yaml_copy(struct openapi_yaml *y, json_object *o, int depth, json_object **out)
{
	json_object	*c, *v;
	size_t		 i, n;

	*out = NULL;
	if (++y->nodes > y->max_nodes || depth >= OPENAPI_MAX_DEPTH)
		return -1;
	switch (json_object_get_type(o)) {
	case json_type_object:
		if ((c = json_object_new_object()) == NULL)
			return -1;
		json_object_object_foreach(o, k, val) {
			if (openapi_yaml_copy(y, val, depth + 1, &v) == -1) {
				json_object_put(c);
				return -1;
			}
			json_object_object_add(c, k, v);
		}
		*out = c;
		return 0;
	case json_type_array:
		if ((c = json_object_new_array()) == NULL)
			return -1;
		n = json_object_array_length(o);
		for (i = 0; i < n; i++) {
			if (openapi_yaml_copy(y, json_object_array_get_idx(o, i), depth + 1,
			    &v) == -1) {
				json_object_put(c);
				return -1;
			}
			json_object_array_add(c, v);
		}
		*out = c;
		return 0;
	default:
		*out = json_object_get(o);	/* scalars are never changed: shared */
		return 0;
	}
}

/* Adds the merge key's mapping(s) v into obj where obj has no such key yet. */
static void
openapi_yaml_merge(json_object *obj, json_object *v)
{
	size_t	 i, n;

	if (json_object_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		for (i = 0; i < n && i < 64; i++)
			openapi_yaml_merge(obj, json_object_array_get_idx(v, i));
		return;
	}
	if (!json_object_is_type(v, json_type_object))
		return;
	json_object_object_foreach(v, k, val)
		if (!json_object_object_get_ex(obj, k, NULL))
			json_object_object_add(obj, k, json_object_get(val));
}

/* Puts node v (taken over) where the open container wants it. */
static int
openapi_yaml_place(struct openapi_yaml *y, json_object *v)
{
	struct openapi_frame *f;

	if (y->depth == 0) {
		y->root = v;
		y->have_root = 1;
		return 0;
	}
	f = &y->st[y->depth - 1];
	if (json_object_is_type(f->obj, json_type_array)) {
		if (json_object_array_add(f->obj, v) == 0)
			return 0;
		json_object_put(v);
		return -1;
	}
	if (f->key == NULL) {
		/* a key: only scalars (or aliases of strings) are supported */
		if (!json_object_is_type(v, json_type_string) &&
		    !json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double) &&
		    !json_object_is_type(v, json_type_boolean) && v != NULL) {
			json_object_put(v);
			snprintf(y->err, y->errsz, "not YAML that OpenAPI allows: a mapping "
			    "key that is not a scalar");
			return -1;
		}
		f->key = strdup(v != NULL ? json_object_get_string(v) : "");
		json_object_put(v);
		return f->key != NULL ? 0 : -1;
	}
	if (strcmp(f->key, "<<") == 0) {
		openapi_yaml_merge(f->obj, v);
		json_object_put(v);
	} else
		json_object_object_add(f->obj, f->key, v);
	free(f->key);
	f->key = NULL;
	return 0;
}

/* Registers the node v under the event's anchor (when it has one). */
static void
openapi_yaml_anchor(struct openapi_yaml *y, const yaml_char_t *anchor, json_object *v)
{
	if (anchor != NULL)
		json_object_object_add(y->anchors, (const char *)anchor, json_object_get(v));
}

/* Opens a mapping or a sequence. */
static int
openapi_yaml_open(struct openapi_yaml *y, const yaml_char_t *anchor, int mapping)
{
	struct openapi_frame *f;

	if (y->depth > 0 && json_object_is_type(y->st[y->depth - 1].obj,
	    json_type_object) && y->st[y->depth - 1].key == NULL) {
		snprintf(y->err, y->errsz, "not YAML that OpenAPI allows: a mapping key "
		    "that is not a scalar");
		return -1;
	}
	if (y->depth >= OPENAPI_MAX_DEPTH) {
		snprintf(y->err, y->errsz, "nested deeper than %d levels",
		    OPENAPI_MAX_DEPTH);
		return -1;
	}
	f = &y->st[y->depth];
	memset(f, 0, sizeof(*f));
	f->obj = mapping ? json_object_new_object() : json_object_new_array();
	if (f->obj == NULL || (anchor != NULL &&
	    (f->anchor = strdup((const char *)anchor)) == NULL)) {
		json_object_put(f->obj);
		snprintf(y->err, y->errsz, "out of memory");
		return -1;
	}
	y->depth++;
	return 0;
}

/* Handles one event; 1 when the first document ended, 0 to go on, -1 with y->err. */
static int
openapi_yaml_event(struct openapi_yaml *y, yaml_event_t *ev)
{
	struct openapi_frame *f;
	json_object	*v = NULL, *a;
	int		 isnull = 0;

	if (++y->nodes > y->max_nodes) {
		snprintf(y->err, y->errsz, "more than %zu nodes (YAML aliases)",
		    y->max_nodes);
		return -1;
	}
	switch (ev->type) {
	case YAML_DOCUMENT_END_EVENT:
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_MAPPING_START_EVENT:
		return openapi_yaml_open(y, ev->data.mapping_start.anchor, 1);
	case YAML_SEQUENCE_START_EVENT:
		return openapi_yaml_open(y, ev->data.sequence_start.anchor, 0);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		f = &y->st[--y->depth];
		v = f->obj;
		openapi_yaml_anchor(y, (const yaml_char_t *)f->anchor, v);
		free(f->key);
		free(f->anchor);
		break;
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    ev->data.scalar.tag == NULL)
			v = openapi_yaml_plain((const char *)ev->data.scalar.value,
			    ev->data.scalar.length, &isnull);
		else
			v = json_object_new_string_len((const char *)ev->data.scalar.value,
			    (int)ev->data.scalar.length);
		if (v == NULL && !isnull)
			goto nomem;
		openapi_yaml_anchor(y, ev->data.scalar.anchor, v);
		break;
	case YAML_ALIAS_EVENT:
		if (!json_object_object_get_ex(y->anchors,
		    (const char *)ev->data.alias.anchor, &a)) {
			snprintf(y->err, y->errsz, "not YAML: alias *%.64s names no "
			    "anchor", (const char *)ev->data.alias.anchor);
			return -1;
		}
		if (openapi_yaml_copy(y, a, y->depth, &v) == -1) {
			snprintf(y->err, y->errsz, "more than %zu nodes or %d levels "
			    "(YAML aliases)", y->max_nodes, OPENAPI_MAX_DEPTH);
			return -1;
		}
		break;
	default:
		return 0;
	}
	if (openapi_yaml_place(y, v) == -1) {
		if (y->err[0] == '\0')
			goto nomem;
		return -1;
	}
	return 0;
nomem:
	snprintf(y->err, y->errsz, "out of memory");
	return -1;
}

static int
openapi_load_yaml(const char *data, size_t len, json_object **out, char *err,
    size_t errsz)
{
	struct openapi_yaml y;
	yaml_parser_t	 p;
	yaml_event_t	 ev;
	int		 r = 0, rc = -1;

	memset(&y, 0, sizeof(y));
	y.err = err;
	y.errsz = errsz;
	err[0] = '\0';
	y.max_nodes = OPENAPI_YAML_NODES + len;
	if ((y.anchors = json_object_new_object()) == NULL ||
	    !yaml_parser_initialize(&p)) {
		json_object_put(y.anchors);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
	while (r == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			snprintf(err, errsz, "not JSON or YAML: %s (line %zu)",
			    p.problem != NULL ? p.problem : "syntax error",
			    (size_t)p.problem_mark.line + 1);
			goto out;
		}
		r = openapi_yaml_event(&y, &ev);
		yaml_event_delete(&ev);
		if (r == -1)
			goto out;
	}
	if (!y.have_root) {
		snprintf(err, errsz, "an empty document");
		goto out;
	}
	*out = y.root;
	y.root = NULL;
	rc = 0;
out:
	while (y.depth > 0) {
		y.depth--;
		json_object_put(y.st[y.depth].obj);
		free(y.st[y.depth].key);
		free(y.st[y.depth].anchor);
	}
	json_object_put(y.root);
	json_object_put(y.anchors);
	yaml_parser_delete(&p);
	return rc;
}

/* ---------------------------------------------------------------- JSON */

static int
openapi_load_json(const char *data, size_t len, json_object **out, char *err,
    size_t errsz)
{
	struct json_tokener *tok;
	json_object	*o;
	enum json_tokener_error e;
	int		 rc = -1;

	if (len > INT32_MAX) {
		snprintf(err, errsz, "larger than 2 GB");
		return -1;
	}
	if ((tok = json_tokener_new_ex(OPENAPI_MAX_DEPTH)) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	o = json_tokener_parse_ex(tok, data, (int)len);
	e = json_tokener_get_error(tok);
	if (e == json_tokener_continue)
		snprintf(err, errsz, "not JSON: it ends early");
	else if (e != json_tokener_success)
		snprintf(err, errsz, "not JSON: %s (byte %zu)",
		    json_tokener_error_desc(e), json_tokener_get_parse_end(tok));
	else if (o == NULL)
		snprintf(err, errsz, "not JSON: null");
	else {
		*out = o;
		o = NULL;
		rc = 0;
	}
	json_object_put(o);
	json_tokener_free(tok);
	return rc;
}

int
openapi_load(const char *data, size_t len, enum openapi_syntax syn, json_object **out,
    char *err, size_t errsz)
{
	size_t	 i = 0;

	*out = NULL;
	if (syn == OPENAPI_AUTO) {
		if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
			i = 3;
		while (i < len && isspace((unsigned char)data[i]))
			i++;
		syn = i < len && (data[i] == '{' || data[i] == '[') ? OPENAPI_JSON :
		    OPENAPI_YAML;
		data += i;
		len -= i;
	}
	if (syn == OPENAPI_JSON)
		return openapi_load_json(data, len, out, err, errsz);
	return openapi_load_yaml(data, len, out, err, errsz);
}

int
openapi_version(json_object *root, char *err, size_t errsz)
{
	json_object	*v;
	const char	*s;

	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errsz, "not an OpenAPI document: not a JSON or YAML object");
		return -1;
	}
	if (json_object_object_get_ex(root, "openapi", &v)) {
		s = json_object_get_string(v);
		if (s != NULL && s[0] == '3' && s[1] == '.')
			return 3;
		snprintf(err, errsz, "not an OpenAPI version this server reads: "
		    "openapi %.32s (3.x is)", s != NULL ? s : "");
		return -1;
	}
	if (json_object_object_get_ex(root, "swagger", &v)) {
		s = json_object_get_string(v);
		if (s != NULL && s[0] == '2' && (s[1] == '.' || s[1] == '\0'))
			return 2;
		snprintf(err, errsz, "not an OpenAPI version this server reads: "
		    "swagger %.32s (2.0 is)", s != NULL ? s : "");
		return -1;
	}
	snprintf(err, errsz, "not an OpenAPI document: it has no openapi or swagger key");
	return -1;
}

/* ---------------------------------------------------------------- $ref */

/*
 * Appends the folder of key from and then the relative path rel (n bytes) to a list of
 * segments, resolving "." and ".."; 0 when the result stays at most one folder above the
 * spec's, else -1.
 */
static int
openapi_key_join(const char *from, const char *rel, size_t n, char *out, size_t sz)
{
	struct buf	 b;
	const char	*slash = strrchr(from, '/'), *s, *e, *end;
	char		*last;
	int		 rc = -1, up = 0;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1 ||
	    (slash != NULL && buf_add(&b, from, (size_t)(slash - from) + 1) == -1))
		goto out;
	for (s = b.p; strncmp(s, "../", 3) == 0; s += 3)
		up++;
	for (s = rel, end = rel + n; s < end; s = e + 1) {
		if ((e = memchr(s, '/', (size_t)(end - s))) == NULL)
			e = end;
		if (e == s || (e - s == 1 && *s == '.'))
			continue;
		if (e - s == 2 && s[0] == '.' && s[1] == '.') {
			/* drop the last folder of b, or go up one more */
			if (b.len > (size_t)up * 3) {
				b.p[--b.len] = '\0';
				last = strrchr(b.p, '/');
				b.len = last != NULL ? (size_t)(last - b.p) + 1 : 0;
				b.p[b.len] = '\0';
			} else if (++up > 1 || buf_adds(&b, "../") == -1)
				goto out;
			continue;
		}
		if (buf_add(&b, s, (size_t)(e - s)) == -1 ||
		    (e < end && buf_addc(&b, '/') == -1))
			goto out;
	}
	if (b.len == 0 || b.p[b.len - 1] == '/' || b.len >= sz)
		goto out;
	memcpy(out, b.p, b.len + 1);
	rc = 0;
out:
	buf_release(&b);
	return rc;
}

int
openapi_ref_key(const char *from, const char *ref, char *out, size_t sz)
{
	size_t	 n = strcspn(ref, "#"), i;

	if (n == 0)
		return 0;
	if (n > OPENAPI_KEY_MAX || ref[0] == '/' || ref[0] == '\\')
		return -1;
	for (i = 0; i < n; i++)
		if (ref[i] == ':' || ref[i] == '?' || ref[i] == '\\' ||
		    (unsigned char)ref[i] < 0x20)
			return -1;
	return openapi_key_join(from, ref, n, out, sz) == 0 ? 1 : -1;
}

/* Decodes one JSON pointer segment (n bytes): ~1 '/', ~0 '~', %XX; -1 when malformed. */
static int
openapi_ptr_segment(const char *s, size_t n, struct buf *b)
{
	size_t	 i;
	int	 hi, lo;

	buf_reset(b);
	if (buf_add(b, "", 0) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
			if (buf_addc(b, s[++i] == '0' ? '~' : '/') == -1)
				return -1;
		} else if (s[i] == '%' && i + 2 < n && (hi = util_hexval(s[i + 1])) >= 0 &&
		    (lo = util_hexval(s[i + 2])) >= 0) {
			if (buf_addc(b, (char)(hi * 16 + lo)) == -1)
				return -1;
			i += 2;
		} else if (buf_addc(b, s[i]) == -1)
			return -1;
	}
	return 0;
}

/* The node at JSON pointer ptr (after '#') in doc; NULL when there is none. */
static json_object *
openapi_pointer(json_object *doc, const char *ptr)
{
	struct buf	 seg;
	const char	*s, *e;
	json_object	*cur = doc, *next;
	long		 idx;
	int		 nseg = 0;

	if (*ptr == '\0')
		return doc;
	if (*ptr != '/')
		return NULL;
	buf_init(&seg);
	for (s = ptr + 1;; s = e + 1) {
		e = strchr(s, '/');
		if (e == NULL)
			e = s + strlen(s);
		if (++nseg > OPENAPI_REF_SEGMENTS ||
		    openapi_ptr_segment(s, (size_t)(e - s), &seg) == -1) {
			cur = NULL;
			break;
		}
		if (json_object_is_type(cur, json_type_object)) {
			if (!json_object_object_get_ex(cur, seg.p, &next))
				next = NULL;
		} else if (json_object_is_type(cur, json_type_array) &&
		    util_parse_long(seg.p, 0, INT32_MAX, &idx) == 0)
			next = json_object_array_get_idx(cur, (size_t)idx);
		else
			next = NULL;
		if ((cur = next) == NULL || *e == '\0')
			break;
	}
	buf_release(&seg);
	return cur;
}

json_object *
openapi_resolve(json_object *root, const char *from, const char *ref, const char **to)
{
	struct lh_entry	*ent;
	json_object	*files, *doc = NULL;
	const char	*hash;
	char		 key[OPENAPI_KEY_MAX + 1];
	int		 k;

	*to = from;
	if (strlen(ref) > OPENAPI_REF_MAX || (k = openapi_ref_key(from, ref, key,
	    sizeof(key))) == -1)
		return NULL;
	if (k == 0) {
		if (*from == '\0')
			doc = root;
		else if (json_object_object_get_ex(root, OPENAPI_FILES_KEY, &files) &&
		    json_object_is_type(files, json_type_object))
			doc = json_object_object_get(files, from);
	} else if (json_object_object_get_ex(root, OPENAPI_FILES_KEY, &files) &&
	    json_object_is_type(files, json_type_object) &&
	    (ent = lh_table_lookup_entry(json_object_get_object(files), key)) != NULL) {
		doc = (json_object *)lh_entry_v(ent);
		*to = (const char *)lh_entry_k(ent);
	}
	if (doc == NULL)
		return NULL;
	hash = strchr(ref, '#');
	return openapi_pointer(doc, hash != NULL ? hash + 1 : "");
}

/* openapi_refs' walk (depth is bounded by the loader's OPENAPI_MAX_DEPTH). */
static int
openapi_refs_walk(json_object *o, int (*fn)(void *, const char *), void *arg, int depth)
{
	json_object	*r;
	size_t		 i, n;

	if (depth > OPENAPI_MAX_DEPTH + 2)
		return 0;
	if (json_object_is_type(o, json_type_array)) {
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			if (openapi_refs_walk(json_object_array_get_idx(o, i), fn, arg,
			    depth + 1) == -1)
				return -1;
		return 0;
	}
	if (!json_object_is_type(o, json_type_object))
		return 0;
	if (json_object_object_get_ex(o, "$ref", &r) &&
	    json_object_is_type(r, json_type_string) &&
	    fn(arg, json_object_get_string(r)) == -1)
		return -1;
	json_object_object_foreach(o, k, v) {
		if (depth == 0 && strcmp(k, OPENAPI_FILES_KEY) == 0)
			continue;
		if (openapi_refs_walk(v, fn, arg, depth + 1) == -1)
			return -1;
	}
	return 0;
}

int
openapi_refs(json_object *tree, int (*fn)(void *, const char *), void *arg)
{
	return openapi_refs_walk(tree, fn, arg, 0);
}

struct openapi_unres {
	json_object	*root;
	const char	*from;
	size_t		 n;
	char		*first;
	size_t		 sz;
};

static int
openapi_unresolved_one(void *arg, const char *ref)
{
	struct openapi_unres *u = arg;
	const char	*to;

	if (openapi_resolve(u->root, u->from, ref, &to) == NULL && u->n++ == 0)
		snprintf(u->first, u->sz, "%s", ref);
	return 0;
}

size_t
openapi_unresolved(json_object *root, char *first, size_t sz)
{
	struct openapi_unres u = { root, "", 0, first, sz };
	json_object	*files;

	if (sz > 0)
		first[0] = '\0';
	openapi_refs(root, openapi_unresolved_one, &u);
	if (json_object_object_get_ex(root, OPENAPI_FILES_KEY, &files) &&
	    json_object_is_type(files, json_type_object)) {
		json_object_object_foreach(files, k, v) {
			u.from = k;
			openapi_refs(v, openapi_unresolved_one, &u);
		}
	}
	return u.n;
}
