/*
 * admin/provcheck.h: the provider check of `ctxd-admin provider test`, the web UI's "Test"
 * buttons (POST /api/providers/test) and `ctxd-admin doctor`: one real call to each
 * configured AI provider (ai/provider.h), reported as lines of text, one a step, each failure
 * with its class (dns, connect, tls, timeout, auth, model, quota, server, ...). The caller
 * prints or sends them; nothing here writes to a stream.
 */
#ifndef ADMIN_PROVCHECK_H
#define ADMIN_PROVCHECK_H

#include <stddef.h>

struct db;

#define PROVCHECK_LINES_MAX	16	/* lines of one check (it makes at most 8) */
#define PROVCHECK_LINE_MAX	1024	/* bytes of one line, NUL included */

struct provcheck {
	int	 llm, embed;		/* what to check (both 0: both) */
	long	 timeout_ms;		/* of each call */
	/* The report: */
	char	 lines[PROVCHECK_LINES_MAX][PROVCHECK_LINE_MAX];
	size_t	 nlines;
};

/*
 * Runs the check of c->llm / c->embed with the saved ai.* settings, filling c->lines.
 * Returns 0 when every configured check passed (a provider not configured passes: its line
 * says so), 1 when one failed or the settings could not be read (a line says which).
 */
int	 provcheck_run(struct db *, const char *datadir, struct provcheck *c);

#endif /* ADMIN_PROVCHECK_H */
