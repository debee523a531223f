/*
 * store/tokenizer.h: the database's side of the one tokenizer (base/tokenize.h): the FTS5
 * tokenizer "ctxd", and the index's own token chain porter(ctxd) (the terms snippets_fts
 * held until schema version 17; migration 17 needs "ctxd" to drop that table).
 */
#ifndef STORE_TOKENIZER_H
#define STORE_TOKENIZER_H

#include <stddef.h>

#include "base/tokenize.h"

struct db;
struct tokenize_stemmer;

/*
 * Registers the FTS5 tokenizer "ctxd" (wrapped by porter in the schema) on a connection.
 * Engine: SQLite's FTS5 extension API (fts5_api, xCreateTokenizer).
 */
int	 tokenize_register(struct db *);
/*
 * The index's token chain porter(ctxd), from FTS5 (NULL on failure).
 * Engine: FTS5's porter tokenizer (xFindTokenizer).
 */
struct tokenize_stemmer *tokenize_stemmer_open(struct db *);
/* Tokenizes as porter(ctxd) does (query: as a MATCH string is); cb non-zero stops. */
int	 tokenize_stemmed(struct tokenize_stemmer *, const char *, size_t, int query,
	    tokenize_cb, void *ctx);
void	 tokenize_stemmer_close(struct tokenize_stemmer *);

#endif /* STORE_TOKENIZER_H */
