/*
 * segwrite.c: writes a library's index segment at the end of an index run (segwrite.h).
 * The index is built exactly as a query process builds it (lexindex_build: the same rows
 * through the same token chain) and serialised (lexindex_write_segment), so a query
 * process that maps the segment ranks exactly as one that builds from the database.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "index/segwrite.h"
#include "search/lexindex.h"
#include "search/search.h"
#include "search/segment.h"
#include "store/tokenizer.h"

/* Keeps every segment but this library's other versions. */
struct segwrite_keep {
	char	 prefix[32];	/* "<lib_no>-" */
	char	 current[64];	/* "<lib_no>-<index_version>.seg" */
};

static int
segwrite_keep(const char *name, void *arg)
{
	const struct segwrite_keep *k = arg;

	return strncmp(name, k->prefix, strlen(k->prefix)) != 0 ||
	    strcmp(name, k->current) == 0;
}

int
segwrite_library(struct db *db, const char *datadir, const char *library_id,
    long long *ms, char *path, size_t pathlen)
{
	struct search	*s;
	struct search_lib lib;
	struct tokenize_stemmer *stem = NULL;
	struct lexindex	*x = NULL;
	struct segwrite_keep keep;
	struct stat	 st;
	char		*dir = NULL, file[1024];
	long long	 t0 = util_now_ms();
	int		 rc = -1;

	*ms = 0;
	if (pathlen > 0)
		*path = '\0';
	if ((s = search_open(db)) == NULL)
		return -1;
	if (search_library(s, library_id, &lib) != SEARCH_LIB_READY) {
		search_close(s);
		return 1;
	}
	search_close(s);
	snprintf(keep.prefix, sizeof(keep.prefix), "%ld-", lib.lib_no);
	snprintf(keep.current, sizeof(keep.current), "%ld-%lld.seg", lib.lib_no,
	    lib.index_version);
	if ((dir = util_path_join(datadir, "segments")) == NULL)
		goto out;
	if (mkdir(dir, 0750) == -1 && errno != EEXIST) {
		log_err("%s: %s: %s", __func__, dir, strerror(errno));
		goto out;
	}
	snprintf(file, sizeof(file), "%s/%s", dir, keep.current);
	if (pathlen > 0)
		snprintf(path, pathlen, "%s", file);
	if (stat(file, &st) == 0) {
		char	 why[128];

		/* This version's segment is written already: kept when it is whole. */
		if ((x = lexindex_map(file, why, sizeof(why))) != NULL) {
			lexindex_free(x);
			x = NULL;
			rc = 0;
			goto clean;
		}
		log_warn("%s: %s is rewritten: %s", __func__, file, why);
	}
	if ((stem = tokenize_stemmer_open(db)) == NULL ||
	    (x = lexindex_build(db, stem, library_id, lib.snippets)) == NULL) {
		log_err("%s: %s: the index could not be built", __func__, library_id);
		goto out;
	}
	if (lexindex_write_segment(x, dir, keep.current) == -1) {
		log_err("%s: %s: %s", __func__, file, strerror(errno));
		goto out;
	}
	rc = 0;
clean:
	if (segment_remove_unused(dir, segwrite_keep, &keep) == -1)
		log_warn("%s: %s: %s", __func__, dir, strerror(errno));
out:
	lexindex_free(x);
	tokenize_stemmer_close(stem);
	free(dir);
	*ms = util_now_ms() - t0;
	return rc;
}
