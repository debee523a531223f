/*
 * gitsrc.c: the git source back end (prefix gitsrc_: git_ is libgit2's). Clones or
 * fetches the repository into
 * DATA_DIR/repos/<host>/<owner>/<repo>.git (lib/sources/gitrepo.c), with the GitHub-type App's
 * installation token or the GitHub- or GitLab-type token of its host from the settings
 * (lib/sources/ghapp.c) (over plain http only to the hosts of
 * git.plain_http_hosts), every connection under the address policy of
 * fetch.allowed_networks; the documents are the files of the branch's commit, their
 * content hashes the blob ids, the set's version the commit.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "net/url.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/ghapp.h"
#include "sources/gitrepo.h"
#include "sources/gitsrc.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "sources/select.h"
#include "store/jobs.h"
#include "store/netpolicy.h"
#include "store/settings.h"

#define GITSRC_URL_MAX		2048	/* longest repoUrl */
#define GITSRC_BRANCH_MAX	255	/* longest branch name (git's own practical bound) */
#define GITSRC_LIST_MAX	100	/* entries in folders / excludeFolders / excludeFiles */
#define GITSRC_PATTERN_MAX	255	/* longest folder or file pattern */

/* The clone between fetch and release. */
struct gitsrc {
	struct gitrepo	*repo;
};

static int
gitsrc_validate(const char *settings, char *err, size_t errsz)
{
	struct select_rules rules;

	if (gitsrc_rules(settings, &rules) == -1) {
		snprintf(err, errsz, "the library's stored settings are unreadable");
		return -1;
	}
	select_rules_release(&rules);
	return 0;
}

/*
 * The web address pattern of a file on a host of no known layout into b: tmpl (the
 * setting git.web_url_template) with {repo} replaced by url without a trailing ".git" or
 * "/", else "<url>/{path}".
 */
static int
gitsrc_web_template(struct buf *b, const char *url, const char *tmpl)
{
	size_t		 ulen = strlen(url);
	const char	*p;

	if (ulen > 4 && strcmp(url + ulen - 4, ".git") == 0)
		ulen -= 4;
	while (ulen > 0 && url[ulen - 1] == '/')
		ulen--;
	if (tmpl == NULL || *tmpl == '\0')
		return buf_add(b, url, ulen) == -1 || buf_adds(b, "/{path}") == -1 ? -1 : 0;
	for (p = tmpl; *p != '\0';) {
		if (strncmp(p, "{repo}", 6) == 0) {
			if (buf_add(b, url, ulen) == -1)
				return -1;
			p += 6;
		} else if (buf_addc(b, *p++) == -1)
			return -1;
	}
	return 0;
}

/* Files of the commit into out, and what the web addresses of files start with. */
static int
gitsrc_list(struct gitrepo *g, const char *url, const char *kind, const char *tmpl,
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
	 * Where the host's layout is known (GitHub type /blob/, GitLab type /-/blob/) a
	 * file's web address is its blob at the commit; elsewhere the operator's pattern
	 * (git.web_url_template), else the repository URL and the path
	 * (format_source_of fills in a pattern's {commit} and {path}).
	 */
	if (strcmp(kind, "other") != 0) {
		if (buf_printf(&b, "%s%s", url,
		    strcmp(kind, "gitlab") == 0 ? "/-/blob/" : "/blob/") == -1)
			goto nomem;
	} else if (gitsrc_web_template(&b, url, tmpl) == -1)
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
	char		*tmpl = NULL;
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
	if ((dir = gitsrc_repo_dir(c->datadir, c->host, c->library_id)) == NULL) {
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
	/* A private repository under anonymous reads: readable by anyone from now on. */
	if (gitrepo_used_credentials(s->repo))
		backend_credentials_warning(c, "this repository is not public: it was read "
		    "with the instance's credentials (the git token or GitHub App of its host)",
		    "its documentation");
	tmpl = settings_get(c->db, c->datadir, "git.web_url_template");
	rc = gitsrc_list(s->repo, c->url, kind, tmpl, out, err, errsz);
out:
	free(tmpl);
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


/* A folder or file pattern: printable, no "..", no control characters. */
static int
gitsrc_valid_entry(const char *s)
{
	const unsigned char *p;
	long		 chars = validate_utf8_chars(s, strlen(s));

	if (chars < 1 || chars > GITSRC_PATTERN_MAX || strstr(s, "..") != NULL)
		return 0;
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			return 0;
	return 1;
}

static int
gitsrc_string_list(json_object *v, const char *name, char ***out, size_t *n, char *err,
    size_t errsz)
{
	size_t	 i, len;

	len = json_object_array_length(v);
	if (len > GITSRC_LIST_MAX) {
		snprintf(err, errsz, "'%s' has more than %d entries", name, GITSRC_LIST_MAX);
		return -1;
	}
	if (len == 0)
		return 0;
	if ((*out = calloc(len, sizeof(**out))) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	for (i = 0; i < len; i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string)) {
			snprintf(err, errsz, "'%s' must be a list of strings", name);
			return -1;
		}
		if (!gitsrc_valid_entry(json_object_get_string(e))) {
			snprintf(err, errsz, "'%s' entry %zu is empty, too long or "
			    "contains '..' or control characters", name, i + 1);
			return -1;
		}
		if (((*out)[i] = strdup(json_object_get_string(e))) == NULL) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		(*n)++;
	}
	return 0;
}

static int
gitsrc_valid_branch(const char *b)
{
	const unsigned char *p;

	if (strlen(b) > GITSRC_BRANCH_MAX || b[0] == '-' || b[0] == '/' ||
	    strstr(b, "..") != NULL || strstr(b, "//") != NULL ||
	    util_str_endswith(b, "/") || util_str_endswith(b, ".lock"))
		return 0;
	for (p = (const unsigned char *)b; *p != '\0'; p++)
		if (*p <= 0x20 || *p == 0x7f || strchr("~^:?*[\\", *p) != NULL)
			return 0;
	return 1;
}

/* validate.h check functions of the parse request's fields. */
static int
gitsrc_check_branch(const char *v, char *err, size_t errsz)
{
	if (gitsrc_valid_branch(v))
		return 0;
	snprintf(err, errsz, "is not a valid git branch name");
	return -1;
}

static int
gitsrc_check_entry(const char *v, char *err, size_t errsz)
{
	if (gitsrc_valid_entry(v))
		return 0;
	snprintf(err, errsz, "must not contain '..', '\\' or control characters");
	return -1;
}

/* A version: a branch or tag name that is also a library id segment (/owner/repo/<v>). */
static int
gitsrc_check_version(const char *v, char *err, size_t errsz)
{
	if (gitsrc_valid_branch(v) && libid_valid_segment(v, strlen(v)))
		return 0;
	snprintf(err, errsz, "must be a tag or branch name of letters, digits, '.', '-' "
	    "and '_'");
	return -1;
}

/* The declared fields of a parse request (POST /api/parse); anything else is refused. */
static const struct validate_field gitsrc_parse_fields[] = {
	{ .name = "repoUrl", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = GITSRC_URL_MAX, .label = "URL", .doc = "the repository's address" },
	{ .name = "branch", .type = VALIDATE_STRING, .max = GITSRC_BRANCH_MAX,
	    .check = gitsrc_check_branch, .label = "Branch",
	    .doc = "the branch to index (empty: the repository's default branch)" },
	{ .name = "folders", .type = VALIDATE_LIST, .max = GITSRC_LIST_MAX,
	    .elem_max = GITSRC_PATTERN_MAX, .check = gitsrc_check_entry, .label = "Folders",
	    .doc = "index only below these folders (empty: the whole tree)" },
	{ .name = "excludeFolders", .type = VALIDATE_LIST, .max = GITSRC_LIST_MAX,
	    .elem_max = GITSRC_PATTERN_MAX, .check = gitsrc_check_entry,
	    .label = "Exclude folders", .doc = "folders to skip, such as tests or vendor" },
	{ .name = "excludeFiles", .type = VALIDATE_LIST, .max = GITSRC_LIST_MAX,
	    .elem_max = GITSRC_PATTERN_MAX, .check = gitsrc_check_entry,
	    .label = "Exclude files",
	    .doc = "file names or globs to skip, such as CHANGELOG.md" },
	{ .name = "indexSourceCode", .type = VALIDATE_BOOL, .label = "Index source code",
	    .doc = "also index the documentation comments of source files, not only the "
	    "docs" },
	{ .name = "versions", .type = VALIDATE_LIST, .max = LIBRARY_VERSIONS_MAX,
	    .elem_max = GITSRC_BRANCH_MAX, .check = gitsrc_check_version,
	    .label = "Versions", .doc = "tags or branches to index besides the branch, each "
	    "its own version of the library (/owner/repo/<version>)" },
	{ .name = NULL }
};

static const struct validate_table gitsrc_parse_table = {
	.fields = gitsrc_parse_fields,
	.what = "field"
};

int
gitsrc_parse_request(const char *json, size_t len, struct parse_req *p, char *err,
    size_t errsz)
{
	json_object	*root;
	int		 rc;

	memset(p, 0, sizeof(*p));
	if ((root = validate_json(&gitsrc_parse_table, json, len, err, errsz)) == NULL)
		return -1;
	rc = gitsrc_parse_object(root, "repoUrl", 0, p, err, errsz);
	json_object_put(root);
	return rc;
}

int
gitsrc_parse_object(json_object *root, const char *url_name, int entry,
    struct parse_req *p, char *err, size_t errsz)
{
	json_object	*v;
	const char	*branch;

	memset(p, 0, sizeof(*p));
	p->type = "git";
	if (entry) {
		/* The common fields are entry_parse's; the git ones are checked here. */
		json_object_object_foreach(root, key, val) {
			(void)val;
			if (strcmp(key, "type") != 0 && strcmp(key, "url") != 0 &&
			    strcmp(key, "repoUrl") != 0 && strcmp(key, "title") != 0 &&
			    strcmp(key, "description") != 0 &&
			    validate_object_field(&gitsrc_parse_table, root, key, err,
			    errsz) == -1)
				return -1;
		}
	}
	if ((p->repo_url = strdup(validate_str(root, url_name))) == NULL)
		goto nomem;
	if (libid_from_url(p->repo_url, p->id, sizeof(p->id), p->host,
	    sizeof(p->host), err, errsz) == -1)
		goto fail;
	branch = validate_str(root, "branch");
	if ((p->branch = strdup(branch != NULL ? branch : "")) == NULL)
		goto nomem;
	p->given = (branch != NULL ? LIBRARY_GIVEN_BRANCH : 0) |
	    (validate_given(root, "folders") ? LIBRARY_GIVEN_FOLDERS : 0) |
	    (validate_given(root, "excludeFolders") ? LIBRARY_GIVEN_EXCLUDE_FOLDERS : 0) |
	    (validate_given(root, "excludeFiles") ? LIBRARY_GIVEN_EXCLUDE_FILES : 0) |
	    (validate_given(root, "indexSourceCode") ? LIBRARY_GIVEN_INDEX_SOURCE : 0);
	if (json_object_object_get_ex(root, "folders", &v) &&
	    json_object_is_type(v, json_type_array) &&
	    gitsrc_string_list(v, "folders", &p->rules.folders, &p->rules.nfolders,
	    err, errsz) == -1)
		goto fail;
	if (json_object_object_get_ex(root, "excludeFolders", &v) &&
	    json_object_is_type(v, json_type_array) &&
	    gitsrc_string_list(v, "excludeFolders", &p->rules.exclude_folders,
	    &p->rules.nexclude_folders, err, errsz) == -1)
		goto fail;
	if (json_object_object_get_ex(root, "excludeFiles", &v) &&
	    json_object_is_type(v, json_type_array) &&
	    gitsrc_string_list(v, "excludeFiles", &p->rules.exclude_files,
	    &p->rules.nexclude_files, err, errsz) == -1)
		goto fail;
	p->rules.index_source = validate_bool(root, "indexSourceCode", 0);
	if (json_object_object_get_ex(root, "versions", &v) &&
	    json_object_is_type(v, json_type_array)) {
		p->given |= LIBRARY_GIVEN_VERSIONS;
		if (gitsrc_string_list(v, "versions", &p->versions, &p->nversions, err,
		    errsz) == -1)
			goto fail;
	}
	return 0;
nomem:
	snprintf(err, errsz, "out of memory");
fail:
	backend_req_release(p);
	return -1;
}

static json_object *
gitsrc_json_list(char **v, size_t n)
{
	json_object	*a = json_object_new_array();
	size_t		 i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

char *
gitsrc_settings_json(const struct parse_req *p)
{
	json_object	*o = json_object_new_object();
	const struct select_rules *r = &p->rules;
	char		*ret;

	json_object_object_add(o, "folders", gitsrc_json_list(r->folders,
	    r->nfolders));
	json_object_object_add(o, "excludeFolders",
	    gitsrc_json_list(r->exclude_folders, r->nexclude_folders));
	json_object_object_add(o, "excludeFiles",
	    gitsrc_json_list(r->exclude_files, r->nexclude_files));
	json_object_object_add(o, "indexSourceCode",
	    json_object_new_boolean(r->index_source));
	ret = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ret;
}

/* A stored list setting (validated when it was stored). */
static int
gitsrc_rules_list(json_object *root, const char *name, char ***out, size_t *n)
{
	json_object	*v;
	char		 err[256];

	if (!json_object_object_get_ex(root, name, &v) ||
	    !json_object_is_type(v, json_type_array))
		return 0;
	if (gitsrc_string_list(v, name, out, n, err, sizeof(err)) == -1) {
		log_err("%s: stored setting %s: %s", __func__, name, err);
		return -1;
	}
	return 0;
}

int
gitsrc_rules(const char *json, struct select_rules *r)
{
	json_object	*root, *v;
	int		 rc = -1;

	memset(r, 0, sizeof(*r));
	if ((root = json_tokener_parse(json)) == NULL)
		return -1;
	if (gitsrc_rules_list(root, "folders", &r->folders, &r->nfolders) == -1 ||
	    gitsrc_rules_list(root, "excludeFolders", &r->exclude_folders,
	    &r->nexclude_folders) == -1 ||
	    gitsrc_rules_list(root, "excludeFiles", &r->exclude_files,
	    &r->nexclude_files) == -1)
		goto out;
	if (json_object_object_get_ex(root, "indexSourceCode", &v))
		r->index_source = json_object_get_boolean(v);
	rc = 0;
out:
	if (rc == -1)
		select_rules_release(r);
	json_object_put(root);
	return rc;
}

char *
gitsrc_repo_dir(const char *datadir, const char *host, const char *library_id)
{
	struct buf	 b;
	char		*p;

	/* host and id were validated when the library was added; check again. */
	if (*host == '\0' || strchr(host, '/') != NULL || strstr(host, "..") != NULL ||
	    library_id[0] != '/' || strstr(library_id, "..") != NULL) {
		log_err("%s: refusing library %s on host %s", __func__, library_id, host);
		return NULL;
	}
	buf_init(&b);
	if (buf_printf(&b, "%s/repos/%s%s.git", datadir, host, library_id) == -1) {
		buf_release(&b);
		return NULL;
	}
	for (p = b.p + strlen(datadir) + 7; *p != '\0'; p++)
		if (*p == ':')
			*p = '_';
	return buf_detach(&b);
}

static int
gitsrc_entry(struct parse_req *p, json_object *o, const struct url_parts *u,
    const char *url_name, char *err, size_t errsz)
{
	(void)u;
	return gitsrc_parse_object(o, url_name, 1, p, err, errsz);
}

const struct backend_ops backend_git = {
	.type = "git",
	.label = "Git repository",
	.about = "A repository on GitHub, GitLab or any git server; private ones use the "
	    "tokens in Settings.",
	.url_doc = "the repository's address, such as https://github.com/owner/repo",
	.policy_word = "git",
	.fields = gitsrc_parse_fields,
	.url_own = 1,
	.entry = gitsrc_entry,
	.version_noun = "commit",
	.select_files = 1,
	.validate = gitsrc_validate,
	.fetch = gitsrc_fetch,
	.load = gitsrc_load,
	.release = gitsrc_release,
	.forget = NULL,			/* the clone is removed by library_delete_run */
};
