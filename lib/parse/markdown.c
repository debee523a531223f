/*
 * markdown.c: Markdown and MDX documents to sections with md4c.
 *
 * A line-based pass first removes what md4c would misread: YAML front matter (its title and
 * curl's "Example:" lines are kept aside), VitePress "::: tip" and MkDocs "!!! note",
 * "??? api", '=== "Tab"' marker lines (MkDocs content is dedented), and in MDX the
 * import/export lines and JSX component tags. It tracks code fences so that nothing inside
 * one is touched. md4c then parses the result (GitHub dialect) and its block and span
 * callbacks feed the section builder of doc.c.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <md4c.h>

#include "base/buf.h"
#include "base/log.h"
#include "parse/doc.h"
#include "parse/parse.h"

#define MD_MAXLIST	32
#define MD_MAXADMON	16
/*
 * Lines of one block (a run of non-blank lines outside a code fence) that md4c sees at
 * most: md4c 0.4.8 walks a block's lines from its first for every link candidate, so a
 * block of n lines full of "](" costs n squared. A longer run gets a blank line every
 * MD_MAXRUN lines (a table's header and delimiter rows are repeated after it).
 */
#define MD_MAXRUN	1000
/*
 * Columns of a table: md4c gives every row as many cells as the header has, so a header of
 * n cells over n rows costs n squared; a wider table is read as text.
 */
#define MD_MAXCOLS	128

/* ---------------------------------------------------------------- text helpers */

/* Appends the UTF-8 encoding of code point cp. */
static int
markdown_add_utf8(struct buf *b, unsigned long cp)
{
	char	 u[4];

	if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80)
		return buf_addc(b, (char)cp);
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		return buf_add(b, u, 2);
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return buf_add(b, u, 3);
	}
	u[0] = (char)(0xf0 | (cp >> 18));
	u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return buf_add(b, u, 4);
}

/*
 * Decodes the entity at s (n bytes, starting with '&'), appending its text; returns the
 * bytes consumed (0 when s is not an entity this knows: the caller copies the '&').
 */
static size_t
markdown_entity(struct buf *b, const char *s, size_t n)
{
	static const struct { const char *name; const char *text; } ents[] = {
		{ "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" },
		{ "apos", "'" }, { "nbsp", " " }, { "copy", "\xc2\xa9" },
		{ "mdash", "\xe2\x80\x94" }, { "ndash", "\xe2\x80\x93" },
		{ "hellip", "\xe2\x80\xa6" }, { "rarr", "\xe2\x86\x92" },
		{ "larr", "\xe2\x86\x90" }, { "trade", "\xe2\x84\xa2" },
		{ "reg", "\xc2\xae" }, { "times", "\xc3\x97" },
	};
	unsigned long	 cp = 0;
	size_t		 i, e;
	int		 hex;

	for (e = 1; e < n && e < 12 && s[e] != ';'; e++)
		;
	if (e >= n || s[e] != ';' || e < 2)
		return 0;
	if (s[1] == '#') {
		hex = e > 2 && (s[2] == 'x' || s[2] == 'X');
		for (i = hex ? 3 : 2; i < e; i++) {
			if (hex && isxdigit((unsigned char)s[i]))
				cp = cp * 16 + (unsigned long)(isdigit((unsigned char)s[i]) ?
				    s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10));
			else if (!hex && isdigit((unsigned char)s[i]))
				cp = cp * 10 + (unsigned long)(s[i] - '0');
			else
				return 0;
		}
		if (i == (size_t)(hex ? 3 : 2))
			return 0;
		return markdown_add_utf8(b, cp) == -1 ? 0 : e + 1;
	}
	for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
		if (strlen(ents[i].name) == e - 1 &&
		    strncmp(ents[i].name, s + 1, e - 1) == 0)
			return buf_adds(b, ents[i].text) == -1 ? 0 : e + 1;
	return 0;
}

/* Case-insensitive search of needle in s[0..n). */
static const char *
markdown_memcasestr(const char *s, size_t n, const char *needle)
{
	size_t	 k = strlen(needle), i;

	for (i = 0; i + k <= n; i++)
		if (strncasecmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

/*
 * The first needle (nlen bytes) in [p, end), or NULL; *cache keeps the last answer (end for
 * none) so that a caller scanning forward searches each stretch of text once, not once per
 * position. Start with *cache NULL; p must never move backwards.
 */
static const char *
markdown_next(const char **cache, const char *p, const char *end, const char *needle,
    size_t nlen)
{
	if (*cache == NULL || *cache < p) {
		*cache = memmem(p, (size_t)(end - p), needle, nlen);
		if (*cache == NULL)
			*cache = end;
	}
	return *cache == end ? NULL : *cache;
}

/*
 * The text of a raw HTML block: tags, comments, scripts and styles dropped, entities
 * decoded, every line squeezed, empty lines left out.
 */
static int
markdown_html_text(struct buf *out, const char *s, size_t n)
{
	struct buf	 t;
	const char	*e, *end = s + n, *gt = NULL;
	size_t		 used;
	char		*line, *nl;
	int		 rc = -1;

	buf_init(&t);
	if (buf_add(&t, "", 0) == -1)
		goto out;
	while (s < end) {
		if (*s == '<' && end - s >= 4 && strncmp(s, "<!--", 4) == 0) {
			e = markdown_memcasestr(s + 4, (size_t)(end - s - 4), "-->");
			s = e != NULL ? e + 3 : end;
			continue;
		}
		if (*s == '<' && (end - s >= 7) && (strncasecmp(s, "<script", 7) == 0 ||
		    strncasecmp(s, "<style", 6) == 0)) {
			e = markdown_memcasestr(s + 1, (size_t)(end - s - 1),
			    tolower((unsigned char)s[2]) == 'c' ? "</script" : "</style");
			s = e != NULL ? e : end;
			continue;
		}
		if (*s == '<' && end - s > 1 && (isalpha((unsigned char)s[1]) ||
		    s[1] == '/' || s[1] == '!' || s[1] == '?')) {
			if ((e = markdown_next(&gt, s, end, ">", 1)) != NULL) {
				if (buf_addc(&t, ' ') == -1)
					goto out;
				s = e + 1;
				continue;
			}
		}
		if (*s == '&' && (used = markdown_entity(&t, s, (size_t)(end - s))) > 0) {
			s += used;
			continue;
		}
		if (buf_addc(&t, *s++) == -1)
			goto out;
	}
	for (line = t.p; line != NULL && *line != '\0'; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		doc_squeeze(line);
		if (*line == '\0')
			continue;
		if ((out->len > 0 && buf_addc(out, '\n') == -1) ||
		    buf_adds(out, line) == -1)
			goto out;
	}
	rc = 0;
out:
	buf_release(&t);
	return rc;
}

/* Removes a trailing "{#id}", "{ #id .class }" or "{: #id}" attribute list in place. */
static void
markdown_strip_attrs(char *t)
{
	char	*o;
	size_t	 n = strlen(t);

	if (n == 0 || t[n - 1] != '}' || (o = strrchr(t, '{')) == NULL)
		return;
	o++;
	while (*o == ' ' || *o == ':')
		o++;
	if (*o != '#' && *o != '.')
		return;
	*strrchr(t, '{') = '\0';
	doc_squeeze(t);
}

/* ---------------------------------------------------------------- pre-pass */

struct mdpre {
	struct buf	 out;
	int		 mdx;
	int		 infence;
	char		 fch;
	size_t		 flen;
	size_t		 admon[MD_MAXADMON];	/* indent of open MkDocs markers */
	int		 nadmon;
	int		 jsxdepth;
	int		 intag;			/* inside a JSX tag spanning lines */
	struct buf	 tag;
	char		 tagq;			/* the tag's open quote, 0 for none */
	int		 tagbrace;		/* and its open braces */
};

/* Columns of leading white space of s[0..n) and the offset of the first other byte. */
static size_t
markdown_indent(const char *s, size_t n, size_t *first)
{
	size_t	 i, col = 0;

	for (i = 0; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
		col = s[i] == '\t' ? (col / 4 + 1) * 4 : col + 1;
	*first = i;
	return col;
}

/* Byte offset after removing up to cols columns of leading white space. */
static size_t
markdown_skip_cols(const char *s, size_t n, size_t cols)
{
	size_t	 i, col = 0;

	for (i = 0; i < n && col < cols && (s[i] == ' ' || s[i] == '\t'); i++)
		col = s[i] == '\t' ? (col / 4 + 1) * 4 : col + 1;
	return i;
}

/* Value of attribute name="..." (or '...') in a JSX tag, malloc'd, or NULL. */
static char *
markdown_attr(const char *tag, const char *name)
{
	const char	*p = tag, *q;
	size_t		 k = strlen(name);
	char		 quote;

	while ((p = strstr(p, name)) != NULL) {
		if (p > tag && (isalnum((unsigned char)p[-1]) || p[-1] == '-' ||
		    p[-1] == '_')) {
			p += k;
			continue;
		}
		q = p + k;
		if (*q != '=' || (q[1] != '"' && q[1] != '\'')) {
			p += k;
			continue;
		}
		quote = q[1];
		q += 2;
		p = strchr(q, quote);
		if (p == NULL)
			return NULL;
		return strndup(q, (size_t)(p - q));
	}
	return NULL;
}

/* Acts on one complete JSX tag: nesting depth, install commands, parameter items. */
static int
markdown_jsx_tag(struct mdpre *pp, const char *tag, size_t n)
{
	char	*t, *cmd = NULL, *name = NULL, *type = NULL;
	int	 rc = -1;

	if ((t = strndup(tag, n)) == NULL)
		return -1;
	if (t[1] == '/')
		pp->jsxdepth -= pp->jsxdepth > 0;
	else if (n < 2 || t[n - 2] != '/')
		pp->jsxdepth++;
	if (t[1] == '/') {
		rc = 0;
		goto out;
	}
	cmd = markdown_attr(t, "command");
	name = markdown_attr(t, "name");
	type = markdown_attr(t, "type");
	if (cmd != NULL && *cmd != '\0' && strchr(cmd, '\n') == NULL &&
	    buf_printf(&pp->out, "\n```sh\n%s\n```\n\n", cmd) == -1)
		goto out;
	if (name != NULL && *name != '\0' && strchr(name, '\n') == NULL &&
	    strchr(name, '`') == NULL) {
		if (buf_printf(&pp->out, "- `%s`", name) == -1)
			goto out;
		if (type != NULL && *type != '\0' && strchr(type, '\n') == NULL &&
		    buf_printf(&pp->out, " (%s)", type) == -1)
			goto out;
		if (buf_addc(&pp->out, '\n') == -1)
			goto out;
	}
	rc = 0;
out:
	free(t);
	free(cmd);
	free(name);
	free(type);
	return rc;
}

/* 1 when s (n bytes) starts a JSX component tag: <Cap, </Cap, <>, </>. */
static int
markdown_jsx_start(const char *s, size_t n)
{
	if (n < 2 || s[0] != '<')
		return 0;
	if (isupper((unsigned char)s[1]) || s[1] == '>')
		return 1;
	return n > 2 && s[1] == '/' && (isupper((unsigned char)s[2]) || s[2] == '>');
}

/*
 * Consumes JSX tag text from s (n bytes) into pp->tag; returns the bytes consumed and sets
 * *done when the tag's closing '>' was seen (quotes and braces respected). The quote and
 * brace state of the tag's earlier lines is kept in pp, so a long tag is read once.
 */
static size_t
markdown_jsx_scan(struct mdpre *pp, const char *s, size_t n, int *done)
{
	size_t	 i;
	char	 q = pp->tag.len > 0 ? pp->tagq : 0;
	int	 brace = pp->tag.len > 0 ? pp->tagbrace : 0;

	*done = 0;
	for (i = 0; i < n; i++) {
		if (q != 0) {
			if (s[i] == q)
				q = 0;
		} else if (s[i] == '"' || s[i] == '\'')
			q = s[i];
		else if (s[i] == '{')
			brace++;
		else if (s[i] == '}')
			brace -= brace > 0;
		else if (s[i] == '>' && brace == 0 && (pp->tag.len > 0 || i > 0)) {
			*done = 1;
			i++;
			break;
		}
	}
	if (buf_add(&pp->tag, s, i) == -1)
		return (size_t)-1;
	if (!*done && buf_addc(&pp->tag, ' ') == -1)
		return (size_t)-1;
	pp->tagq = q;
	pp->tagbrace = brace;
	return i;
}

/* MDX: handles a line that starts with component tags; emits the text around them. */
static int
markdown_jsx_line(struct mdpre *pp, const char *s, size_t n)
{
	size_t	 used, e, before = pp->out.len;
	int	 done;

	for (;;) {
		while (n > 0 && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		if (!pp->intag && !markdown_jsx_start(s, n))
			break;
		if (!pp->intag)
			buf_reset(&pp->tag);
		if ((used = markdown_jsx_scan(pp, s, n, &done)) == (size_t)-1)
			return -1;
		s += used;
		n -= used;
		if (!done) {
			pp->intag = 1;
			return 0;
		}
		pp->intag = 0;
		if (markdown_jsx_tag(pp, pp->tag.p, pp->tag.len) == -1)
			return -1;
	}
	/* Text after the tags, without closing component tags at its end. */
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n > 0 && s[n - 1] == '>') {
		for (e = n - 1; e > 0 && s[e] != '<'; e--)
			;
		if (e + 1 >= n || s[e] != '<' || !markdown_jsx_start(s + e, n - e))
			break;
		buf_reset(&pp->tag);
		if (markdown_jsx_tag(pp, s + e, n - e) == -1)
			return -1;
		n = e;
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
	}
	if (n == 0)
		return pp->out.len > before ? 0 : buf_addc(&pp->out, '\n');
	if (buf_add(&pp->out, s, n) == -1 || buf_addc(&pp->out, '\n') == -1)
		return -1;
	return 0;
}

/* Length of a fence opener at s (``` or ~~~, at least 3), 0 when there is none. */
static size_t
markdown_fence(const char *s, size_t n)
{
	size_t	 k;

	if (n < 3 || (s[0] != '`' && s[0] != '~'))
		return 0;
	for (k = 0; k < n && s[k] == s[0]; k++)
		;
	if (k < 3)
		return 0;
	if (s[0] == '`' && memchr(s + k, '`', n - k) != NULL)
		return 0;
	return k;
}

/* Emits the title of a container marker as a paragraph when it says something. */
static int
markdown_marker_title(struct mdpre *pp, const char *indent, size_t ilen, const char *t,
    size_t n, int need_space)
{
	while (n > 0 && (*t == ' ' || *t == '\t' || *t == '"')) {
		t++;
		n--;
	}
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '"'))
		n--;
	if (n == 0 || (need_space && memchr(t, ' ', n) == NULL))
		return buf_addc(&pp->out, '\n');
	if (buf_addc(&pp->out, '\n') == -1 || buf_add(&pp->out, indent, ilen) == -1 ||
	    buf_add(&pp->out, t, n) == -1 || buf_adds(&pp->out, "\n\n") == -1)
		return -1;
	return 0;
}

/* One source line (without its newline) through the pre-pass. */
static int
markdown_pre_line(struct mdpre *pp, const char *line, size_t n)
{
	const char	*t, *f, *w;
	size_t		 ind, first, off, tn, fn, k, wn;

	ind = markdown_indent(line, n, &first);
	if (first == n && !pp->intag)
		return buf_addc(&pp->out, '\n');
	if (!pp->infence)
		while (pp->nadmon > 0 && ind < pp->admon[pp->nadmon - 1] + 4)
			pp->nadmon--;
	/* each open marker's content is indented 4 more than the marker itself */
	off = markdown_skip_cols(line, n, 4 * (size_t)pp->nadmon);
	t = line + off;
	tn = n - off;
	markdown_indent(t, tn, &first);
	f = t + first;
	fn = tn - first;

	if (pp->infence) {
		if (fn >= pp->flen && *f == pp->fch) {
			for (k = 0; k < fn && f[k] == pp->fch; k++)
				;
			while (k < fn && (f[k] == ' ' || f[k] == '\t'))
				k++;
			if (k == fn)
				pp->infence = 0;
		}
		goto copy;
	}
	if (pp->intag)
		return markdown_jsx_line(pp, t, tn);
	if ((k = markdown_fence(f, fn)) > 0) {
		pp->infence = 1;
		pp->fch = *f;
		pp->flen = k;
		if (pp->jsxdepth > 0) {
			t = f;
			tn = fn;
		}
		goto copy;
	}
	/* MkDocs admonitions and content tabs: the content is indented 4 more. */
	if ((fn >= 3 && (strncmp(f, "!!!", 3) == 0 || strncmp(f, "???", 3) == 0) &&
	    (fn == 3 || f[3] == ' ' || f[3] == '+')) ||
	    (fn >= 5 && strncmp(f, "=== \"", 5) == 0)) {
		if (pp->nadmon < MD_MAXADMON)
			pp->admon[pp->nadmon++] = ind;
		w = f + 3;
		wn = fn - 3;
		if (wn > 0 && *w == '+') {
			w++;
			wn--;
		}
		if (*f != '=') {
			/* type word, then an optional quoted title */
			while (wn > 0 && *w == ' ') {
				w++;
				wn--;
			}
			if (wn >= 3 && strncmp(w, "api", 3) == 0)
				return buf_addc(&pp->out, '\n');
			while (wn > 0 && *w != ' ' && *w != '"') {
				w++;
				wn--;
			}
		}
		return markdown_marker_title(pp, t, first, w, wn, 0);
	}
	/* VitePress containers; mkdocstrings "::: package.module.Name" stubs. */
	if (fn >= 3 && strncmp(f, ":::", 3) == 0) {
		for (w = f; w < f + fn && *w == ':'; w++)
			;
		wn = fn - (size_t)(w - f);
		while (wn > 0 && *w == ' ') {
			w++;
			wn--;
		}
		for (k = 0; k < wn && w[k] != ' '; k++)
			;
		if (k == wn && k > 0 && memchr(w, '.', k) != NULL &&
		    isalpha((unsigned char)*w))
			return buf_printf(&pp->out, "\nAPI: %.*s\n\n", (int)k, w);
		return markdown_marker_title(pp, t, first, w + k, wn - k, 1);
	}
	if (pp->mdx) {
		if (pp->jsxdepth == 0 && first == 0 && ((fn > 7 &&
		    strncmp(f, "import ", 7) == 0) || (fn > 7 &&
		    strncmp(f, "export ", 7) == 0)))
			return buf_addc(&pp->out, '\n');
		if (markdown_jsx_start(f, fn))
			return markdown_jsx_line(pp, f, fn);
		if (pp->jsxdepth > 0) {
			t = f;
			tn = fn;
		}
	}
copy:
	if (buf_add(&pp->out, t, tn) == -1 || buf_addc(&pp->out, '\n') == -1)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- front matter */

struct mdfront {
	char		*title;
	struct buf	 examples;	/* curl cmdline-opts "Example:" lines */
};

/* Trims white space and one level of matching quotes; returns a malloc'd copy. */
static char *
markdown_yaml_scalar(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= 2 && (*s == '"' || *s == '\'') && s[n - 1] == *s) {
		s++;
		n -= 2;
	}
	return strndup(s, n);
}

/*
 * Parses YAML front matter at the top of s; returns the offset of the body (0 when there
 * is no front matter). Only "title:" and the curl "Example:" list are used.
 */
static size_t
markdown_front(const char *s, size_t n, struct mdfront *fm, int *err)
{
	const char	*p, *eol, *end = s + n, *body = NULL;
	size_t		 ln;
	int		 inex = 0, curl = 0;
	struct buf	 ex;

	*err = 0;
	if (n < 4 || strncmp(s, "---\n", 4) != 0)
		return 0;
	for (p = s + 4; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		ln = (size_t)(eol - p);
		while (ln > 0 && (p[ln - 1] == ' ' || p[ln - 1] == '\t'))
			ln--;
		if ((ln == 3 && (strncmp(p, "---", 3) == 0 || strncmp(p, "...", 3) == 0))) {
			body = eol < end ? eol + 1 : end;
			break;
		}
		if (eol == end)
			break;
	}
	if (body == NULL)
		return 0;
	buf_init(&ex);
	for (p = s + 4; p < body; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(body - p));
		if (eol == NULL)
			eol = body;
		ln = (size_t)(eol - p);
		if (ln > 0 && !isspace((unsigned char)*p))
			inex = 0;
		if (ln >= 6 && strncasecmp(p, "title:", 6) == 0 && fm->title == NULL) {
			if ((fm->title = markdown_yaml_scalar(p + 6, ln - 6)) == NULL)
				goto fail;
		} else if (ln >= 5 && strncmp(p, "Long:", 5) == 0)
			curl = 1;
		else if (ln >= 8 && strncmp(p, "Example:", 8) == 0)
			inex = 1;
		else if (inex) {
			const char *q = p;
			size_t qn = ln;

			while (qn > 0 && isspace((unsigned char)*q)) {
				q++;
				qn--;
			}
			if (qn >= 2 && q[0] == '-' && q[1] == ' ') {
				q += 2;
				qn -= 2;
				while (qn > 0 && isspace((unsigned char)q[qn - 1]))
					qn--;
				if (qn > 0 && buf_printf(&ex, "%s%.*s\n", curl ? "curl " : "",
				    (int)qn, q) == -1)
					goto fail;
			}
		}
	}
	/* "Long:" may follow "Example:": redo the prefix decision once, cheaply. */
	if (curl && ex.len > 0 && strncmp(ex.p, "curl ", 5) != 0) {
		struct buf	 nb;
		char		*l, *nl;

		buf_init(&nb);
		for (l = ex.p; *l != '\0'; l = nl) {
			nl = strchr(l, '\n');
			nl = nl != NULL ? nl + 1 : l + strlen(l);
			if (buf_printf(&nb, "curl %.*s", (int)(nl - l), l) == -1) {
				buf_release(&nb);
				goto fail;
			}
		}
		buf_release(&ex);
		ex = nb;
	}
	fm->examples = ex;
	return (size_t)(body - s);
fail:
	buf_release(&ex);
	*err = 1;
	return 0;
}

/* ---------------------------------------------------------------- md4c callbacks */

struct mdlist {
	int		 ordered;
	unsigned	 num;
};

struct mdctx {
	struct docb	*b;
	struct buf	 blk;		/* inline text of the open leaf block */
	struct buf	 row;		/* table row */
	struct buf	 code;
	struct buf	 tmp;
	char		 lang[32];
	int		 rustdoc, twoslash;
	int		 in_h, hlevel, in_code, in_html, in_cell, img, quote;
	struct mdlist	 lists[MD_MAXLIST];
	int		 nlists;
	int		 li_pending;
	int		 nheadings;
	struct buf	*examples;
	const struct md_fragment *frag;	/* NULL for a whole document */
	int		 sigdone;
};

/*
 * Appends s without leftovers md4c did not resolve: "[text][ref.path]" (MkDocs
 * cross-references) and "[text](url)" (inside raw HTML) keep their text, "{#id}" and
 * "{: .class}" attribute lists are dropped.
 */
static int
markdown_tidy_inline(struct buf *t, const char *s)
{
	const char	*e, *r, *x, *end = s + strlen(s), *nx;
	const char	*close = NULL, *nl = NULL, *sp = NULL, *link = NULL, *ref = NULL;
	const char	*paren = NULL, *brk = NULL;

	while (*s != '\0') {
		if (*s == '{' && (s[1] == '#' || s[1] == ':') &&
		    (e = markdown_next(&close, s, end, "}", 1)) != NULL &&
		    ((nx = markdown_next(&nl, s, end, "\n", 1)) == NULL || nx > e) &&
		    (s[1] == ':' || (nx = markdown_next(&sp, s, end, " ", 1)) == NULL ||
		    nx > e)) {
			while (t->len > 0 && t->p[t->len - 1] == ' ')
				t->p[--t->len] = '\0';
			s = e + 1;
			continue;
		}
		/* "[text](url)" left in raw HTML blocks */
		if (*s == '[' && (e = markdown_next(&link, s, end, "](", 2)) != NULL &&
		    memchr(s + 1, '[', (size_t)(e - s - 1)) == NULL &&
		    memchr(s + 1, ']', (size_t)(e - s - 1)) == NULL &&
		    (r = markdown_next(&paren, e + 2, end, ")", 1)) != NULL) {
			for (x = e + 2; x < r && !isspace((unsigned char)*x); x++)
				;
			if (x == r) {
				if (buf_add(t, s + 1, (size_t)(e - s - 1)) == -1)
					return -1;
				s = r + 1;
				continue;
			}
		}
		if (*s == '[' && (e = markdown_next(&ref, s, end, "][", 2)) != NULL &&
		    memchr(s + 1, '[', (size_t)(e - s - 1)) == NULL &&
		    memchr(s + 1, ']', (size_t)(e - s - 1)) == NULL &&
		    (r = markdown_next(&brk, e + 2, end, "]", 1)) != NULL) {
			for (x = e + 2; x < r && !isspace((unsigned char)*x) && *x != '['; x++)
				;
			if (x == r) {
				if (buf_add(t, s + 1, (size_t)(e - s - 1)) == -1)
					return -1;
				s = r + 1;
				continue;
			}
		}
		if (buf_addc(t, *s++) == -1)
			return -1;
	}
	return 0;
}

/* Emits the open leaf block's text with its list/quote prefix. */
static int
markdown_flush(struct mdctx *c)
{
	struct buf	*t = &c->tmp;
	size_t		 i;
	int		 depth = c->nlists > MD_MAXLIST ? MD_MAXLIST : c->nlists;
	const char	*s = c->blk.p;

	if (c->blk.len == 0 || strspn(s, " \t\n") == c->blk.len) {
		buf_reset(&c->blk);
		return 0;
	}
	buf_reset(t);
	if (buf_add(t, "", 0) == -1)
		return -1;
	if (c->quote > 0 && buf_adds(t, "> ") == -1)
		return -1;
	for (i = 1; (int)i < depth; i++)
		if (buf_adds(t, "  ") == -1)
			return -1;
	if (depth > 0) {
		if (!c->li_pending) {
			if (buf_adds(t, "  ") == -1)
				return -1;
		} else if (c->lists[depth - 1].ordered) {
			if (buf_printf(t, "%u. ", c->lists[depth - 1].num) == -1)
				return -1;
		} else if (buf_adds(t, "- ") == -1)
			return -1;
	}
	c->li_pending = 0;
	while (*s == ' ' || *s == '\n')
		s++;
	if (markdown_tidy_inline(t, s) == -1)
		return -1;
	buf_reset(&c->blk);
	return doc_build_text(c->b, t->p, t->len, depth > 0 ? DOCB_ITEM : DOCB_PARA);
}

/* 1 when a fence "language" is a rustdoc attribute of a Rust code block. */
static int
markdown_rustdoc_attr(const char *lang)
{
	static const char *const attrs[] = {
		"ignore", "no_run", "should_panic", "compile_fail", "test_harness",
		"standalone_crate", "allow_fail", NULL
	};
	const char *const	*a;

	if (strncmp(lang, "edition", 7) == 0 || strncmp(lang, "ignore-", 7) == 0)
		return 1;
	for (a = attrs; *a != NULL; a++)
		if (strcmp(lang, *a) == 0)
			return 1;
	return 0;
}

/* Fragments: adds the signature code block once, at the end of the first section. */
static int
markdown_signature(struct mdctx *c)
{
	if (c->frag == NULL || c->sigdone || c->frag->sig == NULL)
		return 0;
	c->sigdone = 1;
	return doc_build_code(c->b, c->frag->siglang, c->frag->sig, strlen(c->frag->sig));
}

/* Fragments: the anchor of a heading, "prefix-slug" (malloc'd), or NULL on failure. */
static char *
markdown_frag_anchor(const char *prefix, const char *title)
{
	struct buf	 b;
	char		*slug;

	if ((slug = doc_slug(title)) == NULL)
		return NULL;
	buf_init(&b);
	if (buf_printf(&b, "%s-%s", prefix, slug) == -1) {
		free(slug);
		buf_release(&b);
		return NULL;
	}
	free(slug);
	return buf_detach(&b);
}

/* Normalises a fence language: "js{1,3}" -> "js", "{.python}" -> "python". */
static void
markdown_lang(struct mdctx *c, const MD_BLOCK_CODE_DETAIL *d)
{
	const char	*s = d->lang.text;
	size_t		 n = d->lang.size, i, k = 0;

	c->lang[0] = '\0';
	c->rustdoc = c->twoslash = 0;
	if (d->info.size > 0 && d->info.text != NULL &&
	    markdown_memcasestr(d->info.text, d->info.size, "twoslash") != NULL)
		c->twoslash = 1;
	for (i = 0; s != NULL && i < n && (s[i] == '{' || s[i] == '.'); i++)
		;
	for (; s != NULL && i < n && k + 1 < sizeof(c->lang); i++) {
		if (!isalnum((unsigned char)s[i]) && strchr("_+#-.", s[i]) == NULL)
			break;
		c->lang[k++] = (char)tolower((unsigned char)s[i]);
	}
	c->lang[k] = '\0';
	if (c->frag != NULL && c->frag->deflang != NULL && (c->lang[0] == '\0' ||
	    (strcmp(c->frag->deflang, "rust") == 0 && markdown_rustdoc_attr(c->lang))))
		snprintf(c->lang, sizeof(c->lang), "%s", c->frag->deflang);
	if (strcmp(c->lang, "rust") == 0 || strncmp(c->lang, "rust,", 5) == 0)
		c->rustdoc = 1;
}

/*
 * Drops what the reader never sees: rustdoc hidden lines ("# let x = 1;") and twoslash
 * directives ("// @noErrors", "// ^?", everything before "// ---cut---").
 */
static int
markdown_code_filter(struct mdctx *c, struct buf *out)
{
	char		*s = c->code.p, *l, *nl, *f;
	size_t		 n;

	if (s == NULL)
		return buf_add(out, "", 0);
	if (c->twoslash) {
		for (l = s; *l != '\0'; l = nl) {
			nl = strchr(l, '\n');
			nl = nl != NULL ? nl + 1 : l + strlen(l);
			for (f = l; *f == ' ' || *f == '\t'; f++)
				;
			if (strncmp(f, "// ---cut---", 12) == 0 ||
			    strncmp(f, "// ---cut-before---", 19) == 0)
				s = nl;
			if (strncmp(f, "// ---cut-after---", 18) == 0) {
				*l = '\0';
				break;
			}
		}
	}
	for (l = s; *l != '\0'; l = nl) {
		nl = strchr(l, '\n');
		nl = nl != NULL ? nl + 1 : l + strlen(l);
		n = (size_t)(nl - l);
		for (f = l; *f == ' ' || *f == '\t'; f++)
			;
		if (c->rustdoc && f[0] == '#' && (f[1] == ' ' || f[1] == '\n' ||
		    f[1] == '\0'))
			continue;
		if (c->rustdoc && f[0] == '#' && f[1] == '#') {
			/* "##" escapes a literal '#' line */
			if (buf_add(out, l, (size_t)(f - l)) == -1 ||
			    buf_add(out, f + 1, n - (size_t)(f - l) - 1) == -1)
				return -1;
			continue;
		}
		if (c->twoslash && (strncmp(f, "// @", 4) == 0 ||
		    strncmp(f, "// ^", 4) == 0 || strncmp(f, "// ---cut", 9) == 0))
			continue;
		if (buf_add(out, l, n) == -1)
			return -1;
	}
	return buf_add(out, "", 0);
}

/* Adds the front-matter examples to the open section. */
static int
markdown_examples(struct mdctx *c)
{
	int	 rc;

	if (c->examples == NULL || c->examples->len == 0)
		return 0;
	rc = doc_build_code(c->b, "sh", c->examples->p, c->examples->len);
	c->examples = NULL;
	return rc;
}

static int
markdown_enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	struct mdctx	*c = ud;

	if (doc_build_poll(c->b) == -1)
		return -1;
	switch (type) {
	case MD_BLOCK_DOC:
	case MD_BLOCK_THEAD:
	case MD_BLOCK_TBODY:
		return 0;
	case MD_BLOCK_TR:
		buf_reset(&c->row);
		return 0;
	case MD_BLOCK_TH:
	case MD_BLOCK_TD:
		buf_reset(&c->blk);
		c->in_cell = 1;
		return 0;
	default:
		break;
	}
	if (markdown_flush(c) == -1)
		return -1;
	switch (type) {
	case MD_BLOCK_QUOTE:
		c->quote++;
		break;
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
		if (c->nlists < MD_MAXLIST) {
			c->lists[c->nlists].ordered = type == MD_BLOCK_OL;
			c->lists[c->nlists].num = type == MD_BLOCK_OL ?
			    ((MD_BLOCK_OL_DETAIL *)detail)->start - 1 : 0;
		}
		c->nlists++;
		break;
	case MD_BLOCK_LI:
		if (c->nlists > 0 && c->nlists <= MD_MAXLIST)
			c->lists[c->nlists - 1].num++;
		c->li_pending = 1;
		break;
	case MD_BLOCK_H:
		c->in_h = 1;
		c->hlevel = (int)((MD_BLOCK_H_DETAIL *)detail)->level;
		break;
	case MD_BLOCK_CODE:
		c->in_code = 1;
		buf_reset(&c->code);
		markdown_lang(c, detail);
		break;
	case MD_BLOCK_HTML:
		c->in_html = 1;
		break;
	default:
		break;
	}
	return 0;
}

static int
markdown_leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	struct mdctx	*c = ud;
	char		*title;
	int		 rc;

	switch (type) {
	case MD_BLOCK_H:
		c->in_h = 0;
		if ((title = strdup(c->blk.p != NULL ? c->blk.p : "")) == NULL)
			return -1;
		buf_reset(&c->blk);
		doc_squeeze(title);
		markdown_strip_attrs(title);
		if (*title == '\0') {
			free(title);
			return 0;
		}
		rc = 0;
		if (c->examples != NULL && (c->nheadings == 1 ||
		    (c->nheadings == 0 && doc_build_size(c->b) > 0)))
			rc = markdown_examples(c);
		c->nheadings++;
		if (rc == 0 && c->frag != NULL) {
			char	*anchor = NULL;

			if (markdown_signature(c) == -1 || (c->frag->anchor_prefix != NULL &&
			    (anchor = markdown_frag_anchor(c->frag->anchor_prefix,
			    title)) == NULL))
				rc = -1;
			else
				rc = doc_build_heading_anchor(c->b, c->hlevel + 1 > 6 ? 6 :
				    c->hlevel + 1, title, anchor);
			free(anchor);
		} else if (rc == 0)
			rc = doc_build_heading(c->b, c->hlevel, title);
		free(title);
		return rc;
	case MD_BLOCK_CODE:
		c->in_code = 0;
		buf_reset(&c->tmp);
		if (markdown_code_filter(c, &c->tmp) == -1)
			return -1;
		return doc_build_code(c->b, c->lang, c->tmp.p, c->tmp.len);
	case MD_BLOCK_HTML:
		c->in_html = 0;
		buf_reset(&c->tmp);
		if (markdown_html_text(&c->tmp, c->blk.p != NULL ? c->blk.p : "",
		    c->blk.len) == -1)
			return -1;
		buf_reset(&c->blk);
		if (buf_add(&c->blk, c->tmp.p != NULL ? c->tmp.p : "", c->tmp.len) == -1)
			return -1;
		return markdown_flush(c);
	case MD_BLOCK_TH:
	case MD_BLOCK_TD:
		c->in_cell = 0;
		if (c->blk.p != NULL)
			doc_squeeze(c->blk.p);
		if (c->row.len > 0 && buf_adds(&c->row, " | ") == -1)
			return -1;
		if (buf_adds(&c->row, c->blk.p != NULL ? c->blk.p : "") == -1)
			return -1;
		buf_reset(&c->blk);
		return 0;
	case MD_BLOCK_TR:
		if (c->row.len == 0 || strspn(c->row.p, " |") == c->row.len)
			return 0;
		return doc_build_text(c->b, c->row.p, c->row.len, DOCB_ITEM);
	case MD_BLOCK_QUOTE:
		if (markdown_flush(c) == -1)
			return -1;
		c->quote--;
		return 0;
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
		if (markdown_flush(c) == -1)
			return -1;
		c->nlists--;
		c->li_pending = 0;
		if (c->nlists == 0)
			c->b->lastkind = DOCB_PARA;	/* next list: new paragraph */
		return 0;
	case MD_BLOCK_LI:
		if (markdown_flush(c) == -1)
			return -1;
		c->li_pending = 0;
		return 0;
	default:
		return markdown_flush(c);
	}
}

static int
markdown_enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
	struct mdctx	*c = ud;

	if (type == MD_SPAN_IMG)
		c->img++;
	else if (type == MD_SPAN_CODE && c->img == 0)
		return buf_addc(&c->blk, '`');
	return 0;
}

static int
markdown_leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
	struct mdctx	*c = ud;

	if (type == MD_SPAN_IMG)
		c->img--;
	else if (type == MD_SPAN_CODE && c->img == 0)
		return buf_addc(&c->blk, '`');
	return 0;
}

static int
markdown_text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *ud)
{
	struct mdctx	*c = ud;

	if (doc_build_poll(c->b) == -1)
		return -1;
	if (c->in_code)
		return buf_add(&c->code, s, n);
	if (c->img > 0)
		return 0;
	switch (type) {
	case MD_TEXT_NULLCHAR:
		return 0;
	case MD_TEXT_BR:
		return buf_addc(&c->blk, c->in_h || c->in_cell ? ' ' : '\n');
	case MD_TEXT_SOFTBR:
		return buf_addc(&c->blk, ' ');
	case MD_TEXT_ENTITY:
		if (markdown_entity(&c->blk, s, n) == 0)
			return buf_add(&c->blk, s, n);
		return 0;
	case MD_TEXT_HTML:
		if (c->in_html)
			return buf_add(&c->blk, s, n);
		return 0;
	default:
		return buf_add(&c->blk, s, n);
	}
}

/*
 * The columns of line s (n bytes) when it is a table's delimiter row ("|---|:-:|",
 * "--- | ---"), else 0.
 */
static size_t
markdown_delim_row(const char *s, size_t n)
{
	size_t	 i, dash = 0, pipes = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '-')
			dash++;
		else if (s[i] == '|')
			pipes++;
		else if (strchr(": \t", s[i]) == NULL)
			return 0;
	}
	return dash > 0 && pipes > 0 ? pipes + 1 : 0;
}

/*
 * Copies the pre-pass output in to out with a blank line after every MD_MAXRUN lines of
 * a run of non-blank lines outside code fences; a run that opens with a table's header
 * and delimiter rows gets both again after the blank line, so the table goes on. A table
 * of more than MD_MAXCOLS columns gets a blank line before its delimiter row (no table).
 */
static int
markdown_cap_runs(const struct buf *in, struct buf *out)
{
	const char	*p, *eol, *end = in->p + in->len, *f;
	const char	*hdr = NULL;		/* the run's first line */
	size_t		 run = 0, n, first, hdrlen = 0, k, flen = 0, cols;
	int		 fence = 0, table = 0;
	char		 fch = 0;

	if (buf_add(out, "", 0) == -1)
		return -1;
	for (p = in->p; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		n = (size_t)(eol - p);
		markdown_indent(p, n, &first);
		f = p + first;
		if (first == n) {
			run = 0;
		} else if (fence) {
			for (k = 0; k < n - first && f[k] == fch; k++)
				;
			if (k >= flen) {
				while (k < n - first && (f[k] == ' ' || f[k] == '\t'))
					k++;
				fence = k < n - first;
			}
		} else if ((k = markdown_fence(f, n - first)) > 0) {
			fence = 1;
			fch = *f;
			flen = k;
			run = 0;
		} else {
			if (run == 1) {
				cols = markdown_delim_row(f, n - first);
				table = cols > 0 && memchr(hdr, '|', (size_t)(p - hdr)) != NULL;
				hdrlen = (size_t)(eol - hdr);
				if (table && cols > MD_MAXCOLS) {
					if (buf_addc(out, '\n') == -1)
						return -1;
					run = 0;
				}
			}
			if (run == 0) {
				hdr = p;
				table = 0;
			}
			if (run >= MD_MAXRUN) {
				if (buf_addc(out, '\n') == -1 || (table &&
				    (buf_add(out, hdr, hdrlen) == -1 ||
				    buf_addc(out, '\n') == -1)))
					return -1;
				run = table ? 2 : 0;
			}
			run++;
		}
		if (buf_add(out, p, n) == -1 || (eol < end && buf_addc(out, '\n') == -1))
			return -1;
	}
	return 0;
}

/*
 * Runs the pre-pass and md4c over src (len bytes, clean input, no front matter) into the
 * section builder of c. mdx selects the MDX pre-pass; flags are added to md4c's.
 */
static int
markdown_run(struct mdctx *c, const char *src, size_t len, int mdx, unsigned flags)
{
	MD_PARSER	 parser;
	struct mdpre	 pp;
	struct buf	 capped;
	const char	*p, *eol, *end = src + len;
	int		 rc = -1;

	memset(&pp, 0, sizeof(pp));
	buf_init(&pp.out);
	buf_init(&pp.tag);
	buf_init(&capped);
	pp.mdx = mdx;
	if (buf_add(&pp.out, "", 0) == -1)
		goto nomem;
	for (p = src; p < end; p = eol + 1) {
		if (doc_build_poll(c->b) == -1)
			goto out;
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if (markdown_pre_line(&pp, p, (size_t)(eol - p)) == -1)
			goto nomem;
	}
	if (markdown_cap_runs(&pp.out, &capped) == -1)
		goto nomem;
	memset(&parser, 0, sizeof(parser));
	parser.abi_version = 0;
	parser.flags = MD_DIALECT_GITHUB | flags;
	parser.enter_block = markdown_enter_block;
	parser.leave_block = markdown_leave_block;
	parser.enter_span = markdown_enter_span;
	parser.leave_span = markdown_leave_span;
	parser.text = markdown_text;
	if (md_parse(capped.p, (MD_SIZE)capped.len, &parser, c) != 0) {
		if (!c->b->stopped)
			log_err("%s: markdown parser failed", __func__);
		goto out;
	}
	if (markdown_flush(c) == -1)
		goto out;
	rc = 0;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	buf_release(&pp.out);
	buf_release(&pp.tag);
	buf_release(&capped);
	return rc;
}

static void
markdown_ctx_init(struct mdctx *c, struct docb *b)
{
	memset(c, 0, sizeof(*c));
	c->b = b;
	buf_init(&c->blk);
	buf_init(&c->row);
	buf_init(&c->code);
	buf_init(&c->tmp);
}

static void
markdown_ctx_release(struct mdctx *c)
{
	buf_release(&c->blk);
	buf_release(&c->row);
	buf_release(&c->code);
	buf_release(&c->tmp);
}

int
markdown_parse_fragment(struct docb *b, const char *md, size_t len,
    const struct md_fragment *f)
{
	struct mdctx	 c;
	int		 rc = -1;

	markdown_ctx_init(&c, b);
	c.frag = f;
	if (doc_build_heading_anchor(b, 1, f->symbol, f->anchor) == -1)
		goto out;
	if (markdown_run(&c, md, len, 0, f->noindent ? MD_FLAG_NOINDENTEDCODEBLOCKS :
	    0) == -1)
		goto out;
	if (markdown_signature(&c) == -1)
		goto out;
	rc = 0;
out:
	markdown_ctx_release(&c);
	return rc;
}

int
markdown_parse(const char *path, const char *data, size_t len, struct doc *out)
{
	return markdown_parse_poll(path, data, len, out, NULL);
}

int
markdown_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	struct mdfront	 fm;
	struct mdctx	 c;
	struct docb	 b;
	const char	*ext;
	char		*src = NULL;
	size_t		 srclen, body;
	int		 rc = -1, err, binit = 0;

	memset(&fm, 0, sizeof(fm));
	buf_init(&fm.examples);
	markdown_ctx_init(&c, &b);
	memset(out, 0, sizeof(*out));

	if ((src = doc_clean_input(data, len, &srclen)) == NULL)
		goto out;
	body = markdown_front(src, srclen, &fm, &err);
	if (err) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	ext = path != NULL ? strrchr(path, '.') : NULL;
	if (doc_build_init(&b, out, poll) == -1)
		goto out;
	binit = 1;
	c.examples = fm.examples.len > 0 ? &fm.examples : NULL;
	if (markdown_run(&c, src + body, srclen - body, ext != NULL &&
	    strcasecmp(ext, ".mdx") == 0, 0) == -1) {
		if (!b.stopped)
			log_err("%s: %s: cannot parse", __func__, path);
		goto out;
	}
	if (markdown_examples(&c) == -1)
		goto out;
	binit = 0;
	rc = doc_build_finish(&b, fm.title, path);
out:
	if (binit)
		doc_build_release(&b);
	if (rc == -1)
		doc_release(out);
	free(src);
	free(fm.title);
	buf_release(&fm.examples);
	markdown_ctx_release(&c);
	return rc;
}
