/*
 * doc-helpers.h: helpers of the unit tests that parse documents (test-doc.c,
 * test-source.c). Include after ctxd.h and tap.h. All static inline, so a test that uses
 * only some of them builds without unused-function warnings.
 */
#ifndef DOC_HELPERS_H
#define DOC_HELPERS_H

#include <string.h>

#include "base/buf.h"
#include "parse/parse.h"
#include "tap.h"

/* Parses a NUL-terminated sample, as one test line; -1 when parsing fails. */
static inline int
parse(const char *path, const char *src, struct doc *d)
{
	int	 rc = doc_parse(path, src, strlen(src), d);

	ok(rc == 0, "doc_parse %s", path);
	return rc;
}

/* The first section with this title, or NULL. */
static inline const struct doc_section *
sec(const struct doc *d, const char *title)
{
	size_t	 i;

	for (i = 0; i < d->nsecs; i++)
		if (strcmp(d->secs[i].title, title) == 0)
			return &d->secs[i];
	return NULL;
}

/* The section whose breadcrumb is c, or NULL. */
static inline const struct doc_section *
crumb(const struct doc *d, const char *c)
{
	size_t	 i;

	for (i = 0; i < d->nsecs; i++)
		if (strcmp(d->secs[i].breadcrumb, c) == 0)
			return &d->secs[i];
	return NULL;
}

/* Fields of a section that may be NULL (a missing section fails the comparison). */
static inline const char *
s_title(const struct doc_section *s)
{
	return s != NULL ? s->title : NULL;
}

static inline const char *
s_anchor(const struct doc_section *s)
{
	return s != NULL ? s->anchor : NULL;
}

static inline const char *
s_text(const struct doc_section *s)
{
	return s != NULL ? s->text : NULL;
}

static inline const char *
s_code(const struct doc_section *s, size_t i)
{
	return s != NULL && i < s->ncode ? s->code[i].code : NULL;
}

static inline const char *
s_lang(const struct doc_section *s, size_t i)
{
	return s != NULL && i < s->ncode ? s->code[i].lang : NULL;
}

/*
 * All the text and code of a document in order: "[title]\ntext\n" per section, then
 * "{lang}code\n" per code block. A static buffer, overwritten by the next call.
 */
static inline const char *
doc_all(const struct doc *d)
{
	static struct buf	 b;
	size_t			 i, j;

	buf_reset(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < d->nsecs; i++) {
		buf_printf(&b, "[%s]\n%s\n", d->secs[i].title, d->secs[i].text);
		for (j = 0; j < d->secs[i].ncode; j++)
			buf_printf(&b, "{%s}%s\n", d->secs[i].code[j].lang,
			    d->secs[i].code[j].code);
	}
	return b.p;
}

#endif
