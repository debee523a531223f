/*
 * fuzz-doc.c: the documentation parsers (Markdown/MDX with md4c, reStructuredText, plain
 * text, source-code doc comments) on arbitrary bytes. The first byte picks the file type.
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
	static const char *const paths[] = {
		"docs/a.md", "docs/a.mdx", "docs/a.rst", "docs/a.txt", "README",
		"src/lib.rs", "pkg/a.py", "src/a.c", "a/b.go", "web/a.ts", "a.rb",
		"docs/cmdline-opts/x.md", "llms.txt",
	};
	struct doc	 d;
	char		*copy;

	if (size == 0)
		return 0;
	/* The parsers take a NUL-terminated buffer of the given length. */
	if ((copy = malloc(size)) == NULL)
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	if (doc_parse(paths[data[0] % (sizeof(paths) / sizeof(paths[0]))], copy,
	    size - 1, &d) == 0)
		doc_release(&d);
	free(copy);
	return 0;
}
