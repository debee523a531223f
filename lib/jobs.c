/* jobs.c: queueing jobs and starting the worker that runs them. */
#include "config.h"

#include <sys/wait.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ctxd.h"

int
jobs_enqueue(sqlite3 *db, const char *library_id, int force, long long *job_id)
{
	sqlite3_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1;

	if (sqlite3_prepare_v2(db, "SELECT id FROM jobs WHERE library_id = ?1 AND "
	    "state = 'queued' AND kind = 'index' ORDER BY id LIMIT 1", -1, &st,
	    NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*job_id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
		if (!force)
			return 0;
		if (sqlite3_prepare_v2(db, "UPDATE jobs SET force = 1 WHERE id = ?1",
		    -1, &st, NULL) != SQLITE_OK)
			goto dberr;
		sqlite3_bind_int64(st, 1, *job_id);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto dberr;
		rc = 0;
		goto out;
	}
	sqlite3_finalize(st);
	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, "INSERT INTO jobs (library_id, kind, force, "
	    "created_at) VALUES (?1, 'index', ?2, ?3)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, force != 0);
	sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	*job_id = sqlite3_last_insert_rowid(db);
	rc = 0;
	goto out;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	return rc;
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
		if ((fd = open(logpath, O_WRONLY | O_APPEND | O_CREAT, 0640)) != -1) {
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
