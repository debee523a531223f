/*
 * adminapi.h: the admin and dashboard JSON API answered by ctxd-web (lib/adminapi.c).
 * Each handler answers every request of its path (methods, authorization, validation) and
 * is routed by fcgi/web.c; db is the responder's read-write connection. The paths and
 * shapes are documented in ctxd-web(8), section ADMIN API.
 */
#ifndef ADMINAPI_H
#define ADMINAPI_H

struct http_req;
struct sqlite3;

/*
 * The authorization gate every handler calls: with anon_setting (a perm.anonymous_* bool;
 * NULL for admin-only calls) answers whether the request may go on (0) or has been answered
 * 401/403 (-1). ctxd-web sets it to its session- and key-aware check (web_permit); until
 * one is set every call is refused with 500.
 */
typedef int (*adminapi_gate)(struct http_req *, void *ctx, const char *anon_setting,
	    const char *what);
void	 adminapi_set_gate(adminapi_gate, void *ctx);

/* 1 when path is prefix or below it ("/api/jobs" matches "/api/jobs" and "/api/jobs/4"). */
int	 adminapi_under(const char *path, const char *prefix);

/* GET /api/health and GET /api/ready: no credential. */
void	 adminapi_health(struct http_req *, struct sqlite3 *);
void	 adminapi_ready(struct http_req *, struct sqlite3 *);
/* GET, PUT or PATCH /api/settings. */
void	 adminapi_settings(struct http_req *, struct sqlite3 *);
/* GET /api/setup, POST /api/setup/STEP, POST /api/setup/STEP/skip. */
void	 adminapi_setup(struct http_req *, struct sqlite3 *);
/* GET /api/libraries[/OWNER/REPO], POST .../refresh, DELETE /api/libraries/OWNER/REPO. */
void	 adminapi_libraries(struct http_req *, struct sqlite3 *);
/* GET /api/jobs[/ID[/log]], POST /api/jobs/ID/cancel. */
void	 adminapi_jobs(struct http_req *, struct sqlite3 *);
/* GET /api/support-bundle: a .tar.gz without secrets or snippet content. */
void	 adminapi_support_bundle(struct http_req *, struct sqlite3 *);

#endif
