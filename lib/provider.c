/*
 * provider.c: the AI providers: configuration from the settings, each vendor's chat and
 * embedding request and answer, requests run through the fetch engine (fetch.c), error
 * classification with secrets scrubbed, and `ctxd-admin provider test`.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "ctxd.h"
#include "aws.h"
#include "fetch.h"
#include "provider.h"

/* Largest answer read from a provider. */
#define PROVIDER_MAX_ANSWER	(64L * 1024 * 1024)
/* Largest embedding dimension accepted. */
#define PROVIDER_MAX_DIM	16384
/* Longest connect phase of one try. */
#define PROVIDER_CONNECT_MS	10000

static const char *const provider_names[] = {
	"none", "openai", "anthropic", "gemini", "bedrock", "custom"
};

const char *
provider_kind_name(enum provider_kind k)
{
	if ((size_t)k >= sizeof(provider_names) / sizeof(provider_names[0]))
		return "none";
	return provider_names[k];
}

int
provider_kind_parse(const char *s)
{
	size_t	 i;

	if (s == NULL || *s == '\0')
		return PROVIDER_NONE;
	for (i = 1; i < sizeof(provider_names) / sizeof(provider_names[0]); i++)
		if (strcmp(s, provider_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *
provider_errkind_name(int k)
{
	static const char *const names[] = {
		"ok", "config", "dns", "connect", "tls", "timeout", "auth", "model",
		"quota", "server", "request", "malformed", "network", "internal"
	};

	if (k < 0 || (size_t)k >= sizeof(names) / sizeof(names[0]))
		return "internal";
	return names[k];
}

/* Sets *err (when not NULL) to kind/status and a formatted message. */
static void
provider_perr(struct provider_error *err, int kind, long status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
provider_perr(struct provider_error *err, int kind, long status, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL)
		return;
	err->kind = kind;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ configuration */

static const char *
provider_default_llm(enum provider_kind k)
{
	switch (k) {
	case PROVIDER_OPENAI:
		return "gpt-4o-mini";
	case PROVIDER_ANTHROPIC:
		return "claude-3-5-haiku-latest";
	case PROVIDER_GEMINI:
		return "gemini-2.0-flash";
	case PROVIDER_BEDROCK:
		return "anthropic.claude-3-haiku-20240307-v1:0";
	default:
		return NULL;
	}
}

static const char *
provider_default_embed(enum provider_kind k)
{
	switch (k) {
	case PROVIDER_OPENAI:
		return "text-embedding-3-small";
	case PROVIDER_GEMINI:
		return "gemini-embedding-001";
	case PROVIDER_BEDROCK:
		return "amazon.titan-embed-text-v2:0";
	default:
		return NULL;
	}
}

void
provider_cfg_release(struct provider_cfg *c)
{
	if (c == NULL)
		return;
	if (c->key != NULL)
		explicit_bzero(c->key, strlen(c->key));
	free(c->key);
	free(c->model);
	free(c->region);
	free(c->base_url);
	memset(c, 0, sizeof(*c));
}

/* The setting's value, or NULL when unset or empty (malloc'd). */
static char *
provider_setting(sqlite3 *db, const char *datadir, const char *name)
{
	char	*v = settings_get(db, datadir, name);

	if (v != NULL && *v == '\0') {
		free(v);
		v = NULL;
	}
	return v;
}

/* strdup of s, or of dflt when s is NULL; NULL when both are. */
static char *
provider_dup(const char *s, const char *dflt)
{
	if (s == NULL)
		s = dflt;
	return s == NULL ? NULL : strdup(s);
}

int
provider_load(sqlite3 *db, const char *datadir, struct provider_cfg *llm,
    struct provider_cfg *embed)
{
	struct provider_cfg	 l, e;
	char			*lp = NULL, *ep = NULL, *lkey = NULL, *lmodel = NULL;
	char			*region = NULL, *lbase = NULL, *ekey = NULL, *emodel = NULL;
	char			*ebase = NULL, *eregion = NULL;
	const char		*env;
	int			 k, rc = -1;

	memset(&l, 0, sizeof(l));
	memset(&e, 0, sizeof(e));
	/* The calls to the providers go through the address policy, re-read with them. */
	netpolicy_load(db, datadir);
	lp = provider_setting(db, datadir, "ai.llm.provider");
	ep = provider_setting(db, datadir, "ai.embed.provider");
	lkey = provider_setting(db, datadir, "ai.llm.api_key");
	lmodel = provider_setting(db, datadir, "ai.llm.model");
	region = provider_setting(db, datadir, "ai.llm.region");
	lbase = provider_setting(db, datadir, "ai.llm.base_url");
	ekey = provider_setting(db, datadir, "ai.embed.api_key");
	emodel = provider_setting(db, datadir, "ai.embed.model");
	ebase = provider_setting(db, datadir, "ai.embed.base_url");
	eregion = provider_setting(db, datadir, "ai.embed.region");
	if (region == NULL && (env = getenv("AWS_REGION")) != NULL && *env != '\0')
		region = strdup(env);
	if (region == NULL && (env = getenv("AWS_DEFAULT_REGION")) != NULL &&
	    *env != '\0')
		region = strdup(env);

	if ((k = provider_kind_parse(lp)) == -1) {
		log_err("%s: unknown ai.llm.provider '%s'", __func__, lp);
		goto out;
	}
	l.kind = k;
	if (ep == NULL || strcmp(ep, "same") == 0)
		k = l.kind == PROVIDER_ANTHROPIC ? PROVIDER_NONE : (int)l.kind;
	else if ((k = provider_kind_parse(ep)) == -1 || k == PROVIDER_ANTHROPIC) {
		log_err("%s: unknown embedding provider '%s'", __func__, ep);
		goto out;
	}
	e.kind = k;

	if (l.kind != PROVIDER_NONE) {
		l.key = provider_dup(lkey, NULL);
		l.model = provider_dup(lmodel, provider_default_llm(l.kind));
		l.region = provider_dup(region, NULL);
		l.base_url = provider_dup(lbase, NULL);
	}
	if (e.kind != PROVIDER_NONE) {
		int same = e.kind == l.kind;

		e.key = provider_dup(ekey, same ? lkey : NULL);
		e.model = provider_dup(emodel, provider_default_embed(e.kind));
		e.region = provider_dup(eregion, region);
		e.base_url = provider_dup(ebase, same ? lbase : NULL);
	}
	rc = 0;
out:
	if (lkey != NULL)
		explicit_bzero(lkey, strlen(lkey));
	if (ekey != NULL)
		explicit_bzero(ekey, strlen(ekey));
	free(lp);
	free(ep);
	free(lkey);
	free(lmodel);
	free(region);
	free(eregion);
	free(lbase);
	free(ekey);
	free(emodel);
	free(ebase);
	if (rc == 0 && llm != NULL)
		*llm = l;
	else
		provider_cfg_release(&l);
	if (rc == 0 && embed != NULL)
		*embed = e;
	else
		provider_cfg_release(&e);
	return rc;
}

/* ------------------------------------------------------------ requests */

void
provider_http_release(struct provider_http *h)
{
	size_t	 i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nheaders; i++) {
		if (h->headers[i] != NULL)
			explicit_bzero(h->headers[i], strlen(h->headers[i]));
		free(h->headers[i]);
	}
	free(h->url);
	free(h->body);
	memset(h, 0, sizeof(*h));
}

static int
provider_header(struct provider_http *h, const char *name, const char *value)
{
	struct buf	 b;

	if (h->nheaders >= sizeof(h->headers) / sizeof(h->headers[0]))
		return -1;
	buf_init(&b);
	if (buf_printf(&b, "%s: %s", name, value) == -1) {
		buf_release(&b);
		return -1;
	}
	h->headers[h->nheaders++] = buf_detach(&b);
	return 0;
}

/* Percent-encodes s (all but RFC 3986 unreserved bytes) onto b. */
static int
provider_add_escaped(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
			if (buf_addc(b, (char)c) == -1)
				return -1;
		} else if (buf_printf(b, "%%%02X", c) == -1)
			return -1;
	}
	return 0;
}

/* The base URL (setting or dflt) onto b without trailing slashes. */
static int
provider_add_base(struct buf *b, const struct provider_cfg *c, const char *dflt)
{
	const char	*s = c->base_url != NULL && *c->base_url != '\0' ?
	    c->base_url : dflt;
	size_t		 n = strlen(s);

	while (n > 0 && s[n - 1] == '/')
		n--;
	return buf_add(b, s, n);
}

/*
 * OpenAI-style URL: base as given when it already ends in /suffix, base + "/suffix" when
 * it ends in /v1, else base + "/v1/suffix".
 */
static int
provider_openai_url(struct buf *b, const struct provider_cfg *c, const char *suffix)
{
	char	 tail[64];

	if (provider_add_base(b, c, "https://api.openai.com") == -1)
		return -1;
	snprintf(tail, sizeof(tail), "/%s", suffix);
	if (util_str_endswith(b->p, tail))
		return 0;
	if (util_str_endswith(b->p, "/v1"))
		return buf_adds(b, tail);
	return buf_printf(b, "/v1%s", tail);
}

/* Gemini URL for model:method. */
static int
provider_gemini_url(struct buf *b, const struct provider_cfg *c, const char *method)
{
	const char	*m = c->model;

	if (strncmp(m, "models/", 7) == 0)
		m += 7;
	if (provider_add_base(b, c, "https://generativelanguage.googleapis.com") == -1)
		return -1;
	if (!util_str_endswith(b->p, "/v1beta") && buf_adds(b, "/v1beta") == -1)
		return -1;
	if (buf_adds(b, "/models/") == -1 || provider_add_escaped(b, m) == -1)
		return -1;
	return buf_printf(b, ":%s", method);
}

/* Bedrock runtime URL for model/method. */
static int
provider_bedrock_url(struct buf *b, const struct provider_cfg *c, const char *method)
{
	struct buf	 d;
	int		 rc;

	buf_init(&d);
	if (buf_printf(&d, "https://bedrock-runtime.%s.amazonaws.com",
	    c->region != NULL ? c->region : "") == -1) {
		buf_release(&d);
		return -1;
	}
	rc = provider_add_base(b, c, d.p);
	buf_release(&d);
	if (rc == -1 || buf_adds(b, "/model/") == -1 ||
	    provider_add_escaped(b, c->model) == -1)
		return -1;
	return buf_printf(b, "/%s", method);
}

/* Checks what every request of cfg needs; ECONFIG otherwise. */
static int
provider_check(const struct provider_cfg *c, struct provider_error *err)
{
	if (c == NULL || c->kind == PROVIDER_NONE) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no provider is configured");
		return -1;
	}
	if (c->model == NULL || *c->model == '\0') {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no model is set for the %s "
		    "provider", provider_kind_name(c->kind));
		return -1;
	}
	if ((c->key == NULL || *c->key == '\0') && (c->kind == PROVIDER_OPENAI ||
	    c->kind == PROVIDER_ANTHROPIC || c->kind == PROVIDER_GEMINI)) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no API key is set for the %s "
		    "provider", provider_kind_name(c->kind));
		return -1;
	}
	if (c->kind == PROVIDER_BEDROCK && (c->region == NULL || *c->region == '\0')) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no region is set for bedrock "
		    "(ai.llm.region, ai.embed.region for embeddings, or AWS_REGION)");
		return -1;
	}
	if (c->kind == PROVIDER_CUSTOM && (c->base_url == NULL || *c->base_url == '\0')) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no base URL is set for the custom "
		    "provider");
		return -1;
	}
	return 0;
}

/* Content-Type and the vendor's credential headers. */
static int
provider_auth_headers(const struct provider_cfg *c, struct provider_http *h)
{
	struct buf	 b;
	int		 rc = 0;
	int		 have = c->key != NULL && *c->key != '\0';

	if (provider_header(h, "Content-Type", "application/json") == -1)
		return -1;
	buf_init(&b);
	switch (c->kind) {
	case PROVIDER_ANTHROPIC:
		rc = provider_header(h, "x-api-key", c->key) == -1 ||
		    provider_header(h, "anthropic-version", "2023-06-01") == -1 ? -1 : 0;
		break;
	case PROVIDER_GEMINI:
		rc = provider_header(h, "x-goog-api-key", c->key);
		break;
	case PROVIDER_BEDROCK:
		if (provider_header(h, "Accept", "application/json") == -1)
			rc = -1;
		/* FALLTHROUGH */
	default:
		if (rc == 0 && have && (buf_printf(&b, "Bearer %s", c->key) == -1 ||
		    provider_header(h, "Authorization", b.p) == -1))
			rc = -1;
		break;
	}
	if (b.p != NULL)
		explicit_bzero(b.p, b.len);
	buf_release(&b);
	return rc;
}

/* Serialises obj (consumed) as compact JSON into h->body. */
static int
provider_set_body(struct provider_http *h, struct json_object *obj)
{
	const char	*s;

	if (obj == NULL)
		return -1;
	s = json_object_to_json_string_ext(obj,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s == NULL || (h->body = strdup(s)) == NULL) {
		json_object_put(obj);
		return -1;
	}
	h->bodylen = strlen(h->body);
	json_object_put(obj);
	return 0;
}

static struct json_object *
provider_jstr(const char *s)
{
	return json_object_new_string(s != NULL ? s : "");
}

/* {"key": value} with value consumed. */
static struct json_object *
provider_jobj1(const char *key, struct json_object *value)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, key, value);
	return o;
}

/* [{"text": s}] */
static struct json_object *
provider_jtextparts(const char *s)
{
	struct json_object *a = json_object_new_array();

	json_object_array_add(a, provider_jobj1("text", provider_jstr(s)));
	return a;
}

static struct json_object *
provider_chat_json(const struct provider_cfg *c, const char *system, const char *user)
{
	struct json_object	*o = json_object_new_object(), *msgs, *m;
	int			 sys = system != NULL && *system != '\0';

	msgs = json_object_new_array();
	switch (c->kind) {
	case PROVIDER_ANTHROPIC:
		json_object_object_add(o, "model", provider_jstr(c->model));
		json_object_object_add(o, "max_tokens",
		    json_object_new_int(PROVIDER_MAX_TOKENS));
		if (sys)
			json_object_object_add(o, "system", provider_jstr(system));
		m = provider_jobj1("role", provider_jstr("user"));
		json_object_object_add(m, "content", provider_jstr(user));
		json_object_array_add(msgs, m);
		json_object_object_add(o, "messages", msgs);
		break;
	case PROVIDER_GEMINI:
		if (sys)
			json_object_object_add(o, "systemInstruction",
			    provider_jobj1("parts", provider_jtextparts(system)));
		m = provider_jobj1("role", provider_jstr("user"));
		json_object_object_add(m, "parts", provider_jtextparts(user));
		json_object_array_add(msgs, m);
		json_object_object_add(o, "contents", msgs);
		break;
	case PROVIDER_BEDROCK:
		if (sys)
			json_object_object_add(o, "system", provider_jtextparts(system));
		m = provider_jobj1("role", provider_jstr("user"));
		json_object_object_add(m, "content", provider_jtextparts(user));
		json_object_array_add(msgs, m);
		json_object_object_add(o, "messages", msgs);
		break;
	default:
		json_object_object_add(o, "model", provider_jstr(c->model));
		if (sys) {
			m = provider_jobj1("role", provider_jstr("system"));
			json_object_object_add(m, "content", provider_jstr(system));
			json_object_array_add(msgs, m);
		}
		m = provider_jobj1("role", provider_jstr("user"));
		json_object_object_add(m, "content", provider_jstr(user));
		json_object_array_add(msgs, m);
		json_object_object_add(o, "messages", msgs);
		break;
	}
	return o;
}

int
provider_build_chat(const struct provider_cfg *c, const char *system, const char *user,
    struct provider_http *h, struct provider_error *err)
{
	struct buf	 u;
	int		 rc;

	memset(h, 0, sizeof(*h));
	if (provider_check(c, err) == -1)
		return -1;
	buf_init(&u);
	switch (c->kind) {
	case PROVIDER_ANTHROPIC:
		rc = provider_add_base(&u, c, "https://api.anthropic.com");
		if (rc == 0 && !util_str_endswith(u.p, "/v1/messages"))
			rc = buf_adds(&u, util_str_endswith(u.p, "/v1") ?
			    "/messages" : "/v1/messages");
		break;
	case PROVIDER_GEMINI:
		rc = provider_gemini_url(&u, c, "generateContent");
		break;
	case PROVIDER_BEDROCK:
		rc = provider_bedrock_url(&u, c, "converse");
		break;
	default:
		rc = provider_openai_url(&u, c, "chat/completions");
		break;
	}
	if (rc == -1 || (h->url = buf_detach(&u)) == NULL ||
	    provider_auth_headers(c, h) == -1 ||
	    provider_set_body(h, provider_chat_json(c, system, user)) == -1) {
		buf_release(&u);
		provider_http_release(h);
		provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		return -1;
	}
	return 0;
}

/* 1 when a bedrock embedding model takes cohere's {"texts": [...]} shape. */
static int
provider_is_cohere(const struct provider_cfg *c)
{
	return c->kind == PROVIDER_BEDROCK && c->model != NULL &&
	    strstr(c->model, "cohere.embed") != NULL;
}

size_t
provider_embed_batch(const struct provider_cfg *c)
{
	if (c->kind == PROVIDER_BEDROCK && !provider_is_cohere(c))
		return 1;
	return PROVIDER_EMBED_BATCH;
}

static struct json_object *
provider_embed_json(const struct provider_cfg *c, const char *const *texts, size_t n,
    enum provider_embed_use use)
{
	struct json_object	*o = json_object_new_object(), *a, *r;
	const char		*m = c->model;
	struct buf		 b;
	size_t			 i;

	a = json_object_new_array();
	switch (c->kind) {
	case PROVIDER_GEMINI:
		if (strncmp(m, "models/", 7) == 0)
			m += 7;
		buf_init(&b);
		buf_printf(&b, "models/%s", m);
		for (i = 0; i < n; i++) {
			r = provider_jobj1("model", provider_jstr(b.p));
			json_object_object_add(r, "content",
			    provider_jobj1("parts", provider_jtextparts(texts[i])));
			json_object_object_add(r, "taskType",
			    provider_jstr(use == PROVIDER_EMBED_QUERY ? "RETRIEVAL_QUERY" :
			    "RETRIEVAL_DOCUMENT"));
			json_object_array_add(a, r);
		}
		buf_release(&b);
		json_object_object_add(o, "requests", a);
		break;
	case PROVIDER_BEDROCK:
		if (!provider_is_cohere(c)) {
			json_object_put(a);
			json_object_object_add(o, "inputText", provider_jstr(texts[0]));
			break;
		}
		for (i = 0; i < n; i++)
			json_object_array_add(a, provider_jstr(texts[i]));
		json_object_object_add(o, "texts", a);
		json_object_object_add(o, "input_type",
		    provider_jstr(use == PROVIDER_EMBED_QUERY ? "search_query" :
		    "search_document"));
		break;
	default:
		json_object_object_add(o, "model", provider_jstr(m));
		for (i = 0; i < n; i++)
			json_object_array_add(a, provider_jstr(texts[i]));
		json_object_object_add(o, "input", a);
		break;
	}
	return o;
}

int
provider_build_embed(const struct provider_cfg *c, const char *const *texts, size_t n,
    enum provider_embed_use use, struct provider_http *h, struct provider_error *err)
{
	struct buf	 u;
	int		 rc;

	memset(h, 0, sizeof(*h));
	if (provider_check(c, err) == -1)
		return -1;
	if (c->kind == PROVIDER_ANTHROPIC) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "anthropic has no embedding API");
		return -1;
	}
	if (n == 0 || n > provider_embed_batch(c)) {
		provider_perr(err, PROVIDER_EINTERNAL, 0, "%zu texts in one embedding "
		    "request", n);
		return -1;
	}
	buf_init(&u);
	switch (c->kind) {
	case PROVIDER_GEMINI:
		rc = provider_gemini_url(&u, c, "batchEmbedContents");
		break;
	case PROVIDER_BEDROCK:
		rc = provider_bedrock_url(&u, c, "invoke");
		break;
	default:
		rc = provider_openai_url(&u, c, "embeddings");
		break;
	}
	if (rc == -1 || (h->url = buf_detach(&u)) == NULL ||
	    provider_auth_headers(c, h) == -1 ||
	    provider_set_body(h, provider_embed_json(c, texts, n, use)) == -1) {
		buf_release(&u);
		provider_http_release(h);
		provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ answers */

/* Parses body as a JSON object; EMALFORMED otherwise. */
static struct json_object *
provider_json(const char *body, size_t len, struct provider_error *err)
{
	struct json_tokener	*tok;
	struct json_object	*o;

	if ((tok = json_tokener_new()) == NULL) {
		provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, body, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
		provider_perr(err, PROVIDER_EMALFORMED, 0,
		    "malformed response: the answer is not a JSON object");
	}
	json_tokener_free(tok);
	return o;
}

static struct json_object *
provider_jget(struct json_object *o, const char *key, json_type type)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static struct json_object *
provider_jidx(struct json_object *a, size_t i, json_type type)
{
	struct json_object *v;

	if (a == NULL || !json_object_is_type(a, json_type_array) ||
	    i >= json_object_array_length(a))
		return NULL;
	v = json_object_array_get_idx(a, i);
	return v != NULL && json_object_is_type(v, type) ? v : NULL;
}

/* Appends the "text" of each element of parts; the count of texts found, -1 on ENOMEM. */
static int
provider_add_texts(struct buf *answer, struct json_object *parts)
{
	struct json_object	*t;
	size_t			 i;
	int			 found = 0;

	for (i = 0; parts != NULL && i < json_object_array_length(parts); i++) {
		if ((t = provider_jget(provider_jidx(parts, i, json_type_object), "text",
		    json_type_string)) == NULL)
			continue;
		if (buf_adds(answer, json_object_get_string(t)) == -1)
			return -1;
		found++;
	}
	return found;
}

int
provider_parse_chat(enum provider_kind kind, const char *body, size_t len,
    struct buf *answer, struct provider_error *err)
{
	struct json_object	*o, *v, *parts = NULL;
	const char		*why = "no text in the answer";
	int			 rc = -1, n;

	if ((o = provider_json(body, len, err)) == NULL)
		return -1;
	switch (kind) {
	case PROVIDER_ANTHROPIC:
		parts = provider_jget(o, "content", json_type_array);
		break;
	case PROVIDER_GEMINI:
		v = provider_jidx(provider_jget(o, "candidates", json_type_array), 0,
		    json_type_object);
		parts = provider_jget(provider_jget(v, "content", json_type_object), "parts",
		    json_type_array);
		if (parts == NULL && (v = provider_jget(provider_jget(o, "promptFeedback",
		    json_type_object), "blockReason", json_type_string)) != NULL) {
			provider_perr(err, PROVIDER_EREQUEST, 200, "the prompt was blocked "
			    "(%s)", json_object_get_string(v));
			goto out;
		}
		break;
	case PROVIDER_BEDROCK:
		v = provider_jget(provider_jget(o, "output", json_type_object), "message",
		    json_type_object);
		parts = provider_jget(v, "content", json_type_array);
		break;
	default:
		v = provider_jidx(provider_jget(o, "choices", json_type_array), 0,
		    json_type_object);
		v = provider_jget(v, "message", json_type_object);
		if ((parts = provider_jget(v, "content", json_type_string)) != NULL) {
			if (buf_adds(answer, json_object_get_string(parts)) == -1)
				goto nomem;
			rc = 0;
			goto out;
		}
		if (provider_jget(v, "refusal", json_type_string) != NULL)
			why = "the model refused to answer";
		parts = NULL;
		break;
	}
	if ((n = provider_add_texts(answer, parts)) == -1)
		goto nomem;
	if (n > 0) {
		rc = 0;
		goto out;
	}
	provider_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: %s", why);
	goto out;
nomem:
	provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
out:
	json_object_put(o);
	return rc;
}

/* Copies a JSON array of numbers into row (dim floats); *dim set when 0. */
static int
provider_vector(struct json_object *a, float **out, size_t n, size_t row, size_t *dim,
    struct provider_error *err)
{
	struct json_object	*x;
	size_t			 len, i;

	if (a == NULL || (len = json_object_array_length(a)) == 0) {
		provider_perr(err, PROVIDER_EMALFORMED, 200,
		    "malformed response: vector %zu is missing", row);
		return -1;
	}
	if (*out == NULL) {
		if (*dim == 0)
			*dim = len;
		if (*dim > PROVIDER_MAX_DIM) {
			provider_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: "
			    "%zu dimensions", *dim);
			return -1;
		}
		if ((*out = calloc(n * *dim, sizeof(float))) == NULL) {
			provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
			return -1;
		}
	}
	if (len != *dim) {
		provider_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: vector "
		    "%zu has %zu dimensions, not %zu", row, len, *dim);
		return -1;
	}
	for (i = 0; i < len; i++) {
		x = json_object_array_get_idx(a, i);
		if (x == NULL || !(json_object_is_type(x, json_type_double) ||
		    json_object_is_type(x, json_type_int))) {
			provider_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: "
			    "vector %zu holds a non-number", row);
			return -1;
		}
		(*out)[row * *dim + i] = (float)json_object_get_double(x);
	}
	return 0;
}

int
provider_parse_embed(const struct provider_cfg *c, const char *body, size_t len, size_t n,
    float **out, size_t *dim, struct provider_error *err)
{
	struct json_object	*o, *list = NULL, *e, *v;
	size_t			 i, row, count;
	unsigned char		*seen = NULL;
	int			 rc = -1;

	*out = NULL;
	if ((o = provider_json(body, len, err)) == NULL)
		return -1;
	if (c->kind == PROVIDER_BEDROCK && !provider_is_cohere(c)) {
		if (n != 1) {
			provider_perr(err, PROVIDER_EINTERNAL, 0, "titan embeds one text a "
			    "request");
			goto out;
		}
		rc = provider_vector(provider_jget(o, "embedding", json_type_array), out, 1,
		    0, dim, err);
		goto out;
	}
	switch (c->kind) {
	case PROVIDER_GEMINI:
		list = provider_jget(o, "embeddings", json_type_array);
		break;
	case PROVIDER_BEDROCK:
		if ((list = provider_jget(o, "embeddings", json_type_array)) == NULL)
			list = provider_jget(provider_jget(o, "embeddings",
			    json_type_object), "float", json_type_array);
		break;
	default:
		list = provider_jget(o, "data", json_type_array);
		break;
	}
	count = list != NULL ? json_object_array_length(list) : 0;
	if (count != n) {
		provider_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: %zu "
		    "vectors for %zu texts", count, n);
		goto out;
	}
	if ((seen = calloc(n, 1)) == NULL) {
		provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		row = i;
		switch (c->kind) {
		case PROVIDER_GEMINI:
			v = provider_jget(provider_jidx(list, i, json_type_object),
			    "values", json_type_array);
			break;
		case PROVIDER_BEDROCK:
			v = provider_jidx(list, i, json_type_array);
			break;
		default:
			e = provider_jidx(list, i, json_type_object);
			v = provider_jget(e, "embedding", json_type_array);
			if (provider_jget(e, "index", json_type_int) != NULL) {
				int64_t ix = json_object_get_int64(provider_jget(e, "index",
				    json_type_int));

				if (ix < 0 || (uint64_t)ix >= n) {
					provider_perr(err, PROVIDER_EMALFORMED, 200,
					    "malformed response: index %lld",
					    (long long)ix);
					goto out;
				}
				row = (size_t)ix;
			}
			break;
		}
		if (seen[row]) {
			provider_perr(err, PROVIDER_EMALFORMED, 200,
			    "malformed response: index %zu repeated", row);
			goto out;
		}
		seen[row] = 1;
		if (provider_vector(v, out, n, row, dim, err) == -1)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1) {
		free(*out);
		*out = NULL;
	}
	free(seen);
	json_object_put(o);
	return rc;
}

/* ------------------------------------------------------------ errors */

void
provider_vlogf(const char *key, void (*log)(void *, const char *, const char *), void *ctx,
    const char *level, const char *fmt, va_list ap)
{
	char	 line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (key != NULL && *key != '\0')
		provider_scrub(line, sizeof(line), key);
	if (log != NULL)
		log(ctx, level, line);
	else if (strcmp(level, "info") == 0)
		log_info("%s", line);
	else
		log_warn("%s", line);
}

void
provider_verrorf(const char *key, char *out, size_t outsz, const char *fmt, va_list ap)
{
	vsnprintf(out, outsz, fmt, ap);
	if (key != NULL && *key != '\0')
		provider_scrub(out, outsz, key);
}

void
provider_scrub(char *s, size_t sz, const char *secret)
{
	fetch_scrub(s, sz, secret);
}

/*
 * The vendor's error message in body (JSON or text), one line, into out, with each of the
 * NULL-terminated secrets removed before it is cut to size.
 */
static void
provider_vendor_message(const char *body, size_t len, const char *const *secrets,
    char *out, size_t outsz)
{
	char			 full[2048];
	struct json_tokener	*tok;
	struct json_object	*o = NULL, *v = NULL, *e;
	const char		*s = NULL;
	size_t			 i, j, n;

	out[0] = '\0';
	if (body == NULL || len == 0)
		return;
	if ((tok = json_tokener_new()) != NULL) {
		o = json_tokener_parse_ex(tok, body, (int)len);
		if (json_tokener_get_error(tok) != json_tokener_success) {
			json_object_put(o);
			o = NULL;
		}
		json_tokener_free(tok);
	}
	if (o != NULL) {
		e = provider_jget(o, "error", json_type_object);
		if ((v = provider_jget(e, "message", json_type_string)) == NULL &&
		    (v = provider_jget(o, "message", json_type_string)) == NULL &&
		    (v = provider_jget(o, "Message", json_type_string)) == NULL &&
		    (v = provider_jget(o, "error", json_type_string)) == NULL)
			v = provider_jget(o, "detail", json_type_string);
		if (v != NULL)
			s = json_object_get_string(v);
	}
	if (s != NULL)
		snprintf(full, sizeof(full), "%s", s);
	else
		snprintf(full, sizeof(full), "%.*s", (int)(len < 1024 ? len : 1024), body);
	json_object_put(o);
	for (i = 0; secrets != NULL && secrets[i] != NULL; i++)
		provider_scrub(full, sizeof(full), secrets[i]);
	n = strlen(full);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, full, n);
	out[n] = '\0';
	for (i = 0; secrets != NULL && secrets[i] != NULL; i++)
		fetch_scrub(out, outsz, secrets[i]);
	/* One printable line, runs of blanks collapsed. */
	for (i = j = 0; out[i] != '\0'; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c < 0x20 || c == 0x7f)
			c = ' ';
		if (c == ' ' && (j == 0 || out[j - 1] == ' '))
			continue;
		out[j++] = (char)c;
	}
	while (j > 0 && out[j - 1] == ' ')
		j--;
	out[j] = '\0';
}

/* provider_http_error with a NULL-terminated list of secrets. */
static void
provider_http_error_s(enum provider_kind kind, const char *model, long status,
    const char *body, size_t len, const char *const *secrets, struct provider_error *err)
{
	char	 msg[200], vendor[192];
	size_t	 i;
	int	 k;

	provider_vendor_message(body, len, secrets, vendor, sizeof(vendor));
	if (status == 401 || status == 403)
		k = PROVIDER_EAUTH;
	else if (status == 404)
		k = PROVIDER_EMODEL;
	else if (status == 429)
		k = PROVIDER_EQUOTA;
	else if (status >= 500)
		k = PROVIDER_ESERVER;
	else if (status == 408)
		k = PROVIDER_ETIMEOUT;
	else
		k = PROVIDER_EREQUEST;
	/* Vendors that say "bad key" or "bad model" with a 400. */
	if (status == 400 && body != NULL && (memmem(body, len, "API_KEY_INVALID", 15) ||
	    memmem(body, len, "API key not valid", 17)))
		k = PROVIDER_EAUTH;
	if (status == 400 && kind == PROVIDER_BEDROCK && body != NULL &&
	    memmem(body, len, "model identifier is invalid", 27))
		k = PROVIDER_EMODEL;
	switch (k) {
	case PROVIDER_EAUTH:
		snprintf(msg, sizeof(msg), "authentication failed: %s rejected the "
		    "credentials", provider_kind_name(kind));
		break;
	case PROVIDER_EMODEL:
		snprintf(msg, sizeof(msg), "model '%.64s' not found (or wrong endpoint)",
		    model != NULL ? model : "");
		break;
	case PROVIDER_EQUOTA:
		snprintf(msg, sizeof(msg), "quota or rate limit exceeded");
		break;
	case PROVIDER_ESERVER:
		snprintf(msg, sizeof(msg), "%s server error", provider_kind_name(kind));
		break;
	case PROVIDER_ETIMEOUT:
		snprintf(msg, sizeof(msg), "the provider timed out");
		break;
	default:
		snprintf(msg, sizeof(msg), "request rejected");
		break;
	}
	for (i = 0; secrets != NULL && secrets[i] != NULL; i++)
		provider_scrub(msg, sizeof(msg), secrets[i]);
	provider_perr(err, k, status, "%s (HTTP %ld)%s%s", msg, status, *vendor ? ": " : "",
	    vendor);
	for (i = 0; err != NULL && secrets != NULL && secrets[i] != NULL; i++)
		provider_scrub(err->message, sizeof(err->message), secrets[i]);
}

void
provider_http_error(enum provider_kind kind, const char *model, long status,
    const char *body, size_t len, const char *secret, struct provider_error *err)
{
	const char	*secrets[2] = { secret, NULL };

	provider_http_error_s(kind, model, status, body, len, secrets, err);
}

/* ------------------------------------------------------------ engine */

#define provider_now_ms	util_now_ms

/* One request of a run and, after it, its answer. */
struct provider_xfer {
	struct provider_http	 req;
	struct buf		 resp;
	size_t			 first, n;	/* texts of an embedding batch */
};

struct provider_run {
	const struct provider_cfg *cfg;
	struct aws_creds	 creds;
	int			 sign;		/* bedrock with AWS credentials */
	int			 signfail;	/* the signing hook failed */
	long			 budget_ms;
	const char		*secrets[5];
};

/* Releases a response buffer, zeroing it first (an error answer may echo a key). */
static void
provider_resp_release(struct buf *b)
{
	if (b->p != NULL)
		explicit_bzero(b->p, b->cap);
	buf_release(b);
}

/* r->secrets: the non-empty secrets of the run, NULL-terminated. */
static void
provider_secrets(struct provider_run *r)
{
	const char	*all[4];
	size_t		 i, n = 0;

	all[0] = r->cfg->key;
	all[1] = r->creds.secret_access_key;
	all[2] = r->creds.session_token;
	all[3] = r->creds.bearer_token;
	for (i = 0; i < 4; i++)
		if (all[i] != NULL && *all[i] != '\0')
			r->secrets[n++] = all[i];
	r->secrets[n] = NULL;
}

/* The fetch pretry hook of bedrock with AWS credentials: signs each try with SigV4. */
static int
provider_sign(void *arg, const struct fetch_req *fr, const char *url,
    struct curl_slist **hdrs, char *err, size_t errsz)
{
	struct provider_run	*r = arg;

	if (aws_sigv4_sign("POST", url, r->cfg->region, "bedrock", fr->headers, fr->body,
	    fr->bodylen, &r->creds, time(NULL), hdrs, err, errsz) == 0)
		return 0;
	r->signfail = 1;
	return -1;
}

/* The fetch request of x: a POST with the run's deadline, cap and retries. */
static void
provider_fetch_req(struct provider_run *r, struct provider_xfer *x, struct fetch_req *fr)
{
	size_t	 i;

	fetch_req_init(fr);
	fr->url = x->req.url;
	for (i = 0; i < x->req.nheaders && i < FETCH_MAX_HEADERS; i++) {
		fr->headers[i] = x->req.headers[i];
		if (r->cfg->key != NULL && *r->cfg->key != '\0' &&
		    strstr(x->req.headers[i], r->cfg->key) != NULL)
			fr->secret_headers |= 1u << i;
	}
	fr->method = "POST";
	fr->body = x->req.body;
	fr->bodylen = x->req.bodylen;
	fr->timeout_ms = r->budget_ms;
	fr->connect_ms = PROVIDER_CONNECT_MS;
	fr->max_size = (size_t)PROVIDER_MAX_ANSWER;
	fr->tries = PROVIDER_TRIES;
	fr->retry = FETCH_RETRY_HTTP | FETCH_RETRY_TRANSFER;
	if (r->sign) {
		fr->pretry = provider_sign;
		fr->pretry_arg = r;
	}
}

/* *err for the request that failed: a transfer failure or an answer other than 2xx. */
static void
provider_fetch_error(struct provider_run *r, const struct fetch_req *fr,
    struct provider_error *err)
{
	char	 host[128];

	fetch_host(fr->url, host, sizeof(host));
	switch (fr->result) {
	case FETCH_OK:
		provider_http_error_s(r->cfg->kind, r->cfg->model, fr->status,
		    fr->answer.p, fr->answer.len, r->secrets, err);
		break;
	case FETCH_EDNS:
		provider_perr(err, PROVIDER_EDNS, 0, "DNS: cannot resolve %s (%s)", host,
		    fr->error);
		break;
	case FETCH_ECONNECT:
	case FETCH_EPOLICY:
		provider_perr(err, PROVIDER_ECONNECT, 0, "cannot connect to %s (%s)", host,
		    fr->error);
		break;
	case FETCH_ETLS:
		provider_perr(err, PROVIDER_ETLS, 0, "TLS failure with %s (%s)", host,
		    fr->error);
		break;
	case FETCH_ETIMEOUT:
		provider_perr(err, PROVIDER_ETIMEOUT, 0, "timeout: no answer from %s within "
		    "%ld ms", host, r->budget_ms);
		break;
	case FETCH_ETOOBIG:
		provider_perr(err, PROVIDER_EMALFORMED, 0, "malformed response: larger "
		    "than %ld bytes", PROVIDER_MAX_ANSWER);
		break;
	case FETCH_EINTERNAL:
		if (r->signfail)
			provider_perr(err, PROVIDER_ECONFIG, 0, "cannot sign the request: "
			    "%s", fr->error);
		else
			provider_perr(err, PROVIDER_EINTERNAL, 0, "%s", fr->error);
		break;
	default:
		provider_perr(err, PROVIDER_ENETWORK, 0, "transfer with %s failed (%s)",
		    host, fr->error);
		break;
	}
}

/* Loads the AWS credentials of bedrock without an API key; registers the run's secrets. */
static int
provider_run_init(struct provider_run *r, struct fetch *f, struct provider_error *err)
{
	char	 aerr[512];
	size_t	 i;

	if (r->cfg->kind == PROVIDER_BEDROCK && (r->cfg->key == NULL ||
	    *r->cfg->key == '\0')) {
		if (aws_creds_load(r->cfg->region, &r->creds, aerr, sizeof(aerr)) == -1) {
			provider_perr(err, PROVIDER_EAUTH, 0, "no AWS credentials: %s",
			    aerr);
			return -1;
		}
		r->sign = 1;
	}
	provider_secrets(r);
	f->inflight = PROVIDER_INFLIGHT;
	f->failfast = 1;
	for (i = 0; r->secrets[i] != NULL; i++)
		(void)fetch_secret(f, r->secrets[i]);
	return 0;
}

/*
 * Runs the n requests of xs, PROVIDER_INFLIGHT at a time, with retries, until all have a
 * 2xx answer (0, each answer in xs[i].resp) or one fails or the deadline passes (-1, *err).
 */
static int
provider_run(const struct provider_cfg *c, struct provider_xfer *xs, size_t n,
    long deadline_ms, struct provider_error *err)
{
	struct provider_run	 r;
	struct fetch		 f;
	struct fetch_req	*frs = NULL;
	size_t			 i;
	int			 rc = -1;

	memset(&r, 0, sizeof(r));
	r.cfg = c;
	r.budget_ms = deadline_ms > 0 ? deadline_ms : 1;
	fetch_init(&f);
	if (provider_run_init(&r, &f, err) == -1)
		goto out;
	if ((frs = calloc(n, sizeof(*frs))) == NULL) {
		provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		provider_fetch_req(&r, &xs[i], &frs[i]);
	(void)fetch_run(&f, frs, n);
	rc = 0;
	for (i = 0; i < n && rc == 0; i++)
		if (frs[i].result != FETCH_ESTOPPED && (frs[i].result != FETCH_OK ||
		    frs[i].status < 200 || frs[i].status > 299)) {
			provider_fetch_error(&r, &frs[i], err);
			rc = -1;
		}
	for (i = 0; i < n; i++) {
		provider_resp_release(&xs[i].resp);
		xs[i].resp = frs[i].answer;
		buf_init(&frs[i].answer);
		fetch_req_release(&frs[i]);	/* the answer's headers and final URL */
	}
out:
	free(frs);
	fetch_release(&f);
	aws_creds_release(&r.creds);
	return rc;
}

static void
provider_xfers_free(struct provider_xfer *xs, size_t n)
{
	size_t	 i;

	for (i = 0; xs != NULL && i < n; i++) {
		provider_http_release(&xs[i].req);
		provider_resp_release(&xs[i].resp);
	}
	free(xs);
}

int
provider_chat(const struct provider_cfg *c, const char *system, const char *user,
    long deadline_ms, struct buf *answer, struct provider_error *err)
{
	struct provider_xfer	 x;
	int			 rc = -1;

	memset(&x, 0, sizeof(x));
	buf_init(&x.resp);
	if (provider_build_chat(c, system, user, &x.req, err) == -1)
		goto out;
	if (provider_run(c, &x, 1, deadline_ms, err) == -1)
		goto out;
	if (provider_parse_chat(c->kind, x.resp.p != NULL ? x.resp.p : "", x.resp.len,
	    answer, err) == -1)
		goto out;
	rc = 0;
out:
	provider_http_release(&x.req);
	provider_resp_release(&x.resp);
	return rc;
}

int
provider_embed(const struct provider_cfg *c, const char *const *texts, size_t n,
    enum provider_embed_use use, long deadline_ms, float **vectors, size_t *dim,
    struct provider_error *err)
{
	struct provider_xfer	*xs = NULL;
	float			*all = NULL, *part = NULL;
	size_t			 batch, nx, i, d = 0;
	int			 rc = -1;

	*vectors = NULL;
	*dim = 0;
	if (n == 0) {
		provider_perr(err, PROVIDER_EINTERNAL, 0, "no text to embed");
		return -1;
	}
	if (provider_check(c, err) == -1)
		return -1;
	batch = provider_embed_batch(c);
	nx = (n + batch - 1) / batch;
	if ((xs = calloc(nx, sizeof(*xs))) == NULL) {
		provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < nx; i++) {
		xs[i].first = i * batch;
		xs[i].n = n - xs[i].first < batch ? n - xs[i].first : batch;
		buf_init(&xs[i].resp);
		if (provider_build_embed(c, texts + xs[i].first, xs[i].n, use, &xs[i].req,
		    err) == -1)
			goto out;
	}
	if (provider_run(c, xs, nx, deadline_ms, err) == -1)
		goto out;
	for (i = 0; i < nx; i++) {
		if (provider_parse_embed(c, xs[i].resp.p != NULL ? xs[i].resp.p : "",
		    xs[i].resp.len, xs[i].n, &part, &d, err) == -1)
			goto out;
		if (all == NULL && (all = calloc(n * d, sizeof(float))) == NULL) {
			provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
			goto out;
		}
		memcpy(all + xs[i].first * d, part, xs[i].n * d * sizeof(float));
		free(part);
		part = NULL;
	}
	*vectors = all;
	*dim = d;
	all = NULL;
	rc = 0;
out:
	free(part);
	free(all);
	provider_xfers_free(xs, nx);
	return rc;
}

/* ------------------------------------------------------------ ctxd-admin provider test */

/* Describes cfg on one line: "openai, model M, endpoint URL". */
static void
provider_describe(FILE *out, const char *what, const struct provider_cfg *c,
    const struct provider_http *h)
{
	fprintf(out, "%s: %s, model %s", what, provider_kind_name(c->kind),
	    c->model != NULL ? c->model : "(unset)");
	if (c->kind == PROVIDER_BEDROCK)
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

/* For bedrock without an API key: which AWS credentials will be used. */
static void
provider_print_creds(FILE *out, const char *what, const struct provider_cfg *c)
{
	struct aws_creds	 cr;
	char			 aerr[512];

	if (c->kind != PROVIDER_BEDROCK)
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
	t0 = provider_now_ms();
	if (provider_chat(c, "You are a connectivity check. Answer with one word.",
	    "Reply with the word ok.", ms, &a, &e) == -1) {
		provider_print_fail(out, "llm", &e);
		goto out;
	}
	for (i = 0; i < a.len; i++)
		if ((unsigned char)a.p[i] < 0x20)
			a.p[i] = ' ';
	fprintf(out, "llm: ok in %lld ms: answered \"%.80s%s\"\n", provider_now_ms() - t0,
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
	t0 = provider_now_ms();
	if (provider_embed(c, texts, 2, PROVIDER_EMBED_DOCUMENT, ms, &v, &dim, &e) == -1) {
		provider_print_fail(out, "embed", &e);
		return 1;
	}
	fprintf(out, "embed: ok in %lld ms: 2 vectors of %zu dimensions\n",
	    provider_now_ms() - t0, dim);
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
			fprintf(out, "embed: none (%s): lexical retrieval only\n",
			    llm.kind == PROVIDER_ANTHROPIC ? "anthropic has no "
			    "embeddings; set ai.embed.provider" : "no embedding provider");
		else if (provider_test_embed(&emb, secs * 1000, out) != 0)
			rc = 1;
	}
	provider_cfg_release(&llm);
	provider_cfg_release(&emb);
	return rc;
}
