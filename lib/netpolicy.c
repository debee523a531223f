/*
 * netpolicy.c: the server's address policy. Reads the setting fetch.allowed_networks and
 * makes it the process-wide policy of lib/fetch.c, which libcurl (AI providers) and the
 * git transport (lib/gitrepo.c) both ask before every connection.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ctxd.h"
#include "fetch.h"

/* The policy in force: fetch.c keeps a pointer to it. */
static struct fetch_policy netpolicy_cur;

int
netpolicy_load(sqlite3 *db, const char *datadir)
{
	struct fetch_policy	 p;
	char			*v, err[256];
	int			 rc = 0;

	v = settings_get(db, datadir, FETCH_POLICY_SETTING);
	if (fetch_policy_parse(v != NULL ? v : FETCH_POLICY_DEFAULT, &p, err,
	    sizeof(err)) == -1) {
		/* Fail closed: public addresses only. */
		log_err("%s: setting " FETCH_POLICY_SETTING ": %s; only public addresses "
		    "may be reached", __func__, err);
		memset(&p, 0, sizeof(p));
		rc = -1;
	}
	free(v);
	fetch_policy_use(NULL);
	fetch_policy_release(&netpolicy_cur);
	netpolicy_cur = p;
	fetch_policy_use(&netpolicy_cur);
	return rc;
}
