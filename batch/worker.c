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

#include <sqlite3.h>

#include "ctxd.h"
#include "gitops.h"
#include "index.h"

static sqlite3 *worker_db;

int
main(int argc, char *argv[])
{
	const char	*datadir;
	char		*lockpath = NULL, *repos = NULL;
	struct jobs_next job;
	char		 ctx[32];
	long		 timeout;
	int		 lockfd, n = 0, rc = 1;

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
	if (db_open(datadir, DB_READWRITE, &worker_db) == -1)
		goto out;
	if (jobs_recover(worker_db) == -1)
		goto out;
	timeout = settings_get_long(worker_db, datadir, "limits.job_timeout_s", 1800);
	/* Cron runs the worker every minute: a due GitOps schedule slot queues a sync. */
	gitops_schedule_check(worker_db, datadir, time(NULL));
	for (;;) {
		/*
		 * The safety net behind every source's own deadlines (git: the connect and
		 * stall deadlines of lib/gitrepo.c; the others: backend_stop): a job still
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
	if (n > 0)
		log_info("ran %d job%s", n, n == 1 ? "" : "s");
	rc = 0;
out:
	db_close(worker_db);
	free(lockpath);
	free(repos);
	return rc;
}
