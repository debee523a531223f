/*
 * fuzz-cliedit.c: the editors of the ctxd client tool (config.toml, JSON configuration,
 * AGENTS.md blocks) on arbitrary bytes. The first byte picks the editor and whether a key
 * is written. Besides not crashing, every edit that succeeds must be a fixed point: editing
 * its output again succeeds and changes nothing (what makes a second ctxd setup
 * byte-identical); a violation aborts.
 *
 * fuzz-sources: cli/jsonedit.c cli/tomledit.c cli/blockedit.c
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "../../cli/cli.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
fuzz_edit(int which, int key, const char *in, size_t len, char **out)
{
	json_object	*e;
	char		 err[512];

	switch (which) {
	case 0:
		return tomledit_set(in, len, "ctxd", "http://h:1/mcp", "Authorization",
		    key ? "Bearer k" : NULL, out, err, sizeof(err));
	case 1:
		e = json_object_new_object();
		json_object_object_add(e, "url", json_object_new_string("http://h:1/mcp"));
		return jsonedit_set(in, len, key ? "mcpServers" : "mcp", "ctxd", e, out, err,
		    sizeof(err));
	default:
		return blockedit_set(in, len, "<!-- ctxd:begin -->", "<!-- ctxd:end -->",
		    key ? "rule\n" : "", out, err, sizeof(err));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*in, *a = NULL, *b = NULL;
	int	 which, key;

	if (size == 0)
		return 0;
	which = data[0] % 3;
	key = (data[0] / 3) % 2;
	/* ctxd setup refuses files holding NUL bytes before editing them */
	if (memchr(data + 1, '\0', size - 1) != NULL || (in = malloc(size)) == NULL)
		return 0;
	memcpy(in, data + 1, size - 1);
	in[size - 1] = '\0';
	if (fuzz_edit(which, key, in, size - 1, &a) == 0) {
		if (fuzz_edit(which, key, a, strlen(a), &b) != 0 || strcmp(a, b) != 0)
			abort();
	}
	free(a);
	free(b);
	free(in);
	return 0;
}
