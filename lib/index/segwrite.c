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

#include "ai/provider.h"
#include "base/log.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "index/segwrite.h"
#include "search/lexindex.h"
#include "search/search.h"
#include "search/segment.h"
#include "search/vecseg.h"
#include "search/vector.h"
#include "store/aiconfig.h"
#include "store/segstore.h"
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

/*
 * The vector sections: the library's vectors of the configured embedding model (what a query
 * process would load: vector_index_build) and the embed_version they belong to.
 */

/*
 * Libraries larger than this get no vector part: query processes do not rank them with
 * vectors (SEARCH_MEMORY_MAX_SNIPPETS, lib/search/search.c), and the vectors are loaded
 * whole here before they are written (five bytes a dimension a snippet).
 */
#define SEGWRITE_MAX_VECTOR_SNIPPETS	300000

/* The configured embedding model into model (as search.c reads it), or "" when none. */
static void
segwrite_model(struct db *db, const char *datadir, char *model, size_t len)
{
	struct provider_cfg embed;

	*model = '\0';
	memset(&embed, 0, sizeof(embed));
	if (aiconfig_load(db, datadir, NULL, &embed) == 0 && embed.vendor != NULL &&
	    embed.model != NULL && strlen(embed.model) < len)
		snprintf(model, len, "%s", embed.model);
	provider_cfg_release(&embed);
}

/*
 * 1 when the segment at file holds the vectors a query process would load now: of model at
 * embed_version (or model is "": no vectors are wanted, though vector sections that are
 * there must pass their checks); else 0 with why. *info: the vectors it holds (model ""
 * and embed_version 0 when it has none).
 */
static int
segwrite_vectors_current(const char *file, const char *model, long long embed_version,
    struct vecseg_info *info_out, char *why, size_t whylen)
{
	struct vecseg_info info;
	struct vecindex	*v;

	memset(info_out, 0, sizeof(*info_out));
	if ((v = vecseg_map(file, &info, why, whylen)) == NULL)
		return *model == '\0' && errno == ENODATA;
	*info_out = info;
	if (*model == '\0') {
		vector_index_free(v);
		return 1;	/* vectors no reader asks for: left as they are */
	}
	vector_index_free(v);
	if (strcmp(info.model, model) != 0 || info.embed_version != embed_version) {
		snprintf(why, whylen, "its vectors are of %s at embed version %lld, "
		    "now %lld%s", strcmp(info.model, model) == 0 ? "the model" :
		    "another model", info.embed_version, embed_version,
		    strcmp(info.model, model) == 0 ? "" : " (model changed)");
		return 0;
	}
	return 1;
}

/*
 * With PostgreSQL (several nodes, each with its own DATA_DIR), the segment just written or
 * kept is stored in the database once (store/segstore.h), so that the other nodes fetch it
 * instead of building its index from the database: uploaded when the store does not hold
 * this very file (its size, vectors' version and model). Streamed chunk by chunk in one
 * transaction; a failure is logged only (the other nodes then build from the database, as
 * before), and the segment stays in use here. Nothing on SQLite.
 */
static void
segwrite_upload(struct db *db, const char *dir, const char *name, long long size,
    long long embed_version, const char *model)
{
	struct segstore_info info;
	long long	 t0 = util_now_ms();
	int		 rc;

	if (!segstore_enabled(db))
		return;
	if (segstore_describe(db, name, &info) == 0 && info.size == size &&
	    info.embed_version == embed_version && strcmp(info.vec_model, model) == 0)
		return;		/* stored already */
	if ((rc = segstore_put(db, dir, name, embed_version, model)) == -1)
		log_warn("%s: %s could not be stored in the database: other nodes build its "
		    "index from the database", __func__, name);
	else if (rc == 0)
		log_info("%s: %s (%.1f MB) stored in the database in %lld ms", __func__, name,
		    (double)size / 1048576.0, util_now_ms() - t0);
}

/*
 * The library's vectors of model, loaded between two readings of its row that agree (so
 * that *embed_version is the version of these very vectors: another job may give the
 * library a new one meanwhile, lib/index/share.h), at index_version. NULL (logged) when
 * they cannot be loaded or the version kept changing: the segment is then written without
 * vectors and query processes load them from the database.
 */
static struct vecindex *
segwrite_vectors(struct db *db, const char *library_id, const char *model,
    long long index_version, long snippets, long long *embed_version)
{
	struct search	*s;
	struct search_lib a, b;
	struct vecindex	*v = NULL;
	int		 tries;

	if ((s = search_open(db)) == NULL)
		return NULL;
	for (tries = 0; tries < 3; tries++) {
		if (search_library(s, library_id, &a) != SEARCH_LIB_READY ||
		    a.index_version != index_version)
			break;
		if ((v = vector_index_build(db, library_id, model, snippets)) == NULL)
			break;
		if (search_library(s, library_id, &b) == SEARCH_LIB_READY &&
		    b.index_version == index_version && b.embed_version == a.embed_version) {
			*embed_version = a.embed_version;
			break;
		}
		vector_index_free(v);
		v = NULL;
	}
	search_close(s);
	if (v == NULL)
		log_warn("%s: %s: the segment is written without vectors", __func__,
		    library_id);
	return v;
}

int
segwrite_library(struct db *db, const char *datadir, const char *library_id,
    long long *ms, char *path, size_t pathlen)
{
	struct search	*s;
	struct search_lib lib;
	struct tokenize_stemmer *stem = NULL;
	struct lexindex	*x = NULL;
	struct vecindex	*v = NULL;
	struct vecseg_out vout;
	struct segwrite_keep keep;
	struct vecseg_info have;
	struct stat	 st;
	char		*dir = NULL, file[1024], model[VECSEG_MODEL_MAX];
	long long	 ev = 0;
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
	if (lib.snippets <= SEGWRITE_MAX_VECTOR_SNIPPETS)
		segwrite_model(db, datadir, model, sizeof(model));
	else
		*model = '\0';
	if (stat(file, &st) == 0) {
		char	 why[128];

		/*
		 * This version's segment is written already: kept when it is whole and holds the
		 * vectors of now (else replaced: a new file renamed over the name, which readers
		 * see by its inode, search.c).
		 */
		if ((x = lexindex_map(file, why, sizeof(why))) != NULL) {
			lexindex_free(x);
			x = NULL;
			if (segwrite_vectors_current(file, model, lib.embed_version, &have,
			    why, sizeof(why))) {
				segwrite_upload(db, dir, keep.current, (long long)st.st_size,
				    have.embed_version, have.model);
				rc = 0;
				goto clean;
			}
			log_info("%s: %s is rewritten: %s", __func__, file, why);
		} else
			log_warn("%s: %s is rewritten: %s", __func__, file, why);
	}
	if ((stem = tokenize_stemmer_open(db)) == NULL ||
	    (x = lexindex_build(db, stem, library_id, lib.snippets)) == NULL) {
		log_err("%s: %s: the index could not be built", __func__, library_id);
		goto out;
	}
	if (*model != '\0' && (v = segwrite_vectors(db, library_id, model, lib.index_version,
	    lib.snippets, &ev)) != NULL && vecseg_parts(v, model, ev, &vout) == -1) {
		vector_index_free(v);
		v = NULL;
	}
	if (lexindex_write_segment_with(x, dir, keep.current, v != NULL ? vout.part : NULL,
	    v != NULL ? VECSEG_PARTS : 0) == -1) {
		log_err("%s: %s: %s", __func__, file, strerror(errno));
		goto out;
	}
	if (stat(file, &st) == 0)
		segwrite_upload(db, dir, keep.current, (long long)st.st_size,
		    v != NULL ? ev : 0, v != NULL ? model : "");
	rc = 0;
clean:
	if (segment_remove_unused(dir, segwrite_keep, &keep) == -1)
		log_warn("%s: %s: %s", __func__, dir, strerror(errno));
out:
	vector_index_free(v);
	lexindex_free(x);
	tokenize_stemmer_close(stem);
	free(dir);
	*ms = util_now_ms() - t0;
	return rc;
}
