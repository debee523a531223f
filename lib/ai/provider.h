/*
 * provider.h: the AI providers (LLM chat and embeddings) over HTTPS (through fetch.c).
 *
 * Vendors (ai/vendors/, one file each behind struct ai_vendor, ai/vendor.h): openai,
 * anthropic (chat only), gemini, bedrock (Converse and InvokeModel, signed with AWS SigV4 by
 * aws.c, or a Bedrock API key as a bearer token) and custom (any OpenAI-compatible
 * endpoint). Requests carry only what the vendor needs: the model, the
 * texts, and (anthropic) max_tokens. Remote failures are reported in struct provider_error
 * with a classified kind and a human message from which every secret has been removed;
 * they are not logged here (the caller decides: job log line, fallback, CLI output).
 */
#ifndef PROVIDER_H
#define PROVIDER_H

#include <stddef.h>
#include <stdio.h>

struct ai_vendor;
struct buf;

/* A resolved configuration (one for the LLM, one for embeddings). Strings malloc'd or NULL. */
struct provider_cfg {
	const struct ai_vendor *vendor;	/* NULL: none configured (ai/vendor.h) */
	char	*key;		/* API key; bedrock: an API key (bearer), else AWS credentials */
	char	*model;		/* the setting, or the vendor's default */
	char	*region;	/* bedrock only */
	char	*base_url;	/* NULL: the vendor's public endpoint */
};

enum provider_errkind {
	PROVIDER_OK = 0,
	PROVIDER_ECONFIG,	/* missing model, key, region ...; nothing was sent */
	PROVIDER_EDNS,		/* the host name does not resolve */
	PROVIDER_ECONNECT,	/* connection refused or unreachable */
	PROVIDER_ETLS,		/* TLS handshake or certificate */
	PROVIDER_ETIMEOUT,	/* the deadline passed */
	PROVIDER_EAUTH,		/* HTTP 401/403 */
	PROVIDER_EMODEL,	/* HTTP 404: model (or endpoint) not found */
	PROVIDER_EQUOTA,	/* HTTP 429: rate limit or quota */
	PROVIDER_ESERVER,	/* HTTP 5xx */
	PROVIDER_EREQUEST,	/* another HTTP 4xx */
	PROVIDER_EMALFORMED,	/* the answer is not the vendor's documented shape */
	PROVIDER_ENETWORK,	/* another transfer failure */
	PROVIDER_EINTERNAL	/* out of memory and the like */
};

struct provider_error {
	int	 kind;		/* enum provider_errkind */
	long	 status;	/* HTTP status, 0 when none was received */
	char	 message[512];	/* one line, never contains a secret */
};

/* What an embedding is for (cohere input_type, gemini taskType). */
enum provider_embed_use {
	PROVIDER_EMBED_DOCUMENT = 0,
	PROVIDER_EMBED_QUERY
};

/* Most texts in one embedding request. */
#define PROVIDER_EMBED_BATCH	96
/* Embedding requests in flight at once. */
#define PROVIDER_INFLIGHT	4
/* Tries of one request (first + retries) on 429, 5xx and transfer timeouts. */
#define PROVIDER_TRIES		4
/* max_tokens of an anthropic request (the only vendor that requires it). */
#define PROVIDER_MAX_TOKENS	1024

/* The vendor's name ("openai" ...); "none" for NULL. */
const char *provider_vendor_name(const struct ai_vendor *);
/* The vendor named s into *out (NULL for "" or NULL: none): 0; -1 when s names none. */
int	 provider_vendor_parse(const char *s, const struct ai_vendor **out);
/* 1 when vendor v has an embedding API. */
int	 provider_has_embed(const struct ai_vendor *v);
/* Short name of an error kind ("auth", "timeout", ...). */
const char *provider_errkind_name(int);

/* Frees the strings, zeroing the key first. */
void	 provider_cfg_release(struct provider_cfg *);

/*
 * One chat completion: system (may be NULL) and user text in, the assistant's text in
 * *answer (appended). deadline_ms is the time budget from now for everything, retries
 * included. 0, or -1 with *err filled.
 */
int	 provider_chat(const struct provider_cfg *, const char *system, const char *user,
	    long deadline_ms, struct buf *answer, struct provider_error *err);

/*
 * Embeds n texts: batches of PROVIDER_EMBED_BATCH (bedrock titan: one text a request),
 * up to PROVIDER_INFLIGHT requests in flight, retries with backoff within deadline_ms.
 * *vectors (malloc'd, n * *dim floats, row i for texts[i]) and *dim on success; on failure
 * nothing is returned and *err says why (the first failure stops the others).
 */
int	 provider_embed(const struct provider_cfg *, const char *const *texts, size_t n,
	    enum provider_embed_use, long deadline_ms, float **vectors, size_t *dim,
	    struct provider_error *err);

/* ------------------------------------------------ exposed for the unit tests */

/* An unsigned HTTP POST request. */
struct provider_http {
	char	*url;
	char	*headers[6];	/* "Name: value" (malloc'd); the credential ones included */
	size_t	 nheaders;
	char	*body;
	size_t	 bodylen;
};

void	 provider_http_release(struct provider_http *);
/* The chat request for cfg (URL, headers with the key, exact JSON body). */
int	 provider_build_chat(const struct provider_cfg *, const char *system,
	    const char *user, struct provider_http *, struct provider_error *);
/* The embedding request for texts[0..n) (n within the vendor's batch size). */
int	 provider_build_embed(const struct provider_cfg *, const char *const *texts,
	    size_t n, enum provider_embed_use, struct provider_http *,
	    struct provider_error *);
/* The assistant's text of a 2xx chat answer, appended to *answer. */
int	 provider_parse_chat(const struct ai_vendor *, const char *body, size_t len,
	    struct buf *answer, struct provider_error *);
/*
 * The n vectors of a 2xx embedding answer: *out (malloc'd, n * *dim floats). *dim, when
 * non-zero on entry, is the dimension the vectors must have; else it is set.
 */
int	 provider_parse_embed(const struct provider_cfg *, const char *body, size_t len,
	    size_t n, float **out, size_t *dim, struct provider_error *);
/*
 * Fills *err for an HTTP error answer: kind from the status, message from the vendor's
 * error JSON (or text), scrubbed of secret (may be NULL).
 */
void	 provider_http_error(const struct ai_vendor *, const char *model, long status,
	    const char *body, size_t len, const char *secret, struct provider_error *);
/* Replaces every occurrence of secret in s (NUL-terminated, in place) with "[redacted]". */
void	 provider_scrub(char *s, size_t sz, const char *secret);
/*
 * For the batch steps that call a provider (embedder.c, describe.c): formats a line,
 * scrubs key (when not NULL or empty) from it, and hands it to log(ctx, level, line), or
 * to the process log when log is NULL (level "info" or "warning").
 */
void	 provider_vlogf(const char *key, void (*log)(void *, const char *, const char *),
	    void *ctx, const char *level, const char *fmt, va_list);
/* Formats into out (outsz bytes), scrubbed of key: a failure's reason for a stats struct. */
void	 provider_verrorf(const char *key, char *out, size_t outsz, const char *fmt, va_list);
/* Texts per request for cfg (PROVIDER_EMBED_BATCH, or 1 for bedrock titan). */
size_t	 provider_embed_batch(const struct provider_cfg *);

#endif
