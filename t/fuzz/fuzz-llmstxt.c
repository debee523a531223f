/*
 * fuzz-llmstxt.c: the llms.txt structure parser and the splitter of expanded llms files
 * (lib/parse/llmstxt.c) on arbitrary bytes; every link and part must lie in the input and be
 * bounded.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/llmstxt.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct llmstxt		 t;
	struct llmstxt_parts	 p;
	size_t			 i;

	if (llmstxt_parse((const char *)data, size, &t) == 0) {
		for (i = 0; i < t.nlinks; i++)
			if (t.links[i].url == NULL ||
			    strlen(t.links[i].url) > LLMSTXT_MAX_FIELD)
				abort();
		llmstxt_release(&t);
	}
	if (llmstxt_split((const char *)data, size, &p) == 0) {
		for (i = 0; i < p.n; i++)
			if (p.v[i].off > size || p.v[i].len > size - p.v[i].off)
				abort();
		llmstxt_parts_release(&p);
	}
	return 0;
}
