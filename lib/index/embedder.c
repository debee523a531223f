/*
 * embedder.c: embedding vectors of a library's new snippets (see embedder.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json.h>

#include "ai/provider.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "index/batchrun.h"
#include "index/embedder.h"
#include "index/share.h"
#include "search/vector.h"
#include "store/db.h"
#include "store/embeddings.h"
#include "store/library.h"

/* One snippet waiting for a vector. */
struct emb_item {
	long long	 id;
	char		*text;
	char		 hash[65];
};

/* The step's state; the runner's first (see batchrun.h). */
struct emb_run {
	struct batchrun		 b;
	struct embedder_stats	*st;
	struct emb_item		*items;		/* the batch being embedded */
	size_t			 n;
	long long		 after;		/* the last snippet id read */
	size_t			 total;		/* without a vector at the start */
};

static void	embedder_missing(struct emb_run *);

/* Appends the code blocks of a snippet's code JSON ([{"language", "code"}]) to b. */
static int
embedder_add_code(struct buf *b, const char *json)
{
	json_object	*arr, *o, *c;
	size_t		 i, n;
	int		 rc = 0;

	if (json == NULL || (arr = json_tokener_parse(json)) == NULL)
		return 0;
	if (json_object_is_type(arr, json_type_array)) {
		n = json_object_array_length(arr);
		for (i = 0; i < n && rc == 0; i++) {
			o = json_object_array_get_idx(arr, i);
			if (json_object_object_get_ex(o, "code", &c) &&
			    json_object_is_type(c, json_type_string))
				rc = buf_addc(b, '\n') == -1 ||
				    buf_adds(b, json_object_get_string(c)) == -1 ? -1 : 0;
		}
	}
	json_object_put(arr);
	return rc;
}

/*
 * The text embedded for a snippet: title, breadcrumb, text and code, cut to
 * EMBEDDER_MAX_TEXT bytes at a UTF-8 character boundary. malloc'd, NULL on no memory.
 */
static char *
embedder_text(const char *title, const char *crumb, const char *text, const char *code)
{
	struct buf	 b;
	size_t		 n;

	buf_init(&b);
	if (buf_adds(&b, title) == -1 || buf_addc(&b, '\n') == -1 ||
	    buf_adds(&b, crumb) == -1 || buf_addc(&b, '\n') == -1 ||
	    buf_adds(&b, text) == -1 || embedder_add_code(&b, code) == -1) {
		buf_release(&b);
		return NULL;
	}
	if (b.len > EMBEDDER_MAX_TEXT) {
		n = EMBEDDER_MAX_TEXT;
		while (n > 0 && ((unsigned char)b.p[n] & 0xc0) == 0x80)
			n--;
		b.p[n] = '\0';
		b.len = n;
	}
	return buf_detach(&b);
}

static void
embedder_items_release(struct emb_item *items, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(items[i].text);
}

/* Where embedder_read puts the rows. */
struct emb_read {
	struct emb_run	*e;
	struct emb_item	*items;
	size_t		*n;
	long long	*after;
};

static int
embedder_read_row(const struct store_embed_row *r, void *arg)
{
	struct emb_read	*rd = arg;
	struct emb_item	*it = &rd->items[*rd->n];

	it->id = r->id;
	if ((it->text = embedder_text(r->title, r->breadcrumb, r->text, r->code)) == NULL) {
		batchrun_error(&rd->e->b, "out of memory");
		return -1;
	}
	crypto_sha256_hex(it->text, strlen(it->text), it->hash);
	*rd->after = it->id;
	(*rd->n)++;
	return 0;
}

/*
 * Reads up to EMBEDDER_BATCH snippets of the library with an id above *after and no
 * vector for the model, with their texts and hashes. *n is how many; 0 at the end.
 */
static int
embedder_read(struct emb_run *e, long long *after, struct emb_item *items, size_t *n)
{
	struct emb_read	 rd = { e, items, n, after };

	*n = 0;
	if (store_embed_todo(e->b.db, e->b.library_id, *after, e->st->model,
	    EMBEDDER_BATCH, embedder_read_row, &rd) == 0)
		return 0;
	if (e->st->error[0] == '\0')
		batchrun_error(&e->b, "database error: %s", db_errmsg(e->b.db));
	return -1;
}

/*
 * Inside the caller's transaction: gives the library a new embed_version (unique across
 * libraries), which tells query processes to reload its vectors; the other versions that
 * show its snippets too.
 */
static int
embedder_bump(struct emb_run *e)
{
	if (store_library_bump(e->b.db, e->b.library_id, STORE_BUMP_VECTORS) == -1)
		return -1;
	/* the versions that show some of its snippets (lib/index/share.h) */
	return share_touch(e->b.db, e->b.library_id, SHARE_TOUCH_VECTORS);
}

/*
 * Gives, in one transaction, each item whose text has a stored vector of the model (table
 * vectors, same hash) an embeddings row naming it; those items get a NULL text and are not
 * sent to the provider. *left is the number still to embed.
 */
static int
embedder_reuse(struct emb_run *e, struct emb_item *items, size_t n, size_t *left)
{
	struct store_embedding rows[EMBEDDER_BATCH];
	size_t		 i;

	*left = n;
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < n; i++) {
		rows[i].snippet_id = items[i].id;
		rows[i].hash = items[i].hash;
	}
	if (db_begin(e->b.db) == -1)
		goto out;
	if (store_embeddings_reuse(e->b.db, e->st->model, rows, n) == -1)
		goto rollback;
	if (embedder_bump(e) == -1 || db_commit(e->b.db) == -1)
		goto rollback;
	for (i = 0; i < n; i++)
		if (rows[i].reused) {
			free(items[i].text);
			items[i].text = NULL;
			e->st->reused++;
			(*left)--;
		}
	return 0;
rollback:
	db_rollback(e->b.db);
out:
	batchrun_error(&e->b, "database error: %s", db_errmsg(e->b.db));
	return -1;
}

/*
 * Writes the vectors (vec: n rows of dim floats, for the items with a text) in one
 * transaction: each vector once per (model, hash) in vectors (an item of the same text
 * earlier in the batch stored it already), then the item's embeddings row naming it.
 */
static int
embedder_store(struct emb_run *e, struct emb_item *items, size_t n, float *vec,
    size_t dim)
{
	struct store_embedding rows[EMBEDDER_BATCH];
	float		*v;
	size_t		 i, j = 0, stored = 0;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < n; i++) {
		rows[i].snippet_id = items[i].id;
		rows[i].hash = items[i].hash;
		if (items[i].text == NULL)
			continue;
		v = vec + j++ * dim;
		if (vector_normalize(v, dim) == -1) {
			batchrun_log(&e->b, "warning", "snippet %lld: the provider gave a zero or "
			    "non-finite vector; not stored", items[i].id);
			continue;
		}
		rows[i].vector = v;
		stored++;
	}
	if (db_begin(e->b.db) == -1)
		goto out;
	if (store_embeddings_put(e->b.db, e->st->model, dim, rows, n) == -1 ||
	    embedder_bump(e) == -1 || db_commit(e->b.db) == -1) {
		db_rollback(e->b.db);
		goto out;
	}
	e->st->embedded += stored;
	return 0;
out:
	batchrun_error(&e->b, "database error: %s", db_errmsg(e->b.db));
	return -1;
}

/* Embeds the items that still have a text and stores their vectors. */
static int
embedder_batch(struct emb_run *e, struct emb_item *items, size_t n, size_t left)
{
	struct provider_error	 perr;
	const char		**texts = NULL;
	float			*vec = NULL;
	size_t			 i, j = 0, dim = 0;
	long long		 budget;
	int			 rc = -1;

	if (left == 0)
		return 0;
	if ((budget = batchrun_left(&e->b, 0)) == -1)
		return -1;
	if ((texts = calloc(left, sizeof(*texts))) == NULL) {
		batchrun_error(&e->b, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (items[i].text != NULL)
			texts[j++] = items[i].text;
	memset(&perr, 0, sizeof(perr));
	if (provider_embed(&e->b.cfg, texts, left, PROVIDER_EMBED_DOCUMENT, (long)budget,
	    &vec, &dim, &perr) == -1) {
		batchrun_provider_error(&e->b, &perr);
		goto out;
	}
	if (dim == 0 || dim > VECTOR_MAX_DIM) {
		batchrun_error(&e->b, "the provider gave vectors of %zu dimensions", dim);
		goto out;
	}
	rc = embedder_store(e, items, n, vec, dim);
out:
	free(vec);
	free(texts);
	return rc;
}

/* ------------------------------------------------------------ the step's operations */

static int
embedder_begin(struct batchrun *b)
{
	struct emb_run	*e = (struct emb_run *)(void *)b;

	snprintf(e->st->model, sizeof(e->st->model), "%s", b->cfg.model);
	if (b->progress != NULL) {	/* the total of the progress report */
		embedder_missing(e);
		e->total = e->st->missing;
	}
	if ((e->items = calloc(EMBEDDER_BATCH, sizeof(*e->items))) == NULL) {
		batchrun_error(b, "out of memory");
		return -1;
	}
	return 0;
}

/* The next snippets without a vector (the previous batch is released). */
static int
embedder_next(struct batchrun *b, size_t *n)
{
	struct emb_run	*e = (struct emb_run *)(void *)b;

	embedder_items_release(e->items, e->n);
	e->n = 0;
	if (embedder_read(e, &e->after, e->items, &e->n) == -1)
		return -1;
	*n = e->n;
	return 0;
}

/* Copies the vectors stored for the same texts, embeds the others. */
static int
embedder_send(struct batchrun *b, size_t n)
{
	struct emb_run	*e = (struct emb_run *)(void *)b;
	size_t		 left;

	if (embedder_reuse(e, e->items, n, &left) == -1 ||
	    embedder_batch(e, e->items, n, left) == -1)
		return -1;
	return 0;
}

/* Counts the snippets still without a vector for the model. */
static void
embedder_missing(struct emb_run *e)
{
	size_t	 n;

	if (store_embed_missing(e->b.db, e->b.library_id, e->st->model, &n) == 0)
		e->st->missing = n;
}

static void
embedder_end(struct batchrun *b, int rc)
{
	struct emb_run		*e = (struct emb_run *)(void *)b;
	struct embedder_stats	*out = e->st;
	size_t			 gone = 0;

	embedder_items_release(e->items, e->n);
	free(e->items);
	e->items = NULL;
	e->n = 0;
	out->seconds = (double)(util_now_ms() - b->t0) / 1000;
	if (out->configured && *out->model != '\0')
		embedder_missing(e);
	if (out->embedded + out->reused > 0)
		batchrun_log(b, "info", "embedded %zu snippets (%zu reused) with %s in "
		    "%.1f s", out->embedded + out->reused, out->reused, out->model,
		    out->seconds);
	if (rc == -1)
		batchrun_log(b, "error", "embedding failed: %s; %zu snippets have no "
		    "vector; the library stays searchable lexically", out->error,
		    out->missing);
	else if (out->missing > 0)
		batchrun_log(b, "warning", "%zu snippets have no vector for %s",
		    out->missing, out->model);
	/* Configured or not: the index write, dedup and describe leave vectors unnamed. */
	if (embedder_gc(b->db, &gone) == 0 && gone > 0)
		batchrun_log(b, "info", "deleted %zu vectors no snippet uses any more", gone);
}

/* The snippets given a vector so far (embedded or reused), of those without one. */
static void
embedder_count(struct batchrun *b, size_t *done, size_t *total)
{
	struct emb_run	*e = (struct emb_run *)(void *)b;

	*done = e->st->embedded + e->st->reused;
	*total = e->total > *done ? e->total : *done;
}

static const struct batchrun_ops embedder_ops = {
	.llm = 0,
	.what = "embedding",
	.invalid = "the embedding settings are invalid (ctxd-admin provider test "
	    "--embed tells more)",
	.nomodel = "no embedding model is set (ai.embed.model)",
	.begin = embedder_begin,
	.next = embedder_next,
	.send = embedder_send,
	.end = embedder_end,
	.phase = "embedding",
	.count = embedder_count
};

int
embedder_run(struct db *db, const char *datadir, const char *library_id,
    embedder_log_fn log, void *log_ctx, struct embedder_stats *out)
{
	struct emb_run	 e;
	long		 budget = out->budget_ms;
	int		 (*cancel)(void *) = out->cancel;
	void		 (*progress)(void *, const char *, size_t, size_t) =
			    out->progress;

	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	e.st = out;
	batchrun_init(&e.b, budget > 0 ? budget : EMBEDDER_DEADLINE_MS, cancel,
	    &out->configured, &out->cancelled, out->error, sizeof(out->error));
	e.b.progress = progress;
	return batchrun_run(&embedder_ops, &e.b, db, datadir, library_id, log, log_ctx);
}

int
embedder_gc(struct db *db, size_t *deleted)
{
	return store_vectors_gc(db, deleted);
}
