/*
 * test-index.c: the indexing pipeline (lib/index/index.c) over an in-memory source back end
 * against a real database in a temporary DATA_DIR, and the one list of job and library
 * states (lib/store/jobs.c) against sql/schema.sql.
 */
#include "config.h"

#include <ctype.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "base/buf.h"
#include "base/util.h"
#include "index/index.h"
#include "parse/parse.h"
#include "search/format.h"
#include "search/search.h"
#include "sources/backend.h"
#include "store/db.h"
#include "store/jobs.h"
#include "tap.h"
#include "store/conn.h"

#define LIB	"/test/docs"

/* The source the test back end serves: up to 3 Markdown files, NULL text = absent. */
static struct memdoc {
	const char	*path;
	const char	*text;
} mem[] = {
	{ "docs/guide.md", "# Guide\n\nInstall the frobnicator with the installer.\n\n"
	    "## Usage\n\nRun it with a config file.\n\n```sh\nfrob --config x\n```\n" },
	{ "docs/api.md", "# API\n\nThe widget call returns a widget.\n\n```c\n"
	    "widget_new();\n```\n" },
	{ "docs/faq.md", "# FAQ\n\nWhy is the sky blue? Rayleigh scattering.\n" },
};
static char mem_version[16] = "v1";
static int mem_fail, mem_cancel;

/* FNV-1a of the text as 16 hex digits: the test's content hash. */
static void
mem_hash(const char *s, char out[17])
{
	unsigned long long h = 1469598103934665603ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	snprintf(out, 17, "%016llx", h);
}

static int
mem_fetch(struct backend_ctx *c, struct backend_set *out, char *err, size_t errsz)
{
	struct backend_doc *d;
	char		 hash[17];
	size_t		 i;

	if (mem_fail) {
		snprintf(err, errsz, "test fetch failed");
		return -1;
	}
	if (mem_cancel)
		db_run(c->db, "UPDATE jobs SET cancel_requested = 1 WHERE id = ?1", "I",
		    c->job_id);
	for (i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
		if (mem[i].text == NULL)
			continue;
		mem_hash(mem[i].text, hash);
		if ((d = backend_set_add(out, mem[i].path, hash,
		    strlen(mem[i].text))) == NULL ||
		    (d->data = strdup(mem[i].text)) == NULL) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		d->len = strlen(mem[i].text);
	}
	snprintf(out->version, sizeof(out->version), "%s", mem_version);
	out->label = strdup("main");
	out->url_prefix = strdup("https://example.org/test/docs/blob/");
	return 0;
}

/* Eager: fetch loads every document, so there is no load. */
static const struct backend_ops mem_ops = {
	.type = "mem", .version_noun = "commit", .select_files = 1, .fetch = mem_fetch,
};

static struct db *db;

#define WEB	"/websites/example_org_docs"
/* A web-like back end: pages with URLs, titles and validators; no selection rules. */
static int web_notmodified;	/* the second page answers 304 */
static int
web_fetch(struct backend_ctx *c, struct backend_set *out, char *err, size_t errsz)
{
	const char	*text[] = {
		"# Start\n\nThe quux page explains quux.\n",
		"# Other\n\nA page about zebras.\n",
	};
	struct backend_stored st;
	struct backend_doc *d;
	char		 path[32], url[96], hash[17];
	size_t		 i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "page%zu.html", i);
		snprintf(url, sizeof(url), "https://example.org/docs/page%zu", i);
		if (backend_stored_get(c, path, &st) == -1)
			return -1;
		if (i == 0 && web_notmodified)
			text[0] = "# Start\n\nThe quux page explains quux twice.\n";
		mem_hash(text[i], hash);
		if (i == 1 && web_notmodified && !c->full) {
			ok(st.etag != NULL && strcmp(st.etag, "\"e1\"") == 0 &&
			    st.url != NULL && strcmp(st.url, url) == 0 &&
			    strcmp(st.hash, hash) == 0, "backend_stored_get gives the "
			    "stored hash, ETag and URL");
			d = backend_set_add(out, path, st.hash, 0);
			d->changed = 0;
		} else {
			d = backend_set_add(out, path, hash, strlen(text[i]));
			d->data = strdup(text[i]);
			d->len = strlen(text[i]);
			d->etag = strdup(i == 1 ? "\"e1\"" : "\"e0\"");
		}
		backend_stored_release(&st);
		d->url = strdup(url);
		d->format = DOC_FORMAT_MARKDOWN;
		if (i == 0)
			d->title = strdup("The start page");
	}
	(void)err;
	(void)errsz;
	return 0;
}

static const struct backend_ops web_ops = {
	.type = "web", .version_noun = "content version", .fetch = web_fetch,
};

/* The integer or text of a one-value query with a text ?1. */
static long long
q_int(const char *sql, const char *arg)
{
	sqlite3_stmt	*st;
	long long	 v = -1;

	if (sqlite3_prepare_v2(db_lite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -2;
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *
q_text(const char *sql, const char *arg)
{
	sqlite3_stmt	*st;
	const unsigned char *t;
	char		*v = NULL;

	if (sqlite3_prepare_v2(db_lite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && (t = sqlite3_column_text(st, 0)) != NULL)
		v = strdup((const char *)t);
	sqlite3_finalize(st);
	return v;
}

/* Checks a text column of one row (freeing the value). */
static void
is_q(const char *sql, const char *arg, const char *want, const char *name)
{
	char	*v = q_text(sql, arg);

	is_str(v, want, "%s", name);
	free(v);
}

/* Queues and runs one index job; returns its id. */
static long long
run_job(int want_rc, const char *name)
{
	long long	 id = 0;

	ok(jobs_enqueue(db, LIB, 0, &id) == 0, "%s: queued", name);
	is_int(index_run(db, util_data_dir(), id, LIB, 0, &mem_ops), want_rc,
	    "%s: index_run returns %d", name, want_rc);
	return id;
}

static void
is_job(long long id, const char *state, const char *message, const char *name)
{
	char	 sid[32];

	snprintf(sid, sizeof(sid), "%lld", id);
	is_q("SELECT state FROM jobs WHERE id = ?1", sid, state, name);
	if (message != NULL)
		is_q("SELECT message FROM jobs WHERE id = ?1", sid, message, name);
}

/* 1 when job id has a log line equal to line. */
static int
has_log(long long id, const char *line)
{
	sqlite3_stmt	*st;
	int		 found = 0;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT 1 FROM job_log WHERE job_id = ?1 AND "
	    "line = ?2", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, line, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* A web-like source: URL, title, validators, no selection rules, a digest version. */
static void
test_web_source(void)
{
	long long	 id = 0;
	char		*v, *src, sid[32];

	ok(jobs_enqueue(db, WEB, 0, &id) == 0 &&
	    index_run(db, util_data_dir(), id, WEB, 0, &web_ops) == 0, "web: indexed");
	is_job(id, "done", NULL, "web: done");
	ok(has_log(id, "2 documents: 2 parsed, 0 unchanged, 0 skipped"),
	    "web: both pages parsed though .html is not a documentation file in a "
	    "repository");
	is_q("SELECT url || ' ' || etag || ' ' || title FROM documents WHERE path = ?1",
	    "page0.html", "https://example.org/docs/page0 \"e0\" The start page",
	    "web: the page's URL, ETag and the source's title are stored");
	v = q_text("SELECT indexed_commit FROM libraries WHERE id = ?1", WEB);
	ok(v != NULL && strlen(v) == 64, "web: the version is a digest: %s", v);
	free(v);
	src = format_source_of("https://example.org/docs/page0", "https://x/blob/",
	    "c0ffee", "page0.html", "start");
	is_str(src, "https://example.org/docs/page0#start",
	    "web: the Source line is the page URL with the anchor");
	free(src);
	web_notmodified = 1;
	ok(jobs_enqueue(db, WEB, 0, &id) == 0 &&
	    index_run(db, util_data_dir(), id, WEB, 0, &web_ops) == 0, "web: again");
	ok(has_log(id, "2 documents: 1 parsed, 1 unchanged, 0 skipped"),
	    "web: a 304 page is not parsed again");
	is_int(q_int("SELECT count(*) FROM snippets WHERE library_id = ?1 AND text "
	    "LIKE '%zebras%'", WEB), 1, "web: the 304 page keeps its stored snippets");
	ok(jobs_enqueue(db, WEB, 0, &id) == 0 &&
	    index_run(db, util_data_dir(), id, WEB, 0, &web_ops) == 0, "web: third run");
	snprintf(sid, sizeof(sid), "%lld", id);
	is_int(q_int("SELECT count(*) FROM job_log WHERE job_id = ?1 AND line LIKE "
	    "'content version % is already indexed; nothing to do'", sid), 1,
	    "web: the same pages again give the same version: nothing to do");
}

static void
test_first_run(void)
{
	long long	 id;

	id = run_job(0, "first run");
	is_job(id, "done", "indexed commit v1: 3 documents, 4 snippets", "first run: done");
	ok(has_log(id, "3 documentation files: 3 parsed, 0 unchanged, 0 skipped"),
	    "first run: all three parsed");
	is_int(q_int("SELECT count(*) FROM documents WHERE library_id = ?1", LIB), 3,
	    "first run: 3 documents");
	is_int(q_int("SELECT count(*) FROM snippets WHERE library_id = ?1", LIB), 4,
	    "first run: 4 snippets");
	is_int(q_int("SELECT count(*) FROM sqlite_schema WHERE name LIKE ?1", "snippets_fts%"),
	    0, "first run: no full-text table holds a second copy of the text");
	is_q("SELECT state || ' ' || run_status || ' ' || indexed_commit || ' ' || "
	    "indexed_branch || ' ' || blob_prefix FROM libraries WHERE id = ?1", LIB,
	    "finalized ok v1 main https://example.org/test/docs/blob/",
	    "first run: library finalized, ok, at v1");
}

static void
test_incremental(void)
{
	long long	 id, guide;

	guide = q_int("SELECT id FROM documents WHERE path = ?1", "docs/guide.md");
	mem[1].text = "# API\n\nThe gadget call returns a gadget.\n";
	snprintf(mem_version, sizeof(mem_version), "v2");
	id = run_job(0, "one changed");
	ok(has_log(id, "3 documentation files: 1 parsed, 2 unchanged, 0 skipped"),
	    "one changed: only it is parsed");
	is_int(q_int("SELECT id FROM documents WHERE path = ?1", "docs/guide.md"), guide,
	    "one changed: an unchanged document keeps its row");
	is_int(q_int("SELECT count(*) FROM snippets WHERE text LIKE '%' || ?1 || '%'",
	    "gadget"), 1, "one changed: its new text is indexed");
	is_int(q_int("SELECT count(*) FROM snippets WHERE text LIKE '%' || ?1 || '%'",
	    "widget"), 0, "one changed: its old text is gone");

	mem[2].text = NULL;
	snprintf(mem_version, sizeof(mem_version), "v3");
	id = run_job(0, "one removed");
	ok(has_log(id, "2 documentation files: 0 parsed, 2 unchanged, 0 skipped"),
	    "one removed: nothing parsed");
	is_int(q_int("SELECT count(*) FROM documents WHERE library_id = ?1", LIB), 2,
	    "one removed: 2 documents");
	is_int(q_int("SELECT count(*) FROM snippets WHERE text LIKE '%' || ?1 || '%'",
	    "Rayleigh"), 0, "one removed: its snippets are gone");
	is_int(q_int("SELECT total_documents FROM libraries WHERE id = ?1", LIB), 2,
	    "one removed: the library counts 2 documents");

	id = run_job(0, "unchanged");
	is_job(id, "done", "unchanged", "unchanged: done with nothing to do");
	ok(has_log(id, "commit v3 is already indexed; nothing to do"),
	    "unchanged: says so");
}

static void
test_cancel_and_fail(void)
{
	long long	 id;

	mem[0].text = "# Guide\n\nEverything changed.\n";
	snprintf(mem_version, sizeof(mem_version), "v4");
	mem_cancel = 1;
	id = run_job(0, "cancelled");
	mem_cancel = 0;
	is_job(id, "cancelled", "cancelled after fetching: nothing was written; the "
	    "previous index (commit v3) is still served", "cancelled: job cancelled");
	is_q("SELECT state || ' ' || run_status || ' ' || indexed_commit FROM libraries "
	    "WHERE id = ?1", LIB, "finalized cancelled v3",
	    "cancelled: the library keeps its index");
	is_int(q_int("SELECT count(*) FROM snippets WHERE text LIKE '%' || ?1 || '%'",
	    "frobnicator"), 1, "cancelled: the old text is still indexed");

	mem_fail = 1;
	id = run_job(-1, "failed fetch");
	mem_fail = 0;
	is_job(id, "failed", "test fetch failed", "failed fetch: job failed");
	ok(has_log(id, "test fetch failed"), "failed fetch: logged");
	is_q("SELECT state || ' ' || run_status || ' ' || indexed_commit || ' ' || "
	    "last_error FROM libraries WHERE id = ?1", LIB,
	    "finalized failed v3 test fetch failed",
	    "failed fetch: the library keeps its index");
	is_int(q_int("SELECT count(*) FROM documents WHERE library_id = ?1", LIB), 2,
	    "failed fetch: its documents stay");

	id = run_job(0, "after a failure");
	is_job(id, "done", "indexed commit v4: 2 documents, 2 snippets",
	    "after a failure: the next run indexes");
	ok(has_log(id, "2 documentation files: 1 parsed, 1 unchanged, 0 skipped"),
	    "after a failure: only the changed file is parsed");
}

static void
test_gone(void)
{
	long long	 id = 0;

	ok(jobs_enqueue(db, "/test/gone", 0, &id) == 0, "gone: queued");
	is_int(index_run(db, util_data_dir(), id, "/test/gone", 0, &mem_ops), -1,
	    "gone: index_run fails");
	is_job(id, "failed", "the library no longer exists", "gone: job failed");
}

/* The names of a schema CHECK (col IN (...)) of table, whitespace removed. */
static char *
schema_check(const char *table, const char *col)
{
	char	*sql = q_text("SELECT sql FROM sqlite_master WHERE name = ?1", table);
	char	 key[64], *p, *e, *r = NULL;
	size_t	 n = 0;

	snprintf(key, sizeof(key), "CHECK (%s IN (", col);
	if (sql == NULL || (p = strstr(sql, key)) == NULL ||
	    (e = strchr(p += strlen(key), ')')) == NULL)
		goto out;
	if ((r = malloc((size_t)(e - p) + 1)) == NULL)
		goto out;
	for (; p < e; p++)
		if (!isspace((unsigned char)*p))
			r[n++] = *p;
	r[n] = '\0';
out:
	free(sql);
	return r;
}

static void
is_list(const char *const *names, size_t n, const char *table, const char *col)
{
	struct buf	 b;
	char		*want = schema_check(table, col);
	size_t		 i;

	buf_init(&b);
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s'%s'", i ? "," : "", names[i]);
	is_str(b.p, want, "the states of %s.%s are the schema's", table, col);
	buf_release(&b);
	free(want);
}

static void
test_state_lists(void)
{
	is_list(jobs_states, JOBS_NSTATES, "jobs", "state");
	is_list(jobs_library_states, JOBS_LIB_NSTATES, "libraries", "state");
	is_list(jobs_run_statuses, JOBS_RUN_NSTATUSES, "libraries", "run_status");
	is_str(jobs_states[JOBS_CANCELLED], "cancelled", "enum and name agree");
	is_str(jobs_library_states[JOBS_LIB_DELETE], "delete", "enum and name agree");
	is_str(jobs_run_statuses[JOBS_RUN_DEGRADED], "degraded", "enum and name agree");
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The count of jobs of LIB in state st (and force when force >= 0). */
static long
recover_count(const char *st, int force)
{
	sqlite3_stmt	*q;
	long		 n = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT count(*) FROM jobs WHERE library_id = ?1 AND "
	    "state = ?2 AND (?3 < 0 OR force = ?3)", -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(q, 1, LIB, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, st, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, force);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

/*
 * A worker killed in a job's post-index steps (describe, embed: the library's run is no
 * longer 'running'): jobs_recover marks the job done and queues one plain index job that
 * completes them; a job that found its commit indexed and died there queues none.
 */
static void
test_recover(void)
{
	db_run(db, "DELETE FROM jobs", "");
	db_run(db, "INSERT INTO jobs (library_id, kind, state, attempts, message, "
	    "created_at) VALUES (?1, 'index', 'running', 1, 'indexed commit abc: 3 "
	    "documents, 5 snippets', '2026-01-01T00:00:00Z')", "t", LIB);
	db_run(db, "UPDATE libraries SET run_status = 'ok' WHERE id = ?1", "t", LIB);
	ok(jobs_recover(db) == 0, "recover after a kill in describe/embed");
	is_int(recover_count("done", -1), 1, "the killed job is done (its index is written)");
	is_int(recover_count("queued", 0), 1, "a plain index job completes its titles and vectors");
	ok(jobs_recover(db) == 0 && recover_count("queued", -1) == 1,
	    "a second recovery queues no other");
	db_run(db, "UPDATE jobs SET state = 'running', attempts = 1, message = '"
	    JOBS_UNCHANGED "' WHERE state = 'queued'", "");
	ok(jobs_recover(db) == 0, "the follow-up killed in the same steps");
	is_int(recover_count("done", -1), 2, "is done too");
	is_int(recover_count("queued", -1), 0, "and queues nothing: no loop");
	db_run(db, "DELETE FROM jobs", "");
}

/* The queuer of job id, its tier and force: "via admin force" (via "-": the service). */
static void
merge_row(long long id, char *out, size_t outsz)
{
	sqlite3_stmt	*st;

	out[0] = '\0';
	if (sqlite3_prepare_v2(db_lite(db), "SELECT coalesce(queued_via, '-') || ' ' || queued_admin "
	    "|| ' ' || force FROM jobs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, outsz, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/*
 * A request merged into a queued job: the service's or an admin's takes over a member's
 * job (it is claimed in the newer requester's turn); a member's leaves an admin's job be.
 */
static void
test_merge_turn(void)
{
	long long	 a = 0, b = 0;
	char		 err[512], row[64];

	db_run(db, "DELETE FROM jobs", "");
	ok(jobs_queuer_begin(db, 0, "key", 0, 1, err, sizeof(err)) == 0 &&
	    jobs_enqueue(db, LIB, 0, &a) == 0, "merge: an operator key (no admin) queues");
	jobs_queuer_end();
	merge_row(a, row, sizeof(row));
	is_str(row, "key 0 0", "merge: the job is the key's, in the members' tier");
	ok(jobs_enqueue(db, LIB, 1, &b) == 0 && b == a, "merge: a schedule's request joins it");
	merge_row(a, row, sizeof(row));
	is_str(row, "- 0 1", "merge: the job is now the service's, forced");
	db_run(db, "UPDATE jobs SET queued_via = 'key', force = 0 WHERE id = ?1", "I", a);
	ok(jobs_queuer_begin(db, 0, "key", 1, 1, err, sizeof(err)) == 0 &&
	    jobs_enqueue(db, LIB, 0, &b) == 0 && b == a, "merge: an admin key's request joins it");
	jobs_queuer_end();
	merge_row(a, row, sizeof(row));
	is_str(row, "key 1 0", "merge: the job is now in the admins' tier");
	ok(jobs_queuer_begin(db, 0, "anonymous", 0, 1, err, sizeof(err)) == 0 &&
	    jobs_enqueue(db, LIB, 0, &b) == 0 && b == a, "merge: an anonymous request joins it");
	jobs_queuer_end();
	merge_row(a, row, sizeof(row));
	is_str(row, "key 1 0", "merge: an admin's job stays the admin's");
	db_run(db, "DELETE FROM jobs", "");
}

int
main(void)
{
	char	 tmpl[] = "/tmp/ctxd-test-index-XXXXXX", now[32];
	char	*dir;

	if ((dir = mkdtemp(tmpl)) == NULL || setenv("DATA_DIR", dir, 1) == -1 ||
	    db_open(dir, DB_READWRITE, &db) == -1) {
		printf("Bail out! cannot create a database in %s\n", tmpl);
		return 1;
	}
	util_iso8601(time(NULL), now, sizeof(now));
	ok(db_run(db, "INSERT INTO libraries (id, lib_no, url, host, settings, title, "
	    "created_at, updated_at) VALUES (?1, 1, 'https://example.org/test/docs', "
	    "'example.org', '{}', 'docs', ?2, ?2)", "tt", LIB, now) == 0,
	    "a library to index");
	ok(db_run(db, "INSERT INTO libraries (id, lib_no, source_type, url, host, "
	    "settings, title, created_at, updated_at) VALUES (?1, 2, 'website', "
	    "'https://example.org/docs/', 'example.org', '{}', 'web', ?2, ?2)", "tt", WEB,
	    now) == 0, "a web library to index");
	ok(backend_lookup("git") == &backend_git && backend_lookup("mem") == NULL,
	    "the back-end table has git");
	test_first_run();
	test_incremental();
	test_cancel_and_fail();
	test_gone();
	test_state_lists();
	test_recover();
	test_merge_turn();
	test_web_source();
	db_close(db);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
