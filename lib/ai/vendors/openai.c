/*
 * openai.c: OpenAI's chat completions and embeddings, and "custom": any endpoint that speaks
 * the same wire format (Ollama, vLLM, LiteLLM, text-embeddings-inference ...), which needs
 * a base URL and may need no key.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ai/vendor.h"
#include "ai/wire.h"
#include "base/buf.h"
#include "base/util.h"

/*
 * The URL of suffix: the base as given when it already ends in /suffix, base + "/suffix"
 * when it ends in /v1, else base + "/v1/suffix".
 */
static int
openai_url(struct buf *b, const struct provider_cfg *c, const char *suffix)
{
	char	 tail[64];

	if (ai_add_base(b, c, "https://api.openai.com") == -1)
		return -1;
	snprintf(tail, sizeof(tail), "/%s", suffix);
	if (util_str_endswith(b->p, tail))
		return 0;
	if (util_str_endswith(b->p, "/v1"))
		return buf_adds(b, tail);
	return buf_printf(b, "/v1%s", tail);
}

static int
openai_chat_url(const struct provider_cfg *c, struct buf *b)
{
	return openai_url(b, c, "chat/completions");
}

static struct json_object *
openai_chat_body(const struct provider_cfg *c, const char *system, const char *user)
{
	struct json_object	*o = json_object_new_object(), *msgs, *m;

	msgs = json_object_new_array();
	json_object_object_add(o, "model", ai_jstr(c->model));
	if (system != NULL && *system != '\0') {
		m = ai_jobj1("role", ai_jstr("system"));
		json_object_object_add(m, "content", ai_jstr(system));
		json_object_array_add(msgs, m);
	}
	m = ai_jobj1("role", ai_jstr("user"));
	json_object_object_add(m, "content", ai_jstr(user));
	json_object_array_add(msgs, m);
	json_object_object_add(o, "messages", msgs);
	return o;
}

static int
openai_chat_answer(struct json_object *o, struct buf *answer, const char **why,
    struct provider_error *err)
{
	struct json_object	*v, *content;

	v = ai_jidx(ai_jget(o, "choices", json_type_array), 0, json_type_object);
	v = ai_jget(v, "message", json_type_object);
	if ((content = ai_jget(v, "content", json_type_string)) != NULL) {
		if (buf_adds(answer, json_object_get_string(content)) == -1) {
			ai_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
			return -1;
		}
		return 1;
	}
	if (ai_jget(v, "refusal", json_type_string) != NULL)
		*why = "the model refused to answer";
	return 0;
}

static size_t
openai_embed_batch(const struct provider_cfg *c)
{
	(void)c;
	return PROVIDER_EMBED_BATCH;
}

static int
openai_embed_url(const struct provider_cfg *c, struct buf *b)
{
	return openai_url(b, c, "embeddings");
}

static struct json_object *
openai_embed_body(const struct provider_cfg *c, const char *const *texts, size_t n,
    enum provider_embed_use use)
{
	struct json_object	*o = json_object_new_object(), *a;
	size_t			 i;

	(void)use;
	a = json_object_new_array();
	json_object_object_add(o, "model", ai_jstr(c->model));
	for (i = 0; i < n; i++)
		json_object_array_add(a, ai_jstr(texts[i]));
	json_object_object_add(o, "input", a);
	return o;
}

/* Item i of "data": {"embedding": [...], "index": k}; the index, when given, is its row. */
static int
openai_vec(struct json_object *item, size_t i, size_t n, struct json_object **arr,
    size_t *row, struct provider_error *err)
{
	struct json_object	*ix;
	int64_t			 k;

	(void)i;
	if (item == NULL || !json_object_is_type(item, json_type_object))
		return 0;
	*arr = ai_jget(item, "embedding", json_type_array);
	if ((ix = ai_jget(item, "index", json_type_int)) != NULL) {
		k = json_object_get_int64(ix);
		if (k < 0 || (uint64_t)k >= n) {
			ai_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: index "
			    "%lld", (long long)k);
			return -1;
		}
		*row = (size_t)k;
	}
	return 0;
}

static int
openai_embed_answer(const struct provider_cfg *c, struct json_object *o, size_t n,
    float **out, size_t *dim, struct provider_error *err)
{
	(void)c;
	return ai_vectors(ai_jget(o, "data", json_type_array), n, out, dim, openai_vec,
	    err);
}

const struct ai_vendor ai_vendor_openai = {
	.name = "openai",
	.label = "OpenAI",
	.default_llm = "gpt-4o-mini",
	.default_embed = "text-embedding-3-small",
	.needs = AI_NEEDS_KEY,
	.takes = AI_NEEDS_KEY,
	.headers = ai_bearer,
	.chat_url = openai_chat_url,
	.chat_body = openai_chat_body,
	.chat_answer = openai_chat_answer,
	.embed_batch = openai_embed_batch,
	.embed_url = openai_embed_url,
	.embed_body = openai_embed_body,
	.embed_answer = openai_embed_answer,
};

const struct ai_vendor ai_vendor_custom = {
	.name = "custom",
	.label = "OpenAI-compatible endpoint",
	.needs = AI_NEEDS_BASE_URL,
	.takes = AI_NEEDS_KEY | AI_NEEDS_BASE_URL,
	.headers = ai_bearer,
	.chat_url = openai_chat_url,
	.chat_body = openai_chat_body,
	.chat_answer = openai_chat_answer,
	.embed_batch = openai_embed_batch,
	.embed_url = openai_embed_url,
	.embed_body = openai_embed_body,
	.embed_answer = openai_embed_answer,
};
