/*
 * admin/provcheck.c: the provider check (admin/provcheck.h): one real call to each
 * configured AI provider, its report as lines. The provider core reports nothing itself.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/provcheck.h"
#include "ai/provider.h"
#include "ai/vendor.h"
#include "base/buf.h"
#include "base/util.h"
#include "net/aws.h"
#include "store/aiconfig.h"

/* Adds a line to the report (cut at PROVCHECK_LINE_MAX bytes; past the last, nothing). */
static void __attribute__((format(printf, 2, 3)))
provcheck_line(struct provcheck *c, const char *fmt, ...)
{
	va_list	 ap;

	if (c->nlines >= PROVCHECK_LINES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(c->lines[c->nlines++], PROVCHECK_LINE_MAX, fmt, ap);
	va_end(ap);
}

/* Describes cfg on one line: "openai, model M, endpoint URL". */
static void
provcheck_describe(struct provcheck *out, const char *what, const struct provider_cfg *c,
    const struct provider_http *h)
{
	const struct ai_vendor *v = c->vendor;

	provcheck_line(out, "%s: %s, model %s%s%s%s%s", what, provider_vendor_name(v),
	    c->model != NULL ? c->model : "(unset)",
	    v != NULL && (v->needs & AI_NEEDS_REGION) ? ", region " : "",
	    v != NULL && (v->needs & AI_NEEDS_REGION) ?
	    (c->region != NULL ? c->region : "(unset)") : "",
	    h != NULL && h->url != NULL ? ", endpoint " : "",
	    h != NULL && h->url != NULL ? h->url : "");
}

static void
provcheck_fail(struct provcheck *out, const char *what, const struct provider_error *e)
{
	provcheck_line(out, "%s: FAILED (%s): %s", what, provider_errkind_name(e->kind),
	    e->message);
}

/* For a vendor signing with AWS credentials when it has no API key: which ones it uses. */
static void
provcheck_creds(struct provcheck *out, const char *what, const struct provider_cfg *c)
{
	struct aws_creds	 cr;
	char			 aerr[512];

	if (c->vendor == NULL || c->vendor->aws_service == NULL)
		return;
	if (c->key != NULL && *c->key != '\0') {
		provcheck_line(out, "%s: credentials: Bedrock API key (ai.*.api_key)", what);
		return;
	}
	memset(&cr, 0, sizeof(cr));
	if (aws_creds_load(c->region, &cr, aerr, sizeof(aerr)) == 0)
		provcheck_line(out, "%s: credentials: %s", what, cr.source);
	aws_creds_release(&cr);
}

static int
provcheck_llm(const struct provider_cfg *c, long ms, struct provcheck *out)
{
	struct provider_error	 e;
	struct provider_http	 h;
	struct buf		 a;
	long long		 t0;
	size_t			 i;
	int			 rc = 1;

	memset(&e, 0, sizeof(e));
	buf_init(&a);
	if (provider_build_chat(c, NULL, "ping", &h, &e) == -1) {
		provcheck_describe(out, "llm", c, NULL);
		provcheck_fail(out, "llm", &e);
		return 1;
	}
	provcheck_describe(out, "llm", c, &h);
	provider_http_release(&h);
	provcheck_creds(out, "llm", c);
	t0 = util_now_ms();
	if (provider_chat(c, "You are a connectivity check. Answer with one word.",
	    "Reply with the word ok.", ms, &a, &e) == -1) {
		provcheck_fail(out, "llm", &e);
		goto out;
	}
	for (i = 0; i < a.len; i++)
		if ((unsigned char)a.p[i] < 0x20)
			a.p[i] = ' ';
	provcheck_line(out, "llm: ok in %lld ms: answered \"%.80s%s\"", util_now_ms() - t0,
	    a.p != NULL ? a.p : "", a.len > 80 ? "..." : "");
	rc = 0;
out:
	buf_release(&a);
	return rc;
}

static int
provcheck_embed(const struct provider_cfg *c, long ms, struct provcheck *out)
{
	static const char *const texts[] = {
		"How do I set a timeout on a request?",
		"Set the request timeout in milliseconds."
	};
	struct provider_error	 e;
	struct provider_http	 h;
	float			*v = NULL;
	size_t			 dim = 0;
	long long		 t0;

	memset(&e, 0, sizeof(e));
	if (provider_build_embed(c, texts, 1, PROVIDER_EMBED_DOCUMENT, &h, &e) == -1) {
		provcheck_describe(out, "embed", c, NULL);
		provcheck_fail(out, "embed", &e);
		return 1;
	}
	provcheck_describe(out, "embed", c, &h);
	provider_http_release(&h);
	provcheck_creds(out, "embed", c);
	t0 = util_now_ms();
	if (provider_embed(c, texts, 2, PROVIDER_EMBED_DOCUMENT, ms, &v, &dim, &e) == -1) {
		provcheck_fail(out, "embed", &e);
		return 1;
	}
	provcheck_line(out, "embed: ok in %lld ms: 2 vectors of %zu dimensions",
	    util_now_ms() - t0, dim);
	free(v);
	return 0;
}

int
provcheck_run(struct db *db, const char *datadir, struct provcheck *c)
{
	struct provider_cfg	 llm, emb;
	const char		*lname;
	int			 want_llm = c->llm, want_embed = c->embed, rc = 0;

	c->nlines = 0;
	if (!want_llm && !want_embed)
		want_llm = want_embed = 1;
	if (aiconfig_load(db, datadir, &llm, &emb) == -1) {
		provcheck_line(c, "cannot read the ai.* settings");
		return 1;
	}
	if (want_llm) {
		if (llm.vendor == NULL)
			provcheck_line(c, "llm: none (ai.llm.provider is unset): no reranking "
			    "or generated titles");
		else if (provcheck_llm(&llm, c->timeout_ms, c) != 0)
			rc = 1;
	}
	if (want_embed) {
		lname = provider_vendor_name(llm.vendor);
		if (emb.vendor == NULL && llm.vendor != NULL && !provider_has_embed(llm.vendor))
			provcheck_line(c, "embed: none (%s has no embeddings; set "
			    "ai.embed.provider): lexical retrieval only", lname);
		else if (emb.vendor == NULL)
			provcheck_line(c, "embed: none (no embedding provider): lexical "
			    "retrieval only");
		else if (provcheck_embed(&emb, c->timeout_ms, c) != 0)
			rc = 1;
	}
	provider_cfg_release(&llm);
	provider_cfg_release(&emb);
	return rc;
}
