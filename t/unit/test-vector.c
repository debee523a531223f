/*
 * test-vector.c: int8 quantization error bounds, normalisation, exactness of the
 * quantized search against a float brute force, reciprocal rank fusion, loading an index
 * from the embeddings rows and the vectors they name, and the collection of the vectors
 * no row names (shared across versions).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "index/embedder.h"
#include "search/lexindex.h"
#include "search/vector.h"
#include "store/db.h"
#include "tap.h"
#include "store/conn.h"

/*
 * Stores vector v (blen bytes, dim floats) of model under hash, unless one is stored there
 * (the vectors are shared by (model, hash), sql/0011-shared-vectors.sql), and the
 * embeddings row naming it for snippet id. 0, or -1 with the error printed.
 */
static int
put_vector(struct db *db, long long id, const char *model, const char *hash, long long dim,
    const void *v, int blen)
{
	sqlite3_stmt	*sv = NULL, *se = NULL;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO vectors (model, hash, dim, vector) VALUES "
	    "(?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING", -1, &sv, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db_lite(db), "INSERT INTO embeddings (snippet_id, model, hash) "
	    "VALUES (?1, ?2, ?3)", -1, &se, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(sv, 1, model, -1, SQLITE_STATIC);
	sqlite3_bind_text(sv, 2, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(sv, 3, dim);
	sqlite3_bind_blob(sv, 4, v, blen, SQLITE_STATIC);
	sqlite3_bind_int64(se, 1, id);
	sqlite3_bind_text(se, 2, model, -1, SQLITE_STATIC);
	sqlite3_bind_text(se, 3, hash, -1, SQLITE_STATIC);
	if (sqlite3_step(sv) == SQLITE_DONE && sqlite3_step(se) == SQLITE_DONE)
		rc = 0;
out:
	if (rc == -1)
		printf("# put_vector %lld: %s\n", id, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(sv);
	sqlite3_finalize(se);
	return rc;
}

/* The first column of the one-row answer of sql, or -1. */
static long long
count(struct db *db, const char *sql)
{
	sqlite3_stmt	*st;
	long long	 n = -1;

	if (sqlite3_prepare_v2(db_lite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: a fixed sequence on every platform. */
static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* Uniform in (-1, 1). */
static float
rng_float(void)
{
	return (float)((double)(rng() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static void
rng_vector(float *v, size_t dim)
{
	size_t	 i;

	for (i = 0; i < dim; i++)
		v[i] = rng_float();
}

static void
test_quantize(void)
{
	float	 v[300], scale, err, maxerr = 0, max = 0;
	int8_t	 q[300];
	size_t	 i;
	int	 in_range = 1, extreme = 0;

	rng_vector(v, 300);
	v[17] = -3.5f;			/* the largest magnitude, negative */
	vector_quantize(v, 300, q, &scale);
	for (i = 0; i < 300; i++)
		if (fabsf(v[i]) > max)
			max = fabsf(v[i]);
	ok(scale == max / 127.0f, "scale is max|v| / 127 (%g)", scale);
	is_int(q[17], -127, "the largest magnitude maps to -127");
	for (i = 0; i < 300; i++) {
		err = fabsf(v[i] - q[i] * scale);
		if (err > maxerr)
			maxerr = err;
		if (q[i] == INT8_MIN)
			in_range = 0;
		if (q[i] == 127 || q[i] == -127)
			extreme++;
	}
	ok(in_range, "no value is -128 (symmetric range)");
	is_int(extreme, 1, "only the largest value is at the limit");
	ok(maxerr <= scale / 2 * 1.0001f, "error %g <= scale / 2 (%g)", maxerr, scale / 2);
	ok(maxerr > scale / 4, "error is not trivially small (%g): values are rounded",
	    maxerr);

	/* Rounding to nearest, symmetric. */
	{
		float	 w[5] = { 1.0f, -1.0f, 0.5f / 127 * 1.01f, -0.5f / 127 * 0.99f, 0 };
		int8_t	 r[5];

		vector_quantize(w, 5, r, &scale);
		ok(r[0] == 127 && r[1] == -127 && r[2] == 1 && r[3] == 0 && r[4] == 0,
		    "rounds to nearest: %d %d %d %d %d", r[0], r[1], r[2], r[3], r[4]);
	}
	/* All zero. */
	{
		float	 z[4] = { 0, 0, 0, 0 };
		int8_t	 r[4] = { 1, 1, 1, 1 };

		vector_quantize(z, 4, r, &scale);
		ok(scale == 0 && r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0,
		    "zero vector: scale 0, all zero");
	}
	/* The dot product estimate of two quantized vectors. */
	{
		float	 a[256], b[256], sa, sb, exact = 0, bound = 0;
		int8_t	 qa[256], qb[256];
		long	 dot = 0;

		rng_vector(a, 256);
		rng_vector(b, 256);
		vector_quantize(a, 256, qa, &sa);
		vector_quantize(b, 256, qb, &sb);
		for (i = 0; i < 256; i++) {
			exact += a[i] * b[i];
			dot += (long)qa[i] * qb[i];
			/* |ab - a'b'| <= |a||b - b'| + |b'||a - a'| */
			bound += fabsf(a[i]) * sb / 2 + fabsf(qb[i] * sb) * sa / 2;
		}
		ok(fabsf(exact - (float)dot * sa * sb) <= bound * 1.001f,
		    "dot product error %g within %g", fabsf(exact - (float)dot * sa * sb),
		    bound);
	}
}

static void
test_normalize(void)
{
	float	 v[3] = { 3, 4, 0 }, z[3] = { 0, 0, 0 }, bad[2] = { 1, NAN };
	float	 big[128];

	ok(fabsf(vector_norm(v, 3) - 5.0f) < 1e-6f, "norm of (3, 4, 0) is 5");
	ok(vector_normalize(v, 3) == 0, "normalize");
	ok(fabsf(v[0] - 0.6f) < 1e-6f && fabsf(v[1] - 0.8f) < 1e-6f && v[2] == 0,
	    "(0.6, 0.8, 0): %g %g %g", v[0], v[1], v[2]);
	ok(fabsf(vector_norm(v, 3) - 1.0f) < 1e-6f, "unit norm after");
	ok(vector_normalize(z, 3) == -1, "zero vector refused");
	ok(vector_normalize(bad, 2) == -1 && bad[0] == 1, "NaN refused, vector unchanged");
	ok(vector_normalize(v, 0) == -1, "empty vector refused");
	rng_vector(big, 128);
	for (size_t i = 0; i < 128; i++)
		big[i] *= 1000;
	ok(vector_normalize(big, 128) == 0 && fabsf(vector_norm(big, 128) - 1) < 1e-5f,
	    "large values normalise to unit norm");
}

struct ref {
	double	 score;
	long long id;
};

static int
ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Inserts n random vectors of dim, normalised, as snippets 1..n of '/t/t' (model m). */
static int
insert_vectors(struct db *db, const char *model, float *vecs, size_t n, size_t dim)
{
	sqlite3_stmt	*s = NULL;
	char		 hash[32];
	size_t		 i;
	int		 rc = -1;

	if (db_begin(db) == -1)
		return -1;
	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO snippets (id, library_id, document_id, "
	    "ord, title, breadcrumb, anchor, text, tokens) VALUES (?1, '/t/t', 1 + ?1 % 7, "
	    "?1, '', '', '', 'text', 10 + ?1)", -1, &s, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		rng_vector(vecs + i * dim, dim);
		vector_normalize(vecs + i * dim, dim);
		sqlite3_bind_int64(s, 1, (long long)i + 1);
		if (sqlite3_step(s) != SQLITE_DONE)
			goto out;
		sqlite3_reset(s);
		snprintf(hash, sizeof(hash), "t%zu", i + 1);
		if (put_vector(db, (long long)i + 1, model, hash, (long long)dim,
		    vecs + i * dim, (int)(dim * sizeof(float))) == -1)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		printf("# %s\n", sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(s);
	if (rc == 0)
		rc = db_commit(db);
	else
		db_rollback(db);
	return rc;
}

#define NVEC	5000
#define DIM	256
#define K	10

/* The quantized search returns exactly the float brute force's top k. */
static void
test_search(struct db *db)
{
	struct vecindex	*x, *small;
	struct lexindex_hit hits[K + 1];
	struct ref	*ref;
	float		*vecs, q[DIM], qn[DIM];
	size_t		 n, i, j, same = 0, scores = 0, fields = 0;
	int		 qi;

	vecs = calloc(NVEC * DIM, sizeof(*vecs));
	ref = calloc(NVEC, sizeof(*ref));
	if (vecs == NULL || ref == NULL)
		abort();
	ok(insert_vectors(db, "m256", vecs, NVEC, DIM) == 0, "%d vectors stored", NVEC);
	x = vector_index_build(db, "/t/t", "m256", NVEC);
	ok(x != NULL, "index built");
	if (x == NULL)
		goto out;
	is_int(vector_index_count(x), NVEC, "all vectors loaded");
	is_int(vector_index_dim(x), DIM, "dimension");
	ok(vector_index_bytes(x) >= (size_t)NVEC * DIM * 5,
	    "bytes counts int8 + float32 (%zu)",
	    vector_index_bytes(x));
	/* A capacity hint that is short grows the arrays. */
	small = vector_index_build(db, "/t/t", "m256", 3);
	ok(small != NULL && vector_index_count(small) == NVEC, "short hint: arrays grow");

	for (qi = 0; qi < 20; qi++) {
		rng_vector(q, DIM);
		memcpy(qn, q, sizeof(q));
		vector_normalize(qn, DIM);
		for (i = 0; i < NVEC; i++) {
			double	 d = 0;

			for (j = 0; j < DIM; j++)
				d += (double)qn[j] * vecs[i * DIM + j];
			ref[i].score = d;
			ref[i].id = (long long)i + 1;
		}
		qsort(ref, NVEC, sizeof(*ref), ref_cmp);
		/* The query is passed unnormalised: the search normalises a copy. */
		if (vector_index_search(x, q, DIM, K, hits, &n) == -1 || n != K)
			continue;
		for (i = 0; i < K; i++) {
			same += hits[i].id == ref[i].id;
			scores += fabs(hits[i].score - ref[i].score) < 1e-5;
			fields += hits[i].doc == 1 + hits[i].id % 7 &&
			    hits[i].tokens == 10 + hits[i].id;
		}
		if (qi == 0 && small != NULL) {
			struct lexindex_hit h2[K];
			size_t	 n2;

			ok(vector_index_search(small, q, DIM, K, h2, &n2) == 0 && n2 == K &&
			    memcmp(h2, hits, sizeof(h2)) == 0,
			    "index built with a short hint answers the same");
		}
	}
	is_int(same, 20 * K, "top-10 ids identical to the float brute force (20 queries)");
	is_int(scores, 20 * K, "scores are the float32 cosines (within 1e-5)");
	is_int(fields, 20 * K, "doc and tokens of each hit");

	/* Scores best first; the hit list is exactly k long. */
	rng_vector(q, DIM);
	ok(vector_index_search(x, q, DIM, K, hits, &n) == 0 && n == K, "search");
	for (i = 1, j = 1; i < n; i++)
		j &= hits[i - 1].score >= hits[i].score;
	ok(j, "best first");
	ok(vector_index_search(x, q, DIM, 1, hits, &n) == 0 && n == 1, "k = 1");
	ok(vector_index_search(x, q, DIM, 0, hits, &n) == 0 && n == 0, "k = 0: no hits");
	ok(vector_index_search(x, q, DIM - 1, K, hits, &n) == -1 && n == 0,
	    "wrong dimension refused");
	memset(q, 0, sizeof(q));
	ok(vector_index_search(x, q, DIM, K, hits, &n) == -1 && n == 0,
	    "zero query refused");
	vector_index_free(small);
	vector_index_free(x);
out:
	free(vecs);
	free(ref);
}

/* Loading: model, library, skipped rows, exact scores, cascade on delete. */
static void
test_build(struct db *db)
{
	static const float v3[][3] = { { 1, 0, 0 }, { 0, 2, 0 }, { 0.6f, 0.8f, 0 },
	    { 0, 0, 0 } };
	static const float v4[4] = { 1, 1, 1, 1 };
	struct vecindex	*x;
	struct lexindex_hit hits[8];
	sqlite3_stmt	*st;
	float		 q[3] = { 1, 1, 0 };
	size_t		 n, i;
	int		 rc = 0;

	rc |= db_exec(db, "INSERT INTO libraries (id, lib_no, url, host, title, "
	    "created_at, updated_at) VALUES ('/t/u', 2, 'https://h/t/u', 'h', 'u', 'x', "
	    "'x'); INSERT INTO documents (id, library_id, path, blob, title) VALUES "
	    "(20, '/t/u', 'u.md', 'b', 'U'); INSERT INTO snippets (id, library_id, "
	    "document_id, ord, title, breadcrumb, anchor, text, tokens) VALUES "
	    "(10001, '/t/u', 20, 1, '', '', '', 'a', 5), "
	    "(10002, '/t/u', 20, 2, '', '', '', 'b', 6), "
	    "(10003, '/t/u', 20, 3, '', '', '', 'c', 7), "
	    "(10004, '/t/u', 20, 4, '', '', '', 'zero', 8), "
	    "(10005, '/t/u', 20, 5, '', '', '', 'dim 4', 9)");
	for (i = 0; i < 5; i++) {
		char	 hash[8];

		snprintf(hash, sizeof(hash), "u%zu", i + 1);
		if (i < 4)
			rc |= put_vector(db, 10001 + (long long)i, "m3", hash, 3, v3[i],
			    sizeof(v3[i]));
		else
			rc |= put_vector(db, 10001 + (long long)i, "m3", hash, 4, v4,
			    sizeof(v4));
	}
	ok(rc == 0, "library /t/u with 5 vectors of model m3");

	x = vector_index_build(db, "/t/u", "m3", 5);
	ok(x != NULL && vector_index_count(x) == 3 && vector_index_dim(x) == 3,
	    "zero vector and other dimension skipped: 3 vectors of dim 3");
	if (x != NULL) {
		ok(vector_index_search(x, q, 3, 8, hits, &n) == 0, "search");
		is_int(n, 3, "k larger than the index: all vectors");
		ok(n == 3 && hits[0].id == 10003 && hits[1].id == 10001 &&
		    hits[2].id == 10002, "order 10003, 10001, 10002 (tie by id)");
		ok(n == 3 && fabs(hits[0].score - 1.4 / sqrt(2)) < 1e-6 &&
		    fabs(hits[1].score - 1 / sqrt(2)) < 1e-6 &&
		    hits[1].score == hits[2].score,
		    "cosine scores (stored (0, 2, 0) normalised on load)");
		ok(n == 3 && hits[0].doc == 20 && hits[0].tokens == 7, "doc and tokens");
	}
	vector_index_free(x);

	x = vector_index_build(db, "/t/u", "other", 0);
	ok(x != NULL && vector_index_count(x) == 0 && vector_index_dim(x) == 0,
	    "another model: empty index");
	if (x != NULL)
		ok(vector_index_search(x, q, 3, 5, hits, &n) == 0 && n == 0,
		    "empty index: no hits");
	vector_index_free(x);
	x = vector_index_build(db, "/no/such", "m3", 0);
	ok(x != NULL && vector_index_count(x) == 0, "unknown library: empty index");
	vector_index_free(x);
	x = vector_index_build(db, "/t/t", "m3", 0);
	ok(x != NULL && vector_index_count(x) == 0, "vectors of another library not loaded");
	vector_index_free(x);

	/* ON DELETE CASCADE: a deleted snippet takes its vectors with it. */
	ok(db_exec(db, "DELETE FROM snippets WHERE id = 10003") == 0, "snippet deleted");
	x = vector_index_build(db, "/t/u", "m3", 0);
	ok(x != NULL && vector_index_count(x) == 2, "its vector is gone");
	vector_index_free(x);
	if (sqlite3_prepare_v2(db_lite(db), "SELECT count(*) FROM embeddings WHERE snippet_id = "
	    "10003", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		is_int(sqlite3_column_int(st, 0), 0, "no embeddings row left");
	else
		ok(0, "count embeddings");
	sqlite3_finalize(st);
}

/*
 * Vectors shared by content (sql/0011-shared-vectors.sql): two libraries (two versions)
 * whose snippets name one stored vector each load it; an embeddings row needs its vector
 * (foreign key); embedder_gc deletes only the vectors no row of any library names, inside
 * the caller's transaction when one is open.
 */
static void
test_shared(struct db *db)
{
	static const float a[4] = { 1, 0, 0, 0 }, b[4] = { 0, 1, 0, 0 };
	static const float q[4] = { 1, 0, 0, 0 };
	struct vecindex	*x;
	struct lexindex_hit h[4];
	size_t		 n, gone = 99;
	int		 rc;

	rc = db_exec(db, "INSERT INTO libraries (id, lib_no, url, host, title, "
	    "created_at, updated_at, version_of) VALUES "
	    "('/t/w', 4, 'https://h/t/w', 'h', 'w', 'x', 'x', NULL), "
	    "('/t/w/v1', 5, 'https://h/t/w', 'h', 'w', 'x', 'x', '/t/w'); "
	    "INSERT INTO documents (id, library_id, path, blob, title) VALUES "
	    "(40, '/t/w', 'w.md', 'b', 'W'), (50, '/t/w/v1', 'w.md', 'b', 'W'); "
	    "INSERT INTO snippets (id, library_id, document_id, ord, title, breadcrumb, "
	    "anchor, text, tokens) VALUES (40001, '/t/w', 40, 1, '', '', '', 'same', 3), "
	    "(40002, '/t/w', 40, 2, '', '', '', 'only w', 4), "
	    "(50001, '/t/w/v1', 50, 1, '', '', '', 'same', 3)");
	rc |= put_vector(db, 40001, "ms", "same", 4, a, sizeof(a));
	rc |= put_vector(db, 40002, "ms", "only-w", 4, b, sizeof(b));
	/* The copy's row names the stored vector; its own value is not stored. */
	rc |= put_vector(db, 50001, "ms", "same", 4, b, sizeof(b));
	ok(rc == 0, "two versions, three embeddings rows of model ms");
	is_int(count(db, "SELECT count(*) FROM vectors WHERE model = 'ms'"), 2,
	    "two vectors stored: one per (model, hash)");
	ok(db_exec(db, "INSERT INTO embeddings (snippet_id, model, hash) VALUES "
	    "(40002, 'ms2', 'nowhere')") == -1, "a row naming no stored vector is refused");

	x = vector_index_build(db, "/t/w/v1", "ms", 1);
	ok(x != NULL && vector_index_count(x) == 1 &&
	    vector_index_search(x, q, 4, 4, h, &n) == 0 && n == 1 && h[0].id == 50001 &&
	    fabs(h[0].score - 1) < 1e-6, "the copy loads the shared vector (score %g)",
	    x != NULL && n > 0 ? h[0].score : 0);
	vector_index_free(x);

	/* test_build deleted snippet 10003: its vector is unnamed too. */
	ok(db_exec(db, "DELETE FROM snippets WHERE library_id = '/t/w'") == 0,
	    "the default branch's snippets deleted");
	is_int(count(db, "SELECT count(*) FROM embeddings WHERE snippet_id IN (40001, "
	    "40002)"), 0, "their embeddings rows went with them");
	ok(db_begin(db) == 0 && embedder_gc(db, &gone) == 0, "collect in a transaction");
	is_int(count(db, "SELECT count(*) FROM vectors WHERE model = 'ms'"), 1,
	    "... the vector only it named is gone");
	db_rollback(db);
	is_int(count(db, "SELECT count(*) FROM vectors WHERE model = 'ms'"), 2,
	    "... and back after the caller's rollback");
	ok(embedder_gc(db, &gone) == 0, "collect on its own");
	is_int(gone, 2, "two vectors deleted: only-w and test_build's deleted snippet's");
	is_int(count(db, "SELECT count(*) FROM vectors WHERE model = 'ms' AND hash = 'same'"),
	    1, "the vector the version still names stays");
	is_int(count(db, "SELECT count(*) FROM vectors WHERE model = 'm3'"), 4,
	    "m3: the vectors of the snippets left stay");
	x = vector_index_build(db, "/t/w/v1", "ms", 1);
	ok(x != NULL && vector_index_count(x) == 1 &&
	    vector_index_search(x, q, 4, 4, h, &n) == 0 && n == 1 && h[0].id == 50001,
	    "the version still loads it");
	vector_index_free(x);
	ok(embedder_gc(db, &gone) == 0 && gone == 0, "a second collection finds nothing");
	ok(db_exec(db, "DELETE FROM snippets WHERE library_id = '/t/w/v1'") == 0 &&
	    embedder_gc(db, &gone) == 0 && gone == 1, "the version deleted: its vector too");
	is_int(count(db, "SELECT count(*) FROM vectors WHERE model = 'ms'"), 0,
	    "no vector of ms left");
	is_int(count(db, "SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM "
	    "embeddings e WHERE e.model = v.model AND e.hash = v.hash)"), 0,
	    "no vector unnamed");
}

/*
 * The per-vector scales take part in the int8 ranking: 150 flat vectors (every value
 * +-1/8, small scale) score below one spiky vector (1, 0, ...) in float32 but above it
 * in int8 units; only the scaled int8 scores keep the spiky one among the 100
 * candidates of a k = 1 search.
 */
static void
test_scales(struct db *db)
{
	struct vecindex	*x;
	struct lexindex_hit h[1];
	sqlite3_stmt	*st = NULL;
	float		 v[64], q[64];
	char		 hash[16];
	size_t		 i, j, n;
	int		 rc;

	rc = db_exec(db, "INSERT INTO libraries (id, lib_no, url, host, title, "
	    "created_at, updated_at) VALUES ('/t/v', 3, 'https://h/t/v', 'h', 'v', 'x', "
	    "'x'); INSERT INTO documents (id, library_id, path, blob, title) VALUES "
	    "(30, '/t/v', 'v.md', 'b', 'V')");
	rc |= db_begin(db);
	for (i = 0; i <= 150 && rc == 0; i++) {
		if (i == 0) {
			memset(v, 0, sizeof(v));
			v[0] = 1;
		} else {
			for (j = 0; j < 64; j++)
				v[j] = 0.125f;
			for (j = 0; j < 10; j++)
				v[1 + rng() % 63] = -0.125f;
		}
		if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO snippets (id, library_id, "
		    "document_id, ord, title, breadcrumb, anchor, text, tokens) VALUES "
		    "(?1, '/t/v', 30, ?1, '', '', '', 'v', 1)", -1, &st, NULL) !=
		    SQLITE_OK) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(st, 1, 20000 + (long long)i);
		rc |= sqlite3_step(st) != SQLITE_DONE;
		sqlite3_finalize(st);
		snprintf(hash, sizeof(hash), "v%zu", i);
		rc |= put_vector(db, 20000 + (long long)i, "m64", hash, 64, v, sizeof(v));
	}
	if (rc == 0)
		rc = db_commit(db);
	else
		db_rollback(db);
	ok(rc == 0, "library /t/v: 1 spiky and 150 flat vectors");
	x = vector_index_build(db, "/t/v", "m64", 151);
	ok(x != NULL && vector_index_count(x) == 151, "index of 151 vectors");
	if (x == NULL)
		return;
	q[0] = 1;
	for (j = 1; j < 64; j++)
		q[j] = 0.1f;
	rc = vector_index_search(x, q, 64, 1, h, &n);
	ok(rc == 0 && n == 1 && h[0].id == 20000 &&
	    fabs(h[0].score - 1 / sqrt(1 + 63 * 0.01)) < 1e-5,
	    "the spiky vector is the best (id %lld, score %g)", n ? h[0].id : 0,
	    n ? h[0].score : 0);
	vector_index_free(x);
}

static struct lexindex_hit
hit(long long id, long long doc, int tokens)
{
	struct lexindex_hit h = { id, doc, tokens, 0.5, 0 };

	return h;
}

static void
test_rrf(void)
{
	struct lexindex_hit a[4], b[5], out[10];
	struct {
		long long id, doc;
		int	 tokens;
		double	 score;
	} want[6] = {
		{ 10, 1, 100, 1.0 / 61 + 1.0 / 63 },
		{ 30, 3, 300, 1.0 / 63 + 1.0 / 61 },
		{ 20, 2, 200, 1.0 / 62 },
		{ 50, 5, 500, 1.0 / 62 },
		{ 40, 4, 400, 1.0 / 64 },
		{ 60, 6, 600, 1.0 / 65 },
	};
	size_t	 n, i, good = 0;

	a[0] = hit(10, 1, 100);
	a[1] = hit(20, 2, 200);
	a[2] = hit(30, 3, 300);
	a[3] = hit(40, 4, 400);
	b[0] = hit(30, 99, 999);	/* doc/tokens taken from a, which has 30 too */
	b[1] = hit(50, 5, 500);
	b[2] = hit(10, 99, 999);
	b[3] = hit(30, 99, 999);	/* repeated: counts once, at rank 1 */
	b[4] = hit(60, 6, 600);

	ok(vector_rrf(a, 4, b, 5, 60, out, 10, &n) == 0, "rrf");
	is_int(n, 6, "6 distinct snippets");
	for (i = 0; i < n && i < 6; i++) {
		if (out[i].id == want[i].id && out[i].doc == want[i].doc &&
		    out[i].tokens == want[i].tokens && fabs(out[i].score - want[i].score) <
		    1e-15)
			good++;
		else
			printf("# %zu: id %lld doc %lld tokens %d score %.17g\n", i, out[i].id,
			    out[i].doc, out[i].tokens, out[i].score);
	}
	is_int(good, 6, "order 10, 30, 20, 50, 40, 60 with exact scores, doc and tokens");
	ok(n == 6 && out[0].score == out[1].score && out[2].score == out[3].score,
	    "equal sums tie exactly (broken by id)");

	ok(vector_rrf(a, 4, b, 5, 60, out, 4, &n) == 0 && n == 4 && out[3].id == 50,
	    "max 4: the best 4");
	ok(vector_rrf(a, 4, b, 5, 60, out, 0, &n) == 0 && n == 0, "max 0: none");
	ok(vector_rrf(NULL, 0, NULL, 0, 60, out, 10, &n) == 0 && n == 0,
	    "both empty: none");
	ok(vector_rrf(NULL, 0, b, 5, 60, out, 10, &n) == 0 && n == 4 &&
	    out[0].id == 30 && out[0].doc == 99 && out[0].score == 1.0 / 61 &&
	    out[1].id == 50 && out[2].id == 10 && out[2].score == 1.0 / 63 &&
	    out[3].id == 60 && out[3].score == 1.0 / 65,
	    "a empty: b's order, its repeat dropped, doc from b");
	ok(vector_rrf(a, 4, NULL, 0, 0, out, 10, &n) == 0 && n == 4 &&
	    out[0].score == 1.0 && out[1].score == 0.5 && out[3].id == 40 &&
	    out[3].score == 0.25, "k 0: scores 1 / rank");
	ok(vector_rrf(a, 4, b, 5, -1, out, 10, &n) == -1 && n == 0, "negative k refused");
	ok(vector_rrf(a, 4, b, 5, NAN, out, 10, &n) == -1, "NaN k refused");
}

int
main(void)
{
	char	 tmpl[] = "/tmp/test-vector.XXXXXX";
	char	 cmd[128];
	struct db	*db = NULL;

	log_init("test-vector");
	test_quantize();
	test_normalize();
	test_rrf();

	if (mkdtemp(tmpl) == NULL)
		return 1;
	ok(db_open(tmpl, DB_READWRITE, &db) == 0, "database");
	ok(db_exec(db, "INSERT INTO libraries (id, lib_no, url, host, title, created_at, "
	    "updated_at) VALUES ('/t/t', 1, 'https://h/t/t', 'h', 't', 'x', 'x');"
	    "INSERT INTO documents (id, library_id, path, blob, title) VALUES "
	    "(1, '/t/t', 'a', 'b', 'A'), (2, '/t/t', 'b', 'b', 'B'), "
	    "(3, '/t/t', 'c', 'b', 'C'), (4, '/t/t', 'd', 'b', 'D'), "
	    "(5, '/t/t', 'e', 'b', 'E'), (6, '/t/t', 'f', 'b', 'F'), "
	    "(7, '/t/t', 'g', 'b', 'G')") == 0, "library and documents");
	test_search(db);
	test_build(db);
	test_scales(db);
	test_shared(db);
	db_close(db);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	ok(system(cmd) == 0, "cleanup");
	return tap_done();
}
