/*
 * test-progress.c: a job's progress as the worker writes it (jobs_progress: at most one
 * write every JOBS_PROGRESS_MS unless forced; jobs_progress_step) and as the admin API
 * reads it (catalog_job's "progress"); the snippet browser's page (catalog_snippets:
 * filter, pages, duplicates left out, code as a list, unknown library).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json.h>

#include "db-helpers.h"
#include "search/catalog.h"
#include "store/db.h"
#include "store/jobs.h"
#include "tap.h"
#include "store/conn.h"

/* The number of rows changed by db since the last call. */
static int
changes(struct db *db)
{
	static int	 last;
	int		 n = sqlite3_total_changes(db_lite(db)), d = n - last;

	last = n;
	return d;
}

static long long
jint(json_object *o, const char *path1, const char *path2)
{
	json_object	*v;

	if (!json_object_object_get_ex(o, path1, &v) ||
	    (path2 != NULL && !json_object_object_get_ex(v, path2, &v)))
		return -1;
	return json_object_get_int64(v);
}

static void
test_progress(struct db *db)
{
	struct jobs_ref	 j;
	json_object	*o = NULL, *p;
	struct timespec	 ts = { 0, (JOBS_PROGRESS_MS + 50) * 1000000L };
	int		 i, n;

	ok(db_run(db, "INSERT INTO jobs (id, library_id, kind, state, created_at) VALUES "
	    "(7, '/a/b', 'index', 'running', 'x')", "") == 0, "a running job");
	is_int(catalog_job(db, 7, &o), 1, "catalog_job finds it");
	p = json_object_object_get(o, "progress");
	ok(p != NULL && json_object_get_type(json_object_object_get(p, "phase")) ==
	    json_type_null && jint(o, "progress", "documentsTotal") == 0,
	    "before any write: no phase, zero counts");
	json_object_put(o);

	memset(&j, 0, sizeof(j));
	j.db = db;
	j.job_id = 7;
	changes(db);
	j.progress.phase = "parsing";
	j.progress.docs_total = 100;
	jobs_progress(&j, 0);
	is_int(changes(db), 1, "the first report is written");
	for (i = 1, n = 0; i <= 100; i++) {
		j.progress.docs_done = i;
		jobs_progress(&j, 0);
		n += changes(db);
	}
	is_int(n, 0, "a hundred more within JOBS_PROGRESS_MS write nothing");
	jobs_progress(&j, 1);
	is_int(changes(db), 1, "a forced one is written at once");
	j.progress.docs_done = 100;
	nanosleep(&ts, NULL);
	jobs_progress(&j, 0);
	is_int(changes(db), 1, "after JOBS_PROGRESS_MS the next one is written");

	jobs_progress_step(&j, "embedding", 3, 10);
	is_int(changes(db), 0, "a step's report in between waits");
	jobs_progress_step(&j, "embedding", 10, 10);
	is_int(changes(db), 1, "its last one (done == total) is written at once");
	jobs_progress_step(&j, "describing", 2, 2);
	is_int(catalog_job(db, 7, &o), 1, "read back");
	is_str(json_object_get_string(json_object_object_get(json_object_object_get(o,
	    "progress"), "phase")), "describing", "phase");
	is_int(jint(o, "progress", "documentsTotal"), 100, "documentsTotal");
	is_int(jint(o, "progress", "documentsDone"), 100, "documentsDone");
	is_int(jint(o, "progress", "embedTotal"), 10, "embedTotal");
	is_int(jint(o, "progress", "embedded"), 10, "embedded");
	is_int(jint(o, "progress", "describeTotal"), 2, "describeTotal");
	is_int(jint(o, "progress", "described"), 2, "described");
	ok(json_object_get_type(json_object_object_get(json_object_object_get(o,
	    "progress"), "updatedAt")) == json_type_string, "updatedAt");
	is_int(jint(o, "logLines", NULL), 0, "logLines still follows the progress columns");
	json_object_put(o);
}

/* The ids of a page of catalog_snippets as "1,2,3" in buf; its total in *total. */
static int
page(struct db *db, const char *q, long limit, long offset, char *buf, size_t bufsz,
    long long *total)
{
	json_object	*o, *a, *s;
	size_t		 i, len = 0;
	int		 rc;

	buf[0] = '\0';
	if ((rc = catalog_snippets(db, "/a/b", q, limit, offset, &o)) != 1)
		return rc;
	*total = jint(o, "total", NULL);
	a = json_object_object_get(o, "snippets");
	for (i = 0; i < json_object_array_length(a); i++) {
		s = json_object_array_get_idx(a, i);
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%lld", i ? "," : "",
		    (long long)jint(s, "id", NULL));
		if (json_object_get_type(json_object_object_get(s, "code")) != json_type_array)
			rc = -2;
	}
	json_object_put(o);
	return rc;
}

static void
test_snippets(struct db *db)
{
	static const struct dbh_snippet sn[] = {
		{ "Install", "pip install requests", "[{\"language\": \"sh\", \"code\": \"pip\"}]" },
		{ "Sessions", "A Session keeps cookies", "[]" },
		{ "Proxies", "Use proxies", "[{\"language\": \"python\", \"code\": \"s = Session()\"}]" },
		{ "Timeouts", "Set a timeout", "[]" },
		{ "Copy", "A Session keeps cookies", "[]" },
		{ "100% _sure_", "wildcards", "not json" },
	};
	char		 buf[256];
	long long	 total = 0;
	json_object	*o;

	ok(dbh_library(db, "/a/b", 3, "finalized", 1, sn, 6) == 0, "a library of 6 snippets");
	ok(db_run(db, "UPDATE snippets SET dup_of = 300 WHERE id = 304", "") == 0,
	    "one is a duplicate");
	is_int(page(db, NULL, 20, 0, buf, sizeof(buf), &total), 1, "all");
	is_str(buf, "300,301,302,303,305", "the served ones in order, code always a list");
	is_int(total, 5, "total");
	page(db, "", 2, 2, buf, sizeof(buf), &total);
	is_str(buf, "302,303", "a page (empty filter: all)");
	page(db, "SESSION", 20, 0, buf, sizeof(buf), &total);
	is_str(buf, "301,302", "the filter ignores case, searches title, text and code");
	is_int(total, 2, "its total");
	page(db, "readme", 20, 0, buf, sizeof(buf), &total);
	is_int(total, 5, "and the document path");
	page(db, "%", 20, 0, buf, sizeof(buf), &total);
	is_str(buf, "305", "a percent sign is a plain character");
	page(db, "_", 20, 0, buf, sizeof(buf), &total);
	is_str(buf, "305", "'_' too");
	page(db, NULL, 20, 50, buf, sizeof(buf), &total);
	ok(buf[0] == '\0' && total == 5, "past the end: empty, with the total");
	is_int(catalog_snippets(db, "/a/none", NULL, 20, 0, &o), 0, "an unknown library: 0");
	ok(o == NULL, "and nothing");
}

int
main(void)
{
	char	 dir[256];
	struct db	*db;

	if (dbh_open(dir, sizeof(dir), &db) == -1) {
		printf("Bail out! cannot open a test database\n");
		return 1;
	}
	test_progress(db);
	test_snippets(db);
	dbh_remove(dir, db);
	return tap_done();
}
