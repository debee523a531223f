/*
 * doc.h: the parsers' private interface (doc.c, markdown.c, rst.c, html.c, storage.c,
 * source.c, openapi_doc.c). A parser turns a document into a stream of headings, prose blocks
 * and code blocks; the section builder (docb_*, in docbuild.c) groups them into struct doc
 * sections, makes anchors unique, splits long sections and computes breadcrumbs once the
 * document title is known. The parsers call the builder; only the dispatcher (doc.c) calls
 * the parsers.
 */
#ifndef DOC_H
#define DOC_H

#include "base/buf.h"

struct doc;
struct doc_code;
struct doc_poll;

/* A section longer than this (text + code bytes) is split at a block boundary. */
#define DOC_SPLIT_BYTES		6000
/* ... but never into a part shorter than this. */
#define DOC_SPLIT_MIN		1500
/*
 * Heading text, anchors and the document title are cut to this many bytes (at a character
 * boundary): every section repeats its heading trail, so an unbounded heading would make a
 * document's size grow with the square of its input.
 */
#define DOC_TITLE_MAX		512
/* The parsers call doc_build_poll about this often (lines, blocks or builder calls). */
#define DOC_POLL_EVERY		256

enum docb_kind {
	DOCB_PARA,		/* separated from its neighbours by a blank line */
	DOCB_ITEM		/* list item or table row: one newline from the previous item */
};

/* An anchor in use, and the next "-N" suffix to try when a heading repeats it. */
struct docb_slug {
	char		 *s;
	size_t		  next;
};

struct docb {
	struct doc	 *doc;
	size_t		  capsecs;
	char		 *trail[7];	/* heading text per level, 1..6 */
	struct docb_slug *slugs;	/* anchors used so far: a hash set */
	size_t		  slugcap;	/* a power of two, 0 before the first */
	size_t		  nslugs;
	struct doc_poll	 *poll;		/* NULL: never stopped */
	unsigned	  pollcount;
	int		  stopped;	/* the poll said stop: every call fails */
	/* the open section */
	char		 *title;
	char		 *anchor;
	char		 *crumb;	/* trail without the document title */
	int		  level;
	struct buf	  text;
	enum docb_kind	  lastkind;
	struct doc_code	 *code;
	size_t		  ncode, capcode;
	size_t		  codebytes;
	/* the last prose block: text.len before its separator, ncode when it came */
	size_t		  lastblk_off;
	size_t		  lastblk_ncode;
	char		 *first_h1;	/* a level-1 heading that opens the document */
	int		  nheadings;
};

/* Opens a builder for d; poll (may be NULL) is consulted by doc_build_poll. */
int	 doc_build_init(struct docb *, struct doc *, struct doc_poll *);
/*
 * The parsers' periodic check, cheap enough for every line: every DOC_POLL_EVERY calls
 * it asks the poll (struct doc_poll in parse/parse.h) at most every DOC_POLL_MS. Returns -1,
 * now and on every later call, once the poll said stop; the parser then fails.
 */
int	 doc_build_poll(struct docb *);
/* Closes the open section and opens one for a heading (level 1..6). */
int	 doc_build_heading(struct docb *, int level, const char *title);
/* Same, with the anchor made unique from slug (NULL: the slug of the title). */
int	 doc_build_heading_anchor(struct docb *, int level, const char *title,
	    const char *slug);
/* Appends a prose block (trailing whitespace trimmed; empty blocks are ignored). */
int	 doc_build_text(struct docb *, const char *, size_t, enum docb_kind);
/*
 * Appends a code block whole; the code is copied without its trailing newlines. When
 * the section must be split before it, the prose block just before it (which introduces
 * it) moves into the new part with it.
 */
int	 doc_build_code(struct docb *, const char *lang, const char *, size_t);
/* Bytes of text and code in the open section. */
size_t	 doc_build_size(const struct docb *);
/*
 * Closes the last section and sets the document title: title when not NULL/empty, else the
 * H1 that opens the document (no heading or text before it), else the file name of path
 * without its extension. Releases the builder.
 */
int	 doc_build_finish(struct docb *, const char *title, const char *path);
/* Releases the builder after a failure (the caller releases the doc). */
void	 doc_build_release(struct docb *);

/*
 * A Markdown fragment inside another document (a doc comment in a source file). It opens
 * a level-1 section titled symbol, and its own headings become sections one level
 * deeper, so their breadcrumb reads "symbol > Heading".
 */
struct md_fragment {
	const char	*symbol;	/* title of the fragment's first section */
	const char	*anchor;	/* its anchor; NULL: the slug of symbol */
	const char	*anchor_prefix;	/* headings anchor "prefix-slug"; NULL: "slug" */
	const char	*deflang;	/* fences naming no language; "rust": rustdoc too */
	const char	*sig;		/* code block closing the first section, or NULL */
	const char	*siglang;
	int		 noindent;	/* indented lines are not code blocks */
};

/* Parses md (len bytes, clean input) into the open builder b (polled through b). */
int	 markdown_parse_fragment(struct docb *b, const char *md, size_t len,
	    const struct md_fragment *);

/*
 * Copies data for the parsers: NUL bytes become spaces, CRLF and CR become LF, a UTF-8
 * BOM is dropped and each invalid UTF-8 byte becomes U+FFFD. Returns a NUL-terminated copy.
 */
char	*doc_clean_input(const char *, size_t, size_t *outlen);
/* The file name of path (after its last '/'); "" for NULL. */
const char *doc_basename(const char *path);
/* The back ends of doc_parse_poll; poll may be NULL. */
int	 markdown_parse_poll(const char *path, const char *, size_t, struct doc *,
	    struct doc_poll *);
int	 rst_parse_poll(const char *path, const char *, size_t, struct doc *,
	    struct doc_poll *);
int	 code_parse_poll(const char *path, const char *, size_t, struct doc *,
	    struct doc_poll *);
/* A web page (DOC_FORMAT_HTML): its main content; see ctxd-content(7). */
int	 html_parse_poll(const char *path, const char *, size_t, struct doc *,
	    struct doc_poll *);
/* A wiki page body in storage format (DOC_FORMAT_STORAGE), an XHTML fragment. */
int	 wikistorage_parse_poll(const char *path, const char *, size_t, struct doc *,
	    struct doc_poll *);
/*
 * code_parse_poll; with overview set, a file with little documentation also gets one
 * section "PATH — overview" (no prose, its main signatures as code) for the LLM to
 * describe (describe.c), and *overview is set to 1 then, else 0.
 */
int	 code_parse_overview(const char *path, const char *, size_t, struct doc *,
	    struct doc_poll *, int *overview);
/* Collapses runs of white space to one space and trims both ends, in place. */
void	 doc_squeeze(char *);

#endif
