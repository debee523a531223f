/*
 * lexindex.c: one library's lexical index held in a query process's memory.
 *
 * FTS5's bm25() costs thousands of instructions per matching row (it reads position
 * lists and looks up each row's size), and a question's OR of terms matches most of a
 * large library. So a library's index terms are loaded once, from its full-text columns
 * (store/fts.h: made from the snippets rows) and through FTS5's porter(ctxd) token chain,
 * into postings (written as the library's index segment, or held in a query process's
 * memory), and BM25 is scored in a tight loop: about 50 instructions per posting. The
 * scoring is FTS5's bm25 (k1 1.2, b 0.75, per-column weights on term frequency, the
 * row's token count as its length, but at least half the average), with IDF taken over
 * the library. On top of BM25: a section inherits part of its enclosing section's score
 * (LEX_INHERIT), and the best candidates are re-scored with term proximity. Every library
 * is ranked so, at any size: the index is mapped from its segment (lexindex_map) rather than
 * held in private memory, and the best candidates are found without scoring every posting of
 * a common word (exact pruning: lexindex_pruned).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "base/buf.h"
#include "base/log.h"
#include "base/tokenize.h"
#include "store/fts.h"
#include "store/tokenizer.h"
#include "base/topk.h"
#include "search/lexindex.h"
#include "search/segment.h"

#define LEX_K1		1.2
#define LEX_B		0.75
/*
 * A snippet shorter than LEX_MINLEN times the average is normalised as if it had that
 * length: BM25's length normalisation otherwise lifts one-line sections (a man page's NAME,
 * an option entry) that name a question word over the section that answers (bench/README.md,
 * "Compact, complete answers": 0.25 to 1.0 measured).
 */
#define LEX_MINLEN	0.5
#define LEX_MAXTERMS	64
#define LEX_POOL	80	/* BM25's best, re-scored with proximity */

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
	float		 ub;		/* bound of f(k1+1)/(f+norm) over its postings (lexindex_bounds) */
};

/*
 * A term of a segment's table (open addressing like tab, power-of-two size): its string
 * at str in the strings section (LEX_MEMPTY: an empty slot), its postings post[0..npost)
 * of the postings section.
 */
struct lex_mterm {
	uint32_t	 hash;
	uint32_t	 str;
	uint32_t	 npost;
	float		 ub;		/* lex_term's ub */
	uint64_t	 post;
};
#define LEX_MEMPTY	UINT32_MAX

struct lexindex {
	size_t		 nsnip;
	long long	*ids;
	long long	*docs;
	uint32_t	*parent;	/* the enclosing section's snippet + 1, 0: none */
	uint32_t	*childoff;	/* the sections snippet i encloses: */
	uint32_t	*child;		/* child[childoff[i] .. childoff[i + 1]) */
	float		*inh;		/* scratch: what each snippet inherits, one query */
	int		*tokens;	/* budget tokens of each snippet */
	float		*len;		/* index tokens of each snippet (BM25 length) */
	float		*norm;		/* k1 * (1 - b + b * len / avgdl), per snippet */
	double		 avgdl;
	struct lex_term	*tab;		/* open addressing, power-of-two size */
	size_t		 tabcap, nterms;
	float		*score;		/* scratch for one query, nsnip entries */
	uint32_t	*touched;
	uint64_t	*tmask;		/* scratch: which question terms each snippet has */
	uint8_t		*mark;		/* scratch: the snippets a pruned search scores */
	/*
	 * Token streams for proximity: stream[streamoff[i] .. streamoff[i + 1]) holds snippet
	 * i's tokens in order, each as its hash with bit 0 set when it shares the position of
	 * the token before it (an identifier's parts); 0 separates columns.
	 */
	uint32_t	*stream;
	size_t		*streamoff;
	size_t		 nstream, capstream;
	size_t		 bytes;
	size_t		 scored;	/* snippets the last search scored (lexindex_scored) */
	/*
	 * Mapped from a segment (lexindex_map): the per-snippet arrays and stream point into
	 * it, tab is NULL and terms are looked up in mtab; only the scratch arrays (score,
	 * touched, tmask, inh, mark) are this process's memory: allocated by the first search
	 * (lexindex_scratch) and given back by lexindex_trim.
	 */
	struct segment	*seg;
	const struct lex_mterm *mtab;
	size_t		 mtabcap;
	const char	*mstr;
	size_t		 nmstr;
	const struct lex_posting *mpost;
	size_t		 nmpost;
	/*
	 * The places of the snippets (lexindex_place): each one's title and its document's
	 * path as offsets of NUL-terminated strings in pstr, and its flag. NULL when the index
	 * holds none (a segment written before them, or out of memory while building).
	 */
	uint32_t	*ptitle, *ppath;
	uint8_t		*pflag;
	char		*pstr;
	size_t		 npstr;
};

static uint32_t
lexindex_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t	 i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The slot of term s (found, or the empty slot where it belongs). */
static struct lex_term *
lexindex_slot(struct lexindex *x, const char *s, size_t n, uint32_t h)
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
lexindex_grow(struct lexindex *x)
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
		t = lexindex_slot(x, old[i].term, strlen(old[i].term), old[i].hash);
		*t = old[i];
	}
	free(old);
	return 0;
}

/* A token's stream entry: its hash with bit 0 = colocated, never 0 (the separator). */
static uint32_t
lexindex_stream_value(uint32_t h, int colocated)
{
	uint32_t v = (h & ~1u) | (colocated != 0);

	return (v & ~1u) == 0 ? v | 2u : v;
}

/* Appends v to the token streams. */
static int
lexindex_stream_push(struct lexindex *x, uint32_t v)
{
	if (x->nstream == x->capstream) {
		size_t ncap = x->capstream ? x->capstream * 2 : 65536;
		uint32_t *ns;

		if ((ns = reallocarray(x->stream, ncap, sizeof(*ns))) == NULL)
			return -1;
		x->stream = ns;
		x->capstream = ncap;
	}
	x->stream[x->nstream++] = v;
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
lexindex_add(void *ctx, const char *tok, size_t n, int colocated)
{
	struct lex_build *b = ctx;
	struct lexindex	*x = b->x;
	struct lex_term	*t;
	uint32_t	 h = lexindex_hash(tok, n);

	if (!colocated)
		b->len += 1.0f;
	if (b->weight == 0.0f)
		return 0;
	if (lexindex_stream_push(x, lexindex_stream_value(h, colocated)) == -1)
		goto fail;
	if ((x->nterms + 1) * 2 > x->tabcap && lexindex_grow(x) == -1)
		goto fail;
	t = lexindex_slot(x, tok, n, h);
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

/* Bytes of a mapped index's scratch arrays (lexindex_scratch), per snippet + 1. */
#define LEX_SCRATCH_BYTES	(2 * sizeof(float) + sizeof(uint32_t) + sizeof(uint64_t) + \
	    sizeof(uint8_t))

/*
 * Gives back a mapped index's scratch arrays (the next search allocates them again): all
 * of its private memory. An index built in memory keeps them (lexindex_bytes counts
 * them with the rest of it).
 */
void
lexindex_trim(struct lexindex *x)
{
	if (x == NULL || x->seg == NULL)
		return;
	free(x->inh);
	free(x->score);
	free(x->touched);
	free(x->tmask);
	free(x->mark);
	x->inh = x->score = NULL;
	x->touched = NULL;
	x->tmask = NULL;
	x->mark = NULL;
}

/* Allocates the scratch arrays a search needs (zeroed) when they are not there. 0 or -1. */
static int
lexindex_scratch(struct lexindex *x)
{
	if (x->inh == NULL)
		x->inh = calloc(x->nsnip + 1, sizeof(*x->inh));
	if (x->score == NULL)
		x->score = calloc(x->nsnip + 1, sizeof(*x->score));
	if (x->touched == NULL)
		x->touched = calloc(x->nsnip + 1, sizeof(*x->touched));
	if (x->tmask == NULL)
		x->tmask = calloc(x->nsnip + 1, sizeof(*x->tmask));
	if (x->mark == NULL)
		x->mark = calloc(x->nsnip + 1, sizeof(*x->mark));
	if (x->inh == NULL || x->score == NULL || x->touched == NULL || x->tmask == NULL ||
	    x->mark == NULL) {
		lexindex_trim(x);	/* a built index's are freed with it */
		return -1;
	}
	return 0;
}

/* Frees the places of an index built in memory (it then holds none). */
static void
lexindex_places_drop(struct lexindex *x)
{
	free(x->ptitle);
	free(x->ppath);
	free(x->pflag);
	free(x->pstr);
	x->ptitle = x->ppath = NULL;
	x->pflag = NULL;
	x->pstr = NULL;
	x->npstr = 0;
}

void
lexindex_free(struct lexindex *x)
{
	size_t	 i;

	if (x == NULL)
		return;
	if (x->seg != NULL) {
		segment_close(x->seg);
		lexindex_trim(x);
		free(x);
		return;
	}
	for (i = 0; i < x->tabcap; i++) {
		free(x->tab[i].term);
		free(x->tab[i].post);
	}
	free(x->tab);
	free(x->ids);
	free(x->docs);
	free(x->parent);
	free(x->childoff);
	free(x->child);
	free(x->inh);
	free(x->tokens);
	free(x->len);
	free(x->norm);
	free(x->score);
	free(x->touched);
	free(x->tmask);
	free(x->mark);
	free(x->stream);
	free(x->streamoff);
	lexindex_places_drop(x);
	free(x);
}

/*
 * The heading trails of the current document seen so far, to find a section's enclosing
 * one: every distinct trail hash of the document with its first snippet (a long section
 * split in parts has one trail), in an open-addressing table (power-of-two size, at most
 * half full). A slot belongs to the current document when its gen is the table's: the
 * next document empties the table by counting gen up, not by clearing it.
 */
struct lex_trail {
	uint32_t	 hash;
	uint32_t	 snip;
	uint32_t	 gen;		/* 0: never used */
};

struct lex_trails {
	long long	 doc;
	uint32_t	 gen;		/* the current document's, from 1 */
	size_t		 n, cap;	/* trails of the document, slots */
	struct lex_trail *tab;
};

/* The slot of trail hash h in the current document: its own, or the free one it takes. */
static struct lex_trail *
lexindex_trail_slot(struct lex_trails *tr, uint32_t h)
{
	size_t	 i = h & (tr->cap - 1);

	for (;;) {
		struct lex_trail *t = &tr->tab[i];

		if (t->gen != tr->gen || t->hash == h)
			return t;
		i = (i + 1) & (tr->cap - 1);
	}
}

/* Doubles the trail table (64 slots at first), keeping the current document's trails. */
static int
lexindex_trails_grow(struct lex_trails *tr)
{
	struct lex_trail *old = tr->tab;
	size_t		 oldcap = tr->cap, k;

	tr->cap = oldcap ? oldcap * 2 : 64;
	if ((tr->tab = calloc(tr->cap, sizeof(*tr->tab))) == NULL) {
		tr->tab = old;
		tr->cap = oldcap;
		return -1;
	}
	for (k = 0; k < oldcap; k++)
		if (old[k].gen == tr->gen)
			*lexindex_trail_slot(tr, old[k].hash) = old[k];
	free(old);
	return 0;
}

/*
 * The enclosing section of snippet i (its document x->docs[i], its heading trail crumb,
 * "Page > Section > Sub"; snippets come in document order), into *parent as its index + 1,
 * 0 when there is none: for a later part of a split section (a trail seen before in the
 * document), the section's first part; else the first earlier snippet of the document
 * whose trail is crumb without its last part (that section's first part). Trails are
 * compared by hash, and every trail of the document counts, however many it has. tr
 * (zeroed, then gen 1) is the state kept from one snippet to the next; the caller frees
 * tr->tab. 0, or -1 out of memory.
 */
static int
lexindex_parent(struct lexindex *x, struct lex_trails *tr, size_t i, const char *crumb,
    uint32_t *parent)
{
	const char	*cut = NULL, *p;
	struct lex_trail *t, *up;
	uint32_t	 h;

	*parent = 0;
	if (crumb == NULL || *crumb == '\0')
		return 0;	/* no heading trail: nothing to go by */
	if (tr->doc != x->docs[i]) {
		tr->doc = x->docs[i];
		tr->n = 0;
		if (++tr->gen == 0) {	/* wrapped: the old slots must read as free */
			if (tr->tab != NULL)
				memset(tr->tab, 0, tr->cap * sizeof(*tr->tab));
			tr->gen = 1;
		}
	}
	if ((tr->n + 1) * 2 > tr->cap && lexindex_trails_grow(tr) == -1)
		return -1;
	h = lexindex_hash(crumb, strlen(crumb));
	if ((t = lexindex_trail_slot(tr, h))->gen == tr->gen) {
		*parent = t->snip + 1;
		return 0;
	}
	for (p = crumb; (p = strstr(p, " > ")) != NULL; p += 3)
		cut = p;
	/* Looked up before trail h is added: a parent hash equal to h finds nothing. */
	if (cut != NULL && (up = lexindex_trail_slot(tr,
	    lexindex_hash(crumb, (size_t)(cut - crumb))))->gen == tr->gen)
		*parent = up->snip + 1;
	t->hash = h;
	t->snip = (uint32_t)i;
	t->gen = tr->gen;
	tr->n++;
	return 0;
}

/*
 * The sections each snippet encloses (the inverse of parent[]), so that a question's
 * inheritance visits the children of the matched snippets only. 0, or -1 out of memory.
 */
static int
lexindex_children(struct lexindex *x)
{
	size_t		 i;
	uint32_t	*fill;

	if ((x->childoff = calloc(x->nsnip + 1, sizeof(*x->childoff))) == NULL ||
	    (x->child = calloc(x->nsnip + 1, sizeof(*x->child))) == NULL ||
	    (x->inh = calloc(x->nsnip + 1, sizeof(*x->inh))) == NULL ||
	    (fill = calloc(x->nsnip + 1, sizeof(*fill))) == NULL)
		return -1;
	for (i = 0; i < x->nsnip; i++)
		if (x->parent[i] != 0)
			x->childoff[x->parent[i]]++;	/* counts, shifted by one */
	for (i = 0; i < x->nsnip; i++)
		x->childoff[i + 1] += x->childoff[i];
	for (i = 0; i < x->nsnip; i++)
		if (x->parent[i] != 0) {
			uint32_t p = x->parent[i] - 1;

			x->child[x->childoff[p] + fill[p]++] = (uint32_t)i;
		}
	free(fill);
	x->bytes += (2 * (x->nsnip + 1)) * sizeof(uint32_t) + (x->nsnip + 1) * sizeof(float);
	return 0;
}

/* The index being built (lexindex_build): its builder, capacity and trails. */
struct lex_load {
	struct lex_build b;
	struct tokenize_stemmer *stem;
	size_t		 cap;
	double		 total;
	struct lex_trails tr;
	struct buf	 ps;		/* the place strings, x->pstr once built */
	uint32_t	 lastpath;	/* the previous snippet's path in ps */
};

/*
 * Appends the first max bytes of str (all of it when shorter) and a NUL to the place
 * strings: its offset, or UINT32_MAX out of memory or past 4 GB of strings.
 */
static uint32_t
lexindex_place_str(struct lex_load *l, const char *str, size_t max)
{
	size_t	 len = strnlen(str, max), off = l->ps.len;

	if (off + len + 1 >= UINT32_MAX || buf_add(&l->ps, str, len) == -1 ||
	    buf_addc(&l->ps, '\0') == -1)
		return UINT32_MAX;
	return (uint32_t)off;
}

/*
 * Snippet i's place (lexindex_place) from its row: the path is stored once for a run of
 * snippets of one path (a document's, in id order). Out of memory: the index holds no
 * places (the ranking reads them from the database).
 */
static void
lexindex_place_add(struct lex_load *l, size_t i, const struct store_fts_row *r)
{
	struct lexindex	*x = l->b.x;
	const char	*path = r->text[4] != NULL ? r->text[4] : "";
	uint32_t	 t, p;

	if (x->ptitle == NULL)
		return;
	if (i > 0 && strncmp(l->ps.p + l->lastpath, path, LEXINDEX_PLACE_PATH) == 0 &&
	    strnlen(path, LEXINDEX_PLACE_PATH) == strlen(l->ps.p + l->lastpath))
		p = l->lastpath;
	else
		p = lexindex_place_str(l, path, LEXINDEX_PLACE_PATH);
	t = lexindex_place_str(l, r->title != NULL ? r->title : "", LEXINDEX_PLACE_TITLE);
	if (p == UINT32_MAX || t == UINT32_MAX) {
		lexindex_places_drop(x);
		buf_release(&l->ps);
		return;
	}
	l->lastpath = p;
	x->ppath[i] = p;
	x->ptitle[i] = t;
	x->pflag[i] = r->flagged != 0;
}

static int
lexindex_load_row(const struct store_fts_row *r, void *arg)
{
	struct lex_load	*l = arg;
	struct lexindex	*x = l->b.x;
	int		 col;

	/* The library may have grown since its row was read. */
	if (x->nsnip == l->cap)
		return -1;
	l->b.snip = (uint32_t)x->nsnip;
	l->b.len = 1.0f;		/* the "lib" column's one token */
	x->streamoff[x->nsnip] = x->nstream;
	for (col = 0; col < 5; col++) {
		if (col > 0 && lexindex_stream_push(x, 0) == -1)
			return -1;
		l->b.weight = lex_weights[col];
		if (r->text[col] != NULL && tokenize_stemmed(l->stem, r->text[col],
		    r->len[col], 0, lexindex_add, &l->b) == -1)
			return -1;
		if (l->b.failed)
			return -1;
	}
	x->ids[x->nsnip] = r->id;
	x->docs[x->nsnip] = r->document_id;
	lexindex_place_add(l, x->nsnip, r);
	if (lexindex_parent(x, &l->tr, x->nsnip, r->text[1], &x->parent[x->nsnip]) == -1)
		return -1;
	x->tokens[x->nsnip] = r->tokens;
	x->len[x->nsnip] = l->b.len;
	l->total += l->b.len;
	x->nsnip++;
	x->streamoff[x->nsnip] = x->nstream;
	return 0;
}

/*
 * The bound of each term (lex_term.ub): the largest f (k1 + 1) / (f + norm) of its
 * postings, the part of a posting's BM25 term that does not depend on the IDF (which a
 * search's flags choose: LEXINDEX_IDF_FLOOR). Times the IDF, no posting adds more to a
 * score, but for float rounding (LEX_PRUNE_SLACK). Pruned searches rely on it
 * (lexindex_pruned); it is stored in the segment with the term.
 */
static void
lexindex_bounds(struct lexindex *x)
{
	size_t	 i, k;

	for (i = 0; i < x->tabcap; i++) {
		struct lex_term *t = &x->tab[i];
		double	 ub = 0.0, v;

		if (t->term == NULL)
			continue;
		for (k = 0; k < t->npost; k++) {
			double f = t->post[k].tf;

			v = (f * (LEX_K1 + 1.0)) / (f + x->norm[t->post[k].snip]);
			if (v > ub)
				ub = v;
		}
		t->ub = (float)ub;
	}
}

struct lexindex *
lexindex_build(struct db *db, struct tokenize_stemmer *stem, const char *library_id,
    long nsnippets)
{
	struct lexindex	*x;
	struct lex_load	 l;
	int		 rc;

	memset(&l, 0, sizeof(l));
	buf_init(&l.ps);
	l.tr.gen = 1;
	l.stem = stem;
	l.cap = nsnippets > 0 ? (size_t)nsnippets : 64;
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return NULL;
	if (lexindex_grow(x) == -1)
		goto fail;
	if ((x->ids = calloc(l.cap, sizeof(*x->ids))) == NULL ||
	    (x->docs = calloc(l.cap, sizeof(*x->docs))) == NULL ||
	    (x->parent = calloc(l.cap, sizeof(*x->parent))) == NULL ||
	    (x->tokens = calloc(l.cap, sizeof(*x->tokens))) == NULL ||
	    (x->len = calloc(l.cap, sizeof(*x->len))) == NULL ||
	    (x->streamoff = calloc(l.cap + 1, sizeof(*x->streamoff))) == NULL)
		goto fail;
	/* the places: without them (out of memory) the index still ranks */
	if ((x->ptitle = calloc(l.cap, sizeof(*x->ptitle))) == NULL ||
	    (x->ppath = calloc(l.cap, sizeof(*x->ppath))) == NULL ||
	    (x->pflag = calloc(l.cap, sizeof(*x->pflag))) == NULL ||
	    lexindex_place_str(&l, "", 0) == UINT32_MAX) {
		lexindex_places_drop(x);
		buf_release(&l.ps);
	}
	l.b.x = x;
	rc = store_fts_rows(db, library_id, lexindex_load_row, &l);
	free(l.tr.tab);
	l.tr.tab = NULL;
	if (rc == -1)
		goto fail;
	if (x->ptitle != NULL) {
		x->bytes += l.cap * (2 * sizeof(uint32_t) + sizeof(uint8_t)) + l.ps.cap;
		x->npstr = l.ps.len;
		x->pstr = buf_detach(&l.ps);
	}
	x->avgdl = x->nsnip > 0 ? l.total / (double)x->nsnip : 1.0;
	if ((x->norm = calloc(x->nsnip + 1, sizeof(*x->norm))) == NULL)
		goto fail;
	for (size_t i = 0; i < x->nsnip; i++)
		x->norm[i] = (float)(LEX_K1 * (1.0 - LEX_B + LEX_B *
		    fmax(x->len[i], LEX_MINLEN * x->avgdl) / x->avgdl));
	if (lexindex_children(x) == -1 || lexindex_scratch(x) == -1)
		goto fail;
	lexindex_bounds(x);
	x->bytes += x->nsnip * (2 * sizeof(long long) + sizeof(uint32_t) + sizeof(int) +
	    4 * sizeof(float) + sizeof(size_t) + sizeof(uint64_t) + sizeof(uint8_t)) +
	    x->capstream * sizeof(*x->stream);
	return x;
fail:
	free(l.tr.tab);
	buf_release(&l.ps);
	lexindex_free(x);
	return NULL;
}

size_t
lexindex_scored(const struct lexindex *x)
{
	return x->scored;
}

int
lexindex_mapped(const struct lexindex *x)
{
	return x->seg != NULL;
}

size_t
lexindex_bytes(const struct lexindex *x)
{
	if (x->seg != NULL)
		return x->score != NULL ? (x->nsnip + 1) * LEX_SCRATCH_BYTES : 0;
	return x->bytes;
}

struct lex_query {
	struct lexindex	*x;
	struct lex_term	 mterms[LEX_MAXTERMS];	/* a mapped index's terms found */
	size_t		 nmterms;
	struct lex_term	*terms[LEX_MAXTERMS];
	size_t		 n;
	/* the question's known terms in order, repeats included, for proximity */
	struct lex_term	*seq[LEX_MAXTERMS];
	unsigned char	 seqterm[LEX_MAXTERMS];	/* index of seq[i] in terms */
	size_t		 nseq;
};

/*
 * A mapped index's term tok as a struct lex_term (the same one each time the question
 * names it: q->mterms), or NULL when the library does not have it.
 */
static struct lex_term *
lexindex_mslot(struct lex_query *q, const char *tok, size_t n)
{
	const struct lexindex *x = q->x;
	const struct lex_mterm *m;
	uint32_t	 h = lexindex_hash(tok, n);
	size_t		 i = h & (x->mtabcap - 1), k;
	struct lex_term	*t;

	for (;; i = (i + 1) & (x->mtabcap - 1)) {
		m = &x->mtab[i];
		if (m->str == LEX_MEMPTY)
			return NULL;
		/* validated: str < nmstr and the string ends inside the section */
		if (m->hash == h && strncmp(x->mstr + m->str, tok, n) == 0 &&
		    x->mstr[m->str + n] == '\0')
			break;
	}
	for (k = 0; k < q->nmterms; k++)
		if (q->mterms[k].hash == h && q->mterms[k].post == x->mpost + m->post)
			return &q->mterms[k];
	if (q->nmterms == LEX_MAXTERMS)
		return NULL;
	t = &q->mterms[q->nmterms++];
	t->term = (char *)(uintptr_t)(x->mstr + m->str);
	t->hash = h;
	t->npost = t->cap = m->npost;
	t->post = (struct lex_posting *)(uintptr_t)(x->mpost + m->post);
	t->ub = m->ub;
	return t;
}

static int
lexindex_query_term(void *ctx, const char *tok, size_t n, int colocated)
{
	struct lex_query *q = ctx;
	struct lex_term	*t;
	size_t		 i;

	(void)colocated;
	if (q->x->seg != NULL) {
		if ((t = lexindex_mslot(q, tok, n)) == NULL)
			return 0;
	} else if ((t = lexindex_slot(q->x, tok, n, lexindex_hash(tok, n)))->term == NULL)
		return 0;
	for (i = 0; i < q->n; i++)
		if (q->terms[i] == t)
			break;
	if (i == q->n) {
		if (q->n == LEX_MAXTERMS)
			return 0;
		q->terms[q->n++] = t;
	}
	if (q->nseq < LEX_MAXTERMS) {
		q->seqterm[q->nseq] = (unsigned char)i;
		q->seq[q->nseq++] = t;
	}
	return 0;
}

double
lexindex_share(struct lexindex *x, struct tokenize_stemmer *stem, const char *word,
    size_t n)
{
	struct lex_query q;
	size_t		 i, most = 0;

	memset(&q, 0, sizeof(q));
	q.x = x;
	if (x->nsnip == 0 || tokenize_stemmed(stem, word, n, 1, lexindex_query_term,
	    &q) == -1)
		return 0.0;
	for (i = 0; i < q.n; i++)
		if (q.terms[i]->npost > most)
			most = q.terms[i]->npost;
	return (double)most / (double)x->nsnip;
}

/* 1 when a ranks below b (lower score; on a tie, the larger id). */
#define LEX_WORSE(a, b)	((a)->score < (b)->score || \
	    ((a)->score == (b)->score && (a)->id > (b)->id))
TOPK_DEFINE(lex_topk, struct lexindex_hit, LEX_WORSE)

/* Index of the snippet with this id (ids are ascending), or x->nsnip. */
static size_t
lexindex_snip_of(const struct lexindex *x, long long id)
{
	size_t	 lo = 0, hi = x->nsnip;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nsnip && x->ids[lo] == id ? lo : x->nsnip;
}

static double
lexindex_idf(const struct lexindex *x, const struct lex_term *t, int flags)
{
	double	 N = (double)x->nsnip, nhit = (double)t->npost;
	double	 idf = (flags & LEXINDEX_IDF_FLOOR) ? log(1.0 + (N - nhit + 0.5) /
	    (nhit + 0.5)) : log((N - nhit + 0.5) / (nhit + 0.5));

	return idf > 0.0 ? idf : 1e-6;
}

/*
 * Proximity evidence of snippet s for the question's term sequence: for each pair of
 * consecutive question terms (a, b), how often b follows a within LEX_PROX_WINDOW
 * positions in one column (the reverse order counts half). Each pair scores like a BM25
 * term without length normalisation, weighted by the rarer term's IDF, so "set the
 * timeout" rewards a snippet saying "set a timeout" over one that mentions "set" and
 * "timeout" in different paragraphs.
 */
#define LEX_PROX_WINDOW	3
#define LEX_PROX_REVERSE	0.5
static double
lexindex_proximity(const struct lexindex *x, size_t s, const uint32_t *seq,
    const double *pairidf, size_t nseq, uint64_t mask)
{
	double	 tf[LEX_MAXTERMS];
	long	 last[LEX_MAXTERMS], pos = 0;
	size_t	 i, k;
	double	 score = 0.0;

	for (k = 0; k < nseq; k++) {
		tf[k] = 0.0;
		last[k] = -1000000;
	}
	for (i = x->streamoff[s]; i < x->streamoff[s + 1]; i++) {
		uint32_t v = x->stream[i];

		if (v == 0) {
			pos += 1000;	/* a new column: nothing is near across it */
			continue;
		}
		if ((v & 1u) == 0)
			pos++;
		v &= ~1u;
		if ((mask & (1ull << ((v >> 1) & 63))) == 0)
			continue;	/* not a question term (most tokens) */
		for (k = 0; k < nseq; k++) {
			if (seq[k] != v)
				continue;
			if (k > 0 && seq[k - 1] != v && pos - last[k - 1] >= 1 &&
			    pos - last[k - 1] <= LEX_PROX_WINDOW)
				tf[k] += 1.0;
			if (k + 1 < nseq && seq[k + 1] != v && pos - last[k + 1] >= 1 &&
			    pos - last[k + 1] <= LEX_PROX_WINDOW)
				tf[k + 1] += LEX_PROX_REVERSE;
			last[k] = pos;
		}
	}
	for (k = 1; k < nseq; k++)
		if (tf[k] > 0.0)
			score += pairidf[k] * tf[k] * (LEX_K1 + 1.0) / (tf[k] + LEX_K1);
	return score;
}

/*
 * Weight of the proximity score against BM25, and its cap: proximity adds at most
 * LEX_PROX_CAP of the snippet's own BM25 score, so it reorders close candidates but does
 * not lift a snippet that matches little of the question ("host and port" stands together
 * in many curl pages that are not about URL parsing). Tuned with bench/eval
 * (bench/README.md): weights 0.3 to 2, windows 1 to 8, caps 0.3 to 0.5, no cap, the
 * pair's IDF taken over the snippets holding both terms, a multiplicative form and a
 * term-coverage factor all measured within one question of this setting or worse.
 */
#define LEX_PROX_WEIGHT	1.0
#define LEX_PROX_CAP	0.4

/*
 * Share of its enclosing section's BM25 score a section inherits (lexindex_parent); a
 * section shorter than LEX_INHERIT_LEN times the library's average inherits in proportion
 * to its length (a one-line option entry under a page that matches broadly must not rise
 * over the page). Tuned with bench/eval and bench/eval-sources (bench/README.md, "Compact,
 * complete answers"): shares 0.3 to 1.0 and length floors 0.3 to 1.0 measured.
 */
#define LEX_INHERIT	0.6
#define LEX_INHERIT_LEN	0.5

/*
 * The exhaustive scoring: every posting of every question term, then inheritance; the
 * best npool into pool[0..*k). The snippets scored are left in x->touched[0..*ntouched)
 * with their x->tmask set (the caller clears it); x->score and x->inh are left zero.
 */
static void
lexindex_exhaustive(struct lexindex *x, const struct lex_query *q, int flags,
    struct lexindex_hit *pool, size_t npool, size_t *k, size_t *ntouched)
{
	size_t		 i, j, nmatched, nt = 0;
	double		 idf;

	for (i = 0; i < q->n; i++) {
		const struct lex_term *t = q->terms[i];

		idf = lexindex_idf(x, t, flags);
		/* The BM25 term of FTS5: idf * f * (k1 + 1) / (f + norm). */
		for (j = 0; j < t->npost; j++) {
			const struct lex_posting *p = &t->post[j];
			double f = p->tf;

			if (x->score[p->snip] == 0.0f)
				x->touched[nt++] = p->snip;
			x->tmask[p->snip] |= 1ull << i;
			x->score[p->snip] += (float)(idf * (f * (LEX_K1 + 1.0)) /
			    (f + x->norm[p->snip]));
		}
	}
	/*
	 * A section inherits LEX_INHERIT of its enclosing section's own score: the code
	 * example or the option under a section that matches the question ranks with it, even
	 * when its own words do not. Only the children of the matched snippets are visited;
	 * what they inherit is gathered first (inh), so that each inherits its parent's own
	 * score, not what the parent inherited in turn.
	 */
	nmatched = nt;
	for (i = 0; i < nmatched; i++) {
		uint32_t m = x->touched[i], c;

		for (j = x->childoff[m]; j < x->childoff[m + 1]; j++) {
			c = x->child[j];
			x->inh[c] = (float)(LEX_INHERIT * x->score[m] *
			    fmin(1.0, x->len[c] / (LEX_INHERIT_LEN * x->avgdl)));
		}
	}
	for (i = 0; i < nmatched; i++) {
		uint32_t m = x->touched[i], c;

		for (j = x->childoff[m]; j < x->childoff[m + 1]; j++) {
			c = x->child[j];
			if (x->inh[c] == 0.0f)
				continue;	/* added already (a snippet has one parent) */
			if (x->score[c] == 0.0f)
				x->touched[nt++] = c;
			x->score[c] += x->inh[c];
			x->inh[c] = 0.0f;
		}
	}
	/* The best npool (a min-heap of the best so far). */
	for (i = 0, *k = 0; i < nt; i++) {
		uint32_t s = x->touched[i];
		struct lexindex_hit h;

		h.id = x->ids[s];
		h.doc = x->docs[s];
		h.tokens = x->tokens[s];
		h.score = x->score[s];
		x->score[s] = 0.0f;
		lex_topk_offer(pool, k, npool, &h);
	}
	*ntouched = nt;
}

/*
 * Pruned scoring (MaxScore with the terms' score bounds, lex_term.ub, document at a time):
 * the same best npool as lexindex_exhaustive, with the same scores and the same order on
 * ties, without scoring every snippet that holds a common term.
 *
 * A snippet's score is its own BM25 (a float sum over the question's terms, in their order)
 * plus what it inherits, LEX_INHERIT of its parent's own BM25 times at most 1. theta is the
 * pool's worst score once it holds npool snippets (each scored exactly): a snippet can only
 * enter the pool by scoring at least theta, and theta only rises. The search
 * 1. scores a seed set exactly: the snippets with the largest single-term scores among
 *    the first LEX_PRUNE_SEED postings of the terms, best bound first, and sections they
 *    enclose (up to 8 * npool snippets in all), which gives a first theta;
 * 2. takes as non-essential the terms of the smallest bounds while (1 + LEX_INHERIT) times
 *    the sum of their bounds (NE) stays below theta; the others are essential. A snippet
 *    without an essential term owns at most NE, and inherits at most LEX_INHERIT times NE
 *    when its parent has none either: it cannot reach theta. The partition is taken again
 *    as theta rises (terms only move from essential to non-essential);
 * 3. walks the essential terms' postings together in snippet order (a window of snippets
 *    at a time: each term's postings in it first add up their bounds per snippet). At each
 *    snippet d holding one, its bound (the essential terms it holds, by their term
 *    frequencies, then exactly, plus NE) must reach tau = theta / (1 + LEX_INHERIT): a
 *    snippet that owns less reaches theta only by inheriting from a parent that owns more
 *    (its share of it, rather), which scores the sections it encloses as below. Then d's
 *    bound with what its parent's own score gives it decides whether it is scored exactly:
 *    its own score with the same float operations in the same order as
 *    lexindex_exhaustive (each term looked up in its postings by galloping from the last
 *    position looked up: they are in snippet order), plus what it inherits from its
 *    parent's own score, exact too (kept for the parent's other children). Then the sections d encloses, which may hold no essential
 *    term and rise by inheriting from d: one is scored when (1 + LEX_INHERIT) times its
 *    share of d's own score reaches theta. One that does not and holds no essential term
 *    when the walk passes it owns at most NE (below theta / (1 + LEX_INHERIT)) and inherits
 *    below LEX_INHERIT / (1 + LEX_INHERIT) of theta: below theta in all.
 * Every snippet not scored scores below the final theta (LEX_PRUNE_SLACK covers float
 * rounding), so below the npool-th best: the best npool of those scored are the best npool
 * of all. Returns 1 when it scored (pool, *k, x->touched[0..*ntouched) with their x->tmask
 * as lexindex_exhaustive leaves them), 0 when pruning cannot help (the caller scores
 * exhaustively).
 */
#define LEX_PRUNE_MIN	2048	/* postings below which scoring everything is as fast */
#define LEX_PRUNE_SEED	8192	/* postings read for the seed set */
#define LEX_PRUNE_SLACK	1.0001	/* float rounding of sums of up to LEX_MAXTERMS bounds */
/*
 * The smallest norm a snippet has: k1 (1 - b + b LEX_MINLEN), its length being at least
 * LEX_MINLEN times the average (lexindex_build); a posting adds at most its IDF times
 * f (k1 + 1) / (f + LEX_NORM_MIN), which bounds it without reading its snippet's norm.
 */
#define LEX_NORM_MIN	(LEX_K1 * (1.0 - LEX_B + LEX_B * LEX_MINLEN))
#define LEX_TFBOUNDS	64	/* those bounds tabled by whole frequency (above: the term's) */
#define LEX_WIN		4096	/* snippets a window of the walk spans (a multiple of 64) */
#define LEX_M_LISTED	1	/* mark: in touched (score, mark to clear; tmask by the caller) */
#define LEX_M_OWN	2	/* mark: score holds the snippet's own BM25, tmask its terms */
#define LEX_M_OFFERED	4	/* mark: scored with its inheritance and offered to the pool */

/* A pruned search's state (lexindex_pruned). */
struct lex_prune {
	struct lexindex	*x;
	const struct lex_query *q;
	double		 idf[LEX_MAXTERMS];
	uint32_t	 hint[LEX_MAXTERMS];	/* each term's last position looked up */
	size_t		 nt;			/* x->touched[0..nt) */
	struct lexindex_hit *pool;
	size_t		 npool, k;
	double		 theta;			/* the pool's worst when full, else 0 */
};

/*
 * Index of snippet s in t's postings (ascending), or -1, galloping from *hint (left at the
 * first posting at or after s): near the last lookup in a few steps, anywhere in log time.
 */
static long
lexindex_seek(const struct lex_term *t, uint32_t *hint, uint32_t s)
{
	const struct lex_posting *p = t->post;
	size_t	 n = t->npost, h = *hint, lo, hi, step = 1, mid;

	if (n == 0)
		return -1;
	if (h >= n)
		h = n - 1;
	if (p[h].snip < s) {
		/* forward: p[lo - 1] < s; the answer is in [lo, hi], p[hi] >= s or hi == n */
		for (lo = h + 1;; step <<= 1) {
			hi = lo + step - 1;
			if (hi >= n) {
				hi = n;
				break;
			}
			if (p[hi].snip >= s)
				break;
			lo = hi + 1;
		}
	} else {
		/* backward: p[hi] >= s; the answer is in [lo, hi] */
		for (hi = h;; step <<= 1) {
			if (hi < step) {
				lo = 0;
				break;
			}
			lo = hi - step;
			if (p[lo].snip < s) {
				lo++;
				break;
			}
			hi = lo;
		}
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p[mid].snip < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	*hint = (uint32_t)(lo < n ? lo : n - 1);
	return lo < n && p[lo].snip == s ? (long)lo : -1;
}

/* Lists snippet s in touched (to be cleared) and sets how (LEX_M_*) in its mark. */
static void
lexindex_mark(struct lex_prune *pr, uint32_t s, uint8_t how)
{
	struct lexindex *x = pr->x;

	if (x->mark[s] == 0)
		x->touched[pr->nt++] = s;
	x->mark[s] |= how | LEX_M_LISTED;
}

/*
 * Snippet s's own BM25, as lexindex_exhaustive sums it (each term in the question's order,
 * the same float operations), with its tmask; computed once a search (x->score).
 */
static float
lexindex_own(struct lex_prune *pr, uint32_t s)
{
	struct lexindex	*x = pr->x;
	const struct lex_query *q = pr->q;
	float		 score = 0.0f;
	uint64_t	 tmask = 0;
	size_t		 i;
	long		 at;

	if (x->mark[s] & LEX_M_OWN)
		return x->score[s];
	for (i = 0; i < q->n; i++) {
		const struct lex_term *t = q->terms[i];
		double f;

		if ((at = lexindex_seek(t, &pr->hint[i], s)) == -1)
			continue;
		f = t->post[at].tf;
		tmask |= 1ull << i;
		score += (float)(pr->idf[i] * (f * (LEX_K1 + 1.0)) / (f + x->norm[s]));
	}
	lexindex_mark(pr, s, LEX_M_OWN);
	x->score[s] = score;
	x->tmask[s] = tmask;
	return score;
}

/* The share of its parent's own score snippet s inherits, over LEX_INHERIT. */
static double
lexindex_share_of(const struct lexindex *x, uint32_t s)
{
	double	 v = x->len[s] / (LEX_INHERIT_LEN * x->avgdl);

	return v < 1.0 ? v : 1.0;	/* fmin(1.0, v), as lexindex_exhaustive has it */
}

/*
 * Scores snippet s exactly (its own BM25 plus what it inherits, as lexindex_exhaustive
 * does) and offers it to the pool, once a search; raises theta.
 */
static void
lexindex_offer(struct lex_prune *pr, uint32_t s)
{
	struct lexindex	*x = pr->x;
	struct lexindex_hit h;
	float		 score, own, inh;
	uint32_t	 p;

	if (x->mark[s] & LEX_M_OFFERED)
		return;
	score = lexindex_own(pr, s);
	if ((p = x->parent[s]) != 0 && (own = lexindex_own(pr, p - 1)) != 0.0f) {
		inh = (float)(LEX_INHERIT * own * lexindex_share_of(x, s));
		score += inh;
	}
	lexindex_mark(pr, s, LEX_M_OFFERED);
	if (score == 0.0f)
		return;		/* no term, nothing inherited: not a hit */
	h.id = x->ids[s];
	h.doc = x->docs[s];
	h.tokens = x->tokens[s];
	h.score = score;
	lex_topk_offer(pr->pool, &pr->k, pr->npool, &h);
	if (pr->k == pr->npool)
		pr->theta = pr->pool[0].score;
}

/*
 * Snippet d, holding an essential term, whose own score is at most ess: scored when it can
 * reach theta with what its parent's own score gives it, and then the sections it encloses
 * that may inherit enough of its own score (step 3 of lexindex_pruned).
 */
static void
lexindex_candidate(struct lex_prune *pr, uint32_t d, double ess)
{
	struct lexindex	*x = pr->x;
	double		 ob = ess, lf, pb;
	uint32_t	 p, c;

	if (!(x->mark[d] & LEX_M_OFFERED)) {
		p = x->parent[d];
		lf = p != 0 ? lexindex_share_of(x, d) : 0.0;
		pb = p == 0 ? 0.0 : lexindex_own(pr, p - 1);
		if ((ob + LEX_INHERIT * lf * pb) * LEX_PRUNE_SLACK >= pr->theta)
			lexindex_offer(pr, d);
	}
	for (c = x->childoff[d]; c < x->childoff[d + 1]; c++) {
		uint32_t s = x->child[c];

		lf = lexindex_share_of(x, s);
		if ((1.0 + LEX_INHERIT) * lf * ob * LEX_PRUNE_SLACK < pr->theta)
			continue;
		if (!(x->mark[d] & LEX_M_OWN)) {
			ob = lexindex_own(pr, d);
			if ((1.0 + LEX_INHERIT) * lf * ob * LEX_PRUNE_SLACK < pr->theta)
				continue;
		}
		lexindex_offer(pr, s);
	}
}

/* The seed's single-term scores (step 1 of lexindex_pruned). */
struct lex_seed {
	float		 v;
	uint32_t	 snip;
};
#define LEX_SEED_WORSE(a, b)	((a)->v < (b)->v || ((a)->v == (b)->v && (a)->snip > (b)->snip))
TOPK_DEFINE(lex_seedk, struct lex_seed, LEX_SEED_WORSE)

static int
lexindex_pruned(struct lexindex *x, const struct lex_query *q, struct lexindex_hit *pool,
    size_t npool, int flags, size_t *k, size_t *ntouched)
{
	struct lex_prune pr;
	struct lex_seed	*seed = NULL;
	const struct lex_posting *pc[LEX_MAXTERMS], *pe[LEX_MAXTERMS], *qc[LEX_MAXTERMS];
	size_t		 order[LEX_MAXTERMS], act[LEX_MAXTERMS];
	size_t		 i, j, c, nseed = 0, total = 0, budget, ness, nseeded, nact;
	double		 bound[LEX_MAXTERMS], ne, ess, *wb;
	double		 tfb[LEX_MAXTERMS][LEX_TFBOUNDS];
	uint64_t	 wbits[LEX_WIN / 64], *wm;
	uint32_t	 d, w0, w1;

	for (i = 0; i < q->n; i++)
		total += q->terms[i]->npost;
	if ((total < LEX_PRUNE_MIN && !(flags & LEXINDEX_PRUNE_ALWAYS)) || q->n == 0)
		return 0;
	memset(&pr, 0, sizeof(pr));
	pr.x = x;
	pr.q = q;
	pr.pool = pool;
	pr.npool = npool;
	/* The terms by bound (IDF times ub), smallest first (insertion sort: LEX_MAXTERMS). */
	for (i = 0; i < q->n; i++) {
		pr.idf[i] = lexindex_idf(x, q->terms[i], flags);
		bound[i] = pr.idf[i] * q->terms[i]->ub;
	}
	for (i = 0; i < q->n; i++) {
		for (j = i; j > 0 && bound[order[j - 1]] > bound[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	/* A posting of term i with frequency f adds at most tfb[i][f], rounded up. */
	for (i = 0; i < q->n; i++)
		for (j = 0; j < LEX_TFBOUNDS; j++) {
			double v = pr.idf[i] * ((double)j * (LEX_K1 + 1.0)) /
			    ((double)j + LEX_NORM_MIN);

			tfb[i][j] = v < bound[i] ? v : bound[i];
		}
	/* 1. The seed: the best single-term scores of the first postings, best bound first. */
	if ((seed = calloc(4 * npool, sizeof(*seed))) == NULL)
		return -1;
	if ((wb = malloc(LEX_WIN * (sizeof(*wb) + sizeof(*wm)))) == NULL) {
		free(seed);
		return -1;
	}
	budget = LEX_PRUNE_SEED;
	for (i = q->n; i-- > 0 && budget > 0;) {
		const struct lex_term *t = q->terms[order[i]];
		double idf = pr.idf[order[i]];

		for (j = 0; j < t->npost && budget > 0; j++, budget--) {
			struct lex_seed e;
			double f = t->post[j].tf;

			e.snip = t->post[j].snip;
			e.v = (float)(idf * (f * (LEX_K1 + 1.0)) / (f + x->norm[e.snip]));
			lex_seedk_offer(seed, &nseed, 4 * npool, &e);
		}
	}
	for (i = 0; i < nseed; i++)
		lexindex_offer(&pr, seed[i].snip);
	/* and sections they enclose, which may outscore them by inheriting */
	for (i = 0, nseeded = nseed; i < nseed && nseeded < 8 * npool; i++) {
		d = seed[i].snip;
		for (j = x->childoff[d]; j < x->childoff[d + 1] && nseeded < 8 * npool; j++) {
			lexindex_offer(&pr, x->child[j]);
			nseeded++;
		}
	}
	free(seed);
	/*
	 * 2. and 3. The walk over the essential terms, in windows of LEX_WIN snippets (the
	 * partition taken again at each as theta rises): first each term's postings in the
	 * window add their bounds into wb (and their terms into wm), then the snippets of the
	 * window that hold an essential term are taken in order.
	 */
	wm = (uint64_t *)(wb + LEX_WIN);
	memset(wbits, 0, sizeof(wbits));
	ness = 0;
	ne = 0.0;
	for (i = 0; i < q->n; i++) {
		pc[i] = q->terms[i]->post;
		pe[i] = q->terms[i]->post + q->terms[i]->npost;
	}
	for (;;) {
		while (ness < q->n && (1.0 + LEX_INHERIT) * (ne + bound[order[ness]]) *
		    LEX_PRUNE_SLACK < pr.theta)
			ne += bound[order[ness++]];
		/* the essential terms with postings left; the window starts at the first */
		w0 = UINT32_MAX;
		for (j = ness, nact = 0; j < q->n; j++)
			if (pc[order[j]] < pe[order[j]]) {
				act[nact++] = order[j];
				if (pc[order[j]]->snip < w0)
					w0 = pc[order[j]]->snip;
			}
		if (nact == 0)
			break;	/* no snippet left can reach theta (or none holds a term) */
		w1 = w0 > UINT32_MAX - LEX_WIN ? UINT32_MAX : w0 + LEX_WIN;
		/*
		 * A posting adds at most its term's bound for its frequency (rounded up to a
		 * whole one) with the smallest norm any snippet has (LEX_NORM_MIN), at most
		 * the term's bound.
		 */
		for (j = 0; j < nact; j++) {
			const struct lex_posting *ps;
			uint64_t tb = 1ull << act[j];

			i = act[j];
			for (ps = pc[i]; ps < pe[i] && ps->snip < w1; ps++) {
				uint32_t off = ps->snip - w0;
				float f = ps->tf;
				uint32_t fi = f >= 0.0f && f < (float)LEX_TFBOUNDS ? (uint32_t)f :
				    LEX_TFBOUNDS;	/* (a segment's tf out of range: the bound) */

				fi += fi < LEX_TFBOUNDS && (float)fi < f;
				if (!(wbits[off >> 6] & (1ull << (off & 63)))) {
					wbits[off >> 6] |= 1ull << (off & 63);
					wb[off] = ne;
					wm[off] = 0;
				}
				wb[off] += fi < LEX_TFBOUNDS ? tfb[i][fi] : bound[i];
				wm[off] |= tb;
			}
			qc[i] = pc[i];
			pc[i] = ps;
		}
		for (c = 0; c < LEX_WIN / 64; c++) {
			uint64_t bits = wbits[c];

			wbits[c] = 0;
			for (; bits != 0; bits &= bits - 1) {
				uint32_t off = (uint32_t)(c * 64) + (uint32_t)__builtin_ctzll(bits);
				uint64_t tm;

				d = w0 + off;
				/*
				 * A snippet reaches theta only by owning tau = theta / (1 +
				 * LEX_INHERIT) or by inheriting from a parent that owns tau (its
				 * share of it, rather): so d is scored, and the sections it encloses
				 * looked at, only when it can own tau.
				 */
				if ((1.0 + LEX_INHERIT) * wb[off] * LEX_PRUNE_SLACK < pr.theta)
					continue;
				ess = ne;
				for (tm = wm[off]; tm != 0; tm &= tm - 1) {
					double f;

					i = (size_t)__builtin_ctzll(tm);
					while (qc[i]->snip < d)
						qc[i]++;
					f = qc[i]->tf;
					ess += pr.idf[i] * (f * (LEX_K1 + 1.0)) / (f + x->norm[d]);
					/* d's lookups find it at once */
					pr.hint[i] = (uint32_t)(qc[i] - q->terms[i]->post);
				}
				if ((1.0 + LEX_INHERIT) * ess * LEX_PRUNE_SLACK < pr.theta)
					continue;
				lexindex_candidate(&pr, d, ess);
			}
		}
	}
	free(wb);
	for (i = 0; i < pr.nt; i++) {
		x->score[x->touched[i]] = 0.0f;
		x->mark[x->touched[i]] = 0;
	}
	*k = pr.k;
	*ntouched = pr.nt;
	return 1;
}

long long
lexindex_parent_of(const struct lexindex *x, long long id)
{
	size_t	 s = lexindex_snip_of(x, id);

	if (s >= x->nsnip || x->parent[s] == 0)
		return 0;
	return x->ids[x->parent[s] - 1];
}

int
lexindex_search(struct lexindex *x, struct tokenize_stemmer *stem, char **terms,
    size_t nterms, int flags, struct lexindex_hit *out, size_t max, size_t *n)
{
	struct lex_query q;
	struct lexindex_hit *pool = NULL;
	uint32_t	 seq[LEX_MAXTERMS];
	uint64_t	 mask = 0;
	double		 pairidf[LEX_MAXTERMS];
	size_t		 i, k = 0, ntouched = 0, npool;
	int		 pruned = 0;

	*n = 0;
	memset(&q, 0, sizeof(q));
	q.x = x;
	/* Each term is a quoted FTS5 string: tokenize its inside as a MATCH would. */
	for (i = 0; i < nterms; i++) {
		size_t len = strlen(terms[i]);

		if (len >= 2 && tokenize_stemmed(stem, terms[i] + 1, len - 2, 1,
		    lexindex_query_term, &q) == -1)
			return -1;
	}
	/*
	 * The best LEX_POOL by BM25 and inheritance (pruned unless LEXINDEX_EXHAUSTIVE: the
	 * same ones), re-scored with proximity when the question has two terms or more; the
	 * best max of those, sorted.
	 */
	npool = max > LEX_POOL ? max : LEX_POOL;
	if (lexindex_scratch(x) == -1 || (pool = calloc(npool, sizeof(*pool))) == NULL)
		return -1;
	if (!(flags & LEXINDEX_EXHAUSTIVE) &&
	    (pruned = lexindex_pruned(x, &q, pool, npool, flags, &k, &ntouched)) == -1) {
		free(pool);
		return -1;
	}
	if (pruned == 0)
		lexindex_exhaustive(x, &q, flags, pool, npool, &k, &ntouched);
	if ((flags & LEXINDEX_PROXIMITY) && q.nseq >= 2) {
		for (i = 0; i < q.nseq; i++) {
			seq[i] = lexindex_stream_value(q.seq[i]->hash, 0) & ~1u;
			mask |= 1ull << ((seq[i] >> 1) & 63);
			pairidf[i] = i == 0 ? 0.0 : fmin(lexindex_idf(x, q.seq[i - 1],
			    flags), lexindex_idf(x, q.seq[i], flags));
		}
		for (i = 0; i < k; i++) {
			size_t s = lexindex_snip_of(x, pool[i].id), j;

			/* Only snippets holding both terms of some pair can score. */
			for (j = 1; s < x->nsnip && j < q.nseq; j++)
				if ((x->tmask[s] >> q.seqterm[j - 1] & 1) &&
				    (x->tmask[s] >> q.seqterm[j] & 1) &&
				    q.seqterm[j - 1] != q.seqterm[j])
					break;
			if (s < x->nsnip && j < q.nseq)
				pool[i].score += fmin(LEX_PROX_WEIGHT *
				    lexindex_proximity(x, s, seq, pairidf, q.nseq, mask),
				    LEX_PROX_CAP * pool[i].score);
		}
	}
	for (i = 0; i < k; i++) {
		size_t s = lexindex_snip_of(x, pool[i].id);

		pool[i].terms = s < x->nsnip ? x->tmask[s] : 0;
	}
	for (i = 0; i < ntouched; i++)
		x->tmask[x->touched[i]] = 0;
	x->scored = ntouched;
	if (k > 0)
		qsort(pool, k, sizeof(*pool), lexindex_hit_cmp);
	if (k > max)
		k = max;
	memcpy(out, pool, k * sizeof(*out));
	free(pool);
	*n = k;
	return 0;
}

/* The sections of a lexical index in a segment (docs/DESIGN.md, "Index segments"). */
enum {
	LEXSEG_META = 1,	/* struct lexseg_meta */
	LEXSEG_IDS,		/* int64 per snippet */
	LEXSEG_DOCS,		/* int64 per snippet */
	LEXSEG_PARENT,		/* u32 per snippet */
	LEXSEG_CHILDOFF,	/* u32, nsnip + 1 */
	LEXSEG_CHILD,		/* u32, nsnip + 1 */
	LEXSEG_TOKENS,		/* i32 per snippet */
	LEXSEG_LEN,		/* f32 per snippet */
	LEXSEG_NORM,		/* f32, nsnip + 1 */
	LEXSEG_STREAMOFF,	/* u64, nsnip + 1 */
	LEXSEG_STREAM,		/* u32 */
	LEXSEG_TERMS,		/* struct lex_mterm, a power of two */
	LEXSEG_STRINGS,		/* NUL-terminated term strings */
	LEXSEG_POSTINGS,	/* struct lex_posting */
	/*
	 * The places (lexindex_place), optional: a segment written before them has none of
	 * the four, and its searches read the places from the database.
	 */
	LEXSEG_PLACE_TITLE,	/* u32 per snippet: its title in LEXSEG_PLACE_STRINGS */
	LEXSEG_PLACE_PATH,	/* u32 per snippet: its document's path there */
	LEXSEG_PLACE_FLAG,	/* u8 per snippet: 1 flagged (snippet_flags) */
	LEXSEG_PLACE_STRINGS	/* NUL-terminated strings, the first "" */
};
#define LEXSEG_NPARTS	18	/* sections lexindex_write_segment_with writes */

/*
 * The layout of the lexical sections, checked by lexindex_map apart from the container's
 * format (segment.h): 2 gives each term its score bound (lex_mterm.ub, which format 1's
 * segments leave 0 and pruned searches would trust). A segment of another format is refused
 * (logged) and its library's index built in memory until an index run or `ctxd-admin index
 * rebuild` writes it again (lib/index/segwrite.c rewrites a segment it cannot map).
 */
#define LEXSEG_FORMAT	2

struct lexseg_meta {
	uint64_t	 nsnip;
	double		 avgdl;
	uint64_t	 format;	/* LEXSEG_FORMAT; 0 in format 1 */
	uint64_t	 reserved[5];
};

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "stream offsets are stored as u64");
_Static_assert(sizeof(int) == 4 && sizeof(long long) == 8, "stored sizes");
_Static_assert(sizeof(struct lex_posting) == 8 && sizeof(struct lex_mterm) == 24,
    "stored layouts");

int
lexindex_write_segment(const struct lexindex *x, const char *dir, const char *name)
{
	return lexindex_write_segment_with(x, dir, name, NULL, 0);
}

int
lexindex_write_segment_with(const struct lexindex *x, const char *dir, const char *name,
    const struct segment_part *more, size_t nmore)
{
	struct segment_part p[SEGMENT_MAX_SECTIONS];
	struct lexseg_meta meta;
	struct lex_mterm *mt = NULL;
	struct lex_posting *post = NULL;
	char		*str = NULL;
	size_t		 i, k, nstr = 0, npost = 0;
	int		 rc = -1;

	if (x->seg != NULL || x->tabcap > UINT32_MAX ||
	    nmore > SEGMENT_MAX_SECTIONS - LEXSEG_NPARTS) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < x->tabcap; i++)
		if (x->tab[i].term != NULL) {
			nstr += strlen(x->tab[i].term) + 1;
			npost += x->tab[i].npost;
		}
	if (nstr >= LEX_MEMPTY) {
		errno = EFBIG;
		return -1;
	}
	if ((mt = calloc(x->tabcap, sizeof(*mt))) == NULL ||
	    (str = malloc(nstr + 1)) == NULL ||
	    (post = calloc(npost + 1, sizeof(*post))) == NULL)
		goto out;
	nstr = npost = 0;
	/* The same slots as tab: lookups probe the same sequence. */
	for (i = 0; i < x->tabcap; i++) {
		const struct lex_term *t = &x->tab[i];
		size_t len;

		if (t->term == NULL) {
			mt[i].str = LEX_MEMPTY;
			continue;
		}
		len = strlen(t->term) + 1;
		mt[i].hash = t->hash;
		mt[i].str = (uint32_t)nstr;
		mt[i].npost = t->npost;
		mt[i].ub = t->ub;
		mt[i].post = npost;
		memcpy(str + nstr, t->term, len);
		nstr += len;
		memcpy(post + npost, t->post, t->npost * sizeof(*post));
		npost += t->npost;
	}
	memset(&meta, 0, sizeof(meta));
	meta.format = LEXSEG_FORMAT;
	meta.nsnip = x->nsnip;
	meta.avgdl = x->avgdl;
	p[0] = (struct segment_part){ LEXSEG_META, sizeof(meta), &meta, 1 };
	p[1] = (struct segment_part){ LEXSEG_IDS, 8, x->ids, x->nsnip };
	p[2] = (struct segment_part){ LEXSEG_DOCS, 8, x->docs, x->nsnip };
	p[3] = (struct segment_part){ LEXSEG_PARENT, 4, x->parent, x->nsnip };
	p[4] = (struct segment_part){ LEXSEG_CHILDOFF, 4, x->childoff, x->nsnip + 1 };
	p[5] = (struct segment_part){ LEXSEG_CHILD, 4, x->child, x->nsnip + 1 };
	p[6] = (struct segment_part){ LEXSEG_TOKENS, 4, x->tokens, x->nsnip };
	p[7] = (struct segment_part){ LEXSEG_LEN, 4, x->len, x->nsnip };
	p[8] = (struct segment_part){ LEXSEG_NORM, 4, x->norm, x->nsnip + 1 };
	p[9] = (struct segment_part){ LEXSEG_STREAMOFF, 8, x->streamoff, x->nsnip + 1 };
	p[10] = (struct segment_part){ LEXSEG_STREAM, 4, x->stream, x->nstream };
	p[11] = (struct segment_part){ LEXSEG_TERMS, sizeof(*mt), mt, x->tabcap };
	p[12] = (struct segment_part){ LEXSEG_STRINGS, 1, str, nstr };
	p[13] = (struct segment_part){ LEXSEG_POSTINGS, sizeof(*post), post, npost };
	k = 14;
	if (x->pstr != NULL) {
		p[k++] = (struct segment_part){ LEXSEG_PLACE_TITLE, 4, x->ptitle, x->nsnip };
		p[k++] = (struct segment_part){ LEXSEG_PLACE_PATH, 4, x->ppath, x->nsnip };
		p[k++] = (struct segment_part){ LEXSEG_PLACE_FLAG, 1, x->pflag, x->nsnip };
		p[k++] = (struct segment_part){ LEXSEG_PLACE_STRINGS, 1, x->pstr, x->npstr };
	}
	if (nmore > 0)
		memcpy(p + k, more, nmore * sizeof(*more));
	rc = segment_write(dir, name, p, k + nmore);
out:
	free(mt);
	free(str);
	free(post);
	return rc;
}

/* Checks every index a mapped index holds against the sections' bounds: 0 or -1 with why. */
static int
lexindex_check(const struct lexindex *x, size_t nchild, char *why, size_t whylen)
{
	size_t	 i, empty = 0;

#define LEXBAD(msg) do { snprintf(why, whylen, "%s", msg); return -1; } while (0)
	for (i = 0; i < x->nsnip; i++) {
		if (x->parent[i] > x->nsnip)
			LEXBAD("a parent outside the snippets");
		if (i > 0 && x->ids[i] <= x->ids[i - 1])
			LEXBAD("snippet ids not ascending");
		if (x->childoff[i] > x->childoff[i + 1] || x->streamoff[i] > x->streamoff[i + 1])
			LEXBAD("offsets not ascending");
	}
	if (x->childoff[x->nsnip] > nchild || x->streamoff[x->nsnip] > x->nstream)
		LEXBAD("offsets past their section");
	for (i = 0; i < x->childoff[x->nsnip]; i++)
		if (x->child[i] >= x->nsnip)
			LEXBAD("a child outside the snippets");
	if (x->mtabcap == 0 || (x->mtabcap & (x->mtabcap - 1)) != 0)
		LEXBAD("term table size not a power of two");
	if (x->nmstr == 0 || x->mstr[x->nmstr - 1] != '\0')
		LEXBAD("term strings not terminated");
	for (i = 0; i < x->mtabcap; i++) {
		const struct lex_mterm *m = &x->mtab[i];
		size_t k;

		if (m->str == LEX_MEMPTY) {
			empty++;
			continue;
		}
		if (m->str >= x->nmstr || m->post > x->nmpost || m->npost > x->nmpost - m->post)
			LEXBAD("a term outside its section");
		if (!(m->ub >= 0.0f) || isinf(m->ub))
			LEXBAD("a term's score bound is not a number");
		for (k = 0; k < m->npost; k++) {
			if (x->mpost[m->post + k].snip >= x->nsnip)
				LEXBAD("a posting outside the snippets");
			/* pruned searches look postings up by binary search */
			if (k > 0 && x->mpost[m->post + k].snip <= x->mpost[m->post + k - 1].snip)
				LEXBAD("postings not in snippet order");
		}
	}
	if (empty == 0)
		LEXBAD("term table without an empty slot");
	return 0;
#undef LEXBAD
}

/*
 * The place sections of a mapped index: all four of the right sizes with every string
 * inside its section, or none (the index then holds no places). 0, or -1 with why.
 */
static int
lexindex_map_places(struct lexindex *x, char *why, size_t whylen)
{
	size_t	 nt, np, nf, i;

	x->ptitle = (uint32_t *)(uintptr_t)segment_get(x->seg, LEXSEG_PLACE_TITLE, 4, &nt);
	x->ppath = (uint32_t *)(uintptr_t)segment_get(x->seg, LEXSEG_PLACE_PATH, 4, &np);
	x->pflag = (uint8_t *)(uintptr_t)segment_get(x->seg, LEXSEG_PLACE_FLAG, 1, &nf);
	x->pstr = (char *)(uintptr_t)segment_get(x->seg, LEXSEG_PLACE_STRINGS, 1, &x->npstr);
	if (x->pstr == NULL && x->ptitle == NULL && x->ppath == NULL && x->pflag == NULL &&
	    nt + np + nf == 0)
		return 0;		/* written before the places */
	if (x->pstr == NULL || x->npstr == 0 || x->pstr[x->npstr - 1] != '\0' ||
	    nt != x->nsnip || np != x->nsnip || nf != x->nsnip ||
	    (x->nsnip > 0 && (x->ptitle == NULL || x->ppath == NULL || x->pflag == NULL))) {
		snprintf(why, whylen, "the place sections are incomplete");
		return -1;
	}
	for (i = 0; i < x->nsnip; i++)
		if (x->ptitle[i] >= x->npstr || x->ppath[i] >= x->npstr || x->pflag[i] > 1) {
			snprintf(why, whylen, "a place outside its section");
			return -1;
		}
	return 0;
}

int
lexindex_place(const struct lexindex *x, long long id, const char **path,
    const char **title, int *flagged)
{
	size_t	 i;

	if (x->pstr == NULL || (i = lexindex_snip_of(x, id)) >= x->nsnip)
		return 0;
	*path = x->pstr + x->ppath[i];
	*title = x->pstr + x->ptitle[i];
	*flagged = x->pflag[i];
	return 1;
}

int
lexindex_places(const struct lexindex *x)
{
	return x->pstr != NULL;
}

/*
 * The lexical index of segment g (checked as lexindex_map says), which it then owns; NULL
 * with why (errno EINVAL), g closed.
 */
static struct lexindex *
lexindex_open_segment(struct segment *g, char *why, size_t whylen)
{
	struct lexindex	*x;
	const struct lexseg_meta *meta;
	size_t		 n, nchild, m[11];

	if ((x = calloc(1, sizeof(*x))) == NULL) {
		segment_close(g);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	x->seg = g;
	meta = segment_get(x->seg, LEXSEG_META, sizeof(*meta), &n);
	if (meta == NULL || n != 1 || meta->nsnip >= UINT32_MAX || !(meta->avgdl > 0.0)) {
		snprintf(why, whylen, "no lexical index in the segment");
		goto fail;
	}
	if (meta->format != LEXSEG_FORMAT) {
		snprintf(why, whylen, "a lexical index of format %llu, not %d",
		    (unsigned long long)meta->format, LEXSEG_FORMAT);
		goto fail;
	}
	x->nsnip = (size_t)meta->nsnip;
	x->avgdl = meta->avgdl;
	/* Read-only arrays: search only reads these; the casts drop const for the struct. */
	x->ids = (long long *)(uintptr_t)segment_get(x->seg, LEXSEG_IDS, 8, &m[0]);
	x->docs = (long long *)(uintptr_t)segment_get(x->seg, LEXSEG_DOCS, 8, &m[1]);
	x->parent = (uint32_t *)(uintptr_t)segment_get(x->seg, LEXSEG_PARENT, 4, &m[2]);
	x->childoff = (uint32_t *)(uintptr_t)segment_get(x->seg, LEXSEG_CHILDOFF, 4, &m[3]);
	x->child = (uint32_t *)(uintptr_t)segment_get(x->seg, LEXSEG_CHILD, 4, &nchild);
	x->tokens = (int *)(uintptr_t)segment_get(x->seg, LEXSEG_TOKENS, 4, &m[4]);
	x->len = (float *)(uintptr_t)segment_get(x->seg, LEXSEG_LEN, 4, &m[5]);
	x->norm = (float *)(uintptr_t)segment_get(x->seg, LEXSEG_NORM, 4, &m[6]);
	x->streamoff = (size_t *)(uintptr_t)segment_get(x->seg, LEXSEG_STREAMOFF, 8, &m[7]);
	x->stream = (uint32_t *)(uintptr_t)segment_get(x->seg, LEXSEG_STREAM, 4,
	    &x->nstream);
	x->mtab = segment_get(x->seg, LEXSEG_TERMS, sizeof(*x->mtab), &x->mtabcap);
	x->mstr = segment_get(x->seg, LEXSEG_STRINGS, 1, &x->nmstr);
	x->mpost = segment_get(x->seg, LEXSEG_POSTINGS, sizeof(*x->mpost), &x->nmpost);
	if (m[0] != x->nsnip || m[1] != x->nsnip || m[2] != x->nsnip ||
	    m[3] != x->nsnip + 1 || nchild != x->nsnip + 1 || m[4] != x->nsnip ||
	    m[5] != x->nsnip || m[6] != x->nsnip + 1 || m[7] != x->nsnip + 1 ||
	    (x->nstream > 0 && x->stream == NULL) || x->mtab == NULL || x->mstr == NULL ||
	    (x->nmpost > 0 && x->mpost == NULL)) {
		snprintf(why, whylen, "a lexical section is missing or of the wrong size");
		goto fail;
	}
	if (lexindex_check(x, nchild, why, whylen) == -1 ||
	    lexindex_map_places(x, why, whylen) == -1)
		goto fail;
	return x;
fail:
	lexindex_free(x);
	errno = EINVAL;
	return NULL;
}

struct lexindex *
lexindex_map(const char *path, char *why, size_t whylen)
{
	struct segment	*g;

	if (whylen > 0)
		*why = '\0';
	if ((g = segment_map(path, why, whylen)) == NULL)
		return NULL;
	return lexindex_open_segment(g, why, whylen);
}

struct lexindex *
lexindex_open_memory(const void *buf, size_t len, char *why, size_t whylen)
{
	struct segment	*g;

	if (whylen > 0)
		*why = '\0';
	if ((g = segment_open_memory(buf, len, why, whylen)) == NULL)
		return NULL;
	return lexindex_open_segment(g, why, whylen);
}
