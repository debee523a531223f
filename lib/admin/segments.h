/*
 * admin/segments.h: the index segments as an operator sees them (ctxd-admin index, the
 * doctor, the support bundle): each library's segment, its size and whether a query
 * process would map it, and rewriting the missing or damaged ones from the database.
 */
#ifndef ADMIN_SEGMENTS_H
#define ADMIN_SEGMENTS_H

#include <stddef.h>
#include <stdio.h>

#include <json.h>

struct db;

/* What a library's segment is. */
enum segments_status {
	SEGMENTS_OK,		/* present and whole: query processes map it */
	SEGMENTS_MISSING,	/* the library has an index but no segment */
	SEGMENTS_DAMAGED,	/* present but refused (why says why) */
	SEGMENTS_NO_INDEX	/* no index run has finished: nothing to write yet */
};

struct segments_row {
	const char	*id, *state;
	long long	 snippets, lib_no, index_version;
	const char	*path;		/* DATA_DIR/segments/<lib_no>-<index_version>.seg */
	long long	 bytes;		/* its size, 0 when there is none */
	enum segments_status status;
	const char	*why;		/* SEGMENTS_DAMAGED: the check it failed */
	/* SEGMENTS_OK: its vector sections (lib/search/vecseg.h), when it has them */
	int		 has_vectors;
	size_t		 vectors;	/* rows */
	const char	*vec_model;
	long long	 vec_embed_version;
};

/* "ok", "missing", "damaged", "no index". */
const char *segments_status_word(enum segments_status);

/*
 * Calls fn with every library (not being deleted) of the database in DATA_DIR dir, in id
 * order; fn returning -1 stops with -1. 0, or -1 (logged).
 */
int	 segments_each(struct db *, const char *dir,
	    int (*fn)(const struct segments_row *, void *), void *arg);

/* The segments as a JSON array (the support bundle's segments.json); NULL on failure. */
json_object *segments_json(struct db *, const char *dir);

/*
 * Rewrites from the database the segments of the libraries named in ids (n of them; none:
 * every library) that are missing or damaged (a whole one is left as it is), as the
 * worker writes them at the end of an index run, owned like DATA_DIR when run as root.
 * Says what it did on out, a line a library. The number of segments that could not be
 * written (0: all well), or -1 when the libraries could not be read; an id that names no
 * library with an index counts as a failure.
 */
int	 segments_rebuild(struct db *, const char *dir, char **ids, size_t n,
	    FILE *out);

/*
 * The worker's pass (no job running): writes from the database the segments of indexed
 * libraries that have none and, when check, those a query process would refuse (mapped and
 * checked: an older format after an upgrade, a damaged file); with PostgreSQL, one that
 * another node stored in the database is fetched instead (store/segstore.h) when this build
 * maps it. Stops starting new ones after budget_ms. Logs each. The number written or
 * fetched, -1 when the libraries could not be read; *left: those not reached within the
 * budget.
 */
int	 segments_refresh(struct db *, const char *dir, int check, long budget_ms, int *left);

#endif
