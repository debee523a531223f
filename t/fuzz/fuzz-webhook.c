/*
 * fuzz-webhook.c: what ctxd-hook does with a delivery's bytes (lib/sources/ghapp.c): the push
 * event's decision (json-c, then the repository URLs through libcurl's URL API and the
 * ref) and the X-Hub-Signature-256 check. The first byte picks the configured branch
 * ("", "main", "a/b"); the rest is the body, and its first 80 bytes the signature header.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/ghapp.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const branches[] = { "", "main", "a/b" };
	char		 why[128], hdr[81];
	size_t		 n;

	if (size == 0)
		return 0;
	(void)ghapp_push_match((const char *)data + 1, size - 1,
	    "https://github.com/acme/manifest", branches[data[0] % 3], why, sizeof(why));
	n = size - 1 < sizeof(hdr) - 1 ? size - 1 : sizeof(hdr) - 1;
	memcpy(hdr, data + 1, n);
	hdr[n] = '\0';
	(void)ghapp_signature_ok("secret", data, size, hdr);
	return 0;
}
