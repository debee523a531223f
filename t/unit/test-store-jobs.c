/*
 * test-store-jobs.c: the job queue's store modules on either engine (lib/store/jobs.c,
 * catalog.c, gitops.c, ghapp.c): the same calls on a SQLite database (db_open in a
 * temporary DATA_DIR) and, when DATABASE_URL names a server (t/t0020-pg-store-jobs.sh
 * starts one), on PostgreSQL (the schema of pgstore_migrate in a schema of the test's own,
 * dropped at the end). Each engine's answers are checked, and written to a trace that must
 * be the same for both. On PostgreSQL, several connections claim as several nodes would:
 * a claim waits for another's claim decision, processes claiming at once take every job
 * once and never two of one library family at a time, and one node runs a GitOps sync.
 */
#include "config.h"

#include <sys/wait.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/util.h"
#include "store/catalog.h"
#include "store/ghapp.h"
#include "store/gitops.h"
#include "store/jobs.h"
#include "store/pg.h"
#include "store/pgstore.h"
#include "store/stmt.h"
#include "store/users.h"
#include "db-helpers.h"
#include "tap.h"
#include "store-trace.h"

#define SCHEMA	"storejobs"

/* Adds library id (its version of version_of when not NULL, on branch). */
static int
add_library(struct db *db, const char *id, int no, const char *version_of,
    const char *branch, const char *state, const char *commit)
{
	return db_run(db, "INSERT INTO libraries (id, lib_no, url, host, title, branch, "
	    "state, indexed_commit, version_of, created_at, updated_at) VALUES (?1, ?2, "
	    "'https://git.example' || ?1, 'git.example', ?1, ?4, ?5, ?6, ?3, "
	    "'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')", "titttt", id, no, version_of,
	    branch, state, commit);
}

/* A row of the job list as a line: id library kind state force attempts msg place waits. */
static int
job_cb(const struct store_row *r, void *arg)
{
	char		*s = arg;
	size_t		 len = strlen(s);
	const char	*pos = store_row_text(r, STORE_CATALOG_NJOB + STORE_CATALOG_NPROGRESS);
	const char	*waits = store_row_text(r, STORE_CATALOG_NJOB +
			    STORE_CATALOG_NPROGRESS + 1);

	snprintf(s + len, 4096 - len, "[%lld %s %s %s f=%lld a=%lld c=%lld m=%s p=%s w=%s "
	    "phase=%s %lld/%lld]", store_row_int(r, 0), store_row_text(r, 1),
	    store_row_text(r, 2), store_row_text(r, 3), store_row_int(r, 4),
	    store_row_int(r, 5), store_row_int(r, 10),
	    store_row_text(r, 6) ? store_row_text(r, 6) : "-", pos ? pos : "-",
	    waits ? waits : "-", store_row_text(r, 11) ? store_row_text(r, 11) : "-",
	    store_row_int(r, 13), store_row_int(r, 12));
	return 0;
}

/* A library row: id state run_status last_error versions (JSON, as json-c writes it). */
static int
lib_cb(const struct store_row *r, void *arg)
{
	char		*s = arg;
	size_t		 len = strlen(s);
	const char	*v = store_row_text(r, STORE_CATALOG_NLIB + 2);
	json_object	*o = v != NULL ? json_tokener_parse(v) : NULL;

	snprintf(s + len, 4096 - len, "[%s %s %s err=%s versions=%s]", store_row_text(r, 0),
	    store_row_text(r, 6), store_row_text(r, 7) ? store_row_text(r, 7) : "-",
	    store_row_text(r, 12) ? store_row_text(r, 12) : "-", o != NULL ?
	    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE) : "(bad)");
	json_object_put(o);
	return 0;
}

/* Log lines and snippets: their text columns joined. */
struct cols {
	char	 s[4096];
	int	 first, n, stop;
};

static int
cols_cb(const struct store_row *r, void *arg)
{
	struct cols	*c = arg;
	size_t		 len = strlen(c->s);
	const char	*t;
	int		 i;

	snprintf(c->s + len, sizeof(c->s) - len, "[");
	for (i = c->first; i < c->first + c->n; i++) {
		len = strlen(c->s);
		t = store_row_text(r, i);
		snprintf(c->s + len, sizeof(c->s) - len, "%s%s", i > c->first ? "|" : "",
		    t ? t : "-");
	}
	len = strlen(c->s);
	snprintf(c->s + len, sizeof(c->s) - len, "]");
	return c->stop;
}

static char *
jobs_list(struct db *db, const char *lib, const char *state, char *s)
{
	s[0] = '\0';
	if (store_catalog_jobs(db, lib, state, NULL, LLONG_MAX, 100, job_cb, s) == -1)
		snprintf(s, 4096, "(error)");
	return s;
}

static char *
job_one(struct db *db, long long id, char *s)
{
	s[0] = '\0';
	if (store_catalog_job(db, id, job_cb, s) == -1)
		snprintf(s, 4096, "(error)");
	return s;
}

static char *
lib_one(struct db *db, const char *id, char *s)
{
	s[0] = '\0';
	if (store_catalog_library(db, id, lib_cb, s) == -1)
		snprintf(s, 4096, "(error)");
	return s;
}

/* Claims the next job for holder: its id (0 none, -1 error), traced. */
static long long
claim(struct db *db, const char *holder, const char *e)
{
	struct jobs_next n;
	int		 rc;

	rc = jobs_claim(db, holder, 60, &n);
	ok(rc == 0 || rc == 1, "%s: a claim by %s (%d)", e, holder, rc);
	tr("claim %s: %d %lld %s force=%d delete=%d", holder, rc, n.id, n.library_id,
	    n.force, n.is_delete);
	return rc == 1 ? n.id : rc;
}

/* Lets job id's lease lapse (its runner died an hour ago). */
static void
lapse(struct db *db, long long id)
{
	db_run(db, "UPDATE jobs SET lease_until = '2000-01-01T00:00:00Z' WHERE id = ?1", "I",
	    id);
}

static void
test_queue(struct db *db, const char *e, long long ann, long long bob, long long *j)
{
	char		 err[256], s[4096];
	long long	 id;

	eq_int(jobs_queuer_begin(db, ann, "user", 0, 2, err, sizeof(err)), 0,
	    "%s: ann may queue", e);
	eq_int(jobs_enqueue(db, "/a/x", 0, &j[1]), 0, "%s: ann queues /a/x", e);
	eq_int(jobs_enqueue(db, "/b/y", 0, &j[2]), 0, "%s: ... and /b/y", e);
	jobs_queuer_end();
	eq_int(jobs_queuer_begin(db, bob, "user", 0, 1, err, sizeof(err)), 0,
	    "%s: bob may queue", e);
	eq_int(jobs_enqueue(db, "/c/z", 0, &j[3]), 0, "%s: bob queues /c/z", e);
	jobs_queuer_end();
	eq_int(jobs_enqueue(db, "/a/x@v2", 0, &j[4]), 0, "%s: the service queues /a/x@v2", e);
	eq_int(jobs_enqueue(db, "/a/x", 1, &id), 0, "%s: /a/x again, forced", e);
	eq_int(id, j[1], "%s: ... joins the queued job", e);
	tr("queued %lld %lld %lld %lld", j[1], j[2], j[3], j[4]);
	eq_int(jobs_index_queued(db, "/a/x"), 1, "%s: /a/x has a queued job", e);
	eq_int(jobs_index_queued(db, "/nope"), 0, "%s: /nope none", e);
	/* the service's request took /a/x over: ann has one job queued */
	eq_int(jobs_queuer_begin(db, ann, "user", 0, 50, err, sizeof(err)), 1,
	    "%s: ann's cap (1 queued + 50 > 50)", e);
	tr("cap: %s", err);
	eq_int(jobs_queuer_begin(db, ann, "user", 1, 49, err, sizeof(err)), 0,
	    "%s: ... an admin has none", e);
	jobs_queuer_end();
	eq_int(jobs_queuer_begin(db, 0, "bogus", 0, 1, err, sizeof(err)), -1,
	    "%s: an unknown requester", e);
	eq_int(jobs_waiting(db), 1, "%s: jobs wait", e);
	jobs_list(db, NULL, NULL, s);
	ok(strstr(s, "[1 /a/x index queued f=1 a=0 c=0 m=- p=1 ") != NULL &&
	    strstr(s, "[4 /a/x@v2 index queued f=0 a=0 c=0 m=- p=2 ") != NULL,
	    "%s: the service's jobs are the next claimed (%s)", e, s);
	tr("list %s", s);
}

static void
test_claims(struct db *db, const char *e, long long *j)
{
	struct jobs_ref	 ref;
	struct cols	 c;
	char		 s[4096];

	/* the service's first; then the family of /a/x waits; queuers take turns */
	eq_int(claim(db, "h1:1", e), j[1], "%s: the service's job first", e);
	eq_int(claim(db, "h1:1", e), j[2], "%s: /a/x@v2 waits for /a/x: ann's /b/y", e);
	eq_int(claim(db, "h2:1", e), j[3], "%s: then bob, whose turn it is", e);
	eq_int(claim(db, "h2:1", e), 0, "%s: /a/x@v2 waits while /a/x is claimed", e);
	eq_int(jobs_run_start(db, j[1], "/a/x"), 0, "%s: /a/x runs", e);
	job_one(db, j[4], s);
	ok(strstr(s, " p=1 w=1 ") != NULL,
	    "%s: /a/x@v2 is first in the queue and waits for /a/x's job (%s)", e, s);
	tr("job %s", s);
	jobs_log(db, j[1], "info", "line %d", 1);
	jobs_log(db, j[1], "warning", "line %d", 2);
	jobs_log(db, j[1], "error", "line %d", 3);
	memset(&c, 0, sizeof(c));
	c.first = 1;
	c.n = 3;
	eq_int(store_catalog_job_log(db, j[1], 1, 10, cols_cb, &c), 0, "%s: the job's log", e);
	ok(strstr(c.s, "|warning|line 2][") != NULL && strstr(c.s, "|error|line 3]") != NULL &&
	    strstr(c.s, "line 1") == NULL, "%s: ... after its first line (%s)", e, c.s);
	/* the times vary: keep levels and lines */
	memset(&c, 0, sizeof(c));
	c.first = 2;
	c.n = 2;
	store_catalog_job_log(db, j[1], 0, 2, cols_cb, &c);
	eq_str(c.s, "[info|line 1][warning|line 2]", "%s: the log after a line, limited", e);
	tr("log %s", c.s);
	memset(&ref, 0, sizeof(ref));
	ref.db = db;
	ref.job_id = j[1];
	ref.progress.phase = "parsing";
	ref.progress.docs_total = 7;
	ref.progress.docs_done = 3;
	jobs_progress(&ref, 1);
	jobs_progress_step(&ref, "embedding", 2, 2);
	job_one(db, j[1], s);
	ok(strstr(s, "phase=embedding 3/7") != NULL, "%s: the progress written (%s)", e, s);
	tr("job %s", s);
	eq_int(jobs_run_end(db, j[1], "/a/x", 1, "indexed"), 0, "%s: its run ends", e);
	eq_int(jobs_finish_running(db, j[1]), 0, "%s: ... the job done", e);
	eq_int(jobs_run_degrade(db, j[1], "/a/x", "no vectors", "indexed, no vectors"), 0,
	    "%s: degraded", e);
	lib_one(db, "/a/x", s);
	ok(strncmp(s, "[/a/x finalized degraded err=no vectors versions=[{", 51) == 0,
	    "%s: the library (%s)", e, s);
	tr("lib %s", s);
	eq_int(claim(db, "h1:1", e), j[4], "%s: /a/x@v2 once /a/x is done", e);
	eq_int(jobs_lease_renew(db, "h1:1", 60), 0, "%s: leases renewed", e);
	jobs_list(db, NULL, NULL, s);
	tr("list %s", s);
}

static void
test_recover(struct db *db, const char *e, long long *j)
{
	char		 s[4096];
	long long	 id;

	eq_int(jobs_orphans(db), 0, "%s: no orphan", e);
	/* /c/z: its process died: requeued, its run unfinished */
	eq_int(jobs_run_start(db, j[3], "/c/z"), 0, "%s: /c/z runs", e);
	lapse(db, j[3]);
	eq_int(jobs_orphans(db), 1, "%s: its lease lapsed: an orphan", e);
	eq_int(jobs_recover(db), 0, "%s: recovered", e);
	eq_int(jobs_orphans(db), 0, "%s: ... no orphan left", e);
	tr("requeued %s", job_one(db, j[3], s));
	ok(strstr(s, "queued f=1 a=1") != NULL, "%s: ... queued again in full (%s)", e, s);
	tr("lib %s", lib_one(db, "/c/z", s));
	ok(strstr(s, " processing unfinished ") != NULL, "%s: ... its run unfinished (%s)", e,
	    s);
	/* started JOBS_MAX_ATTEMPTS times: failed */
	db_run(db, "UPDATE jobs SET attempts = ?2 WHERE id = ?1", "Ii", j[3],
	    JOBS_MAX_ATTEMPTS);
	eq_int(claim(db, "h3:1", e), j[3], "%s: /c/z claimed again", e);
	eq_int(jobs_run_start(db, j[3], "/c/z"), 0, "%s: ... runs", e);
	lapse(db, j[3]);
	eq_int(jobs_recover(db), 0, "%s: recovered", e);
	tr("failed %s", job_one(db, j[3], s));
	ok(strstr(s, " failed f=1 a=4 ") != NULL, "%s: ... failed at last (%s)", e, s);
	tr("lib %s", lib_one(db, "/c/z", s));
	ok(strstr(s, " error failed err=the worker stopped") != NULL,
	    "%s: ... its library in error (%s)", e, s);
	/* /b/y: cancelled while it ran, then its process died */
	eq_int(jobs_run_start(db, j[2], "/b/y"), 0, "%s: /b/y runs", e);
	eq_int(jobs_cancel(db, j[2]), JOBS_CANCEL_REQUESTED, "%s: a cancellation asked", e);
	eq_int(jobs_cancel(db, j[2]), JOBS_CANCEL_REQUESTED, "%s: ... again", e);
	eq_int(jobs_cancel_requested(db, j[2]), 1, "%s: ... requested", e);
	eq_int(jobs_cancel_requested(db, j[4]), 0, "%s: not for /a/x@v2", e);
	lapse(db, j[2]);
	eq_int(jobs_recover(db), 0, "%s: recovered", e);
	tr("cancelled %s", job_one(db, j[2], s));
	ok(strstr(s, " cancelled ") != NULL, "%s: ... cancelled (%s)", e, s);
	tr("lib %s", lib_one(db, "/b/y", s));
	/* /a/x@v2: died after its index was written: done, and a follow-up queued */
	eq_int(jobs_run_start(db, j[4], "/a/x@v2"), 0, "%s: /a/x@v2 runs", e);
	eq_int(jobs_run_end(db, j[4], "/a/x@v2", 1, "indexed"), 0,
	    "%s: ... its index written", e);
	lapse(db, j[4]);
	eq_int(jobs_recover(db), 0, "%s: recovered", e);
	tr("done %s", job_one(db, j[4], s));
	ok(strstr(s, " done ") != NULL, "%s: ... done (%s)", e, s);
	tr("follow-up %s", jobs_list(db, "/a/x@v2", "queued", s));
	ok(strstr(s, "completes the titles") != NULL, "%s: ... a follow-up queued (%s)", e, s);
	/* a claim given back, a pool's earlier life */
	id = claim(db, "h4:1", e);
	ok(id > 0, "%s: the follow-up claimed", e);
	eq_int(claim(db, "h4:1", e), 0, "%s: ... nothing else claimable", e);
	eq_int(jobs_lease_drop(db, id), 0, "%s: its lease dropped", e);
	eq_int(claim(db, "h5:1", e), id, "%s: ... claimable again", e);
	eq_int(jobs_lease_drop_holder(db, "h5:"), 0, "%s: h5's leases dropped", e);
	eq_int(claim(db, "h6:1", e), id, "%s: ... claimable again", e);
	eq_int(jobs_lease_drop_holder(db, "h5:"), 0, "%s: h5's again", e);
	eq_int(claim(db, "h7:1", e), 0, "%s: ... h6's stays", e);
	eq_int(jobs_start(db, id), 0, "%s: started", e);
	eq_int(jobs_finish(db, id, 0, "it broke"), 0, "%s: ... failed", e);
	tr("finished %s", job_one(db, id, s));
}

static void
test_delete(struct db *db, const char *e)
{
	char		 s[4096];
	long long	 d, d2, v, q;

	eq_int(jobs_enqueue(db, "/a/x", 0, &q), 0, "%s: /a/x queued", e);
	eq_int(jobs_enqueue_delete(db, "/a/x", &d), 0, "%s: /a/x's deletion queued", e);
	eq_int(jobs_enqueue_delete(db, "/a/x", &d2), 0, "%s: ... again", e);
	eq_int(d2, d, "%s: ... the same job", e);
	eq_int(jobs_delete_pending(db, "/a/x", &d2), 1, "%s: pending", e);
	eq_int(jobs_delete_pending(db, "/b/y", NULL), 0, "%s: none for /b/y", e);
	eq_int(jobs_delete_pending(db, "/a/x@v2", &v), 1, "%s: its version's too", e);
	tr("delete %s", job_one(db, q, s));
	ok(strstr(s, " cancelled ") != NULL, "%s: its queued job cancelled (%s)", e, s);
	tr("lib %s", lib_one(db, "/a/x", s));
	ok(strstr(s, "[/a/x delete ") != NULL, "%s: /a/x in deletion (%s)", e, s);
	eq_int(jobs_cancel(db, d), JOBS_CANCEL_OK, "%s: the deletion cancelled", e);
	eq_int(jobs_cancel(db, d), JOBS_CANCEL_FINISHED, "%s: ... once", e);
	eq_int(jobs_cancel(db, 9999), JOBS_CANCEL_NOT_FOUND, "%s: no such job", e);
	tr("lib %s", lib_one(db, "/a/x", s));
	ok(strstr(s, "[/a/x finalized ") != NULL, "%s: /a/x back to finalized (%s)", e, s);
	eq_int(claim(db, "h8:1", e), v, "%s: the version's deletion claimed", e);
	eq_int(jobs_start(db, v), 0, "%s: ... runs", e);
	eq_int(jobs_cancel(db, v), JOBS_CANCEL_DELETING, "%s: ... not cancelled", e);
	eq_int(jobs_finish(db, v, 1, "deleted"), 0, "%s: ... done", e);
	eq_int(jobs_waiting(db), 0, "%s: nothing waits", e);
	/*
	 * A deletion queued between a job's claim and its start cancels it: the start writes
	 * nothing (the worker runs nothing), the library stays in deletion. (On PostgreSQL
	 * both write the libraries row before the jobs row: the other order deadlocked.)
	 */
	eq_int(jobs_enqueue(db, "/a/x", 0, &q), 0, "%s: /a/x queued again", e);
	eq_int(claim(db, "h9:1", e), q, "%s: ... claimed", e);
	eq_int(jobs_enqueue_delete(db, "/a/x", &d), 0, "%s: ... its deletion queued", e);
	eq_int(jobs_run_start(db, q, "/a/x"), 1, "%s: the claimed job does not start", e);
	tr("start after delete %s", job_one(db, q, s));
	ok(strstr(s, " cancelled ") != NULL, "%s: ... it stays cancelled (%s)", e, s);
	tr("lib %s", lib_one(db, "/a/x", s));
	ok(strstr(s, "[/a/x delete ") != NULL, "%s: ... /a/x stays in deletion (%s)", e, s);
	eq_int(jobs_cancel(db, d), JOBS_CANCEL_OK, "%s: the deletion cancelled", e);
	eq_int(jobs_start(db, d), 1, "%s: ... a cancelled deletion does not start", e);
	eq_int(jobs_delete_pending(db, "/a/x@v2", &v), 1, "%s: its version's deletion", e);
	eq_int(jobs_cancel(db, v), JOBS_CANCEL_OK, "%s: ... cancelled too", e);
	eq_int(jobs_waiting(db), 0, "%s: nothing waits", e);
	jobs_list(db, NULL, NULL, s);
	tr("list %s", s);
}

static void
test_catalog(struct db *db, const char *e)
{
	struct cols	 c;
	char		 s[4096];
	long long	 n;

	eq_int(store_catalog_count_libraries(db, NULL, &n), 0, "%s: libraries counted", e);
	eq_int(n, 4, "%s: ... 4", e);
	eq_int(store_catalog_count_libraries(db, "error", &n), 0, "%s: in error", e);
	eq_int(n, 1, "%s: ... 1", e);
	s[0] = '\0';
	eq_int(store_catalog_libraries(db, NULL, 10, 0, lib_cb, s), 0, "%s: the libraries", e);
	ok(strstr(s, "[/a/x finalized") == s, "%s: ... by id (%s)", e, s);
	ok(strstr(s, "versions=[{\"version\":\"v2\",\"id\":\"/a/x@v2\",\"state\":") != NULL &&
	    strstr(s, "\"snippets\":0,\"lastIndexedCommit\":null}]") != NULL,
	    "%s: ... with versions", e);
	tr("libraries %s", s);
	s[0] = '\0';
	eq_int(store_catalog_libraries(db, "finalized", 1, 1, lib_cb, s), 0, "%s: a page", e);
	tr("page %s", s);
	eq_int(store_catalog_library(db, "/nope", lib_cb, s), 0, "%s: no such library", e);
	s[0] = '\0';
	eq_int(store_catalog_bundle_libraries(db, lib_cb, s), 0, "%s: the bundle's", e);
	tr("bundle %s", s);
	/* snippets: documents and their snippets, one flagged twice */
	db_run(db, "INSERT INTO documents (id, library_id, path, blob, title) VALUES (1, "
	    "'/b/y', 'b.md', 'b1', 'B'), (2, '/b/y', 'A.md', 'b2', 'A')", "");
	db_run(db, "INSERT INTO snippets (id, library_id, document_id, ord, title, "
	    "breadcrumb, anchor, text, code, tokens) VALUES (1, '/b/y', 1, 1, 'Hello', "
	    "'', '', 'World', '[]', 3), (2, '/b/y', 1, 0, 'Other', '', '', 'HELLO there', "
	    "'[]', 4), (3, '/b/y', 2, 0, 'Third', '', '', 'nothing', '[]', 5)", "");
	db_run(db, "INSERT INTO snippet_flags (snippet_id, library_id, rule, excerpt) VALUES "
	    "(1, '/b/y', 'zeta', 'x'), (1, '/b/y', 'alpha', 'y')", "");
	eq_int(store_catalog_count_snippets(db, "/b/y", NULL, &n), 1, "%s: snippets", e);
	eq_int(n, 3, "%s: ... 3", e);
	eq_int(store_catalog_count_snippets(db, "/b/y", "hElLo", &n), 1, "%s: a filter", e);
	eq_int(n, 2, "%s: ... any case", e);
	eq_int(store_catalog_count_snippets(db, "/b/y", "a.MD", &n), 1, "%s: by path", e);
	eq_int(n, 1, "%s: ... 1", e);
	eq_int(store_catalog_count_snippets(db, "/nope", NULL, &n), 0, "%s: no library", e);
	memset(&c, 0, sizeof(c));
	c.first = 0;
	c.n = 9;
	eq_int(store_catalog_snippets(db, "/b/y", NULL, 10, 0, cols_cb, &c), 0,
	    "%s: the snippets", e);
	eq_str(c.s, "[3|Third|||A.md|nothing|[]|5|-][2|Other|||b.md|HELLO there|[]|4|-]"
	    "[1|Hello|||b.md|World|[]|3|alpha, zeta]", "%s: ... in order, flags joined", e);
	tr("snippets %s", c.s);
	memset(&c, 0, sizeof(c));
	c.n = 1;
	store_catalog_snippets(db, "/b/y", "hello", 1, 1, cols_cb, &c);
	eq_str(c.s, "[1]", "%s: a filtered page", e);
	memset(&c, 0, sizeof(c));
	c.n = 1;
	c.stop = 1;
	store_catalog_snippets(db, "/b/y", NULL, 10, 0, cols_cb, &c);
	eq_str(c.s, "[3]", "%s: the callback stops", e);
	c.stop = -1;
	eq_int(store_catalog_snippets(db, "/b/y", NULL, 10, 0, cols_cb, &c), -1,
	    "%s: ... or fails", e);
	/* the bundle's jobs, with their last log lines */
	memset(&c, 0, sizeof(c));
	c.first = 1;
	c.n = 2;
	eq_int(store_catalog_bundle_jobs(db, 3, 2, cols_cb, cols_cb, &c), 0,
	    "%s: the bundle's jobs", e);
	tr("bundle jobs %s", c.s);
	s[0] = '\0';
	eq_int(store_catalog_jobs(db, "/a/x", NULL, "index", LLONG_MAX, 1, job_cb, s), 0,
	    "%s: a library's last index job", e);
	tr("jobs %s", s);
}

static void
test_gitops(struct db *db, const char *e)
{
	struct store_gitops_run r;
	time_t		 t;
	char		*commit;
	long long	 id, id2, got;

	eq_int(store_gitops_last_commit(db, &commit), 0, "%s: no commit yet", e);
	ok(commit == NULL, "%s: ... none", e);
	eq_int(store_gitops_last_slot(db, &t), 0, "%s: no slot yet", e);
	eq_int(t, 0, "%s: ... 0", e);
	eq_int(store_gitops_set_slot(db, "2026-01-01T10:00:00Z"), 1, "%s: a slot", e);
	eq_int(store_gitops_set_slot(db, "2026-01-01T10:00:00Z"), 0, "%s: ... once", e);
	eq_int(store_gitops_set_slot(db, "2026-01-01T09:00:00Z"), 0, "%s: ... not back", e);
	eq_int(store_gitops_last_slot(db, &t), 0, "%s: the slot", e);
	eq_int(t, 1767261600, "%s: ... as Unix time", e);
	eq_int(store_gitops_seen(db, "c1", "{}"), 0, "%s: c1 not seen", e);
	eq_int(store_gitops_processed(db, "c1", "{}"), 0, "%s: c1 processed", e);
	eq_int(store_gitops_seen(db, "c1", "{}"), 1, "%s: ... seen", e);
	eq_int(store_gitops_seen(db, "c1", "{\"x\":1}"), 0, "%s: ... not with another config",
	    e);
	eq_int(store_gitops_last_commit(db, &commit), 0, "%s: the last commit", e);
	eq_str(commit, "c1", "%s: ... c1", e);
	free(commit);
	eq_int(store_gitops_claim(db, 3, &id), 0, "%s: no sync to claim", e);
	eq_int(store_gitops_queue(db, "manual", &id), 0, "%s: a sync queued", e);
	eq_int(store_gitops_queue(db, "webhook", &id2), 0, "%s: another", e);
	eq_int(id2, id, "%s: ... joins it", e);
	eq_int(jobs_waiting(db), 1, "%s: it waits", e);
	eq_int(store_gitops_claim(db, 3, &got), 1, "%s: claimed", e);
	eq_int(got, id, "%s: ... that one", e);
	eq_int(store_gitops_run_finished(db, id), 0, "%s: ... not finished", e);
	eq_int(store_gitops_run_get(db, STORE_GITOPS_PENDING, 0, &r), 1, "%s: pending", e);
	tr("pending %lld %s %s %d", r.id, r.trigger, r.state, r.attempts);
	store_gitops_run_release(&r);
	/* a run left running: its worker died */
	eq_int(store_gitops_claim(db, 3, &got), 1, "%s: claimed again (its worker died)", e);
	eq_int(store_gitops_finish(db, id, "done", "synced", "{\"a\":1}", "m1"), 0,
	    "%s: finished", e);
	eq_int(store_gitops_run_finished(db, id), 1, "%s: ... finished", e);
	eq_int(store_gitops_run_finished(db, 999), -1, "%s: no such run", e);
	eq_int(store_gitops_run_get(db, STORE_GITOPS_LAST_FINISHED, 0, &r), 1, "%s: the last",
	    e);
	tr("last %lld %s %s %d %s %s %s", r.id, r.trigger, r.state, r.attempts,
	    r.manifest_commit ? r.manifest_commit : "-", r.message, r.result);
	ok(r.started_at != NULL && r.finished_at != NULL, "%s: ... its times", e);
	store_gitops_run_release(&r);
	eq_int(store_gitops_run_get(db, STORE_GITOPS_BY_ID, 999, &r), 0, "%s: none by id", e);
	eq_int(store_gitops_run_get(db, STORE_GITOPS_PENDING, 0, &r), 0, "%s: none pending", e);
	/* a run whose worker died three times fails */
	eq_int(store_gitops_queue(db, "schedule", &id2), 0, "%s: a sync queued", e);
	eq_int(store_gitops_claim(db, 3, &got), 1, "%s: claimed (1)", e);
	eq_int(store_gitops_claim(db, 3, &got), 1, "%s: claimed (2)", e);
	eq_int(store_gitops_claim(db, 3, &got), 1, "%s: claimed (3)", e);
	eq_int(store_gitops_claim(db, 3, &got), 0, "%s: given up", e);
	eq_int(store_gitops_run_get(db, STORE_GITOPS_BY_ID, id2, &r), 1, "%s: the run", e);
	tr("failed %lld %s %s %d %s", r.id, r.trigger, r.state, r.attempts, r.message);
	eq_str(r.state, "failed", "%s: ... failed", e);
	store_gitops_run_release(&r);
	eq_int(jobs_waiting(db), 0, "%s: nothing waits", e);
}

static void
test_ghapp(struct db *db, const char *e)
{
	char	*t;
	int	 i;

	eq_int(store_delivery_add(db, "d1", 100), 1, "%s: a delivery", e);
	eq_int(store_delivery_add(db, "d1", 101), 0, "%s: ... repeated", e);
	eq_int(store_delivery_expire(db, "d1", 50), 0, "%s: not expired", e);
	eq_int(store_delivery_add(db, "d1", 102), 0, "%s: ... still there", e);
	eq_int(store_delivery_expire(db, "d1", 200), 0, "%s: expired", e);
	eq_int(store_delivery_add(db, "d1", 103), 1, "%s: ... new again", e);
	for (i = 2; i <= 5; i++) {
		char	 id[8];

		snprintf(id, sizeof(id), "d%d", i);
		store_delivery_add(db, id, 103 + i);
	}
	eq_int(store_delivery_trim(db, 2), 0, "%s: trimmed to 2", e);
	eq_int(store_delivery_add(db, "d5", 200), 0, "%s: ... the last kept", e);
	eq_int(store_delivery_add(db, "d4", 200), 0, "%s: ... and the one before", e);
	eq_int(store_delivery_add(db, "d3", 300), 1, "%s: ... the older gone", e);
	store_delivery_forget(db, "d5", "d4");
	eq_int(store_delivery_add(db, "d5", 301), 1, "%s: forgotten", e);
	eq_int(store_delivery_add(db, "d4", 302), 1, "%s: ... both", e);
	ok(store_ghapp_token_get(db, 7, 0) == NULL, "%s: no token", e);
	eq_int(store_ghapp_token_put(db, 7, "sealed1", 1000), 0, "%s: a token", e);
	t = store_ghapp_token_get(db, 7, 999);
	eq_str(t, "sealed1", "%s: ... read", e);
	free(t);
	ok(store_ghapp_token_get(db, 7, 1000) == NULL, "%s: ... not once expired", e);
	eq_int(store_ghapp_token_put(db, 7, "sealed2", 2000), 0, "%s: replaced", e);
	t = store_ghapp_token_get(db, 7, 1000);
	eq_str(t, "sealed2", "%s: ... the new one", e);
	tr("token %s", t);
	free(t);
}

static void
suite(struct db *db, const char *e, int n)
{
	long long	 ann = 0, bob = 0, j[8];

	cur = trace[n];
	eq_int(store_user_insert(db, "ann", 0, "h1", 0, &ann), 0, "%s: a user", e);
	eq_int(store_user_insert(db, "bob", 0, "h2", 0, &bob), 0, "%s: another", e);
	ok(add_library(db, "/a/x", 1, NULL, "", "finalized", "c0ffee") == 0 &&
	    add_library(db, "/a/x@v2", 2, "/a/x", "v2", "initial", NULL) == 0 &&
	    add_library(db, "/b/y", 3, NULL, "", "initial", NULL) == 0 &&
	    add_library(db, "/c/z", 4, NULL, "", "initial", NULL) == 0, "%s: libraries", e);
	test_queue(db, e, ann, bob, j);
	test_claims(db, e, j);
	test_recover(db, e, j);
	test_delete(db, e);
	test_catalog(db, e);
	test_gitops(db, e);
	test_ghapp(db, e);
}

/* ------------------------------------------------------------ PostgreSQL: several nodes */

/* A second connection to the test's schema, as another node's. */
static struct db *
pg_second(void)
{
	struct pg	*pg;
	char		 err[256];

	if ((pg = pg_connect(dbh_pg_url(), err, sizeof(err))) == NULL) {
		printf("# %s\n", err);
		return NULL;
	}
	if (pg_exec(pg, "SET search_path = " SCHEMA "; SET lock_timeout = 500") == -1) {
		pg_close(pg);
		return NULL;
	}
	return db_conn_pg(pg);
}

static void
pg_second_close(struct db *db)
{
	db_close(db);
}

/*
 * The family of a job's library: the number of its libraries' family (fN, fN@v1, ...),
 * live: claimed (a live lease) or running jobs of the family of job id.
 */
static long long
family_live(struct db *db, long long id)
{
	struct db_stmt	*st;
	long long	 n = -1;
	char		 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	if (db_prepare(db, "SELECT count(*) FROM jobs o, jobs j, libraries lo, libraries lj "
	    "WHERE j.id = ?1 AND lo.id = o.library_id AND lj.id = j.library_id AND "
	    "coalesce(lo.version_of, lo.id) = coalesce(lj.version_of, lj.id) AND "
	    "(o.state = 'running' OR (o.state = 'queued' AND o.lease_until >= ?2))",
	    &st) == -1)
		return -1;
	db_bind_int64(st, 1, id);
	db_bind_text(st, 2, now);
	if (db_step(st) == DB_ROW)
		n = db_col_int64(st, 0);
	db_finalize(st);
	return n;
}

/*
 * One node's loop: claims and runs jobs (a short while each) until none is left; writes
 * the ids it ran to fd, and returns the number of times a job of the same family was live
 * with its own.
 */
static int
node_loop(struct db *db, const char *holder, int fd)
{
	struct jobs_next n;
	char		 line[32];
	int		 bad = 0, idle = 0, rc;

	while (idle < 40) {
		if ((rc = jobs_claim(db, holder, 60, &n)) != 1) {
			if (jobs_waiting(db) == 0 && rc == 0)
				idle += 10;
			idle++;
			usleep(20000);
			continue;
		}
		idle = 0;
		if (family_live(db, n.id) != 1)
			bad++;
		jobs_start(db, n.id);
		usleep(15000);
		if (family_live(db, n.id) != 1)
			bad++;
		jobs_finish(db, n.id, 1, holder);
		snprintf(line, sizeof(line), "%lld\n", n.id);
		if (fd != -1 && write(fd, line, strlen(line)) == -1)
			bad++;
	}
	return bad;
}

/* The scans of table rel in a plan (EXPLAIN's JSON) whose node type is type. */
static int
plan_scans(struct json_object *plan, const char *type, const char *rel)
{
	struct json_object *v, *subs;
	size_t		 i;
	int		 n = 0;

	if (json_object_object_get_ex(plan, "Node Type", &v) &&
	    strcmp(json_object_get_string(v), type) == 0 &&
	    json_object_object_get_ex(plan, "Relation Name", &v) &&
	    strcmp(json_object_get_string(v), rel) == 0)
		n++;
	if (json_object_object_get_ex(plan, "Plans", &subs))
		for (i = 0; i < json_object_array_length(subs); i++)
			n += plan_scans(json_object_array_get_idx(subs, i), type, rel);
	return n;
}

/*
 * PostgreSQL: the claim with 1,000 libraries (half of them versions) and 1,000 queued
 * jobs reads the families of the running jobs by index, never every library (the family
 * check joined libraries with itself: a scan of every library at each claim, under the
 * claim lock). No timing: the plan's nodes.
 */
static void
pg_claim_plan(struct db *db)
{
	struct json_object *root = NULL, *plan;
	struct jobs_next next;
	struct db_stmt	*st = NULL;
	char		 sql[8192], now[32];
	int		 seq = -1, idx = -1;

	ok(db_stmt_run(db, "DELETE FROM jobs", "") == 0 &&
	    db_stmt_run(db, "INSERT INTO libraries (id, lib_no, url, host, title, "
	    "created_at, updated_at, version_of) SELECT '/plan/r' || i || CASE WHEN i > 500 "
	    "THEN '@v1' ELSE '' END, 100000 + i, 'https://x.invalid/' || i, 'x.invalid', 't', "
	    "'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', CASE WHEN i > 500 THEN "
	    "'/plan/r' || (i - 500) END FROM generate_series(1, 1000) i", "") == 0 &&
	    db_stmt_run(db, "INSERT INTO jobs (library_id, kind, state, created_at) SELECT "
	    "id, 'index', 'queued', '2026-01-01T00:00:00Z' FROM libraries WHERE id LIKE "
	    "'/plan/%' ORDER BY lib_no", "") == 0 &&
	    db_stmt_run(db, "INSERT INTO jobs (library_id, kind, state, created_at) VALUES "
	    "('/plan/r1', 'index', 'running', '2026-01-01T00:00:00Z'), ('/plan/r502@v1', "
	    "'index', 'running', '2026-01-01T00:00:00Z')", "") == 0 &&
	    db_stmt_run(db, "ANALYZE libraries", "") == 0 &&
	    db_stmt_run(db, "ANALYZE jobs", "") == 0,
	    "postgres: 1,000 libraries, 1,000 queued jobs, two running (/plan/r1, a version of "
	    "/plan/r2), no other");
	snprintf(sql, sizeof(sql), "EXPLAIN (FORMAT JSON) %s",
	    sqltext_pick(jobs_claim_statement(), DB_ENGINE_POSTGRES));
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_prepare(db, sql, &st) == 0) {
		db_bind_text(st, 1, "plan:1");
		db_bind_text(st, 2, now);
		db_bind_text(st, 3, now);
		if (db_step(st) == DB_ROW &&
		    (root = json_tokener_parse(db_col_text(st, 0))) != NULL &&
		    json_object_is_type(root, json_type_array) &&
		    json_object_object_get_ex(json_object_array_get_idx(root, 0), "Plan",
		    &plan)) {
			seq = plan_scans(plan, "Seq Scan", "libraries");
			idx = plan_scans(plan, "Index Scan", "libraries") +
			    plan_scans(plan, "Index Only Scan", "libraries") +
			    plan_scans(plan, "Bitmap Heap Scan", "libraries");
		}
	} else
		printf("# %s\n", db_conn_errmsg(db));
	db_finalize(st);
	json_object_put(root);
	ok(seq == 0 && idx > 0, "postgres: the claim reads the running jobs' families by "
	    "index, never every library (%d sequential scans, %d by index)", seq, idx);
	ok(jobs_claim(db, "plan:1", 60, &next) == 1 && strcmp(next.library_id, "/plan/r3") ==
	    0, "postgres: ... and claims the first job of another family (%s)",
	    next.library_id);
}

/*
 * The order of row locks: a job's start writes its library's row, then the job's; a deletion
 * queued meanwhile (another node) must take them in the same order. Here A holds the
 * library's row as a start does, B queues the deletion and waits; then A writes the job's
 * row and commits, B goes on. Taken in the other order (the job's row, then the
 * library's), B held the job's row while it waited, A waited for B: PostgreSQL reported a
 * deadlock and failed one of them (a DELETE answered 500).
 */
static void
pg_lock_order(struct db *a)
{
	struct db	*b;
	long long	 id = 0, del = 0, waiting = 0;
	int		 i, status = -1, rc;
	pid_t		 pid;
	char		 s[4096];

	db_run(a, "DELETE FROM jobs", "");
	ok(add_library(a, "/lk/a", 300, NULL, "", "finalized", "c0") == 0 &&
	    jobs_enqueue(a, "/lk/a", 0, &id) == 0, "postgres: /lk/a and its queued job");
	ok(db_begin(a) == 0 && db_run(a, "UPDATE libraries SET state = 'processing' WHERE "
	    "id = ?1", "t", "/lk/a") == 0, "postgres: A, a start, holds /lk/a's row");
	fflush(NULL);
	if ((pid = fork()) == -1) {
		ok(0, "postgres: a second process");
		return;
	}
	if (pid == 0) {
		if ((b = pg_second()) == NULL || db_exec(b, "SET lock_timeout = 20000") == -1)
			_exit(100);
		rc = db_begin(b) == 0 && jobs_enqueue_delete(b, "/lk/a", &del) == 0 &&
		    db_commit(b) == 0;
		pg_second_close(b);
		_exit(rc ? 0 : 1);
	}
	/* B waits for a lock (the library's row, or with the wrong order, the job's) */
	for (i = 0; i < 200 && waiting == 0; i++) {
		usleep(50000);
		if (db_stmt_int(a, "SELECT count(*) FROM pg_stat_activity WHERE datname = "
		    "current_database() AND wait_event_type = 'Lock'", &waiting) == -1)
			break;
	}
	eq_int(waiting, 1, "postgres: B, a deletion, waits for A");
	rc = db_run(a, "UPDATE jobs SET state = 'running' WHERE id = ?1 AND state = "
	    "'queued'", "I", id);
	eq_int(rc, 0, "postgres: A starts the job (no deadlock)");
	if (rc == 0)
		ok(db_commit(a) == 0, "postgres: A commits");
	else
		db_rollback(a);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "postgres: B's deletion is queued (status %d)", status);
	tr("lock order %s", job_one(a, id, s));
	ok(strstr(s, " running ") != NULL, "postgres: the started job runs (%s)", s);
	eq_int(jobs_delete_pending(a, "/lk/a", &del), 1, "postgres: ... its deletion waits");
}

static void
pg_nodes(struct db *a)
{
	struct store_gitops_run r;
	struct jobs_next n;
	struct db	*b, *c;
	char		 lib[32], of[32], buf[8192], *p;
	long long	 id, got, seen[64];
	long		 l;
	int		 i, k, fds[2], status, bad, nids = 0, twice = 0, rc = 0;
	pid_t		 pid;
	ssize_t		 len;
	size_t		 have = 0;

	cur = trace[1] + strlen(trace[1]);	/* not compared: after the suite's lines */
	if ((b = pg_second()) == NULL) {
		ok(0, "postgres: a second connection");
		return;
	}
	db_run(a, "DELETE FROM jobs", "");
	/* families f0..f3: fN and its versions fN@v1, fN@v2 */
	for (i = 0; i < 4; i++) {
		snprintf(of, sizeof(of), "/f/%d", i);
		add_library(a, of, 100 + i * 3, NULL, "", "initial", NULL);
		for (k = 1; k <= 2; k++) {
			snprintf(lib, sizeof(lib), "/f/%d@v%d", i, k);
			add_library(a, lib, 100 + i * 3 + k, of, lib + 5, "initial", NULL);
		}
	}
	for (i = 0; i < 4; i++)
		for (k = 0; k <= 2; k++) {
			if (k == 0)
				snprintf(lib, sizeof(lib), "/f/%d", i);
			else
				snprintf(lib, sizeof(lib), "/f/%d@v%d", i, k);
			jobs_enqueue(a, lib, 0, &id);
		}

	/* A decides a claim in its transaction: B's claim waits for it (here: times out) */
	ok(db_begin(a) == 0, "postgres: A begins");
	eq_int(jobs_claim(a, "A:1", 60, &n), 1, "postgres: A claims in its transaction");
	eq_str(n.library_id, "/f/0", "postgres: ... /f/0");
	eq_int(jobs_claim(b, "B:1", 60, &n), -1,
	    "postgres: B's claim waits for A's decision (here past its lock_timeout)");
	eq_int(db_failure(b), DB_FAIL_BUSY, "postgres: ... a busy failure");
	ok(db_commit(a) == 0, "postgres: A commits");
	eq_int(jobs_claim(b, "B:1", 60, &n), 1, "postgres: then B claims");
	ok(strncmp(n.library_id, "/f/0", 4) != 0,
	    "postgres: ... not of A's family (%s)", n.library_id);
	db_run(a, "UPDATE jobs SET lease_until = NULL, lease_holder = NULL, claim_no = NULL",
	    "");

	/* two processes (nodes) claim at once: every job once, one of a family at a time */
	if (pipe(fds) == -1 || (pid = fork()) == -1) {
		ok(0, "postgres: a second process");
		pg_second_close(b);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		if ((c = pg_second()) == NULL)
			_exit(100);
		bad = node_loop(c, "C:1", fds[1]);
		pg_second_close(c);
		_exit(bad > 99 ? 99 : bad);
	}
	close(fds[1]);
	bad = node_loop(b, "B:1", -1);
	eq_int(bad, 0, "postgres: this node never had two of a family live");
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "postgres: the other node never had two of a family live (%d)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	while (have < sizeof(buf) - 1 && (len = read(fds[0], buf + have,
	    sizeof(buf) - 1 - have)) > 0)
		have += (size_t)len;
	close(fds[0]);
	buf[have] = '\0';
	for (p = strtok(buf, "\n"); p != NULL && nids < 64; p = strtok(NULL, "\n")) {
		if (util_parse_long(p, 1, LONG_MAX, &l) == 0) {
			for (i = 0; i < nids; i++)
				twice += seen[i] == l;
			seen[nids++] = l;
		}
	}
	printf("# the other node ran %d jobs\n", nids);
	ok(nids > 0, "postgres: ... and ran some jobs (%d)", nids);
	eq_int(twice, 0, "postgres: ... none twice");
	{
		struct db_stmt	*st = NULL;
		long long	 done = -1, claims = -1, holders = -1;

		if (db_prepare(a, "SELECT count(*) FILTER (WHERE state = 'done'), "
		    "max(claim_no), count(DISTINCT message) FROM jobs", &st) == 0 &&
		    db_step(st) == DB_ROW) {
			done = db_col_int64(st, 0);
			claims = db_col_int64(st, 1);
			holders = db_col_int64(st, 2);
		}
		db_finalize(st);
		eq_int(done, 12, "postgres: every job ran");
		eq_int(claims, 12, "postgres: ... each claimed once (12 claims)");
		eq_int(holders, 2, "postgres: ... on both nodes");
	}

	/* two requests for one library on two nodes: one job */
	ok(db_begin(a) == 0, "postgres: A begins");
	eq_int(jobs_enqueue(a, "/f/1", 0, &id), 0, "postgres: A queues /f/1");
	eq_int(jobs_enqueue(b, "/f/1", 0, &got), -1,
	    "postgres: B's request waits for A's (here past its lock_timeout)");
	ok(db_commit(a) == 0, "postgres: A commits");
	eq_int(jobs_enqueue(b, "/f/1", 0, &got), 0, "postgres: then B's");
	eq_int(got, id, "postgres: ... joins A's job");

	/* GitOps: a sync runs on one node */
	eq_int(store_gitops_queue(a, "webhook", &id), 0, "postgres: a sync queued");
	eq_int(store_gitops_queue(b, "schedule", &got), 0, "postgres: ... by another node");
	eq_int(got, id, "postgres: ... the same sync");
	eq_int(store_gitops_claim(a, 3, &got), 1, "postgres: A claims it");
	eq_int(store_gitops_claim(b, 3, &got), 0, "postgres: B finds nothing to run");
	eq_int(store_gitops_run_get(a, STORE_GITOPS_BY_ID, id, &r), 1, "postgres: the run");
	ok(strcmp(r.state, "running") == 0 && r.attempts == 1,
	    "postgres: ... still A's, run once (%s, %d)", r.state, r.attempts);
	store_gitops_run_release(&r);
	eq_int(store_gitops_queue(b, "api", &got), 0, "postgres: B queues the next");
	eq_int(store_gitops_claim(b, 3, &got), 0, "postgres: ... not run while A's runs");
	eq_int(store_gitops_finish(a, id, "done", "ok", "{}", ""), 0, "postgres: A's ends");
	eq_int(store_gitops_claim(b, 3, &id), 1, "postgres: B runs the next");
	eq_int(store_gitops_claim(a, 3, &got), 0, "postgres: ... A nothing");
	eq_int(store_gitops_finish(b, id, "done", "ok", "{}", ""), 0, "postgres: B's ends");
	eq_int(store_gitops_claim(a, 3, &got), 0, "postgres: none left");
	/* a node that died with its sync running: the sync is another's to run again */
	eq_int(store_gitops_queue(b, "manual", &id), 0, "postgres: another sync");
	eq_int(store_gitops_claim(b, 3, &got), 1, "postgres: B claims it");
	pg_second_close(b);
	/* the server ends B's session (and its lock) soon after: a loaded machine may lag */
	for (i = 0; i < 100 && (rc = store_gitops_claim(a, 3, &got)) == 0; i++)
		usleep(100000);
	eq_int(rc, 1, "postgres: B died: A runs it again");
	eq_int(got, id, "postgres: ... that sync");
	eq_int(store_gitops_finish(a, got, "done", "ok", "{}", ""), 0, "postgres: ... ends");
	/* the schedule's slot: recorded by one node */
	eq_int(store_gitops_set_slot(a, "2030-01-01T00:00:00Z"), 1, "postgres: A records a slot");
	if ((c = pg_second()) != NULL) {
		eq_int(store_gitops_set_slot(c, "2030-01-01T00:00:00Z"), 0,
		    "postgres: ... C finds it recorded");
		pg_second_close(c);
	}
}

int
main(void)
{
	const char	*url = dbh_pg_url();
	struct db	*db = NULL, *pdb = NULL;
	char		 dir[256], err[256] = "";
	int		 rc;

	if (dbh_open(dir, sizeof(dir), &db) == -1) {
		ok(0, "a SQLite database in a temporary DATA_DIR");
		return tap_done();
	}
	suite(db, "sqlite", 0);
	if (url == NULL || *url == '\0')
		printf("# DATABASE_URL unset: PostgreSQL is not tried\n");
	else if ((rc = dbh_pg_open(SCHEMA, &pdb, err, sizeof(err))) != 0)
		ok(0, "postgres: the store's schema (%s)", err);
	else {
		suite(pdb, "postgres", 1);
		eq_str(trace[1], trace[0], "SQLite and PostgreSQL answered alike");
		if (strcmp(trace[1], trace[0]) != 0)
			printf("# sqlite:\n%s# postgres:\n%s", trace[0], trace[1]);
		pg_nodes(pdb);
		pg_lock_order(pdb);
		pg_claim_plan(pdb);
		ok(dbh_pg_close(pdb, SCHEMA) == 0, "postgres: the schema dropped");
	}
	dbh_remove(dir, db);
	return tap_done();
}
