/* gemini.c: Google's Gemini API (generateContent and batchEmbedContents). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ai/vendor.h"
#include "ai/wire.h"
#include "base/buf.h"
#include "base/util.h"

static int
gemini_headers(const struct provider_cfg *c, struct provider_http *h)
{
	return ai_header(h, "x-goog-api-key", c->key);
}

/* The model without its "models/" prefix, which the settings may carry. */
static const char *
gemini_model(const struct provider_cfg *c)
{
	return strncmp(c->model, "models/", 7) == 0 ? c->model + 7 : c->model;
}

/* The URL of model:method. */
static int
gemini_url(struct buf *b, const struct provider_cfg *c, const char *method)
{
	if (ai_add_base(b, c, "https://generativelanguage.googleapis.com") == -1)
		return -1;
	if (!util_str_endswith(b->p, "/v1beta") && buf_adds(b, "/v1beta") == -1)
		return -1;
	if (buf_adds(b, "/models/") == -1 || ai_add_escaped(b, gemini_model(c)) == -1)
		return -1;
	return buf_printf(b, ":%s", method);
}

static int
gemini_chat_url(const struct provider_cfg *c, struct buf *b)
{
	return gemini_url(b, c, "generateContent");
}

static struct json_object *
gemini_chat_body(const struct provider_cfg *c, const char *system, const char *user)
{
	struct json_object	*o = json_object_new_object(), *msgs, *m;

	(void)c;
	msgs = json_object_new_array();
	if (system != NULL && *system != '\0')
		json_object_object_add(o, "systemInstruction",
		    ai_jobj1("parts", ai_jtextparts(system)));
	m = ai_jobj1("role", ai_jstr("user"));
	json_object_object_add(m, "parts", ai_jtextparts(user));
	json_object_array_add(msgs, m);
	json_object_object_add(o, "contents", msgs);
	return o;
}

static int
gemini_chat_answer(struct json_object *o, struct buf *answer, const char **why,
    struct provider_error *err)
{
	struct json_object	*v, *parts;
	int			 n;

	(void)why;
	v = ai_jidx(ai_jget(o, "candidates", json_type_array), 0, json_type_object);
	parts = ai_jget(ai_jget(v, "content", json_type_object), "parts", json_type_array);
	if (parts == NULL && (v = ai_jget(ai_jget(o, "promptFeedback", json_type_object),
	    "blockReason", json_type_string)) != NULL) {
		ai_perr(err, PROVIDER_EREQUEST, 200, "the prompt was blocked (%s)",
		    json_object_get_string(v));
		return -1;
	}
	if ((n = ai_add_texts(answer, parts)) == -1)
		ai_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
	return n > 0 ? 1 : n;
}

static size_t
gemini_embed_batch(const struct provider_cfg *c)
{
	(void)c;
	return PROVIDER_EMBED_BATCH;
}

static int
gemini_embed_url(const struct provider_cfg *c, struct buf *b)
{
	return gemini_url(b, c, "batchEmbedContents");
}

static struct json_object *
gemini_embed_body(const struct provider_cfg *c, const char *const *texts, size_t n,
    enum provider_embed_use use)
{
	struct json_object	*o = json_object_new_object(), *a, *r;
	struct buf		 b;
	size_t			 i;

	a = json_object_new_array();
	buf_init(&b);
	buf_printf(&b, "models/%s", gemini_model(c));
	for (i = 0; i < n; i++) {
		r = ai_jobj1("model", ai_jstr(b.p));
		json_object_object_add(r, "content", ai_jobj1("parts",
		    ai_jtextparts(texts[i])));
		json_object_object_add(r, "taskType", ai_jstr(use == PROVIDER_EMBED_QUERY ?
		    "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT"));
		json_object_array_add(a, r);
	}
	buf_release(&b);
	json_object_object_add(o, "requests", a);
	return o;
}

/* Item i of "embeddings": {"values": [...]}. */
static int
gemini_vec(struct json_object *item, size_t i, size_t n, struct json_object **arr,
    size_t *row, struct provider_error *err)
{
	(void)i;
	(void)n;
	(void)row;
	(void)err;
	*arr = ai_jget(item, "values", json_type_array);
	return 0;
}

static int
gemini_embed_answer(const struct provider_cfg *c, struct json_object *o, size_t n,
    float **out, size_t *dim, struct provider_error *err)
{
	(void)c;
	return ai_vectors(ai_jget(o, "embeddings", json_type_array), n, out, dim,
	    gemini_vec, err);
}

const struct ai_vendor ai_vendor_gemini = {
	.name = "gemini",
	.label = "Google Gemini",
	.default_llm = "gemini-2.0-flash",
	.default_embed = "gemini-embedding-001",
	.needs = AI_NEEDS_KEY,
	.takes = AI_NEEDS_KEY,
	.headers = gemini_headers,
	.chat_url = gemini_chat_url,
	.chat_body = gemini_chat_body,
	.chat_answer = gemini_chat_answer,
	.embed_batch = gemini_embed_batch,
	.embed_url = gemini_embed_url,
	.embed_body = gemini_embed_body,
	.embed_answer = gemini_embed_answer,
};
