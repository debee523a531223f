/*
 * adminapi.c: the admin and dashboard JSON API of ctxd-web: settings (secrets write-only),
 * the setup wizard, libraries (list, detail, refresh, delete), jobs (list, status, log,
 * cancel), the support bundle, health and readiness. JSON in and out, every input checked
 * against a declared table; errors are {"error": ...} with their status.
 */
#include "config.h"

#include <sys/statvfs.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <json.h>
#include <sqlite3.h>

#include "ctxd.h"
#include "http.h"
#include "adminapi.h"

#define ADMINAPI_BODY_MAX	(64 * 1024)		/* largest JSON body */
#define ADMINAPI_DISK_MIN	(100LL * 1024 * 1024)	/* health: least free space */
#define ADMINAPI_SEGMENT_MAX	200			/* owner or repo in a path */
#define ADMINAPI_BUNDLE_JOBS	50			/* jobs in the support bundle */
#define ADMINAPI_BUNDLE_LINES	200			/* log lines per job there */

#define JSON_FLAGS	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ------------------------------------------------------------------ request helpers */

int
adminapi_under(const char *path, const char *prefix)
{
	size_t	 n = strlen(prefix);

	return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void
adminapi_send(struct http_req *r, int status, json_object *o)
{
	if (o == NULL) {
		http_error(r, 500, "out of memory");
		return;
	}
	http_json(r, status, json_object_to_json_string_ext(o, JSON_FLAGS));
	json_object_put(o);
}

/* Answers 405 with an Allow header unless the method is one of allow ("GET, DELETE"). */
static int
adminapi_method(struct http_req *r, const char *allow)
{
	const char	*p = allow;
	size_t		 n = strlen(r->method);
	char		 hdr[128];

	for (;;) {
		if (n > 0 && strncmp(p, r->method, n) == 0 &&
		    (p[n] == '\0' || p[n] == ','))
			return 0;
		if ((p = strchr(p, ',')) == NULL)
			break;
		p += 2;
	}
	snprintf(hdr, sizeof(hdr), "Allow: %s\r\n", allow);
	http_error_hdr(r, 405, hdr, "%s accepts only %s", r->path, allow);
	return -1;
}

static adminapi_gate	 adminapi_gate_fn;
static void		*adminapi_gate_ctx;

void
adminapi_set_gate(adminapi_gate fn, void *ctx)
{
	adminapi_gate_fn = fn;
	adminapi_gate_ctx = ctx;
}

/* Calls the gate set by the responder (adminapi.h); db is unused, kept for the call sites. */
static int
adminapi_permit(struct http_req *r, sqlite3 *db, const char *anon_setting,
    const char *what)
{
	(void)db;
	if (adminapi_gate_fn == NULL) {
		log_err("%s: no authorization gate set", __func__);
		http_error(r, 500, "%s: the server has no authorization check", what);
		return -1;
	}
	return adminapi_gate_fn(r, adminapi_gate_ctx, anon_setting, what);
}

/* Refuses (400) a query parameter whose name is not in names (NULL-terminated). */
static int
adminapi_params(struct http_req *r, const char *const *names)
{
	size_t	 i, k;

	for (i = 0; i < r->nparams; i++) {
		for (k = 0; names[k] != NULL; k++)
			if (strcmp(r->params[i].name, names[k]) == 0)
				break;
		if (names[k] == NULL) {
			http_error(r, 400, "unknown parameter '%.64s'",
			    r->params[i].name);
			return -1;
		}
	}
	return 0;
}

/* A whole-number parameter in [min, max] (dflt when absent); answers 400 when bad. */
static int
adminapi_param_long(struct http_req *r, const char *name, long min, long max,
    long dflt, long *out)
{
	const char	*v = http_param(r, name);

	*out = dflt;
	if (v == NULL)
		return 0;
	if (util_parse_long(v, min, max, out) == -1) {
		http_error(r, 400, "'%s' must be a whole number from %ld to %ld", name,
		    min, max);
		return -1;
	}
	return 0;
}

/* A parameter that must be one of choices (NULL-terminated); *out NULL when absent. */
static int
adminapi_param_choice(struct http_req *r, const char *name, const char *const *choices,
    const char **out)
{
	const char	*v = http_param(r, name);
	size_t		 i;

	*out = v;
	if (v == NULL)
		return 0;
	for (i = 0; choices[i] != NULL; i++)
		if (strcmp(v, choices[i]) == 0)
			return 0;
	http_error(r, 400, "'%s' must be one of the documented values (%s, ...)", name,
	    choices[0]);
	return -1;
}

/* Reads a JSON object body; answers 415/413/400 and returns NULL when it is not one. */
static json_object *
adminapi_body(struct http_req *r)
{
	json_tokener	*tok;
	json_object	*root;
	enum json_tokener_error jerr;

	if (r->content_type == NULL ||
	    strncasecmp(r->content_type, "application/json", 16) != 0 ||
	    (r->content_type[16] != '\0' && r->content_type[16] != ';')) {
		http_error(r, 415, "Content-Type must be application/json");
		return NULL;
	}
	if (http_read_body(r, ADMINAPI_BODY_MAX) == -1)
		return NULL;
	if ((tok = json_tokener_new()) == NULL) {
		http_error(r, 500, "out of memory");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, r->body, (int)r->body_len);
	jerr = json_tokener_get_error(tok);
	if (root == NULL || jerr != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != r->body_len) {
		http_error(r, 400, "request body is not valid JSON: %s",
		    jerr != json_tokener_success ? json_tokener_error_desc(jerr) :
		    "trailing characters after the object");
		json_object_put(root);
		root = NULL;
	} else if (!json_object_is_type(root, json_type_object)) {
		http_error(r, 400, "request body must be a JSON object");
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	return root;
}

static json_object *
adminapi_col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t != NULL ? json_object_new_string((const char *)t) : NULL;
}

static void
adminapi_dberr(struct http_req *r, sqlite3 *db, const char *func)
{
	log_err("%s: %s", func, sqlite3_errmsg(db));
	http_error(r, 500, "database error; the responder log has the details");
}

/* ------------------------------------------------------------------ settings */

static int
adminapi_desc(const char *name, struct settings_desc *d)
{
	size_t	 i;

	for (i = 0; settings_describe(i, d) == 0; i++)
		if (strcmp(d->name, name) == 0)
			return 0;
	return -1;
}

static json_object *
adminapi_typed(const struct settings_desc *d, const char *v)
{
	long	 n;

	if (v == NULL)
		return NULL;
	if (strcmp(d->kind, "bool") == 0)
		return json_object_new_boolean(strcmp(v, "true") == 0);
	if (strcmp(d->kind, "number") == 0 &&
	    util_parse_long(v, LONG_MIN, LONG_MAX, &n) == 0)
		return json_object_new_int64(n);
	return json_object_new_string(v);
}

/* One setting as the API shows it: a secret says only whether it is set. */
static json_object *
adminapi_setting_json(sqlite3 *db, const struct settings_desc *d)
{
	json_object	*o = json_object_new_object(), *a;
	const char	*p, *bar;
	char		*v;

	json_object_object_add(o, "type", json_object_new_string(d->kind));
	json_object_object_add(o, "help", json_object_new_string(d->help));
	if (d->secret) {
		json_object_object_add(o, "secret", json_object_new_boolean(1));
		json_object_object_add(o, "set",
		    json_object_new_boolean(settings_is_set(db, d->name)));
		return o;
	}
	v = settings_get(db, util_data_dir(), d->name);
	json_object_object_add(o, "value", adminapi_typed(d, v));
	free(v);
	json_object_object_add(o, "default", adminapi_typed(d, d->dflt));
	json_object_object_add(o, "isDefault",
	    json_object_new_boolean(!settings_is_set(db, d->name)));
	if (d->choices != NULL) {
		a = json_object_new_array();
		for (p = d->choices; ; p = bar + 1) {
			bar = strchr(p, '|');
			json_object_array_add(a, json_object_new_string_len(p,
			    bar != NULL ? (int)(bar - p) : (int)strlen(p)));
			if (bar == NULL)
				break;
		}
		json_object_object_add(o, "choices", a);
	}
	if (strcmp(d->kind, "number") == 0) {
		json_object_object_add(o, "min", json_object_new_int64(d->min));
		json_object_object_add(o, "max", json_object_new_int64(d->max));
	}
	return o;
}

/* {name: setting, ...} for every setting, or only those in names (NULL-terminated). */
static json_object *
adminapi_settings_json(sqlite3 *db, const char *const *names)
{
	struct settings_desc d;
	json_object	*o = json_object_new_object();
	size_t		 i, k;

	for (i = 0; settings_describe(i, &d) == 0; i++) {
		if (names != NULL) {
			for (k = 0; names[k] != NULL; k++)
				if (strcmp(names[k], d.name) == 0)
					break;
			if (names[k] == NULL)
				continue;
		}
		json_object_object_add(o, d.name, adminapi_setting_json(db, &d));
	}
	return o;
}

/*
 * The settings writer, inside the caller's transaction: o is {name: value, ...}; a value
 * is a string, true/false for a bool setting, a whole number for a number setting, or ""
 * or null to reset the setting to its default (a secret is cleared). allowed
 * (NULL-terminated, NULL: any) limits the names. Each value is validated by settings_set.
 * Returns 0, or the HTTP status to answer with the message in err.
 */
static int
adminapi_settings_apply(sqlite3 *db, json_object *o, const char *const *allowed,
    char *err, size_t errsz)
{
	struct settings_desc d;
	const char	*v;
	char		 num[32], e[512];
	size_t		 k;

	if (json_object_object_length(o) == 0) {
		snprintf(err, errsz, "the body names no setting");
		return 400;
	}
	json_object_object_foreach(o, key, val) {
		if (adminapi_desc(key, &d) == -1) {
			snprintf(err, errsz, "unknown setting '%.64s'", key);
			return 400;
		}
		if (allowed != NULL) {
			for (k = 0; allowed[k] != NULL; k++)
				if (strcmp(allowed[k], key) == 0)
					break;
			if (allowed[k] == NULL) {
				snprintf(err, errsz, "setting '%s' does not belong "
				    "to this step", key);
				return 400;
			}
		}
		v = NULL;
		switch (json_object_get_type(val)) {
		case json_type_null:
			break;
		case json_type_string:
			v = json_object_get_string(val);
			break;
		case json_type_boolean:
			if (strcmp(d.kind, "bool") == 0) {
				v = json_object_get_boolean(val) ? "true" : "false";
				break;
			}
			snprintf(err, errsz, "'%s' must be a string", key);
			return 400;
		case json_type_int:
			if (strcmp(d.kind, "number") == 0) {
				snprintf(num, sizeof(num), "%lld", (long long)
				    json_object_get_int64(val));
				v = num;
				break;
			}
			/* FALLTHROUGH */
		default:
			snprintf(err, errsz, "'%s' must be a string%s or null", key,
			    strcmp(d.kind, "bool") == 0 ? ", true, false" :
			    strcmp(d.kind, "number") == 0 ? ", a whole number" : "");
			return 400;
		}
		if (v == NULL || *v == '\0') {
			if (settings_unset(db, key) == -1) {
				snprintf(err, errsz, "database error");
				return 500;
			}
		} else if (settings_set(db, util_data_dir(), key, v, e, sizeof(e)) ==
		    -1) {
			snprintf(err, errsz, "%s", e);
			return 400;
		}
	}
	return 0;
}

void
adminapi_settings(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { NULL };
	json_object	*body = NULL, *o;
	char		 err[600];
	int		 st;

	if (strcmp(r->path, "/api/settings") != 0) {
		http_error(r, 404, "no such endpoint: %s", r->path);
		return;
	}
	if (adminapi_method(r, "GET, PUT, PATCH") == -1 ||
	    adminapi_permit(r, db, NULL, "reading or changing the settings") == -1 ||
	    adminapi_params(r, params) == -1)
		return;
	if (strcmp(r->method, "GET") != 0) {
		if ((body = adminapi_body(r)) == NULL)
			return;
		if (db_begin(db) == -1) {
			adminapi_dberr(r, db, __func__);
			goto out;
		}
		if ((st = adminapi_settings_apply(db, body, NULL, err, sizeof(err))) !=
		    0) {
			db_rollback(db);
			http_error(r, st, "%s", err);
			goto out;
		}
		if (db_commit(db) == -1) {
			db_rollback(db);
			adminapi_dberr(r, db, __func__);
			goto out;
		}
	}
	o = json_object_new_object();
	json_object_object_add(o, "settings", adminapi_settings_json(db, NULL));
	adminapi_send(r, 200, o);
out:
	json_object_put(body);
}

/* ------------------------------------------------------------------ setup wizard */

static const char *const adminapi_step_ai[] = { "ai.llm.provider", "ai.llm.api_key",
	"ai.llm.model", "ai.llm.region", "ai.llm.base_url", NULL };
static const char *const adminapi_step_embed[] = { "ai.embed.provider",
	"ai.embed.api_key", "ai.embed.model", "ai.embed.base_url", NULL };
static const char *const adminapi_step_git[] = { "git.github.token", "git.github.host",
	"git.gitlab.token", "git.gitlab.host", NULL };

static const struct adminapi_step {
	const char		*name;		/* path segment */
	const char		*title;
	const char		*state;		/* setting holding pending|done|skipped */
	const char *const	*settings;	/* what the step saves */
} adminapi_steps[] = {
	{ "ai-provider", "AI provider", "setup.ai_provider", adminapi_step_ai },
	{ "embedding", "Embedding provider", "setup.embedding", adminapi_step_embed },
	{ "git-tokens", "Git tokens", "setup.git_tokens", adminapi_step_git },
};
#define ADMINAPI_NSTEPS	(sizeof(adminapi_steps) / sizeof(adminapi_steps[0]))

/* 1 when a setting has a non-empty value (stored or default). */
static int
adminapi_has_value(sqlite3 *db, const char *name)
{
	char	*v = settings_get(db, util_data_dir(), name);
	int	 has = v != NULL && *v != '\0';

	if (v != NULL)
		explicit_bzero(v, strlen(v));
	free(v);
	return has;
}

/* What a saved step must leave configured; 0 or 400 with err. */
static int
adminapi_step_check(sqlite3 *db, const struct adminapi_step *s, char *err, size_t errsz)
{
	char	*p;
	int	 same;

	if (s->settings == adminapi_step_ai && !adminapi_has_value(db, "ai.llm.provider")) {
		snprintf(err, errsz, "ai.llm.provider must be set to save this step "
		    "(or skip it)");
		return 400;
	}
	if (s->settings == adminapi_step_embed) {
		p = settings_get(db, util_data_dir(), "ai.embed.provider");
		same = p == NULL || strcmp(p, "same") == 0;
		free(p);
		if (same && !adminapi_has_value(db, "ai.llm.provider")) {
			snprintf(err, errsz, "ai.embed.provider 'same' needs an AI "
			    "provider (step ai-provider); choose one or skip this "
			    "step");
			return 400;
		}
	}
	if (s->settings == adminapi_step_git && !settings_is_set(db, "git.github.token") &&
	    !settings_is_set(db, "git.gitlab.token")) {
		snprintf(err, errsz, "set git.github.token or git.gitlab.token to save "
		    "this step (or skip it)");
		return 400;
	}
	return 0;
}

static json_object *
adminapi_step_json(sqlite3 *db, const struct adminapi_step *s)
{
	json_object	*o = json_object_new_object();
	char		*state = settings_get(db, util_data_dir(), s->state);

	json_object_object_add(o, "step", json_object_new_string(s->name));
	json_object_object_add(o, "title", json_object_new_string(s->title));
	json_object_object_add(o, "state", json_object_new_string(state != NULL ?
	    state : "pending"));
	json_object_object_add(o, "settings", adminapi_settings_json(db, s->settings));
	free(state);
	return o;
}

static json_object *
adminapi_setup_json(sqlite3 *db)
{
	json_object	*o = json_object_new_object(), *a = json_object_new_array();
	size_t		 i;
	int		 complete = 1;
	char		*state;

	for (i = 0; i < ADMINAPI_NSTEPS; i++) {
		state = settings_get(db, util_data_dir(), adminapi_steps[i].state);
		if (state == NULL || strcmp(state, "pending") == 0)
			complete = 0;
		free(state);
		json_object_array_add(a, adminapi_step_json(db, &adminapi_steps[i]));
	}
	json_object_object_add(o, "complete", json_object_new_boolean(complete));
	json_object_object_add(o, "steps", a);
	return o;
}

void
adminapi_setup(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { NULL };
	const struct adminapi_step *s = NULL;
	const char	*rest = r->path + strlen("/api/setup"), *slash;
	json_object	*body = NULL;
	char		 err[600];
	size_t		 i, n;
	int		 skip = 0, st;

	if (*rest == '\0') {
		if (adminapi_method(r, "GET") == -1 ||
		    adminapi_permit(r, db, NULL, "reading the setup state") == -1 ||
		    adminapi_params(r, params) == -1)
			return;
		adminapi_send(r, 200, adminapi_setup_json(db));
		return;
	}
	rest++;
	slash = strchr(rest, '/');
	n = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
	for (i = 0; i < ADMINAPI_NSTEPS; i++)
		if (strlen(adminapi_steps[i].name) == n &&
		    strncmp(adminapi_steps[i].name, rest, n) == 0)
			s = &adminapi_steps[i];
	if (slash != NULL && strcmp(slash, "/skip") == 0)
		skip = 1;
	if (s == NULL || (slash != NULL && !skip)) {
		http_error(r, 404, "no such setup step: %s (the steps are ai-provider, "
		    "embedding, git-tokens)", r->path);
		return;
	}
	if (adminapi_method(r, "POST") == -1 ||
	    adminapi_permit(r, db, NULL, "saving a setup step") == -1 ||
	    adminapi_params(r, params) == -1)
		return;
	if (!skip && (body = adminapi_body(r)) == NULL)
		return;
	if (db_begin(db) == -1) {
		adminapi_dberr(r, db, __func__);
		goto out;
	}
	if (!skip && ((st = adminapi_settings_apply(db, body, s->settings, err,
	    sizeof(err))) != 0 || (st = adminapi_step_check(db, s, err,
	    sizeof(err))) != 0)) {
		db_rollback(db);
		http_error(r, st, "%s", err);
		goto out;
	}
	if (settings_set(db, util_data_dir(), s->state, skip ? "skipped" : "done", err,
	    sizeof(err)) == -1 || db_commit(db) == -1) {
		db_rollback(db);
		adminapi_dberr(r, db, __func__);
		goto out;
	}
	adminapi_send(r, 200, adminapi_step_json(db, s));
out:
	json_object_put(body);
}

/* ------------------------------------------------------------------ libraries */

#define ADMINAPI_LIB_COLS \
	"id, title, description, source_type, url, branch, state, run_status, gitops, " \
	"indexed_commit, indexed_branch, (SELECT max(j.finished_at) FROM jobs j WHERE " \
	"j.library_id = libraries.id AND j.kind = 'index' AND j.state = 'done'), " \
	"last_error, total_documents, total_snippets, total_tokens, run_started, " \
	"run_finished, created_at, updated_at, settings"

#define ADMINAPI_JOB_COLS \
	"id, library_id, kind, state, force, attempts, message, created_at, " \
	"started_at, finished_at, cancel_requested"

/* A result column and its JSON member: text (null when NULL), whole number or boolean. */
struct adminapi_field {
	const char	*name;
	enum { F_TEXT, F_INT, F_BOOL } type;
};

/* The columns of ADMINAPI_LIB_COLS (but settings) and ADMINAPI_JOB_COLS, in order. */
static const struct adminapi_field adminapi_lib_fields[] = {
	{ "id", F_TEXT }, { "title", F_TEXT }, { "description", F_TEXT },
	{ "sourceType", F_TEXT }, { "url", F_TEXT }, { "branch", F_TEXT },
	{ "state", F_TEXT }, { "runStatus", F_TEXT }, { "gitops", F_BOOL },
	{ "lastIndexedCommit", F_TEXT }, { "lastIndexedBranch", F_TEXT },
	{ "lastIndexedAt", F_TEXT }, { "lastError", F_TEXT }, { "documents", F_INT },
	{ "snippets", F_INT }, { "tokens", F_INT }, { "runStarted", F_TEXT },
	{ "runFinished", F_TEXT }, { "createdAt", F_TEXT }, { "updatedAt", F_TEXT },
};
static const struct adminapi_field adminapi_job_fields[] = {
	{ "id", F_INT }, { "libraryId", F_TEXT }, { "kind", F_TEXT }, { "state", F_TEXT },
	{ "force", F_BOOL }, { "attempts", F_INT }, { "message", F_TEXT },
	{ "createdAt", F_TEXT }, { "startedAt", F_TEXT }, { "finishedAt", F_TEXT },
	{ "cancelRequested", F_BOOL },
};
#define ADMINAPI_NLIB	(sizeof(adminapi_lib_fields) / sizeof(adminapi_lib_fields[0]))
#define ADMINAPI_NJOB	(sizeof(adminapi_job_fields) / sizeof(adminapi_job_fields[0]))

/* The first n columns of the current row as an object. */
static json_object *
adminapi_row(sqlite3_stmt *st, const struct adminapi_field *f, size_t n)
{
	json_object	*o = json_object_new_object(), *v;
	size_t		 i;

	for (i = 0; i < n; i++) {
		switch (f[i].type) {
		case F_INT:
			v = json_object_new_int64(sqlite3_column_int64(st, (int)i));
			break;
		case F_BOOL:
			v = json_object_new_boolean(sqlite3_column_int(st, (int)i));
			break;
		default:
			v = adminapi_col_str(st, (int)i);
			break;
		}
		json_object_object_add(o, f[i].name, v);
	}
	return o;
}

static json_object *
adminapi_lib_row(sqlite3_stmt *st, int detail)
{
	json_object	*o = adminapi_row(st, adminapi_lib_fields, ADMINAPI_NLIB);
	const char	*s;

	if (detail && (s = (const char *)sqlite3_column_text(st,
	    (int)ADMINAPI_NLIB)) != NULL)
		json_object_object_add(o, "settings", json_tokener_parse(s));
	return o;
}

static json_object *
adminapi_job_row(sqlite3_stmt *st)
{
	return adminapi_row(st, adminapi_job_fields, ADMINAPI_NJOB);
}

/* The rows of a prepared job query as an array (at most max; *more when there are more). */
static json_object *
adminapi_job_rows(sqlite3_stmt *st, long max, int *more, long long *last)
{
	json_object	*a = json_object_new_array();
	long		 n = 0;
	int		 rc;

	*more = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == max) {
			*more = 1;
			break;
		}
		*last = sqlite3_column_int64(st, 0);
		json_object_array_add(a, adminapi_job_row(st));
		n++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

/*
 * Splits the part of the path after /api/libraries ("/OWNER/REPO" or
 * "/OWNER/REPO/ACTION") into the library id and the action (NULL when none); -1 when it
 * is neither.
 */
static int
adminapi_lib_path(const char *rest, char *id, size_t idsz, const char **action)
{
	const char	*p = rest, *seg[2];
	size_t		 len[2], k, i;

	*action = NULL;
	for (k = 0; k < 2; k++) {
		if (*p != '/')
			return -1;
		seg[k] = ++p;
		while (*p != '\0' && *p != '/')
			p++;
		len[k] = (size_t)(p - seg[k]);
		if (len[k] == 0 || len[k] > ADMINAPI_SEGMENT_MAX ||
		    (len[k] <= 2 && strncmp(seg[k], "..", len[k]) == 0))
			return -1;
		for (i = 0; i < len[k]; i++)
			if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-", seg[k][i]) == NULL)
				return -1;
	}
	if (*p == '/') {
		if (p[1] == '\0' || strchr(p + 1, '/') != NULL)
			return -1;
		*action = p + 1;
	}
	if ((size_t)snprintf(id, idsz, "/%.*s/%.*s", (int)len[0], seg[0], (int)len[1],
	    seg[1]) >= idsz)
		return -1;
	return 0;
}

static void
adminapi_lib_list(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { "state", "limit", "offset", NULL };
	static const char *const states[] = { "initial", "processing", "finalized",
		"error", "delete", NULL };
	sqlite3_stmt	*st = NULL;
	json_object	*o = NULL, *a;
	const char	*state;
	long		 limit, offset;
	int		 rc;

	if (adminapi_method(r, "GET") == -1 ||
	    adminapi_permit(r, db, NULL, "listing the libraries") == -1 ||
	    adminapi_params(r, params) == -1 ||
	    adminapi_param_choice(r, "state", states, &state) == -1 ||
	    adminapi_param_long(r, "limit", 1, 500, 100, &limit) == -1 ||
	    adminapi_param_long(r, "offset", 0, 1000000000, 0, &offset) == -1)
		return;
	o = json_object_new_object();
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM libraries WHERE (?1 IS NULL OR "
	    "state = ?1)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		goto dberr;
	json_object_object_add(o, "total", json_object_new_int64(sqlite3_column_int64(st,
	    0)));
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT " ADMINAPI_LIB_COLS " FROM libraries WHERE "
	    "(?1 IS NULL OR state = ?1) ORDER BY id LIMIT ?2 OFFSET ?3", -1, &st,
	    NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, limit);
	sqlite3_bind_int64(st, 3, offset);
	a = json_object_new_array();
	json_object_object_add(o, "libraries", a);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_object_array_add(a, adminapi_lib_row(st, 0));
	if (rc != SQLITE_DONE)
		goto dberr;
	json_object_object_add(o, "limit", json_object_new_int64(limit));
	json_object_object_add(o, "offset", json_object_new_int64(offset));
	adminapi_send(r, 200, o);
	o = NULL;
	goto out;
dberr:
	adminapi_dberr(r, db, __func__);
out:
	sqlite3_finalize(st);
	json_object_put(o);
}

/* 1 when the library exists, 0 when not, -1 on error. */
static int
adminapi_lib_exists(sqlite3 *db, const char *id)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM libraries WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static void
adminapi_lib_detail(struct http_req *r, sqlite3 *db, const char *id)
{
	static const char *const params[] = { NULL };
	sqlite3_stmt	*st = NULL;
	json_object	*o = NULL, *jobs;
	long long	 last;
	int		 rc, more;

	if (adminapi_permit(r, db, NULL, "reading a library") == -1 ||
	    adminapi_params(r, params) == -1)
		return;
	if (sqlite3_prepare_v2(db, "SELECT " ADMINAPI_LIB_COLS " FROM libraries WHERE "
	    "id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
		http_error(r, 404, "library %s does not exist", id);
		goto out;
	}
	if (rc != SQLITE_ROW)
		goto dberr;
	o = adminapi_lib_row(st, 1);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT " ADMINAPI_JOB_COLS " FROM jobs WHERE "
	    "library_id = ?1 ORDER BY id DESC LIMIT 10", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((jobs = adminapi_job_rows(st, 10, &more, &last)) == NULL)
		goto dberr;
	json_object_object_add(o, "jobs", jobs);
	adminapi_send(r, 200, o);
	o = NULL;
	goto out;
dberr:
	adminapi_dberr(r, db, __func__);
out:
	sqlite3_finalize(st);
	json_object_put(o);
}

/* POST .../refresh (delete = 0) and DELETE (delete = 1): queue a job, 202. */
static void
adminapi_lib_queue(struct http_req *r, sqlite3 *db, const char *id, int del)
{
	static const char *const rparams[] = { "force", NULL };
	static const char *const dparams[] = { NULL };
	static const char *const bools[] = { "true", "false", NULL };
	json_object	*o;
	const char	*force = NULL;
	long long	 job = 0, pending;
	char		 msg[700];
	int		 rc;

	if (adminapi_permit(r, db, del ? "perm.anonymous_delete" :
	    "perm.anonymous_refresh", del ? "deleting a library" :
	    "refreshing a library") == -1 ||
	    adminapi_params(r, del ? dparams : rparams) == -1 ||
	    adminapi_param_choice(r, "force", bools, &force) == -1)
		return;
	if (db_begin(db) == -1)
		goto dberr;
	if ((rc = adminapi_lib_exists(db, id)) != 1) {
		db_rollback(db);
		if (rc == -1)
			goto dberr;
		http_error(r, 404, "library %s does not exist", id);
		return;
	}
	if (del)
		rc = jobs_enqueue_delete(db, id, &job);
	else if ((rc = jobs_delete_pending(db, id, &pending)) == 1) {
		db_rollback(db);
		http_error(r, 409, "library %s is being deleted (job %lld); it cannot "
		    "be refreshed", id, pending);
		return;
	} else if (rc == 0)
		rc = jobs_enqueue(db, id, force != NULL && strcmp(force, "true") == 0,
		    &job);
	if (rc == -1 || db_commit(db) == -1) {
		db_rollback(db);
		goto dberr;
	}
	if (jobs_spawn_worker() == -1)
		log_warn("the worker could not be started now; cron will run job %lld",
		    job);
	snprintf(msg, sizeof(msg), "%s of %s is queued as job %lld", del ? "deletion" :
	    "indexing", id, job);
	o = json_object_new_object();
	json_object_object_add(o, "libraryId", json_object_new_string(id));
	json_object_object_add(o, "jobId", json_object_new_int64(job));
	json_object_object_add(o, "message", json_object_new_string(msg));
	adminapi_send(r, 202, o);
	return;
dberr:
	adminapi_dberr(r, db, __func__);
}

void
adminapi_libraries(struct http_req *r, sqlite3 *db)
{
	const char	*rest = r->path + strlen("/api/libraries"), *action;
	char		 id[512];

	if (*rest == '\0') {
		adminapi_lib_list(r, db);
		return;
	}
	if (adminapi_lib_path(rest, id, sizeof(id), &action) == -1 ||
	    (action != NULL && strcmp(action, "refresh") != 0)) {
		http_error(r, 404, "no such endpoint: %s (libraries are "
		    "/api/libraries/OWNER/REPO)", r->path);
		return;
	}
	if (action != NULL) {
		if (adminapi_method(r, "POST") == 0)
			adminapi_lib_queue(r, db, id, 0);
	} else if (adminapi_method(r, "GET, DELETE") == 0) {
		if (strcmp(r->method, "GET") == 0)
			adminapi_lib_detail(r, db, id);
		else
			adminapi_lib_queue(r, db, id, 1);
	}
}

/* ------------------------------------------------------------------ jobs */

/* The job as JSON, NULL with *found = 0 when there is none (or *found = -1 on error). */
static json_object *
adminapi_job_get(sqlite3 *db, long long id, int *found)
{
	sqlite3_stmt	*st;
	json_object	*o = NULL;
	int		 rc;

	*found = -1;
	if (sqlite3_prepare_v2(db, "SELECT " ADMINAPI_JOB_COLS ", (SELECT count(*) FROM "
	    "job_log WHERE job_id = jobs.id) FROM jobs WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		o = adminapi_job_row(st);
		json_object_object_add(o, "logLines",
		    json_object_new_int64(sqlite3_column_int64(st,
		    (int)ADMINAPI_NJOB)));
		*found = 1;
	} else if (rc == SQLITE_DONE)
		*found = 0;
	sqlite3_finalize(st);
	return o;
}

static void
adminapi_job_list(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { "library", "state", "kind", "limit",
		"before", NULL };
	static const char *const states[] = { "queued", "running", "done", "failed",
		"cancelled", NULL };
	static const char *const kinds[] = { "index", "delete", NULL };
	sqlite3_stmt	*st = NULL;
	json_object	*o, *a;
	const char	*state, *kind, *lib;
	long		 limit, before;
	long long	 last = 0;
	int		 more;

	if (adminapi_method(r, "GET") == -1 ||
	    adminapi_permit(r, db, NULL, "listing the jobs") == -1 ||
	    adminapi_params(r, params) == -1 ||
	    adminapi_param_choice(r, "state", states, &state) == -1 ||
	    adminapi_param_choice(r, "kind", kinds, &kind) == -1 ||
	    adminapi_param_long(r, "limit", 1, 200, 50, &limit) == -1 ||
	    adminapi_param_long(r, "before", 1, LONG_MAX, LONG_MAX, &before) == -1)
		return;
	if ((lib = http_param(r, "library")) != NULL && (*lib == '\0' ||
	    strlen(lib) > 500)) {
		http_error(r, 400, "'library' must be a library id of 1 to 500 "
		    "characters");
		return;
	}
	if (sqlite3_prepare_v2(db, "SELECT " ADMINAPI_JOB_COLS " FROM jobs WHERE "
	    "(?1 IS NULL OR library_id = ?1) AND (?2 IS NULL OR state = ?2) AND "
	    "(?3 IS NULL OR kind = ?3) AND id < ?4 ORDER BY id DESC LIMIT ?5", -1,
	    &st, NULL) != SQLITE_OK) {
		adminapi_dberr(r, db, __func__);
		return;
	}
	sqlite3_bind_text(st, 1, lib, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, before);
	sqlite3_bind_int64(st, 5, limit + 1);
	if ((a = adminapi_job_rows(st, limit, &more, &last)) == NULL) {
		adminapi_dberr(r, db, __func__);
		sqlite3_finalize(st);
		return;
	}
	sqlite3_finalize(st);
	o = json_object_new_object();
	json_object_object_add(o, "jobs", a);
	json_object_object_add(o, "nextBefore", more ? json_object_new_int64(last) :
	    NULL);
	adminapi_send(r, 200, o);
}

static void
adminapi_job_log(struct http_req *r, sqlite3 *db, long long id, json_object *job)
{
	static const char *const params[] = { "after", "limit", NULL };
	sqlite3_stmt	*st = NULL;
	json_object	*o, *a, *l, *state;
	long		 after, limit;
	long long	 last;
	int		 rc;

	if (adminapi_params(r, params) == -1 ||
	    adminapi_param_long(r, "after", 0, LONG_MAX, 0, &after) == -1 ||
	    adminapi_param_long(r, "limit", 1, 5000, 1000, &limit) == -1)
		return;
	if (sqlite3_prepare_v2(db, "SELECT id, at, level, line FROM job_log WHERE "
	    "job_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3", -1, &st, NULL) !=
	    SQLITE_OK) {
		adminapi_dberr(r, db, __func__);
		return;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, after);
	sqlite3_bind_int64(st, 3, limit);
	a = json_object_new_array();
	last = after;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		last = sqlite3_column_int64(st, 0);
		l = json_object_new_object();
		json_object_object_add(l, "id", json_object_new_int64(last));
		json_object_object_add(l, "at", adminapi_col_str(st, 1));
		json_object_object_add(l, "level", adminapi_col_str(st, 2));
		json_object_object_add(l, "line", adminapi_col_str(st, 3));
		json_object_array_add(a, l);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_object_put(a);
		adminapi_dberr(r, db, __func__);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "jobId", json_object_new_int64(id));
	if (json_object_object_get_ex(job, "state", &state))
		json_object_object_add(o, "state", json_object_get(state));
	json_object_object_add(o, "lines", a);
	json_object_object_add(o, "nextAfter", json_object_new_int64(last));
	adminapi_send(r, 200, o);
}

void
adminapi_jobs(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { NULL };
	const char	*rest = r->path + strlen("/api/jobs"), *action;
	json_object	*job;
	char		 num[24];
	size_t		 n;
	long		 id;
	int		 found, status = 200;

	if (*rest == '\0') {
		adminapi_job_list(r, db);
		return;
	}
	rest++;
	n = strcspn(rest, "/");
	action = rest[n] == '/' ? rest + n + 1 : NULL;
	if (n == 0 || n >= sizeof(num)) {
		http_error(r, 404, "no such endpoint: %s", r->path);
		return;
	}
	memcpy(num, rest, n);
	num[n] = '\0';
	if (util_parse_long(num, 1, LONG_MAX, &id) == -1 || (action != NULL &&
	    strcmp(action, "log") != 0 && strcmp(action, "cancel") != 0)) {
		http_error(r, 404, "no such endpoint: %s (jobs are /api/jobs/ID, "
		    "/api/jobs/ID/log, /api/jobs/ID/cancel)", r->path);
		return;
	}
	if (adminapi_method(r, action != NULL && strcmp(action, "cancel") == 0 ?
	    "POST" : "GET") == -1 ||
	    adminapi_permit(r, db, NULL, action != NULL && strcmp(action, "cancel") ==
	    0 ? "cancelling a job" : "reading a job") == -1)
		return;
	if (action != NULL && strcmp(action, "cancel") == 0) {
		if (adminapi_params(r, params) == -1)
			return;
		switch (jobs_cancel(db, id)) {
		case JOBS_CANCEL_OK:
			break;
		case JOBS_CANCEL_REQUESTED:
			status = 202;
			break;
		case JOBS_CANCEL_NOT_FOUND:
			http_error(r, 404, "job %ld does not exist", id);
			return;
		case JOBS_CANCEL_FINISHED:
			job = adminapi_job_get(db, id, &found);
			http_error(r, 409, "job %ld is %s: only a queued or running job "
			    "can be cancelled", id, job != NULL ? json_object_get_string(
			    json_object_object_get(job, "state")) : "finished");
			json_object_put(job);
			return;
		case JOBS_CANCEL_DELETING:
			http_error(r, 409, "job %ld is a running deletion: it cannot be "
			    "cancelled (it removes the library in one short transaction "
			    "and is nearly done)", id);
			return;
		case JOBS_CANCEL_ERROR:
			adminapi_dberr(r, db, __func__);
			return;
		}
	}
	job = adminapi_job_get(db, id, &found);
	if (found != 1) {
		if (found == 0)
			http_error(r, 404, "job %ld does not exist", id);
		else
			adminapi_dberr(r, db, __func__);
		json_object_put(job);
		return;
	}
	if (action != NULL && strcmp(action, "log") == 0) {
		adminapi_job_log(r, db, id, job);
		json_object_put(job);
		return;
	}
	if (action == NULL && adminapi_params(r, params) == -1) {
		json_object_put(job);
		return;
	}
	adminapi_send(r, status, job);
}

/* ------------------------------------------------------------------ health, readiness */

struct adminapi_probe {
	int		 ok;		/* the database opens, its schema is current */
	int		 schema;
	long long	 queued, running, libraries;
};

/*
 * Opens the database afresh, read-only (not the responder's connection, so that a broken
 * or replaced file shows), checks its schema version and counts jobs and libraries.
 */
static void
adminapi_probe_db(struct adminapi_probe *p)
{
	sqlite3		*db;
	sqlite3_stmt	*st;

	memset(p, 0, sizeof(*p));
	p->schema = db_schema_version();
	if (db_open(util_data_dir(), DB_READONLY, &db) == -1)
		return;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM jobs WHERE state = "
	    "'queued'), (SELECT count(*) FROM jobs WHERE state = 'running'), (SELECT "
	    "count(*) FROM libraries)", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			p->queued = sqlite3_column_int64(st, 0);
			p->running = sqlite3_column_int64(st, 1);
			p->libraries = sqlite3_column_int64(st, 2);
			p->ok = 1;
		}
		sqlite3_finalize(st);
	}
	if (!p->ok)
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	db_close(db);
}

/* License summary (never the key); full adds the licensee and issue date. */
static json_object *
adminapi_license_json(int full, int *ok)
{
	unsigned char		 pub[32];
	struct license		 lic;
	enum license_status	 st = LICENSE_MALFORMED;
	json_object		*o = json_object_new_object();
	char			 date[16];
	struct tm		 tm;

	if (util_unhex(CTXD_LICENSE_PUBKEY, pub, sizeof(pub)) == 0)
		st = license_verify(getenv("LICENSE_KEY"), pub, time(NULL), &lic);
	*ok = st == LICENSE_OK;
	json_object_object_add(o, "status",
	    json_object_new_string(license_status_str(st)));
	if (st == LICENSE_MISSING || st == LICENSE_MALFORMED)
		return o;
	json_object_object_add(o, "plan", json_object_new_string(lic.plan));
	if (gmtime_r(&lic.expires, &tm) != NULL &&
	    strftime(date, sizeof(date), "%Y-%m-%d", &tm) > 0)
		json_object_object_add(o, "expires", json_object_new_string(date));
	if (full) {
		json_object_object_add(o, "licensee",
		    json_object_new_string(lic.licensee));
		if (gmtime_r(&lic.issued, &tm) != NULL &&
		    strftime(date, sizeof(date), "%Y-%m-%d", &tm) > 0)
			json_object_object_add(o, "issued",
			    json_object_new_string(date));
	}
	return o;
}

/* The health report; *healthy when the license, the database and the disk are fine. */
static json_object *
adminapi_health_json(int *healthy)
{
	struct adminapi_probe p;
	struct statvfs	 vfs;
	json_object	*o = json_object_new_object(), *d;
	struct buf	 why;
	long long	 freeb = -1, total = -1;
	int		 lic_ok, disk_ok;

	buf_init(&why);
	adminapi_probe_db(&p);
	if (statvfs(util_data_dir(), &vfs) == 0) {
		freeb = (long long)vfs.f_bavail * (long long)vfs.f_frsize;
		total = (long long)vfs.f_blocks * (long long)vfs.f_frsize;
	}
	disk_ok = freeb >= ADMINAPI_DISK_MIN;
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "license", adminapi_license_json(0, &lic_ok));
	d = json_object_new_object();
	json_object_object_add(d, "ok", json_object_new_boolean(p.ok));
	json_object_object_add(d, "schemaVersion", json_object_new_int(p.schema));
	json_object_object_add(o, "database", d);
	d = json_object_new_object();
	json_object_object_add(d, "ok", json_object_new_boolean(disk_ok));
	json_object_object_add(d, "freeBytes", json_object_new_int64(freeb));
	json_object_object_add(d, "totalBytes", json_object_new_int64(total));
	json_object_object_add(o, "disk", d);
	d = json_object_new_object();
	json_object_object_add(d, "queued", json_object_new_int64(p.queued));
	json_object_object_add(d, "running", json_object_new_int64(p.running));
	json_object_object_add(o, "queue", d);
	json_object_object_add(o, "libraries", json_object_new_int64(p.libraries));
	if (!lic_ok)
		buf_adds(&why, "the license key is not valid; ");
	if (!p.ok)
		buf_adds(&why, "the database cannot be opened or its schema is not "
		    "current; ");
	if (!disk_ok)
		buf_adds(&why, "the data folder has less than 100 MiB free; ");
	*healthy = lic_ok && p.ok && disk_ok;
	json_object_object_add(o, "status", json_object_new_string(*healthy ? "ok" :
	    "unhealthy"));
	if (!*healthy && why.len > 2) {
		why.p[why.len - 2] = '\0';
		json_object_object_add(o, "error", json_object_new_string(why.p));
	}
	buf_release(&why);
	return o;
}

void
adminapi_health(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { NULL };
	json_object	*o;
	int		 healthy;

	(void)db;
	if (adminapi_method(r, "GET, HEAD") == -1 || adminapi_params(r, params) == -1)
		return;
	o = adminapi_health_json(&healthy);
	adminapi_send(r, healthy ? 200 : 503, o);
}

void
adminapi_ready(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { NULL };
	struct adminapi_probe p;
	json_object	*o;

	(void)db;
	if (adminapi_method(r, "GET, HEAD") == -1 || adminapi_params(r, params) == -1)
		return;
	adminapi_probe_db(&p);
	if (!p.ok) {
		http_error(r, 503, "not ready: the database cannot be opened or its "
		    "schema is not version %d", p.schema);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "ready", json_object_new_boolean(1));
	json_object_object_add(o, "schemaVersion", json_object_new_int(p.schema));
	adminapi_send(r, 200, o);
}

/* ------------------------------------------------------------------ support bundle */

static la_ssize_t
adminapi_tar_write(struct archive *a, void *ctx, const void *p, size_t n)
{
	(void)a;
	return buf_add(ctx, p, n) == 0 ? (la_ssize_t)n : -1;
}

/* Adds one file; the JSON object o (consumed) is written pretty-printed. */
static int
adminapi_tar_json(struct archive *a, const char *dir, const char *name, json_object *o,
    time_t now)
{
	struct archive_entry *e;
	const char	*text;
	char		 path[256];
	size_t		 len;
	int		 rc = -1;

	if (o == NULL || (e = archive_entry_new()) == NULL) {
		json_object_put(o);
		return -1;
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len + 1);	/* + the final newline */
	archive_entry_set_mtime(e, now, 0);
	if (archive_write_header(a, e) == ARCHIVE_OK &&
	    archive_write_data(a, text, len) == (la_ssize_t)len &&
	    archive_write_data(a, "\n", 1) == 1)
		rc = 0;
	else
		log_err("%s: %s", __func__, archive_error_string(a));
	archive_entry_free(e);
	json_object_put(o);
	return rc;
}

static json_object *
adminapi_bundle_libraries(sqlite3 *db)
{
	sqlite3_stmt	*st;
	json_object	*a = json_object_new_array();

	if (sqlite3_prepare_v2(db, "SELECT " ADMINAPI_LIB_COLS " FROM libraries ORDER BY "
	    "id LIMIT 1000", -1, &st, NULL) != SQLITE_OK)
		return a;
	while (sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(a, adminapi_lib_row(st, 1));
	sqlite3_finalize(st);
	return a;
}

static json_object *
adminapi_bundle_jobs(sqlite3 *db)
{
	sqlite3_stmt	*st, *lt = NULL;
	json_object	*a = json_object_new_array(), *job, *lines, *l;

	if (sqlite3_prepare_v2(db, "SELECT " ADMINAPI_JOB_COLS " FROM jobs ORDER BY id "
	    "DESC LIMIT ?1", -1, &st, NULL) != SQLITE_OK)
		return a;
	if (sqlite3_prepare_v2(db, "SELECT at, level, line FROM (SELECT id, at, level, "
	    "line FROM job_log WHERE job_id = ?1 ORDER BY id DESC LIMIT ?2) ORDER BY "
	    "id", -1, &lt, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return a;
	}
	sqlite3_bind_int(st, 1, ADMINAPI_BUNDLE_JOBS);
	while (sqlite3_step(st) == SQLITE_ROW) {
		job = adminapi_job_row(st);
		lines = json_object_new_array();
		sqlite3_reset(lt);
		sqlite3_bind_int64(lt, 1, sqlite3_column_int64(st, 0));
		sqlite3_bind_int(lt, 2, ADMINAPI_BUNDLE_LINES);
		while (sqlite3_step(lt) == SQLITE_ROW) {
			l = json_object_new_object();
			json_object_object_add(l, "at", adminapi_col_str(lt, 0));
			json_object_object_add(l, "level", adminapi_col_str(lt, 1));
			json_object_object_add(l, "line", adminapi_col_str(lt, 2));
			json_object_array_add(lines, l);
		}
		json_object_object_add(job, "log", lines);
		json_object_array_add(a, job);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(lt);
	return a;
}

void
adminapi_support_bundle(struct http_req *r, sqlite3 *db)
{
	static const char *const params[] = { NULL };
	struct archive	*a = NULL;
	struct buf	 out;
	json_object	*o;
	time_t		 now = time(NULL);
	struct tm	 tm;
	char		 stamp[32], dir[64], hdr[160];
	int		 healthy, lic_ok, ok = 0;

	if (strcmp(r->path, "/api/support-bundle") != 0) {
		http_error(r, 404, "no such endpoint: %s", r->path);
		return;
	}
	if (adminapi_method(r, "GET") == -1 ||
	    adminapi_permit(r, db, "perm.anonymous_support_bundle",
	    "downloading the support bundle") == -1 ||
	    adminapi_params(r, params) == -1)
		return;
	buf_init(&out);
	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	snprintf(dir, sizeof(dir), "ctxd-support-%s", stamp);
	if ((a = archive_write_new()) == NULL ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open(a, &out, NULL, adminapi_tar_write, NULL) != ARCHIVE_OK)
		goto out;
	o = json_object_new_object();
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "schemaVersion",
	    json_object_new_int(db_schema_version()));
	json_object_object_add(o, "sqlite", json_object_new_string(sqlite3_libversion()));
	json_object_object_add(o, "libarchive",
	    json_object_new_string(archive_version_string()));
	json_object_object_add(o, "generatedAt", json_object_new_string(stamp));
	if (adminapi_tar_json(a, dir, "version.json", o, now) == -1 ||
	    adminapi_tar_json(a, dir, "license.json", adminapi_license_json(1,
	    &lic_ok), now) == -1 ||
	    adminapi_tar_json(a, dir, "health.json", adminapi_health_json(&healthy),
	    now) == -1 ||
	    adminapi_tar_json(a, dir, "settings.json", adminapi_settings_json(db,
	    NULL), now) == -1 ||
	    adminapi_tar_json(a, dir, "libraries.json", adminapi_bundle_libraries(db),
	    now) == -1 ||
	    adminapi_tar_json(a, dir, "jobs.json", adminapi_bundle_jobs(db), now) == -1)
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		log_err("%s: %s", __func__, archive_error_string(a));
		goto out;
	}
	ok = 1;
out:
	if (a != NULL)
		archive_write_free(a);
	if (!ok)
		http_error(r, 500, "the support bundle could not be built; the "
		    "responder log has the details");
	else {
		snprintf(hdr, sizeof(hdr), "Content-Disposition: attachment; "
		    "filename=\"%s.tar.gz\"\r\n", dir);
		http_respond(r, 200, "application/gzip", hdr, out.p, out.len);
	}
	buf_release(&out);
}
