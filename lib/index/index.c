/* index.c: the indexing pipeline of one index job (index.h). */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "index/dedup.h"
#include "index/describe.h"
#include "index/embedder.h"
#include "index/includes.h"
#include "index/index.h"
#include "index/sitename.h"
#include "index/segwrite.h"
#include "index/share.h"
#include "parse/code.h"
#include "parse/doc.h"
#include "parse/parse.h"
#include "search/inject.h"
#include "sources/backend.h"
#include "sources/gitsrc.h"
#include "sources/select.h"
#include "store/db.h"
#include "store/jobs.h"
#include "store/library.h"
#include "store/settings.h"
#include "store/snippets.h"

/*
 * What a section's snippet row needs beyond the parsed section, computed while parsing
 * (index_prepare) so that the write transaction, during which no other job can write,
 * only inserts rows.
 */
struct index_prep {
	char		*code;		/* snippets.code JSON */
	char		*codetext;	/* its code, one block a line */
	int		 tokens;
	struct dedup_sig sig;
	struct inject_verdict *iv;	/* the content check's rules; NULL: none */
};

/* One selected documentation file: kept unchanged, or parsed (or not parseable). */
struct index_file {
	const struct backend_doc *src;
	struct doc	 doc;
	struct index_prep *prep;	/* one a section of doc (index_prepare) */
	int		 keep;		/* unchanged: keep the stored document */
	long long	 reuse;		/* > 0: show (or copy) the snippets of this document of
					   another version (lib/index/share.h) */
};

struct index_run {
	struct jobs_ref	 job;		/* db and job id: log lines, cancel polls */
	struct db	*db;
	const char	*datadir;
	const char	*library_id;
	int		 full;		/* re-parse every file */
	const struct backend_ops *ops;
	struct backend_ctx ctx;
	struct backend_set set;
	/* the library row */
	char		*source_type, *url, *host, *branch, *settings;
	char		*indexed_commit, *indexed_settings, *run_status;
	char		*family;	/* the library whose versions share files */
	/* limits */
	long		 max_file_kb, max_files;
	/* results: every selected file is parsed, kept unchanged or skipped */
	struct index_file *files;
	size_t		 nfiles;	/* files[] in use: all but those over the limit */
	size_t		 nselected, nparsed, nkept, nskipped;
	size_t		 nreused;	/* of the parsed: copied from another version */
	size_t		 ngenerated;	/* of the skipped: generated source (select_generated) */
	int		 llm;		/* an LLM is configured: overviews of source files */
	size_t		 noverview;	/* source files given one (code_parse_overview) */
	size_t		 nretry;	/* skipped ones a later run may read (limit, parse) */
	struct dedup_stats dedup;
	long		 test_delay_ms;	/* CTXD_TEST_FILE_DELAY_MS (tests only) */
	/* parsing stops mid-file at a cancellation or the deadline (index_parse_poll) */
	struct doc_poll	 poll;
	long long	 deadline_ms;	/* 0: none */
	long		 timeout_s;
	/* where the run's time went (ms), logged at its end (index_times) */
	long long	 t_start, t_fetch, t_parse, t_write, t_write_wait, t_post;
};

/* A file whose first bytes hold a NUL is binary (git's rule: the first 8,000 bytes). */
#define INDEX_BINARY_PEEK	8000

/* Loads the library row of the job; -1 when it is gone. */
static int
index_load(struct index_run *r)
{
	struct store_library l;

	if (store_library_load(r->db, r->library_id, &l) == -1 || !l.exists)
		return -1;
	/* The run keeps what it needs of the row. */
	r->url = l.url;
	r->host = l.host;
	r->branch = l.branch;
	r->settings = l.settings;
	r->indexed_commit = l.indexed_commit;
	r->indexed_settings = l.indexed_settings;
	r->run_status = l.run_status;
	r->source_type = l.type;
	r->family = l.family;
	l.url = l.host = l.branch = l.settings = l.indexed_commit = NULL;
	l.indexed_settings = l.run_status = l.type = l.family = NULL;
	store_library_release(&l);
	return 0;
}

static void
index_prep_release(struct index_file *f)
{
	size_t	 i;

	if (f->prep == NULL)
		return;
	for (i = 0; i < f->doc.nsecs; i++) {
		free(f->prep[i].code);
		free(f->prep[i].codetext);
		free(f->prep[i].iv);
	}
	free(f->prep);
	f->prep = NULL;
}

static void
index_release(struct index_run *r)
{
	size_t	 i;

	if (r->ops != NULL && r->ops->release != NULL)
		r->ops->release(&r->ctx);
	backend_set_release(&r->set);
	free(r->source_type);
	free(r->url);
	free(r->host);
	free(r->branch);
	free(r->settings);
	free(r->indexed_commit);
	free(r->indexed_settings);
	free(r->run_status);
	free(r->family);
	for (i = 0; i < r->nfiles; i++) {
		index_prep_release(&r->files[i]);
		doc_release(&r->files[i].doc);
	}
	free(r->files);
}

/* Records a failed run (the previous index, if any, stays served); returns -1. */
static int
index_fail(struct index_run *r, const char *message)
{
	jobs_run_fail(r->db, r->job.job_id, r->library_id, message);
	return -1;
}

/*
 * Ends a cancelled run (the stop was seen "when"): written says whether the new index
 * was committed, and if so the vectors it left unnamed are deleted first (embedder_gc;
 * after a cancelled embed run, again). Returns 0.
 */
static int
index_cancel(struct index_run *r, const char *when, int written)
{
	char	 m[512];
	size_t	 gone;

	if (written) {
		embedder_gc(r->db, &gone);
		snprintf(m, sizeof(m), "cancelled %s: the new index is served; the "
		    "next run completes what is missing", when);
	} else if (r->indexed_commit != NULL)
		snprintf(m, sizeof(m), "cancelled %s: nothing was written; the "
		    "previous index (%s %.12s) is still served", when,
		    r->ops != NULL ? r->ops->version_noun : "commit", r->indexed_commit);
	else
		snprintf(m, sizeof(m), "cancelled %s: nothing was written; the "
		    "library has no index", when);
	jobs_run_cancel(r->db, r->job.job_id, r->library_id, m);
	return 0;
}

/*
 * The poll of the parsers (struct doc_poll): 2 once the run's deadline has passed, 1 when
 * the job's cancellation was requested, else 0.
 */
static int
index_parse_poll(void *arg)
{
	struct index_run *r = arg;

	if (r->deadline_ms > 0 && util_now_ms() >= r->deadline_ms)
		return 2;
	return jobs_cancel_point(&r->job) ? 1 : 0;
}

/*
 * The parsing deadline: the worker's alarm (limits.job_timeout_s) ends the process; the
 * parsers stop 30 s before it (half the time left when a minute or less is), so the job
 * can still record why it failed.
 */
static void
index_deadline(struct index_run *r)
{
	unsigned	 left = alarm(0);
	long		 us;

	r->deadline_ms = 0;
	if (left > 0) {
		alarm(left);
		r->deadline_ms = util_now_ms() + (left > 60 ? (long long)(left - 30) *
		    1000 : (long long)left * 500);
	}
	r->poll.fn = index_parse_poll;
	r->poll.arg = r;
	/* tests only: make every parser check slow, so a file takes long to parse */
	if (getenv("CTXD_TEST_PARSE_SLEEP_US") != NULL &&
	    util_parse_long(getenv("CTXD_TEST_PARSE_SLEEP_US"), 0, 100000, &us) == 0)
		r->poll.test_sleep_us = us;
}

/*
 * Loads the library, decides a full or an incremental run and marks the run started.
 * -1 when the run failed (recorded), 1 when the job is no longer queued (cancelled or its
 * library deleted since its claim: nothing to run, nothing to record).
 */
static int
index_start(struct index_run *r, int force)
{
	const char	*delay;
	int		 rc;

	if ((delay = getenv("CTXD_TEST_FILE_DELAY_MS")) != NULL &&
	    util_parse_long(delay, 0, 10000, &r->test_delay_ms) == -1)
		r->test_delay_ms = 0;
	index_deadline(r);
	if (index_load(r) == -1)
		return index_fail(r, "the library no longer exists");
	/* A run that did not finish, a forced job or new settings re-index all. */
	r->full = force || strcmp(r->run_status, "unfinished") == 0 ||
	    strcmp(r->run_status, "running") == 0 || r->indexed_settings == NULL ||
	    strcmp(r->indexed_settings, r->settings) != 0;
	if ((rc = jobs_run_start(r->db, r->job.job_id, r->library_id)) == 1) {
		log_info("the job was cancelled (or its library deleted) before it started; "
		    "nothing to do");
		return 1;
	}
	if (rc == -1)
		return index_fail(r, "the database is busy; the job will be retried");
	r->max_file_kb = settings_get_long(r->db, r->datadir, "limits.max_file_kb", 2048);
	r->max_files = settings_get_long(r->db, r->datadir, "limits.max_files", 20000);
	r->timeout_s = settings_get_long(r->db, r->datadir, "limits.job_timeout_s", 1800);
	return 0;
}

/* Makes *s valid UTF-8 (invalid bytes become U+FFFD); 1 when it changed, -1 on no memory. */
static int
index_repair_str(char **s)
{
	char	*fixed;

	if (*s == NULL || util_utf8_valid(*s, strlen(*s)))
		return 0;
	if ((fixed = util_utf8_repair(*s, strlen(*s), NULL)) == NULL)
		return -1;
	free(*s);
	*s = fixed;
	return 1;
}

/* Drops document i of the fetched set. */
static void
index_set_drop(struct backend_set *set, size_t i)
{
	struct backend_doc *d = &set->docs[i];

	free(d->path);
	free(d->url);
	free(d->data);
	free(d->title);
	free(d->etag);
	free(d->modified);
	memmove(d, d + 1, (set->n - i - 1) * sizeof(*d));
	set->n--;
}

/*
 * What the index stores and the API serves is UTF-8: a path (a git file name is any
 * bytes), a web address or a title that is not gets each invalid byte replaced by
 * U+FFFD. A path that, repaired, is another document's is dropped with a warning (the
 * documents of a library have distinct paths). -1 when out of memory.
 */
static int
index_repair_set(struct index_run *r)
{
	struct backend_set *set = &r->set;
	size_t		 i, j;
	int		 ch;

	for (i = 0; i < set->n; i++) {
		if ((ch = index_repair_str(&set->docs[i].path)) == -1 ||
		    index_repair_str(&set->docs[i].url) == -1 ||
		    index_repair_str(&set->docs[i].title) == -1)
			return -1;
		if (ch == 0)
			continue;
		for (j = 0; j < set->n; j++)
			if (j != i && strcmp(set->docs[j].path, set->docs[i].path) == 0)
				break;
		if (j < set->n) {
			jobs_log(r->db, r->job.job_id, "warning", "skipped %s: its name is "
			    "not UTF-8, and repaired it is another file's", set->docs[i].path);
			index_set_drop(set, i--);
		} else
			jobs_log(r->db, r->job.job_id, "info", "%s: its name is not UTF-8; "
			    "the bytes that are not were replaced by U+FFFD", set->docs[i].path);
	}
	return 0;
}

/*
 * Validates the settings and fetches the source through its back end: 0, 1 when the job
 * was cancelled while fetching, -1 when the run failed (both recorded).
 */
static int
index_fetch(struct index_run *r, const struct backend_ops *ops)
{
	char	 err[512];

	if (ops == NULL && (ops = backend_lookup(r->source_type)) == NULL) {
		snprintf(err, sizeof(err), "no source back end for source type %s",
		    r->source_type);
		return index_fail(r, err);
	}
	r->ops = ops;
	if (ops->validate != NULL && ops->validate(r->settings, err, sizeof(err)) == -1)
		return index_fail(r, err);
	r->ctx.db = r->db;
	r->ctx.datadir = r->datadir;
	r->ctx.job_id = r->job.job_id;
	r->ctx.library_id = r->library_id;
	r->ctx.url = r->url;
	r->ctx.host = r->host;
	r->ctx.branch = r->branch;
	r->ctx.settings = r->settings;
	r->ctx.max_fetch_mb = settings_get_long(r->db, r->datadir,
	    "limits.max_repo_mb", 1024);
	r->ctx.full = r->full;
	r->ctx.deadline_ms = r->deadline_ms;
	r->ctx.job = &r->job;
	if (ops->fetch(&r->ctx, &r->set, err, sizeof(err)) == -1) {
		/* a back end that stopped on the job's cancellation (backend_stop) */
		if (jobs_cancel_point(&r->job)) {
			index_cancel(r, "while fetching", 0);
			return 1;
		}
		return index_fail(r, err);
	}
	if (index_repair_set(r) == -1 || backend_set_digest(&r->set) == -1)
		return index_fail(r, "out of memory");
	return 0;
}

/*
 * 1 when the stored document of d's path has d's content hash, else 0. A back end that
 * knows says so itself.
 */
static int
index_unchanged(struct index_run *r, struct store_reader *rd, const struct backend_doc *d)
{
	char	 b[BACKEND_HASH_MAX];

	if (d->changed != -1)
		return !d->changed;
	return store_reader_blob(rd, r->library_id, d->path, b, sizeof(b)) == 1 &&
	    strcmp(b, d->hash) == 0;
}

/*
 * A document of another version of the library with d's path and content (none when
 * reuse is 0), whose snippets can be shown instead of parsing d: its id, or 0;
 * preferably one without duplicates (a duplicate may have to be copied, share_validate).
 * The document that holds its snippets is looked up when the index is written: the write
 * may first move them (share_disown).
 */
static long long
index_reusable(struct index_run *r, struct store_reader *rd, int reuse,
    const struct backend_doc *d)
{
	if (!reuse || d->hash[0] == '\0')
		return 0;
	return store_reader_reusable(rd, r->library_id, d->path, d->hash, r->family);
}

/*
 * Parses d into doc: by its format, or, for a source file with an LLM configured, with the
 * overview of a file with little documentation (at most DESCRIBE_MAX_OVERVIEWS a run).
 */
static int
index_parse_doc(struct index_run *r, const struct backend_doc *d, struct doc *doc)
{
	int	 added = 0;

	if (!r->llm || d->format != NULL || r->noverview >= DESCRIBE_MAX_OVERVIEWS ||
	    !code_is_source(d->path))
		return doc_parse_as(d->format, d->path, d->data, d->len, doc, &r->poll);
	if (code_parse_overview(d->path, d->data, d->len, doc, &r->poll, &added) == -1)
		return -1;
	r->noverview += added == 1;
	return 0;
}

/*
 * For a page stored with index_includes' digest: loads and resolves d again (its hash
 * becomes the digest again). 1 when the digest is the stored one (nothing changed), 0 when
 * it is not or the page holds no include now, -1 with err.
 */
static int
index_with_includes(struct index_run *r, struct store_reader *rd, struct backend_doc *d,
    size_t max, char *err, size_t errsz)
{
	char	 b[BACKEND_HASH_MAX], rerr[256];

	if (store_reader_blob(rd, r->library_id, d->path, b, sizeof(b)) != 1 ||
	    strlen(b) != INDEX_INCLUDES_HASH_LEN || strlen(d->hash) == INDEX_INCLUDES_HASH_LEN)
		return 0;
	if (d->data == NULL && r->ops->load != NULL &&
	    r->ops->load(&r->ctx, d, max, rerr, sizeof(rerr)) == -1) {
		snprintf(err, errsz, "cannot read %s: %s", d->path, rerr);
		return -1;
	}
	if (d->data == NULL || memchr(d->data, '\0', d->len) != NULL)
		return 0;
	if (index_includes(r->ops, &r->ctx, &r->set, d, max) == -1) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	return strcmp(b, d->hash) == 0;
}

static int index_prepare(struct index_file *);

/*
 * One selected file: skipped over the size limit, kept when unchanged, else loaded
 * and parsed (a binary file or one that cannot be parsed is skipped). Every selected
 * file is counted once: parsed, kept or skipped. Returns 0, -1 with err, or the poll's
 * answer (1 cancelled, 2 past the deadline) when it stopped the parse.
 */
static int
index_collect_one(struct index_run *r, struct backend_doc *d, struct store_reader *rd,
    char *err, size_t errsz)
{
	struct index_file *f;
	size_t		 max = (size_t)r->max_file_kb * 1024;
	char		 rerr[256];
	const char	*gen = NULL;
	int		 rc = 0;

	/*
	 * limits.max_file_kb bounds a repository's files; the other back ends bound their
	 * pages and specs themselves (sources.max_page_kb, sources.max_spec_kb).
	 */
	if (r->ops->select_files && d->size > max) {
		jobs_log(r->db, r->job.job_id, "warning", "skipped %s: %zu bytes is "
		    "more than the limit of %ld KB (setting limits.max_file_kb)",
		    d->path, d->size, r->max_file_kb);
		r->nskipped++;
		r->nretry++;
		return 0;
	}
	f = &r->files[r->nfiles++];
	f->src = d;
	/*
	 * A page that included files (its stored hash is index_includes' digest): read and
	 * resolved again, unchanged only when neither it nor an included file changed.
	 */
	if (r->ops->select_files && d->changed == -1 &&
	    (rc = index_with_includes(r, rd, d, max, err, errsz)) != 0) {
		if (rc == -1)
			return -1;
		if (!r->full) {
			free(d->data);
			d->data = NULL;
			f->keep = 1;
			r->nkept++;
			return 0;
		}
		rc = 0;
	}
	if (!r->full && index_unchanged(r, rd, d)) {
		f->keep = 1;
		r->nkept++;
		return 0;
	}
	if ((f->reuse = index_reusable(r, rd, r->ops->select_files, d)) > 0) {
		r->nreused++;
		return 0;
	}
	if (d->data == NULL && r->ops->load != NULL &&
	    r->ops->load(&r->ctx, d, max, rerr, sizeof(rerr)) == -1) {
		snprintf(err, errsz, "cannot read %s: %s", d->path, rerr);
		return -1;
	}
	/* Include directives of a repository's page: the named files' lines. */
	if (r->ops->select_files && d->data != NULL && d->format == NULL &&
	    strlen(d->hash) != INDEX_INCLUDES_HASH_LEN &&
	    index_includes(r->ops, &r->ctx, &r->set, d, max) == -1) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	if (d->data != NULL && memchr(d->data, '\0', d->len < INDEX_BINARY_PEEK ?
	    d->len : INDEX_BINARY_PEEK) != NULL) {
		jobs_log(r->db, r->job.job_id, "warning", "skipped %s: it is a binary "
		    "file", d->path);
		r->nskipped++;
	} else if (d->format == NULL &&
	    (gen = select_generated(d->path, d->data, d->len)) != NULL) {
		jobs_log(r->db, r->job.job_id, "info", "skipped %s: it is %s code",
		    d->path, gen);
		r->nskipped++;
		r->ngenerated++;
	} else if (d->data == NULL || index_parse_doc(r, d, &f->doc) == -1) {
		memset(&f->doc, 0, sizeof(f->doc));
		if ((rc = r->poll.stopped) == 0) {
			jobs_log(r->db, r->job.job_id, "warning", "skipped %s: it could "
			    "not be parsed", d->path);
			r->nskipped++;
			r->nretry++;
		}
	} else {
		r->nparsed++;
		if (doc_retitle(&f->doc, d->title) == -1 || index_prepare(f) == -1) {
			snprintf(err, errsz, "out of memory");
			rc = -1;
		}
	}
	free(d->data);
	d->data = NULL;
	return rc;
}

/* 1 when the run indexes document d of the fetched set. */
static int
index_selected(const struct index_run *r, const struct select_rules *rules,
    const struct backend_doc *d)
{
	return !r->ops->select_files || select_path(rules, d->path);
}

/*
 * Selects the documentation files of the fetched set (a back end without select_files
 * gives only documents to index) and parses the new and changed ones. Returns 0, -1
 * with err set, 1 when the job's cancellation was requested or 2 when its deadline
 * passed (checked before each file and while a file is parsed); *at gets the path being
 * parsed then, or NULL.
 */
static int
index_collect(struct index_run *r, char *err, size_t errsz, const char **at)
{
	struct select_rules rules;
	struct store_reader *rd = NULL;
	size_t		 i, nsel = 0;
	int		 rc = -1, c;

	*at = NULL;
	if (gitsrc_rules(r->settings, &rules) == -1) {
		snprintf(err, errsz, "the library's stored settings are unreadable");
		return -1;
	}
	r->llm = rules.index_source && describe_configured(r->db, r->datadir);
	for (i = 0; i < r->set.n; i++)
		if (index_selected(r, &rules, &r->set.docs[i]))
			nsel++;
	if ((long)nsel > r->max_files) {
		if (r->ops->select_files)
			snprintf(err, errsz, "the repository has %zu documentation "
			    "files, more than the limit of %ld (setting "
			    "limits.max_files); narrow it with folders or "
			    "excludeFolders", nsel, r->max_files);
		else
			snprintf(err, errsz, "the source has %zu documents, more "
			    "than the limit of %ld (setting limits.max_files)", nsel,
			    r->max_files);
		goto out;
	}
	r->nselected = nsel;
	r->job.progress.phase = "parsing";
	r->job.progress.docs_total = (long long)nsel;
	jobs_progress(&r->job, 1);
	if ((nsel > 0 && (r->files = calloc(nsel, sizeof(*r->files))) == NULL) ||
	    (rd = store_reader_open(r->db)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	for (i = 0; i < r->set.n; i++) {
		if (!index_selected(r, &rules, &r->set.docs[i]))
			continue;
		if ((c = index_parse_poll(r)) != 0) {
			rc = c;
			goto out;
		}
		if (r->test_delay_ms > 0) {
			struct timespec ts = { r->test_delay_ms / 1000,
			    (r->test_delay_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
		if ((c = index_collect_one(r, &r->set.docs[i], rd, err, errsz)) != 0) {
			if (c > 0)
				*at = r->set.docs[i].path;
			rc = c;
			goto out;
		}
		r->job.progress.docs_done = (long long)(r->nparsed + r->nkept +
		    r->nreused + r->nskipped);
		jobs_progress(&r->job, 0);
	}
	rc = 0;
out:
	store_reader_close(rd);
	select_rules_release(&rules);
	return rc;
}

/*
 * Deletes the library's documents (and their snippets and index rows): all of them, or
 * all but those kept unchanged. The snippets of a document that other libraries show move
 * to one of those first (share_disown).
 */
static int
index_delete_docs(struct index_run *r, int all)
{
	json_object	*keep = json_object_new_array();
	const char	*keep_json;
	size_t		 i;
	int		 rc = -1;

	for (i = 0; i < r->nfiles; i++)
		if (r->files[i].keep)
			json_object_array_add(keep,
			    json_object_new_string(r->files[i].src->path));
	keep_json = all ? NULL : json_object_to_json_string(keep);
	if (share_disown(r->db, r->library_id, keep_json) == -1 ||
	    store_documents_delete(r->db, r->library_id, keep_json) == -1)
		goto out;
	rc = 0;
out:
	json_object_put(keep);
	return rc;
}

/* The code blocks of s as the snippets.code JSON; their code, one per line, in codetext. */
static char *
index_code_json(const struct doc_section *s, struct buf *codetext)
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
		json_object_object_add(o, "at",
		    json_object_new_int64((int64_t)s->code[i].at));
		json_object_array_add(a, o);
		buf_adds(codetext, s->code[i].code);
		buf_addc(codetext, '\n');
	}
	r = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(a);
	return r;
}

/*
 * Prepares the rows of a parsed file's sections (struct index_prep): the content check
 * (lib/search/inject.h: it strips invisible characters from the title and each section
 * and records their flags), the code JSON, the token estimate and the duplicate
 * signatures. 0, or -1 when out of memory.
 */
static int
index_prepare(struct index_file *f)
{
	struct inject_verdict iv;
	struct buf	 codetext, trail;
	struct index_prep *p;
	size_t		 i;
	int		 rc = -1;

	inject_strip(f->doc.title);
	if (f->doc.nsecs == 0)
		return 0;
	if ((f->prep = calloc(f->doc.nsecs, sizeof(*f->prep))) == NULL)
		return -1;
	buf_init(&codetext);
	buf_init(&trail);
	for (i = 0; i < f->doc.nsecs; i++) {
		struct doc_section *s = &f->doc.secs[i];
		const char	*text = s->text ? s->text : "";

		p = &f->prep[i];
		if ((s->text == NULL || *s->text == '\0') && s->ncode == 0)
			continue;
		inject_section(s, &iv);
		if (iv.n > 0 && (p->iv = malloc(sizeof(iv))) == NULL)
			goto out;
		if (p->iv != NULL)
			memcpy(p->iv, &iv, sizeof(iv));
		if ((p->code = index_code_json(s, &codetext)) == NULL ||
		    (p->codetext = strdup(codetext.p ? codetext.p : "")) == NULL)
			goto out;
		p->tokens = (int)(tokenize_estimate(s->title, strlen(s->title)) +
		    tokenize_estimate(text, strlen(text)) +
		    tokenize_estimate(p->codetext, strlen(p->codetext)));
		buf_reset(&trail);
		if (buf_printf(&trail, "%s\x1f%s", f->doc.title ? f->doc.title : "",
		    s->breadcrumb ? s->breadcrumb : "") == -1)
			goto out;
		dedup_signature(s->title, s->text, codetext.p, trail.p, &p->sig);
	}
	rc = 0;
out:
	buf_release(&codetext);
	buf_release(&trail);
	return rc;
}

/* Inserts one section of a file as a snippet and its full-text row (index_prepare'd). */
static int
index_insert_section(struct index_run *r, const struct index_file *f,
    const struct doc_section *s, const struct index_prep *p, long long ord,
    long long doc_id, struct store_writer *w)
{
	struct store_snippet_values v;
	long long	 id;

	v.document_id = doc_id;
	v.ord = ord;
	v.title = s->title;
	v.breadcrumb = s->breadcrumb ? s->breadcrumb : "";
	v.anchor = s->anchor ? s->anchor : "";
	v.text = s->text ? s->text : "";
	v.code = p->code;
	v.path = f->src->path;
	v.tokens = p->tokens;
	v.hash = p->sig.hash;
	v.has_sig = p->sig.has_sig;
	v.sig = (long long)p->sig.sig;
	/* the id only where the content check's row needs it: the rest may be batched */
	if (store_writer_snippet(w, &v, p->iv != NULL ? &id : NULL) == -1 ||
	    (p->iv != NULL && inject_store(r->db, r->library_id, id, p->iv) == -1))
		return -1;
	return 0;
}

/* Inserts one parsed file's document, snippets and index rows. */
static int
index_insert_file(struct index_run *r, const struct index_file *f,
    struct store_writer *w)
{
	struct store_document_values dv;
	long long	 doc_id;
	size_t		 i;

	dv.path = f->src->path;
	dv.hash = f->src->hash;
	dv.title = f->doc.title ? f->doc.title : f->src->path;
	dv.url = f->src->url;
	dv.etag = f->src->etag;
	dv.modified = f->src->modified;
	if (store_writer_document(w, &dv, &doc_id) == -1)
		return -1;
	for (i = 0; i < f->doc.nsecs; i++) {
		const struct doc_section *s = &f->doc.secs[i];

		if (f->prep[i].code == NULL)
			continue;	/* empty */
		if (index_insert_section(r, f, s, &f->prep[i], (long long)i, doc_id,
		    w) == -1)
			return -1;
	}
	return 0;
}

/*
 * A file of another version of the library with the same path and content: its
 * document row shows the snippets of the document f->reuse shows (lib/index/share.h): nothing is
 * parsed, embedded or stored again. (Where that would hide the only copy of a duplicate,
 * the dedup pass that follows copies the snippets instead: share_validate.) 0, or -1 on a
 * database error.
 */
static int
index_reuse_file(struct index_run *r, const struct index_file *f)
{
	return store_document_show(r->db, r->library_id, f->reuse);
}

/*
 * Decides the duplicates of the library again (lib/index/dedup.h), then those of the other
 * libraries of the family for which it copied documents it shared with them (their
 * duplicates may name the snippets it made duplicates), until none is left.
 */
static int
index_dedup(struct index_run *r)
{
	struct share_libs changed;
	struct dedup_stats other;
	char		*id;
	size_t		 rounds = 0;
	int		 rc = -1;

	share_libs_init(&changed);
	if (dedup_library(r->db, r->library_id, &changed, &r->dedup) == -1)
		goto out;
	while ((id = share_libs_pop(&changed)) != NULL) {
		/* each round unshares documents for good: a bound for safety only */
		if (++rounds > 100000 || dedup_library(r->db, id, &changed, &other) == -1 ||
		    store_library_bump(r->db, id, STORE_BUMP_COUNTS) == -1) {
			free(id);
			goto out;
		}
		jobs_log(r->db, r->job.job_id, "info", "%s now has its own copy of files it "
		    "showed from %s (%zu duplicate snippets left out there)", id,
		    r->library_id, other.duplicates);
		free(id);
	}
	rc = 0;
out:
	share_libs_release(&changed);
	return rc;
}

/*
 * The HTTP validators of the documents the back end kept (a 304): the next run's
 * conditional GET asks with what the server sent last (a 304 may carry a new ETag), not
 * with what was stored before. A document written anew has them already. 0, or -1.
 */
static int
index_keep_validators(struct index_run *r)
{
	const struct backend_doc *d;
	size_t		 i;

	for (i = 0; i < r->set.n; i++) {
		d = &r->set.docs[i];
		if (d->changed != 0 || (d->etag == NULL && d->modified == NULL))
			continue;
		if (store_document_validators(r->db, r->library_id, d->path, d->etag,
		    d->modified) == -1)
			return -1;
	}
	return 0;
}

static int index_site_name(struct index_run *);

/* Writes the new index and the library's counts; opens the transaction it leaves open. */
static int
index_write(struct index_run *r)
{
	struct store_writer *w = NULL;
	const char	*v;
	unsigned long	 trips = db_round_trips(r->db), rows;
	size_t		 i;
	int		 rc = -1;

	if (db_begin(r->db) == -1 || index_delete_docs(r, r->full) == -1)
		goto out;
	if ((w = store_writer_open(r->db, r->library_id)) == NULL)
		goto out;
	rows = db_round_trips(r->db);
	for (i = 0; i < r->nfiles; i++)
		if (!r->files[i].keep && (r->files[i].reuse > 0 ?
		    index_reuse_file(r, &r->files[i]) : r->files[i].doc.secs != NULL ?
		    index_insert_file(r, &r->files[i], w) : 0) == -1)
			goto out;
	if (store_writer_flush(w) == -1)
		goto out;
	rows = db_round_trips(r->db) - rows;
	/* Duplicates are decided again over the whole library (lib/index/dedup.h). */
	if (index_keep_validators(r) == -1 || index_dedup(r) == -1 ||
	    store_library_indexed(r->db, r->library_id, r->set.version, r->set.label,
	    r->set.url_prefix, (long long)r->nretry) == -1)
		goto out;
	/* a library the user did not name takes the name its source gives */
	if (r->set.title == NULL && strcmp(r->source_type, "website") == 0 &&
	    index_site_name(r) == -1)
		goto out;
	if (r->set.title != NULL && strrchr(r->library_id, '/') != NULL &&
	    store_library_source_title(r->db, r->library_id, strrchr(r->library_id, '/') + 1,
	    r->set.title) == -1)
		goto out;
	rc = 0;
	/* CTXD_LOG_ROUND_TRIPS=1: what the write cost in round trips (PostgreSQL) */
	if ((v = getenv("CTXD_LOG_ROUND_TRIPS")) != NULL && strcmp(v, "1") == 0)
		log_info("round trips: %lu writing the rows of the files, %lu in the whole "
		    "write (%s)", rows, db_round_trips(r->db) - trips, r->library_id);
out:
	if (rc == -1)
		log_err("%s: %s", __func__, db_errmsg(r->db));
	store_writer_close(w);
	return rc;
}

/* A website's name from its pages' titles (sitename_of): r->set.title, when any. */
static int
index_site_name(struct index_run *r)
{
	const char	**titles;
	size_t		 i, n = r->nfiles < 100 ? r->nfiles : 100;

	if (n == 0)
		return 0;
	if ((titles = calloc(n, sizeof(*titles))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		titles[i] = r->files[i].doc.secs != NULL ? r->files[i].doc.title : NULL;
	r->set.title = sitename_of(titles, n);
	free(titles);
	return 0;
}

static int
index_counts(struct index_run *r, long *docs, long *snippets)
{
	struct store_library l;

	if (store_library_load(r->db, r->library_id, &l) == -1 || !l.exists)
		return -1;
	*docs = (long)l.total_documents;
	*snippets = (long)l.total_snippets;
	store_library_release(&l);
	return 0;
}

/*
 * After a post-index step failed: run_status becomes 'degraded' (when it was 'ok') with
 * last_error, and the job's message says what failed ("<msg>; <what> failed (<error>):
 * <consequence>"); m holds that message.
 */
static const char *
index_degrade(struct index_run *r, const char *msg, const char *what,
    const char *error, const char *consequence, struct buf *m)
{
	buf_reset(m);
	if (buf_printf(m, "%s; %s failed (%s): %s", msg, what, error,
	    consequence) == -1)
		return msg;
	jobs_run_degrade(r->db, r->job.job_id, r->library_id, error, m->p);
	return m->p;
}

/*
 * Time budget of a post-index step, at most cap: what is left before the worker's alarm,
 * less 30 s to record the outcome (half of it when a minute or less is left); 0 (the
 * step's default) when no alarm is set.
 */
static long
index_budget_ms(long cap)
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
 * Writes the library's index segment (lib/index/segwrite.h), which query processes map
 * instead of building the index from the database; the step shows in the job's progress,
 * and its outcome and time go to line (level in *level) for the job's log. A failure is
 * logged only: the database stays the source of truth and query processes build from it.
 */
static void
index_segment(struct index_run *r, const char **level, char *line, size_t linesz)
{
	char		 path[1024];
	long long	 ms;
	int		 rc;

	/* the phase is shown when the database is free (a routine update): waiting for
	   another job's write here would hold this job for nothing */
	r->job.progress.phase = "segment";
	r->job.progress_ms = 0;
	jobs_progress(&r->job, 0);
	rc = segwrite_library(r->db, r->datadir, r->library_id, &ms, path, sizeof(path));
	*level = NULL;
	if (rc == 0) {
		*level = "info";
		snprintf(line, linesz, "index segment written in %lld ms", ms);
	} else if (rc == -1) {
		*level = "warning";
		snprintf(line, linesz, "the index segment could not be written (%lld ms); "
		    "queries build the index from the database", ms);
	}
}

/*
 * Where the run's time went, as one line of the job's log: each step's wall time, and how
 * long the job waited for other connections' writes (SQLite has one writer), in the write
 * step and in all.
 */
static void
index_times(struct index_run *r)
{
	long long	 waited, n;

	db_busy_waited(&waited, &n);
	jobs_log(r->db, r->job.job_id, "info", "time: fetch %lld ms, parse %lld ms, "
	    "write %lld ms (%lld ms of it waiting for another writer), describe and "
	    "embed %lld ms, in all %lld ms; %lld ms waiting for other writers in all",
	    r->t_fetch, r->t_parse, r->t_write, r->t_write_wait, r->t_post,
	    util_now_ms() - r->t_start, waited);
}

/*
 * The post-index steps after the index was committed or found unchanged: LLM titles and
 * descriptions of code snippets (lib/index/describe.h), then vectors (lib/index/embedder.h), each
 * when configured, within the time left before the worker's alarm. A failure does not
 * fail the job: run_status becomes 'degraded' and the job's message says so; the next
 * run completes what is missing. A cancellation between or inside them ends the job
 * 'cancelled' (the index stays); else the job is done.
 */
static int
index_post(struct index_run *r, const char *msg)
{
	struct describe_stats ds;
	struct embedder_stats es;
	struct buf	 dm, em;		/* the job's message after a failed step */
	const char	*seglevel;
	char		 segline[256];
	int		 rc = 0;

	buf_init(&dm);
	buf_init(&em);
	r->t_post = util_now_ms();
	if (jobs_cancel_point(&r->job)) {
		rc = index_cancel(r, "before describing snippets", 1);
		goto out;
	}
	memset(&ds, 0, sizeof(ds));
	ds.budget_ms = index_budget_ms(DESCRIBE_DEADLINE_MS);
	ds.cancel = jobs_cancel_point;
	ds.progress = jobs_progress_step;
	if (describe_run(r->db, r->datadir, r->library_id, jobs_log_line, &r->job,
	    &ds) == -1 && ds.configured)
		msg = index_degrade(r, msg, "describing snippets", ds.error,
		    "the snippets keep their titles", &dm);
	else if (ds.cancelled) {
		rc = index_cancel(r, "while describing snippets", 1);
		goto out;
	}
	memset(&es, 0, sizeof(es));
	es.budget_ms = index_budget_ms(EMBEDDER_DEADLINE_MS);
	es.cancel = jobs_cancel_point;
	es.progress = jobs_progress_step;
	if (embedder_run(r->db, r->datadir, r->library_id, jobs_log_line, &r->job,
	    &es) == -1 && es.configured)
		index_degrade(r, msg, "embedding", es.error,
		    "the library stays searchable lexically", &em);
	else if (es.cancelled) {
		rc = index_cancel(r, "while embedding snippets", 1);
		goto out;
	}
	r->t_post = util_now_ms() - r->t_post;
	index_segment(r, &seglevel, segline, sizeof(segline));
	/* The segment's and the time's log lines and the job's end: one write. */
	if (db_begin(r->db) == -1)
		log_err("%s: %s", __func__, db_errmsg(r->db));
	if (seglevel != NULL)
		jobs_log(r->db, r->job.job_id, seglevel, "%s", segline);
	index_times(r);
	if (jobs_finish_running(r->db, r->job.job_id) == -1 ||
	    (db_in_transaction(r->db) && db_commit(r->db) == -1)) {
		log_err("%s: job %lld could not be marked done", __func__,
		    r->job.job_id);
		db_rollback(r->db);
	}
out:
	buf_release(&dm);
	buf_release(&em);
	return rc;
}

/* The fetched version is the indexed one: nothing to write, the post-index steps run. */
static int
index_unchanged_run(struct index_run *r)
{
	long		 docs = 0, snippets = 0;

	jobs_log(r->db, r->job.job_id, "info", "%s %.12s is already indexed; "
	    "nothing to do", r->ops->version_noun, r->set.version);
	if (index_counts(r, &docs, &snippets) == 0) {
		r->job.progress.docs_total = r->job.progress.docs_done = docs;
		r->job.progress.snippets_total = snippets;
		jobs_progress(&r->job, 1);
	}
	if (db_begin(r->db) == 0 && index_keep_validators(r) == 0 &&
	    jobs_run_end(r->db, r->job.job_id, r->library_id, 1, JOBS_UNCHANGED) == 0 &&
	    db_commit(r->db) == 0)
		return index_post(r, JOBS_UNCHANGED);
	db_rollback(r->db);
	return -1;
}

/* Writes the parsed files, commits the index and ends the run. */
static int
index_commit(struct index_run *r)
{
	long		 docs = 0, snippets = 0;
	char		 msg[512];

	long long	 waited0, waited1, n;
	int		 analysed;

	/* the write step's time counts the wait for the write lock, which its first write,
	   the progress, may meet */
	r->t_write = util_now_ms();
	db_busy_waited(&waited0, &n);
	r->job.progress.phase = "writing";
	jobs_progress(&r->job, 1);
	if (index_write(r) == -1 || index_counts(r, &docs, &snippets) == -1) {
		/* A full disk says so (bench/chaos); the rest is in the worker log. */
		if (db_failure(r->db) == DB_FAIL_FULL)
			return index_fail(r, "the index could not be written: the disk "
			    "is full; the previous index, if any, is still served");
		return index_fail(r, "the index could not be written; the worker log "
		    "has the details");
	}
	if (r->dedup.duplicates > 0)
		jobs_log(r->db, r->job.job_id, "info", "%zu duplicate snippets left "
		    "out (%zu exact, %zu near copies; %zu newly, %zu restored)",
		    r->dedup.duplicates, r->dedup.exact,
		    r->dedup.duplicates - r->dedup.exact, r->dedup.removed,
		    r->dedup.restored);
	inject_report(r->db, r->job.job_id, r->library_id);
	r->job.progress.snippets_total = snippets;
	jobs_progress(&r->job, 1);	/* in the index's transaction */
	snprintf(msg, sizeof(msg), "indexed %s %.12s: %ld documents, %ld "
	    "snippets", r->ops->version_noun, r->set.version, docs, snippets);
	jobs_log(r->db, r->job.job_id, "info", "%s", msg);
	if (jobs_run_end(r->db, r->job.job_id, r->library_id, 1, msg) == -1 ||
	    db_commit(r->db) == -1)
		return index_fail(r, "the index could not be committed");
	/* PostgreSQL: the planner's statistics of what the run wrote, when they lag */
	if ((analysed = store_analyze(r->db)) > 0)
		log_info("analysed %d table%s (their statistics lagged)", analysed,
		    analysed == 1 ? "" : "s");
	r->t_write = util_now_ms() - r->t_write;
	db_busy_waited(&waited1, &n);
	r->t_write_wait = waited1 - waited0;
	return index_post(r, msg);
}

/* The pipeline after the start (index_run). */
static int
index_steps(struct index_run *r, const struct backend_ops *ops)
{
	char		 err[512], gen[48];
	const char	*at;
	int		 c;

	r->job.progress.phase = "fetching";
	jobs_progress(&r->job, 1);
	r->t_fetch = util_now_ms();
	c = index_fetch(r, ops);
	r->t_fetch = util_now_ms() - r->t_fetch;
	if (c != 0)
		return c == 1 ? 0 : -1;
	if (jobs_cancel_point(&r->job))
		return index_cancel(r, "after fetching", 0);
	if (r->deadline_ms > 0 && util_now_ms() >= r->deadline_ms) {
		snprintf(err, sizeof(err), "the job ran out of time while fetching: it may "
		    "take %ld s (setting limits.job_timeout_s); nothing was written",
		    r->timeout_s);
		return index_fail(r, err);
	}
	if (!r->full && r->indexed_commit != NULL &&
	    strcmp(r->indexed_commit, r->set.version) == 0)
		return index_unchanged_run(r);
	r->t_parse = util_now_ms();
	c = index_collect(r, err, sizeof(err), &at);
	r->t_parse = util_now_ms() - r->t_parse;
	if (c == -1)
		return index_fail(r, err);
	if (c == 1 && at != NULL) {
		jobs_log(r->db, r->job.job_id, "info", "stopped while parsing %s", at);
		return index_cancel(r, "while parsing", 0);
	}
	if (c == 1)
		return index_cancel(r, "while parsing", 0);
	if (c == 2) {
		snprintf(err, sizeof(err), "the job ran out of time while parsing%s%s: "
		    "it may take %ld s (setting limits.job_timeout_s); nothing was "
		    "written", at != NULL ? " " : "", at != NULL ? at : "",
		    r->timeout_s);
		return index_fail(r, err);
	}
	gen[0] = '\0';
	if (r->ngenerated > 0)
		snprintf(gen, sizeof(gen), ": %zu generated", r->ngenerated);
	jobs_log(r->db, r->job.job_id, "info", "%zu %s: %zu parsed, %zu unchanged, "
	    "%zu skipped%s", r->nselected, r->ops->select_files ? "documentation files" :
	    "documents", r->nparsed, r->nkept, r->nskipped, gen);
	if (r->nreused > 0)
		jobs_log(r->db, r->job.job_id, "info", "reused %zu files of other versions "
		    "of %s (same path and content): not parsed or embedded again",
		    r->nreused, r->family);
	if (r->noverview > 0)
		jobs_log(r->db, r->job.job_id, "info", "%zu source files with little "
		    "documentation get an overview for the LLM to describe", r->noverview);
	/* Last checkpoint before the write transaction (it holds the write lock). */
	if (jobs_cancel_point(&r->job))
		return index_cancel(r, "before writing the index", 0);
	return index_commit(r);
}

int
index_run(struct db *db, const char *datadir, long long job_id, const char *library_id,
    int force, const struct backend_ops *ops)
{
	struct index_run r;
	int		 rc;

	memset(&r, 0, sizeof(r));
	r.job.db = r.db = db;
	r.job.job_id = job_id;
	r.datadir = datadir;
	r.library_id = library_id;
	backend_set_init(&r.set);
	r.t_start = util_now_ms();
	rc = index_start(&r, force);
	if (rc == 0)
		rc = index_steps(&r, ops);
	index_release(&r);
	return rc == 1 ? 0 : rc;
}
