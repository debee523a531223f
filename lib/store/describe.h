/*
 * store/describe.h: the rows of the describe step (lib/index/describe.h): the code
 * snippets still to describe, the descriptions cache (snippet_descriptions) and the
 * writes of a title and description. Writes run inside the caller's transaction; each
 * function returns 0, or -1 on a database error (logged), unless it says otherwise.
 */
#ifndef STORE_DESCRIBE_H
#define STORE_DESCRIBE_H

struct db;

/* A kept code snippet not described yet (strings valid during the callback; never NULL). */
struct store_describe_row {
	long long	 id;
	const char	*heading, *page, *breadcrumb;
	const char	*text;		/* NULL when the snippet has none */
	const char	*code;		/* its code JSON */
	long long	 repeated;	/* kept snippets of the library with its heading */
};

/*
 * Calls fn for each kept, undescribed code snippet of library_id that the content rules
 * did not flag, in id order; -1 also when fn returned -1 (then not logged).
 */
int	 store_describe_todo(struct db *, const char *library_id,
	    int (*fn)(const struct store_describe_row *, void *), void *arg);

/* Marks snippet id described (nothing to add to it). */
int	 store_describe_mark(struct db *, long long id);

/*
 * The cached title and description of the block with SHA-256 hash for model: 1 with
 * *title and *desc malloc'd, 0 when none is cached, -1 on a database or memory error.
 */
int	 store_describe_cached(struct db *, const char *hash, const char *model,
	    char **title, char **desc);
/* Caches a title and description (created at now, ISO 8601), replacing any. */
int	 store_describe_cache_put(struct db *, const char *hash, const char *model,
	    const char *title, const char *desc, const char *now);

/*
 * Writes a title (when set_title) and a text (when set_text) to snippet id, adds tokens
 * to its token count, marks it described and drops its
 * embeddings rows (the new text gets a vector of its own).
 */
int	 store_describe_apply(struct db *, long long id, int set_title,
	    const char *title, int set_text, const char *text, long long tokens);

#endif /* STORE_DESCRIBE_H */
