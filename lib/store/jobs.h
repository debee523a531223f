/* jobs.h: the job queue and the job and library state machine. */
#ifndef JOBS_H
#define JOBS_H

#include <stddef.h>

struct db;

/*
 * The job and library state machine. jobs.c owns every write of jobs.state,
 * libraries.state and libraries.run_status; these are the one list of their states
 * (sql/schema.sql's CHECK constraints name the same; t/unit/test-jobs checks).
 *
 * job:     queued -> running -> done | failed | cancelled; queued -> cancelled;
 *          running -> queued when its worker died (jobs_recover), failed after
 *          JOBS_MAX_ATTEMPTS starts. An index job is 'running' with its final message
 *          while the post-index steps run (jobs_run_end), then done.
 * library: initial -> processing (run started) -> finalized (it has an index) | error
 *          (first run failed) | initial (first run cancelled); any -> delete while a
 *          delete job is queued or running (a cancelled deletion restores the state).
 * run:     NULL -> running -> ok | failed | cancelled | unfinished (worker died: the
 *          next run is in full); ok -> degraded (describe or embed failed).
 */
#define JOBS_STATE_LIST(X) \
	X(JOBS_QUEUED, "queued") X(JOBS_RUNNING, "running") X(JOBS_DONE, "done") \
	X(JOBS_FAILED, "failed") X(JOBS_CANCELLED, "cancelled")
#define JOBS_LIBRARY_STATE_LIST(X) \
	X(JOBS_LIB_INITIAL, "initial") X(JOBS_LIB_PROCESSING, "processing") \
	X(JOBS_LIB_FINALIZED, "finalized") X(JOBS_LIB_ERROR, "error") \
	X(JOBS_LIB_DELETE, "delete")
#define JOBS_RUN_STATUS_LIST(X) \
	X(JOBS_RUN_RUNNING, "running") X(JOBS_RUN_OK, "ok") X(JOBS_RUN_FAILED, "failed") \
	X(JOBS_RUN_UNFINISHED, "unfinished") X(JOBS_RUN_DEGRADED, "degraded") \
	X(JOBS_RUN_CANCELLED, "cancelled")
#define JOBS_ENUM(e, name) e,
enum jobs_state { JOBS_STATE_LIST(JOBS_ENUM) JOBS_NSTATES };
enum jobs_library_state { JOBS_LIBRARY_STATE_LIST(JOBS_ENUM) JOBS_LIB_NSTATES };
enum jobs_run_status { JOBS_RUN_STATUS_LIST(JOBS_ENUM) JOBS_RUN_NSTATUSES };
#undef JOBS_ENUM
extern const char *const jobs_states[];		/* by enum jobs_state */
extern const char *const jobs_library_states[];	/* by enum jobs_library_state */
extern const char *const jobs_run_statuses[];	/* by enum jobs_run_status */

#define JOBS_MAX_ATTEMPTS	3	/* starts of a job before jobs_recover fails it */
#define JOBS_UNCHANGED		"unchanged"	/* message of a run that found its version indexed */

/*
 * A claimed job (jobs_claim). Claims are leases: lease_holder names the runner, and the
 * claim lapses at lease_until unless the holder renews it (jobs_lease_renew) while the job's
 * process lives. A 'running' job whose lease lapsed is an orphan: jobs_recover ends or
 * requeues it. See sql/0016-job-leases.sql.
 */
struct jobs_next {
	long long	 id;
	char		 library_id[512];
	int		 force;
	int		 is_delete;
};
#define JOBS_LEASE_S	60	/* how long a claim lasts unless renewed */
/*
 * What jobs_claim's order and the job list's queue places (store/catalog.c) share, so that
 * the places shown are the order taken. JOBS_SQL_LAST: a WITH table of each queuer's last
 * claim (v, b: its queued_via and queued_by as keys; c: its last claim_no). JOBS_SQL_LAST_OF:
 * the join condition of job j's queuer in it. JOBS_SQL_CLASS: 0 for a job of the service or
 * an admin (first), 1 for the others. JOBS_SQL_SAME_FAMILY: jobs a and b are of one library
 * or of two versions of it. Each runs on both engines (JOBS_SQL_CLASS an integer, not
 * PostgreSQL's boolean).
 */
#define JOBS_SQL_LAST							\
	"last AS (SELECT coalesce(queued_via, '') AS v, coalesce(queued_by, 0) AS b, "	\
	"max(claim_no) AS c FROM jobs WHERE claim_no IS NOT NULL GROUP BY 1, 2)"
#define JOBS_SQL_LAST_OF(l, j)						\
	l ".v = coalesce(" j ".queued_via, '') AND " l ".b = coalesce(" j ".queued_by, 0)"
#define JOBS_SQL_CLASS(j)	"CASE WHEN " j ".queued_via IS NOT NULL AND " j \
	".queued_admin = 0 THEN 1 ELSE 0 END"
#define JOBS_SQL_SAME_FAMILY(a, b)					\
	"(" a ".library_id = " b ".library_id OR EXISTS (SELECT 1 FROM libraries lo, "	\
	"libraries lj WHERE lo.id = " a ".library_id AND lj.id = " b ".library_id AND "	\
	"coalesce(lo.version_of, lo.id) = coalesce(lj.version_of, lj.id)))"
/*
 * Claims the next queued job for holder, until lease_s seconds from now: 1 claimed, 0
 * none claimable, -1 on error. The order is fair: the service's jobs (GitOps syncs,
 * webhooks, ctxd-admin, follow-ups) and admins' first, then the other queuers in turn (the
 * one served longest ago next), each queuer's oldest job first.
 * A job whose library (or another version of it) has a running or claimed job is passed
 * over, so two jobs of one library never run at once.
 */
int	 jobs_claim(struct db *, const char *holder, int lease_s, struct jobs_next *);
/* jobs_claim's statement (both engines' texts), for a test to look at its plan. */
const char *jobs_claim_statement(void);
/* Extends every lease of holder to lease_s seconds from now. */
int	 jobs_lease_renew(struct db *, const char *holder, int lease_s);
/*
 * Lets job id's claim lapse now: its runner is gone (its process died) or gave the job back.
 * A queued job becomes claimable again; a running one an orphan for jobs_recover.
 */
int	 jobs_lease_drop(struct db *, long long id);
/* Lets every claim whose holder starts with prefix lapse (a runner's earlier life). */
int	 jobs_lease_drop_holder(struct db *, const char *prefix);
/* 1 when a running job's lease lapsed (jobs_recover has work), 0 none, -1 on error. */
int	 jobs_orphans(struct db *);
/*
 * Ends or requeues the orphans: 'running' jobs whose lease lapsed (their runner died).
 * Own transaction; see jobs_recover_sql in jobs.c for what becomes of them. Jobs with a
 * live lease, and their libraries, are left as they are.
 */
int	 jobs_recover(struct db *);
/* 1 when a job or a GitOps sync is queued (waits for a worker), 0 when none, -1 on error. */
int	 jobs_waiting(struct db *);
/*
 * An index run's transitions. jobs_run_start: library processing/running, job running
 * (attempts + 1), own transaction; 1 (nothing written) when the job is no longer queued. jobs_run_end, in the caller's transaction: ok == 1
 * after a written or unchanged index (library finalized/ok; the job stays 'running' with
 * message until jobs_finish_running), ok == 0 a failure (library finalized when it has an
 * index, else error; run failed with last_error = message; job failed).
 * jobs_run_fail: rolls back any open transaction, logs message as an error and records
 * jobs_run_end(0) in its own transaction. jobs_run_cancel: rolls back, logs message as a
 * warning; job cancelled, run cancelled, library finalized/initial (own transaction).
 * jobs_run_degrade: run ok -> degraded with last_error = error, job message = message.
 */
int	 jobs_run_start(struct db *, long long job_id, const char *library_id);
int	 jobs_run_end(struct db *, long long job_id, const char *library_id, int ok,
	    const char *message);
int	 jobs_run_fail(struct db *, long long job_id, const char *library_id,
	    const char *message);
int	 jobs_run_cancel(struct db *, long long job_id, const char *library_id,
	    const char *message);
int	 jobs_run_degrade(struct db *, long long job_id, const char *library_id,
	    const char *error, const char *message);

/*
 * Who queues the jobs of the request being answered, until jobs_queuer_end: via is "user"
 * (user_id's key or session), "key" (an operator key) or "anonymous" (a perm.anonymous_*
 * switch); jobs_enqueue and jobs_enqueue_delete record it (jobs.queued_by, queued_via).
 * Jobs queued outside (GitOps, webhooks, the worker) record none. Unless admin, the
 * requester's queued index jobs (a user's own; all operator keys' or all anonymous
 * callers' together) plus adding may not exceed the setting jobs.max_queued_per_user:
 * then 1 with err naming the cap (answer 429), nothing set. 0 when set, -1 with err on a
 * database error.
 */
#define JOBS_CAP_SETTING	"jobs.max_queued_per_user"
#define JOBS_CAP_DEFAULT	50
int	 jobs_queuer_begin(struct db *, long long user_id, const char *via, int admin,
	    int adding, char *err, size_t errsz);
void	 jobs_queuer_end(void);
/*
 * 1 when the library has a queued index job (a new request for it joins that job and
 * queues nothing, so it counts nothing against the cap), 0 when not, -1 on error.
 */
int	 jobs_index_queued(struct db *, const char *library_id);
/*
 * Queues an index job for a library unless one is already queued; *job_id gets the
 * queued job's id. Runs inside the caller's transaction.
 */
int	 jobs_enqueue(struct db *, const char *library_id, int force, long long *job_id);
/*
 * Starts ctxd-worker (the sibling of the running executable, or $CTXD_WORKER) detached
 * from the caller: double fork, new session, stdio on /dev/null and DATA_DIR/worker.log
 * (stderr stays the journal when JOURNAL_STREAM says it is one).
 * The caller does not wait for it.
 */
int	 jobs_spawn_worker(void);
/*
 * Queues the deletion of a library inside the caller's transaction: its queued jobs are
 * cancelled and its state becomes 'delete'. A deletion already queued or running is
 * reused (*job_id gets its id).
 */
int	 jobs_enqueue_delete(struct db *, const char *library_id, long long *job_id);
/* 1 when a delete job of the library is queued or running (*job_id, may be NULL), 0 when
 * not, -1 on error. */
int	 jobs_delete_pending(struct db *, const char *library_id, long long *job_id);
/*
 * Marks a job running (own transaction; 1, nothing written, when it is no longer queued:
 * cancelled since its claim) / done (ok) or failed (caller's transaction). A delete job's
 * states; an index run goes through jobs_run_*.
 */
int	 jobs_start(struct db *, long long id);
int	 jobs_finish(struct db *, long long id, int ok, const char *message);
/* Marks a running job done, keeping its message (autocommit). */
int	 jobs_finish_running(struct db *, long long id);
/*
 * The one job-log writer: appends a line to a job's log and to the process log (error,
 * warning or info by level: "info", "warning", "error"). Never pass a secret.
 */
void	 jobs_log(struct db *, long long id, const char *level, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
/*
 * A job as the context of the describe and embedder callbacks: jobs_log_line is jobs_log
 * as a describe_log_fn / embedder_log_fn, jobs_cancel_point their cancel poll
 * (jobs_cancel_requested). ctx is a struct jobs_ref.
 */
struct jobs_ref {
	struct db	*db;
	long long	 job_id;
	struct jobs_progress {		/* what jobs_progress writes (sql/0005) */
		const char	*phase;	/* fetching, parsing, writing, describing, embedding */
		long long	 docs_total, docs_done, snippets_total;
		long long	 describe_total, described, embed_total, embedded;
	} progress;
	long long	 progress_ms;	/* monotonic ms of the last write (0: none yet) */
};
void	 jobs_log_line(void *ctx, const char *level, const char *line);
int	 jobs_cancel_point(void *ctx);
#define JOBS_PROGRESS_MS	500	/* at most one progress write this often */
/*
 * Writes j->progress to the job's row (autocommit, or the caller's transaction) when
 * force is set or JOBS_PROGRESS_MS have passed since the last write; the worker calls it
 * as it goes, so that GET /api/jobs shows a moving progress. A failed write is logged
 * and ignored: progress is for display only.
 */
void	 jobs_progress(struct jobs_ref *j, int force);
/*
 * A batch step's progress as a describe / embedder callback (ctx: a struct jobs_ref):
 * sets the step's counts (phase "describing" or "embedding") and calls jobs_progress,
 * forced when done == total.
 */
void	 jobs_progress_step(void *ctx, const char *phase, size_t done, size_t total);
enum jobs_cancel_result {
	JOBS_CANCEL_OK, JOBS_CANCEL_REQUESTED, JOBS_CANCEL_NOT_FOUND, JOBS_CANCEL_FINISHED,
	JOBS_CANCEL_DELETING, JOBS_CANCEL_ERROR
};
/*
 * Cancels a job (own transaction). A queued job is cancelled at once (JOBS_CANCEL_OK); a
 * cancelled deletion gives the library back its state. A running index job gets
 * cancel_requested = 1 and a log line (JOBS_CANCEL_REQUESTED, also when asked again): the
 * worker stops it at its next checkpoint (jobs_cancel_requested). A running deletion
 * (JOBS_CANCEL_DELETING) and a finished job (JOBS_CANCEL_FINISHED) are not touched.
 */
enum jobs_cancel_result jobs_cancel(struct db *, long long id);
/* 1 when a cancellation of running job id was requested, 0 when not (or on error). */
int	 jobs_cancel_requested(struct db *, long long id);

#endif /* JOBS_H */
