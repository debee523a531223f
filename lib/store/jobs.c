/* jobs.c: queueing jobs and starting the worker that runs them. */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/jobs.h"
#include "store/settings.h"
#include "store/stmt.h"

/*
 * The one list of states (indexed by their enums in store/jobs.h); sql/schema.sql's CHECK
 * constraints name the same (t/unit/test-jobs checks). Every write of jobs.state,
 * libraries.state and libraries.run_status is in this file.
 */
const char *const jobs_states[] = {
#define X(e, name) name,
	JOBS_STATE_LIST(X)
#undef X
};
const char *const jobs_library_states[] = {
#define X(e, name) name,
	JOBS_LIBRARY_STATE_LIST(X)
#undef X
};
const char *const jobs_run_statuses[] = {
#define X(e, name) name,
	JOBS_RUN_STATUS_LIST(X)
#undef X
};

/*
 * Who the jobs this process queues next are for (jobs_queuer_begin, until jobs_queuer_end):
 * a responder answers one request at a time. via NULL: the service itself.
 */
static long long	 jobs_queuer_id;
static const char	*jobs_queuer_via;
static int		 jobs_queuer_admin;

/* The index jobs queued by via (user_id's, for 'user'): their number, -1 on error. */
static long long
jobs_queued_by(struct db *db, long long user_id, const char *via)
{
	struct db_stmt	*st;
	long long	 n = -1;

	if (db_prepare(db, "SELECT count(*) FROM jobs WHERE state = 'queued' AND "
	    "kind = 'index' AND queued_via = ?1 AND (?1 <> 'user' OR queued_by = ?2)",
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, via);
	db_bind_int64(st, 2, user_id);
	if (db_step(st) == DB_ROW)
		n = db_col_int64(st, 0);
	else
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return n;
}

int
jobs_queuer_begin(struct db *db, long long user_id, const char *via, int admin, int adding,
    char *err, size_t errsz)
{
	long long	 n, cap;

	jobs_queuer_id = 0;
	jobs_queuer_via = NULL;
	jobs_queuer_admin = 0;
	if (strcmp(via, "user") != 0 && strcmp(via, "key") != 0 &&
	    strcmp(via, "anonymous") != 0) {
		snprintf(err, errsz, "unknown requester");
		return -1;
	}
	if (!admin && adding > 0) {
		cap = settings_get_long(db, util_data_dir(), JOBS_CAP_SETTING, JOBS_CAP_DEFAULT);
		if ((n = jobs_queued_by(db, user_id, via)) == -1) {
			snprintf(err, errsz, "database error; the responder log has the details");
			return -1;
		}
		if (n + adding > cap) {
			snprintf(err, errsz, "%s %lld index job%s queued, and the most %s is "
			    "%lld (setting " JOBS_CAP_SETTING "): this request would queue %d "
			    "more; try again when some have run", strcmp(via, "anonymous") == 0 ?
			    "anonymous callers have" : strcmp(via, "key") == 0 ?
			    "operator keys have" : "you have", n, n == 1 ? "" : "s",
			    strcmp(via, "user") == 0 ? "one user may have" :
			    "they may have together", cap, adding);
			return 1;
		}
	}
	/* our own constant: the caller's string need not outlive this call */
	jobs_queuer_id = strcmp(via, "user") == 0 ? user_id : 0;
	jobs_queuer_via = strcmp(via, "user") == 0 ? "user" : strcmp(via, "key") == 0 ?
	    "key" : "anonymous";
	jobs_queuer_admin = admin != 0;
	return 0;
}

void
jobs_queuer_end(void)
{
	jobs_queuer_id = 0;
	jobs_queuer_via = NULL;
	jobs_queuer_admin = 0;
}

int
jobs_index_queued(struct db *db, const char *library_id)
{
	struct db_stmt	*st;
	int		 rc;

	if (db_prepare(db, "SELECT 1 FROM jobs WHERE library_id = ?1 AND "
	    "state = 'queued' AND kind = 'index' LIMIT 1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	if ((rc = db_step(st)) == DB_ROW)
		rc = 1;
	else if (rc == DB_DONE)
		rc = 0;
	else {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

/*
 * The advisory lock keys of the job queue on PostgreSQL, pg_advisory_xact_lock(JOBS_PG_KEY,
 * n): "ctxd" in ASCII as the first key (pgstore_migrate's schema lock is the one-key form
 * of the same number, a lock of another kind), and:
 *  1  the claim decision (jobs_claim) and the recovery of orphans (jobs_recover): held to
 *     the end of their transaction, so that the family check and the claim of one node are
 *     one step for every other node (read committed cannot see another transaction's
 *     uncommitted claim), and two nodes never recover the same orphans at once;
 *  2  GitOps: queueing a sync (store/gitops.c);
 *  3  GitOps: running a sync, a session lock (store/gitops.c);
 *  hashtext(library id) with JOBS_PG_KEY + 1 as the first key: queueing a job of that
 *     library (jobs_enqueue, jobs_enqueue_delete), so that two requests never queue two
 *     jobs where one should be reused.
 * SQLite needs none of them: BEGIN IMMEDIATE takes its one writer first.
 */
#define JOBS_PG_KEY	"1668577380"

/*
 * Runs sql, a SELECT of one row (an advisory lock), on PostgreSQL only; ?1 is arg. 0, or
 * -1 (logged; a lock not granted in lock_timeout is a busy failure, db_failure).
 */
static int
jobs_pg_select(struct db *db, const char *sql, const char *arg, const char *who)
{
	struct db_stmt	*st;
	int		 rc = -1;

	if (db_conn_engine(db) != DB_ENGINE_POSTGRES)
		return 0;
	if (db_prepare(db, sql, &st) == 0) {
		if (arg != NULL)
			db_bind_text(st, 1, arg);
		if (db_step(st) == DB_ROW)
			rc = 0;
		db_finalize(st);
	}
	if (rc == -1)
		log_err("%s: %s", who, db_conn_errmsg(db));
	return rc;
}

/* Queueing a job of library ?1: see JOBS_PG_KEY. */
#define JOBS_PG_LOCK_LIBRARY	"SELECT pg_advisory_xact_lock(" JOBS_PG_KEY " + 1, " \
	"hashtext(CAST(?1 AS text)))"

int
jobs_enqueue(struct db *db, const char *library_id, int force, long long *job_id)
{
	struct db_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1;

	/*
	 * Engine: read committed would let two transactions both find no queued job and both
	 * insert one; the library's lock makes the look and the insert one step.
	 */
	if (jobs_pg_select(db, JOBS_PG_LOCK_LIBRARY, library_id, __func__) == -1)
		return -1;
	if (db_prepare(db, "SELECT id FROM jobs WHERE library_id = ?1 AND "
	    "state = 'queued' AND kind = 'index' ORDER BY id LIMIT 1", &st) == -1)
		goto dberr;
	db_bind_text(st, 1, library_id);
	if (db_step(st) == DB_ROW) {
		*job_id = db_col_int64(st, 0);
		db_finalize(st);
		st = NULL;
		if (force && db_run(db, "UPDATE jobs SET force = 1 WHERE id = ?1", "I",
		    *job_id) == -1)
			return -1;
		/*
		 * A request of the service (a schedule, a webhook, a GitOps sync) or of an
		 * admin merged into a member's queued job takes it over: the job is claimed
		 * in the newer requester's turn, not behind the member's other jobs.
		 */
		if (jobs_queuer_via != NULL && !jobs_queuer_admin)
			return 0;
		return db_run(db, "UPDATE jobs SET queued_by = nullif(?2, 0), queued_via = ?3, "
		    "queued_admin = ?4 WHERE id = ?1 AND state = 'queued' AND "
		    "queued_via IS NOT NULL AND queued_admin = 0", "IIti", *job_id,
		    jobs_queuer_id, jobs_queuer_via, jobs_queuer_admin);
	}
	db_finalize(st);
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_prepare(db, "INSERT INTO jobs (library_id, kind, force, created_at, queued_by, "
	    "queued_via, queued_admin) VALUES (?1, 'index', ?2, ?3, nullif(?4, 0), ?5, ?6) "
	    "RETURNING id", &st) == -1)
		goto dberr;
	db_bind_text(st, 1, library_id);
	db_bind_int64(st, 2, force != 0);
	db_bind_text(st, 3, now);
	db_bind_int64(st, 4, jobs_queuer_id);
	db_bind_text(st, 5, jobs_queuer_via);
	db_bind_int64(st, 6, jobs_queuer_admin);
	if (db_step(st) != DB_ROW)
		goto dberr;
	*job_id = db_col_int64(st, 0);
	if (db_step(st) != DB_DONE)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	log_err("%s: %s", __func__, db_conn_errmsg(db));
out:
	db_finalize(st);
	return rc;
}

int
jobs_delete_pending(struct db *db, const char *library_id, long long *job_id)
{
	struct db_stmt	*st;
	int		 r = -1;

	if (db_prepare(db, "SELECT id FROM jobs WHERE library_id = ?1 AND "
	    "kind = 'delete' AND state IN ('queued', 'running') ORDER BY id LIMIT 1",
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	switch (db_step(st)) {
	case DB_ROW:
		if (job_id != NULL)
			*job_id = db_col_int64(st, 0);
		r = 1;
		break;
	case DB_DONE:
		r = 0;
		break;
	default:
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	}
	db_finalize(st);
	return r;
}

/*
 * Queues the delete of each version of library_id (libraries.version_of): a
 * library's versions go with it. 0, or -1 on a database error.
 */
static int
jobs_delete_versions(struct db *db, const char *library_id)
{
	struct db_stmt	*st;
	char		**ids = NULL;
	size_t		 n = 0, i;
	long long	 job;
	int		 step, rc = -1;

	if (db_prepare(db, "SELECT id FROM libraries WHERE version_of = ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	while ((step = db_step(st)) == DB_ROW) {
		char **nids = reallocarray(ids, n + 1, sizeof(*ids));

		if (nids == NULL)
			goto out;
		ids = nids;
		if ((ids[n] = strdup(db_col_text(st, 0))) == NULL)
			goto out;
		n++;
	}
	if (step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		goto out;
	}
	db_finalize(st);
	st = NULL;
	for (i = 0; i < n; i++)
		if (jobs_enqueue_delete(db, ids[i], &job) == -1)
			goto out;
	rc = 0;
out:
	db_finalize(st);
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return rc;
}

int
jobs_enqueue_delete(struct db *db, const char *library_id, long long *job_id)
{
	struct db_stmt	*st;
	char		 now[32];
	int		 pending, rc = -1;

	/* Engine: the library's lock, as in jobs_enqueue. */
	if (jobs_pg_select(db, JOBS_PG_LOCK_LIBRARY, library_id, __func__) == -1)
		return -1;
	if ((pending = jobs_delete_pending(db, library_id, job_id)) != 0)
		return pending == 1 ? 0 : -1;
	util_iso8601(time(NULL), now, sizeof(now));
	/* The libraries row before the jobs rows: see jobs_start_tx. */
	if (db_run(db, "UPDATE libraries SET state = 'delete', updated_at = ?2 "
	    "WHERE id = ?1", "tt", library_id, now) == -1)
		return -1;
	if (db_run(db, "UPDATE jobs SET state = 'cancelled', finished_at = ?2, "
	    "message = 'cancelled: the library is being deleted' WHERE "
	    "library_id = ?1 AND state = 'queued'", "tt", library_id, now) == -1)
		return -1;
	if (db_prepare(db, "INSERT INTO jobs (library_id, kind, created_at, queued_by, "
	    "queued_via) VALUES (?1, 'delete', ?2, nullif(?3, 0), ?4) RETURNING id",
	    &st) == 0) {
		db_bind_text(st, 1, library_id);
		db_bind_text(st, 2, now);
		db_bind_int64(st, 3, jobs_queuer_id);
		db_bind_text(st, 4, jobs_queuer_via);
		if (db_step(st) == DB_ROW) {
			*job_id = db_col_int64(st, 0);
			if (db_step(st) == DB_DONE)
				rc = 0;
		}
	}
	if (rc == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	if (rc == -1)
		return -1;
	return jobs_delete_versions(db, library_id);
}

/* The integer that sql (one result column, ?1 = job id) gives for job id; 0 without a row. */
static int
jobs_int(struct db *db, const char *sql, long long id)
{
	struct db_stmt	*st;
	int		 r = 0;

	if (db_prepare(db, sql, &st) == -1)
		return 0;
	db_bind_int64(st, 1, id);
	if (db_step(st) == DB_ROW)
		r = (int)db_col_int64(st, 0);
	db_finalize(st);
	return r;
}

/*
 * Marks job id running (attempts + 1) in its own transaction, and with library_id not
 * NULL the library's run started (state processing, run_status running). 1 (nothing
 * written) when the job is no longer queued: a deletion or a cancellation took it
 * between its claim and this start.
 *
 * Engine: the libraries row is written before the jobs row here and in
 * jobs_enqueue_delete, so that on PostgreSQL a start and a deletion queued at the same
 * instant wait for each other in one order (the other order deadlocked).
 */
static int
jobs_start_tx(struct db *db, long long id, const char *library_id)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(db) == -1)
		return -1;
	if ((library_id != NULL && db_run(db, "UPDATE libraries SET state = "
	    "'processing', run_status = 'running', run_started = ?2, updated_at = ?2 "
	    "WHERE id = ?1 AND state <> 'delete'", "tt", library_id, now) == -1) ||
	    db_run(db, "UPDATE jobs SET state = 'running', started_at = ?2, "
	    "attempts = attempts + 1 WHERE id = ?1 AND state = 'queued'", "It", id,
	    now) == -1)
		goto fail;
	if (db_changes(db) == 0) {
		db_rollback(db);
		return 1;
	}
	if (db_commit(db) == -1)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return -1;
}

int
jobs_start(struct db *db, long long id)
{
	return jobs_start_tx(db, id, NULL);
}

int
jobs_finish(struct db *db, long long id, int ok, const char *message)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	return db_run(db, "UPDATE jobs SET state = ?2, message = ?3, finished_at = ?4 "
	    "WHERE id = ?1", "Ittt", id, jobs_states[ok ? JOBS_DONE : JOBS_FAILED], message,
	    now);
}

int
jobs_finish_running(struct db *db, long long id)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	return db_run(db, "UPDATE jobs SET state = 'done', finished_at = ?2 WHERE "
	    "id = ?1 AND state = 'running'", "It", id, now);
}

void
jobs_log(struct db *db, long long id, const char *level, const char *fmt, ...)
{
	va_list		 ap;
	char		 raw[1024], line[2048], now[32], prev[80], ctx[32];

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* one line per record, whatever a file name or a server's answer holds */
	util_utf8_trim(raw);
	log_escape(raw, line, sizeof(line));
	/* The record's context is its job, whatever the caller's is. */
	snprintf(prev, sizeof(prev), "%s", log_context());
	snprintf(ctx, sizeof(ctx), "job %lld", id);
	log_set_context(ctx);
	/* raw: the log writers escape it themselves (escaping line again would double \\) */
	if (strcmp(level, "error") == 0)
		log_err("%s", raw);
	else if (strcmp(level, "warning") == 0)
		log_warn("%s", raw);
	else
		log_info("%s", raw);
	log_set_context(prev);
	util_iso8601(time(NULL), now, sizeof(now));
	db_run(db, "INSERT INTO job_log (job_id, at, level, line) VALUES (?1, ?2, ?3, "
	    "?4)", "Ittt", id, now, level, line);
}

void
jobs_log_line(void *ctx, const char *level, const char *line)
{
	const struct jobs_ref *j = ctx;

	jobs_log(j->db, j->job_id, level, "%s", line);
}

enum jobs_cancel_result
jobs_cancel(struct db *db, long long id)
{
	struct db_stmt	*st = NULL;
	enum jobs_cancel_result r = JOBS_CANCEL_ERROR;
	char		 now[32], *lib = NULL, *state = NULL;
	int		 del = 0;

	if (db_begin(db) == -1)
		return JOBS_CANCEL_ERROR;
	/*
	 * Engine: the state read decides the write; on PostgreSQL the row is locked (FOR
	 * UPDATE) so that a claim or the job's end cannot change it in between.
	 */
	if (db_prepare(db, DB_PAIR("SELECT library_id, state, CASE WHEN kind = 'delete' THEN "
	    "1 ELSE 0 END FROM jobs WHERE id = ?1", "SELECT library_id, state, CASE WHEN "
	    "kind = 'delete' THEN 1 ELSE 0 END FROM jobs WHERE id = ?1 FOR UPDATE"),
	    &st) == -1)
		goto out;
	db_bind_int64(st, 1, id);
	if (db_step(st) != DB_ROW) {
		r = JOBS_CANCEL_NOT_FOUND;
		goto out;
	}
	lib = strdup(db_col_text(st, 0));
	state = strdup(db_col_text(st, 1));
	del = (int)db_col_int64(st, 2);
	db_finalize(st);
	st = NULL;
	if (lib == NULL || state == NULL)
		goto out;
	util_iso8601(time(NULL), now, sizeof(now));
	if (strcmp(state, jobs_states[JOBS_RUNNING]) == 0 && del) {
		r = JOBS_CANCEL_DELETING;
		goto out;
	}
	if (strcmp(state, jobs_states[JOBS_RUNNING]) == 0) {
		/* The worker polls the flag at its checkpoints and ends the job. */
		if (db_run(db, "UPDATE jobs SET cancel_requested = 1 WHERE id = ?1 AND "
		    "cancel_requested = 0", "I", id) == -1)
			goto out;
		if (db_changes(db) > 0)
			jobs_log(db, id, "info", "cancellation requested; the worker "
			    "stops at its next checkpoint");
		if (db_commit(db) == 0)
			r = JOBS_CANCEL_REQUESTED;
		goto out;
	}
	if (strcmp(state, jobs_states[JOBS_QUEUED]) != 0) {
		r = JOBS_CANCEL_FINISHED;
		goto out;
	}
	if (db_run(db, "UPDATE jobs SET state = 'cancelled', finished_at = ?2, "
	    "message = 'cancelled before it started' WHERE id = ?1", "It", id,
	    now) == -1)
		goto out;
	/* A cancelled deletion gives the library back the state its index has. */
	if (del && db_run(db, "UPDATE libraries SET state = CASE WHEN run_status = "
	    "'running' THEN 'processing' WHEN indexed_commit IS NOT NULL THEN "
	    "'finalized' WHEN run_status = 'failed' THEN 'error' ELSE 'initial' END, "
	    "updated_at = ?2 WHERE id = ?1 AND state = 'delete'", "tt", lib, now) == -1)
		goto out;
	if (db_commit(db) == 0)
		r = JOBS_CANCEL_OK;
out:
	if (r == JOBS_CANCEL_ERROR)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	if (r != JOBS_CANCEL_OK && r != JOBS_CANCEL_REQUESTED)
		db_rollback(db);
	free(lib);
	free(state);
	return r;
}

int
jobs_cancel_requested(struct db *db, long long id)
{
	return jobs_int(db, "SELECT CASE WHEN cancel_requested <> 0 THEN 1 ELSE 0 END FROM "
	    "jobs WHERE id = ?1", id);
}

int
jobs_cancel_point(void *ctx)
{
	const struct jobs_ref *j = ctx;

	return jobs_cancel_requested(j->db, j->job_id);
}

void
jobs_progress(struct jobs_ref *j, int force)
{
	const struct jobs_progress *p = &j->progress;
	long long	 now = util_now_ms();
	char		 at[32];

	if (!force && j->progress_ms != 0 && now - j->progress_ms < JOBS_PROGRESS_MS)
		return;
	j->progress_ms = now;
	util_iso8601(time(NULL), at, sizeof(at));
	/*
	 * A routine update does not wait for another job's write transaction (it would stall
	 * this job's parsing behind that job's index write): it is skipped, and the next one
	 * writes. A forced one (a phase's end) waits its turn.
	 */
	if ((force ? db_run : db_run_nowait)(j->db, "UPDATE jobs SET phase = ?2, "
	    "docs_total = ?3, docs_done = ?4, snippets_total = ?5, describe_total = ?6, "
	    "described = ?7, embed_total = ?8, embedded = ?9, progress_at = ?10 WHERE id = ?1",
	    "ItIIIIIIIt", j->job_id, p->phase, p->docs_total, p->docs_done, p->snippets_total,
	    p->describe_total, p->described, p->embed_total, p->embedded, at) == -1)
		log_warn("%s: job %lld: the progress could not be written", __func__,
		    j->job_id);
}

void
jobs_progress_step(void *ctx, const char *phase, size_t done, size_t total)
{
	struct jobs_ref	*j = ctx;

	j->progress.phase = phase;
	if (strcmp(phase, "describing") == 0) {
		j->progress.described = (long long)done;
		j->progress.describe_total = (long long)total;
	} else {
		j->progress.embedded = (long long)done;
		j->progress.embed_total = (long long)total;
	}
	jobs_progress(j, done == total);
}

/*
 * jobs_claim's statement: ?1 holder, ?2 the lease's end, ?3 now. A job waits while a job
 * of its library or of another version of it (same family) runs or is claimed: versions
 * reuse each other's files and vectors, which they can only when they run one after the
 * other. The service's and admins' jobs first; among the others, the queuer whose last
 * claim is oldest (never: first), so that queuers take turns whatever they queued; then
 * the oldest job (the pieces shared with the job list's queue places: jobs.h). Engine: UPDATE ...
 * RETURNING and a WITH inside the subquery (SQLite 3.35+, PostgreSQL).
 *
 * Engine: SQLite runs it as one statement, which its one writer serializes. PostgreSQL runs
 * it in a transaction that first takes the claim lock (JOBS_PG_KEY 1): without it, two
 * nodes claiming at the same instant would each pass the family check (read committed does
 * not show the other's uncommitted claim) and start two jobs of one family. Under the lock
 * the statement's snapshot, taken after the lock is granted, holds every earlier claim;
 * FOR UPDATE SKIP LOCKED passes over a job row another transaction is writing (a
 * cancellation, a requeue) rather than waiting for it.
 */
#define JOBS_CLAIM_SQL(lock)						\
    "UPDATE jobs SET lease_holder = ?1, lease_until = ?2, claim_no = (SELECT "	\
    "coalesce(max(claim_no), 0) + 1 FROM jobs) WHERE id = (WITH " JOBS_SQL_LAST " "	\
    "SELECT j.id FROM jobs j LEFT JOIN last l ON " JOBS_SQL_LAST_OF("l", "j") " "	\
    "WHERE j.state = 'queued' AND (j.lease_until IS NULL OR j.lease_until < ?3) AND "	\
    "NOT EXISTS (SELECT 1 FROM jobs o WHERE o.id <> j.id AND (o.state = 'running' OR "	\
    "(o.state = 'queued' AND o.lease_until >= ?3)) AND " JOBS_SQL_SAME_FAMILY("o", "j")	\
    ") ORDER BY " JOBS_SQL_CLASS("j") ", coalesce(l.c, 0), j.id "			\
    "LIMIT 1" lock ") RETURNING id, library_id, force, CASE WHEN kind = 'delete' THEN 1 "	\
    "ELSE 0 END"
/*
 * PostgreSQL's twin, the same jobs claimed: the family check reads the few libraries of
 * the running and claimed jobs' families (busy: each such job's family, coalesce(version_of,
 * id); kin: the libraries of it, by the primary key and libraries_version_of), then passes
 * over the queued jobs of those libraries (a hashed anti join). JOBS_SQL_SAME_FAMILY's pair
 * of libraries per pair of jobs made PostgreSQL join every library with every other at
 * each claim, under the claim lock.
 */
#define JOBS_CLAIM_SQL_PG						\
    "UPDATE jobs SET lease_holder = ?1, lease_until = ?2, claim_no = (SELECT "	\
    "coalesce(max(claim_no), 0) + 1 FROM jobs) WHERE id = (WITH " JOBS_SQL_LAST ", "	\
    "busy AS (SELECT o.id AS oid, o.library_id AS lib, coalesce(lo.version_of, lo.id) "	\
    "AS fam FROM jobs o LEFT JOIN libraries lo ON lo.id = o.library_id WHERE o.state = "	\
    "'running' OR (o.state = 'queued' AND o.lease_until >= ?3)), kin AS (SELECT oid, "	\
    "lib FROM busy UNION ALL SELECT b.oid, f.id FROM busy b JOIN libraries f ON "	\
    "f.version_of = b.fam UNION ALL SELECT b.oid, f.id FROM busy b JOIN libraries f ON "	\
    "f.id = b.fam AND f.version_of IS NULL) "					\
    "SELECT j.id FROM jobs j LEFT JOIN last l ON " JOBS_SQL_LAST_OF("l", "j") " "	\
    "WHERE j.state = 'queued' AND (j.lease_until IS NULL OR j.lease_until < ?3) AND "	\
    "NOT EXISTS (SELECT 1 FROM kin k WHERE k.oid <> j.id AND k.lib = j.library_id) "	\
    "ORDER BY " JOBS_SQL_CLASS("j") ", coalesce(l.c, 0), j.id "			\
    "LIMIT 1 FOR UPDATE OF j SKIP LOCKED) RETURNING id, library_id, force, CASE WHEN "	\
    "kind = 'delete' THEN 1 ELSE 0 END"
static const char jobs_claim_sql[] = DB_PAIR(JOBS_CLAIM_SQL(""), JOBS_CLAIM_SQL_PG);

const char *
jobs_claim_statement(void)
{
	return jobs_claim_sql;
}

/* The claim lock (JOBS_PG_KEY), to the end of the transaction. */
#define JOBS_PG_LOCK_CLAIM	"SELECT pg_advisory_xact_lock(" JOBS_PG_KEY ", 1)"

/* now + seconds as ISO 8601 (the format of every time column). */
static void
jobs_time(int seconds, char *out, size_t outsz)
{
	util_iso8601(time(NULL) + seconds, out, outsz);
}

int
jobs_claim(struct db *db, const char *holder, int lease_s, struct jobs_next *job)
{
	struct db_stmt	*st = NULL;
	const char	*lib;
	char		 until[32], now[32];
	int		 found = 0, rc, tx;

	memset(job, 0, sizeof(*job));
	jobs_time(lease_s, until, sizeof(until));
	jobs_time(0, now, sizeof(now));
	/* PostgreSQL: the claim lock first, in a transaction (the caller's, if any) */
	tx = db_conn_engine(db) == DB_ENGINE_POSTGRES && !db_in_transaction(db);
	if (tx && db_begin(db) == -1)
		return -1;
	if (jobs_pg_select(db, JOBS_PG_LOCK_CLAIM, NULL, __func__) == -1) {
		found = -1;
		goto out;
	}
	if (db_prepare(db, jobs_claim_sql, &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		found = -1;
		goto out;
	}
	db_bind_text(st, 1, holder);
	db_bind_text(st, 2, until);
	db_bind_text(st, 3, now);
	if ((rc = db_step(st)) == DB_ROW) {
		lib = db_col_text(st, 1);
		job->id = db_col_int64(st, 0);
		job->force = (int)db_col_int64(st, 2);
		job->is_delete = (int)db_col_int64(st, 3);
		if (strlen(lib) < sizeof(job->library_id)) {
			memcpy(job->library_id, lib, strlen(lib) + 1);
			found = 1;
		} else
			log_err("%s: job %lld: library id too long", __func__, job->id);
		rc = db_step(st);	/* ends the statement: the update is written */
	}
	if (rc != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		found = -1;
	}
out:
	db_finalize(st);
	if (tx && (found == -1 || db_commit(db) == -1)) {
		db_rollback(db);
		found = -1;
	}
	return found;
}

int
jobs_lease_renew(struct db *db, const char *holder, int lease_s)
{
	char	 until[32];

	jobs_time(lease_s, until, sizeof(until));
	return db_run(db, "UPDATE jobs SET lease_until = ?2 WHERE lease_holder = ?1 AND "
	    "state IN ('queued', 'running') AND lease_until IS NOT NULL", "tt", holder, until);
}

int
jobs_lease_drop(struct db *db, long long id)
{
	return db_run(db, "UPDATE jobs SET lease_until = NULL WHERE id = ?1", "I", id);
}

int
jobs_lease_drop_holder(struct db *db, const char *prefix)
{
	return db_run(db, "UPDATE jobs SET lease_until = NULL WHERE state IN ('queued', "
	    "'running') AND substr(lease_holder, 1, length(CAST(?1 AS text))) = ?1", "t",
	    prefix);
}

int
jobs_orphans(struct db *db)
{
	struct db_stmt	*st;
	char		 now[32];
	int		 rc;

	jobs_time(0, now, sizeof(now));
	if (db_prepare(db, "SELECT CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE state = "
	    "'running' AND (lease_until IS NULL OR lease_until < ?1)) THEN 1 ELSE 0 END",
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, now);
	rc = db_step(st) == DB_ROW ? (int)db_col_int64(st, 0) : -1;
	db_finalize(st);
	return rc;
}

/*
 * What jobs_recover runs, in order, in one transaction. A job whose cancellation was
 * requested is cancelled, not run again; its write transaction, if any, died with the
 * worker. A job whose library's run is no longer 'running' died in its post-index steps:
 * its index is written, it is done, and a plain (not forced) index job is queued for its
 * library so that the next run completes the titles and vectors at once. Only a job that
 * wrote a new index gets one: the follow-up finds its commit indexed ("unchanged"), and a
 * job that found it so and died in those steps queues none, so a step that always kills the
 * worker cannot loop (the next refresh or sync completes them then). A job
 * started JOBS_MAX_ATTEMPTS times fails; the others are queued again (in full) and a
 * library whose run was left unfinished gets a job.
 */
/* The message of the index job jobs_recover queues to complete a job's post-index steps. */
#define JOBS_FOLLOW_UP	"completes the titles and vectors of a job the worker stopped in"

/* A 'running' job whose runner is gone: its lease lapsed (?1: now), or it never had one. */
#define JOBS_ORPHAN	"state = 'running' AND (lease_until IS NULL OR lease_until < ?1)"

/*
 * ?1 now, ?2 JOBS_MAX_ATTEMPTS. Engine: the times are bound from C (PostgreSQL has no
 * strftime), a flag is compared with 0 (PostgreSQL's WHERE takes a boolean), and ?1 in a
 * select list is cast to text (its type on PostgreSQL).
 */
static const char *const jobs_recover_sql[] = {
	"UPDATE libraries SET run_status = 'cancelled', state = CASE WHEN state = "
	    "'delete' THEN 'delete' WHEN indexed_commit IS NOT NULL THEN 'finalized' "
	    "ELSE 'initial' END, last_error = 'cancelled: the worker stopped before it "
	    "reached a checkpoint' WHERE run_status = 'running' AND id IN (SELECT "
	    "library_id FROM jobs WHERE " JOBS_ORPHAN " AND kind = 'index' AND "
	    "cancel_requested <> 0)",
	"UPDATE jobs SET state = 'cancelled', finished_at = ?1, message = 'cancelled: the "
	    "worker stopped before it reached a checkpoint' WHERE " JOBS_ORPHAN " AND kind = "
	    "'index' AND cancel_requested <> 0",
	"INSERT INTO jobs (library_id, kind, force, created_at, message) SELECT DISTINCT "
	    "library_id, 'index', 0, CAST(?1 AS text), '" JOBS_FOLLOW_UP
	    "' FROM jobs WHERE " JOBS_ORPHAN " AND kind = 'index' AND NOT EXISTS (SELECT 1 "
	    "FROM libraries l WHERE l.id = jobs.library_id AND l.run_status = 'running') "
	    "AND EXISTS (SELECT 1 FROM libraries l WHERE l.id = jobs.library_id AND l.state "
	    "<> 'delete') AND coalesce(message, '') <> '" JOBS_UNCHANGED "' AND NOT EXISTS "
	    "(SELECT 1 FROM jobs q WHERE q.library_id = jobs.library_id AND q.state = "
	    "'queued')",
	"UPDATE jobs SET state = 'done', finished_at = ?1 WHERE " JOBS_ORPHAN " AND kind = "
	    "'index' AND NOT EXISTS (SELECT 1 FROM libraries l WHERE l.id = jobs.library_id "
	    "AND l.run_status = 'running') AND EXISTS (SELECT 1 FROM libraries l WHERE "
	    "l.id = jobs.library_id)",
	"UPDATE jobs SET state = 'failed', finished_at = ?1, message = 'the worker stopped "
	    "before the end of this job ' || attempts || ' times (crash or "
	    "limits.job_timeout_s); giving up' WHERE " JOBS_ORPHAN " AND attempts >= ?2",
	"UPDATE libraries SET run_status = 'failed', state = CASE WHEN indexed_commit IS "
	    "NULL THEN 'error' ELSE 'finalized' END, last_error = (SELECT message FROM "
	    "jobs j WHERE j.library_id = libraries.id ORDER BY j.id DESC LIMIT 1) WHERE "
	    "run_status = 'running' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE "
	    "j.library_id = libraries.id AND j.state = 'running')",
	"UPDATE libraries SET run_status = 'unfinished' WHERE run_status = 'running' AND NOT "
	    "EXISTS (SELECT 1 FROM jobs lj WHERE lj.library_id = libraries.id AND lj.state = "
	    "'running' AND lj.lease_until >= ?1)",
	"UPDATE jobs SET state = 'queued', force = 1, lease_holder = NULL, lease_until = "
	    "NULL, message = 'the previous worker stopped before the end of this job' WHERE "
	    JOBS_ORPHAN,
	"INSERT INTO jobs (library_id, kind, force, created_at) SELECT id, 'index', 1, "
	    "CAST(?1 AS text) FROM libraries l WHERE run_status = 'unfinished' AND NOT EXISTS "
	    "(SELECT 1 FROM jobs j WHERE j.library_id = l.id AND j.state = 'queued')",
};

/*
 * Engine: on PostgreSQL the claim lock (JOBS_PG_KEY 1) first, so that two nodes never
 * recover at once (each would queue its own follow-up jobs) nor while a claim decides.
 */
int
jobs_recover(struct db *db)
{
	size_t	 i;
	char	 now[32];

	if (db_begin(db) == -1)
		return -1;
	if (jobs_pg_select(db, JOBS_PG_LOCK_CLAIM, NULL, __func__) == -1)
		goto fail;
	jobs_time(0, now, sizeof(now));
	for (i = 0; i < sizeof(jobs_recover_sql) / sizeof(jobs_recover_sql[0]); i++)
		if (db_run(db, jobs_recover_sql[i], "ti", now, JOBS_MAX_ATTEMPTS) == -1)
			goto fail;
	if (db_commit(db) == 0)
		return 0;
fail:
	db_rollback(db);
	return -1;
}

int
jobs_run_start(struct db *db, long long job_id, const char *library_id)
{
	return jobs_start_tx(db, job_id, library_id);
}

int
jobs_run_end(struct db *db, long long job_id, const char *library_id, int ok,
    const char *message)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	/* Engine: ?2 <> 0, an integer on both (PostgreSQL's WHEN takes a boolean) */
	if (db_run(db, "UPDATE libraries SET state = CASE WHEN ?2 <> 0 OR indexed_commit IS "
	    "NOT NULL THEN 'finalized' ELSE 'error' END, run_status = CASE WHEN ?2 <> 0 THEN "
	    "'ok' ELSE 'failed' END, run_finished = ?3, updated_at = ?3, last_error = "
	    "CASE WHEN ?2 <> 0 THEN NULL ELSE ?4 END WHERE id = ?1", "titt", library_id, ok != 0,
	    now, message) == -1)
		return -1;
	return db_run(db, "UPDATE jobs SET state = ?2, message = ?3, finished_at = ?4 "
	    "WHERE id = ?1", "Ittt", job_id, jobs_states[ok ? JOBS_RUNNING :
	    JOBS_FAILED], message, ok ? NULL : now);
}

int
jobs_run_fail(struct db *db, long long job_id, const char *library_id,
    const char *message)
{
	db_rollback(db);
	jobs_log(db, job_id, "error", "%s", message);
	if (db_begin(db) == 0 && jobs_run_end(db, job_id, library_id, 0, message) == 0 &&
	    db_commit(db) == 0)
		return 0;
	db_rollback(db);
	return -1;
}

/*
 * Runs lib_sql (?1 library_id, ?2 message, ?3 x) and job_sql (?1 job_id, ?2 message,
 * ?3 x) in one transaction of their own.
 */
static int
jobs_run_tx(struct db *db, const char *lib_sql, const char *job_sql, long long job_id,
    const char *library_id, const char *message, const char *x)
{
	if (db_begin(db) == 0 &&
	    db_run(db, lib_sql, "ttt", library_id, message, x) == 0 &&
	    db_run(db, job_sql, "Itt", job_id, message, x) == 0 &&
	    db_commit(db) == 0)
		return 0;
	db_rollback(db);
	return -1;
}

int
jobs_run_cancel(struct db *db, long long job_id, const char *library_id,
    const char *message)
{
	char	 now[32];

	db_rollback(db);
	jobs_log(db, job_id, "warning", "%s", message);
	util_iso8601(time(NULL), now, sizeof(now));
	return jobs_run_tx(db, "UPDATE libraries SET state = CASE WHEN state = 'delete' "
	    "THEN 'delete' WHEN indexed_commit IS NOT NULL THEN 'finalized' ELSE "
	    "'initial' END, run_status = 'cancelled', run_finished = ?3, updated_at = "
	    "?3, last_error = ?2 WHERE id = ?1", "UPDATE jobs SET state = 'cancelled', "
	    "message = ?2, finished_at = ?3 WHERE id = ?1", job_id, library_id,
	    message, now);
}

int
jobs_run_degrade(struct db *db, long long job_id, const char *library_id,
    const char *error, const char *message)
{
	/* Engine: not jobs_run_tx, whose ?2 the library's statement would leave unused */
	if (db_begin(db) == 0 &&
	    db_run(db, "UPDATE libraries SET run_status = 'degraded', last_error = ?2 WHERE "
	    "id = ?1 AND run_status IN ('ok', 'degraded')", "tt", library_id, error) == 0 &&
	    db_run(db, "UPDATE jobs SET message = ?2 WHERE id = ?1", "It", job_id,
	    message) == 0 &&
	    db_commit(db) == 0)
		return 0;
	db_rollback(db);
	return -1;
}

int
jobs_spawn_worker(void)
{
	const char	*env = getenv("CTXD_WORKER");
	char		*dir = NULL, *exe = NULL, *logpath = NULL;
	pid_t		 pid;
	int		 status, fd, rc = -1;

	if (env != NULL && *env != '\0')
		exe = strdup(env);
	else if ((dir = util_exe_dir()) != NULL)
		exe = util_path_join(dir, "ctxd-worker");
	logpath = util_path_join(util_data_dir(), "worker.log");
	if (exe == NULL || logpath == NULL)
		goto out;
	if ((pid = fork()) == -1) {
		log_err("%s: fork failed", __func__);
		goto out;
	}
	if (pid == 0) {
		/* The middle child starts a session and leaves: no zombie, no ties. */
		if (setsid() == -1 || (pid = fork()) == -1)
			_exit(1);
		if (pid > 0)
			_exit(0);
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, 0);
			dup2(fd, 1);
			if (fd > 2)
				close(fd);
		}
		/*
		 * Under systemd (JOURNAL_STREAM set) stderr is the journal: keep it there
		 * rather than in a file nothing rotates.
		 */
		if (getenv("JOURNAL_STREAM") == NULL &&
		    (fd = open(logpath, O_WRONLY | O_APPEND | O_CREAT, 0640)) != -1) {
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		closefrom(3);
		execl(exe, "ctxd-worker", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		log_err("%s: could not start %s", __func__, exe);
		goto out;
	}
	rc = 0;
out:
	free(dir);
	free(exe);
	free(logpath);
	return rc;
}

int
jobs_waiting(struct db *db)
{
	struct db_stmt	*st;
	int		 rc;

	if (db_prepare(db, "SELECT CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE state = "
	    "'queued') OR EXISTS (SELECT 1 FROM gitops_runs WHERE state = 'queued') THEN 1 "
	    "ELSE 0 END", &st) == -1)
		return -1;
	rc = db_step(st) == DB_ROW ? (int)db_col_int64(st, 0) : -1;
	db_finalize(st);
	return rc;
}
