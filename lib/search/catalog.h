/*
 * catalog.h: the libraries and jobs as the admin API and the support bundle show them:
 * read-only queries whose rows come back as JSON objects (ctxd-web(8), ADMIN API, has the
 * member names). Every function logs a database error and returns NULL or -1 for it.
 */
#ifndef CATALOG_H
#define CATALOG_H

#include <json.h>

struct db;

/* {total, libraries: [...], limit, offset}: the libraries (in state, or all) by id. */
json_object *catalog_libraries(struct db *, const char *state, long limit,
	    long offset);
/* One library with its settings and its last 10 jobs in *out: 1, 0 when none, -1. */
int	 catalog_library(struct db *, const char *id, json_object **out);

/*
 * A page of a library's served snippets (not duplicates), in page order, for the web UI's
 * snippet browser, into *out: {"libraryId", "q", "total", "limit", "offset", "snippets":
 * [{"id", "title", "breadcrumb", "source", "path", "text", "code": [{"language",
 * "code"}], "tokens", "flags"}]}. q (NULL or "": all) keeps those whose title, text,
 * code or document path holds it, ignoring ASCII case. 1, 0 when the library does not
 * exist, -1.
 */
int	 catalog_snippets(struct db *, const char *id, const char *q, long limit,
	    long offset, json_object **out);

/* A filter of catalog_jobs; NULL members do not filter. */
struct catalog_job_filter {
	const char	*library, *state, *kind;
	long long	 before;	/* only jobs with a smaller id */
	long		 limit;
};
/* {jobs: [...], nextBefore}: the jobs newest first; nextBefore is null on the last page. */
json_object *catalog_jobs(struct db *, const struct catalog_job_filter *);
/* One job with its number of log lines (logLines) in *out: 1, 0 when none, -1. */
int	 catalog_job(struct db *, long long id, json_object **out);
/* {lines: [{id, at, level, line}, ...], nextAfter}: log lines after line id after. */
json_object *catalog_job_log(struct db *, long long id, long long after,
	    long limit);

/* For the support bundle: the first 1000 libraries with their settings; the last jobs,
 * each with the end of its log. Empty on a database error. */
json_object *catalog_bundle_libraries(struct db *);
json_object *catalog_bundle_jobs(struct db *, int njobs, int nlines);

#endif
