/*
 * ai/check.c: the provider check of `ctxd-admin provider test` and of the web UI's "Test"
 * buttons (POST /api/providers/test): one real call to each configured AI provider
 * (ai/provider.h), one line per step on out, each failure with its class (dns, connect, tls,
 * timeout, auth, model, quota, server, ...). The provider core prints nothing itself.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ai/check.h"
#include "ai/provider.h"
#include "ai/vendor.h"
#include "base/buf.h"
#include "base/util.h"
#include "net/aws.h"


/* Describes cfg on one line: "openai, model M, endpoint URL". */
static void
provider_describe(FILE *out, const char *what, const struct provider_cfg *c,
    const struct provider_http *h)
{
	fprintf(out, "%s: %s, model %s", what, provider_kind_name(c->kind),
	    c->model != NULL ? c->model : "(unset)");
	if (ai_vendor_of(c->kind) != NULL && (ai_vendor_of(c->kind)->needs & AI_NEEDS_REGION))
		fprintf(out, ", region %s", c->region != NULL ? c->region : "(unset)");
	if (h != NULL && h->url != NULL)
		fprintf(out, ", endpoint %s", h->url);
	fputc('\n', out);
}

static void
provider_print_fail(FILE *out, const char *what, const struct provider_error *e)
{
	fprintf(out, "%s: FAILED (%s): %s\n", what, provider_errkind_name(e->kind),
	    e->message);
}

/* For a vendor signing with AWS credentials when it has no API key: which ones it uses. */
static void
provider_print_creds(FILE *out, const char *what, const struct provider_cfg *c)
{
	struct aws_creds	 cr;
	char			 aerr[512];

	if (ai_vendor_of(c->kind) == NULL || ai_vendor_of(c->kind)->aws_service == NULL)
		return;
	if (c->key != NULL && *c->key != '\0') {
		fprintf(out, "%s: credentials: Bedrock API key (ai.*.api_key)\n", what);
		return;
	}
	memset(&cr, 0, sizeof(cr));
	if (aws_creds_load(c->region, &cr, aerr, sizeof(aerr)) == 0)
		fprintf(out, "%s: credentials: %s\n", what, cr.source);
	aws_creds_release(&cr);
}

static int
provider_test_llm(const struct provider_cfg *c, long ms, FILE *out)
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
		provider_describe(out, "llm", c, NULL);
		provider_print_fail(out, "llm", &e);
		return 1;
	}
	provider_describe(out, "llm", c, &h);
	provider_http_release(&h);
	provider_print_creds(out, "llm", c);
	t0 = util_now_ms();
	if (provider_chat(c, "You are a connectivity check. Answer with one word.",
	    "Reply with the word ok.", ms, &a, &e) == -1) {
		provider_print_fail(out, "llm", &e);
		goto out;
	}
	for (i = 0; i < a.len; i++)
		if ((unsigned char)a.p[i] < 0x20)
			a.p[i] = ' ';
	fprintf(out, "llm: ok in %lld ms: answered \"%.80s%s\"\n", util_now_ms() - t0,
	    a.p != NULL ? a.p : "", a.len > 80 ? "..." : "");
	rc = 0;
out:
	buf_release(&a);
	return rc;
}

static int
provider_test_embed(const struct provider_cfg *c, long ms, FILE *out)
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
		provider_describe(out, "embed", c, NULL);
		provider_print_fail(out, "embed", &e);
		return 1;
	}
	provider_describe(out, "embed", c, &h);
	provider_http_release(&h);
	provider_print_creds(out, "embed", c);
	t0 = util_now_ms();
	if (provider_embed(c, texts, 2, PROVIDER_EMBED_DOCUMENT, ms, &v, &dim, &e) == -1) {
		provider_print_fail(out, "embed", &e);
		return 1;
	}
	fprintf(out, "embed: ok in %lld ms: 2 vectors of %zu dimensions\n",
	    util_now_ms() - t0, dim);
	free(v);
	return 0;
}

int
provider_cli_test(sqlite3 *db, const char *datadir, int argc, char **argv, FILE *out)
{
	struct provider_cfg	 llm, emb;
	long			 secs = 30;
	int			 i, want_llm = 1, want_embed = 1, rc = 0;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc &&
		    util_parse_long(argv[i + 1], 1, 600, &secs) == 0)
			i++;
		else if (strcmp(argv[i], "--llm") == 0)
			want_embed = 0;
		else if (strcmp(argv[i], "--embed") == 0)
			want_llm = 0;
		else {
			fprintf(stderr, "usage: ctxd-admin provider test "
			    "[--timeout SECONDS] [--llm | --embed]\n");
			return 2;
		}
	}
	if (!want_llm && !want_embed)
		want_llm = want_embed = 1;
	if (provider_load(db, datadir, &llm, &emb) == -1) {
		fprintf(out, "cannot read the ai.* settings\n");
		return 1;
	}
	if (want_llm) {
		if (llm.kind == PROVIDER_NONE)
			fprintf(out, "llm: none (ai.llm.provider is unset): no reranking "
			    "or generated titles\n");
		else if (provider_test_llm(&llm, secs * 1000, out) != 0)
			rc = 1;
	}
	if (want_embed) {
		if (emb.kind == PROVIDER_NONE)
			fprintf(out, "embed: none (%s%s): lexical retrieval only\n",
			    llm.kind != PROVIDER_NONE && !provider_has_embed(llm.kind) ?
			    provider_kind_name(llm.kind) : "no embedding provider",
			    llm.kind != PROVIDER_NONE && !provider_has_embed(llm.kind) ?
			    " has no embeddings; set ai.embed.provider" : "");
		else if (provider_test_embed(&emb, secs * 1000, out) != 0)
			rc = 1;
	}
	provider_cfg_release(&llm);
	provider_cfg_release(&emb);
	return rc;
}
