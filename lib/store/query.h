/*
 * store/query.h: the reads of the query path (lib/search/search.c): a library's row, a
 * snippet as a library shows it, its neighbours, the flags, the content.injection setting
 * and the libraries list. (Ranking is not here: every library is ranked from its lexical
 * index, lib/search/lexindex.c.)
 *
 * struct store_query is the set of prepared statements a query process keeps for its
 * life (search_open makes it once per connection; each call binds, steps and resets).
 * Strings given to a callback are valid during the call only. Unless said otherwise,
 * each function returns 0, or -1 on a database error (logged).
 */
#ifndef STORE_QUERY_H
#define STORE_QUERY_H

#include <stddef.h>

struct db;
struct store_query;

/* Prepares the statements on db (persistent ones); NULL on an error (logged). */
struct store_query *store_query_open(struct db *);
void	 store_query_close(struct store_query *);
/*
 * The statements of a library's local copy (store/localcopy.h: a SQLite connection that
 * the result owns and closes): those of store_query_snippet, _snippet_place, _prev,
 * _opening, _text, _flagged and _any_flagged, for store_query_route. NULL on an error
 * (logged; copy closed).
 */
struct store_query *store_query_open_copy(struct db *copy);
/*
 * Until routed again (copy NULL: no more), the reads of a library's rows on q (the
 * functions of store_query_open_copy, and store_query_prefetch, which then reads
 * nothing) go to copy, the library's local copy: a question costs the store no round
 * trip for them. The caller routes only the questions of copy's library, and unroutes
 * at their end.
 */
void	 store_query_route(struct store_query *q, struct store_query *copy);

/* A library's row as the query path reads it (never NULL strings). */
struct store_query_lib {
	const char	*id, *state, *error, *title, *source_type;
	long long	 lib_no, snippets, index_version, embed_version;
	int		 has_index;	/* it has an index (indexed_commit) */
};
/* Library id: 1 (fn called), 0 when there is none, -1. */
int	 store_query_library(struct store_query *, const char *id,
	    void (*fn)(const struct store_query_lib *, void *), void *arg);
/*
 * Calls fn with the ids of the libraries not being deleted that equal id but for ASCII
 * case, in byte order, until it returns 1.
 */
int	 store_query_nocase(struct store_query *, const char *id,
	    int (*fn)(const char *id, void *), void *arg);
/*
 * The indexed versions of library base ("v1, v2") into *have (malloc'd, NULL when none).
 */
int	 store_query_versions(struct store_query *, const char *base, char **have);

/* A snippet as a library shows it. */
struct store_query_snippet {
	const char	*title, *breadcrumb, *text, *page_title;	/* "" for NULL */
	const char	*anchor, *code, *path, *blob_prefix, *indexed_commit, *url;
	const char	*flags;		/* its rules ("a, b"), NULL when not flagged */
	int		 tokens;
	long long	 document_id, ord;
};
/* Snippet id as library_id shows it: fn's result, 1 when there is none, -1. */
int	 store_query_snippet(struct store_query *, long long id, const char *library_id,
	    int (*fn)(const struct store_query_snippet *, void *), void *arg);
/*
 * Snippet id's document path and title into path and title (cut to their sizes): 1, or 0
 * when there is no such snippet.
 */
int	 store_query_snippet_place(struct store_query *, long long id, char *path,
	    size_t pathsz, char *title, size_t titlesz);
/*
 * Calls fn with the heading trails (id, title, breadcrumb, ord) of the (at most limit)
 * snippets before ord of document doc, nearest first, until it returns 1. A walk that
 * answers from store_query_prefetch's rows (the trails before a candidate it read whole)
 * is given only the trails a walk back to an enclosing section can end at: the nearest,
 * those whose breadcrumb followed by " > " opens the candidate's, and the document's
 * first (ord 0); fn must act on no other (search_expand's walk does not).
 */
int	 store_query_prev(struct store_query *, long long doc, long long ord, int limit,
	    int (*fn)(long long id, const char *title, const char *breadcrumb,
	    long long ord, void *), void *arg);
/*
 * Snippet id's text into *text (malloc'd) and whether it is flagged: 1, 0 when there is
 * no such snippet or its text is NULL, -1.
 */
int	 store_query_text(struct store_query *, long long id, char **text, int *flagged);

/*
 * store_query_text when only the text's first chars characters matter (search_expand's
 * opening paragraph): *text may hold just them (and more) when store_query_prefetch read
 * it; else, and on SQLite, the whole text.
 */
int	 store_query_opening(struct store_query *, long long id, int chars, char **text,
	    int *flagged);
/*
 * A listening connection (db_listen: a query or MCP worker on PostgreSQL) reads in one
 * statement what the answer's reads would take one by one: the place (path, title,
 * flag) of each of the candidates ids (n) as library_id shows it but those whose placed[i]
 * is not 0 (the caller has them from the index, lexindex_place: 1 not flagged, whose
 * flags are then not read either, 2 flagged; NULL: none), and of the first
 * nwhole of them the whole row and the heading trails before it (lookback of them when
 * it has code and its text is under short_bytes bytes, else 1) with the first opening characters of the
 * texts search_expand may pick. Until store_query_prefetch_drop, store_query_snippet,
 * _snippet_place, _flagged, _any_flagged, _prev and _opening answer from them what they
 * hold (the same answers: t/t0025-pg-notify.sh compares them); the first read of a row
 * or trail of the other candidates reads those of all of them in a second statement,
 * and anything else is read as without a prefetch. Elsewhere (SQLite, a connection that
 * does not listen) nothing is read: 0. 0, or -1 on an error (logged; each read then goes
 * to the database).
 */
int	 store_query_prefetch(struct store_query *, const char *library_id,
	    const long long *ids, const char *placed, size_t n, size_t nwhole, int opening,
	    int short_bytes, int lookback);
void	 store_query_prefetch_drop(struct store_query *);

/* Setting name's stored value into out (outsz bytes, cut): 1, 0 when not set, -1. */
int	 store_query_setting(struct store_query *, const char *name, char *out,
	    size_t outsz);
/* 1 when library_id shows a flagged snippet (lib/search/inject.h), 0 when not, -1. */
int	 store_query_any_flagged(struct store_query *, const char *library_id);
/* 1 when snippet id is flagged, 0 when not, -1. */
int	 store_query_flagged(struct store_query *, long long id);

/* A library of the list (libraries not being deleted, no version). */
struct store_query_libs_row {
	const char	*id, *title, *description, *branch, *updated_at, *state, *host;
	const char	*versions;	/* JSON array of its versions' branches */
	const char	*type;
	long long	 tokens, snippets;
};
/* Calls fn with each library of the list; -1 also when fn returned -1 (not logged). */
int	 store_query_libraries(struct store_query *,
	    int (*fn)(const struct store_query_libs_row *, void *), void *arg);

#endif /* STORE_QUERY_H */
