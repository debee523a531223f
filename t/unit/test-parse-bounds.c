/*
 * test-parse-bounds.c: the parsers (markdown.c, rst.c, source.c, the plain text reader and
 * the section builder of doc.c) take time linear in their input along every dimension an
 * author or an attacker controls: repeated and distinct headings, nesting depth (lists,
 * block quotes, rst sections and directives, braces and indentation of source files), line
 * length, list items, table rows and columns, code blocks, and the inline constructs that
 * made other Markdown parsers quadratic. Each adversarial input is parsed at 25 KB and at
 * 100 KB: four times the input must take less than ten times the CPU time (a quadratic
 * parse takes sixteen times, the old anchor step far more). A parse that runs away is
 * stopped through the parse poll (doc_parse_poll), so a failure is quick. The results stay
 * right (25,000 '# a' headings get the anchors a, a-1, ...), and a poll that says stop
 * stops every parser mid-file.
 *
 * With arguments, "test-parse-bounds measure [NAME]" prints the CPU time of each input at
 * 25, 50, 100 and 200 KB instead (bench use).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "parse/code.h"
#include "parse/doc.h"
#include "parse/llmstxt.h"
#include "parse/parse.h"
#include "sources/links.h"
#include "sources/robots.h"
#include "sources/sitemap.h"
#include "tap.h"

/* How an input is made from its pieces, up to a size. */
enum pb_mode {
	PB_REPEAT,	/* head, a repeated, tail */
	PB_SPLIT,	/* head, a for half the size, mid, b for the rest, tail */
	PB_COUNT,	/* head, a repeated with "%zu" replaced by a counter, tail */
	PB_STAIR,	/* head, then lines of k copies of a followed by b, k = 0, 1, ... */
	PB_THIRDS	/* head, a for a third, mid, b for a third, tail, c for the rest */
};

struct pb_case {
	const char	*name;
	const char	*path;		/* picks the parser */
	enum pb_mode	 mode;
	const char	*head, *a, *mid, *b, *tail, *c;
};

static const struct pb_case pb_cases[] = {
	/* Markdown: headings */
	{ "md same heading", "a.md", PB_REPEAT, "", "# a\n", NULL, NULL, "", NULL },
	{ "md same heading+text", "a.md", PB_REPEAT, "", "# a\nx\n", NULL, NULL, "", NULL },
	{ "md distinct headings", "a.md", PB_COUNT, "", "# h%zu\nx\n", NULL, NULL, "", NULL },
	{ "md heading a-N collide", "a.md", PB_COUNT, "", "# a\nx\n# a-%zu\nx\n", NULL, NULL, "", NULL },
	{ "md long h1 then h2s", "a.md", PB_SPLIT, "# ", "a", "\n", "## b\nx\n", "", NULL },
	{ "md long h1..h6 then h6s", "a.md", PB_SPLIT, "", "# aaaaaaaaaaaaaaaaaa\n## aaaaaaaaaaaaaaa\n### aaaaaaaaaaa\n", "#### a\n##### a\n", "###### b\nx\n", "", NULL },
	{ "md setext", "a.md", PB_REPEAT, "", "a\n=\n", NULL, NULL, "", NULL },
	{ "md long heading line", "a.md", PB_REPEAT, "# ", "a ", NULL, NULL, "\n", NULL },
	/* nesting */
	{ "md quote deep+lazy", "a.md", PB_SPLIT, "", ">", " x\n", "x\n", "", NULL },
	{ "md quote deep lines", "a.md", PB_SPLIT, "", ">", " x\n", ">>>>>>>>>>>>>>>>>>>> x\n", "", NULL },
	{ "md list deep+lazy", "a.md", PB_SPLIT, "", "- ", "x\n", "x\n", "", NULL },
	{ "md olist deep+lazy", "a.md", PB_SPLIT, "", "1. ", "x\n", "x\n", "", NULL },
	{ "md list stair", "a.md", PB_STAIR, "", "  ", NULL, "- x\n", "", NULL },
	{ "md quote stair", "a.md", PB_STAIR, "", ">", NULL, " x\n", "", NULL },
	{ "md list deep+items", "a.md", PB_SPLIT, "", "- ", "x\n", "- y\n", "", NULL },
	/* lines, items, cells */
	{ "md long line", "a.md", PB_REPEAT, "", "abcd ", NULL, NULL, "\n", NULL },
	{ "md long line nospace", "a.md", PB_REPEAT, "", "a", NULL, NULL, "\n", NULL },
	{ "md list items", "a.md", PB_REPEAT, "", "- x\n", NULL, NULL, "", NULL },
	{ "md ordered items", "a.md", PB_REPEAT, "", "1. x\n", NULL, NULL, "", NULL },
	{ "md loose items", "a.md", PB_REPEAT, "", "- x\n\n", NULL, NULL, "", NULL },
	{ "md table wide", "a.md", PB_SPLIT, "", "|a", "|\n", "|-", "|\n|x|\n", NULL },
	{ "md table wide rows", "a.md", PB_SPLIT, "|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|\n|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|\n", "|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|\n", "", "|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|a|\n", "", NULL },
	{ "md table rows", "a.md", PB_REPEAT, "|a|b|\n|-|-|\n", "|x|y|\n", NULL, NULL, "", NULL },
	{ "md table pipes", "a.md", PB_REPEAT, "|a|b|\n|-|-|\n", "|", NULL, NULL, "\n", NULL },
	{ "md code blocks", "a.md", PB_REPEAT, "", "```\nx\n```\n", NULL, NULL, "", NULL },
	{ "md code blocks+text", "a.md", PB_REPEAT, "", "t\n```c\nx\n```\n", NULL, NULL, "", NULL },
	{ "md open fence", "a.md", PB_REPEAT, "```\n", "x\n", NULL, NULL, "", NULL },
	{ "md indented code", "a.md", PB_REPEAT, "", "    x\n\n", NULL, NULL, "", NULL },
	{ "md fence backticks", "a.md", PB_REPEAT, "", "````\n", NULL, NULL, "", NULL },
	/* inlines */
	{ "md emph", "a.md", PB_REPEAT, "", "*a", NULL, NULL, "\n", NULL },
	{ "md strong", "a.md", PB_REPEAT, "", "**a", NULL, NULL, "\n", NULL },
	{ "md under", "a.md", PB_REPEAT, "", "_a", NULL, NULL, "\n", NULL },
	{ "md emph mix", "a.md", PB_REPEAT, "", "*a _b ", NULL, NULL, "\n", NULL },
	{ "md stars", "a.md", PB_REPEAT, "a", "*", NULL, NULL, "a\n", NULL },
	{ "md strike", "a.md", PB_REPEAT, "", "~~a", NULL, NULL, "\n", NULL },
	{ "md brackets", "a.md", PB_REPEAT, "", "[", NULL, NULL, "\n", NULL },
	{ "md brackets a", "a.md", PB_REPEAT, "", "[a", NULL, NULL, "\n", NULL },
	{ "md nested brackets", "a.md", PB_SPLIT, "", "[", "a", "]", "\n", NULL },
	{ "md link open", "a.md", PB_REPEAT, "", "[a](", NULL, NULL, "\n", NULL },
	{ "md link close", "a.md", PB_REPEAT, "", "](a", NULL, NULL, "\n", NULL },
	{ "md ref open", "a.md", PB_REPEAT, "", "[a][", NULL, NULL, "\n", NULL },
	{ "md images", "a.md", PB_REPEAT, "", "![a", NULL, NULL, "\n", NULL },
	{ "md links", "a.md", PB_REPEAT, "", "[a](b) ", NULL, NULL, "\n", NULL },
	{ "md refdefs", "a.md", PB_COUNT, "", "[r%zu]: /u\n", NULL, NULL, "", NULL },
	{ "md refs", "a.md", PB_REPEAT, "[r]: /u\n\n", "[r] ", NULL, NULL, "\n", NULL },
	{ "md backticks", "a.md", PB_REPEAT, "", "`a", NULL, NULL, "\n", NULL },
	{ "md backtick runs", "a.md", PB_STAIR, "", "`", NULL, "a", "\n", NULL },
	{ "md lt", "a.md", PB_REPEAT, "", "<a", NULL, NULL, "\n", NULL },
	{ "md autolinks", "a.md", PB_REPEAT, "", "<http://a", NULL, NULL, "\n", NULL },
	{ "md entities", "a.md", PB_REPEAT, "", "&amp;", NULL, NULL, "\n", NULL },
	{ "md amps", "a.md", PB_REPEAT, "", "&#", NULL, NULL, "\n", NULL },
	{ "md backslashes", "a.md", PB_REPEAT, "", "\\", NULL, NULL, "\n", NULL },
	{ "md attr open", "a.md", PB_REPEAT, "", "{#", NULL, NULL, "\n", NULL },
	{ "md attr colon", "a.md", PB_REPEAT, "", "{:", NULL, NULL, "\n", NULL },
	{ "md attr close", "a.md", PB_SPLIT, "", "{#", "a", "a", "}\n", NULL },
	{ "md www", "a.md", PB_REPEAT, "", "www.a", NULL, NULL, "\n", NULL },
	{ "md url", "a.md", PB_REPEAT, "", "http://a", NULL, NULL, "\n", NULL },
	{ "md html block lt", "a.md", PB_REPEAT, "<div>\n", "<a", NULL, NULL, "\n", NULL },
	{ "md html blocks", "a.md", PB_REPEAT, "", "<div>\n\n", NULL, NULL, "", NULL },
	{ "md html comment open", "a.md", PB_REPEAT, "<div>\n", "<!--", NULL, NULL, "\n", NULL },
	{ "md html script", "a.md", PB_REPEAT, "<div>\n", "<script", NULL, NULL, "\n", NULL },
	{ "md html inline", "a.md", PB_REPEAT, "", "<b>a", NULL, NULL, "\n", NULL },
	{ "md html lt space", "a.md", PB_REPEAT, "<div>\n", "<a ", NULL, NULL, "\n", NULL },
	/* pre-pass */
	{ "md front examples", "a.md", PB_REPEAT, "---\nExample:\n", " - a\n", NULL, NULL, "---\n# x\n", NULL },
	{ "md front open", "a.md", PB_REPEAT, "---\n", "a: b\n", NULL, NULL, "", NULL },
	{ "md admon", "a.md", PB_REPEAT, "", "!!! note \"a\"\n    x\n", NULL, NULL, "", NULL },
	{ "md admon stair", "a.md", PB_STAIR, "", "    ", NULL, "!!! note\n", "", NULL },
	{ "md vitepress", "a.md", PB_REPEAT, "", "::: tip a\nx\n:::\n", NULL, NULL, "", NULL },
	{ "mdx open tag", "a.mdx", PB_REPEAT, "<Foo\n", "a\n", NULL, NULL, "", NULL },
	{ "mdx open tag braces", "a.mdx", PB_REPEAT, "<Foo\n", "{a\n", NULL, NULL, "", NULL },
	{ "mdx tags", "a.mdx", PB_REPEAT, "", "<A>\n", NULL, NULL, "", NULL },
	{ "mdx tags line", "a.mdx", PB_REPEAT, "", "<A>", NULL, NULL, "\n", NULL },
	{ "mdx close tags line", "a.mdx", PB_REPEAT, "x", "</A>", NULL, NULL, "\n", NULL },
	{ "mdx gt line", "a.mdx", PB_REPEAT, "x<A", ">", NULL, NULL, "\n", NULL },
	{ "mdx attrs", "a.mdx", PB_REPEAT, "<A ", "name=\"x\" ", NULL, NULL, "/>\n", NULL },
	{ "mdx quote", "a.mdx", PB_REPEAT, "<A b=\"", "x\n", NULL, NULL, "", NULL },
	{ "mdx imports", "a.mdx", PB_REPEAT, "", "import a from 'b'\n", NULL, NULL, "", NULL },
	/* rst */
	{ "rst same heading", "a.rst", PB_REPEAT, "", "a\n===\n\n", NULL, NULL, "", NULL },
	{ "rst same heading+text", "a.rst", PB_REPEAT, "", "a\n===\n\nx\n\n", NULL, NULL, "", NULL },
	{ "rst distinct headings", "a.rst", PB_COUNT, "", "h%zu\n=====\n\nx\n\n", NULL, NULL, "", NULL },
	{ "rst over headings", "a.rst", PB_REPEAT, "", "===\na\n===\n", NULL, NULL, "", NULL },
	{ "rst styles", "a.rst", PB_REPEAT, "", "a\n===\nb\n---\nc\n~~~\nd\n^^^\ne\n'''\nf\n\"\"\"\ng\n***\n", NULL, NULL, "", NULL },
	{ "rst long title then subs", "a.rst", PB_SPLIT, "", "a", "\n=\n\n", "b\n---\n\nx\n\n", "", NULL },
	{ "rst adorn lines", "a.rst", PB_REPEAT, "", "====\n", NULL, NULL, "", NULL },
	{ "rst adorn lines in note", "a.rst", PB_REPEAT, ".. note::\n\n", "   ====\n", NULL, NULL, "", NULL },
	{ "rst simple table rows", "a.rst", PB_REPEAT, "=== ===\na   b\n=== ===\n", "x   y\n", NULL, NULL, "=== ===\n", NULL },
	{ "rst simple table wide", "a.rst", PB_SPLIT, "", "= ", "\n", "a  ", "\n", NULL },
	{ "rst grid wide", "a.rst", PB_SPLIT, "", "+-", "+\n", "|a", "|\n", NULL },
	{ "rst grid rows", "a.rst", PB_REPEAT, "+---+---+\n", "| a | b |\n", NULL, NULL, "+---+---+\n", NULL },
	{ "rst nested note", "a.rst", PB_STAIR, "", "   ", NULL, ".. note::\n", "", NULL },
	{ "rst nested note text", "a.rst", PB_STAIR, "", "   ", NULL, ".. note:: x\n\n", "", NULL },
	{ "rst list stair", "a.rst", PB_STAIR, "", "  ", NULL, "- x\n", "", NULL },
	{ "rst list inline deep", "a.rst", PB_SPLIT, "", "- ", "x\n", "  x\n", "", NULL },
	{ "rst quote stair", "a.rst", PB_STAIR, "", " ", NULL, "x\n\n", "", NULL },
	{ "rst deep then lines", "a.rst", PB_SPLIT, "", "- ", "x\n", "                                          x\n", "", NULL },
	{ "rst long line", "a.rst", PB_REPEAT, "", "abcd ", NULL, NULL, "\n", NULL },
	{ "rst roles", "a.rst", PB_REPEAT, "", ":a", NULL, NULL, "\n", NULL },
	{ "rst roles2", "a.rst", PB_REPEAT, "", ":a:", NULL, NULL, "\n", NULL },
	{ "rst dbl ticks", "a.rst", PB_REPEAT, "", "``a", NULL, NULL, "\n", NULL },
	{ "rst ticks", "a.rst", PB_REPEAT, "", "`a", NULL, NULL, "\n", NULL },
	{ "rst ticks lt", "a.rst", PB_REPEAT, "`", "a <", NULL, NULL, "`_\n", NULL },
	{ "rst backslash", "a.rst", PB_REPEAT, "", "\\a", NULL, NULL, "\n", NULL },
	{ "rst list items", "a.rst", PB_REPEAT, "", "- x\n", NULL, NULL, "", NULL },
	{ "rst enum items", "a.rst", PB_REPEAT, "", "1. x\n", NULL, NULL, "", NULL },
	{ "rst code blocks", "a.rst", PB_REPEAT, "", ".. code-block:: py\n\n   x\n\n", NULL, NULL, "", NULL },
	{ "rst literal blocks", "a.rst", PB_REPEAT, "", "a::\n\n   x\n\n", NULL, NULL, "", NULL },
	{ "rst doctest", "a.rst", PB_REPEAT, "", ">>> x\n", NULL, NULL, "", NULL },
	{ "rst line blocks", "a.rst", PB_REPEAT, "", "| a\n", NULL, NULL, "", NULL },
	{ "rst comments", "a.rst", PB_REPEAT, "", "..\n", NULL, NULL, "", NULL },
	{ "rst directives", "a.rst", PB_REPEAT, "", ".. note:: a\n", NULL, NULL, "", NULL },
	{ "rst autodoc", "a.rst", PB_REPEAT, ".. module:: m\n\n", ".. autofunction:: f\n", NULL, NULL, "", NULL },
	{ "rst options", "a.rst", PB_REPEAT, ".. code-block:: py\n", "   :a: b\n", NULL, NULL, "", NULL },
	{ "rst definition", "a.rst", PB_REPEAT, "", "term\n   def\n", NULL, NULL, "", NULL },
	{ "rst para lines", "a.rst", PB_REPEAT, "", "a\n", NULL, NULL, "", NULL },
	/* source */
	{ "rs docs same", "src/lib.rs", PB_REPEAT, "", "/// a\nfn f() {}\n", NULL, NULL, "", NULL },
	{ "rs docs distinct", "src/lib.rs", PB_COUNT, "", "/// a\nfn f%zu() {}\n", NULL, NULL, "", NULL },
	{ "rs doc headings", "src/lib.rs", PB_REPEAT, "", "/// # a\n/// x\n", NULL, NULL, "fn f() {}\n", NULL },
	{ "rs braces", "src/lib.rs", PB_SPLIT, "", "{", "\n", "/// a\nfn f() {}\n", "", NULL },
	{ "rs mods", "src/lib.rs", PB_SPLIT, "", "mod a {", "\n", "/// a\nfn f() {}\n", "", NULL },
	{ "rs long mod", "src/lib.rs", PB_SPLIT, "mod ", "a", " {\n", "/// a\nfn f() {}\n", "", NULL },
	{ "rs inner docs", "src/lib.rs", PB_REPEAT, "", "//! a\n", NULL, NULL, "", NULL },
	{ "rs open block doc", "src/lib.rs", PB_REPEAT, "/**\n", "a\n", NULL, NULL, "", NULL },
	{ "rs block docs", "src/lib.rs", PB_REPEAT, "", "/** a */ fn f() {}\n", NULL, NULL, "", NULL },
	{ "rs attrs", "src/lib.rs", PB_REPEAT, "/// a\n", "#[a]\n", NULL, NULL, "fn f() {}\n", NULL },
	{ "rs attr open", "src/lib.rs", PB_REPEAT, "/// a\n#[", "(", NULL, NULL, "\nfn f() {}\n", NULL },
	{ "rs long sig", "src/lib.rs", PB_REPEAT, "/// a\nfn f(", "a: u8, ", NULL, NULL, ") {}\n", NULL },
	{ "rs long impl", "src/lib.rs", PB_REPEAT, "impl<", "<", NULL, NULL, "> X {\n/// a\nfn f() {}\n}\n", NULL },
	{ "rs generics", "src/lib.rs", PB_REPEAT, "/// a\nfn f", "<", NULL, NULL, "() {}\n", NULL },
	{ "rs long line", "src/lib.rs", PB_REPEAT, "/// ", "abcd ", NULL, NULL, "\nfn f() {}\n", NULL },
	{ "rs strings", "src/lib.rs", PB_REPEAT, "", "\"a\n", NULL, NULL, "", NULL },
	{ "rs raw strings", "src/lib.rs", PB_REPEAT, "", "r#\"a\n", NULL, NULL, "", NULL },
	{ "rs nested comments", "src/lib.rs", PB_REPEAT, "", "/*", NULL, NULL, "", NULL },
	{ "rs fields", "src/lib.rs", PB_REPEAT, "struct S {\n", "/// a\na: u8,\n", NULL, NULL, "}\n", NULL },
	{ "c docs", "a.c", PB_REPEAT, "", "/** a */\nint f(void);\n", NULL, NULL, "", NULL },
	{ "c doc lines", "a.c", PB_REPEAT, "", "/// a\nint f(void);\n", NULL, NULL, "", NULL },
	{ "c defines", "a.c", PB_REPEAT, "", "/** a */\n#define A 1\n", NULL, NULL, "", NULL },
	{ "c braces", "a.c", PB_SPLIT, "", "struct a {", "\n", "/** a */\nint f;\n", "", NULL },
	{ "c equals", "a.c", PB_REPEAT, "/** a */\nint a ", "= ", NULL, NULL, ";\n", NULL },
	{ "c parens", "a.c", PB_REPEAT, "/** a */\nint a", "(", NULL, NULL, ";\n", NULL },
	{ "ts examples", "a.ts", PB_REPEAT, "", "/**\n * @example\n * a\n */\nfunction f() {}\n", NULL, NULL, "", NULL },
	{ "ts tags", "a.ts", PB_REPEAT, "/**\n", " * @param a\n", NULL, NULL, " */\nfunction f() {}\n", NULL },
	{ "ts ticks", "a.ts", PB_REPEAT, "", "`a\n", NULL, NULL, "", NULL },
	{ "java annotations", "A.java", PB_REPEAT, "/** a */\n", "@A(b) ", NULL, NULL, "void f() {}\n", NULL },
	{ "cs attrs", "a.cs", PB_REPEAT, "/// a\n", "[", NULL, NULL, "\nvoid f() {}\n", NULL },
	{ "go docs", "a.go", PB_REPEAT, "", "// a\nfunc F() {}\n", NULL, NULL, "", NULL },
	{ "go comment lines", "a.go", PB_REPEAT, "", "// a\n", NULL, NULL, "func F() {}\n", NULL },
	{ "go recv", "a.go", PB_REPEAT, "// a\nfunc (", "[", NULL, NULL, ") F() {}\n", NULL },
	{ "py docs", "a.py", PB_REPEAT, "", "def f():\n    \"\"\"a\"\"\"\n", NULL, NULL, "", NULL },
	{ "py docs distinct", "a.py", PB_COUNT, "", "def f%zu():\n    \"\"\"a\"\"\"\n", NULL, NULL, "", NULL },
	{ "py class stair", "a.py", PB_STAIR, "", " ", NULL, "class A:\n", "", NULL },
	{ "py class stair doc", "a.py", PB_STAIR, "", " ", NULL, "def f():\n \"\"\"a\"\"\"\n", "", NULL },
	{ "py open docstring", "a.py", PB_REPEAT, "def f():\n    \"\"\"", "a\n", NULL, NULL, "", NULL },
	{ "py quote docs", "a.py", PB_REPEAT, "", "def f():\n    'a\n", NULL, NULL, "", NULL },
	{ "py dq docs", "a.py", PB_REPEAT, "", "def f():\n    \"a\n", NULL, NULL, "", NULL },
	{ "py doctest", "a.py", PB_REPEAT, "def f():\n    \"\"\"\n", "    >>> a\n", NULL, NULL, "    \"\"\"\n", NULL },
	{ "py literal", "a.py", PB_REPEAT, "def f():\n    \"\"\"\n", "    a::\n", NULL, NULL, "    \"\"\"\n", NULL },
	{ "py sig parens", "a.py", PB_REPEAT, "def f(", "(\n", NULL, NULL, "):\n    \"\"\"a\"\"\"\n", NULL },
	{ "py defs", "a.py", PB_REPEAT, "", "def f(\n", NULL, NULL, "", NULL },
	{ "rb docs", "a.rb", PB_REPEAT, "", "# a\ndef f\nend\n", NULL, NULL, "", NULL },
	{ "rb stair", "a.rb", PB_STAIR, "", " ", NULL, "# a\nclass A\n", "", NULL },
	{ "rb colons", "a.rb", PB_REPEAT, "# a\nclass A", "::A", NULL, NULL, "\nend\n", NULL },
	/* plain */
	{ "txt long line", "a.txt", PB_REPEAT, "", "abcd ", NULL, NULL, "\n", NULL },
	{ "txt lines", "a.txt", PB_REPEAT, "", "a\n", NULL, NULL, "", NULL },
	{ "txt paras", "a.txt", PB_REPEAT, "", "a\n\n", NULL, NULL, "", NULL },
	{ "md at paras", "a.md", PB_REPEAT, "", "@param a\n\n", NULL, NULL, "", NULL },
	{ "md at lines", "a.md", PB_REPEAT, "", "@param a\n", NULL, NULL, "", NULL },
	{ "md at", "a.md", PB_REPEAT, "", "@a ", NULL, NULL, "\n", NULL },
	{ "md dots", "a.md", PB_REPEAT, "", "a.", NULL, NULL, "\n", NULL },
	{ "md colons", "a.md", PB_REPEAT, "", "a:", NULL, NULL, "\n", NULL },
	{ "ts tags2", "a.ts", PB_REPEAT, "/**\n", " * @param a\n", NULL, NULL, " */\nfunction f() {}\n", NULL },
	{ "md4c 236 table", "a.md", PB_REPEAT, "|a|\n|-|\n", "|]([|\n", NULL, NULL, "", NULL },
	{ "md4c 236 list", "a.md", PB_REPEAT, "- x\n", "    ]([\n", NULL, NULL, "", NULL },
	{ "md4c 236 items", "a.md", PB_REPEAT, "", "- ]([\n", NULL, NULL, "", NULL },
	{ "md4c 236 quote", "a.md", PB_REPEAT, "", "> ]([\n", NULL, NULL, "", NULL },
	{ "md4c 236 code", "a.md", PB_REPEAT, "", "    ]([\n", NULL, NULL, "", NULL },
	{ "md4c 236 heading", "a.md", PB_REPEAT, "", "]([\n", NULL, NULL, "\n===\n", NULL },
	{ "md4c ](", "a.md", PB_REPEAT, "", "](\n", NULL, NULL, "", NULL },
	{ "md4c [", "a.md", PB_REPEAT, "", "[\n", NULL, NULL, "", NULL },
	{ "md4c [](", "a.md", PB_REPEAT, "", "[](\n", NULL, NULL, "", NULL },
	{ "md4c [a](", "a.md", PB_REPEAT, "", "[a](\n", NULL, NULL, "", NULL },
	{ "md4c * lines", "a.md", PB_REPEAT, "", "*a\n", NULL, NULL, "", NULL },
	{ "md4c ` lines", "a.md", PB_REPEAT, "", "`a\n", NULL, NULL, "", NULL },
	{ "md4c < lines", "a.md", PB_REPEAT, "", "<a\n", NULL, NULL, "", NULL },
	{ "md4c ]: lines", "a.md", PB_REPEAT, "", "[a]:\n", NULL, NULL, "", NULL },
	{ "md4c ]:( lines", "a.md", PB_REPEAT, "", "[a]: <\n", NULL, NULL, "", NULL },
	{ "md4c title lines", "a.md", PB_REPEAT, "[a]: b \"", "x\n", NULL, NULL, "", NULL },
	{ "md4c link title", "a.md", PB_REPEAT, "[a](b \"", "x\n", NULL, NULL, "", NULL },
	{ "md4c a] lines", "a.md", PB_REPEAT, "", "a]\n", NULL, NULL, "", NULL },
	{ "md4c ]( ( lines", "a.md", PB_REPEAT, "", "]((\n", NULL, NULL, "", NULL },
	{ "md4c [x]( lines", "a.md", PB_REPEAT, "", "[x](<\n", NULL, NULL, "", NULL },
	{ "md4c ![ lines", "a.md", PB_REPEAT, "", "![a](\n", NULL, NULL, "", NULL },
	{ "md4c ]\\( lines", "a.md", PB_REPEAT, "", "] (\n", NULL, NULL, "", NULL },
	{ "md4c ][ lines", "a.md", PB_REPEAT, "", "][\n", NULL, NULL, "", NULL },
	{ "md4c ][x lines", "a.md", PB_REPEAT, "", "[a][\n", NULL, NULL, "", NULL },
	{ "md table fill", "a.md", PB_THIRDS, "", "x|", "\n", "-|", "\n", "x|\n" },
	{ "md table fill2", "a.md", PB_THIRDS, "", "x|", "\n", "-|", "\n", "x\n" },
	{ "rst grid fill", "a.rst", PB_THIRDS, "", "+-", "+\n", "|a", "|\n", "" },
	{ "md4c 236", "a.md", PB_REPEAT, "", "]([\n", NULL, NULL, "", NULL },
	{ "md cdata", "a.md", PB_REPEAT, "", "a <![CDATA[", NULL, NULL, "\n", NULL },
	{ "md pi", "a.md", PB_REPEAT, "", "a <? ", NULL, NULL, "\n", NULL },
	{ "md decl", "a.md", PB_REPEAT, "", "a <!A", NULL, NULL, "\n", NULL },
	{ "md ltgt", "a.md", PB_REPEAT, "", "<>", NULL, NULL, "\n", NULL },
	{ "md bs ticks", "a.md", PB_REPEAT, "", "\\``", NULL, NULL, "\n", NULL },
	{ "md [ (](", "a.md", PB_REPEAT, "", "[ (](", NULL, NULL, "\n", NULL },
	{ "md * * a", "a.md", PB_REPEAT, "", "* ", NULL, NULL, "a\n", NULL },
	{ "md a***", "a.md", PB_REPEAT, "", "a***", NULL, NULL, "\n", NULL },
	{ "md [a](<b", "a.md", PB_REPEAT, "", "[a](<b", NULL, NULL, "\n", NULL },
	{ "md [](", "a.md", PB_REPEAT, "", "[](", NULL, NULL, "\n", NULL },
	{ "md nested strong", "a.md", PB_SPLIT, "", "*a **a ", "b", " a** a*", "\n", NULL },
	{ "md a_", "a.md", PB_REPEAT, "", "a_", NULL, NULL, "\n", NULL },
	{ "md _a a_", "a.md", PB_SPLIT, "", "_a ", "", "a_ ", "\n", NULL },
	{ "md **x [**", "a.md", PB_REPEAT, "", "**x [", NULL, NULL, "\n", NULL },
	{ "md a]", "a.md", PB_REPEAT, "", "a]", NULL, NULL, "\n", NULL },
	{ "md [[]]", "a.md", PB_SPLIT, "", "[", "", "]", "\n", NULL },
	{ "md ![[]()", "a.md", PB_REPEAT, "", "![[]()", NULL, NULL, "\n", NULL },
	{ "md a ![b](", "a.md", PB_REPEAT, "", "a ![b]( ", NULL, NULL, "\n", NULL },
	{ "md *a_", "a.md", PB_REPEAT, "", "*a_ ", NULL, NULL, "\n", NULL },
	{ "md link ref deep", "a.md", PB_SPLIT, "", "[", "a", "]", "\n[a]: b\n", NULL },
	{ "md <<<", "a.md", PB_REPEAT, "", "<", NULL, NULL, "\n", NULL },
	{ "md ~~~", "a.md", PB_REPEAT, "a", "~", NULL, NULL, "a\n", NULL },
	{ "md ***", "a.md", PB_REPEAT, "a", "***a", NULL, NULL, "\n", NULL },
	{ "md ` runs2", "a.md", PB_COUNT, "", "`%zu`` ", NULL, NULL, "\n", NULL },
	{ "md table cells long", "a.md", PB_SPLIT, "a|b\n-|-\n", "a|", "\n", "|\n", "", NULL },
	{ "md list+quote", "a.md", PB_SPLIT, "", "> - ", "x\n", "x\n", "", NULL },
	{ "md quote in list", "a.md", PB_SPLIT, "", "- > ", "x\n", "x\n", "", NULL },
	{ "md heading in list", "a.md", PB_REPEAT, "", "- # a\n", NULL, NULL, "", NULL },
	{ "md heading in quote", "a.md", PB_REPEAT, "", "> # a\n", NULL, NULL, "", NULL },
	{ "md fences in list", "a.md", PB_SPLIT, "", "- ", "```\n", "x\n", "", NULL },
	{ "md www.", "a.md", PB_REPEAT, "", "www.", NULL, NULL, "\n", NULL },
	{ "md email", "a.md", PB_REPEAT, "", "a@", NULL, NULL, "\n", NULL },
	{ "md email b", "a.md", PB_REPEAT, "", "a@b.", NULL, NULL, "\n", NULL },
	{ "md http://", "a.md", PB_REPEAT, "", "http://", NULL, NULL, "\n", NULL },
	{ "md dollar", "a.md", PB_REPEAT, "", "$a", NULL, NULL, "\n", NULL },
	{ "mdx jsx deep", "a.mdx", PB_REPEAT, "", "<A>\n", NULL, NULL, "", NULL },
	{ "mdx inline close", "a.mdx", PB_REPEAT, "a ", "<A>", NULL, NULL, "\n", NULL },
	{ "mdx attr cmd", "a.mdx", PB_REPEAT, "", "<A command=\"x\" name=\"y\" type=\"z\"/>\n", NULL, NULL, "", NULL },
	{ "md example lines", "docs/cmdline-opts/x.md", PB_REPEAT, "---\nLong: a\nExample:\n", " - a\n", NULL, NULL, "---\n", NULL },
	{ "md twoslash", "a.md", PB_REPEAT, "```ts twoslash\n", "// ---cut---\n", NULL, NULL, "```\n", NULL },
	{ "md rust hidden", "a.md", PB_REPEAT, "```rust\n", "# a\n", NULL, NULL, "```\n", NULL },
	{ "md html lines", "a.md", PB_REPEAT, "<div>\n", "a\n", NULL, NULL, "", NULL },
	{ "md html tags", "a.md", PB_REPEAT, "<div>\n", "<b>", NULL, NULL, "\n", NULL },
	{ "md html entity", "a.md", PB_REPEAT, "<div>\n", "&#1", NULL, NULL, "\n", NULL },
	{ "md html link", "a.md", PB_REPEAT, "<div>\n", "[a](", NULL, NULL, "\n", NULL },
	{ "md html ref", "a.md", PB_REPEAT, "<div>\n", "[a][", NULL, NULL, "\n", NULL },
	{ "md html brackets", "a.md", PB_REPEAT, "<div>\n", "[", NULL, NULL, "\n", NULL },
	{ "md html attr", "a.md", PB_REPEAT, "<div>\n", "{#", NULL, NULL, "}\n", NULL },
	{ "md html attr2", "a.md", PB_REPEAT, "<div>\n", "{:", NULL, NULL, "}\n", NULL },
	{ "md heading attr", "a.md", PB_REPEAT, "# ", "{", NULL, NULL, "\n", NULL },
	{ "md vitepress deep", "a.md", PB_REPEAT, "", ":::", NULL, NULL, "\n", NULL },
	{ "java pre blocks", "A.java", PB_REPEAT, "/**\n", " * <pre>{@code\n * a\n * }</pre>\n", NULL, NULL, " */\nclass A {}\n", NULL },
	{ "java pre open", "A.java", PB_REPEAT, "/**\n * <pre>\n", " * a\n", NULL, NULL, " */\nclass A {}\n", NULL },
	{ "java inline code", "A.java", PB_REPEAT, "/** ", "{@code a ", NULL, NULL, "*/\nclass A {}\n", NULL },
	{ "java param lt", "A.java", PB_REPEAT, "/** ", "@param <a ", NULL, NULL, "*/\nclass A {}\n", NULL },
	{ "py code-blocks", "a.py", PB_REPEAT, "def f():\n    \"\"\"a\n\n", "    .. code-block:: python\n\n        x\n\n", NULL, NULL, "    \"\"\"\n", NULL },
	{ "py directive options", "a.py", PB_REPEAT, "def f():\n    \"\"\"a\n\n    .. code:: c\n", "        :a: b\n", NULL, NULL, "    \"\"\"\n", NULL },
	{ "py sections", "a.py", PB_REPEAT, "def f():\n    \"\"\"a\n\n", "    Args:\n        x: y\n", NULL, NULL, "    \"\"\"\n", NULL },
	{ "py section entries", "a.py", PB_REPEAT, "def f():\n    \"\"\"a\n\n    Args:\n", "        x: y\n", NULL, NULL, "    \"\"\"\n", NULL },
	{ "py doctest lines", "a.py", PB_REPEAT, "def f():\n    \"\"\"a\n\n", "    >>> x\n", NULL, NULL, "    \"\"\"\n", NULL },
	{ "py literal stair", "a.py", PB_STAIR, "def f():\n    \"\"\"a\n", " ", NULL, "x::\n", "    \"\"\"\n", NULL },
	{ "py undocumented defs", "a.py", PB_COUNT, "", "def f%zu(a,\n      b):\n    return a\n", NULL, NULL, "", NULL },
	{ "go example lines", "a.go", PB_REPEAT, "// a\n//\n", "//\tx\n", NULL, NULL, "func F() {}\n", NULL },
	{ "go example blocks", "a.go", PB_REPEAT, "", "// a\n//\n//\tx\n//\n// b\n", NULL, NULL, "func F() {}\n", NULL },
	{ "go undocumented", "a.go", PB_COUNT, "package a\n", "func F%zu() {\n\treturn\n}\n", NULL, NULL, "", NULL },
	{ "c undocumented", "a.c", PB_REPEAT, "", "int\nf(void)\n{\n\treturn g(1);\n}\n", NULL, NULL, "", NULL },
	{ "c parens braces", "a.c", PB_REPEAT, "int f(", "{", NULL, NULL, "", NULL },
	{ "c paren open", "a.c", PB_REPEAT, "", "(\n", NULL, NULL, "/** a */\nint f(void);\n", NULL },
	{ "ts generic defaults", "a.ts", PB_REPEAT, "/** a */\nclass A<", "T = {", NULL, NULL, ">\n", NULL },
	{ "ts generic classes", "a.ts", PB_REPEAT, "", "/** a */\nclass A<T = {}> {\n  /** b */\n  m() {}\n}\n", NULL, NULL, "", NULL },
	{ "cpp templates", "a.hpp", PB_REPEAT, "", "/// a\ntemplate <typename T = std::vector<int>>\nclass A {\n  /// b\n  bool operator<(const A &o) const;\n};\n", NULL, NULL, "", NULL },
	{ "cpp template open", "a.hpp", PB_REPEAT, "/// a\ntemplate ", "<", NULL, NULL, "\nclass A {};\n", NULL },
	{ "cpp operators", "a.hpp", PB_REPEAT, "/// a\nbool operator", "<", NULL, NULL, "(int);\n", NULL },
	{ "cpp attrs on line", "a.hpp", PB_REPEAT, "", "/// a\n[[nodiscard]] int f();\n", NULL, NULL, "", NULL },
	{ "ts decorators", "a.ts", PB_REPEAT, "", "@A({ a: 1 })\nclass B {\n  m() {}\n}\n", NULL, NULL, "", NULL },
	{ "md admon marks", "a.md", PB_REPEAT, "", "!!! a\n", NULL, NULL, "", NULL },
	/* llms.txt: structure and splitting (lib/parse/llmstxt.c) */
	{ "llms links", "llms", PB_REPEAT, "# T\n> s\n## S\n", "- [a](/b): c\n", NULL, NULL, "", NULL },
	{ "llms sections", "llms", PB_COUNT, "# T\n", "## s%zu\n- [a](/b)\n", NULL, NULL, "", NULL },
	{ "llms long name", "llms", PB_REPEAT, "- [", "a", NULL, NULL, "](/u)\n", NULL },
	{ "llms nested brackets", "llms", PB_SPLIT, "- ", "[", "a", "]", "(/u)\n", NULL },
	{ "llms open brackets", "llms", PB_REPEAT, "", "- [[[[[[[[\n", NULL, NULL, "", NULL },
	{ "llms parens url", "llms", PB_SPLIT, "- [a](", "(", "x", ")", ")\n", NULL },
	{ "llms quote lines", "llms", PB_REPEAT, "# T\n", "> a b c\n", NULL, NULL, "", NULL },
	{ "llms open fence", "llms", PB_REPEAT, "```\n", "- [a](/b)\n", NULL, NULL, "", NULL },
	{ "llms h1s", "llms", PB_REPEAT, "", "# a\nSource: https://h/a\nx\n", NULL, NULL, "", NULL },
	{ "llms h1 blank lines", "llms", PB_SPLIT, "# a\n", "\n", "", "# b\n", "", NULL },
	{ "llms doc blocks", "llms", PB_REPEAT, "", "<doc title=\"a &amp; b\" url='/u'>x</doc>", NULL, NULL, "", NULL },
	{ "llms doc nesting", "llms", PB_SPLIT, "", "<doc>", "x", "</doc>", "", NULL },
	{ "llms doc tags open", "llms", PB_REPEAT, "", "<doc ", NULL, NULL, "", NULL },
	{ "llms doc quote open", "llms", PB_REPEAT, "<doc title=\"", "a", NULL, NULL, ">x</doc>", NULL },
	{ "llms documents", "llms", PB_REPEAT, "", "<document><source>/u</source><document_content>x</document_content></document>\n", NULL, NULL, "", NULL },
	{ "llms document no content", "llms", PB_REPEAT, "<document>", "<source>", NULL, NULL, "</document>", NULL },
	{ "llms lt", "llms", PB_REPEAT, "", "<", NULL, NULL, "", NULL },
	{ "md tabs", "a.md", PB_REPEAT, "", "=== \"a\"\n", NULL, NULL, "", NULL },
	{ "llms", "llms.txt", PB_REPEAT, "", "- [a](b): c\n", NULL, NULL, "", NULL },
	/* the crawler's parsers (lib/sources/robots.c, sitemap.c, links.c): see pb_crawl */
	{ "robots rules", "crawl:robots", PB_COUNT, "User-agent: ctxd\n", "Disallow: /a%zu*b*c\n", NULL, NULL, "", NULL },
	{ "robots long pattern", "crawl:robots", PB_REPEAT, "User-agent: *\nDisallow: /", "*a", NULL, NULL, "$\n", NULL },
	{ "robots groups", "crawl:robots", PB_REPEAT, "", "User-agent: x\nUser-agent: ctxd\nAllow: /a*\n", NULL, NULL, "", NULL },
	{ "sitemap urls", "crawl:sitemap", PB_COUNT, "<urlset>", "<url><loc>http://h/%zu</loc></url>", NULL, NULL, "</urlset>", NULL },
	{ "html links", "crawl:html", PB_COUNT, "<html><body>", "<a href=\"/p%zu\">x</a>", NULL, NULL, "", NULL },
	{ "html deep", "crawl:html", PB_SPLIT, "<html><body>", "<div>", "<a href=a>", "</div>", "", NULL },
	{ "html long attr", "crawl:html", PB_REPEAT, "<a href=\"", "a", NULL, NULL, "\">", NULL },
	{ "md links", "crawl:md", PB_REPEAT, "", "[a](b) ", NULL, NULL, "", NULL },
	{ "md open links", "crawl:md", PB_REPEAT, "", "](", NULL, NULL, "", NULL },
	{ "md autolinks", "crawl:md", PB_REPEAT, "", "<http://", NULL, NULL, "", NULL },
	/* HTML (a path ending .html picks the format: pb_format) */
	{ "html nested divs", "a.html", PB_SPLIT, "", "<div>", "x", "</div>", "", NULL },
	{ "html nested divs unclosed", "a.html", PB_REPEAT, "", "<div>x", NULL, NULL, "", NULL },
	{ "html nested sections", "a.html", PB_SPLIT, "", "<section id=a><h2>a</h2>", "x", "</section>", "", NULL },
	{ "html nested lists", "a.html", PB_SPLIT, "", "<ul><li>x", "y", "</li></ul>", "", NULL },
	{ "html nested lists unclosed", "a.html", PB_REPEAT, "", "<ul><li>x", NULL, NULL, "", NULL },
	{ "html nested quotes", "a.html", PB_SPLIT, "", "<blockquote>x", "y", "</blockquote>", "", NULL },
	{ "html nested tables", "a.html", PB_SPLIT, "", "<table><tr><td>x", "y", "</td></tr></table>", "", NULL },
	{ "html nested spans", "a.html", PB_SPLIT, "<p>", "<span>", "x", "</span>", "</p>", NULL },
	{ "html nested code in pre", "a.html", PB_SPLIT, "<pre>", "<span class=line>", "x", "</span>", "</pre>", NULL },
	{ "html same heading", "a.html", PB_REPEAT, "", "<h2>a</h2><p>x</p>", NULL, NULL, "", NULL },
	{ "html heading ids", "a.html", PB_COUNT, "", "<h2 id=h%zu>a</h2>x", NULL, NULL, "", NULL },
	{ "html empty anchors", "a.html", PB_REPEAT, "", "<a id=x></a>", NULL, NULL, "<h2>a</h2>", NULL },
	{ "html long heading", "a.html", PB_REPEAT, "<h1>", "a ", NULL, NULL, "</h1><h2>b</h2>x", NULL },
	{ "html long paragraph", "a.html", PB_REPEAT, "<p>", "abcd ", NULL, NULL, "</p>", NULL },
	{ "html long word", "a.html", PB_REPEAT, "<p>", "a", NULL, NULL, "</p>", NULL },
	{ "html paragraphs", "a.html", PB_REPEAT, "", "<p>x</p>", NULL, NULL, "", NULL },
	{ "html list items", "a.html", PB_REPEAT, "<ol>", "<li>x</li>", NULL, NULL, "</ol>", NULL },
	{ "html table rows", "a.html", PB_REPEAT, "<table>", "<tr><td>a</td><td>b</td></tr>", NULL, NULL, "</table>", NULL },
	{ "html table cells", "a.html", PB_REPEAT, "<table><tr>", "<td>a</td>", NULL, NULL, "</tr></table>", NULL },
	{ "html spans per line", "a.html", PB_REPEAT, "<pre><code>", "<span class=\"line\"><span>a</span></span>\n", NULL, NULL, "</code></pre>", NULL },
	{ "html pre blocks", "a.html", PB_REPEAT, "", "<pre class=\"language-c\">x</pre>", NULL, NULL, "", NULL },
	{ "html inline code", "a.html", PB_REPEAT, "<p>", "<code>a</code> ", NULL, NULL, "</p>", NULL },
	{ "html links", "a.html", PB_REPEAT, "<p>", "<a href=\"#a\">\xc2\xb6</a>", NULL, NULL, "</p>", NULL },
	{ "html brs", "a.html", PB_REPEAT, "<p>", "a<br>", NULL, NULL, "</p>", NULL },
	{ "html classes", "a.html", PB_REPEAT, "<div class=\"", "a ", NULL, NULL, "\">x</div>", NULL },
	{ "html attributes", "a.html", PB_COUNT, "<div ", "a%zu=1 ", NULL, NULL, ">x</div>", NULL },
	{ "html containers", "a.html", PB_REPEAT, "", "<article><p>x</p></article>", NULL, NULL, "", NULL },
	{ "html chrome", "a.html", PB_REPEAT, "", "<nav>a</nav><p>x</p>", NULL, NULL, "", NULL },
	{ "html entities", "a.html", PB_REPEAT, "<p>", "&amp;&nbsp;", NULL, NULL, "</p>", NULL },
	{ "html lt", "a.html", PB_REPEAT, "<p>", "<a", NULL, NULL, "</p>", NULL },
	{ "html comments", "a.html", PB_REPEAT, "", "<!--a-->x", NULL, NULL, "", NULL },
	{ "html nested api descriptions", "a.html", PB_SPLIT, "", "<dl class=py><dt id=a>f</dt><dd>", "x", "</dd></dl>", "", NULL },
	{ "html api descriptions", "a.html", PB_REPEAT, "<h2>a</h2><dl class=\"py function\">", "<dt class=sig id=f>f()</dt><dd><p>x</p></dd>", NULL, NULL, "</dl>", NULL },
	{ "html adjacent code", "a.html", PB_REPEAT, "<p>", "<code>a</code>", NULL, NULL, "</p>", NULL },
	{ "html admonitions", "a.html", PB_REPEAT, "", "<div class=admonition><p class=admonition-title>Note</p><p>x</p></div>", NULL, NULL, "", NULL },
	/* wiki storage format (a path ending .storage) */
	{ "storage nested macros", "a.storage", PB_SPLIT, "", "<ac:structured-macro ac:name=\"info\"><ac:rich-text-body>", "x", "</ac:rich-text-body></ac:structured-macro>", "", NULL },
	{ "storage nested unknown macros", "a.storage", PB_SPLIT, "", "<ac:structured-macro ac:name=\"x\"><ac:parameter ac:name=\"a\">b</ac:parameter><ac:rich-text-body><p>", "x", "</p></ac:rich-text-body></ac:structured-macro>", "", NULL },
	{ "storage code macros", "a.storage", PB_REPEAT, "", "<ac:structured-macro ac:name=\"code\"><ac:parameter ac:name=\"language\">c</ac:parameter><ac:plain-text-body><![CDATA[x]]></ac:plain-text-body></ac:structured-macro>", NULL, NULL, "", NULL },
	{ "storage long cdata", "a.storage", PB_REPEAT, "<ac:structured-macro ac:name=\"code\"><ac:plain-text-body><![CDATA[", "x <&\n", NULL, NULL, "]]></ac:plain-text-body></ac:structured-macro>", NULL },
	{ "storage open cdata", "a.storage", PB_REPEAT, "", "<![CDATA[", NULL, NULL, "", NULL },
	{ "storage open comments", "a.storage", PB_REPEAT, "", "<!--", NULL, NULL, "", NULL },
	{ "storage panels", "a.storage", PB_REPEAT, "", "<ac:structured-macro ac:name=\"note\"><ac:parameter ac:name=\"title\">t</ac:parameter><ac:rich-text-body><p>x</p></ac:rich-text-body></ac:structured-macro>", NULL, NULL, "", NULL },
	{ "storage links", "a.storage", PB_REPEAT, "<p>", "<ac:link><ri:page ri:content-title=\"P\"/></ac:link> ", NULL, NULL, "</p>", NULL },
	{ "storage tasks", "a.storage", PB_REPEAT, "<ac:task-list>", "<ac:task><ac:task-status>complete</ac:task-status><ac:task-body>x</ac:task-body></ac:task>", NULL, NULL, "</ac:task-list>", NULL },
	{ "storage layout cells", "a.storage", PB_REPEAT, "<ac:layout><ac:layout-section>", "<ac:layout-cell><p>x</p></ac:layout-cell>", NULL, NULL, "</ac:layout-section></ac:layout>", NULL },
	{ "storage headings", "a.storage", PB_REPEAT, "", "<h2>a</h2><p>x</p>", NULL, NULL, "", NULL },
	{ "storage named entities", "a.storage", PB_REPEAT, "<p>", "&nbsp;&mdash;", NULL, NULL, "</p>", NULL },
	{ "storage bare amps", "a.storage", PB_REPEAT, "<p>", "& &#; &x", NULL, NULL, "</p>", NULL },
	{ "storage doctype", "a.storage", PB_REPEAT, "", "<!DOCTYPE", NULL, NULL, "", NULL },
	{ "storage unclosed", "a.storage", PB_REPEAT, "", "<p>x", NULL, NULL, "", NULL },
	{ "storage mismatched", "a.storage", PB_REPEAT, "<p>", "x</b>", NULL, NULL, "</p>", NULL },
	{ "storage table rows", "a.storage", PB_REPEAT, "<table><tbody>", "<tr><td>a</td><td>b</td></tr>", NULL, NULL, "</tbody></table>", NULL },
	/* OpenAPI (format DOC_FORMAT_OPENAPI: the path "openapi:...") */
	{ "openapi ops+refs", "openapi:a.json", PB_COUNT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{", "\"/p%zu/{id}\":{\"get\":{\"operationId\":\"o%zu\",\"tags\":[\"t\"],\"parameters\":[{\"$ref\":\"#/components/parameters/P\"}],\"responses\":{\"200\":{\"description\":\"d\",\"content\":{\"application/json\":{\"schema\":{\"$ref\":\"#/components/schemas/S\"}}}}}}},", NULL, NULL, "\"/z\":{}},\"components\":{\"parameters\":{\"P\":{\"name\":\"id\",\"in\":\"path\",\"schema\":{\"$ref\":\"#/components/schemas/S\"}}},\"schemas\":{\"S\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/components/schemas/S\"},\"b\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/components/schemas/S\"}},\"c\":{\"allOf\":[{\"$ref\":\"#/components/schemas/S\"},{\"$ref\":\"#/components/schemas/S\"}]}}}}}}", NULL },
	{ "openapi many props", "openapi:a.json", PB_COUNT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"d\",\"content\":{\"application/json\":{\"schema\":{\"$ref\":\"#/components/schemas/S\"}}}}}}}},\"components\":{\"schemas\":{\"T\":{\"type\":\"string\"},\"S\":{\"type\":\"object\",\"required\":[\"x\"],\"properties\":{", "\"p%zu\":{\"$ref\":\"#/components/schemas/T\"},", NULL, NULL, "\"z\":{}}}}}}", NULL },
	{ "openapi huge enum", "openapi:a.json", PB_REPEAT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"d\",\"content\":{\"application/json\":{\"schema\":{\"type\":\"string\",\"enum\":[", "\"x\",", NULL, NULL, "\"y\"]}}}}}}}}}", NULL },
	{ "openapi huge required", "openapi:a.json", PB_REPEAT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"d\",\"content\":{\"application/json\":{\"schema\":{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{}},\"required\":[", "\"x\",", NULL, NULL, "\"y\"]}}}}}}}}}", NULL },
	{ "openapi long pointer", "openapi:a.json", PB_REPEAT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"d\",\"content\":{\"application/json\":{\"schema\":{\"$ref\":\"#", "/a", NULL, NULL, "\"}}}}}}}}}", NULL },
	{ "openapi deep json", "openapi:a.json", PB_REPEAT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"x\":", "[", NULL, NULL, "", NULL },
	{ "openapi deep schema", "openapi:a.json", PB_SPLIT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"d\",\"content\":{\"application/json\":{\"schema\":", "{\"type\":\"object\",\"properties\":{\"a\":", "{}", "}}", "}}}}}}}}}", NULL },
	{ "openapi many tags", "openapi:a.json", PB_COUNT, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{", "\"/p%zu\":{\"get\":{\"tags\":[\"t%zu\"],\"responses\":{}}},", NULL, NULL, "\"/z\":{}}}", NULL },
	{ "openapi yaml ops", "openapi:a.json", PB_COUNT, "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\npaths:\n", "  /p%zu:\n    get:\n      operationId: o%zu\n      responses: {\"200\": {description: d}}\n", NULL, NULL, "", NULL },
	{ "openapi yaml aliases", "openapi:a.json", PB_REPEAT, "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\nx: &a {a: 1, b: [1, 2, 3], c: {d: e}}\ny:\n", "- *a\n", NULL, NULL, "", NULL },
	{ "openapi yaml anchors", "openapi:a.json", PB_COUNT, "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\nx: &a [1]\n", "k%zu: &a [*a, *a]\n", NULL, NULL, "", NULL },
	{ "openapi yaml deep", "openapi:a.json", PB_REPEAT, "openapi: 3.0.0\nx: ", "[", NULL, NULL, "", NULL },
	{ "openapi yaml long scalar", "openapi:a.json", PB_REPEAT, "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\nx: ", "ab ", NULL, NULL, "\n", NULL },
};

/*
 * The format of a case's path: .html and .storage name one, so does an "openapi:" prefix,
 * else the extension picks.
 */
static const char *
pb_format(const char *path)
{
	if (util_str_endswith(path, ".html"))
		return DOC_FORMAT_HTML;
	if (util_str_endswith(path, ".storage"))
		return DOC_FORMAT_STORAGE;
	if (strncmp(path, "openapi:", 8) == 0)
		return DOC_FORMAT_OPENAPI;
	return NULL;
}

#define PB_NCASES	(sizeof(pb_cases) / sizeof(pb_cases[0]))

/* Appends s with every "%zu" replaced by k. */
static void
pb_add_counted(struct buf *b, const char *s, size_t k)
{
	const char	*p;

	while ((p = strstr(s, "%zu")) != NULL) {
		buf_add(b, s, (size_t)(p - s));
		buf_printf(b, "%zu", k);
		s = p + 3;
	}
	buf_adds(b, s);
}

/* The input of case c of about size bytes, in b. */
static void
pb_gen(const struct pb_case *c, size_t size, struct buf *b)
{
	size_t	 k, i;

	buf_reset(b);
	buf_add(b, "", 0);
	buf_adds(b, c->head);
	switch (c->mode) {
	case PB_REPEAT:
		while (b->len < size)
			buf_adds(b, c->a);
		break;
	case PB_COUNT:
		for (k = 0; b->len < size; k++)
			pb_add_counted(b, c->a, k);
		break;
	case PB_SPLIT:
		while (b->len < size / 2)
			buf_adds(b, c->a);
		buf_adds(b, c->mid);
		while (b->len < size)
			buf_adds(b, c->b);
		break;
	case PB_STAIR:
		for (k = 0; b->len < size; k++) {
			for (i = 0; i < k; i++)
				buf_adds(b, c->a);
			buf_adds(b, c->b);
		}
		break;
	case PB_THIRDS:
		while (b->len < size / 3)
			buf_adds(b, c->a);
		buf_adds(b, c->mid);
		while (b->len < 2 * size / 3)
			buf_adds(b, c->b);
		buf_adds(b, c->tail);
		while (*c->c != '\0' && b->len < size)
			buf_adds(b, c->c);
		return;
	}
	buf_adds(b, c->tail);
}

/*
 * The crawler's parsers, by the case's path "crawl:robots|sitemap|html|md": a robots.txt
 * is also asked about a long path (matching must stay linear in the rules and the path).
 */
static void
pb_crawl(const char *kind, const struct buf *in)
{
	static char	 path[2048];
	struct robots	 r;
	struct sitemap	 s;
	struct links	 l;

	if (path[0] == '\0') {
		memset(path, 'a', sizeof(path) - 2);
		path[0] = '/';
		path[sizeof(path) - 2] = 'b';
	}
	if (strcmp(kind, "robots") == 0 && robots_parse(in->p, in->len, "ctxd", &r) == 0) {
		(void)robots_allowed(&r, path);
		robots_release(&r);
	} else if (strcmp(kind, "sitemap") == 0 && sitemap_parse(in->p, in->len, &s) == 0)
		sitemap_release(&s);
	else if (strcmp(kind, "html") == 0 && links_html(in->p, in->len, &l) == 0)
		links_release(&l);
	else if (strcmp(kind, "md") == 0 && links_markdown(in->p, in->len, &l) == 0)
		links_release(&l);
}

/* CPU time of this process in seconds: other processes' load does not count. */
static double
pb_cpu(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A poll that stops a parse once it has used more than its budget of CPU time. */
struct pb_budget {
	double	 start, limit;
};

static int
pb_budget_poll(void *arg)
{
	struct pb_budget *bu = arg;

	return pb_cpu() - bu->start > bu->limit;
}

/* The llms.txt parser and splitter (lib/parse/llmstxt.c) over in: they take no poll. */
static void
pb_llms(const struct buf *in)
{
	struct llmstxt	 t;
	struct llmstxt_parts p;

	if (llmstxt_parse(in->p, in->len, &t) == 0)
		llmstxt_release(&t);
	if (llmstxt_split(in->p, in->len, &p) == 0)
		llmstxt_parts_release(&p);
}

/*
 * The least CPU time of reps parses of in (a stopped parse counts as limit); *stopped is
 * set when the budget stopped one.
 */
static double
pb_time(const struct pb_case *c, const struct buf *in, int reps, double limit,
    int *stopped)
{
	struct doc_poll	 poll;
	struct pb_budget bu;
	struct doc	 d;
	double		 best = -1, t;
	int		 r, added;

	*stopped = 0;
	for (r = 0; r < reps; r++) {
		memset(&poll, 0, sizeof(poll));
		bu.limit = limit;
		poll.fn = pb_budget_poll;
		poll.arg = &bu;
		bu.start = pb_cpu();
		if (strncmp(c->path, "crawl:", 6) == 0)
			pb_crawl(c->path + 6, in);
		else if (strcmp(c->path, "llms") == 0)
			pb_llms(in);	/* the llms.txt structure parser and splitter */
		else if (code_is_source(c->path) && code_parse_overview(c->path, in->p,
		    in->len, &d, &poll, &added) == 0)
			doc_release(&d);	/* source files: with the overview pass */
		else if (!code_is_source(c->path) && doc_parse_as(pb_format(c->path), c->path,
		    in->p, in->len, &d, &poll) == 0)
			doc_release(&d);
		t = pb_cpu() - bu.start;
		if (poll.stopped) {
			*stopped = 1;
			return limit;
		}
		if (best < 0 || t < best)
			best = t;
		if (t > 0.5)
			break;		/* long enough for the clock's noise not to matter */
	}
	return best;
}

/*
 * Every case at 25 KB and 100 KB: the larger must take under 10 times the CPU time of the
 * smaller (plus 2 ms for the clock's and the allocator's noise). Each is the least of
 * three parses, and a case that fails is measured up to twice more (a stall of the
 * machine or of the sanitizers' allocator passes; a quadratic parse fails again).
 */
static void
test_linear(void)
{
	struct buf	 small, large;
	size_t		 i;
	double		 ts = 0, tl = 0, limit = 0;
	int		 stopped = 0, attempt;

	buf_init(&small);
	buf_init(&large);
	for (i = 0; i < PB_NCASES; i++) {
		const struct pb_case *c = &pb_cases[i];

		pb_gen(c, 25000, &small);
		pb_gen(c, 100000, &large);
		for (attempt = 0; attempt < 3; attempt++) {
			ts = pb_time(c, &small, 3, 30.0, &stopped);
			limit = 10 * ts + 0.002;
			tl = pb_time(c, &large, 3, limit, &stopped);
			if (!stopped && tl < limit)
				break;
		}
		if (!ok(!stopped && tl < limit, "%s (%s): 25 KB %.1f ms, 100 KB %.1f ms",
		    c->name, c->path, ts * 1000, tl * 1000))
			printf("#   4x the input took %s than 10x the time\n",
			    stopped ? "(stopped) more" : "more");
	}
	buf_release(&small);
	buf_release(&large);
}

/* "test-parse-bounds measure [NAME]": CPU times at 25, 50, 100 and 200 KB. */
static int
pb_measure(const char *only)
{
	static const size_t sizes[] = { 25000, 50000, 100000, 200000 };
	struct buf	 b;
	size_t		 i, s;
	double		 t[4];
	int		 stopped;

	buf_init(&b);
	for (i = 0; i < PB_NCASES; i++) {
		const struct pb_case *c = &pb_cases[i];

		if (only != NULL && strstr(c->name, only) == NULL)
			continue;
		printf("%-28s", c->name);
		for (s = 0; s < 4; s++) {
			pb_gen(c, sizes[s], &b);
			t[s] = pb_time(c, &b, 3, 60.0, &stopped);
			printf(" %9.2f ms", t[s] * 1000);
			fflush(stdout);
		}
		printf("  200/50 KB: x%.1f\n", t[3] / (t[1] > 1e-6 ? t[1] : 1e-6));
	}
	buf_release(&b);
	return 0;
}

/* The section whose anchor is a, or NULL. */
static const struct doc_section *
pb_anchor(const struct doc *d, const char *a)
{
	size_t	 i;

	for (i = 0; i < d->nsecs; i++)
		if (strcmp(d->secs[i].anchor, a) == 0)
			return &d->secs[i];
	return NULL;
}

/* The results stay right: anchors, cut titles, long tables, role-like runs. */
static void
test_results(void)
{
	struct buf	 b, want;
	struct doc	 d;
	size_t		 i, bad = 0;
	const char	*t;

	buf_init(&b);
	buf_init(&want);
	/* 25,000 '# a' headings (each with a line of text: empty sections are dropped) */
	buf_add(&b, "", 0);
	for (i = 0; i < 25000; i++)
		buf_adds(&b, "# a\nx\n");
	if (ok(doc_parse("a.md", b.p, b.len, &d) == 0, "25,000 '# a' headings parse")) {
		is_int(d.nsecs, 25000, "25,000 sections");
		for (i = 0; i < d.nsecs; i++) {
			buf_reset(&want);
			if (i == 0)
				buf_adds(&want, "a");
			else
				buf_printf(&want, "a-%zu", i);
			if (strcmp(d.secs[i].anchor, want.p) != 0 && bad++ == 0)
				printf("#   section %zu: anchor %s, want %s\n", i,
				    d.secs[i].anchor, want.p);
		}
		ok(bad == 0, "their anchors are a, a-1, ..., a-24999");
		is_str(d.nsecs > 0 ? d.secs[d.nsecs - 1].anchor : NULL, "a-24999", "the last");
		doc_release(&d);
	}
	/* GitHub's rule when a heading's text is itself a suffixed anchor */
	t = "# a\nx\n# a-1\nx\n# a\nx\n# a\nx\n# a-1\nx\n";
	if (ok(doc_parse("a.md", t, strlen(t), &d) == 0 && d.nsecs == 5, "a, a-1, a, a, a-1")) {
		is_str(d.secs[0].anchor, "a", "a");
		is_str(d.secs[1].anchor, "a-1", "a-1");
		is_str(d.secs[2].anchor, "a-2", "a again: a-2 (a-1 is taken)");
		is_str(d.secs[3].anchor, "a-3", "a again: a-3");
		is_str(d.secs[4].anchor, "a-1-1", "a-1 again: a-1-1");
		doc_release(&d);
	}
	/* a 3,000-byte heading of two-byte characters is cut at a character boundary */
	buf_reset(&b);
	buf_add(&b, "", 0);
	buf_adds(&b, "# ");
	for (i = 0; i < 1500; i++)
		buf_adds(&b, "\xc3\xa9");
	buf_adds(&b, "\n\ntext\n\n## sub\n\nmore\n");
	if (ok(doc_parse("a.md", b.p, b.len, &d) == 0 && d.nsecs == 2, "a long heading")) {
		ok(strlen(d.title) <= 512 && strlen(d.title) >= 510 &&
		    strlen(d.title) % 2 == 0, "the title is cut to 512 bytes (%zu), whole "
		    "characters", strlen(d.title));
		ok(strlen(d.secs[1].breadcrumb) < 512 + 20, "so is the trail of a "
		    "subsection (%zu bytes)", strlen(d.secs[1].breadcrumb));
		ok(strlen(d.secs[0].anchor) <= 512, "and the anchor");
		doc_release(&d);
	}
	/* a 2,500-row table is split into blocks of md4c's size, rows stay rows */
	bad = 0;
	buf_reset(&b);
	buf_add(&b, "", 0);
	buf_adds(&b, "# T\n\n| name | value |\n|---|---|\n");
	for (i = 0; i < 2500; i++)
		buf_printf(&b, "| n%zu | [v](u%zu) |\n", i, i);
	if (ok(doc_parse("a.md", b.p, b.len, &d) == 0 && d.nsecs > 0, "a 2,500-row table")) {
		buf_reset(&want);
		for (i = 0; i < d.nsecs; i++)
			buf_adds(&want, d.secs[i].text);
		for (i = 0; i < 2500; i++) {
			buf_reset(&b);
			buf_printf(&b, "n%zu | v", i);
			if (strstr(want.p, b.p) == NULL && bad++ == 0)
				printf("#   no row '%s'\n", b.p);
		}
		ok(bad == 0 && strstr(want.p, "| n") == NULL, "every row is a row");
		ok(strstr(want.p, "n997 | v\nname | value\nn998 | v") != NULL,
		    "the header is repeated where the table is split");
		doc_release(&d);
	}
	/* rst: a role-like run is plain text, a role still a role */
	t = "Intro :a:b:c: and :py:func:`os.path` and ::: x\n";
	if (ok(doc_parse("a.rst", t, strlen(t), &d) == 0 && d.nsecs == 1, "rst roles")) {
		is_str(d.secs[0].text, "Intro :a:b:c: and `os.path` and ::: x",
		    "role-like runs kept, roles reduced");
		doc_release(&d);
	}
	/* HTML: 50,000 same headings, a 2 MB paragraph, a 5,000-row table */
	buf_reset(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < 50000; i++)
		buf_adds(&b, "<h2>a</h2><p>x</p>");
	if (ok(doc_parse_as(DOC_FORMAT_HTML, "a.html", b.p, b.len, &d, NULL) == 0,
	    "html: 50,000 headings parse")) {
		is_int(d.nsecs, 50000, "50,000 sections");
		is_str(d.nsecs > 0 ? d.secs[d.nsecs - 1].anchor : NULL, "a-49999",
		    "the last anchor is a-49999");
		doc_release(&d);
	}
	buf_reset(&b);
	buf_add(&b, "", 0);
	buf_adds(&b, "<p>");
	while (b.len < 2000000)
		buf_adds(&b, "word <b>bold</b> ");
	buf_adds(&b, "end</p>");
	if (ok(doc_parse_as(DOC_FORMAT_HTML, "a.html", b.p, b.len, &d, NULL) == 0 &&
	    d.nsecs == 1, "html: a 2 MB paragraph parses")) {
		ok(strlen(d.secs[0].text) > 1000000 && strncmp(d.secs[0].text,
		    "word bold word", 14) == 0 && util_str_endswith(d.secs[0].text, " end"),
		    "it is one block of text (%zu bytes)", strlen(d.secs[0].text));
		doc_release(&d);
	}
	buf_reset(&b);
	buf_add(&b, "", 0);
	buf_adds(&b, "<table><tr><th>name</th><th>value</th></tr>");
	for (i = 0; i < 5000; i++)
		buf_printf(&b, "<tr><td>n%zu</td><td><a href=u>v%zu</a></td></tr>", i, i);
	buf_adds(&b, "</table>");
	bad = 0;
	if (ok(doc_parse_as(DOC_FORMAT_HTML, "a.html", b.p, b.len, &d, NULL) == 0,
	    "html: a 5,000-row table parses")) {
		buf_reset(&want);
		buf_add(&want, "", 0);
		for (i = 0; i < d.nsecs; i++)
			buf_printf(&want, "%s\n", d.secs[i].text);
		for (i = 0; i < 5000; i++) {
			buf_reset(&b);
			buf_printf(&b, "n%zu | v%zu\n", i, i);
			if (strstr(want.p, b.p) == NULL && bad++ == 0)
				printf("#   no row '%s'\n", b.p);
		}
		ok(bad == 0, "every row is a line 'name | value'");
		doc_release(&d);
	}
	(void)pb_anchor;
	buf_release(&b);
	buf_release(&want);
}

/* A poll that says stop at its n-th question. */
struct pb_stop {
	int	 n, asked;
};

static int
pb_stop_poll(void *arg)
{
	struct pb_stop *s = arg;

	return ++s->asked >= s->n ? 1 : 0;
}

/* Every parser stops mid-file when the poll says so, and runs through when it does not. */
static void
test_poll(void)
{
	static const struct { const char *path, *unit; } kinds[] = {
		{ "a.md", "# h\n\ntext [link](u) *em*\n\n- item\n\n```c\nx\n```\n\n" },
		{ "a.mdx", "<Note>\ntext\n</Note>\n\n" },
		{ "a.rst", "Head\n====\n\ntext ``x``\n\n.. note:: n\n\n- item\n\n" },
		{ "src/lib.rs", "/// doc\nfn f() {}\n" },
		{ "a.py", "def f():\n    \"\"\"doc\"\"\"\n" },
		{ "a.go", "// F doc\nfunc F() {}\n" },
		{ "a.rb", "# doc\ndef f\nend\n" },
		{ "a.c", "/** doc */\nint f(void);\n" },
		{ "a.txt", "text\n\n" },
		{ "a.html", "<h2 id=x>h</h2><p>text <a href=u>link</a> <code>c</code></p>"
		    "<ul><li>item</li></ul><pre class=language-c>x</pre>" },
		{ "a.storage", "<h2>h</h2><p>text <ac:link><ri:page ri:content-title=\"P\"/>"
		    "</ac:link></p><ac:structured-macro ac:name=\"code\"><ac:plain-text-body>"
		    "<![CDATA[x]]></ac:plain-text-body></ac:structured-macro>" },
	};
	struct doc_poll	 poll;
	struct pb_stop	 st;
	struct buf	 b;
	struct doc	 d, full;
	size_t		 i, k;
	int		 rc;
	long long	 t0;

	buf_init(&b);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		buf_reset(&b);
		buf_add(&b, "", 0);
		for (k = 0; k < 3000; k++)
			buf_adds(&b, kinds[i].unit);
		memset(&poll, 0, sizeof(poll));
		memset(&st, 0, sizeof(st));
		st.n = 1000000;
		poll.fn = pb_stop_poll;
		poll.arg = &st;
		rc = doc_parse_as(pb_format(kinds[i].path), kinds[i].path, b.p, b.len, &d,
		    &poll);
		ok(rc == 0 && poll.stopped == 0 && st.asked >= 1, "%s: a poll that says go "
		    "is asked and the parse completes", kinds[i].path);
		if (rc == 0 && doc_parse_as(pb_format(kinds[i].path), kinds[i].path, b.p,
		    b.len, &full, NULL) == 0) {
			ok(d.nsecs == full.nsecs && d.nsecs > 0, "%s: with the same sections "
			    "as without a poll (%zu)", kinds[i].path, d.nsecs);
			doc_release(&full);
		}
		if (rc == 0)
			doc_release(&d);
		memset(&poll, 0, sizeof(poll));
		memset(&st, 0, sizeof(st));
		st.n = 1;
		poll.fn = pb_stop_poll;
		poll.arg = &st;
		rc = doc_parse_as(pb_format(kinds[i].path), kinds[i].path, b.p, b.len, &d,
		    &poll);
		ok(rc == -1 && poll.stopped == 1 && st.asked == 1, "%s: a poll that says "
		    "stop stops the parse", kinds[i].path);
		if (rc == 0)
			doc_release(&d);
	}
	/* the poll is asked every DOC_POLL_MS, however slow the checks (the test knob) */
	buf_reset(&b);
	buf_add(&b, "", 0);
	for (k = 0; k < 100000; k++)
		buf_adds(&b, "- item\n");
	memset(&poll, 0, sizeof(poll));
	memset(&st, 0, sizeof(st));
	st.n = 3;
	poll.fn = pb_stop_poll;
	poll.arg = &st;
	poll.test_sleep_us = 1000;
	t0 = util_now_ms();
	rc = doc_parse_poll("a.md", b.p, b.len, &d, &poll);
	t0 = util_now_ms() - t0;
	ok(rc == -1 && st.asked == 3 && t0 >= 2 * DOC_POLL_MS && t0 < 2 * DOC_POLL_MS +
	    1000, "slow checks: asked every %d ms, stopped at the third (%lld ms)",
	    DOC_POLL_MS, t0);
	if (rc == 0)
		doc_release(&d);
	buf_release(&b);
}

int
main(int argc, char *argv[])
{
	log_init("test-parse-bounds");
	if (argc > 1 && strcmp(argv[1], "measure") == 0)
		return pb_measure(argc > 2 ? argv[2] : NULL);
	test_results();
	test_poll();
	test_linear();
	return tap_done();
}
