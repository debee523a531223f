/*
 * gitops.h: declarative libraries (interface.md, "GitOps"): the manifest repository's
 * configuration (settings gitops.*), the queue of sync runs (table gitops_runs; ctxd-worker
 * runs them before index jobs), the reconcile of a manifest against the libraries, the
 * schedule, and the status the admin API shows.
 */
#ifndef GITOPS_H
#define GITOPS_H

#include <stddef.h>
#include <time.h>

struct json_object;
struct db;

#define GITOPS_TRIGGERS	"start|schedule|manual|webhook|api"

/* Queues a GitOps sync job (trigger: "start", "schedule", "manual", "webhook",
   "api"); at most one queued at a time (a second request joins the queued one).
   0 with *job_id, or -1. */
int	 gitops_queue_sync(struct db *db, const char *trigger, long long *job_id);
/* The configured manifest repository URL and branch (blank: default), for the
   webhook's filter. 0, or -1. */
int	 gitops_config_repo(struct db *db, char *url, size_t urlsz, char *branch,
	    size_t branchsz);

/*
 * ctxd-worker: runs the oldest queued sync, if any (1 ran one, 0 none, -1 error). A run
 * left 'running' by a worker that died is queued again first (failed after
 * JOBS_MAX_ATTEMPTS starts).
 */
int	 gitops_run_next(struct db *db, const char *datadir);
/*
 * ctxd-worker, every run: with GitOps enabled and a schedule other than manual, queues a
 * "schedule" sync when a slot of the schedule fell between the last evaluation and now
 * (several missed slots: one sync). 1 queued, 0 not due, -1 error.
 */
int	 gitops_schedule_check(struct db *db, const char *datadir, time_t now);
/* ctxd-web at its start: with GitOps enabled, queues a "start" sync. 1 queued, 0, -1. */
int	 gitops_on_start(struct db *db);

/* GET /api/gitops/status: the configuration, the last processed commit, the last sync
   and the queued or running one. NULL on error. */
struct json_object *gitops_status(struct db *db, const char *datadir);
/* One sync run as the API shows it ({id, trigger, state, ..., counts, entries, errors});
   NULL when it does not exist or on error (*found says which). */
struct json_object *gitops_run_json(struct db *db, long long id, int *found);
/* 1 when run id has finished (done, skipped, failed), 0 when not, -1 on error. */
int	 gitops_run_finished(struct db *db, long long id);

#endif /* GITOPS_H */
