/*
 * fuzz-storage.c: the wiki storage-format parser (lib/parse/wikistorage.c: the cleaning copy into a
 * namespace-declaring root, libxml2's XML parser, the ac: hooks and html.c's walker) on
 * arbitrary bytes.
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

	if (doc_parse_as(DOC_FORMAT_STORAGE, "Page Title", (const char *)data, size, &d,
	    NULL) == 0)
		doc_release(&d);
	return 0;
}
