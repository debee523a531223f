/*
 * describe.c: LLM-generated titles and descriptions of code snippets (see describe.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json.h>

#include "ai/provider.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "index/batchrun.h"
#include "index/describe.h"
#include "index/share.h"
#include "parse/doc.h"
#include "store/aiconfig.h"
#include "store/db.h"
#include "store/describe.h"
#include "store/fts.h"
#include "store/library.h"

/* One snippet to describe. */
struct ds_item {
	long long	 id;
	int		 weak_title;	/* replace the title */
	int		 no_desc;	/* the description becomes the text */
	char		*block;		/* what is sent (without its "### Snippet N" line) */
	char		 hash[65];	/* SHA-256 hex of block */
};

/* The step's state; the runner's first (see batchrun.h). */
struct ds_run {
	struct batchrun		 b;
	struct describe_stats	*st;
	struct ds_item		*items;		/* the snippets judged weak */
	size_t			 n;
	size_t			 at;		/* the first not sent yet */
};

static const char ds_system[] =
    "You name code snippets from software documentation. Answer with JSON only.";

static const char ds_prompt[] =
    "For each code snippet below, write a short title (at most 8 words, saying what "
    "the code does) and a one-sentence description. Answer with a JSON array only, "
    "one object per snippet: [{\"id\": 1, \"title\": \"...\", \"description\": "
    "\"...\"}].\n";

int
describe_weak_title(const char *title)
{
	static const char *generic[] = { "example", "examples", "usage", "code",
	    "installation", "install", "installing", "setup", "set up", "demo",
	    "sample", "samples", "snippet", "quick start", "quickstart",
	    "getting started", "basic usage", "overview", "introduction", "synopsis",
	    "how to use", "use", "using", "run", "running", "configuration",
	    "config", "test", "tests", "output", "result", "results", "note",
	    "notes", "tip", "info", "see also" };
	char	 t[64];
	size_t	 i, n = 0;

	while (isspace((unsigned char)*title) || *title == '#')
		title++;
	for (; *title != '\0' && n + 1 < sizeof(t); title++) {
		if (*title == ':' || *title == '.')
			continue;
		t[n++] = *title;
	}
	while (n > 0 && isspace((unsigned char)t[n - 1]))
		n--;
	t[n] = '\0';
	if (n == 0)
		return 1;
	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (strcasecmp(t, generic[i]) == 0)
			return 1;
	return 0;
}

/* Appends at most max bytes of s (cut at a UTF-8 boundary), then '\n'. */
static int
describe_add_capped(struct buf *b, const char *s, size_t max)
{
	size_t	 n = strlen(s);

	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return buf_add(b, s, n) == -1 || buf_addc(b, '\n') == -1 ? -1 : 0;
}

/* The block sent for a snippet: page title, breadcrumb, prose and code, capped. */
static char *
describe_block(const char *page, const char *crumb, const char *text, const char *codejson)
{
	struct buf	 b, code;
	char		*r = NULL;

	buf_init(&b);
	buf_init(&code);
	if (store_code_text(codejson, &code) == -1 ||
	    buf_adds(&b, "Page: ") == -1 || describe_add_capped(&b, page, 200) == -1 ||
	    buf_adds(&b, "Section: ") == -1 || describe_add_capped(&b, crumb, 300) == -1 ||
	    buf_adds(&b, "Text: ") == -1 ||
	    describe_add_capped(&b, text, DESCRIBE_MAX_TEXT) == -1 ||
	    buf_adds(&b, "Code:\n") == -1 ||
	    describe_add_capped(&b, code.p ? code.p : "", DESCRIBE_MAX_CODE) == -1)
		goto out;
	r = buf_detach(&b);
out:
	buf_release(&b);
	buf_release(&code);
	return r;
}

/* A copy of s squeezed to one line, cut to max bytes; NULL when empty. */
static char *
describe_clean(const char *s, size_t max)
{
	char	*t, *p;
	size_t	 n;

	if (s == NULL || (t = strdup(s)) == NULL)
		return NULL;
	for (p = t; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	doc_squeeze(t);
	n = strlen(t);
	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)t[n] & 0xc0) == 0x80)
			n--;
		t[n] = '\0';
		doc_squeeze(t);
	}
	if (*t == '\0') {
		free(t);
		return NULL;
	}
	return t;
}

size_t
describe_parse_answer(const char *answer, size_t n, char **titles, char **descs)
{
	const char	*a, *z;
	json_object	*arr, *o, *v;
	size_t		 i, len, got = 0;
	int64_t		 id;

	for (i = 0; i < n; i++)
		titles[i] = descs[i] = NULL;
	if ((a = strchr(answer, '[')) == NULL || (z = strrchr(answer, ']')) == NULL ||
	    z < a)
		return 0;
	if ((arr = json_tokener_parse(a)) == NULL) {
		char *cut = strndup(a, (size_t)(z - a) + 1);

		arr = cut != NULL ? json_tokener_parse(cut) : NULL;
		free(cut);
	}
	if (arr == NULL)
		return 0;
	if (!json_object_is_type(arr, json_type_array)) {
		json_object_put(arr);
		return 0;
	}
	len = json_object_array_length(arr);
	for (i = 0; i < len; i++) {
		o = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, "id", &v) ||
		    !json_object_is_type(v, json_type_int))
			continue;
		id = json_object_get_int64(v);
		if (id < 1 || (uint64_t)id > n || titles[id - 1] != NULL ||
		    descs[id - 1] != NULL)
			continue;
		if (json_object_object_get_ex(o, "title", &v) &&
		    json_object_is_type(v, json_type_string))
			titles[id - 1] = describe_clean(json_object_get_string(v),
			    DESCRIBE_TITLE_MAX);
		if (json_object_object_get_ex(o, "description", &v) &&
		    json_object_is_type(v, json_type_string))
			descs[id - 1] = describe_clean(json_object_get_string(v),
			    DESCRIBE_DESC_MAX);
		if (titles[id - 1] == NULL || descs[id - 1] == NULL) {
			free(titles[id - 1]);
			free(descs[id - 1]);
			titles[id - 1] = descs[id - 1] = NULL;
		} else
			got++;
	}
	json_object_put(arr);
	return got;
}

/*
 * Gives the library a new index_version (and token count), in the caller's transaction;
 * the other versions that show its snippets too.
 */
static int
describe_bump(struct ds_run *e)
{
	if (store_library_bump(e->b.db, e->b.library_id, STORE_BUMP_TOKENS) == -1)
		return -1;
	/* the versions that show some of its snippets (lib/index/share.h) */
	return share_touch(e->b.db, e->b.library_id, SHARE_TOUCH_INDEX);
}

/*
 * Inside the caller's transaction: writes a title and description to a snippet (title
 * only when weak, text only when it had none), marks it described and drops its
 * embeddings rows (the new text gets a vector of its own; the old vector goes at the end of
 * the embed run unless another snippet names it, embedder_gc).
 */
static int
describe_apply(const struct ds_item *it, struct db *db, const char *title,
    const char *desc)
{
	/* The tokens added (those of the heuristic title are not taken off). */
	return store_describe_apply(db, it->id, it->weak_title, title, it->no_desc, desc,
	    (long long)((it->weak_title ? tokenize_estimate(title, strlen(title)) : 0) +
	    (it->no_desc ? tokenize_estimate(desc, strlen(desc)) : 0)));
}

/* Looks up the cache for it: 1 and applied when found, 0 when not, -1 on error. */
static int
describe_cached(struct ds_run *e, const struct ds_item *it)
{
	char	*title, *desc;
	int	 rc;

	if ((rc = store_describe_cached(e->b.db, it->hash, e->b.cfg.model, &title,
	    &desc)) == 1)
		rc = describe_apply(it, e->b.db, title, desc) == 0 ? 1 : -1;
	free(title);
	free(desc);
	return rc;
}

static void
describe_items_release(struct ds_item *items, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(items[i].block);
	free(items);
}

/*
 * Judges the library's undescribed kept code snippets (not those the content rules flagged:
 * their text could steer what the LLM writes), then in one transaction: those
 * that need nothing are marked described, those found in the cache are applied; the
 * others are returned in *out (*n of them) for the LLM.
 */
/* The snippets read so far (describe_judge). */
struct ds_judged {
	struct ds_run	*e;
	struct ds_item	*v;
	size_t		 n, cap;
	int		 nomem;
};

static int
describe_judge_row(const struct store_describe_row *r, void *arg)
{
	struct ds_judged *j = arg;
	struct ds_item	*t, *it;

	if (j->n == j->cap) {
		size_t ncap = j->cap ? j->cap * 2 : 64;

		if ((t = reallocarray(j->v, ncap, sizeof(*t))) == NULL)
			goto nomem;
		j->v = t;
		j->cap = ncap;
	}
	it = &j->v[j->n++];
	memset(it, 0, sizeof(*it));
	it->id = r->id;
	j->e->st->judged++;
	it->weak_title = describe_weak_title(r->heading) ||
	    strcasecmp(r->heading, r->page) == 0 || r->repeated >= DESCRIBE_REPEATED;
	it->no_desc = r->text == NULL || strlen(r->text) < DESCRIBE_MIN_TEXT;
	if (!it->weak_title && !it->no_desc)
		return 0;
	j->e->st->weak++;
	if ((it->block = describe_block(r->page, r->breadcrumb, r->text ? r->text : "",
	    r->code)) == NULL)
		goto nomem;
	crypto_sha256_hex(it->block, strlen(it->block), it->hash);
	return 0;
nomem:
	j->nomem = 1;
	return -1;
}

/*
 * Judges the library's undescribed kept code snippets (not those the content rules flagged:
 * their text could steer what the LLM writes), then in one transaction: those
 * that need nothing are marked described, those found in the cache are applied; the
 * others are returned in *out (*n of them) for the LLM.
 */
static int
describe_judge(struct ds_run *e, struct ds_item **out, size_t *n)
{
	struct ds_judged j;
	struct ds_item	*v, *it;
	size_t		 nall, i;
	int		 c, intx = 0, changed = 0;

	*out = NULL;
	*n = 0;
	memset(&j, 0, sizeof(j));
	j.e = e;
	c = store_describe_todo(e->b.db, e->b.library_id, describe_judge_row, &j);
	v = j.v;
	nall = j.n;
	if (c == -1 && j.nomem)
		goto nomem;
	if (c == -1)
		goto dberr;
	if (db_begin(e->b.db) == -1) {
		batchrun_error(&e->b, "the database is busy");
		goto fail;
	}
	intx = 1;
	for (i = 0; i < nall; i++) {
		it = &v[i];
		if (it->block == NULL) {
			if (store_describe_mark(e->b.db, it->id) == -1)
				goto dberr;
			continue;
		}
		if ((c = describe_cached(e, it)) == -1)
			goto dberr;
		if (c == 1) {
			e->st->cached++;
			changed = 1;
			free(it->block);
			it->block = NULL;
			continue;
		}
		v[(*n)++] = *it;	/* *n <= i: compacts the list in place */
		if (*n - 1 != i)
			it->block = NULL;
	}
	if ((changed && describe_bump(e) == -1) || db_commit(e->b.db) == -1)
		goto dberr;
	for (i = *n; i < nall; i++)
		free(v[i].block);
	*out = v;
	return 0;
nomem:
	batchrun_error(&e->b, "out of memory");
	goto fail;
dberr:
	batchrun_error(&e->b, "database error: %s", db_errmsg(e->b.db));
fail:
	if (intx)
		db_rollback(e->b.db);
	for (i = 0; i < nall; i++)
		if (i >= *n)
			free(v[i].block);
	describe_items_release(v, *n);
	*n = 0;
	return -1;
}

/* Asks the LLM for items[0..n) (n <= DESCRIBE_BATCH) and stores the answers. */
static int
describe_batch(struct ds_run *e, struct ds_item *items, size_t n)
{
	struct provider_error	 perr;
	struct buf		 prompt, answer;
	char			*titles[DESCRIBE_BATCH], *descs[DESCRIBE_BATCH], now[32];
	long long		 left;
	size_t			 i, got = 0;
	int			 rc = -1, intx = 0;

	memset(titles, 0, sizeof(titles));
	memset(descs, 0, sizeof(descs));
	buf_init(&prompt);
	buf_init(&answer);
	if ((left = batchrun_left(&e->b, DESCRIBE_CALL_MS)) == -1)
		goto out;
	if (buf_adds(&prompt, ds_prompt) == -1)
		goto nomem;
	for (i = 0; i < n; i++)
		if (buf_printf(&prompt, "\n### Snippet %zu\n%s", i + 1,
		    items[i].block) == -1)
			goto nomem;
	memset(&perr, 0, sizeof(perr));
	e->st->requests++;
	if (provider_chat(&e->b.cfg, ds_system, prompt.p, (long)left, &answer,
	    &perr) == -1) {
		batchrun_provider_error(&e->b, &perr);
		goto out;
	}
	if ((got = describe_parse_answer(answer.p ? answer.p : "", n, titles,
	    descs)) == 0) {
		batchrun_error(&e->b, "malformed: the LLM's answer has no titles and "
		    "descriptions");
		goto out;
	}
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(e->b.db) == -1) {
		batchrun_error(&e->b, "the database is busy");
		goto out;
	}
	intx = 1;
	for (i = 0; i < n; i++) {
		if (titles[i] == NULL)
			continue;
		if (store_describe_cache_put(e->b.db, items[i].hash, e->b.cfg.model,
		    titles[i], descs[i], now) == -1 ||
		    describe_apply(&items[i], e->b.db, titles[i], descs[i]) == -1)
			goto dberr;
		e->st->generated++;
	}
	if (describe_bump(e) == -1 || db_commit(e->b.db) == -1)
		goto dberr;
	intx = 0;
	if (got < n)
		batchrun_log(&e->b, "warning", "the LLM answered %zu of %zu snippets; the others "
		    "keep their titles until the next run", got, n);
	rc = 0;
	goto out;
nomem:
	batchrun_error(&e->b, "out of memory");
	goto out;
dberr:
	batchrun_error(&e->b, "database error: %s", db_errmsg(e->b.db));
out:
	if (intx)
		db_rollback(e->b.db);
	for (i = 0; i < DESCRIBE_BATCH; i++) {
		free(titles[i]);
		free(descs[i]);
	}
	buf_release(&prompt);
	buf_release(&answer);
	return rc;
}

/* ------------------------------------------------------------ the step's operations */

static int
describe_begin(struct batchrun *b)
{
	struct ds_run	*e = (struct ds_run *)(void *)b;

	return describe_judge(e, &e->items, &e->n);
}

/* The next DESCRIBE_BATCH (or fewer) of the snippets judged weak. */
static int
describe_next(struct batchrun *b, size_t *n)
{
	struct ds_run	*e = (struct ds_run *)(void *)b;

	*n = e->n - e->at < DESCRIBE_BATCH ? e->n - e->at : DESCRIBE_BATCH;
	return 0;
}

static int
describe_send(struct batchrun *b, size_t n)
{
	struct ds_run	*e = (struct ds_run *)(void *)b;

	if (describe_batch(e, e->items + e->at, n) == -1)
		return -1;
	e->at += n;
	return 0;
}

static void
describe_end(struct batchrun *b, int rc)
{
	struct ds_run		*e = (struct ds_run *)(void *)b;
	struct describe_stats	*out = e->st;

	describe_items_release(e->items, e->n);
	e->items = NULL;
	e->n = e->at = 0;
	if (out->generated + out->cached > 0)
		batchrun_log(b, "info", "described %zu code snippets (%zu cached) with %s "
		    "in %zu requests, %.1f s", out->generated + out->cached, out->cached,
		    b->cfg.model ? b->cfg.model : "", out->requests,
		    (double)(util_now_ms() - b->t0) / 1000);
	if (rc == -1)
		batchrun_log(b, "error", "describing failed: %s; those snippets keep their "
		    "titles", out->error);
}

/* The snippets judged weak so far sent (or found cached), of all judged weak. */
static void
describe_count(struct batchrun *b, size_t *done, size_t *total)
{
	struct ds_run	*e = (struct ds_run *)(void *)b;

	*done = e->at;
	*total = e->n;
}

static const struct batchrun_ops describe_ops = {
	.llm = 1,
	.what = "LLM",
	.invalid = "the LLM settings are invalid (ctxd-admin provider test --llm tells "
	    "more)",
	.nomodel = "no LLM model is set (ai.llm.model)",
	.begin = describe_begin,
	.next = describe_next,
	.send = describe_send,
	.end = describe_end,
	.phase = "describing",
	.count = describe_count
};

int
describe_run(struct db *db, const char *datadir, const char *library_id,
    describe_log_fn log, void *log_ctx, struct describe_stats *out)
{
	struct ds_run	 e;
	long		 budget = out->budget_ms;
	int		 (*cancel)(void *) = out->cancel;
	void		 (*progress)(void *, const char *, size_t, size_t) =
			    out->progress;

	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	e.st = out;
	batchrun_init(&e.b, budget > 0 ? budget : DESCRIBE_DEADLINE_MS, cancel,
	    &out->configured, &out->cancelled, out->error, sizeof(out->error));
	e.b.progress = progress;
	return batchrun_run(&describe_ops, &e.b, db, datadir, library_id, log, log_ctx);
}

int
describe_configured(struct db *db, const char *datadir)
{
	struct provider_cfg	 cfg;
	int			 rc = 0;

	memset(&cfg, 0, sizeof(cfg));
	if (aiconfig_load(db, datadir, &cfg, NULL) == 0)
		rc = cfg.vendor != NULL && cfg.model != NULL && *cfg.model != '\0';
	provider_cfg_release(&cfg);
	return rc;
}
