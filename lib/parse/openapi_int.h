/*
 * openapi_int.h: what openapi.c (loading, $refs) gives openapi_doc.c (snippets).
 */
#ifndef OPENAPI_INT_H
#define OPENAPI_INT_H

#define OPENAPI_REF_MAX		1024	/* a longer $ref is not followed */
#define OPENAPI_REF_SEGMENTS	32	/* segments of its JSON pointer */

struct json_object;

/*
 * The node a $ref names, ref found in the file of key from ("" for the spec root): in
 * the same file, or in a file bundled under root's OPENAPI_FILES_KEY. *to is set to the
 * key of the file the node is in (a string that lives as long as root). NULL when the
 * ref does not resolve.
 */
struct json_object *openapi_resolve(struct json_object *root, const char *from,
	    const char *ref, const char **to);

#endif /* OPENAPI_INT_H */
