/* test-doc.c: documentation files to sections (doc.c, markdown.c, rst.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "doc-helpers.h"
#include "index/dedup.h"
#include "index/describe.h"
#include "parse/parse.h"
#include "tap.h"

static void
test_slug(void)
{
	char	*s;

	s = doc_slug("`--location`");
	is_str(s, "--location", "slug keeps dashes, drops backticks");
	free(s);
	s = doc_slug("Self-referencing (or \"Recursive\") Models");
	is_str(s, "self-referencing-or-recursive-models", "slug drops punctuation");
	free(s);
	s = doc_slug("What `S` in `Router<S>` means");
	is_str(s, "what-s-in-routers-means", "slug of generic type");
	free(s);
	s = doc_slug("snake_case and Ünïcode");
	is_str(s, "snake_case-and-Ünïcode", "slug keeps underscore and UTF-8 bytes");
	free(s);
}

static void
test_fences(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char *src =
	    "# Build\n\nIntro text.\n\n"
	    "```sh\n# configure first\n./configure\n# not a heading\nmake\n```\n\n"
	    "~~~c\n#include <curl/curl.h>\nint main(void) { return 0; }\n~~~\n\n"
	    "    # indented code\n    x = 1\n\n"
	    "## Install\n\nRun `make install`.\n";

	if (parse("docs/build.md", src, &d) == -1)
		return;
	is_int(d.nsecs, 2, "'#' lines inside fences do not start sections");
	is_str(d.title, "Build", "title from the opening H1");
	s = sec(&d, "Build");
	ok(s != NULL && s->ncode == 3, "three code blocks in the first section");
	if (s != NULL && s->ncode == 3) {
		is_str(s->code[0].lang, "sh", "backtick fence language");
		is_str(s->code[0].code, "# configure first\n./configure\n# not a heading\nmake",
		    "fenced code verbatim, no trailing newline");
		is_str(s->code[1].lang, "c", "tilde fence language");
		is_str(s->code[1].code, "#include <curl/curl.h>\nint main(void) { return 0; }",
		    "tilde fence code");
		is_str(s->code[2].lang, "", "indented code has no language");
		is_str(s->code[2].code, "# indented code\nx = 1", "indented code");
	}
	is_str(s_text(s), "Intro text.", "section prose");
	is_str(s_text(sec(&d, "Install")), "Run `make install`.", "inline code kept");
	doc_release(&d);
}

static void
test_trail(void)
{
	struct doc			 d;
	const char *src =
	    "Text before any heading.\n\n"
	    "# Guide\n\nA [link](https://x.test) and **bold**.\n\n"
	    "## Setup\n\n- one\n- two `x`\n  - nested\n\n1. first\n2. second\n\n"
	    "### Details {#custom-id}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
	    "> quoted\n\n<div class=\"x\">\n<b>Bold</b> html text\n</div>\n\n"
	    "## Setup\n\nAgain.\n\n## Setup\n\nThird.\n\n# Other\n\nEnd.\n";

	if (parse("guide/intro.md", src, &d) == -1)
		return;
	is_str(d.title, "intro", "prose before the first H1: title is the file name");
	ok(d.nsecs == 7, "seven sections (got %zu)", d.nsecs);
	if (d.nsecs < 7)
		goto out;
	is_int(d.secs[0].level, 0, "intro level 0");
	is_str(d.secs[0].anchor, "", "intro anchor empty");
	is_str(d.secs[0].title, "intro", "intro titled like the page");
	is_str(d.secs[0].breadcrumb, "intro", "intro breadcrumb");
	is_str(d.secs[1].text, "A link and bold.", "links and emphasis reduced to text");
	is_str(d.secs[1].breadcrumb, "intro > Guide", "breadcrumb starts with page title");
	is_str(d.secs[2].text, "- one\n- two `x`\n  - nested\n\n1. first\n2. second",
	    "lists rendered as items");
	is_str(d.secs[3].title, "Details", "{#id} removed from heading");
	is_str(d.secs[3].anchor, "details", "anchor of cleaned heading");
	is_str(d.secs[3].breadcrumb, "intro > Guide > Setup > Details", "heading trail");
	is_str(d.secs[3].text, "a | b\n1 | 2\n\n> quoted\n\nBold html text",
	    "table rows, quote, HTML block text");
	is_str(d.secs[2].anchor, "setup", "first duplicate anchor");
	is_str(d.secs[4].anchor, "setup-1", "second duplicate anchor");
	is_str(d.secs[5].anchor, "setup-2", "third duplicate anchor");
	is_str(d.secs[6].breadcrumb, "intro > Other", "trail resets at a new H1");
out:
	doc_release(&d);
}

static void
test_front_matter(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char *curl =
	    "---\nc: Copyright\nLong: location\nShort: L\nExample:\n  - -L $URL\n"
	    "  - -L -o out $URL\nSee-also:\n  - resolve\n---\n\n"
	    "# `--location`\n\nFollow redirects.\n";
	const char *page =
	    "---\ntitle: \"Express behind proxies\"\ndescription: x\n---\n\n"
	    "Intro under a front-matter title.\n\n## Details\n\nMore.\n";

	if (parse("docs/cmdline-opts/location.md", curl, &d) == 0) {
		is_str(d.title, "`--location`", "H1 is the title without front-matter title");
		ok(d.nsecs == 1, "one section");
		s = sec(&d, "`--location`");
		is_str(s_text(s), "Follow redirects.", "option text");
		ok(s != NULL && s->ncode == 1, "Example lines kept as code");
		if (s != NULL && s->ncode == 1) {
			is_str(s->code[0].lang, "sh", "examples are shell");
			is_str(s->code[0].code, "curl -L $URL\ncurl -L -o out $URL",
			    "examples prefixed with curl");
		}
		ok(s != NULL && strstr(s->text, "resolve") == NULL, "front matter dropped");
		is_str(s != NULL ? s->anchor : NULL, "--location", "anchor of option");
		doc_release(&d);
	}
	if (parse("en/guide/behind-proxies.md", page, &d) == 0) {
		is_str(d.title, "Express behind proxies", "front-matter title, quotes stripped");
		ok(d.nsecs == 2 && d.secs[0].level == 0, "intro section first");
		is_str(d.nsecs > 0 ? d.secs[0].title : NULL, "Express behind proxies",
		    "intro titled with the front-matter title");
		is_str(d.nsecs > 1 ? d.secs[1].breadcrumb : NULL,
		    "Express behind proxies > Details", "breadcrumb uses front-matter title");
		doc_release(&d);
	}
}

static void
test_mdx(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char *src =
	    "---\ntitle: Response\n---\n\n"
	    "import Alert from '@components/Alert.astro';\n"
	    "export const x = 1;\n\n"
	    "## res.download()\n\n"
	    "<Signature>\n  <Fragment slot=\"attributes\">\n"
	    "    <Param name=\"path\" type=\"String\">\n"
	    "      The path to the file.\n    </Param>\n  </Fragment>\n</Signature>\n\n"
	    "<Alert type=\"warning\">\n\nDo not pass user input.\n\n</Alert>\n\n"
	    "<Alert type=\"info\">Inline alert text.</Alert>\n\n"
	    "<PackageManagerCommand command=\"npm install express\" />\n\n"
	    "```js\nimport express from 'express';\n```\n";

	if (parse("api/response/index.mdx", src, &d) != 0)
		return;
	s = sec(&d, "res.download()");
	ok(s != NULL, "heading after imports found");
	is_int(d.nsecs, 1, "imports leave no intro");
	is_str(s_text(s), "- `path` (String) The path to the file.\n\n"
	    "Do not pass user input.\n\nInline alert text.",
	    "components dropped, their text kept");
	ok(s != NULL && s->ncode == 2, "command and fenced code");
	if (s != NULL && s->ncode == 2) {
		is_str(s->code[0].code, "npm install express", "install command as code");
		is_str(s->code[1].code, "import express from 'express';",
		    "import inside a fence kept");
	}
	doc_release(&d);
}

static void
test_containers(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char *src =
	    "# Config\n\n::: tip\nVite tip text.\n:::\n\n"
	    "::: warning Using Vite on WSL\nWatch out.\n:::\n\n"
	    "```js{1,3} [vite.config.js]\nexport default {}\n```\n\n"
	    "```[.env]\nVITE_X=1\n```\n\n"
	    "!!! note\n    Admonition text with `code`.\n\n"
	    "    ```python\n    print(1)\n    ```\n\n"
	    "=== \"Decorator\"\n\n    Tab text.\n\nAfter.\n\n"
	    "## Field <a name=\"field\"></a>\n\nSee [`field_validator`][pydantic.field_validator].\n";

	if (parse("docs/config.md", src, &d) != 0)
		return;
	s = sec(&d, "Config");
	is_str(s_text(s), "Vite tip text.\n\nUsing Vite on WSL\n\nWatch out.\n\n"
	    "Admonition text with `code`.\n\nDecorator\n\nTab text.\n\nAfter.",
	    "container and admonition content kept as text");
	ok(s != NULL && s->ncode == 3, "three code blocks");
	if (s != NULL && s->ncode == 3) {
		is_str(s->code[0].lang, "js", "js{1,3} -> js");
		is_str(s->code[1].lang, "", "[.env] title is not a language");
		is_str(s->code[2].lang, "python", "dedented admonition fence");
		is_str(s->code[2].code, "print(1)", "admonition code dedented");
	}
	s = sec(&d, "Field");
	ok(s != NULL, "<a name> dropped from heading");
	is_str(s_text(s), "See `field_validator`.", "autoref reduced to its text");
	doc_release(&d);
}

static void
test_split(void)
{
	struct doc	 d;
	struct buf	 b;
	size_t		 i, total = 0;
	int		 same = 1, fenced = 1;

	buf_init(&b);
	buf_adds(&b, "# Long\n\n");
	for (i = 0; i < 60; i++) {
		buf_printf(&b, "Paragraph %zu has some words about the topic at hand, "
		    "enough to make the section long when repeated many times.\n\n", i);
		if (i % 20 == 10)
			buf_adds(&b, "```c\nint a;\n\nint b;\n```\n\n");
	}
	buf_adds(&b, "## Short\n\nTiny.\n");
	if (doc_parse("long.md", b.p, b.len, &d) != 0) {
		ok(0, "parse long document");
		buf_release(&b);
		return;
	}
	ok(d.nsecs >= 3, "long section split (%zu sections)", d.nsecs);
	for (i = 0; i + 1 < d.nsecs; i++) {
		size_t n = strlen(d.secs[i].text), j;

		for (j = 0; j < d.secs[i].ncode; j++) {
			n += strlen(d.secs[i].code[j].code);
			if (strcmp(d.secs[i].code[j].code, "int a;\n\nint b;") != 0)
				fenced = 0;
		}
		total += n;
		if (strcmp(d.secs[i].title, "Long") != 0 ||
		    strcmp(d.secs[i].anchor, "long") != 0 ||
		    strcmp(d.secs[i].breadcrumb, "Long") != 0)
			same = 0;
		ok(n <= 7000, "part %zu is at most about 6000 bytes (%zu)", i, n);
	}
	ok(same, "parts share title, anchor and breadcrumb");
	ok(fenced, "code blocks never cut");
	ok(total > 6000, "nothing lost (%zu bytes)", total);
	is_str(d.nsecs > 0 ? d.secs[d.nsecs - 1].title : NULL, "Short", "next heading");
	ok(strncmp(d.secs[1].text, "Paragraph", 9) == 0, "split at a paragraph");
	doc_release(&d);
	buf_release(&b);
}

static void
test_rst(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char *src =
	    ".. _advanced:\n\n"
	    "==============\nAdvanced Usage\n==============\n\n"
	    "Intro with ``urllib3`` and :class:`Response <requests.Response>` and\n"
	    ":meth:`~requests.Session.get` and `pooling <https://x.test>`_ and `Foo`_.\n\n"
	    "Session Objects\n---------------\n\n"
	    "Let's persist cookies::\n\n"
	    "    s = requests.Session()\n    s.get('https://x.test')\n\n"
	    ".. code-block:: python\n   :emphasize-lines: 1\n\n   import requests\n\n"
	    ".. note:: Sessions are\n   reusable.\n\n"
	    ".. autoclass:: requests.Session\n   :members:\n\n"
	    ".. toctree::\n   :maxdepth: 2\n\n   user/install\n\n"
	    ">>> r = requests.get(url)\n>>> r.status_code\n200\n\n"
	    "Timeouts\n~~~~~~~~\n\nSet a timeout.\n\n"
	    "Other\n-----\n\n- item one\n- item two\n  continued\n\n"
	    "Timeouts\n~~~~~~~~\n\nAgain.\n";

	if (parse("docs/user/advanced.rst", src, &d) != 0)
		return;
	is_str(d.title, "Advanced Usage", "rst title from overlined heading");
	ok(d.nsecs == 5, "five rst sections (got %zu)", d.nsecs);
	s = sec(&d, "Advanced Usage");
	is_int(s != NULL ? s->level : -1, 1, "overline style is level 1");
	is_str(s_text(s), "Intro with `urllib3` and `Response` and `get` and pooling and Foo.",
	    "inline roles, literals and links reduced");
	s = sec(&d, "Session Objects");
	is_int(s != NULL ? s->level : -1, 2, "underline '-' is level 2");
	is_str(s != NULL ? s->breadcrumb : NULL, "Advanced Usage > Session Objects",
	    "rst breadcrumb");
	is_str(s_text(s), "Let's persist cookies:\n\nNote: Sessions are reusable.\n\n"
	    "API: requests.Session", "literal intro, note, autoclass; toctree dropped");
	ok(s != NULL && s->ncode == 3, "literal, code-block and doctest code");
	if (s != NULL && s->ncode == 3) {
		is_str(s->code[0].code, "s = requests.Session()\ns.get('https://x.test')",
		    ":: literal block dedented");
		is_str(s->code[0].lang, "", "literal block without highlight language");
		is_str(s->code[1].lang, "python", "code-block language");
		is_str(s->code[1].code, "import requests", "code-block options dropped");
		is_str(s->code[2].lang, "python", "doctest is python");
		is_str(s->code[2].code, ">>> r = requests.get(url)\n>>> r.status_code\n200",
		    "doctest block");
	}
	s = sec(&d, "Timeouts");
	is_int(s != NULL ? s->level : -1, 3, "'~' is level 3");
	is_str(s != NULL ? s->anchor : NULL, "timeouts", "rst anchor");
	is_str(d.nsecs == 5 ? d.secs[4].anchor : NULL, "timeouts-1", "rst duplicate anchor");
	is_int(d.nsecs == 5 ? d.secs[3].level : -1, 2, "'-' again is level 2");
	is_str(d.nsecs == 5 ? d.secs[3].text : NULL, "- item one\n- item two continued",
	    "rst bullet list");
	doc_release(&d);
}

static void
test_plain(void)
{
	struct doc	 d;
	const char	*src = "Line one\nline two\n\n\nSecond block\n";

	if (parse("docs/notes.txt", src, &d) == 0) {
		is_str(d.title, "notes", "txt title is the file name");
		is_int(d.nsecs, 1, "one intro section");
		is_str(d.nsecs ? d.secs[0].text : NULL, "Line one\nline two\n\nSecond block",
		    "blocks kept verbatim");
		is_int(d.nsecs ? d.secs[0].level : -1, 0, "plain text is intro");
		doc_release(&d);
	}
	if (parse("THANKS", "", &d) == 0) {
		is_int(d.nsecs, 0, "empty file has no section");
		is_str(d.title, "THANKS", "extensionless title");
		doc_release(&d);
	}
	if (doc_parse("x.md", "a\0b\r\n\r\n# H\xff\nx\n", 14, &d) == 0) {
		is_str(d.nsecs ? d.secs[0].text : NULL, "a b", "NUL and CRLF cleaned");
		is_str(d.nsecs > 1 ? d.secs[1].title : NULL, "H\xef\xbf\xbd", "invalid UTF-8 replaced by U+FFFD");
		doc_release(&d);
	} else
		ok(0, "parse dirty input");
}

/*
 * A long section (about 5400 bytes of prose), a paragraph introducing a code block of
 * about 7000 bytes: the section is split before the code, and the introduction goes with
 * the code into the new part; the code block stays whole. kind: "md", "mdx" or "rst".
 */
static void
pairing_case(const char *kind)
{
	struct doc	 d;
	struct buf	 b, code;
	const struct doc_section *with = NULL;
	size_t		 i, j, nwith = 0, ncodes = 0;
	char		 path[32];
	int		 whole = 1;

	buf_init(&b);
	buf_init(&code);
	for (i = 0; i < 260; i++)
		buf_printf(&code, "value_%03zu = compute(%zu)  # line\n", i, i);
	if (strcmp(kind, "rst") == 0)
		buf_adds(&b, "Pairing\n=======\n\n");
	else if (strcmp(kind, "mdx") == 0)
		buf_adds(&b, "---\ntitle: Pairing\n---\n\nimport Tabs from "
		    "'@components/Tabs.astro';\n\n# Pairing\n\n");
	else
		buf_adds(&b, "# Pairing\n\n");
	for (i = 0; i < 45; i++)
		buf_printf(&b, "Paragraph %02zu says something about the topic at hand, "
		    "long enough to fill a section of this size quickly.\n\n", i);
	if (strcmp(kind, "rst") == 0) {
		buf_adds(&b, "Compute the values like this::\n\n");
		for (i = 0; i < 260; i++)
			buf_printf(&b, "    value_%03zu = compute(%zu)  # line\n", i, i);
		buf_adds(&b, "\nThe end.\n");
	} else {
		buf_adds(&b, "Compute the values like this:\n\n");
		if (strcmp(kind, "mdx") == 0)
			buf_adds(&b, "<Tabs>\n<TabItem label=\"py\">\n\n");
		buf_printf(&b, "```python\n%s```\n\n", code.p);
		if (strcmp(kind, "mdx") == 0)
			buf_adds(&b, "</TabItem>\n</Tabs>\n\n");
		buf_adds(&b, "The end.\n");
	}
	snprintf(path, sizeof(path), "pairing.%s", kind);
	if (doc_parse(path, b.p, b.len, &d) != 0) {
		ok(0, "parse %s", path);
		goto out;
	}
	for (i = 0; i < d.nsecs; i++)
		for (j = 0; j < d.secs[i].ncode; j++) {
			ncodes++;
			if (strstr(d.secs[i].code[j].code, "value_000") != NULL) {
				with = &d.secs[i];
				nwith++;
				if (strstr(d.secs[i].code[j].code, "value_259") == NULL)
					whole = 0;
			}
		}
	ok(d.nsecs >= 2, "%s: the long section is split (%zu parts)", kind, d.nsecs);
	is_int(ncodes, 1, "%s: one code block", kind);
	ok(nwith == 1 && whole, "%s: the code block is whole", kind);
	ok(with != NULL && strncmp(with->text, "Compute the values like this:", 29) == 0,
	    "%s: the introducing paragraph opens the code's part", kind);
	ok(with != NULL && with != &d.secs[0] && strstr(d.secs[0].text,
	    "Compute the values") == NULL, "%s: and is not left in the part before", kind);
	doc_release(&d);
out:
	buf_release(&b);
	buf_release(&code);
}

static void
test_pairing(void)
{
	pairing_case("md");
	pairing_case("mdx");
	pairing_case("rst");
}

static void
test_dedup(void)
{
	struct dedup_sig a, b, c, e, shortsig;
	const char	*text = "The router matches the request path against each "
	    "route in the order they were added and calls the first handler whose "
	    "method and path pattern both match, passing the captured parameters.";
	const char	*near = "The router matches the request path against each "
	    "route in the order they were added and calls the first handler whose "
	    "method and path pattern both match, passing all captured parameters.";
	const char	*other = "Cookies are signed with the secret given to the "
	    "middleware; a tampered cookie is dropped before the handler runs, and "
	    "the handler sees only cookies whose signature was verified correctly.";

	dedup_signature("Routing", text, "app.get('/', h);\n", "Guide\x1fRouting", &a);
	dedup_signature("Routing", "  The router  matches the request path against "
	    "each\nroute in the order they were added and calls the first handler "
	    "whose method and path pattern both match, passing the captured "
	    "parameters.", "app.get('/',   h);\n", "API\x1fRouting", &b);
	is_str(a.hash, b.hash, "white space and another trail do not change the hash");
	ok(a.has_sig && a.sig == b.sig, "nor the simhash");
	dedup_signature("Other title", text, "app.get('/', h);\n", "", &e);
	ok(strcmp(a.hash, e.hash) != 0, "the title is part of the hash");
	ok(a.sig == e.sig, "but not of the simhash");
	dedup_signature("Routing", near, "app.get('/', h);\n", "", &c);
	ok(strcmp(a.hash, c.hash) != 0, "one word changed: another hash");
	ok(dedup_near(a.sig, c.sig), "one word changed: near (%d bits)",
	    __builtin_popcountll(a.sig ^ c.sig));
	dedup_signature("Routing", other, "app.use(cookies(secret));\n", "", &c);
	ok(!dedup_near(a.sig, c.sig), "other text: not near (%d bits)",
	    __builtin_popcountll(a.sig ^ c.sig));
	dedup_signature("T", "Too short to compare.", "", "A", &shortsig);
	ok(!shortsig.has_sig, "short snippets have no simhash");
	dedup_signature("T", "Too short to compare.", "", "B", &c);
	ok(strcmp(shortsig.hash, c.hash) != 0, "a very short one's trail is in its hash");
	dedup_signature("T", "Too short to compare.", "", "A", &c);
	is_str(shortsig.hash, c.hash, "the same trail: the same hash");

	ok(dedup_prefer("docs/en/5x/guide.md", 3, "docs/en/4x/guide.md", 1) < 0,
	    "5x is kept over 4x");
	ok(dedup_prefer("api/v1.9/x.md", 0, "api/v2/x.md", 0) > 0, "v2 over v1.9");
	ok(dedup_prefer("api/3.x/x.md", 0, "api/3.0.1/x.md", 0) == 0 ||
	    dedup_prefer("api/3.x/x.md", 0, "api/3.0.1/x.md", 0) != 0,
	    "3.x and 3.0.1 compare");
	ok(dedup_prefer("README.md", 5, "docs/README.md", 0) < 0,
	    "the shallower copy is kept");
	ok(dedup_prefer("CHANGELOG.md", 0, "docs/deep/a/guide.md", 0) > 0,
	    "a changelog loses to any other file");
	ok(dedup_prefer("a.md", 1, "a.md", 2) < 0, "then the earlier section");
	ok(dedup_prefer("b.md", 0, "a.md", 0) > 0, "then the path in byte order");
}

static void
test_describe(void)
{
	char	*t[3], *d[3];
	size_t	 i;

	ok(describe_weak_title("Example"), "Example is weak");
	ok(describe_weak_title(" # EXAMPLE: "), "EXAMPLE: is weak");
	ok(describe_weak_title("Installation"), "Installation is weak");
	ok(describe_weak_title(""), "no title is weak");
	ok(!describe_weak_title("Evicting old entries"), "a real title is not");
	is_int(describe_parse_answer("Sure:\n[{\"id\": 2, \"title\": \" Open\\n the "
	    "cache \", \"description\": \"Opens it.\"}, {\"id\": 1, \"title\": \"T\", "
	    "\"description\": \"\"}, {\"id\": 9, \"title\": \"x\", \"description\": "
	    "\"y\"}] done", 3, t, d), 1, "one usable entry");
	ok(t[0] == NULL && d[0] == NULL, "an empty description drops the entry");
	is_str(t[1], "Open the cache", "title squeezed to one line");
	is_str(d[1], "Opens it.", "description");
	ok(t[2] == NULL, "a missing id stays NULL");
	for (i = 0; i < 3; i++) {
		free(t[i]);
		free(d[i]);
	}
	is_int(describe_parse_answer("no json here", 3, t, d), 0, "no array: nothing");
	is_int(describe_parse_answer("[{\"id\": 1, \"title\": 5}]", 3, t, d), 0,
	    "wrong types: nothing");
}

/* doc_retitle: the source's title of a document as if the parser had been given it. */
static void
test_retitle(void)
{
	struct doc			 d;
	const struct doc_section	*s;

	/* no H1: the file name was the title and every trail was prefixed with it */
	if (parse("pages/123.md", "Intro words.\n\n## Setup\n\nSetup words.\n\n"
	    "### Linux\n\nLinux words.\n", &d) == -1)
		return;
	is_str(d.title, "123", "before: the file name is the title");
	ok(doc_retitle(&d, "  Install   guide ") == 0, "retitled");
	is_str(d.title, "Install guide", "the document title is the source's, squeezed");
	is_str(d.secs[0].title, "Install guide", "the intro section takes the title");
	is_str(d.secs[0].breadcrumb, "Install guide", "the intro's trail is the title");
	s = sec(&d, "Linux");
	is_str(s ? s->breadcrumb : "", "Install guide > Setup > Linux",
	    "a trail starts with the new title, not the file name");
	ok(doc_retitle(&d, "Install guide") == 0, "the same title again");
	is_str(sec(&d, "Setup")->breadcrumb, "Install guide > Setup", "changes nothing");
	doc_release(&d);

	/* an H1 opening the page was the title: its trail was not prefixed */
	if (parse("p.md", "# Getting started\n\nWords.\n\n## Next\n\nMore.\n", &d) == -1)
		return;
	is_str(sec(&d, "Next")->breadcrumb, "Getting started > Next", "before: the H1 trail");
	ok(doc_retitle(&d, "Tutorial") == 0, "retitled");
	is_str(sec(&d, "Next")->breadcrumb, "Tutorial > Getting started > Next",
	    "the H1 stays in the trail after the source's title");
	is_str(sec(&d, "Getting started")->breadcrumb, "Tutorial > Getting started",
	    "the H1 section too");
	ok(doc_retitle(&d, "Getting started") == 0, "retitled as the H1");
	is_str(sec(&d, "Next")->breadcrumb, "Getting started > Next",
	    "a title equal to the H1 is not repeated");
	ok(doc_retitle(&d, NULL) == 0 && strcmp(d.title, "Getting started") == 0,
	    "no title: unchanged");
	doc_release(&d);
}

int
main(void)
{
	log_init("test-doc");
	test_slug();
	test_fences();
	test_trail();
	test_front_matter();
	test_mdx();
	test_containers();
	test_split();
	test_rst();
	test_plain();
	test_pairing();
	test_dedup();
	test_describe();
	test_retitle();
	return tap_done();
}
