/* tokenize.c: the code-aware word splitter, its FTS5 tokenizer and query builder. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/tokenize.h"

#define TOK_MAX		64	/* longer tokens are not indexed (porter's limit too) */
#define TOK_JOINRUN	3	/* longest run of joiners inside one word ("://") */
#define MATCH_MAXTERMS	32

/* Internal emitter: token (lowercase, NUL-terminated) plus the word's byte range. */
typedef tokenize_span_cb tok_emit;

static int
tokenize_isupper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static int
tokenize_islower(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static int
tokenize_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
tokenize_isalnum(unsigned char c)
{
	return tokenize_isupper(c) || tokenize_islower(c) || tokenize_isdigit(c);
}

/* Word bytes: ASCII letters, digits, '_' and every byte of a non-ASCII UTF-8 sequence. */
static int
tokenize_isword(unsigned char c)
{
	return tokenize_isalnum(c) || c == '_' || c >= 0x80;
}

/* Characters that join two word runs into one compound word. */
static int
tokenize_isjoiner(unsigned char c)
{
	return c == '.' || c == '-' || c == ':' || c == '/';
}

/*
 * Finds the next part of word w (length wl) from *pos: parts are separated by joiners and
 * '_' and split on camelCase boundaries (useState, HTTPServer, base64Encode). Returns 1 and
 * sets *ps and *pl (offset and length in w) or 0 when there is none left.
 */
static int
tokenize_part_next(const char *w, size_t wl, size_t *pos, size_t *ps, size_t *pl)
{
	size_t		 i = *pos, s;
	unsigned char	 c, p;

	while (i < wl && (tokenize_isjoiner(w[i]) || w[i] == '_'))
		i++;
	if (i >= wl) {
		*pos = i;
		return 0;
	}
	s = i++;
	while (i < wl && !tokenize_isjoiner(w[i]) && w[i] != '_') {
		c = w[i];
		p = w[i - 1];
		if (tokenize_isupper(c) && (tokenize_islower(p) || tokenize_isdigit(p)))
			break;
		if (tokenize_isupper(c) && tokenize_isupper(p) && i + 1 < wl &&
		    tokenize_islower((unsigned char)w[i + 1]))
			break;
		i++;
	}
	*ps = s;
	*pl = i - s;
	*pos = i;
	return 1;
}

/* 1 when the token s (length n) is worth emitting: 1..TOK_MAX bytes, no lone junk byte. */
static int
tokenize_keep(const char *s, size_t n)
{
	if (n == 0 || n > TOK_MAX)
		return 0;
	if (n == 1 && !tokenize_isalnum((unsigned char)s[0]))
		return 0;
	return 1;
}

/* Lowercases s (n <= TOK_MAX bytes) into out and NUL-terminates it. */
static void
tokenize_lower(const char *s, size_t n, char *out)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		out[i] = tokenize_isupper((unsigned char)s[i]) ? s[i] - 'A' + 'a' : s[i];
	out[n] = '\0';
}

/* Case-insensitive (ASCII) equality of two byte ranges. */
static int
tokenize_sameword(const char *a, size_t an, const char *b, size_t bn)
{
	size_t		 i;
	unsigned char	 x, y;

	if (an != bn)
		return 0;
	for (i = 0; i < an; i++) {
		x = a[i];
		y = b[i];
		if (tokenize_isupper(x))
			x = x - 'A' + 'a';
		if (tokenize_isupper(y))
			y = y - 'A' + 'a';
		if (x != y)
			return 0;
	}
	return 1;
}

/*
 * Emits one word w = text[s, e): the whole word (colocated 0), then its distinct parts
 * (colocated 1) unless wholeonly is set and the whole word was emitted. When the whole
 * word is too long, its first part takes colocated 0 so that a word never starts with a
 * colocated token. Returns 0 or the emitter's non-zero value.
 */
static int
tokenize_word(const char *text, size_t s, size_t e, int wholeonly, tok_emit emit,
    void *ctx)
{
	const char	*w = text + s;
	char		 tmp[TOK_MAX + 1];
	size_t		 wl = e - s, i, pos, ps, pl, nparts, qpos, qs, ql;
	int		 rc, emitted = 0, dup, hasalnum = 0;

	for (i = 0; i < wl; i++)
		if (tokenize_isalnum((unsigned char)w[i]) || (unsigned char)w[i] >= 0x80) {
			hasalnum = 1;
			break;
		}
	if (!hasalnum)
		return 0;

	if (tokenize_keep(w, wl)) {
		tokenize_lower(w, wl, tmp);
		if ((rc = emit(ctx, tmp, wl, 0, s, e)) != 0)
			return rc;
		emitted = 1;
		if (wholeonly)
			return 0;
	}

	/* A plain word ("curl") is its own single part: nothing more to emit. */
	nparts = 0;
	pos = 0;
	while (nparts < 2 && tokenize_part_next(w, wl, &pos, &ps, &pl))
		nparts++;
	if (nparts == 0 || (nparts == 1 && ps == 0 && pl == wl))
		return 0;

	pos = 0;
	while (tokenize_part_next(w, wl, &pos, &ps, &pl)) {
		if (!tokenize_keep(w + ps, pl))
			continue;
		dup = 0;
		if (wl <= TOK_MAX) {
			/* Bounded work: at most TOK_MAX / 2 parts in a kept word. */
			qpos = 0;
			while (qpos < ps && tokenize_part_next(w, ps, &qpos, &qs, &ql))
				if (tokenize_sameword(w + qs, ql, w + ps, pl)) {
					dup = 1;
					break;
				}
		}
		if (dup)
			continue;
		tokenize_lower(w + ps, pl, tmp);
		if ((rc = emit(ctx, tmp, pl, emitted, s, e)) != 0)
			return rc;
		emitted = 1;
	}
	return 0;
}

/*
 * Splits text into words (runs of word bytes joined across short runs of '.', '-', ':' and
 * '/') and hands each to tokenize_word. Returns 0 or the emitter's non-zero value.
 */
static int
tokenize_run(const char *text, size_t len, int wholeonly, tok_emit emit, void *ctx)
{
	size_t	 i = 0, s, e, j;
	int	 rc;

	if (text == NULL)
		return 0;
	while (i < len) {
		if (!tokenize_isword((unsigned char)text[i])) {
			i++;
			continue;
		}
		s = i;
		for (;;) {
			while (i < len && tokenize_isword((unsigned char)text[i]))
				i++;
			e = i;
			for (j = i; j < len && j - i <= TOK_JOINRUN &&
			    tokenize_isjoiner((unsigned char)text[j]); j++)
				;
			if (j == i || j - i > TOK_JOINRUN || j >= len ||
			    !tokenize_isword((unsigned char)text[j]))
				break;
			i = j;
		}
		if ((rc = tokenize_word(text, s, e, wholeonly, emit, ctx)) != 0)
			return rc;
		i = e;
	}
	return 0;
}

struct tok_each_ctx {
	tokenize_cb	 cb;
	void		*ctx;
};

static int
tokenize_each_emit(void *ctx, const char *tok, size_t len, int colocated, size_t start,
    size_t end)
{
	struct tok_each_ctx	*ec = ctx;

	return ec->cb(ec->ctx, tok, len, colocated);
}

/*
 * Calls cb for every token of text (document mode: whole words and their parts). Returns 0,
 * or the callback's non-zero value when it asked to stop.
 */
int
tokenize_each(const char *text, size_t len, tokenize_cb cb, void *ctx)
{
	struct tok_each_ctx	 ec;

	ec.cb = cb;
	ec.ctx = ctx;
	return tokenize_run(text, len, 0, tokenize_each_emit, &ec);
}

size_t
tokenize_estimate(const char *text, size_t len)
{
	return (len + 3) / 4;
}

/*
 * Calls emit for every token of text with its byte offsets (wholeonly: as a query is
 * tokenized, whole words only). Returns 0, or emit's non-zero value when it asked to stop.
 */
int
tokenize_spans(const char *text, size_t len, int wholeonly, tokenize_span_cb emit, void *ctx)
{
	return tokenize_run(text, len, wholeonly, emit, ctx);
}

/* ---------------------------------------------------------------- MATCH expressions */

/*
 * English words that carry no meaning in a question; technical words stay out of here
 * ("get" is one: HTTP GET, curl_url_get, "GET PARTS"; measured with bench/eval, dropping it
 * from this list took MRR@10 from 0.77 to 0.78 and ranked curl's "GET PARTS" first for
 * "get just the host and port").
 */
static const char *const tok_stopwords[] = {
	"a", "about", "above", "after", "all", "also", "am", "an", "and", "any", "are",
	"as", "at", "be", "because", "been", "before", "being", "both", "but", "by",
	"can", "could", "d", "did", "do", "does", "doesn", "doing", "don", "done",
	"each", "etc", "few", "for", "from", "gets", "getting", "got", "had",
	"has", "have", "having", "he", "her", "here", "him", "his", "how", "i", "if",
	"in", "into", "is", "isn", "it", "its", "itself", "just", "let", "lets", "like",
	"ll", "m", "make", "me", "more", "most", "my", "need", "needs", "no", "nor",
	"not", "now", "of", "on", "once", "only", "or", "other", "our", "out", "over",
	"please", "re", "s", "same", "she", "should", "so", "some", "such", "t", "than",
	"that", "the", "their", "them", "then", "there", "these", "they", "this",
	"those", "through", "to", "too", "up", "us", "use", "used", "uses", "using",
	"ve", "very", "via", "want", "was", "way", "ways", "we", "were", "what",
	"when", "where", "which", "while", "who", "whom", "why", "will", "with",
	"without", "would", "you", "your",
};

static int
tokenize_isstop(const char *w)
{
	size_t	 i;

	for (i = 0; i < sizeof(tok_stopwords) / sizeof(tok_stopwords[0]); i++)
		if (strcmp(tok_stopwords[i], w) == 0)
			return 1;
	return 0;
}

/* Stop words that end a verb written as one word: setup, login, timeout, takeover. */
static int
tokenize_isparticle(const char *w)
{
	static const char *const particles[] = { "in", "on", "out", "over", "up" };
	size_t	 i;

	for (i = 0; i < sizeof(particles) / sizeof(particles[0]); i++)
		if (strcmp(particles[i], w) == 0)
			return 1;
	return 0;
}

struct tok_match_ctx {
	char	 terms[MATCH_MAXTERMS][TOK_MAX + 1];
	size_t	 nterms;
	char	 joined[MATCH_MAXTERMS][TOK_MAX + 1];	/* two words written as one */
	size_t	 njoined;
	char	 prev[TOK_MAX + 1];	/* the word before, "" unless a plain non-stop word */
};

/* 1 when w is a plain word of letters (not a number, not an identifier). */
static int
tokenize_plain(const char *w)
{
	for (; *w != '\0'; w++)
		if (*w < 'a' || *w > 'z')
			return 0;
	return 1;
}

static int
tokenize_match_cb(void *ctx, const char *tok, size_t len, int colocated)
{
	struct tok_match_ctx	*mc = ctx;
	char			 w[TOK_MAX + 1];
	size_t			 i;

	if (len > TOK_MAX)
		return 0;
	memcpy(w, tok, len);
	w[len] = '\0';
	if (!colocated) {
		/*
		 * Two plain words, the first no stop word, the second none either or a
		 * particle ("set up", "log in", "time out"): also the word they make.
		 */
		int plain = len >= 2 && tokenize_plain(w);
		size_t plen = strlen(mc->prev);

		if (plain && plen > 0 && plen + len <= TOK_MAX &&
		    (!tokenize_isstop(w) || tokenize_isparticle(w)) &&
		    mc->njoined < MATCH_MAXTERMS) {
			memcpy(mc->joined[mc->njoined], mc->prev, plen);
			memcpy(mc->joined[mc->njoined] + plen, w, len + 1);
			mc->njoined++;
		}
		if (plain && !tokenize_isstop(w))
			memcpy(mc->prev, w, len + 1);
		else
			mc->prev[0] = '\0';
	}
	if (tokenize_isstop(w))
		return 0;
	for (i = 0; i < mc->nterms; i++)
		if (strcmp(mc->terms[i], w) == 0)
			return 0;
	memcpy(mc->terms[mc->nterms++], w, len + 1);
	return mc->nterms == MATCH_MAXTERMS;
}

int
tokenize_match_terms(const char *question, char ***out, size_t *n)
{
	struct tok_match_ctx	*mc;
	struct buf		 b;
	char			**terms;
	size_t			 i;
	const char		*p;
	int			 fail = 0;

	*out = NULL;
	*n = 0;
	if (question == NULL)
		return 0;
	if ((mc = calloc(1, sizeof(*mc))) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	tokenize_each(question, strlen(question), tokenize_match_cb, mc);
	/* The joined words after the question's own, unless already among them. */
	for (i = 0; i < mc->njoined && mc->nterms < MATCH_MAXTERMS; i++) {
		size_t k;

		for (k = 0; k < mc->nterms; k++)
			if (strcmp(mc->terms[k], mc->joined[i]) == 0)
				break;
		if (k == mc->nterms)
			memcpy(mc->terms[mc->nterms++], mc->joined[i], TOK_MAX + 1);
	}
	if (mc->nterms == 0) {
		free(mc);
		return 0;
	}
	if ((terms = calloc(mc->nterms, sizeof(*terms))) == NULL) {
		free(mc);
		log_err("%s: out of memory", __func__);
		return -1;
	}
	for (i = 0; i < mc->nterms && !fail; i++) {
		buf_init(&b);
		fail |= buf_addc(&b, '"');
		for (p = mc->terms[i]; *p != '\0'; p++) {
			if (*p == '"')
				fail |= buf_addc(&b, '"');
			fail |= buf_addc(&b, *p);
		}
		fail |= buf_addc(&b, '"');
		terms[i] = buf_detach(&b);
		fail |= terms[i] == NULL;
	}
	free(mc);
	if (fail) {
		tokenize_terms_free(terms, i);
		log_err("%s: out of memory", __func__);
		return -1;
	}
	*out = terms;
	*n = i;
	return 0;
}

void
tokenize_terms_free(char **terms, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(terms[i]);
	free(terms);
}

char *
tokenize_match_expr(const char *question)
{
	struct buf	 b;
	char		**terms;
	size_t		 n, i;
	int		 fail = 0;

	if (tokenize_match_terms(question, &terms, &n) == -1 || n == 0)
		return NULL;
	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fail |= buf_adds(&b, " OR ");
		fail |= buf_adds(&b, terms[i]);
	}
	tokenize_terms_free(terms, n);
	if (fail) {
		buf_release(&b);
		log_err("%s: out of memory", __func__);
		return NULL;
	}
	return buf_detach(&b);
}
