/*
 * html.h: the element walker shared by html.c (web pages, libxml2's HTML parser) and
 * storage.c (wiki storage format, libxml2's XML parser). It walks a libxml2 tree without
 * recursion and feeds the section builder of doc.c: headings, prose blocks (paragraphs,
 * list items, table rows, quotes) and code blocks. Elements in a namespace (the wiki's
 * ac: and ri: elements) go to the hooks of struct html_ext.
 */
#ifndef HTML_H
#define HTML_H

#include <libxml/tree.h>

#include "base/buf.h"

struct docb;

/* What an element handler tells the walker. */
#define HTML_DESCEND	0	/* walk the element's children (and call leave) */
#define HTML_SKIP		1	/* skip the element and everything in it */

/* List levels whose markers and numbers are tracked; deeper lists indent no further. */
#define HTML_MAXLIST	16

struct html_walker;

/* The hooks of a dialect (storage.c) for elements in a namespace. */
struct html_ext {
	/* HTML_DESCEND, HTML_SKIP or -1 (an error, logged). */
	int	(*enter)(struct html_walker *, xmlNode *);
	/* Called after the children of an element enter returned HTML_DESCEND for. */
	int	(*leave)(struct html_walker *, xmlNode *);
};

struct html_walker {
	struct docb	*b;
	const struct html_ext	*ext;	/* NULL: plain HTML */
	int		 dropheader;	/* <header> is page chrome (no content container) */
	struct buf	 inl;		/* inline text of the open block */
	size_t		 base;		/* bytes of inl that are its list marker */
	const char	*label;		/* put before the next text ("Note: "), or NULL */
	int		 heading;	/* level of the open heading, 0 outside one */
	int		 hlevel;	/* level of the last h1-h6 */
	char		*first;		/* the text of the first heading */
	xmlNode		*sigdt;		/* the open API signature (a dt heading) */
	int		 sigdd;		/* open descriptions of signatures */
	char		*hid;		/* the open heading's own id */
	char		*pendid;	/* id of an enclosing section, for the next heading */
	int		 nlists;
	struct {
		int		 ordered;
		unsigned	 num;
	}		 lists[HTML_MAXLIST];
	int		 quote;		/* open blockquotes */
	int		 dl;		/* open definition lists */
	int		 cell;		/* open table cells (blocks inside run on) */
	int		 row;		/* open table rows */
	int		 rowcells;	/* cells of the open row so far */
	size_t		 aoff;		/* inl.len where the open link began */
	size_t		 tickend;	/* inl.len after the last closing backtick */
	int		 ina;
	struct buf	 code;		/* the text of a code block being read */
	struct buf	 lab;		/* an admonition's title, as the label */
	xmlNode		*admon;		/* the open admonition title element */
	xmlNode		*admonbox;	/* and the admonition */
};

void	 html_init(struct html_walker *, struct docb *, const struct html_ext *);
void	 html_release(struct html_walker *);
/* Walks the element top and everything in it (top itself included). 0 or -1. */
int	 html_walk(struct html_walker *, xmlNode *top);
/* Emits the open block (a paragraph, item or row) to the builder. */
int	 html_flush(struct html_walker *);
/* Appends inline text (white space collapsed), after the pending label if any. */
int	 html_text(struct html_walker *, const char *, size_t);
/* A list opens (ordered or not) or, open 0, closes. */
int	 html_list(struct html_walker *, int ordered, int open);
/* A list item opens: mark ("- [x] "), NULL for the list's "- " or "N. ". */
int	 html_item(struct html_walker *, const char *mark);
/* A list item ends: its text goes out (the marker alone does not). */
int	 html_item_end(struct html_walker *);
/* Emits a code block, with a title line before it when title is not NULL/empty. */
int	 html_code(struct html_walker *, const char *lang, const char *title, const char *, size_t);
/* The text of an attribute of the element (no namespace), or NULL; not a copy. */
const char *html_attr(xmlNode *, const char *name);
/* 1 when the element's name is name (and it is in no namespace: HTML). */
int	 html_is(xmlNode *, const char *name);

#endif
