/*
 * fuzz-include.c: include directives resolved (lib/parse/include.c) on arbitrary pages.
 * The input is "page path" NUL "page" NUL "file": every file the page names reads as the
 * file part (or, by the name's first byte, as missing or too big), so that ranges, anchors,
 * regions and markers meet arbitrary lines. Every path read must stay in the repository
 * (relative, no "." or ".." step), the page's output within INCLUDE_MAX_OUT, and
 * include_join's answers confined as well.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/include.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct fz {
	const char	*file;
	size_t		 filelen;
	size_t		 reads;
};

/* 1 when path is relative and every step is a plain name (not empty, ".", ".."). */
static int
fz_confined(const char *path)
{
	const char	*p = path, *e;
	size_t		 n;

	if (*p == '\0' || *p == '/')
		return 0;
	for (;;) {
		e = strchr(p, '/');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (e == NULL)
			return 1;
		p = e + 1;
	}
}

static int
fz_read(void *arg, const char *path, char **data, size_t *len)
{
	struct fz	*f = arg;

	if (!fz_confined(path))
		abort();
	if (++f->reads > INCLUDE_MAX_LOOKUPS)
		abort();
	if ((unsigned char)path[0] % 7 == 3)
		return INCLUDE_MISSING;
	if ((unsigned char)path[0] % 7 == 5)
		return INCLUDE_TOO_BIG;
	if ((*data = malloc(f->filelen + 1)) == NULL)
		return -1;
	memcpy(*data, f->file, f->filelen);
	(*data)[f->filelen] = '\0';
	*len = f->filelen;
	return 0;
}

static void
fz_used(void *arg, const char *path)
{
	(void)arg;
	if (!fz_confined(path))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*in = (const char *)data, *page, *end = in + size, *z;
	char		*path, *out = NULL, joined[512];
	size_t		 pathlen, outlen = 0;
	struct fz	 f;
	int		 rc;

	memset(&f, 0, sizeof(f));
	if ((z = memchr(in, '\0', size)) == NULL)
		return 0;
	pathlen = (size_t)(z - in);
	page = z + 1;
	if ((z = memchr(page, '\0', (size_t)(end - page))) == NULL)
		z = end;
	f.file = z < end ? z + 1 : end;
	f.filelen = (size_t)(end - f.file);
	if ((path = malloc(pathlen + 1)) == NULL)
		return 0;
	memcpy(path, in, pathlen);
	path[pathlen] = '\0';
	/* the indexer hands over a repository path, normalised: so does this */
	if (!fz_confined(path)) {
		free(path);
		if ((path = strdup("docs/page.md")) == NULL)
			return 0;
	}
	rc = include_resolve(path, page, (size_t)(z - page), fz_read, &f, fz_used, &out,
	    &outlen);
	if (rc == 1 && (out == NULL || outlen > INCLUDE_MAX_OUT || strlen(out) != outlen))
		abort();
	if (rc == 0 && out != NULL)
		abort();
	free(out);
	/* the page's path against the start of the file part as a relative path */
	if (f.filelen < 256) {
		char	rel[256];

		memcpy(rel, f.file, f.filelen);
		rel[f.filelen] = '\0';
		if (strlen(rel) == f.filelen && include_join(path, rel,
		    joined, sizeof(joined)) == 0 && joined[0] != '\0' && !fz_confined(joined))
			abort();
	}
	(void)include_lang(path);
	free(path);
	return 0;
}
