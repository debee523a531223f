/*
 * tomledit-filter: a test helper (not a test) for t/t0620-cli-edit-fuzz.sh. Applies
 * tomledit_set to standard input (server ctxd, url http://h:1/mcp, and with an argument
 * the header Authorization = "Bearer k") and prints the result; on a refusal prints the
 * reason on standard error and exits 1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../cli/cli.h"
#include "base/buf.h"

int
main(int argc, char *argv[])
{
	struct buf	 in;
	char		 chunk[65536], *out, err[512];
	size_t		 n;

	(void)argv;
	buf_init(&in);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		if (buf_add(&in, chunk, n) == -1)
			return 2;
	if (in.p == NULL && buf_adds(&in, "") == -1)
		return 2;
	if (tomledit_set(in.p, in.len, "ctxd", "http://h:1/mcp", "Authorization",
	    argc > 1 ? "Bearer k" : NULL, &out, err, sizeof(err)) == -1) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	fputs(out, stdout);
	free(out);
	buf_release(&in);
	return 0;
}
