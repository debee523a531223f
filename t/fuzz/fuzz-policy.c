/*
 * fuzz-policy.c: the policies' lists and decision (lib/policy.c) on arbitrary bytes:
 * "BLOCK\nALLOW\nMINTRUST\nLIBRARYID", where BLOCK and ALLOW are comma-separated globs;
 * the first byte picks the source type word and the reported trust. The lists are checked
 * (policy_check_globs, policy_check_trust), decided on whether valid or not
 * (policy_decide, which must stay linear), and shown as the API shows them (policy_json).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "ctxd.h"
#include "policy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The next '\n'-ended piece of *s (the rest when none), NUL-terminated in place. */
static char *
next_line(char **s)
{
	char	*p = *s, *nl;

	if (p == NULL)
		return (char *)"";
	if ((nl = strchr(p, '\n')) != NULL) {
		*nl = '\0';
		*s = nl + 1;
	} else
		*s = NULL;
	return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "git", "website", "llms.txt", "OpenAPI",
	    "confluence", NULL, "GitHub", "" };
	struct policy	 p;
	json_object	*o;
	char		*buf, *s, *trust, why[256], err[256];
	size_t		 i;

	if (size == 0 || (buf = malloc(size)) == NULL)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	s = buf;
	memset(&p, 0, sizeof(p));
	for (i = 0; i < POLICY_NTYPES; i++)
		p.types[i] = (data[0] >> i) & 1 ? 0 : 1;
	p.block = next_line(&s);
	p.allow = next_line(&s);
	trust = next_line(&s);
	(void)policy_check_globs(p.block, err, sizeof(err));
	(void)policy_check_globs(p.allow, err, sizeof(err));
	(void)policy_check_trust(trust, err, sizeof(err));
	p.min_trust = policy_trust_value(trust);
	(void)policy_decide(&p, next_line(&s), types[data[0] % 8],
	    (data[0] & 0x80) ? -1 : (double)(data[0] & 0x7f) / 10, why, sizeof(why));
	if ((o = policy_json(&p)) != NULL)
		json_object_put(o);
	free(buf);
	return 0;
}
