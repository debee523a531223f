/* netpolicy.h: the address policy of outbound connections, as the settings say. */
#ifndef NETPOLICY_H
#define NETPOLICY_H

#include <stddef.h>

struct db;

/*
 * Reads the setting fetch.allowed_networks (lib/net/fetch.h, fetch_policy_allow) and makes it
 * the process-wide address policy of every outbound connection (fetch_policy_use): call
 * it before connecting anywhere, and again to pick up a change. An unreadable value is
 * logged and leaves public addresses only (-1); else 0.
 */
int	 netpolicy_load(struct db *, const char *datadir);
/*
 * A source that a caller adds, before it is stored: -1 with err naming
 * fetch.allowed_networks when host ("host[:port]") is an address literal that the policy
 * refuses (a name is judged when the job resolves it); else 0.
 */
int	 netpolicy_check_host(struct db *, const char *datadir, const char *host,
	    char *err, size_t errsz);

#endif /* NETPOLICY_H */
