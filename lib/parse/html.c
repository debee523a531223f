/*
 * html.c: web pages to sections with libxml2's HTML parser, and the element walker that
 * storage.c shares (html.h).
 *
 * A page is parsed without network or file access. Its main content is the best content
 * container (the table html_rank: the containers of the common documentation themes
 * first, then [role=main], main, article, and body as the fallback). Inside it, page
 * chrome is dropped (navigation, tables of contents, sidebars, search boxes, "edit this
 * page" links, heading permalinks, line-number columns, hidden elements, scripts and
 * forms). Headings become sections (the anchor is the heading's id, else the id of its
 * enclosing section or of an empty anchor just before it, else the slug of its text),
 * paragraphs, list items, table rows and quotes become prose blocks the way markdown.c
 * writes them, and pre elements become code blocks with the language named by a class of
 * the pre, its code or a wrapper. Links are kept as their text. The walk is iterative:
 * nesting depth costs no stack.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "base/buf.h"
#include "base/log.h"
#include "parse/doc.h"
#include "parse/html.h"
#include "parse/parse.h"

/* The bytes of a language name taken from a class. */
#define HTML_LANG_MAX	32
/* Link text this short or shorter is compared with the chrome phrases. */
#define HTML_PHRASE_MAX	40
/*
 * Attributes of one tag that reach the HTML parser: libxml2 checks each attribute of a
 * tag against the ones before it (time quadratic in their number).
 */
#define HTML_MAX_ATTRS	128
/* Ancestors of a pre whose classes may name its language. */
#define HTML_LANG_UP	6

enum html_kind {
	HK_INLINE, HK_DROP, HK_BLOCK, HK_SECTION, HK_HEADER, HK_HEADING, HK_PRE, HK_BR,
	HK_UL, HK_OL, HK_LI, HK_DT, HK_DD, HK_TABLE, HK_TR, HK_CELL, HK_QUOTE, HK_CODE,
	HK_A, HK_DL, HK_MATH
};

/* Element names (sorted: bsearch) and what they are; others are inline. */
static const struct html_tag {
	const char	*name;
	enum html_kind	 kind;
} html_tags[] = {
	{ "a", HK_A }, { "address", HK_BLOCK }, { "applet", HK_DROP },
	{ "area", HK_DROP }, { "article", HK_SECTION }, { "aside", HK_DROP },
	{ "audio", HK_DROP }, { "base", HK_DROP }, { "blockquote", HK_QUOTE },
	{ "body", HK_BLOCK }, { "br", HK_BR }, { "button", HK_DROP },
	{ "canvas", HK_DROP }, { "caption", HK_BLOCK }, { "center", HK_BLOCK },
	{ "code", HK_CODE }, { "datalist", HK_DROP }, { "dd", HK_DD },
	{ "details", HK_BLOCK }, { "dialog", HK_DROP }, { "dir", HK_UL },
	{ "div", HK_SECTION }, { "dl", HK_DL }, { "dt", HK_DT }, { "embed", HK_DROP },
	{ "fieldset", HK_BLOCK }, { "figcaption", HK_BLOCK }, { "figure", HK_BLOCK },
	{ "footer", HK_DROP }, { "form", HK_DROP }, { "frame", HK_DROP },
	{ "frameset", HK_DROP }, { "h1", HK_HEADING }, { "h2", HK_HEADING },
	{ "h3", HK_HEADING }, { "h4", HK_HEADING }, { "h5", HK_HEADING },
	{ "h6", HK_HEADING }, { "head", HK_DROP }, { "header", HK_HEADER },
	{ "hgroup", HK_BLOCK }, { "hr", HK_BLOCK }, { "html", HK_BLOCK },
	{ "iframe", HK_DROP }, { "img", HK_DROP }, { "input", HK_DROP },
	{ "legend", HK_BLOCK }, { "li", HK_LI }, { "link", HK_DROP },
	{ "listing", HK_PRE }, { "main", HK_SECTION }, { "map", HK_DROP },
	{ "math", HK_MATH },
	{ "menu", HK_UL }, { "meta", HK_DROP }, { "nav", HK_DROP },
	{ "noscript", HK_DROP }, { "object", HK_DROP }, { "ol", HK_OL },
	{ "option", HK_DROP }, { "p", HK_BLOCK }, { "picture", HK_DROP },
	{ "plaintext", HK_PRE }, { "pre", HK_PRE },
	{ "rustdoc-breadcrumbs", HK_DROP }, { "rustdoc-search", HK_DROP },
	{ "rustdoc-toolbar", HK_DROP }, { "script", HK_DROP },
	{ "section", HK_SECTION }, { "select", HK_DROP }, { "source", HK_DROP },
	{ "style", HK_DROP }, { "summary", HK_BLOCK }, { "svg", HK_DROP },
	{ "table", HK_TABLE }, { "td", HK_CELL }, { "template", HK_DROP },
	{ "textarea", HK_DROP }, { "th", HK_CELL }, { "title", HK_DROP },
	{ "tr", HK_TR }, { "tt", HK_CODE }, { "ul", HK_UL }, { "video", HK_DROP },
	{ "xmp", HK_PRE },
};

/*
 * Class names (compared without case) of page chrome: navigation, tables of contents,
 * sidebars, breadcrumbs, heading permalinks, edit and source links, copy buttons, line
 * numbers, text for screen readers only. From Sphinx (and its Read the Docs, Furo and
 * PyData themes), MkDocs and Material, Docusaurus, VitePress, Starlight, rustdoc, Doxygen.
 */
static const char *const html_chrome[] = {
	"anchor-link", "anchorjs-link", "bd-sidebar", "bd-sidebar-primary",
	"bd-sidebar-secondary", "bd-toc", "breadcrumb", "breadcrumbs", "copybtn",
	"edit-link", "edit-this-page", "hash-link", "header-anchor", "headerlink",
	"hideme", "line-numbers-rows", "line-numbers-wrapper", "lineno", "linenos",
	"md-clipboard",
	"out-of-band", "rustdoc-breadcrumbs", "sub-heading",
	"md-content__button", "md-footer", "md-header", "md-nav", "md-search",
	"md-sidebar", "md-source-file", "md-top", "nav", "nav-panel", "navbar", "navheader",
	"navfooter", "pagination-nav",
	"prev-next", "related", "rightside", "rst-footer-buttons", "screen-reader-text",
	"searchbox", "sidebar", "skip-link", "sl-anchor-link", "sphinxsidebar",
	"sr-only", "srclink", "src", "theme-doc-breadcrumbs", "theme-doc-footer",
	"theme-doc-toc-desktop", "theme-doc-toc-mobile", "theme-edit-this-page", "toc",
	"table-of-contents", "toctree-wrapper", "viewcode-back", "viewcode-link",
	"visually-hidden", "vpdocfooter", "wy-breadcrumbs", "wy-nav-side", NULL
};

/* Ids of page chrome. */
static const char *const html_chrome_ids[] = {
	"banner", "breadcrumbs", "navbar", "searchbox", "sidebar", "toc",
	"table-of-contents", "table_of_contents", NULL
};

/* ARIA roles of page chrome. */
static const char *const html_chrome_roles[] = {
	"banner", "complementary", "contentinfo", "navigation", "search", "toolbar", NULL
};

/* Whole link texts (compared squeezed, without case) of edit and source links. */
static const char *const html_phrases[] = {
	"edit this page", "edit on github", "edit on gitlab", "edit on bitbucket",
	"view page source", "view source", "[source]", "show source", "improve this page",
	"suggest an edit", "edit page", NULL
};

/* Whole texts of a heading's permalink or a footnote's back link (a link to "#..."). */
static const char *const html_permalinks[] = {
	"\xc2\xb6", "\xc2\xa7", "#", "\xf0\x9f\x94\x97", "permalink",
	"\xe2\x86\xa9", "\xe2\x86\xa9\xef\xb8\x8e", NULL
};

/* ---------------------------------------------------------------- attributes */

const char *
html_attr(xmlNode *n, const char *name)
{
	xmlAttr	*a;

	for (a = n->properties; a != NULL; a = a->next)
		if (a->ns == NULL && strcmp((const char *)a->name, name) == 0)
			return a->children != NULL && a->children->content != NULL ?
			    (const char *)a->children->content : "";
	return NULL;
}

int
html_is(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && (n->ns == NULL || n->ns->prefix == NULL) &&
	    strcmp((const char *)n->name, name) == 0;
}

/* 1 when the word s[0..n) is in list (without case). */
static int
html_word_in(const char *s, size_t n, const char *const *list)
{
	const char *const	*l;

	for (l = list; n > 0 && *l != NULL; l++)
		if (strlen(*l) == n && strncasecmp(s, *l, n) == 0)
			return 1;
	return 0;
}

/* 1 when the white-space separated list s holds a word of list (without case). */
static int
html_list_has(const char *s, const char *const *list)
{
	size_t	 n;

	while (s != NULL && *s != '\0') {
		s += strspn(s, " \t\n\r\f");
		n = strcspn(s, " \t\n\r\f");
		if (html_word_in(s, n, list))
			return 1;
		s += n;
	}
	return 0;
}

/* 1 when the class attribute of n holds the word w (without case). */
static int
html_has_class(xmlNode *n, const char *w)
{
	const char *const	 list[] = { w, NULL };

	return html_list_has(html_attr(n, "class"), list);
}

static int
html_tag_cmp(const void *k, const void *e)
{
	return strcmp(k, ((const struct html_tag *)e)->name);
}

/* Classes of an aside that is an admonition (Starlight, some Sphinx themes): content. */
static const char *const html_aside_content[] = {
	"admonition", "starlight-aside", "callout", NULL
};

static enum html_kind
html_kind_of(xmlNode *n)
{
	const struct html_tag	*t;

	if (n->ns != NULL && n->ns->prefix != NULL)
		return HK_INLINE;
	t = bsearch(n->name, html_tags, sizeof(html_tags) / sizeof(html_tags[0]),
	    sizeof(html_tags[0]), html_tag_cmp);
	if (t == NULL)
		return HK_INLINE;
	if (t->kind == HK_DROP && strcmp(t->name, "aside") == 0 &&
	    html_list_has(html_attr(n, "class"), html_aside_content))
		return HK_BLOCK;
	return t->kind;
}

/* Classes of an admonition's title (MkDocs, Sphinx, VitePress, Starlight). */
static const char *const html_admon_titles[] = {
	"admonition-title", "custom-block-title", "starlight-aside__title", NULL
};

/* 1 when style holds "display: none" (any spacing). */
static int
html_style_hidden(const char *s)
{
	const char	*p;

	for (p = s; p != NULL && (p = strstr(p, "display")) != NULL; p += 7) {
		const char *q = p + 7;

		q += strspn(q, " \t");
		if (*q != ':')
			continue;
		q++;
		q += strspn(q, " \t");
		if (strncasecmp(q, "none", 4) == 0)
			return 1;
	}
	return 0;
}

/* 1 for docutils' table of contents (class "contents topic" or "contents local"). */
static int
html_is_toc(xmlNode *n)
{
	static const char *const toc[] = { "topic", "local", NULL };

	return html_has_class(n, "contents") && html_list_has(html_attr(n, "class"), toc);
}

/* 1 when the element is page chrome or hidden: dropped with all it holds. */
static int
html_is_chrome(xmlNode *n)
{
	const char	*v;

	if (html_attr(n, "hidden") != NULL)
		return 1;
	if ((v = html_attr(n, "aria-hidden")) != NULL && strcasecmp(v, "true") == 0)
		return 1;
	if ((v = html_attr(n, "role")) != NULL && html_list_has(v, html_chrome_roles))
		return 1;
	if (html_style_hidden(html_attr(n, "style")))
		return 1;
	if (html_list_has(html_attr(n, "class"), html_chrome) || html_is_toc(n))
		return 1;
	return html_list_has(html_attr(n, "id"), html_chrome_ids);
}

/* ---------------------------------------------------------------- traversal */

typedef int (*html_visit)(void *, xmlNode *);

/*
 * Visits top and its descendants in document order without recursion: enter on the way
 * down (HTML_DESCEND, HTML_SKIP or -1), leave on the way up for the nodes whose children
 * were walked (every node enter returned HTML_DESCEND for). 0, or -1 when a visit failed.
 */
static int
html_traverse(xmlNode *top, html_visit enter, html_visit leave, void *arg)
{
	xmlNode	*n = top;
	int	 r;

	for (;;) {
		if ((r = enter(arg, n)) == -1)
			return -1;
		if (r == HTML_DESCEND && n->children != NULL) {
			n = n->children;
			continue;
		}
		if (r == HTML_DESCEND && leave(arg, n) == -1)
			return -1;
		for (;;) {
			if (n == top)
				return 0;
			if (n->next != NULL) {
				n = n->next;
				break;
			}
			n = n->parent;
			if (n == NULL || leave(arg, n) == -1)
				return n == NULL ? 0 : -1;
		}
	}
}

/* ---------------------------------------------------------------- text */

void
html_init(struct html_walker *w, struct docb *b, const struct html_ext *ext)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	w->ext = ext;
	buf_init(&w->inl);
	buf_init(&w->code);
	buf_init(&w->lab);
}

void
html_release(struct html_walker *w)
{
	buf_release(&w->inl);
	buf_release(&w->code);
	buf_release(&w->lab);
	free(w->hid);
	free(w->pendid);
	free(w->first);
	memset(w, 0, sizeof(*w));
}

/* Length of the UTF-8 no-break space at s, 0 when there is none. */
static size_t
html_nbsp(const char *s)
{
	return (unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xa0 ? 2 : 0;
}

/* 1 when the open block ends in white space (or holds nothing beyond its marker). */
static int
html_at_space(const struct html_walker *w)
{
	char	 c;

	if (w->inl.len <= w->base)
		return 1;
	c = w->inl.p[w->inl.len - 1];
	return c == ' ' || c == '\n';
}

int
html_text(struct html_walker *w, const char *s, size_t n)
{
	const char	*end = s + n, *run;
	size_t		 k;

	while (s < end) {
		if (isspace((unsigned char)*s) || (k = html_nbsp(s)) > 0) {
			s += isspace((unsigned char)*s) ? 1 : 2;
			if (!html_at_space(w) && buf_addc(&w->inl, ' ') == -1)
				return -1;
			continue;
		}
		for (run = s; s < end && !isspace((unsigned char)*s) && html_nbsp(s) == 0; )
			s++;
		if (w->label != NULL) {
			if (buf_adds(&w->inl, w->label) == -1)
				return -1;
			w->label = NULL;
		}
		if (buf_add(&w->inl, run, (size_t)(s - run)) == -1)
			return -1;
	}
	return 0;
}

/* Drops the trailing white space of the open block. */
static void
html_trim(struct html_walker *w)
{
	while (w->inl.len > w->base && (w->inl.p[w->inl.len - 1] == ' ' ||
	    w->inl.p[w->inl.len - 1] == '\n'))
		w->inl.p[--w->inl.len] = '\0';
}

/* Indentation of the open list levels after the first (two spaces each). */
static int
html_indent(struct buf *b, int levels)
{
	int	 i;

	for (i = 1; i < levels && i < HTML_MAXLIST; i++)
		if (buf_adds(b, "  ") == -1)
			return -1;
	return 0;
}

/* 1 inside a list, a table row or a definition list (not an API description). */
static int
html_in_items(const struct html_walker *w)
{
	return w->nlists > 0 || w->row > 0 || w->dl > w->sigdd;
}

int
html_flush(struct html_walker *w)
{
	struct buf	 t;
	int		 rc = -1;

	if (w->heading > 0 || w->cell > 0)
		return html_at_space(w) ? 0 : buf_addc(&w->inl, ' ');
	html_trim(w);
	if (w->inl.len <= w->base)
		return 0;
	buf_init(&t);
	if (buf_add(&t, "", 0) == -1 || (w->quote > 0 && buf_adds(&t, "> ") == -1))
		goto out;
	if (w->base == 0 && w->nlists > 0 && (html_indent(&t, w->nlists + 1) == -1))
		goto out;
	if (buf_add(&t, w->inl.p, w->inl.len) == -1)
		goto out;
	if (doc_build_text(w->b, t.p, t.len, html_in_items(w) ? DOCB_ITEM :
	    DOCB_PARA) == -1)
		goto out;
	buf_reset(&w->inl);
	w->base = 0;
	free(w->pendid);
	w->pendid = NULL;
	rc = 0;
out:
	if (rc == -1 && !w->b->stopped)
		log_err("%s: out of memory", __func__);
	buf_release(&t);
	return rc;
}

int
html_code(struct html_walker *w, const char *lang, const char *title, const char *s,
    size_t n)
{
	if (html_flush(w) == -1)
		return -1;
	if (title != NULL && *title != '\0' && (html_text(w, title, strlen(title)) == -1 ||
	    html_flush(w) == -1))
		return -1;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0)
		return 0;
	free(w->pendid);
	w->pendid = NULL;
	return doc_build_code(w->b, lang, s, n);
}

/* ---------------------------------------------------------------- code blocks */

/*
 * The language named by one class list: language-X, lang-X, highlight-X (Sphinx, GitHub's
 * highlight-source-X), the word after sourceCode / hljs (Pandoc, highlight.js), or rust
 * (rustdoc). Copies it lowercased into out; 1 when the list names one (out may be "" for
 * default, none and nohighlight), else 0.
 */
static int
html_lang_of(const char *cls, char *out, size_t outsz)
{
	static const char *const pre[] = { "language-", "lang-", "highlight-source-",
		"highlight-", NULL };
	static const char *const plain[] = { "sourcecode", "hljs", "highlight",
		"notranslate", "codehilite", "code", "numberlines", "numbersource",
		"line-numbers", NULL };
	static const char *const none[] = { "default", "none", "nohighlight", NULL };
	static const char *const marks[] = { "sourcecode", "hljs", NULL };
	static const char *const selfnamed[] = { "rust", NULL };
	const char	*s = cls, *v = NULL, *bare = NULL;
	size_t		 n, vn = 0, bn = 0, i;
	int		 listed = 0;

	while (s != NULL && *s != '\0' && v == NULL) {
		s += strspn(s, " \t\n\r\f");
		n = strcspn(s, " \t\n\r\f");
		for (i = 0; pre[i] != NULL && v == NULL; i++)
			if (n > strlen(pre[i]) &&
			    strncasecmp(s, pre[i], strlen(pre[i])) == 0) {
				v = s + strlen(pre[i]);
				vn = n - strlen(pre[i]);
			}
		if (html_word_in(s, n, marks))
			listed = 1;
		else if (n > 0 && bare == NULL && !html_word_in(s, n, plain)) {
			bare = s;
			bn = n;
		}
		s += n;
	}
	if (v == NULL && listed && bare != NULL) {
		v = bare;
		vn = bn;
	}
	if (v == NULL && html_list_has(cls, selfnamed)) {
		v = "rust";	/* rustdoc: <pre class="rust rust-example-rendered"> */
		vn = 4;
	}
	if (v == NULL || vn == 0 || vn >= outsz)
		return 0;
	for (i = 0; i < vn; i++) {
		if (!isalnum((unsigned char)v[i]) && strchr("_+#.-", v[i]) == NULL)
			return 0;
		out[i] = (char)tolower((unsigned char)v[i]);
	}
	out[vn] = '\0';
	if (html_list_has(out, none))
		out[0] = '\0';
	return 1;
}

/*
 * The language of a pre: the classes of its (first) code child, its own, then its
 * wrappers'.
 */
static void
html_pre_lang(xmlNode *pre, char *out, size_t outsz)
{
	xmlNode	*c;
	int	 up;

	out[0] = '\0';
	for (c = pre->children; c != NULL; c = c->next)
		if (html_is(c, "code")) {
			if (html_lang_of(html_attr(c, "class"), out, outsz))
				return;
			break;
		}
	for (c = pre, up = 0; c != NULL && c->type == XML_ELEMENT_NODE &&
	    up <= HTML_LANG_UP; c = c->parent, up++)
		if (html_lang_of(html_attr(c, "class"), out, outsz))
			return;
}

/* Visits each child of parent as html_traverse does. */
static int
html_traverse_children(xmlNode *parent, html_visit enter, html_visit leave, void *arg)
{
	xmlNode	*c;

	for (c = parent->children; c != NULL; c = c->next)
		if (html_traverse(c, enter, leave, arg) == -1)
			return -1;
	return 0;
}

/* The state of reading a code block's text. */
struct html_pre {
	struct html_walker	*w;
	int		 pendnl;	/* a line span ended without its newline */
};

/* 1 when the element is one line of a highlighted block (Shiki, Prism, Docusaurus). */
static int
html_is_line(xmlNode *n)
{
	static const char *const lines[] = { "line", "token-line", "code-line", NULL };

	return html_list_has(html_attr(n, "class"), lines);
}

/* Appends code text, no-break spaces as spaces. */
static int
html_code_text(struct buf *c, const char *s)
{
	const char	*p;

	while ((p = strstr(s, "\xc2\xa0")) != NULL) {
		if (buf_add(c, s, (size_t)(p - s)) == -1 || buf_addc(c, ' ') == -1)
			return -1;
		s = p + 2;
	}
	return buf_adds(c, s);
}

static int
html_pre_enter(void *arg, xmlNode *n)
{
	struct html_pre	*p = arg;
	struct buf	*c = &p->w->code;
	const char	*s;
	enum html_kind	 k;

	if (doc_build_poll(p->w->b) == -1)
		return -1;
	if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
		if ((s = (const char *)n->content) == NULL || *s == '\0')
			return HTML_SKIP;
		if (p->pendnl && *s != '\n' && buf_addc(c, '\n') == -1)
			return -1;
		p->pendnl = 0;
		return html_code_text(c, s) == -1 ? -1 : HTML_SKIP;
	}
	if (n->type != XML_ELEMENT_NODE)
		return HTML_SKIP;
	k = html_kind_of(n);
	if (k == HK_BR)
		return buf_addc(c, '\n') == -1 ? -1 : HTML_SKIP;
	if (k == HK_DROP || html_is_chrome(n))
		return HTML_SKIP;
	if (html_is_line(n) && p->pendnl) {
		p->pendnl = 0;
		if (buf_addc(c, '\n') == -1)
			return -1;
	}
	/* a second code element of the pre (Node.js: ESM, then CommonJS) starts a line */
	if (html_is(n, "code") && c->len > 0 && c->p[c->len - 1] != '\n' &&
	    buf_addc(c, '\n') == -1)
		return -1;
	return HTML_DESCEND;
}

static int
html_pre_leave(void *arg, xmlNode *n)
{
	struct html_pre	*p = arg;
	struct buf	*c = &p->w->code;

	if (html_is_line(n))
		p->pendnl = c->len > 0 && c->p[c->len - 1] != '\n';
	return 0;
}

/* A pre element: its text (line spans joined, line numbers dropped) as a code block. */
static int
html_pre(struct html_walker *w, xmlNode *pre)
{
	struct html_pre	 p;
	char		 lang[HTML_LANG_MAX + 1];

	memset(&p, 0, sizeof(p));
	p.w = w;
	buf_reset(&w->code);
	if (buf_add(&w->code, "", 0) == -1)
		goto nomem;
	html_pre_lang(pre, lang, sizeof(lang));
	if (html_traverse_children(pre, html_pre_enter, html_pre_leave, &p) == -1) {
		if (w->b->stopped)
			return -1;
		goto nomem;
	}
	return html_code(w, lang, NULL, w->code.p, w->code.len);
nomem:
	log_err("%s: out of memory", __func__);
	return -1;
}

/* ---------------------------------------------------------------- the walker */

/* Sets *slot to a copy of s (NULL: cleared). */
static int
html_set(char **slot, const char *s)
{
	free(*slot);
	*slot = NULL;
	if (s != NULL && *s != '\0' && (*slot = strdup(s)) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	return 0;
}

/*
 * After a list, table or definition list that no other holds, the next item starts a new
 * block: a blank line separates two lists or tables in a row.
 */
static void
html_end_items(struct html_walker *w)
{
	if (!html_in_items(w))
		w->b->lastkind = DOCB_PARA;
}

int
html_list(struct html_walker *w, int ordered, int open)
{
	if (html_flush(w) == -1)
		return -1;
	if (!open) {
		w->nlists -= w->nlists > 0;
		html_end_items(w);
		return 0;
	}
	if (w->nlists < HTML_MAXLIST) {
		w->lists[w->nlists].ordered = ordered;
		w->lists[w->nlists].num = 0;
	}
	w->nlists++;
	return 0;
}

int
html_item(struct html_walker *w, const char *mark)
{
	int	 lv = w->nlists < HTML_MAXLIST ? w->nlists : HTML_MAXLIST;

	if (html_flush(w) == -1)
		return -1;
	if (w->heading > 0 || w->cell > 0)
		return mark != NULL ? html_text(w, mark, strlen(mark)) : 0;
	buf_reset(&w->inl);
	if (buf_add(&w->inl, "", 0) == -1 || html_indent(&w->inl, w->nlists) == -1)
		return -1;
	if (mark != NULL) {
		if (buf_adds(&w->inl, mark) == -1)
			return -1;
	} else if (lv > 0 && w->lists[lv - 1].ordered) {
		if (buf_printf(&w->inl, "%u. ", ++w->lists[lv - 1].num) == -1)
			return -1;
	} else if (buf_adds(&w->inl, "- ") == -1)
		return -1;
	w->base = w->inl.len;
	return 0;
}

int
html_item_end(struct html_walker *w)
{
	if (html_flush(w) == -1)
		return -1;
	if (w->heading == 0 && w->cell == 0 && w->inl.len <= w->base) {
		buf_reset(&w->inl);
		w->base = 0;
	}
	return 0;
}

/* A heading opens: the text of the open block goes first. */
static int
html_heading(struct html_walker *w, xmlNode *n, int level)
{
	if (html_flush(w) == -1)
		return -1;
	buf_reset(&w->inl);
	w->base = 0;
	w->label = NULL;
	w->heading = level;
	return html_set(&w->hid, html_attr(n, "id"));
}

/* Classes of a definition list of API descriptions (Sphinx domains, old and new). */
static const char *const html_sig_lists[] = {
	"py", "c", "cpp", "js", "rst", "function", "class", "method", "classmethod",
	"staticmethod", "attribute", "property", "data", "exception", "describe", NULL
};

/* 1 when a dt is the signature of an API description with an id (Sphinx autodoc). */
static int
html_is_sig(xmlNode *dt)
{
	static const char *const sig[] = { "sig", "sig-object", NULL };
	const char	*id = html_attr(dt, "id");

	if (id == NULL || *id == '\0')
		return 0;
	return html_list_has(html_attr(dt, "class"), sig) || (dt->parent != NULL &&
	    html_is(dt->parent, "dl") && html_list_has(html_attr(dt->parent, "class"),
	    html_sig_lists));
}

/* 1 when a dd describes a signature dt (the element before it). */
static int
html_after_sig(xmlNode *dd)
{
	xmlNode	*p = dd->prev;

	while (p != NULL && p->type != XML_ELEMENT_NODE)
		p = p->prev;
	return p != NULL && html_is(p, "dt") && html_is_sig(p);
}

/*
 * A signature dt opens a section, one level below the heading it is under (and below
 * the signature whose description holds it), anchored at its id.
 */
static int
html_sig(struct html_walker *w, xmlNode *dt)
{
	int	 level = w->hlevel + 1 + w->sigdd;

	w->sigdt = dt;
	return html_heading(w, dt, level > 6 ? 6 : level);
}

/* A heading ends: a section titled with its text (none when it has no text). */
static int
html_heading_end(struct html_walker *w)
{
	const char	*id = w->hid != NULL ? w->hid : w->pendid;
	int		 lv = w->heading, rc = 0;

	w->heading = 0;
	html_trim(w);
	if (w->inl.len > 0) {
		rc = doc_build_heading_anchor(w->b, lv, w->inl.p, id);
		free(w->pendid);
		w->pendid = NULL;
		if (rc == 0 && w->first == NULL && (w->first = strdup(w->b->title)) == NULL)
			rc = -1;
	}
	free(w->hid);
	w->hid = NULL;
	buf_reset(&w->inl);
	return rc;
}

/* A link opens: an empty one with an id marks the next heading's anchor. */
static int
html_a(struct html_walker *w, xmlNode *n)
{
	const char	*id = html_attr(n, "id");

	if (id == NULL || *id == '\0')
		id = html_attr(n, "name");
	if (id != NULL && *id != '\0') {
		if (w->heading > 0 && w->hid == NULL && html_set(&w->hid, id) == -1)
			return -1;
		if (w->heading == 0 && n->children == NULL)
			return html_set(&w->pendid, id);
	}
	w->aoff = w->inl.len;
	w->ina = 1;
	return 0;
}

/* A link ends: a permalink ("¶" to "#x") or an edit/source link is dropped. */
static int
html_a_end(struct html_walker *w, xmlNode *n)
{
	const char	*href = html_attr(n, "href"), *t;
	char		 txt[HTML_PHRASE_MAX + 1];
	size_t		 len;

	if (!w->ina || w->aoff >= w->inl.len)
		return 0;
	w->ina = 0;
	t = w->inl.p + w->aoff;
	t += strspn(t, " \n");
	len = strlen(t);
	while (len > 0 && (t[len - 1] == ' ' || t[len - 1] == '\n'))
		len--;
	if (len > HTML_PHRASE_MAX)
		return 0;
	memcpy(txt, t, len);
	txt[len] = '\0';
	if ((len == 0 && href != NULL && *href == '#') || html_word_in(txt, len,
	    html_phrases) || (href != NULL && *href == '#' && html_word_in(txt, len,
	    html_permalinks))) {
		w->inl.len = w->aoff;
		w->inl.p[w->inl.len] = '\0';
	}
	return 0;
}

/*
 * Inline code: between backticks, as Markdown writes it; two code elements in a row
 * (Sphinx's <code>mod.</code><code>name</code>) are one span.
 */
static int
html_tick(struct html_walker *w, int open)
{
	if (open && w->label != NULL) {
		if (buf_adds(&w->inl, w->label) == -1)
			return -1;
		w->label = NULL;
	}
	if (w->inl.len > w->base && w->inl.p[w->inl.len - 1] == '`' &&
	    (!open || w->tickend == w->inl.len)) {
		/* empty code, or code right after code: one span */
		w->inl.p[--w->inl.len] = '\0';
		w->tickend = 0;
		return 0;
	}
	if (!open)
		html_trim(w);
	if (buf_addc(&w->inl, '`') == -1)
		return -1;
	w->tickend = open ? 0 : w->inl.len;
	return 0;
}

/*
 * The title of an admonition ends: it becomes the label of the admonition's first text
 * ("Note: ..."), as storage.c labels its panels.
 */
static int
html_admon_end(struct html_walker *w)
{
	w->admon = NULL;
	html_trim(w);
	while (w->inl.len > w->base && w->inl.p[w->inl.len - 1] == ':')
		w->inl.p[--w->inl.len] = '\0';
	if (w->inl.len <= w->base || w->inl.len - w->base > HTML_PHRASE_MAX)
		return html_flush(w);
	buf_reset(&w->lab);
	if (buf_add(&w->lab, w->inl.p + w->base, w->inl.len - w->base) == -1 ||
	    buf_adds(&w->lab, ": ") == -1) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	w->inl.len = w->base;
	w->inl.p[w->inl.len] = '\0';
	w->label = w->lab.p;
	return 0;
}

/* 1 when an h1 is a child of n (a header that holds the page's title is content). */
static int
html_has_h1(xmlNode *n)
{
	xmlNode	*c;

	for (c = n->children; c != NULL; c = c->next)
		if (html_is(c, "h1"))
			return 1;
	return 0;
}

/*
 * MathML: its TeX source (the annotation KaTeX and MathJax keep) when it has one, else
 * the text of its elements.
 */
static int
html_math(struct html_walker *w, xmlNode *n)
{
	xmlNode		*sem, *a;
	const char	*enc;

	for (sem = n->children; sem != NULL; sem = sem->next) {
		if (!html_is(sem, "semantics"))
			continue;
		for (a = sem->children; a != NULL; a = a->next)
			if (html_is(a, "annotation") &&
			    (enc = html_attr(a, "encoding")) != NULL &&
			    strcmp(enc, "application/x-tex") == 0 && a->children != NULL &&
			    a->children->type == XML_TEXT_NODE &&
			    a->children->content != NULL)
				return html_text(w, (const char *)a->children->content,
				    strlen((const char *)a->children->content)) == -1 ? -1 :
				    HTML_SKIP;
	}
	return HTML_DESCEND;
}

static int
html_enter(void *arg, xmlNode *n)
{
	struct html_walker	*w = arg;
	enum html_kind	 k;

	if (doc_build_poll(w->b) == -1)
		return -1;
	if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
		return n->content == NULL || html_text(w, (const char *)n->content,
		    strlen((const char *)n->content)) == 0 ? HTML_SKIP : -1;
	if (n->type != XML_ELEMENT_NODE)
		return HTML_SKIP;
	if (n->ns != NULL && n->ns->prefix != NULL)
		return w->ext != NULL ? w->ext->enter(w, n) : HTML_DESCEND;
	if (html_is_chrome(n))
		return HTML_SKIP;
	switch ((k = html_kind_of(n))) {
	case HK_DROP:
		return HTML_SKIP;
	case HK_HEADER:
		return w->dropheader && !html_has_h1(n) ? HTML_SKIP : html_flush(w);
	case HK_SECTION:
		if (html_flush(w) == -1)
			return -1;
		if ((html_is(n, "section") || html_has_class(n, "section")) &&
		    html_attr(n, "id") != NULL && w->heading == 0)
			return html_set(&w->pendid, html_attr(n, "id"));
		return HTML_DESCEND;
	case HK_BLOCK:
		if (html_flush(w) == -1)
			return -1;
		if (w->heading == 0 && w->cell == 0 &&
		    html_list_has(html_attr(n, "class"), html_admon_titles)) {
			w->admon = n;
			w->admonbox = n->parent;
		}
		return HTML_DESCEND;
	case HK_TABLE:
		return html_flush(w);
	case HK_DT:
		if (w->heading == 0 && w->cell == 0 && html_is_sig(n))
			return html_sig(w, n);
		return html_flush(w);
	case HK_DL:
		w->dl++;
		return html_flush(w);
	case HK_HEADING:
		if (w->heading > 0 || w->cell > 0)
			return HTML_DESCEND;
		w->hlevel = n->name[1] - '0';
		return html_heading(w, n, w->hlevel);
	case HK_PRE:
		if (w->heading > 0)
			return HTML_DESCEND;
		return html_pre(w, n) == -1 ? -1 : HTML_SKIP;
	case HK_BR:
		/* (a br holds text only in broken XHTML: <br> left open) */
		if (w->heading > 0 || w->cell > 0)
			return html_text(w, " ", 1) == -1 ? -1 : HTML_DESCEND;
		return html_at_space(w) || buf_addc(&w->inl, '\n') == 0 ? HTML_DESCEND : -1;
	case HK_UL:
	case HK_OL:
		return html_list(w, k == HK_OL, 1);
	case HK_LI:
		return html_item(w, NULL);
	case HK_DD:
		if (html_flush(w) == -1)
			return -1;
		if (w->heading == 0 && html_after_sig(n)) {
			w->sigdd++;	/* a description: prose, as under a heading */
			return HTML_DESCEND;
		}
		return w->heading > 0 || w->cell > 0 ? 0 : buf_adds(&w->inl, "  ");
	case HK_TR:
		if (html_flush(w) == -1)
			return -1;
		w->row++;
		w->rowcells = 0;
		return HTML_DESCEND;
	case HK_CELL:
		if (w->rowcells++ > 0) {
			html_trim(w);
			if (buf_adds(&w->inl, " | ") == -1)
				return -1;
		}
		w->cell++;
		return HTML_DESCEND;
	case HK_QUOTE:
		if (html_flush(w) == -1)
			return -1;
		w->quote++;
		return HTML_DESCEND;
	case HK_CODE:
		return html_tick(w, 1);
	case HK_A:
		return html_a(w, n);
	case HK_MATH:
		return html_math(w, n);
	case HK_INLINE:
		if (n->children == NULL && html_is(n, "time") &&
		    html_attr(n, "datetime") != NULL)
			return html_text(w, html_attr(n, "datetime"),
			    strlen(html_attr(n, "datetime"))) == -1 ? -1 : HTML_SKIP;
		break;
	}
	return HTML_DESCEND;
}

static int
html_leave(void *arg, xmlNode *n)
{
	struct html_walker	*w = arg;
	int		 rc;

	if (n->type != XML_ELEMENT_NODE)
		return 0;
	if (n->ns != NULL && n->ns->prefix != NULL)
		return w->ext != NULL && w->ext->leave != NULL ? w->ext->leave(w, n) : 0;
	if (n == w->admonbox) {
		/* an admonition ends: its label does not outlive it */
		rc = html_flush(w);
		w->label = NULL;
		w->admonbox = NULL;
		return rc;
	}
	switch (html_kind_of(n)) {
	case HK_HEADING:
		if (w->heading > 0 && n->name[1] - '0' == w->heading)
			return html_heading_end(w);
		return 0;
	case HK_UL:
	case HK_OL:
		return html_list(w, 0, 0);
	case HK_LI:
		return html_item_end(w);
	case HK_TR:
		rc = w->cell == 0 ? html_flush(w) : 0;
		w->row -= w->row > 0;
		return rc;
	case HK_DL:
		rc = html_flush(w);
		w->dl -= w->dl > 0;
		html_end_items(w);
		return rc;
	case HK_TABLE:
		rc = html_flush(w);
		html_end_items(w);
		return rc;
	case HK_CELL:
		w->cell -= w->cell > 0;
		return 0;
	case HK_QUOTE:
		if (html_flush(w) == -1)
			return -1;
		w->quote -= w->quote > 0;
		return 0;
	case HK_CODE:
		return html_tick(w, 0);
	case HK_A:
		return html_a_end(w, n);
	case HK_BLOCK:
		if (w->admon == n)
			return html_admon_end(w);
		return html_flush(w);
	case HK_DT:
		if (n != w->sigdt)
			return html_flush(w);
		w->sigdt = NULL;
		return html_heading_end(w);
	case HK_DD:
		w->sigdd -= w->heading == 0 && w->sigdd > 0 && html_after_sig(n);
		return html_flush(w);
	case HK_SECTION:
	case HK_HEADER:
		return html_flush(w);
	default:
		return 0;
	}
}

int
html_walk(struct html_walker *w, xmlNode *top)
{
	return html_traverse(top, html_enter, html_leave, w);
}

/* ---------------------------------------------------------------- web pages */

/*
 * Content containers and their rank: the most specific (a theme's article body) wins over
 * generic ones; several of the best rank that do not nest are walked in order.
 */
static const struct html_container {
	const char	*tag;		/* NULL: any element */
	const char	*cls;		/* a class word, or NULL */
	const char	*id;		/* or an id, or NULL */
	const char	*role;		/* or a role, or NULL */
	int		 rank;
} html_containers[] = {
	{ "article", "md-content__inner", NULL, NULL, 9 },	/* MkDocs Material */
	{ "div", "theme-doc-markdown", NULL, NULL, 9 },		/* Docusaurus */
	{ "div", "vp-doc", NULL, NULL, 9 },			/* VitePress */
	{ "div", "sl-markdown-content", NULL, NULL, 9 },	/* Starlight */
	{ "section", NULL, "main-content", NULL, 9 },		/* rustdoc */
	{ "div", "body", NULL, "main", 9 },			/* Sphinx */
	{ "div", "contents", NULL, NULL, 9 },			/* Doxygen */
	{ "div", "md-content", NULL, NULL, 7 },			/* MkDocs Material */
	{ "div", "document", NULL, NULL, 7 },		/* Sphinx, Read the Docs */
	{ "div", "docblock", NULL, NULL, 6 },			/* rustdoc */
	{ "div", "textblock", NULL, NULL, 6 },			/* Doxygen */
	{ NULL, NULL, NULL, "main", 5 },			/* MkDocs, Sphinx themes */
	{ "main", NULL, NULL, NULL, 4 },
	{ "article", NULL, NULL, NULL, 3 },
	{ "body", NULL, NULL, NULL, 1 },
};

#define HTML_RANK_BODY	1

/* The container rank of an element, 0 for none. */
static int
html_rank(xmlNode *n)
{
	const struct html_container	*c;
	const char			*v;
	size_t				 i;
	int				 best = 0;

	if (n->type != XML_ELEMENT_NODE)
		return 0;
	for (i = 0; i < sizeof(html_containers) / sizeof(html_containers[0]); i++) {
		c = &html_containers[i];
		if (c->rank <= best || (c->tag != NULL && !html_is(n, c->tag)))
			continue;
		if (c->cls != NULL && !html_has_class(n, c->cls))
			continue;
		if (c->id != NULL && ((v = html_attr(n, "id")) == NULL || strcmp(v, c->id)))
			continue;
		if (c->role != NULL && ((v = html_attr(n, "role")) == NULL ||
		    strcasecmp(v, c->role) != 0))
			continue;
		best = c->rank;
	}
	return best;
}

/* Finding the containers: the best rank (first pass), its outermost elements (second). */
struct html_pick {
	int		 best;
	int		 collect;
	xmlNode		**nodes;
	size_t		 n, cap;
};

static int
html_pick_enter(void *arg, xmlNode *n)
{
	struct html_pick	*p = arg;
	xmlNode			**nn;
	int			 r;

	if (n->type != XML_ELEMENT_NODE)
		return HTML_SKIP;
	if (html_kind_of(n) == HK_DROP || (n->parent != NULL &&
	    n->parent->type == XML_ELEMENT_NODE && html_is_chrome(n)))
		return HTML_SKIP;
	r = html_rank(n);
	if (!p->collect) {
		if (r > p->best)
			p->best = r;
		return HTML_DESCEND;
	}
	if (r < p->best)
		return HTML_DESCEND;
	if (p->n == p->cap) {
		if ((nn = reallocarray(p->nodes, p->cap ? p->cap * 2 : 4,
		    sizeof(*nn))) == NULL)
			return -1;
		p->nodes = nn;
		p->cap = p->cap ? p->cap * 2 : 4;
	}
	p->nodes[p->n++] = n;
	return HTML_SKIP;
}

static int
html_pick_leave(void *arg, xmlNode *n)
{
	(void)arg;
	(void)n;
	return 0;
}

/* The content containers of the page into p (none: the root element). 0 or -1. */
static int
html_pick(xmlNode *root, struct html_pick *p)
{
	memset(p, 0, sizeof(*p));
	if (html_traverse(root, html_pick_enter, html_pick_leave, p) == -1)
		goto nomem;
	if (p->best == 0) {
		if ((p->nodes = calloc(1, sizeof(*p->nodes))) == NULL)
			goto nomem;
		p->nodes[p->n++] = root;
		return 0;
	}
	p->collect = 1;
	if (html_traverse(root, html_pick_enter, html_pick_leave, p) == -1)
		goto nomem;
	return 0;
nomem:
	log_err("%s: out of memory", __func__);
	free(p->nodes);
	p->nodes = NULL;
	return -1;
}

/* The first child element of n named name, or NULL. */
static xmlNode *
html_child(xmlNode *n, const char *name)
{
	xmlNode	*c;

	for (c = n != NULL ? n->children : NULL; c != NULL; c = c->next)
		if (html_is(c, name))
			return c;
	return NULL;
}

/* Squeezes s (may be NULL) in place, no-break spaces counted as spaces (as in text). */
static void
html_squeeze(char *s)
{
	char	*p;

	for (p = s; p != NULL && (p = strstr(p, "\xc2\xa0")) != NULL; p++) {
		p[0] = ' ';
		p[1] = ' ';
	}
	if (s != NULL)
		doc_squeeze(s);
}

/* The text of <title> (squeezed) and the og:site_name of the head; malloc'd or NULL. */
static void
html_head(xmlNode *root, char **title, char **site)
{
	xmlNode		*head = html_child(root, "head"), *c;
	const char	*v;

	*title = *site = NULL;
	for (c = head != NULL ? head->children : NULL; c != NULL; c = c->next) {
		if (html_is(c, "title") && *title == NULL) {
			*title = (char *)xmlNodeGetContent(c);
			html_squeeze(*title);
		} else if (html_is(c, "meta") && *site == NULL && (v = html_attr(c,
		    "property")) != NULL && strcmp(v, "og:site_name") == 0 &&
		    (v = html_attr(c, "content")) != NULL && *v != '\0') {
			*site = strdup(v);
			html_squeeze(*site);
		}
	}
}

/*
 * Trims the site name off a page title, in place: " - Site" (or " | ", " — ", " – ",
 * " · ", " :: ", " » ") when Site is the page's og:site_name, or the part after the
 * page's first heading when the title starts with it (ASCII case ignored: the title
 * becomes the heading's text) and a separator.
 */
static void
html_title_trim(char *t, const char *h1, const char *site)
{
	static const char *const seps[] = { " - ", " | ", " \xe2\x80\x94 ",
		" \xe2\x80\x93 ", " \xc2\xb7 ", " :: ", " \xc2\xbb ", NULL };
	size_t	 tl = strlen(t), sl, i, k;

	for (i = 0; seps[i] != NULL; i++) {
		k = strlen(seps[i]);
		if (site != NULL && (sl = strlen(site)) > 0 && tl > sl + k &&
		    strcmp(t + tl - sl, site) == 0 &&
		    strncmp(t + tl - sl - k, seps[i], k) == 0) {
			t[tl - sl - k] = '\0';
			return;
		}
		if (h1 != NULL && (sl = strlen(h1)) > 0 && tl > sl + k &&
		    strncasecmp(t, h1, sl) == 0 && strncmp(t + sl, seps[i], k) == 0) {
			memcpy(t, h1, sl);	/* as the heading writes it */
			t[sl] = '\0';
			return;
		}
	}
}

/*
 * 1 when the page declares a character set other than UTF-8 (a BOM of UTF-16 or a meta
 * charset in its first 1024 bytes): libxml2 then converts it, else the input is cleaned
 * as UTF-8.
 */
static int
html_other_charset(const char *s, size_t n)
{
	const char	*p, *end = s + (n < 1024 ? n : 1024);
	size_t		 k;

	if (n >= 2 && (((unsigned char)s[0] == 0xff && (unsigned char)s[1] == 0xfe) ||
	    ((unsigned char)s[0] == 0xfe && (unsigned char)s[1] == 0xff)))
		return 1;
	for (p = s; p + 8 < end; p++) {
		if (strncasecmp(p, "charset=", 8) != 0)
			continue;
		p += 8;
		p += *p == '"' || *p == '\'';
		k = (size_t)(end - p);
		if (k >= 5 && (strncasecmp(p, "utf-8", 5) == 0 ||
		    strncasecmp(p, "utf8", 4) == 0))
			return 0;
		if (k >= 8 && strncasecmp(p, "us-ascii", 8) == 0)
			return 0;
		return 1;
	}
	return 0;
}

/* The end of the attribute at s[i] (its name, then any "= value"), at most n. */
static size_t
html_attr_end(const char *s, size_t i, size_t n)
{
	size_t	 j = i;
	char	 q;

	while (j < n && !isspace((unsigned char)s[j]) && s[j] != '=' && s[j] != '>')
		j++;
	if (j == i)
		j++;		/* a stray '=' */
	while (j < n && isspace((unsigned char)s[j]))
		j++;
	if (j >= n || s[j] != '=')
		return j;
	for (j++; j < n && isspace((unsigned char)s[j]); j++)
		;
	if (j < n && (s[j] == '"' || s[j] == '\'')) {
		q = s[j];
		for (j++; j < n && s[j] != q; j++)
			;
		return j < n ? j + 1 : n;
	}
	while (j < n && !isspace((unsigned char)s[j]) && s[j] != '>')
		j++;
	return j;
}

/*
 * Drops the attributes of a tag after its first HTML_MAX_ATTRS, in place (s has *n
 * bytes and stays NUL-terminated). A tag is '<' and a letter, up to its '>'; text that
 * only looks like one loses nothing unless it has that many "attributes".
 */
static void
html_cap_attrs(char *s, size_t *n)
{
	size_t	 r = 0, w = 0, e, count;

	while (r < *n) {
		if (s[r] != '<' || r + 1 >= *n || !isalpha((unsigned char)s[r + 1])) {
			s[w++] = s[r++];
			continue;
		}
		while (r < *n && !isspace((unsigned char)s[r]) && s[r] != '>')
			s[w++] = s[r++];
		for (count = 0; r < *n && s[r] != '>'; ) {
			if (isspace((unsigned char)s[r]) || s[r] == '/') {
				s[w++] = s[r++];
				continue;
			}
			e = html_attr_end(s, r, *n);
			if (++count <= HTML_MAX_ATTRS)
				while (r < e)
					s[w++] = s[r++];
			r = e;
		}
	}
	s[w] = '\0';
	*n = w;
}

/* Walks the containers of the page into b; sets *title (malloc'd, may be NULL). */
static int
html_walk_page(htmlDocPtr doc, struct docb *b, char **title)
{
	struct html_pick	 p;
	struct html_walker		 w;
	xmlNode			*root = xmlDocGetRootElement(doc);
	char			*site = NULL;
	size_t			 i;
	int			 rc = -1;

	*title = NULL;
	memset(&p, 0, sizeof(p));
	html_init(&w, b, NULL);
	if (root == NULL)
		return 0;
	html_head(root, title, &site);
	if (html_pick(root, &p) == -1)
		goto out;
	w.dropheader = p.best <= HTML_RANK_BODY;
	for (i = 0; i < p.n; i++)
		if (html_walk(&w, p.nodes[i]) == -1)
			goto out;
	if (html_flush(&w) == -1)
		goto out;
	if (*title != NULL)
		html_title_trim(*title, w.first, site);
	rc = 0;
out:
	html_release(&w);
	free(p.nodes);
	free(site);
	return rc;
}

int
html_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	struct docb	 b;
	htmlDocPtr	 doc = NULL;
	char		*src = NULL, *title = NULL;
	size_t		 srclen = len;
	int		 rc = -1, binit = 0, raw;

	memset(out, 0, sizeof(*out));
	if ((raw = html_other_charset(data, len)) == 0)
		src = doc_clean_input(data, len, &srclen);
	else if ((src = malloc(len + 1)) != NULL) {
		memcpy(src, data, len);
		src[len] = '\0';
	}
	if (src == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	html_cap_attrs(src, &srclen);
	if (srclen > INT_MAX) {
		log_err("%s: %s: too large", __func__, path);
		goto out;
	}
	if (doc_build_init(&b, out, poll) == -1)
		goto out;
	binit = 1;
	if (srclen > 0)
		doc = htmlReadMemory(src, (int)srclen, NULL, raw ? NULL : "UTF-8",
		    HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
		    HTML_PARSE_RECOVER | HTML_PARSE_COMPACT);
	if (doc != NULL && html_walk_page(doc, &b, &title) == -1) {
		if (!b.stopped)
			log_err("%s: %s: cannot parse", __func__, path);
		goto out;
	}
	binit = 0;
	rc = doc_build_finish(&b, title, path);
out:
	if (binit)
		doc_build_release(&b);
	if (rc == -1)
		doc_release(out);
	if (doc != NULL)
		xmlFreeDoc(doc);
	xmlFree(title);
	free(src);
	return rc;
}
