/*
 * test-html.c: web pages to sections (lib/parse/html.c): the content container of each common
 * documentation theme, the page chrome that is dropped, anchors, titles, code languages
 * and highlighted code, prose blocks; and two real pages of the fixture sites
 * ($CORPORA/fixtures/websites).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "doc-helpers.h"
#include "parse/parse.h"
#include "tap.h"

/* Parses a web page, as one test line; -1 when parsing fails. */
static int
page(const char *name, const char *src, struct doc *d)
{
	int	 rc = doc_parse_as(DOC_FORMAT_HTML, name, src, strlen(src), d, NULL);

	ok(rc == 0, "html %s parses", name);
	return rc;
}

static int
has(const struct doc *d, const char *s)
{
	return strstr(doc_all(d), s) != NULL;
}

/* One page per theme: the container's text is kept, the chrome around and in it is not. */
static void
test_themes(void)
{
	static const struct {
		const char	*name, *html;
	} themes[] = {
		{ "sphinx", "<html><body><div class=\"related\" role=\"navigation\">CHROME</div>"
		    "<div class=\"document\"><div class=\"documentwrapper\"><div class=\"body\""
		    " role=\"main\"><section id=\"intro\"><h1>Intro<a class=\"headerlink\" "
		    "href=\"#intro\">\xc2\xb6</a></h1><p>KEEP text.</p></section></div></div>"
		    "<div class=\"sphinxsidebar\">CHROME</div></div><div class=\"footer\">"
		    "CHROME</div></body></html>" },
		{ "material", "<html><body><header class=\"md-header\">CHROME</header><div "
		    "class=\"md-container\"><nav class=\"md-nav\">CHROME</nav><div class=\""
		    "md-sidebar\">CHROME</div><div class=\"md-content\"><article class=\""
		    "md-content__inner md-typeset\"><a class=\"md-content__button md-icon\" "
		    "href=\"e\">CHROME</a><h1 id=\"intro\">Intro</h1><p>KEEP text.</p>"
		    "</article></div></div><footer class=\"md-footer\">CHROME</footer>"
		    "</body></html>" },
		{ "docusaurus", "<html><body><nav class=\"navbar\">CHROME</nav><main><div "
		    "class=\"row\"><div class=\"col\"><nav class=\"theme-doc-breadcrumbs\">"
		    "CHROME</nav><article><div class=\"theme-doc-markdown markdown\"><header>"
		    "<h1>Intro</h1></header><p>KEEP text.</p></div><footer class=\""
		    "theme-doc-footer\"><a class=\"theme-edit-this-page\" href=\"x\">CHROME"
		    "</a></footer></article><nav class=\"pagination-nav\">CHROME</nav></div>"
		    "<div class=\"col col--3\"><div class=\"tableOfContents table-of-contents"
		    "\">CHROME</div></div></div></main></body></html>" },
		{ "vitepress", "<html><body><div class=\"VPNav\">CHROME</div><div class=\""
		    "VPDoc\"><div class=\"aside\">CHROME</div><div class=\"content\"><main>"
		    "<div class=\"vp-doc\"><div><h1 id=\"intro\">Intro <a class=\"header-anchor"
		    "\" href=\"#intro\">\xe2\x80\x8b</a></h1><p>KEEP text.</p></div></div>"
		    "</main><footer class=\"VPDocFooter\">CHROME</footer></div></div>"
		    "</body></html>" },
		{ "starlight", "<html><body><header class=\"header\">CHROME</header><nav "
		    "class=\"sidebar\">CHROME</nav><main><div class=\"content-panel\"><h1 "
		    "id=\"_top\">Intro</h1></div><div class=\"content-panel\"><div class=\""
		    "sl-markdown-content\"><p>KEEP text.</p></div><footer>CHROME</footer>"
		    "</div></main></body></html>" },
		{ "rustdoc", "<html><body><nav class=\"sidebar\">CHROME</nav><main><section "
		    "id=\"main-content\" class=\"content\"><div class=\"main-heading\"><div "
		    "class=\"rustdoc-breadcrumbs\"><a href=\"i\">CHROME</a></div><h1>"
		    "Intro</h1><rustdoc-toolbar>CHROME</rustdoc-toolbar><span class=\""
		    "sub-heading\"><span class=\"since\">CHROME</span> \xc2\xb7 <a class=\"src\""
		    " href=\"s\">CHROME</a></span></div><details class=\"toggle top-doc\" open><summary "
		    "class=\"hideme\"><span>Expand description</span></summary><div class=\""
		    "docblock\"><p>KEEP text.</p></div></details></section></main>"
		    "</body></html>" },
		{ "doxygen", "<html><body><div id=\"top\"><div id=\"navrow1\" class=\"tabs\">"
		    "<ul class=\"tablist\"><li>CHROME</li></ul></div></div><div class=\""
		    "header\"><div class=\"headertitle\"><div class=\"title\">Intro</div>"
		    "</div></div><div class=\"contents\"><div class=\"textblock\"><h1>Intro"
		    "</h1><p>KEEP text.</p></div></div><hr class=\"footer\"/><address class=\""
		    "footer\">CHROME</address></body></html>" },
		{ "docutils", "<html><body><div class=\"document\" id=\"t\"><h1 class=\"title\">"
		    "Intro</h1><div class=\"contents topic\" id=\"contents\"><p class=\""
		    "topic-title\">CHROME</p><ul><li>CHROME</li></ul></div><p>KEEP text.</p>"
		    "<div class=\"body\">more</div></div></body></html>" },
		{ "texinfo", "<html><body><div class=\"section-level-extent\" id=\"B\"><div "
		    "class=\"nav-panel\"><p>CHROME</p></div><h3>Intro</h3><p>KEEP text.</p></div><hr>"
		    "<div class=\"nav-panel\">CHROME</div></body></html>" },
		{ "docbook", "<html><body><div class=\"navheader\"><table><tr><td>CHROME</td>"
		    "</tr></table></div><div class=\"chapter\"><h1>Intro</h1><p>KEEP text.</p></div>"
		    "<div class=\"navfooter\">CHROME</div></body></html>" },
		{ "bare", "<html><body><header>CHROME</header><nav>CHROME</nav><h1 id=\"intro"
		    "\">Intro</h1><p>KEEP text.</p><aside>CHROME</aside><footer>CHROME"
		    "</footer></body></html>" },
		{ "npm", "<html><body><div id=\"banner\"><div class=\"title\">CHROME</div>"
		    "</div><section id=\"content\"><header class=\"title\"><h1 id=\"i\">"
		    "Intro</h1></header><section id=\"table_of_contents\"><h2>Table</h2><ul><li>"
		    "CHROME</li></ul></section><section id=\"d\"><p>KEEP text.</p></section>"
		    "</section></body></html>" },
	};
	struct doc	 d;
	size_t		 i;

	for (i = 0; i < sizeof(themes) / sizeof(themes[0]); i++) {
		if (page(themes[i].name, themes[i].html, &d) == -1)
			continue;
		ok(has(&d, "KEEP text."), "%s: the content is kept", themes[i].name);
		ok(!has(&d, "CHROME"), "%s: the chrome is dropped", themes[i].name);
		/* (Starlight's h1 is outside its content container: the <title> names it) */
		if (strcmp(themes[i].name, "starlight") != 0)
			ok(d.nsecs > 0 && strcmp(d.secs[0].title, "Intro") == 0,
			    "%s: the heading is kept", themes[i].name);
		if (!has(&d, "KEEP") || has(&d, "CHROME"))
			printf("#   %s", doc_all(&d));
		doc_release(&d);
	}
}

/* Elements dropped inside the content. */
static void
test_chrome(void)
{
	struct doc	 d;
	const char	*src =
	    "<html><head><title>T</title><style>p{}</style></head><body><main>"
	    "<p>one <script>var CHROME;</script>two</p>"
	    "<noscript>CHROME</noscript><template><p>CHROME</p></template>"
	    "<svg><text>CHROME</text></svg><form><input value=\"CHROME\">"
	    "<label>CHROME</label></form><button>CHROME</button>"
	    "<div hidden>CHROME</div><p aria-hidden=\"true\">CHROME</p>"
	    "<div style=\"display: none\">CHROME</div><div role=\"navigation\">CHROME</div>"
	    "<div class=\"toc\"><ul><li>CHROME</li></ul></div>"
	    "<div id=\"searchbox\">CHROME</div><div class=\"sidebar\">CHROME</div>"
	    "<span class=\"sr-only\">CHROME</span>"
	    "<p>three <a href=\"https://github.com/x/edit/main/a.md\">Edit this page</a></p>"
	    "<p><a href=\"#x\">\xc2\xb6</a>four <a href=\"#four\">see four</a></p>"
	    "<p>five<img src=\"i.png\" alt=\"CHROME\"></p>"
	    "</main></body></html>";

	if (page("chrome", src, &d) == -1)
		return;
	ok(!has(&d, "CHROME") && !has(&d, "p{}"), "scripts, styles, forms, hidden and "
	    "navigation elements dropped");
	is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "one two\n\nthree\n\nfour see four\n\nfive",
	    "the text around them stays; edit links and permalinks go, other links stay");
	doc_release(&d);
}

/* Section anchors and the document title. */
static void
test_anchors(void)
{
	struct doc	 d;
	const char	*src =
	    "<html><head><title>Install \xe2\x80\x94 Proj 1.0 documentation</title></head>"
	    "<body><div class=\"body\" role=\"main\">"
	    "<section id=\"installing\"><h1>Install<a class=\"headerlink\" href=\""
	    "#installing\">\xc2\xb6</a></h1><p>a</p>"
	    "<div class=\"section\" id=\"source-build\"><h2>From source</h2><p>b</p></div>"
	    "<h2 id=\"own-id\">Own id</h2><p>c</p>"
	    "<a id=\"before\"></a><h2>After an anchor</h2><p>d</p>"
	    "<h2>Plain <code>slug</code></h2><p>e</p>"
	    "<h3><a name=\"inner\"></a>Inner</h3><p>f</p>"
	    "<h2>Node<span><a class=\"mark\" href=\"#node\" id=\"node-id\">#</a></span></h2>"
	    "<p>g</p>"
	    "</section></div></body></html>";
	const char	*site =
	    "<html><head><title>Guide\xc2\xa0" "Book | Acme Docs</title><meta property=\""
	    "og:site_name\" content=\"Acme Docs\"></head><body><main><p>x</p></main>"
	    "</body></html>";
	const char	*notitle = "<html><body><main><h1>Heading one</h1><p>x</p>"
	    "</main></body></html>";
	const char	*book = "<html><head><title>What is Ownership? - The Book</title></head>"
	    "<body><main><h2 id=\"own\">What Is Ownership?</h2><p>x</p><h3>Rules</h3><p>y</p>"
	    "</main></body></html>";

	if (page("anchors", src, &d) == 0) {
		is_str(d.title, "Install", "<title> trimmed to the H1 it starts with");
		is_str(s_anchor(sec(&d, "Install")), "installing", "a section's id");
		is_str(s_anchor(sec(&d, "From source")), "source-build", "a div.section's id");
		is_str(s_anchor(sec(&d, "Own id")), "own-id", "the heading's own id");
		is_str(s_anchor(sec(&d, "After an anchor")), "before",
		    "the id of an empty anchor just before");
		is_str(s_anchor(sec(&d, "Plain `slug`")), "plain-slug", "else the slug");
		is_str(s_anchor(sec(&d, "Inner")), "inner", "an anchor inside the heading");
		is_str(s_anchor(sec(&d, "Node")), "node-id", "a permalink's id, its '#' not text");
		is_str(s_text(sec(&d, "Install")), "a", "the permalink is not text");
		is_str(s_title(sec(&d, "Inner")) != NULL ? sec(&d, "Inner")->breadcrumb : NULL,
		    "Install > Plain `slug` > Inner", "breadcrumbs");
		doc_release(&d);
	}
	if (page("site", site, &d) == 0) {
		is_str(d.title, "Guide Book", "the og:site_name suffix is trimmed, a no-break "
		    "space is a space");
		doc_release(&d);
	}
	if (page("book", book, &d) == 0) {
		is_str(d.title, "What Is Ownership?", "the title trimmed to the first heading, "
		    "whatever its level and letter case");
		is_str(s_title(sec(&d, "Rules")) != NULL ? sec(&d, "Rules")->breadcrumb : NULL,
		    "What Is Ownership? > Rules", "so the breadcrumb does not repeat it");
		doc_release(&d);
	}
	if (page("docs/notitle.html", notitle, &d) == 0) {
		is_str(d.title, "Heading one", "no <title>: the first H1");
		doc_release(&d);
	}
}

/* Code blocks: languages from classes, highlighted spans, line numbers, line spans. */
static void
test_code(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	const char	*src = "<html><body><main><h1>C</h1>"
	    /* 0: language-x on code, capital letters */
	    "<pre><code class=\"language-Python\">print(1)\n</code></pre>"
	    /* 1: lang-x on pre */
	    "<pre class=\"lang-sh\">make</pre>"
	    /* 2: Sphinx wrapper with Pygments spans */
	    "<div class=\"highlight-python notranslate\"><div class=\"highlight\"><pre>"
	    "<span></span><span class=\"kn\">import</span> <span class=\"nn\">os</span>\n"
	    "<span class=\"nb\">print</span><span class=\"p\">(</span><span class=\"mi\">1"
	    "</span><span class=\"p\">)</span>\n</pre></div></div>"
	    /* 3: Pandoc sourceCode */
	    "<div class=\"sourceCode\"><pre class=\"sourceCode numberSource haskell "
	    "numberLines\"><code class=\"sourceCode\">main = pure ()</code></pre></div>"
	    /* 4: highlight.js */
	    "<pre><code class=\"hljs ruby\">puts 1</code></pre>"
	    /* 5: Material: div.language-x highlight, span.linenos, copy button */
	    "<div class=\"language-yaml highlight\"><pre><span></span><code><span class=\""
	    "linenos\">1</span>a: 1\n<span class=\"linenos\">2</span>b: 2\n</code>"
	    "<button class=\"md-clipboard\">Copy</button></pre></div>"
	    /* 6: Sphinx table of line numbers */
	    "<div class=\"highlight-c\"><table class=\"highlighttable\"><tr><td class=\""
	    "linenos\"><div class=\"linenodiv\"><pre>1\n2</pre></div></td><td class=\"code\">"
	    "<div class=\"highlight\"><pre>int a;\nint b;\n</pre></div></td></tr></table></div>"
	    /* 7: VitePress: span.line separated by newlines, line numbers aside */
	    "<div class=\"language-js\"><button class=\"copy\"></button><span class=\"lang\">"
	    "js</span><pre class=\"shiki\"><code><span class=\"line\"><span>let a</span>"
	    "</span>\n<span class=\"line\"></span>\n<span class=\"line\"><span>let b</span>"
	    "</span></code></pre><div class=\"line-numbers-wrapper\" aria-hidden=\"true\">"
	    "1<br>2</div></div>"
	    /* 8: Docusaurus: token-line spans holding their newline, or none */
	    "<div class=\"language-go codeBlockContainer\"><pre class=\"prism-code "
	    "language-go\"><code><span class=\"token-line\"><span class=\"token plain\">"
	    "x := 1</span><br></span><span class=\"token-line\"><span class=\"token plain\">"
	    "y := 2</span></span><span class=\"token-line\">z := 3</span></code></pre></div>"
	    /* 9: rustdoc names the language with a bare class */
	    "<pre class=\"rust rust-example-rendered\"><code>let x = 1;</code></pre>"
	    /* 10: Node.js: a checkbox first, two code elements */
	    "<pre class=\"with-9-chars\"><input type=\"checkbox\"><code class=\"language-js "
	    "mjs\">import a;</code><code class=\"language-js cjs\">require(a);</code></pre>"
	    /* 11: no language */
	    "<pre>plain\ttext</pre>"
	    /* 12: Sphinx highlight-default is no language */
	    "<div class=\"highlight-default\"><div class=\"highlight\"><pre>x</pre></div></div>"
	    "</main></body></html>";
	static const char *const want[][2] = {
		{ "python", "print(1)" },
		{ "sh", "make" },
		{ "python", "import os\nprint(1)" },
		{ "haskell", "main = pure ()" },
		{ "ruby", "puts 1" },
		{ "yaml", "a: 1\nb: 2" },
		{ "c", "int a;\nint b;" },
		{ "js", "let a\n\nlet b" },
		{ "go", "x := 1\ny := 2\nz := 3" },
		{ "rust", "let x = 1;" },
		{ "js", "import a;\nrequire(a);" },
		{ "", "plain\ttext" },
		{ "", "x" },
	};
	size_t		 i, n = sizeof(want) / sizeof(want[0]);

	if (page("code", src, &d) == -1)
		return;
	s = sec(&d, "C");
	ok(s != NULL && s->ncode == n, "%zu code blocks (%zu)", n, s != NULL ? s->ncode : 0);
	for (i = 0; s != NULL && i < n && i < s->ncode; i++) {
		ok(strcmp(s_lang(s, i), want[i][0]) == 0, "block %zu: language '%s' (%s)",
		    i, want[i][0], s_lang(s, i));
		if (!ok(strcmp(s_code(s, i), want[i][1]) == 0, "block %zu: code", i))
			printf("#   got '%s'\n", s_code(s, i));
	}
	ok(!has(&d, "Copy") && !has(&d, "1<br>"), "copy buttons and line-number columns "
	    "dropped");
	doc_release(&d);
}

/* Prose: paragraphs, lists, definition lists, quotes, tables, inline code, links. */
static void
test_prose(void)
{
	struct doc	 d;
	const char	*src = "<html><body><article><h1>P</h1>"
	    "<p>A <a href=\"https://example.com/x\">link</a> and <code>code()</code>,\n"
	    "<code></code><code>x</code> <code>y</code>\n"
	    "   <strong>bold</strong>&nbsp;text.<br>Next line.</p>"
	    "<ul><li>one</li><li><p>two</p><p>more</p><ul><li>nested</li></ul></li></ul>"
	    "<ol><li>first</li><li>second</li></ol>"
	    "<dl><dt>term</dt><dd>definition</dd></dl>"
	    "<blockquote><p>quoted</p></blockquote>"
	    "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td><p>1</p>"
	    "</td><td>2 <code>x</code></td></tr></tbody></table>"
	    "<div class=\"admonition tip\"><p class=\"admonition-title\">Tip</p></div>"
	    "<p>after <time datetime=\"2024-05-01\"></time></p>"
	    "<table><tr><td><h3>cell heading</h3></td><td>c</td></tr></table>"
	    "</article></body></html>";

	if (page("prose", src, &d) == -1)
		return;
	is_str(d.nsecs == 1 ? d.secs[0].text : NULL,
	    "A link and `code()`, `x` `y` bold text.\nNext line.\n\n"
	    "- one\n- two\n  more\n  - nested\n\n"
	    "1. first\n2. second\n\n"
	    "term\n  definition\n\n"
	    "> quoted\n\n"
	    "a | b\n1 | 2 `x`\n\n"
	    "after 2024-05-01\n\n"
	    "cell heading | c", "blocks written as markdown.c writes them; an empty "
	    "admonition's label goes with it; a heading in a cell is text");
	doc_release(&d);
}

/* Sphinx API descriptions: each signature with an id is a section under its heading. */
static void
test_api(void)
{
	struct doc	 d;
	const char	*src = "<html><head><title>API</title></head><body><div class=\"body\">"
	    "<section id=\"api\"><h1>API</h1><p>Intro.</p><section id=\"main\"><h2>Main</h2>"
	    "<dl class=\"py function\"><dt class=\"sig sig-object py\" id=\"req.get\">"
	    "<span class=\"sig-prename descclassname\"><span class=\"pre\">req.</span></span>"
	    "<span class=\"sig-name descname\"><span class=\"pre\">get</span></span>"
	    "<span class=\"sig-paren\">(</span><em class=\"sig-param\">url</em>"
	    "<span class=\"sig-paren\">)</span><a class=\"reference internal\" href=\"m\">"
	    "<span class=\"viewcode-link\"><span class=\"pre\">[source]</span></span></a>"
	    "<a class=\"headerlink\" href=\"#req.get\">\xc2\xb6</a></dt><dd><p>Sends a GET."
	    "</p><p>Returns a response.</p></dd></dl>"
	    "<dl class=\"class\"><dt id=\"req.Session\"><em>class </em><code>req.</code>"
	    "<code>Session</code></dt><dd><p>A session.</p><dl class=\"method\">"
	    "<dt id=\"req.Session.close\"><code>close</code>()</dt><dd><p>Closes it.</p>"
	    "</dd></dl></dd></dl>"
	    "<dl><dt>term</dt><dd>plain definition</dd></dl>"
	    "</section></section></div></body></html>";
	const struct doc_section *s;

	if (page("api", src, &d) == -1)
		return;
	s = sec(&d, "req.get(url)");
	is_str(s_anchor(s), "req.get", "a signature is a section anchored at its id");
	is_int(s != NULL ? s->level : 0, 3, "one level below its heading");
	is_str(s_text(s), "Sends a GET.\n\nReturns a response.", "its description is prose");
	is_str(s != NULL ? s->breadcrumb : NULL, "API > Main > req.get(url)", "its breadcrumb");
	s = sec(&d, "class `req.Session`");
	is_str(s_anchor(s), "req.Session", "an old-style signature (dl.class)");
	s = sec(&d, "`close`()");
	is_str(s_anchor(s), "req.Session.close", "a method inside a class");
	is_int(s != NULL ? s->level : 0, 4, "one level below the class");
	is_str(s_text(s), "Closes it.\n\nterm\n  plain definition",
	    "a plain definition list stays items");
	doc_release(&d);
}

/* Input that is not a page: empty, text, broken markup, another character set. */
static void
test_odd(void)
{
	struct doc	 d;
	const char	*latin1 = "<html><head><meta charset=\"iso-8859-1\"></head><body>"
	    "<main><p>caf\xe9</p></main></body></html>";

	if (page("empty", "", &d) == 0) {
		is_int(d.nsecs, 0, "an empty page has no sections");
		doc_release(&d);
	}
	if (page("text", "just text", &d) == 0) {
		is_str(d.nsecs == 1 ? d.secs[0].text : NULL, "just text", "text alone");
		doc_release(&d);
	}
	if (page("broken", "<div><p>a<table><tr><td>b</div><h2>c<p>d", &d) == 0) {
		ok(has(&d, "a") && has(&d, "b") && has(&d, "d"), "broken markup recovers");
		doc_release(&d);
	}
	if (page("latin1", latin1, &d) == 0) {
		is_str(d.nsecs == 1 ? d.secs[0].text : NULL, "caf\xc3\xa9",
		    "a declared character set is converted");
		doc_release(&d);
	}
	if (page("utf8", "<p>bad \xff byte</p>", &d) == 0) {
		is_str(d.nsecs == 1 ? d.secs[0].text : NULL, "bad \xef\xbf\xbd byte",
		    "invalid UTF-8 is replaced, the rest kept");
		doc_release(&d);
	}
}

/* Reads a fixture file; NULL (and a failed test line) when missing. */
static char *
fixture(const char *rel, size_t *len)
{
	const char	*corpora = getenv("CORPORA");
	char		*path, *data = NULL;

	if (corpora == NULL)
		corpora = "t/corpora";
	path = util_path_join(corpora, rel);
	if (path == NULL || util_read_file(path, 8 << 20, &data, len) == -1)
		data = NULL;
	ok(data != NULL, "fixture %s", rel);
	free(path);
	return data;
}

/* Two real pages: MkDocs' own theme, and the Read the Docs theme of Typer's site. */
static void
test_fixtures(void)
{
	struct doc			 d;
	const struct doc_section	*s;
	char				*data;
	size_t				 len;

	data = fixture("fixtures/websites/mkdocs/html/user-guide/configuration.html", &len);
	if (data != NULL && doc_parse_as(DOC_FORMAT_HTML, "user-guide/configuration.html",
	    data, len, &d, NULL) == 0) {
		is_str(d.title, "Configuration", "mkdocs: title without the site name");
		s = sec(&d, "site_name");
		is_str(s_anchor(s), "site_name", "mkdocs: anchor from the heading id");
		is_str(s != NULL ? s->breadcrumb : NULL,
		    "Configuration > Project information > site_name", "mkdocs: breadcrumb");
		is_str(s_lang(s, 0), "yaml", "mkdocs: code language");
		is_str(s_code(s, 0), "site_name: Marshmallow Generator", "mkdocs: code");
		ok(s != NULL && strncmp(s->text, "This is a required setting", 26) == 0,
		    "mkdocs: section text");
		ok(strstr(doc_all(&d), "Note: On a few known hosts") != NULL,
		    "mkdocs: an admonition's title labels its text");
		ok(!has(&d, "Documentation built with") &&
		    !has(&d, "Keyboard Shortcuts") && !has(&d, "\xc2\xb6"),
		    "mkdocs: nav, footer, search dialog and permalinks dropped");
		doc_release(&d);
	}
	free(data);
	data = fixture("fixtures/websites/typer/html/tutorial/options/name/index.html", &len);
	if (data != NULL && doc_parse_as(DOC_FORMAT_HTML, "tutorial/options/name/", data,
	    len, &d, NULL) == 0) {
		s = sec(&d, "CLI option short names");
		is_str(s_anchor(s), "cli-option-short-names", "typer: anchor");
		ok(d.nsecs > 0 && strncmp(d.secs[0].text, "By default Typer will create",
		    28) == 0, "typer: the text starts with the content");
		ok(!has(&d, "Tutorial - User Guide - Intro") && !has(&d, "Next") &&
		    !has(&d, "Built with MkDocs"), "typer: side navigation and footer dropped");
		s = d.nsecs > 0 ? &d.secs[0] : NULL;
		is_str(s_lang(s, 0), "python", "typer: language-Python is python");
		is_str(s_lang(s, 5), "console", "typer: console block");
		ok(s_code(s, 5) != NULL && strstr(s_code(s, 5), "Usage: main.py [OPTIONS]")
		    != NULL, "typer: console text");
		doc_release(&d);
	}
	free(data);
}

int
main(void)
{
	log_init("test-html");
	test_themes();
	test_chrome();
	test_anchors();
	test_code();
	test_prose();
	test_api();
	test_odd();
	test_fixtures();
	return tap_done();
}
