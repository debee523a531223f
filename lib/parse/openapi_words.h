/*
 * openapi_words.h: the words an API operation is found by (lib/parse/openapi_words.c).
 */
#ifndef OPENAPI_WORDS_H
#define OPENAPI_WORDS_H

#include <stddef.h>

struct buf;

/*
 * Appends to b the words of an operation, space-separated, each once, lower case: the
 * verbs of method ("delete": delete remove destroy; "post": create add new start open;
 * "put" and "patch": update change set replace; "get": list get read view see for a
 * collection, get fetch show read view see single details for an item), then the words
 * of the operationId id (may be NULL), of path's segments, of the tags and of the
 * parameters' names (identifiers split at '_', '-', '.', '/', braces and camelCase).
 * At most 48 words. -1 when out of memory.
 */
int	openapi_words(struct buf *b, const char *method, const char *path, const char *id,
	    const char *const *tags, size_t ntags, const char *const *params, size_t nparams);

#endif /* OPENAPI_WORDS_H */
