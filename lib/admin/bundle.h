/*
 * bundle.h: the support bundle (GET /api/support-bundle): a .tar.gz of JSON files that
 * help support without holding a secret or snippet content: version, license summary,
 * health, settings (secrets only as set/unset), libraries and the last jobs with their
 * logs.
 */
#ifndef BUNDLE_H
#define BUNDLE_H

#include <stddef.h>

struct buf;
struct db;

/*
 * Writes the bundle of the database db (its data folder datadir) to out and its name,
 * "ctxd-support-YYYYMMDDTHHMMSSZ" (the folder inside and, with ".tar.gz", the file), to
 * name. 0, or -1 (logged).
 */
int	 bundle_build(struct db *, const char *datadir, struct buf *out, char *name,
	    size_t namesz);

#endif
