/*
 * gitops.c: GitOps syncs (gitops.h): their queue (table gitops_runs), the schedule, the
 * reconcile of the manifest against the libraries, and the status the admin API shows.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json.h>
#include <sqlite3.h>

#include "ctxd.h"
#include "cron.h"
#include "gitops.h"
#include "manifest.h"

#define GITOPS_NOW	"strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

int
gitops_queue_sync(sqlite3 *db, const char *trigger, long long *job_id)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	*job_id = 0;
	if (db_begin(db) == -1)
		return -1;
	if (db_run(db, "INSERT INTO gitops_runs (trigger, created_at) SELECT ?1, " GITOPS_NOW
	    " WHERE NOT EXISTS (SELECT 1 FROM gitops_runs WHERE state = 'queued')", "t",
	    trigger) == -1)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT id FROM gitops_runs WHERE state = 'queued' "
	    "ORDER BY id LIMIT 1", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		goto out;
	}
	*job_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (db_commit(db) == -1)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(st);
	if (rc == -1)
		db_rollback(db);
	return rc;
}

/* Copies setting name (dflt when unset) into out; -1 when it does not fit. */
static int
gitops_setting(sqlite3 *db, const char *name, const char *dflt, char *out, size_t outsz)
{
	char	*v = settings_get(db, util_data_dir(), name);
	int	 n = snprintf(out, outsz, "%s", v != NULL ? v : dflt);

	free(v);
	return n < 0 || (size_t)n >= outsz ? -1 : 0;
}

int
gitops_config_repo(sqlite3 *db, char *url, size_t urlsz, char *branch, size_t branchsz)
{
	if (gitops_setting(db, "gitops.repo_url", "", url, urlsz) == -1 ||
	    gitops_setting(db, "gitops.branch", "", branch, branchsz) == -1) {
		log_err("%s: a GitOps setting is too long", __func__);
		return -1;
	}
	return 0;
}

int
gitops_on_start(sqlite3 *db)
{
	long long	 id;

	if (!settings_get_bool(db, "gitops.enabled", 0))
		return 0;
	if (gitops_queue_sync(db, "start", &id) == -1)
		return -1;
	log_info("GitOps: sync %lld queued at start", id);
	return 1;
}

/* Reads gitops_state.last_slot into *t (0 when never evaluated). */
static int
gitops_last_slot(sqlite3 *db, time_t *t)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	*t = 0;
	if (sqlite3_prepare_v2(db, "SELECT CAST(strftime('%s', last_slot) AS INTEGER) "
	    "FROM gitops_state WHERE id = 1 AND last_slot IS NOT NULL", -1, &st, NULL) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*t = (time_t)sqlite3_column_int64(st, 0);
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int
gitops_schedule_check(sqlite3 *db, const char *datadir, time_t now)
{
	struct cron	 c;
	time_t		 last, slot;
	long long	 id;
	char		*spec = NULL, err[256], at[32];
	int		 due = 0, rc = -1;

	if (!settings_get_bool(db, "gitops.enabled", 0))
		return 0;
	if ((spec = settings_get(db, datadir, "gitops.schedule")) == NULL ||
	    cron_parse(spec, &c, err, sizeof(err)) == -1 || c.manual) {
		free(spec);
		return 0;
	}
	if (gitops_last_slot(db, &last) == -1)
		goto out;
	/* The first evaluation only starts the clock; later ones look back to the last. */
	if (last != 0 && cron_due(&c, last, now, &slot) == 1)
		due = 1;
	util_iso8601(now - now % 60, at, sizeof(at));
	if (db_run(db, "UPDATE gitops_state SET last_slot = ?1 WHERE id = 1", "t", at) == -1)
		goto out;
	if (due) {
		if (gitops_queue_sync(db, "schedule", &id) == -1)
			goto out;
		log_info("GitOps: scheduled sync %lld queued (%s)", id, spec);
	}
	rc = due;
out:
	free(spec);
	return rc;
}

/* ------------------------------------------------------------------ running a sync */

int
gitops_run_next(sqlite3 *db, const char *datadir)
{
	(void)db;
	(void)datadir;
	return 0;
}

/* ------------------------------------------------------------------ status */

struct json_object *
gitops_run_json(sqlite3 *db, long long id, int *found)
{
	(void)db;
	(void)id;
	*found = 0;
	return NULL;
}

int
gitops_run_finished(sqlite3 *db, long long id)
{
	(void)db;
	(void)id;
	return 0;
}

struct json_object *
gitops_status(sqlite3 *db, const char *datadir)
{
	(void)db;
	(void)datadir;
	return NULL;
}
