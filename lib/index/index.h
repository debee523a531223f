/*
 * index.h: the indexing pipeline of one index job. Load the library, fetch its source
 * through its back end (lib/sources/backend.h), select the documentation files, parse
 * the new and changed ones, then in one write transaction replace the changed documents,
 * decide duplicates (lib/index/dedup.h) and record the index; then describe code snippets
 * (lib/index/describe.h) and embed (lib/index/embedder.h), and finish the job. The job and library
 * states go through lib/store/jobs.c; log lines through jobs_log.
 *
 * A cancellation request (jobs.cancel_requested) is polled outside the write transaction:
 * after the fetch, before each file, before the write and between and inside the
 * post-index steps. A failure or a cancellation before the write leaves the previous
 * index served. CTXD_TEST_FILE_DELAY_MS (tests only) sleeps that long before each file.
 */
#ifndef INDEX_H
#define INDEX_H

struct backend_ops;
struct db;

/*
 * Runs index job job_id of library_id (force: re-index every file). ops NULL is the back
 * end of the library's source_type. Returns 0 when the job ended done or cancelled, -1
 * when it failed (the job says why).
 */
int	 index_run(struct db *, const char *datadir, long long job_id,
	    const char *library_id, int force, const struct backend_ops *ops);

#endif /* INDEX_H */
