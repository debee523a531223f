/* links.c: the links of a page, and the frontier, for the crawler (links.h). */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "sources/links.h"

/* Keeps href (n bytes, blanks around it dropped). 0, or -1 out of memory. */
static int
links_add(struct links *l, const char *href, size_t n)
{
	char	**v;

	while (n > 0 && isspace((unsigned char)*href)) {
		href++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)href[n - 1]))
		n--;
	if (n == 0 || n > LINKS_MAX_HREF || l->n >= LINKS_MAX)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		if ((v = reallocarray(l->hrefs, l->cap, sizeof(*v))) == NULL)
			return -1;
		l->hrefs = v;
	}
	if ((l->hrefs[l->n] = strndup(href, n)) == NULL)
		return -1;
	l->n++;
	return 0;
}

/* 1 when the space-separated list s holds word (any case). */
static int
links_has_word(const char *s, const char *word)
{
	size_t	 n = strlen(word), k;

	while (*s != '\0') {
		while (*s != '\0' && (isspace((unsigned char)*s) || *s == ','))
			s++;
		for (k = 0; s[k] != '\0' && !isspace((unsigned char)s[k]) && s[k] != ',';
		    k++)
			;
		if (k == n && strncasecmp(s, word, n) == 0)
			return 1;
		s += k;
	}
	return 0;
}

/* Copies attribute name of e into *dst when *dst is still NULL. */
static int
links_first(xmlNode *e, const char *name, char **dst)
{
	xmlChar	*v;

	if (*dst != NULL || (v = xmlGetProp(e, (const xmlChar *)name)) == NULL)
		return 0;
	*dst = strlen((const char *)v) <= LINKS_MAX_HREF ? strdup((const char *)v) : NULL;
	xmlFree(v);
	return 0;
}

/* One element: a, base, link or meta. 0, or -1 out of memory. */
static int
links_element(struct links *l, xmlNode *e)
{
	const char	*name = (const char *)e->name;
	xmlChar		*v = NULL, *w = NULL;
	int		 rc = 0;

	if (strcasecmp(name, "a") == 0) {
		if ((v = xmlGetProp(e, (const xmlChar *)"href")) != NULL)
			rc = links_add(l, (const char *)v, strlen((const char *)v));
	} else if (strcasecmp(name, "base") == 0)
		rc = links_first(e, "href", &l->base);
	else if (strcasecmp(name, "link") == 0) {
		if ((v = xmlGetProp(e, (const xmlChar *)"rel")) != NULL &&
		    links_has_word((const char *)v, "canonical"))
			rc = links_first(e, "href", &l->canonical);
	} else if (strcasecmp(name, "meta") == 0) {
		if ((v = xmlGetProp(e, (const xmlChar *)"name")) != NULL &&
		    strcasecmp((const char *)v, "robots") == 0 &&
		    (w = xmlGetProp(e, (const xmlChar *)"content")) != NULL) {
			if (links_has_word((const char *)w, "noindex") ||
			    links_has_word((const char *)w, "none"))
				l->noindex = 1;
			if (links_has_word((const char *)w, "nofollow") ||
			    links_has_word((const char *)w, "none"))
				l->nofollow = 1;
		}
	}
	xmlFree(v);
	xmlFree(w);
	return rc;
}

int
links_html(const char *data, size_t len, struct links *out)
{
	htmlDocPtr	 doc;
	xmlNode		*n;
	int		 rc = -1;

	memset(out, 0, sizeof(*out));
	if (len > INT_MAX)
		return -1;
	doc = htmlReadMemory(data, (int)len, NULL, NULL, HTML_PARSE_RECOVER |
	    HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
	if (doc == NULL)
		return -1;
	/* depth-first over the tree without recursion */
	for (n = xmlDocGetRootElement(doc); n != NULL; ) {
		if (n->type == XML_ELEMENT_NODE && links_element(out, n) == -1)
			goto out;
		if (n->type == XML_ELEMENT_NODE && n->children != NULL) {
			n = n->children;
			continue;
		}
		while (n != NULL && n->next == NULL)
			n = n->parent != NULL && n->parent->type == XML_ELEMENT_NODE ?
			    n->parent : NULL;
		if (n != NULL)
			n = n->next;
	}
	rc = 0;
out:
	xmlFreeDoc(doc);
	if (rc == -1)
		links_release(out);
	return rc;
}

int
links_markdown(const char *data, size_t len, struct links *out)
{
	size_t	 i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i + 1 < len; i++) {
		if (data[i] == ']' && data[i + 1] == '(') {
			/* [text](target "title"): the target ends at a blank or ')' */
			for (j = i + 2; j < len && j - i - 2 <= LINKS_MAX_HREF &&
			    data[j] != ')' && !isspace((unsigned char)data[j]); j++)
				;
			if (j < len && links_add(out, data + i + 2, j - i - 2) == -1)
				goto nomem;
			i = j - 1;
		} else if (data[i] == '<' && len - i > 8 &&
		    (strncasecmp(data + i + 1, "http://", 7) == 0 ||
		    strncasecmp(data + i + 1, "https://", 8) == 0)) {
			for (j = i + 1; j < len && j - i - 1 <= LINKS_MAX_HREF &&
			    data[j] != '>' && !isspace((unsigned char)data[j]); j++)
				;
			if (j < len && data[j] == '>' &&
			    links_add(out, data + i + 1, j - i - 1) == -1)
				goto nomem;
			i = j - 1;
		}
	}
	return 0;
nomem:
	links_release(out);
	return -1;
}

void
links_release(struct links *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++)
		free(l->hrefs[i]);
	free(l->hrefs);
	free(l->base);
	free(l->canonical);
	memset(l, 0, sizeof(*l));
}

/* ------------------------------------------------------------------ the frontier */

void
frontier_init(struct frontier *f, size_t max_items, size_t max_bytes)
{
	memset(f, 0, sizeof(*f));
	f->max_items = max_items;
	f->max_bytes = max_bytes;
}

int
frontier_push(struct frontier *f, const char *url, int depth, int start)
{
	struct frontier_item *v;
	size_t		 len = strlen(url) + 1, cap;

	if (f->n - f->head >= f->max_items || len > f->max_bytes - f->bytes) {
		f->dropped++;
		return 0;
	}
	/* the entries already taken go first: the array stays within max_items */
	if (f->n == f->cap && f->head > 0) {
		memmove(f->v, f->v + f->head, (f->n - f->head) * sizeof(*f->v));
		f->n -= f->head;
		f->head = 0;
	}
	if (f->n == f->cap) {
		cap = f->cap ? f->cap * 2 : 64;
		if (cap > f->max_items)
			cap = f->max_items;	/* > n: n < max_items here */
		if ((v = reallocarray(f->v, cap, sizeof(*v))) == NULL)
			return -1;
		f->v = v;
		f->cap = cap;
	}
	if ((f->v[f->n].url = strdup(url)) == NULL)
		return -1;
	f->v[f->n].depth = depth;
	f->v[f->n].start = start;
	f->n++;
	f->bytes += len;
	return 1;
}

int
frontier_pop(struct frontier *f, struct frontier_item *out)
{
	if (f->head == f->n) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	*out = f->v[f->head];
	f->v[f->head++].url = NULL;
	f->bytes -= strlen(out->url) + 1;
	if (f->head == f->n)
		f->head = f->n = 0;
	return 1;
}

size_t
frontier_len(const struct frontier *f)
{
	return f->n - f->head;
}

void
frontier_release(struct frontier *f)
{
	size_t	 i;

	for (i = f->head; i < f->n; i++)
		free(f->v[i].url);
	free(f->v);
	memset(f, 0, sizeof(*f));
}
