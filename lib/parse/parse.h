/* parse.h: the parsers' public interface: a document in, its sections out (struct doc). */
#ifndef PARSE_H
#define PARSE_H

#include <stddef.h>

struct doc_code {
	char	*lang;			/* "" when the fence named none */
	char	*code;
	/*
	 * Where the block stands in its section's text: the byte offset of the end of the
	 * prose before it (0: before all prose); DOC_CODE_AFTER or any offset past the
	 * text's end: after all of it (snippets indexed before offsets were kept).
	 */
	size_t	 at;
};
#define DOC_CODE_AFTER	((size_t)-1)

struct doc_section {
	char	*title;			/* heading text, plain; the page title for the intro */
	char	*breadcrumb;		/* "Page > Section > Sub" */
	char	*anchor;		/* GitHub-style slug of the heading, "" for the intro */
	int	 level;			/* 1..6, 0 for the text before the first heading */
	char	*text;			/* explanatory prose (Markdown-ish plain text) */
	struct doc_code *code;
	size_t	 ncode;
	int	 titled;		/* breadcrumb starts with the document title that
					 * doc_build_finish put before the heading trail */
};

struct doc {
	char	*title;			/* front-matter title, first H1, or file name */
	struct doc_section *secs;
	size_t	 nsecs;
};

/* Parses a documentation file by its name (doc_format_of; plain text when no row matches). */
int	 doc_parse(const char *path, const char *data, size_t len, struct doc *out);
/*
 * A stop check for long parses (doc_parse_poll): while a file is parsed, fn(arg) is asked
 * about every DOC_POLL_MS (from the parsers' loops over lines and blocks); a non-zero
 * answer stops the parse, which returns -1 with stopped set to that answer.
 */
#define DOC_POLL_MS	100
struct doc_poll {
	int		(*fn)(void *arg);
	void		 *arg;
	int		  stopped;	/* out: fn's answer that stopped the parse, else 0 */
	long long	  last_ms;	/* when fn was last asked (0: not yet) */
	long		  test_sleep_us; /* tests only: sleep this long at every check */
};
/* doc_parse, stopped by poll (may be NULL) when it says so. */
int	 doc_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
	    struct doc_poll *poll);
/*
 * The formats a source back end may name for a document (struct backend_doc.format),
 * whatever its path: Markdown, HTML (a web page: its main content), the wiki's storage
 * format (XHTML with macros) and an OpenAPI description (JSON or YAML).
 */
#define DOC_FORMAT_MARKDOWN	"markdown"
#define DOC_FORMAT_HTML		"html"
#define DOC_FORMAT_STORAGE	"storage"
#define DOC_FORMAT_OPENAPI	"openapi"
/*
 * doc_parse_poll for a document of the given format (a DOC_FORMAT_* name); NULL goes by
 * path's extension. An unknown format fails (-1).
 */
int	 doc_parse_as(const char *format, const char *path, const char *data, size_t len,
	    struct doc *out, struct doc_poll *poll);
/*
 * One row of the table of document formats (doc_formats, ended by a row whose name is
 * NULL): its name (a DOC_FORMAT_* name for those back ends name), whether and how a file
 * name picks it, its extensions (lowercase, without the dot) and whole base names, a
 * detector of the path (or NULL) and its parser.
 */
enum doc_by_name {
	DOC_BY_NAME_DOC,	/* a repository file so named is documentation: selected */
	DOC_BY_NAME_SOURCE,	/* source code: selected with indexSourceCode only */
	DOC_BY_NAME_NEVER	/* named by a back end only (doc_parse_as) */
};
struct doc_format {
	const char		*name;
	enum doc_by_name	 by_name;
	const char *const	*exts;
	const char *const	*names;
	int			(*detect)(const char *path);
	int			(*parse)(const char *path, const char *data, size_t len,
				    struct doc *out, struct doc_poll *poll);
};
extern const struct doc_format doc_formats[];
/* The row of doc_formats that path's file name picks, or NULL (plain text, not selected). */
const struct doc_format *doc_format_of(const char *path);
void	 doc_release(struct doc *);
/*
 * Gives a parsed document the title its source names (a wiki page's title): the document
 * title, the intro sections' titles and the breadcrumbs become what the parser would have
 * made with that title (the heading trail is kept). 0, or -1 out of memory (d unchanged
 * but for the sections already done).
 */
int	 doc_retitle(struct doc *d, const char *title);
/* Markdown/MDX (md4c) and reStructuredText back ends; same contract as doc_parse. */
int	 markdown_parse(const char *path, const char *data, size_t len, struct doc *out);
int	 rst_parse(const char *path, const char *data, size_t len, struct doc *out);
/* GitHub-style heading anchor (lowercase, punctuation dropped, spaces to '-'). */
char	*doc_slug(const char *heading);

#endif /* PARSE_H */
