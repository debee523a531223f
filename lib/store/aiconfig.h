/* store/aiconfig.h: the AI providers' configuration as the settings say (store/aiconfig.c). */
#ifndef STORE_AICONFIG_H
#define STORE_AICONFIG_H

#include "ai/provider.h"

struct db;

/*
 * Resolves the ai.* settings: the LLM provider, and the embedding provider ("same" is the
 * LLM's vendor; anthropic has no embeddings, so it then resolves to none). The embedding
 * key, and the base URL, are inherited from the LLM's only when both use the same vendor;
 * the region is shared. An unset model gets the vendor's default (none for custom).
 * Either output may be NULL. Release each with provider_cfg_release (ai/provider.h).
 */
int	 aiconfig_load(struct db *, const char *datadir, struct provider_cfg *llm,
	    struct provider_cfg *embed);

#endif /* STORE_AICONFIG_H */
