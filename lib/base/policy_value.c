/*
 * policy_value.c: the syntax of the policies' settings (policy.h): a list of library id
 * globs and a trust score. The settings (settings.c) check a value with it before storing
 * it; policy.c reads the stored values with it.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/policy_value.h"

double
policy_trust_value(const char *v)
{
	char	*end;
	double	 d;

	if (v == NULL || *v == '\0')
		return -1;
	errno = 0;
	d = strtod(v, &end);
	if (errno != 0 || *end != '\0' || end == v || !isfinite(d) || d < 0 ||
	    d > POLICY_MAX_TRUST)
		return -1;
	return d;
}

int
policy_check_trust(const char *v, char *err, size_t errsz)
{
	if (*v == '\0')
		return 0;
	if (!isdigit((unsigned char)*v) || policy_trust_value(v) < 0) {
		snprintf(err, errsz, "must be empty or a number from 0 to %d",
		    POLICY_MAX_TRUST);
		return -1;
	}
	return 0;
}

int
policy_each_glob(const char *list, int (*fn)(const char *, size_t, void *), void *arg)
{
	const char	*p = list, *e;
	size_t		 n;
	int		 r;

	while (p != NULL && *p != '\0') {
		p += strspn(p, " \t,");
		if (*p == '\0')
			break;
		e = strchr(p, ',');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if ((r = fn(p, n, arg)) != 0)
			return r;
		p = e;
	}
	return 0;
}

struct policy_globcheck {
	size_t	 count;
	char	*err;
	size_t	 errsz;
};

/* policy_each_glob callback: -1 (with the error) on a glob that is not valid. */
static int
policy_globcheck(const char *g, size_t n, void *arg)
{
	struct policy_globcheck	*c = arg;
	size_t			 i;

	if (++c->count > POLICY_MAX_GLOBS) {
		snprintf(c->err, c->errsz, "at most %d patterns", POLICY_MAX_GLOBS);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (g[i] <= ' ' || g[i] > '~') {
			snprintf(c->err, c->errsz, "pattern '%.*s' has a blank or a "
			    "character that is not printable ASCII", (int)(n > 64 ? 64 :
			    n), g);
			return -1;
		}
	return 0;
}

int
policy_check_globs(const char *list, char *err, size_t errsz)
{
	struct policy_globcheck	 c = { 0, err, errsz };

	return policy_each_glob(list, policy_globcheck, &c) != 0 ? -1 : 0;
}
