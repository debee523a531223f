/* segments.c: the index segments as an operator sees them (segments.h). */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin/backup.h"
#include "admin/segments.h"
#include "base/log.h"
#include "base/util.h"
#include "index/segwrite.h"
#include "search/lexindex.h"
#include "search/vecseg.h"
#include "search/vector.h"
#include "store/library.h"
#include "store/segstore.h"

const char *
segments_status_word(enum segments_status s)
{
	switch (s) {
	case SEGMENTS_OK:
		return "ok";
	case SEGMENTS_MISSING:
		return "missing";
	case SEGMENTS_DAMAGED:
		return "damaged";
	case SEGMENTS_NO_INDEX:
		break;
	}
	return "no index";
}

struct segments_walk {
	const char	*dir;
	int		 quick;		/* a file there counts as whole (not mapped, not checked) */
	int		(*fn)(const struct segments_row *, void *);
	void		*arg;
};

/*
 * One library's row: its segment is judged as a query process judges it before use
 * (lexindex_map: the container's checks and the lexical index's; vecseg_map: its vector
 * sections', when it has them).
 */
static int
segments_one(const struct store_library_index *l, void *arg)
{
	const struct segments_walk *w = arg;
	struct segments_row r;
	struct lexindex	*x;
	struct vecindex	*v;
	struct vecseg_info vi;
	struct stat	 st;
	char		 path[1024], why[128] = "";

	memset(&r, 0, sizeof(r));
	r.id = l->id;
	r.state = l->state;
	r.snippets = l->snippets;
	r.lib_no = l->lib_no;
	r.index_version = l->index_version;
	r.why = why;
	snprintf(path, sizeof(path), "%s/segments/%lld-%lld.seg", w->dir, l->lib_no,
	    l->index_version);
	r.path = path;
	if (stat(path, &st) == 0) {
		r.bytes = st.st_size;
		if (w->quick)
			r.status = SEGMENTS_OK;
		else if ((x = lexindex_map(path, why, sizeof(why))) != NULL) {
			lexindex_free(x);
			r.status = SEGMENTS_OK;
			/* the vector sections, checked as a query process checks them */
			if ((v = vecseg_map(path, &vi, why, sizeof(why))) != NULL) {
				vector_index_free(v);
				r.has_vectors = 1;
				r.vectors = vi.n;
				r.vec_model = vi.model;
				r.vec_embed_version = vi.embed_version;
			} else if (errno != ENODATA) {
				if (*why == '\0')
					snprintf(why, sizeof(why), "%s", strerror(errno));
				r.status = SEGMENTS_DAMAGED;
			}
		} else {
			if (*why == '\0')
				snprintf(why, sizeof(why), "%s", strerror(errno));
			r.status = SEGMENTS_DAMAGED;
		}
	} else
		r.status = l->has_index ? SEGMENTS_MISSING : SEGMENTS_NO_INDEX;
	return w->fn(&r, w->arg);
}

int
segments_each(struct db *db, const char *dir,
    int (*fn)(const struct segments_row *, void *), void *arg)
{
	struct segments_walk w = { dir, 0, fn, arg };

	return store_library_indexes(db, segments_one, &w);
}

static int
segments_json_one(const struct segments_row *r, void *arg)
{
	json_object	*o = json_object_new_object();
	const char	*name = strrchr(r->path, '/');

	json_object_object_add(o, "id", json_object_new_string(r->id));
	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "snippets", json_object_new_int64(r->snippets));
	json_object_object_add(o, "segment", r->status == SEGMENTS_NO_INDEX ? NULL :
	    json_object_new_string(name != NULL ? name + 1 : r->path));
	json_object_object_add(o, "bytes", json_object_new_int64(r->bytes));
	json_object_object_add(o, "status",
	    json_object_new_string(segments_status_word(r->status)));
	if (r->status == SEGMENTS_DAMAGED)
		json_object_object_add(o, "why", json_object_new_string(r->why));
	if (r->has_vectors) {
		json_object	*v = json_object_new_object();

		json_object_object_add(v, "count", json_object_new_int64((int64_t)r->vectors));
		json_object_object_add(v, "model", json_object_new_string(r->vec_model));
		json_object_object_add(v, "embedVersion",
		    json_object_new_int64(r->vec_embed_version));
		json_object_object_add(o, "vectors", v);
	}
	return json_object_array_add(arg, o) == 0 ? 0 : -1;
}

json_object *
segments_json(struct db *db, const char *dir)
{
	json_object	*a = json_object_new_array();

	if (a != NULL && segments_each(db, dir, segments_json_one, a) == -1) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

/* The libraries whose segments a rebuild writes: their ids, and whether each was seen. */
struct segments_todo {
	char		**ids;
	size_t		  n;
	int		 *seen;
	struct db	 *db;
	const char	 *dir;
	struct stat	  dirst;
	FILE		 *out;
	int		  failed;
};

static int
segments_rebuild_one(const struct segments_row *r, void *arg)
{
	struct segments_todo *t = arg;
	char		 path[1024];
	long long	 ms;
	size_t		 i;
	int		 rc;

	if (t->n > 0) {
		for (i = 0; i < t->n && strcmp(t->ids[i], r->id) != 0; i++)
			;
		if (i == t->n)
			return 0;
		t->seen[i] = 1;
		if (r->status == SEGMENTS_NO_INDEX) {
			fprintf(t->out, "%s: no index run has finished: nothing to write\n", r->id);
			t->failed++;
			return 0;
		}
	}
	if (r->status == SEGMENTS_OK) {
		if (t->n > 0)
			fprintf(t->out, "%s: %s is whole, kept\n", r->id, r->path);
		return 0;
	}
	if (r->status == SEGMENTS_NO_INDEX)
		return 0;
	rc = segwrite_library(t->db, t->dir, r->id, &ms, path, sizeof(path));
	if (rc == 0) {
		struct stat st;
		char	*sdir = util_path_join(t->dir, "segments");

		/* Run as root on a package: the service's processes must read what is written. */
		if (sdir != NULL)
			backup_chown_like(sdir, &t->dirst);
		free(sdir);
		backup_chown_like(path, &t->dirst);
		fprintf(t->out, "%s: %s written (it was %s), %.1f MB in %lld ms\n", r->id,
		    path, segments_status_word(r->status), stat(path, &st) == 0 ?
		    (double)st.st_size / 1048576.0 : 0.0, ms);
	} else {
		fprintf(t->out, "%s: the segment could not be written%s\n", r->id,
		    rc == 1 ? ": the library has no index to serve" : " (see the log)");
		t->failed++;
	}
	return 0;
}

int
segments_rebuild(struct db *db, const char *dir, char **ids, size_t n, FILE *out)
{
	struct segments_todo t = { ids, n, NULL, db, dir, { 0 }, out, 0 };
	size_t		 i;

	if (stat(dir, &t.dirst) == -1) {
		log_err("%s: %s: %s", __func__, dir, strerror(errno));
		return -1;
	}
	if (n > 0 && (t.seen = calloc(n, sizeof(*t.seen))) == NULL)
		return -1;
	if (segments_each(db, dir, segments_rebuild_one, &t) == -1) {
		free(t.seen);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!t.seen[i]) {
			fprintf(out, "%s: no such library\n", ids[i]);
			t.failed++;
		}
	free(t.seen);
	return t.failed;
}

/* What a refresh did so far (segments_refresh). */
struct segments_fresh {
	struct db	*db;
	const char	*dir;
	long long	 deadline;	/* ms (util_now_ms) past which nothing more is written */
	int		 written, left;
};

/*
 * With PostgreSQL, a segment another node's worker wrote is in the database
 * (store/segstore.h): fetched into this node's DATA_DIR/segments (checked chunk by chunk
 * against its row) rather than built again from the rows, when the store holds it and this
 * build maps it (not an older format after an upgrade: that one is written anew, and the
 * writer stores the new one). 1 fetched and whole; 0 not (nothing stored, SQLite, or
 * refused: written from the database then).
 */
static int
segments_fetch(struct segments_fresh *f, const struct segments_row *r)
{
	struct lexindex	*x;
	const char	*name = strrchr(r->path, '/');
	char		*sdir, why[128] = "";
	long long	 t0 = util_now_ms();
	int		 rc;

	if (!segstore_enabled(f->db) || name == NULL ||
	    (sdir = util_path_join(f->dir, "segments")) == NULL)
		return 0;
	if (util_mkdir_p(sdir, 0750) == -1) {
		free(sdir);
		return 0;
	}
	rc = segstore_fetch(f->db, sdir, name + 1, 0, NULL);
	free(sdir);
	if (rc != 0)
		return 0;
	if ((x = lexindex_map(r->path, why, sizeof(why))) == NULL) {
		log_warn("segment of %s fetched from the database is refused (%s): it is "
		    "written anew", r->id, *why != '\0' ? why : strerror(errno));
		return 0;
	}
	lexindex_free(x);
	log_info("segment of %s fetched from the database (it was %s%s%s) in %lld ms", r->id,
	    segments_status_word(r->status), *r->why != '\0' ? ": " : "", r->why,
	    util_now_ms() - t0);
	return 1;
}

static int
segments_refresh_one(const struct segments_row *r, void *arg)
{
	struct segments_fresh *f = arg;
	char		 path[1024];
	long long	 ms;

	if (r->status != SEGMENTS_MISSING && r->status != SEGMENTS_DAMAGED)
		return 0;
	if (util_now_ms() >= f->deadline) {
		f->left++;
		return 0;
	}
	if (segments_fetch(f, r)) {
		f->written++;
		return 0;
	}
	if (segwrite_library(f->db, f->dir, r->id, &ms, path, sizeof(path)) == 0) {
		log_info("segment of %s written from the database (it was %s%s%s) in %lld ms",
		    r->id, segments_status_word(r->status), *r->why != '\0' ? ": " : "", r->why,
		    ms);
		f->written++;
	} else
		log_warn("segment of %s (%s) could not be written from the database", r->id,
		    segments_status_word(r->status));
	return 0;
}

int
segments_refresh(struct db *db, const char *dir, int check, long budget_ms, int *left)
{
	struct segments_fresh f = { db, dir, util_now_ms() + budget_ms, 0, 0 };
	struct segments_walk w = { dir, !check, segments_refresh_one, &f };

	*left = 0;
	if (store_library_indexes(db, segments_one, &w) == -1)
		return -1;
	*left = f.left;
	return f.written;
}
