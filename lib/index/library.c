/*
 * library.c: a library's life: added or re-indexed for a validated entry (library_upsert,
 * with its host and ownership checks), queued for a refresh or a deletion (library_queue),
 * and deleted (library_delete_run, the delete job). A source's fields and id rule are its
 * back end's (lib/sources/).
 */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "index/embedder.h"
#include "index/library.h"
#include "index/share.h"
#include "net/url.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/gitsrc.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "sources/select.h"
#include "store/db.h"
#include "store/jobs.h"
#include "store/library.h"


static int
library_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	if (remove(path) == -1 && errno != ENOENT) {
		log_err("library_delete_run: cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Removes dir and everything below it (symbolic links are removed, not followed). */
static int
library_rm_tree(const char *dir)
{
	struct stat	 sb;

	if (lstat(dir, &sb) == -1)
		return errno == ENOENT ? 0 : -1;
	return nftw(dir, library_rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

/*
 * The library's rows go in one transaction (store_library_delete); the delete job is
 * marked done in it. Its documents that show other libraries' snippets go, those
 * snippets stay.
 */
int
library_delete_run(struct db *db, const char *datadir, long long job_id,
    const char *library_id)
{
	struct store_library l;
	const struct backend_ops *ops = NULL;
	char		*dir = NULL, *parent, msg[600];
	size_t		 i, nvectors = 0;
	int		 rc = -1, started;

	memset(&l, 0, sizeof(l));
	if ((started = jobs_start(db, job_id)) == 1) {
		log_info("the deletion was cancelled before it started; nothing to do");
		return 0;
	}
	if (started == -1) {
		/* Not left queued: the worker would take it up again at once. */
		jobs_finish(db, job_id, 0, "the database is busy; delete the library "
		    "again");
		return -1;
	}
	jobs_log(db, job_id, "info", "deleting library %s", library_id);
	if (store_library_load(db, library_id, &l) == -1)
		goto dberr;
	if (!l.exists) {
		snprintf(msg, sizeof(msg), "library %s no longer exists; nothing to "
		    "delete", library_id);
		jobs_log(db, job_id, "info", "%s", msg);
		return jobs_finish(db, job_id, 1, msg);
	}
	ops = backend_lookup(l.type);
	/* The clone first: when it cannot be removed the rows stay and a retry can. */
	if ((dir = gitsrc_repo_dir(datadir, l.host, library_id)) == NULL) {
		snprintf(msg, sizeof(msg), "the clone folder of %s cannot be named",
		    library_id);
		goto fail;
	}
	if (library_rm_tree(dir) == -1) {
		snprintf(msg, sizeof(msg), "the clone folder of %s could not be "
		    "removed; the worker log has the details", library_id);
		goto fail;
	}
	/* Empty owner and host folders go too (rmdir leaves non-empty ones). */
	for (i = 0; i < 2 && (parent = strrchr(dir, '/')) != NULL; i++) {
		*parent = '\0';
		if (rmdir(dir) == -1)
			break;
	}
	/* What the source's back end keeps (a website's links file, an OpenAPI upload). */
	if (ops != NULL && ops->forget != NULL && ops->forget(db, datadir,
	    library_id) == -1) {
		snprintf(msg, sizeof(msg), "the files the %s source of %s keeps could not be "
		    "removed; the worker log has the details", ops->type, library_id);
		goto fail;
	}
	/* Snippets other versions show move to them first (lib/index/share.h). */
	if (db_begin(db) == -1 || share_disown(db, library_id, NULL) == -1 ||
	    store_library_delete(db, library_id, job_id) == -1)
		goto dberr;
	/* Its vectors, unless a snippet of another library (a version) names them. */
	if (embedder_gc(db, &nvectors) == -1)
		goto dberr;
	snprintf(msg, sizeof(msg), "deleted library %s: %lld documents, %lld snippets, "
	    "%zu vectors no other library uses, its jobs and clone", library_id,
	    l.total_documents, l.total_snippets, nvectors);
	jobs_log(db, job_id, "info", "%s", msg);
	if (jobs_finish(db, job_id, 1, msg) == -1 || db_commit(db) == -1)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	log_err("%s: %s", __func__, db_errmsg(db));
	snprintf(msg, sizeof(msg), "the library's rows could not be deleted; the worker "
	    "log has the details");
fail:
	db_rollback(db);
	jobs_log(db, job_id, "error", "%s", msg);
	jobs_finish(db, job_id, 0, msg);
out:
	store_library_release(&l);
	free(dir);
	return rc;
}

/* ------------------------------------------------------------------ adding and queueing */

/* The URL that identifies a repository: no trailing ".git" or '/'; malloc'd. */
static char *
library_canonical_url(const char *url)
{
	char	*u = strdup(url);
	size_t	 n;

	if (u == NULL)
		return NULL;
	n = strlen(u);
	while (n > 0 && u[n - 1] == '/')
		u[--n] = '\0';
	if (util_str_endswith(u, ".git"))
		u[n - 4] = '\0';
	return u;
}

/* What library_upsert finds stored for the id. */
/*
 * Inside the caller's transaction, for a new library id: LIBRARY_OK when host may take it,
 * LIBRARY_FORBIDDEN (with err) when the id was added from another host before and the
 * caller is no admin: an id stays bound to its source host (library_hosts, kept after a
 * deletion, sql/0013-library-guard.sql), so that nobody but an admin can put another
 * source's text under an id agents already use.
 */
static enum library_change
library_host_check(struct db *db, const char *id, const char *host, int admin,
    char *err, size_t errsz)
{
	char	*bound;
	int	 rc;

	if (admin)
		return LIBRARY_OK;
	if ((rc = store_library_bound_host(db, id, &bound)) == -1)
		return LIBRARY_ERROR;
	if (rc == 1 && strcasecmp(bound, host) != 0) {
		snprintf(err, errsz, "library %s was added from %s before; only an "
		    "admin can add it from %s (an id stays bound to the host of its "
		    "source, so that agents never get another source's text under it)",
		    id, bound, host);
		free(bound);
		return LIBRARY_FORBIDDEN;
	}
	free(bound);
	return LIBRARY_OK;
}

/*
 * Inside the caller's transaction: LIBRARY_OK when library id may be (re)added for url
 * (on host, by an admin or not), with what is stored in *old (old->exists 0 when
 * nothing); LIBRARY_TAKEN (another URL, or an id differing only in case),
 * LIBRARY_FORBIDDEN (library_host_check) or LIBRARY_DELETING with err.
 */
static enum library_change
library_upsert_check(struct db *db, const char *id, const char *type,
    const char *url, const char *host, int admin, struct store_library *old, char *err,
    size_t errsz)
{
	int		 rc;

	/* Ids differing only in case are one library: agents and the hosted API's clients
	 * spell them either way. */
	if (store_library_load_nocase(db, id, old) == -1) {
		snprintf(err, errsz, "the library could not be read");
		return LIBRARY_ERROR;
	}
	if (old->exists && strcmp(old->id, id) != 0) {
		snprintf(err, errsz, "library %s already exists as %s (ids that differ "
		    "only in case name one library)", id, old->id);
		store_library_release(old);
		return LIBRARY_TAKEN;
	}
	if (old->exists && (strcasecmp(old->url, url) != 0 || strcmp(old->type, type) != 0)) {
		snprintf(err, errsz, "library %s already exists for %s (%s); "
		    "remove it before adding %s (%s)", id, old->url, old->type, url, type);
		store_library_release(old);
		return LIBRARY_TAKEN;
	}
	if (old->exists && (rc = jobs_delete_pending(db, id, NULL)) != 0) {
		snprintf(err, errsz, "library %s is being deleted; add it again when the "
		    "deletion has finished", id);
		return rc == 1 ? LIBRARY_DELETING : LIBRARY_ERROR;
	}
	if (!old->exists)
		return library_host_check(db, id, host, admin, err, errsz);
	return LIBRARY_OK;
}

/* 1 when lists a (na entries) and b (nb) hold the same strings in the same order. */
static int
library_same_list(char **a, size_t na, char **b, size_t nb)
{
	size_t	 i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

/*
 * One list of the source settings: when the request gave it (given), adds its name to
 * changed if it differs from the stored one; else takes the stored one (have, nhave)
 * in its place (*list, *n).
 */
static void
library_merge_list(int given, const char *name, char ***list, size_t *n, char ***have,
    size_t *nhave, struct buf *changed)
{
	size_t	 i;

	if (given) {
		if (!library_same_list(*list, *n, *have, *nhave))
			buf_printf(changed, "%s%s", changed->len > 0 ? ", " : "", name);
		return;
	}
	for (i = 0; i < *n; i++)
		free((*list)[i]);
	free(*list);
	*list = *have;
	*n = *nhave;
	*have = NULL;
	*nhave = 0;
}

/*
 * Completes p with the stored source settings of old where p does not give them, and
 * writes the names of the fields that p gives with other values ("branch, folders") into
 * changed (empty when none); url is p's canonical URL. -1 when out of memory or the
 * stored settings do not parse.
 */
static int
library_merge(struct parse_req *p, const char *url, const struct store_library *old,
    struct buf *changed)
{
	struct select_rules have;
	char		*b;

	if (gitsrc_rules(old->settings, &have) == -1)
		return -1;
	if (strcmp(url, old->url) != 0)
		buf_printf(changed, "repoUrl");
	if (!(p->given & LIBRARY_GIVEN_BRANCH)) {
		if ((b = strdup(old->branch)) == NULL) {
			select_rules_release(&have);
			return -1;
		}
		free(p->branch);
		p->branch = b;
	} else if (strcmp(p->branch, old->branch) != 0)
		buf_printf(changed, "%sbranch", changed->len > 0 ? ", " : "");
	library_merge_list(p->given & LIBRARY_GIVEN_FOLDERS, "folders",
	    &p->rules.folders, &p->rules.nfolders, &have.folders, &have.nfolders,
	    changed);
	library_merge_list(p->given & LIBRARY_GIVEN_EXCLUDE_FOLDERS, "excludeFolders",
	    &p->rules.exclude_folders, &p->rules.nexclude_folders,
	    &have.exclude_folders, &have.nexclude_folders, changed);
	library_merge_list(p->given & LIBRARY_GIVEN_EXCLUDE_FILES, "excludeFiles",
	    &p->rules.exclude_files, &p->rules.nexclude_files, &have.exclude_files,
	    &have.nexclude_files, changed);
	if (!(p->given & LIBRARY_GIVEN_INDEX_SOURCE))
		p->rules.index_source = have.index_source;
	else if (!p->rules.index_source != !have.index_source)
		buf_printf(changed, "%sindexSourceCode", changed->len > 0 ? ", " : "");
	select_rules_release(&have);
	return 0;
}

/* The fields of a wiki entry's two forms: giving one form replaces the other. */
static const char *const library_wiki_forms[] = {
	"spaceKey", "spaceId", "spaceName", "pageUrls", "includeSubPages", NULL
};

/*
 * A source of another type than git: p->settings becomes the stored settings of old
 * with the fields p gave (p->given_settings) put over them; the names of those that
 * differ from the stored values are added to changed. -1 when out of memory or the
 * stored settings do not parse.
 */
static int
library_merge_settings(struct parse_req *p, const struct store_library *old,
    struct buf *changed)
{
	json_object	*have = json_tokener_parse(old->settings);
	json_object	*given = json_tokener_parse(p->given_settings);
	json_object	*v;
	char		*merged;
	size_t		 i;
	int		 rc = -1;

	if (!json_object_is_type(have, json_type_object) ||
	    !json_object_is_type(given, json_type_object))
		goto out;
	if (strcmp(p->type, "wiki") == 0 && (json_object_object_get_ex(given, "spaceKey",
	    NULL) || json_object_object_get_ex(given, "pageUrls", NULL)))
		for (i = 0; library_wiki_forms[i] != NULL; i++)
			if (!json_object_object_get_ex(given, library_wiki_forms[i], NULL) &&
			    json_object_object_get_ex(have, library_wiki_forms[i], NULL)) {
				json_object_object_del(have, library_wiki_forms[i]);
				buf_printf(changed, "%s%s", changed->len > 0 ? ", " : "",
				    library_wiki_forms[i]);
			}
	json_object_object_foreach(given, key, val) {
		if (!json_object_object_get_ex(have, key, &v) ||
		    !json_object_equal(v, val))
			buf_printf(changed, "%s%s", changed->len > 0 ? ", " : "", key);
		json_object_object_add(have, key, json_object_get(val));
	}
	merged = strdup(json_object_to_json_string_ext(have, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	if (merged == NULL)
		goto out;
	free(p->settings);
	p->settings = merged;
	rc = 0;
out:
	json_object_put(have);
	json_object_put(given);
	return rc;
}

/* The title and description: those p gave (named in changed when they differ), else old's. */
static int
library_merge_texts(struct parse_req *p, const struct store_library *old,
    struct buf *changed)
{
	if (p->title == NULL) {
		if ((p->title = strdup(old->title)) == NULL)
			return -1;
	} else if (strcmp(p->title, old->title) != 0)
		buf_printf(changed, "%stitle", changed->len > 0 ? ", " : "");
	if (p->description == NULL) {
		if ((p->description = strdup(old->description)) == NULL)
			return -1;
	} else if (strcmp(p->description, old->description) != 0)
		buf_printf(changed, "%sdescription", changed->len > 0 ? ", " : "");
	return 0;
}

/* Whether version v is in p's list. */
static int
library_has_version(const struct parse_req *p, const char *v)
{
	size_t	 i;

	for (i = 0; i < p->nversions; i++)
		if (strcmp(p->versions[i], v) == 0)
			return 1;
	return 0;
}

/*
 * The versions of library id, inside the caller's transaction: when p gives
 * versions, queues the delete of each stored version it no longer names and, when
 * changed is not NULL, only notes in changed that the list differs; with changed NULL,
 * stores each version p names as library id/<version> (branch = the version, the
 * parent's URL and settings) and queues its index job, and re-indexes the stored ones
 * when p gives none. 0, or -1 on a database error.
 */
static int
library_versions_sync(struct db *db, struct parse_req *p, const char *id,
    const char *url, const char *settings, long long user_id, const char *now,
    struct buf *changed)
{
	struct store_versions stored;
	struct buf	 vid;
	long long	 job;
	size_t		 i;
	int		 differ = 0, rc = -1;

	buf_init(&vid);
	if (store_library_versions(db, id, &stored) == -1)
		goto out;
	for (i = 0; i < stored.n; i++) {
		if (!(p->given & LIBRARY_GIVEN_VERSIONS) ||
		    library_has_version(p, stored.branches[i]))
			continue;
		differ = 1;
		if (changed == NULL && jobs_enqueue_delete(db, stored.ids[i], &job) == -1)
			goto out;
	}
	if (changed != NULL) {
		if ((p->given & LIBRARY_GIVEN_VERSIONS) && (differ ||
		    stored.n != p->nversions))
			buf_printf(changed, "%sversions", changed->len > 0 ? ", " : "");
		rc = 0;
		goto out;
	}
	for (i = 0; i < p->nversions; i++) {
		buf_reset(&vid);
		if (buf_printf(&vid, "%s/%s", id, p->versions[i]) == -1 ||
		    store_library_version_put(db, vid.p, id, p->versions[i], url, settings,
		    user_id, now) == -1 || jobs_enqueue(db, vid.p, 0, &job) == -1)
			goto out;
	}
	rc = 0;
	if (p->given & LIBRARY_GIVEN_VERSIONS)
		goto out;
	/* No list given: the stored versions follow the library's settings and refresh. */
	for (i = 0; i < stored.n; i++)
		if (store_library_version_follow(db, stored.ids[i], url, settings, now) == -1 ||
		    jobs_enqueue(db, stored.ids[i], 0, &job) == -1) {
			rc = -1;
			goto out;
		}
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, id, db_errmsg(db));
	store_versions_release(&stored);
	buf_release(&vid);
	return rc;
}

enum library_change
library_upsert(struct db *db, struct parse_req *p, const char *id, const char *host,
    long long user_id, int admin, long long *job_id, char *err, size_t errsz)
{
	enum library_change rc = LIBRARY_ERROR;
	struct store_library old;
	struct store_library_values v;
	struct buf	 changed;
	char		*settings = NULL, *url = NULL, now[32];

	memset(&old, 0, sizeof(old));
	buf_init(&changed);
	if (p->type == NULL)
		p->type = "git";
	if ((url = strcmp(p->type, "git") == 0 ? library_canonical_url(p->repo_url) :
	    strdup(p->repo_url)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(db) == -1)
		goto dberr;
	if ((rc = library_upsert_check(db, id, p->type, url, host, admin, &old, err,
	    errsz)) != LIBRARY_OK) {
		db_rollback(db);
		if (rc == LIBRARY_ERROR)
			goto dberr;
		goto out;
	}
	rc = LIBRARY_ERROR;
	if (old.exists && ((strcmp(p->type, "git") == 0 ? library_merge(p, url, &old,
	    &changed) : library_merge_settings(p, &old, &changed)) == -1 ||
	    library_merge_texts(p, &old, &changed) == -1)) {
		db_rollback(db);
		log_err("%s: the stored settings of %s cannot be read", __func__, id);
		snprintf(err, errsz, "the stored settings of %s cannot be read; the "
		    "responder log has the details", id);
		goto out;
	}
	if (old.exists && strcmp(p->type, "git") == 0 && library_versions_sync(db, p, id,
	    url, "", 0, now, &changed) == -1)
		goto dberr_rollback;
	if (changed.len > 0 && !admin && (user_id == 0 || user_id != old.created_by)) {
		db_rollback(db);
		snprintf(err, errsz, "changing the source settings of library %s (%s) needs "
		    "an admin or the user who added it; leave them out, or send the stored "
		    "values, to re-index it as it is", id, changed.p);
		rc = LIBRARY_FORBIDDEN;
		goto out;
	}
	if ((settings = strcmp(p->type, "git") == 0 ? gitsrc_settings_json(p) :
	    strdup(p->settings)) == NULL) {
		db_rollback(db);
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	v.url = url;
	v.type = p->type;
	v.branch = p->branch;
	v.settings = settings;
	v.title = p->title != NULL ? p->title : strrchr(id, '/') + 1;
	v.description = p->description != NULL ? p->description : "";
	if ((old.exists ? store_library_update(db, id, &v, now) : store_library_insert(db,
	    id, host, &v, user_id, user_id == 0 && !admin, now)) == -1 ||
	    jobs_enqueue(db, id, 0, job_id) == -1 || (strcmp(p->type, "git") == 0 &&
	    library_versions_sync(db, p, id, url, settings, user_id, now, NULL) == -1) ||
	    db_commit(db) == -1)
		goto dberr_rollback;
	rc = LIBRARY_OK;
	goto out;
dberr_rollback:
	db_rollback(db);
dberr:
	log_err("%s: %s", __func__, db_errmsg(db));
	snprintf(err, errsz, "the library could not be stored; the responder log has "
	    "the details");
out:
	store_library_release(&old);
	buf_release(&changed);
	free(settings);
	free(url);
	return rc;
}

/*
 * Inside the caller's transaction: LIBRARY_OK when user_id (0: anonymous or an operator
 * key), admin or not, may delete library id: an admin always; else never a GitOps-managed
 * library (the manifest removes it, with prune on); else the user who added it, or an
 * anonymous caller (the perm.anonymous_delete switch let it through) a library added
 * anonymously. LIBRARY_FORBIDDEN with err otherwise.
 */
static enum library_change
library_may_delete(const struct store_library *l, const char *id, long long user_id,
    int admin, char *err, size_t errsz)
{
	if (admin)
		return LIBRARY_OK;
	if (l->gitops) {
		snprintf(err, errsz, "library %s is managed by GitOps: it is removed by "
		    "leaving it out of the manifest (with prune on), or by an admin", id);
		return LIBRARY_FORBIDDEN;
	}
	if ((user_id != 0 && user_id == l->created_by) || (user_id == 0 &&
	    l->created_anonymously))
		return LIBRARY_OK;
	snprintf(err, errsz, "deleting library %s needs an admin or the %s who added it", id,
	    user_id == 0 ? "anonymous caller (it was not added anonymously)" : "user");
	return LIBRARY_FORBIDDEN;
}

enum library_change
library_queue(struct db *db, const char *id, int del, int force, long long user_id,
    int admin, long long *job_id, char *err, size_t errsz)
{
	struct store_library l;
	enum library_change may;
	long long	 pending;
	int		 rc;

	*job_id = 0;
	if (db_begin(db) == -1)
		goto dberr;
	if (store_library_load(db, id, &l) == -1) {
		db_rollback(db);
		goto dberr;
	}
	if (!l.exists) {
		db_rollback(db);
		snprintf(err, errsz, "library %s does not exist", id);
		return LIBRARY_NOT_FOUND;
	}
	may = del ? library_may_delete(&l, id, user_id, admin, err, errsz) : LIBRARY_OK;
	store_library_release(&l);
	if (may != LIBRARY_OK) {
		db_rollback(db);
		return may;
	}
	if (del)
		rc = jobs_enqueue_delete(db, id, job_id);
	else if ((rc = jobs_delete_pending(db, id, &pending)) == 1) {
		db_rollback(db);
		snprintf(err, errsz, "library %s is being deleted (job %lld); it cannot "
		    "be refreshed", id, pending);
		return LIBRARY_DELETING;
	} else if (rc == 0)
		rc = jobs_enqueue(db, id, force, job_id);
	if (rc == -1 || db_commit(db) == -1) {
		db_rollback(db);
		goto dberr;
	}
	return LIBRARY_OK;
dberr:
	log_err("%s: %s", __func__, db_errmsg(db));
	snprintf(err, errsz, "database error; the responder log has the details");
	return LIBRARY_ERROR;
}
