/*
 * openapi.h: OpenAPI descriptions (Swagger 2.0, OpenAPI 3.0, 3.1; 3.2 read as 3.1), JSON
 * or YAML, to snippets (lib/parse/openapi.c), for the source back end lib/sources/openapisrc.c
 * and the pipeline's parser of format DOC_FORMAT_OPENAPI (doc_parse_as).
 *
 * The document the pipeline parses is the spec itself (an upload, or a spec without
 * references to other files) or, when the spec's $refs name files next to it, the spec
 * as compact JSON with those files under the top-level key OPENAPI_FILES_KEY: an object
 * from the file's key (openapi_ref_key: its path relative to the spec's folder, such as
 * "Pet.yaml" or "../common/Error.yaml") to its parsed content. A $ref to a file that is
 * not there stays a named reference ("→ Pet").
 *
 * Everything is bounded: the nesting depth and the node count of the loaded tree (a YAML
 * alias is counted as the nodes it expands to), the length of a $ref, the schema depth and
 * the nodes of the schemas one operation shows; parsing is linear in the spec's size.
 */
#ifndef OPENAPI_H
#define OPENAPI_H

#include <stddef.h>

struct doc;
struct doc_poll;
struct json_object;

#define OPENAPI_FILES_KEY	"x-ctxd-files"
/* The URL the spec was fetched from (set by the back end): relative servers resolve on it. */
#define OPENAPI_URL_KEY		"x-ctxd-url"
#define OPENAPI_MAX_DEPTH	128	/* nesting of a loaded JSON or YAML document */
#define OPENAPI_KEY_MAX		512	/* bytes of a file key */

/*
 * A plain YAML scalar (s, n bytes) resolved as YAML's core schema: a json-c null (NULL
 * with *isnull set), bool, int, float or string (NULL with *isnull 0: out of memory).
 * The GitOps manifest (lib/gitops/manifest.c) types its scalars the same way.
 */
struct json_object *openapi_yaml_plain(const char *s, size_t n, int *isnull);

enum openapi_syntax {
	OPENAPI_AUTO,		/* JSON when the first non-blank byte is '{' or '[' */
	OPENAPI_JSON,
	OPENAPI_YAML
};

/*
 * Loads JSON or YAML (the first document of a YAML stream; plain scalars resolved as
 * YAML's core schema, merge keys "<<" applied) into a json-c tree (*out, the caller
 * puts it). -1 with the reason in err: not JSON or YAML (with the line), nested deeper
 * than OPENAPI_MAX_DEPTH, more nodes than the input's size allows (YAML aliases).
 */
int	 openapi_load(const char *data, size_t len, enum openapi_syntax,
	    struct json_object **out, char *err, size_t errsz);
/*
 * The major version of the OpenAPI description root (2 for "swagger": "2.0", 3 for
 * "openapi": "3.x"), or -1 with err when it is not one (no openapi or swagger key, or
 * a version other than 2.x or 3.x).
 */
int	 openapi_version(struct json_object *root, char *err, size_t errsz);
/*
 * The key of the file a $ref names, for a $ref found in the file of key from ("" for the
 * spec itself): 1 with out set ("Pet.yaml", "../common/Error.yaml") when it names another
 * file; 0 when it points into the same document ("#/components/..."); -1 when it cannot
 * be followed (an absolute URL or path, a query, more than one folder above the spec's,
 * longer than OPENAPI_KEY_MAX).
 */
int	 openapi_ref_key(const char *from, const char *ref, char *out, size_t sz);
/*
 * Calls fn(arg, ref) for each "$ref" string in tree (a depth-first walk); stops and
 * returns -1 when fn does.
 */
int	 openapi_refs(struct json_object *tree, int (*fn)(void *, const char *), void *arg);
/*
 * The $refs of root (and of the files under its OPENAPI_FILES_KEY) that do not resolve:
 * their count, and the first one in first (sz bytes, "" when none).
 */
size_t	 openapi_unresolved(struct json_object *root, char *first, size_t sz);
/*
 * Snippets of an OpenAPI description (JSON or YAML text, possibly with OPENAPI_FILES_KEY):
 * an overview section, one section per operation and per webhook. Same contract as
 * doc_parse_poll; a document that is not an OpenAPI description fails (-1).
 */
int	 openapi_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
	    struct doc_poll *poll);

#endif /* OPENAPI_H */
