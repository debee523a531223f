/*
 * ctxd-hook: the FastCGI responder for the GitHub-type App's webhook deliveries at
 * /api/webhooks/github (nginx: location = /api/webhooks/github). A delivery is checked
 * against its X-Hub-Signature-256 (HMAC-SHA256 with setting git.github.webhook_secret,
 * constant time), remembered by its X-GitHub-Delivery id and its body (lib/sources/ghapp.c: a
 * repeated id, or the same body again within 5 minutes under a new id, is ignored), and
 * a push to the GitOps manifest repository's branch queues a sync (lib/gitops/gitops.c) for
 * ctxd-worker: the answer comes at once, the sync runs later. Every other event is
 * acknowledged and ignored.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/log.h"
#include "base/util.h"
#include "gitops/gitops.h"
#include "http/access.h"
#include "http/http.h"
#include "sources/ghapp.h"
#include "store/db.h"
#include "store/jobs.h"
#include "store/settings.h"

#define HOOK_MAX_BODY		(4 * 1024 * 1024)	/* nginx: client_max_body_size 4m */
#define HOOK_DELIVERY_MAX	64	/* longest X-GitHub-Delivery accepted */

/* The per-worker state: the database, opened so that a bad data folder fails at start. */
struct hook_ctx {
	struct db	*db;
};

static void *
hook_init(struct db **db)
{
	static struct hook_ctx ctx;

	/* Read-write: a delivery is remembered and a sync queued. */
	if (db_open(util_data_dir(), DB_READWRITE, &ctx.db) == -1)
		return NULL;
	*db = ctx.db;
	return &ctx;
}

/* Answers {"status": status, "reason": reason[, "syncId": id]} with code. */
static void
hook_answer(struct http_req *r, int code, const char *status, const char *reason,
    long long sync_id)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	if (sync_id > 0)
		json_object_object_add(o, "syncId", json_object_new_int64(sync_id));
	http_json(r, code, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

/* 1 when the delivery id has the shape of a GitHub GUID (bounded, [A-Za-z0-9-]). */
static int
hook_delivery_valid(const char *id)
{
	size_t	 n = id != NULL ? strlen(id) : 0;

	return n > 0 && n <= HOOK_DELIVERY_MAX && strspn(id, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == n;
}

/* A verified push: queues a GitOps sync when it is to the manifest repository's branch. */
static void
hook_push(struct http_req *r, const char *delivery)
{
	char		 url[2048], branch[256], why[128];
	long long	 id;

	if (!settings_get_bool(r->db, "gitops.enabled", 0)) {
		hook_answer(r, 200, "ignored", "GitOps is not enabled", 0);
		return;
	}
	if (gitops_config_repo(r->db, url, sizeof(url), branch, sizeof(branch)) == -1) {
		http_error(r, 500, "cannot read the GitOps configuration");
		return;
	}
	switch (ghapp_push_match(r->body, r->body_len, url, branch, why, sizeof(why))) {
	case GHAPP_PUSH_BAD:
		http_error(r, 400, "%s", why);
		return;
	case GHAPP_PUSH_IGNORE:
		hook_answer(r, 200, "ignored", why, 0);
		return;
	case GHAPP_PUSH_SYNC:
		break;
	}
	if (gitops_queue_sync(r->db, "webhook", &id) == -1) {
		/* Forget the delivery: a redelivery may succeed. */
		ghapp_delivery_forget(r->db, delivery, r->body, r->body_len);
		http_error(r, 500, "cannot queue the GitOps sync");
		return;
	}
	log_info("%s: delivery %s queued GitOps sync %lld", __func__, delivery, id);
	if (jobs_spawn_worker() == -1)
		log_warn("%s: ctxd-worker not started; cron will run the sync", __func__);
	hook_answer(r, 202, "queued", why, id);
}

/* POST /api/webhooks/github: one delivery of the GitHub-type App. */
static void
hook_github(struct http_req *r, void *arg)
{
	const char	*event, *delivery;
	char		*secret;
	enum ghapp_delivery fresh;
	int		 ok;

	(void)arg;
	if ((secret = settings_get(r->db, util_data_dir(), "git.github.webhook_secret")) ==
	    NULL || *secret == '\0') {
		free(secret);
		http_error(r, 503, "webhooks are not configured: set the GitHub-type App's "
		    "webhook secret (setting git.github.webhook_secret)");
		return;
	}
	if (http_read_body(r, HOOK_MAX_BODY) == -1)
		goto out;
	ok = ghapp_signature_ok(secret, r->body != NULL ? r->body : "", r->body_len,
	    http_header(r, "HTTP_X_HUB_SIGNATURE_256"));
	if (!ok) {
		http_error(r, 401, "%s", http_header(r, "HTTP_X_HUB_SIGNATURE_256") == NULL ?
		    "the delivery has no X-Hub-Signature-256 header" :
		    "the delivery's X-Hub-Signature-256 does not match the webhook secret");
		goto out;
	}
	event = http_header(r, "HTTP_X_GITHUB_EVENT");
	delivery = http_header(r, "HTTP_X_GITHUB_DELIVERY");
	if (event == NULL || !hook_delivery_valid(delivery)) {
		http_error(r, 400, "the delivery needs X-GitHub-Event and X-GitHub-Delivery");
		goto out;
	}
	if ((fresh = ghapp_delivery_new(r->db, delivery, r->body, r->body_len)) ==
	    GHAPP_DELIVERY_ERROR) {
		http_error(r, 500, "cannot record the delivery");
		goto out;
	}
	if (fresh == GHAPP_DELIVERY_REPEATED)
		hook_answer(r, 200, "ignored", "a repeated delivery", 0);
	else if (fresh == GHAPP_DELIVERY_REPLAYED) {
		log_warn("%s: delivery %s repeats the body of a delivery of the last %d s: "
		    "ignored as a replay", __func__, delivery, GHAPP_REPLAY_S);
		hook_answer(r, 200, "ignored", "a repeated delivery (the same body "
		    "came with another id in the last 5 minutes)", 0);
	} else if (strcmp(event, "ping") == 0)
		hook_answer(r, 200, "pong", "the webhook is set up", 0);
	else if (strcmp(event, "push") == 0)
		hook_push(r, delivery);
	else
		hook_answer(r, 200, "ignored", "not a push event", 0);
out:
	explicit_bzero(secret, strlen(secret));
	free(secret);
}

/*
 * The routes of ctxd-hook. Public: GitHub signs each delivery with the webhook secret
 * (setting git.github.webhook_secret), which the handler checks, not an API key.
 */
static const struct http_route hook_routes[] = {
	{ "POST", "/api/webhooks/github", ACCESS_PUBLIC, NULL, 0, "the GitHub webhook",
	    hook_github },
	{ NULL, NULL, 0, NULL, 0, NULL, NULL }
};

static const struct http_responder hook_responder = {
	"ctxd-hook", hook_init, hook_routes, 0, 0, 0, NULL
};

int
main(int argc, char *argv[])
{
	return http_serve(argc, argv, &hook_responder);
}
