/*
 * fuzz-rst.c: the reStructuredText parser (lib/parse/rst.c and the section builder of lib/parse/doc.c)
 * on arbitrary bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/parse.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doc	 d;

	if (rst_parse("docs/a.rst", (const char *)data, size, &d) == 0)
		doc_release(&d);
	return 0;
}
