/*
 * store/catalog.h: the read-only queries behind the admin API's and the support bundle's
 * lists of libraries, jobs, job logs and snippets (lib/search/catalog.h makes their JSON).
 * Each calls fn with every row (a store_row, valid during the call only) until fn
 * returns 1 (enough) or -1 (a failure), and returns 0, or -1 on a database error
 * (logged) or when fn returned -1, unless it says otherwise.
 */
#ifndef STORE_CATALOG_H
#define STORE_CATALOG_H

struct db;

/* One result row: its columns by number (from 0). */
struct store_row;
/* A text column (NULL for NULL). */
const char *store_row_text(const struct store_row *, int col);
/* An integer column (0 for NULL). */
long long store_row_int(const struct store_row *, int col);

typedef int (*store_row_fn)(const struct store_row *, void *);

/*
 * A library row's columns: id, title, description, source_type, url, branch, state,
 * run_status, gitops, indexed_commit, indexed_branch, the end of its last index job,
 * last_error, total_documents, total_snippets, total_tokens, run_started, run_finished,
 * created_at, updated_at (STORE_CATALOG_NLIB), then settings, version_of and its versions
 * as a JSON array of {version, id, state, snippets, lastIndexedCommit}.
 */
#define STORE_CATALOG_NLIB	20
/*
 * A job row's columns: id, library_id, kind, state, force, attempts, message, created_at,
 * started_at, finished_at, cancel_requested (STORE_CATALOG_NJOB), then its progress:
 * phase, docs_total, docs_done, snippets_total, describe_total, described, embed_total,
 * embedded, progress_at (STORE_CATALOG_NPROGRESS more), then, for a queued job, its place
 * in the queue (1: the next the worker claims, as jobs_claim orders them: the service's
 * and admins' jobs, then each queuer's first, second, ... job in turn) and the running
 * job of its library it waits for (NULL: none) (STORE_CATALOG_NQUEUE more).
 */
#define STORE_CATALOG_NJOB	11
#define STORE_CATALOG_NPROGRESS	9
#define STORE_CATALOG_NQUEUE	2

/* The number of libraries in state (NULL: all) into *n. */
int	 store_catalog_count_libraries(struct db *, const char *state, long long *n);
/* The libraries in state (NULL: all) by id, limit from offset. */
int	 store_catalog_libraries(struct db *, const char *state, long limit,
	    long offset, store_row_fn, void *);
/* Library id: 1 (fn called), 0 when there is none, -1. */
int	 store_catalog_library(struct db *, const char *id, store_row_fn, void *);
/*
 * The jobs of library_id (NULL: all), in state and of kind (NULL: any), with an id below
 * before, newest first, at most limit.
 */
int	 store_catalog_jobs(struct db *, const char *library_id, const char *state,
	    const char *kind, long long before, long limit, store_row_fn, void *);
/* Job id (a job row, then its number of log lines): 1 (fn called), 0 when none, -1. */
int	 store_catalog_job(struct db *, long long id, store_row_fn, void *);
/* The log lines of job id after line after: id, at, level, line; at most limit. */
int	 store_catalog_job_log(struct db *, long long id, long long after, long limit,
	    store_row_fn, void *);

/*
 * The number of served snippets (not duplicates) of library id whose title, text, code
 * or document path holds q (NULL: all), ignoring ASCII case: 1 with *n, 0 when the
 * library does not exist, -1.
 */
int	 store_catalog_count_snippets(struct db *, const char *id, const char *q,
	    long long *n);
/*
 * Those snippets in page order, limit from offset: id, title, breadcrumb, anchor, path,
 * text, code JSON, tokens, its flags' rules ("a, b"), blob_prefix, indexed_commit and
 * the document's url.
 */
int	 store_catalog_snippets(struct db *, const char *id, const char *q, long limit,
	    long offset, store_row_fn, void *);

/* For the support bundle: the first 1000 libraries by id. */
int	 store_catalog_bundle_libraries(struct db *, store_row_fn, void *);
/*
 * The last njobs jobs, newest first (job_fn), each followed by the last nlines of its log
 * in order (line_fn: at, level, line).
 */
int	 store_catalog_bundle_jobs(struct db *, int njobs, int nlines,
	    store_row_fn job_fn, store_row_fn line_fn, void *);

#endif /* STORE_CATALOG_H */
