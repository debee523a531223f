/*
 * tokenize.h: the one tokenizer of the lexical index, the full-text tables and the queries
 * (the database's side of it, the FTS5 registration and the stemmer: store/tokenizer.h).
 */
#ifndef TOKENIZE_H
#define TOKENIZE_H

#include <stddef.h>

/*
 * Code-aware tokenizer: splits text into lowercase ASCII/UTF-8 words; identifiers such as
 * curl_easy_setopt, CURLOPT_URL, useState, app.get and --max-time are emitted whole and
 * also as their parts (colocated = 1 for the parts). cb returns non-zero to stop.
 */
typedef int (*tokenize_cb)(void *ctx, const char *tok, size_t len, int colocated);
int	 tokenize_each(const char *text, size_t len, tokenize_cb, void *ctx);
/*
 * The same tokens with the byte range [start, end) of the word each comes from;
 * wholeonly: as a query is tokenized (whole words only, no parts). This is what the
 * database's tokenizer (store/tokenizer.h) gives the full-text index.
 */
typedef int (*tokenize_span_cb)(void *ctx, const char *tok, size_t len, int colocated,
    size_t start, size_t end);
int	 tokenize_spans(const char *text, size_t len, int wholeonly, tokenize_span_cb,
	    void *ctx);
/*
 * Builds an FTS5 MATCH expression for a question: distinct terms minus stop words, each
 * quoted, joined with OR; after them, the word each two plain words in a row make when
 * the first is no stop word ("shut down" also asks for "shutdown", "set up" for "setup":
 * documentation writes many such words as one; one that no snippet holds matches
 * nothing). At most 32 terms. NULL when nothing is left. Caller frees.
 */
char	*tokenize_match_expr(const char *question);
/* The same terms as an array of quoted FTS5 strings, in that order (none: n = 0). */
int	 tokenize_match_terms(const char *question, char ***terms, size_t *n);
void	 tokenize_terms_free(char **, size_t);
/* Token estimate used for budgets and counts (about 4 bytes a token). */
size_t	 tokenize_estimate(const char *, size_t);

#endif /* TOKENIZE_H */
