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

#include "base/buf.h"
#include "base/cron.h"
#include "base/log.h"
#include "base/util.h"
#include "gitops/gitops.h"
#include "gitops/manifest.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/ghapp.h"
#include "sources/gitrepo.h"
#include "sources/gitsrc.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "store/db.h"
#include "store/gitops.h"
#include "store/jobs.h"
#include "store/library.h"
#include "store/netpolicy.h"
#include "store/settings.h"

int
gitops_queue_sync(struct db *db, const char *trigger, long long *job_id)
{
	return store_gitops_queue(db, trigger, job_id);
}

/* Copies setting name (dflt when unset) into out; -1 when it does not fit. */
static int
gitops_setting(struct db *db, const char *name, const char *dflt, char *out, size_t outsz)
{
	char	*v = settings_get(db, util_data_dir(), name);
	int	 n = snprintf(out, outsz, "%s", v != NULL ? v : dflt);

	free(v);
	return n < 0 || (size_t)n >= outsz ? -1 : 0;
}

int
gitops_config_repo(struct db *db, char *url, size_t urlsz, char *branch, size_t branchsz)
{
	if (gitops_setting(db, "gitops.repo_url", "", url, urlsz) == -1 ||
	    gitops_setting(db, "gitops.branch", "", branch, branchsz) == -1) {
		log_err("%s: a GitOps setting is too long", __func__);
		return -1;
	}
	return 0;
}

int
gitops_on_start(struct db *db)
{
	long long	 id;

	if (!settings_get_bool(db, "gitops.enabled", 0))
		return 0;
	if (gitops_queue_sync(db, "start", &id) == -1)
		return -1;
	log_info("GitOps: sync %lld queued at start", id);
	return 1;
}

int
gitops_schedule_check(struct db *db, const char *datadir, time_t now)
{
	struct cron	 c;
	time_t		 last, slot;
	long long	 id;
	char		*spec = NULL, err[256], at[32];
	int		 due = 0, rc = -1, set;

	if (!settings_get_bool(db, "gitops.enabled", 0))
		return 0;
	if ((spec = settings_get(db, datadir, "gitops.schedule")) == NULL ||
	    cron_parse(spec, &c, err, sizeof(err)) == -1 || c.manual) {
		free(spec);
		return 0;
	}
	if (store_gitops_last_slot(db, &last) == -1)
		goto out;
	/* The first evaluation only starts the clock; later ones look back to the last. */
	if (last != 0 && cron_due(&c, last, now, &slot) == 1)
		due = 1;
	util_iso8601(now - now % 60, at, sizeof(at));
	/* a slot another worker (another node) recorded first is its to queue */
	if ((set = store_gitops_set_slot(db, at)) == -1)
		goto out;
	if (due && set == 1) {
		if (gitops_queue_sync(db, "schedule", &id) == -1)
			goto out;
		log_info("GitOps: scheduled sync %lld queued (%s)", id, spec);
	}
	rc = due && set == 1;
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

/* An entry's values as the libraries table stores them (settings malloc'd). */
struct gitops_want {
	struct store_library_values v;
	char		*settings;
};

/* The names of the fields of l that differ from w, into b ("" when none). */
static void
gitops_changes(const struct store_library *l, const struct gitops_want *w, struct buf *b)
{
	if (strcmp(l->url, w->v.url) != 0)
		buf_printf(b, "%surl", b->len ? ", " : "");
	if (strcmp(l->type, w->v.type) != 0)
		buf_printf(b, "%stype", b->len ? ", " : "");
	if (strcmp(l->branch, w->v.branch) != 0)
		buf_printf(b, "%sbranch", b->len ? ", " : "");
	if (strcmp(l->settings, w->v.settings) != 0)
		buf_printf(b, "%ssettings", b->len ? ", " : "");
	if (strcmp(l->title, w->v.title) != 0)
		buf_printf(b, "%stitle", b->len ? ", " : "");
	if (strcmp(l->description, w->v.description) != 0)
		buf_printf(b, "%sdescription", b->len ? ", " : "");
}

/* 1 when the library's last run did not end well and none is queued or running. */
static int
gitops_unfinished(const struct store_library *l)
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
	w->v.url = p->repo_url;
	w->v.type = p->type != NULL ? p->type : "git";
	w->v.branch = p->branch != NULL ? p->branch : "";
	w->v.title = p->title != NULL ? p->title : strrchr(p->id, '/') + 1;
	w->v.description = p->description != NULL ? p->description : "";
	w->settings = strcmp(w->v.type, "git") == 0 ? gitsrc_settings_json(p) :
	    strdup(p->settings != NULL ? p->settings : "{}");
	w->v.settings = w->settings;
	return w->settings != NULL ? 0 : -1;
}

/* Writes library id as w says (INSERT when new, else UPDATE) and queues its index job. */
static int
gitops_write(struct db *db, const char *id, const char *host, const struct gitops_want *w,
    int exists, int force)
{
	long long	 job;

	if (store_library_write_managed(db, id, host, &w->v, exists) == -1)
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
gitops_apply_entry(struct db *db, struct gitops_sync *s, const struct parse_req *p,
    int wiki_ok)
{
	struct store_library l;
	struct gitops_want w;
	struct buf	 changes;
	const char	*action = "unchanged", *reason = NULL;
	int		 rc = -1;

	memset(&w, 0, sizeof(w));
	buf_init(&changes);
	memset(&l, 0, sizeof(l));
	if (store_library_load(db, p->id, &l) == -1 || gitops_want(p, &w) == -1)
		goto out;
	if (strcmp(w.v.type, "wiki") == 0 && !wiki_ok) {
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
	rc = gitops_result(s, p->id, w.v.url, w.v.type, action, reason);
out:
	store_library_release(&l);
	free(w.settings);
	buf_release(&changes);
	return rc;
}

/*
 * GitOps-managed libraries that left the manifest (m): deleted through a delete job when
 * prune is on, else kept and reported.
 */
static int
gitops_prune(struct db *db, struct gitops_sync *s, const struct manifest *m, int prune)
{
	long long	 job;
	char		**ids;
	size_t		 i, k, n;
	int		 rc = 0;

	if (store_library_managed(db, &ids, &n) == -1)
		return -1;
	for (k = 0; rc == 0 && k < n; k++) {
		for (i = 0; i < m->n && strcmp(m->entries[i].req.id, ids[k]) != 0; i++)
			;
		if (i < m->n)
			continue;
		if (prune)
			rc = jobs_enqueue_delete(db, ids[k], &job) == -1 ||
			    gitops_result(s, ids[k], NULL, NULL, "pruned",
			    "left the manifest") == -1 ? -1 : 0;
		else
			rc = gitops_result(s, ids[k], NULL, NULL, "kept", "left the manifest; "
			    "gitops.prune is off");
	}
	for (k = 0; k < n; k++)
		free(ids[k]);
	free(ids);
	return rc;
}

/*
 * Applies manifest m in one transaction: every entry, the prune pass, and the commit and
 * configuration processed (gitops_state). Nothing is written unless all of it is.
 */
static int
gitops_apply(struct db *db, struct gitops_sync *s, struct manifest *m,
    const char *config)
{
	size_t		 i;
	int		 wiki_ok, prune;

	wiki_ok = settings_is_set(db, "wiki.site_url") && settings_is_set(db, "wiki.token");
	prune = settings_get_bool(db, "gitops.prune", 0);
	if (db_begin(db) == -1)
		return -1;
	/* a library added before the rules of new ids keeps its id (and is not pruned) */
	for (i = 0; i < m->n; i++)
		if (entry_stable_id(db, &m->entries[i].req) == -1)
			goto fail;
	for (i = 0; i < m->n; i++)
		if (gitops_apply_entry(db, s, &m->entries[i].req, wiki_ok) == -1)
			goto fail;
	if (gitops_prune(db, s, m, prune) == -1 ||
	    store_gitops_processed(db, s->commit, config) == -1 || db_commit(db) == -1)
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
gitops_config_load(struct db *db, struct gitops_config *c)
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
gitops_fetch(struct db *db, const char *datadir, const struct gitops_config *cf,
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
gitops_sync_run(struct db *db, const char *datadir, struct gitops_sync *s, char *msg,
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
	if ((seen = store_gitops_seen(db, s->commit, config.p)) != 0) {
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
gitops_run_next(struct db *db, const char *datadir)
{
	struct gitops_sync s;
	long long	 id;
	const char	*state;
	char		 msg[1024], *result = NULL;
	int		 rc;

	/* A run left 'running' belongs to a worker that died: again, or give up. */
	if ((rc = store_gitops_claim(db, JOBS_MAX_ATTEMPTS, &id)) != 1)
		return rc;
	rc = -1;
	memset(&s, 0, sizeof(s));
	if ((s.entries = json_object_new_array()) == NULL ||
	    (s.errors = json_object_new_array()) == NULL)
		goto out;
	log_info("GitOps: sync %lld started", id);
	state = gitops_sync_run(db, datadir, &s, msg, sizeof(msg));
	log_info("GitOps: sync %lld %s: %s", id, state, msg);
	if ((result = gitops_result_json(&s)) == NULL)
		goto out;
	if (store_gitops_finish(db, id, state, msg, result, s.commit) == -1)
		goto out;
	rc = 1;
out:
	json_object_put(s.entries);
	json_object_put(s.errors);
	free(result);
	return rc;
}

/* ------------------------------------------------------------------ status */

static json_object *
gitops_text(const char *v)
{
	return v != NULL ? json_object_new_string(v) : NULL;
}

/* A run as the API shows it: its columns, and the members of its result JSON. */
static json_object *
gitops_run_object(const struct store_gitops_run *r)
{
	json_object	*o, *res, *v;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "trigger", gitops_text(r->trigger));
	json_object_object_add(o, "state", gitops_text(r->state));
	json_object_object_add(o, "manifestCommit", gitops_text(r->manifest_commit));
	json_object_object_add(o, "message", gitops_text(r->message));
	json_object_object_add(o, "createdAt", gitops_text(r->created_at));
	json_object_object_add(o, "startedAt", gitops_text(r->started_at));
	json_object_object_add(o, "finishedAt", gitops_text(r->finished_at));
	json_object_object_add(o, "attempts", json_object_new_int(r->attempts));
	if (r->result != NULL && (res = json_tokener_parse(r->result)) != NULL) {
		json_object_object_foreach(res, key, val) {
			v = json_object_get(val);
			json_object_object_add(o, key, v);
		}
		json_object_put(res);
	}
	return o;
}

/* The run that which and id select as the API shows it; NULL when none (*found 0). */
static json_object *
gitops_run_query(struct db *db, enum store_gitops_which which, long long id, int *found)
{
	struct store_gitops_run r;
	json_object	*o = NULL;

	*found = store_gitops_run_get(db, which, id, &r) == 1;
	if (*found)
		o = gitops_run_object(&r);
	store_gitops_run_release(&r);
	return o;
}

struct json_object *
gitops_run_json(struct db *db, long long id, int *found)
{
	return gitops_run_query(db, STORE_GITOPS_BY_ID, id, found);
}

int
gitops_run_finished(struct db *db, long long id)
{
	return store_gitops_run_finished(db, id);
}

/* The configuration as GET /api/gitops/status and PUT /api/gitops/config show it. */
static json_object *
gitops_config_json(struct db *db, const char *datadir)
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
gitops_status(struct db *db, const char *datadir)
{
	json_object	*o = json_object_new_object(), *c;
	char		*commit = NULL;
	int		 found;

	if (o == NULL || (c = gitops_config_json(db, datadir)) == NULL ||
	    store_gitops_last_commit(db, &commit) == -1) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "config", c);
	json_object_object_add(o, "lastProcessedCommit", gitops_text(commit));
	free(commit);
	json_object_object_add(o, "lastSync", gitops_run_query(db,
	    STORE_GITOPS_LAST_FINISHED, 0, &found));
	json_object_object_add(o, "pendingSync", gitops_run_query(db, STORE_GITOPS_PENDING, 0,
	    &found));
	return o;
}
