/*
 * admin_libraries.c: the libraries of ctxd-web (ctxd-web(8), POST /api/parse and ADMIN
 * API): adding a repository, the list, one library, a refresh and a deletion. Adding,
 * refreshing and deleting queue a job and start ctxd-worker; the answer is 202.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json.h>

#include "ctxd.h"
#include "catalog.h"
#include "http.h"
#include "validate.h"
#include "web.h"

#define ADMIN_LIBRARIES_SEGMENT_MAX	200	/* characters of the owner or the repo */

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

/* Answers a library_upsert / library_queue that did not succeed. */
static void
admin_libraries_refused(struct http_req *r, enum library_change rc, const char *err)
{
	http_error(r, rc == LIBRARY_NOT_FOUND ? 404 : rc == LIBRARY_ERROR ? 500 :
	    rc == LIBRARY_FORBIDDEN ? 403 : 409, "%s", err);
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
	enum library_change rc;
	long long	 job;
	char		 err[600], id[512], host[256];

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 || validate_read_body(r) == -1)
		return;
	if (library_parse_request(r->body, r->body_len, &p, err, sizeof(err)) == -1) {
		http_error(r, strcmp(err, "out of memory") == 0 ? 500 : 400, "%s", err);
		return;
	}
	if (library_id_from_url(p.repo_url, id, sizeof(id), host, sizeof(host), err,
	    sizeof(err)) == -1)
		http_error(r, 400, "%s", err);
	else if ((rc = library_upsert(r->db, &p, id, host, r->who.user.id, r->who.admin,
	    &job, err, sizeof(err))) != LIBRARY_OK)
		admin_libraries_refused(r, rc, err);
	else
		admin_libraries_queued(r, id, job, "indexing");
	library_parse_request_release(&p);
}

static const struct validate_field admin_libraries_list_fields[] = {
	{ "state", VALIDATE_STRING, 0, 0, 0, 0,
	    "initial|processing|finalized|error|delete", NULL },
	{ "limit", VALIDATE_INT, 0, 1, 500, 0, NULL, NULL },
	{ "offset", VALIDATE_INT, 0, 0, 1000000000, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL }
};
static const struct validate_table admin_libraries_list_params = {
	admin_libraries_list_fields, 0, "parameter"
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
	"owner", VALIDATE_STRING, 1, 1, ADMIN_LIBRARIES_SEGMENT_MAX, 0, NULL,
	admin_libraries_check_segment
};

/*
 * The library id of the path ("{id*}": "acme/docs" is "/acme/docs") in id: two or more
 * segments, each checked as admin_libraries_segment. Answers 404 and returns -1 when bad.
 */
static int
admin_libraries_id(struct http_req *r, char *id, size_t idsz)
{
	const char	*p = http_arg(r, "id"), *e;
	char		 err[256], seg[ADMIN_LIBRARIES_SEGMENT_MAX * 4 + 1];
	size_t		 n, nsegs = 0;

	if ((size_t)snprintf(id, idsz, "/%s", p) >= idsz)
		goto bad;
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
	{ "force", VALIDATE_BOOL, 0, 0, 0, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL }
};
static const struct validate_table admin_libraries_refresh_params = {
	admin_libraries_refresh_fields, 0, "parameter"
};

/* Queues a refresh (del 0) or the deletion (del 1) of the library of the path. */
static void
admin_libraries_queue(struct http_req *r, int del)
{
	enum library_change rc;
	const char	*force;
	long long	 job;
	char		 id[512], err[600];

	if (admin_libraries_id(r, id, sizeof(id)) == -1 ||
	    validate_query(r, del ? &web_util_no_params :
	    &admin_libraries_refresh_params) == -1)
		return;
	force = http_param(r, "force");
	if ((rc = library_queue(r->db, id, del, force != NULL &&
	    strcmp(force, "true") == 0, &job, err, sizeof(err))) != LIBRARY_OK)
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
