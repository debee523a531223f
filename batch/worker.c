/*
 * ctxd-worker: runs the queued jobs, up to worker.concurrency at once, each in a process of
 * its own, then exits. One ctxd-worker (the pool) runs per DATA_DIR under
 * DATA_DIR/worker.lock; started detached by the responder that queued a job and every
 * minute by cron, it exits at once when another one holds the lock.
 *
 * The pool claims each job with a lease in its own name (jobs_claim) and renews the leases
 * of its live jobs every few seconds; each job's process dies with the pool
 * (PR_SET_PDEATHSIG), so a lease that lapses means a dead runner, and jobs_recover requeues
 * or ends its job. A job whose process dies (a crash, kill -9, limits.job_timeout_s) is
 * recovered at once, the others go on.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin/segments.h"
#include "base/license.h"
#include "base/log.h"
#include "base/util.h"
#include "gitops/gitops.h"
#include "index/index.h"
#include "index/library.h"
#include "store/db.h"
#include "store/jobs.h"
#include "store/settings.h"

static struct db *worker_db;

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

/* The pool's job processes. */
#define WORKER_MAX		64	/* worker.concurrency's bound */

/*
 * How long a claim lasts unless renewed, and how often the pool renews (a sixth of it, 10 s
 * at most). JOBS_LEASE_S, unless CTXD_TEST_WORKER_LEASE_S (tests only) shortens it so
 * that a test can outlast a lease.
 */
static int worker_lease_s = JOBS_LEASE_S;
#define WORKER_RENEW_S	(worker_lease_s / 6 < 1 ? 1 : worker_lease_s / 6 > 10 ? 10 : \
			    worker_lease_s / 6)

static void
worker_test_lease(void)
{
	const char	*v = getenv("CTXD_TEST_WORKER_LEASE_S");
	long		 s;

	if (v != NULL && util_parse_long(v, 2, JOBS_LEASE_S, &s) == 0)
		worker_lease_s = (int)s;
}
#define WORKER_SEGMENTS_MS	20000	/* segments written from the database, a run at most */

struct worker_slot {
	pid_t		 pid;		/* 0: free */
	long long	 job;
	char		 library_id[512];
};

static struct worker_slot worker_slots[WORKER_MAX];

/* The number of jobs to run at once: worker.concurrency, 0 the cores (at least 2). */
static int
worker_concurrency(const char *datadir)
{
	long	 n = settings_get_long(worker_db, datadir, "worker.concurrency", 0);
	long	 cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (n <= 0)
		n = cores < 2 ? 2 : cores;
	return n > WORKER_MAX ? WORKER_MAX : (int)n;
}

/*
 * The job's process: its own database connection (the pool's is not used across fork), the
 * job's deadline as SIGALRM's default action, and death with the pool.
 */
static void
worker_child(const char *datadir, const struct jobs_next *job, pid_t pool, long timeout)
{
	struct db	*db = NULL;
	char		 ctx[32];
	sigset_t	 chld;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != pool)
		_exit(1);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
	signal(SIGALRM, SIG_DFL);
	/*
	 * The safety net behind every source's own deadlines (git: the connect and stall
	 * deadlines of lib/sources/gitrepo.c; the others: backend_stop): a job still running
	 * after limits.job_timeout_s is killed, and the pool requeues it (and gives up after
	 * JOBS_MAX_ATTEMPTS).
	 */
	alarm((unsigned)timeout);
	if (db_open(datadir, DB_READWRITE, &db) == -1)
		_exit(1);
	/* a job waits its turn to write behind another job's index transaction */
	db_busy_timeout(db, timeout * 1000);
	snprintf(ctx, sizeof(ctx), "job %lld", job->id);
	log_set_context(ctx);
	if (job->is_delete)
		library_delete_run(db, datadir, job->id, job->library_id);
	else
		index_run(db, datadir, job->id, job->library_id, job->force, NULL);
	db_close(db);
	_exit(0);
}

/* Starts a process for job in slot sl: 0, or -1 (the job's claim is given back). */
static int
worker_start(const char *datadir, struct worker_slot *sl, const struct jobs_next *job,
    long timeout)
{
	pid_t	 pool = getpid(), pid;

	fflush(NULL);
	if ((pid = fork()) == -1) {
		log_err("cannot start a process for job %lld: %s", job->id, strerror(errno));
		jobs_lease_drop(worker_db, job->id);
		return -1;
	}
	if (pid == 0)
		worker_child(datadir, job, pool, timeout);
	sl->pid = pid;
	sl->job = job->id;
	memcpy(sl->library_id, job->library_id, sizeof(sl->library_id));
	return 0;
}

static const char *worker_holder;	/* the pool's lease holder name */

/*
 * Requeues or ends the jobs whose runner is gone (jobs_recover), after renewing this pool's
 * own leases in the same breath: a job's write can hold SQLite's one writer longer than a
 * lease lasts (worker_lease_s), and the renewals wait for it, so a lease of a live job of
 * this pool may have lapsed meanwhile; recovering without a fresh renewal would requeue
 * it under its running process. Returns 0, or -1 when the renewal or the recovery failed
 * (a busy database: nothing is recovered this time).
 */
static int
worker_recover(void)
{
	if (jobs_lease_renew(worker_db, worker_holder, worker_lease_s) == -1)
		return -1;
	return jobs_recover(worker_db);
}

/*
 * Reaps the ended job processes (waiting for one when wait is set): a job whose process
 * died before ending it is recovered at once. Returns how many slots it freed.
 */
static int
worker_reap(int wait)
{
	pid_t	 pid;
	int	 status, i, n = 0;

	while ((pid = waitpid(-1, &status, wait && n == 0 ? 0 : WNOHANG)) > 0) {
		for (i = 0; i < WORKER_MAX && worker_slots[i].pid != pid; i++)
			;
		if (i == WORKER_MAX)
			continue;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			if (WIFSIGNALED(status))
				log_warn("job %lld (%s): its process died of signal %d",
				    worker_slots[i].job, worker_slots[i].library_id,
				    WTERMSIG(status));
			else
				log_warn("job %lld (%s): its process exited %d",
				    worker_slots[i].job, worker_slots[i].library_id,
				    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		}
		/* whatever the process left running is an orphan now */
		if (jobs_lease_drop(worker_db, worker_slots[i].job) == -1 ||
		    worker_recover() == -1)
			log_err("job %lld: could not be recovered (the next round will)",
			    worker_slots[i].job);
		memset(&worker_slots[i], 0, sizeof(worker_slots[i]));
		n++;
	}
	return n;
}

/* Sleeps up to ms or until a job process ends (SIGCHLD). */
static void
worker_nap(int ms)
{
	sigset_t	 set;
	struct timespec	 ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	(void)sigtimedwait(&set, NULL, &ts);
}

/*
 * Runs the queue: claims jobs while a slot is free, renews the leases, reaps; returns the
 * number of jobs run when nothing is running and nothing can be claimed, -1 on a database
 * error (the running jobs are waited for first).
 */
static int
worker_pool(const char *datadir, const char *holder, int slots, long timeout)
{
	struct jobs_next job;
	time_t		 renewed = time(NULL);
	int		 running = 0, n = 0, i, rc = 0, claimed;

	for (;;) {
		running -= worker_reap(0);
		if (time(NULL) - renewed >= WORKER_RENEW_S) {
			/*
			 * A failed renewal (a job's long write holds the database) is
			 * tried again on the next round, and nothing is recovered
			 * until one succeeds: see worker_recover.
			 */
			if (jobs_lease_renew(worker_db, holder, worker_lease_s) == -1)
				log_warn("could not renew the leases of %s: %s", holder,
				    db_failure(worker_db) == DB_FAIL_BUSY ?
				    "the database is busy; trying again" :
				    db_errmsg(worker_db));
			else {
				/* another runner's lapsed jobs (another node, a pool killed) */
				if (jobs_orphans(worker_db) == 1)
					jobs_recover(worker_db);
				renewed = time(NULL);
			}
		}
		claimed = 0;
		while (rc == 0 && running < slots) {
			/* A queued GitOps sync goes first: it queues index and delete jobs. */
			if (gitops_run_next(worker_db, datadir) == 1) {
				n++;
				continue;
			}
			if ((i = jobs_claim(worker_db, holder, worker_lease_s, &job)) != 1) {
				/*
				 * A busy database (a running job's long write holds
				 * SQLite's one writer) means nothing claimable now:
				 * the next round tries again. Other failures end the
				 * pool once its jobs are done.
				 */
				if (i == -1 && db_failure(worker_db) != DB_FAIL_BUSY)
					rc = -1;
				else if (i == -1)
					log_warn("the database is busy: claiming again "
					    "shortly");
				break;
			}
			for (i = 0; worker_slots[i].pid != 0; i++)
				;
			if (worker_start(datadir, &worker_slots[i], &job, timeout) == 0) {
				running++;
				n++;
				claimed = 1;
			}
		}
		if (running == 0 && !claimed)
			break;
		worker_nap(500);
	}
	return rc == -1 ? -1 : n;
}

/*
 * The index segments the database has and the disk lacks (removed, or never written: a
 * library indexed before segments existed), and after an upgrade those this build refuses (an
 * older format, a damaged file): written from the database while no job runs, for at most
 * WORKER_SEGMENTS_MS a run (the rest at the next run: cron starts one every minute). Mapping
 * and checking every segment costs reading them all, so that full check runs only until it
 * has found nothing left once for this version (DATA_DIR/segments/.checked holds it); other
 * runs only look for missing files. The database stays the source of truth: a query process
 * builds what has no segment meanwhile.
 */
static void
worker_segments(const char *datadir)
{
	char		*dir = util_path_join(datadir, "segments"), stamp[1024], tmp[1100];
	char		 seen[64] = "";
	FILE		*f;
	int		 check, left, n, ok = 0;

	if (dir == NULL)
		return;
	snprintf(stamp, sizeof(stamp), "%s/.checked", dir);
	if ((f = fopen(stamp, "r")) != NULL) {
		if (fgets(seen, sizeof(seen), f) == NULL)
			seen[0] = '\0';
		seen[strcspn(seen, "\n")] = '\0';
		fclose(f);
	}
	check = strcmp(seen, PACKAGE_VERSION) != 0;
	if ((n = segments_refresh(worker_db, datadir, check, WORKER_SEGMENTS_MS, &left)) == -1)
		log_warn("the index segments could not be checked");
	else if (left > 0)
		log_info("%d index segment%s left to write from the database at the next run",
		    left, left == 1 ? "" : "s");
	else if (check && util_mkdir_p(dir, 0750) == 0) {
		snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", stamp, (long)getpid());
		if ((f = fopen(tmp, "w")) != NULL) {
			ok = fprintf(f, "%s\n", PACKAGE_VERSION) > 0;
			ok = fclose(f) == 0 && ok;
		}
		if (f == NULL || !ok || rename(tmp, stamp) == -1) {
			log_warn("cannot write %s: %s", stamp, strerror(errno));
			unlink(tmp);
		}
	}
	free(dir);
}

int
main(int argc, char *argv[])
{
	const char	*datadir;
	char		*lockpath = NULL, *repos = NULL;
	char		 host[256], dir[PATH_MAX], holder[sizeof(host) + sizeof(dir) + 32];
	char		 node[sizeof(holder)];
	sigset_t	 chld;
	long		 timeout;
	int		 lockfd, n = 0, k, rc = 1, relocks = 0, n_relock = 0;

	log_init("ctxd-worker");
	db_umask();
	if (argc > 1) {
		fprintf(stderr, "usage: ctxd-worker\n");
		return 2;
	}
	if (license_check_env("ctxd-worker") == -1)
		return 1;
	license_log_build();
	signal(SIGPIPE, SIG_IGN);
	/* the pool waits for its job processes with sigtimedwait (worker_nap) */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	datadir = util_data_dir();
	/*
	 * The lease holder names the node, host and data folder, then the pool: several
	 * nodes may share a host name (nodes on one machine, containers on the host's
	 * network), and the claims a starting pool may take for its predecessors' are only
	 * those of its own data folder, whose lock it holds (below).
	 */
	if (realpath(datadir, dir) == NULL)
		snprintf(dir, sizeof(dir), "%s", datadir);
	snprintf(holder, sizeof(holder), "%s:%s:%ld", host, dir, (long)getpid());
	worker_holder = holder;
	worker_test_lease();
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
	/*
	 * This node's claims in this database (host and data folder: not another node's of
	 * the same host name) belong to an earlier pool (this one holds the lock), whose job
	 * processes died with it: they are orphans.
	 */
	snprintf(node, sizeof(node), "%.*s", (int)(strrchr(holder, ':') - holder + 1), holder);
	if (jobs_lease_drop_holder(worker_db, node) == -1 || jobs_recover(worker_db) == -1)
		goto out;
	timeout = settings_get_long(worker_db, datadir, "limits.job_timeout_s", 1800);
	/* Cron runs the worker every minute: a due GitOps schedule slot queues a sync. */
	gitops_schedule_check(worker_db, datadir, time(NULL));
	if ((k = worker_pool(datadir, holder, worker_concurrency(datadir), timeout)) == -1)
		goto out;
	n += k;
	worker_segments(datadir);
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
		/* again only after a round that ran something: a job that jobs_claim
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
