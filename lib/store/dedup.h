/*
 * store/dedup.h: the rows a dedup pass reads (the snippets a library shows) and writes
 * (the decisions that changed: dup_of, and the embeddings rows that follow it).
 */
#ifndef STORE_DEDUP_H
#define STORE_DEDUP_H

#include <stddef.h>

struct db;

/* One snippet a library shows (strings valid during the callback only; never NULL). */
struct store_dedup_row {
	long long	 id;
	long		 ord;
	const char	*hash;		/* "" when none is stored */
	int		 has_sig;
	long long	 sig;
	long long	 dup_of;	/* 0: kept */
	const char	*path;		/* its document's */
	const char	*trail;		/* document title, breadcrumb and heading, US-separated */
	long long	 owner_doc;	/* the document that owns it */
	int		 owned;		/* the library's own; else shown from another's */
};

/*
 * Calls fn for each snippet library_id shows (its own and shared ones). 0, or -1 on a
 * database error (logged) or when fn returned -1.
 */
int	 store_dedup_rows(struct db *, const char *library_id,
	    int (*fn)(const struct store_dedup_row *, void *), void *arg);

/* A decision that changed: snippet id was a duplicate of old_dup (0: kept), now new_dup. */
struct store_dup_change {
	long long	 id, old_dup, new_dup;
};

/*
 * Writes n changed decisions inside the caller's transaction: a new duplicate loses its
 * embeddings rows (and, with dup_of set, its place in the lexical index). When
 * vectors were dropped, library_id gets a new embed_version (query processes reload).
 * 0, or -1 on a database error (logged).
 */
int	 store_dedup_apply(struct db *, const char *library_id,
	    const struct store_dup_change *, size_t n);

#endif /* STORE_DEDUP_H */
