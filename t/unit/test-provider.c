/* test-provider.c: AI provider requests, answers, errors and settings resolution. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ai/provider.h"
#include "ai/vendor.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "store/aiconfig.h"
#include "store/db.h"
#include "store/settings.h"
#include "tap.h"

static struct provider_cfg
cfg(const struct ai_vendor *k, const char *key, const char *model, const char *region,
    const char *base)
{
	struct provider_cfg c;

	c.vendor = k;
	c.key = (char *)key;
	c.model = (char *)model;
	c.region = (char *)region;
	c.base_url = (char *)base;
	return c;
}

/* The request's headers joined with "|". */
static char *
headers(const struct provider_http *h)
{
	struct buf	 b;
	size_t		 i;

	buf_init(&b);
	for (i = 0; i < h->nheaders; i++)
		buf_printf(&b, "%s%s", i ? "|" : "", h->headers[i]);
	if (b.p == NULL)
		buf_adds(&b, "");
	return buf_detach(&b);
}

static void
check_chat(struct provider_cfg c, const char *sys, const char *user, const char *url,
    const char *hdrs, const char *body, const char *name)
{
	struct provider_http	 h;
	struct provider_error	 e;
	char			*hs;

	memset(&e, 0, sizeof(e));
	if (!ok(provider_build_chat(&c, sys, user, &h, &e) == 0, "%s: chat request builds",
	    name)) {
		printf("#   %s\n", e.message);
		return;
	}
	is_str(h.url, url, "chat url");
	hs = headers(&h);
	is_str(hs, hdrs, "chat headers");
	is_str(h.body, body, "chat body");
	is_int(h.bodylen, strlen(body), "chat body length");
	free(hs);
	provider_http_release(&h);
}

static void
check_embed(struct provider_cfg c, const char *const *texts, size_t n,
    enum provider_embed_use use, const char *url, const char *hdrs, const char *body,
    const char *name)
{
	struct provider_http	 h;
	struct provider_error	 e;
	char			*hs;

	memset(&e, 0, sizeof(e));
	if (!ok(provider_build_embed(&c, texts, n, use, &h, &e) == 0,
	    "%s: embedding request builds", name)) {
		printf("#   %s\n", e.message);
		return;
	}
	is_str(h.url, url, "embed url");
	hs = headers(&h);
	is_str(hs, hdrs, "embed headers");
	is_str(h.body, body, "embed body");
	free(hs);
	provider_http_release(&h);
}

static void
test_requests(void)
{
	const char *two[] = { "alpha beta", "gamma" };
	struct provider_http	 h;
	struct provider_error	 e;

	check_chat(cfg(&ai_vendor_openai, "sk-test", "gpt-4o-mini", NULL, NULL), "S", "U",
	    "https://api.openai.com/v1/chat/completions",
	    "Content-Type: application/json|Authorization: Bearer sk-test",
	    "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"system\",\"content\":"
	    "\"S\"},{\"role\":\"user\",\"content\":\"U\"}]}", "openai");
	check_chat(cfg(&ai_vendor_openai, "k", "m", NULL, "http://127.0.0.1:9/"), NULL,
	    "say \"hi\"\n/é", "http://127.0.0.1:9/v1/chat/completions",
	    "Content-Type: application/json|Authorization: Bearer k",
	    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
	    "\"say \\\"hi\\\"\\n/é\"}]}", "openai without system, base_url, escaping");
	check_chat(cfg(&ai_vendor_custom, NULL, "llama3", NULL, "http://ollama:11434/v1"),
	    "S", "U", "http://ollama:11434/v1/chat/completions",
	    "Content-Type: application/json",
	    "{\"model\":\"llama3\",\"messages\":[{\"role\":\"system\",\"content\":"
	    "\"S\"},{\"role\":\"user\",\"content\":\"U\"}]}", "custom /v1 without key");
	check_chat(cfg(&ai_vendor_custom, "x", "m", NULL,
	    "https://llm.example/api/chat/completions"), NULL, "U",
	    "https://llm.example/api/chat/completions",
	    "Content-Type: application/json|Authorization: Bearer x",
	    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"U\"}]}",
	    "custom full endpoint");
	check_chat(cfg(&ai_vendor_anthropic, "sk-ant", "claude-3-5-haiku-latest", NULL, NULL),
	    "S", "U", "https://api.anthropic.com/v1/messages",
	    "Content-Type: application/json|x-api-key: sk-ant|anthropic-version: 2023-06-01",
	    "{\"model\":\"claude-3-5-haiku-latest\",\"max_tokens\":1024,\"system\":\"S\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"U\"}]}", "anthropic");
	check_chat(cfg(&ai_vendor_gemini, "AIza", "models/gemini-2.0-flash", NULL, NULL),
	    "S", "U", "https://generativelanguage.googleapis.com/v1beta/models/"
	    "gemini-2.0-flash:generateContent",
	    "Content-Type: application/json|x-goog-api-key: AIza",
	    "{\"systemInstruction\":{\"parts\":[{\"text\":\"S\"}]},\"contents\":[{\"role\":"
	    "\"user\",\"parts\":[{\"text\":\"U\"}]}]}", "gemini");
	check_chat(cfg(&ai_vendor_bedrock, NULL, "anthropic.claude-3-haiku-20240307-v1:0",
	    "us-west-2", NULL), "S", "U",
	    "https://bedrock-runtime.us-west-2.amazonaws.com/model/"
	    "anthropic.claude-3-haiku-20240307-v1%3A0/converse",
	    "Content-Type: application/json|Accept: application/json",
	    "{\"system\":[{\"text\":\"S\"}],\"messages\":[{\"role\":\"user\",\"content\":"
	    "[{\"text\":\"U\"}]}]}", "bedrock converse (SigV4 added when sent)");
	check_chat(cfg(&ai_vendor_bedrock, "ABSK-token", "arn:aws:bedrock:us-east-1:1:"
	    "inference-profile/us.x", "us-east-1", "https://vpce.example/"), NULL, "U",
	    "https://vpce.example/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3A"
	    "inference-profile%2Fus.x/converse",
	    "Content-Type: application/json|Accept: application/json|"
	    "Authorization: Bearer ABSK-token",
	    "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"U\"}]}]}",
	    "bedrock with an API key and a runtime endpoint");

	check_embed(cfg(&ai_vendor_openai, "k", "text-embedding-3-small", NULL, NULL), two, 2,
	    PROVIDER_EMBED_DOCUMENT, "https://api.openai.com/v1/embeddings",
	    "Content-Type: application/json|Authorization: Bearer k",
	    "{\"model\":\"text-embedding-3-small\",\"input\":[\"alpha beta\",\"gamma\"]}",
	    "openai");
	check_embed(cfg(&ai_vendor_custom, NULL, "bge", NULL, "http://tei:8080"), two, 1,
	    PROVIDER_EMBED_QUERY, "http://tei:8080/v1/embeddings",
	    "Content-Type: application/json",
	    "{\"model\":\"bge\",\"input\":[\"alpha beta\"]}", "custom");
	check_embed(cfg(&ai_vendor_gemini, "g", "gemini-embedding-001", NULL, NULL), two, 2,
	    PROVIDER_EMBED_QUERY, "https://generativelanguage.googleapis.com/v1beta/models/"
	    "gemini-embedding-001:batchEmbedContents",
	    "Content-Type: application/json|x-goog-api-key: g",
	    "{\"requests\":[{\"model\":\"models/gemini-embedding-001\",\"content\":"
	    "{\"parts\":[{\"text\":\"alpha beta\"}]},\"taskType\":\"RETRIEVAL_QUERY\"},"
	    "{\"model\":\"models/gemini-embedding-001\",\"content\":{\"parts\":[{\"text\":"
	    "\"gamma\"}]},\"taskType\":\"RETRIEVAL_QUERY\"}]}", "gemini");
	check_embed(cfg(&ai_vendor_bedrock, NULL, "amazon.titan-embed-text-v2:0", "eu-west-1",
	    NULL), two, 1, PROVIDER_EMBED_DOCUMENT,
	    "https://bedrock-runtime.eu-west-1.amazonaws.com/model/"
	    "amazon.titan-embed-text-v2%3A0/invoke",
	    "Content-Type: application/json|Accept: application/json",
	    "{\"inputText\":\"alpha beta\"}", "bedrock titan");
	check_embed(cfg(&ai_vendor_bedrock, NULL, "cohere.embed-english-v3", "eu-west-1",
	    NULL), two, 2, PROVIDER_EMBED_DOCUMENT,
	    "https://bedrock-runtime.eu-west-1.amazonaws.com/model/"
	    "cohere.embed-english-v3/invoke",
	    "Content-Type: application/json|Accept: application/json",
	    "{\"texts\":[\"alpha beta\",\"gamma\"],\"input_type\":\"search_document\"}",
	    "bedrock cohere");

	{
		struct provider_cfg t = cfg(&ai_vendor_bedrock, NULL,
		    "amazon.titan-embed-text-v2:0", "x", NULL);
		struct provider_cfg co = cfg(&ai_vendor_bedrock, NULL,
		    "cohere.embed-multilingual-v3", "x", NULL);
		struct provider_cfg o = cfg(&ai_vendor_openai, "k", "m", NULL, NULL);

		is_int(provider_embed_batch(&t), 1, "titan: one text a request");
		is_int(provider_embed_batch(&co), 96, "cohere: 96 texts a request");
		is_int(provider_embed_batch(&o), 96, "openai: 96 texts a request");
		ok(provider_build_embed(&t, two, 2, PROVIDER_EMBED_DOCUMENT, &h, &e) == -1,
		    "titan refuses two texts in one request");
	}

	/* Configuration errors: nothing is built. */
	{
		struct provider_cfg bad[] = {
			cfg(&ai_vendor_openai, NULL, "m", NULL, NULL),
			cfg(&ai_vendor_custom, NULL, "m", NULL, NULL),
			cfg(&ai_vendor_custom, NULL, NULL, NULL, "http://x"),
			cfg(&ai_vendor_bedrock, NULL, "m", NULL, NULL),
			cfg(NULL, NULL, NULL, NULL, NULL),
		};
		const char *want[] = {
			"no API key is set for the openai provider",
			"no base URL is set for the custom provider",
			"no model is set for the custom provider",
			"no region is set for bedrock (ai.llm.region, ai.embed.region for embeddings, "
			    "or AWS_REGION)",
			"no provider is configured",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memset(&e, 0, sizeof(e));
			ok(provider_build_chat(&bad[i], NULL, "U", &h, &e) == -1 &&
			    e.kind == PROVIDER_ECONFIG, "config error %zu refused", i);
			is_str(e.message, want[i], "config error %zu message", i);
		}
		bad[0] = cfg(&ai_vendor_anthropic, "k", "m", NULL, NULL);
		ok(provider_build_embed(&bad[0], two, 1, PROVIDER_EMBED_DOCUMENT, &h, &e) ==
		    -1 && e.kind == PROVIDER_ECONFIG, "anthropic has no embeddings");
	}
}

static void
check_answer(const struct ai_vendor *k, const char *body, const char *want, const char *name)
{
	struct provider_error	 e;
	struct buf		 a;

	memset(&e, 0, sizeof(e));
	buf_init(&a);
	if (ok(provider_parse_chat(k, body, strlen(body), &a, &e) == 0, "%s parses", name))
		is_str(a.p, want, "%s answer", name);
	else
		printf("#   %s\n", e.message);
	buf_release(&a);
}

static void
check_answer_fails(const struct ai_vendor *k, const char *body, int kind, const char *msg,
    const char *name)
{
	struct provider_error	 e;
	struct buf		 a;

	memset(&e, 0, sizeof(e));
	buf_init(&a);
	ok(provider_parse_chat(k, body, strlen(body), &a, &e) == -1 && e.kind == kind,
	    "%s is refused", name);
	is_str(e.message, msg, "%s message", name);
	buf_release(&a);
}

static void
test_chat_answers(void)
{
	check_answer(&ai_vendor_openai, "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
	    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
	    "\"[3, 1, 2]\",\"refusal\":null},\"finish_reason\":\"stop\"}],\"usage\":{}}",
	    "[3, 1, 2]", "openai answer");
	check_answer(&ai_vendor_anthropic, "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":"
	    "\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Hello\"},{\"type\":"
	    "\"text\",\"text\":\" world\"}],\"stop_reason\":\"end_turn\"}",
	    "Hello world", "anthropic answer");
	check_answer(&ai_vendor_gemini, "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":"
	    "\"Gem\"},{\"text\":\"ini\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}]}",
	    "Gemini", "gemini answer");
	check_answer(&ai_vendor_bedrock, "{\"output\":{\"message\":{\"role\":\"assistant\","
	    "\"content\":[{\"text\":\"ok\"}]}},\"stopReason\":\"end_turn\",\"usage\":{}}",
	    "ok", "bedrock converse answer");
	check_answer(&ai_vendor_custom, "{\"choices\":[{\"message\":{\"content\":\"c\"}}]}",
	    "c", "custom answer");

	check_answer_fails(&ai_vendor_openai, "{\"choices\": [{\"message\": {\"content\": \"tru",
	    PROVIDER_EMALFORMED, "malformed response: the answer is not a JSON object",
	    "truncated JSON");
	check_answer_fails(&ai_vendor_openai, "[1]", PROVIDER_EMALFORMED,
	    "malformed response: the answer is not a JSON object", "an array");
	check_answer_fails(&ai_vendor_openai, "{\"choices\":[]}", PROVIDER_EMALFORMED,
	    "malformed response: no text in the answer", "no choices");
	check_answer_fails(&ai_vendor_openai, "{\"choices\":[{\"message\":{\"content\":null,"
	    "\"refusal\":\"no\"}}]}", PROVIDER_EMALFORMED,
	    "malformed response: the model refused to answer", "a refusal");
	check_answer_fails(&ai_vendor_anthropic, "{\"choices\":[{\"message\":{\"content\":"
	    "\"x\"}}]}", PROVIDER_EMALFORMED, "malformed response: no text in the answer",
	    "openai shape given to anthropic");
	check_answer_fails(&ai_vendor_gemini, "{\"promptFeedback\":{\"blockReason\":"
	    "\"SAFETY\"}}", PROVIDER_EREQUEST, "the prompt was blocked (SAFETY)",
	    "gemini blocked prompt");
	check_answer_fails(&ai_vendor_bedrock, "{\"output\":{}}", PROVIDER_EMALFORMED,
	    "malformed response: no text in the answer", "bedrock without message");
}

static void
test_embed_answers(void)
{
	struct provider_cfg	 o = cfg(&ai_vendor_openai, "k", "m", NULL, NULL);
	struct provider_cfg	 g = cfg(&ai_vendor_gemini, "k", "m", NULL, NULL);
	struct provider_cfg	 t = cfg(&ai_vendor_bedrock, NULL, "amazon.titan-embed-text-v2:0",
	    "r", NULL);
	struct provider_cfg	 co = cfg(&ai_vendor_bedrock, NULL, "cohere.embed-english-v3",
	    "r", NULL);
	struct provider_error	 e;
	const char		*s;
	float			*v = NULL;
	size_t			 dim;

	/* OpenAI: rows placed by "index", whatever their order. */
	s = "{\"object\":\"list\",\"data\":[{\"object\":\"embedding\",\"index\":1,"
	    "\"embedding\":[0.5,-1]},{\"object\":\"embedding\",\"index\":0,\"embedding\":"
	    "[1,0.25]}],\"model\":\"m\",\"usage\":{}}";
	dim = 0;
	ok(provider_parse_embed(&o, s, strlen(s), 2, &v, &dim, &e) == 0 && dim == 2 &&
	    v[0] == 1.0f && v[1] == 0.25f && v[2] == 0.5f && v[3] == -1.0f,
	    "openai vectors in index order");
	free(v);
	s = "{\"embeddings\":[{\"values\":[1,2,3]},{\"values\":[4,5,6]}]}";
	dim = 0;
	ok(provider_parse_embed(&g, s, strlen(s), 2, &v, &dim, &e) == 0 && dim == 3 &&
	    v[0] == 1.0f && v[5] == 6.0f, "gemini batch vectors");
	free(v);
	s = "{\"embedding\":[0.1,0.2],\"inputTextTokenCount\":3}";
	dim = 0;
	ok(provider_parse_embed(&t, s, strlen(s), 1, &v, &dim, &e) == 0 && dim == 2 &&
	    v[1] == 0.2f, "titan vector");
	free(v);
	s = "{\"id\":\"x\",\"texts\":[\"a\",\"b\"],\"embeddings\":[[1,2],[3,4]],"
	    "\"response_type\":\"embeddings_floats\"}";
	dim = 0;
	ok(provider_parse_embed(&co, s, strlen(s), 2, &v, &dim, &e) == 0 && dim == 2 &&
	    v[3] == 4.0f, "cohere vectors");
	free(v);
	s = "{\"id\":\"x\",\"embeddings\":{\"float\":[[1,2],[3,5]]},"
	    "\"response_type\":\"embeddings_by_type\"}";
	dim = 0;
	ok(provider_parse_embed(&co, s, strlen(s), 2, &v, &dim, &e) == 0 && v[3] == 5.0f,
	    "cohere vectors by type");
	free(v);

	s = "{\"data\":[{\"index\":0,\"embedding\":[1,2]}]}";
	dim = 0;
	ok(provider_parse_embed(&o, s, strlen(s), 2, &v, &dim, &e) == -1 && v == NULL &&
	    e.kind == PROVIDER_EMALFORMED, "too few vectors refused");
	is_str(e.message, "malformed response: 1 vectors for 2 texts", "count message");
	s = "{\"data\":[{\"index\":0,\"embedding\":[1,2]},{\"index\":1,\"embedding\":[1]}]}";
	dim = 0;
	ok(provider_parse_embed(&o, s, strlen(s), 2, &v, &dim, &e) == -1 && v == NULL,
	    "uneven dimensions refused");
	is_str(e.message, "malformed response: vector 1 has 1 dimensions, not 2",
	    "dimension message");
	s = "{\"data\":[{\"index\":0,\"embedding\":[1,2]}]}";
	dim = 3;
	ok(provider_parse_embed(&o, s, strlen(s), 1, &v, &dim, &e) == -1,
	    "a dimension other than the batch's is refused");
	s = "{\"data\":[{\"index\":0,\"embedding\":[1,\"x\"]}]}";
	dim = 0;
	ok(provider_parse_embed(&o, s, strlen(s), 1, &v, &dim, &e) == -1 &&
	    e.kind == PROVIDER_EMALFORMED, "a non-number refused");
	s = "{\"data\":[{\"index\":0,\"embedding\":[1]},{\"index\":0,\"embedding\":[2]}]}";
	dim = 0;
	ok(provider_parse_embed(&o, s, strlen(s), 2, &v, &dim, &e) == -1,
	    "a repeated index refused");
	s = "{\"data\":[{\"index\":7,\"embedding\":[1]}]}";
	dim = 0;
	ok(provider_parse_embed(&o, s, strlen(s), 1, &v, &dim, &e) == -1,
	    "an index out of range refused");
}

static void
check_error(const struct ai_vendor *k, const char *model, long status, const char *body,
    const char *secret, int kind, const char *want, const char *name)
{
	struct provider_error	 e;

	memset(&e, 0, sizeof(e));
	provider_http_error(k, model, status, body, strlen(body), secret, &e);
	is_int(e.kind, kind, "%s: kind", name);
	is_int(e.status, status, "%s: status", name);
	is_str(e.message, want, "%s: message", name);
	if (secret != NULL)
		ok(strstr(e.message, secret) == NULL, "%s: no secret", name);
}

static void
test_errors(void)
{
	char	 s[64];
	char	 big[4096];
	struct provider_error e;

	check_error(&ai_vendor_openai, "gpt-4o-mini", 401, "{\"error\":{\"message\":"
	    "\"Incorrect API key provided: sk-live-123456.\",\"type\":"
	    "\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}",
	    "sk-live-123456", PROVIDER_EAUTH, "authentication failed: openai rejected the "
	    "credentials (HTTP 401): Incorrect API key provided: [redacted].", "openai 401");
	check_error(&ai_vendor_openai, "missing", 404, "{\"error\":{\"message\":\"The model "
	    "`missing` does not exist or you do not have access to it.\",\"code\":"
	    "\"model_not_found\"}}", "k", PROVIDER_EMODEL, "model 'missing' not found (or "
	    "wrong endpoint) (HTTP 404): The model `missing` does not exist or you do not "
	    "have access to it.", "openai 404");
	check_error(&ai_vendor_anthropic, "m", 429, "{\"type\":\"error\",\"error\":{\"type\":"
	    "\"rate_limit_error\",\"message\":\"slow down\"}}", NULL, PROVIDER_EQUOTA,
	    "quota or rate limit exceeded (HTTP 429): slow down", "anthropic 429");
	check_error(&ai_vendor_gemini, "m", 400, "{\"error\":{\"code\":400,\"message\":"
	    "\"API key not valid. Please pass a valid API key.\",\"status\":"
	    "\"INVALID_ARGUMENT\",\"details\":[{\"reason\":\"API_KEY_INVALID\"}]}}", "AIzaX",
	    PROVIDER_EAUTH, "authentication failed: gemini rejected the credentials "
	    "(HTTP 400): API key not valid. Please pass a valid API key.", "gemini bad key");
	check_error(&ai_vendor_bedrock, "x", 400, "{\"message\":\"The provided model "
	    "identifier is invalid.\"}", NULL, PROVIDER_EMODEL, "model 'x' not found (or "
	    "wrong endpoint) (HTTP 400): The provided model identifier is invalid.",
	    "bedrock invalid model");
	check_error(&ai_vendor_bedrock, "x", 403, "{\"Message\":\"User: arn:aws:iam::1:user/u "
	    "is not authorized\"}", NULL, PROVIDER_EAUTH, "authentication failed: bedrock "
	    "rejected the credentials (HTTP 403): User: arn:aws:iam::1:user/u is not "
	    "authorized", "bedrock 403");
	check_error(&ai_vendor_custom, "m", 503, "<html>\n<b>Service\tUnavailable</b>\n</html>",
	    NULL, PROVIDER_ESERVER, "custom server error (HTTP 503): <html> <b>Service "
	    "Unavailable</b> </html>", "text body collapsed to one line");
	check_error(&ai_vendor_custom, "m", 404, "{\"error\":\"model 'm' not found, try "
	    "pulling it first\"}", NULL, PROVIDER_EMODEL, "model 'm' not found (or wrong "
	    "endpoint) (HTTP 404): model 'm' not found, try pulling it first",
	    "ollama-style error string");
	check_error(&ai_vendor_openai, "m", 400, "", NULL, PROVIDER_EREQUEST,
	    "request rejected (HTTP 400)", "empty body");

	/* A long vendor message is scrubbed before it is cut: no partial key survives. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "{\"error\":{\"message\":\"", 21);
	memcpy(big + 21 + 225, "sk-abcdefghijklmnop", 19);
	memcpy(big + 4096 - 5, "\"}}", 4);
	memset(&e, 0, sizeof(e));
	provider_http_error(&ai_vendor_openai, "m", 401, big, strlen(big),
	    "sk-abcdefghijklmnop", &e);
	ok(strstr(e.message, "sk-abc") == NULL, "no partial key after truncation");

	snprintf(s, sizeof(s), "key sk-1 and sk-1 again");
	provider_scrub(s, sizeof(s), "sk-1");
	is_str(s, "key [redacted] and [redacted] again", "scrub every occurrence");
	snprintf(s, sizeof(s), "ends with sk-1234");
	provider_scrub(s, sizeof(s), "sk-123456789");
	is_str(s, "ends with ", "scrub a key's beginning at the end of the text");
	snprintf(s, sizeof(s), "ends with sk-12345");
	provider_scrub(s, sizeof(s), "sk-123456789");
	is_str(s, "ends with [redacted]", "a key's beginning of 8 bytes is redacted");
	snprintf(s, sizeof(s), "nothing here");
	provider_scrub(s, sizeof(s), NULL);
	is_str(s, "nothing here", "scrub without a secret");
	{
		char tiny[12];

		snprintf(tiny, sizeof(tiny), "0123456789");
		provider_scrub(tiny, sizeof(tiny), "345");
		is_str(tiny, "012[redacte", "scrub within the buffer's size");
	}
	is_str(provider_errkind_name(PROVIDER_EQUOTA), "quota", "error kind names");
	is_str(provider_vendor_name(&ai_vendor_bedrock), "bedrock", "vendor names");
	is_str(provider_vendor_name(NULL), "none", "no vendor: none");
	{
		const struct ai_vendor *v = &ai_vendor_openai;

		ok(provider_vendor_parse("gemini", &v) == 0 && v == &ai_vendor_gemini,
		    "vendor parse");
		ok(provider_vendor_parse("", &v) == 0 && v == NULL, "empty vendor is none");
		ok(provider_vendor_parse("azure", &v) == -1 && v == NULL, "unknown vendor");
	}
}

/* A transfer to a closed port fails fast as a connect error, without retries. */
static void
test_connect_error(void)
{
	struct provider_cfg	 c = cfg(&ai_vendor_custom, "sk-x", "m", NULL,
	    "http://127.0.0.1:1");
	struct provider_error	 e;
	struct buf		 a;
	const char		*texts[] = { "a" };
	float			*v = (float *)&e;
	size_t			 dim = 9;

	memset(&e, 0, sizeof(e));
	buf_init(&a);
	ok(provider_chat(&c, NULL, "U", 5000, &a, &e) == -1 &&
	    e.kind == PROVIDER_ECONNECT, "closed port: connect error");
	ok(strncmp(e.message, "cannot connect to 127.0.0.1:1 (", 31) == 0,
	    "connect error names the host");
	ok(provider_embed(&c, texts, 1, PROVIDER_EMBED_DOCUMENT, 5000, &v, &dim, &e) == -1 &&
	    v == NULL && dim == 0 && e.kind == PROVIDER_ECONNECT, "embed: connect error");
	buf_release(&a);
}

static void
test_load(void)
{
	char		 tmpl[] = "/tmp/test-provider.XXXXXX", err[256];
	struct provider_cfg l, e;
	struct db		*db = NULL;
	char		*dir;

	if ((dir = mkdtemp(tmpl)) == NULL || crypto_secret_create(dir) == -1 ||
	    db_open(dir, DB_READWRITE, &db) == -1) {
		ok(0, "cannot set up a database in %s", tmpl);
		return;
	}
	ok(aiconfig_load(db, dir, &l, &e) == 0 && l.vendor == NULL &&
	    e.vendor == NULL, "nothing configured: none and none");
	provider_cfg_release(&l);
	provider_cfg_release(&e);

	settings_set(db, dir, "ai.llm.provider", "openai", err, sizeof(err));
	settings_set(db, dir, "ai.llm.api_key", "sk-llm", err, sizeof(err));
	settings_set(db, dir, "ai.llm.base_url", "http://127.0.0.1:9", err, sizeof(err));
	ok(aiconfig_load(db, dir, &l, &e) == 0, "openai loads");
	is_str(l.key, "sk-llm", "llm key decrypted");
	is_str(l.model, "gpt-4o-mini", "llm default model");
	ok(e.vendor == &ai_vendor_openai, "embed same: openai");
	is_str(e.key, "sk-llm", "same vendor: the key is inherited");
	is_str(e.base_url, "http://127.0.0.1:9", "same vendor: the base URL is inherited");
	is_str(e.model, "text-embedding-3-small", "embed default model");
	provider_cfg_release(&l);
	provider_cfg_release(&e);

	settings_set(db, dir, "ai.embed.provider", "gemini", err, sizeof(err));
	ok(aiconfig_load(db, dir, &l, &e) == 0 && e.vendor == &ai_vendor_gemini &&
	    e.key == NULL && e.base_url == NULL,
	    "another vendor: neither key nor base URL inherited");
	provider_cfg_release(&l);
	provider_cfg_release(&e);
	settings_set(db, dir, "ai.embed.api_key", "g-key", err, sizeof(err));
	settings_set(db, dir, "ai.embed.model", "text-embedding-004", err, sizeof(err));
	ok(aiconfig_load(db, dir, &l, &e) == 0 && e.key != NULL &&
	    strcmp(e.key, "g-key") == 0 && strcmp(e.model, "text-embedding-004") == 0,
	    "embedding key and model of its own");
	provider_cfg_release(&l);
	provider_cfg_release(&e);

	settings_set(db, dir, "ai.llm.provider", "anthropic", err, sizeof(err));
	settings_set(db, dir, "ai.embed.provider", "same", err, sizeof(err));
	ok(aiconfig_load(db, dir, &l, &e) == 0 && l.vendor == &ai_vendor_anthropic &&
	    e.vendor == NULL, "anthropic + same: no embeddings");
	provider_cfg_release(&l);
	provider_cfg_release(&e);

	settings_set(db, dir, "ai.llm.provider", "bedrock", err, sizeof(err));
	settings_set(db, dir, "ai.llm.region", "eu-central-1", err, sizeof(err));
	settings_unset(db, "ai.embed.model");
	ok(aiconfig_load(db, dir, &l, &e) == 0 && e.vendor == &ai_vendor_bedrock &&
	    strcmp(e.region, "eu-central-1") == 0 &&
	    strcmp(e.model, "amazon.titan-embed-text-v2:0") == 0 &&
	    strcmp(l.model, "anthropic.claude-3-haiku-20240307-v1:0") == 0,
	    "bedrock: region shared, default models");
	provider_cfg_release(&l);
	provider_cfg_release(&e);
	settings_set(db, dir, "ai.embed.region", "us-west-2", err, sizeof(err));
	ok(aiconfig_load(db, dir, &l, &e) == 0 && strcmp(e.region, "us-west-2") == 0 &&
	    strcmp(l.region, "eu-central-1") == 0,
	    "bedrock: ai.embed.region for the embeddings, ai.llm.region for the LLM");
	settings_unset(db, "ai.embed.region");
	provider_cfg_release(&l);
	ok(l.key == NULL && l.model == NULL, "release empties the configuration");
	provider_cfg_release(&e);

	/* What GET /api/settings says of the vendor choices comes from the vendor table. */
	{
		static const char *const names[] = { "ai.llm.provider", "ai.embed.provider",
		    NULL };
		json_object *o = settings_json(db, dir, names), *llm = NULL, *x = NULL, *y;

		ok(o != NULL && json_object_object_get_ex(o, "ai.llm.provider", &llm) &&
		    json_object_object_get_ex(llm, "choiceLabels", &x) &&
		    json_object_object_get_ex(x, "bedrock", &y) &&
		    strcmp(json_object_get_string(y), ai_vendor_bedrock.label) == 0,
		    "settings: each vendor choice with its label from the table");
		ok(llm != NULL && json_object_object_get_ex(llm, "choiceTakes", &x) &&
		    json_object_object_get_ex(x, "bedrock", &y) &&
		    json_object_array_length(y) == 3 &&
		    json_object_object_get_ex(x, "openai", &y) &&
		    json_object_array_length(y) == 1 &&
		    strcmp(json_object_get_string(json_object_array_get_idx(y, 0)),
		    "api_key") == 0,
		    "settings: and the settings a form offers for it (bedrock: key, region, "
		    "endpoint; openai: key)");
		json_object_put(o);
	}

	db_close(db);
	{
		char *p = util_path_join(dir, "secret.key");
		char *q = util_path_join(dir, "ctxd.db");
		char *w = util_path_join(dir, "ctxd.db-wal");
		char *m = util_path_join(dir, "ctxd.db-shm");

		unlink(p);
		unlink(q);
		unlink(w);
		unlink(m);
		free(p);
		free(q);
		free(w);
		free(m);
	}
	rmdir(dir);
}

/* The choices of setting name ("a|b|c"), or NULL. */
static const char *
choices_of(const char *name)
{
	struct settings_desc	 d;
	size_t			 i;

	for (i = 0; settings_describe(i, &d) == 0; i++)
		if (strcmp(d.name, name) == 0)
			return d.choices;
	return NULL;
}

/*
 * The vendor table is what the settings offer: every vendor is a choice of ai.llm.provider
 * and, with an embedding API, of ai.embed.provider, in the same order; each names itself,
 * has a label, builds a chat request, and parses its name back to its kind.
 */
static void
test_vendor_table(void)
{
	const struct ai_vendor	*v;
	struct buf		 llm, emb;
	const struct ai_vendor	*p;
	size_t			 k;
	int			 n = 0;

	buf_init(&llm);
	buf_init(&emb);
	buf_adds(&emb, "same");
	for (k = 0; (v = ai_vendor_at(k)) != NULL; k++) {
		n++;
		ok(v->name != NULL && v->label != NULL && v->headers != NULL &&
		    v->chat_url != NULL && v->chat_body != NULL && v->chat_answer != NULL,
		    "vendor %s: names itself and chats", v->name);
		ok(provider_vendor_parse(v->name, &p) == 0 && p == v,
		    "vendor %s: its name finds it", v->name);
		ok((v->embed_url == NULL) == (v->embed_body == NULL) &&
		    (v->embed_url == NULL) == (v->embed_answer == NULL) &&
		    (v->embed_url == NULL) == (v->embed_batch == NULL),
		    "vendor %s: embeddings all or nothing", v->name);
		is_int(provider_has_embed(v), v->embed_url != NULL, "vendor %s: has_embed",
		    v->name);
		buf_printf(&llm, "%s%s", llm.len > 0 ? "|" : "", v->name);
		if (v->embed_url != NULL)
			buf_printf(&emb, "|%s", v->name);
	}
	ok(n >= 5, "the vendor table has the five vendors");
	is_str(choices_of("ai.llm.provider"), llm.p, "ai.llm.provider offers every vendor");
	is_str(choices_of("ai.embed.provider"), emb.p,
	    "ai.embed.provider offers same and every vendor with embeddings");
	ok(ai_vendor_at(k + 1) == NULL, "nothing past the table's end");
	buf_release(&llm);
	buf_release(&emb);
}

int
main(void)
{
	log_init("test-provider");
	unsetenv("AWS_REGION");
	unsetenv("AWS_DEFAULT_REGION");
	test_requests();
	test_chat_answers();
	test_embed_answers();
	test_errors();
	test_connect_error();
	test_load();
	test_vendor_table();
	return tap_done();
}
