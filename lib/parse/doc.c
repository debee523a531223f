/*
 * doc.c: documentation files to sections: the table of document formats (which file names
 * each parser takes, read by selection too) and the dispatch to the parsers; plain text.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "parse/code.h"
#include "parse/doc.h"
#include "parse/openapi.h"
#include "parse/parse.h"

/* Lowercase extension of path's file name (without the dot), "" when none. */
static void
doc_ext(const char *path, char *out, size_t outsz)
{
	const char	*base = doc_basename(path), *dot;
	size_t		 i;

	out[0] = '\0';
	dot = strrchr(base, '.');
	if (dot == NULL || dot == base)
		return;
	for (i = 0; dot[1 + i] != '\0' && i + 1 < outsz; i++)
		out[i] = (char)tolower((unsigned char)dot[1 + i]);
	out[i] = '\0';
}

/* ---------------------------------------------------------------- plain text */

/* Plain text: one intro section, blank-line separated blocks kept verbatim. */
static int
doc_plain_parse(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	struct docb	 b;
	char		*txt;
	const char	*p, *blk, *eol;
	size_t		 n, tlen;
	int		 rc = -1, chunked = 0;

	if ((txt = doc_clean_input(data, len, &tlen)) == NULL)
		return -1;
	if (doc_build_init(&b, out, poll) == -1) {
		free(txt);
		return -1;
	}
	p = blk = txt;
	while (*p != '\0') {
		if (doc_build_poll(&b) == -1)
			goto fail;
		eol = strchr(p, '\n');
		n = eol != NULL ? (size_t)(eol - p) : strlen(p);
		if (strspn(p, " \t") >= n) {
			if (doc_build_text(&b, blk, (size_t)(p - blk),
			    chunked ? DOCB_ITEM : DOCB_PARA) == -1)
				goto fail;
			blk = eol != NULL ? eol + 1 : p + n;
			chunked = 0;
		} else if ((size_t)(p - blk) >= DOC_SPLIT_BYTES / 3) {
			/* a long run of lines without a blank one: cut at a line */
			if (doc_build_text(&b, blk, (size_t)(p - blk),
			    chunked ? DOCB_ITEM : DOCB_PARA) == -1)
				goto fail;
			blk = p;
			chunked = 1;
		}
		if (eol == NULL)
			break;
		p = eol + 1;
	}
	if (doc_build_text(&b, blk, strlen(blk), chunked ? DOCB_ITEM : DOCB_PARA) == -1)
		goto fail;
	rc = doc_build_finish(&b, NULL, path);
	goto out;
fail:
	doc_build_release(&b);
out:
	if (rc == -1)
		doc_release(out);
	free(txt);
	return rc;
}

/*
 * The formats documents are parsed as: the one table that selection (select.c: which files
 * of a repository are documentation) and dispatch (doc_parse_poll by file name,
 * doc_parse_as by a back end's format name) read. By file name the first row that matches
 * wins: its detector, else a whole base name (any case), else an extension (any case); a
 * file that no row matches is parsed as plain text. Rows without names or extensions are
 * for back ends only (a web page, a wiki page, an API description).
 */
static const char *const doc_markdown_exts[] = {
	"md", "mdx", "markdown", "mdown", "mkd", "mkdn", "mdwn", NULL
};
static const char *const doc_markdown_names[] = { "llms.txt", "llms-full.txt", NULL };
static const char *const doc_rst_exts[] = { "rst", "rest", NULL };
static const char *const doc_text_exts[] = { "txt", "text", NULL };
static const char *const doc_text_names[] = { "README", NULL };

const struct doc_format doc_formats[] = {
	{ "source", DOC_BY_NAME_SOURCE, NULL, NULL, code_is_source, code_parse_poll },
	{ DOC_FORMAT_MARKDOWN, DOC_BY_NAME_DOC, doc_markdown_exts, doc_markdown_names, NULL,
	    markdown_parse_poll },
	{ "rst", DOC_BY_NAME_DOC, doc_rst_exts, NULL, NULL, rst_parse_poll },
	{ "text", DOC_BY_NAME_DOC, doc_text_exts, doc_text_names, NULL, doc_plain_parse },
	{ DOC_FORMAT_HTML, DOC_BY_NAME_NEVER, NULL, NULL, NULL, html_parse_poll },
	{ DOC_FORMAT_STORAGE, DOC_BY_NAME_NEVER, NULL, NULL, NULL, wikistorage_parse_poll },
	{ DOC_FORMAT_OPENAPI, DOC_BY_NAME_NEVER, NULL, NULL, NULL, openapi_parse_poll },
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

static int
doc_in_list(const char *const *list, const char *s)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcasecmp(*list, s) == 0)
			return 1;
	return 0;
}

const struct doc_format *
doc_format_of(const char *path)
{
	const struct doc_format *f;
	const char	*base = doc_basename(path);
	char		 ext[16];

	doc_ext(path, ext, sizeof(ext));
	for (f = doc_formats; f->name != NULL; f++) {
		if (f->by_name == DOC_BY_NAME_NEVER)
			continue;
		if ((f->detect != NULL && f->detect(path)) || doc_in_list(f->names, base) ||
		    (*ext != '\0' && doc_in_list(f->exts, ext)))
			return f;
	}
	return NULL;
}

int
doc_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	const struct doc_format *f = doc_format_of(path);

	return (f != NULL ? f->parse : doc_plain_parse)(path, data, len, out, poll);
}

int
doc_parse_as(const char *format, const char *path, const char *data, size_t len,
    struct doc *out, struct doc_poll *poll)
{
	const struct doc_format *f;

	if (format == NULL)
		return doc_parse_poll(path, data, len, out, poll);
	for (f = doc_formats; f->name != NULL; f++)
		if (strcmp(f->name, format) == 0)
			return f->parse(path, data, len, out, poll);
	log_err("%s: %s: no parser for format %s", __func__, path, format);
	return -1;
}

int
doc_parse(const char *path, const char *data, size_t len, struct doc *out)
{
	return doc_parse_poll(path, data, len, out, NULL);
}
