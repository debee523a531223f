/*
 * vector.c: one library's embedding vectors held in a query process's memory, searched
 * by brute force.
 *
 * Each vector is kept twice: quantized to int8 (one scale per vector) in one contiguous,
 * 64-byte aligned array whose rows are padded with zeros to a multiple of 64 bytes, and
 * as the float32 original. A query scans every int8 row (a fixed-length inner loop with
 * int32 accumulation that gcc -O2 vectorises: see vector_dot_i8), keeps the best
 * max(4k, 100) rows in a heap, and rescores those with float32 dot products. The int8
 * scan reads a quarter of the memory of a float32 scan; the rescoring makes the top k
 * exact as long as the true top k are among the candidates, which the quantization
 * error (at most scale / 2 per value) leaves with a wide margin.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


#include "base/log.h"
#include "base/topk.h"
#include "search/lexindex.h"
#include "search/vector.h"
#include "store/embeddings.h"

#define VEC_ALIGN	64
#define VEC_BLOCK	64	/* int8 row padding and inner loop length */
#define VEC_MIN_CAND	100	/* candidates rescored: max(4k, VEC_MIN_CAND) */

struct vecindex {
	size_t		 n, cap;
	size_t		 dim;
	size_t		 stride;	/* int8 row length: dim rounded up to VEC_BLOCK */
	int8_t		*q;		/* n rows of stride, 64-byte aligned */
	float		*scale;		/* per row: value = q * scale */
	float		*f;		/* n rows of dim float32, 64-byte aligned */
	long long	*ids;		/* snippets.id, ascending */
	long long	*docs;		/* snippets.document_id */
	int		*tokens;	/* snippets.tokens */
	size_t		 bytes;
	/* vector_index_wrap: the arrays are someone else's, given back by release(arg) */
	void		(*release)(void *);
	void		*release_arg;
	int		 wrapped;
};

/* A candidate of the int8 scan: its approximate score and row. */
struct vec_cand {
	float		 s;
	uint32_t	 row;
};

float
vector_norm(const float *v, size_t dim)
{
	double	 sum = 0;
	size_t	 i;

	for (i = 0; i < dim; i++)
		sum += (double)v[i] * v[i];
	return (float)sqrt(sum);
}

int
vector_normalize(float *v, size_t dim)
{
	double	 sum = 0, inv;
	size_t	 i;

	for (i = 0; i < dim; i++) {
		if (!isfinite(v[i]))
			return -1;
		sum += (double)v[i] * v[i];
	}
	if (dim == 0 || sum == 0 || !isfinite(sum))
		return -1;
	inv = 1.0 / sqrt(sum);
	for (i = 0; i < dim; i++)
		v[i] = (float)(v[i] * inv);
	return 0;
}

void
vector_quantize(const float *v, size_t dim, int8_t *q, float *scale)
{
	float	 max = 0, a;
	long	 r;
	size_t	 i;

	for (i = 0; i < dim; i++) {
		a = fabsf(v[i]);
		if (a > max)
			max = a;
	}
	*scale = max / 127.0f;
	for (i = 0; i < dim; i++) {
		if (max == 0) {
			q[i] = 0;
			continue;
		}
		r = lrintf(v[i] / *scale);
		if (r > 127)
			r = 127;
		else if (r < -127)
			r = -127;
		q[i] = (int8_t)r;
	}
}

/*
 * The dot product of the query q (int8 values widened to int16) with the int8 row r,
 * both stride long (a multiple of VEC_BLOCK) and VEC_ALIGN aligned. The inner loop has a
 * constant trip count, so gcc's -O2 ("very cheap") vectoriser takes it without a scalar
 * epilogue; int16 x int16 products summed into int32 are its dot-product pattern
 * (pmaddwd on SSE2), which int8 x int8 is not (gcc 12 widens both to int16, multiplies
 * with pmullw and widens again: 2.3 times slower). The row stays int8 in memory.
 */
static inline int32_t
vector_dot_i8(const int16_t *q, const int8_t *r, size_t stride)
{
	const int16_t	*pq = __builtin_assume_aligned(q, VEC_ALIGN);
	const int8_t	*pr = __builtin_assume_aligned(r, VEC_ALIGN);
	int32_t		 s = 0, t;
	size_t		 j, l;

	for (j = 0; j < stride; j += VEC_BLOCK) {
		t = 0;
		for (l = 0; l < VEC_BLOCK; l++)
			t += (int32_t)pq[j + l] * (int16_t)pr[j + l];
		s += t;
	}
	return s;
}

static float
vector_dot_f32(const float *a, const float *b, size_t dim)
{
	float	 s = 0;
	size_t	 i;

	for (i = 0; i < dim; i++)
		s += a[i] * b[i];
	return s;
}

static void *
vector_aligned(size_t n)
{
	void	*p;

	if (posix_memalign(&p, VEC_ALIGN, n ? n : VEC_ALIGN) != 0)
		return NULL;
	return p;
}

void
vector_index_free(struct vecindex *x)
{
	if (x == NULL)
		return;
	if (x->wrapped) {
		if (x->release != NULL)
			x->release(x->release_arg);
		free(x);
		return;
	}
	free(x->q);
	free(x->scale);
	free(x->f);
	free(x->ids);
	free(x->docs);
	free(x->tokens);
	free(x);
}

size_t
vector_index_count(const struct vecindex *x)
{
	return x->n;
}

size_t
vector_index_dim(const struct vecindex *x)
{
	return x->dim;
}

size_t
vector_index_bytes(const struct vecindex *x)
{
	return x->bytes;
}

size_t
vector_stride(size_t dim)
{
	return (dim + VEC_BLOCK - 1) / VEC_BLOCK * VEC_BLOCK;
}

void
vector_index_arrays(const struct vecindex *x, struct vector_arrays *a)
{
	a->n = x->n;
	a->dim = x->dim;
	a->stride = x->stride;
	a->q = x->q;
	a->scale = x->scale;
	a->f = x->f;
	a->ids = x->ids;
	a->docs = x->docs;
	a->tokens = x->tokens;
}

struct vecindex *
vector_index_wrap(const struct vector_arrays *a, void (*release)(void *), void *arg)
{
	struct vecindex	*x;

	if (a->dim > VECTOR_MAX_DIM || a->n > UINT32_MAX ||
	    a->stride != vector_stride(a->dim) || (a->n > 0 && (a->dim == 0 ||
	    a->q == NULL || a->scale == NULL || a->f == NULL || a->ids == NULL ||
	    a->docs == NULL || a->tokens == NULL || (uintptr_t)a->q % VEC_ALIGN != 0 ||
	    (uintptr_t)a->f % VEC_ALIGN != 0))) {
		errno = EINVAL;
		return NULL;
	}
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return NULL;
	/* Read-only: vector_index_search only reads them; the casts drop const for the struct. */
	x->n = x->cap = a->n;
	x->dim = a->dim;
	x->stride = a->stride;
	x->q = (int8_t *)(uintptr_t)a->q;
	x->scale = (float *)(uintptr_t)a->scale;
	x->f = (float *)(uintptr_t)a->f;
	x->ids = (long long *)(uintptr_t)a->ids;
	x->docs = (long long *)(uintptr_t)a->docs;
	x->tokens = (int *)(uintptr_t)a->tokens;
	x->bytes = sizeof(*x);
	x->release = release;
	x->release_arg = arg;
	x->wrapped = 1;
	return x;
}

int
vector_index_wrapped(const struct vecindex *x)
{
	return x->wrapped;
}

/* The per-row bytes of all arrays of x. */
static size_t
vector_rowbytes(const struct vecindex *x)
{
	return x->stride + sizeof(float) + x->dim * sizeof(float) +
	    2 * sizeof(long long) + sizeof(int);
}

/* Grows (or first allocates, once x->dim is set) the arrays of x to ncap rows. */
static int
vector_reserve(struct vecindex *x, size_t ncap)
{
	int8_t		*q = NULL;
	float		*scale = NULL, *f = NULL;
	long long	*ids = NULL, *docs = NULL;
	int		*tokens = NULL;

	if (ncap > UINT32_MAX || ncap > SIZE_MAX / vector_rowbytes(x))
		return -1;
	if ((q = vector_aligned(ncap * x->stride)) == NULL ||
	    (f = vector_aligned(ncap * x->dim * sizeof(float))) == NULL ||
	    (scale = calloc(ncap, sizeof(*scale))) == NULL ||
	    (ids = calloc(ncap, sizeof(*ids))) == NULL ||
	    (docs = calloc(ncap, sizeof(*docs))) == NULL ||
	    (tokens = calloc(ncap, sizeof(*tokens))) == NULL) {
		free(q);
		free(f);
		free(scale);
		free(ids);
		free(docs);
		free(tokens);
		return -1;
	}
	if (x->n > 0) {
		memcpy(q, x->q, x->n * x->stride);
		memcpy(f, x->f, x->n * x->dim * sizeof(float));
		memcpy(scale, x->scale, x->n * sizeof(*scale));
		memcpy(ids, x->ids, x->n * sizeof(*ids));
		memcpy(docs, x->docs, x->n * sizeof(*docs));
		memcpy(tokens, x->tokens, x->n * sizeof(*tokens));
	}
	free(x->q);
	free(x->f);
	free(x->scale);
	free(x->ids);
	free(x->docs);
	free(x->tokens);
	x->q = q;
	x->f = f;
	x->scale = scale;
	x->ids = ids;
	x->docs = docs;
	x->tokens = tokens;
	x->cap = ncap;
	x->bytes = sizeof(*x) + ncap * vector_rowbytes(x);
	return 0;
}

/* The index being built, and the rows skipped (wrong size or zero). */
struct vector_load {
	struct vecindex	*x;
	size_t		 hint, skipped;
};

static int
vector_load_row(const struct store_vector_row *r, void *arg)
{
	struct vector_load *l = arg;
	struct vecindex	*x = l->x;
	size_t		 dim;
	float		*f;

	if (r->dim <= 0 || r->dim > VECTOR_MAX_DIM ||
	    (x->dim != 0 && (size_t)r->dim != x->dim) ||
	    r->bytes != (size_t)r->dim * sizeof(float)) {
		l->skipped++;
		return 0;
	}
	dim = (size_t)r->dim;
	if (x->dim == 0) {
		x->dim = dim;
		x->stride = vector_stride(dim);
	}
	if (x->n == x->cap && vector_reserve(x, x->cap ? x->cap * 2 : l->hint) == -1)
		return -1;
	if (r->vector == NULL) {
		log_err("vector_index_build: out of memory");
		return -1;
	}
	f = x->f + x->n * dim;
	memcpy(f, r->vector, dim * sizeof(float));
	if (vector_normalize(f, dim) == -1) {
		l->skipped++;
		return 0;
	}
	vector_quantize(f, dim, x->q + x->n * x->stride, &x->scale[x->n]);
	memset(x->q + x->n * x->stride + dim, 0, x->stride - dim);
	x->ids[x->n] = r->snippet_id;
	x->docs[x->n] = r->document_id;
	x->tokens[x->n] = r->tokens;
	x->n++;
	return 0;
}

struct vecindex *
vector_index_build(struct db *db, const char *library_id, const char *model,
    long capacity_hint)
{
	struct vector_load l;

	memset(&l, 0, sizeof(l));
	l.hint = capacity_hint > 0 ? (size_t)capacity_hint : 64;
	if ((l.x = calloc(1, sizeof(*l.x))) == NULL)
		return NULL;
	l.x->bytes = sizeof(*l.x);
	if (store_vectors_load(db, library_id, model, vector_load_row, &l) == -1) {
		vector_index_free(l.x);
		return NULL;
	}
	if (l.skipped > 0)
		log_warn("%s: %s, model %s: %zu vectors skipped (wrong size or zero)",
		    __func__, library_id, model, l.skipped);
	return l.x;
}

/* 1 when candidate a ranks below b (lower score; on a tie, the later row). */
#define VEC_WORSE(a, b)	((a)->s < (b)->s || ((a)->s == (b)->s && (a)->row > (b)->row))
TOPK_DEFINE(vec_topk, struct vec_cand, VEC_WORSE)

int
vector_index_search(const struct vecindex *x, const float *query, size_t dim, size_t k,
    struct lexindex_hit *out, size_t *n)
{
	struct vec_cand	*heap = NULL, c;
	struct lexindex_hit *res = NULL;
	float		*qf = NULL, qscale;
	int8_t		*qq = NULL;
	int16_t		*qw = NULL;
	size_t		 ncand, nh = 0, i;
	int		 rc = -1;

	*n = 0;
	if (x->n == 0 || k == 0)
		return 0;
	if (dim != x->dim) {
		log_err("%s: query of dimension %zu for an index of %zu", __func__,
		    dim, x->dim);
		return -1;
	}
	ncand = k > SIZE_MAX / 4 ? SIZE_MAX : 4 * k;
	if (ncand < VEC_MIN_CAND)
		ncand = VEC_MIN_CAND;
	if (ncand > x->n)
		ncand = x->n;
	if ((qf = malloc(dim * sizeof(*qf))) == NULL ||
	    (qq = vector_aligned(x->stride)) == NULL ||
	    (qw = vector_aligned(x->stride * sizeof(*qw))) == NULL ||
	    (heap = calloc(ncand, sizeof(*heap))) == NULL ||
	    (res = calloc(ncand, sizeof(*res))) == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	memcpy(qf, query, dim * sizeof(*qf));
	if (vector_normalize(qf, dim) == -1) {
		log_err("%s: zero or non-finite query vector", __func__);
		goto out;
	}
	vector_quantize(qf, dim, qq, &qscale);
	memset(qq + dim, 0, x->stride - dim);
	for (i = 0; i < x->stride; i++)
		qw[i] = qq[i];

	/* The int8 scan; the query's own scale is common to all rows and left out. */
	for (i = 0; i < x->n; i++) {
		c.s = (float)vector_dot_i8(qw, x->q + i * x->stride, x->stride) *
		    x->scale[i];
		c.row = (uint32_t)i;
		vec_topk_offer(heap, &nh, ncand, &c);
	}

	/* The float32 rescoring of the candidates. */
	for (i = 0; i < nh; i++) {
		size_t	 row = heap[i].row;

		res[i].id = x->ids[row];
		res[i].doc = x->docs[row];
		res[i].tokens = x->tokens[row];
		res[i].score = vector_dot_f32(qf, x->f + row * dim, dim);
	}
	qsort(res, nh, sizeof(*res), lexindex_hit_cmp);
	*n = nh < k ? nh : k;
	memcpy(out, res, *n * sizeof(*out));
	rc = 0;
out:
	free(qf);
	free(qq);
	free(qw);
	free(heap);
	free(res);
	return rc;
}

/* One entry of a ranking, for the fusion. */
struct vec_rank {
	const struct lexindex_hit *hit;
	size_t		 list;		/* 0: a, 1: b */
	size_t		 rank;		/* from 1 */
};

static int
vector_rank_cmp(const void *a, const void *b)
{
	const struct vec_rank *x = a, *y = b;

	if (x->hit->id != y->hit->id)
		return x->hit->id < y->hit->id ? -1 : 1;
	if (x->list != y->list)
		return x->list < y->list ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int
vector_rrf(const struct lexindex_hit *a, size_t na, const struct lexindex_hit *b,
    size_t nb, double k_rrf, struct lexindex_hit *out, size_t max, size_t *n)
{
	struct vec_rank	*r = NULL;
	struct lexindex_hit *fused = NULL;
	size_t		 nr, nf = 0, i, j;
	double		 score[2];
	int		 rc = -1;

	*n = 0;
	if (!isfinite(k_rrf) || k_rrf < 0) {
		log_err("%s: k must be finite and not negative", __func__);
		return -1;
	}
	if (na > SIZE_MAX / 2 / sizeof(*r) || nb > SIZE_MAX / 2 / sizeof(*r))
		return -1;
	nr = na + nb;
	if (nr == 0 || max == 0)
		return 0;
	if ((r = calloc(nr, sizeof(*r))) == NULL ||
	    (fused = calloc(nr, sizeof(*fused))) == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	for (i = 0; i < na; i++) {
		r[i].hit = &a[i];
		r[i].list = 0;
		r[i].rank = i + 1;
	}
	for (i = 0; i < nb; i++) {
		r[na + i].hit = &b[i];
		r[na + i].list = 1;
		r[na + i].rank = i + 1;
	}
	/* Grouped by id; in a group, a's entries first, each list's best rank first. */
	qsort(r, nr, sizeof(*r), vector_rank_cmp);
	for (i = 0; i < nr; i = j) {
		score[0] = score[1] = 0;
		for (j = i; j < nr && r[j].hit->id == r[i].hit->id; j++)
			if (score[r[j].list] == 0)
				score[r[j].list] = 1.0 / (k_rrf + (double)r[j].rank);
		fused[nf] = *r[i].hit;
		fused[nf].score = score[0] + score[1];
		nf++;
	}
	qsort(fused, nf, sizeof(*fused), lexindex_hit_cmp);
	*n = nf < max ? nf : max;
	memcpy(out, fused, *n * sizeof(*out));
	rc = 0;
out:
	free(r);
	free(fused);
	return rc;
}
