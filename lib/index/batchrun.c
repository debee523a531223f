/*
 * batchrun.c: the loop of the batch steps that go through an AI provider (see batchrun.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ai/provider.h"
#include "base/util.h"
#include "index/batchrun.h"
#include "store/aiconfig.h"

void
batchrun_log(struct batchrun *b, const char *level, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	provider_vlogf(b->cfg.key, b->log, b->log_ctx, level, fmt, ap);
	va_end(ap);
}

void
batchrun_error(struct batchrun *b, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	provider_verrorf(b->cfg.key, b->error, b->errorsz, fmt, ap);
	va_end(ap);
}

long long
batchrun_left(struct batchrun *b, long cap)
{
	long long	 left = b->deadline - util_now_ms();

	if (left <= 0) {
		batchrun_error(b, "the time budget of %.0f s ran out",
		    (double)(b->deadline - b->t0) / 1000);
		return -1;
	}
	return cap > 0 && left > cap ? cap : left;
}

void
batchrun_provider_error(struct batchrun *b, const struct provider_error *perr)
{
	if (perr->kind == PROVIDER_EAUTH)
		batchrun_error(b, "the %s API key was refused: %s", b->ops->what,
		    perr->message);
	else
		batchrun_error(b, "%s: %s", provider_errkind_name(perr->kind),
		    perr->message);
}

void
batchrun_init(struct batchrun *b, long budget_ms, int (*cancel)(void *), int *configured,
    int *cancelled, char *error, size_t errorsz)
{
	memset(b, 0, sizeof(*b));
	b->budget_ms = budget_ms;
	b->cancel = cancel;
	b->configured = configured;
	b->cancelled = cancelled;
	b->error = error;
	b->errorsz = errorsz;
}

/* Tells the caller's progress callback, if any, the step's counts. */
static void
batchrun_progress(struct batchrun *b)
{
	size_t	 done = 0, total = 0;

	if (b->progress == NULL || b->ops->count == NULL)
		return;
	b->ops->count(b, &done, &total);
	b->progress(b->log_ctx, b->ops->phase, done, total);
}

int
batchrun_run(const struct batchrun_ops *ops, struct batchrun *b, struct db *db,
    const char *datadir, const char *library_id,
    void (*log)(void *, const char *, const char *), void *log_ctx)
{
	size_t	 n;
	int	 rc = -1;

	memset(&b->cfg, 0, sizeof(b->cfg));
	b->ops = ops;
	b->db = db;
	b->datadir = datadir;
	b->library_id = library_id;
	b->log = log;
	b->log_ctx = log_ctx;
	b->t0 = util_now_ms();
	b->deadline = b->t0 + b->budget_ms;
	if (aiconfig_load(b->db, b->datadir, ops->llm ? &b->cfg : NULL,
	    ops->llm ? NULL : &b->cfg) == -1) {
		*b->configured = 1;
		batchrun_error(b, "%s", ops->invalid);
		goto out;
	}
	if (b->cfg.vendor == NULL) {
		rc = 0;
		goto out;
	}
	*b->configured = 1;
	if (b->cfg.model == NULL || *b->cfg.model == '\0') {
		batchrun_error(b, "%s", ops->nomodel);
		goto out;
	}
	if (ops->begin != NULL && ops->begin(b) == -1)
		goto out;
	batchrun_progress(b);
	for (;;) {
		if (b->cancel != NULL && b->cancel(b->log_ctx)) {
			*b->cancelled = 1;
			break;
		}
		if (ops->next(b, &n) == -1)
			goto out;
		if (n == 0)
			break;
		if (ops->send(b, n) == -1)
			goto out;
		batchrun_progress(b);
	}
	rc = 0;
out:
	ops->end(b, rc);
	provider_cfg_release(&b->cfg);
	return rc;
}
