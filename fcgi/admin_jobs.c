/*
 * admin_jobs.c: the jobs of ctxd-web (ctxd-web(8), ADMIN API): the list, one job, its log
 * and its cancellation.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include <json.h>

#include "base/util.h"
#include "base/validate.h"
#include "http/http.h"
#include "search/catalog.h"
#include "store/jobs.h"
#include "web.h"

static const struct validate_field admin_jobs_list_fields[] = {
	{ .name = "library", .type = VALIDATE_STRING, .min = 1, .max = 500 },
	{ .name = "state", .type = VALIDATE_STRING,
	    .choices = "queued|running|done|failed|cancelled" },
	{ .name = "kind", .type = VALIDATE_STRING, .choices = "index|delete" },
	{ .name = "limit", .type = VALIDATE_INT, .min = 1, .max = 200 },
	{ .name = "before", .type = VALIDATE_INT, .min = 1, .max = LONG_MAX },
	{ .name = NULL }
};
static const struct validate_table admin_jobs_list_params = {
	.fields = admin_jobs_list_fields,
	.what = "parameter"
};

static const struct validate_field admin_jobs_log_fields[] = {
	{ .name = "after", .type = VALIDATE_INT, .max = LONG_MAX },
	{ .name = "limit", .type = VALIDATE_INT, .min = 1, .max = 5000 },
	{ .name = NULL }
};
static const struct validate_table admin_jobs_log_params = {
	.fields = admin_jobs_log_fields,
	.what = "parameter"
};

void
admin_jobs_list(struct http_req *r, void *arg)
{
	struct catalog_job_filter f;
	json_object	*o;

	(void)arg;
	if (validate_query(r, &admin_jobs_list_params) == -1)
		return;
	f.library = http_param(r, "library");
	f.state = http_param(r, "state");
	f.kind = http_param(r, "kind");
	f.limit = web_util_param_long(r, "limit", 50);
	f.before = web_util_param_long(r, "before", LONG_MAX);
	if ((o = catalog_jobs(r->db, &f)) == NULL)
		web_util_dberr(r, __func__, "database error");
	else
		web_util_send(r, 200, NULL, o);
}

/* The job id of the path in *id; answers 404 and returns -1 when it is not a number. */
static int
admin_jobs_id(struct http_req *r, long *id)
{
	if (util_parse_long(http_arg(r, "id"), 1, LONG_MAX, id) == 0)
		return 0;
	http_error(r, 404, "no such endpoint: %s (jobs are /api/jobs/ID, "
	    "/api/jobs/ID/log, /api/jobs/ID/cancel)", r->path);
	return -1;
}

/*
 * The job of the path with its query parameters checked against params (NULL: *id is
 * already known and checked): 1 with the job in *job (caller puts), else answered (404,
 * 400, 500) and -1.
 */
static int
admin_jobs_find(struct http_req *r, const struct validate_table *params, long *id,
    json_object **job)
{
	int	 rc;

	*job = NULL;
	if (params != NULL && (admin_jobs_id(r, id) == -1 ||
	    validate_query(r, params) == -1))
		return -1;
	if ((rc = catalog_job(r->db, *id, job)) == 1)
		return 1;
	if (rc == 0)
		http_error(r, 404, "job %ld does not exist", *id);
	else
		web_util_dberr(r, __func__, "database error");
	return -1;
}

void
admin_jobs_get(struct http_req *r, void *arg)
{
	json_object	*job;
	long		 id;

	(void)arg;
	if (admin_jobs_find(r, &web_util_no_params, &id, &job) == 1)
		web_util_send(r, 200, NULL, job);
}

void
admin_jobs_log(struct http_req *r, void *arg)
{
	json_object	*job, *o, *state;
	long		 id;

	(void)arg;
	if (admin_jobs_find(r, &admin_jobs_log_params, &id, &job) != 1)
		return;
	if ((o = catalog_job_log(r->db, id, web_util_param_long(r, "after", 0),
	    web_util_param_long(r, "limit", 1000))) == NULL)
		web_util_dberr(r, __func__, "database error");
	else {
		json_object_object_add(o, "jobId", json_object_new_int64(id));
		if (json_object_object_get_ex(job, "state", &state))
			json_object_object_add(o, "state", json_object_get(state));
		web_util_send(r, 200, NULL, o);
	}
	json_object_put(job);
}

void
admin_jobs_cancel(struct http_req *r, void *arg)
{
	json_object	*job;
	long		 id;
	int		 status = 200;

	(void)arg;
	if (admin_jobs_id(r, &id) == -1 || validate_query(r, &web_util_no_params) == -1)
		return;
	switch (jobs_cancel(r->db, id)) {
	case JOBS_CANCEL_OK:
		break;
	case JOBS_CANCEL_REQUESTED:
		status = 202;
		break;
	case JOBS_CANCEL_NOT_FOUND:
		http_error(r, 404, "job %ld does not exist", id);
		return;
	case JOBS_CANCEL_FINISHED:
		catalog_job(r->db, id, &job);
		http_error(r, 409, "job %ld is %s: only a queued or running job can be "
		    "cancelled", id, job != NULL ? json_object_get_string(
		    json_object_object_get(job, "state")) : "finished");
		json_object_put(job);
		return;
	case JOBS_CANCEL_DELETING:
		http_error(r, 409, "job %ld is a running deletion: it cannot be cancelled "
		    "(it removes the library in one short transaction and is nearly "
		    "done)", id);
		return;
	case JOBS_CANCEL_ERROR:
		web_util_dberr(r, __func__, "database error");
		return;
	}
	if (admin_jobs_find(r, NULL, &id, &job) == 1)
		web_util_send(r, status, NULL, job);
}
