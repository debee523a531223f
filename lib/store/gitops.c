/* store/gitops.c: the rows of GitOps syncs and of the reconciler's state (store/gitops.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/gitops.h"
#include "store/stmt.h"

/*
 * Engine: on PostgreSQL several nodes share the rows, and two advisory locks (their keys:
 * JOBS_PG_KEY in store/jobs.c) keep a sync to one node. Queueing takes (JOBS_PG_KEY, 2) to
 * the end of its transaction, so that two nodes never queue two syncs where one should
 * be reused. Running a sync holds (JOBS_PG_KEY, 3) as a session lock from its claim to its
 * end (store_gitops_finish): a node's claim takes it or finds nothing to do, and a run
 * left 'running' is only taken for dead (requeued) by the node holding the lock; a node
 * that dies loses it with its connection. On SQLite the worker's DATA_DIR/worker.lock
 * does the same: one pool runs the syncs.
 */
#define GITOPS_PG_KEY	"1668577380"
#define GITOPS_PG_LOCK_QUEUE	"SELECT pg_advisory_xact_lock(" GITOPS_PG_KEY ", 2)"
/* This session's hold of the run lock (held: 1), else 0 */
#define GITOPS_PG_HELD	"EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND " \
	"pid = pg_backend_pid() AND granted AND classid = " GITOPS_PG_KEY "::bigint::oid " \
	"AND objid = 3 AND objsubid = 2)"
/* 1 when this session has the run lock (again, or now), 0 when another has it. */
#define GITOPS_PG_LOCK_RUN	"SELECT CASE WHEN " GITOPS_PG_HELD " THEN 1 WHEN " \
	"pg_try_advisory_lock(" GITOPS_PG_KEY ", 3) THEN 1 ELSE 0 END"
#define GITOPS_PG_UNLOCK_RUN	"SELECT CASE WHEN " GITOPS_PG_HELD " THEN " \
	"pg_advisory_unlock(" GITOPS_PG_KEY ", 3) END"

/*
 * Runs sql, a SELECT of one integer, on PostgreSQL only: 0 or 1 (its value; 1 on SQLite),
 * or -1 (logged).
 */
static int
store_gitops_pg(struct db *db, const char *sql, const char *who)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_conn_engine(db) != DB_ENGINE_POSTGRES)
		return 1;
	if (db_prepare(db, sql, &st) == 0) {
		if (db_step(st) == DB_ROW)
			rc = db_col_int64(st, 0) != 0;
		db_finalize(st);
	}
	if (rc == -1)
		log_err("%s: %s", who, db_conn_errmsg(db));
	return rc;
}

/* Releases this session's run lock, if it has it (PostgreSQL). */
static void
store_gitops_unlock(struct db *db, const char *who)
{
	(void)store_gitops_pg(db, GITOPS_PG_UNLOCK_RUN, who);
}

int
store_gitops_queue(struct db *db, const char *trigger, long long *run_id)
{
	struct db_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1;

	*run_id = 0;
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(db) == -1)
		return -1;
	/* Engine: the queue lock makes the look for a queued sync and the insert one step */
	if (store_gitops_pg(db, GITOPS_PG_LOCK_QUEUE, __func__) == -1)
		goto out;
	if (db_run(db, "INSERT INTO gitops_runs (trigger, created_at) SELECT CAST(?1 AS "
	    "text), CAST(?2 AS text) WHERE NOT EXISTS (SELECT 1 FROM gitops_runs WHERE "
	    "state = 'queued')", "tt", trigger, now) == -1)
		goto out;
	if (db_prepare(db, "SELECT id FROM gitops_runs WHERE state = 'queued' "
	    "ORDER BY id LIMIT 1", &st) == -1 || db_step(st) != DB_ROW) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		goto out;
	}
	*run_id = db_col_int64(st, 0);
	db_finalize(st);
	st = NULL;
	if (db_commit(db) == -1)
		goto out;
	rc = 0;
out:
	db_finalize(st);
	if (rc == -1)
		db_rollback(db);
	return rc;
}

/* Engine: the Unix time of an ISO 8601 text, per engine. */
int
store_gitops_last_slot(struct db *db, time_t *t)
{
	struct db_stmt	*st;
	int		 rc;

	*t = 0;
	if (db_prepare(db, DB_PAIR("SELECT CAST(strftime('%s', last_slot) AS INTEGER) "
	    "FROM gitops_state WHERE id = 1 AND last_slot IS NOT NULL", "SELECT "
	    "CAST(extract(epoch FROM CAST(last_slot AS timestamptz)) AS bigint) FROM "
	    "gitops_state WHERE id = 1 AND last_slot IS NOT NULL"), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	if ((rc = db_step(st)) == DB_ROW)
		*t = (time_t)db_col_int64(st, 0);
	else if (rc != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	rc = rc == DB_ROW || rc == DB_DONE ? 0 : -1;
	db_finalize(st);
	return rc;
}

/*
 * The slot only moves forward: of two nodes that evaluate the same slot, one records it
 * (and queues its sync). The row is made when missing (a PostgreSQL database has none at
 * first).
 */
int
store_gitops_set_slot(struct db *db, const char *at)
{
	if (db_run(db, "INSERT INTO gitops_state (id, last_slot) VALUES (1, ?1) ON CONFLICT "
	    "(id) DO UPDATE SET last_slot = excluded.last_slot WHERE gitops_state.last_slot "
	    "IS NULL OR gitops_state.last_slot < excluded.last_slot", "t", at) == -1)
		return -1;
	return db_changes(db) > 0;
}

int
store_gitops_seen(struct db *db, const char *commit, const char *config)
{
	struct db_stmt	*st;
	int		 rc;

	if (db_prepare(db, "SELECT 1 FROM gitops_state WHERE id = 1 AND "
	    "last_commit = ?1 AND last_config = ?2", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, commit);
	db_bind_text(st, 2, config);
	rc = db_step(st);
	if (rc != DB_ROW && rc != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc == DB_ROW ? 1 : rc == DB_DONE ? 0 : -1;
}

/* The row is made when missing, as in store_gitops_set_slot. */
int
store_gitops_processed(struct db *db, const char *commit, const char *config)
{
	return db_run(db, "INSERT INTO gitops_state (id, last_commit, last_config) VALUES "
	    "(1, ?1, ?2) ON CONFLICT (id) DO UPDATE SET last_commit = excluded.last_commit, "
	    "last_config = excluded.last_config", "tt", commit, config);
}

/* No row (a PostgreSQL database before its first sync): no commit. */
int
store_gitops_last_commit(struct db *db, char **commit)
{
	struct db_stmt	*st;
	int		 s, rc = -1;

	*commit = NULL;
	if (db_prepare(db, "SELECT last_commit FROM gitops_state WHERE id = 1", &st) == -1 ||
	    ((s = db_step(st)) != DB_ROW && s != DB_DONE)) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		goto out;
	}
	if (s == DB_ROW && !db_col_null(st, 0) &&
	    (*commit = strdup(db_col_text(st, 0))) == NULL)
		goto out;
	rc = 0;
out:
	db_finalize(st);
	return rc;
}

/*
 * Engine: on PostgreSQL the run lock first (see GITOPS_PG_KEY): held by another node, its
 * sync runs and there is nothing to claim here; taken, it is kept when a sync is claimed
 * (store_gitops_finish releases it) and released when none is. The claim is one UPDATE
 * ... RETURNING whose row is locked FOR UPDATE SKIP LOCKED on PostgreSQL.
 */
int
store_gitops_claim(struct db *db, int max_attempts, long long *run_id)
{
	struct db_stmt	*st;
	char		 now[32];
	int		 rc;

	*run_id = 0;
	/*
	 * No run queued or left running (the worker looks before each job it claims): no
	 * write, which would wait for a job's index write.
	 */
	if (db_prepare(db, "SELECT CASE WHEN EXISTS (SELECT 1 FROM gitops_runs WHERE state "
	    "IN ('queued', 'running')) THEN 1 ELSE 0 END", &st) == -1 ||
	    db_step(st) != DB_ROW) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		db_finalize(st);
		return -1;
	}
	rc = (int)db_col_int64(st, 0);
	db_finalize(st);
	if (rc == 0)
		return 0;
	if ((rc = store_gitops_pg(db, GITOPS_PG_LOCK_RUN, __func__)) != 1)
		return rc;
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_run(db, "UPDATE gitops_runs SET state = CASE WHEN attempts >= ?1 THEN "
	    "'failed' ELSE 'queued' END, message = CASE WHEN attempts >= ?1 THEN 'the "
	    "worker stopped before the end of this sync ' || attempts || ' times; giving "
	    "up' ELSE 'the previous worker stopped before the end of this sync' END, "
	    "finished_at = CASE WHEN attempts >= ?1 THEN CAST(?2 AS text) END WHERE "
	    "state = 'running'", "it", max_attempts, now) == -1)
		goto fail;
	if (db_prepare(db, DB_PAIR("UPDATE gitops_runs SET state = 'running', attempts = "
	    "attempts + 1, started_at = ?1 WHERE id = (SELECT id FROM gitops_runs WHERE "
	    "state = 'queued' ORDER BY id LIMIT 1) RETURNING id", "UPDATE gitops_runs SET "
	    "state = 'running', attempts = attempts + 1, started_at = ?1 WHERE id = (SELECT "
	    "id FROM gitops_runs WHERE state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP "
	    "LOCKED) RETURNING id"), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		goto fail;
	}
	db_bind_text(st, 1, now);
	if ((rc = db_step(st)) == DB_ROW) {
		*run_id = db_col_int64(st, 0);
		if (db_step(st) != DB_DONE)
			rc = -1;
	}
	if (rc != DB_ROW && rc != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	if (rc == DB_ROW)
		return 1;
	store_gitops_unlock(db, __func__);
	return rc == DB_DONE ? 0 : -1;
fail:
	store_gitops_unlock(db, __func__);
	return -1;
}

/* Engine: releases the run lock on PostgreSQL (store_gitops_claim). */
int
store_gitops_finish(struct db *db, long long id, const char *state, const char *message,
    const char *result, const char *commit)
{
	char	 now[32];
	int	 rc;

	util_iso8601(time(NULL), now, sizeof(now));
	rc = db_run(db, "UPDATE gitops_runs SET state = ?2, message = ?3, result = ?4, "
	    "manifest_commit = nullif(?5, ''), finished_at = ?6 WHERE id = ?1", "Ittttt", id,
	    state, message, result, commit, now);
	store_gitops_unlock(db, __func__);
	return rc;
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

/* Column i as a malloc'd string, NULL for NULL (or when memory is short). */
static char *
store_gitops_dup(struct db_stmt *st, int i)
{
	return db_col_null(st, i) ? NULL : strdup(db_col_text(st, i));
}

/* Engine: ?1 is typed (bigint) where a statement only compares it with itself. */
int
store_gitops_run_get(struct db *db, enum store_gitops_which which, long long id,
    struct store_gitops_run *r)
{
	static const char *const sql[] = {
		[STORE_GITOPS_BY_ID] = STORE_GITOPS_RUN_SQL "WHERE id = ?1",
		[STORE_GITOPS_LAST_FINISHED] = STORE_GITOPS_RUN_SQL "WHERE state IN ('done', "
		    "'skipped', 'failed') AND CAST(?1 AS bigint) = ?1 ORDER BY id DESC LIMIT 1",
		[STORE_GITOPS_PENDING] = STORE_GITOPS_RUN_SQL "WHERE state IN ('queued', "
		    "'running') AND CAST(?1 AS bigint) = ?1 ORDER BY id LIMIT 1",
	};
	struct db_stmt	*st;
	int		 rc;

	memset(r, 0, sizeof(*r));
	if (db_prepare(db, sql[which], &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_int64(st, 1, id);
	if ((rc = db_step(st)) == DB_ROW) {
		r->id = db_col_int64(st, 0);
		r->trigger = store_gitops_dup(st, 1);
		r->state = store_gitops_dup(st, 2);
		r->attempts = (int)db_col_int64(st, 3);
		r->manifest_commit = store_gitops_dup(st, 4);
		r->message = store_gitops_dup(st, 5);
		r->created_at = store_gitops_dup(st, 6);
		r->started_at = store_gitops_dup(st, 7);
		r->finished_at = store_gitops_dup(st, 8);
		r->result = store_gitops_dup(st, 9);
	} else if (rc != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc == DB_ROW ? 1 : rc == DB_DONE ? 0 : -1;
}

int
store_gitops_run_finished(struct db *db, long long id)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_prepare(db, "SELECT CASE WHEN state IN ('done', 'skipped', 'failed') THEN 1 "
	    "ELSE 0 END FROM gitops_runs WHERE id = ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_int64(st, 1, id);
	if (db_step(st) == DB_ROW)
		rc = (int)db_col_int64(st, 0);
	db_finalize(st);
	return rc;
}
