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

void
store_library_release(struct store_library *l)
{
	free(l->url);
	free(l->type);
	free(l->branch);
	free(l->settings);
	free(l->title);
	free(l->description);
	free(l->run_status);
	free(l->state);
	memset(l, 0, sizeof(*l));
}

int
store_library_load(sqlite3 *db, const char *id, struct store_library *l)
{
	sqlite3_stmt	*st;
	int		 rc;

	memset(l, 0, sizeof(*l));
	if (sqlite3_prepare_v2(db, "SELECT url, source_type, branch, settings, title, "
	    "description, gitops, run_status, state, EXISTS (SELECT 1 FROM jobs j WHERE "
	    "j.library_id = l.id AND j.kind = 'delete' AND j.state IN ('queued', "
	    "'running')), EXISTS (SELECT 1 FROM jobs j WHERE j.library_id = l.id AND "
	    "j.state IN ('queued', 'running')) FROM libraries l WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
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
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	if (l->exists && (l->url == NULL || l->type == NULL || l->branch == NULL ||
	    l->settings == NULL || l->title == NULL || l->description == NULL ||
	    l->run_status == NULL || l->state == NULL)) {
		log_err("%s: out of memory", __func__);
		store_library_release(l);
		return -1;
	}
	return 0;
}

int
store_library_write_managed(sqlite3 *db, const char *id, const char *host,
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
store_library_managed(sqlite3 *db, char ***ids, size_t *n)
{
	sqlite3_stmt	*st;
	char		**v = NULL, **nv, *s;
	size_t		 k = 0;
	int		 step, rc = -1;

	*ids = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT id FROM libraries WHERE gitops = 1 AND state "
	    "<> 'delete' ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
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
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
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
