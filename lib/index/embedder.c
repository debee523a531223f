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
#include <sqlite3.h>

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

/*
 * Reads up to EMBEDDER_BATCH snippets of the library with an id above *after and no
 * vector for the model, with their texts and hashes. *n is how many; 0 at the end.
 */
static int
embedder_read(struct emb_run *e, long long *after, struct emb_item *items, size_t *n)
{
	sqlite3_stmt	*q = NULL;
	const char	*cols[4];
	int		 i, rc = -1, s;

	*n = 0;
	if (sqlite3_prepare_v2(e->b.db, "SELECT s.id, s.title, s.breadcrumb, s.text, "
	    "s.code FROM library_snippets s WHERE s.library_id = ?1 AND s.id > ?2 AND "
	    "s.dup_of IS NULL AND NOT "
	    "EXISTS (SELECT 1 FROM embeddings m WHERE m.snippet_id = s.id AND "
	    "m.model = ?3) ORDER BY s.id LIMIT ?4", -1, &q, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(q, 1, e->b.library_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, *after);
	sqlite3_bind_text(q, 3, e->st->model, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 4, EMBEDDER_BATCH);
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		for (i = 0; i < 4; i++) {
			cols[i] = (const char *)sqlite3_column_text(q, i + 1);
			if (cols[i] == NULL)
				cols[i] = "";
		}
		items[*n].id = sqlite3_column_int64(q, 0);
		if ((items[*n].text = embedder_text(cols[0], cols[1], cols[2], cols[3])) ==
		    NULL) {
			batchrun_error(&e->b, "out of memory");
			goto out;
		}
		crypto_sha256_hex(items[*n].text, strlen(items[*n].text),
		    items[*n].hash);
		*after = items[*n].id;
		(*n)++;
	}
	if (s != SQLITE_DONE)
		goto out;
	rc = 0;
out:
	if (rc == -1 && e->st->error[0] == '\0')
		batchrun_error(&e->b, "database error: %s", sqlite3_errmsg(e->b.db));
	sqlite3_finalize(q);
	return rc;
}

/*
 * Inside the caller's transaction: gives the library a new embed_version (unique across
 * libraries), which tells query processes to reload its vectors; the other versions that
 * show its snippets too.
 */
static int
embedder_bump(struct emb_run *e)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(e->b.db, "UPDATE libraries SET embed_version = (SELECT "
	    "max(embed_version) + 1 FROM libraries) WHERE id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, e->b.library_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	/* the versions that show some of its snippets (lib/index/share.h) */
	if (rc == 0)
		rc = share_touch(e->b.db, e->b.library_id, SHARE_TOUCH_VECTORS);
	return rc;
}

/*
 * Gives, in one transaction, each item whose text has a stored vector of the model (table
 * vectors, same hash) an embeddings row naming it; those items get a NULL text and are not
 * sent to the provider. *left is the number still to embed.
 */
static int
embedder_reuse(struct emb_run *e, struct emb_item *items, size_t n, size_t *left)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 rc = -1;

	*left = n;
	if (db_begin(e->b.db) == -1)
		goto out;
	if (sqlite3_prepare_v2(e->b.db, "INSERT INTO embeddings (snippet_id, model, hash) "
	    "SELECT ?1, model, hash FROM vectors WHERE model = ?2 AND hash = ?3 "
	    "ON CONFLICT DO NOTHING", -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, items[i].id);
		sqlite3_bind_text(st, 2, e->st->model, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, items[i].hash, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		if (sqlite3_changes(e->b.db) > 0) {
			free(items[i].text);
			items[i].text = NULL;
			e->st->reused++;
			(*left)--;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if (embedder_bump(e) == -1 || db_commit(e->b.db) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		batchrun_error(&e->b, "database error: %s", sqlite3_errmsg(e->b.db));
		sqlite3_finalize(st);
		db_rollback(e->b.db);
	}
	return rc;
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
	sqlite3_stmt	*sv = NULL, *se = NULL;
	float		*v;
	size_t		 i, j = 0;
	int		 rc = -1;

	if (db_begin(e->b.db) == -1)
		goto out;
	if (sqlite3_prepare_v2(e->b.db, "INSERT INTO vectors (model, hash, dim, vector) "
	    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (model, hash) DO NOTHING", -1, &sv,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(e->b.db, "INSERT OR REPLACE INTO embeddings (snippet_id, "
	    "model, hash) VALUES (?1, ?2, ?3)", -1, &se, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		if (items[i].text == NULL)
			continue;
		v = vec + j++ * dim;
		if (vector_normalize(v, dim) == -1) {
			batchrun_log(&e->b, "warning", "snippet %lld: the provider gave a zero or "
			    "non-finite vector; not stored", items[i].id);
			continue;
		}
		sqlite3_reset(sv);
		sqlite3_bind_text(sv, 1, e->st->model, -1, SQLITE_STATIC);
		sqlite3_bind_text(sv, 2, items[i].hash, -1, SQLITE_STATIC);
		sqlite3_bind_int64(sv, 3, (long long)dim);
		sqlite3_bind_blob(sv, 4, v, (int)(dim * sizeof(float)), SQLITE_STATIC);
		sqlite3_reset(se);
		sqlite3_bind_int64(se, 1, items[i].id);
		sqlite3_bind_text(se, 2, e->st->model, -1, SQLITE_STATIC);
		sqlite3_bind_text(se, 3, items[i].hash, -1, SQLITE_STATIC);
		if (sqlite3_step(sv) != SQLITE_DONE || sqlite3_step(se) != SQLITE_DONE)
			goto out;
		e->st->embedded++;
	}
	sqlite3_finalize(sv);
	sqlite3_finalize(se);
	sv = se = NULL;
	if (embedder_bump(e) == -1 || db_commit(e->b.db) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		batchrun_error(&e->b, "database error: %s", sqlite3_errmsg(e->b.db));
		sqlite3_finalize(sv);
		sqlite3_finalize(se);
		db_rollback(e->b.db);
	}
	return rc;
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
	sqlite3_stmt	*q = NULL;

	if (sqlite3_prepare_v2(e->b.db, "SELECT count(*) FROM library_snippets s WHERE "
	    "s.library_id = ?1 AND s.dup_of IS NULL AND NOT EXISTS "
	    "(SELECT 1 FROM embeddings m WHERE m.snippet_id = s.id AND m.model = ?2)",
	    -1, &q, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(q, 1, e->b.library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, e->st->model, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		e->st->missing = (size_t)sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
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
embedder_run(sqlite3 *db, const char *datadir, const char *library_id,
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
embedder_gc(sqlite3 *db, size_t *deleted)
{
	int	 own = sqlite3_get_autocommit(db), rc = -1;

	*deleted = 0;
	if (own && db_begin(db) == -1)
		return -1;
	/*
	 * One scan of the (model, hash) index of vectors, not of the table, whose rows hold
	 * the vectors (30,000 of 1536 floats: 11 MB read instead of 250 MB, 10 ms instead of
	 * 60 ms warm), and a look-up in embeddings_hash per vector.
	 */
	if (db_run(db, "DELETE FROM vectors WHERE rowid IN (SELECT v.rowid FROM vectors v "
	    "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = v.model AND "
	    "e.hash = v.hash))", "") == -1)
		goto out;
	*deleted = (size_t)sqlite3_changes(db);
	if (own && db_commit(db) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		if (own)
			db_rollback(db);
		*deleted = 0;
	}
	return rc;
}
