/*
 * fuzz-manifest.c: the GitOps manifest parser (lib/gitops/manifest.c: libyaml's loader, the
 * YAML-to-JSON conversion with its bounds, entry_parse on every entry, the error
 * positions) on arbitrary bytes. Seeds: t/fuzz/seeds/manifest (every validation case of
 * t/unit/test-manifest.c).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitops/manifest.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest	 m;
	size_t		 i;

	if (manifest_parse("repos.yaml", (const char *)data, size, &m) == 0) {
		/* A valid manifest has entries with ids and no errors. */
		for (i = 0; i < m.n; i++)
			if (m.entries[i].req.id[0] != '/')
				abort();
		if (m.nerrors != 0)
			abort();
	} else if (m.nerrors == 0 || m.n != 0)
		abort();
	manifest_release(&m);
	return 0;
}
