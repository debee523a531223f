/*
 * ai/provider.c: the AI providers' core: the vendors' requests (ai/vendors/, one file each,
 * through struct ai_vendor) run through the fetch engine (fetch.c), their answers read,
 * errors classified with secrets scrubbed. The configuration comes from the settings
 * through store/aiconfig.c.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "ai/provider.h"
#include "ai/vendor.h"
#include "ai/wire.h"
#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "net/aws.h"
#include "net/fetch.h"

/* Largest answer read from a provider. */
#define PROVIDER_MAX_ANSWER	(64L * 1024 * 1024)
/* Longest connect phase of one try. */
#define PROVIDER_CONNECT_MS	10000

/* The vendors: one row each (ai/vendor.h says how to add one), NULL-terminated. */
static const struct ai_vendor *const ai_vendors[] = {
	&ai_vendor_openai,
	&ai_vendor_anthropic,
	&ai_vendor_gemini,
	&ai_vendor_bedrock,
	&ai_vendor_custom,
	NULL
};

const struct ai_vendor *
ai_vendor_at(size_t i)
{
	return i < sizeof(ai_vendors) / sizeof(ai_vendors[0]) ? ai_vendors[i] : NULL;
}

const char *
ai_vendor_choices(int embed)
{
	static char	 list[2][256];
	char		*out = list[embed != 0];
	size_t		 i, len;

	if (*out != '\0')
		return out;
	len = (size_t)snprintf(out, sizeof(list[0]), "%s", embed ? "same" : "");
	for (i = 0; ai_vendors[i] != NULL && len < sizeof(list[0]); i++)
		if (!embed || ai_vendors[i]->embed_url != NULL)
			len += (size_t)snprintf(out + len, sizeof(list[0]) - len, "%s%s",
			    len > 0 ? "|" : "", ai_vendors[i]->name);
	return out;
}

const char *
provider_vendor_name(const struct ai_vendor *v)
{
	return v != NULL ? v->name : "none";
}

int
provider_vendor_parse(const char *s, const struct ai_vendor **out)
{
	size_t	 i;

	*out = NULL;
	if (s == NULL || *s == '\0')
		return 0;
	for (i = 0; ai_vendors[i] != NULL; i++)
		if (strcmp(s, ai_vendors[i]->name) == 0) {
			*out = ai_vendors[i];
			return 0;
		}
	return -1;
}

int
provider_has_embed(const struct ai_vendor *v)
{
	return v != NULL && v->embed_url != NULL;
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

#define provider_perr	ai_perr

/* ------------------------------------------------------------ configuration */

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

/* Checks what every request of cfg needs; ECONFIG otherwise. */
static int
provider_check(const struct provider_cfg *c, struct provider_error *err)
{
	const struct ai_vendor *v = c != NULL ? c->vendor : NULL;

	if (v == NULL) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no provider is configured");
		return -1;
	}
	if (c->model == NULL || *c->model == '\0') {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no model is set for the %s "
		    "provider", v->name);
		return -1;
	}
	if ((v->needs & AI_NEEDS_KEY) && (c->key == NULL || *c->key == '\0')) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no API key is set for the %s "
		    "provider", v->name);
		return -1;
	}
	if ((v->needs & AI_NEEDS_REGION) && (c->region == NULL || *c->region == '\0')) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no region is set for %s "
		    "(ai.llm.region, ai.embed.region for embeddings, or AWS_REGION)",
		    v->name);
		return -1;
	}
	if ((v->needs & AI_NEEDS_BASE_URL) && (c->base_url == NULL ||
	    *c->base_url == '\0')) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no base URL is set for the %s "
		    "provider", v->name);
		return -1;
	}
	return 0;
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

/* The request: url (from build_url), Content-Type and the vendor's headers, body (consumed). */
static int
provider_build(const struct provider_cfg *c, const struct ai_vendor *v,
    int (*build_url)(const struct provider_cfg *, struct buf *), struct json_object *body,
    struct provider_http *h, struct provider_error *err)
{
	struct buf	 u;

	buf_init(&u);
	if (build_url(c, &u) == -1 || (h->url = buf_detach(&u)) == NULL ||
	    ai_header(h, "Content-Type", "application/json") == -1 ||
	    v->headers(c, h) == -1 || provider_set_body(h, body) == -1) {
		buf_release(&u);
		provider_http_release(h);
		provider_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		return -1;
	}
	return 0;
}

int
provider_build_chat(const struct provider_cfg *c, const char *system, const char *user,
    struct provider_http *h, struct provider_error *err)
{
	const struct ai_vendor *v;

	memset(h, 0, sizeof(*h));
	if (provider_check(c, err) == -1)
		return -1;
	v = c->vendor;
	return provider_build(c, v, v->chat_url, v->chat_body(c, system, user), h, err);
}

size_t
provider_embed_batch(const struct provider_cfg *c)
{
	const struct ai_vendor *v = c->vendor;

	return v != NULL && v->embed_batch != NULL ? v->embed_batch(c) :
	    PROVIDER_EMBED_BATCH;
}

int
provider_build_embed(const struct provider_cfg *c, const char *const *texts, size_t n,
    enum provider_embed_use use, struct provider_http *h, struct provider_error *err)
{
	const struct ai_vendor *v;

	memset(h, 0, sizeof(*h));
	if (provider_check(c, err) == -1)
		return -1;
	v = c->vendor;
	if (v->embed_url == NULL) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "%s has no embedding API", v->name);
		return -1;
	}
	if (n == 0 || n > provider_embed_batch(c)) {
		provider_perr(err, PROVIDER_EINTERNAL, 0, "%zu texts in one embedding "
		    "request", n);
		return -1;
	}
	return provider_build(c, v, v->embed_url, v->embed_body(c, texts, n, use), h, err);
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

int
provider_parse_chat(const struct ai_vendor *v, const char *body, size_t len,
    struct buf *answer, struct provider_error *err)
{
	struct json_object	*o;
	const char		*why = "no text in the answer";
	int			 rc;

	if (v == NULL) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no provider is configured");
		return -1;
	}
	if ((o = provider_json(body, len, err)) == NULL)
		return -1;
	if ((rc = v->chat_answer(o, answer, &why, err)) == 0)
		provider_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: %s", why);
	json_object_put(o);
	return rc == 1 ? 0 : -1;
}

int
provider_parse_embed(const struct provider_cfg *c, const char *body, size_t len, size_t n,
    float **out, size_t *dim, struct provider_error *err)
{
	const struct ai_vendor *v = c->vendor;
	struct json_object	*o;
	int			 rc;

	*out = NULL;
	if (v == NULL || v->embed_answer == NULL) {
		provider_perr(err, PROVIDER_ECONFIG, 0, "no embedding provider is "
		    "configured");
		return -1;
	}
	if ((o = provider_json(body, len, err)) == NULL)
		return -1;
	if ((rc = v->embed_answer(c, o, n, out, dim, err)) == -1) {
		free(*out);
		*out = NULL;
	}
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
		e = ai_jget(o, "error", json_type_object);
		if ((v = ai_jget(e, "message", json_type_string)) == NULL &&
		    (v = ai_jget(o, "message", json_type_string)) == NULL &&
		    (v = ai_jget(o, "Message", json_type_string)) == NULL &&
		    (v = ai_jget(o, "error", json_type_string)) == NULL)
			v = ai_jget(o, "detail", json_type_string);
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
provider_http_error_s(const struct ai_vendor *v, const char *model, long status,
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
	if (v != NULL && v->error_kind != NULL)
		k = v->error_kind(status, body, len, k);
	switch (k) {
	case PROVIDER_EAUTH:
		snprintf(msg, sizeof(msg), "authentication failed: %s rejected the "
		    "credentials", provider_vendor_name(v));
		break;
	case PROVIDER_EMODEL:
		snprintf(msg, sizeof(msg), "model '%.64s' not found (or wrong endpoint)",
		    model != NULL ? model : "");
		break;
	case PROVIDER_EQUOTA:
		snprintf(msg, sizeof(msg), "quota or rate limit exceeded");
		break;
	case PROVIDER_ESERVER:
		snprintf(msg, sizeof(msg), "%s server error", provider_vendor_name(v));
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
provider_http_error(const struct ai_vendor *v, const char *model, long status,
    const char *body, size_t len, const char *secret, struct provider_error *err)
{
	const char	*secrets[2] = { secret, NULL };

	provider_http_error_s(v, model, status, body, len, secrets, err);
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

	if (aws_sigv4_sign("POST", url, r->cfg->region,
	    r->cfg->vendor->aws_service, fr->headers, fr->body, fr->bodylen,
	    &r->creds, time(NULL), hdrs, err, errsz) == 0)
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
		provider_http_error_s(r->cfg->vendor, r->cfg->model, fr->status,
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

	if (r->cfg->vendor->aws_service != NULL && (r->cfg->key == NULL ||
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
	if (provider_parse_chat(c->vendor, x.resp.p != NULL ? x.resp.p : "", x.resp.len,
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
