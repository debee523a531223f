/*
 * fuzz-markdown.c: the Markdown parser (lib/parse/markdown.c: the pre-pass, md4c and its
 * callbacks, the section builder of lib/parse/doc.c) on arbitrary bytes. The first byte picks the
 * dialect: Markdown, MDX, curl's cmdline-opts pages (front matter with examples), llms.txt.
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
		"docs/a.md", "docs/a.mdx", "docs/cmdline-opts/x.md", "llms.txt",
	};
	struct doc	 d;

	if (size == 0)
		return 0;
	if (markdown_parse(paths[data[0] % (sizeof(paths) / sizeof(paths[0]))],
	    (const char *)data + 1, size - 1, &d) == 0)
		doc_release(&d);
	return 0;
}
