/*
 * store/fts.h: the full-text rows of the snippets (snippets_fts). The index writes them for
 * the snippets it keeps; dedup removes a duplicate's and restores a kept one's, share moves
 * them with the snippets, describe rewrites one when it gives a snippet a title.
 */
#ifndef STORE_FTS_H
#define STORE_FTS_H

struct buf;
struct sqlite3;

/* Appends the code of a snippet's code JSON ([{"language", "code"}]), each block + '\n'. */
int	 store_code_text(const char *json, struct buf *);

/*
 * (Re)writes the snippets_fts row of a stored snippet from its snippets and documents
 * rows (deleting any previous one), inside the caller's transaction.
 */
int	 store_fts_put(struct sqlite3 *, long long snippet_id);

#endif
