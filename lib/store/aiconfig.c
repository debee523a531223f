/*
 * store/aiconfig.c: the AI providers' configuration as the ai.* settings say (as netpolicy.c
 * is the address policy's): the one place that reads them for ai/provider.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ai/provider.h"
#include "ai/vendor.h"
#include "base/log.h"
#include "store/aiconfig.h"
#include "store/netpolicy.h"
#include "store/settings.h"

/* The setting's value, or NULL when unset or empty (malloc'd). */
static char *
aiconfig_setting(struct db *db, const char *datadir, const char *name)
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
aiconfig_dup(const char *s, const char *dflt)
{
	if (s == NULL)
		s = dflt;
	return s == NULL ? NULL : strdup(s);
}

int
aiconfig_load(struct db *db, const char *datadir, struct provider_cfg *llm,
    struct provider_cfg *embed)
{
	struct provider_cfg	 l, e;
	char			*lp = NULL, *ep = NULL, *lkey = NULL, *lmodel = NULL;
	char			*region = NULL, *lbase = NULL, *ekey = NULL, *emodel = NULL;
	char			*ebase = NULL, *eregion = NULL;
	const char		*env;
	int			 rc = -1;

	memset(&l, 0, sizeof(l));
	memset(&e, 0, sizeof(e));
	/* The calls to the providers go through the address policy, re-read with them. */
	netpolicy_load(db, datadir);
	lp = aiconfig_setting(db, datadir, "ai.llm.provider");
	ep = aiconfig_setting(db, datadir, "ai.embed.provider");
	lkey = aiconfig_setting(db, datadir, "ai.llm.api_key");
	lmodel = aiconfig_setting(db, datadir, "ai.llm.model");
	region = aiconfig_setting(db, datadir, "ai.llm.region");
	lbase = aiconfig_setting(db, datadir, "ai.llm.base_url");
	ekey = aiconfig_setting(db, datadir, "ai.embed.api_key");
	emodel = aiconfig_setting(db, datadir, "ai.embed.model");
	ebase = aiconfig_setting(db, datadir, "ai.embed.base_url");
	eregion = aiconfig_setting(db, datadir, "ai.embed.region");
	if (region == NULL && (env = getenv("AWS_REGION")) != NULL && *env != '\0')
		region = strdup(env);
	if (region == NULL && (env = getenv("AWS_DEFAULT_REGION")) != NULL &&
	    *env != '\0')
		region = strdup(env);

	if (provider_vendor_parse(lp, &l.vendor) == -1) {
		log_err("%s: unknown ai.llm.provider '%s'", __func__, lp);
		goto out;
	}
	if (ep == NULL || strcmp(ep, "same") == 0)
		e.vendor = provider_has_embed(l.vendor) ? l.vendor : NULL;
	else if (provider_vendor_parse(ep, &e.vendor) == -1 ||
	    !provider_has_embed(e.vendor)) {
		log_err("%s: unknown embedding provider '%s'", __func__, ep);
		goto out;
	}

	if (l.vendor != NULL) {
		l.key = aiconfig_dup(lkey, NULL);
		l.model = aiconfig_dup(lmodel, l.vendor->default_llm);
		l.region = aiconfig_dup(region, NULL);
		l.base_url = aiconfig_dup(lbase, NULL);
	}
	if (e.vendor != NULL) {
		int same = e.vendor == l.vendor;

		e.key = aiconfig_dup(ekey, same ? lkey : NULL);
		e.model = aiconfig_dup(emodel, e.vendor->default_embed);
		e.region = aiconfig_dup(eregion, region);
		e.base_url = aiconfig_dup(ebase, same ? lbase : NULL);
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
