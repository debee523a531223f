/*
 * ctxd-hook: the FastCGI responder for GitHub App webhooks at /api/webhooks/github
 * (nginx: location = /api/webhooks/github). Until the GitOps feature brings the handling
 * of deliveries (signature check, push → sync job), its one route answers 404 with a JSON
 * error saying so, and any other method 405 (Allow: POST).
 */
#include "config.h"

#include <sqlite3.h>

#include "ctxd.h"
#include "http.h"

/* The per-worker state: the database, opened so that a bad data folder fails at start. */
struct hook_ctx {
	sqlite3		*db;
};

static void *
hook_init(sqlite3 **db)
{
	static struct hook_ctx ctx;

	if (db_open(util_data_dir(), DB_READONLY, &ctx.db) == -1)
		return NULL;
	*db = ctx.db;
	return &ctx;
}

/* POST /api/webhooks/github: not handled yet. */
static void
hook_github(struct http_req *r, void *arg)
{
	(void)arg;
	http_error(r, 404, "GitHub webhooks are not handled by this version of ctxd: they "
	    "arrive with the GitOps feature");
}

/*
 * The routes of ctxd-hook. Public: GitHub signs each delivery with the webhook secret
 * (setting git.github.webhook_secret), which the handler will check, not an API key.
 */
static const struct http_route hook_routes[] = {
	{ "POST", "/api/webhooks/github", ACCESS_PUBLIC, NULL, 0, "the GitHub webhook",
	    hook_github },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static const struct http_responder hook_responder = {
	"ctxd-hook", hook_init, hook_routes, 0, 0, 0
};

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, &hook_responder);
}
