/* format.c: the text and JSON answers of /api/v2/context. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ctxd.h"

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

/*
 * Appends the text answer to out: per snippet "### title", a blank line, "Source: url",
 * then the prose and each code block, every part after a blank line; snippets joined by
 * FORMAT_SEPARATOR. Nothing follows the last block.
 */
int
format_text(struct buf *out, const struct snippet *sn, size_t n)
{
	const char	*text;
	size_t		 i, j, tlen;

	for (i = 0; i < n; i++) {
		if ((i > 0 && buf_adds(out, FORMAT_SEPARATOR) == -1) ||
		    buf_adds(out, "### ") == -1 ||
		    format_addline(out, sn[i].title) == -1 ||
		    buf_adds(out, "\n\nSource: ") == -1 ||
		    format_addline(out, sn[i].source) == -1)
			goto fail;
		tlen = format_trim(sn[i].text, &text);
		if (tlen > 0 && (buf_adds(out, "\n\n") == -1 ||
		    buf_add(out, text, tlen) == -1))
			goto fail;
		for (j = 0; j < sn[i].ncode; j++)
			if (buf_adds(out, "\n\n") == -1 ||
			    format_code(out, &sn[i].code[j]) == -1)
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

static struct json_object *
format_json_code(const struct snippet *s, size_t idx)
{
	struct json_object	*o, *list = NULL, *c;
	size_t			 j;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (format_json_str(o, "codeTitle", s->title) == -1 ||
	    format_json_str(o, "codeDescription", s->text) == -1 ||
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
	    format_json_str(o, "content", s->text) == -1 ||
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
	free(s->source);
	free(s->page_title);
	free(s->text);
	for (i = 0; i < s->ncode; i++) {
		free(s->code[i].lang);
		free(s->code[i].code);
	}
	free(s->code);
	memset(s, 0, sizeof(*s));
}
