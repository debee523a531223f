/*
 * store/gitops.h: the rows of GitOps syncs (table gitops_runs) and of the reconciler's state
 * (gitops_state: the schedule's last slot, the last processed commit and configuration).
 */
#ifndef STORE_GITOPS_H
#define STORE_GITOPS_H

#include <stddef.h>
#include <time.h>

struct db;

/*
 * Queues a sync with trigger, unless one is queued already, in one transaction: *run_id
 * is the queued one. 0, or -1 (logged).
 */
int	 store_gitops_queue(struct db *, const char *trigger, long long *run_id);
/* The schedule's last evaluated slot into *t (0: never). 0, or -1 (logged). */
int	 store_gitops_last_slot(struct db *, time_t *t);
/*
 * Records the slot evaluated at (ISO 8601) when it is later than the one recorded: 1
 * recorded, 0 when that slot or a later one was (another worker or node evaluated it: it
 * queues the slot's sync, not this one), -1 (logged).
 */
int	 store_gitops_set_slot(struct db *, const char *at);
/* 1 when commit and config were processed already, 0 when not, -1 (logged). */
int	 store_gitops_seen(struct db *, const char *commit, const char *config);
/* Records commit and config as processed (inside the caller's transaction). */
int	 store_gitops_processed(struct db *, const char *commit, const char *config);
/* The last processed commit, malloc'd into *commit (NULL: none). 0, or -1 (logged). */
int	 store_gitops_last_commit(struct db *, char **commit);

/*
 * Takes the oldest queued sync: runs left 'running' by a worker that died go back to the
 * queue first, or fail once they have had max_attempts. 1 with *run_id, 0 when none is
 * queued (or, on PostgreSQL, when another node runs a sync), -1 (logged). Needs UPDATE ...
 * RETURNING (SQLite 3.35, PostgreSQL). One sync runs at a time over every node of a
 * PostgreSQL database: a claimed sync holds a lock until store_gitops_finish (gitops.c).
 */
int	 store_gitops_claim(struct db *, int max_attempts, long long *run_id);
/*
 * Ends run id in state with message, result JSON and manifest commit ("" none), and lets
 * another node claim the next sync.
 */
int	 store_gitops_finish(struct db *, long long id, const char *state,
	    const char *message, const char *result, const char *commit);

/* A sync as stored (strings malloc'd, NULL for a NULL column). */
struct store_gitops_run {
	long long	 id;
	int		 attempts;
	char		*trigger, *state, *manifest_commit, *message;
	char		*created_at, *started_at, *finished_at, *result;
};
enum store_gitops_which {
	STORE_GITOPS_BY_ID,		/* the run of that id */
	STORE_GITOPS_LAST_FINISHED,	/* the newest finished (done, skipped, failed) */
	STORE_GITOPS_PENDING		/* the oldest queued or running */
};
/* Reads a run into r: 1 found, 0 none, -1 (logged). */
int	 store_gitops_run_get(struct db *, enum store_gitops_which, long long id,
	    struct store_gitops_run *r);
void	 store_gitops_run_release(struct store_gitops_run *);
/* 1 when run id has finished, 0 when not, -1 when there is no such run or on error. */
int	 store_gitops_run_finished(struct db *, long long id);

#endif /* STORE_GITOPS_H */
