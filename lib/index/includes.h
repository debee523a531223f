/*
 * includes.h: a repository page's include directives resolved from the files of the same
 * fetched version (parse/include.h), and the page's content hash then made of its own and
 * of every file it included, so that a later run notices a changed included file even
 * when the page did not change.
 */
#ifndef INDEX_INCLUDES_H
#define INDEX_INCLUDES_H

#include <stddef.h>

struct backend_ctx;
struct backend_doc;
struct backend_ops;
struct backend_set;

/*
 * Resolves the includes of loaded document d (d->data, d->len) with the files of set, read
 * through ops->load (each at most max bytes). When d included anything, d->data holds the
 * resolved page and d->hash becomes INDEX_INCLUDES_HASH_LEN hex characters (SHA-256 of d's
 * own hash and the included files' paths and hashes). Returns 0, -1 when memory is short.
 */
#define INDEX_INCLUDES_HASH_LEN	64
int	 index_includes(const struct backend_ops *ops, struct backend_ctx *ctx,
	    const struct backend_set *set, struct backend_doc *d, size_t max);

#endif
