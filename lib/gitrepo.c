/* gitrepo.c: bare clones and fetches with libgit2, tree listing and blob reads. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "ctxd.h"

#define GITREPO_REMOTE	"origin"
#define GITREPO_REFSPEC	"+refs/heads/*:refs/remotes/origin/*"
#define GITREPO_MB	(1024 * 1024)

struct gitrepo {
	git_repository	*repo;
	char		 commit[GIT_OID_HEXSZ + 1];
	char		*branch;
};

/* State shared with the libgit2 callbacks of one clone or fetch. */
struct gitrepo_ctx {
	const char	*user;
	const char	*token;
	size_t		 max;		/* max_fetch_bytes, 0: unlimited */
	int		 ncred;		/* credential requests so far */
	int		 auth_failed;
	int		 too_big;
};

/*
 * Credentials callback: hands user/token over once. A second request means the server refused
 * them, and no token means there is nothing to offer: both end with GIT_EAUTH and a fresh error
 * text (libgit2 would otherwise report a misleading leftover).
 */
static int
gitrepo_cred_cb(git_credential **out, const char *url, const char *user_from_url,
    unsigned int allowed, void *payload)
{
	struct gitrepo_ctx	*c = payload;
	const char		*user;

	if (c->token == NULL || c->ncred++ > 0 ||
	    (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) == 0) {
		c->auth_failed = 1;
		git_error_set_str(GIT_ERROR_NET, "authentication failed");
		return GIT_EAUTH;
	}
	/* Hosts accept any user name with a token; GitHub documents this one. */
	if (c->user != NULL && *c->user != '\0')
		user = c->user;
	else if (user_from_url != NULL && *user_from_url != '\0')
		user = user_from_url;
	else
		user = "x-access-token";
	return git_credential_userpass_plaintext_new(out, user, c->token);
}

/* Aborts the transfer once more than the limit has come in. */
static int
gitrepo_progress_cb(const git_indexer_progress *st, void *payload)
{
	struct gitrepo_ctx	*c = payload;

	if (c->max > 0 && st->received_bytes > c->max) {
		c->too_big = 1;
		git_error_set_str(GIT_ERROR_CALLBACK, "transfer size limit reached");
		return -1;
	}
	return 0;
}

static void
gitrepo_callbacks(git_remote_callbacks *cb, struct gitrepo_ctx *c)
{
	cb->credentials = gitrepo_cred_cb;
	cb->transfer_progress = gitrepo_progress_cb;
	cb->payload = c;
}

/*
 * Host (and port) of a URL for messages, without any user information: "https://u@h:8/x"
 * gives "h:8", "git@h:o/r" gives "h", a local path is returned as it is.
 */
static void
gitrepo_host(const char *url, char *out, size_t outsz)
{
	const char	*s, *e, *at;
	size_t		 n;

	if ((s = strstr(url, "://")) != NULL) {
		s += 3;
		e = s + strcspn(s, "/?#");
	} else if ((e = strchr(url, ':')) != NULL && e > url &&
	    memchr(url, '/', (size_t)(e - url)) == NULL) {
		s = url;		/* scp-like user@host:path */
	} else {
		snprintf(out, outsz, "%s", url);
		return;
	}
	for (at = s; at < e; at++)
		if (*at == '@')
			s = at + 1;
	n = (size_t)(e - s);
	snprintf(out, outsz, "%.*s", (int)(n < 255 ? n : 255), s);
}

/* 1 when the URL carries a password or token ("https://user:secret@host/..."). */
static int
gitrepo_url_has_secret(const char *url)
{
	const char	*s, *e, *at;

	if ((s = strstr(url, "://")) == NULL)
		return 0;
	s += 3;
	e = s + strcspn(s, "/?#");
	for (at = e; at > s && at[-1] != '@'; at--)
		;
	return at > s && memchr(s, ':', (size_t)(at - s)) != NULL;
}

/* Copies msg to err with every occurrence of the token replaced by "***". */
static void
gitrepo_scrub(const char *msg, const char *token, char *err, size_t errsz)
{
	struct buf	 b;
	const char	*p;
	size_t		 tl;

	buf_init(&b);
	if (token == NULL || (tl = strlen(token)) == 0) {
		snprintf(err, errsz, "%s", msg);
		return;
	}
	while ((p = strstr(msg, token)) != NULL) {
		if (buf_add(&b, msg, (size_t)(p - msg)) == -1 ||
		    buf_adds(&b, "***") == -1)
			goto fail;
		msg = p + tl;
	}
	if (buf_adds(&b, msg) == -1)
		goto fail;
	snprintf(err, errsz, "%s", b.p);
	buf_release(&b);
	return;
fail:
	buf_release(&b);
	snprintf(err, errsz, "out of memory");
}

/*
 * Writes the user-facing message of a failed libgit2 call to err: size limit, authentication,
 * unreachable host, or libgit2's own text prefixed with what, all without the token. The
 * caller logs it.
 */
static void
gitrepo_fail(const struct gitrepo_ctx *c, int code, const char *url, const char *what,
    char *err, size_t errsz)
{
	const git_error	*e = git_error_last();
	const char	*msg = e != NULL && e->message != NULL ? e->message : "unknown error";
	char		 host[256], clean[512];

	gitrepo_host(url, host, sizeof(host));
	gitrepo_scrub(msg, c->token, clean, sizeof(clean));
	if (c->too_big) {
		if (c->max >= GITREPO_MB)
			snprintf(err, errsz, "repository is larger than the limit of %zu MB",
			    c->max / GITREPO_MB);
		else
			snprintf(err, errsz, "repository is larger than the limit of "
			    "%zu bytes", c->max);
	} else if (c->auth_failed || code == GIT_EAUTH ||
	    strstr(clean, "status code: 401") != NULL ||
	    strstr(clean, "authentication required") != NULL)
		snprintf(err, errsz, "authentication failed for %s: check the git token "
		    "in the settings", host);
	else if (strstr(clean, "status code: 404") != NULL)
		snprintf(err, errsz, "repository not found at %s (or the git token has "
		    "no access to it)", host);
	else if ((e != NULL && (e->klass == GIT_ERROR_NET || e->klass == GIT_ERROR_SSL ||
	    e->klass == GIT_ERROR_HTTP || e->klass == GIT_ERROR_SSH)) ||
	    strncmp(clean, "failed to connect", 17) == 0 ||
	    strncmp(clean, "failed to resolve", 17) == 0)
		snprintf(err, errsz, "could not reach %s: %s", host, clean);
	else
		snprintf(err, errsz, "%s: %s", what, clean);
}

/* 1 when dir exists and holds nothing, 0 otherwise. */
static int
gitrepo_dir_empty(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	int		 empty = 1;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/* nftw() has no payload: the folder to remove as well (single-threaded use). */
static const char *gitrepo_rm_root;

static int
gitrepo_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (ftw->level == 0 && gitrepo_rm_root == NULL)
		return 0;		/* keep a folder that was there before */
	if (remove(path) == -1)
		log_warn("gitrepo_rm: %s: %s", path, strerror(errno));
	return 0;
}

/* Removes what a failed first clone left in dir, and dir itself when we created it. */
static void
gitrepo_rm(const char *dir, int created)
{
	gitrepo_rm_root = created ? dir : NULL;
	nftw(dir, gitrepo_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	gitrepo_rm_root = NULL;
}

/* "refs/heads/x" -> malloc'd "x"; NULL for anything else. */
static char *
gitrepo_short_head(const char *ref)
{
	if (ref == NULL || strncmp(ref, "refs/heads/", 11) != 0 || ref[11] == '\0')
		return NULL;
	return strdup(ref + 11);
}

/* Branch that refs/remotes/origin/HEAD points to (recorded by an earlier sync), or NULL. */
static char *
gitrepo_origin_head(git_repository *repo)
{
	git_reference	*ref = NULL;
	const char	*t, *pfx = "refs/remotes/" GITREPO_REMOTE "/";
	char		*r = NULL;

	if (git_reference_lookup(&ref, repo, "refs/remotes/" GITREPO_REMOTE "/HEAD") != 0) {
		git_error_clear();
		return NULL;
	}
	if (git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC &&
	    (t = git_reference_symbolic_target(ref)) != NULL &&
	    strncmp(t, pfx, strlen(pfx)) == 0 && t[strlen(pfx)] != '\0')
		r = strdup(t + strlen(pfx));
	git_reference_free(ref);
	return r;
}

/* Points refs/remotes/origin/HEAD at the remote's default branch, as git clone does. */
static void
gitrepo_set_origin_head(git_repository *repo, const char *b)
{
	git_reference	*ref = NULL;
	struct buf	 t;

	buf_init(&t);
	if (buf_printf(&t, "refs/remotes/" GITREPO_REMOTE "/%s", b) == 0 &&
	    git_reference_symbolic_create(&ref, repo, "refs/remotes/" GITREPO_REMOTE
	    "/HEAD", t.p, 1, "sync: default branch") != 0) {
		log_warn("%s: %s", __func__, git_error_last() != NULL ?
		    git_error_last()->message : "unknown error");
		git_error_clear();
	}
	git_reference_free(ref);
	buf_release(&t);
}

/* Resolves refs/remotes/origin/<b>, which every sync updates, to a commit; -1 if absent. */
static int
gitrepo_resolve(git_repository *repo, const char *b, git_oid *oid)
{
	git_reference	*ref = NULL;
	git_object	*obj = NULL;
	struct buf	 name;
	int		 valid, rc = -1;

	buf_init(&name);
	if (strncmp(b, "refs/heads/", 11) == 0)
		b += 11;
	if (buf_printf(&name, "refs/remotes/" GITREPO_REMOTE "/%s", b) == -1 ||
	    git_reference_name_is_valid(&valid, name.p) != 0 || !valid ||
	    strcmp(b, "HEAD") == 0)
		goto out;
	if (git_reference_lookup(&ref, repo, name.p) != 0 ||
	    git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) != 0)
		goto out;
	git_oid_cpy(oid, git_object_id(obj));
	rc = 0;
out:
	if (rc == -1)
		git_error_clear();
	git_object_free(obj);
	git_reference_free(ref);
	buf_release(&name);
	return rc;
}

/*
 * Records url as origin in the clone's config, for people who look into it with git. The
 * fetch itself goes through an in-memory remote: libgit2 1.5.1 (Debian 12) leaks memory in
 * git_remote_lookup/git_remote_create, whose config regex search never frees its PCRE2
 * match data (fixed upstream by libgit2 pull request 6382).
 */
static int
gitrepo_config_origin(git_repository *repo, const char *url, struct gitrepo_ctx *c,
    char *err, size_t errsz)
{
	git_config	*cfg = NULL;
	git_buf		 cur = { NULL, 0, 0 };
	int		 code, rc = -1;

	if ((code = git_repository_config(&cfg, repo)) != 0)
		goto fail;
	if (git_config_get_string_buf(&cur, cfg, "remote." GITREPO_REMOTE ".url") == 0 &&
	    strcmp(cur.ptr, url) == 0) {
		rc = 0;
		goto out;
	}
	git_error_clear();
	if ((code = git_config_set_string(cfg, "remote." GITREPO_REMOTE ".url", url)) != 0 ||
	    (code = git_config_set_string(cfg, "remote." GITREPO_REMOTE ".fetch",
	    GITREPO_REFSPEC)) != 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	gitrepo_fail(c, code, url, "cannot write the clone's configuration", err, errsz);
out:
	git_buf_dispose(&cur);
	git_config_free(cfg);
	return rc;
}

/*
 * Fetches every branch of url into refs/remotes/origin/ (all of refs/heads) and prunes
 * deleted ones; *defbranch gets the remote's default branch when the server tells it.
 */
static int
gitrepo_fetch(git_repository *repo, const char *url, struct gitrepo_ctx *c,
    char **defbranch, char *err, size_t errsz)
{
	git_remote		*remote = NULL;
	git_remote_create_options ropts;
	git_fetch_options	 opts;
	git_buf			 def = { NULL, 0, 0 };
	char			*spec[] = { GITREPO_REFSPEC };
	git_strarray		 refspecs = { spec, 1 };
	int			 code, rc = -1;

	*defbranch = NULL;
	/*
	 * An in-memory remote that ignores url.*.insteadOf: the URL fetched is exactly
	 * the configured one (and libgit2 1.5.1 leaks in that config regex search).
	 */
	if ((code = git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION)) != 0 ||
	    (code = git_remote_create_options_init(&ropts,
	    GIT_REMOTE_CREATE_OPTIONS_VERSION)) != 0) {
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	ropts.repository = repo;
	ropts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
	    GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if ((code = git_remote_create_with_opts(&remote, url, &ropts)) != 0) {
		remote = NULL;
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	opts.prune = GIT_FETCH_PRUNE;
	opts.update_fetchhead = 0;
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	gitrepo_callbacks(&opts.callbacks, c);
	if ((code = git_remote_connect(remote, GIT_DIRECTION_FETCH, &opts.callbacks,
	    NULL, NULL)) != 0) {
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	if (git_remote_default_branch(&def, remote) == 0)
		*defbranch = gitrepo_short_head(def.ptr);
	git_buf_dispose(&def);
	git_error_clear();
	/* The fetch may open a new connection that asks once more. */
	c->ncred = 0;
	if ((code = git_remote_fetch(remote, &refspecs, &opts, "sync")) != 0) {
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	rc = 0;
out:
	git_remote_free(remote);
	return rc;
}

int
gitrepo_sync(struct gitrepo **out, const char *url, const char *branch,
    const char *dir, const char *user, const char *token,
    const struct gitrepo_limits *limits, char *err, size_t errsz)
{
	struct gitrepo			*g = NULL;
	struct gitrepo_ctx		 c;
	git_repository_init_options	 iopts;
	struct stat			 st;
	git_oid				 oid;
	char				*want = NULL, *defbranch = NULL, *headbranch = NULL;
	const char			*cands[4];
	size_t				 i;
	int				 exists = 1, fresh = 0, code, rc = -1;

	*out = NULL;
	if (errsz > 0)
		err[0] = '\0';
	memset(&c, 0, sizeof(c));
	c.user = user;
	c.token = token != NULL && *token != '\0' ? token : NULL;
	c.max = limits != NULL ? limits->max_fetch_bytes : 0;
	if (git_libgit2_init() < 0) {
		snprintf(err, errsz, "cannot initialise libgit2");
		log_err("%s: %s", __func__, err);
		return -1;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL) {
		snprintf(err, errsz, "out of memory");
		log_err("%s: %s", __func__, err);
		git_libgit2_shutdown();
		return -1;
	}
	if (url == NULL || *url == '\0' || gitrepo_url_has_secret(url)) {
		snprintf(err, errsz, "the repository URL must be set and must not carry "
		    "a password or token (use the git token in the settings)");
		goto out;
	}

	if (stat(dir, &st) == -1) {
		if (errno != ENOENT) {
			snprintf(err, errsz, "cannot access the clone folder: %s",
			    strerror(errno));
			goto out;
		}
		exists = 0;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errsz, "the clone folder is not a directory");
		goto out;
	}
	if (!exists || gitrepo_dir_empty(dir)) {
		/* First sync: a bare repository, no working tree. */
		fresh = 1;
		if ((code = git_repository_init_options_init(&iopts,
		    GIT_REPOSITORY_INIT_OPTIONS_VERSION)) == 0) {
			iopts.flags = GIT_REPOSITORY_INIT_BARE |
			    GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
			code = git_repository_init_ext(&g->repo, dir, &iopts);
		}
		if (code != 0) {
			g->repo = NULL;
			gitrepo_fail(&c, code, dir, "cannot create the local clone", err,
			    errsz);
			goto out;
		}
	} else if ((code = git_repository_open_bare(&g->repo, dir)) != 0) {
		g->repo = NULL;
		gitrepo_fail(&c, code, dir, "cannot open the local clone", err, errsz);
		goto out;
	}
	if (gitrepo_config_origin(g->repo, url, &c, err, errsz) == -1 ||
	    gitrepo_fetch(g->repo, url, &c, &defbranch, err, errsz) == -1)
		goto out;
	fresh = 0;	/* a good first clone stays, even if the branch is wrong */
	if (defbranch != NULL)
		gitrepo_set_origin_head(g->repo, defbranch);

	if (branch != NULL && *branch != '\0') {
		if (gitrepo_resolve(g->repo, branch, &oid) == -1) {
			snprintf(err, errsz, "branch '%s' not found in the repository",
			    branch);
			goto out;
		}
		want = strdup(branch);
	} else {
		/*
		 * The server's word, then what an earlier sync recorded, then the usual
		 * names.
		 */
		headbranch = gitrepo_origin_head(g->repo);
		cands[0] = defbranch;
		cands[1] = headbranch;
		cands[2] = "main";
		cands[3] = "master";
		for (i = 0; i < 4; i++)
			if (cands[i] != NULL && gitrepo_resolve(g->repo, cands[i], &oid) == 0)
				break;
		if (i == 4) {
			snprintf(err, errsz, "cannot find the default branch of the "
			    "repository (is it empty?)");
			goto out;
		}
		want = strdup(cands[i]);
	}
	if (want == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	g->branch = want;
	git_oid_tostr(g->commit, sizeof(g->commit), &oid);
	*out = g;
	g = NULL;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, dir, err);
	if (fresh) {
		/* The first clone failed: leave no half-made repository behind. */
		git_repository_free(g->repo);
		g->repo = NULL;
		gitrepo_rm(dir, !exists);
	}
	free(defbranch);
	free(headbranch);
	gitrepo_free(g);
	return rc;
}

const char *
gitrepo_commit(const struct gitrepo *g)
{
	return g->commit;
}

const char *
gitrepo_branch(const struct gitrepo *g)
{
	return g->branch;
}

struct gitrepo_walk {
	git_odb			*odb;
	struct gitrepo_entry	*v;
	size_t			 n;
	size_t			 cap;
	int			 failed;
};

/* git_tree_walk callback: records regular and executable blobs with their size. */
static int
gitrepo_walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct gitrepo_walk	*w = payload;
	struct gitrepo_entry	*e, *nv;
	git_filemode_t		 mode = git_tree_entry_filemode(te);
	git_object_t		 type;
	struct buf		 path;
	size_t			 size, ncap;

	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;	/* trees: descend; links, submodules: skip */
	if (git_odb_read_header(&size, &type, w->odb, git_tree_entry_id(te)) != 0) {
		w->failed = 1;
		return -1;
	}
	if (w->n == w->cap) {
		ncap = w->cap ? w->cap * 2 : 256;
		if ((nv = reallocarray(w->v, ncap, sizeof(*nv))) == NULL)
			goto nomem;
		w->v = nv;
		w->cap = ncap;
	}
	buf_init(&path);
	if (buf_adds(&path, root) == -1 || buf_adds(&path, git_tree_entry_name(te)) == -1) {
		buf_release(&path);
		goto nomem;
	}
	e = &w->v[w->n++];
	e->path = buf_detach(&path);
	git_oid_tostr(e->oid, sizeof(e->oid), git_tree_entry_id(te));
	e->size = size;
	return 0;
nomem:
	git_error_set_oom();
	w->failed = 1;
	return -1;
}

int
gitrepo_list(struct gitrepo *g, struct gitrepo_entry **out, size_t *n,
    char *err, size_t errsz)
{
	struct gitrepo_walk	 w;
	git_oid			 oid;
	git_commit		*commit = NULL;
	git_tree		*tree = NULL;
	const git_error		*e;
	int			 rc = -1;

	*out = NULL;
	*n = 0;
	memset(&w, 0, sizeof(w));
	if (git_oid_fromstr(&oid, g->commit) != 0 ||
	    git_commit_lookup(&commit, g->repo, &oid) != 0 ||
	    git_commit_tree(&tree, commit) != 0 ||
	    git_repository_odb(&w.odb, g->repo) != 0 ||
	    git_tree_walk(tree, GIT_TREEWALK_PRE, gitrepo_walk_cb, &w) != 0) {
		e = git_error_last();
		snprintf(err, errsz, "cannot list the files of commit %s: %s", g->commit,
		    e != NULL && e->message != NULL ? e->message : "unknown error");
		log_err("%s: %s", __func__, err);
		gitrepo_list_free(w.v, w.n);
		goto out;
	}
	*out = w.v;
	*n = w.n;
	rc = 0;
out:
	git_odb_free(w.odb);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

void
gitrepo_list_free(struct gitrepo_entry *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

int
gitrepo_read(struct gitrepo *g, const char *oidhex, size_t max, char **data,
    size_t *len, char *err, size_t errsz)
{
	git_oid		 oid;
	git_odb		*odb = NULL;
	git_blob	*blob = NULL;
	git_object_t	 type;
	const git_error	*e;
	size_t		 size;
	char		*p;
	int		 rc = -1;

	*data = NULL;
	*len = 0;
	if (git_oid_fromstr(&oid, oidhex) != 0 ||
	    git_repository_odb(&odb, g->repo) != 0 ||
	    git_odb_read_header(&size, &type, odb, &oid) != 0) {
		e = git_error_last();
		snprintf(err, errsz, "cannot read object %s: %s", oidhex,
		    e != NULL && e->message != NULL ? e->message : "unknown error");
		goto out;
	}
	if (type != GIT_OBJECT_BLOB) {
		snprintf(err, errsz, "object %s is not a file", oidhex);
		goto out;
	}
	if (size > max) {
		snprintf(err, errsz, "file is larger than the limit of %zu bytes", max);
		goto out;
	}
	if (git_blob_lookup(&blob, g->repo, &oid) != 0) {
		e = git_error_last();
		snprintf(err, errsz, "cannot read object %s: %s", oidhex,
		    e != NULL && e->message != NULL ? e->message : "unknown error");
		goto out;
	}
	size = (size_t)git_blob_rawsize(blob);
	if ((p = malloc(size + 1)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	memcpy(p, git_blob_rawcontent(blob), size);
	p[size] = '\0';
	*data = p;
	*len = size;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, err);
	git_blob_free(blob);
	git_odb_free(odb);
	return rc;
}

void
gitrepo_free(struct gitrepo *g)
{
	if (g == NULL)
		return;
	git_repository_free(g->repo);
	free(g->branch);
	free(g);
	git_libgit2_shutdown();
}
