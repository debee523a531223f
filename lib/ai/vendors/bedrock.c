/*
 * bedrock.c: Amazon Bedrock: chat through Converse, embeddings through InvokeModel (Titan:
 * one text a request; Cohere: batches). Requests carry a Bedrock API key as a bearer token,
 * or, without a key, are signed with AWS SigV4 from the credential chain (the core does it:
 * aws_service).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ai/vendor.h"
#include "ai/wire.h"
#include "base/buf.h"

static int
bedrock_headers(const struct provider_cfg *c, struct provider_http *h)
{
	if (ai_header(h, "Accept", "application/json") == -1)
		return -1;
	return ai_bearer(c, h);
}

/* The runtime URL of model/method (the region's endpoint unless a base URL is set). */
static int
bedrock_url(struct buf *b, const struct provider_cfg *c, const char *method)
{
	struct buf	 d;
	int		 rc;

	buf_init(&d);
	if (buf_printf(&d, "https://bedrock-runtime.%s.amazonaws.com",
	    c->region != NULL ? c->region : "") == -1) {
		buf_release(&d);
		return -1;
	}
	rc = ai_add_base(b, c, d.p);
	buf_release(&d);
	if (rc == -1 || buf_adds(b, "/model/") == -1 || ai_add_escaped(b, c->model) == -1)
		return -1;
	return buf_printf(b, "/%s", method);
}

static int
bedrock_chat_url(const struct provider_cfg *c, struct buf *b)
{
	return bedrock_url(b, c, "converse");
}

static struct json_object *
bedrock_chat_body(const struct provider_cfg *c, const char *system, const char *user)
{
	struct json_object	*o = json_object_new_object(), *msgs, *m;

	(void)c;
	msgs = json_object_new_array();
	if (system != NULL && *system != '\0')
		json_object_object_add(o, "system", ai_jtextparts(system));
	m = ai_jobj1("role", ai_jstr("user"));
	json_object_object_add(m, "content", ai_jtextparts(user));
	json_object_array_add(msgs, m);
	json_object_object_add(o, "messages", msgs);
	return o;
}

static int
bedrock_chat_answer(struct json_object *o, struct buf *answer, const char **why,
    struct provider_error *err)
{
	struct json_object	*v;
	int			 n;

	(void)why;
	v = ai_jget(ai_jget(o, "output", json_type_object), "message", json_type_object);
	if ((n = ai_add_texts(answer, ai_jget(v, "content", json_type_array))) == -1)
		ai_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
	return n > 0 ? 1 : n;
}

/* 1 when the embedding model takes Cohere's {"texts": [...]} shape (else Titan's). */
static int
bedrock_is_cohere(const struct provider_cfg *c)
{
	return c->model != NULL && strstr(c->model, "cohere.embed") != NULL;
}

static size_t
bedrock_embed_batch(const struct provider_cfg *c)
{
	return bedrock_is_cohere(c) ? PROVIDER_EMBED_BATCH : 1;
}

static int
bedrock_embed_url(const struct provider_cfg *c, struct buf *b)
{
	return bedrock_url(b, c, "invoke");
}

static struct json_object *
bedrock_embed_body(const struct provider_cfg *c, const char *const *texts, size_t n,
    enum provider_embed_use use)
{
	struct json_object	*o = json_object_new_object(), *a;
	size_t			 i;

	if (!bedrock_is_cohere(c)) {
		json_object_object_add(o, "inputText", ai_jstr(texts[0]));
		return o;
	}
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(a, ai_jstr(texts[i]));
	json_object_object_add(o, "texts", a);
	json_object_object_add(o, "input_type", ai_jstr(use == PROVIDER_EMBED_QUERY ?
	    "search_query" : "search_document"));
	return o;
}

/* Item i of Cohere's "embeddings" (or "embeddings": {"float": [...]}): an array. */
static int
bedrock_vec(struct json_object *item, size_t i, size_t n, struct json_object **arr,
    size_t *row, struct provider_error *err)
{
	(void)i;
	(void)n;
	(void)row;
	(void)err;
	*arr = item != NULL && json_object_is_type(item, json_type_array) ? item : NULL;
	return 0;
}

static int
bedrock_embed_answer(const struct provider_cfg *c, struct json_object *o, size_t n,
    float **out, size_t *dim, struct provider_error *err)
{
	struct json_object	*list;

	if (!bedrock_is_cohere(c)) {
		if (n != 1) {
			ai_perr(err, PROVIDER_EINTERNAL, 0, "titan embeds one text a request");
			return -1;
		}
		return ai_vector(ai_jget(o, "embedding", json_type_array), out, 1, 0, dim,
		    err);
	}
	if ((list = ai_jget(o, "embeddings", json_type_array)) == NULL)
		list = ai_jget(ai_jget(o, "embeddings", json_type_object), "float",
		    json_type_array);
	return ai_vectors(list, n, out, dim, bedrock_vec, err);
}

/* Bedrock answers an unknown model with a 400. */
static int
bedrock_error_kind(long status, const char *body, size_t len, int kind)
{
	if (status == 400 && body != NULL && memmem(body, len,
	    "model identifier is invalid", 27))
		return PROVIDER_EMODEL;
	return kind;
}

const struct ai_vendor ai_vendor_bedrock = {
	.name = "bedrock",
	.label = "Amazon Bedrock",
	.default_llm = "anthropic.claude-3-haiku-20240307-v1:0",
	.default_embed = "amazon.titan-embed-text-v2:0",
	.needs = AI_NEEDS_REGION,
	.takes = AI_NEEDS_KEY | AI_NEEDS_REGION | AI_NEEDS_BASE_URL,
	.aws_service = "bedrock",
	.headers = bedrock_headers,
	.chat_url = bedrock_chat_url,
	.chat_body = bedrock_chat_body,
	.chat_answer = bedrock_chat_answer,
	.embed_batch = bedrock_embed_batch,
	.embed_url = bedrock_embed_url,
	.embed_body = bedrock_embed_body,
	.embed_answer = bedrock_embed_answer,
	.error_kind = bedrock_error_kind,
};
