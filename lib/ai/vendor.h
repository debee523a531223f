/*
 * ai/vendor.h: what the provider core (ai/provider.c) asks of an AI vendor, one file each in
 * ai/vendors/ (as curl's struct Curl_ssl for its TLS back ends). A vendor builds its chat
 * and embedding requests (URL, credential headers, JSON body), reads their answers, and
 * says what its configuration needs; the core resolves the settings, runs the requests
 * through the fetch engine, classifies errors and scrubs secrets. Adding a vendor: its
 * file, its row of ai_vendors (ai/provider.c), its tests; the settings' choices of
 * ai.llm.provider and ai.embed.provider and the web UI's labels come from the table.
 */
#ifndef AI_VENDOR_H
#define AI_VENDOR_H

#include <stddef.h>

#include <json-c/json.h>

#include "ai/provider.h"

struct buf;

/* What a configuration of the vendor needs before anything is sent (ai_vendor.needs). */
#define AI_NEEDS_KEY		0x01	/* an API key */
#define AI_NEEDS_REGION		0x02	/* a region (bedrock) */
#define AI_NEEDS_BASE_URL	0x04	/* an endpoint (custom) */

struct ai_vendor {
	const char	*name;		/* the settings' value: "openai" */
	const char	*label;		/* for people: "OpenAI" */
	const char	*default_llm;	/* model when ai.llm.model is unset, or NULL */
	const char	*default_embed;	/* model when ai.embed.model is unset, or NULL */
	unsigned	 needs;		/* AI_NEEDS_* */
	unsigned	 takes;		/* AI_NEEDS_* of the settings a form offers for it
					   (needs and the optional ones) */
	const char	*aws_service;	/* not NULL: without a key, requests are signed with
					   AWS SigV4 for this service (the core loads the
					   credential chain, aws.c) */
	/* The vendor's headers after Content-Type: credentials and the like. */
	int		(*headers)(const struct provider_cfg *, struct provider_http *);
	/* Chat: the URL onto b, the JSON body, the assistant's text of a 2xx answer (appended
	 * to answer; 1 when text was found, 0 when none with *why saying so, -1 with err). */
	int		(*chat_url)(const struct provider_cfg *, struct buf *b);
	struct json_object *(*chat_body)(const struct provider_cfg *, const char *system,
			    const char *user);
	int		(*chat_answer)(struct json_object *root, struct buf *answer,
			    const char **why, struct provider_error *err);
	/* Embeddings (embed_url NULL: the vendor has none): texts per request, the URL, the
	 * body for texts[0..n), and the n vectors of a 2xx answer (*out: n * *dim floats;
	 * *dim, when non-zero on entry, is the dimension they must have). */
	size_t		(*embed_batch)(const struct provider_cfg *);
	int		(*embed_url)(const struct provider_cfg *, struct buf *b);
	struct json_object *(*embed_body)(const struct provider_cfg *,
			    const char *const *texts, size_t n, enum provider_embed_use);
	int		(*embed_answer)(const struct provider_cfg *, struct json_object *root,
			    size_t n, float **out, size_t *dim, struct provider_error *err);
	/* The error kind of an HTTP error answer, from the core's by status (may be NULL). */
	int		(*error_kind)(long status, const char *body, size_t len, int kind);
};

/* The vendors, one file each (ai/vendors/NAME.c). */
extern const struct ai_vendor ai_vendor_openai, ai_vendor_custom, ai_vendor_anthropic,
    ai_vendor_gemini, ai_vendor_bedrock;

/* The i-th vendor of the table (0, 1, ...), NULL past the last. */
const struct ai_vendor *ai_vendor_at(size_t i);
/*
 * The vendors' names as a settings choice list, "openai|anthropic|..." (embed 0), or for
 * embeddings "same|" and those that have an embedding API (embed 1). Static.
 */
const char *ai_vendor_choices(int embed);

#endif
