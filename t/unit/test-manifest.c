/*
 * test-manifest.c: the GitOps manifest parser (lib/gitops/manifest.c): a valid manifest with
 * defaults and entries of every type, every validation error with its file, line and
 * column, and the bounds (an alias bomb, deep nesting, a large file).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitops/manifest.h"
#include "tap.h"

/* Expects yaml to be rejected with an error starting with "repos.yaml:" where and
   containing want. */
static void
rejected(const char *yaml, const char *where, const char *want)
{
	struct manifest	 m;
	char		 prefix[64];
	int		 rc, hit = 0;
	size_t		 i;

	snprintf(prefix, sizeof(prefix), "repos.yaml:%s: ", where);
	rc = manifest_parse("repos.yaml", yaml, strlen(yaml), &m);
	for (i = 0; i < m.nerrors; i++)
		if (strncmp(m.errors[i], prefix, strlen(prefix)) == 0 &&
		    strstr(m.errors[i], want) != NULL)
			hit = 1;
	ok(rc == -1 && hit && m.n == 0, "rejected at %s: %s", where, want);
	if (!hit)
		for (i = 0; i < m.nerrors; i++)
			printf("#   got '%s'\n", m.errors[i]);
	manifest_release(&m);
}

static void
test_valid(void)
{
	static const char y[] =
	    "# the libraries of the team\n"
	    "defaults:\n"
	    "  indexSourceCode: true\n"
	    "  branch: stable\n"
	    "repos:\n"
	    "  - url: https://git.example.com/acme/api\n"
	    "  - repoUrl: https://git.example.com/acme/web.git\n"
	    "    branch: main\n"
	    "    folders: [docs, guide]\n"
	    "    indexSourceCode: false\n"
	    "  - type: website\n"
	    "    url: https://docs.example.com/guide/\n"
	    "    maxPages: 50\n"
	    "  - type: llmstxt\n"
	    "    url: https://example.com/llms.txt\n"
	    "  - type: openapi\n"
	    "    url: https://api.example.com/v1/openapi.yaml\n"
	    "    title: \"Pets API\"\n"
	    "  - type: wiki\n"
	    "    url: https://wiki.example.com/\n"
	    "    spaceKey: ENG\n";
	struct manifest	 m;
	int		 rc;

	rc = manifest_parse("repos.yaml", y, sizeof(y) - 1, &m);
	ok(rc == 0 && m.n == 6 && m.nerrors == 0, "a valid manifest: %zu entries", m.n);
	if (rc == 0 && m.n == 6) {
		is_str(m.entries[0].req.id, "/acme/api", "an entry without type is git");
		is_str(m.entries[0].req.branch, "stable", "defaults.branch applies");
		ok(m.entries[0].req.rules.index_source == 1, "defaults.indexSourceCode applies");
		is_int(m.entries[0].line, 6, "the entry's line");
		is_int(m.entries[0].column, 5, "the entry's column");
		is_str(m.entries[1].req.branch, "main", "an entry's own branch wins");
		ok(m.entries[1].req.rules.index_source == 0 &&
		    m.entries[1].req.rules.nfolders == 2, "its own indexSourceCode and folders");
		is_str(m.entries[2].req.type, "website", "a website entry");
		ok(strstr(m.entries[2].req.settings, "\"maxPages\":50") != NULL,
		    "with its maxPages: %s", m.entries[2].req.settings);
		is_str(m.entries[3].req.type, "llmstxt", "an llms.txt entry");
		is_str(m.entries[4].req.id, "/openapi/api_example_com_v1",
		    "an OpenAPI entry");
		is_str(m.entries[5].req.type, "wiki", "a wiki entry (defaults do not apply)");
	}
	manifest_release(&m);
	rc = manifest_parse("repos.yaml", "repos: []\n", 10, &m);
	ok(rc == 0 && m.n == 0, "an empty list of repos is valid");
	manifest_release(&m);
}

static void
test_errors(void)
{
	rejected("repos:\n  - url: https://g.example.com/a/b\n    type: gitt\n", "3:11",
	    "field 'type' must be one of");
	rejected("repos:\n  - url: https://g.example.com/a/b\n    maxPages: 3\n", "3:5",
	    "'maxPages' is not a field of a git");
	rejected("repos:\n  - branch: main\n    folders: [docs]\n", "2:5",
	    "missing required field 'url'");
	rejected("repos:\n  - url: https://g.example.com/a/b\n    folders: docs\n", "3:14",
	    "folders");
	rejected("repos:\n  - type: website\n    url: https://d.example.com/\n"
	    "    maxPages: many\n", "4:15", "maxPages");
	rejected("repos:\n  - type: wiki\n    url: https://w.example.com/\n"
	    "    spaceKey: ENG\n    pageUrls: [https://w.example.com/pages/1]\n", "4:15",
	    "not both");
	rejected("repos:\n  - type: wiki\n    url: https://w.example.com/\n", "2:5",
	    "needs 'spaceKey'");
	rejected("repos:\n  - type: llmstxt\n    url: https://e.example.com/docs.txt\n",
	    "3:10", "llms.txt");
	rejected("repos:\n  - url: https://g.example.com/a/b\n"
	    "  - url: https://g.example.com/a/b.git\n", "3:5",
	    "a second entry for library /a/b (the first is at line 2)");
	rejected("repos:\n  - url: https://g.example.com/a/b\n    colour: blue\n", "3:5",
	    "unknown field 'colour'");
	rejected("repos:\n  - url: https://g.example.com/a/b\n  - url: [x\n", "4:1", "YAML");
	rejected("repo:\n  - url: https://g.example.com/a/b\n", "1:1",
	    "unknown top-level key");
	rejected("defaults:\n  indexSourceCode: yes please\nrepos: []\n", "2:20",
	    "'indexSourceCode' must be true or false");
	rejected("defaults:\n  maxPages: 3\nrepos: []\n", "2:3",
	    "defaults: unknown field 'maxPages'");
	rejected("repos:\n  url: https://g.example.com/a/b\n", "2:3",
	    "'repos' must be a list");
	rejected("- url: https://g.example.com/a/b\n", "1:1", "must be a mapping");
	rejected("repos:\n  - https://g.example.com/a/b\n", "2:5",
	    "an entry of 'repos' must be a mapping");
	rejected("repos:\n  - url: https://g.example.com/a/b\n    url: https://x.example.com/c/d\n",
	    "3:5", "key 'url' given twice");
	rejected("repos:\n  - url: https://user:pw@g.example.com/a/b\n", "2:10",
	    "credentials");
	rejected("repos:\n  - url: https://g.example.com/a/b\n    indexSourceCode: \"true\"\n",
	    "3:22", "indexSourceCode");
}

/* An alias bomb (each level doubles the last) and other bounds. */
static void
test_bounds(void)
{
	struct manifest	 m;
	char		*big;
	int		 rc;
	static const char bomb[] =
	    "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	    "repos:\n  - url: https://g.example.com/a/b\n    folders: *d\n";

	rejected(bomb, "1:1", "unknown top-level key");
	rejected("repos:\n  - &e {url: https://g.example.com/a/b}\n  - *e\n", "2:5",
	    "anchors and aliases are not allowed");
	rejected("repos:\n  - url: https://g.example.com/a/b\n    folders: [[[[[[[[[[x]]]]]]]]]]\n",
	    "3:20", "too deeply nested");
	/* 100k nested flow sequences are refused by the event pass, before libyaml loads
	   (and scans ever deeper) the whole document. */
	if ((big = malloc(100000 + 1)) != NULL) {
		memset(big, '[', 100000);
		big[100000] = '\0';
		rejected(big, "1:10", "too deeply nested");
		memset(big, '{', 100000);
		rejected(big, "1:10", "too deeply nested");
		free(big);
	}
	/* More nodes than twice MANIFEST_MAX_NODES in a flat list. */
	if ((big = malloc(16 + 2 * (2 * MANIFEST_MAX_NODES + 1))) != NULL) {
		size_t	 i, o;

		o = (size_t)snprintf(big, 16, "repos: [");
		for (i = 0; i <= 2 * (size_t)MANIFEST_MAX_NODES; i++) {
			big[o++] = '1';
			big[o++] = ',';
		}
		big[o - 1] = ']';
		big[o] = '\0';
		rejected(big, "1:400003", "too large");
		free(big);
	}
	if ((big = malloc(MANIFEST_MAX_BYTES + 2)) != NULL) {
		memset(big, '#', MANIFEST_MAX_BYTES + 1);
		big[MANIFEST_MAX_BYTES + 1] = '\0';
		rc = manifest_parse("repos.yaml", big, MANIFEST_MAX_BYTES + 1, &m);
		ok(rc == -1 && m.nerrors == 1 && strstr(m.errors[0], "larger than") != NULL,
		    "a manifest over %d bytes is refused", MANIFEST_MAX_BYTES);
		manifest_release(&m);
		free(big);
	}
}

int
main(void)
{
	test_valid();
	test_errors();
	test_bounds();
	return tap_done();
}
