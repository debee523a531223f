/*
 * store/fts.h: the full-text rows of the snippets: the columns a lexical index is built from
 * (lib/search/lexindex.h: the worker's index segment, or a query process's index in memory
 * when a library has no segment). They are made from the snippets and documents rows when
 * read; no table keeps a copy of them (sql/0017-drop-fts.sql), so the writers of snippets
 * (index, dedup, share, describe, delete) have no full-text row to keep in step.
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
 * A full-text row of a snippet a library shows: its columns title, breadcrumb, body,
 * code and path (text[i] NULL for a NULL column, len[i] its bytes), valid during the
 * callback only.
 */
#define STORE_FTS_NCOLS	5
struct store_fts_row {
	long long	 id, document_id;
	int		 tokens;
	const char	*title;		/* the snippet's own title (text[0] is made of it) */
	int		 flagged;	/* 1: a content rule flagged it (snippet_flags) */
	const char	*text[STORE_FTS_NCOLS];
	size_t		 len[STORE_FTS_NCOLS];
};
/*
 * Calls fn with the full-text row of each snippet library_id shows but its duplicates, in
 * id order: title is store_fts_title's, code store_code_text's of the code JSON, body the
 * text, path that of the document showing it. 0, or -1 on a database error or out of
 * memory (logged) or when fn returned -1 (then not logged).
 */
int	 store_fts_rows(struct db *, const char *library_id,
	    int (*fn)(const struct store_fts_row *, void *), void *arg);

#endif
