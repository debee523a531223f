/* test-tokenize.c: the code-aware tokenizer, its FTS5 registration and MATCH builder. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/buf.h"
#include "base/tokenize.h"
#include "store/tokenizer.h"
#include "tap.h"
#include "store/conn.h"

struct collect {
	struct buf	 b;
	int		 stopafter;	/* stop after this many tokens (0: never) */
	int		 n;
};

/* Collects tokens as "whole +part +part next ..." (colocated tokens prefixed by '+'). */
static int
collect_cb(void *ctx, const char *tok, size_t len, int colocated)
{
	struct collect	*c = ctx;

	if (c->b.len > 0)
		buf_addc(&c->b, ' ');
	if (colocated)
		buf_addc(&c->b, '+');
	buf_add(&c->b, tok, len);
	c->n++;
	return c->stopafter > 0 && c->n >= c->stopafter ? 7 : 0;
}

static void
check_tokens(const char *text, const char *want)
{
	struct collect	 c;
	char		 name[256];

	memset(&c, 0, sizeof(c));
	buf_init(&c.b);
	snprintf(name, sizeof(name), "tokens of '%s'", text);
	is_int(tokenize_each(text, strlen(text), collect_cb, &c), 0,
	    "tokenize_each runs to the end");
	is_str(c.b.p != NULL ? c.b.p : "", want, name);
	buf_release(&c.b);
}

static void
test_tokens(void)
{
	struct collect	 c;
	char		 longw[128];

	check_tokens("curl_easy_setopt(handle, CURLOPT_URL)",
	    "curl_easy_setopt +curl +easy +setopt handle curlopt_url +curlopt +url");
	check_tokens("useState hook", "usestate +use +state hook");
	check_tokens("--max-time 10", "max-time +max +time 10");
	check_tokens("app.get('/')", "app.get +app +get");
	check_tokens("HTTPServer", "httpserver +http +server");
	check_tokens("base64Encode", "base64encode +base64 +encode");
	check_tokens("caf\xc3\xa9 au lait", "caf\xc3\xa9 au lait");
	check_tokens("std::vec<int> text/html", "std::vec +std +vec int text/html +text +html");
	check_tokens("see http://x.org.", "see http://x.org +http +x +org");
	check_tokens("__init__ ___ _", "__init__ +init");
	check_tokens("foo.foo Foo_bar", "foo.foo +foo foo_bar +foo +bar");
	check_tokens("Hello, World... a-- -b", "hello world a b");
	check_tokens("a----b", "a b");
	check_tokens("", "");

	/* Too long: the whole word is dropped, its parts stay (the first not colocated). */
	memset(longw, 'a', 40);
	longw[40] = '_';
	memset(longw + 41, 'b', 40);
	longw[81] = '\0';
	check_tokens(longw, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
	    "+bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	memset(longw, 'x', 70);
	longw[70] = '\0';
	check_tokens(longw, "");

	/* The callback stops the walk and its value comes back. */
	memset(&c, 0, sizeof(c));
	buf_init(&c.b);
	c.stopafter = 3;
	is_int(tokenize_each("one two three four five", 23, collect_cb, &c), 7,
	    "stop value returned");
	is_str(c.b.p, "one two three", "no token after the stop");
	buf_release(&c.b);

	/* len bounds the text. */
	check_tokens("", "");
	memset(&c, 0, sizeof(c));
	buf_init(&c.b);
	tokenize_each("alpha beta", 5, collect_cb, &c);
	is_str(c.b.p, "alpha", "len is honoured");
	buf_release(&c.b);

	is_int(tokenize_estimate("abcdefgh", 8), 2, "estimate 8 bytes");
	is_int(tokenize_estimate("abcdefghi", 9), 3, "estimate rounds up");
	is_int(tokenize_estimate("", 0), 0, "estimate empty");
}

static void
test_match_expr(void)
{
	char	*e;
	char	 big[2048];
	size_t	 i, n;

	e = tokenize_match_expr("How do I make curl try again when the server answers 503?");
	is_str(e, "\"curl\" OR \"try\" OR \"again\" OR \"server\" OR \"answers\" OR \"503\" "
	    "OR \"curltry\" OR \"tryagain\" OR \"serveranswers\"",
	    "match expression of a question, with the joined words");
	free(e);
	e = tokenize_match_expr("shut down the server, set up a time out");
	is_str(e, "\"shut\" OR \"down\" OR \"server\" OR \"set\" OR \"time\" OR "
	    "\"shutdown\" OR \"serverset\" OR \"setup\" OR \"timeout\"",
	    "two words written as one: not after a stop word, nor before one but a particle");
	free(e);

	ok(tokenize_match_expr("how do I") == NULL, "only stop words: NULL");
	ok(tokenize_match_expr("") == NULL, "empty question: NULL");
	ok(tokenize_match_expr("?!* ()") == NULL, "punctuation only: NULL");

	e = tokenize_match_expr("How to use curl_easy_setopt with CURLOPT_URL and curl?");
	is_str(e, "\"curl_easy_setopt\" OR \"curl\" OR \"easy\" OR \"setopt\" OR "
	    "\"curlopt_url\" OR \"curlopt\" OR \"url\"", "identifiers, parts, dedup");
	free(e);

	/* At most 32 terms. */
	n = 0;
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "word%zu ", i);
	e = tokenize_match_expr(big);
	ok(e != NULL && strstr(e, "\"word31\"") != NULL && strstr(e, "word32") == NULL,
	    "capped at 32 terms");
	for (n = 0, i = 0; e != NULL && e[i] != '\0'; i++)
		n += e[i] == '"';
	is_int(n, 64, "32 quoted terms");
	free(e);
}

static int
count_rows(struct db *db, const char *lib, const char *question, int *firstrow)
{
	sqlite3_stmt	*st = NULL;
	char		*expr;
	int		 n = 0, rc;

	*firstrow = -1;
	if ((expr = tokenize_match_expr(question)) == NULL)
		return -2;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT rowid FROM t WHERE t MATCH "
	    "'lib:' || ?1 || ' AND (' || ?2 || ')' ORDER BY bm25(t)", -1, &st,
	    NULL) != SQLITE_OK) {
		free(expr);
		return -1;
	}
	sqlite3_bind_text(st, 1, lib, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, expr, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == 0)
			*firstrow = sqlite3_column_int(st, 0);
		n++;
	}
	if (rc != SQLITE_DONE) {
		printf("# %s: %s\n", question, sqlite3_errmsg(db_lite(db)));
		n = -1;
	}
	sqlite3_finalize(st);
	free(expr);
	return n;
}

static void
test_fts(void)
{
	struct db		*db = NULL;
	sqlite3_stmt	*st;
	const char	*nasty[] = {
		"what does \"curl\" do?",
		"curl* (setopt) NEAR/3 AND OR NOT -x ^start col:val",
		"\" ( ) * : ^ - + NEAR AND OR NOT",
		"a \"b\" OR (c AND d) NOT e^f lib:l2 body:x -- --max-time",
		"std::vec<T>::push_back() -> ok?",
	};
	size_t		 i;
	int		 n, first;

	ok(db_lite_open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &db) == SQLITE_OK, "open memory db");
	is_int(tokenize_register(db), 0, "tokenize_register");
	ok(sqlite3_exec(db_lite(db), "CREATE VIRTUAL TABLE t USING fts5(lib, body, "
	    "tokenize='porter ctxd')", NULL, NULL, NULL) == SQLITE_OK,
	    "create fts5 table with porter ctxd");
	ok(sqlite3_exec(db_lite(db),
	    "INSERT INTO t(rowid, lib, body) VALUES"
	    " (1, 'l1', 'Call curl_easy_setopt(handle, CURLOPT_URL, url) first.'),"
	    " (2, 'l1', 'Pass --max-time 10 to limit the whole transfer.'),"
	    " (3, 'l1', 'The useState hook keeps state in a component.'),"
	    " (4, 'l1', 'The server runs on port 8080.'),"
	    " (5, 'l2', 'curl_easy_setopt max-time useState runs'),"
	    " (6, 'l1', 'Time is an illusion; the maximum is large.')",
	    NULL, NULL, NULL) == SQLITE_OK, "insert rows");

	for (i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++) {
		n = count_rows(db, "l1", nasty[i], &first);
		ok(n >= 0, "nasty question %zu gives a valid expression", i);
	}

	n = count_rows(db, "l1", "setopt", &first);
	ok(n == 1 && first == 1, "setopt finds curl_easy_setopt (n=%d, first=%d)", n, first);
	n = count_rows(db, "l1", "curl_easy_setopt", &first);
	ok(n == 1 && first == 1, "whole identifier finds it (n=%d)", n);
	n = count_rows(db, "l1", "CURLOPT_URL", &first);
	ok(n == 1 && first == 1, "upper-case identifier finds it (n=%d)", n);
	n = count_rows(db, "l1", "max-time", &first);
	ok(n >= 1 && first == 2, "max-time finds --max-time first (n=%d, first=%d)", n,
	    first);
	n = count_rows(db, "l1", "state", &first);
	ok(n == 1 && first == 3, "state finds useState (n=%d, first=%d)", n, first);
	n = count_rows(db, "l1", "useState", &first);
	ok(n == 1 && first == 3, "useState finds useState (n=%d)", n);
	n = count_rows(db, "l1", "running", &first);
	ok(n == 1 && first == 4, "running finds runs (n=%d, first=%d)", n, first);
	n = count_rows(db, "l2", "running", &first);
	ok(n == 1 && first == 5, "lib filter keeps other libraries out (n=%d)", n);

	/* Query-side tokenizing: a quoted identifier does not match its parts alone. */
	n = 0;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT count(*) FROM t WHERE t MATCH "
	    "'\"max-time\"'", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	is_int(n, 2, "\"max-time\" matches only rows holding max-time");

	/* highlight() runs the tokenizer in AUX mode over the stored text. */
	n = 0;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT highlight(t, 1, '[', ']') FROM t WHERE t "
	    "MATCH 'setopt' AND lib = 'l1'", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = strcmp((const char *)sqlite3_column_text(st, 0),
			    "Call [curl_easy_setopt](handle, CURLOPT_URL, url) first.") == 0;
		sqlite3_finalize(st);
	}
	ok(n, "highlight marks the whole identifier");

	ok(sqlite3_exec(db_lite(db), "INSERT INTO t(t) VALUES('integrity-check')", NULL, NULL,
	    NULL) == SQLITE_OK, "fts5 integrity-check passes");
	ok(sqlite3_exec(db_lite(db), "CREATE VIRTUAL TABLE bad USING fts5(x, "
	    "tokenize='ctxd extra')", NULL, NULL, NULL) != SQLITE_OK,
	    "tokenizer arguments are refused");
	db_lite_close(db);
}

int
main(void)
{
	test_tokens();
	test_match_expr();
	test_fts();
	return tap_done();
}
