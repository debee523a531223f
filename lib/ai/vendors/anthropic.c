/* anthropic.c: Anthropic's Messages API (chat only: Anthropic has no embedding API). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ai/vendor.h"
#include "ai/wire.h"
#include "base/buf.h"
#include "base/util.h"

static int
anthropic_headers(const struct provider_cfg *c, struct provider_http *h)
{
	return ai_header(h, "x-api-key", c->key) == -1 ||
	    ai_header(h, "anthropic-version", "2023-06-01") == -1 ? -1 : 0;
}

static int
anthropic_chat_url(const struct provider_cfg *c, struct buf *b)
{
	if (ai_add_base(b, c, "https://api.anthropic.com") == -1)
		return -1;
	if (util_str_endswith(b->p, "/v1/messages"))
		return 0;
	return buf_adds(b, util_str_endswith(b->p, "/v1") ? "/messages" : "/v1/messages");
}

/* max_tokens is required: PROVIDER_MAX_TOKENS. */
static struct json_object *
anthropic_chat_body(const struct provider_cfg *c, const char *system, const char *user)
{
	struct json_object	*o = json_object_new_object(), *msgs, *m;

	msgs = json_object_new_array();
	json_object_object_add(o, "model", ai_jstr(c->model));
	json_object_object_add(o, "max_tokens", json_object_new_int(PROVIDER_MAX_TOKENS));
	if (system != NULL && *system != '\0')
		json_object_object_add(o, "system", ai_jstr(system));
	m = ai_jobj1("role", ai_jstr("user"));
	json_object_object_add(m, "content", ai_jstr(user));
	json_object_array_add(msgs, m);
	json_object_object_add(o, "messages", msgs);
	return o;
}

static int
anthropic_chat_answer(struct json_object *o, struct buf *answer, const char **why,
    struct provider_error *err)
{
	int	 n;

	(void)why;
	if ((n = ai_add_texts(answer, ai_jget(o, "content", json_type_array))) == -1)
		ai_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
	return n > 0 ? 1 : n;
}

const struct ai_vendor ai_vendor_anthropic = {
	.name = "anthropic",
	.label = "Anthropic",
	.default_llm = "claude-3-5-haiku-latest",
	.needs = AI_NEEDS_KEY,
	.takes = AI_NEEDS_KEY,
	.headers = anthropic_headers,
	.chat_url = anthropic_chat_url,
	.chat_body = anthropic_chat_body,
	.chat_answer = anthropic_chat_answer,
};
