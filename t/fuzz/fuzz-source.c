/*
 * fuzz-source.c: the doc comments of source files (lib/parse/code.c: the lexer, the naming of
 * items, the Markdown fragments, the examples as code, the overview of a file with little
 * documentation) and select_generated on arbitrary bytes. The first byte picks the
 * language; its high bit asks for the overview.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/code.h"
#include "parse/doc.h"
#include "parse/parse.h"
#include "sources/select.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {
		"axum/src/lib.rs", "pkg/mod.py", "src/a.c", "a/b.go", "web/a.ts",
		"lib/a.rb", "src/A.java", "src/a.cpp", "a.js", "a.php", "a.cs",
		"a.swift", "a.kt", "a.scala", "a.tsx", "pkg/__init__.py",
	};
	const char	*path;
	struct doc	 d;
	int		 added;

	if (size == 0)
		return 0;
	path = paths[(data[0] & 0x7f) % (sizeof(paths) / sizeof(paths[0]))];
	if ((data[0] & 0x80 ? code_parse_overview(path, (const char *)data + 1,
	    size - 1, &d, NULL, &added) : code_parse(path, (const char *)data + 1,
	    size - 1, &d)) == 0)
		doc_release(&d);
	(void)select_generated(path, (const char *)data + 1, size - 1);
	return 0;
}
