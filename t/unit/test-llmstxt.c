/*
 * test-llmstxt.c: the llms.txt structure parser and the splitter of expanded llms files
 * (lib/parse/llmstxt.c), on the fixtures' real files (llmstxt.org's own llms.txt and
 * llms-ctx.txt, 1mcp's index of llms files) and on the shapes they do not show.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/util.h"
#include "parse/llmstxt.h"
#include "tap.h"

static char *
fixture(const char *rel, size_t *len)
{
	const char	*c = getenv("CORPORA");
	char		 path[4096];
	char		*data = NULL;

	snprintf(path, sizeof(path), "%s/fixtures/llmstxt/%s", c != NULL ? c :
	    "t/corpora", rel);
	if (util_read_file(path, 1 << 20, &data, len) == -1)
		return NULL;
	return data;
}

static void
test_reference(void)
{
	struct llmstxt	 t;
	size_t		 len;
	char		*s = fixture("llmstxt-org/site/llms.txt", &len);

	ok(s != NULL, "llmstxt.org's llms.txt is read");
	if (s == NULL)
		return;
	ok(llmstxt_parse(s, len, &t) == 0, "it parses");
	is_str(t.title, "llms.txt", "the H1 is the title");
	ok(t.summary != NULL && strncmp(t.summary, "A proposal that those interested",
	    32) == 0, "the blockquote is the summary");
	is_int(t.nsections, 1, "one H2 section");
	is_int(t.nlinks, 3, "three links");
	if (t.nlinks == 3) {
		is_str(t.links[0].name, "llms.txt proposal", "link name");
		is_str(t.links[0].url, "https://llmstxt.org/index.md", "link URL");
		is_str(t.links[0].notes, "The proposal for llms.txt", "link notes");
		is_str(t.links[1].section, "Docs", "link section");
		is_str(t.links[1].notes, "Docs for `llms-txt` python lib",
		    "notes keep their inline code");
		ok(!t.links[2].optional, "not optional");
	}
	llmstxt_release(&t);
	free(s);
}

static void
test_index_of_llms_files(void)
{
	struct llmstxt	 t;
	size_t		 len;
	char		*s = fixture("1mcp/docs/public/llms.txt", &len);

	ok(s != NULL && llmstxt_parse(s, len, &t) == 0, "1mcp's llms.txt parses");
	if (s == NULL)
		return;
	is_str(t.title, "1MCP Agent Documentation", "its title");
	ok(t.summary == NULL, "no blockquote, no summary");
	is_int(t.nsections, 0, "no H2");
	is_int(t.nlinks, 3, "3 links before any H2 are read");
	if (t.nlinks == 3) {
		is_str(t.links[1].url, "/llms-zh.txt", "root-relative link kept as written");
		is_str(t.links[1].name, "中文文档", "UTF-8 name");
		ok(t.links[0].section == NULL, "no section");
	}
	ok(llmstxt_is_llms_path("/llms-en.txt") && llmstxt_is_llms_path("llms.txt") &&
	    llmstxt_is_llms_path("/a/LLMS-full.TXT") && !llmstxt_is_llms_path("/llms.txt/x")
	    && !llmstxt_is_llms_path("/guide/llms") && !llmstxt_is_llms_path("/x.txt"),
	    "llms*.txt names llms files");
	llmstxt_release(&t);
	free(s);
	s = fixture("1mcp/docs/public/llms-en.txt", &len);
	ok(s != NULL && llmstxt_parse(s, len, &t) == 0, "llms-en.txt parses");
	if (s == NULL)
		return;
	is_int(t.nlinks, 22, "its 22 links (after a numbered list too)");
	is_int(t.nsections, 3, "in 3 sections");
	llmstxt_release(&t);
	free(s);
}

static void
test_shapes(void)
{
	static const char src[] =
	    "# Proj\n\n> Line one\n> line two.\n\nFree text [not](/a link).\n\n"
	    "> a later quote\n\n## Docs\n\n"
	    "- [A](a.md): note A\n"
	    "* [B [beta]](<https://h.example/b c>) : note B\n"
	    "- [C](/c \"title\")\n"
	    "- `[D](/d)`\n"
	    "  - [E](e/)\n"
	    "- [](/empty-name)\n"
	    "- [F]( )\n"
	    "```\n- [G](/in-fence)\n```\n"
	    "    - [H](/indented-code)\n"
	    "## Optional\n\n"
	    "- [I](https://h.example/i)\n"
	    "# Second H1\n- [J](/j)\n";
	struct llmstxt	 t;
	size_t		 i;

	ok(llmstxt_parse(src, sizeof(src) - 1, &t) == 0, "shapes parse");
	is_str(t.summary, "Line one line two.", "the first blockquote only, joined");
	is_int(t.nsections, 2, "2 sections");
	is_int(t.nlinks, 7, "7 links: A, B, C, E, empty name, I, J");
	for (i = 0; i < t.nlinks; i++)
		ok(strcmp(t.links[i].url, "/in-fence") != 0 &&
		    strcmp(t.links[i].url, "/d") != 0 &&
		    strcmp(t.links[i].url, "/indented-code") != 0,
		    "link %zu (%s) is not in code", i, t.links[i].url);
	if (t.nlinks == 7) {
		is_str(t.links[1].name, "B [beta]", "nested brackets in the name");
		is_str(t.links[1].url, "https://h.example/b c", "<url> with a blank");
		is_str(t.links[1].notes, "note B", "notes after ' : '");
		is_str(t.links[2].url, "/c", "the link title is dropped");
		ok(t.links[2].notes == NULL, "no notes");
		is_str(t.links[3].url, "e/", "a nested item with 2 spaces");
		ok(t.links[4].name == NULL, "an empty name is NULL");
		ok(t.links[5].optional && !t.links[4].optional, "## Optional is marked");
		is_str(t.links[6].section, "Optional", "a later H1 keeps the section");
	}
	is_str(t.title, "Proj", "the first H1 is the title");
	llmstxt_release(&t);
}

static void
test_split_blocks(void)
{
	struct llmstxt_parts p;
	size_t		 len;
	char		*s = fixture("llmstxt-org/site/llms-ctx.txt", &len);

	ok(s != NULL, "llms-ctx.txt is read");
	if (s == NULL)
		return;
	ok(llmstxt_split(s, len, &p) == 0, "it splits");
	is_int(p.form, LLMSTXT_BLOCKS, "by its <doc> blocks");
	is_int(p.n, 3, "three documents, the quoted <project> example staying inside");
	if (p.n == 3) {
		is_str(p.v[0].title, "llms.txt proposal", "title attribute");
		is_str(p.v[2].title, "ed demo", "the last one's title");
		ok(strncmp(s + p.v[0].off, "# The /llms.txt file", 20) == 0,
		    "the content starts after the tag");
		ok(p.v[0].len > 0 && strncmp(s + p.v[0].off + p.v[0].len, "</doc>", 6) == 0,
		    "and ends at its </doc>");
		ok(strstr(s + p.v[2].off, "trusty line editor.") != NULL &&
		    strncmp(s + p.v[2].off + p.v[2].len, "</doc></docs></project>", 23) == 0,
		    "the last block ends at the end");
		ok(p.v[0].url == NULL, "no address of its own");
	}
	llmstxt_parts_release(&p);
	free(s);
}

static void
test_split_other(void)
{
	static const char docs[] =
	    "<documents>\n<document index=\"1\">\n<source>https://h.example/a</source>\n"
	    "<document_content>\n# A\ntext a\n</document_content>\n</document>\n"
	    "<document index=\"2\"><source>/b</source><document_content># B\n"
	    "</document_content></document>\n"
	    "<doc title=\"T &amp; U\" url='https://h.example/t'>inside a doc</doc>\n"
	    "</documents>\n";
	static const char heads[] =
	    "Preamble.\n# One\nSource: https://h.example/one\n\nbody one\n"
	    "```\n# not a heading\n```\n# Two\nbody two\n";
	static const char whole[] = "# Only\n\n## Two\n```\n# x\n```\n";
	static const char open[] = "<doc title=\"x\">never closed <doc>inner</doc> tail";
	struct llmstxt_parts p;

	ok(llmstxt_split(docs, sizeof(docs) - 1, &p) == 0 && p.form == LLMSTXT_BLOCKS,
	    "<document> blocks split");
	is_int(p.n, 3, "two <document>s and a <doc> (not <documents>)");
	if (p.n == 3) {
		is_str(p.v[0].url, "https://h.example/a", "<source> is the address");
		ok(p.v[0].len == 12 && strncmp(docs + p.v[0].off, "\n# A\ntext a\n", 12) == 0,
		    "the content is <document_content>");
		is_str(p.v[1].url, "/b", "a relative <source>");
		is_str(p.v[2].title, "T & U", "entities in attributes are decoded");
	}
	llmstxt_parts_release(&p);
	ok(llmstxt_split(strstr(docs, "<doc "), strlen(strstr(docs, "<doc ")), &p) == 0 &&
	    p.n == 1, "a <doc> block alone");
	if (p.n == 1) {
		ok(p.v[0].len == 12, "its content");
		is_str(p.v[0].url, "https://h.example/t", "url attribute, single quotes");
	}
	llmstxt_parts_release(&p);
	ok(llmstxt_split(heads, sizeof(heads) - 1, &p) == 0 && p.form == LLMSTXT_HEADINGS,
	    "two H1s: split by headings");
	is_int(p.n, 3, "preamble, One, Two (a # in a fence is no heading)");
	if (p.n == 3) {
		ok(p.v[0].title == NULL && p.v[0].len == 10, "the preamble");
		is_str(p.v[1].title, "One", "H1 title");
		is_str(p.v[1].url, "https://h.example/one", "the Source: line");
		ok(strstr(heads + p.v[1].off, "# not a heading") <
		    heads + p.v[1].off + p.v[1].len, "the fence stays in its part");
		ok(p.v[2].url == NULL && p.v[2].off + p.v[2].len == sizeof(heads) - 1,
		    "the last part ends at the end");
	}
	llmstxt_parts_release(&p);
	ok(llmstxt_split(whole, sizeof(whole) - 1, &p) == 0 && p.form == LLMSTXT_WHOLE &&
	    p.n == 0, "one H1: whole");
	llmstxt_parts_release(&p);
	ok(llmstxt_split(open, sizeof(open) - 1, &p) == 0 && p.n == 1 &&
	    p.v[0].off + p.v[0].len == sizeof(open) - 1, "an unclosed block ends at the end");
	llmstxt_parts_release(&p);
}

static void
test_bounds(void)
{
	struct llmstxt	 t;
	struct buf	 b;
	size_t		 i;

	buf_init(&b);
	buf_adds(&b, "# T\n## S\n");
	for (i = 0; i < LLMSTXT_MAX_LINKS + 5; i++)
		buf_printf(&b, "- [n%zu](/p%zu)\n", i, i);
	ok(llmstxt_parse(b.p, b.len, &t) == 0 && t.nlinks == LLMSTXT_MAX_LINKS &&
	    t.dropped == 5, "links past LLMSTXT_MAX_LINKS are dropped and counted");
	llmstxt_release(&t);
	buf_reset(&b);
	buf_adds(&b, "# T\n- [");
	for (i = 0; i < 3 * LLMSTXT_MAX_FIELD; i++)
		buf_addc(&b, 'x');
	buf_adds(&b, "](/u)\n");
	ok(llmstxt_parse(b.p, b.len, &t) == 0 && t.nlinks == 1 &&
	    strlen(t.links[0].name) == LLMSTXT_MAX_FIELD, "a long name is cut");
	llmstxt_release(&t);
	buf_release(&b);
}

int
main(void)
{
	test_reference();
	test_index_of_llms_files();
	test_shapes();
	test_split_blocks();
	test_split_other();
	test_bounds();
	return tap_done();
}
