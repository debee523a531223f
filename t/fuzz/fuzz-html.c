/*
 * fuzz-html.c: the web page parser (lib/parse/html.c: libxml2's HTML parser, the choice of the
 * content container, the element walker, the section builder of lib/parse/doc.c) on arbitrary
 * bytes.
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

	if (doc_parse_as(DOC_FORMAT_HTML, "docs/page.html", (const char *)data, size, &d,
	    NULL) == 0)
		doc_release(&d);
	return 0;
}
