/*
 * dedup.c: exact and near-duplicate snippets within a library (see dedup.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "index/dedup.h"
#include "index/share.h"
#include "store/dedup.h"

#define DEDUP_GROUP_MAX	64	/* kept snippets of one trail compared at most */

/* Appends s with runs of white space squeezed to one space and both ends trimmed. */
static int
dedup_add_squeezed(struct buf *b, const char *s)
{
	int	 space = 0, any = 0;

	for (; *s != '\0'; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
		    *s == '\f' || *s == '\v') {
			space = any;
			continue;
		}
		if ((space && buf_addc(b, ' ') == -1) || buf_addc(b, *s) == -1)
			return -1;
		space = 0;
		any = 1;
	}
	return 0;
}

static int
dedup_wordc(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* FNV-1a of a lowercased word, continuing from h. */
static uint64_t
dedup_fnv(uint64_t h, const char *p, size_t n)
{
	size_t	 i;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)p[i];
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		h ^= c;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* splitmix64 finaliser: spreads FNV's weak low bits over the whole word. */
static uint64_t
dedup_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Simhash of the word 3-shingles of s (words: runs of letters, digits, '_', non-ASCII). */
static void
dedup_simhash(const char *s, struct dedup_sig *out)
{
	uint64_t	 w[3] = { 0, 0, 0 }, h;
	int		 v[64], b;
	size_t		 nwords = 0, n;
	const char	*p = s;

	memset(v, 0, sizeof(v));
	while (*p != '\0') {
		if (!dedup_wordc((unsigned char)*p)) {
			p++;
			continue;
		}
		for (n = 0; p[n] != '\0' && dedup_wordc((unsigned char)p[n]); n++)
			;
		w[0] = w[1];
		w[1] = w[2];
		w[2] = dedup_fnv(0xcbf29ce484222325ULL, p, n);
		p += n;
		if (++nwords < 3)
			continue;
		h = dedup_mix(w[0] ^ dedup_mix(w[1] ^ dedup_mix(w[2])));
		for (b = 0; b < 64; b++)
			v[b] += (h >> b) & 1 ? 1 : -1;
	}
	out->sig = 0;
	for (b = 0; b < 64; b++)
		if (v[b] > 0)
			out->sig |= 1ULL << b;
	out->has_sig = nwords >= DEDUP_MIN_WORDS;
	out->words = nwords;
}

void
dedup_signature(const char *title, const char *text, const char *code,
    const char *trail, struct dedup_sig *out)
{
	struct buf	 b;
	size_t		 skip;

	memset(out, 0, sizeof(*out));
	buf_init(&b);
	if (dedup_add_squeezed(&b, title ? title : "") == -1 ||
	    buf_adds(&b, "\n\x1e\n") == -1)
		goto nomem;
	skip = b.len;
	if (dedup_add_squeezed(&b, text ? text : "") == -1 ||
	    buf_adds(&b, "\n\x1e\n") == -1 ||
	    dedup_add_squeezed(&b, code ? code : "") == -1)
		goto nomem;
	dedup_simhash(b.p + skip, out);
	if (out->words < DEDUP_SHORT_WORDS && (buf_adds(&b, "\n\x1e\n") == -1 ||
	    dedup_add_squeezed(&b, trail ? trail : "") == -1))
		goto nomem;
	crypto_sha256_hex(b.p, b.len, out->hash);
	buf_release(&b);
	return;
nomem:
	/* A signature that matches nothing else. */
	log_err("%s: out of memory", __func__);
	snprintf(out->hash, sizeof(out->hash), "%p", (const void *)out);
	buf_release(&b);
}

int
dedup_near(uint64_t a, uint64_t b)
{
	return __builtin_popcountll(a ^ b) <= DEDUP_NEAR_BITS;
}

/* 1 when the file name of path is a changelog or release notes. */
static int
dedup_is_changelog(const char *path)
{
	static const char *names[] = { "changelog", "changes", "history", "news",
	    "release-notes", "release_notes", "releasenotes", "releases" };
	const char	*base = strrchr(path, '/');
	size_t		 i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncasecmp(base, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

/*
 * Version named by a directory of path: "5x", "4.x", "v2", "v1.9", "3.0.1" give
 * major * 10^6 + minor * 10^3 + patch (each at most 999); the highest wins; 0 for none.
 */
static long
dedup_version(const char *path)
{
	const char	*seg = path, *end, *p;
	long		 best = 0, v, part;
	int		 nparts;

	while ((end = strchr(seg, '/')) != NULL) {
		p = seg;
		if (*p == 'v' || *p == 'V')
			p++;
		v = 0;
		nparts = 0;
		while (p < end && *p >= '0' && *p <= '9' && nparts < 3) {
			for (part = 0; p < end && *p >= '0' && *p <= '9'; p++)
				if (part < 999)
					part = part * 10 + (*p - '0');
			v = v * 1000 + (part > 999 ? 999 : part);
			nparts++;
			if (p < end && *p == '.' && p + 1 < end && p[1] >= '0' &&
			    p[1] <= '9')
				p++;
		}
		if (p < end && (*p == 'x' || *p == 'X') && p + 1 == end)
			p++;
		else if (p + 2 == end && p[0] == '.' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		if (nparts > 0 && p == end) {
			for (; nparts < 3; nparts++)
				v *= 1000;
			if (v > best)
				best = v;
		}
		seg = end + 1;
	}
	return best;
}

static int
dedup_depth(const char *path)
{
	int	 n = 0;

	for (; *path != '\0'; path++)
		n += *path == '/';
	return n;
}

int
dedup_prefer(const char *a, long orda, const char *b, long ordb)
{
	long	 va, vb;
	int	 c;

	if ((c = dedup_is_changelog(a) - dedup_is_changelog(b)) != 0)
		return c;
	va = dedup_version(a);
	vb = dedup_version(b);
	if (va != vb)
		return va > vb ? -1 : 1;
	if ((c = dedup_depth(a) - dedup_depth(b)) != 0)
		return c;
	if ((c = strcmp(a, b)) != 0)
		return c;
	return orda < ordb ? -1 : orda > ordb;
}

/* One snippet of the library in the pass. */
struct dd_item {
	long long	 id;
	long		 ord;
	char		*path;
	char		*trail;		/* document title, breadcrumb and title */
	char		 hash[65];
	uint64_t	 sig;
	int		 has_sig;
	long long	 doc;		/* its document (the owner's: snippets.document_id) */
	int		 owned;		/* the library's own; else shown from another's */
	long long	 old_dup;	/* 0: kept */
	long long	 new_dup;
	size_t		 rank;		/* position in preference order */
	/* dedup_prefer's keys, computed once */
	int		 changelog, depth;
	long		 version;
};

static int
dedup_cmp(const void *x, const void *y)
{
	const struct dd_item *a = *(const struct dd_item *const *)x;
	const struct dd_item *b = *(const struct dd_item *const *)y;
	int	 c;

	/* dedup_prefer with its keys computed once */
	if ((c = a->changelog - b->changelog) != 0)
		return c;
	if (a->version != b->version)
		return a->version > b->version ? -1 : 1;
	if ((c = a->depth - b->depth) != 0)
		return c;
	if ((c = strcmp(a->path, b->path)) != 0)
		return c;
	if (a->ord != b->ord)
		return a->ord < b->ord ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static uint64_t
dedup_hash_key(const char *hex)
{
	return dedup_fnv(0xcbf29ce484222325ULL, hex, 64);
}

/* The kept snippets of one heading trail. */
struct dedup_group {
	const char	 *trail;
	struct dd_item	**kept;
	size_t		  n, cap;
};

/* The kept snippets seen so far: open-addressing tables on hash and on trail. */
struct dd_kept {
	struct dd_item	**exact;	/* size mask + 1 */
	struct dedup_group	 *groups;	/* size mask + 1; trail NULL: free */
	size_t		  mask;
};

static struct dedup_group *
dedup_group(struct dd_kept *k, const char *trail)
{
	size_t	 i;

	for (i = dedup_fnv(0xcbf29ce484222325ULL, trail, strlen(trail)) & k->mask;
	    k->groups[i].trail != NULL; i = (i + 1) & k->mask)
		if (strcmp(k->groups[i].trail, trail) == 0)
			break;
	return &k->groups[i];
}

/*
 * The kept snippet it duplicates: one with the same hash, else the first kept one of its
 * heading trail in another document whose simhash is near (the same text under another
 * heading documents another thing, and templated reference pages differ in a word or two;
 * within one document, snippets of one heading trail are the parts of a long section, not
 * copies of each other).
 */
static struct dd_item *
dedup_find(struct dd_kept *k, struct dd_item *it)
{
	struct dedup_group	*g;
	size_t		 i;

	for (i = dedup_hash_key(it->hash) & k->mask; k->exact[i] != NULL;
	    i = (i + 1) & k->mask)
		if (strcmp(k->exact[i]->hash, it->hash) == 0)
			return k->exact[i];
	if (!it->has_sig)
		return NULL;
	g = dedup_group(k, it->trail);
	for (i = 0; g->trail != NULL && i < g->n && i < DEDUP_GROUP_MAX; i++)
		if (strcmp(g->kept[i]->path, it->path) != 0 &&
		    dedup_near(g->kept[i]->sig, it->sig))
			return g->kept[i];
	return NULL;
}

static int
dedup_keep(struct dd_kept *k, struct dd_item *it)
{
	struct dedup_group	*g;
	struct dd_item	**t;
	size_t		 i;

	for (i = dedup_hash_key(it->hash) & k->mask; k->exact[i] != NULL;
	    i = (i + 1) & k->mask)
		;
	k->exact[i] = it;
	if (!it->has_sig)
		return 0;
	g = dedup_group(k, it->trail);
	g->trail = it->trail;
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4;
		if ((t = reallocarray(g->kept, g->cap, sizeof(*t))) == NULL)
			return -1;
		g->kept = t;
	}
	g->kept[g->n++] = it;
	return 0;
}

/* The items read so far (dedup_load). */
struct dd_load {
	struct dd_item	*v;
	size_t		 n, cap;
};

static int
dedup_load_row(const struct store_dedup_row *r, void *arg)
{
	struct dd_load	*l = arg;
	struct dd_item	*t;
	struct buf	 tb;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 1024;

		if ((t = reallocarray(l->v, ncap, sizeof(*t))) == NULL)
			return -1;
		l->v = t;
		l->cap = ncap;
	}
	t = &l->v[l->n];
	memset(t, 0, sizeof(*t));
	t->id = r->id;
	t->ord = r->ord;
	/* A snippet without a hash (never expected) matches only itself. */
	if (strlen(r->hash) != 64)
		snprintf(t->hash, sizeof(t->hash), "id%lld", t->id);
	else
		memcpy(t->hash, r->hash, sizeof(t->hash));
	t->has_sig = r->has_sig;
	t->sig = (uint64_t)r->sig;
	t->old_dup = r->dup_of;
	t->doc = r->owner_doc;
	t->owned = r->owned;
	if ((t->path = strdup(r->path)) == NULL)
		return -1;
	buf_init(&tb);
	if (dedup_add_squeezed(&tb, r->trail) == -1 ||
	    (t->trail = buf_detach(&tb)) == NULL) {
		buf_release(&tb);
		free(t->path);
		return -1;
	}
	l->n++;
	return 0;
}

/* Reads the snippets the library shows (its own and shared ones) into *items (*n of them). */
static int
dedup_load(struct db *db, const char *library_id, struct dd_item **items,
    size_t *n)
{
	struct dd_load	 l;
	int		 rc;

	memset(&l, 0, sizeof(l));
	rc = store_dedup_rows(db, library_id, dedup_load_row, &l);
	*items = l.v;
	*n = l.n;
	return rc;
}

/*
 * Before a pass changes the decision of a snippet of the library: its document, when
 * other libraries show it, is copied for them (share_unshare), which adds them to
 * *changed.
 */
static int
dedup_unshare(struct db *db, struct dd_item *items, size_t n,
    struct share_libs *changed)
{
	long long	 last = 0;
	size_t		 i;

	for (i = 0; i < n; i++)
		if (items[i].owned && items[i].new_dup != items[i].old_dup &&
		    items[i].doc != last) {
			last = items[i].doc;
			if (share_unshare(db, last, changed) == -1)
				return -1;
		}
	return 0;
}

/*
 * Writes the decisions that changed (store_dedup_apply: when vectors were dropped, the
 * library gets a new embed_version, so that query processes reload its vectors without
 * them).
 */
static int
dedup_apply(struct db *db, const char *library_id, struct dd_item *items,
    size_t n, struct dedup_stats *stats)
{
	struct store_dup_change *c;
	size_t		 i, k = 0;
	int		 rc;

	if ((c = calloc(n + 1, sizeof(*c))) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (items[i].new_dup == items[i].old_dup)
			continue;
		c[k].id = items[i].id;
		c[k].old_dup = items[i].old_dup;
		c[k].new_dup = items[i].new_dup;
		k++;
	}
	if ((rc = store_dedup_apply(db, library_id, c, k)) == 0)
		for (i = 0; i < k; i++) {
			stats->removed += c[i].old_dup == 0;
			stats->restored += c[i].new_dup == 0;
		}
	free(c);
	return rc;
}

int
dedup_library(struct db *db, const char *library_id, struct share_libs *changed,
    struct dedup_stats *stats)
{
	struct dd_item	*items = NULL, **order = NULL, *c;
	struct dd_kept	 k;
	size_t		 n = 0, i, size;
	int		 rc = -1;

	memset(stats, 0, sizeof(*stats));
	memset(&k, 0, sizeof(k));
	if (share_validate(db, library_id) == -1 ||
	    dedup_load(db, library_id, &items, &n) == -1) {
		log_err("%s: %s: could not read the snippets", __func__, library_id);
		goto out;
	}
	stats->snippets = n;
	for (size = 64; size < 2 * n; size *= 2)
		;
	k.mask = size - 1;
	if ((order = calloc(n + 1, sizeof(*order))) == NULL ||
	    (k.exact = calloc(size, sizeof(*k.exact))) == NULL ||
	    (k.groups = calloc(size, sizeof(*k.groups))) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		order[i] = &items[i];
		items[i].changelog = dedup_is_changelog(items[i].path);
		items[i].version = dedup_version(items[i].path);
		items[i].depth = dedup_depth(items[i].path);
	}
	qsort(order, n, sizeof(*order), dedup_cmp);
	/*
	 * The snippets shown from other libraries stay as their owner decided: the kept ones
	 * are kept here too, before any of the library's own (lib/index/share.h).
	 */
	for (i = 0; i < n; i++) {
		order[i]->rank = i;
		order[i]->new_dup = order[i]->old_dup;
		if (!order[i]->owned && order[i]->old_dup == 0 &&
		    dedup_keep(&k, order[i]) == -1)
			goto nomem;
	}
	for (i = 0; i < n; i++) {
		if (!order[i]->owned) {
			stats->duplicates += order[i]->old_dup != 0;
			continue;
		}
		order[i]->new_dup = 0;
		if ((c = dedup_find(&k, order[i])) != NULL) {
			order[i]->new_dup = c->id;
			stats->duplicates++;
			stats->exact += strcmp(c->hash, order[i]->hash) == 0;
		} else if (dedup_keep(&k, order[i]) == -1)
			goto nomem;
	}
	if (dedup_unshare(db, items, n, changed) == -1 ||
	    dedup_apply(db, library_id, items, n, stats) == -1) {
		log_err("%s: %s: could not write the decisions", __func__, library_id);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	for (i = 0; i < n; i++) {
		free(items[i].path);
		free(items[i].trail);
	}
	for (i = 0; k.groups != NULL && i <= k.mask; i++)
		free(k.groups[i].kept);
	free(items);
	free(order);
	free(k.exact);
	free(k.groups);
	return rc;
}
