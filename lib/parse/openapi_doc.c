/*
 * openapi_doc.c: the snippets of an OpenAPI description (openapi_parse_poll, the parser
 * of format DOC_FORMAT_OPENAPI): an overview section (title, version, description,
 * servers, security schemes, tags), then one section per operation, under a level-1
 * section per tag (the first tag of each operation; untagged ones come first, at level
 * 1), then the webhooks (3.1) under "Webhooks". An operation's section: title
 * "METHOD path — summary" (operationId when there is no summary), anchor its operationId
 * (else "method-path"), its description, parameters, request body and responses with
 * compact schemas ("{ id: integer (required), tags: [string] }", nested objects shown a
 * few levels deep (OPENAPI_BODY_DEPTH and the like), a $ref already being shown or too
 * deep named "→ Pet"; a response's links name their target operation and parameters), and a curl example against
 * the first server. An operation's callbacks (3.x) follow it, one section each one level
 * down: "POST {$request.query.callbackUrl}/data (callback onData of POST /streams)", anchor
 * "callback-<operation>-<name>-<method>", the request the API makes and the answers it
 * expects, no curl.
 *
 * Linear in the spec: each operation may visit at most OPENAPI_OP_NODES schema nodes,
 * every list shown is capped, and a $ref is followed only when short (openapi_int.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "parse/doc.h"
#include "parse/openapi.h"
#include "parse/openapi_int.h"
#include "parse/openapi_words.h"
#include "parse/parse.h"

#define OPENAPI_SCHEMA_DEPTH	3	/* nested objects shown; deeper ones are named */
#define OPENAPI_OP_NODES	1500	/* schema nodes one operation's text may visit */
#define OPENAPI_SCHEMA_BYTES	1200	/* a compact schema is cut past this */
/*
 * How much of a schema an operation's text shows: an answer holds a few operations of
 * about 300 tokens rather than two of 1,000 (bench/README.md, "operations found by what
 * they do": response schemas three levels deep and curl bodies of 2 KB pushed the operation
 * asked for out of the answer). A request body shows its fields two levels deep, a
 * success response two, an error response (4XX, 5XX, default) one, each cut past its
 * bytes; a curl example's JSON body is made less deep while it is longer than
 * OPENAPI_SAMPLE_BYTES.
 */
#define OPENAPI_BODY_DEPTH	2
#define OPENAPI_BODY_BYTES	800
#define OPENAPI_OK_DEPTH	2
#define OPENAPI_OK_BYTES	400
#define OPENAPI_ERR_DEPTH	1
#define OPENAPI_ERR_BYTES	200
#define OPENAPI_SAMPLE_DEPTH	4
#define OPENAPI_SAMPLE_BYTES	600
#define OPENAPI_MAX_PROPS	40	/* properties shown of one object */
#define OPENAPI_MAX_ENUM	10
#define OPENAPI_MAX_PARTS	8	/* allOf / oneOf / anyOf parts */
#define OPENAPI_MAX_PARAMS	60
#define OPENAPI_MAX_RESPONSES	20
#define OPENAPI_MAX_LINKS	5	/* of a response, and parameters of a link */
#define OPENAPI_MAX_CALLBACKS	10	/* callback operations of one operation */
#define OPENAPI_MAX_DOC_CALLBACKS 2000	/* and of the whole document */
#define OPENAPI_MAX_FORM	8	/* fields of a form body in a curl example */
#define OPENAPI_MAX_LIST	50	/* servers, security schemes, tags of the overview */
#define OPENAPI_MAX_OPS		20000
#define OPENAPI_TEXT_BYTES	4000	/* a description is cut past this */
#define OPENAPI_STACK		16	/* $refs being expanded at once */
#define OPENAPI_HOPS		8	/* a $ref to a $ref to ... */

static const char *const openapi_methods[] = {
	"get", "put", "post", "delete", "options", "head", "patch", "trace", "query", NULL
};

struct openapi_op {
	const char	*method;	/* "get" */
	const char	*path;		/* "/pets/{petId}", or the webhook's name */
	json_object	*item;		/* its path item */
	json_object	*op;
	const char	*file;		/* key of the file op is in */
	const char	*ifile;		/* key of the file item is in */
	long		 tag;		/* order of its first tag, -1 without */
	const char	*tagname;
	size_t		 seq;
	int		 webhook;
	const char	*callback;	/* a callback's name; of: the operation it belongs to */
	const struct openapi_op *of;
};

struct openapi {
	json_object	*root;
	int		 version;	/* 2 or 3 */
	struct docb	*b;
	struct buf	 server;	/* base URL of the curl examples */
	json_object	*tags;		/* tag name -> its order */
	long		 ntags;
	size_t		 budget;	/* schema nodes left for this operation */
	size_t		 limit;		/* the schema being written ends past this */
	int		 depth;		/* and shows objects this deep */
	int		 sdepth;	/* nesting of the curl example's body */
	json_object	*stack[OPENAPI_STACK];	/* $ref targets being shown */
	size_t		 nstack;
	struct openapi_op *ops;
	size_t		 nops, capops, dropped, nwebhooks, ncallbacks;
	int		 nomem;
};

/* A parameter after $refs, with the file it is in. */
struct openapi_param {
	json_object	*p;
	const char	*file;
};

static json_object *
openapi_get(json_object *o, const char *key)
{
	json_object	*v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* The string at key, NULL when absent or not a string. */
static const char *
openapi_str(json_object *o, const char *key)
{
	json_object	*v = openapi_get(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Same, NULL when empty or blank too. */
static const char *
openapi_text(json_object *o, const char *key)
{
	const char	*s = openapi_str(o, key), *p;

	if (s == NULL)
		return NULL;
	for (p = s; *p != '\0' && isspace((unsigned char)*p); p++)
		;
	return *p != '\0' ? s : NULL;
}

/* Follows o's $ref (and the target's) to the node; NULL when one does not resolve. */
static json_object *
openapi_deref(struct openapi *o, json_object *n, const char **file)
{
	const char	*ref;
	int		 i;

	for (i = 0; i < OPENAPI_HOPS; i++) {
		if ((ref = openapi_str(n, "$ref")) == NULL)
			return n;
		if ((n = openapi_resolve(o->root, *file, ref, file)) == NULL)
			return NULL;
	}
	return NULL;
}

/* The name a $ref is shown by: its pointer's last segment, else the file's stem. */
static void
openapi_ref_name(const char *ref, char *out, size_t sz)
{
	const char	*h = strchr(ref, '#'), *s, *e;

	if (h != NULL && h[1] != '\0') {
		s = strrchr(h, '/');
		s = s != NULL ? s + 1 : h + 1;
		e = s + strlen(s);
	} else {
		e = h != NULL ? h : ref + strlen(ref);
		for (s = e; s > ref && s[-1] != '/'; s--)
			;
		for (h = e; h > s; h--)
			if (*h == '.') {
				e = h;
				break;
			}
	}
	snprintf(out, sz, "%.*s", (int)(e - s), s);
	util_utf8_trim(out);
}

static void
openapi_add(struct openapi *o, struct buf *b, const char *s)
{
	if (buf_adds(b, s) == -1)
		o->nomem = 1;
}

static void
openapi_addn(struct openapi *o, struct buf *b, const char *s, size_t n)
{
	if (buf_add(b, s, n) == -1)
		o->nomem = 1;
}

/*
 * Adds a description, cut at OPENAPI_TEXT_BYTES, as one line when oneline; nothing for
 * NULL (a JSON null where the spec wants a string, as in "tags": [null]).
 */
static void
openapi_add_text(struct openapi *o, struct buf *b, const char *s, int oneline)
{
	size_t	 start = b->len, n, i;

	if (s == NULL)
		return;
	n = strlen(s);

	if (n > OPENAPI_TEXT_BYTES) {
		n = OPENAPI_TEXT_BYTES;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	openapi_addn(o, b, s, n);
	if (oneline && !o->nomem)
		for (i = start; i < b->len; i++)
			if (b->p[i] == '\n' || b->p[i] == '\r' || b->p[i] == '\t')
				b->p[i] = ' ';
}

/* openapi_add of two strings. */
static void
openapi_add2(struct openapi *o, struct buf *b, const char *s, const char *t)
{
	openapi_add(o, b, s);
	openapi_add(o, b, t);
}

/* Appends s in capitals ("get" -> "GET"). */
static void
openapi_add_upper(struct openapi *o, struct buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		openapi_addn(o, b, &(char){ (char)toupper((unsigned char)*s) }, 1);
}

/* openapi_add of s, then openapi_add_text of t. */
static void
openapi_add2_text(struct openapi *o, struct buf *b, const char *s, const char *t,
    int oneline)
{
	openapi_add(o, b, s);
	openapi_add_text(o, b, t, oneline);
}

static int
openapi_on_stack(const struct openapi *o, const json_object *t)
{
	size_t	 i;

	for (i = 0; i < o->nstack; i++)
		if (o->stack[i] == t)
			return 1;
	return 0;
}

/* The type of a schema: "type", or the first non-null one of a list; *nullable set. */
static const char *
openapi_type(json_object *s, int *nullable)
{
	json_object	*t = openapi_get(s, "type"), *e;
	json_object	*nl = openapi_get(s, "nullable");
	const char	*r = NULL, *x;
	size_t		 i, n;

	*nullable = json_object_is_type(nl, json_type_boolean) &&
	    json_object_get_boolean(nl);
	if (json_object_is_type(t, json_type_string))
		return json_object_get_string(t);
	if (!json_object_is_type(t, json_type_array))
		return NULL;
	n = json_object_array_length(t);
	for (i = 0; i < n && i < 8; i++) {
		e = json_object_array_get_idx(t, i);
		if (!json_object_is_type(e, json_type_string))
			continue;
		x = json_object_get_string(e);
		if (strcmp(x, "null") == 0)
			*nullable = 1;
		else if (r == NULL)
			r = x;
	}
	return r;
}

static int
openapi_is_object(json_object *s)
{
	int		 nl;
	const char	*t = openapi_type(s, &nl);

	return (t != NULL && strcmp(t, "object") == 0) || openapi_get(s, "properties") !=
	    NULL;
}

/* 1 when name is in the list (the first 100 entries looked at). */
static int
openapi_in_list(json_object *list, const char *name)
{
	json_object	*e;
	size_t		 i, n;

	if (!json_object_is_type(list, json_type_array))
		return 0;
	n = json_object_array_length(list);
	for (i = 0; i < n && i < 100; i++) {
		e = json_object_array_get_idx(list, i);
		if (json_object_is_type(e, json_type_string) &&
		    strcmp(json_object_get_string(e), name) == 0)
			return 1;
	}
	return 0;
}

static void openapi_schema(struct openapi *, struct buf *, json_object *, const char *,
	    int);

/* A $ref in a schema: the target shown (named when an object), or "→ Name". */
static void
openapi_schema_ref(struct openapi *o, struct buf *b, const char *ref, const char *file,
    int depth)
{
	json_object	*t;
	const char	*to;
	char		 name[128];

	openapi_ref_name(ref, name, sizeof(name));
	t = openapi_resolve(o->root, file, ref, &to);
	if (t == NULL || depth >= o->depth || o->nstack == OPENAPI_STACK ||
	    openapi_on_stack(o, t)) {
		openapi_add(o, b, "→ ");
		openapi_add(o, b, name);
		return;
	}
	o->stack[o->nstack++] = t;
	if (openapi_is_object(t) && *name != '\0') {
		openapi_add(o, b, name);
		openapi_add(o, b, " ");
	}
	openapi_schema(o, b, t, to, depth);
	o->nstack--;
}

/* allOf, oneOf or anyOf: its parts joined; 0 when s has none. */
static int
openapi_schema_parts(struct openapi *o, struct buf *b, json_object *s, const char *file,
    int depth)
{
	static const char *const kinds[][2] = {
		{ "allOf", " & " }, { "oneOf", " | " }, { "anyOf", " | " }
	};
	json_object	*a;
	size_t		 k, i, n;

	for (k = 0; k < 3; k++) {
		a = openapi_get(s, kinds[k][0]);
		if (!json_object_is_type(a, json_type_array) ||
		    (n = json_object_array_length(a)) == 0)
			continue;
		for (i = 0; i < n && i < OPENAPI_MAX_PARTS; i++) {
			if (i > 0)
				openapi_add(o, b, kinds[k][1]);
			openapi_schema(o, b, json_object_array_get_idx(a, i), file, depth);
		}
		if (n > OPENAPI_MAX_PARTS)
			openapi_add(o, b, kinds[k][1][1] == '&' ? " & …" : " | …");
		return 1;
	}
	return 0;
}

/* An object schema: "{ name: type (required), ... }", "object" when it says no more. */
static void
openapi_schema_object(struct openapi *o, struct buf *b, json_object *s, const char *file,
    int depth)
{
	json_object	*props = openapi_get(s, "properties");
	json_object	*req = openapi_get(s, "required");
	json_object	*add = openapi_get(s, "additionalProperties");
	size_t		 n = 0;

	if (!json_object_is_type(add, json_type_object))
		add = NULL;
	if ((!json_object_is_type(props, json_type_object) ||
	    json_object_object_length(props) == 0) && add == NULL) {
		openapi_add(o, b, "object");
		return;
	}
	if (depth >= o->depth) {
		openapi_add(o, b, "{…}");
		return;
	}
	openapi_add(o, b, "{ ");
	if (json_object_is_type(props, json_type_object)) {
		json_object_object_foreach(props, k, v) {
			if (n > 0)
				openapi_add(o, b, ", ");
			if (n++ == OPENAPI_MAX_PROPS || o->budget == 0 || b->len > o->limit) {
				openapi_add(o, b, "…");
				break;
			}
			openapi_add(o, b, k);
			openapi_add(o, b, ": ");
			openapi_schema(o, b, v, file, depth + 1);
			if (openapi_in_list(req, k))
				openapi_add(o, b, " (required)");
		}
	}
	if (add != NULL && o->budget > 0) {
		openapi_add(o, b, n > 0 ? ", *: " : "*: ");
		openapi_schema(o, b, add, file, depth + 1);
	}
	openapi_add(o, b, " }");
}

/* A scalar schema: "string(date-time)", " (one of: a, b)", " = x". */
static void
openapi_schema_scalar(struct openapi *o, struct buf *b, json_object *s, const char *type)
{
	json_object	*en = openapi_get(s, "enum"), *e;
	const char	*fmt = openapi_str(s, "format");
	size_t		 i, n;

	openapi_add(o, b, type != NULL ? type : "any");
	if (fmt != NULL && strlen(fmt) < 40) {
		openapi_add(o, b, "(");
		openapi_add(o, b, fmt);
		openapi_add(o, b, ")");
	}
	if (json_object_is_type(en, json_type_array) &&
	    (n = json_object_array_length(en)) > 0) {
		openapi_add(o, b, " (one of: ");
		for (i = 0; i < n && i < OPENAPI_MAX_ENUM; i++) {
			e = json_object_array_get_idx(en, i);
			if (i > 0)
				openapi_add(o, b, ", ");
			openapi_add_text(o, b, e != NULL ? json_object_get_string(e) :
			    "null", 1);
		}
		openapi_add(o, b, n > OPENAPI_MAX_ENUM ? ", …)" : ")");
	}
}

/* The compact text of schema s (in file) at nesting depth, within the budget. */
static void
openapi_schema(struct openapi *o, struct buf *b, json_object *s, const char *file,
    int depth)
{
	const char	*ref, *type;
	int		 nullable;

	if (o->budget == 0 || b->len > o->limit) {
		openapi_add(o, b, "…");
		return;
	}
	o->budget--;
	if (!json_object_is_type(s, json_type_object)) {
		openapi_add(o, b, "any");
		return;
	}
	if ((ref = openapi_str(s, "$ref")) != NULL) {
		openapi_schema_ref(o, b, ref, file, depth);
		return;
	}
	if (openapi_schema_parts(o, b, s, file, depth))
		return;
	type = openapi_type(s, &nullable);
	if (openapi_is_object(s) || (type == NULL && openapi_get(s,
	    "additionalProperties") != NULL))
		openapi_schema_object(o, b, s, file, depth);
	else if ((type != NULL && strcmp(type, "array") == 0) ||
	    openapi_get(s, "items") != NULL) {
		/* an array is not a level: [[Pet]] shows Pet as deep as Pet */
		openapi_add(o, b, "[");
		openapi_schema(o, b, openapi_get(s, "items"), file, depth);
		openapi_add(o, b, "]");
	} else
		openapi_schema_scalar(o, b, s, type);
	if (nullable)
		openapi_add(o, b, " | null");
}

/* Writes the compact schema of s, objects shown depth deep, cut past bytes. */
static void
openapi_schema_text(struct openapi *o, struct buf *b, json_object *s, const char *file,
    int depth, size_t bytes)
{
	o->limit = b->len + bytes;
	o->depth = depth;
	o->nstack = 0;
	openapi_schema(o, b, s, file, 0);
}

static json_object *openapi_sample(struct openapi *, json_object *, const char *, int);

/* A sample of an object schema (its properties), allOf parts merged into it. */
static json_object *
openapi_sample_object(struct openapi *o, json_object *s, const char *file, int depth)
{
	json_object	*r = json_object_new_object(), *props, *v, *all, *p;
	size_t		 n = 0, i, k;

	if (r == NULL)
		return NULL;
	all = openapi_get(s, "allOf");
	k = json_object_is_type(all, json_type_array) ? json_object_array_length(all) : 0;
	for (i = 0; i < k && i < OPENAPI_MAX_PARTS; i++) {
		p = openapi_sample(o, json_object_array_get_idx(all, i), file, depth);
		if (json_object_is_type(p, json_type_object)) {
			json_object_object_foreach(p, pk, pv)
				json_object_object_add(r, pk, json_object_get(pv));
		}
		json_object_put(p);
	}
	props = openapi_get(s, "properties");
	if (!json_object_is_type(props, json_type_object) || depth >= o->sdepth)
		return r;
	json_object_object_foreach(props, key, val) {
		if (n++ == OPENAPI_MAX_PROPS / 2 || o->budget == 0)
			break;
		if (openapi_get(val, "readOnly") != NULL &&
		    json_object_get_boolean(openapi_get(val, "readOnly")))
			continue;
		v = openapi_sample(o, val, file, depth + 1);
		json_object_object_add(r, key, v);
	}
	return r;
}

/* A scalar's sample by type and format. */
static json_object *
openapi_sample_scalar(const char *type, const char *fmt)
{
	if (type == NULL)
		return json_object_new_string("string");
	if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0)
		return json_object_new_int(0);
	if (strcmp(type, "boolean") == 0)
		return json_object_new_boolean(1);
	if (fmt != NULL && strcmp(fmt, "date-time") == 0)
		return json_object_new_string("2024-01-01T00:00:00Z");
	if (fmt != NULL && strcmp(fmt, "date") == 0)
		return json_object_new_string("2024-01-01");
	return json_object_new_string("string");
}

/* A JSON value for schema s (its example, default, first enum value, or made up). */
static json_object *
openapi_sample(struct openapi *o, json_object *s, const char *file, int depth)
{
	json_object	*v, *t, *r;
	const char	*ref, *to, *type;
	int		 nullable;

	if (o->budget == 0 || !json_object_is_type(s, json_type_object))
		return NULL;
	o->budget--;
	if ((ref = openapi_str(s, "$ref")) != NULL) {
		t = openapi_resolve(o->root, file, ref, &to);
		if (t == NULL || o->nstack == OPENAPI_STACK || openapi_on_stack(o, t))
			return NULL;
		o->stack[o->nstack++] = t;
		r = openapi_sample(o, t, to, depth);
		o->nstack--;
		return r;
	}
	if ((v = openapi_get(s, "example")) != NULL || (v = openapi_get(s, "default")) != NULL ||
	    (v = openapi_get(s, "const")) != NULL)
		return json_object_get(v);
	if ((json_object_is_type(v = openapi_get(s, "enum"), json_type_array) ||
	    json_object_is_type(v = openapi_get(s, "examples"), json_type_array)) &&
	    json_object_array_length(v) > 0)
		return json_object_get(json_object_array_get_idx(v, 0));
	if (json_object_is_type(v = openapi_get(s, "oneOf"), json_type_array) ||
	    json_object_is_type(v = openapi_get(s, "anyOf"), json_type_array))
		return openapi_sample(o, json_object_array_get_idx(v, 0), file, depth);
	type = openapi_type(s, &nullable);
	if (openapi_is_object(s) || openapi_get(s, "allOf") != NULL)
		return openapi_sample_object(o, s, file, depth);
	if ((type != NULL && strcmp(type, "array") == 0) || openapi_get(s, "items") != NULL) {
		if ((r = json_object_new_array()) == NULL)
			return NULL;
		if (depth < o->sdepth && (v = openapi_sample(o, openapi_get(s,
		    "items"), file, depth + 1)) != NULL)
			json_object_array_add(r, v);
		return r;
	}
	return openapi_sample_scalar(type, openapi_str(s, "format"));
}

/* The media type object of a content map: JSON preferred, else the first; *name set. */
static json_object *
openapi_media(json_object *content, const char **name)
{
	json_object	*first = NULL;

	*name = NULL;
	if (!json_object_is_type(content, json_type_object))
		return NULL;
	json_object_object_foreach(content, k, v) {
		if (strstr(k, "json") != NULL) {
			*name = k;
			return v;
		}
		if (first == NULL) {
			first = v;
			*name = k;
		}
	}
	return first;
}

/* Appends s to b with every ' written as '\'' (inside a single-quoted shell word). */
static void
openapi_shq(struct openapi *o, struct buf *b, const char *s)
{
	const char	*q;

	while ((q = strchr(s, '\'')) != NULL) {
		openapi_addn(o, b, s, (size_t)(q - s));
		openapi_add(o, b, "'\\''");
		s = q + 1;
	}
	openapi_add(o, b, s);
}

/* A path with its {params} written <param>. */
static void
openapi_path_placeholders(struct openapi *o, struct buf *b, const char *path)
{
	const char	*s, *e;

	for (s = path; *s != '\0'; s = e) {
		if (*s == '{' && (e = strchr(s, '}')) != NULL) {
			openapi_add(o, b, "<");
			openapi_addn(o, b, s + 1, (size_t)(e - s - 1));
			openapi_add(o, b, ">");
			e++;
			continue;
		}
		e = s + 1;
		openapi_addn(o, b, s, 1);
	}
}

/* ---------------------------------------------------------------- one operation */

/*
 * The parameters of an operation: its own, then those of its path item it does not
 * override (same name and in), after $refs; at most OPENAPI_MAX_PARAMS.
 */
static size_t
openapi_params(struct openapi *o, const struct openapi_op *op, struct openapi_param *out)
{
	json_object	*lists[2], *p;
	const char	*file, *name, *in;
	size_t		 n = 0, l, i, j, len;
	int		 dup;

	lists[0] = openapi_get(op->op, "parameters");
	lists[1] = openapi_get(op->item, "parameters");
	for (l = 0; l < 2; l++) {
		if (!json_object_is_type(lists[l], json_type_array))
			continue;
		len = json_object_array_length(lists[l]);
		for (i = 0; i < len && n < OPENAPI_MAX_PARAMS; i++) {
			file = l == 0 ? op->file : op->ifile;
			p = openapi_deref(o, json_object_array_get_idx(lists[l], i), &file);
			if ((name = openapi_str(p, "name")) == NULL ||
			    (in = openapi_str(p, "in")) == NULL)
				continue;
			for (dup = 0, j = 0; l == 1 && j < n && !dup; j++)
				dup = strcmp(openapi_str(out[j].p, "name"), name) == 0 &&
				    strcmp(openapi_str(out[j].p, "in"), in) == 0;
			if (dup)
				continue;
			out[n].p = p;
			out[n].file = file;
			n++;
		}
	}
	return n;
}

/* The parameters list: "- `name` (in, required): type — description". */
static void
openapi_write_params(struct openapi *o, struct buf *b, const struct openapi_param *ps,
    size_t n)
{
	json_object	*req, *sch;
	const char	*in, *d;
	size_t		 i, shown = 0;

	for (i = 0; i < n; i++) {
		in = openapi_str(ps[i].p, "in");
		if (strcmp(in, "body") == 0)
			continue;
		openapi_add(o, b, shown++ == 0 ? "\n\nParameters:\n" : "\n");
		openapi_add(o, b, "- `");
		openapi_add(o, b, openapi_str(ps[i].p, "name"));
		openapi_add(o, b, "` (");
		openapi_add(o, b, in);
		req = openapi_get(ps[i].p, "required");
		if (json_object_is_type(req, json_type_boolean) && json_object_get_boolean(req))
			openapi_add(o, b, ", required");
		openapi_add(o, b, "): ");
		sch = openapi_get(ps[i].p, "schema");
		openapi_schema_text(o, b, sch != NULL ? sch : ps[i].p, ps[i].file,
		    OPENAPI_SCHEMA_DEPTH, OPENAPI_SCHEMA_BYTES);
		if ((d = openapi_text(ps[i].p, "description")) != NULL) {
			openapi_add(o, b, " — ");
			openapi_add_text(o, b, d, 1);
		}
	}
}

/*
 * The request body's schema (3.x requestBody, 2.0 body parameter): written as
 * "Request body (media type, required): schema"; schema, sfile and media set for curl.
 */
static void
openapi_write_body(struct openapi *o, struct buf *b, const struct openapi_op *op,
    const struct openapi_param *ps, size_t n, json_object **schema, const char **sfile,
    const char **media)
{
	json_object	*rb = NULL, *m, *req, *cons;
	const char	*file = op->file, *d;
	size_t		 i;

	*schema = NULL;
	*media = NULL;
	if (o->version == 3) {
		rb = openapi_deref(o, openapi_get(op->op, "requestBody"), &file);
		if ((m = openapi_media(openapi_get(rb, "content"), media)) != NULL)
			*schema = openapi_get(m, "schema");
	} else {
		for (i = 0; i < n && rb == NULL; i++)
			if (strcmp(openapi_str(ps[i].p, "in"), "body") == 0) {
				rb = ps[i].p;
				file = ps[i].file;
			}
		*schema = openapi_get(rb, "schema");
		cons = openapi_get(op->op, "consumes");
		if (cons == NULL)
			cons = openapi_get(o->root, "consumes");
		if (rb != NULL && json_object_is_type(cons, json_type_array) &&
		    json_object_array_length(cons) > 0)
			*media = json_object_get_string(json_object_array_get_idx(cons, 0));
		if (rb != NULL && *media == NULL)
			*media = "application/json";
	}
	if (rb == NULL)
		return;
	*sfile = file;
	openapi_add(o, b, "\n\nRequest body (");
	openapi_add(o, b, *media != NULL ? *media : "no content");
	req = openapi_get(rb, "required");
	if (json_object_is_type(req, json_type_boolean) && json_object_get_boolean(req))
		openapi_add(o, b, ", required");
	openapi_add(o, b, "): ");
	if (*schema != NULL)
		openapi_schema_text(o, b, *schema, file, OPENAPI_BODY_DEPTH,
		    OPENAPI_BODY_BYTES);
	if ((d = openapi_text(rb, "description")) != NULL) {
		openapi_add(o, b, *schema != NULL ? " — " : "");
		openapi_add_text(o, b, d, 1);
	}
}

/* The responses: "- `200`: description — schema". */
/*
 * The links of a response (3.x): "; links: `name` → `operationId` (param: `expression`)",
 * at most OPENAPI_MAX_LINKS of them, each with at most as many parameters.
 */
static void
openapi_write_links(struct openapi *o, struct buf *b, json_object *links, const char *file)
{
	json_object	*l, *ps;
	const char	*lfile, *target, *d;
	size_t		 n = 0, k;

	if (!json_object_is_type(links, json_type_object))
		return;
	json_object_object_foreach(links, name, v) {
		lfile = file;
		if (n == OPENAPI_MAX_LINKS || (l = openapi_deref(o, v, &lfile)) == NULL ||
		    !json_object_is_type(l, json_type_object))
			break;
		openapi_add(o, b, n++ == 0 ? "; links: `" : ", `");
		openapi_add(o, b, name);
		openapi_add(o, b, "`");
		if ((target = openapi_text(l, "operationId")) != NULL ||
		    (target = openapi_text(l, "operationRef")) != NULL) {
			openapi_add(o, b, " → `");
			openapi_add_text(o, b, target, 1);
			openapi_add(o, b, "`");
		}
		ps = openapi_get(l, "parameters");
		k = 0;
		if (json_object_is_type(ps, json_type_object)) {
			json_object_object_foreach(ps, pname, pv) {
				if (k == OPENAPI_MAX_LINKS || !json_object_is_type(pv,
				    json_type_string))
					continue;
				openapi_add(o, b, k++ == 0 ? " (" : ", ");
				openapi_add_text(o, b, pname, 1);
				openapi_add(o, b, ": `");
				openapi_add_text(o, b, json_object_get_string(pv), 1);
				openapi_add(o, b, "`");
			}
			if (k > 0)
				openapi_add(o, b, ")");
		}
		if ((d = openapi_text(l, "description")) != NULL) {
			openapi_add(o, b, ": ");
			openapi_add_text(o, b, d, 1);
		}
	}
}

static void
openapi_write_responses(struct openapi *o, struct buf *b, const struct openapi_op *op)
{
	json_object	*rs = openapi_get(op->op, "responses"), *r, *sch, *m;
	const char	*file, *d, *media;
	size_t		 n = 0;
	int		 ok;

	if (!json_object_is_type(rs, json_type_object))
		return;
	json_object_object_foreach(rs, code, v) {
		if (n == OPENAPI_MAX_RESPONSES) {
			openapi_add(o, b, "\n- …");
			break;
		}
		openapi_add(o, b, n++ == 0 ? "\n\nResponses:\n- `" : "\n- `");
		openapi_add(o, b, code);
		openapi_add(o, b, "`");
		file = op->file;
		if ((r = openapi_deref(o, v, &file)) == NULL)
			continue;
		if ((d = openapi_text(r, "description")) != NULL) {
			openapi_add(o, b, ": ");
			openapi_add_text(o, b, d, 1);
		}
		sch = openapi_get(r, "schema");
		if (o->version == 3 && (m = openapi_media(openapi_get(r, "content"),
		    &media)) != NULL)
			sch = openapi_get(m, "schema");
		if (sch != NULL) {
			ok = code[0] == '1' || code[0] == '2' || code[0] == '3';
			openapi_add(o, b, " — ");
			openapi_schema_text(o, b, sch, file, ok ? OPENAPI_OK_DEPTH :
			    OPENAPI_ERR_DEPTH, ok ? OPENAPI_OK_BYTES : OPENAPI_ERR_BYTES);
		}
		if (o->version == 3)
			openapi_write_links(o, b, openapi_get(r, "links"), file);
	}
}

/*
 * How the first security requirement (the operation's, else the spec's) authenticates
 * a curl request: a header line into hdr, or a query pair into query; nothing for none.
 */
static void
openapi_auth(struct openapi *o, const struct openapi_op *op, struct buf *hdr,
    struct buf *query)
{
	json_object	*sec = openapi_get(op->op, "security"), *req, *schemes, *s;
	const char	*type, *in, *name, *scheme, *file = "";

	if (sec == NULL)
		sec = openapi_get(o->root, "security");
	if (!json_object_is_type(sec, json_type_array) || json_object_array_length(sec) == 0 ||
	    !json_object_is_type(req = json_object_array_get_idx(sec, 0), json_type_object))
		return;
	schemes = o->version == 3 ? openapi_get(openapi_get(o->root, "components"),
	    "securitySchemes") : openapi_get(o->root, "securityDefinitions");
	json_object_object_foreach(req, k, v) {
		(void)v;
		if ((s = openapi_deref(o, openapi_get(schemes, k), &file)) == NULL ||
		    (type = openapi_str(s, "type")) == NULL)
			return;
		name = openapi_str(s, "name");
		in = openapi_str(s, "in");
		scheme = openapi_str(s, "scheme");
		if (strcmp(type, "apiKey") == 0 && name != NULL && in != NULL &&
		    strcmp(in, "query") == 0)
			openapi_add2(o, query, name, "=$API_KEY");
		else if (strcmp(type, "apiKey") == 0 && name != NULL && in != NULL &&
		    strcmp(in, "header") == 0)
			openapi_add2(o, hdr, name, ": $API_KEY");
		else if (strcmp(type, "basic") == 0 || (scheme != NULL &&
		    strcasecmp(scheme, "basic") == 0))
			openapi_add(o, hdr, "Authorization: Basic $CREDENTIALS");
		else if (strcmp(type, "apiKey") != 0)
			openapi_add(o, hdr, "Authorization: Bearer $TOKEN");
		return;
	}
}

/*
 * A form body of the curl example: one --data-urlencode per required field of the
 * sample (of schema s), or per field when none is required, at most OPENAPI_MAX_FORM.
 */
static void
openapi_write_form(struct openapi *o, struct buf *c, json_object *sample, json_object *s)
{
	json_object	*req = openapi_get(s, "required");
	size_t		 n = 0;
	int		 some = 0;

	json_object_object_foreach(sample, k0, v0) {
		(void)v0;
		some |= openapi_in_list(req, k0);
	}
	json_object_object_foreach(sample, k, v) {
		if (some && !openapi_in_list(req, k))
			continue;
		if (n++ == OPENAPI_MAX_FORM)
			break;
		openapi_add(o, c, " \\\n  --data-urlencode '");
		openapi_shq(o, c, k);
		openapi_add(o, c, "=");
		openapi_shq(o, c, json_object_is_type(v, json_type_string) ?
		    json_object_get_string(v) : json_object_to_json_string_ext(v,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		openapi_add(o, c, "'");
	}
}

/* The curl example: method, URL with placeholders and required query, body. */
static void
openapi_write_curl(struct openapi *o, struct buf *c, const struct openapi_op *op,
    const struct openapi_param *ps, size_t n, json_object *schema, const char *sfile,
    const char *media)
{
	struct buf	 hdr, query;
	json_object	*sample, *req;
	const char	*in, *name;
	size_t		 i, budget;

	buf_init(&hdr);
	buf_init(&query);
	openapi_add(o, c, "curl -X ");
	openapi_add_upper(o, c, op->method);
	openapi_add(o, c, " '");
	openapi_shq(o, c, o->server.p != NULL ? o->server.p : "");
	openapi_path_placeholders(o, c, op->path);
	openapi_auth(o, op, &hdr, &query);
	for (i = 0; i < n; i++) {
		in = openapi_str(ps[i].p, "in");
		name = openapi_str(ps[i].p, "name");
		req = openapi_get(ps[i].p, "required");
		if (strcmp(in, "query") != 0 || !json_object_is_type(req, json_type_boolean) ||
		    !json_object_get_boolean(req))
			continue;
		openapi_add(o, &query, query.len > 0 ? "&" : "");
		openapi_add(o, &query, name);
		openapi_add(o, &query, "=<");
		openapi_add(o, &query, name);
		openapi_add(o, &query, ">");
	}
	if (query.len > 0) {
		openapi_add(o, c, "?");
		openapi_shq(o, c, query.p);
	}
	openapi_add(o, c, "'");
	if (hdr.len > 0) {
		openapi_add(o, c, " \\\n  -H '");
		openapi_shq(o, c, hdr.p);
		openapi_add(o, c, "'");
	}
	if (media != NULL) {
		openapi_add(o, c, " \\\n  -H 'Content-Type: ");
		openapi_shq(o, c, media);
		openapi_add(o, c, "'");
	}
	/* the example's body as deep as OPENAPI_SAMPLE_BYTES allows, one level at least */
	sample = NULL;
	budget = o->budget;
	for (o->sdepth = OPENAPI_SAMPLE_DEPTH; schema != NULL && o->sdepth > 0; o->sdepth--) {
		json_object_put(sample);
		o->nstack = 0;
		o->budget = budget;	/* each try within the same bound */
		if ((sample = openapi_sample(o, schema, sfile, 0)) == NULL ||
		    strlen(json_object_to_json_string_ext(sample, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE)) <= OPENAPI_SAMPLE_BYTES)
			break;
	}
	if (sample != NULL) {
		if (media != NULL && (strstr(media, "form") != NULL) &&
		    json_object_is_type(sample, json_type_object))
			openapi_write_form(o, c, sample, openapi_deref(o, schema, &sfile));
		else {
			openapi_add(o, c, " \\\n  -d '");
			openapi_shq(o, c, json_object_to_json_string_ext(sample,
			    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
			openapi_add(o, c, "'");
		}
		json_object_put(sample);
	}
	buf_release(&hdr);
	buf_release(&query);
}

/*
 * Appends s to an anchor: letters, digits, '_' and '.' kept, each run of others one '-'
 * (none at the end); a '-' separates it from what b holds already.
 */
static void
openapi_anchor(struct openapi *o, struct buf *b, const char *s)
{
	int	 dash = 1;

	for (; *s != '\0'; s++) {
		if (isalnum((unsigned char)*s) || *s == '_' || *s == '.') {
			if (dash && b->len > 0)
				openapi_add(o, b, "-");
			dash = 0;
			openapi_addn(o, b, s, 1);
		} else
			dash = 1;
	}
}

/* Appends an operation's anchor: its operationId, else "method-path". */
static void
openapi_op_anchor(struct openapi *o, struct buf *a, const struct openapi_op *op)
{
	const char	*id = openapi_text(op->op, "operationId");

	if (id != NULL)
		openapi_anchor(o, a, id);
	else {
		openapi_anchor(o, a, op->method);
		openapi_anchor(o, a, op->path);
	}
}

/* The heading of an operation: title "METHOD path — summary", its anchor. */
static int
openapi_op_heading(struct openapi *o, const struct openapi_op *op, int level)
{
	struct buf	 t, a;
	const char	*sum, *id = openapi_text(op->op, "operationId");
	int		 rc = -1;

	buf_init(&t);
	buf_init(&a);
	if ((sum = openapi_text(op->op, "summary")) == NULL && (sum = id) == NULL)
		sum = openapi_text(op->item, "summary");
	openapi_add_upper(o, &t, op->method);
	openapi_add(o, &t, " ");
	openapi_add(o, &t, op->path);
	openapi_add(o, &t, op->webhook ? " (webhook)" : "");
	if (op->callback != NULL) {
		openapi_add(o, &t, " (callback ");
		openapi_add_text(o, &t, op->callback, 1);
		openapi_add(o, &t, " of ");
		openapi_add_upper(o, &t, op->of->method);
		openapi_add(o, &t, " ");
		openapi_add(o, &t, op->of->path);
		openapi_add(o, &t, ")");
	}
	if (sum != NULL) {
		openapi_add(o, &t, " — ");
		openapi_add_text(o, &t, sum, 1);
	}
	if (op->webhook)
		openapi_add(o, &a, "webhook");
	if (op->callback != NULL) {
		/* callback-<its operation>-<name>-<method>: unique in the document */
		openapi_add(o, &a, "callback");
		openapi_op_anchor(o, &a, op->of);
		openapi_anchor(o, &a, op->callback);
		openapi_anchor(o, &a, op->method);
	} else
		openapi_op_anchor(o, &a, op);
	if (!o->nomem && a.len > 0)
		rc = doc_build_heading_anchor(o->b, level, t.p, a.p);
	buf_release(&t);
	buf_release(&a);
	return rc;
}

static int openapi_callbacks(struct openapi *, const struct openapi_op *, int);

/* The "Keywords:" line of an operation (openapi_words): what a task-worded question says. */
static void
openapi_keywords(struct openapi *o, struct buf *b, const struct openapi_op *op,
    const struct openapi_param *ps, size_t n)
{
	const char	*tags[10], *params[OPENAPI_MAX_PARAMS];
	json_object	*ta = openapi_get(op->op, "tags"), *t;
	size_t		 ntags = 0, i, len;

	len = json_object_is_type(ta, json_type_array) ? json_object_array_length(ta) : 0;
	for (i = 0; i < len && ntags < 10; i++)
		if (json_object_is_type(t = json_object_array_get_idx(ta, i),
		    json_type_string))
			tags[ntags++] = json_object_get_string(t);
	for (i = 0; i < n; i++)
		params[i] = openapi_str(ps[i].p, "name");
	openapi_add(o, b, "\n\nKeywords: ");
	if (openapi_words(b, op->method, op->webhook ? NULL : op->path,
	    openapi_text(op->op, "operationId"), tags, ntags, params, n) == -1)
		o->nomem = 1;
	openapi_add(o, b, ".");
}

/* One operation's section, then its callbacks' (3.x). */
static int
openapi_operation(struct openapi *o, const struct openapi_op *op, int level)
{
	struct openapi_param ps[OPENAPI_MAX_PARAMS];
	struct buf	 b, c;
	json_object	*schema, *dep, *tags, *t;
	const char	*d, *sfile = op->file, *media, *id;
	size_t		 n, i, k;
	int		 rc = -1;

	buf_init(&b);
	buf_init(&c);
	if (openapi_op_heading(o, op, level) == -1)
		goto out;
	o->budget = OPENAPI_OP_NODES;
	if ((d = openapi_text(op->op, "description")) != NULL ||
	    (d = openapi_text(op->item, "description")) != NULL)
		openapi_add_text(o, &b, d, 0);
	if ((id = openapi_text(op->op, "operationId")) != NULL) {
		openapi_add(o, &b, "\n\nOperation ID: `");
		openapi_add(o, &b, id);
		openapi_add(o, &b, "`.");
	}
	tags = openapi_get(op->op, "tags");
	n = json_object_is_type(tags, json_type_array) ? json_object_array_length(tags) : 0;
	for (i = k = 0; i < n && k < 10; i++) {
		t = json_object_array_get_idx(tags, i);
		if (!json_object_is_type(t, json_type_string))
			continue;
		openapi_add(o, &b, k++ == 0 ? (id != NULL ? " Tags: " : "\n\nTags: ") :
		    ", ");
		openapi_add_text(o, &b, json_object_get_string(t), 1);
	}
	dep = openapi_get(op->op, "deprecated");
	if (json_object_is_type(dep, json_type_boolean) && json_object_get_boolean(dep))
		openapi_add(o, &b, "\n\nDeprecated.");
	n = openapi_params(o, op, ps);
	if (op->callback == NULL)
		openapi_keywords(o, &b, op, ps, n);
	openapi_write_params(o, &b, ps, n);
	openapi_write_body(o, &b, op, ps, n, &schema, &sfile, &media);
	if (!op->webhook)
		openapi_write_responses(o, &b, op);
	else
		media = NULL;
	/* A webhook and a callback are requests the API makes: no curl line for them. */
	if (!op->webhook && op->callback == NULL)
		openapi_write_curl(o, &c, op, ps, n, schema, sfile, media);
	if (o->nomem)
		goto out;
	if (doc_build_text(o->b, b.p != NULL ? b.p : "", b.len, DOCB_PARA) == -1 ||
	    (c.len > 0 && doc_build_code(o->b, "bash", c.p, c.len) == -1))
		goto out;
	if (o->version == 3 && op->callback == NULL && openapi_callbacks(o, op, level + 1) == -1)
		goto out;
	rc = 0;
out:
	buf_release(&b);
	buf_release(&c);
	return rc;
}

/*
 * The callbacks of operation op (3.x): each request it makes to a URL the client gave (name
 * -> expression -> path item), a section under op's like an operation's, without curl; at
 * most OPENAPI_MAX_CALLBACKS of them, OPENAPI_MAX_DOC_CALLBACKS in the document.
 */
static int
openapi_callbacks(struct openapi *o, const struct openapi_op *op, int level)
{
	json_object	*cbs = openapi_get(op->op, "callbacks"), *cb, *item, *v;
	struct openapi_op c;
	const char	*file, *ifile;
	size_t		 n = 0, i;

	if (!json_object_is_type(cbs, json_type_object))
		return 0;
	json_object_object_foreach(cbs, name, cbv) {
		file = op->file;
		if ((cb = openapi_deref(o, cbv, &file)) == NULL ||
		    !json_object_is_type(cb, json_type_object))
			continue;
		json_object_object_foreach(cb, expr, itemv) {
			ifile = file;
			if ((item = openapi_deref(o, itemv, &ifile)) == NULL ||
			    !json_object_is_type(item, json_type_object))
				continue;
			for (i = 0; openapi_methods[i] != NULL; i++) {
				if (!json_object_is_type(v = openapi_get(item,
				    openapi_methods[i]), json_type_object))
					continue;
				if (n++ == OPENAPI_MAX_CALLBACKS ||
				    o->ncallbacks++ == OPENAPI_MAX_DOC_CALLBACKS)
					return 0;
				memset(&c, 0, sizeof(c));
				c.method = openapi_methods[i];
				c.path = expr;
				c.item = item;
				c.op = v;
				c.file = c.ifile = ifile;
				c.tag = -1;
				c.callback = name;
				c.of = op;
				if (openapi_operation(o, &c, level) == -1)
					return -1;
			}
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- the document */

/*
 * A server URL without scheme and host ("/api/v3", 2.0 without host: "$BASE_URL/v1")
 * resolved on the URL the spec came from (OPENAPI_URL_KEY), when the back end set it.
 */
static void
openapi_server_absolute(struct openapi *o)
{
	const char	*spec = openapi_str(o->root, OPENAPI_URL_KEY), *rel;
	CURLU		*u;
	char		*s = NULL;

	if (spec == NULL || o->server.p == NULL || strstr(o->server.p, "://") != NULL)
		return;
	rel = strncmp(o->server.p, "$BASE_URL", 9) == 0 ? o->server.p + 9 : o->server.p;
	if ((u = curl_url()) == NULL)
		return;
	if (curl_url_set(u, CURLUPART_URL, spec, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_URL, *rel != '\0' ? rel : "/", 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_QUERY, NULL, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK) {
		buf_reset(&o->server);
		openapi_add(o, &o->server, s);
	}
	curl_free(s);
	curl_url_cleanup(u);
}

/* The base URL of the examples: the first server (3.x, variables filled) or 2.0's. */
static void
openapi_server(struct openapi *o)
{
	json_object	*servers = openapi_get(o->root, "servers"), *s, *vars, *sch;
	const char	*url, *e, *def;
	char		 name[128];

	buf_reset(&o->server);
	if (o->version == 2) {
		sch = openapi_get(o->root, "schemes");
		url = openapi_text(o->root, "host");
		if (url != NULL) {
			sch = json_object_is_type(sch, json_type_array) &&
			    json_object_array_length(sch) > 0 ?
			    json_object_array_get_idx(sch, 0) : NULL;
			openapi_add(o, &o->server, json_object_is_type(sch, json_type_string) ?
			    json_object_get_string(sch) : "https");
			openapi_add(o, &o->server, "://");
			openapi_add(o, &o->server, url);
		} else
			openapi_add(o, &o->server, "$BASE_URL");
		if ((url = openapi_str(o->root, "basePath")) != NULL)
			openapi_add(o, &o->server, url);
	} else if (json_object_is_type(servers, json_type_array) &&
	    json_object_array_length(servers) > 0 &&
	    (url = openapi_text(s = json_object_array_get_idx(servers, 0), "url")) != NULL) {
		vars = openapi_get(s, "variables");
		for (; *url != '\0'; url++) {
			if (*url == '{' && (e = strchr(url, '}')) != NULL &&
			    e - url < (long)sizeof(name)) {
				snprintf(name, sizeof(name), "%.*s", (int)(e - url - 1), url + 1);
				def = openapi_str(openapi_get(vars, name), "default");
				openapi_add(o, &o->server, def != NULL ? def : name);
				url = e;
			} else
				openapi_addn(o, &o->server, url, 1);
		}
	} else
		openapi_add(o, &o->server, "$BASE_URL");
	openapi_server_absolute(o);
	while (o->server.len > 0 && o->server.p[o->server.len - 1] == '/')
		o->server.p[--o->server.len] = '\0';
}

/* The overview's list of security schemes: "- name: type (details)". */
static void
openapi_write_schemes(struct openapi *o, struct buf *b)
{
	json_object	*schemes, *s, *flows;
	const char	*file, *x;
	size_t		 n = 0;

	schemes = o->version == 3 ? openapi_get(openapi_get(o->root, "components"),
	    "securitySchemes") : openapi_get(o->root, "securityDefinitions");
	if (!json_object_is_type(schemes, json_type_object))
		return;
	json_object_object_foreach(schemes, k, v) {
		file = "";
		if (n++ == OPENAPI_MAX_LIST || (s = openapi_deref(o, v, &file)) == NULL)
			break;
		openapi_add(o, b, n == 1 ? "\n\nAuthentication:\n- " : "\n- ");
		openapi_add(o, b, k);
		openapi_add(o, b, ": ");
		openapi_add(o, b, (x = openapi_str(s, "type")) != NULL ? x : "?");
		if ((x = openapi_str(s, "scheme")) != NULL)
			openapi_add2(o, b, " ", x);
		if ((x = openapi_str(s, "in")) != NULL)
			openapi_add2(o, b, " in ", x);
		if ((x = openapi_str(s, "name")) != NULL)
			openapi_add2(o, b, " ", x);
		if ((flows = openapi_get(s, "flows")) != NULL &&
		    json_object_is_type(flows, json_type_object)) {
			json_object_object_foreach(flows, fk, fv) {
				(void)fv;
				openapi_add(o, b, " ");
				openapi_add(o, b, fk);
			}
		} else if ((x = openapi_str(s, "flow")) != NULL)
			openapi_add2(o, b, " ", x);
		if ((x = openapi_text(s, "description")) != NULL)
			openapi_add2_text(o, b, " — ", x, 1);
	}
}

/*
 * A list of the overview: "- name — description" for each element of key's array; with
 * described, only the elements that have a description.
 */
static void
openapi_write_list(struct openapi *o, struct buf *b, const char *key, const char *nk,
    const char *head, int described)
{
	json_object	*a = openapi_get(o->root, key), *e;
	const char	*x, *d;
	size_t		 i, n, k = 0;

	if (!json_object_is_type(a, json_type_array))
		return;
	n = json_object_array_length(a);
	for (i = 0; i < n && i < OPENAPI_MAX_LIST; i++) {
		e = json_object_array_get_idx(a, i);
		if ((x = openapi_text(e, nk)) == NULL)
			continue;
		if ((d = openapi_text(e, "description")) == NULL && described)
			continue;
		openapi_add(o, b, k++ == 0 ? head : "\n- ");
		openapi_add_text(o, b, x, 1);
		if (d != NULL)
			openapi_add2_text(o, b, " — ", d, 1);
	}
}

/* The overview section: title, version, description, servers, security, tags. */
static int
openapi_overview(struct openapi *o, const char *title)
{
	json_object	*info = openapi_get(o->root, "info");
	struct buf	 b, t;
	const char	*x, *ver;
	int		 rc = -1;

	buf_init(&b);
	buf_init(&t);
	openapi_add(o, &t, title);
	openapi_add(o, &t, " — API overview");
	openapi_add_text(o, &b, title, 1);
	if ((x = openapi_text(info, "version")) != NULL)
		openapi_add2_text(o, &b, ", version ", x, 1);
	ver = json_object_get_string(openapi_get(o->root, o->version == 3 ? "openapi" :
	    "swagger"));
	openapi_add(o, &b, o->version == 3 ? " (OpenAPI " : " (Swagger ");
	openapi_add_text(o, &b, ver != NULL ? ver : "", 1);
	if (buf_printf(&b, "): %zu operations, %zu webhooks.", o->nops - o->nwebhooks,
	    o->nwebhooks) == -1)
		o->nomem = 1;
	if (o->dropped > 0 && buf_printf(&b, " %zu more operations are left out (more "
	    "than %d).", o->dropped, OPENAPI_MAX_OPS) == -1)
		o->nomem = 1;
	if ((x = openapi_text(info, "description")) != NULL)
		openapi_add2_text(o, &b, "\n\n", x, 0);
	if (o->version == 3)
		openapi_write_list(o, &b, "servers", "url", "\n\nServers:\n- ", 0);
	else if (o->server.len > 0)
		openapi_add2(o, &b, "\n\nBase URL: ", o->server.p);
	openapi_write_schemes(o, &b);
	/*
	 * Only the tags that say something: a bare name is its operations' heading trail
	 * already, and a list of them (Twilio's 88 tags) made the overview the answer to any
	 * question naming a resource (bench/README.md, "API answers hold five").
	 */
	openapi_write_list(o, &b, "tags", "name", "\n\nTags:\n- ", 1);
	if (!o->nomem && doc_build_heading_anchor(o->b, 1, t.p, "overview") == 0 &&
	    doc_build_text(o->b, b.p, b.len, DOCB_PARA) == 0)
		rc = 0;
	buf_release(&b);
	buf_release(&t);
	return rc;
}

/* The order of a tag: its place in the spec's tags, else after them as first seen. */
static long
openapi_tag_order(struct openapi *o, const char *tag)
{
	json_object	*v;

	if (json_object_object_get_ex(o->tags, tag, &v))
		return (long)json_object_get_int64(v);
	json_object_object_add(o->tags, tag, json_object_new_int64(o->ntags));
	return o->ntags++;
}

/* Adds the operations of a path item (webhook: of a webhook) to o->ops. */
static int
openapi_collect_item(struct openapi *o, const char *path, json_object *item, int webhook)
{
	struct openapi_op *op, *nops;
	json_object	*v, *tags;
	const char	*file = "", *ofile;
	size_t		 i, cap;

	if ((item = openapi_deref(o, item, &file)) == NULL ||
	    !json_object_is_type(item, json_type_object))
		return 0;
	for (i = 0; openapi_methods[i] != NULL; i++) {
		/* an operation may be a $ref of its own, as in the large multi-file specs */
		ofile = file;
		if ((v = openapi_get(item, openapi_methods[i])) == NULL ||
		    (v = openapi_deref(o, v, &ofile)) == NULL ||
		    !json_object_is_type(v, json_type_object))
			continue;
		if (o->nops == OPENAPI_MAX_OPS) {
			o->dropped++;
			continue;
		}
		if (o->nops == o->capops) {
			cap = o->capops ? o->capops * 2 : 64;
			if ((nops = reallocarray(o->ops, cap, sizeof(*nops))) == NULL)
				return -1;
			o->ops = nops;
			o->capops = cap;
		}
		op = &o->ops[o->nops];
		memset(op, 0, sizeof(*op));
		op->method = openapi_methods[i];
		op->path = path;
		op->item = item;
		op->op = v;
		op->file = ofile;
		op->ifile = file;
		op->seq = o->nops++;
		op->webhook = webhook;
		op->tag = -1;
		tags = openapi_get(v, "tags");
		if (!webhook && json_object_is_type(tags, json_type_array) &&
		    json_object_array_length(tags) > 0 && json_object_is_type(
		    v = json_object_array_get_idx(tags, 0), json_type_string)) {
			op->tagname = json_object_get_string(v);
			op->tag = openapi_tag_order(o, op->tagname);
		}
		o->nwebhooks += webhook;
	}
	return 0;
}

/* Orders operations: untagged, then by tag, then webhooks; else as in the spec. */
static int
openapi_op_cmp(const void *a, const void *b)
{
	const struct openapi_op *x = a, *y = b;

	if (x->webhook != y->webhook)
		return x->webhook - y->webhook;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Every operation and webhook into o->ops, in the order of their sections. */
static int
openapi_collect(struct openapi *o)
{
	json_object	*tags = openapi_get(o->root, "tags"), *paths, *hooks;
	size_t		 i, n;

	n = json_object_is_type(tags, json_type_array) ? json_object_array_length(tags) : 0;
	for (i = 0; i < n; i++)
		openapi_tag_order(o, openapi_str(json_object_array_get_idx(tags, i),
		    "name") != NULL ? openapi_str(json_object_array_get_idx(tags, i),
		    "name") : "");
	if (json_object_is_type(paths = openapi_get(o->root, "paths"), json_type_object)) {
		json_object_object_foreach(paths, k, v)
			if (openapi_collect_item(o, k, v, 0) == -1)
				return -1;
	}
	if (json_object_is_type(hooks = openapi_get(o->root, "webhooks"), json_type_object)) {
		json_object_object_foreach(hooks, k, v)
			if (openapi_collect_item(o, k, v, 1) == -1)
				return -1;
	}
	if (o->nops > 0)
		qsort(o->ops, o->nops, sizeof(*o->ops), openapi_op_cmp);
	return 0;
}

/* The level-1 section of a tag (its description), or of the webhooks. */
static int
openapi_group(struct openapi *o, const struct openapi_op *op)
{
	json_object	*tags = openapi_get(o->root, "tags"), *t;
	struct buf	 a;
	const char	*d = NULL;
	int		 rc;

	if (op->webhook)
		return doc_build_heading_anchor(o->b, 1, "Webhooks", "webhooks");
	if (op->tag < (long)(json_object_is_type(tags, json_type_array) ?
	    json_object_array_length(tags) : 0)) {
		t = json_object_array_get_idx(tags, (size_t)op->tag);
		d = openapi_text(t, "description");
	}
	buf_init(&a);
	openapi_add(o, &a, "tag");
	openapi_anchor(o, &a, op->tagname);
	rc = o->nomem ? -1 : doc_build_heading_anchor(o->b, 1, op->tagname, a.p);
	buf_release(&a);
	if (rc == 0 && d != NULL)
		rc = doc_build_text(o->b, d, strlen(d) < OPENAPI_TEXT_BYTES ? strlen(d) :
		    OPENAPI_TEXT_BYTES, DOCB_PARA);
	return rc;
}

/* The sections of every operation, each tag's or the webhooks' group opened first. */
static int
openapi_sections(struct openapi *o)
{
	const struct openapi_op *op, *prev = NULL;
	size_t		 i;

	for (i = 0; i < o->nops; i++) {
		op = &o->ops[i];
		if (doc_build_poll(o->b) == -1)
			return -1;
		if ((op->tag >= 0 || op->webhook) && (prev == NULL ||
		    prev->tag != op->tag || prev->webhook != op->webhook) &&
		    openapi_group(o, op) == -1)
			return -1;
		if (openapi_operation(o, op, op->tag >= 0 || op->webhook ? 2 : 1) == -1)
			return -1;
		prev = op;
	}
	return 0;
}

/*
 * 1 when data needs none of doc_clean_input's repairs (no BOM, CR or NUL, valid UTF-8):
 * the spec the back end wrote as compact JSON, parsed without a copy of its megabytes.
 */
static int
openapi_input_clean(const char *data, size_t len)
{
	const unsigned char	*p = (const unsigned char *)data;
	size_t			 i, n;

	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		return 0;
	for (i = 0; i < len; i += n) {
		if (p[i] < 0x80) {
			if (p[i] == '\r' || p[i] == '\0')
				return 0;
			n = 1;
		} else if ((n = util_utf8_len(p + i, len - i)) == 0)
			return 0;
	}
	return 1;
}

int
openapi_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	struct openapi	 o;
	struct docb	 b;
	char		*src = NULL, err[256];
	const char	*title;
	size_t		 srclen;
	int		 rc = -1, binit = 0;

	memset(&o, 0, sizeof(o));
	memset(out, 0, sizeof(*out));
	buf_init(&o.server);
	if (!openapi_input_clean(data, len) &&
	    (src = doc_clean_input(data, len, &srclen)) == NULL)
		goto out;
	if (openapi_load(src != NULL ? src : data, src != NULL ? srclen : len, OPENAPI_AUTO,
	    &o.root, err, sizeof(err)) == -1 ||
	    (o.version = openapi_version(o.root, err, sizeof(err))) == -1) {
		log_err("%s: %s: %s", __func__, path, err);
		goto out;
	}
	if ((o.tags = json_object_new_object()) == NULL || doc_build_init(&b, out,
	    poll) == -1)
		goto out;
	binit = 1;
	o.b = &b;
	if ((title = openapi_text(openapi_get(o.root, "info"), "title")) == NULL)
		title = "API";
	openapi_server(&o);
	if (openapi_collect(&o) == -1 || openapi_overview(&o, title) == -1 ||
	    openapi_sections(&o) == -1)
		goto out;
	binit = 0;
	rc = doc_build_finish(&b, title, path);
out:
	if (binit)
		doc_build_release(&b);
	if (rc == -1)
		doc_release(out);
	free(src);
	free(o.ops);
	buf_release(&o.server);
	json_object_put(o.tags);
	json_object_put(o.root);
	return rc;
}
