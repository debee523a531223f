/* test-format.c: the text and JSON answers built from snippets. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ctxd.h"
#include "tap.h"

static struct doc_code code_get[] = {
	{ "js", "app.get('/', (req, res) => {\n  res.send('hi');\n});\n\n" },
};

static struct doc_code code_two[] = {
	{ "sh", "npm install express" },
	{ "", "\n\nnode app.js\n" },
};

static struct doc_code code_fence[] = {
	{ "markdown", "Write:\n```js\nx()\n```\nDone." },
	{ "md", "  ````\nfour\n````" },
};

static const struct snippet snippets[] = {
	{
		"Routing", "Guide > Routing", "https://example.com/blob/main/docs/routing.md#routing",
		"Express guide", "Use app.get to answer GET requests.\n\n", code_get, 1, 40
	},
	{
		"About", "Guide > About", "https://example.com/blob/main/README.md#about",
		"Express", "Express is a web framework.\n  \n", NULL, 0, 7
	},
	{
		"Install", "Guide > Install", "https://example.com/blob/main/docs/install.md",
		"Install", "", code_two, 2, 12
	},
	{
		"Fences", "Guide > Fences", "https://example.com/f.md",
		"Fences", "Nested.", code_fence, 2, 9
	},
	{
		"Empty", "Empty", "https://example.com/e.md", NULL, NULL, NULL, 0, 0
	},
};

static void
check_text(const struct snippet *s, size_t n, const char *want, const char *name)
{
	struct buf	 b;

	buf_init(&b);
	is_int(format_text(&b, s, n), 0, "format_text returns 0");
	is_str(b.p != NULL ? b.p : "", want, name);
	buf_release(&b);
}

static void
test_text(void)
{
	check_text(&snippets[0], 1,
	    "### Routing\n\n"
	    "Source: https://example.com/blob/main/docs/routing.md#routing\n\n"
	    "Use app.get to answer GET requests.\n\n"
	    "```js\napp.get('/', (req, res) => {\n  res.send('hi');\n});\n```",
	    "one code snippet");
	check_text(&snippets[1], 1,
	    "### About\n\n"
	    "Source: https://example.com/blob/main/README.md#about\n\n"
	    "Express is a web framework.",
	    "info-only snippet");
	check_text(&snippets[0], 2,
	    "### Routing\n\n"
	    "Source: https://example.com/blob/main/docs/routing.md#routing\n\n"
	    "Use app.get to answer GET requests.\n\n"
	    "```js\napp.get('/', (req, res) => {\n  res.send('hi');\n});\n```"
	    "\n\n--------------------------------\n\n"
	    "### About\n\n"
	    "Source: https://example.com/blob/main/README.md#about\n\n"
	    "Express is a web framework.",
	    "two snippets joined by the separator");
	check_text(&snippets[2], 1,
	    "### Install\n\n"
	    "Source: https://example.com/blob/main/docs/install.md\n\n"
	    "```sh\nnpm install express\n```\n\n"
	    "```\nnode app.js\n```",
	    "two code blocks, no text");
	check_text(&snippets[3], 1,
	    "### Fences\n\n"
	    "Source: https://example.com/f.md\n\n"
	    "Nested.\n\n"
	    "````markdown\nWrite:\n```js\nx()\n```\nDone.\n````\n\n"
	    "`````md\n  ````\nfour\n````\n`````",
	    "code holding fences gets a longer fence");
	check_text(&snippets[4], 1,
	    "### Empty\n\nSource: https://example.com/e.md",
	    "empty snippet keeps title and source");
	check_text(snippets, 0, "", "no snippet: empty answer");
}

static const char *
jstr(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static long
jint(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -999;
	return json_object_get_int(v);
}

static struct json_object *
jarr(struct json_object *o, const char *key, size_t *n)
{
	struct json_object	*v;

	*n = 0;
	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return NULL;
	*n = json_object_array_length(v);
	return v;
}

static void
test_json(void)
{
	struct buf		 b;
	struct json_object	*root, *codes, *infos, *c, *list, *e;
	size_t			 n, nlist;

	buf_init(&b);
	is_int(format_json(&b, snippets, 5), 0, "format_json returns 0");
	ok(b.p != NULL && strstr(b.p, "https://example.com/") != NULL,
	    "slashes are not escaped");
	root = json_tokener_parse(b.p != NULL ? b.p : "");
	ok(root != NULL, "JSON parses");

	codes = jarr(root, "codeSnippets", &n);
	is_int(n, 3, "three code snippets");
	c = codes != NULL ? json_object_array_get_idx(codes, 0) : NULL;
	is_str(jstr(c, "codeTitle"), "Routing", "codeTitle");
	is_str(jstr(c, "codeDescription"), "Use app.get to answer GET requests.",
	    "codeDescription (trimmed)");
	is_str(jstr(c, "codeLanguage"), "js", "codeLanguage");
	is_int(jint(c, "codeTokens"), 40, "codeTokens");
	is_str(jstr(c, "codeId"),
	    "https://example.com/blob/main/docs/routing.md#_snippet_0",
	    "codeId drops the fragment and numbers from 0");
	is_str(jstr(c, "pageTitle"), "Express guide", "pageTitle");
	list = jarr(c, "codeList", &nlist);
	is_int(nlist, 1, "one code in codeList");
	e = list != NULL ? json_object_array_get_idx(list, 0) : NULL;
	is_str(jstr(e, "language"), "js", "codeList language");
	is_str(jstr(e, "code"), "app.get('/', (req, res) => {\n  res.send('hi');\n});",
	    "codeList code");

	c = codes != NULL ? json_object_array_get_idx(codes, 1) : NULL;
	is_str(jstr(c, "codeTitle"), "Install", "second codeTitle");
	is_str(jstr(c, "codeDescription"), "", "empty codeDescription");
	is_str(jstr(c, "codeLanguage"), "sh", "language of the first block");
	is_str(jstr(c, "codeId"), "https://example.com/blob/main/docs/install.md#_snippet_1",
	    "second codeId");
	list = jarr(c, "codeList", &nlist);
	is_int(nlist, 2, "two codes in codeList");
	e = list != NULL ? json_object_array_get_idx(list, 1) : NULL;
	is_str(jstr(e, "language"), "", "empty language");
	is_str(jstr(e, "code"), "node app.js", "second code trimmed");

	c = codes != NULL ? json_object_array_get_idx(codes, 2) : NULL;
	is_str(jstr(c, "codeId"), "https://example.com/f.md#_snippet_2", "third codeId");

	infos = jarr(root, "infoSnippets", &n);
	is_int(n, 2, "two info snippets");
	e = infos != NULL ? json_object_array_get_idx(infos, 0) : NULL;
	is_str(jstr(e, "pageId"), "https://example.com/blob/main/README.md#about", "pageId");
	is_str(jstr(e, "breadcrumb"), "Guide > About", "breadcrumb");
	is_str(jstr(e, "content"), "Express is a web framework.", "content");
	is_int(jint(e, "contentTokens"), 7, "contentTokens");
	e = infos != NULL ? json_object_array_get_idx(infos, 1) : NULL;
	is_str(jstr(e, "content"), "", "NULL text gives empty content");
	is_str(jstr(e, "pageId"), "https://example.com/e.md", "second pageId");
	json_object_put(root);

	buf_reset(&b);
	is_int(format_json(&b, NULL, 0), 0, "format_json of nothing");
	is_str(b.p, "{\"codeSnippets\":[],\"infoSnippets\":[]}", "empty lists");
	buf_release(&b);
}

static void
test_release(void)
{
	struct snippet	 s;

	memset(&s, 0, sizeof(s));
	s.title = strdup("t");
	s.breadcrumb = strdup("b");
	s.source = strdup("s");
	s.page_title = strdup("p");
	s.text = strdup("x");
	s.ncode = 2;
	s.code = calloc(2, sizeof(*s.code));
	if (s.code != NULL) {
		s.code[0].lang = strdup("c");
		s.code[0].code = strdup("int x;");
		s.code[1].lang = strdup("");
		s.code[1].code = strdup("y");
	} else
		s.ncode = 0;
	format_snippet_release(&s);
	ok(s.title == NULL && s.code == NULL && s.ncode == 0,
	    "format_snippet_release clears");
	format_snippet_release(&s);
	ok(1, "second release is harmless");
}

int
main(void)
{
	test_text();
	test_json();
	test_release();
	return tap_done();
}
