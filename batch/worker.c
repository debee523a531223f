/*
 * ctxd-worker: runs queued jobs one at a time under DATA_DIR/worker.lock, then exits.
 * Started detached by the responder that queued a job and every minute by cron; exits
 * at once when another worker holds the lock.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/license.h"
#include "base/log.h"
#include "base/util.h"
#include "gitops/gitops.h"
#include "index/index.h"
#include "index/library.h"
#include "store/db.h"
#include "store/jobs.h"
#include "store/settings.h"

static struct sqlite3 *worker_db;

/*
 * Tests only: with CTXD_TEST_WORKER_LINGER_MS set, the worker waits that long (at most 10 s)
 * after its last look for work, still holding the lock, so that a test can queue a job in
 * that window (t0131).
 */
static void
worker_test_linger(void)
{
	const char	*v = getenv("CTXD_TEST_WORKER_LINGER_MS");
	long		 ms;

	if (v != NULL && util_parse_long(v, 1, 10000, &ms) == 0)
		usleep((useconds_t)ms * 1000);
}

int
main(int argc, char *argv[])
{
	const char	*datadir;
	char		*lockpath = NULL, *repos = NULL;
	struct jobs_next job;
	char		 ctx[32];
	long		 timeout;
	int		 lockfd, n = 0, rc = 1, relocks = 0, n_relock = 0;

	log_init("ctxd-worker");
	db_umask();
	if (argc > 1) {
		fprintf(stderr, "usage: ctxd-worker\n");
		return 2;
	}
	if (license_check_env("ctxd-worker") == -1)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	datadir = util_data_dir();
	if ((lockpath = util_path_join(datadir, "worker.lock")) == NULL ||
	    (repos = util_path_join(datadir, "repos")) == NULL)
		goto out;
	if ((lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		log_err("cannot open %s: %s", lockpath, strerror(errno));
		goto out;
	}
relock:
	if (flock(lockfd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK) {
			rc = 0;		/* another worker is at it */
			goto out;
		}
		log_err("cannot lock %s: %s", lockpath, strerror(errno));
		goto out;
	}
	if (util_mkdir_p(repos, 0700) == -1) {
		log_err("cannot create %s: %s", repos, strerror(errno));
		goto out;
	}
	if (worker_db == NULL && db_open(datadir, DB_READWRITE, &worker_db) == -1)
		goto out;
	if (jobs_recover(worker_db) == -1)
		goto out;
	timeout = settings_get_long(worker_db, datadir, "limits.job_timeout_s", 1800);
	/* Cron runs the worker every minute: a due GitOps schedule slot queues a sync. */
	gitops_schedule_check(worker_db, datadir, time(NULL));
	for (;;) {
		/*
		 * The safety net behind every source's own deadlines (git: the connect and
		 * stall deadlines of lib/sources/gitrepo.c; the others: backend_stop): a job still
		 * running after limits.job_timeout_s ends the worker, and the next one
		 * requeues the job (and gives up after JOBS_MAX_ATTEMPTS).
		 */
		alarm((unsigned)timeout);
		/* A queued GitOps sync goes first: it queues index and delete jobs. */
		if (gitops_run_next(worker_db, datadir) == 1) {
			alarm(0);
			n++;
			continue;
		}
		if (jobs_next(worker_db, &job) != 1)
			break;
		snprintf(ctx, sizeof(ctx), "job %lld", job.id);
		log_set_context(ctx);
		if (job.is_delete)
			library_delete_run(worker_db, datadir, job.id, job.library_id);
		else
			index_run(worker_db, datadir, job.id, job.library_id, job.force,
			    NULL);
		alarm(0);
		log_set_context(NULL);
		n++;
	}
	alarm(0);
	worker_test_linger();
	/*
	 * A job queued after the last look, while this worker still held the lock, had its
	 * own worker started, which found the lock held and left: look again once the lock
	 * is released, and take the lock back when something waits (a worker that got it
	 * in between runs it instead, and this one leaves).
	 */
	if (flock(lockfd, LOCK_UN) == -1)
		log_warn("cannot unlock %s: %s", lockpath, strerror(errno));
	else if ((relocks == 0 || n > n_relock) && jobs_waiting(worker_db) == 1) {
		/* again only after a round that ran something: a job that jobs_next
		 * cannot take stays queued, and must not keep this worker spinning */
		relocks++;
		n_relock = n;
		goto relock;
	}
	if (n > 0)
		log_info("ran %d job%s", n, n == 1 ? "" : "s");
	rc = 0;
out:
	db_close(worker_db);
	free(lockpath);
	free(repos);
	return rc;
}
