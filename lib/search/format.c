/*
 * format.c: the text and JSON answers of /api/v2/context and the query tools: their budget,
 * the Source line of a snippet, and what anyone may read of a stored error.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "net/fetch.h"
#include "parse/parse.h"
#include "search/format.h"

#define FORMAT_SEPARATOR	"\n\n--------------------------------\n\n"

static const char *
format_str(const char *s)
{
	return s != NULL ? s : "";
}

static int
format_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	    c == '\v';
}

/*
 * Trims s: trailing whitespace always; leading blank lines (not the indentation of the
 * first non-blank line) too. Sets *start and returns the remaining length.
 */
static size_t
format_trim(const char *s, const char **start)
{
	const char	*p = format_str(s), *q, *e;

	/* Skip whole blank lines only. */
	for (q = p; *q != '\0'; q++) {
		if (*q == '\n')
			p = q + 1;
		else if (!format_isspace(*q))
			break;
	}
	if (*q == '\0')
		p = q;
	e = p + strlen(p);
	while (e > p && format_isspace(e[-1]))
		e--;
	*start = p;
	return (size_t)(e - p);
}

/* Appends s (length n) with every CR or LF turned into a space: one-line fields. */
static int
format_addline(struct buf *out, const char *s)
{
	const char	*p;
	size_t		 n;

	n = format_trim(s, &p);
	for (; n > 0; p++, n--)
		if (buf_addc(out, *p == '\n' || *p == '\r' ? ' ' : *p) == -1)
			return -1;
	return 0;
}

/*
 * Fence length for code (length n): 3 backticks, or one more than the longest run of
 * backticks opening a line (after up to 3 spaces), so that the code cannot close the fence.
 */
static size_t
format_fence(const char *code, size_t n)
{
	size_t	 i = 0, j, run, fence = 3;

	while (i < n) {
		for (j = 0; j < 3 && i < n && code[i] == ' '; j++)
			i++;
		for (run = 0; i < n && code[i] == '`'; i++)
			run++;
		if (run >= fence)
			fence = run + 1;
		while (i < n && code[i] != '\n')
			i++;
		i++;
	}
	return fence;
}

static int
format_addfence(struct buf *out, size_t n)
{
	for (; n > 0; n--)
		if (buf_addc(out, '`') == -1)
			return -1;
	return 0;
}

/* Appends one fenced code block; the language keeps its first word, without backticks. */
static int
format_code(struct buf *out, const struct doc_code *c)
{
	const char	*code, *lang = format_str(c->lang);
	size_t		 n, fence;

	n = format_trim(c->code, &code);
	fence = format_fence(code, n);
	if (format_addfence(out, fence) == -1)
		return -1;
	for (; *lang != '\0' && !format_isspace(*lang); lang++)
		if (*lang != '`' && buf_addc(out, *lang) == -1)
			return -1;
	if (buf_addc(out, '\n') == -1 || buf_add(out, code, n) == -1 ||
	    (n > 0 && buf_addc(out, '\n') == -1))
		return -1;
	return format_addfence(out, fence);
}

/* Appends "\n\n" and the prose s[0..n), trimmed as format_trim does, unless blank. */
static int
format_prose(struct buf *out, const char *s, size_t n)
{
	const char	*p;
	char		*seg;
	size_t		 len;
	int		 rc = 0;

	if ((seg = strndup(s, n)) == NULL)
		return -1;
	len = format_trim(seg, &p);
	if (len > 0 && (buf_adds(out, "\n\n") == -1 || buf_add(out, p, len) == -1))
		rc = -1;
	free(seg);
	return rc;
}

/*
 * Appends a snippet's prose and code blocks in document order, each part after a blank
 * line: a block goes where its offset (at) stands in the text, at the end when past it.
 */
static int
format_body(struct buf *out, const struct snippet *s)
{
	const char	*text = format_str(s->text);
	size_t		 tlen = strlen(text), prev = 0, at, j;

	for (j = 0; j < s->ncode; j++) {
		at = s->code[j].at;
		if (at > tlen)
			at = tlen;
		if (at < prev)
			at = prev;
		if (format_prose(out, text + prev, at - prev) == -1 ||
		    buf_adds(out, "\n\n") == -1 || format_code(out, &s->code[j]) == -1)
			return -1;
		prev = at;
	}
	return format_prose(out, text + prev, tlen - prev);
}

/*
 * Appends the text answer to out: per snippet "### title", a blank line, "Source: url",
 * for a subsection read before what encloses it a line "Under: Page > Section", then the
 * prose and the code blocks in document order (format_body), every part after a blank
 * line; snippets joined by FORMAT_SEPARATOR. Nothing follows the last block.
 */
int
format_text(struct buf *out, const struct snippet *sn, size_t n)
{
	size_t		 i;

	for (i = 0; i < n; i++) {
		if ((i > 0 && buf_adds(out, FORMAT_SEPARATOR) == -1) ||
		    (sn[i].flags != NULL && (buf_printf(out, FORMAT_MARK_FMT,
		    sn[i].flags) == -1 || buf_addc(out, '\n') == -1)) ||
		    buf_adds(out, "### ") == -1 ||
		    format_addline(out, sn[i].title) == -1 ||
		    buf_adds(out, "\n\nSource: ") == -1 ||
		    format_addline(out, sn[i].source) == -1 ||
		    (sn[i].trail != NULL && (buf_adds(out, "\n\nUnder: ") == -1 ||
		    format_addline(out, sn[i].trail) == -1)))
			goto fail;
		if (format_body(out, &sn[i]) == -1)
			goto fail;
		if (sn[i].cut && buf_adds(out, "\n\n" FORMAT_CUT_NOTE) == -1)
			goto fail;
	}
	return 0;
fail:
	log_err("%s: out of memory", __func__);
	return -1;
}

/* Adds key: trimmed string s to object o; -1 on allocation failure. */
static int
format_json_str(struct json_object *o, const char *key, const char *s)
{
	struct json_object	*v;
	const char		*p;
	size_t			 n;

	n = format_trim(s, &p);
	if (n > INT_MAX || (v = json_object_new_string_len(p, (int)n)) == NULL)
		return -1;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int
format_json_int(struct json_object *o, const char *key, int i)
{
	struct json_object	*v;

	if ((v = json_object_new_int(i)) == NULL)
		return -1;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int
format_json_push(struct json_object *arr, struct json_object *v)
{
	if (json_object_array_add(arr, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/*
 * codeId: the source URL without its fragment, then "#_snippet_N" where N counts the code
 * snippets of this answer from 0 (the hosted API numbers the snippets of a page; ours are
 * numbered in answer order, which keeps every id of one answer distinct).
 */
static int
format_json_codeid(struct json_object *o, const char *source, size_t idx)
{
	struct buf	 b;
	const char	*p, *hash;
	size_t		 n;
	int		 rc;

	buf_init(&b);
	n = format_trim(source, &p);
	if ((hash = memchr(p, '#', n)) != NULL)
		n = (size_t)(hash - p);
	rc = buf_add(&b, p, n) == -1 ||
	    buf_printf(&b, "#_snippet_%zu", idx) == -1 ||
	    format_json_str(o, "codeId", b.p) == -1 ? -1 : 0;
	buf_release(&b);
	return rc;
}

/*
 * Adds key: the snippet's trimmed prose, after the content.injection=mark line when it
 * has flags and followed by FORMAT_CUT_NOTE when it was cut.
 */
static int
format_json_prose(struct json_object *o, const char *key, const struct snippet *s)
{
	struct buf	 b;
	const char	*p;
	size_t		 n;
	int		 rc;

	if (s->flags == NULL && !s->cut)
		return format_json_str(o, key, s->text);
	buf_init(&b);
	n = format_trim(s->text, &p);
	rc = (s->flags != NULL && (buf_printf(&b, FORMAT_MARK_FMT, s->flags) == -1 ||
	    (n > 0 && buf_adds(&b, "\n\n") == -1))) ||
	    buf_add(&b, p, n) == -1 ||
	    (s->cut && buf_adds(&b, "\n\n" FORMAT_CUT_NOTE) == -1) ||
	    format_json_str(o, key, b.p) == -1 ? -1 : 0;
	buf_release(&b);
	return rc;
}

static struct json_object *
format_json_code(const struct snippet *s, size_t idx)
{
	struct json_object	*o, *list = NULL, *c;
	size_t			 j;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (format_json_str(o, "codeTitle", s->title) == -1 ||
	    format_json_prose(o, "codeDescription", s) == -1 ||
	    format_json_str(o, "codeLanguage", s->code[0].lang) == -1 ||
	    format_json_int(o, "codeTokens", s->tokens) == -1 ||
	    format_json_codeid(o, s->source, idx) == -1 ||
	    format_json_str(o, "pageTitle", s->page_title) == -1 ||
	    (list = json_object_new_array()) == NULL)
		goto fail;
	if (json_object_object_add(o, "codeList", list) != 0) {
		json_object_put(list);
		goto fail;
	}
	for (j = 0; j < s->ncode; j++) {
		if ((c = json_object_new_object()) == NULL)
			goto fail;
		if (format_json_push(list, c) == -1 ||
		    format_json_str(c, "language", s->code[j].lang) == -1 ||
		    format_json_str(c, "code", s->code[j].code) == -1)
			goto fail;
	}
	return o;
fail:
	json_object_put(o);
	return NULL;
}

static struct json_object *
format_json_info(const struct snippet *s)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (format_json_str(o, "pageId", s->source) == -1 ||
	    format_json_str(o, "breadcrumb", s->breadcrumb) == -1 ||
	    format_json_prose(o, "content", s) == -1 ||
	    format_json_int(o, "contentTokens", s->tokens) == -1) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * Appends {"codeSnippets":[...],"infoSnippets":[...]} to out: snippets with code become
 * code snippets, the others info snippets, each list in the given order. Strings are
 * trimmed as in the text answer.
 */
int
format_json(struct buf *out, const struct snippet *sn, size_t n)
{
	struct json_object	*root, *codes = NULL, *infos = NULL, *o;
	const char		*s;
	size_t			 i, ncodes = 0;
	int			 rc = -1;

	if ((root = json_object_new_object()) == NULL)
		goto out;
	if ((codes = json_object_new_array()) == NULL)
		goto out;
	if (json_object_object_add(root, "codeSnippets", codes) != 0) {
		json_object_put(codes);
		goto out;
	}
	if ((infos = json_object_new_array()) == NULL)
		goto out;
	if (json_object_object_add(root, "infoSnippets", infos) != 0) {
		json_object_put(infos);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (sn[i].ncode > 0)
			o = format_json_code(&sn[i], ncodes++);
		else
			o = format_json_info(&sn[i]);
		if (o == NULL ||
		    format_json_push(sn[i].ncode > 0 ? codes : infos, o) == -1)
			goto out;
	}
	s = json_object_to_json_string_ext(root,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s == NULL || buf_adds(out, s) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: out of memory", __func__);
	json_object_put(root);
	return rc;
}

void
format_snippet_release(struct snippet *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	free(s->title);
	free(s->breadcrumb);
	free(s->trail);
	free(s->source);
	free(s->page_title);
	free(s->text);
	for (i = 0; i < s->ncode; i++) {
		free(s->code[i].lang);
		free(s->code[i].code);
	}
	free(s->code);
	free(s->flags);
	memset(s, 0, sizeof(*s));
}

/*
 * Where to cut s (length len) to at most max bytes. Prose: at the last blank line, else
 * line end, else space in the second half of the room, else at the last UTF-8 character
 * boundary. Code (lines): at the last line end, else nothing is kept. Returns the
 * length kept, trailing blanks off.
 */
static size_t
format_cut_at(const char *s, size_t len, size_t max, int lines)
{
	size_t	 i, n = 0;
	int	 pass;

	if (len <= max)
		return len;
	for (pass = lines ? 1 : 0; pass < (lines ? 2 : 3) && n == 0; pass++)
		for (i = max; i > (lines ? 0 : max / 2) && n == 0; i--)
			if ((pass == 0 && s[i - 1] == '\n' && s[i] == '\n') ||
			    (pass == 1 && s[i] == '\n') || (pass == 2 && s[i] == ' '))
				n = i;
	if (n == 0 && !lines)
		for (n = max; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			continue;
	while (n > 0 && format_isspace(s[n - 1]))
		n--;
	return n;
}

/* Cuts the string *p in place to what format_cut_at keeps of max bytes. */
static void
format_cut_str(char *p, size_t max, int lines)
{
	if (p != NULL)
		p[format_cut_at(p, strlen(p), max, lines)] = '\0';
}

/* tokenize_estimate of a string. */
static long
format_tokens(const char *s)
{
	return s != NULL ? (long)tokenize_estimate(s, strlen(s)) : 0;
}

/* tokenize_estimate of the code blocks as index.c counts them (each followed by '\n'). */
static long
format_code_tokens(const struct snippet *s)
{
	size_t	 i, n = 0;

	for (i = 0; i < s->ncode; i++)
		n += strlen(format_str(s->code[i].code)) + 1;
	return (long)tokenize_estimate(NULL, n);
}

/* The tokens of s as format_cut counts them. */
static long
format_snippet_tokens(const struct snippet *s)
{
	return format_tokens(s->title) + format_tokens(s->text) + format_code_tokens(s) +
	    (s->cut ? format_tokens(FORMAT_CUT_NOTE) : 0);
}

/* Code smaller than this (tokens) is not worth a cut block: the rest is dropped. */
#define FORMAT_CUT_MIN_CODE	32

void
format_cut(struct snippet *s, long max)
{
	long	 left, t = 0;	/* t: set and read only when s->text is not NULL */
	size_t	 i, keep;

	if (format_snippet_tokens(s) <= max)
		return;
	s->cut = 1;
	if (max < 1)
		max = 1;
	if (format_tokens(s->title) > max / 4)
		format_cut_str(s->title, (size_t)max, 0);
	left = max - format_tokens(s->title) - format_tokens(FORMAT_CUT_NOTE);
	if (left < 0)
		left = 0;
	if (s->text != NULL && (t = format_tokens(s->text)) > left) {
		format_cut_str(s->text, (size_t)left * 4, 0);
		left = 0;
	} else
		left -= s->text != NULL ? t : 0;
	/* The code blocks that fit whole, then one cut at a line end, if worth it. */
	for (i = 0, keep = 0; i < s->ncode; i++, keep++) {
		size_t	 clen = strlen(format_str(s->code[i].code)) + 1;

		if ((long)clen <= left * 4) {
			left -= (long)tokenize_estimate(NULL, clen);
			continue;
		}
		if (left >= FORMAT_CUT_MIN_CODE && s->code[i].code != NULL) {
			format_cut_str(s->code[i].code, (size_t)(left - 1) * 4, 1);
			if (*s->code[i].code != '\0')
				keep++;
		}
		break;
	}
	for (i = keep; i < s->ncode; i++) {
		free(s->code[i].lang);
		free(s->code[i].code);
	}
	s->ncode = keep;
	if (keep == 0) {
		free(s->code);
		s->code = NULL;
	}
	s->tokens = (int)format_snippet_tokens(s);
}

/*
 * A web address pattern (a library's blob prefix holding "{path}": the repository URL and
 * the path, or git.web_url_template) with its {commit} and {path} filled in.
 */
static int
format_pattern(struct buf *b, const char *pat, const char *commit, const char *path)
{
	while (*pat != '\0') {
		if (strncmp(pat, "{commit}", 8) == 0) {
			if (buf_adds(b, commit ? commit : "") == -1)
				return -1;
			pat += 8;
		} else if (strncmp(pat, "{path}", 6) == 0) {
			if (buf_adds(b, path ? path : "") == -1)
				return -1;
			pat += 6;
		} else if (buf_addc(b, *pat++) == -1)
			return -1;
	}
	return 0;
}

char *
format_source_of(const char *url, const char *prefix, const char *commit,
    const char *path, const char *anchor)
{
	struct buf	 b;

	buf_init(&b);
	if ((url != NULL ? buf_adds(&b, url) : prefix != NULL && strstr(prefix, "{path}") ?
	    format_pattern(&b, prefix, commit, path) :
	    buf_printf(&b, "%s%s/%s",
	    prefix ? prefix : "", commit ? commit : "", path ? path : "")) == -1 ||
	    (anchor != NULL && *anchor != '\0' && buf_printf(&b, "#%s", anchor) == -1)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

int
format_check_tokens(const char *v, char *err, size_t errsz)
{
	const char	*d = v + (*v == '-');

	if (*d != '\0' && strspn(d, "0123456789") == strlen(d))
		return 0;
	snprintf(err, errsz, "must be a whole number (a budget under %d tokens is raised "
	    "to %d, one over %d lowered to %d)", FORMAT_MIN_TOKENS, FORMAT_MIN_TOKENS,
	    FORMAT_MAX_TOKENS, FORMAT_MAX_TOKENS);
	return -1;
}

long
format_budget(const char *v)
{
	long	 n;

	if (util_parse_long(v, LONG_MIN, LONG_MAX, &n) == -1)
		n = *v == '-' ? LONG_MIN : LONG_MAX;	/* past a long: its sign decides */
	return n < FORMAT_MIN_TOKENS ? FORMAT_MIN_TOKENS : n > FORMAT_MAX_TOKENS ?
	    FORMAT_MAX_TOKENS : n;
}

void
format_public_error(char *msg)
{
	size_t	 n = strlen(FETCH_FAILED_PREFIX);
	char	*colon;

	if (msg != NULL && strncmp(msg, FETCH_FAILED_PREFIX, n) == 0 &&
	    (colon = strstr(msg + n, ": ")) != NULL)
		*colon = '\0';
}
