/*
 * gitsrc.c: the git source back end (prefix gitsrc_: git_ is libgit2's). Clones or
 * fetches the repository into
 * DATA_DIR/repos/<host>/<owner>/<repo>.git (lib/gitrepo.c), with the GitHub-type App's
 * installation token or the GitHub- or GitLab-type token of its host from the settings
 * (lib/ghapp.c) (over plain http only to the hosts of
 * git.plain_http_hosts), every connection under the address policy of
 * fetch.allowed_networks; the documents are the files of the branch's commit, their
 * content hashes the blob ids, the set's version the commit.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ctxd.h"
#include "ghapp.h"
#include "sources/backend.h"

/* The clone between fetch and release. */
struct gitsrc {
	struct gitrepo	*repo;
};

static int
gitsrc_validate(const char *settings, char *err, size_t errsz)
{
	struct select_rules rules;

	if (library_settings_rules(settings, &rules) == -1) {
		snprintf(err, errsz, "the library's stored settings are unreadable");
		return -1;
	}
	library_rules_release(&rules);
	return 0;
}

int
gitsrc_host_credentials(struct sqlite3 *db, const char *datadir, const char *host,
    char **user, char **token, const char **kind)
{
	char	*gh = settings_get(db, datadir, "git.github.host");
	char	*gl = settings_get(db, datadir, "git.gitlab.host");

	*user = *token = NULL;
	*kind = "other";
	if (gh != NULL && strcmp(gh, host) == 0) {
		*kind = "github";
		*token = settings_get(db, datadir, "git.github.token");
		*user = strdup("x-access-token");
	} else if (gl != NULL && strcmp(gl, host) == 0) {
		*kind = "gitlab";
		*token = settings_get(db, datadir, "git.gitlab.token");
		*user = strdup("oauth2");
	}
	free(gh);
	free(gl);
	return *token != NULL && **token != '\0' ? 1 : 0;
}

/* Files of the commit into out, and what the web addresses of files start with. */
static int
gitsrc_list(struct gitrepo *g, const char *url, const char *kind,
    struct backend_set *out, char *err, size_t errsz)
{
	struct gitrepo_entry *ents = NULL;
	struct buf	 b;
	size_t		 n = 0, i;
	int		 rc = -1;

	buf_init(&b);
	if (gitrepo_list(g, &ents, &n, err, errsz) == -1)
		goto out;
	for (i = 0; i < n; i++)
		if (backend_set_add(out, ents[i].path, ents[i].oid, ents[i].size) == NULL)
			goto nomem;
	/*
	 * Web links exist only where the host's layout is known (GitHub type /blob/, GitLab
	 * type /-/blob/); elsewhere a source is the commit and the path, not a made-up link.
	 */
	if (strcmp(kind, "other") != 0 && buf_printf(&b, "%s%s", url,
	    strcmp(kind, "gitlab") == 0 ? "/-/blob/" : "/blob/") == -1)
		goto nomem;
	if ((out->label = strdup(gitrepo_branch(g))) == NULL)
		goto nomem;
	out->url_prefix = buf_detach(&b);
	snprintf(out->version, sizeof(out->version), "%s", gitrepo_commit(g));
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	buf_release(&b);
	gitrepo_list_free(ents, n);
	return rc;
}

static int
gitsrc_fetch(struct backend_ctx *c, struct backend_set *out, char *err, size_t errsz)
{
	struct gitrepo_limits lim;
	struct gitsrc	*s;
	char		*user = NULL, *token = NULL, *dir = NULL, *plain = NULL;
	char		 note[512];
	const char	*kind;
	int		 rc = -1;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	c->priv = s;
	jobs_log(c->db, c->job_id, "info", "fetching %s (branch %s)", c->url,
	    *c->branch ? c->branch : "default");
	/* The App's installation token on the GitHub-type host, else the personal one. */
	if (!ghapp_git_credentials(c->db, c->datadir, c->url, c->host, &user, &token,
	    &kind, note, sizeof(note)) && *note != '\0')
		jobs_log(c->db, c->job_id, "warning", "GitHub App: %s; using no token", note);
	else if (*note != '\0')
		jobs_log(c->db, c->job_id, "warning", "GitHub App: %s; using the personal "
		    "token git.github.token", note);
	if ((dir = library_repo_dir(c->datadir, c->host, c->library_id)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	lim.max_fetch_bytes = (size_t)c->max_fetch_mb * 1024 * 1024;
	lim.plain_http_hosts = plain = settings_get(c->db, c->datadir,
	    "git.plain_http_hosts");
	/* Deadlines of the attempt, within the job's: a silent or dripping server fails it. */
	gitrepo_limits_load(&lim, c->db, c->datadir);
	lim.deadline_ms = c->deadline_ms;
	/* Every connection of the clone is checked against fetch.allowed_networks. */
	netpolicy_load(c->db, c->datadir);
	if (gitrepo_sync(&s->repo, c->url, c->branch, dir, user, token, &lim, err,
	    errsz) == -1)
		goto out;
	jobs_log(c->db, c->job_id, "info", "branch %s is at commit %s",
	    gitrepo_branch(s->repo), gitrepo_commit(s->repo));
	rc = gitsrc_list(s->repo, c->url, kind, out, err, errsz);
out:
	if (token != NULL)
		explicit_bzero(token, strlen(token));
	free(token);
	free(user);
	free(dir);
	free(plain);
	return rc;
}

static int
gitsrc_load(struct backend_ctx *c, struct backend_doc *d, size_t max, char *err,
    size_t errsz)
{
	struct gitsrc	*s = c->priv;

	return gitrepo_read(s->repo, d->hash, max, &d->data, &d->len, err, errsz);
}

static void
gitsrc_release(struct backend_ctx *c)
{
	struct gitsrc	*s = c->priv;

	if (s != NULL) {
		gitrepo_free(s->repo);
		free(s);
	}
	c->priv = NULL;
}

const struct backend_ops backend_git = {
	"git",
	"commit",
	1,
	gitsrc_validate,
	gitsrc_fetch,
	gitsrc_load,
	gitsrc_release,
	NULL,			/* the clone is removed by library_delete_run */
};
