/*
 * fuzz-mcp.c: a POST to /mcp as lib/mcp/mcp.c sees it: the body (JSON-RPC message or batch,
 * tool arguments) and, from the same bytes, the Origin, Accept, Content-Type and
 * MCP-Protocol-Version headers. The tools run for real (mcp_tools.c, lib/search/search.c) on a
 * temporary database holding one small library, /a/b, removed at exit.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/db-helpers.h"
#include "mcp/mcp.h"
#include "search/search.h"
#include "store/settings.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	LLVMFuzzerInitialize(int *, char ***);

static char		 fz_dir[512];
static struct mcp_ctx	 fz_ctx;

static void
fz_cleanup(void)
{
	search_close(fz_ctx.search);
	dbh_remove(fz_dir, fz_ctx.db);
}

/* The database, made at the first input; -1 when it cannot be. */
static int
fz_setup(void)
{
	static const struct dbh_snippet sn[] = {
		{ "Timeouts", "Pass timeout= to every request.", "[{\"language\":\"python\","
		    "\"code\":\"get(url, timeout=3)\"}]" },
		{ "Sessions", "A session keeps cookies.", "[]" }
	};
	static int	 state;
	char		 err[256];

	if (state != 0)
		return state;
	state = -1;
	if (dbh_open(fz_dir, sizeof(fz_dir), &fz_ctx.db) == -1 ||
	    settings_set(fz_ctx.db, fz_dir, "mcp.allowed_origins",
	    "https://x.example, http://y.example:8080", err, sizeof(err)) == -1 ||
	    dbh_library(fz_ctx.db, "/a/b", 1, "finalized", 1, sn, 2) == -1 ||
	    (fz_ctx.search = search_open(fz_ctx.db)) == NULL)
		return -1;
	atexit(fz_cleanup);
	state = 1;
	return 1;
}

/*
 * The database (and, for headers, the scrypt-hashed user) is made before fuzzing starts:
 * libFuzzer's -timeout applies to each input, and the setup is not the input's cost.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* A set-up that fails would make every input a no-op: stop loudly instead. */
	if (fz_setup() == -1) {
		fprintf(stderr, "%s: the fuzz target's set-up failed\n", __FILE__);
		abort();
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_req	 rq;
	struct mcp_reply rep;
	char		*s, *hdr;
	size_t		 n;

	if (fz_setup() == -1 || (s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* The first line (up to 200 bytes) doubles as every header value. */
	n = strcspn(s, "\n");
	if (n > 200)
		n = 200;
	if ((hdr = strndup(s, n)) == NULL) {
		free(s);
		return 0;
	}
	memset(&rq, 0, sizeof(rq));
	rq.content_type = "application/json";
	rq.accept = hdr;
	rq.origin = size % 3 == 0 ? hdr : NULL;
	rq.host = "example.com:3000";
	rq.forwarded_host = hdr;
	rq.protocol_version = size % 5 == 0 ? hdr : NULL;
	rq.body = s;
	rq.body_len = size;
	if (!mcp_check(&fz_ctx, &rq, &rep))
		mcp_handle(&fz_ctx, &rq, &rep);
	mcp_reply_release(&rep);
	rq.protocol_version = NULL;
	rq.accept = NULL;
	rq.origin = NULL;
	mcp_handle(&fz_ctx, &rq, &rep);
	mcp_reply_release(&rep);
	/* MCP 2026-07-28: the first line as Mcp-Method and Mcp-Name. */
	rq.protocol_version = "2026-07-28";
	rq.mcp_method = hdr;
	rq.mcp_name = hdr;
	mcp_handle(&fz_ctx, &rq, &rep);
	mcp_reply_release(&rep);
	mcp_origin_allowed(hdr, hdr, hdr, hdr, hdr);
	free(hdr);
	free(s);
	return 0;
}
