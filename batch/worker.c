/*
 * ctxd-worker: runs queued jobs one at a time under DATA_DIR/worker.lock, then exits.
 * Started detached by the responder that queued a job and every minute by cron; exits
 * at once when another worker holds the lock.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json.h>
#include <sqlite3.h>

#include "ctxd.h"
#include "dedup.h"
#include "describe.h"
#include "embedder.h"

struct job {
	long long	 id;
	char		*library_id;
	int		 force;
};

/* One parsed (new or changed) documentation file waiting to be written. */
struct parsed_file {
	char		*path;
	char		 oid[41];
	struct doc	 doc;
	int		 keep;		/* unchanged: keep the stored document */
};

struct run {
	sqlite3		*db;
	const char	*datadir;
	struct job	*job;
	/* the library row */
	char		*url, *host, *branch, *settings, *indexed_commit;
	char		*indexed_settings, *run_status;
	long		 lib_no;
	/* limits */
	long		 max_repo_mb, max_file_kb, max_files;
	/* results */
	struct parsed_file *files;
	size_t		 nfiles;
	size_t		 nsnippets, ntokens, nparsed, nskipped;
	struct dedup_stats dedup;
	long		 test_delay_ms;	/* CTXD_TEST_FILE_DELAY_MS (tests only) */
};

static sqlite3 *worker_db;

/* Appends a line to the job's log (and stderr). Never pass a secret here. */
static void
worker_log(struct run *r, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
worker_log(struct run *r, const char *level, const char *fmt, ...)
{
	sqlite3_stmt	*st;
	va_list		 ap;
	char		 line[1024], now[32];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strcmp(level, "error") == 0)
		log_err("job %lld: %s", r->job->id, line);
	else if (strcmp(level, "warning") == 0)
		log_warn("job %lld: %s", r->job->id, line);
	else
		log_info("job %lld: %s", r->job->id, line);
	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(r->db, "INSERT INTO job_log (job_id, at, level, line) "
	    "VALUES (?1, ?2, ?3, ?4)", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, r->job->id);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, level, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, line, -1, SQLITE_STATIC);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

static char *
col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t != NULL ? strdup((const char *)t) : NULL;
}

static long
setting_number(sqlite3 *db, const char *datadir, const char *name, long dflt)
{
	char	*v = settings_get(db, datadir, name);
	long	 n = dflt;

	if (v == NULL || util_parse_long(v, 1, 1L << 40, &n) == -1)
		n = dflt;
	free(v);
	return n;
}

/* Loads the library row of the job; -1 when it is gone. */
static int
run_load(struct run *r)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(r->db, "SELECT url, host, branch, settings, "
	    "indexed_commit, indexed_settings, coalesce(run_status, ''), lib_no "
	    "FROM libraries WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		r->url = col_dup(st, 0);
		r->host = col_dup(st, 1);
		r->branch = col_dup(st, 2);
		r->settings = col_dup(st, 3);
		r->indexed_commit = col_dup(st, 4);
		r->indexed_settings = col_dup(st, 5);
		r->run_status = col_dup(st, 6);
		r->lib_no = sqlite3_column_int64(st, 7);
		if (r->url != NULL && r->host != NULL && r->branch != NULL &&
		    r->settings != NULL && r->run_status != NULL)
			rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

static void
run_release(struct run *r)
{
	size_t	 i;

	free(r->url);
	free(r->host);
	free(r->branch);
	free(r->settings);
	free(r->indexed_commit);
	free(r->indexed_settings);
	free(r->run_status);
	for (i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		doc_release(&r->files[i].doc);
	}
	free(r->files);
}

/* Marks the run as started (state processing) in its own short transaction. */
static int
run_mark_started(struct run *r)
{
	sqlite3_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(r->db) == -1)
		return -1;
	if (sqlite3_prepare_v2(r->db, "UPDATE libraries SET state = 'processing', "
	    "run_status = 'running', run_started = ?2, updated_at = ?2 "
	    "WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(r->db, "UPDATE jobs SET state = 'running', "
	    "started_at = ?2, attempts = attempts + 1 WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, r->job->id);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	rc = db_commit(r->db);
out:
	sqlite3_finalize(st);
	if (rc == -1)
		db_rollback(r->db);
	return rc;
}

/*
 * Ends a run: ok == 1 after a successful index (inside the caller's transaction) or a
 * no-op: the library serves it, the job stays running (with its message) until the
 * post-index steps end (run_post); ok == 0 records the failure: a library with an index
 * keeps serving it.
 */
static int
run_finish(struct run *r, int ok, const char *message)
{
	sqlite3_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(r->db, "UPDATE libraries SET state = CASE WHEN ?2 "
	    "OR indexed_commit IS NOT NULL THEN 'finalized' ELSE 'error' END, "
	    "run_status = CASE WHEN ?2 THEN 'ok' ELSE 'failed' END, "
	    "run_finished = ?3, updated_at = ?3, "
	    "last_error = CASE WHEN ?2 THEN NULL ELSE ?4 END WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, ok);
	sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, message, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(r->db, "UPDATE jobs SET state = ?2, message = ?3, "
	    "finished_at = ?4 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, r->job->id);
	sqlite3_bind_text(st, 2, ok ? "running" : "failed", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, message, -1, SQLITE_STATIC);
	if (ok)
		sqlite3_bind_null(st, 4);
	else
		sqlite3_bind_text(st, 4, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, sqlite3_errmsg(r->db));
	sqlite3_finalize(st);
	return rc;
}

/* Records a failed run in its own transaction. */
static void
run_fail(struct run *r, const char *message)
{
	db_rollback(r->db);
	worker_log(r, "error", "%s", message);
	if (db_begin(r->db) == 0 && run_finish(r, 0, message) == 0)
		db_commit(r->db);
	else
		db_rollback(r->db);
}

/*
 * Cancellation checkpoint (POST /api/jobs/ID/cancel sets jobs.cancel_requested): 1 when
 * the job is to stop now. Polled only outside a write transaction, between files, before
 * the write and between post-index steps and their batches; the caller then ends the
 * job with run_cancel.
 */
static int
run_cancel_point(void *ctx)
{
	struct run	*r = ctx;

	return jobs_cancel_requested(r->db, r->job->id);
}

/*
 * Ends a cancelled run in its own transaction, after rolling back any open one: the job
 * becomes 'cancelled' (never run again) with a message and a log line; the library's
 * run_status becomes 'cancelled' with the message as last_error, and its state
 * 'finalized' when it has an index (the previous one, or the new one when written is
 * set), 'initial' when it has none (a first index cancelled before its write).
 */
static void
run_cancel(struct run *r, const char *when, int written)
{
	sqlite3_stmt	*st = NULL;
	char		 m[512], now[32];

	db_rollback(r->db);
	if (written)
		snprintf(m, sizeof(m), "cancelled %s: the new index is served; the "
		    "next run completes what is missing", when);
	else if (r->indexed_commit != NULL)
		snprintf(m, sizeof(m), "cancelled %s: nothing was written; the "
		    "previous index (commit %.12s) is still served", when,
		    r->indexed_commit);
	else
		snprintf(m, sizeof(m), "cancelled %s: nothing was written; the "
		    "library has no index", when);
	worker_log(r, "warning", "%s", m);
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(r->db) == -1)
		goto out;
	if (sqlite3_prepare_v2(r->db, "UPDATE libraries SET state = CASE WHEN state = "
	    "'delete' THEN 'delete' WHEN indexed_commit IS NOT NULL THEN 'finalized' "
	    "ELSE 'initial' END, run_status = 'cancelled', run_finished = ?3, "
	    "updated_at = ?3, last_error = ?2 WHERE id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(r->db, "UPDATE jobs SET state = 'cancelled', message = "
	    "?2, finished_at = ?3 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, r->job->id);
	sqlite3_bind_text(st, 2, m, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (db_commit(r->db) == 0)
		return;
out:
	log_err("%s: %s", __func__, sqlite3_errmsg(r->db));
	sqlite3_finalize(st);
	db_rollback(r->db);
}

/*
 * Git credentials for the repository's host: the GitHub-type token for the GitHub-type
 * host, the GitLab-type token for the GitLab-type host, none elsewhere. *kind is set to
 * "github", "gitlab" or "other".
 */
static void
run_credentials(struct run *r, char **user, char **token, const char **kind)
{
	char	*gh = settings_get(r->db, r->datadir, "git.github.host");
	char	*gl = settings_get(r->db, r->datadir, "git.gitlab.host");

	*user = *token = NULL;
	*kind = "other";
	if (gh != NULL && strcmp(gh, r->host) == 0) {
		*kind = "github";
		*token = settings_get(r->db, r->datadir, "git.github.token");
		*user = strdup("x-access-token");
	} else if (gl != NULL && strcmp(gl, r->host) == 0) {
		*kind = "gitlab";
		*token = settings_get(r->db, r->datadir, "git.gitlab.token");
		*user = strdup("oauth2");
	}
	free(gh);
	free(gl);
}

/* DATA_DIR/repos/<host>/<owner>/<repo>.git, ':' in the host made '_'. */
static char *
run_repo_dir(struct run *r)
{
	struct buf	 b;
	char		*p;

	buf_init(&b);
	if (buf_printf(&b, "%s/repos/%s%s.git", r->datadir, r->host,
	    r->job->library_id) == -1) {
		buf_release(&b);
		return NULL;
	}
	for (p = b.p + strlen(r->datadir) + 7; *p != '\0'; p++)
		if (*p == ':')
			*p = '_';
	return buf_detach(&b);
}

/* Stored blob id of a document, to skip unchanged files. */
static int
run_stored_blob(struct run *r, const char *path, char out[41])
{
	sqlite3_stmt	*st;
	int		 found = 0;
	const char	*b;

	if (sqlite3_prepare_v2(r->db, "SELECT blob FROM documents WHERE "
	    "library_id = ?1 AND path = ?2", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (b = (const char *)sqlite3_column_text(st, 0)) != NULL) {
		snprintf(out, 41, "%s", b);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

/*
 * Selects, reads and parses the changed documentation files of the commit. Returns 0,
 * -1 with err set, or 1 when the job's cancellation was requested (checked before each
 * file).
 */
static int
run_collect(struct run *r, struct gitrepo *g, int full, char *err, size_t errsz)
{
	struct select_rules rules;
	struct gitrepo_entry *ents = NULL;
	size_t		 nents = 0, i, nsel = 0;
	char		 stored[41], rerr[256];
	char		*data;
	size_t		 len;
	int		 rc = -1;

	if (library_settings_rules(r->settings, &rules) == -1) {
		snprintf(err, errsz, "the library's stored settings are unreadable");
		return -1;
	}
	if (gitrepo_list(g, &ents, &nents, err, errsz) == -1)
		goto out;
	for (i = 0; i < nents; i++)
		if (select_path(&rules, ents[i].path))
			nsel++;
	if ((long)nsel > r->max_files) {
		snprintf(err, errsz, "the repository has %zu documentation files, "
		    "more than the limit of %ld (setting limits.max_files); narrow "
		    "it with folders or excludeFolders", nsel, r->max_files);
		goto out;
	}
	if (nsel > 0 && (r->files = calloc(nsel, sizeof(*r->files))) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	for (i = 0; i < nents; i++) {
		struct parsed_file *f;

		if (!select_path(&rules, ents[i].path))
			continue;
		if (run_cancel_point(r)) {
			rc = 1;
			goto out;
		}
		if (r->test_delay_ms > 0) {
			struct timespec ts = { r->test_delay_ms / 1000,
			    (r->test_delay_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
		if (ents[i].size > (size_t)r->max_file_kb * 1024) {
			worker_log(r, "warning", "skipped %s: %zu bytes is more than "
			    "the limit of %ld KB (setting limits.max_file_kb)",
			    ents[i].path, ents[i].size, r->max_file_kb);
			r->nskipped++;
			continue;
		}
		f = &r->files[r->nfiles];
		if ((f->path = strdup(ents[i].path)) == NULL) {
			snprintf(err, errsz, "out of memory");
			goto out;
		}
		memcpy(f->oid, ents[i].oid, sizeof(f->oid));
		r->nfiles++;
		if (!full && run_stored_blob(r, f->path, stored) &&
		    strcmp(stored, f->oid) == 0) {
			f->keep = 1;
			continue;
		}
		if (gitrepo_read(g, f->oid, (size_t)r->max_file_kb * 1024, &data,
		    &len, rerr, sizeof(rerr)) == -1) {
			snprintf(err, errsz, "cannot read %s: %s", f->path, rerr);
			goto out;
		}
		if (doc_parse(f->path, data, len, &f->doc) == -1) {
			worker_log(r, "warning", "skipped %s: it could not be parsed",
			    f->path);
			memset(&f->doc, 0, sizeof(f->doc));
			r->nskipped++;
		} else
			r->nparsed++;
		free(data);
	}
	rc = 0;
out:
	gitrepo_list_free(ents, nents);
	library_rules_release(&rules);
	return rc;
}

/* Deletes a library's documents (and their snippets and index rows) by a condition. */
static int
run_delete_docs(struct run *r, int all)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;
	static const char *sql[2][2] = {
		{ "DELETE FROM snippets_fts WHERE rowid IN (SELECT s.id FROM "
		  "snippets s JOIN documents d ON d.id = s.document_id WHERE "
		  "d.library_id = ?1 AND d.path NOT IN (SELECT value FROM "
		  "json_each(?2)))",
		  "DELETE FROM documents WHERE library_id = ?1 AND path NOT IN "
		  "(SELECT value FROM json_each(?2))" },
		{ "DELETE FROM snippets_fts WHERE rowid IN (SELECT id FROM snippets "
		  "WHERE library_id = ?1)",
		  "DELETE FROM documents WHERE library_id = ?1" },
	};
	json_object	*keep = json_object_new_array();
	size_t		 i, k;

	/* The documents kept unchanged survive; all others are replaced. */
	for (i = 0; i < r->nfiles; i++)
		if (r->files[i].keep)
			json_object_array_add(keep,
			    json_object_new_string(r->files[i].path));
	for (k = 0; k < 2; k++) {
		if (sqlite3_prepare_v2(r->db, sql[all][k], -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
		if (!all)
			sqlite3_bind_text(st, 2, json_object_to_json_string(keep),
			    -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		sqlite3_finalize(st);
		st = NULL;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	json_object_put(keep);
	return rc;
}

static char *
run_code_json(const struct doc_section *s, struct buf *codetext)
{
	json_object	*a = json_object_new_array(), *o;
	size_t		 i;
	char		*r;

	buf_reset(codetext);
	for (i = 0; i < s->ncode; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "language",
		    json_object_new_string(s->code[i].lang));
		json_object_object_add(o, "code",
		    json_object_new_string(s->code[i].code));
		json_object_array_add(a, o);
		buf_adds(codetext, s->code[i].code);
		buf_addc(codetext, '\n');
	}
	r = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(a);
	return r;
}

/* Inserts one parsed file's document, snippets and index rows. */
static int
run_insert_file(struct run *r, struct parsed_file *f, sqlite3_stmt *doc_st,
    sqlite3_stmt *sn_st, sqlite3_stmt *fts_st, const char *lib_tag)
{
	struct buf	 codetext, trail;
	struct dedup_sig sig;
	long long	 doc_id, sn_id;
	size_t		 i;
	char		*code;
	int		 tokens, rc = -1;

	buf_init(&codetext);
	buf_init(&trail);
	sqlite3_reset(doc_st);
	sqlite3_bind_text(doc_st, 1, r->job->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(doc_st, 2, f->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(doc_st, 3, f->oid, -1, SQLITE_STATIC);
	sqlite3_bind_text(doc_st, 4, f->doc.title ? f->doc.title : f->path, -1,
	    SQLITE_STATIC);
	if (sqlite3_step(doc_st) != SQLITE_DONE)
		goto out;
	doc_id = sqlite3_last_insert_rowid(r->db);
	for (i = 0; i < f->doc.nsecs; i++) {
		const struct doc_section *s = &f->doc.secs[i];
		size_t textlen = s->text ? strlen(s->text) : 0;

		if (textlen == 0 && s->ncode == 0)
			continue;
		if ((code = run_code_json(s, &codetext)) == NULL)
			goto out;
		tokens = (int)(tokenize_estimate(s->title, strlen(s->title)) +
		    tokenize_estimate(s->text ? s->text : "", textlen) +
		    tokenize_estimate(codetext.p ? codetext.p : "", codetext.len));
		sqlite3_reset(sn_st);
		sqlite3_bind_text(sn_st, 1, r->job->library_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(sn_st, 2, doc_id);
		sqlite3_bind_int64(sn_st, 3, (long long)i);
		sqlite3_bind_text(sn_st, 4, s->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(sn_st, 5, s->breadcrumb ? s->breadcrumb : "", -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(sn_st, 6, s->anchor ? s->anchor : "", -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(sn_st, 7, s->text ? s->text : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(sn_st, 8, code, -1, SQLITE_STATIC);
		sqlite3_bind_int(sn_st, 9, tokens);
		buf_reset(&trail);
		if (buf_printf(&trail, "%s\x1f%s", f->doc.title ? f->doc.title : "",
		    s->breadcrumb ? s->breadcrumb : "") == -1) {
			free(code);
			goto out;
		}
		dedup_signature(s->title, s->text, codetext.p, trail.p, &sig);
		sqlite3_bind_text(sn_st, 10, sig.hash, -1, SQLITE_STATIC);
		if (sig.has_sig)
			sqlite3_bind_int64(sn_st, 11, (long long)sig.sig);
		else
			sqlite3_bind_null(sn_st, 11);
		if (sqlite3_step(sn_st) != SQLITE_DONE) {
			free(code);
			goto out;
		}
		free(code);
		sn_id = sqlite3_last_insert_rowid(r->db);
		sqlite3_reset(fts_st);
		sqlite3_bind_int64(fts_st, 1, sn_id);
		sqlite3_bind_text(fts_st, 2, lib_tag, -1, SQLITE_STATIC);
		sqlite3_bind_text(fts_st, 3, s->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(fts_st, 4, s->breadcrumb ? s->breadcrumb : "", -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(fts_st, 5, s->text ? s->text : "", -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(fts_st, 6, codetext.p ? codetext.p : "", -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(fts_st, 7, f->path, -1, SQLITE_STATIC);
		if (sqlite3_step(fts_st) != SQLITE_DONE)
			goto out;
	}
	rc = 0;
out:
	buf_release(&codetext);
	buf_release(&trail);
	return rc;
}

/* Web URL prefix of a file at a commit on the repository's host. */
static char *
run_blob_prefix(const char *url, const char *kind)
{
	struct buf	 b;

	buf_init(&b);
	if (buf_printf(&b, "%s%s", url, strcmp(kind, "gitlab") == 0 ?
	    "/-/blob/" : "/blob/") == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* Writes the new index and the library's counts in one transaction. */
static int
run_write(struct run *r, const char *commit, const char *branch, const char *kind,
    int full)
{
	sqlite3_stmt	*doc_st = NULL, *sn_st = NULL, *fts_st = NULL, *st = NULL;
	char		 lib_tag[32], *prefix = NULL;
	size_t		 i;
	int		 rc = -1;

	snprintf(lib_tag, sizeof(lib_tag), "l%ld", r->lib_no);
	if ((prefix = run_blob_prefix(r->url, kind)) == NULL)
		return -1;
	if (db_begin(r->db) == -1)
		goto out;
	if (run_delete_docs(r, full) == -1)
		goto out;
	if (sqlite3_prepare_v2(r->db, "INSERT INTO documents (library_id, path, "
	    "blob, title) VALUES (?1, ?2, ?3, ?4)", -1, &doc_st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, "INSERT INTO snippets (library_id, "
	    "document_id, ord, title, breadcrumb, anchor, text, code, tokens, hash, "
	    "sig, heading) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?4)",
	    -1, &sn_st, NULL) !=
	    SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, "INSERT INTO snippets_fts (rowid, lib, "
	    "title, breadcrumb, body, code, path) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	    "?7)", -1, &fts_st, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < r->nfiles; i++)
		if (!r->files[i].keep && r->files[i].doc.secs != NULL &&
		    run_insert_file(r, &r->files[i], doc_st, sn_st, fts_st,
		    lib_tag) == -1)
			goto out;
	/* Duplicates are decided again over the whole library (lib/dedup.h). */
	if (dedup_library(r->db, r->job->library_id, &r->dedup) == -1)
		goto out;
	/*
	 * indexed_settings records what the index was built with; when files were
	 * skipped (over a limit) it stays NULL, so that the next parse re-reads them
	 * even on an unchanged commit (the limit may have been raised).
	 */
	if (sqlite3_prepare_v2(r->db, "UPDATE libraries SET indexed_commit = ?2, "
	    "indexed_branch = ?3, indexed_settings = CASE WHEN ?5 > 0 THEN NULL "
	    "ELSE settings END, blob_prefix = ?4, "
	    "index_version = (SELECT max(index_version) + 1 FROM libraries), "
	    "total_documents = (SELECT count(*) FROM documents WHERE library_id = ?1), "
	    "total_snippets = (SELECT count(*) FROM snippets WHERE library_id = ?1 "
	    "AND dup_of IS NULL), "
	    "total_tokens = (SELECT coalesce(sum(tokens), 0) FROM snippets WHERE "
	    "library_id = ?1 AND dup_of IS NULL) WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, prefix, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (long long)r->nskipped);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, sqlite3_errmsg(r->db));
	sqlite3_finalize(doc_st);
	sqlite3_finalize(sn_st);
	sqlite3_finalize(fts_st);
	sqlite3_finalize(st);
	free(prefix);
	return rc;
}

static int
run_counts(struct run *r, long *docs, long *snippets)
{
	sqlite3_stmt	*st;
	int		 rc = -1;

	if (sqlite3_prepare_v2(r->db, "SELECT total_documents, total_snippets FROM "
	    "libraries WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*docs = sqlite3_column_int64(st, 0);
		*snippets = sqlite3_column_int64(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* embedder_log_fn, describe_log_fn: their lines go to the job log. */
static void
run_embed_log(void *ctx, const char *level, const char *line)
{
	worker_log(ctx, level, "%s", line);
}

/*
 * After a post-index step failed: run_status becomes 'degraded' (when it was 'ok') with
 * last_error, and the job's message says what failed ("<msg>; <what> failed (<error>):
 * <consequence>"), in its own transaction.
 */
static void
run_degrade(struct run *r, const char *msg, const char *what, const char *error,
    const char *consequence)
{
	sqlite3_stmt	*st = NULL;
	char		 m[1024];

	snprintf(m, sizeof(m), "%s; %s failed (%s): %s", msg, what, error,
	    consequence);
	if (db_begin(r->db) == -1)
		goto out;
	if (sqlite3_prepare_v2(r->db, "UPDATE libraries SET run_status = 'degraded', "
	    "last_error = ?2 WHERE id = ?1 AND run_status IN ('ok', 'degraded')", -1,
	    &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, r->job->library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, error, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(r->db, "UPDATE jobs SET message = ?2 WHERE id = ?1", -1,
	    &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, r->job->id);
	sqlite3_bind_text(st, 2, m, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (db_commit(r->db) == 0)
		return;
out:
	log_err("%s: %s", __func__, sqlite3_errmsg(r->db));
	sqlite3_finalize(st);
	db_rollback(r->db);
}

/*
 * Time budget of a post-index step, at most cap: what is left before the worker's alarm,
 * less 30 s to record the outcome (half of it when a minute or less is left); 0 (the
 * step's default) when no alarm is set.
 */
static long
run_budget_ms(long cap)
{
	unsigned	 left = alarm(0);
	long		 ms = 0;

	if (left > 0) {
		alarm(left);
		ms = left > 60 ? (long)(left - 30) * 1000 : (long)left * 500;
		if (ms > cap)
			ms = cap;
	}
	return ms;
}

/*
 * After the index is committed (or found unchanged): LLM titles and descriptions of the
 * code snippets that need them, when an LLM is configured (lib/describe.h). A failure
 * does not fail the job: the snippets keep their titles, run_status becomes 'degraded'
 * and the next run asks again for what is missing. Returns the (possibly new) message.
 */
static const char *
run_describe(struct run *r, const char *msg, char *buf, size_t bufsz, int *cancelled)
{
	struct describe_stats	 ds;

	memset(&ds, 0, sizeof(ds));
	ds.budget_ms = run_budget_ms(DESCRIBE_DEADLINE_MS);
	ds.cancel = run_cancel_point;
	if (describe_run(r->db, r->datadir, r->job->library_id, run_embed_log, r,
	    &ds) == 0 || !ds.configured) {
		*cancelled = ds.cancelled;
		return msg;
	}
	run_degrade(r, msg, "describing snippets", ds.error,
	    "the snippets keep their titles");
	snprintf(buf, bufsz, "%s; describing snippets failed (%s): the snippets keep "
	    "their titles", msg, ds.error);
	return buf;
}

/*
 * After the index is committed (or found unchanged): embeds the snippets that have no
 * vector for the configured model, when an embedding provider is configured, within the
 * time left before the worker's alarm (at most EMBEDDER_DEADLINE_MS). A failure does not
 * fail the job: the library keeps its lexical index and its run_status becomes
 * 'degraded'; the job's message says so. The next run retries the missing vectors.
 */
static int
run_embed(struct run *r, const char *msg)
{
	struct embedder_stats	 es;

	memset(&es, 0, sizeof(es));
	es.budget_ms = run_budget_ms(EMBEDDER_DEADLINE_MS);
	es.cancel = run_cancel_point;
	if (embedder_run(r->db, r->datadir, r->job->library_id, run_embed_log, r,
	    &es) == 0 || !es.configured)
		return es.cancelled;
	run_degrade(r, msg, "embedding", es.error,
	    "the library stays searchable lexically");
	return 0;
}

/*
 * The post-index steps (describe, embed) after the index was committed or found
 * unchanged, then the job is done; a cancellation between or inside them ends the job
 * 'cancelled' (the index stays).
 */
static void
run_post(struct run *r, const char *msg)
{
	char	 dmsg[1024];
	int	 cancelled = 0;

	if (run_cancel_point(r)) {
		run_cancel(r, "before describing snippets", 1);
		return;
	}
	msg = run_describe(r, msg, dmsg, sizeof(dmsg), &cancelled);
	if (cancelled) {
		run_cancel(r, "while describing snippets", 1);
		return;
	}
	if (run_embed(r, msg)) {
		run_cancel(r, "while embedding snippets", 1);
		return;
	}
	if (jobs_finish_running(r->db, r->job->id) == -1)
		log_err("%s: job %lld could not be marked done", __func__, r->job->id);
}

/* Indexes one git library. */
static void
run_index(sqlite3 *db, const char *datadir, struct job *job)
{
	struct run	 r;
	struct gitrepo	*g = NULL;
	struct gitrepo_limits lim;
	char		*user = NULL, *token = NULL, *dir = NULL, err[512], msg[512];
	const char	*kind, *delay;
	long		 docs = 0, snippets = 0;
	int		 full, c;

	memset(&r, 0, sizeof(r));
	r.db = db;
	r.datadir = datadir;
	r.job = job;
	if ((delay = getenv("CTXD_TEST_FILE_DELAY_MS")) != NULL &&
	    util_parse_long(delay, 0, 10000, &r.test_delay_ms) == -1)
		r.test_delay_ms = 0;
	if (run_load(&r) == -1) {
		run_fail(&r, "the library no longer exists");
		goto out;
	}
	/* A run that did not finish, a forced job or new settings re-index all. */
	full = job->force || strcmp(r.run_status, "unfinished") == 0 ||
	    strcmp(r.run_status, "running") == 0 || r.indexed_settings == NULL ||
	    strcmp(r.indexed_settings, r.settings) != 0;
	if (run_mark_started(&r) == -1) {
		run_fail(&r, "the database is busy; the job will be retried");
		goto out;
	}
	r.max_repo_mb = setting_number(db, datadir, "limits.max_repo_mb", 1024);
	r.max_file_kb = setting_number(db, datadir, "limits.max_file_kb", 2048);
	r.max_files = setting_number(db, datadir, "limits.max_files", 20000);
	worker_log(&r, "info", "fetching %s (branch %s)", r.url,
	    *r.branch ? r.branch : "default");
	run_credentials(&r, &user, &token, &kind);
	if ((dir = run_repo_dir(&r)) == NULL) {
		run_fail(&r, "out of memory");
		goto out;
	}
	lim.max_fetch_bytes = (size_t)r.max_repo_mb * 1024 * 1024;
	if (gitrepo_sync(&g, r.url, r.branch, dir, user, token, &lim, err,
	    sizeof(err)) == -1) {
		run_fail(&r, err);
		goto out;
	}
	worker_log(&r, "info", "branch %s is at commit %s", gitrepo_branch(g),
	    gitrepo_commit(g));
	if (run_cancel_point(&r)) {
		run_cancel(&r, "after fetching", 0);
		goto out;
	}
	if (!full && r.indexed_commit != NULL &&
	    strcmp(r.indexed_commit, gitrepo_commit(g)) == 0) {
		worker_log(&r, "info", "commit %.12s is already indexed; nothing to "
		    "do", gitrepo_commit(g));
		if (db_begin(db) == 0 && run_finish(&r, 1, "unchanged") == 0 &&
		    db_commit(db) == 0)
			run_post(&r, "unchanged");
		else
			db_rollback(db);
		goto out;
	}
	if ((c = run_collect(&r, g, full, err, sizeof(err))) == -1) {
		run_fail(&r, err);
		goto out;
	}
	if (c == 1) {
		run_cancel(&r, "while parsing", 0);
		goto out;
	}
	worker_log(&r, "info", "%zu documentation files: %zu parsed, %zu "
	    "unchanged, %zu skipped", r.nfiles, r.nparsed,
	    r.nfiles - r.nparsed - r.nskipped, r.nskipped);
	/* Last checkpoint before the write transaction (it holds the write lock). */
	if (run_cancel_point(&r)) {
		run_cancel(&r, "before writing the index", 0);
		goto out;
	}
	if (run_write(&r, gitrepo_commit(g), gitrepo_branch(g), kind, full) == -1 ||
	    run_counts(&r, &docs, &snippets) == -1) {
		run_fail(&r, "the index could not be written; the worker log has "
		    "the details");
		goto out;
	}
	if (r.dedup.duplicates > 0)
		worker_log(&r, "info", "%zu duplicate snippets left out (%zu exact, "
		    "%zu near copies; %zu newly, %zu restored)", r.dedup.duplicates,
		    r.dedup.exact, r.dedup.duplicates - r.dedup.exact,
		    r.dedup.removed, r.dedup.restored);
	snprintf(msg, sizeof(msg), "indexed commit %.12s: %ld documents, %ld "
	    "snippets", gitrepo_commit(g), docs, snippets);
	worker_log(&r, "info", "%s", msg);
	if (run_finish(&r, 1, msg) == -1 || db_commit(db) == -1) {
		run_fail(&r, "the index could not be committed");
		goto out;
	}
	run_post(&r, msg);
out:
	if (token != NULL)
		explicit_bzero(token, strlen(token));
	free(token);
	free(user);
	free(dir);
	gitrepo_free(g);
	run_release(&r);
}

/* Next queued job, oldest first; 0 when there is none. */
static int
worker_next(sqlite3 *db, struct job *job)
{
	sqlite3_stmt	*st;
	int		 found = 0;

	memset(job, 0, sizeof(*job));
	if (sqlite3_prepare_v2(db, "SELECT id, library_id, force FROM jobs WHERE "
	    "state = 'queued' ORDER BY id LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		job->id = sqlite3_column_int64(st, 0);
		job->library_id = col_dup(st, 1);
		job->force = sqlite3_column_int(st, 2);
		found = job->library_id != NULL;
	}
	sqlite3_finalize(st);
	return found;
}

/*
 * A job left "running" belongs to a worker that died (we hold the lock): queue it again
 * and mark its library's run unfinished so that it is re-indexed in full. A job that has
 * already been started WORKER_MAX_ATTEMPTS times fails instead, so that a repository that
 * kills or hangs the worker does not block the queue forever.
 */
#define WORKER_MAX_ATTEMPTS	3
static int
worker_recover(sqlite3 *db)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (db_begin(db) == -1)
		return -1;
	/*
	 * A job whose cancellation was requested is cancelled, not run again; its write
	 * transaction, if any, died with the worker. A job whose library's run is no longer
	 * 'running' died in its post-index steps: its index is written, it is done (the
	 * next run completes titles and vectors).
	 */
	if (db_exec(db, "UPDATE libraries SET run_status = 'cancelled', state = CASE "
	    "WHEN state = 'delete' THEN 'delete' WHEN indexed_commit IS NOT NULL THEN "
	    "'finalized' ELSE 'initial' END, last_error = 'cancelled: the worker "
	    "stopped before it reached a checkpoint' WHERE run_status = 'running' AND "
	    "id IN (SELECT library_id FROM jobs WHERE state = 'running' AND kind = "
	    "'index' AND cancel_requested)") == -1 ||
	    db_exec(db, "UPDATE jobs SET state = 'cancelled', finished_at = "
	    "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), message = 'cancelled: the worker "
	    "stopped before it reached a checkpoint' WHERE state = 'running' AND "
	    "kind = 'index' AND cancel_requested") == -1 ||
	    db_exec(db, "UPDATE jobs SET state = 'done', finished_at = "
	    "strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE state = 'running' AND "
	    "kind = 'index' AND NOT EXISTS (SELECT 1 FROM libraries l WHERE l.id = "
	    "jobs.library_id AND l.run_status = 'running') AND EXISTS (SELECT 1 FROM "
	    "libraries l WHERE l.id = jobs.library_id)") == -1)
		goto out;
	if (sqlite3_prepare_v2(db, "UPDATE jobs SET state = 'failed', finished_at = "
	    "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), message = 'the worker stopped "
	    "before the end of this job ' || attempts || ' times (crash or "
	    "limits.job_timeout_s); giving up' WHERE state = 'running' AND "
	    "attempts >= ?1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int(st, 1, WORKER_MAX_ATTEMPTS);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	if (db_exec(db, "UPDATE libraries SET run_status = 'failed', state = CASE "
	    "WHEN indexed_commit IS NULL THEN 'error' ELSE 'finalized' END, "
	    "last_error = (SELECT message FROM jobs j WHERE j.library_id = "
	    "libraries.id ORDER BY j.id DESC LIMIT 1) WHERE run_status = 'running' "
	    "AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.library_id = libraries.id "
	    "AND j.state = 'running')") == -1 ||
	    db_exec(db, "UPDATE libraries SET run_status = 'unfinished' WHERE "
	    "run_status = 'running'") == -1 ||
	    db_exec(db, "UPDATE jobs SET state = 'queued', force = 1, message = "
	    "'the previous worker stopped before the end of this job' WHERE "
	    "state = 'running'") == -1 ||
	    db_exec(db, "INSERT INTO jobs (library_id, kind, force, created_at) "
	    "SELECT id, 'index', 1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now') FROM "
	    "libraries l WHERE run_status = 'unfinished' AND NOT EXISTS (SELECT 1 "
	    "FROM jobs j WHERE j.library_id = l.id AND j.state = 'queued')") == -1)
		goto out;
	rc = db_commit(db);
out:
	sqlite3_finalize(st);
	if (rc == -1)
		db_rollback(db);
	return rc;
}

int
main(int argc, char *argv[])
{
	const char	*datadir;
	char		*lockpath = NULL, *repos = NULL;
	struct job	 job;
	long		 timeout;
	int		 lockfd, n = 0, rc = 1;

	log_init("ctxd-worker");
	if (argc > 1) {
		fprintf(stderr, "usage: ctxd-worker\n");
		return 2;
	}
	if (license_check_env("ctxd-worker") == -1)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	datadir = util_data_dir();
	if ((lockpath = util_path_join(datadir, "worker.lock")) == NULL ||
	    (repos = util_path_join(datadir, "repos")) == NULL)
		goto out;
	if ((lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		log_err("cannot open %s: %s", lockpath, strerror(errno));
		goto out;
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK) {
			rc = 0;		/* another worker is at it */
			goto out;
		}
		log_err("cannot lock %s: %s", lockpath, strerror(errno));
		goto out;
	}
	if (util_mkdir_p(repos, 0700) == -1) {
		log_err("cannot create %s: %s", repos, strerror(errno));
		goto out;
	}
	if (db_open(datadir, DB_READWRITE, &worker_db) == -1)
		goto out;
	if (worker_recover(worker_db) == -1)
		goto out;
	timeout = setting_number(worker_db, datadir, "limits.job_timeout_s", 1800);
	while (worker_next(worker_db, &job) == 1) {
		/*
		 * libgit2 1.5 has no network timeout: a stalled server would hold the
		 * lock forever. The alarm ends the worker; the next one requeues the job
		 * (and gives up after WORKER_MAX_ATTEMPTS).
		 */
		alarm((unsigned)timeout);
		if (jobs_is_delete(worker_db, job.id))
			library_delete_run(worker_db, datadir, job.id, job.library_id);
		else
			run_index(worker_db, datadir, &job);
		alarm(0);
		free(job.library_id);
		n++;
	}
	if (n > 0)
		log_info("ran %d job%s", n, n == 1 ? "" : "s");
	rc = 0;
out:
	db_close(worker_db);
	free(lockpath);
	free(repos);
	return rc;
}
