/* jobs.c: queueing jobs and starting the worker that runs them. */
#include "config.h"

#include <sys/wait.h>

#include <fcntl.h>
#include <stdarg.h>
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
jobs_delete_pending(sqlite3 *db, const char *library_id, long long *job_id)
{
	sqlite3_stmt	*st;
	int		 r = -1;

	if (sqlite3_prepare_v2(db, "SELECT id FROM jobs WHERE library_id = ?1 AND "
	    "kind = 'delete' AND state IN ('queued', 'running') ORDER BY id LIMIT 1",
	    -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		if (job_id != NULL)
			*job_id = sqlite3_column_int64(st, 0);
		r = 1;
		break;
	case SQLITE_DONE:
		r = 0;
		break;
	default:
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return r;
}

/* Runs one constant statement with a text ?1 and a text ?2 (may be NULL). */
static int
jobs_exec2(sqlite3 *db, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
	if (b != NULL)
		sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

int
jobs_enqueue_delete(sqlite3 *db, const char *library_id, long long *job_id)
{
	char	 now[32];
	int	 pending;

	if ((pending = jobs_delete_pending(db, library_id, job_id)) != 0)
		return pending == 1 ? 0 : -1;
	util_iso8601(time(NULL), now, sizeof(now));
	if (jobs_exec2(db, "UPDATE jobs SET state = 'cancelled', finished_at = ?2, "
	    "message = 'cancelled: the library is being deleted' WHERE "
	    "library_id = ?1 AND state = 'queued'", library_id, now) == -1 ||
	    jobs_exec2(db, "INSERT INTO jobs (library_id, kind, created_at) VALUES "
	    "(?1, 'delete', ?2)", library_id, now) == -1)
		return -1;
	*job_id = sqlite3_last_insert_rowid(db);
	return jobs_exec2(db, "UPDATE libraries SET state = 'delete', updated_at = ?2 "
	    "WHERE id = ?1", library_id, now);
}

/* The integer that sql (one result column, ?1 = job id) gives for job id; 0 without a row. */
static int
jobs_int(sqlite3 *db, const char *sql, long long id)
{
	sqlite3_stmt	*st;
	int		 r = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		r = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return r;
}

int
jobs_is_delete(sqlite3 *db, long long id)
{
	return jobs_int(db, "SELECT kind = 'delete' FROM jobs WHERE id = ?1", id);
}

int
jobs_start(sqlite3 *db, long long id)
{
	sqlite3_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(db) == -1)
		return -1;
	if (sqlite3_prepare_v2(db, "UPDATE jobs SET state = 'running', started_at = ?2, "
	    "attempts = attempts + 1 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	rc = db_commit(db);
out:
	if (rc == -1) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		db_rollback(db);
	}
	sqlite3_finalize(st);
	return rc;
}

int
jobs_finish(sqlite3 *db, long long id, int ok, const char *message)
{
	sqlite3_stmt	*st;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, "UPDATE jobs SET state = ?2, message = ?3, "
	    "finished_at = ?4 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, ok ? "done" : "failed", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, message, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

int
jobs_finish_running(sqlite3 *db, long long id)
{
	sqlite3_stmt	*st;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, "UPDATE jobs SET state = 'done', finished_at = ?2 "
	    "WHERE id = ?1 AND state = 'running'", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

void
jobs_log(sqlite3 *db, long long id, const char *level, const char *fmt, ...)
{
	sqlite3_stmt	*st;
	va_list		 ap;
	char		 line[1024], now[32];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strcmp(level, "error") == 0)
		log_err("job %lld: %s", id, line);
	else
		log_info("job %lld: %s", id, line);
	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db, "INSERT INTO job_log (job_id, at, level, line) "
	    "VALUES (?1, ?2, ?3, ?4)", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, level, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, line, -1, SQLITE_STATIC);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

enum jobs_cancel_result
jobs_cancel(sqlite3 *db, long long id)
{
	sqlite3_stmt	*st = NULL;
	enum jobs_cancel_result r = JOBS_CANCEL_ERROR;
	char		 now[32], *lib = NULL, *state = NULL;
	int		 del = 0;

	if (db_begin(db) == -1)
		return JOBS_CANCEL_ERROR;
	if (sqlite3_prepare_v2(db, "SELECT library_id, state, kind = 'delete' FROM "
	    "jobs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		r = JOBS_CANCEL_NOT_FOUND;
		goto out;
	}
	lib = strdup((const char *)sqlite3_column_text(st, 0));
	state = strdup((const char *)sqlite3_column_text(st, 1));
	del = sqlite3_column_int(st, 2);
	sqlite3_finalize(st);
	st = NULL;
	if (lib == NULL || state == NULL)
		goto out;
	util_iso8601(time(NULL), now, sizeof(now));
	if (strcmp(state, "running") == 0 && del) {
		r = JOBS_CANCEL_DELETING;
		goto out;
	}
	if (strcmp(state, "running") == 0) {
		/* The worker polls the flag at its checkpoints and ends the job. */
		if (sqlite3_prepare_v2(db, "UPDATE jobs SET cancel_requested = 1 WHERE "
		    "id = ?1 AND cancel_requested = 0", -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		if (sqlite3_changes(db) > 0)
			jobs_log(db, id, "info", "cancellation requested; the worker "
			    "stops at its next checkpoint");
		if (db_commit(db) == 0)
			r = JOBS_CANCEL_REQUESTED;
		goto out;
	}
	if (strcmp(state, "queued") != 0) {
		r = JOBS_CANCEL_FINISHED;
		goto out;
	}
	if (sqlite3_prepare_v2(db, "UPDATE jobs SET state = 'cancelled', finished_at = "
	    "?2, message = 'cancelled before it started' WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	/* A cancelled deletion gives the library back the state its index has. */
	if (del && jobs_exec2(db, "UPDATE libraries SET state = CASE WHEN run_status = "
	    "'running' THEN 'processing' WHEN indexed_commit IS NOT NULL THEN "
	    "'finalized' WHEN run_status = 'failed' THEN 'error' ELSE 'initial' END, "
	    "updated_at = ?2 WHERE id = ?1 AND state = 'delete'", lib, now) == -1)
		goto out;
	if (db_commit(db) == 0)
		r = JOBS_CANCEL_OK;
out:
	if (r == JOBS_CANCEL_ERROR)
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (r != JOBS_CANCEL_OK && r != JOBS_CANCEL_REQUESTED)
		db_rollback(db);
	free(lib);
	free(state);
	return r;
}

int
jobs_cancel_requested(sqlite3 *db, long long id)
{
	return jobs_int(db, "SELECT cancel_requested <> 0 FROM jobs WHERE id = ?1", id);
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
