/*
 * store/flags.h: the snippet_flags rows, the content check's verdicts on snippets
 * (lib/search/inject.h): written at indexing, counted and listed for the job log, the
 * catalog and GET /api/libraries/{id}/flagged. The served flags of a library are those
 * of the snippets it shows that are no duplicate (its own, and those of other versions
 * it shows: their rows carry the owner's id). Each function returns 0, or -1 on a
 * database error (logged) or when a callback returned -1 (then not logged).
 */
#ifndef STORE_FLAGS_H
#define STORE_FLAGS_H

struct db;

/* Stores that rule flagged snippet_id of library_id, with excerpt (replacing any). */
int	 store_flag_put(struct db *, long long snippet_id, const char *library_id,
	    const char *rule, const char *excerpt);

/* The number of served snippets of library_id that are flagged into *n. */
int	 store_flags_snippets(struct db *, const char *library_id, long long *n);
/* The number of served flags rows of library_id (a snippet may have several) into *n. */
int	 store_flags_total(struct db *, const char *library_id, long long *n);
/* Calls fn with each rule and its number of served flags, the most frequent first. */
int	 store_flags_rules(struct db *, const char *library_id,
	    int (*fn)(const char *rule, long long n, void *), void *arg);
/* Calls fn with the first limit flagged served snippets' "path#anchor", in id order. */
int	 store_flags_places(struct db *, const char *library_id, int limit,
	    int (*fn)(const char *place, void *), void *arg);

/* A served flag (strings valid during the callback; NULL for a NULL column). */
struct store_flag_row {
	long long	 snippet_id;
	const char	*title, *blob_prefix, *indexed_commit, *path, *anchor;
	const char	*rule, *excerpt, *url;
};
/* Calls fn for limit served flags from offset, by snippet and rule. */
int	 store_flags_list(struct db *, const char *library_id, long limit, long offset,
	    int (*fn)(const struct store_flag_row *, void *), void *arg);

#endif /* STORE_FLAGS_H */
