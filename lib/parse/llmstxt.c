/*
 * llmstxt.c: the llms.txt structure parser and the splitter of expanded llms files
 * (llmstxt.h). Both read the data line by line (or tag by tag) once: linear in its size.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "parse/llmstxt.h"

/* Longest open tag of a block read for its attributes; a longer one is not a tag. */
#define LLMSTXT_MAX_TAG		4096

/* The state of fenced code blocks (``` or ~~~) while reading lines. */
struct llmstxt_fence {
	char	 ch;		/* the fence's character, 0 outside a fence */
	size_t	 n;		/* its length */
};

/* The next line at *pos (without its newline) in *p, *n; 0 at the end of the data. */
static int
llmstxt_line(const char *data, size_t len, size_t *pos, const char **p, size_t *n)
{
	const char	*nl;

	if (*pos >= len)
		return 0;
	*p = data + *pos;
	nl = memchr(*p, '\n', len - *pos);
	*n = nl != NULL ? (size_t)(nl - *p) : len - *pos;
	*pos += *n + (nl != NULL);
	if (*n > 0 && (*p)[*n - 1] == '\r')
		(*n)--;
	return 1;
}

/* Skips up to three spaces of indentation: the offset of the line's content. */
static size_t
llmstxt_indent(const char *p, size_t n)
{
	size_t	 i = 0;

	while (i < n && i < 3 && p[i] == ' ')
		i++;
	return i;
}

/*
 * 1 when the line opens, is inside or closes a fenced code block (the caller skips it),
 * else 0. A fence closes on a line of at least as many of its characters.
 */
static int
llmstxt_fenced(struct llmstxt_fence *f, const char *p, size_t n)
{
	size_t	 i = llmstxt_indent(p, n), k = 0;
	char	 c = i < n ? p[i] : 0;

	if (c == '`' || c == '~')
		while (i + k < n && p[i + k] == c)
			k++;
	if (f->ch != 0) {
		if (c == f->ch && k >= f->n)
			f->ch = 0;
		return 1;
	}
	if (k >= 3) {
		f->ch = c;
		f->n = k;
		return 1;
	}
	return 0;
}

/*
 * A copy of p[0..n) trimmed of white space and cut to LLMSTXT_MAX_FIELD bytes at a
 * character boundary; NULL on no memory (*nomem set) or when nothing is left.
 */
static char *
llmstxt_dup(const char *p, size_t n, int *nomem)
{
	char	*s;

	while (n > 0 && isspace((unsigned char)*p)) {
		p++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	if (n > LLMSTXT_MAX_FIELD) {
		n = LLMSTXT_MAX_FIELD;
		while (n > 0 && ((unsigned char)p[n] & 0xc0) == 0x80)
			n--;
	}
	if (n == 0)
		return NULL;
	if ((s = strndup(p, n)) == NULL)
		*nomem = 1;
	return s;
}

/* The level of an ATX heading line (1..6, "#" then a blank or the end), else 0. */
static int
llmstxt_heading(const char *p, size_t n, size_t *text)
{
	size_t	 i = llmstxt_indent(p, n), k = 0;

	while (i + k < n && p[i + k] == '#' && k < 7)
		k++;
	if (k == 0 || k > 6 || (i + k < n && p[i + k] != ' ' && p[i + k] != '\t'))
		return 0;
	*text = i + k;
	return (int)k;
}

/*
 * Reads "[name](url)" at p[*i..n): the name's and URL's ranges, *i after the ")".
 * 0 when the text is not such a link.
 */
static int
llmstxt_link_at(const char *p, size_t n, size_t *i, size_t *name, size_t *namelen,
    size_t *url, size_t *urllen)
{
	size_t	 j = *i + 1, depth = 1;

	for (; j < n && depth > 0; j++)
		if (p[j] == '\\')
			j++;
		else if (p[j] == '[')
			depth++;
		else if (p[j] == ']')
			depth--;
	if (depth != 0 || j >= n || p[j] != '(')
		return 0;
	*name = *i + 1;
	*namelen = j - 1 - *name;
	for (j++; j < n && (p[j] == ' ' || p[j] == '\t'); j++)
		;
	*url = j;
	if (j < n && p[j] == '<') {
		*url = ++j;
		while (j < n && p[j] != '>')
			j++;
		*urllen = j - *url;
		j += j < n;
	} else {
		for (depth = 0; j < n && p[j] != ' ' && p[j] != '\t'; j++)
			if (p[j] == '(')
				depth++;
			else if (p[j] == ')' && depth-- == 0)
				break;
		*urllen = j - *url;
	}
	while (j < n && p[j] != ')')	/* an optional "title" */
		j++;
	if (j >= n || *urllen == 0)
		return 0;
	*i = j + 1;
	return 1;
}

/* A list item "- [name](url): notes" into o's links: 0, or -1 out of memory. */
static int
llmstxt_item(struct llmstxt *o, const char *p, size_t n, const char *section,
    int optional)
{
	struct llmstxt_link *l, *v;
	size_t	 i = llmstxt_indent(p, n), name, namelen, url, urllen;
	int	 nomem = 0;

	if (i + 2 >= n || strchr("-*+", p[i]) == NULL || (p[i + 1] != ' ' &&
	    p[i + 1] != '\t'))
		return 0;
	for (i += 2; i < n && (p[i] == ' ' || p[i] == '\t'); i++)
		;
	if (i >= n || p[i] != '[' ||
	    !llmstxt_link_at(p, n, &i, &name, &namelen, &url, &urllen))
		return 0;
	if (o->nlinks >= LLMSTXT_MAX_LINKS) {
		o->dropped++;
		return 0;
	}
	if (o->nlinks == 0 || (o->nlinks >= 8 && (o->nlinks & (o->nlinks - 1)) == 0)) {
		if ((v = reallocarray(o->links, o->nlinks ? o->nlinks * 2 : 8,
		    sizeof(*v))) == NULL)
			return -1;
		o->links = v;
	}
	l = &o->links[o->nlinks];
	memset(l, 0, sizeof(*l));
	l->optional = optional;
	l->name = llmstxt_dup(p + name, namelen, &nomem);
	l->url = llmstxt_dup(p + url, urllen, &nomem);
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i < n && p[i] == ':')
		l->notes = llmstxt_dup(p + i + 1, n - i - 1, &nomem);
	if (section != NULL && (l->section = strdup(section)) == NULL)
		nomem = 1;
	o->nlinks++;
	if (l->url == NULL && !nomem) {		/* "[x](  )": not a link */
		o->nlinks--;
		free(l->name);
		free(l->notes);
		free(l->section);
	}
	return nomem ? -1 : 0;
}

/* Appends a blockquote line's text to the summary being read. */
static int
llmstxt_quote(struct buf *sum, const char *p, size_t n)
{
	size_t	 i = llmstxt_indent(p, n) + 1;

	if (i < n && p[i] == ' ')
		i++;
	if (sum->len >= LLMSTXT_MAX_FIELD)
		return 0;
	if (sum->len > 0 && buf_addc(sum, ' ') == -1)
		return -1;
	return buf_add(sum, p + i, n - i);
}

int
llmstxt_parse(const char *data, size_t len, struct llmstxt *o)
{
	struct llmstxt_fence f = { 0, 0 };
	struct buf	 sum;
	const char	*p;
	char		*section = NULL;
	size_t		 pos = 0, n, text;
	int		 level, optional = 0, quote = 0, nomem = 0, rc = -1;

	memset(o, 0, sizeof(*o));
	buf_init(&sum);
	while (llmstxt_line(data, len, &pos, &p, &n)) {
		if (llmstxt_fenced(&f, p, n))
			continue;
		level = llmstxt_heading(p, n, &text);
		if (level == 1 && o->title == NULL && o->nsections == 0) {
			if ((o->title = llmstxt_dup(p + text, n - text, &nomem)) == NULL &&
			    nomem)
				goto out;
		} else if (level == 2) {
			free(section);
			section = llmstxt_dup(p + text, n - text, &nomem);
			if (nomem)
				goto out;
			optional = section != NULL && strcasecmp(section, "Optional") == 0;
			o->nsections++;
		} else if (quote >= 0 && o->nsections == 0 &&
		    llmstxt_indent(p, n) < n && p[llmstxt_indent(p, n)] == '>') {
			quote = 1;
			if (llmstxt_quote(&sum, p, n) == -1)
				goto out;
		} else if (llmstxt_item(o, p, n, section, optional) == -1)
			goto out;
		if (quote == 1 && (llmstxt_indent(p, n) >= n ||
		    p[llmstxt_indent(p, n)] != '>'))
			quote = -1;	/* the summary is the first blockquote */
	}
	if (sum.len > 0 && (o->summary = llmstxt_dup(sum.p, sum.len, &nomem)) == NULL &&
	    nomem)
		goto out;
	rc = 0;
out:
	free(section);
	buf_release(&sum);
	if (rc == -1)
		llmstxt_release(o);
	return rc;
}

void
llmstxt_release(struct llmstxt *o)
{
	size_t	 i;

	for (i = 0; i < o->nlinks; i++) {
		free(o->links[i].name);
		free(o->links[i].url);
		free(o->links[i].notes);
		free(o->links[i].section);
	}
	free(o->links);
	free(o->title);
	free(o->summary);
	memset(o, 0, sizeof(*o));
}

/* ------------------------------------------------------------------ splitting */

/* A new part at the end of o->v, or NULL (o->dropped counted, or *nomem set). */
static struct llmstxt_part *
llmstxt_part_new(struct llmstxt_parts *o, int *nomem)
{
	struct llmstxt_part *v;

	if (o->n >= LLMSTXT_MAX_PARTS) {
		o->dropped++;
		return NULL;
	}
	if (o->n == 0 || (o->n >= 8 && (o->n & (o->n - 1)) == 0)) {
		if ((v = reallocarray(o->v, o->n ? o->n * 2 : 8, sizeof(*v))) == NULL) {
			*nomem = 1;
			return NULL;
		}
		o->v = v;
	}
	v = &o->v[o->n++];
	memset(v, 0, sizeof(*v));
	return v;
}

/* Decodes the XML entities &amp; &lt; &gt; &quot; &#39; &apos; of s in place. */
static void
llmstxt_unescape(char *s)
{
	static const char *const ent[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;",
	    "&apos;" };
	static const char	 ch[] = "&<>\"''";
	char	*w = s;
	size_t	 i;

	while (*s != '\0') {
		for (i = 0; i < 6; i++)
			if (strncmp(s, ent[i], strlen(ent[i])) == 0)
				break;
		if (i < 6) {
			*w++ = ch[i];
			s += strlen(ent[i]);
		} else
			*w++ = *s++;
	}
	*w = '\0';
}

/* The value of attribute name in the tag t[0..n) (quoted "..." or '...'), or NULL. */
static char *
llmstxt_attr(const char *t, size_t n, const char *name, int *nomem)
{
	size_t	 k = strlen(name), i;
	const char *q;
	char	*v;

	for (i = 1; i + k + 2 < n; i++) {
		if (!isspace((unsigned char)t[i - 1]) || strncasecmp(t + i, name, k) != 0 ||
		    t[i + k] != '=' || (t[i + k + 1] != '"' && t[i + k + 1] != '\''))
			continue;
		if ((q = memchr(t + i + k + 2, t[i + k + 1], n - i - k - 2)) == NULL)
			return NULL;
		if ((v = llmstxt_dup(t + i + k + 2, (size_t)(q - t) - i - k - 2,
		    nomem)) != NULL)
			llmstxt_unescape(v);
		return v;
	}
	return NULL;
}

/*
 * The text between <tag> and </tag> found first in p[0..n), in *off and *len; 0 when there
 * is none.
 */
static int
llmstxt_element(const char *p, size_t n, const char *tag, size_t *off, size_t *len)
{
	char	 open[32], close[32];
	const char *a, *b;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	if ((a = memmem(p, n, open, strlen(open))) == NULL)
		return 0;
	a += strlen(open);
	if ((b = memmem(a, n - (size_t)(a - p), close, strlen(close))) == NULL)
		b = p + n;
	*off = (size_t)(a - p);
	*len = (size_t)(b - a);
	return 1;
}

/*
 * A finished <document> block p[0..n) (from the end of its open tag): its own address
 * in <source>, and its content in <document_content> when it has one.
 */
static void
llmstxt_document(struct llmstxt_part *pt, const char *p, int *nomem)
{
	size_t	 off, len, soff, slen;

	if (llmstxt_element(p, pt->len, "document_content", &off, &len)) {
		if (pt->url == NULL && llmstxt_element(p, off, "source", &soff, &slen))
			pt->url = llmstxt_dup(p + soff, slen, nomem);
		pt->off += off;
		pt->len = len;
	} else if (pt->url == NULL && llmstxt_element(p, pt->len, "source", &off, &len))
		pt->url = llmstxt_dup(p + off, len, nomem);
	if (pt->url != NULL)
		llmstxt_unescape(pt->url);
}

/* Which block tag is at p[0..n): 1 <doc, 2 <document (open), -1/-2 closing, else 0. */
static int
llmstxt_tag(const char *p, size_t n)
{
	int	 close = n > 1 && p[1] == '/';
	size_t	 i = close ? 2 : 1;

	if (n >= i + 9 && strncmp(p + i, "document", 8) == 0 &&
	    (p[i + 8] == '>' || (!close && isspace((unsigned char)p[i + 8]))))
		return close ? -2 : 2;
	if (n >= i + 4 && strncmp(p + i, "doc", 3) == 0 &&
	    (p[i + 3] == '>' || (!close && isspace((unsigned char)p[i + 3]))))
		return close ? -1 : 1;
	return 0;
}

/* Splits data at its <doc> or <document> blocks into o (o->n 0 when it has none). */
static int
llmstxt_split_blocks(const char *data, size_t len, struct llmstxt_parts *o)
{
	struct llmstxt_part *pt = NULL;
	const char	*p = data, *end = data + len, *gt;
	size_t		 depth = 0;
	int		 kind = 0, t, nomem = 0;

	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		t = llmstxt_tag(p, (size_t)(end - p));
		if (t > 0 && (depth == 0 || t == kind)) {
			gt = memchr(p, '>', (size_t)(end - p) < LLMSTXT_MAX_TAG ?
			    (size_t)(end - p) : LLMSTXT_MAX_TAG);
			if (gt == NULL) {
				p++;
				continue;
			}
			if (depth++ == 0) {
				kind = t;
				if ((pt = llmstxt_part_new(o, &nomem)) != NULL) {
					pt->off = (size_t)(gt + 1 - data);
					pt->title = llmstxt_attr(p, (size_t)(gt - p), "title",
					    &nomem);
					if ((pt->url = llmstxt_attr(p, (size_t)(gt - p), "url",
					    &nomem)) == NULL)
						pt->url = llmstxt_attr(p, (size_t)(gt - p),
						    "href", &nomem);
					if (pt->url == NULL)
						pt->url = llmstxt_attr(p, (size_t)(gt - p),
						    "source", &nomem);
				}
			}
			p = gt + 1;
			continue;
		}
		if (t == -kind && depth > 0 && --depth == 0 && pt != NULL) {
			pt->len = (size_t)(p - data) - pt->off;
			if (kind == 2)
				llmstxt_document(pt, data + pt->off, &nomem);
			pt = NULL;
		}
		if (nomem)
			return -1;
		p++;
	}
	if (depth > 0 && pt != NULL) {		/* unclosed: to the end */
		pt->len = len - pt->off;
		if (kind == 2)
			llmstxt_document(pt, data + pt->off, &nomem);
	}
	return nomem ? -1 : 0;
}

/* The "Source: URL" line that follows an H1 at pos, or NULL. */
static char *
llmstxt_source_line(const char *data, size_t len, size_t pos, int *nomem)
{
	const char	*p;
	size_t		 n;

	while (llmstxt_line(data, len, &pos, &p, &n)) {
		while (n > 0 && isspace((unsigned char)*p)) {
			p++;
			n--;
		}
		if (n == 0)
			continue;
		if (n > 7 && strncasecmp(p, "Source:", 7) == 0)
			return llmstxt_dup(p + 7, n - 7, nomem);
		return NULL;
	}
	return NULL;
}

/* Splits data at its H1 headings into o when it has two or more. */
static int
llmstxt_split_headings(const char *data, size_t len, struct llmstxt_parts *o)
{
	struct llmstxt_fence f = { 0, 0 };
	struct llmstxt_part *pt = NULL;
	const char	*p;
	size_t		 pos = 0, start, n, text, nh1 = 0;
	int		 nomem = 0, h1;

	while (llmstxt_line(data, len, &pos, &p, &n))
		if (!llmstxt_fenced(&f, p, n) && llmstxt_heading(p, n, &text) == 1)
			nh1++;
	if (nh1 < 2)
		return 0;
	f.ch = 0;
	pos = 0;
	while (start = pos, llmstxt_line(data, len, &pos, &p, &n)) {
		h1 = !llmstxt_fenced(&f, p, n) && llmstxt_heading(p, n, &text) == 1;
		if (h1 || (pt == NULL && n > 0)) {	/* an H1, or text before the first */
			if ((pt = llmstxt_part_new(o, &nomem)) == NULL)
				return nomem ? -1 : 0;
			pt->off = start;
			if (h1) {
				pt->title = llmstxt_dup(p + text, n - text, &nomem);
				pt->url = llmstxt_source_line(data, len, pos, &nomem);
			}
			if (nomem)
				return -1;
		}
		if (pt != NULL)
			pt->len = pos - pt->off;
	}
	return 0;
}

int
llmstxt_split(const char *data, size_t len, struct llmstxt_parts *o)
{
	memset(o, 0, sizeof(*o));
	if (llmstxt_split_blocks(data, len, o) == -1)
		goto nomem;
	if (o->n > 0) {
		o->form = LLMSTXT_BLOCKS;
		return 0;
	}
	if (llmstxt_split_headings(data, len, o) == -1)
		goto nomem;
	o->form = o->n > 0 ? LLMSTXT_HEADINGS : LLMSTXT_WHOLE;
	return 0;
nomem:
	llmstxt_parts_release(o);
	return -1;
}

void
llmstxt_parts_release(struct llmstxt_parts *o)
{
	size_t	 i;

	for (i = 0; i < o->n; i++) {
		free(o->v[i].title);
		free(o->v[i].url);
	}
	free(o->v);
	memset(o, 0, sizeof(*o));
}

int
llmstxt_is_llms_path(const char *path)
{
	const char	*base = strrchr(path, '/');
	size_t		 n;

	base = base != NULL ? base + 1 : path;
	n = strlen(base);
	return n >= 8 && strncasecmp(base, "llms", 4) == 0 &&
	    strcasecmp(base + n - 4, ".txt") == 0;
}
