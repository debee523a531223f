/*
 * vecseg.c: the vector sections of an index segment (vecseg.h). Section ids start at
 * VECSEG_META, apart from the lexical sections' (lexindex.c); each array is stored as
 * vector_index_search reads it, so a query process ranks from the mapping exactly as from
 * the index it was written from (vector_index_wrap: no copy).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/segment.h"
#include "search/vecseg.h"
#include "search/vector.h"

enum {
	VECSEG_META = 0x100,	/* struct vecseg_meta */
	VECSEG_Q,		/* int8 rows, stride bytes each */
	VECSEG_SCALE,		/* f32 per row */
	VECSEG_F,		/* f32 rows, dim values each */
	VECSEG_IDS,		/* int64 per row, ascending */
	VECSEG_DOCS,		/* int64 per row */
	VECSEG_TOKENS		/* i32 per row */
};

_Static_assert(sizeof(struct vecseg_meta) == 192, "stored layout");
_Static_assert(sizeof(int) == 4 && sizeof(long long) == 8 && sizeof(float) == 4,
    "stored sizes");

int
vecseg_parts(const struct vecindex *x, const char *model, long long embed_version,
    struct vecseg_out *out)
{
	struct vector_arrays a;

	if (strlen(model) >= sizeof(out->meta.model)) {
		errno = EINVAL;
		return -1;
	}
	vector_index_arrays(x, &a);
	memset(&out->meta, 0, sizeof(out->meta));
	out->meta.n = a.n;
	out->meta.dim = a.dim;
	out->meta.stride = a.stride;
	out->meta.embed_version = embed_version;
	memcpy(out->meta.model, model, strlen(model) + 1);
	out->part[0] = (struct segment_part){ VECSEG_META, sizeof(out->meta), &out->meta, 1 };
	out->part[1] = (struct segment_part){ VECSEG_Q, 1, a.q, a.n * a.stride };
	out->part[2] = (struct segment_part){ VECSEG_SCALE, 4, a.scale, a.n };
	out->part[3] = (struct segment_part){ VECSEG_F, 4, a.f, a.n * a.dim };
	out->part[4] = (struct segment_part){ VECSEG_IDS, 8, a.ids, a.n };
	out->part[5] = (struct segment_part){ VECSEG_DOCS, 8, a.docs, a.n };
	out->part[6] = (struct segment_part){ VECSEG_TOKENS, 4, a.tokens, a.n };
	return 0;
}

static void
vecseg_release(void *arg)
{
	segment_close(arg);
}

#define VECBAD(msg) do {						\
	if (why != NULL && whylen > 0)					\
		snprintf(why, whylen, "%s", msg);			\
	errno = EINVAL;							\
	return NULL;							\
} while (0)

struct vecindex *
vecseg_open(struct segment *g, struct vecseg_info *info, char *why, size_t whylen)
{
	const struct vecseg_meta *meta;
	struct vector_arrays a;
	struct vecindex	*x;
	size_t		 n, m[6], i;

	if (why != NULL && whylen > 0)
		*why = '\0';
	memset(info, 0, sizeof(*info));
	if ((meta = segment_get(g, VECSEG_META, sizeof(*meta), &n)) == NULL) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "no vector sections");
		errno = ENODATA;
		return NULL;
	}
	if (n != 1)
		VECBAD("the vector meta section is not one element");
	if (memchr(meta->model, '\0', sizeof(meta->model)) == NULL)
		VECBAD("the vector model's name is not terminated");
	if (meta->n >= UINT32_MAX || meta->dim > VECTOR_MAX_DIM ||
	    (meta->n > 0 && meta->dim == 0) || meta->stride != vector_stride(meta->dim))
		VECBAD("vector dimensions out of range");
	memset(&a, 0, sizeof(a));
	a.n = (size_t)meta->n;
	a.dim = (size_t)meta->dim;
	a.stride = (size_t)meta->stride;
	/* n < 2^32 and stride, dim <= 8192: the products below do not wrap. */
	a.q = segment_get(g, VECSEG_Q, 1, &m[0]);
	a.scale = segment_get(g, VECSEG_SCALE, 4, &m[1]);
	a.f = segment_get(g, VECSEG_F, 4, &m[2]);
	a.ids = segment_get(g, VECSEG_IDS, 8, &m[3]);
	a.docs = segment_get(g, VECSEG_DOCS, 8, &m[4]);
	a.tokens = segment_get(g, VECSEG_TOKENS, 4, &m[5]);
	if (a.q == NULL || a.scale == NULL || a.f == NULL || a.ids == NULL ||
	    a.docs == NULL || a.tokens == NULL || m[0] != a.n * a.stride ||
	    m[1] != a.n || m[2] != a.n * a.dim || m[3] != a.n || m[4] != a.n ||
	    m[5] != a.n)
		VECBAD("a vector section is missing or of the wrong size");
	if ((uintptr_t)a.q % SEGMENT_ALIGN != 0 || (uintptr_t)a.f % SEGMENT_ALIGN != 0 ||
	    (uintptr_t)a.scale % 4 != 0 || (uintptr_t)a.ids % 8 != 0 ||
	    (uintptr_t)a.docs % 8 != 0 || (uintptr_t)a.tokens % 4 != 0)
		VECBAD("a vector section is not aligned");
	for (i = 1; i < a.n; i++)
		if (a.ids[i] <= a.ids[i - 1])
			VECBAD("vector snippet ids not ascending");
	if ((x = vector_index_wrap(&a, vecseg_release, g)) == NULL) {
		if (errno == EINVAL)
			VECBAD("vector sections inconsistent");
		return NULL;
	}
	snprintf(info->model, sizeof(info->model), "%s", meta->model);
	info->embed_version = meta->embed_version;
	info->n = a.n;
	info->dim = a.dim;
	return x;
}

struct vecindex *
vecseg_map(const char *path, struct vecseg_info *info, char *why, size_t whylen)
{
	struct segment	*g;
	struct vecindex	*x;
	struct stat	 st;
	int		 saved;

	if (why != NULL && whylen > 0)
		*why = '\0';
	memset(info, 0, sizeof(*info));
	/*
	 * The file's identity before mapping it: if it is replaced in between, the identity is
	 * the old file's, and the next vecseg_same_file maps the new one (one map too many).
	 */
	if (stat(path, &st) == -1)
		return NULL;
	if ((g = segment_map(path, why, whylen)) == NULL) {
		saved = errno;
		info->dev = st.st_dev;
		info->ino = st.st_ino;
		errno = saved;
		return NULL;
	}
	x = vecseg_open(g, info, why, whylen);
	saved = errno;
	info->dev = st.st_dev;
	info->ino = st.st_ino;
	if (x == NULL) {
		segment_close(g);
		errno = saved;
	}
	return x;
}

int
vecseg_same_file(const char *path, const struct vecseg_info *info)
{
	struct stat	 st;

	return stat(path, &st) == 0 && st.st_dev == info->dev && st.st_ino == info->ino;
}
