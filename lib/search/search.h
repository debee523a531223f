/*
 * search.h: the read-only query path shared by the REST responder and the MCP server:
 * library lookup, library search and context retrieval.
 */
#ifndef SEARCH_H
#define SEARCH_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct search;
struct snippet;
struct db;

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
	char	 title[256];		/* the library's title */
	int	 openapi;		/* its source is an OpenAPI description */
	char	 state[16];
	char	 error[512];		/* last error of a failed library */
	long	 lib_no;
	long	 snippets;		/* snippets in its index */
	long long index_version;	/* changes whenever the index is rewritten */
	long long embed_version;	/* changes whenever its vectors are written */
};

/*
 * Local copies (PostgreSQL; docs/DESIGN.md, "Local copies: no round trip"). A worker of
 * ctxd-query or ctxd-mcp gets fd, the write end of the pipe to its responder's copier
 * (search/copier.h, http_background_fd): a question that finds no copy of its library's
 * version asks the copier for it, one line of at most SEARCH_COPY_ASK_MAX bytes, and reads
 * the database meanwhile. Without (fd -1, the default) the question builds it.
 */
#define SEARCH_COPY_ASK_MAX	600
void	 search_set_copier(struct search *, int fd);
/*
 * One line a worker wrote (len bytes, without its newline) read back: the library's lib_no,
 * its id into id and the index version asked for. 0, or -1 when it is not such a line.
 */
int	 search_copy_asked(const char *line, size_t len, long long *lib_no, char *id,
	    size_t idsz, long long *index_version);
/*
 * Builds lib's local copy of its current version into DATA_DIR/copies unless it is there
 * (at most one process of the node at a time), then removes the node's copies of its older
 * versions and keeps the folder within its budget. 0 the copy is there; -1 not: errno
 * ETIMEDOUT while another process of the node builds it, EINVAL when there is nothing to
 * build (SQLite, copies turned off, too many snippets), else a failure (logged).
 */
int	 search_copy_build(struct search *, const struct search_lib *lib);
/*
 * The bytes the node's copies may take (CTXD_LOCAL_COPIES_MB) when a library of snippets
 * snippets can have one; 0 when it cannot (SQLite, copies turned off, too many snippets).
 */
long long search_copy_budget(const struct search *, long snippets);

/* Prepares the statements on db (kept open for the life of the process). */
struct search *search_open(struct db *db);
void	 search_close(struct search *);

/* Looks a (normalised) library id up. */
enum search_lib_status search_library(struct search *, const char *id, struct search_lib *);
/*
 * Ranks the library's snippets for query (lexical, fused with the vector ranking when
 * an embedding provider is configured, reranked by the LLM when one is configured and
 * fast is 0) and packs the best into budget tokens, best first: the snippets' tokens
 * (title, prose, code as tokenize_estimate counts them) add up to at most budget; a
 * snippet bigger than what is left is cut (format_cut) when it is the first or enough is
 * left, else skipped. Flagged snippets (lib/search/inject.h) are left out with content.injection
 * hold (the mode search_answer read), carry their rules in flags with mark. *out is an
 * array of *n snippets (free each with format_snippet_release, then the array). Returns
 * -1 on internal errors only: no match is 0 snippets.
 */
int	 search_context(struct search *, const struct search_lib *, const char *query,
	    long budget, int fast, struct snippet **out, size_t *n);
/*
 * Why an answer holds what it holds (ctxd-admin explain, GET /api/libraries/.../explain):
 * search_explain records an answer's candidates in ranking order, what became of each,
 * and where the packed ones stand in the answer.
 */
enum search_fate {
	SEARCH_FATE_ANSWER,		/* in the answer, whole */
	SEARCH_FATE_CUT,		/* in the answer, cut to fit the budget */
	SEARCH_FATE_STOP,		/* scored below the stop ratio of the best */
	SEARCH_FATE_ROOM,		/* bigger than the room left, too little to cut */
	SEARCH_FATE_FULL,		/* the budget was spent before its turn */
	SEARCH_FATE_HELD,		/* flagged, left out (content.injection=hold) */
	SEARCH_FATE_GONE		/* deleted since the index was loaded */
};

struct search_trace_row {
	long long	 id;		/* the snippet */
	double		 score;		/* the ranking's (lexical, or fused with vectors) */
	int		 tokens;	/* as the budget counts them, uncut */
	uint64_t	 terms;		/* the question terms it holds (lexindex_hit.terms) */
	enum search_fate fate;
	size_t		 place;		/* 1-based place in the answer; 0: not in it */
	char		*source;	/* as the answer shows them; NULL when gone */
	char		*breadcrumb;
	char		*title;
	char		*text;		/* the snippet as the answer would show it, uncut */
};

struct search_trace {
	char		**terms;	/* the question's search terms, as matched */
	size_t		 nterms;
	int		 hybrid;	/* 1: fused with the vector ranking */
	int		 reranked;	/* 1: the LLM reordered the packing */
	long		 budget;	/* tokens */
	long		 used;		/* tokens the answer holds */
	size_t		 placed;	/* candidates the answer holds */
	struct search_trace_row *rows;
	size_t		 n;
};

/*
 * Answers as search_answer does (text format, into out) for a library this instance
 * indexes, recording into t (zeroed, or released before) the candidates and their fates.
 * Returns search_answer's status; 404 for a library not indexed here (never asks the
 * upstream). Loads every candidate's text: for diagnosis, not for serving.
 */
int	 search_explain(struct search *, const char *libid, const char *query, long budget,
	    int fast, struct search_trace *t, struct buf *out);
void	 search_trace_release(struct search_trace *);
/* The fate in words ("answer", "below the stop ratio", ...), and as a word for programs. */
const char *search_fate_name(enum search_fate);
const char *search_fate_code(enum search_fate);
/* Library search: JSON {"results": [...], "searchFilterApplied": false} into out. */
int	 search_libraries(struct search *, const char *name, const char *query,
	    struct buf *out);
/*
 * The answer to "library id + question", shared by GET /api/v2/context and the MCP
 * query-docs tool: validates and normalises libid (a trailing version is dropped), looks
 * the library up and, in one read transaction (the caller's when one is open), ranks, packs about budget tokens (raised to
 * FORMAT_MIN_TOKENS, capped at FORMAT_MAX_TOKENS) and formats them into out: the text
 * format, or the JSON one when json is 1. topic (may be NULL) narrows query. Returns the
 * HTTP status: 200 with the answer in out (no match: a sentence saying so in text mode);
 * 400 (malformed id), 404 (unknown library), 422 (its only indexing failed: "indexing ID
 * failed: why", why in full for a caller search_set_detail allowed, else without the
 * network detail of a fetch), 202 (first indexing not finished) or 500 (internal error,
 * logged) with a human-readable message in out; -1 when out cannot be written.
 */
int	 search_answer(struct search *, const char *libid, const char *query,
	    const char *topic, long budget, int fast, int json, struct buf *out);
/* Whether the caller of the next answers may read why an indexing failed in full (admins). */
void	 search_set_detail(struct search *, int admin);

#endif
