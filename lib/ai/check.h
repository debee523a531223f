/* ai/check.h: the provider check (ai/check.c). */
#ifndef AI_CHECK_H
#define AI_CHECK_H

#include <stdio.h>

struct sqlite3;

/*
 * ctxd-admin provider test [--timeout SECONDS] [--llm | --embed]: one real call to each
 * configured provider; prints one line per step to out, each failure with its class
 * (dns, connect, tls, timeout, auth, model, quota, server, ...). Returns the exit status:
 * 0 all configured checks passed, 1 one failed, 2 usage.
 */
int	 provider_cli_test(struct sqlite3 *, const char *datadir, int argc, char **argv,
	    FILE *out);

#endif
