/*
 * test-storage.c: wiki page bodies in storage format to sections (lib/parse/wikistorage.c): the
 * fixture bodies of $CORPORA/fixtures/wiki/storage (converter output), and hand-written
 * bodies for what those lack (noted there: named entities, split CDATA, expand, panel,
 * user mentions, emoticons, unknown and skipped macros, DOCTYPE and entity tricks).
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

/* Parses a body, as one test line; -1 when parsing fails. */
static int
body(const char *name, const char *src, size_t len, struct doc *d)
{
	int	 rc = doc_parse_as(DOC_FORMAT_STORAGE, name, src, len, d, NULL);

	ok(rc == 0, "storage %s parses", name);
	return rc;
}

/* Parses a fixture body of testdata/; -1 (and a failed line) when missing or failing. */
static int
fixture(const char *name, struct doc *d)
{
	const char	*corpora = getenv("CORPORA");
	char		*path = NULL, *data = NULL, rel[256];
	size_t		 len;
	int		 rc = -1;

	if (corpora == NULL)
		corpora = "t/corpora";
	snprintf(rel, sizeof(rel), "fixtures/wiki/storage/testdata/%s", name);
	if ((path = util_path_join(corpora, rel)) != NULL &&
	    util_read_file(path, 1 << 20, &data, &len) == 0)
		rc = body(name, data, len, d);
	else
		ok(0, "fixture %s", rel);
	free(path);
	free(data);
	return rc;
}

static void
test_codes(void)
{
	static const char *const want[][2] = {
		{ "", "some code" }, { "bash", "code bash" }, { "bash", "with a newline" },
		{ "unknown", "unknown code" }, { "unknown", "unknown code 2" },
		{ "sh", "no-collapse-title" }, { "bash", "collapse-and-title" },
		{ "c", "collapse-no-title" }, { "nested", "code\n``` more code ```\neven more code" },
	};
	struct doc			 d;
	const struct doc_section	*s;
	size_t				 i;

	if (fixture("codes.html", &d) == -1)
		return;
	s = d.nsecs > 0 ? &d.secs[0] : NULL;
	ok(s != NULL && s->ncode == 14, "codes: 14 code macros (%zu)", s ? s->ncode : 0);
	for (i = 0; s != NULL && i < sizeof(want) / sizeof(want[0]); i++) {
		ok(s_lang(s, i) != NULL && strcmp(s_lang(s, i), want[i][0]) == 0,
		    "codes: block %zu language '%s'", i, want[i][0]);
		ok(s_code(s, i) != NULL && strcmp(s_code(s, i), want[i][1]) == 0,
		    "codes: block %zu text from CDATA", i);
	}
	ok(strstr(doc_all(&d), "`inline`\n\ntext text 2\n\nA b c\n\nA b c") != NULL,
	    "codes: inline code and text in order, titles as lines");
	ok(strstr(doc_all(&d), "{mermaid}graph TD;\n    A-->B;") != NULL,
	    "codes: mermaid code kept with its indentation");
	doc_release(&d);
}

static void
test_fixtures(void)
{
	struct doc	 d;

	if (fixture("admonitions.html", &d) == 0) {
		is_str(d.title, "Main Heading", "admonitions: title from the H1");
		is_str(s_text(sec(&d, "Second Heading")), "Warning: Warn\n\n- Warn bullet 1\n"
		    "- Warn bullet 2\n\n- Regular list that runs long", "admonitions: warning "
		    "panel, the list after it apart");
		is_str(s_text(sec(&d, "Third Heading")), "Info: Test", "admonitions: info panel");
		ok(strncmp(s_text(sec(&d, "First Heading")), "Note: ", 6) == 0,
		    "admonitions: note panel");
		ok(strncmp(s_text(sec(&d, "Fourth Heading - Warn should not get picked as "
		    "block quote")), "Tip: ", 5) == 0, "admonitions: tip panel");
		is_str(s_anchor(sec(&d, "Second Heading")), "Second-Heading",
		    "admonitions: anchor from the heading id");
		doc_release(&d);
	}
	if (fixture("links.html", &d) == 0) {
		ok(strstr(doc_all(&d), "Use page link\n\nUse AnotherPage\n\nUse Another Page\n\n"
		    "Use Another Page\n\nUse page link with spaces\n\nMy test_link\n\n"
		    "Another [Link]\n\nUse footnotes link 1\n\nUse Link [Text]") != NULL,
		    "links: link bodies as text, images skipped");
		ok(strstr(doc_all(&d), "test.png") == NULL && strstr(doc_all(&d), "My Image") == NULL,
		    "links: no attachment or image text");
		doc_release(&d);
	}
	if (fixture("pagelayout.html", &d) == 0) {
		is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "More Content\n\nMore Content\n\n"
		    "Even More Content\n\nStill More Content", "pagelayout: cells in order");
		doc_release(&d);
	}
	if (fixture("tasklists.html", &d) == 0) {
		ok(d.nsecs > 0 && strstr(d.secs[0].text, "- [x] #739\n- [ ] https://github.com/"
		    "octo-org/octo-repo/issues/740\n- [ ] Add delight") != NULL,
		    "tasklists: items marked done or not");
		doc_release(&d);
	}
	if (fixture("macro-include.html", &d) == 0) {
		is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "bar\n\nInfo: Attention\n\n"
		    "This is an info!\n\nInfo: Attention\n\nHeader 1 | Header 2\nCell A | Cell B",
		    "macro-include: panel titles, a table inside a panel");
		doc_release(&d);
	}
	if (fixture("table.html", &d) == 0) {
		is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "HEADER1 | HEADER2\nrow1 | row2\n\n"
		    "HEADER1 | HEADER2\nrow1 | row2", "table: rows, two tables apart");
		doc_release(&d);
	}
	if (fixture("math-katex.html", &d) == 0) {
		ok(strstr(doc_all(&d), "Inline math: E = mc^2 and a Greek pair \\alpha + \\beta.")
		    != NULL, "math-katex: MathML as its TeX source, the rendering left out");
		doc_release(&d);
	}
	if (fixture("plantuml.html", &d) == 0) {
		ok(d.nsecs > 0 && d.secs[0].ncode == 2 && strcmp(d.secs[0].code[0].lang,
		    "plantuml") == 0 && strncmp(d.secs[0].code[0].code, "@startuml", 9) == 0,
		    "plantuml: a diagram macro's body is code named after the macro");
		doc_release(&d);
	}
}

/* What the fixtures lack, written by hand the way Confluence stores it. */
static void
test_macros(void)
{
	struct doc	 d;
	const char	*src =
	    "<h1>Guide</h1><p>A&nbsp;b &mdash; c &amp; d &lt;e&gt; &#169; &hellip; &bogus; "
	    "x & y</p>"
	    "<ac:structured-macro ac:name=\"toc\" ac:schema-version=\"1\"><ac:parameter "
	    "ac:name=\"maxLevel\">2</ac:parameter></ac:structured-macro>"
	    "<ac:structured-macro ac:name=\"code\" ac:macro-id=\"1\"><ac:parameter "
	    "ac:name=\"language\">Java</ac:parameter><ac:plain-text-body><![CDATA[a = b[c]]]]>"
	    "<![CDATA[>1; // &amp; <tag>]]></ac:plain-text-body></ac:structured-macro>"
	    "<ac:structured-macro ac:name=\"noformat\"><ac:plain-text-body><![CDATA[raw  text"
	    "]]></ac:plain-text-body></ac:structured-macro>"
	    "<ac:structured-macro ac:name=\"expand\"><ac:parameter ac:name=\"title\">More "
	    "details</ac:parameter><ac:rich-text-body><p>Hidden body.</p></ac:rich-text-body>"
	    "</ac:structured-macro>"
	    "<ac:structured-macro ac:name=\"panel\"><ac:rich-text-body><p>In a panel.</p>"
	    "</ac:rich-text-body></ac:structured-macro>"
	    "<ac:structured-macro ac:name=\"warning\"><ac:rich-text-body><p>Careful.</p>"
	    "<ac:structured-macro ac:name=\"note\"><ac:rich-text-body><p>Nested.</p>"
	    "</ac:rich-text-body></ac:structured-macro></ac:rich-text-body>"
	    "</ac:structured-macro>"
	    "<ac:structured-macro ac:name=\"vendor-thing\"><ac:parameter ac:name=\"p\">PARAM"
	    "</ac:parameter><ac:rich-text-body><p>Unknown body.</p></ac:rich-text-body>"
	    "</ac:structured-macro>"
	    "<p>Ask <ac:link><ri:user ri:account-id=\"557058:abc\"/></ac:link> about "
	    "<ac:link><ri:page ri:space-key=\"DOC\" ri:content-title=\"Setup Page\"/></ac:link>"
	    " <ac:emoticon ac:name=\"smile\"/> and <ac:link><ri:attachment ri:filename=\""
	    "f.pdf\"/><ac:link-body>the <b>PDF</b></ac:link-body></ac:link>.</p>"
	    "<ac:structured-macro ac:name=\"anchor\"><ac:parameter ac:name=\"\">custom"
	    "</ac:parameter></ac:structured-macro><h2>Anchored</h2><p>Status: "
	    "<ac:structured-macro ac:name=\"status\"><ac:parameter ac:name=\"title\">DONE"
	    "</ac:parameter></ac:structured-macro></p>";
	const struct doc_section	*s;

	if (body("macros", src, strlen(src), &d) == -1)
		return;
	s = sec(&d, "Guide");
	ok(s != NULL && strncmp(s->text, "A b \xe2\x80\x94 c & d <e> \xc2\xa9 \xe2\x80\xa6 "
	    "&bogus; x & y\n\n", 34) == 0, "HTML named entities, a stray '&'");
	ok(s != NULL && strstr(s->text, "maxLevel") == NULL && strstr(s->text, "2\n") ==
	    NULL, "toc skipped, parameters are not text");
	is_str(s_lang(s, 0), "java", "code macro: language");
	is_str(s_code(s, 0), "a = b[c]]>1; // &amp; <tag>", "code macro: a split CDATA "
	    "joined, its text verbatim");
	is_str(s_lang(s, 1), "", "noformat: no language");
	is_str(s_code(s, 1), "raw  text", "noformat: code");
	ok(s != NULL && strstr(s->text, "More details\n\nHidden body.\n\nIn a panel.\n\n"
	    "Warning: Careful.\n\nNote: Nested.\n\nUnknown body.") != NULL,
	    "expand title and body, panel, nested panels, an unknown macro's body");
	ok(s != NULL && strstr(s->text, "PARAM") == NULL, "an unknown macro's parameters "
	    "are not text");
	ok(s != NULL && strstr(s->text, "Ask about Setup Page and the PDF.") != NULL,
	    "mention dropped, page link as its title, link body kept, emoticon dropped");
	is_str(s_anchor(sec(&d, "Anchored")), "custom", "anchor macro names the heading");
	is_str(s_text(sec(&d, "Anchored")), "Status: DONE", "status macro as its title");
	doc_release(&d);
}

/* Input that tries the XML parser: DOCTYPE, entities, processing instructions. */
static void
test_hostile(void)
{
	struct doc	 d;
	const char	*xxe = "<!DOCTYPE p [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
	    "<p>a &x; b</p><?xml version=\"1.0\"?><p>c</p>";
	const char	*bad = "<p>one<p>two</ac:link></p><h2>three</h2>\x01<p>\xff four";

	if (body("xxe", xxe, strlen(xxe), &d) == 0) {
		ok(strstr(doc_all(&d), "root:") == NULL, "no external entity is read");
		ok(strstr(doc_all(&d), "a &x; b") != NULL && strstr(doc_all(&d), "c") != NULL,
		    "the reference stays text, the rest is kept");
		doc_release(&d);
	}
	if (body("broken", bad, strlen(bad), &d) == 0) {
		ok(strstr(doc_all(&d), "one") != NULL && strstr(doc_all(&d), "two") != NULL,
		    "unbalanced tags recover");
		doc_release(&d);
	}
	if (body("lt", "<p>a < b, 1<2 and </ x</p><p>end</p>", 36, &d) == 0) {
		is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "a < b, 1<2 and </ x\n\nend",
		    "a '<' that starts no tag is text, and the body goes on");
		doc_release(&d);
	}
	if (body("open br", "<p>one<br>two</p><p>three</p>", 29, &d) == 0) {
		is_str(d.nsecs > 0 ? d.secs[0].text : NULL, "one\ntwo\n\nthree",
		    "the text after a <br> left open is kept");
		doc_release(&d);
	}
	if (body("empty", "", 0, &d) == 0) {
		is_int(d.nsecs, 0, "an empty body has no sections");
		doc_release(&d);
	}
}

int
main(void)
{
	log_init("test-storage");
	test_codes();
	test_fixtures();
	test_macros();
	test_hostile();
	return tap_done();
}
