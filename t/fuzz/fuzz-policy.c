/*
 * fuzz-policy.c: the policies' lists and decision (lib/sources/policy.c) on arbitrary bytes:
 * "BLOCK\nALLOW\nMINTRUST\nLIBRARYID", where BLOCK and ALLOW are comma-separated globs;
 * the first byte picks the source type word and the reported trust. The lists are checked
 * (policy_check_globs, policy_check_trust), decided on whether valid or not
 * (policy_decide, which must stay linear), and shown as the API shows them (policy_json).
 * LIBRARYID is normalised (libid_normalize): the normal form must be a fixed point, its
 * key the id with owner and name in lower case, and a key must get the same decision.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "sources/libid.h"
#include "sources/policy.h"

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

/*
 * The normal form of id: a fixed point (normalising id or key again gives the same), key
 * is id with owner and name in lower case, and id, its normal form and its key get the
 * same decision r. Aborts (a finding) when not.
 */
static void
libid_check_invariants(const struct policy *p, const char *id, const char *type,
    double trust, int r)
{
	struct libid	 l, again;
	char		 err[400], why[256];
	size_t		 i;

	if (libid_normalize(id, &l, err, sizeof(err)) != 0)
		return;
	if (libid_normalize(l.id, &again, err, sizeof(err)) != 0 ||
	    strcmp(again.id, l.id) != 0 || strcmp(again.key, l.key) != 0) {
		fprintf(stderr, "normal form of '%s' is not a fixed point\n", id);
		abort();
	}
	libid_release(&again);
	if (libid_normalize(l.key, &again, err, sizeof(err)) != 0 ||
	    strcmp(again.id, l.key) != 0 || strcmp(again.key, l.key) != 0) {
		fprintf(stderr, "key of '%s' is not a fixed point\n", id);
		abort();
	}
	libid_release(&again);
	for (i = 0; l.id[i] != '\0'; i++)
		if (l.key[i] != (i < l.baselen && l.id[i] >= 'A' && l.id[i] <= 'Z' ?
		    l.id[i] - 'A' + 'a' : l.id[i])) {
			fprintf(stderr, "key of '%s' is not its id in lower case\n", id);
			abort();
		}
	if (policy_decide(p, l.id, type, trust, why, sizeof(why)) != r ||
	    policy_decide(p, l.key, type, trust, why, sizeof(why)) != r) {
		fprintf(stderr, "'%s' and its normal form are decided differently\n", id);
		abort();
	}
	libid_release(&l);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "git", "website", "llms.txt", "OpenAPI",
	    "confluence", NULL, "GitHub", "" };
	struct policy	 p;
	json_object	*o;
	char		*buf, *s, *trust, *id, why[256], err[256];
	double		 trustv;
	size_t		 i;
	int		 r;

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
	id = next_line(&s);
	trustv = (data[0] & 0x80) ? -1 : (double)(data[0] & 0x7f) / 10;
	r = policy_decide(&p, id, types[data[0] % 8], trustv, why, sizeof(why));
	libid_check_invariants(&p, id, types[data[0] % 8], trustv, r);
	if ((o = policy_json(&p)) != NULL)
		json_object_put(o);
	free(buf);
	return 0;
}
