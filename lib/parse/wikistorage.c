/*
 * wikistorage.c: wiki page bodies in storage format (an XHTML fragment with ac: and ri:
 * elements) to sections.
 *
 * The fragment is copied once into a root element that declares the ac, ri and at
 * namespaces; the copy also cleans it for the XML parser: HTML named entities (&nbsp;,
 * &mdash; ...) become character references, a stray '&' becomes &amp;, invalid UTF-8 and
 * control characters are replaced, and a DOCTYPE or processing instruction inside the
 * body is made text, as is a '<' that starts no tag. CDATA sections are copied as they
 * are, comments left out. libxml2's XML parser reads the copy without network, DTD
 * loading or entity substitution, and html.c's walker turns it into sections; the hooks
 * here handle the ac: elements: code
 * and noformat macros become code blocks, info/note/warning/tip panels prefix their
 * text, expand keeps its title and body, layouts are walked in order, page links become
 * their text, task lists become "- [x]" items, images and attachments are skipped, and
 * other macros keep their rich-text body.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "parse/doc.h"
#include "parse/html.h"
#include "parse/parse.h"

#define STORAGE_ROOT_OPEN	"<ctxd-storage" \
	" xmlns:ac=\"http://atlassian.com/content\"" \
	" xmlns:ri=\"http://atlassian.com/resource/identifier\"" \
	" xmlns:at=\"http://atlassian.com/template\">"
#define STORAGE_ROOT_CLOSE	"</ctxd-storage>"
/* The longest entity name looked up. */
#define STORAGE_ENTITY_MAX	32

/* ---------------------------------------------------------------- the copy */

/* 1 when code point cp is a character XML 1.0 allows. */
static int
wikistorage_xml_char(unsigned long cp)
{
	return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
	    (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/*
 * Copies the character at p[i] (n bytes in all) cleaned: CR and CRLF as LF, other
 * control characters as a space, invalid UTF-8 and non-characters as '?'. Returns the
 * bytes consumed, 0 on failure.
 */
static size_t
wikistorage_char(struct buf *out, const unsigned char *p, size_t i, size_t n)
{
	size_t	 k;

	if (p[i] == '\r')
		return buf_addc(out, '\n') == -1 ? 0 :
		    i + 1 < n && p[i + 1] == '\n' ? 2 : 1;
	if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n')
		return buf_addc(out, ' ') == -1 ? 0 : 1;
	if ((k = util_utf8_len(p + i, n - i)) == 0 || (k == 3 && p[i] == 0xef &&
	    p[i + 1] == 0xbf && p[i + 2] >= 0xbe))
		return buf_addc(out, '?') == -1 ? 0 : 1;
	return buf_add(out, p + i, k) == -1 ? 0 : k;
}

/* Copies p[from, to) cleaned (wikistorage_char). 0 or -1. */
static int
wikistorage_copy(struct buf *out, const unsigned char *p, size_t from, size_t to)
{
	size_t	 i = from, run, k;

	while (i < to) {
		for (run = i; i < to && p[i] >= 0x20 && p[i] < 0x80; i++)
			;
		if (i > run && buf_add(out, p + run, i - run) == -1)
			return -1;
		if (i < to) {
			if ((k = wikistorage_char(out, p, i, to)) == 0)
				return -1;
			i += k;
		}
	}
	return 0;
}

/*
 * The reference at p[i] == '&' (n bytes in all): a valid character reference and the
 * five XML entities are copied, an HTML named entity becomes a character reference, a
 * reference to a character XML forbids becomes '?', anything else is a literal '&'.
 * Returns the bytes consumed, 0 on failure.
 */
static size_t
wikistorage_entity(struct buf *out, const unsigned char *p, size_t i, size_t n)
{
	static const char *const xml[] = { "amp", "lt", "gt", "quot", "apos", NULL };
	const htmlEntityDesc	*e;
	char			 name[STORAGE_ENTITY_MAX + 1];
	unsigned long		 cp = 0;
	size_t			 j = i + 1, k;
	int			 hex;

	if (j < n && p[j] == '#') {
		hex = j + 1 < n && (p[j + 1] == 'x' || p[j + 1] == 'X');
		for (j += 1 + hex, k = 0; j < n && k < 8 && (hex ? isxdigit(p[j]) :
		    isdigit(p[j])); j++, k++)
			cp = cp * (hex ? 16 : 10) + (unsigned long)(isdigit(p[j]) ?
			    p[j] - '0' : tolower(p[j]) - 'a' + 10);
		if (k == 0 || j >= n || p[j] != ';')
			return buf_adds(out, "&amp;") == -1 ? 0 : 1;
		if (!wikistorage_xml_char(cp))
			return buf_addc(out, '?') == -1 ? 0 : j + 1 - i;
		return buf_add(out, p + i, j + 1 - i) == -1 ? 0 : j + 1 - i;
	}
	for (k = 0; j < n && k < STORAGE_ENTITY_MAX && isalnum(p[j]); j++, k++)
		name[k] = (char)p[j];
	name[k] = '\0';
	if (k == 0 || j >= n || p[j] != ';' || !isalpha(p[i + 1]))
		return buf_adds(out, "&amp;") == -1 ? 0 : 1;
	for (k = 0; xml[k] != NULL; k++)
		if (strcmp(name, xml[k]) == 0)
			return buf_add(out, p + i, j + 1 - i) == -1 ? 0 : j + 1 - i;
	if ((e = htmlEntityLookup((const xmlChar *)name)) == NULL)
		return buf_adds(out, "&amp;") == -1 ? 0 : 1;
	return buf_printf(out, "&#%u;", e->value) == -1 ? 0 : j + 1 - i;
}

/*
 * A section up to its end mark: a CDATA section is copied as it is (an unterminated one
 * runs to the end of the input and is closed), a comment is left out (libxml2 takes time
 * quadratic in "--" runs inside one). Returns the bytes consumed, 0 on failure.
 */
static size_t
wikistorage_verbatim(struct buf *out, const unsigned char *p, size_t i, size_t n,
    size_t openlen, const char *close, int keep)
{
	const unsigned char	*e;
	size_t			 end;

	e = memmem(p + i + openlen, n - i - openlen, close, strlen(close));
	end = e != NULL ? (size_t)(e - p) + strlen(close) : n;
	if (!keep)
		return end - i;
	if (buf_add(out, p + i, openlen) == -1 ||
	    wikistorage_copy(out, p, i + openlen, end) == -1 ||
	    (e == NULL && buf_adds(out, close) == -1))
		return 0;
	return end - i;
}

/*
 * 1 when the '<' at p[i] starts a tag (a name or "/" and a name follows), else it is
 * text: libxml2 stops reading a body at a '<' that starts no tag.
 */
static int
wikistorage_tag_start(const unsigned char *p, size_t i, size_t n)
{
	size_t	 j = i + 1;

	if (j < n && p[j] == '/')
		j++;
	return j < n && (isalpha(p[j]) || p[j] == '_' || p[j] == ':' || p[j] >= 0x80);
}

/* The fragment data (n bytes) inside the namespace-declaring root, cleaned, in out. */
static int
wikistorage_prepare(struct buf *out, const char *data, size_t n)
{
	const unsigned char	*p = (const unsigned char *)data;
	size_t			 i = 0, run, k;

	if (buf_adds(out, STORAGE_ROOT_OPEN) == -1)
		return -1;
	if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		i = 3;
	while (i < n) {
		for (run = i; i < n && p[i] != '<' && p[i] != '&' && p[i] >= 0x20 &&
		    p[i] < 0x80; i++)
			;
		if (i > run && buf_add(out, p + run, i - run) == -1)
			return -1;
		if (i >= n)
			break;
		if (p[i] == '&')
			k = wikistorage_entity(out, p, i, n);
		else if (p[i] == '<' && n - i >= 9 && memcmp(p + i, "<![CDATA[", 9) == 0)
			k = wikistorage_verbatim(out, p, i, n, 9, "]]>", 1);
		else if (p[i] == '<' && n - i >= 4 && memcmp(p + i, "<!--", 4) == 0)
			k = wikistorage_verbatim(out, p, i, n, 4, "-->", 0);
		else if (p[i] == '<' && i + 1 < n && (p[i + 1] == '!' || p[i + 1] == '?'))
			k = buf_adds(out, "&lt;") == -1 ? 0 : 1;
		else if (p[i] == '<')
			k = buf_adds(out, wikistorage_tag_start(p, i, n) ? "<" : "&lt;") == -1 ?
			    0 : 1;
		else
			k = wikistorage_char(out, p, i, n);
		if (k == 0)
			return -1;
		i += k;
	}
	return buf_adds(out, STORAGE_ROOT_CLOSE);
}

/* ---------------------------------------------------------------- the ac: elements */

/* The local name of an element or attribute in a namespace with this prefix, or NULL. */
static const char *
wikistorage_local(xmlNode *n, const char *prefix)
{
	if (n->type != XML_ELEMENT_NODE || n->ns == NULL || n->ns->prefix == NULL ||
	    strcmp((const char *)n->ns->prefix, prefix) != 0)
		return NULL;
	return (const char *)n->name;
}

/* 1 when n is the element prefix:name. */
static int
wikistorage_is(xmlNode *n, const char *prefix, const char *name)
{
	const char	*l = wikistorage_local(n, prefix);

	return l != NULL && strcmp(l, name) == 0;
}

/* The value of the attribute prefix:name of n (not a copy), or NULL. */
static const char *
wikistorage_attr(xmlNode *n, const char *prefix, const char *name)
{
	xmlAttr	*a;

	for (a = n->properties; a != NULL; a = a->next)
		if (a->ns != NULL && a->ns->prefix != NULL &&
		    strcmp((const char *)a->ns->prefix, prefix) == 0 &&
		    strcmp((const char *)a->name, name) == 0)
			return a->children != NULL && a->children->content != NULL ?
			    (const char *)a->children->content : "";
	return NULL;
}

/* The first child element prefix:name of n, or NULL. */
static xmlNode *
wikistorage_child(xmlNode *n, const char *prefix, const char *name)
{
	xmlNode	*c;

	for (c = n->children; c != NULL; c = c->next)
		if (wikistorage_is(c, prefix, name))
			return c;
	return NULL;
}

/* The text of the macro parameter name ("" for the unnamed one), malloc'd, or NULL. */
static char *
wikistorage_param(xmlNode *macro, const char *name)
{
	xmlNode		*c;
	const char	*v;

	for (c = macro->children; c != NULL; c = c->next)
		if (wikistorage_is(c, "ac", "parameter") && (v = wikistorage_attr(c, "ac",
		    "name")) != NULL && strcmp(v, name) == 0)
			return (char *)xmlNodeGetContent(c);
	return NULL;
}

/* Panels: the macro names whose text is prefixed, and the prefix. */
static const struct {
	const char	*macro;
	const char	*label;
} wikistorage_panels[] = {
	{ "info", "Info: " }, { "note", "Note: " }, { "warning", "Warning: " },
	{ "tip", "Tip: " }, { "panel", NULL }, { "expand", NULL },
};

/* Macros that show other content (navigation, listings, embeds): skipped. */
static const char *const wikistorage_skipped[] = {
	"attachments", "blog-posts", "children", "contentbylabel", "content-report-table",
	"gallery", "include", "excerpt-include", "jira", "jiraissues", "livesearch",
	"multimedia", "pagetree", "pagetreesearch", "popular-labels", "profile",
	"recently-updated", "related-labels", "roadmap", "space-details", "toc",
	"toc-zone-nav", "view-file", "viewfile", "widget", NULL
};

/* A macro with a plain-text body (code, noformat, diagrams): a code block. */
static int
wikistorage_code_macro(struct html_walker *w, xmlNode *n, const char *name, xmlNode *body)
{
	char	*lang = wikistorage_param(n, "language");
	char	*title = wikistorage_param(n, "title");
	char	*text = (char *)xmlNodeGetContent(body);
	size_t	 i;
	int	 rc = -1;

	if (text == NULL)
		goto out;
	if (lang == NULL && strcasecmp(name, "code") != 0 &&
	    strcasecmp(name, "noformat") != 0)
		lang = (char *)xmlStrdup((const xmlChar *)name);
	for (i = 0; lang != NULL && lang[i] != '\0'; i++)
		lang[i] = (char)tolower((unsigned char)lang[i]);
	rc = html_code(w, lang, title, text, strlen(text));
out:
	xmlFree(lang);
	xmlFree(title);
	xmlFree(text);
	return rc;
}

/* A panel or expand macro: its title as a paragraph, then its body with the label. */
static int
wikistorage_panel(struct html_walker *w, xmlNode *n, const char *label)
{
	char	*title = wikistorage_param(n, "title");
	int	 rc = -1;

	if (html_flush(w) == -1)
		goto out;
	w->label = label;
	if (title != NULL && *title != '\0') {
		if (html_text(w, title, strlen(title)) == -1 || html_flush(w) == -1)
			goto out;
		w->label = NULL;
	}
	rc = HTML_DESCEND;
out:
	xmlFree(title);
	return rc;
}

/* The anchor macro: its name is the anchor of the heading that follows. */
static int
wikistorage_anchor(struct html_walker *w, xmlNode *n)
{
	char	*v = wikistorage_param(n, "");
	int	 rc = 0;

	if (v != NULL && *v != '\0') {
		free(w->pendid);
		if ((w->pendid = strdup(v)) == NULL) {
			log_err("%s: out of memory", __func__);
			rc = -1;
		}
	}
	xmlFree(v);
	return rc == -1 ? -1 : HTML_SKIP;
}

/* An ac:structured-macro (or an old ac:macro). */
static int
wikistorage_macro(struct html_walker *w, xmlNode *n)
{
	const char	*name = wikistorage_attr(n, "ac", "name");
	xmlNode		*body;
	char		*v;
	size_t		 i;
	int		 rc;

	if (name == NULL)
		name = "";
	for (i = 0; wikistorage_skipped[i] != NULL; i++)
		if (strcasecmp(name, wikistorage_skipped[i]) == 0)
			return HTML_SKIP;
	if ((body = wikistorage_child(n, "ac", "plain-text-body")) != NULL)
		return wikistorage_code_macro(w, n, name, body) == -1 ? -1 : HTML_SKIP;
	for (i = 0; i < sizeof(wikistorage_panels) / sizeof(wikistorage_panels[0]); i++)
		if (strcasecmp(name, wikistorage_panels[i].macro) == 0)
			return wikistorage_panel(w, n, wikistorage_panels[i].label);
	if (strcasecmp(name, "anchor") == 0)
		return wikistorage_anchor(w, n);
	if (strcasecmp(name, "status") == 0) {
		v = wikistorage_param(n, "title");
		rc = v != NULL ? html_text(w, v, strlen(v)) : 0;
		xmlFree(v);
		return rc == -1 ? -1 : HTML_SKIP;
	}
	return HTML_DESCEND;
}

/* An ac:link: its body's text, else the title of the page it names. */
static int
wikistorage_link(struct html_walker *w, xmlNode *n)
{
	const char	*t = NULL;
	xmlNode		*c;

	if (wikistorage_child(n, "ac", "link-body") != NULL ||
	    wikistorage_child(n, "ac", "plain-text-link-body") != NULL)
		return HTML_DESCEND;
	for (c = n->children; c != NULL && t == NULL; c = c->next)
		if (wikistorage_is(c, "ri", "page") || wikistorage_is(c, "ri", "blog-post"))
			t = wikistorage_attr(c, "ri", "content-title");
		else if (wikistorage_is(c, "ri", "space"))
			t = wikistorage_attr(c, "ri", "space-key");
	if (t != NULL && html_text(w, t, strlen(t)) == -1)
		return -1;
	return HTML_SKIP;
}

/* An ac:task: an item marked done or not. */
static int
wikistorage_task(struct html_walker *w, xmlNode *n)
{
	xmlNode	*st = wikistorage_child(n, "ac", "task-status");
	char	*s = st != NULL ? (char *)xmlNodeGetContent(st) : NULL;
	int	 done = s != NULL && strstr(s, "complete") == s;

	xmlFree(s);
	return html_item(w, done ? "- [x] " : "- [ ] ");
}

static int
wikistorage_enter(struct html_walker *w, xmlNode *n)
{
	const char	*l;

	if ((l = wikistorage_local(n, "ac")) == NULL)
		return HTML_SKIP;		/* ri: resources, at: template parts */
	if (strcmp(l, "structured-macro") == 0 || strcmp(l, "macro") == 0)
		return wikistorage_macro(w, n);
	if (strcmp(l, "link") == 0)
		return wikistorage_link(w, n);
	if (strcmp(l, "layout") == 0 || strcmp(l, "layout-section") == 0 ||
	    strcmp(l, "layout-cell") == 0)
		return html_flush(w);
	if (strcmp(l, "task-list") == 0)
		return html_list(w, 0, 1);
	if (strcmp(l, "task") == 0)
		return wikistorage_task(w, n);
	if (strcmp(l, "plain-text-body") == 0)
		return wikistorage_code_macro(w, n, "code", n) == -1 ? -1 : HTML_SKIP;
	if (strcmp(l, "parameter") == 0 || strcmp(l, "image") == 0 ||
	    strcmp(l, "emoticon") == 0 || strcmp(l, "placeholder") == 0 ||
	    strcmp(l, "task-id") == 0 || strcmp(l, "task-status") == 0 ||
	    strcmp(l, "adf-fallback") == 0)
		return HTML_SKIP;
	return HTML_DESCEND;
}

static int
wikistorage_leave(struct html_walker *w, xmlNode *n)
{
	const char	*l = wikistorage_local(n, "ac");

	if (l == NULL)
		return 0;
	if (strcmp(l, "task-list") == 0)
		return html_list(w, 0, 0);
	if (strcmp(l, "task") == 0)
		return html_item_end(w);
	if (strcmp(l, "structured-macro") == 0 || strcmp(l, "macro") == 0) {
		if (html_flush(w) == -1)
			return -1;
		w->label = NULL;
		return 0;
	}
	if (strncmp(l, "layout", 6) == 0 || strcmp(l, "rich-text-body") == 0)
		return html_flush(w);
	return 0;
}

static const struct html_ext wikistorage_ext = { wikistorage_enter, wikistorage_leave };

/* ---------------------------------------------------------------- entry point */

int
wikistorage_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	struct docb	 b;
	struct buf	 src;
	struct html_walker	 w;
	xmlDocPtr	 doc = NULL;
	xmlNode		*root, *c;
	int		 rc = -1, binit = 0;

	memset(out, 0, sizeof(*out));
	buf_init(&src);
	html_init(&w, &b, &wikistorage_ext);
	if (wikistorage_prepare(&src, data, len) == -1) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	if (src.len > INT_MAX) {
		log_err("%s: %s: too large", __func__, path);
		goto out;
	}
	if (doc_build_init(&b, out, poll) == -1)
		goto out;
	binit = 1;
	doc = xmlReadMemory(src.p, (int)src.len, NULL, "UTF-8", XML_PARSE_NONET |
	    XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_RECOVER |
	    XML_PARSE_NOCDATA | XML_PARSE_COMPACT);
	buf_release(&src);
	root = doc != NULL ? xmlDocGetRootElement(doc) : NULL;
	for (c = root != NULL ? root->children : NULL; c != NULL; c = c->next)
		if (html_walk(&w, c) == -1)
			goto fail;
	if (html_flush(&w) == -1)
		goto fail;
	binit = 0;
	rc = doc_build_finish(&b, NULL, path);
	goto out;
fail:
	if (!b.stopped)
		log_err("%s: %s: cannot parse", __func__, path);
out:
	if (binit)
		doc_build_release(&b);
	if (rc == -1)
		doc_release(out);
	html_release(&w);
	if (doc != NULL)
		xmlFreeDoc(doc);
	buf_release(&src);
	return rc;
}
