/* library.h: a library's life: added or re-indexed (upsert), queued, deleted. */
#ifndef LIBRARY_H
#define LIBRARY_H

#include <stddef.h>

struct parse_req;
struct db;

/*
 * Runs delete job job_id (ctxd-worker): removes the library's clone folder, then in one
 * transaction its embeddings rows, index rows, snippets, documents, its other jobs and
 * their logs and the library row, then the vectors no other library names (embedder_gc),
 * and marks the job done (the job stays as the record).
 */
int	 library_delete_run(struct db *, const char *datadir, long long job_id,
	    const char *library_id);
enum library_change {
	LIBRARY_OK, LIBRARY_NOT_FOUND, LIBRARY_TAKEN, LIBRARY_DELETING, LIBRARY_ERROR,
	LIBRARY_FORBIDDEN
};
/*
 * Adds library id (host: its host[:port]) for parse request p, recording user_id (0: an
 * anonymous caller or an operator key) as the one who added it, or, when it exists for
 * the same URL, re-indexes it; in one transaction with queueing its index job (*job_id).
 * A new id that was added from another host before (and deleted since) needs an admin
 * (LIBRARY_FORBIDDEN); ids differing only in case are one library (LIBRARY_TAKEN).
 * A re-parse keeps the stored source settings that p does not give (p->given; p is
 * completed with them). Giving other values than the stored ones (the branch, a list,
 * indexSourceCode, the URL's spelling) needs admin or the user who added the library,
 * else LIBRARY_FORBIDDEN names the fields. LIBRARY_TAKEN: the id belongs to another URL;
 * LIBRARY_DELETING: it is being deleted; LIBRARY_ERROR: a database error (logged). Not
 * OK: err says why.
 */
enum library_change library_upsert(struct db *, struct parse_req *p,
	    const char *id, const char *host, long long user_id, int admin,
	    long long *job_id, char *err, size_t errsz);
/*
 * Queues a refresh (del 0; force: a full re-index) or the deletion (del 1) of library id
 * for user_id (0: anonymous or an operator key), admin or not, in one transaction (a job
 * already queued is reused): *job_id. LIBRARY_NOT_FOUND, LIBRARY_DELETING (a refresh while
 * the library is being deleted), LIBRARY_FORBIDDEN (a deletion by neither an admin nor the
 * one who added it, or of a GitOps-managed library by a non-admin) or LIBRARY_ERROR
 * (logged) with err.
 */
enum library_change library_queue(struct db *, const char *id, int del, int force,
	    long long user_id, int admin, long long *job_id, char *err, size_t errsz);

#endif /* LIBRARY_H */
