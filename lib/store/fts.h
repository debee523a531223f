/*
 * store/fts.h: the full-text rows of the snippets (snippets_fts). The index writes them for
 * the snippets it keeps; dedup removes a duplicate's and restores a kept one's, share moves
 * them with the snippets, describe rewrites one when it gives a snippet a title; a query
 * process reads a library's to build its lexical index (lib/search/lexindex.h).
 */
#ifndef STORE_FTS_H
#define STORE_FTS_H

#include <stddef.h>

struct buf;
struct db;

/* Appends the code of a snippet's code JSON ([{"language", "code"}]), each block + '\n'. */
int	 store_code_text(const char *json, struct buf *);

/*
 * The title column of a snippet's full-text row into b (reset first): its title, then the
 * words of a "Keywords: ..." paragraph of its text when it has one (an API operation's:
 * lib/parse/openapi_words.c), so that those words weigh as the title's do. -1 when out of
 * memory.
 */
#define STORE_FTS_KEYWORDS	"\n\nKeywords: "
int	 store_fts_title(const char *title, const char *text, struct buf *b);

/*
 * (Re)writes the snippets_fts row of a stored snippet from its snippets and documents
 * rows (deleting any previous one), inside the caller's transaction.
 */
int	 store_fts_put(struct db *, long long snippet_id);

/*
 * A full-text row of a snippet a library shows: its columns title, breadcrumb, body,
 * code and path (text[i] NULL for a NULL column, len[i] its bytes), valid during the
 * callback only.
 */
#define STORE_FTS_NCOLS	5
struct store_fts_row {
	long long	 id, document_id;
	int		 tokens;
	const char	*text[STORE_FTS_NCOLS];
	size_t		 len[STORE_FTS_NCOLS];
};
/*
 * Calls fn with the full-text row of each snippet library_id shows, in id order. 0, or -1
 * on a database error (logged) or when fn returned -1 (then not logged).
 */
int	 store_fts_rows(struct db *, const char *library_id,
	    int (*fn)(const struct store_fts_row *, void *), void *arg);

#endif
