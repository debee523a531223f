/*
 * vecseg.h: the vector sections of an index segment (docs/DESIGN.md, "Index segments"): the
 * arrays of a library version's vector index (vector.h, struct vector_arrays) together with
 * the embedding model and the library's embed_version they were loaded at. The worker
 * writes them into the library's segment next to the lexical sections (lib/index/segwrite.c);
 * query processes search them in place, mapped read-only (no private copy: the page cache
 * shares them between processes).
 */
#ifndef VECSEG_H
#define VECSEG_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "search/segment.h"

struct vecindex;

#define VECSEG_PARTS		7	/* segment sections of a vector index */
#define VECSEG_MODEL_MAX	128	/* bytes of the model name, with its NUL */

/* The first section, VECSEG_META (one element). */
struct vecseg_meta {
	uint64_t	 n;		/* rows */
	uint64_t	 dim;
	uint64_t	 stride;	/* bytes of an int8 row: vector_stride(dim) */
	int64_t		 embed_version;	/* the library's, when the rows were loaded */
	char		 model[VECSEG_MODEL_MAX];	/* NUL-terminated */
	uint64_t	 reserved[4];
};

/* The parts vecseg_parts fills (they point into x and into meta). */
struct vecseg_out {
	struct vecseg_meta meta;
	struct segment_part part[VECSEG_PARTS];
};

/*
 * The segment parts of x, loaded for model at the library's embed_version, into out (to
 * pass to the segment's writer with the other sections; valid while x and out are). 0, or -1
 * (EINVAL) when the model's name is too long.
 */
int	 vecseg_parts(const struct vecindex *x, const char *model, long long embed_version,
	    struct vecseg_out *out);

/* What a segment's vector sections were written for, and the file they were mapped from. */
struct vecseg_info {
	char		 model[VECSEG_MODEL_MAX];
	long long	 embed_version;
	size_t		 n, dim;
	dev_t		 dev;		/* of the file (vecseg_map); 0 for vecseg_open */
	ino_t		 ino;
};

/*
 * The vector index held in segment g's vector sections, checked (every section present, of
 * the size the meta section implies, aligned; the model's name terminated; snippet ids
 * ascending), searched in place: vector_index_free closes g. NULL with why when refused
 * (errno EINVAL; g stays the caller's), or errno ENODATA when g has no vector sections (a
 * segment written without an embedding model, or by an older build).
 */
struct vecindex *vecseg_open(struct segment *g, struct vecseg_info *, char *why,
	    size_t whylen);

/*
 * vecseg_open on the segment file at path, mapped read-only (segment_map: the container's
 * checks), with the file's device and inode in info, also when it is refused or has no
 * vectors. NULL as vecseg_open, or as segment_map (errno ENOENT: no such file, info's inode
 * 0).
 */
struct vecindex *vecseg_map(const char *path, struct vecseg_info *, char *why,
	    size_t whylen);

/*
 * 1 when the file at path is still the one info was mapped from (same device and inode), 0
 * when it was replaced (a newer segment renamed into place) or is gone.
 */
int	 vecseg_same_file(const char *path, const struct vecseg_info *);

#endif /* VECSEG_H */
