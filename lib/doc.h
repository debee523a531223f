/*
 * doc.h: private interface shared by doc.c, markdown.c and rst.c. The back ends turn a
 * document into a stream of headings, prose blocks and code blocks; the section builder
 * (docb_*, in doc.c) groups them into struct doc sections, makes anchors unique, splits
 * long sections and computes breadcrumbs once the document title is known.
 */
#ifndef DOC_H
#define DOC_H

/* A section longer than this (text + code bytes) is split at a block boundary. */
#define DOC_SPLIT_BYTES		6000
/* ... but never into a part shorter than this. */
#define DOC_SPLIT_MIN		1500

enum docb_kind {
	DOCB_PARA,		/* separated from its neighbours by a blank line */
	DOCB_ITEM		/* list item or table row: one newline from the previous item */
};

struct docb {
	struct doc	 *doc;
	size_t		  capsecs;
	char		 *trail[7];	/* heading text per level, 1..6 */
	char		**slugs;	/* anchors used so far */
	size_t		  nslugs;
	/* the open section */
	char		 *title;
	char		 *anchor;
	char		 *crumb;	/* trail without the document title */
	int		  level;
	struct buf	  text;
	enum docb_kind	  lastkind;
	struct doc_code	 *code;
	size_t		  ncode;
	size_t		  codebytes;
	/* the last prose block: text.len before its separator, ncode when it came */
	size_t		  lastblk_off;
	size_t		  lastblk_ncode;
	char		 *first_h1;	/* a level-1 heading that opens the document */
	int		  nheadings;
};

int	 doc_build_init(struct docb *, struct doc *);
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

/* Parses md (len bytes, clean input) into the open builder b. */
int	 markdown_parse_fragment(struct docb *b, const char *md, size_t len,
	    const struct md_fragment *);

/*
 * Copies data for the parsers: NUL bytes become spaces, CRLF and CR become LF, a UTF-8
 * BOM is dropped and invalid UTF-8 bytes become '?'. Returns a NUL-terminated copy.
 */
char	*doc_clean_input(const char *, size_t, size_t *outlen);
/* Collapses runs of white space to one space and trims both ends, in place. */
void	 doc_squeeze(char *);

#endif
