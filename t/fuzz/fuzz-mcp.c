/*
 * fuzz-mcp.c: a POST to /mcp as lib/mcp.c sees it: the body (JSON-RPC message or batch,
 * tool arguments) and, from the same bytes, the Origin, Accept, Content-Type and
 * MCP-Protocol-Version headers. The backend is a stub answering every tool.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctxd.h"
#include "mcp.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
fz_libraries(void *arg, const char *name, const char *query, struct buf *out)
{
	(void)arg;
	(void)query;
	return buf_printf(out, "{\"results\":[{\"id\":\"/a/b\",\"title\":\"%zu\","
	    "\"totalSnippets\":3,\"trustScore\":5,\"versions\":[\"v1\"]}]}",
	    strlen(name));
}

static int
fz_context(void *arg, const char *libid, const char *query, long budget,
    struct buf *out)
{
	(void)arg;
	(void)budget;
	if (buf_printf(out, "### %s\n\n%s", libid, query) == -1)
		return -1;
	return strlen(query) % 2 ? 200 : 404;
}

static int
fz_auth_required(void *arg)
{
	(void)arg;
	return 0;
}

static int
fz_key_valid(void *arg, const char *authorization)
{
	(void)arg;
	return authorization[0] == 'B';
}

static char *
fz_allowed(void *arg)
{
	(void)arg;
	return strdup("https://x.example, *x");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct mcp_backend be = { NULL, fz_libraries, fz_context,
	    fz_auth_required, fz_key_valid, fz_allowed };
	struct mcp_req	 rq;
	struct mcp_reply rep;
	char		*s, *hdr;
	size_t		 n;

	if ((s = malloc(size + 1)) == NULL)
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
	rq.method = "POST";
	rq.content_type = "application/json";
	rq.accept = hdr;
	rq.origin = size % 3 == 0 ? hdr : NULL;
	rq.host = "example.com:3000";
	rq.forwarded_host = hdr;
	rq.protocol_version = size % 5 == 0 ? hdr : NULL;
	rq.x_api_key = hdr;
	rq.body = s;
	rq.body_len = size;
	if (!mcp_check(&be, &rq, &rep))
		mcp_handle(&be, &rq, &rep);
	mcp_reply_release(&rep);
	rq.protocol_version = NULL;
	rq.accept = NULL;
	rq.origin = NULL;
	mcp_handle(&be, &rq, &rep);
	mcp_reply_release(&rep);
	mcp_origin_allowed(hdr, hdr, hdr, hdr);
	free(hdr);
	free(s);
	return 0;
}
