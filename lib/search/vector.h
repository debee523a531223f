/*
 * vector.h: the vector side of hybrid search. Embedding vectors of a library's snippets
 * held in a query process's memory (struct vecindex, cached per library like lexindex.c),
 * a brute-force int8 scan with a float32 rescoring of the best candidates, and reciprocal
 * rank fusion of the lexical and the vector rankings.
 *
 * Stored vectors (table vectors, column vector, one per model and text hash, named by
 * the snippets' embeddings rows: embedder.h) are dim float32 values in the host's byte
 * order (little-endian on every supported platform), L2-normalised with vector_normalize
 * before they are written, so a dot product is a cosine similarity.
 */
#ifndef VECTOR_H
#define VECTOR_H

#include <stddef.h>
#include <stdint.h>

struct lexindex_hit;
struct db;
struct vecindex;

#define VECTOR_MAX_DIM		8192	/* larger dims are refused */
#define VECTOR_RRF_K		60.0	/* the usual k of reciprocal rank fusion */

/* The Euclidean (L2) norm of v[0..dim), accumulated in double. */
float	 vector_norm(const float *v, size_t dim);

/*
 * Scales v[0..dim) in place to unit L2 norm. -1 (v unchanged) when dim is 0, the norm
 * is 0 or a value is not finite.
 */
int	 vector_normalize(float *v, size_t dim);

/*
 * Symmetric int8 quantization of finite v[0..dim): *scale = max|v[i]| / 127 and
 * q[i] = round(v[i] / *scale), in [-127, 127], so |v[i] - q[i] * *scale| <= *scale / 2.
 * An all-zero v gives *scale 0 and q all 0.
 */
void	 vector_quantize(const float *v, size_t dim, int8_t *q, float *scale);

/*
 * Loads the vectors of model for the snippets of library_id (snippets joined to their
 * embeddings rows and those to vectors, in one statement: one read snapshot, in which
 * every embeddings row has its vector), in snippet id order. capacity_hint (the
 * library's snippet count, or <= 0) sizes the arrays; they grow when it is short. Each
 * vector is normalised again on load; rows whose dim differs from the first row's, whose
 * BLOB is not dim float32 values or whose vector is zero or not finite are skipped with a
 * warning. NULL on a database or memory error; a library without vectors gives an empty
 * index (dim 0).
 */
struct vecindex *vector_index_build(struct db *, const char *library_id,
	    const char *model, long capacity_hint);
void	 vector_index_free(struct vecindex *);
/* Vectors held, and their dimension (0 for an empty index). */
size_t	 vector_index_count(const struct vecindex *);
size_t	 vector_index_dim(const struct vecindex *);
/* Heap memory held by the index. */
size_t	 vector_index_bytes(const struct vecindex *);

/*
 * The arrays of an index, as vector_index_search reads them: n rows of int8 values (stride
 * bytes each, dim values then zeros; VEC_ALIGN (64) aligned), their scales, the float32 rows
 * (n * dim, 64-byte aligned) and per row the snippet id (ascending), document id and tokens.
 * lib/search/vecseg.c stores them in an index segment and searches them in place.
 */
struct vector_arrays {
	size_t		 n, dim, stride;
	const int8_t	*q;
	const float	*scale;
	const float	*f;
	const long long	*ids, *docs;
	const int	*tokens;
};

/* The stride of dim: dim rounded up to a multiple of 64. */
size_t	 vector_stride(size_t dim);
/* The arrays of x (pointers into it: valid while x is). */
void	 vector_index_arrays(const struct vecindex *, struct vector_arrays *);
/*
 * An index over arrays held elsewhere (not copied): a's pointers must stay valid until
 * vector_index_free, which calls release(arg) instead of freeing them. a must be consistent
 * (stride == vector_stride(dim), n <= UINT32_MAX, dim <= VECTOR_MAX_DIM, q and f aligned);
 * NULL (EINVAL) when it is not, or out of memory.
 */
struct vecindex *vector_index_wrap(const struct vector_arrays *a, void (*release)(void *),
	    void *arg);
/* 1 when x was made by vector_index_wrap (its arrays are not this process's heap). */
int	 vector_index_wrapped(const struct vecindex *);

/*
 * The k snippets whose vectors have the largest dot product with query (normalised
 * here, on a copy), best first, ties by snippet id, into out (room for k hits): id,
 * doc, tokens and score (the float32 cosine similarity). The scan ranks every vector by
 * its int8 dot product and keeps the best max(4k, 100) for the float32 rescoring.
 * *n is the number of hits (min(k, vectors)). -1 when dim is not the index's (unless the
 * index is empty: 0 hits), the query is zero or not finite, or memory runs out. The
 * index is only read (scratch memory is per call): concurrent searches are safe.
 */
int	 vector_index_search(const struct vecindex *, const float *query, size_t dim,
	    size_t k, struct lexindex_hit *out, size_t *n);

/*
 * Reciprocal rank fusion of two rankings a and b (each best first): a snippet's score
 * is the sum over the lists holding it of 1 / (k_rrf + rank), rank counted from 1 (a
 * snippet repeated within one list counts once, at its best rank). The fused hits,
 * deduplicated by id, best first, ties by id, at most max of them, into out; doc and
 * tokens come from a when it has the snippet, else from b. -1 when k_rrf is negative
 * or not finite, or memory runs out.
 */
int	 vector_rrf(const struct lexindex_hit *a, size_t na, const struct lexindex_hit *b,
	    size_t nb, double k_rrf, struct lexindex_hit *out, size_t max, size_t *n);

#endif
