/*
 * admin_libraries.c: the libraries of ctxd-web (ctxd-web(8), POST /api/parse and ADMIN
 * API): adding a repository, the list, one library, a refresh and a deletion. Adding,
 * refreshing and deleting queue a job and start ctxd-worker; the answer is 202.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/access.h"
#include "http/http.h"
#include "http/multipart.h"
#include "index/library.h"
#include "search/catalog.h"
#include "sources/admit.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/gitsrc.h"
#include "sources/request.h"
#include "store/jobs.h"
#include "store/library.h"
#include "store/netpolicy.h"
#include "store/settings.h"
#include "web.h"

#define ADMIN_LIBRARIES_SEGMENT_MAX	200	/* characters of the owner or the repo */
#define ADMIN_LIBRARIES_UPLOADS_MB	64	/* uploads.max_mb_per_user's default */

/* Starts the worker for job and answers 202 {libraryId, jobId, message}. */
static void
admin_libraries_queued(struct http_req *r, const char *id, long long job,
    const char *what)
{
	json_object	*o;
	char		 msg[700];

	if (jobs_spawn_worker() == -1)
		log_warn("the worker could not be started now; cron will run job %lld",
		    job);
	snprintf(msg, sizeof(msg), "%s of %s is queued as job %lld", what, id, job);
	o = json_object_new_object();
	json_object_object_add(o, "libraryId", json_object_new_string(id));
	json_object_object_add(o, "jobId", json_object_new_int64(job));
	json_object_object_add(o, "message", json_object_new_string(msg));
	web_util_send(r, 202, NULL, o);
}

/*
 * Makes the caller the one who queues this request's jobs (jobs_queuer_begin) when adding
 * more jobs fits under jobs.max_queued_per_user: 0, else -1 having answered 429 (naming
 * the cap) or 500. jobs_queuer_end after queueing.
 */
static int
admin_libraries_queuer(struct http_req *r, int adding)
{
	const char	*via;
	char		 err[600];
	int		 rc;

	via = r->who.user.id != 0 ? "user" : r->who.via == ACCESS_ANONYMOUS ? "anonymous" :
	    "key";
	if ((rc = jobs_queuer_begin(r->db, r->who.user.id, via, r->who.admin, adding, err,
	    sizeof(err))) == 1)
		http_error_hdr(r, 429, "Retry-After: 60\r\n", "%s", err);
	else if (rc == -1)
		http_error(r, 500, "%s", err);
	return rc == 0 ? 0 : -1;
}

/* Answers a library_upsert / library_queue that did not succeed. */
static void
admin_libraries_refused(struct http_req *r, enum library_change rc, const char *err)
{
	http_error(r, rc == LIBRARY_NOT_FOUND ? 404 : rc == LIBRARY_ERROR ? 500 :
	    rc == LIBRARY_FORBIDDEN ? 403 : 409, "%s", err);
}

/*
 * Adds (or re-indexes) the library of a validated source entry p, and answers: 202 with
 * the job, or why not (library_upsert).
 */
static void
admin_libraries_add(struct http_req *r, struct parse_req *p)
{
	enum library_change rc;
	long long	 job;
	char		 err[900];
	int		 queued;

	/* What the caller may make the server read: the address, the credentials. */
	if (netpolicy_check_host(r->db, util_data_dir(), p->host, err, sizeof(err)) == -1) {
		http_error(r, 400, "%s", err);
		return;
	}
	if (admit_integrations(r->db, util_data_dir(), p->type != NULL ?
	    p->type : "git", p->host, r->who.admin, err, sizeof(err)) == -1) {
		http_error(r, 403, "%s", err);
		return;
	}
	/* a library added before the rules of new ids keeps its id */
	if (entry_stable_id(r->db, p) == -1) {
		web_util_dberr(r, __func__, "cannot read the library's id");
		return;
	}
	/* the library's index job (unless one is queued: it joins it) and one per version */
	if ((queued = jobs_index_queued(r->db, p->id)) == -1) {
		web_util_dberr(r, __func__, "cannot read the library's queued jobs");
		return;
	}
	if (admin_libraries_queuer(r, !queued + (int)p->nversions) == -1)
		return;
	rc = library_upsert(r->db, p, p->id, p->host, r->who.user.id, r->who.admin, &job,
	    err, sizeof(err));
	jobs_queuer_end();
	if (rc != LIBRARY_OK)
		admin_libraries_refused(r, rc, err);
	else
		admin_libraries_queued(r, p->id, job, "indexing");
}

/* Answers a source entry that did not validate: 400 naming the field (500: memory). */
static void
admin_libraries_invalid(struct http_req *r, const char *err)
{
	http_error(r, strcmp(err, "out of memory") == 0 ? 500 : 400, "%s", err);
}

/*
 * POST /api/parse: the body is validated against library.c's declared table. A library
 * that exists is re-indexed with its stored source settings where the body leaves them
 * out; other values need an admin or the user who added it (library_upsert).
 */
void
admin_libraries_parse(struct http_req *r, void *arg)
{
	struct parse_req p;
	char		 err[600];

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 || validate_read_body(r) == -1)
		return;
	if (gitsrc_parse_request(r->body, r->body_len, &p, err, sizeof(err)) == -1) {
		admin_libraries_invalid(r, err);
		return;
	}
	admin_libraries_add(r, &p);
	backend_req_release(&p);
}

/*
 * POST /api/libraries: one source entry in the shape of a GitOps manifest entry
 * (lib/sources/entry.h), any type. The same rules as /api/parse for a library that exists.
 */
/*
 * GET /api/sources/types: the source types a library can be added from, each with its
 * label, what it indexes, what its URL is and its fields (bounds, labels, docs, defaults),
 * as the back ends declare them (lib/sources/entry.h: entry_types_json); the web UI's
 * "Add library" form is built from it.
 */
void
admin_libraries_types(struct http_req *r, void *arg)
{
	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	web_util_send(r, 200, NULL, entry_types_json());
}

void
admin_libraries_create(struct http_req *r, void *arg)
{
	struct parse_req p;
	char		 err[600];

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 || validate_read_body(r) == -1)
		return;
	if (entry_parse_text(r->body, r->body_len, &p, err, sizeof(err)) == -1) {
		admin_libraries_invalid(r, err);
		return;
	}
	admin_libraries_add(r, &p);
	backend_req_release(&p);
}

/*
 * The hosted service's admin endpoints, as source entries: each body field is renamed
 * to the entry's (from -> to) and the entry is validated by entry_parse.
 */
struct admin_libraries_alias {
	const char	*from, *to;
};

static void
admin_libraries_hosted(struct http_req *r, const struct validate_table *t,
    const char *type, const struct admin_libraries_alias *alias)
{
	struct parse_req p;
	json_object	*body, *e, *v;
	char		 err[600];
	size_t		 i;

	if (validate_query(r, &web_util_no_params) == -1 ||
	    (body = validate_body(r, t)) == NULL)
		return;
	e = json_object_new_object();
	json_object_object_add(e, "type", json_object_new_string(type));
	for (i = 0; alias[i].from != NULL; i++)
		if (json_object_object_get_ex(body, alias[i].from, &v) &&
		    !json_object_is_type(v, json_type_null))
			json_object_object_add(e, alias[i].to, json_object_get(v));
	json_object_put(body);
	if (entry_parse(e, &p, err, sizeof(err)) == -1)
		admin_libraries_invalid(r, err);
	else {
		admin_libraries_add(r, &p);
		backend_req_release(&p);
	}
	json_object_put(e);
}

static const struct validate_field admin_libraries_website_fields[] = {
	{ .name = "websiteUrl", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = 2048 },
	{ .name = "projectTitle", .type = VALIDATE_STRING, .min = 1,
	    .max = ENTRY_TITLE_MAX },
	{ .name = "description", .type = VALIDATE_STRING, .max = ENTRY_DESCRIPTION_MAX },
	{ .name = "maxPages", .type = VALIDATE_INT, .min = 1, .max = ENTRY_MAX_PAGES },
	{ .name = "maxDepth", .type = VALIDATE_INT, .max = ENTRY_MAX_DEPTH },
	{ .name = "excludePatterns", .type = VALIDATE_LIST, .max = 100, .elem_max = 255 },
	{ .name = NULL }
};
static const struct validate_table admin_libraries_website_table = {
	.fields = admin_libraries_website_fields,
	.what = "field"
};
static const struct admin_libraries_alias admin_libraries_website_alias[] = {
	{ "websiteUrl", "url" }, { "projectTitle", "title" },
	{ "description", "description" }, { "maxPages", "maxPages" },
	{ "maxDepth", "maxDepth" }, { "excludePatterns", "excludePatterns" },
	{ NULL, NULL }
};

/* POST /api/parse-website: {websiteUrl, projectTitle, description, maxPages, ...}. */
void
admin_libraries_parse_website(struct http_req *r, void *arg)
{
	(void)arg;
	admin_libraries_hosted(r, &admin_libraries_website_table, "website",
	    admin_libraries_website_alias);
}

static const struct validate_field admin_libraries_openapi_fields[] = {
	{ .name = "openApiUrl", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = 2048 },
	{ .name = "projectTitle", .type = VALIDATE_STRING, .min = 1,
	    .max = ENTRY_TITLE_MAX },
	{ .name = "description", .type = VALIDATE_STRING, .max = ENTRY_DESCRIPTION_MAX },
	{ .name = NULL }
};
static const struct validate_table admin_libraries_openapi_table = {
	.fields = admin_libraries_openapi_fields,
	.what = "field"
};
static const struct admin_libraries_alias admin_libraries_openapi_alias[] = {
	{ "openApiUrl", "url" }, { "projectTitle", "title" },
	{ "description", "description" }, { NULL, NULL }
};

/* POST /api/parse-openapi: {openApiUrl, projectTitle, description}. */
void
admin_libraries_parse_openapi(struct http_req *r, void *arg)
{
	(void)arg;
	admin_libraries_hosted(r, &admin_libraries_openapi_table, "openapi",
	    admin_libraries_openapi_alias);
}

/*
 * A form text field of an upload (at most max characters of UTF-8 without control
 * characters but tab and newline) copied into *out; absent: *out stays NULL. -1 with err.
 */
static int
admin_libraries_form_text(const struct multipart_part *parts, size_t n, const char *name,
    long max, char **out, char *err, size_t errsz)
{
	const struct multipart_part *f = multipart_find(parts, n, name);
	long		 chars;
	size_t		 i;

	*out = NULL;
	if (f == NULL)
		return 0;
	chars = validate_utf8_chars(f->data, f->len);
	for (i = 0; i < f->len; i++)
		if (((unsigned char)f->data[i] < 0x20 && f->data[i] != '\t' &&
		    f->data[i] != '\n') || f->data[i] == 0x7f)
			chars = -1;
	if (chars < 0 || chars > max) {
		snprintf(err, errsz, "field '%s' must be text of at most %ld characters",
		    name, max);
		return -1;
	}
	if ((*out = strndup(f->data, f->len)) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * The uploaded description: a JSON object or a YAML document naming "openapi" or
 * "swagger" at its top level; *ext gets "json" or "yaml". -1 with err.
 */
static int
admin_libraries_spec_kind(const struct multipart_part *f, const char **ext, char *err,
    size_t errsz)
{
	size_t		 i = 0;
	const char	*d = f->data, *p;

	if (f->len == 0 || memchr(d, '\0', f->len) != NULL ||
	    validate_utf8_chars(d, f->len) < 0) {
		snprintf(err, errsz, "field 'openapiFile' must be a JSON or YAML text "
		    "file (UTF-8, no NUL bytes)");
		return -1;
	}
	if (f->len >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < f->len && strchr(" \t\r\n", d[i]) != NULL)
		i++;
	*ext = i < f->len && d[i] == '{' ? "json" : "yaml";
	for (p = d; p != NULL && p < d + f->len; p = memchr(p, '\n', (size_t)(d + f->len -
	    p)), p = p != NULL ? p + 1 : NULL) {
		size_t left = (size_t)(d + f->len - p);

		if ((left > 8 && memcmp(p, "openapi:", 8) == 0) ||
		    (left > 8 && memcmp(p, "swagger:", 8) == 0) ||
		    (strcmp(*ext, "json") == 0 && left > 10 &&
		    (memcmp(p + strspn(p, " \t\r{"), "\"openapi\"", 9) == 0 ||
		    memcmp(p + strspn(p, " \t\r{"), "\"swagger\"", 9) == 0)))
			return 0;
	}
	if (strcmp(*ext, "json") == 0 && (memmem(d, f->len, "\"openapi\"", 9) != NULL ||
	    memmem(d, f->len, "\"swagger\"", 9) != NULL))
		return 0;
	snprintf(err, errsz, "field 'openapiFile' is not an OpenAPI description (no "
	    "top-level 'openapi' or 'swagger' field)");
	return -1;
}

/*
 * The cap of the uploads kept for the caller (setting uploads.max_mb_per_user): 0 when a
 * file of len bytes, stored as name for library id (whose upload it replaces), keeps
 * them within it, else answers 413 naming the cap (500: database) and -1. The callers
 * without a user account (anonymous, operator keys) count as one user; admins are exempt.
 */
static int
admin_libraries_upload_cap(struct http_req *r, const char *id, const char *name,
    size_t len)
{
	unsigned long long kept, cap;

	if (r->who.admin)
		return 0;
	cap = (unsigned long long)settings_get_long(r->db, util_data_dir(),
	    "uploads.max_mb_per_user", ADMIN_LIBRARIES_UPLOADS_MB) * 1024 * 1024;
	if (openapisrc_uploads_bytes(r->db, util_data_dir(), r->who.user.id, id, name,
	    &kept) == -1) {
		web_util_dberr(r, __func__, "the uploads kept could not be counted");
		return -1;
	}
	if (kept + len <= cap)
		return 0;
	http_error(r, 413, "the uploads kept for %s would take %.1f MB with this file "
	    "(%.1f MB), over the cap of %llu MB per user (setting "
	    "uploads.max_mb_per_user); delete a library made from an upload, or upload a "
	    "smaller file", r->who.user.id != 0 ? "your libraries" :
	    "libraries added without a user account", (double)(kept + len) / 1048576.0,
	    (double)len / 1048576.0, cap / 1024 / 1024);
	return -1;
}

/*
 * POST /api/parse-openapi-upload: multipart/form-data with the file "openapiFile" (JSON
 * or YAML) and the text fields projectTitle and description. The file is kept as
 * DATA_DIR/uploads/<sha256>.<json|yaml> for the worker while a library names it: the
 * upload a library had goes when a new one replaces it, the new one when the add is
 * refused (openapisrc_upload_release), a deleted library's with it (the back end's
 * forget). The library's id comes from the title, else the file name (entry.h).
 */
void
admin_libraries_parse_upload(struct http_req *r, void *arg)
{
	struct multipart_part parts[MULTIPART_MAX_PARTS];
	const struct multipart_part *f;
	struct parse_req p;
	struct buf	 url;
	json_object	*settings;
	const char	*ext;
	char		 err[600], hash[65], name[80], *dir = NULL, *path = NULL;
	char		*old = NULL;
	size_t		 n, i;
	int		 lock = -1, written = 0;

	(void)arg;
	memset(&p, 0, sizeof(p));
	if (validate_query(r, &web_util_no_params) == -1 ||
	    http_read_body(r, BACKEND_UPLOAD_MAX) == -1)
		return;
	if (multipart_parse(r->content_type, r->body, r->body_len, parts, &n, err,
	    sizeof(err)) == -1) {
		http_error(r, r->content_type == NULL || strncasecmp(r->content_type,
		    "multipart/form-data", 19) != 0 ? 415 : 400, "%s", err);
		return;
	}
	for (i = 0; i < n; i++)
		if (strcmp(parts[i].name, "openapiFile") != 0 &&
		    strcmp(parts[i].name, "projectTitle") != 0 &&
		    strcmp(parts[i].name, "description") != 0) {
			http_error(r, 400, "unknown field '%.64s'", parts[i].name);
			return;
		}
	if ((f = multipart_find(parts, n, "openapiFile")) == NULL) {
		http_error(r, 400, "missing required field 'openapiFile'");
		return;
	}
	p.type = "openapi";
	if (admin_libraries_form_text(parts, n, "projectTitle", ENTRY_TITLE_MAX, &p.title,
	    err, sizeof(err)) == -1 || admin_libraries_form_text(parts, n, "description",
	    ENTRY_DESCRIPTION_MAX, &p.description, err, sizeof(err)) == -1 ||
	    admin_libraries_spec_kind(f, &ext, err, sizeof(err)) == -1 ||
	    entry_upload_id(p.title, f->filename, p.id, sizeof(p.id), err,
	    sizeof(err)) == -1) {
		admin_libraries_invalid(r, err);
		goto out;
	}
	p.given = (p.title != NULL ? LIBRARY_GIVEN_TITLE : 0) |
	    (p.description != NULL ? LIBRARY_GIVEN_DESCRIPTION : 0);
	crypto_sha256_hex(f->data, f->len, hash);
	snprintf(name, sizeof(name), "%s.%s", hash, ext);
	if ((dir = util_path_join(util_data_dir(), "uploads")) == NULL ||
	    (path = util_path_join(dir, name)) == NULL)
		goto nomem;
	if (util_mkdir_p(dir, 0750) == -1 || (lock = openapisrc_uploads_lock(dir)) == -1) {
		if (errno == EBUSY)
			http_error(r, 503, "other uploads are being stored; try again");
		else {
			log_err("%s: %s: %s", __func__, dir, strerror(errno));
			http_error(r, 500, "the upload could not be stored; the responder "
			    "log has the details");
		}
		goto out;
	}
	if (openapisrc_upload_of(r->db, p.id, &old) == -1) {
		web_util_dberr(r, __func__, "the library's upload could not be looked up");
		goto out;
	}
	if (admin_libraries_upload_cap(r, p.id, name, f->len) == -1)
		goto out;
	written = 1;
	if (util_write_file(path, f->data, f->len, 0640) == -1) {
		web_util_dberr(r, __func__, "the upload could not be stored");
		goto out;
	}
	settings = json_object_new_object();
	json_object_object_add(settings, "upload", json_object_new_string(name));
	json_object_object_add(settings, "fileName", json_object_new_string(
	    f->filename[0] != '\0' ? f->filename : name));
	p.settings = strdup(json_object_to_json_string_ext(settings,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(settings);
	snprintf(p.host, sizeof(p.host), "upload");
	buf_init(&url);
	if (p.settings == NULL || (p.given_settings = strdup(p.settings)) == NULL ||
	    buf_printf(&url, "upload:%s", f->filename[0] != '\0' ? f->filename :
	    name) == -1 || (p.repo_url = buf_detach(&url)) == NULL ||
	    (p.branch = strdup("")) == NULL)
		goto nomem;
	admin_libraries_add(r, &p);
	goto out;
nomem:
	http_error(r, 500, "out of memory");
out:
	/* Kept only while a library names it: the new file, and the one it replaced. */
	if (written)
		openapisrc_upload_release(r->db, util_data_dir(), name, NULL);
	if (written && old != NULL && strcmp(old, name) != 0)
		openapisrc_upload_release(r->db, util_data_dir(), old, NULL);
	openapisrc_uploads_unlock(lock);
	free(old);
	free(dir);
	free(path);
	backend_req_release(&p);
}

static const struct validate_field admin_libraries_list_fields[] = {
	{ .name = "state", .type = VALIDATE_STRING,
	    .choices = "initial|processing|finalized|error|delete" },
	{ .name = "limit", .type = VALIDATE_INT, .min = 1, .max = 500 },
	{ .name = "offset", .type = VALIDATE_INT, .max = 1000000000 },
	{ .name = NULL }
};
static const struct validate_table admin_libraries_list_params = {
	.fields = admin_libraries_list_fields,
	.what = "parameter"
};

void
admin_libraries_list(struct http_req *r, void *arg)
{
	json_object	*o;

	(void)arg;
	if (validate_query(r, &admin_libraries_list_params) == -1)
		return;
	if ((o = catalog_libraries(r->db, http_param(r, "state"),
	    web_util_param_long(r, "limit", 100),
	    web_util_param_long(r, "offset", 0))) == NULL)
		web_util_dberr(r, __func__, "database error");
	else
		web_util_send(r, 200, NULL, o);
}

/* An owner or repo segment of a library path: letters, digits, '.', '-', '_'. */
static int
admin_libraries_check_segment(const char *v, char *err, size_t errsz)
{
	if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	    strlen(v) || strcmp(v, ".") == 0 || strcmp(v, "..") == 0) {
		snprintf(err, errsz, "must be letters, digits, '.', '-' or '_'");
		return -1;
	}
	return 0;
}

static const struct validate_field admin_libraries_segment = {
	.name = "owner",
	.type = VALIDATE_STRING,
	.required = 1,
	.min = 1,
	.max = ADMIN_LIBRARIES_SEGMENT_MAX,
	.check = admin_libraries_check_segment
};

int
admin_libraries_id(struct http_req *r, char *id, size_t idsz)
{
	const char	*p, *e;
	char		 err[256], seg[ADMIN_LIBRARIES_SEGMENT_MAX * 4 + 1];
	size_t		 n, nsegs = 0;

	if ((size_t)snprintf(id, idsz, "/%s/%s", http_arg(r, "owner"), http_arg(r, "id")) >=
	    idsz)
		goto bad;
	p = id + 1;
	for (; *p != '\0'; p = *e == '\0' ? e : e + 1, nsegs++) {
		e = p + strcspn(p, "/");
		if ((n = (size_t)(e - p)) >= sizeof(seg))
			goto bad;
		memcpy(seg, p, n);
		seg[n] = '\0';
		if (validate_string(&admin_libraries_segment, "path segment", seg, n, err,
		    sizeof(err)) == -1)
			goto bad;
	}
	if (nsegs >= 2)
		return 0;
bad:
	http_error(r, 404, "no such endpoint: %s (libraries are "
	    "/api/libraries/OWNER/REPO)", r->path);
	return -1;
}

void
admin_libraries_get(struct http_req *r, void *arg)
{
	json_object	*o;
	char		 id[512];
	int		 rc;

	(void)arg;
	if (admin_libraries_id(r, id, sizeof(id)) == -1 ||
	    validate_query(r, &web_util_no_params) == -1)
		return;
	if ((rc = catalog_library(r->db, id, &o)) == 1)
		web_util_send(r, 200, NULL, o);
	else if (rc == 0)
		http_error(r, 404, "library %s does not exist", id);
	else
		web_util_dberr(r, __func__, "database error");
}

static const struct validate_field admin_libraries_refresh_fields[] = {
	{ .name = "force", .type = VALIDATE_BOOL },
	{ .name = NULL }
};
static const struct validate_table admin_libraries_refresh_params = {
	.fields = admin_libraries_refresh_fields,
	.what = "parameter"
};

/* Queues a refresh (del 0) or the deletion (del 1) of the library of the path. */
static void
admin_libraries_queue(struct http_req *r, int del)
{
	enum library_change rc;
	const char	*force;
	long long	 job;
	char		 id[512], err[600];
	int		 queued = 0;

	if (admin_libraries_id(r, id, sizeof(id)) == -1 ||
	    validate_query(r, del ? &web_util_no_params :
	    &admin_libraries_refresh_params) == -1)
		return;
	/*
	 * a deletion is not capped (it ends the library's queued jobs), nor a refresh that
	 * joins the library's queued job
	 */
	if (!del && (queued = jobs_index_queued(r->db, id)) == -1) {
		web_util_dberr(r, __func__, "cannot read the library's queued jobs");
		return;
	}
	if (admin_libraries_queuer(r, del || queued ? 0 : 1) == -1)
		return;
	force = http_param(r, "force");
	rc = library_queue(r->db, id, del, force != NULL && strcmp(force, "true") == 0,
	    r->who.user.id, r->who.admin, &job, err, sizeof(err));
	jobs_queuer_end();
	if (rc != LIBRARY_OK)
		admin_libraries_refused(r, rc, err);
	else
		admin_libraries_queued(r, id, job, del ? "deletion" : "indexing");
}

void
admin_libraries_refresh(struct http_req *r, void *arg)
{
	(void)arg;
	admin_libraries_queue(r, 0);
}

void
admin_libraries_delete(struct http_req *r, void *arg)
{
	(void)arg;
	admin_libraries_queue(r, 1);
}

static const struct validate_field admin_libraries_rename_fields[] = {
	{ .name = "title", .type = VALIDATE_STRING, .min = 1, .max = ENTRY_TITLE_MAX },
	{ .name = "description", .type = VALIDATE_STRING, .max = ENTRY_DESCRIPTION_MAX },
	{ .name = NULL }
};
static const struct validate_table admin_libraries_rename_body = {
	.fields = admin_libraries_rename_fields,
	.allow_unknown = 1,		/* admin_libraries_rename names the right call */
	.what = "field"
};

/*
 * PATCH /api/libraries/{owner}/{id*}: the title and the description, which change what a
 * library shows but not how it is indexed: stored at once, no job. A library the GitOps
 * manifest manages, a version (it shows its library's) or one being deleted is refused
 * with 409 naming where it changes.
 */
void
admin_libraries_rename(struct http_req *r, void *arg)
{
	struct store_library l;
	json_object	*body;
	const char	*title, *desc;
	char		 id[512], now[32];

	(void)arg;
	if (admin_libraries_id(r, id, sizeof(id)) == -1 ||
	    validate_query(r, &web_util_no_params) == -1 ||
	    (body = validate_body(r, &admin_libraries_rename_body)) == NULL)
		return;
	json_object_object_foreach(body, key, val) {
		(void)val;
		if (strcmp(key, "title") != 0 && strcmp(key, "description") != 0) {
			http_error(r, 400, "unknown field '%.64s': this call changes the title "
			    "and the description; POST /api/libraries changes source settings "
			    "and re-indexes", key);
			goto out;
		}
	}
	title = validate_str(body, "title");
	desc = validate_str(body, "description");
	if (title == NULL && desc == NULL) {
		http_error(r, 400, "nothing to change: give a title or a description");
		goto out;
	}
	if (store_library_load(r->db, id, &l) == -1) {
		web_util_dberr(r, __func__, "database error");
		goto out;
	}
	if (!l.exists || strcmp(l.state, "delete") == 0 || l.deleting)
		http_error(r, 404, "library %s does not exist", id);
	else if (l.gitops)
		http_error(r, 409, "library %s is managed by the GitOps manifest: change its "
		    "title there", id);
	else if (strcmp(l.family, id) != 0)
		http_error(r, 409, "%s is a version of %s, whose title and description it "
		    "shows: change them there", id, l.family);
	else {
		util_iso8601(time(NULL), now, sizeof(now));
		if (store_library_rename(r->db, id, title, desc, now) == -1)
			web_util_dberr(r, __func__, "the change could not be stored");
		else {
			log_info("library %s: title or description changed", id);
			admin_libraries_get(r, NULL);
		}
	}
	store_library_release(&l);
out:
	json_object_put(body);
}
