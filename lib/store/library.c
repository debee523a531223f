/* store/library.c: the libraries row (store/library.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/library.h"
#include "store/stmt.h"

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

/* Column i's text malloc'd; a copy of dflt (NULL: NULL) when it is NULL. NULL: no memory. */
static char *
store_library_dup(struct db_stmt *st, int i, const char *dflt)
{
	if (db_col_null(st, i))
		return dflt != NULL ? strdup(dflt) : NULL;
	return strdup(db_col_text(st, i));
}

/*
 * Engine: lib_no, index_version and embed_version are taken as max + 1 over all
 * libraries. On SQLite the one writer (BEGIN IMMEDIATE) makes that read-then-write safe;
 * on PostgreSQL (read committed) two transactions would read the same max, so each
 * statement that takes a number is run after this lock, which serializes the
 * transactions that take numbers until they end (the statement after it reads with a
 * new snapshot: what the previous holder committed). It is no row lock: the max of a
 * column has no row to lock with FOR UPDATE, and a new row must wait too.
 */
int
store_library_numbers_lock(struct db *db)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_conn_engine(db) != DB_ENGINE_POSTGRES)
		return 0;
	/* PostgreSQL only */
	if (db_prepare(db, "SELECT pg_advisory_xact_lock(CAST(?1 AS bigint))", &st) == 0) {
		db_bind_int64(st, 1, STORE_LIBRARY_NUMBERS_LOCK);
		if (db_step(st) == DB_ROW)
			rc = 0;
	}
	if (rc == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/* The columns of a libraries row l that store_library_read reads, in its order. */
#define STORE_LIBRARY_COLS						\
	"SELECT url, source_type, branch, settings, title, description, gitops, "	\
	"run_status, state, CASE WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.library_id = "	\
	"l.id AND j.kind = 'delete' AND j.state IN ('queued', 'running')) THEN 1 ELSE 0 "	\
	"END, CASE WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.library_id = l.id AND "		\
	"j.state IN ('queued', 'running')) THEN 1 ELSE 0 END, id, host, "			\
	"coalesce(created_by, 0), created_anonymously, total_documents, total_snippets, "	\
	"lib_no, coalesce(version_of, id), indexed_commit, indexed_settings "		\
	"FROM libraries l "

/*
 * Runs st (its parameters bound) and reads its row, if any, into l; finalizes st. 0, or
 * -1 (logged).
 * Engine: the flags are CASE ... THEN 1 ELSE 0 (an EXISTS is a boolean on PostgreSQL).
 */
static int
store_library_read(struct db *db, struct db_stmt *st, struct store_library *l)
{
	int		 rc, nomem = 0;

	if ((rc = db_step(st)) == DB_ROW) {
		l->exists = 1;
		l->url = store_library_dup(st, 0, "");
		l->type = store_library_dup(st, 1, "");
		l->branch = store_library_dup(st, 2, "");
		l->settings = store_library_dup(st, 3, "");
		l->title = store_library_dup(st, 4, "");
		l->description = store_library_dup(st, 5, "");
		l->gitops = (int)db_col_int64(st, 6);
		l->run_status = store_library_dup(st, 7, "");
		l->state = store_library_dup(st, 8, "");
		l->deleting = (int)db_col_int64(st, 9);
		l->pending = (int)db_col_int64(st, 10);
		l->id = store_library_dup(st, 11, "");
		l->host = store_library_dup(st, 12, "");
		l->created_by = db_col_int64(st, 13);
		l->created_anonymously = (int)db_col_int64(st, 14);
		l->total_documents = db_col_int64(st, 15);
		l->total_snippets = db_col_int64(st, 16);
		l->lib_no = db_col_int64(st, 17);
		l->family = store_library_dup(st, 18, "");
		if (!db_col_null(st, 19) &&
		    (l->indexed_commit = store_library_dup(st, 19, "")) == NULL)
			nomem = 1;
		if (!db_col_null(st, 20) &&
		    (l->indexed_settings = store_library_dup(st, 20, "")) == NULL)
			nomem = 1;
		if (l->url == NULL || l->type == NULL || l->branch == NULL ||
		    l->settings == NULL || l->title == NULL || l->description == NULL ||
		    l->run_status == NULL || l->state == NULL || l->id == NULL ||
		    l->host == NULL || l->family == NULL)
			nomem = 1;
	}
	if (rc != DB_ROW && rc != DB_DONE)
		log_err("store_library_load: %s", db_conn_errmsg(db));
	db_finalize(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return -1;
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
	struct db_stmt	*st;

	memset(l, 0, sizeof(*l));
	if (db_prepare(db, STORE_LIBRARY_COLS "WHERE id = ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, id);
	return store_library_read(db, st, l);
}

/*
 * Engine: COLLATE NOCASE compares ASCII letters without case (on PostgreSQL the ICU
 * collation nocase of the schema, case-insensitive beyond ASCII too); the exact spelling
 * sorts first on both (true after false, DESC).
 */
int
store_library_load_nocase(struct db *db, const char *id, struct store_library *l)
{
	struct db_stmt	*st;

	memset(l, 0, sizeof(*l));
	if (db_prepare(db, STORE_LIBRARY_COLS "WHERE id = ?1 COLLATE NOCASE ORDER BY id = ?1 "
	    "DESC LIMIT 1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, id);
	return store_library_read(db, st, l);
}

int
store_library_write_managed(struct db *db, const char *id, const char *host,
    const struct store_library_values *v, int exists)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	if (!exists && store_library_numbers_lock(db) == -1)
		return -1;
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
	struct db_stmt	*st;
	char		**v = NULL, **nv, *s;
	size_t		 k = 0;
	int		 step, rc = -1;

	*ids = NULL;
	*n = 0;
	/* Engine: SQLite's byte order of ids on both */
	if (db_prepare(db, DB_PAIR("SELECT id FROM libraries WHERE gitops = 1 AND state <> "
	    "'delete' ORDER BY id", "SELECT id FROM libraries WHERE gitops = 1 AND state <> "
	    "'delete' ORDER BY id COLLATE \"C\""), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	while ((step = db_step(st)) == DB_ROW) {
		if ((nv = reallocarray(v, k + 1, sizeof(*v))) == NULL ||
		    (s = strdup(db_col_text(st, 0))) == NULL) {
			if (nv != NULL)
				v = nv;
			log_err("%s: out of memory", __func__);
			goto out;
		}
		v = nv;
		v[k++] = s;
	}
	if (step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		goto out;
	}
	rc = 0;
out:
	db_finalize(st);
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
	if (store_library_numbers_lock(db) == -1)
		return -1;
	return db_run(db, store_library_bump_sql[what], "t", id);
}

int
store_library_insert(struct db *db, const char *id, const char *host,
    const struct store_library_values *v, long long created_by, int anonymous,
    const char *now)
{
	if (store_library_numbers_lock(db) == -1)
		return -1;
	return db_run(db, "INSERT INTO libraries (id, lib_no, url, host, branch, settings, "
	    "title, created_at, updated_at, created_by, source_type, description, "
	    "created_anonymously) VALUES (?1, (SELECT coalesce(max(lib_no), 0) + 1 FROM "
	    "libraries), ?2, ?3, ?4, ?5, ?6, ?7, ?7, nullif(CAST(?8 AS bigint), 0), ?9, ?10, "
	    "?11)",
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
	struct db_stmt	*st;
	int		 rc;

	*host = NULL;
	/* Engine: library_hosts.id is COLLATE NOCASE (nocase on PostgreSQL) */
	if (db_prepare(db, "SELECT host FROM library_hosts WHERE id = ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, id);
	if ((rc = db_step(st)) == DB_ROW && (*host = store_library_dup(st, 0, "")) == NULL) {
		log_err("%s: out of memory", __func__);
		rc = -2;
	} else if (rc != DB_ROW && rc != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc == DB_ROW ? 1 : rc == DB_DONE ? 0 : -1;
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
	struct db_stmt	*st;
	char		**t;
	int		 step;

	memset(v, 0, sizeof(*v));
	/* Engine: in id order, SQLite's byte order on both */
	if (db_prepare(db, DB_PAIR("SELECT id, branch FROM libraries WHERE version_of = ?1 "
	    "AND state != 'delete' ORDER BY id", "SELECT id, branch FROM libraries WHERE "
	    "version_of = ?1 AND state != 'delete' ORDER BY id COLLATE \"C\""), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, id);
	while ((step = db_step(st)) == DB_ROW) {
		if ((t = reallocarray(v->ids, v->n + 1, sizeof(*t))) == NULL)
			break;
		v->ids = t;
		if ((t = reallocarray(v->branches, v->n + 1, sizeof(*t))) == NULL)
			break;
		v->branches = t;
		v->ids[v->n] = store_library_dup(st, 0, "");
		v->branches[v->n] = store_library_dup(st, 1, "");
		v->n++;
		if (v->ids[v->n - 1] == NULL || v->branches[v->n - 1] == NULL)
			break;
	}
	if (step != DB_DONE)
		log_err("%s: %s", __func__, step == DB_ROW ? "out of memory" :
		    db_conn_errmsg(db));
	db_finalize(st);
	if (step != DB_DONE) {
		store_versions_release(v);
		return -1;
	}
	return 0;
}

/*
 * Engine: an upsert (ON CONFLICT (id) DO UPDATE ... WHERE), one statement on both (the
 * row there is, or one another transaction inserts meanwhile, is updated, not refused);
 * a new row's lib_no after store_library_numbers_lock. The parameters in the SELECT list
 * are cast: PostgreSQL cannot infer their types there.
 */
int
store_library_version_put(struct db *db, const char *id, const char *parent,
    const char *version, const char *url, const char *settings, long long created_by,
    const char *now)
{
	if (store_library_numbers_lock(db) == -1)
		return -1;
	return db_run(db, "INSERT INTO libraries (id, lib_no, url, host, branch, settings, "
	    "title, created_at, updated_at, created_by, source_type, description, "
	    "version_of) SELECT CAST(?1 AS text), (SELECT coalesce(max(lib_no), 0) + 1 FROM "
	    "libraries), CAST(?2 AS text), host, CAST(?3 AS text), CAST(?4 AS text), "
	    "title || ' ' || CAST(?3 AS text), CAST(?5 AS text), CAST(?5 AS text), "
	    "nullif(CAST(?6 AS bigint), 0), 'git', description, id FROM libraries WHERE id = "
	    "?7 ON CONFLICT (id) DO UPDATE SET url = ?2, settings = ?4, updated_at = ?5 WHERE "
	    "libraries.version_of = ?7", "tttttIt", id, url, version, settings, now,
	    created_by, parent);
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
	if (store_library_numbers_lock(db) == -1)
		return -1;
	return db_run(db, "UPDATE libraries SET indexed_commit = ?2, indexed_branch = ?3, "
	    "indexed_settings = CASE WHEN CAST(?5 AS bigint) > 0 THEN NULL ELSE settings END, "
	    "blob_prefix = "
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
	struct db_stmt	*st;
	int		 rc;

	if (db_prepare(db, "SELECT lib_no, index_version FROM libraries", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	while ((rc = db_step(st)) == DB_ROW)
		if (cb(db_col_int64(st, 0), db_col_int64(st, 1), arg) == -1) {
			db_finalize(st);
			return -1;
		}
	if (rc != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc == DB_DONE ? 0 : -1;
}

int
store_library_indexes(struct db *db, int (*cb)(const struct store_library_index *, void *),
    void *arg)
{
	struct store_library_index l;
	struct db_stmt	*st;
	int		 rc;

	/* Engine: the flag as an integer, the ids in SQLite's byte order on both */
	if (db_prepare(db, DB_PAIR("SELECT id, state, lib_no, index_version, total_snippets, "
	    "indexed_commit IS NOT NULL FROM libraries WHERE state <> 'delete' ORDER BY id",
	    "SELECT id, state, lib_no, index_version, total_snippets, CASE WHEN "
	    "indexed_commit IS NOT NULL THEN 1 ELSE 0 END FROM libraries WHERE state <> "
	    "'delete' ORDER BY id COLLATE \"C\""), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	while ((rc = db_step(st)) == DB_ROW) {
		l.id = db_col_text(st, 0);
		l.state = db_col_text(st, 1);
		l.lib_no = db_col_int64(st, 2);
		l.index_version = db_col_int64(st, 3);
		l.snippets = db_col_int64(st, 4);
		l.has_index = (int)db_col_int64(st, 5);
		if (cb(&l, arg) == -1) {
			db_finalize(st);
			return -1;
		}
	}
	if (rc != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc == DB_DONE ? 0 : -1;
}
