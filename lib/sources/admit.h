/*
 * sources/admit.h: who may add a source read with the instance's own credentials
 * (sources/admit.c).
 */
#ifndef SOURCES_ADMIT_H
#define SOURCES_ADMIT_H

#include <stddef.h>

struct db;

/* The switch that lets members add sources read with the instance's credentials. */
#define ADMIT_MEMBERS_SETTING	"perm.members_use_integrations"
/*
 * -1 with err naming ADMIT_MEMBERS_SETTING when a caller who is not an admin adds a
 * source of type read with the instance's integration credentials while the switch is
 * off: a wiki source (wiki.token), or a git repository on a host the instance holds a
 * token for (git.github.token, git.gitlab.token) or, on the GitHub-type host, the App;
 * else 0.
 */
int	 admit_integrations(struct db *, const char *datadir,
	    const char *type, const char *host, int admin, char *err, size_t errsz);

#endif
