/*
 * netpolicy.c: the server's address policy. Reads the setting fetch.allowed_networks and
 * makes it the process-wide policy of lib/net/fetch.c, which libcurl (AI providers) and the
 * git transport (lib/sources/gitrepo.c) both ask before every connection; and the check of a
 * source that a caller adds against it (an address literal the policy refuses).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "net/fetch.h"
#include "store/netpolicy.h"
#include "store/settings.h"

/* The policy in force: fetch.c keeps a pointer to it. */
static struct fetch_policy netpolicy_cur;

int
netpolicy_load(struct db *db, const char *datadir)
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

/*
 * The address of host ("host[:port]", "[v6]:port" or a name) into ss when it is an IPv4
 * or IPv6 literal: 1, else 0.
 */
static int
netpolicy_literal(const char *host, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in	*in = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*in6 = (struct sockaddr_in6 *)ss;
	char			 a[256];
	const char		*end;
	size_t			 n;

	memset(ss, 0, sizeof(*ss));
	if (*host == '[') {
		if ((end = strchr(host, ']')) == NULL ||
		    (n = (size_t)(end - host - 1)) >= sizeof(a))
			return 0;
		memcpy(a, host + 1, n);
		a[n] = '\0';
		if ((end = strchr(a, '%')) != NULL)	/* a zone id */
			a[end - a] = '\0';
		if (inet_pton(AF_INET6, a, &in6->sin6_addr) != 1)
			return 0;
		in6->sin6_family = AF_INET6;
		*len = sizeof(*in6);
		return 1;
	}
	n = strcspn(host, ":");
	if (n >= sizeof(a))
		return 0;
	memcpy(a, host, n);
	a[n] = '\0';
	if (inet_pton(AF_INET, a, &in->sin_addr) != 1)
		return 0;
	in->sin_family = AF_INET;
	*len = sizeof(*in);
	return 1;
}

int
netpolicy_check_host(struct db *db, const char *datadir, const char *host, char *err,
    size_t errsz)
{
	struct sockaddr_storage	 ss;
	struct fetch_policy	 p;
	socklen_t		 len = 0;
	char			*v, addr[64], e[256];
	int			 ok;

	if (host == NULL || !netpolicy_literal(host, &ss, &len))
		return 0;
	v = settings_get(db, datadir, FETCH_POLICY_SETTING);
	if (fetch_policy_parse(v != NULL ? v : FETCH_POLICY_DEFAULT, &p, e,
	    sizeof(e)) == -1)
		memset(&p, 0, sizeof(p));	/* as netpolicy_load: public only */
	free(v);
	ok = fetch_policy_allow(&p, (struct sockaddr *)&ss, len);
	fetch_policy_release(&p);
	if (ok)
		return 0;
	fetch_addr_text((struct sockaddr *)&ss, addr, sizeof(addr));
	snprintf(err, errsz, "address %s of host %s is not allowed by "
	    FETCH_POLICY_SETTING ": the server reaches public addresses only, and the "
	    "networks an admin lists there", addr, host);
	return -1;
}
