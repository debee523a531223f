/*
 * admit.c: who may add a source read with the instance's own credentials. A wiki space is
 * read with wiki.token, a repository on a host the instance holds a token for (or, on the
 * GitHub-type host, its GitHub App) with those: members may add them only when an admin
 * turns on perm.members_use_integrations. Above the back ends whose credentials it asks
 * about (gitsrc.c, ghapp.c); called where a caller adds a source.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/admit.h"
#include "sources/backend.h"
#include "sources/ghapp.h"
#include "store/settings.h"

int
admit_integrations(struct db *db, const char *datadir, const char *type,
    const char *host, int admin, char *err, size_t errsz)
{
	char		*user = NULL, *token = NULL;
	const char	*kind;
	int		 creds, app = 0;

	if (admin || type == NULL || settings_get_bool(db, ADMIT_MEMBERS_SETTING, 0))
		return 0;
	if (strcmp(type, "wiki") == 0) {
		snprintf(err, errsz, "a wiki source is read with the instance's wiki "
		    "credentials (wiki.token): only an admin may add one, unless an admin "
		    "turns on " ADMIT_MEMBERS_SETTING);
		return -1;
	}
	if (strcmp(type, "git") != 0 || host == NULL)
		return 0;
	creds = ghapp_host_credentials(db, datadir, host, &user, &token, &kind);
	if (token != NULL)
		explicit_bzero(token, strlen(token));
	free(token);
	free(user);
	if (strcmp(kind, "github") == 0 && ghapp_configured(db, datadir))
		app = 1;
	if (!creds && !app)
		return 0;
	snprintf(err, errsz, "repositories on %s are cloned with the instance's %s: only "
	    "an admin may add one, unless an admin turns on " ADMIT_MEMBERS_SETTING,
	    host, app ? "GitHub App (git.github.app_id)" : strcmp(kind, "github") == 0 ?
	    "token git.github.token" : "token git.gitlab.token");
	return -1;
}
