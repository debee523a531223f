/*
 * search.h: the read-only query path shared by the REST responder and the MCP server:
 * library lookup, library search and context retrieval.
 */
#ifndef SEARCH_H
#define SEARCH_H

#include <stddef.h>

struct sqlite3;
struct search;

#define SEARCH_DEFAULT_TOKENS	2000
#define SEARCH_MIN_TOKENS	1000
#define SEARCH_MAX_TOKENS	100000
/* Characters (not bytes) of a library id, question or library name (spec). */
#define SEARCH_TEXT_MAX		500

enum search_lib_status {
	SEARCH_LIB_READY,		/* has an index to serve */
	SEARCH_LIB_NOT_FOUND,
	SEARCH_LIB_PENDING,		/* first indexing not finished */
	SEARCH_LIB_FAILED		/* never indexed successfully */
};

struct search_lib {
	char	 id[512];
	char	 state[16];
	char	 error[512];		/* last error of a failed library */
	long	 lib_no;
	long	 snippets;		/* snippets in its index */
	long long index_version;	/* changes whenever the index is rewritten */
	long long embed_version;	/* changes whenever its vectors are written */
};

/* Prepares the statements on db (kept open for the life of the process). */
struct search *search_open(struct sqlite3 *db);
void	 search_close(struct search *);

/*
 * Normalises a library id (drops a trailing "/version" or "@version" and trailing
 * slashes) into out. -1 when it is not of the form /owner/repo[...].
 */
int	 search_normalize_id(const char *id, char *out, size_t outsz);
/*
 * The stored id of the library a client's id names (issue 16): "/owner/repo/v" for
 * "/owner/repo/v" and "/owner/repo@v" (returns 1), "/owner/repo" for one without a
 * version (returns 0); -1 when malformed or longer than outsz.
 */
int	 search_version_id(const char *id, char *out, size_t outsz);
/*
 * A snippet's Source: the document's web address url when it has one (a page, a spec, a
 * wiki page), else blob prefix (NULL or "" on hosts of unknown type), commit, "/", path;
 * then "#anchor" when anchor is not empty. Allocated; NULL when memory is short.
 */
char	*search_source_of(const char *url, const char *prefix, const char *commit,
	    const char *path, const char *anchor);
/* Looks a (normalised) library id up. */
enum search_lib_status search_library(struct search *, const char *id, struct search_lib *);
/*
 * Ranks the library's snippets for query (lexical, fused with the vector ranking when
 * an embedding provider is configured, reranked by the LLM when one is configured and
 * fast is 0) and packs the best into budget tokens, best first: the snippets' tokens
 * (title, prose, code as tokenize_estimate counts them) add up to at most budget; a
 * snippet bigger than what is left is cut (format_cut) when it is the first or enough is
 * left, else skipped. Flagged snippets (lib/inject.h) are left out with content.injection
 * hold (the mode search_answer read), carry their rules in flags with mark. *out is an
 * array of *n snippets (free each with format_snippet_release, then the array). Returns
 * -1 on internal errors only: no match is 0 snippets.
 */
int	 search_context(struct search *, const struct search_lib *, const char *query,
	    long budget, int fast, struct snippet **out, size_t *n);
/* Library search: JSON {"results": [...], "searchFilterApplied": false} into out. */
int	 search_libraries(struct search *, const char *name, const char *query,
	    struct buf *out);
/*
 * The answer to "library id + question", shared by GET /api/v2/context and the MCP
 * query-docs tool: validates and normalises libid (a trailing version is dropped), looks
 * the library up and, in one read transaction (the caller's when one is open), ranks, packs about budget tokens (raised to
 * SEARCH_MIN_TOKENS, capped at SEARCH_MAX_TOKENS) and formats them into out: the text
 * format, or the JSON one when json is 1. topic (may be NULL) narrows query. Returns the
 * HTTP status: 200 with the answer in out (no match: a sentence saying so in text mode);
 * 400 (malformed id), 404 (unknown or never indexed library), 202 (first indexing not
 * finished) or 500 (internal error, logged) with a human-readable message in out; -1 when
 * out cannot be written.
 */
int	 search_answer(struct search *, const char *libid, const char *query,
	    const char *topic, long budget, int fast, int json, struct buf *out);

#endif
