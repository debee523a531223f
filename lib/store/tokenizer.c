/*
 * store/tokenizer.c: the FTS5 side of the one tokenizer. The tokens come from
 * base/tokenize.c (tokenize_spans); this file hands them to SQLite's FTS5 as the tokenizer
 * "ctxd", and gets porter(ctxd) back from FTS5: the lexical index's terms are FTS5's.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "base/tokenize.h"
#include "store/tokenizer.h"
#include "store/conn.h"

/* ---------------------------------------------------------------- FTS5 tokenizer */

struct tok_fts {
	int	 unused;
};

struct tok_fts_ctx {
	void	*pctx;
	int	(*xtoken)(void *, int, const char *, int, int, int);
};

static int
tokenize_fts_create(void *udata, const char **argv, int argc, Fts5Tokenizer **out)
{
	struct tok_fts	*t;

	*out = NULL;
	if (argc != 0)
		return SQLITE_ERROR;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	*out = (Fts5Tokenizer *)t;
	return SQLITE_OK;
}

static void
tokenize_fts_delete(Fts5Tokenizer *t)
{
	free(t);
}

static int
tokenize_fts_emit(void *ctx, const char *tok, size_t len, int colocated, size_t start,
    size_t end)
{
	struct tok_fts_ctx	*fc = ctx;

	return fc->xtoken(fc->pctx, colocated ? FTS5_TOKEN_COLOCATED : 0, tok,
	    (int)len, (int)start, (int)end);
}

/*
 * Documents (and auxiliary functions) get whole words plus colocated parts; queries get the
 * whole word only, which the document side indexed, so "max-time" stays precise while
 * "state" still finds the part of useState.
 */
static int
tokenize_fts_tokenize(Fts5Tokenizer *t, void *pctx, int flags, const char *text, int ntext,
    int (*xtoken)(void *, int, const char *, int, int, int))
{
	struct tok_fts_ctx	 fc;

	if (text == NULL || ntext <= 0)
		return SQLITE_OK;
	fc.pctx = pctx;
	fc.xtoken = xtoken;
	return tokenize_spans(text, (size_t)ntext, (flags & FTS5_TOKENIZE_QUERY) != 0,
	    tokenize_fts_emit, &fc);
}

int
tokenize_register(struct db *db)
{
	sqlite3_stmt	*st = NULL;
	fts5_api	*api = NULL;
	fts5_tokenizer	 tok;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		goto out;
	}
	if (sqlite3_bind_pointer(st, 1, &api, "fts5_api_ptr", NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		goto out;
	}
	if (api == NULL || api->iVersion < 2) {
		log_err("%s: FTS5 is not available", __func__);
		goto out;
	}
	memset(&tok, 0, sizeof(tok));
	tok.xCreate = tokenize_fts_create;
	tok.xDelete = tokenize_fts_delete;
	tok.xTokenize = tokenize_fts_tokenize;
	if (api->xCreateTokenizer(api, "ctxd", NULL, &tok, NULL) != SQLITE_OK) {
		log_err("%s: cannot register the tokenizer", __func__);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- stemmer */

/*
 * The index's own token chain, porter(ctxd), obtained from FTS5 so that text tokenized
 * here gives exactly the terms an FTS5 table with tokenize = 'porter ctxd' stores.
 */
struct tokenize_stemmer {
	fts5_tokenizer	 api;
	Fts5Tokenizer	*tok;
	struct db	*mem;	/* on PostgreSQL: the in-memory SQLite that lends FTS5 */
};

struct tok_stem_ctx {
	tokenize_cb	 cb;
	void		*ctx;
};

static int
tokenize_stem_emit(void *ctx, int tflags, const char *tok, int ntok, int start, int end)
{
	struct tok_stem_ctx	*sc = ctx;

	(void)start;
	(void)end;
	if (ntok <= 0)
		return SQLITE_OK;
	return sc->cb(sc->ctx, tok, (size_t)ntok,
	    (tflags & FTS5_TOKEN_COLOCATED) != 0) ? SQLITE_DONE : SQLITE_OK;
}

/* Closes tokenize_memdb's database (NULL: nothing). */
static void
tokenize_memdb_close(struct db *mem)
{
	if (mem == NULL)
		return;
	sqlite3_close_v2(db_lite(mem));
	db_conn_free(mem);
}

/*
 * An in-memory SQLite database with the "ctxd" tokenizer registered (SQLite's own calls:
 * db.c registers the tokenizer, so nothing of db.c here), or NULL (logged).
 */
static struct db *
tokenize_memdb(void)
{
	sqlite3		*lite = NULL;
	struct db	*mem = NULL;

	if (sqlite3_open_v2(":memory:", &lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
	    NULL) != SQLITE_OK || (mem = db_conn_sqlite(lite)) == NULL ||
	    tokenize_register(mem) == -1) {
		log_err("tokenize_stemmer_open: no in-memory SQLite for FTS5's tokenizer");
		if (mem != NULL)
			tokenize_memdb_close(mem);
		else
			sqlite3_close(lite);
		return NULL;
	}
	return mem;
}

/*
 * The chain is SQLite's FTS5 whatever the store's engine: on PostgreSQL (no SQLite handle)
 * an in-memory SQLite database, with the "ctxd" tokenizer registered, lends it for the
 * stemmer's life, so that both engines index and query with the same terms.
 */
struct tokenize_stemmer *
tokenize_stemmer_open(struct db *db)
{
	struct tokenize_stemmer	*ts = NULL;
	sqlite3_stmt		*st = NULL;
	fts5_api		*api = NULL;
	void			*udata = NULL;
	const char		*args[] = { "ctxd" };
	struct db		*mem = NULL;

	if (db_lite(db) == NULL) {
		if ((mem = tokenize_memdb()) == NULL)
			return NULL;
		db = mem;
	}
	if (sqlite3_prepare_v2(db_lite(db), "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_pointer(st, 1, &api, "fts5_api_ptr", NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW || api == NULL) {
		log_err("%s: FTS5 is not available: %s", __func__, sqlite3_errmsg(db_lite(db)));
		goto fail;
	}
	if ((ts = calloc(1, sizeof(*ts))) == NULL)
		goto fail;
	if (api->xFindTokenizer(api, "porter", &udata, &ts->api) != SQLITE_OK ||
	    ts->api.xCreate(udata, args, 1, &ts->tok) != SQLITE_OK) {
		log_err("%s: cannot create the porter(ctxd) tokenizer", __func__);
		goto fail;
	}
	sqlite3_finalize(st);
	ts->mem = mem;
	return ts;
fail:
	sqlite3_finalize(st);
	free(ts);
	tokenize_memdb_close(mem);
	return NULL;
}

int
tokenize_stemmed(struct tokenize_stemmer *ts, const char *text, size_t len, int query,
    tokenize_cb cb, void *ctx)
{
	struct tok_stem_ctx	 sc;
	int			 rc;

	if (len == 0)
		return 0;
	if (len > INT_MAX)
		return -1;
	sc.cb = cb;
	sc.ctx = ctx;
	rc = ts->api.xTokenize(ts->tok, &sc, query ? FTS5_TOKENIZE_QUERY :
	    FTS5_TOKENIZE_DOCUMENT, text, (int)len, tokenize_stem_emit);
	return rc == SQLITE_OK || rc == SQLITE_DONE ? 0 : -1;
}

void
tokenize_stemmer_close(struct tokenize_stemmer *ts)
{
	if (ts == NULL)
		return;
	ts->api.xDelete(ts->tok);
	tokenize_memdb_close(ts->mem);
	free(ts);
}

