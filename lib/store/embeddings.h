/*
 * store/embeddings.h: the rows of the embed step (lib/index/embedder.h): the snippets a
 * library shows without a vector, the vectors (one per model and text hash) and the
 * embeddings rows that name them; and the vectors a query process loads
 * (lib/search/vector.h). Writes run inside the caller's transaction unless said
 * otherwise; each function returns 0, or -1 on a database error (logged).
 */
#ifndef STORE_EMBEDDINGS_H
#define STORE_EMBEDDINGS_H

#include <stddef.h>

struct db;

/* A kept snippet without a vector (strings valid during the callback; never NULL). */
struct store_embed_row {
	long long	 id;
	const char	*title, *breadcrumb, *text, *code;
};

/*
 * Calls fn for up to limit kept snippets library_id shows with an id above after and no
 * embeddings row for model, in id order; -1 also when fn returned -1 (then not logged).
 */
int	 store_embed_todo(struct db *, const char *library_id, long long after,
	    const char *model, size_t limit,
	    int (*fn)(const struct store_embed_row *, void *), void *arg);
/* How many kept snippets library_id shows have no embeddings row for model, into *n. */
int	 store_embed_missing(struct db *, const char *library_id, const char *model,
	    size_t *n);

/* A snippet's vector, to reuse or to store. */
struct store_embedding {
	long long	 snippet_id;
	const char	*hash;		/* SHA-256 hex of the text embedded */
	const float	*vector;	/* store_embeddings_put: NULL skips the row */
	int		 reused;	/* out of store_embeddings_reuse */
};

/*
 * Each of the n snippets whose text has a stored vector of model (same hash) gets an
 * embeddings row naming it, and reused 1.
 */
int	 store_embeddings_reuse(struct db *, const char *model, struct store_embedding *,
	    size_t n);
/*
 * Stores each vector given (dim floats) once per (model, hash), and the snippet's
 * embeddings row naming it (replacing any).
 */
int	 store_embeddings_put(struct db *, const char *model, size_t dim,
	    const struct store_embedding *, size_t n);
/*
 * Deletes the vectors no embeddings row names, *deleted of them, in a transaction of its
 * own unless the caller holds one.
 */
int	 store_vectors_gc(struct db *, size_t *deleted);

/* A vector of a snippet a library shows (valid during the callback only). */
struct store_vector_row {
	long long	 snippet_id, document_id;
	int		 tokens;
	long long	 dim;		/* as stored */
	const void	*vector;	/* NULL: out of memory */
	size_t		 bytes;		/* of vector */
};
/*
 * Calls fn with the vector of model of each snippet library_id shows, in snippet id
 * order; -1 also when fn returned -1 (then not logged).
 */
int	 store_vectors_load(struct db *, const char *library_id, const char *model,
	    int (*fn)(const struct store_vector_row *, void *), void *arg);

#endif /* STORE_EMBEDDINGS_H */
