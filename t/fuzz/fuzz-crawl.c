/*
 * fuzz-crawl.c: the website crawler's parsers of untrusted input on arbitrary bytes. The
 * first byte picks one: 0 robots.txt (lib/sources/robots.c: parse, then match paths, among them
 * the input's own first line), 1 a sitemap (lib/sources/sitemap.c), 2 the links of an HTML page
 * and 3 of a Markdown page (lib/sources/links.c).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/links.h"
#include "sources/robots.h"
#include "sources/sitemap.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_robots(const char *p, size_t n)
{
	static const char *const paths[] = { "/", "/a/b.html?x=1", "/private/x.pdf" };
	struct robots	 r;
	char		 line[512];
	size_t		 i, k;

	if (robots_parse(p, n, "ctxd", &r) == -1)
		return;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		(void)robots_allowed(&r, paths[i]);
	for (k = 0; k < n && k < sizeof(line) - 1 && p[k] != '\n' && p[k] != '\0'; k++)
		line[k] = p[k];
	line[k] = '\0';
	(void)robots_allowed(&r, line);
	(void)robots_match(line, k, "/a/b/c.html", 1);
	robots_release(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data + 1;
	struct sitemap	 s;
	struct links	 l;

	if (size == 0)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_robots(p, size - 1);
		break;
	case 1:
		if (sitemap_parse(p, size - 1, &s) == 0)
			sitemap_release(&s);
		break;
	case 2:
		if (links_html(p, size - 1, &l) == 0)
			links_release(&l);
		break;
	default:
		if (links_markdown(p, size - 1, &l) == 0)
			links_release(&l);
		break;
	}
	return 0;
}
