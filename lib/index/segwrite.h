/*
 * segwrite.h: the worker's side of index segments (docs/DESIGN.md, "Index segments"): at
 * the end of an index run, the library's current content version is written as
 * DATA_DIR/segments/<lib_no>-<index_version>.seg, and its older segments are removed.
 */
#ifndef SEGWRITE_H
#define SEGWRITE_H

#include <stddef.h>

struct db;

/*
 * Writes the segment of library_id's current version (unless it exists) and removes the
 * library's other segments. *ms: the time it took; path (when pathlen > 0): the file.
 * 0, 1 when the library has no index to write, -1 on failure (logged; the query
 * workers then build the index from the database as before).
 */
int	 segwrite_library(struct db *, const char *datadir, const char *library_id,
	    long long *ms, char *path, size_t pathlen);

#endif /* SEGWRITE_H */
