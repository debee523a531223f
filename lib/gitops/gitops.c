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

#include "base/buf.h"
#include "base/cron.h"
#include "base/log.h"
#include "base/util.h"
#include "gitops/gitops.h"
#include "gitops/manifest.h"
#include "sources/backend.h"
#include "sources/ghapp.h"
#include "sources/gitrepo.h"
#include "sources/gitsrc.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "store/db.h"
#include "store/jobs.h"
#include "store/netpolicy.h"
#include "store/settings.h"

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

/* ------------------------------------------------------------------ reconcile */

/* What one sync did: counts, per-entry results, errors (the run's result JSON). */
struct gitops_sync {
	json_object	*entries;	/* [{id, url, type, action, reason}] */
	json_object	*errors;	/* ["..."] */
	long		 created, updated, unchanged, pruned, skipped, failed, kept;
	char		 commit[41];
	int		 skipped_all;	/* the commit was processed already */
};

/* Appends a per-entry result; the counter of action goes up. */
static int
gitops_result(struct gitops_sync *s, const char *id, const char *url, const char *type,
    const char *action, const char *reason)
{
	json_object	*o = json_object_new_object();

	if (o == NULL)
		return -1;
	json_object_object_add(o, "id", json_object_new_string(id));
	if (url != NULL)
		json_object_object_add(o, "url", json_object_new_string(url));
	if (type != NULL)
		json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "action", json_object_new_string(action));
	if (reason != NULL)
		json_object_object_add(o, "reason", json_object_new_string(reason));
	if (json_object_array_add(s->entries, o) != 0) {
		json_object_put(o);
		return -1;
	}
	if (strcmp(action, "created") == 0)
		s->created++;
	else if (strcmp(action, "updated") == 0)
		s->updated++;
	else if (strcmp(action, "unchanged") == 0)
		s->unchanged++;
	else if (strcmp(action, "pruned") == 0)
		s->pruned++;
	else if (strcmp(action, "skipped") == 0)
		s->skipped++;
	else if (strcmp(action, "failed") == 0)
		s->failed++;
	else
		s->kept++;
	return 0;
}

/* A library as stored, for comparing with its manifest entry. */
struct gitops_lib {
	int		 exists, gitops, deleting, pending;
	char		*url, *type, *branch, *settings, *title, *description;
	char		*run_status, *state;
};

static void
gitops_lib_release(struct gitops_lib *l)
{
	free(l->url);
	free(l->type);
	free(l->branch);
	free(l->settings);
	free(l->title);
	free(l->description);
	free(l->run_status);
	free(l->state);
	memset(l, 0, sizeof(*l));
}

static char *
gitops_col(sqlite3_stmt *st, int i)
{
	const char	*v = (const char *)sqlite3_column_text(st, i);

	return strdup(v != NULL ? v : "");
}

/* Reads library id into l (l->exists 0 when there is none). */
static int
gitops_lib_load(sqlite3 *db, const char *id, struct gitops_lib *l)
{
	sqlite3_stmt	*st;
	int		 rc;

	memset(l, 0, sizeof(*l));
	if (sqlite3_prepare_v2(db, "SELECT url, source_type, branch, settings, title, "
	    "description, gitops, run_status, state, EXISTS (SELECT 1 FROM jobs j WHERE "
	    "j.library_id = l.id AND j.kind = 'delete' AND j.state IN ('queued', "
	    "'running')), EXISTS (SELECT 1 FROM jobs j WHERE j.library_id = l.id AND "
	    "j.state IN ('queued', 'running')) FROM libraries l WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		l->exists = 1;
		l->url = gitops_col(st, 0);
		l->type = gitops_col(st, 1);
		l->branch = gitops_col(st, 2);
		l->settings = gitops_col(st, 3);
		l->title = gitops_col(st, 4);
		l->description = gitops_col(st, 5);
		l->gitops = sqlite3_column_int(st, 6);
		l->run_status = gitops_col(st, 7);
		l->state = gitops_col(st, 8);
		l->deleting = sqlite3_column_int(st, 9);
		l->pending = sqlite3_column_int(st, 10);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	if (l->exists && (l->url == NULL || l->type == NULL || l->branch == NULL ||
	    l->settings == NULL || l->title == NULL || l->description == NULL ||
	    l->run_status == NULL || l->state == NULL)) {
		gitops_lib_release(l);
		return -1;
	}
	return 0;
}

/* An entry's values as the libraries table stores them. */
struct gitops_want {
	const char	*url, *type, *branch, *title, *description;
	char		*settings;
};

/* The names of the fields of l that differ from w, into b ("" when none). */
static void
gitops_changes(const struct gitops_lib *l, const struct gitops_want *w, struct buf *b)
{
	if (strcmp(l->url, w->url) != 0)
		buf_printf(b, "%surl", b->len ? ", " : "");
	if (strcmp(l->type, w->type) != 0)
		buf_printf(b, "%stype", b->len ? ", " : "");
	if (strcmp(l->branch, w->branch) != 0)
		buf_printf(b, "%sbranch", b->len ? ", " : "");
	if (strcmp(l->settings, w->settings) != 0)
		buf_printf(b, "%ssettings", b->len ? ", " : "");
	if (strcmp(l->title, w->title) != 0)
		buf_printf(b, "%stitle", b->len ? ", " : "");
	if (strcmp(l->description, w->description) != 0)
		buf_printf(b, "%sdescription", b->len ? ", " : "");
}

/* 1 when the library's last run did not end well and none is queued or running. */
static int
gitops_unfinished(const struct gitops_lib *l)
{
	if (l->pending)
		return 0;
	return strcmp(l->run_status, "unfinished") == 0 ||
	    strcmp(l->run_status, "failed") == 0 ||
	    strcmp(l->run_status, "cancelled") == 0 ||
	    strcmp(l->state, "error") == 0 || strcmp(l->state, "initial") == 0;
}

/* Fills w from the validated entry p; w->settings malloc'd. */
static int
gitops_want(const struct parse_req *p, struct gitops_want *w)
{
	w->url = p->repo_url;
	w->type = p->type != NULL ? p->type : "git";
	w->branch = p->branch != NULL ? p->branch : "";
	w->title = p->title != NULL ? p->title : strrchr(p->id, '/') + 1;
	w->description = p->description != NULL ? p->description : "";
	w->settings = strcmp(w->type, "git") == 0 ? gitsrc_settings_json(p) :
	    strdup(p->settings != NULL ? p->settings : "{}");
	return w->settings != NULL ? 0 : -1;
}

/* Writes library id as w says (INSERT when new, else UPDATE) and queues its index job. */
static int
gitops_write(sqlite3 *db, const char *id, const char *host, const struct gitops_want *w,
    int exists, int force)
{
	long long	 job;
	char		 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	if (exists ? db_run(db, "UPDATE libraries SET url = ?2, source_type = ?3, branch = "
	    "?4, settings = ?5, title = ?6, description = ?7, updated_at = ?8, host = ?9 "
	    "WHERE id = ?1", "ttttttttt", id, w->url, w->type, w->branch, w->settings,
	    w->title, w->description, now, host) : db_run(db, "INSERT INTO libraries (id, lib_no, url, "
	    "source_type, branch, settings, title, description, created_at, updated_at, "
	    "host, gitops) VALUES (?1, (SELECT coalesce(max(lib_no), 0) + 1 FROM "
	    "libraries), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, 1)", "ttttttttt", id, w->url,
	    w->type, w->branch, w->settings, w->title, w->description, now, host) == -1)
		return -1;
	return jobs_enqueue(db, id, force, &job);
}

/*
 * The decision table for one manifest entry, inside the sync's transaction: add a new
 * library, re-index a changed one or one whose last run did not finish, leave a matching
 * one, report (never adopt) one added by hand. A wiki entry fails alone without the
 * wiki integration. -1 on a database error.
 */
static int
gitops_apply_entry(sqlite3 *db, struct gitops_sync *s, const struct parse_req *p,
    int wiki_ok)
{
	struct gitops_lib l;
	struct gitops_want w;
	struct buf	 changes;
	const char	*action = "unchanged", *reason = NULL;
	int		 rc = -1;

	memset(&w, 0, sizeof(w));
	buf_init(&changes);
	if (gitops_lib_load(db, p->id, &l) == -1 || gitops_want(p, &w) == -1)
		goto out;
	if (strcmp(w.type, "wiki") == 0 && !wiki_ok) {
		action = "failed";
		reason = "the wiki integration is not configured (settings wiki.site_url "
		    "and wiki.token)";
	} else if (!l.exists) {
		if (gitops_write(db, p->id, p->host, &w, 0, 0) == -1)
			goto out;
		action = "created";
	} else if (!l.gitops) {
		action = "skipped";
		reason = "added by hand: a sync never touches it";
	} else if (l.deleting) {
		action = "skipped";
		reason = "being deleted";
	} else {
		gitops_changes(&l, &w, &changes);
		if (changes.len > 0 || gitops_unfinished(&l)) {
			if (gitops_write(db, p->id, p->host, &w, 1, 1) == -1)
				goto out;
			action = "updated";
			if (changes.len > 0 && buf_printf(&changes, " changed") == -1)
				goto out;
			reason = changes.len > 0 ? changes.p : "its last run did not finish";
		}
	}
	rc = gitops_result(s, p->id, w.url, w.type, action, reason);
out:
	gitops_lib_release(&l);
	free(w.settings);
	buf_release(&changes);
	return rc;
}

/*
 * GitOps-managed libraries that left the manifest (m): deleted through a delete job when
 * prune is on, else kept and reported.
 */
static int
gitops_prune(sqlite3 *db, struct gitops_sync *s, const struct manifest *m, int prune)
{
	sqlite3_stmt	*st;
	long long	 job;
	const char	*id;
	size_t		 i;
	int		 rc = 0, step;

	if (sqlite3_prepare_v2(db, "SELECT id FROM libraries WHERE gitops = 1 AND state "
	    "<> 'delete' ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		id = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; i < m->n && strcmp(m->entries[i].req.id, id) != 0; i++)
			;
		if (i < m->n)
			continue;
		if (prune)
			rc = jobs_enqueue_delete(db, id, &job) == -1 ||
			    gitops_result(s, id, NULL, NULL, "pruned", "left the manifest") ==
			    -1 ? -1 : 0;
		else
			rc = gitops_result(s, id, NULL, NULL, "kept", "left the manifest; "
			    "gitops.prune is off");
	}
	if (rc == 0 && step != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Applies manifest m in one transaction: every entry, the prune pass, and the commit and
 * configuration processed (gitops_state). Nothing is written unless all of it is.
 */
static int
gitops_apply(sqlite3 *db, struct gitops_sync *s, const struct manifest *m,
    const char *config)
{
	size_t		 i;
	int		 wiki_ok, prune;

	wiki_ok = settings_is_set(db, "wiki.site_url") && settings_is_set(db, "wiki.token");
	prune = settings_get_bool(db, "gitops.prune", 0);
	if (db_begin(db) == -1)
		return -1;
	for (i = 0; i < m->n; i++)
		if (gitops_apply_entry(db, s, &m->entries[i].req, wiki_ok) == -1)
			goto fail;
	if (gitops_prune(db, s, m, prune) == -1 ||
	    db_run(db, "UPDATE gitops_state SET last_commit = ?1, last_config = ?2 WHERE "
	    "id = 1", "tt", s->commit, config) == -1 || db_commit(db) == -1)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return -1;
}

/* The GitOps configuration a sync reads. */
struct gitops_config {
	char	 url[2048], branch[256], path[1040];
	int	 prune;
};

static int
gitops_config_load(sqlite3 *db, struct gitops_config *c)
{
	if (gitops_config_repo(db, c->url, sizeof(c->url), c->branch,
	    sizeof(c->branch)) == -1 || gitops_setting(db, "gitops.manifest_path",
	    "repos.yaml", c->path, sizeof(c->path)) == -1)
		return -1;
	c->prune = settings_get_bool(db, "gitops.prune", 0);
	return 0;
}

/*
 * Reads the configured manifest from its repository: clones or fetches it into
 * DATA_DIR/gitops/<host>/<owner>/<repo>.git with the credential of its host (none: an
 * error), resolves the branch (s->commit) and reads the file (*text, *len). 0, or -1
 * with err.
 */
static int
gitops_fetch(sqlite3 *db, const char *datadir, const struct gitops_config *cf,
    struct gitops_sync *s, char **text, size_t *len, char *err, size_t errsz)
{
	struct gitrepo_limits lim;
	struct gitrepo	*g = NULL;
	struct gitrepo_entry *ents = NULL;
	const char	*kind;
	char		*user = NULL, *token = NULL, *plain = NULL, *top = NULL, *dir = NULL;
	char		 id[512], host[256], note[512];
	size_t		 n = 0, i;
	int		 rc = -1;

	*text = NULL;
	if (libid_from_url(cf->url, id, sizeof(id), host, sizeof(host), err,
	    errsz) == -1)
		goto out;
	/* The GitHub-type App's installation token, else the host's token (lib/sources/ghapp.c). */
	if (!ghapp_git_credentials(db, datadir, cf->url, host, &user, &token, &kind, note,
	    sizeof(note))) {
		snprintf(err, errsz, "no git credential is configured for %s, the host of "
		    "the manifest repository %.300s: set git.github.token (git.github.host), "
		    "the GitHub-type App (git.github.app_*) or git.gitlab.token "
		    "(git.gitlab.host)%s%.200s", host, cf->url, *note ? "; the App: " : "", note);
		goto out;
	}
	if ((top = util_path_join(datadir, "gitops")) == NULL ||
	    (dir = gitsrc_repo_dir(top, host, id)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	lim.max_fetch_bytes = (size_t)settings_get_long(db, datadir, "limits.max_repo_mb",
	    1024) * 1024 * 1024;
	lim.plain_http_hosts = plain = settings_get(db, datadir, "git.plain_http_hosts");
	gitrepo_limits_load(&lim, db, datadir);
	netpolicy_load(db, datadir);
	if (gitrepo_sync(&g, cf->url, cf->branch, dir, user, token, &lim, err, errsz) == -1)
		goto out;
	snprintf(s->commit, sizeof(s->commit), "%s", gitrepo_commit(g));
	if (gitrepo_list(g, &ents, &n, err, errsz) == -1)
		goto out;
	for (i = 0; i < n && strcmp(ents[i].path, cf->path) != 0; i++)
		;
	if (i == n) {
		snprintf(err, errsz, "the manifest %.200s is not in %.500s at commit %s", cf->path,
		    cf->url, s->commit);
		goto out;
	}
	if (ents[i].size > MANIFEST_MAX_BYTES) {
		snprintf(err, errsz, "the manifest %.200s is larger than %d bytes", cf->path,
		    MANIFEST_MAX_BYTES);
		goto out;
	}
	rc = gitrepo_read(g, ents[i].oid, MANIFEST_MAX_BYTES, text, len, err, errsz);
out:
	if (token != NULL)
		explicit_bzero(token, strlen(token));
	free(token);
	free(user);
	free(plain);
	free(top);
	free(dir);
	gitrepo_list_free(ents, n);
	gitrepo_free(g);
	return rc;
}

/* The run's result JSON, as stored in gitops_runs.result (malloc'd). */
static char *
gitops_result_json(const struct gitops_sync *s)
{
	json_object	*o = json_object_new_object(), *c = json_object_new_object();
	char		*out = NULL;

	if (o == NULL || c == NULL) {
		json_object_put(o);
		json_object_put(c);
		return NULL;
	}
	json_object_object_add(c, "created", json_object_new_int64(s->created));
	json_object_object_add(c, "updated", json_object_new_int64(s->updated));
	json_object_object_add(c, "unchanged", json_object_new_int64(s->unchanged));
	json_object_object_add(c, "pruned", json_object_new_int64(s->pruned));
	json_object_object_add(c, "skipped", json_object_new_int64(s->skipped));
	json_object_object_add(c, "failed", json_object_new_int64(s->failed));
	json_object_object_add(c, "kept", json_object_new_int64(s->kept));
	json_object_object_add(o, "counts", c);
	json_object_object_add(o, "entries", json_object_get(s->entries));
	json_object_object_add(o, "errors", json_object_get(s->errors));
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return out;
}

/* 1 when the manifest commit and configuration were processed already, 0 not, -1. */
static int
gitops_seen(sqlite3 *db, const char *commit, const char *config)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM gitops_state WHERE id = 1 AND "
	    "last_commit = ?1 AND last_config = ?2", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, config, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Adds the manifest's errors to s->errors. */
static void
gitops_manifest_errors(struct gitops_sync *s, const struct manifest *m)
{
	char	 more[64];
	size_t	 i;

	for (i = 0; i < m->nerrors; i++)
		json_object_array_add(s->errors, json_object_new_string(m->errors[i]));
	if (m->more_errors > 0) {
		snprintf(more, sizeof(more), "... and %zu more errors", m->more_errors);
		json_object_array_add(s->errors, json_object_new_string(more));
	}
}

/*
 * One sync: fetch, skip when seen, parse (any error: nothing changes), apply. Returns the
 * run's final state ("done", "skipped", "failed") with its one-line message in msg.
 */
static const char *
gitops_sync_run(sqlite3 *db, const char *datadir, struct gitops_sync *s, char *msg,
    size_t msgsz)
{
	struct gitops_config cf;
	struct manifest	 m;
	struct buf	 config;
	char		*text = NULL;
	size_t		 len = 0;
	const char	*state = "failed";
	int		 seen;

	memset(&m, 0, sizeof(m));
	buf_init(&config);
	if (gitops_config_load(db, &cf) == -1) {
		snprintf(msg, msgsz, "the GitOps settings cannot be read");
		goto out;
	}
	if (cf.url[0] == '\0') {
		snprintf(msg, msgsz, "no manifest repository is configured (gitops.repo_url)");
		goto out;
	}
	if (settings_url_has_credentials(cf.url)) {
		snprintf(msg, msgsz, "gitops.repo_url carries credentials (user:secret@ "
		    "before the host): set it again without them and store the token in "
		    "the git credential settings");
		goto out;
	}
	if (buf_printf(&config, "%s\n%s\n%s\n%d", cf.url, cf.branch, cf.path,
	    cf.prune) == -1) {
		snprintf(msg, msgsz, "out of memory");
		goto out;
	}
	if (gitops_fetch(db, datadir, &cf, s, &text, &len, msg, msgsz) == -1)
		goto out;
	if ((seen = gitops_seen(db, s->commit, config.p)) != 0) {
		if (seen == 1) {
			s->skipped_all = 1;
			state = "skipped";
			snprintf(msg, msgsz, "manifest commit %s was processed already: "
			    "nothing to do", s->commit);
		} else
			snprintf(msg, msgsz, "the database could not be read");
		goto out;
	}
	if (manifest_parse(cf.path, text, len, &m) == -1) {
		gitops_manifest_errors(s, &m);
		snprintf(msg, msgsz, "the manifest %.200s at commit %s is not valid (%zu "
		    "error%s); nothing was changed", cf.path, s->commit,
		    m.nerrors + m.more_errors, m.nerrors + m.more_errors == 1 ? "" : "s");
		goto out;
	}
	if (gitops_apply(db, s, &m, config.p) == -1) {
		snprintf(msg, msgsz, "the sync could not be written; the worker log has "
		    "the details");
		goto out;
	}
	state = "done";
	snprintf(msg, msgsz, "manifest commit %s: %ld created, %ld updated, %ld "
	    "unchanged, %ld pruned, %ld skipped, %ld failed", s->commit, s->created,
	    s->updated, s->unchanged, s->pruned, s->skipped, s->failed);
out:
	if (strcmp(state, "failed") == 0 && json_object_array_length(s->errors) == 0)
		json_object_array_add(s->errors, json_object_new_string(msg));
	manifest_release(&m);
	buf_release(&config);
	free(text);
	return state;
}

int
gitops_run_next(sqlite3 *db, const char *datadir)
{
	struct gitops_sync s;
	sqlite3_stmt	*st = NULL;
	long long	 id;
	const char	*state;
	char		 msg[1024], *result = NULL;
	int		 rc = -1;

	/* A run left 'running' belongs to a worker that died: again, or give up. */
	if (db_run(db, "UPDATE gitops_runs SET state = CASE WHEN attempts >= ?1 THEN "
	    "'failed' ELSE 'queued' END, message = CASE WHEN attempts >= ?1 THEN 'the "
	    "worker stopped before the end of this sync ' || attempts || ' times; giving "
	    "up' ELSE 'the previous worker stopped before the end of this sync' END, "
	    "finished_at = CASE WHEN attempts >= ?1 THEN " GITOPS_NOW " END WHERE state = "
	    "'running'", "i", JOBS_MAX_ATTEMPTS) == -1)
		return -1;
	if (sqlite3_prepare_v2(db, "UPDATE gitops_runs SET state = 'running', attempts = "
	    "attempts + 1, started_at = " GITOPS_NOW " WHERE id = (SELECT id FROM "
	    "gitops_runs WHERE state = 'queued' ORDER BY id LIMIT 1) RETURNING id", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return 0;
	}
	id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	memset(&s, 0, sizeof(s));
	if ((s.entries = json_object_new_array()) == NULL ||
	    (s.errors = json_object_new_array()) == NULL)
		goto out;
	log_info("GitOps: sync %lld started", id);
	state = gitops_sync_run(db, datadir, &s, msg, sizeof(msg));
	log_info("GitOps: sync %lld %s: %s", id, state, msg);
	if ((result = gitops_result_json(&s)) == NULL)
		goto out;
	if (db_run(db, "UPDATE gitops_runs SET state = ?2, message = ?3, result = ?4, "
	    "manifest_commit = nullif(?5, ''), finished_at = " GITOPS_NOW " WHERE id = ?1",
	    "Itttt", id, state, msg, result, s.commit) == -1)
		goto out;
	rc = 1;
out:
	json_object_put(s.entries);
	json_object_put(s.errors);
	free(result);
	return rc;
}

/* ------------------------------------------------------------------ status */

/* The run of the current row (columns of gitops_run_sql) as the API shows it. */
#define GITOPS_RUN_SQL	"SELECT id, trigger, state, attempts, manifest_commit, message, " \
	"created_at, started_at, finished_at, result FROM gitops_runs "

static json_object *
gitops_text(sqlite3_stmt *st, int i)
{
	const char	*v = (const char *)sqlite3_column_text(st, i);

	return v != NULL ? json_object_new_string(v) : NULL;
}

static json_object *
gitops_run_row(sqlite3_stmt *st)
{
	static const char *const names[] = { "trigger", "state", NULL, "manifestCommit",
	    "message", "createdAt", "startedAt", "finishedAt" };
	json_object	*o, *res = NULL, *v;
	const char	*r;
	int		 i;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(sqlite3_column_int64(st, 0)));
	for (i = 1; i <= 8; i++)
		if (names[i - 1] != NULL)
			json_object_object_add(o, names[i - 1], gitops_text(st, i));
	json_object_object_add(o, "attempts", json_object_new_int(sqlite3_column_int(st,
	    3)));
	if ((r = (const char *)sqlite3_column_text(st, 9)) != NULL &&
	    (res = json_tokener_parse(r)) != NULL) {
		json_object_object_foreach(res, key, val) {
			v = json_object_get(val);
			json_object_object_add(o, key, v);
		}
		json_object_put(res);
	}
	return o;
}

/* The first run that sql (GITOPS_RUN_SQL + a condition, ?1 bound to id) selects. */
static json_object *
gitops_run_query(sqlite3 *db, const char *sql, long long id, int *found)
{
	sqlite3_stmt	*st;
	json_object	*o = NULL;
	int		 rc;

	*found = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return NULL;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*found = 1;
		o = gitops_run_row(st);
	} else if (rc != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return o;
}

struct json_object *
gitops_run_json(sqlite3 *db, long long id, int *found)
{
	return gitops_run_query(db, GITOPS_RUN_SQL "WHERE id = ?1", id, found);
}

int
gitops_run_finished(sqlite3 *db, long long id)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(db, "SELECT state IN ('done', 'skipped', 'failed') FROM "
	    "gitops_runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/* The configuration as GET /api/gitops/status and PUT /api/gitops/config show it. */
static json_object *
gitops_config_json(sqlite3 *db, const char *datadir)
{
	static const struct {
		const char	*field, *setting, *dflt;
		int		 is_bool;
	} f[] = {
		{ "enabled", "gitops.enabled", "false", 1 },
		{ "repoUrl", "gitops.repo_url", "", 0 },
		{ "manifestPath", "gitops.manifest_path", "repos.yaml", 0 },
		{ "branch", "gitops.branch", "", 0 },
		{ "schedule", "gitops.schedule", "manual", 0 },
		{ "prune", "gitops.prune", "false", 1 },
	};
	json_object	*o = json_object_new_object();
	char		*v, *shown;
	size_t		 i;

	if (o == NULL)
		return NULL;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].is_bool) {
			json_object_object_add(o, f[i].field, json_object_new_boolean(
			    settings_get_bool(db, f[i].setting, 0)));
			continue;
		}
		v = settings_get(db, datadir, f[i].setting);
		if (v != NULL && settings_url_has_credentials(v)) {
			/* A URL stored before URL settings refused credentials. */
			shown = settings_url_redacted(v);
			free(v);
			v = shown;
		}
		json_object_object_add(o, f[i].field, json_object_new_string(v != NULL ?
		    v : f[i].dflt));
		free(v);
	}
	return o;
}

struct json_object *
gitops_status(sqlite3 *db, const char *datadir)
{
	json_object	*o = json_object_new_object(), *c;
	sqlite3_stmt	*st = NULL;
	int		 found;

	if (o == NULL || (c = gitops_config_json(db, datadir)) == NULL)
		goto fail;
	json_object_object_add(o, "config", c);
	if (sqlite3_prepare_v2(db, "SELECT last_commit FROM gitops_state WHERE id = 1", -1,
	    &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		goto fail;
	json_object_object_add(o, "lastProcessedCommit", gitops_text(st, 0));
	sqlite3_finalize(st);
	st = NULL;
	json_object_object_add(o, "lastSync", gitops_run_query(db, GITOPS_RUN_SQL "WHERE "
	    "state IN ('done', 'skipped', 'failed') AND ?1 = ?1 ORDER BY id DESC LIMIT 1", 0,
	    &found));
	json_object_object_add(o, "pendingSync", gitops_run_query(db, GITOPS_RUN_SQL
	    "WHERE state IN ('queued', 'running') AND ?1 = ?1 ORDER BY id LIMIT 1", 0,
	    &found));
	return o;
fail:
	log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	json_object_put(o);
	return NULL;
}
