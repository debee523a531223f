/*
 * test-include.c: include directives resolved from t/corpora/includes (parse/include.c):
 * each syntax, line ranges, anchors and regions, notes for paths out of the repository
 * and missing files, path joining.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/include.h"
#include "tap.h"

static const char *root;

static int
rd(void *arg, const char *path, char **data, size_t *len)
{
	char	 full[2048];
	FILE	*f;
	long	 n;

	(void)arg;
	snprintf(full, sizeof(full), "%s/%s", root, path);
	if ((f = fopen(full, "rb")) == NULL)
		return INCLUDE_MISSING;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (n > 4096) {
		fclose(f);
		return INCLUDE_TOO_BIG;
	}
	*data = malloc((size_t)n + 1);
	*len = fread(*data, 1, (size_t)n, f);
	(*data)[*len] = '\0';
	fclose(f);
	return 0;
}

static size_t nreads;

/* rd, counted */
static int
rd_count(void *arg, const char *path, char **data, size_t *len)
{
	nreads++;
	return rd(arg, path, data, len);
}

/* The page resolved (static buffer of the last call). */
static char *
resolve(const char *page)
{
	static char	*out;
	char		*data;
	size_t		 len, outlen;
	int		 rc;

	free(out);
	out = NULL;
	if (rd(NULL, page, &data, &len) != 0)
		return NULL;
	rc = include_resolve(page, data, len, rd, NULL, NULL, &out, &outlen);
	free(data);
	if (getenv("SHOW") != NULL)
		fprintf(stderr, "=== %s (%d)\n%s\n", page, rc, out ? out : "");
	return rc == 1 ? out : NULL;
}

#define HAS(s, x, d)	ok((s) != NULL && strstr((s), (x)) != NULL, d)
#define HASNT(s, x, d)	ok((s) != NULL && strstr((s), (x)) == NULL, d)

int
main(void)
{
	char	 p[256];
	char	*s;

	if ((root = getenv("top_srcdir")) == NULL)
		root = ".";
	static char r[1024];
	snprintf(r, sizeof(r), "%s/t/corpora/includes", root);
	root = r;

	ok(include_join("docs/a/b.md", "../c.py", p, sizeof(p)) == 0 &&
	    strcmp(p, "docs/c.py") == 0, "join: relative to the page's folder");
	ok(include_join("docs/b.md", "../../etc/passwd", p, sizeof(p)) == -1,
	    "join: above the repository's root is refused");
	ok(include_join("b.md", "/x/./y/../z.py", p, sizeof(p)) == 0 &&
	    strcmp(p, "x/z.py") == 0, "join: a leading / is the root; . and .. resolved");
	ok(strcmp(include_lang("a/b.py"), "python") == 0 && strcmp(include_lang("x.rs"),
	    "rust") == 0 && strcmp(include_lang("x.unknown"), "") == 0, "languages by name");

	s = resolve("docs/en/docs/tutorial/cors.md");
	HAS(s, "```python\nfrom fastapi import FastAPI\n", "FastAPI: fenced with the language");
	HAS(s, "app.add_middleware(CORSMiddleware", "FastAPI: the file's code");
	HASNT(s, "{*", "FastAPI: no directive left");
	HAS(s, "Only a part, lines 1 to 2:\n\n```python\nfrom fastapi import FastAPI\n"
	    "from fastapi.middleware.cors import CORSMiddleware\n```\n", "FastAPI ln[1:2]");

	s = resolve("docs/en/docs/tutorial/escape.md");
	HAS(s, "(included file ../../../../../../etc/passwd: outside the repository)\n",
	    "a path out of the repository: a note");
	HAS(s, "(included file ../../docs_src/cors/nothere.py: not found)\n",
	    "a missing file: a note");

	s = resolve("site/snippets.md");
	HAS(s, "## Whole file\n\n```python\nimport os\ndef snippear():", "pymdownx: whole file");
	HAS(s, "```python\ndef snippear():\n    return \"snippear\"\n```",
	    "pymdownx: a named section, raw inside its fence");
	HAS(s, "\n--8<-- \"examples/snip.py\"\n", "pymdownx: escaped directive shown");
	HASNT(s, "[start:", "pymdownx: section markers dropped");

	s = resolve("book/src/chapter.md");
	HAS(s, "```rust\npub fn mdquince() -> u32 {\n    42\n}\n```", "mdBook: an anchor");
	HAS(s, "```rust\nuse std::fmt;\n```", "mdBook: a line range");
	HASNT(s, "ANCHOR", "mdBook: anchor lines dropped");

	s = resolve("sphinx/usage.rst");
	HAS(s, ".. code-block:: python\n\n   def sphinxfig():\n       return \"sphinxfig\"\n\nAfter",
	    "Sphinx: a code-block of the lines");
	HASNT(s, "emphasize", "Sphinx: options consumed");

	s = resolve("sphinx/myst.md");
	HAS(s, "```python\ndef sphinxfig():\n    return \"sphinxfig\"\n```\n\nAfter the MyST",
	    "MyST {literalinclude}: the lines between :start-after: and :end-before:");
	HASNT(s, "# header", "MyST: :start-after: honoured");
	HASNT(s, "# footer", "MyST: :end-before: honoured");
	HASNT(s, ":language:", "MyST: options consumed");

	s = resolve("website/docs/vitepress.md");
	HAS(s, "```ts\nexport function vitelime() {\n  return 'vitelime'\n}\n```",
	    "VitePress: a region, its language from the braces");
	HASNT(s, "#region", "VitePress: region markers dropped");
	HAS(s, "```typescript\nexport const before = 1\nexport function", "VitePress: ./file");

	s = resolve("website/docs/docusaurus.mdx");
	HAS(s, "```jsx\nexport default function dokiwi()", "Docusaurus: raw-loader");
	HASNT(s, "raw-loader", "Docusaurus: the import is gone");
	HAS(s, "```js\nexport default function dokiwi() { return 'dokiwi'; }\n```",
	    "Docusaurus: a file= fence filled");
	HASNT(s, "placeholder", "Docusaurus: the fence's own body dropped");

	s = resolve("content/shortcodes.md");
	HAS(s, "```html\n<p class=\"jekyllplum\">", "Jekyll include from _includes");
	HAS(s, "## Jekyll include_relative\n\n```bash\necho hugodate\n```", "Jekyll include_relative");
	HAS(s, "## Hugo readfile\n\n```bash\necho hugodate\n```", "Hugo readfile");

	ok(resolve("README.md") == NULL, "a page without directives is left as it is");

	/* A deep page of many directives for missing files: the lookups are bounded. */
	{
		char	 page[8192], *res = NULL;
		size_t	 plen = 0, rlen;
		int	 i, rc;

		for (i = 0; i < 200; i++)
			plen += (size_t)snprintf(page + plen, sizeof(page) - plen,
			    "{* m%d.py *}\n", i);
		nreads = 0;
		rc = include_resolve("a/b/c/d/e/f/g/h/i/j/page.md", page, plen, rd_count, NULL,
		    NULL, &res, &rlen);
		ok(rc == 1 && nreads <= INCLUDE_MAX_LOOKUPS && nreads >= 100,
		    "a page's lookups are bounded (%zu reads for 200 missing files 10 folders "
		    "deep)", nreads);
		HAS(res, "(included file m0.py: not found)", "... the first directives: not found");
		HAS(res, "(included file m199.py: too many include lookups in one page)",
		    "... the last: a note saying why");
		free(res);
	}
	return tap_done();
}
