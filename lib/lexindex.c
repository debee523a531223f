/*
 * lexindex.c: one library's lexical index held in a query process's memory.
 *
 * FTS5's bm25() costs thousands of instructions per matching row (it reads position
 * lists and looks up each row's size), and a question's OR of terms matches most of a
 * large library. So the query path loads a library's index terms once, from the FTS5
 * table itself and through the same porter(ctxd) token chain, into postings held in
 * memory, and scores BM25 in a tight loop: about 50 instructions per posting. The
 * scoring is FTS5's bm25 (k1 1.2, b 0.75, per-column weights on term frequency, the
 * row's token count as its length), with IDF taken over the library.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ctxd.h"

#define LEX_K1		1.2
#define LEX_B		0.75
#define LEX_MAXTERMS	64

/* Column weights, as in SEARCH_RANK_SQL: title, breadcrumb, body, code, path. */
static const float lex_weights[5] = { 6.0f, 3.0f, 1.0f, 1.0f, 3.0f };

struct lex_posting {
	uint32_t	 snip;
	float		 tf;		/* column-weighted term frequency */
};

struct lex_term {
	char		*term;		/* NULL: empty slot */
	uint32_t	 hash;
	uint32_t	 npost, cap;
	struct lex_posting *post;
};

struct lexindex {
	size_t		 nsnip;
	long long	*ids;
	long long	*docs;
	int		*tokens;	/* budget tokens of each snippet */
	float		*len;		/* index tokens of each snippet (BM25 length) */
	float		*norm;		/* k1 * (1 - b + b * len / avgdl), per snippet */
	double		 avgdl;
	struct lex_term	*tab;		/* open addressing, power-of-two size */
	size_t		 tabcap, nterms;
	float		*score;		/* scratch for one query, nsnip entries */
	uint32_t	*touched;
	size_t		 bytes;
};

static uint32_t
lex_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t	 i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The slot of term s (found, or the empty slot where it belongs). */
static struct lex_term *
lex_slot(struct lexindex *x, const char *s, size_t n, uint32_t h)
{
	size_t	 i = h & (x->tabcap - 1);

	for (;;) {
		struct lex_term *t = &x->tab[i];

		if (t->term == NULL || (t->hash == h && strncmp(t->term, s, n) == 0 &&
		    t->term[n] == '\0'))
			return t;
		i = (i + 1) & (x->tabcap - 1);
	}
}

static int
lex_grow(struct lexindex *x)
{
	struct lex_term	*old = x->tab, *t;
	size_t		 oldcap = x->tabcap, i;

	x->tabcap = oldcap ? oldcap * 2 : 4096;
	if ((x->tab = calloc(x->tabcap, sizeof(*x->tab))) == NULL) {
		x->tab = old;
		x->tabcap = oldcap;
		return -1;
	}
	for (i = 0; i < oldcap; i++) {
		if (old[i].term == NULL)
			continue;
		t = lex_slot(x, old[i].term, strlen(old[i].term), old[i].hash);
		*t = old[i];
	}
	free(old);
	return 0;
}

struct lex_build {
	struct lexindex	*x;
	uint32_t	 snip;
	float		 weight;
	float		 len;
	int		 failed;
};

/* Adds one token of the current snippet and column to the postings. */
static int
lex_add(void *ctx, const char *tok, size_t n, int colocated)
{
	struct lex_build *b = ctx;
	struct lexindex	*x = b->x;
	struct lex_term	*t;
	uint32_t	 h = lex_hash(tok, n);

	if (!colocated)
		b->len += 1.0f;
	if (b->weight == 0.0f)
		return 0;
	if ((x->nterms + 1) * 2 > x->tabcap && lex_grow(x) == -1)
		goto fail;
	t = lex_slot(x, tok, n, h);
	if (t->term == NULL) {
		if ((t->term = strndup(tok, n)) == NULL)
			goto fail;
		t->hash = h;
		x->nterms++;
		x->bytes += n + 1 + sizeof(*t);
	}
	if (t->npost > 0 && t->post[t->npost - 1].snip == b->snip) {
		t->post[t->npost - 1].tf += b->weight;
		return 0;
	}
	if (t->npost == t->cap) {
		struct lex_posting *np;
		uint32_t ncap = t->cap ? t->cap * 2 : 4;

		if ((np = reallocarray(t->post, ncap, sizeof(*np))) == NULL)
			goto fail;
		x->bytes += (ncap - t->cap) * sizeof(*np);
		t->post = np;
		t->cap = ncap;
	}
	t->post[t->npost].snip = b->snip;
	t->post[t->npost].tf = b->weight;
	t->npost++;
	return 0;
fail:
	b->failed = 1;
	return 1;
}

void
lexindex_free(struct lexindex *x)
{
	size_t	 i;

	if (x == NULL)
		return;
	for (i = 0; i < x->tabcap; i++) {
		free(x->tab[i].term);
		free(x->tab[i].post);
	}
	free(x->tab);
	free(x->ids);
	free(x->docs);
	free(x->tokens);
	free(x->len);
	free(x->norm);
	free(x->score);
	free(x->touched);
	free(x);
}

struct lexindex *
lexindex_build(sqlite3 *db, struct tokenize_stemmer *stem, const char *library_id,
    long nsnippets)
{
	static const char sql[] =
	    "SELECT s.id, s.document_id, s.tokens, f.title, f.breadcrumb, f.body, "
	    "f.code, f.path FROM snippets s JOIN snippets_fts f ON f.rowid = s.id "
	    "WHERE s.library_id = ?1 ORDER BY s.id";
	struct lexindex	*x;
	struct lex_build b;
	sqlite3_stmt	*st = NULL;
	size_t		 cap = nsnippets > 0 ? (size_t)nsnippets : 64;
	double		 total = 0;
	int		 step, col;

	if ((x = calloc(1, sizeof(*x))) == NULL)
		return NULL;
	if (lex_grow(x) == -1)
		goto fail;
	if ((x->ids = calloc(cap, sizeof(*x->ids))) == NULL ||
	    (x->docs = calloc(cap, sizeof(*x->docs))) == NULL ||
	    (x->tokens = calloc(cap, sizeof(*x->tokens))) == NULL ||
	    (x->len = calloc(cap, sizeof(*x->len))) == NULL)
		goto fail;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	memset(&b, 0, sizeof(b));
	b.x = x;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		/* The library may have grown since its row was read. */
		if (x->nsnip == cap)
			goto fail;
		b.snip = (uint32_t)x->nsnip;
		b.len = 1.0f;		/* the "lib" column's one token */
		for (col = 0; col < 5; col++) {
			const char *text = (const char *)sqlite3_column_text(st, 3 + col);
			int n = sqlite3_column_bytes(st, 3 + col);

			b.weight = lex_weights[col];
			if (text != NULL && tokenize_stemmed(stem, text, (size_t)n, 0,
			    lex_add, &b) == -1)
				goto fail;
			if (b.failed)
				goto fail;
		}
		x->ids[x->nsnip] = sqlite3_column_int64(st, 0);
		x->docs[x->nsnip] = sqlite3_column_int64(st, 1);
		x->tokens[x->nsnip] = sqlite3_column_int(st, 2);
		x->len[x->nsnip] = b.len;
		total += b.len;
		x->nsnip++;
	}
	if (step != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	x->avgdl = x->nsnip > 0 ? total / (double)x->nsnip : 1.0;
	if ((x->norm = calloc(x->nsnip + 1, sizeof(*x->norm))) == NULL)
		goto fail;
	for (size_t i = 0; i < x->nsnip; i++)
		x->norm[i] = (float)(LEX_K1 * (1.0 - LEX_B + LEX_B * x->len[i] / x->avgdl));
	if ((x->score = calloc(x->nsnip + 1, sizeof(*x->score))) == NULL ||
	    (x->touched = calloc(x->nsnip + 1, sizeof(*x->touched))) == NULL)
		goto fail;
	x->bytes += x->nsnip * (2 * sizeof(long long) + sizeof(int) + 4 * sizeof(float));
	return x;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(db));
fail:
	sqlite3_finalize(st);
	lexindex_free(x);
	return NULL;
}

size_t
lexindex_bytes(const struct lexindex *x)
{
	return x->bytes;
}

struct lex_query {
	struct lexindex	*x;
	struct lex_term	*terms[LEX_MAXTERMS];
	size_t		 n;
};

static int
lex_query_term(void *ctx, const char *tok, size_t n, int colocated)
{
	struct lex_query *q = ctx;
	struct lex_term	*t;
	size_t		 i;

	(void)colocated;
	t = lex_slot(q->x, tok, n, lex_hash(tok, n));
	if (t->term == NULL)
		return 0;
	for (i = 0; i < q->n; i++)
		if (q->terms[i] == t)
			return 0;
	if (q->n < LEX_MAXTERMS)
		q->terms[q->n++] = t;
	return 0;
}

static int
lex_hit_cmp(const void *a, const void *b)
{
	const struct lexindex_hit *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

/* 1 when a ranks below b (lower score; on a tie, the larger id). */
static int
lex_worse(const struct lexindex_hit *a, const struct lexindex_hit *b)
{
	return a->score < b->score || (a->score == b->score && a->id > b->id);
}

/* Restores the heap h[0..n) (worst on top) below position i. */
static void
lex_heap_down(struct lexindex_hit *h, size_t n, size_t i)
{
	struct lexindex_hit tmp;
	size_t	 l, m;

	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < n && lex_worse(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && lex_worse(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

int
lexindex_search(struct lexindex *x, struct tokenize_stemmer *stem, char **terms,
    size_t nterms, struct lexindex_hit *out, size_t max, size_t *n)
{
	struct lex_query q;
	size_t		 i, k, ntouched = 0;
	double		 idf, N = (double)x->nsnip;

	*n = 0;
	memset(&q, 0, sizeof(q));
	q.x = x;
	/* Each term is a quoted FTS5 string: tokenize its inside as a MATCH would. */
	for (i = 0; i < nterms; i++) {
		size_t len = strlen(terms[i]);

		if (len >= 2 && tokenize_stemmed(stem, terms[i] + 1, len - 2, 1,
		    lex_query_term, &q) == -1)
			return -1;
	}
	for (i = 0; i < q.n; i++) {
		const struct lex_term *t = q.terms[i];
		double nhit = (double)t->npost;

		idf = log((N - nhit + 0.5) / (nhit + 0.5));
		if (idf <= 0.0)
			idf = 1e-6;
		/* The BM25 term of FTS5: idf * f * (k1 + 1) / (f + norm). */
		for (k = 0; k < t->npost; k++) {
			const struct lex_posting *p = &t->post[k];
			double f = p->tf;

			if (x->score[p->snip] == 0.0f)
				x->touched[ntouched++] = p->snip;
			x->score[p->snip] += (float)(idf * (f * (LEX_K1 + 1.0)) /
			    (f + x->norm[p->snip]));
		}
	}
	/* The best max by a min-heap of the best so far, then sorted. */
	for (i = 0, k = 0; i < ntouched; i++) {
		uint32_t s = x->touched[i];
		struct lexindex_hit h;

		h.id = x->ids[s];
		h.doc = x->docs[s];
		h.tokens = x->tokens[s];
		h.score = x->score[s];
		x->score[s] = 0.0f;
		if (k < max) {
			size_t j = k++;

			out[j] = h;
			while (j > 0 && lex_worse(&out[j], &out[(j - 1) / 2])) {
				struct lexindex_hit tmp = out[j];

				out[j] = out[(j - 1) / 2];
				out[(j - 1) / 2] = tmp;
				j = (j - 1) / 2;
			}
		} else if (lex_worse(&out[0], &h)) {
			out[0] = h;
			lex_heap_down(out, k, 0);
		}
	}
	if (k > 0)
		qsort(out, k, sizeof(*out), lex_hit_cmp);
	*n = k;
	return 0;
}
