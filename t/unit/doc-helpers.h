/*
 * doc-helpers.h: helpers of the unit tests that parse documents (test-doc.c,
 * test-source.c). Include after ctxd.h and tap.h. All static inline, so a test that uses
 * only some of them builds without unused-function warnings.
 */
#ifndef DOC_HELPERS_H
#define DOC_HELPERS_H

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

#endif
