/*
 * openapi_tree.h: the files of a multi-file OpenAPI description (lib/parse/openapi_tree.c).
 *
 * From the spec's parsed root, every $ref to a relative file (openapi_ref_key: under the
 * spec's folder or the folder above) is followed, the files it names fetched in batches
 * through the caller's get function (the back end fetches a batch concurrently; the fuzz
 * target serves files from memory), each file once (deduplicated by its key), parsed
 * (JSON or YAML) and walked in turn, breadth first. The result is the object of
 * OPENAPI_FILES_KEY: key -> parsed file.
 *
 * Bounded: at most max_files files and max_bytes bytes in all (the spec's own bytes are
 * counted by the caller in used), each at most max_file bytes; past a limit the files are
 * not fetched, counted in the stats, and their $refs stay named references.
 */
#ifndef OPENAPI_TREE_H
#define OPENAPI_TREE_H

#include <stddef.h>

struct json_object;

#define OPENAPI_TREE_BATCH	64	/* files asked of get at once */

/* One file of a batch: get sets data and len (or err), release frees what get set. */
struct openapi_tree_file {
	const char	*key;		/* "schemas/Pet.yaml", relative to the spec's folder */
	const char	*data;		/* NULL when the file could not be had (err says why) */
	size_t		 len;
	size_t		 max;		/* the most bytes this file may have */
	char		 err[256];
	int		 too_large;	/* get: it has more than max bytes */
	void		*priv;		/* the caller's */
};

struct openapi_tree_ops {
	/* Fills files[0..n) (each within its max); -1 stops the whole load (out of memory). */
	int	(*get)(void *arg, struct openapi_tree_file *files, size_t n);
	void	(*release)(void *arg, struct openapi_tree_file *files, size_t n);
	/* A file that could not be fetched or parsed: its $refs stay names (may be NULL). */
	void	(*warn)(void *arg, const char *key, const char *why);
	void	*arg;
};

struct openapi_tree_limits {
	size_t		 max_files;	/* files besides the spec */
	size_t		 max_bytes;	/* of the spec and its files */
	size_t		 max_file;	/* of one file */
};

struct openapi_tree_stats {
	size_t		 files;		/* fetched and parsed */
	size_t		 bytes;		/* of the spec (as given) and those files */
	size_t		 failed;	/* could not be fetched or parsed */
	size_t		 refused;	/* $refs that cannot be followed (another host, ...) */
	size_t		 over_files;	/* files left out: more than max_files */
	size_t		 over_bytes;	/* files left out: past max_bytes (or max_file) */
};

/*
 * Loads the files root (the spec, already parsed; its size in stats->bytes) $refs, and
 * theirs, into *files (a new object, the caller puts it). -1 only when out of memory or
 * when get says stop; the stats count the rest.
 */
int	openapi_tree_load(struct json_object *root, const struct openapi_tree_ops *ops,
	    const struct openapi_tree_limits *lim, struct json_object **files,
	    struct openapi_tree_stats *stats);

#endif /* OPENAPI_TREE_H */
