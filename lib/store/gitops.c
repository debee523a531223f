/* store/gitops.c: the rows of GitOps syncs and of the reconciler's state (store/gitops.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/gitops.h"
#include "store/conn.h"

#define STORE_GITOPS_NOW	"strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

int
store_gitops_queue(struct db *db, const char *trigger, long long *run_id)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	*run_id = 0;
	if (db_begin(db) == -1)
		return -1;
	if (db_run(db, "INSERT INTO gitops_runs (trigger, created_at) SELECT ?1, "
	    STORE_GITOPS_NOW " WHERE NOT EXISTS (SELECT 1 FROM gitops_runs WHERE state = "
	    "'queued')", "t", trigger) == -1)
		goto out;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT id FROM gitops_runs WHERE state = 'queued' "
	    "ORDER BY id LIMIT 1", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		goto out;
	}
	*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (db_commit(db) == -1)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(st);
	if (rc == -1)
		db_rollback(db);
	return rc;
}

int
store_gitops_last_slot(struct db *db, time_t *t)
{
	sqlite3_stmt	*st;
	int		 rc;

	*t = 0;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT CAST(strftime('%s', last_slot) AS INTEGER) "
	    "FROM gitops_state WHERE id = 1 AND last_slot IS NOT NULL", -1, &st, NULL) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*t = (time_t)sqlite3_column_int64(st, 0);
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int
store_gitops_set_slot(struct db *db, const char *at)
{
	return db_run(db, "UPDATE gitops_state SET last_slot = ?1 WHERE id = 1", "t", at);
}

int
store_gitops_seen(struct db *db, const char *commit, const char *config)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT 1 FROM gitops_state WHERE id = 1 AND "
	    "last_commit = ?1 AND last_config = ?2", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, config, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int
store_gitops_processed(struct db *db, const char *commit, const char *config)
{
	return db_run(db, "UPDATE gitops_state SET last_commit = ?1, last_config = ?2 WHERE "
	    "id = 1", "tt", commit, config);
}

int
store_gitops_last_commit(struct db *db, char **commit)
{
	sqlite3_stmt	*st;
	const char	*v;
	int		 rc = -1;

	*commit = NULL;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT last_commit FROM gitops_state WHERE id = 1", -1,
	    &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		goto out;
	}
	if ((v = (const char *)sqlite3_column_text(st, 0)) != NULL &&
	    (*commit = strdup(v)) == NULL)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int
store_gitops_claim(struct db *db, int max_attempts, long long *run_id)
{
	sqlite3_stmt	*st;
	int		 rc;

	*run_id = 0;
	if (db_run(db, "UPDATE gitops_runs SET state = CASE WHEN attempts >= ?1 THEN "
	    "'failed' ELSE 'queued' END, message = CASE WHEN attempts >= ?1 THEN 'the "
	    "worker stopped before the end of this sync ' || attempts || ' times; giving "
	    "up' ELSE 'the previous worker stopped before the end of this sync' END, "
	    "finished_at = CASE WHEN attempts >= ?1 THEN " STORE_GITOPS_NOW " END WHERE "
	    "state = 'running'", "i", max_attempts) == -1)
		return -1;
	if (sqlite3_prepare_v2(db_lite(db), "UPDATE gitops_runs SET state = 'running', attempts = "
	    "attempts + 1, started_at = " STORE_GITOPS_NOW " WHERE id = (SELECT id FROM "
	    "gitops_runs WHERE state = 'queued' ORDER BY id LIMIT 1) RETURNING id", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	return rc == SQLITE_ROW;
}

int
store_gitops_finish(struct db *db, long long id, const char *state, const char *message,
    const char *result, const char *commit)
{
	return db_run(db, "UPDATE gitops_runs SET state = ?2, message = ?3, result = ?4, "
	    "manifest_commit = nullif(?5, ''), finished_at = " STORE_GITOPS_NOW " WHERE id = "
	    "?1", "Itttt", id, state, message, result, commit);
}

void
store_gitops_run_release(struct store_gitops_run *r)
{
	free(r->trigger);
	free(r->state);
	free(r->manifest_commit);
	free(r->message);
	free(r->created_at);
	free(r->started_at);
	free(r->finished_at);
	free(r->result);
	memset(r, 0, sizeof(*r));
}

#define STORE_GITOPS_RUN_SQL	"SELECT id, trigger, state, attempts, manifest_commit, " \
	"message, created_at, started_at, finished_at, result FROM gitops_runs "

int
store_gitops_run_get(struct db *db, enum store_gitops_which which, long long id,
    struct store_gitops_run *r)
{
	static const char *const sql[] = {
		[STORE_GITOPS_BY_ID] = STORE_GITOPS_RUN_SQL "WHERE id = ?1",
		[STORE_GITOPS_LAST_FINISHED] = STORE_GITOPS_RUN_SQL "WHERE state IN ('done', "
		    "'skipped', 'failed') AND ?1 = ?1 ORDER BY id DESC LIMIT 1",
		[STORE_GITOPS_PENDING] = STORE_GITOPS_RUN_SQL "WHERE state IN ('queued', "
		    "'running') AND ?1 = ?1 ORDER BY id LIMIT 1",
	};
	sqlite3_stmt	*st;
	int		 rc;

	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(db_lite(db), sql[which], -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r->id = sqlite3_column_int64(st, 0);
		r->trigger = db_column_dup(st, 1, NULL);
		r->state = db_column_dup(st, 2, NULL);
		r->attempts = sqlite3_column_int(st, 3);
		r->manifest_commit = db_column_dup(st, 4, NULL);
		r->message = db_column_dup(st, 5, NULL);
		r->created_at = db_column_dup(st, 6, NULL);
		r->started_at = db_column_dup(st, 7, NULL);
		r->finished_at = db_column_dup(st, 8, NULL);
		r->result = db_column_dup(st, 9, NULL);
	} else if (rc != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int
store_gitops_run_finished(struct db *db, long long id)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT state IN ('done', 'skipped', 'failed') FROM "
	    "gitops_runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc;
}
