/* manifest.c: the GitOps manifest, YAML (libyaml) to validated source entries. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>
#include <yaml.h>

#include "base/buf.h"
#include "gitops/manifest.h"
#include "parse/openapi.h"
#include "sources/entry.h"
#include "sources/gitsrc.h"
#include "sources/request.h"

struct manifest_ctx {
	const char	*name;
	yaml_document_t	*doc;
	struct manifest	*m;
	unsigned char	*seen;		/* by node index: converted once already */
	size_t		 nodes;
	int		 nomem;
};

/* Records an error at mark (NULL: no position) as "name:line:column: what". */
static void
manifest_error(struct manifest_ctx *c, const yaml_mark_t *mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
manifest_error(struct manifest_ctx *c, const yaml_mark_t *mark, const char *fmt, ...)
{
	struct buf	 b;
	va_list		 ap;
	char		 what[512], **e;

	if (c->m->nerrors >= MANIFEST_MAX_ERRORS) {
		c->m->more_errors++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	buf_init(&b);
	if ((mark != NULL ? buf_printf(&b, "%s:%lu:%lu: %s", c->name,
	    (unsigned long)mark->line + 1, (unsigned long)mark->column + 1, what) :
	    buf_printf(&b, "%s: %s", c->name, what)) == -1 ||
	    (e = realloc(c->m->errors, (c->m->nerrors + 1) * sizeof(*e))) == NULL) {
		buf_release(&b);
		c->nomem = 1;
		return;
	}
	c->m->errors = e;
	e[c->m->nerrors++] = buf_detach(&b);
}

static yaml_node_t *
manifest_node(struct manifest_ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

/* 1 when node is a scalar equal to s. */
static int
manifest_is(const yaml_node_t *n, const char *s)
{
	return n != NULL && n->type == YAML_SCALAR_NODE &&
	    n->data.scalar.length == strlen(s) &&
	    memcmp(n->data.scalar.value, s, n->data.scalar.length) == 0;
}

static int	 manifest_json(struct manifest_ctx *, yaml_node_t *, int depth,
		    json_object **out);

/* A mapping node as a JSON object: keys are strings, each once. */
static int
manifest_json_map(struct manifest_ctx *c, yaml_node_t *n, int depth, json_object *o)
{
	yaml_node_pair_t *p;
	yaml_node_t	*k;
	json_object	*v;
	char		 key[256];

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		k = manifest_node(c, p->key);
		if (k == NULL || k->type != YAML_SCALAR_NODE ||
		    k->data.scalar.length >= sizeof(key) ||
		    memchr(k->data.scalar.value, '\0', k->data.scalar.length) != NULL) {
			manifest_error(c, k != NULL ? &k->start_mark : &n->start_mark,
			    "a key must be a short string");
			return -1;
		}
		memcpy(key, k->data.scalar.value, k->data.scalar.length);
		key[k->data.scalar.length] = '\0';
		if (json_object_object_get_ex(o, key, NULL)) {
			manifest_error(c, &k->start_mark, "key '%.64s' given twice", key);
			return -1;
		}
		if (manifest_json(c, manifest_node(c, p->value), depth + 1, &v) == -1)
			return -1;
		if (json_object_object_add(o, key, v) != 0) {
			json_object_put(v);
			c->nomem = 1;
			return -1;
		}
	}
	return 0;
}

/*
 * Converts node n to JSON (*out): plain scalars typed as YAML's core schema, quoted ones
 * strings. Counts nodes and depth; a node reached twice (an alias) is refused.
 */
static int
manifest_json(struct manifest_ctx *c, yaml_node_t *n, int depth, json_object **out)
{
	yaml_node_item_t *i;
	json_object	*o = NULL, *v;
	int		 isnull;

	*out = NULL;
	if (n == NULL)
		return -1;
	if (c->seen[n - c->doc->nodes.start]++) {
		manifest_error(c, &n->start_mark, "anchors and aliases are not allowed");
		return -1;
	}
	if (++c->nodes > MANIFEST_MAX_NODES || depth > MANIFEST_MAX_DEPTH) {
		manifest_error(c, &n->start_mark, "the manifest is too large or too deeply "
		    "nested");
		return -1;
	}
	switch (n->type) {
	case YAML_SCALAR_NODE:
		if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			o = openapi_yaml_plain((const char *)n->data.scalar.value,
			    n->data.scalar.length, &isnull);
			if (o == NULL && isnull)
				return 0;
		} else
			o = json_object_new_string_len((const char *)n->data.scalar.value,
			    (int)n->data.scalar.length);
		break;
	case YAML_SEQUENCE_NODE:
		if ((o = json_object_new_array()) == NULL)
			break;
		for (i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
			if (manifest_json(c, manifest_node(c, *i), depth + 1, &v) == -1)
				goto fail;
			if (json_object_array_add(o, v) != 0) {
				json_object_put(v);
				goto nomem;
			}
		}
		break;
	case YAML_MAPPING_NODE:
		if ((o = json_object_new_object()) == NULL)
			break;
		if (manifest_json_map(c, n, depth, o) == -1)
			goto fail;
		break;
	default:
		return -1;
	}
	if (o == NULL)
		goto nomem;
	*out = o;
	return 0;
nomem:
	c->nomem = 1;
fail:
	json_object_put(o);
	return -1;
}

/* The value node of key in mapping n, or NULL; *keynode gets the key's node. */
static yaml_node_t *
manifest_get(struct manifest_ctx *c, yaml_node_t *n, const char *key, yaml_node_t **keynode)
{
	yaml_node_pair_t *p;

	if (n == NULL || n->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
		if (manifest_is(manifest_node(c, p->key), key)) {
			if (keynode != NULL)
				*keynode = manifest_node(c, p->key);
			return manifest_node(c, p->value);
		}
	return NULL;
}

/*
 * Where an error of entry_parse about entry node n happened: the key it names in quotes
 * ("field 'branch' must be ..."), when the entry has that key, else the entry.
 */
static const yaml_mark_t *
manifest_where(struct manifest_ctx *c, yaml_node_t *n, const char *err)
{
	const char	*q = strchr(err, '\''), *e;
	yaml_node_t	*k = NULL, *v;
	char		 key[64];

	if (q != NULL && (e = strchr(q + 1, '\'')) != NULL &&
	    (size_t)(e - q - 1) < sizeof(key)) {
		memcpy(key, q + 1, (size_t)(e - q - 1));
		key[e - q - 1] = '\0';
		/* The git validator names the URL 'repoUrl' whichever key was given. */
		if ((v = manifest_get(c, n, key, &k)) == NULL &&
		    (strcmp(key, "repoUrl") == 0 || strcmp(key, "url") == 0))
			v = manifest_get(c, n, strcmp(key, "url") == 0 ? "repoUrl" : "url",
			    &k);
		if (v != NULL)
			return strncmp(err, "unknown field", 13) == 0 ||
			    strstr(err, "is not a field") != NULL ? &k->start_mark :
			    &v->start_mark;
	}
	return &n->start_mark;
}

/* The top-level "defaults" mapping into *out (a JSON object: indexSourceCode, branch). */
static int
manifest_defaults(struct manifest_ctx *c, yaml_node_t *n, json_object **out)
{
	json_object	*o, *v;
	int		 rc = -1;

	*out = NULL;
	if (n == NULL)
		return 0;
	if (n->type != YAML_MAPPING_NODE) {
		manifest_error(c, &n->start_mark, "'defaults' must be a mapping "
		    "(indexSourceCode, branch)");
		return -1;
	}
	if (manifest_json(c, n, 1, &o) == -1)
		return -1;
	json_object_object_foreach(o, key, val) {
		yaml_node_t *k = NULL, *vn = manifest_get(c, n, key, &k);

		v = val;
		if (strcmp(key, "indexSourceCode") == 0) {
			if (!json_object_is_type(v, json_type_boolean)) {
				manifest_error(c, &vn->start_mark, "defaults: field "
				    "'indexSourceCode' must be true or false");
				goto out;
			}
		} else if (strcmp(key, "branch") == 0) {
			if (!json_object_is_type(v, json_type_string)) {
				manifest_error(c, &vn->start_mark, "defaults: field 'branch' "
				    "must be a string");
				goto out;
			}
		} else {
			manifest_error(c, &k->start_mark, "defaults: unknown field '%.64s' "
			    "(allowed: indexSourceCode, branch)", key);
			goto out;
		}
	}
	*out = o;
	o = NULL;
	rc = 0;
out:
	json_object_put(o);
	return rc;
}

/* A git entry without branch or indexSourceCode takes those of defaults. */
static int
manifest_apply_defaults(json_object *entry, json_object *defaults)
{
	json_object	*type, *v;

	if (defaults == NULL || (json_object_object_get_ex(entry, "type", &type) &&
	    (!json_object_is_type(type, json_type_string) ||
	    strcmp(json_object_get_string(type), "git") != 0)))
		return 0;
	json_object_object_foreach(defaults, key, val) {
		if (json_object_object_get_ex(entry, key, NULL))
			continue;
		if (strcmp(key, "branch") == 0 && *json_object_get_string(val) == '\0')
			continue;
		v = json_object_get(val);
		if (json_object_object_add(entry, key, v) != 0) {
			json_object_put(v);
			return -1;
		}
	}
	return 0;
}

/* Validates entry node n and appends it to c->m (a duplicate library is an error). */
static int
manifest_entry(struct manifest_ctx *c, yaml_node_t *n, json_object *defaults)
{
	struct manifest_entry *e;
	struct parse_req req;
	json_object	*o = NULL;
	char		 err[512];
	size_t		 i;
	int		 rc = -1;

	memset(&req, 0, sizeof(req));
	if (n->type != YAML_MAPPING_NODE) {
		manifest_error(c, &n->start_mark, "an entry of 'repos' must be a mapping "
		    "with at least 'url'");
		return -1;
	}
	if (manifest_json(c, n, 2, &o) == -1)
		return -1;
	if (manifest_apply_defaults(o, defaults) == -1) {
		c->nomem = 1;
		goto out;
	}
	if (entry_parse(o, &req, err, sizeof(err)) == -1) {
		manifest_error(c, manifest_where(c, n, err), "%s", err);
		goto out;
	}
	for (i = 0; i < c->m->n; i++)
		if (strcmp(c->m->entries[i].req.id, req.id) == 0) {
			manifest_error(c, &n->start_mark, "a second entry for library %s "
			    "(the first is at line %lu)", req.id, c->m->entries[i].line);
			goto out;
		}
	if ((e = realloc(c->m->entries, (c->m->n + 1) * sizeof(*e))) == NULL) {
		c->nomem = 1;
		goto out;
	}
	c->m->entries = e;
	e += c->m->n++;
	e->req = req;
	memset(&req, 0, sizeof(req));
	e->line = (unsigned long)n->start_mark.line + 1;
	e->column = (unsigned long)n->start_mark.column + 1;
	rc = 0;
out:
	backend_req_release(&req);
	json_object_put(o);
	return rc;
}

/* The document's root: {repos: [...], defaults: {...}}. Errors go to c->m. */
static void
manifest_root(struct manifest_ctx *c, yaml_node_t *root)
{
	yaml_node_pair_t *p;
	yaml_node_item_t *i;
	yaml_node_t	*repos, *k;
	json_object	*defaults = NULL;

	if (root == NULL || root->type != YAML_MAPPING_NODE) {
		manifest_error(c, root != NULL ? &root->start_mark : NULL, "the manifest "
		    "must be a mapping with a list 'repos' (and optional 'defaults')");
		return;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		k = manifest_node(c, p->key);
		if (!manifest_is(k, "repos") && !manifest_is(k, "defaults"))
			manifest_error(c, k != NULL ? &k->start_mark : &root->start_mark,
			    "unknown top-level key (allowed: repos, defaults)");
	}
	if (manifest_defaults(c, manifest_get(c, root, "defaults", NULL), &defaults) == -1)
		return;
	if ((repos = manifest_get(c, root, "repos", NULL)) == NULL ||
	    repos->type != YAML_SEQUENCE_NODE) {
		manifest_error(c, repos != NULL ? &repos->start_mark : &root->start_mark,
		    "'repos' must be a list of entries");
		goto out;
	}
	if (c->seen[repos - c->doc->nodes.start]++) {
		manifest_error(c, &repos->start_mark, "anchors and aliases are not allowed");
		goto out;
	}
	if (repos->data.sequence.items.top - repos->data.sequence.items.start >
	    MANIFEST_MAX_ENTRIES) {
		manifest_error(c, &repos->start_mark, "more than %d entries",
		    MANIFEST_MAX_ENTRIES);
		goto out;
	}
	for (i = repos->data.sequence.items.start; i < repos->data.sequence.items.top &&
	    !c->nomem; i++)
		manifest_entry(c, manifest_node(c, *i), defaults);
out:
	json_object_put(defaults);
}

/* Frees the entries of m. */
static void
manifest_clear_entries(struct manifest *m)
{
	size_t	 i;

	for (i = 0; i < m->n; i++)
		backend_req_release(&m->entries[i].req);
	free(m->entries);
	m->entries = NULL;
	m->n = 0;
}

void
manifest_release(struct manifest *m)
{
	size_t	 i;

	manifest_clear_entries(m);
	for (i = 0; i < m->nerrors; i++)
		free(m->errors[i]);
	free(m->errors);
	memset(m, 0, sizeof(*m));
}

/*
 * A first pass over the parser's events, before yaml_parser_load builds the document:
 * refuses nesting deeper than the conversion allows and more nodes (keys included) than
 * twice MANIFEST_MAX_NODES, stopping at the first collection too deep. libyaml's scanner
 * does work in proportion to the open flow collections for each token, and the loader
 * keeps every node, so a document of 100k nested "[" must never reach either. A YAML
 * syntax error ends the pass quietly: the load that follows reports it. Returns -1 after
 * recording an error.
 */
static int
manifest_prepass(struct manifest_ctx *c, const char *data, size_t len)
{
	yaml_parser_t	 parser;
	yaml_event_t	 ev;
	size_t		 nodes = 0;
	int		 level = 0, rc = 0, done = 0;

	if (!yaml_parser_initialize(&parser)) {
		c->nomem = 1;
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&parser, &ev))
			break;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			/* The root collection is level 1 and depth 0 of manifest_json. */
			if (++level > MANIFEST_MAX_DEPTH + 1) {
				manifest_error(c, &ev.start_mark, "too deeply nested "
				    "(deeper than %d levels)", MANIFEST_MAX_DEPTH);
				rc = -1;
			}
			/* FALLTHROUGH */
		case YAML_SCALAR_EVENT:
		case YAML_ALIAS_EVENT:
			if (rc == 0 && ++nodes > 2 * (size_t)MANIFEST_MAX_NODES) {
				manifest_error(c, &ev.start_mark, "the manifest is too "
				    "large (more than %d nodes)", 2 * MANIFEST_MAX_NODES);
				rc = -1;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			level--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int
manifest_parse(const char *name, const char *data, size_t len, struct manifest *m)
{
	struct manifest_ctx c;
	yaml_parser_t	 parser;
	yaml_document_t	 doc, next;
	int		 loaded = 0;

	memset(m, 0, sizeof(*m));
	memset(&c, 0, sizeof(c));
	c.name = name;
	c.m = m;
	c.doc = &doc;
	if (len > MANIFEST_MAX_BYTES) {
		manifest_error(&c, NULL, "larger than %d bytes", MANIFEST_MAX_BYTES);
		goto out;
	}
	if (manifest_prepass(&c, data, len) == -1)
		goto out;
	if (!yaml_parser_initialize(&parser)) {
		c.nomem = 1;
		goto out;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		manifest_error(&c, &parser.problem_mark, "YAML: %s%s%s",
		    parser.problem != NULL ? parser.problem : "syntax error",
		    parser.context != NULL ? " " : "",
		    parser.context != NULL ? parser.context : "");
		yaml_parser_delete(&parser);
		goto out;
	}
	loaded = 1;
	if (yaml_parser_load(&parser, &next)) {
		if (yaml_document_get_root_node(&next) != NULL)
			manifest_error(&c, &next.start_mark, "a manifest is one YAML "
			    "document");
		yaml_document_delete(&next);
	} else
		manifest_error(&c, &parser.problem_mark, "YAML: %s", parser.problem !=
		    NULL ? parser.problem : "syntax error");
	yaml_parser_delete(&parser);
	if ((c.seen = calloc((size_t)(doc.nodes.top - doc.nodes.start) + 1, 1)) == NULL) {
		c.nomem = 1;
		goto out;
	}
	if (m->nerrors == 0)
		manifest_root(&c, yaml_document_get_root_node(&doc));
out:
	if (c.nomem)
		manifest_error(&c, NULL, "out of memory");
	if (loaded)
		yaml_document_delete(&doc);
	free(c.seen);
	if (m->nerrors > 0 || m->more_errors > 0 || c.nomem) {
		manifest_clear_entries(m);
		return -1;
	}
	return 0;
}
