/*
 * test-dbbusy.c: a write that finds another process's write transaction waits for it and
 * resumes within a few milliseconds of its end (db.c's busy handler polls the lock; SQLite's
 * own sleeps up to 100 ms at a time, and resumed about 90 ms late after a 240 ms
 * transaction); the time waited is counted (db_busy_waited); db_run_nowait does not wait;
 * a busy timeout still ends in SQLITE_BUSY.
 */
#include "config.h"

#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db-helpers.h"
#include "store/db.h"
#include "tap.h"

#define HOLD_MS		240	/* how long the other process holds the write lock */
#define TRIALS		5

static long long
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Forks a process that opens the database, takes the write lock, says so on the pipe, holds
 * it hold_ms, commits and writes the time of its commit (monotonic us) on the pipe.
 */
static pid_t
holder(const char *dir, int hold_ms, int fd[2])
{
	struct db		*db;
	long long	 t;
	pid_t		 pid;

	if (pipe(fd) == -1 || (pid = fork()) == -1)
		return -1;
	if (pid > 0) {
		close(fd[1]);
		return pid;
	}
	close(fd[0]);
	if (db_open(dir, DB_READWRITE, &db) == -1 || db_begin(db) == -1 ||
	    db_run(db, "INSERT INTO settings (name, value, updated_at) VALUES ('busy.test', "
	    "'1', 'x') ON CONFLICT (name) DO UPDATE SET value = value + 1", "") == -1)
		_exit(1);
	t = 0;
	if (write(fd[1], &t, sizeof(t)) != sizeof(t))
		_exit(1);
	usleep((useconds_t)hold_ms * 1000);
	if (db_commit(db) == -1)
		_exit(1);
	t = now_us();
	if (write(fd[1], &t, sizeof(t)) != sizeof(t))
		_exit(1);
	db_close(db);
	_exit(0);
}

static int
wait_child(pid_t pid)
{
	int	 st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int
main(void)
{
	char		 dir[256];
	struct db		*db;
	long long	 t, released, done, late, best = -1, ms0, ms1, n0, n1;
	unsigned long	 busy0;
	int		 fd[2], i, rc;
	pid_t		 pid;

	if (dbh_open(dir, sizeof(dir), &db) == -1) {
		printf("Bail out! cannot open a test database\n");
		return 1;
	}
	db_busy_timeout(db, 5000);
	db_busy_waited(&ms0, &n0);
	busy0 = db_busy_failures(db);
	for (i = 0; i < TRIALS; i++) {
		if ((pid = holder(dir, HOLD_MS, fd)) == -1 ||
		    read(fd[0], &t, sizeof(t)) != sizeof(t)) {
			printf("Bail out! the holder did not start\n");
			return 1;
		}
		rc = db_run(db, "INSERT INTO settings (name, value, updated_at) VALUES "
		    "('busy.waiter', '1', 'x') ON CONFLICT (name) DO UPDATE SET value = "
		    "value + 1", "");
		done = now_us();
		if (read(fd[0], &released, sizeof(released)) != sizeof(released))
			released = done;
		close(fd[0]);
		ok(rc == 0 && wait_child(pid), "trial %d: the write waits for the other's "
		    "transaction and succeeds", i + 1);
		late = (done - released) / 1000;
		if (best == -1 || late < best)
			best = late;
	}
	printf("# resumed %lld ms after the lock's release at best (of %d trials)\n", best,
	    TRIALS);
	ok(best >= 0 && best <= 40, "the waiting write resumes within 40 ms of the release "
	    "(%lld ms)", best);
	db_busy_waited(&ms1, &n1);
	is_int(n1 - n0, TRIALS, "each waiting write is counted");
	ok(ms1 - ms0 >= TRIALS * (HOLD_MS / 2), "and the time it waited (%lld ms)",
	    ms1 - ms0);

	/* db_run_nowait: 1 at once while another process writes */
	if ((pid = holder(dir, HOLD_MS, fd)) == -1 || read(fd[0], &t, sizeof(t)) != sizeof(t)) {
		printf("Bail out! the holder did not start\n");
		return 1;
	}
	t = now_us();
	rc = db_run_nowait(db, "UPDATE settings SET value = 'x' WHERE name = 'busy.waiter'",
	    "");
	late = (now_us() - t) / 1000;
	is_int(rc, 1, "db_run_nowait: skipped while another process writes");
	ok(late < HOLD_MS / 2, "at once (%lld ms)", late);
	is_int((long long)(db_busy_failures(db) - busy0), 0, "db_busy_failures: none for "
	    "writes that waited and went on, nor for one that did not wait");
	/* the busy timeout still ends a wait */
	db_busy_timeout(db, 50);
	rc = db_run(db, "UPDATE settings SET value = 'y' WHERE name = 'busy.waiter'", "");
	ok(rc == -1 && db_failure(db) == DB_FAIL_BUSY, "a wait longer than the busy timeout "
	    "fails busy");
	is_int((long long)(db_busy_failures(db) - busy0), 1, "... and db_busy_failures counts "
	    "it (the web's 503)");
	if (read(fd[0], &t, sizeof(t)) != sizeof(t))
		t = 0;
	close(fd[0]);
	ok(wait_child(pid), "the other process committed");
	db_busy_timeout(db, 5000);
	dbh_remove(dir, db);
	return tap_done();
}
