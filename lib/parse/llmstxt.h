/*
 * llmstxt.h: the llms.txt structure parser (https://llmstxt.org): the H1 title, the
 * blockquote summary, and the link lists ("- [name](url): notes") of the file's H2
 * sections, the "## Optional" section marked; and the splitter of an expanded llms file
 * (llms-full.txt, llms-small.txt, llms-ctx.txt) into its parts: <doc ...> or
 * <document> blocks when it uses them, else its H1 headings when it has several.
 *
 * Both are linear in their input, skip fenced code blocks, and are bounded (at most
 * LLMSTXT_MAX_LINKS links and LLMSTXT_MAX_PARTS parts; what is past them is dropped and
 * counted). Self-contained: needs only buf.c.
 */
#ifndef LLMSTXT_H
#define LLMSTXT_H

#include <stddef.h>

#define LLMSTXT_MAX_LINKS	20000	/* links kept of one llms file */
#define LLMSTXT_MAX_PARTS	20000	/* parts kept of one expanded llms file */
#define LLMSTXT_MAX_FIELD	2048	/* bytes kept of a name, note, title or URL */

struct llmstxt_link {
	char	*name;		/* the link text */
	char	*url;		/* as written: absolute, root-relative or relative */
	char	*notes;		/* the text after "name](url):", or NULL */
	char	*section;	/* the H2 it is under, NULL before the first */
	int	 optional;	/* under "## Optional": may be skipped for a shorter context */
};

struct llmstxt {
	char	*title;		/* the H1, or NULL */
	char	*summary;	/* the first blockquote before any H2, or NULL */
	struct llmstxt_link *links;
	size_t	 nlinks;
	size_t	 nsections;	/* H2 headings */
	size_t	 dropped;	/* links past LLMSTXT_MAX_LINKS */
};

/* Parses data (len bytes, need not be NUL-terminated) into *out: 0, or -1 out of memory. */
int	 llmstxt_parse(const char *data, size_t len, struct llmstxt *out);
void	 llmstxt_release(struct llmstxt *);

enum llmstxt_form {
	LLMSTXT_WHOLE,		/* one document (an llms.txt index, or one H1) */
	LLMSTXT_BLOCKS,		/* <doc ...>...</doc> or <document>...</document> blocks */
	LLMSTXT_HEADINGS	/* split at its H1 headings */
};

struct llmstxt_part {
	size_t	 off, len;	/* the part's content in the data */
	char	*title;		/* the block's title attribute or the H1, or NULL */
	char	*url;		/* its own address when it names one (a url, href or source
				 * attribute, a <source> element, or a "Source: URL" line
				 * under the H1), else NULL */
};

struct llmstxt_parts {
	enum llmstxt_form form;
	struct llmstxt_part *v;
	size_t	 n;
	size_t	 dropped;	/* parts past LLMSTXT_MAX_PARTS */
};

/*
 * Splits an expanded llms file: form LLMSTXT_WHOLE with no parts when it has no blocks
 * and at most one H1. Blocks nest (a quoted example inside a block stays in it); an
 * unclosed block ends at the end of the data. 0, or -1 out of memory.
 */
int	 llmstxt_split(const char *data, size_t len, struct llmstxt_parts *out);
void	 llmstxt_parts_release(struct llmstxt_parts *);

/* 1 when the last segment of path (a URL path) names an llms file: llms*.txt. */
int	 llmstxt_is_llms_path(const char *path);

#endif /* LLMSTXT_H */
