/*
 * fuzz-source.c: the doc comments of source files (lib/source.c: the lexer, the naming of
 * items, the Markdown fragments) on arbitrary bytes. The first byte picks the language.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctxd.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {
		"axum/src/lib.rs", "pkg/mod.py", "src/a.c", "a/b.go", "web/a.ts",
		"lib/a.rb", "src/A.java", "src/a.cpp", "a.js", "a.php", "a.cs",
		"a.swift", "a.kt", "a.scala", "a.tsx", "pkg/__init__.py",
	};
	struct doc	 d;

	if (size == 0)
		return 0;
	if (source_parse(paths[data[0] % (sizeof(paths) / sizeof(paths[0]))],
	    (const char *)data + 1, size - 1, &d) == 0)
		doc_release(&d);
	return 0;
}
