/* store/library.c: the libraries row (store/library.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/library.h"
#include "store/conn.h"

void
store_library_release(struct store_library *l)
{
	free(l->id);
	free(l->url);
	free(l->type);
	free(l->branch);
	free(l->settings);
	free(l->title);
	free(l->description);
	free(l->host);
	free(l->run_status);
	free(l->state);
	free(l->family);
	free(l->indexed_commit);
	free(l->indexed_settings);
	memset(l, 0, sizeof(*l));
}

/* The columns of a libraries row l that store_library_read reads, in its order. */
#define STORE_LIBRARY_COLS						\
	"SELECT url, source_type, branch, settings, title, description, gitops, "	\
	"run_status, state, EXISTS (SELECT 1 FROM jobs j WHERE j.library_id = l.id AND "	\
	"j.kind = 'delete' AND j.state IN ('queued', 'running')), EXISTS (SELECT 1 FROM "	\
	"jobs j WHERE j.library_id = l.id AND j.state IN ('queued', 'running')), id, host, "	\
	"coalesce(created_by, 0), created_anonymously, total_documents, total_snippets, "	\
	"lib_no, coalesce(version_of, id), indexed_commit, indexed_settings "		\
	"FROM libraries l "

/* Runs st (its parameters bound) and reads its row, if any, into l: 0, or -1 (logged). */
static int
store_library_read(struct db *db, sqlite3_stmt *st, struct store_library *l)
{
	int		 rc, nomem = 0;

	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		l->exists = 1;
		l->url = db_column_dup(st, 0, "");
		l->type = db_column_dup(st, 1, "");
		l->branch = db_column_dup(st, 2, "");
		l->settings = db_column_dup(st, 3, "");
		l->title = db_column_dup(st, 4, "");
		l->description = db_column_dup(st, 5, "");
		l->gitops = sqlite3_column_int(st, 6);
		l->run_status = db_column_dup(st, 7, "");
		l->state = db_column_dup(st, 8, "");
		l->deleting = sqlite3_column_int(st, 9);
		l->pending = sqlite3_column_int(st, 10);
		l->id = db_column_dup(st, 11, "");
		l->host = db_column_dup(st, 12, "");
		l->created_by = sqlite3_column_int64(st, 13);
		l->created_anonymously = sqlite3_column_int(st, 14);
		l->total_documents = sqlite3_column_int64(st, 15);
		l->total_snippets = sqlite3_column_int64(st, 16);
		l->lib_no = sqlite3_column_int64(st, 17);
		l->family = db_column_dup(st, 18, "");
		if (sqlite3_column_type(st, 19) != SQLITE_NULL &&
		    (l->indexed_commit = db_column_dup(st, 19, "")) == NULL)
			nomem = 1;
		if (sqlite3_column_type(st, 20) != SQLITE_NULL &&
		    (l->indexed_settings = db_column_dup(st, 20, "")) == NULL)
			nomem = 1;
		if (l->url == NULL || l->type == NULL || l->branch == NULL ||
		    l->settings == NULL || l->title == NULL || l->description == NULL ||
		    l->run_status == NULL || l->state == NULL || l->id == NULL ||
		    l->host == NULL || l->family == NULL)
			nomem = 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		log_err("store_library_load: %s", sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	if (nomem) {
		log_err("store_library_load: out of memory");
		store_library_release(l);
		return -1;
	}
	return 0;
}

int
store_library_load(struct db *db, const char *id, struct store_library *l)
{
	sqlite3_stmt	*st;

	memset(l, 0, sizeof(*l));
	if (sqlite3_prepare_v2(db_lite(db), STORE_LIBRARY_COLS "WHERE id = ?1", -1, &st, NULL) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	return store_library_read(db, st, l);
}

/* Engine: COLLATE NOCASE compares ASCII letters without case. */
int
store_library_load_nocase(struct db *db, const char *id, struct store_library *l)
{
	sqlite3_stmt	*st;

	memset(l, 0, sizeof(*l));
	if (sqlite3_prepare_v2(db_lite(db), STORE_LIBRARY_COLS "WHERE id = ?1 COLLATE NOCASE ORDER "
	    "BY id = ?1 DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	return store_library_read(db, st, l);
}

int
store_library_write_managed(struct db *db, const char *id, const char *host,
    const struct store_library_values *v, int exists)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	if (exists)
		return db_run(db, "UPDATE libraries SET url = ?2, source_type = ?3, branch = "
		    "?4, settings = ?5, title = ?6, description = ?7, updated_at = ?8, "
		    "host = ?9 WHERE id = ?1", "ttttttttt", id, v->url, v->type, v->branch,
		    v->settings, v->title, v->description, now, host);
	return db_run(db, "INSERT INTO libraries (id, lib_no, url, source_type, branch, "
	    "settings, title, description, created_at, updated_at, host, gitops) VALUES "
	    "(?1, (SELECT coalesce(max(lib_no), 0) + 1 FROM libraries), ?2, ?3, ?4, ?5, "
	    "?6, ?7, ?8, ?8, ?9, 1)", "ttttttttt", id, v->url, v->type, v->branch,
	    v->settings, v->title, v->description, now, host);
}

int
store_library_managed(struct db *db, char ***ids, size_t *n)
{
	sqlite3_stmt	*st;
	char		**v = NULL, **nv, *s;
	size_t		 k = 0;
	int		 step, rc = -1;

	*ids = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT id FROM libraries WHERE gitops = 1 AND state "
	    "<> 'delete' ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if ((nv = reallocarray(v, k + 1, sizeof(*v))) == NULL ||
		    (s = strdup((const char *)sqlite3_column_text(st, 0))) == NULL) {
			if (nv != NULL)
				v = nv;
			log_err("%s: out of memory", __func__);
			goto out;
		}
		v = nv;
		v[k++] = s;
	}
	if (step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	if (rc == -1) {
		while (k > 0)
			free(v[--k]);
		free(v);
		return -1;
	}
	*ids = v;
	*n = k;
	return 0;
}

/*
 * The statements of store_library_bump, by what changed (?1 the library).
 * Engine: the counts read the view library_snippets (a library's own and shown snippets).
 */
static const char *const store_library_bump_sql[] = {
	[STORE_BUMP_TOKENS] = "UPDATE libraries SET index_version = (SELECT "
	    "max(index_version) + 1 FROM libraries), total_tokens = (SELECT "
	    "coalesce(sum(tokens), 0) FROM library_snippets WHERE library_id = ?1 AND "
	    "dup_of IS NULL) WHERE id = ?1",
	[STORE_BUMP_COUNTS] = "UPDATE libraries SET index_version = (SELECT "
	    "max(index_version) + 1 FROM libraries), total_documents = (SELECT count(*) "
	    "FROM documents WHERE library_id = ?1), total_snippets = (SELECT count(*) FROM "
	    "library_snippets WHERE library_id = ?1 AND dup_of IS NULL), total_tokens = "
	    "(SELECT coalesce(sum(tokens), 0) FROM library_snippets WHERE library_id = ?1 "
	    "AND dup_of IS NULL) WHERE id = ?1",
	[STORE_BUMP_VECTORS] = "UPDATE libraries SET embed_version = (SELECT "
	    "max(embed_version) + 1 FROM libraries) WHERE id = ?1",
};

int
store_library_bump(struct db *db, const char *id, enum store_library_bump what)
{
	return db_run(db, store_library_bump_sql[what], "t", id);
}

int
store_library_insert(struct db *db, const char *id, const char *host,
    const struct store_library_values *v, long long created_by, int anonymous,
    const char *now)
{
	return db_run(db, "INSERT INTO libraries (id, lib_no, url, host, branch, settings, "
	    "title, created_at, updated_at, created_by, source_type, description, "
	    "created_anonymously) VALUES (?1, (SELECT coalesce(max(lib_no), 0) + 1 FROM "
	    "libraries), ?2, ?3, ?4, ?5, ?6, ?7, ?7, nullif(?8, 0), ?9, ?10, ?11)",
	    "tttttttIttI", id, v->url, host, v->branch, v->settings, v->title, now,
	    created_by, v->type, v->description, (long long)(anonymous != 0));
}

int
store_library_update(struct db *db, const char *id, const struct store_library_values *v,
    const char *now)
{
	return db_run(db, "UPDATE libraries SET branch = ?2, settings = ?3, url = ?4, "
	    "updated_at = ?5, title = ?6, description = ?7 WHERE id = ?1", "ttttttt", id,
	    v->branch, v->settings, v->url, now, v->title, v->description);
}

int
store_library_rename(struct db *db, const char *id, const char *title, const char *description,
    const char *now)
{
	return db_run(db, "UPDATE libraries SET title = coalesce(?2, title), description = "
	    "coalesce(?3, description), updated_at = ?4 WHERE id = ?1", "tttt", id, title,
	    description, now);
}

int
store_library_bound_host(struct db *db, const char *id, char **host)
{
	sqlite3_stmt	*st;
	int		 rc;

	*host = NULL;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT host FROM library_hosts WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    (*host = db_column_dup(st, 0, "")) == NULL)
		rc = SQLITE_NOMEM;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

void
store_versions_release(struct store_versions *v)
{
	size_t	 i;

	for (i = 0; i < v->n; i++) {
		free(v->ids[i]);
		free(v->branches[i]);
	}
	free(v->ids);
	free(v->branches);
	memset(v, 0, sizeof(*v));
}

int
store_library_versions(struct db *db, const char *id, struct store_versions *v)
{
	sqlite3_stmt	*st;
	char		**t;
	int		 step;

	memset(v, 0, sizeof(*v));
	if (sqlite3_prepare_v2(db_lite(db), "SELECT id, branch FROM libraries WHERE version_of = ?1 "
	    "AND state != 'delete'", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if ((t = reallocarray(v->ids, v->n + 1, sizeof(*t))) == NULL)
			break;
		v->ids = t;
		if ((t = reallocarray(v->branches, v->n + 1, sizeof(*t))) == NULL)
			break;
		v->branches = t;
		v->ids[v->n] = db_column_dup(st, 0, "");
		v->branches[v->n] = db_column_dup(st, 1, "");
		v->n++;
		if (v->ids[v->n - 1] == NULL || v->branches[v->n - 1] == NULL)
			break;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		log_err("%s: %s", __func__, step == SQLITE_ROW ? "out of memory" :
		    sqlite3_errmsg(db_lite(db)));
		store_versions_release(v);
		return -1;
	}
	return 0;
}

/* Engine: an upsert (ON CONFLICT (id) DO UPDATE ... WHERE). */
int
store_library_version_put(struct db *db, const char *id, const char *parent,
    const char *version, const char *url, const char *settings, long long created_by,
    const char *now)
{
	return db_run(db, "INSERT INTO libraries (id, lib_no, url, host, branch, settings, "
	    "title, created_at, updated_at, created_by, source_type, description, "
	    "version_of) SELECT ?1, (SELECT coalesce(max(lib_no), 0) + 1 FROM "
	    "libraries), ?2, host, ?3, ?4, title || ' ' || ?3, ?5, ?5, nullif(?6, 0), "
	    "'git', description, id FROM libraries WHERE id = ?7 ON CONFLICT (id) DO "
	    "UPDATE SET url = ?2, settings = ?4, updated_at = ?5 WHERE version_of = ?7",
	    "tttttIt", id, url, version, settings, now, created_by, parent);
}

int
store_library_version_follow(struct db *db, const char *id, const char *url,
    const char *settings, const char *now)
{
	return db_run(db, "UPDATE libraries SET url = ?2, settings = ?3, updated_at = ?4 "
	    "WHERE id = ?1", "tttt", id, url, settings, now);
}

/* The statements of store_library_delete (?1 the library, ?2 the job kept). */
static const char *const store_library_delete_sql[] = {
	"DELETE FROM embeddings WHERE snippet_id IN (SELECT id FROM snippets WHERE "
	    "library_id = ?1)",
	"DELETE FROM snippets WHERE library_id = ?1",
	"DELETE FROM documents WHERE library_id = ?1",
	"DELETE FROM job_log WHERE job_id IN (SELECT id FROM jobs WHERE library_id = ?1 "
	    "AND id <> ?2)",
	"DELETE FROM jobs WHERE library_id = ?1 AND id <> ?2",
	"DELETE FROM libraries WHERE id = ?1",
};

int
store_library_delete(struct db *db, const char *id, long long keep)
{
	size_t	 i;

	for (i = 0; i < sizeof(store_library_delete_sql) /
	    sizeof(store_library_delete_sql[0]); i++)
		if (db_run(db, store_library_delete_sql[i], "tI", id, keep) == -1)
			return -1;
	return 0;
}

/*
 * The title of library id becomes title when it is still the default one (default: the
 * id's last segment, the title a library gets when its user names none).
 */
int
store_library_source_title(struct db *db, const char *id, const char *def, const char *title)
{
	return db_run(db, "UPDATE libraries SET title = ?3 WHERE id = ?1 AND title = ?2 "
	    "AND ?3 <> ''", "ttt", id, def, title);
}

/*
 * indexed_settings records what the index was built with; when files were skipped (over
 * a limit) it stays NULL, so that the next parse re-reads them even on an unchanged
 * commit (the limit may have been raised).
 * Engine: the counts read the view library_snippets.
 */
int
store_library_indexed(struct db *db, const char *id, const char *commit, const char *label,
    const char *url_prefix, long long retry)
{
	return db_run(db, "UPDATE libraries SET indexed_commit = ?2, indexed_branch = ?3, "
	    "indexed_settings = CASE WHEN ?5 > 0 THEN NULL ELSE settings END, blob_prefix = "
	    "?4, index_version = (SELECT max(index_version) + 1 FROM libraries), "
	    "total_documents = (SELECT count(*) FROM documents WHERE library_id = ?1), "
	    "total_snippets = (SELECT count(*) FROM library_snippets WHERE library_id = ?1 "
	    "AND dup_of IS NULL), total_tokens = (SELECT coalesce(sum(tokens), 0) FROM "
	    "library_snippets WHERE library_id = ?1 AND dup_of IS NULL) WHERE id = ?1",
	    "ttttI", id, commit, label, url_prefix, retry);
}

int
store_library_index_versions(struct db *db, int (*cb)(long long, long long, void *), void *arg)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT lib_no, index_version FROM libraries", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (cb(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), arg) == -1) {
			sqlite3_finalize(st);
			return -1;
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
store_library_indexes(struct db *db, int (*cb)(const struct store_library_index *, void *),
    void *arg)
{
	struct store_library_index l;
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT id, state, lib_no, index_version, total_snippets, "
	    "indexed_commit IS NOT NULL FROM libraries WHERE state <> 'delete' ORDER BY id",
	    -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		l.id = db_column_text(st, 0);
		l.state = db_column_text(st, 1);
		l.lib_no = sqlite3_column_int64(st, 2);
		l.index_version = sqlite3_column_int64(st, 3);
		l.snippets = sqlite3_column_int64(st, 4);
		l.has_index = sqlite3_column_int(st, 5);
		if (cb(&l, arg) == -1) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (rc != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}
