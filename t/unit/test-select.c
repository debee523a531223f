/* test-select.c: select_path() on real corpus paths and on folder/file rules. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "parse/parse.h"
#include "sources/select.h"
#include "tap.h"

struct want {
	const char	*path;
	int		 yes;
};

/* Paths taken from `git ls-files` of the corpora in t/corpora (default rules). */
static const struct want defaults[] = {
	/* curl */
	{ "docs/cmdline-opts/location.md", 1 },
	{ "docs/libcurl/opts/CURLOPT_URL.md", 1 },
	{ "docs/libcurl/curl_easy_getinfo.md", 1 },
	{ "docs/internals/BUFQ.md", 1 },
	{ "docs/tests/HTTP.md", 1 },
	{ "docs/FAQ.md", 1 },
	{ "docs/TheArtOfHttpScripting.md", 1 },
	{ "docs/DEPRECATE.md", 1 },
	{ "docs/INSTALL-CMAKE.md", 1 },
	{ "README", 1 },
	{ "README.md", 1 },
	{ "SECURITY.md", 1 },
	{ "GIT-INFO.md", 1 },
	{ "docs/examples/http-post.c", 0 },
	{ "docs/examples/10-at-a-time.c", 0 },
	{ "CHANGES.md", 0 },
	{ "COPYING", 0 },
	{ "docs/THANKS", 0 },
	{ "docs/THANKS-filter", 0 },
	{ "docs/INSTALL", 0 },
	{ "docs/CMakeLists.txt", 0 },
	{ "docs/Makefile.am", 0 },
	{ "docs/libcurl/Makefile.inc", 0 },
	{ "docs/libcurl/symbols-in-versions", 0 },
	{ "docs/libcurl/libcurl.m4", 0 },
	{ "docs/libcurl/symbols.pl", 0 },
	{ "docs/.gitignore", 0 },
	{ "docs/CODE_OF_CONDUCT.md", 0 },
	{ "docs/HISTORY.md", 0 },
	/* vite */
	{ "docs/guide/features.md", 1 },
	{ "docs/config/server-options.md", 1 },
	{ "docs/changes/hotupdate-hook.md", 1 },
	{ "docs/blog/announcing-vite5.md", 1 },
	{ "packages/vite/README.md", 1 },
	{ "packages/create-vite/template-react-ts/README.md", 1 },
	{ "packages/plugin-legacy/README.md", 1 },
	{ "packages/vite/CHANGELOG.md", 0 },
	{ "packages/plugin-legacy/CHANGELOG.md", 0 },
	{ "packages/vite/LICENSE.md", 0 },
	{ "LICENSE", 0 },
	{ "docs/guide/static-deploy-github-pages.yaml", 0 },
	{ ".github/PULL_REQUEST_TEMPLATE.md", 0 },
	{ ".github/SECURITY.md", 0 },
	{ ".github/copilot-instructions.md", 0 },
	{ "CONTRIBUTING.md", 1 },
	/* express */
	{ "src/content/docs/en/5x/guide/routing.mdx", 1 },
	{ "src/content/docs/en/4x/starter/faq.mdx", 1 },
	{ "src/content/pages/en/resources/middleware/cors.mdx", 1 },
	{ "src/content/api/5x/api/response/index.mdx", 1 },
	{ "src/content/blog/2024-10-15-v5-release.md", 1 },
	{ "docs/i18n.md", 1 },
	{ "LICENSE.md", 0 },
	/* express translations, dropped from the bundle but present upstream */
	{ "src/content/docs/de/5x/guide/routing.mdx", 0 },
	{ "src/content/docs/pt-br/4x/guide/routing.mdx", 0 },
	{ "src/content/docs/zh-cn/5x/guide/routing.mdx", 0 },
	{ "src/content/docs/zh-tw/5x/guide/routing.mdx", 0 },
	{ "src/content/pages/ja/guide/migrating-5.mdx", 0 },
	{ "src/content/pages/ko/support.mdx", 0 },
	{ "src/content/pages/fr/support.mdx", 0 },
	{ "src/content/pages/es/support.mdx", 0 },
	{ "src/content/pages/it/support.mdx", 0 },
	/* pydantic */
	{ "docs/index.md", 1 },
	{ "docs/concepts/models.md", 1 },
	{ "docs/api/base_model.md", 1 },
	{ "docs/examples/files.md", 1 },
	{ "pydantic-core/README.md", 1 },
	{ "release/README.md", 1 },
	{ "HISTORY.md", 0 },
	{ "pydantic-core/LICENSE", 0 },
	{ ".agents/skills/pydantic/SKILL.md", 0 },
	{ ".hyperlint/style_guide_test.md", 0 },
	/* axum */
	{ "axum/src/docs/routing/route.md", 1 },
	{ "axum/src/docs/method_routing/fallback.md", 1 },
	{ "examples/README.md", 1 },
	{ "axum-core/README.md", 1 },
	{ "CHANGELOG.md", 0 },
	{ "axum-macros/CHANGELOG.md", 0 },
	{ "axum-extra/LICENSE", 0 },
	{ ".github/ISSUE_TEMPLATE/bug_report.md", 0 },
	{ "axum/src/lib.rs", 0 },
	/* requests */
	{ "docs/index.rst", 1 },
	{ "docs/user/quickstart.rst", 1 },
	{ "docs/community/faq.rst", 1 },
	{ "docs/dev/authors.rst", 0 },	/* ".. include:: ../../AUTHORS.rst" */
	{ "AUTHORS.rst", 0 },
	{ "NOTICE", 0 },
	{ ".github/CODE_OF_CONDUCT.md", 0 },
	{ ".github/CONTRIBUTING.md", 0 },
	/* extensions and README names, any case */
	{ "docs/Guide.MD", 1 },
	{ "docs/page.markdown", 1 },
	{ "docs/page.Rst", 1 },
	{ "docs/notes.txt", 1 },
	{ "readme", 1 },
	{ "ReadMe.rst", 1 },
	{ "sub/README.txt", 1 },
	{ "README.html", 0 },
	{ "docs/page.html", 0 },
	{ "docs/page.mdown", 1 },	/* Markdown's other extensions (doc_formats) */
	{ "docs/page.mkd", 1 },
	{ "docs/page.rest", 1 },
	{ "docs/page.MARKDOWN", 1 },
	{ "docs/md", 0 },
	{ "docs/.md", 0 },
	{ "Makefile", 0 },
	/* changelog and licence families */
	{ "changelog.md", 0 },
	{ "CHANGELOG", 0 },
	{ "CHANGELOG-v1.md", 0 },
	{ "docs/NEWS.rst", 0 },
	{ "RELEASE-NOTES.md", 0 },
	{ "RELEASENOTES.md", 0 },
	{ "release_notes.txt", 0 },
	{ "LICENSE-MIT.md", 0 },
	{ "LICENCE.txt", 0 },
	{ "COPYING.LESSER.txt", 0 },
	{ "CONTRIBUTORS.md", 0 },
	{ "THANKS.md", 0 },
	{ "code_of_conduct.md", 0 },
	{ "docs/newsletter.md", 1 },
	{ "docs/historyapi.md", 1 },
	{ "docs/licenses.md", 1 },
	{ "docs/releases.md", 1 },
	{ "requirements.txt", 0 },
	{ "docs/requirements-dev.txt", 0 },
	{ "robots.txt", 0 },
	/* noise folders, any depth, any case */
	{ "docs/archive/v1.md", 0 },
	{ "docs/Archived/v1.md", 0 },
	{ "deprecated/api.md", 0 },
	{ "docs/legacy/api.md", 0 },
	{ "docs/old/api.md", 0 },
	{ "docs/i18n/intro.md", 0 },
	{ "i18n/zh/docusaurus-plugin-content-docs/current/intro.md", 0 },
	{ "locales/de/intro.md", 0 },
	{ "translations/intro.md", 0 },
	{ "web/node_modules/pkg/README.md", 0 },
	{ "vendor/lib/README.md", 0 },
	{ "third_party/zlib/README", 0 },
	{ "LICENSES/MIT.txt", 0 },
	{ ".git/description.md", 0 },
	{ ".vitepress/theme/README.md", 0 },
	{ "docs/older/api.md", 1 },
	{ "docs/legacy-mode.md", 1 },
	/* translation folders: only directly under docs/content/pages-like folders */
	{ "docs/zh/guide/features.md", 0 },
	{ "docs/ja/index.md", 0 },
	{ "content/de/about.md", 0 },
	{ "docs/pt-BR/index.md", 0 },
	{ "docs/zh_CN/index.md", 0 },
	{ "docs/zh-Hans/index.md", 0 },
	{ "docs/en/index.md", 1 },
	{ "docs/en-us/index.md", 1 },
	{ "docs/js/index.md", 1 },
	{ "docs/ui/index.md", 1 },
	{ "docs/go/index.md", 1 },
	{ "src/de/notes.md", 1 },
	{ "de/README.md", 1 },
	{ "docs/guide/de/notes.md", 1 },
	{ "docs/index.fr.md", 0 },
	{ "docs/setup.zh.md", 0 },
	{ "docs/index.en.md", 1 },
	{ "docs/vue.js.md", 1 },
	/* odd spellings of paths */
	{ "./docs/index.md", 1 },
	{ "/docs/index.md", 1 },
	{ "docs//guide/features.md", 1 },
	{ "docs/../secret.md", 0 },
	{ "", 0 },
	{ "/", 0 },
};

static int
sel(const struct select_rules *r, const char *path)
{
	return select_path(r, path);
}

static void
test_defaults(void)
{
	struct select_rules	 none;
	char			 name[256];
	size_t			 i;

	memset(&none, 0, sizeof(none));
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		snprintf(name, sizeof(name), "default: '%s'", defaults[i].path);
		is_int(sel(&none, defaults[i].path), defaults[i].yes, name);
		/* A NULL rule set behaves as an empty one. */
		snprintf(name, sizeof(name), "NULL rules: '%s'", defaults[i].path);
		is_int(sel(NULL, defaults[i].path), defaults[i].yes, name);
	}
}

static void
test_folders(void)
{
	struct select_rules	 r;
	char			*f1[] = { "docs" };
	char			*f2[] = { "docs/" };
	char			*f3[] = { "/docs" };
	char			*f4[] = { "./docs" };
	char			**forms[] = { f1, f2, f3, f4 };
	char			*multi[] = { "docs/guide", "packages/vite" };
	char			*glob[] = { "src/content/*/en" };
	char			*root[] = { "/" };
	char			*explicit[] = { "docs/legacy" };
	char			*de[] = { "src/content/docs/de" };
	char			 name[128];
	size_t			 i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 4; i++) {
		r.folders = forms[i];
		r.nfolders = 1;
		snprintf(name, sizeof(name), "folder '%s'", forms[i][0]);
		is_int(sel(&r, "docs/guide/features.md"), 1, name);
		is_int(sel(&r, "docs/index.md"), 1, name);
		is_int(sel(&r, "README.md"), 0, name);
		/* A nested docs folder is not the root one. */
		is_int(sel(&r, "packages/vite/docs/x.md"), 0, name);
		/* Components, not string prefixes. */
		is_int(sel(&r, "docsite/x.md"), 0, name);
		is_int(sel(&r, "docs.md"), 0, name);
		/* The default exclusions still apply below it. */
		is_int(sel(&r, "docs/CHANGELOG.md"), 0, name);
		is_int(sel(&r, "docs/old/x.md"), 0, name);
	}

	r.folders = multi;
	r.nfolders = 2;
	ok(sel(&r, "docs/guide/ssr.md"), "multi: docs/guide/ssr.md");
	ok(sel(&r, "packages/vite/README.md"), "multi: packages/vite/README.md");
	ok(!sel(&r, "docs/config/index.md"), "multi: docs/config out");
	ok(!sel(&r, "packages/create-vite/README.md"), "multi: other package out");
	ok(!sel(&r, "docs/guidebook/x.md"), "multi: docs/guidebook out");

	r.folders = glob;
	r.nfolders = 1;
	ok(sel(&r, "src/content/docs/en/5x/guide/routing.mdx"), "glob folder: docs/en");
	ok(sel(&r, "src/content/pages/en/support.mdx"), "glob folder: pages/en");
	ok(!sel(&r, "src/content/blog/2024-10-15-v5-release.md"), "glob folder: blog out");
	ok(!sel(&r, "src/content/docs/fr/x.mdx"), "glob folder: fr out");

	r.folders = root;
	ok(sel(&r, "README.md"), "folder '/': everything");
	ok(!sel(&r, "CHANGELOG.md"), "folder '/': defaults apply");

	/* Default folder exclusions only apply below the folder the user named. */
	r.folders = explicit;
	ok(sel(&r, "docs/legacy/api.md"), "folder docs/legacy: its files are in");
	ok(!sel(&r, "docs/legacy/old/api.md"), "folder docs/legacy: old/ below it is out");
	ok(!sel(&r, "docs/api.md"), "folder docs/legacy: docs/api.md out");
	r.folders = de;
	ok(sel(&r, "src/content/docs/de/5x/guide/routing.mdx"),
	    "folder of a translation named explicitly is in");
}

static void
test_exclude_folders(void)
{
	struct select_rules	 r;
	char			*ex[] = { "node_modules2", "docs/blog/", "/build",
				    "./gen", "api", "*-internal" };
	char			*fo[] = { "docs" };
	char			*rootx[] = { "/", "" };

	memset(&r, 0, sizeof(r));
	r.exclude_folders = ex;
	r.nexclude_folders = sizeof(ex) / sizeof(ex[0]);
	ok(!sel(&r, "a/b/node_modules2/x.md"), "exclude name at any depth");
	ok(!sel(&r, "node_modules2/x.md"), "exclude name at the root");
	ok(!sel(&r, "docs/blog/announcing-vite5.md"), "exclude docs/blog/");
	ok(sel(&r, "docs/guide/blog/x.md"), "docs/blog is anchored: nested blog in");
	ok(sel(&r, "docs/blog.md"), "exclude docs/blog keeps docs/blog.md");
	ok(!sel(&r, "build/x.md"), "exclude /build at the root");
	ok(sel(&r, "docs/build/x.md"), "/build is anchored: docs/build in");
	ok(!sel(&r, "gen/x.md"), "exclude ./gen at the root");
	ok(sel(&r, "docs/gen/x.md"), "./gen is anchored: docs/gen in");
	ok(!sel(&r, "docs/api/base_model.md"), "exclude api at any depth");
	ok(!sel(&r, "src/content/api/5x/api.mdx"), "exclude api: express api/");
	ok(sel(&r, "docs/api.md"), "exclude api keeps a file named api.md");
	ok(!sel(&r, "docs/team-internal/x.md"), "exclude glob *-internal");
	ok(sel(&r, "docs/internal/x.md"), "glob *-internal keeps internal/");
	ok(sel(&r, "docs/guide/features.md"), "unrelated path kept");

	r.folders = fo;
	r.nfolders = 1;
	ok(!sel(&r, "docs/api/base_model.md"), "folders + exclude: docs/api out");
	ok(sel(&r, "docs/concepts/models.md"), "folders + exclude: docs/concepts in");

	/* An exclude rule naming the root would exclude everything: ignored. */
	memset(&r, 0, sizeof(r));
	r.exclude_folders = rootx;
	r.nexclude_folders = 2;
	ok(sel(&r, "docs/index.md"), "exclude '/' and '' ignored");
}

static void
test_exclude_files(void)
{
	struct select_rules	 r;
	char			*ex[] = { "CONTRIBUTING.md", "*.mdx", "docs/api/*.md",
				    "/docs/index.md", "**/faq.rst", "pydantic_extra_types_?*.md" };

	memset(&r, 0, sizeof(r));
	r.exclude_files = ex;
	r.nexclude_files = sizeof(ex) / sizeof(ex[0]);
	ok(!sel(&r, "CONTRIBUTING.md"), "base name: root CONTRIBUTING.md");
	ok(!sel(&r, "docs/dev/CONTRIBUTING.md"), "base name matches at any depth");
	ok(sel(&r, "docs/contributing.md"), "base name is case-sensitive");
	ok(!sel(&r, "src/content/docs/en/5x/guide/routing.mdx"), "glob *.mdx");
	ok(sel(&r, "src/content/blog/2024-10-15-v5-release.md"), "*.mdx keeps .md");
	ok(!sel(&r, "docs/api/base_model.md"), "path glob docs/api/*.md");
	ok(sel(&r, "docs/api/sub/deep.md"), "FNM_PATHNAME: * does not cross '/'");
	ok(sel(&r, "other/docs/api/x.md"), "path glob is anchored at the root");
	ok(!sel(&r, "docs/index.md"), "whole path /docs/index.md");
	ok(sel(&r, "docs/guide/index.md"), "whole path: other index.md kept");
	ok(!sel(&r, "docs/community/faq.rst"), "**/faq.rst at depth");
	ok(!sel(&r, "faq.rst"), "**/faq.rst at the root");
	ok(sel(&r, "docs/community/faq2.rst"), "**/faq.rst is exact");
	ok(!sel(&r, "docs/api2/pydantic_extra_types_color.md"), "? and * on base name");
	ok(sel(&r, "docs/api2/pydantic_extra_types_.md"), "?* needs a character");
	ok(sel(&r, "docs/concepts/models.md"), "unrelated file kept");
}

/* The selection over the whole requests corpus, in `git ls-files` order. */
static void
test_corpus_list(void)
{
	static const char *const files[] = {
		".github/AI_POLICY.md", ".github/CODE_OF_CONDUCT.md",
		".github/CONTRIBUTING.md", ".github/ISSUE_TEMPLATE.md",
		".github/ISSUE_TEMPLATE/Bug_report.md", ".github/ISSUE_TEMPLATE/Custom.md",
		".github/ISSUE_TEMPLATE/Feature_request.md", ".github/SECURITY.md",
		"AUTHORS.rst", "HISTORY.md", "LICENSE", "NOTICE", "README.md",
		"docs/api.rst", "docs/community/faq.rst", "docs/community/out-there.rst",
		"docs/community/recommended.rst", "docs/community/release-process.rst",
		"docs/community/support.rst", "docs/community/updates.rst",
		"docs/community/vulnerabilities.rst", "docs/dev/authors.rst",
		"docs/dev/contributing.rst", "docs/index.rst", "docs/user/advanced.rst",
		"docs/user/authentication.rst", "docs/user/install.rst",
		"docs/user/quickstart.rst", "tests/certs/README.md",
		"tests/certs/expired/README.md", "tests/certs/mtls/README.md", NULL
	};
	struct select_rules	 r;
	struct buf		 got;
	char			*fo[] = { "docs/" };
	char			*exf[] = { "community" };
	size_t			 i;

	memset(&r, 0, sizeof(r));
	buf_init(&got);
	buf_adds(&got, "");
	for (i = 0; files[i] != NULL; i++)
		if (sel(&r, files[i]))
			buf_printf(&got, "%s\n", files[i]);
	is_str(got.p, "README.md\ndocs/api.rst\ndocs/community/faq.rst\n"
	    "docs/community/out-there.rst\ndocs/community/recommended.rst\n"
	    "docs/community/release-process.rst\ndocs/community/support.rst\n"
	    "docs/community/updates.rst\ndocs/community/vulnerabilities.rst\n"
	    "docs/dev/contributing.rst\ndocs/index.rst\n"
	    "docs/user/advanced.rst\ndocs/user/authentication.rst\n"
	    "docs/user/install.rst\ndocs/user/quickstart.rst\n"
	    "tests/certs/README.md\ntests/certs/expired/README.md\n"
	    "tests/certs/mtls/README.md\n", "requests corpus, default rules");

	r.folders = fo;
	r.nfolders = 1;
	r.exclude_folders = exf;
	r.nexclude_folders = 1;
	buf_reset(&got);
	for (i = 0; files[i] != NULL; i++)
		if (sel(&r, files[i]))
			buf_printf(&got, "%s\n", files[i]);
	is_str(got.p, "docs/api.rst\n"
	    "docs/dev/contributing.rst\ndocs/index.rst\n"
	    "docs/user/advanced.rst\ndocs/user/authentication.rst\n"
	    "docs/user/install.rst\ndocs/user/quickstart.rst\n",
	    "requests corpus, folders docs/ minus community");
	buf_release(&got);
}

/* indexSourceCode: source files too, without tests and generated code. */
static void
test_index_source(void)
{
	static const struct want src[] = {
		/* the with-source corpus */
		{ "axum/src/lib.rs", 1 },
		{ "axum/src/extract/ws.rs", 1 },
		{ "axum/src/routing/mod.rs", 1 },
		{ "axum-core/src/extract/default_body_limit.rs", 1 },
		{ "axum-macros/src/lib.rs", 1 },
		{ "axum/src/docs/routing/route.md", 1 },
		{ "CHANGELOG.md", 0 },
		{ "axum-extra/LICENSE", 0 },
		/* every source extension, case-sensitive */
		{ "docs/examples/http-post.c", 1 },
		{ "include/curl/curl.h", 1 },
		{ "src/a.cc", 1 }, { "src/a.cpp", 1 }, { "src/a.hpp", 1 },
		{ "pkg/server.go", 1 }, { "src/Main.java", 1 }, { "src/Main.kt", 1 },
		{ "pydantic/main.py", 1 }, { "src/index.ts", 1 }, { "src/App.tsx", 1 },
		{ "lib/index.js", 1 }, { "src/App.jsx", 1 }, { "src/mod.mjs", 1 },
		{ "Sources/App.swift", 1 }, { "lib/app.rb", 1 }, { "src/app.php", 1 },
		{ "src/App.cs", 1 }, { "src/App.scala", 1 },
		{ "src/MAIN.C", 0 }, { "src/lib.RS", 0 }, { "src/a.pyc", 0 },
		{ "src/a.o", 0 }, { "Makefile", 0 }, { "src/a.json", 0 }, { "rs", 0 },
		{ "src/.rs", 0 },
		/* test, benchmark and fixture folders */
		{ "axum/tests/integration.rs", 0 },
		{ "tests/test_main.py", 0 },
		{ "src/test/java/AppTest.java", 0 },
		{ "src/components/__tests__/App.tsx", 0 },
		{ "src/__mocks__/fs.js", 0 },
		{ "pkg/testdata/input.go", 0 },
		{ "spec/fixtures/a.rb", 0 },
		{ "axum/benches/benches.rs", 0 },
		/* examples are documentation */
		{ "examples/hello-world/src/main.rs", 1 },
		{ "docs/examples/10-at-a-time.c", 1 },
		/* test files next to the code */
		{ "pkg/server_test.go", 0 },
		{ "pydantic/test_models.py", 0 },
		{ "pydantic/models_test.py", 0 },
		{ "conftest.py", 0 },
		{ "src/app.test.ts", 0 },
		{ "src/app.spec.jsx", 0 },
		{ "src/main/java/AppTest.java", 0 },
		{ "spec/models/user_spec.rb", 0 },
		{ "pkg/latest.go", 1 },
		{ "pydantic/testing_utils.py", 1 },
		{ "src/contest.py", 1 },
		/* generated, built and vendored code */
		{ "dist/index.js", 0 },
		{ "build/lib/a.py", 0 },
		{ "target/debug/build/out.rs", 0 },
		{ "web/node_modules/react/index.js", 0 },
		{ "vendor/github.com/x/y.go", 0 },
		{ "third_party/zlib/zlib.h", 0 },
		{ "src/generated/api.ts", 0 },
		{ "public/jquery.min.js", 0 },
		{ "api/v1/service.pb.go", 0 },
		{ "proto/service_pb2.py", 0 },
		{ "src/schema.generated.ts", 0 },
		{ "pkg/__pycache__/a.py", 0 },
		{ ".github/scripts/release.js", 0 },
		{ "src/legacy/old.rs", 0 },
	};
	struct select_rules	 r, plain;
	char			*fo[] = { "tests" };
	char			*exf[] = { "axum-macros" };
	char			*exfile[] = { "*.h" };
	char			 name[256];
	size_t			 i;

	memset(&r, 0, sizeof(r));
	memset(&plain, 0, sizeof(plain));
	r.index_source = 1;
	for (i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		snprintf(name, sizeof(name), "indexSourceCode: '%s'", src[i].path);
		is_int(sel(&r, src[i].path), src[i].yes, name);
	}
	/* Without the option, no source file is ever selected. */
	for (i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		const char *p = src[i].path;
		size_t n = strlen(p);
		int isdoc = (n > 3 && strcmp(p + n - 3, ".md") == 0) ||
		    strcmp(p, "CHANGELOG.md") == 0;

		if (isdoc)
			continue;
		snprintf(name, sizeof(name), "no indexSourceCode: '%s'", p);
		is_int(sel(&plain, p), 0, name);
	}
	/* The documentation selection does not change with the option. */
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		const char *p = defaults[i].path;
		size_t n = strlen(p);

		if (n > 2 && strcmp(p + n - 2, ".c") == 0)
			continue;	/* curl's examples: source, now selected */
		if (n > 3 && strcmp(p + n - 3, ".rs") == 0)
			continue;
		snprintf(name, sizeof(name), "indexSourceCode keeps doc rule: '%s'", p);
		is_int(sel(&r, p), defaults[i].yes, name);
	}
	/* A docs test folder stays selected: the test exclusions are for code. */
	ok(sel(&r, "docs/tests/HTTP.md"), "docs/tests/HTTP.md still in");
	ok(sel(&r, "tests/certs/README.md"), "tests/certs/README.md still in");

	/* A folder the user names is in, even a test folder; rules below it apply. */
	r.folders = fo;
	r.nfolders = 1;
	ok(sel(&r, "tests/integration.rs"), "folders [tests]: tests/*.rs in");
	ok(!sel(&r, "tests/fixtures/a.rs"), "folders [tests]: fixtures below it out");
	ok(!sel(&r, "src/lib.rs"), "folders [tests]: src/lib.rs out");
	r.folders = NULL;
	r.nfolders = 0;

	/* excludeFolders and excludeFiles apply to source files too. */
	r.exclude_folders = exf;
	r.nexclude_folders = 1;
	r.exclude_files = exfile;
	r.nexclude_files = 1;
	ok(!sel(&r, "axum-macros/src/lib.rs"), "excludeFolders: axum-macros out");
	ok(sel(&r, "axum/src/lib.rs"), "excludeFolders: axum in");
	ok(!sel(&r, "include/curl/curl.h"), "excludeFiles *.h");
	ok(sel(&r, "lib/net/url.c"), "excludeFiles *.h keeps .c");

	/* The with-source corpus: 15 .rs files next to the axum markdown. */
	{
		static const char *const files[] = {
			"axum/src/extract/ws.rs", "axum/src/json.rs",
			"axum/src/docs/extract.md", "axum/CHANGELOG.md",
			"axum/tests/it.rs", "examples/README.md", NULL
		};
		struct buf got;

		memset(&r, 0, sizeof(r));
		r.index_source = 1;
		buf_init(&got);
		buf_adds(&got, "");
		for (i = 0; files[i] != NULL; i++)
			if (sel(&r, files[i]))
				buf_printf(&got, "%s\n", files[i]);
		is_str(got.p, "axum/src/extract/ws.rs\naxum/src/json.rs\n"
		    "axum/src/docs/extract.md\nexamples/README.md\n",
		    "with-source selection");
		buf_release(&got);
	}
}

/* Content that says a source file is generated (select_generated). */
/* select_generated over a NUL-terminated text. */
static const char *
gen(const char *path, const char *text)
{
	return select_generated(path, text, strlen(text));
}

static void
test_generated(void)
{
	struct select_rules	 r;
	struct buf		 b;
	size_t			 i;
	const char		*hand = "// Package cache caches.\n"
	    "// Do not edit the constants below without a migration.\n"
	    "package cache\n";

	is_str(gen("api/api.go", "// Code generated by stringer -type=Kind; "
	    "DO NOT EDIT.\n\npackage api\n"), "generated", "Go: Code generated ... "
	    "DO NOT EDIT.");
	is_str(gen("a.py", "# -*- coding: utf-8 -*-\n# Generated by the "
	    "protocol buffer compiler.  DO NOT EDIT!\n# source: a.proto\n"),
	    "generated", "protoc output");
	is_str(gen("x_grpc.ts", "/* eslint-disable */\n// @generated by "
	    "protobuf-ts 2.9.1\n"), "generated", "@generated");
	is_str(gen("Api.java", "/*\n * This file is auto-generated by "
	    "OpenAPI Generator.\n * Do not edit the class manually.\n */\n"),
	    "generated", "auto-generated ... do not edit");
	is_str(gen("parser.c", "/* A Bison parser, made by GNU Bison 3.8.  "
	    "*/\n/* Autogenerated file: do not modify. */\n"), "generated",
	    "autogenerated ... do not modify");
	ok(select_generated("cache.go", hand, strlen(hand)) == NULL,
	    "\"do not edit\" alone is not a marker");
	ok(gen("gen.go", "// Code generated below is checked.\n"
	    "package gen\n// do not edit\n") == NULL,
	    "Go's marker is one line");
	ok(gen("README.md", "<!-- Code generated. DO NOT EDIT. -->\n") ==
	    NULL, "documentation files are never judged");
	ok(select_generated("a.js", NULL, 0) == NULL, "no content");
	buf_init(&b);
	for (i = 0; i < 40; i++)
		buf_adds(&b, "var a=function(b){return b+1},c=function(d){return d*2},"
		    "e=[1,2,3].map(a).filter(c);");
	is_str(select_generated("dist2/app.js", b.p, b.len), "minified",
	    "one 3 KB line: minified");
	buf_reset(&b);
	for (i = 0; i < 100; i++)
		buf_adds(&b, "export function add(a, b) {\n  return a + b;\n}\n");
	ok(select_generated("src/add.js", b.p, b.len) == NULL, "hand-written code kept");
	buf_release(&b);

	/* vendored trees are left out by folder, at any depth */
	memset(&r, 0, sizeof(r));
	r.index_source = 1;
	ok(!sel(&r, "vendor/github.com/x/y/y.go") && !sel(&r, "cmd/vendor/z.go"),
	    "vendor/");
	ok(!sel(&r, "third_party/zlib/zlib.h") && !sel(&r, "web/node_modules/a/index.js"),
	    "third_party/, node_modules/");
	ok(!sel(&r, "external/googletest/gtest.h"), "external/");
	ok(!sel(&r, "api/v1/store_pb2_grpc.py") && !sel(&r, "web/gen/store_pb.js") &&
	    !sel(&r, "web/gen/store_grpc_pb.js") && !sel(&r, "web/gen/store_pb.d.ts") &&
	    !sel(&r, "Sources/Store.pb.swift"), "protobuf and grpc outputs by name");
	ok(sel(&r, "src/external.c") && sel(&r, "src/vendorize.py"),
	    "files named like the folders are kept");
}

/*
 * A sample of each format of doc_formats chosen by file name, and what its parser makes of
 * it: the title of its last section. Plain text makes one section of the whole file, so a
 * sample parsed by the wrong row shows another title.
 */
static const struct {
	const char	*format, *sample, *last_title;
} format_samples[] = {
	{ "markdown", "# Alpha\n\nOne.\n\n## Beta\n\nTwo.\n", "Beta" },
	{ "rst", "Alpha\n=====\n\nOne.\n\nGamma\n-----\n\nTwo.\n", "Gamma" },
	{ "text", "# Alpha\n\nOne.\n\n## Beta\n\nTwo.\n", NULL },
	{ "source", "/// Delta docs.\n///\n/// # Epsilon\n///\n/// More.\npub fn delta() {}\n",
	    NULL }
};

/* Parses data as the file path; the title of its last section ("" when none) in out. */
static int
last_title(const char *path, const char *data, char *out, size_t outsz)
{
	struct doc	 d;

	memset(&d, 0, sizeof(d));
	if (doc_parse(path, data, strlen(data), &d) == -1)
		return -1;
	snprintf(out, outsz, "%s", d.nsecs > 0 ? d.secs[d.nsecs - 1].title : "");
	doc_release(&d);
	return 0;
}

/*
 * Walks the table of document formats: every extension and base name a row names picks that
 * row, is selected by default when the row is documentation (with indexSourceCode only for
 * source code), and parses with the row's parser; a name no row knows is not selected.
 */
static void
test_format_table(void)
{
	const struct doc_format *f, *got;
	struct select_rules	 none, src;
	const char *const	*e;
	char			 path[128], title[256];
	size_t			 i, rows = 0;

	memset(&none, 0, sizeof(none));
	memset(&src, 0, sizeof(src));
	src.index_source = 1;
	for (f = doc_formats; f->name != NULL; f++, rows++) {
		for (i = 0; i < sizeof(format_samples) / sizeof(format_samples[0]) &&
		    strcmp(format_samples[i].format, f->name) != 0; i++)
			;
		for (e = f->exts; e != NULL && *e != NULL; e++) {
			snprintf(path, sizeof(path), "docs/page.%s", *e);
			got = doc_format_of(path);
			ok(got == f, "format table: %s is %s", path, f->name);
			ok(sel(&none, path) == (f->by_name == DOC_BY_NAME_DOC),
			    "format table: %s selected by default", path);
			if (i == sizeof(format_samples) / sizeof(format_samples[0]) ||
			    format_samples[i].last_title == NULL)
				continue;
			ok(last_title(path, format_samples[i].sample, title, sizeof(title)) == 0 &&
			    strcmp(title, format_samples[i].last_title) == 0,
			    "format table: %s parsed as %s", path, f->name);
		}
		for (e = f->names; e != NULL && *e != NULL; e++) {
			snprintf(path, sizeof(path), "sub/%s", *e);
			ok(doc_format_of(path) == f, "format table: %s is %s", path, f->name);
			ok(sel(&none, path) == (f->by_name == DOC_BY_NAME_DOC),
			    "format table: %s selected", path);
		}
	}
	ok(rows >= 7, "format table: markdown, rst, text, source and the back ends' formats");
	/* Upper-case extensions and the upper-case README name pick their rows too. */
	ok(doc_format_of("docs/GUIDE.MKD") != NULL &&
	    strcmp(doc_format_of("docs/GUIDE.MKD")->name, "markdown") == 0,
	    "format table: GUIDE.MKD is markdown");
	ok(doc_format_of("Readme") != NULL, "format table: Readme is documentation");
	/* Source code: by its detector, selected only with indexSourceCode. */
	ok(doc_format_of("src/lib.rs") != NULL &&
	    doc_format_of("src/lib.rs")->by_name == DOC_BY_NAME_SOURCE,
	    "format table: src/lib.rs is source code");
	is_int(sel(&none, "src/lib.rs"), 0,
	    "format table: source code not selected by default");
	is_int(sel(&src, "src/lib.rs"), 1, "format table: selected with indexSourceCode");
	ok(last_title("src/lib.rs", format_samples[3].sample, title, sizeof(title)) == 0 &&
	    strstr(title, "Epsilon") != NULL, "format table: src/lib.rs parsed as source code");
	/* The back ends' formats are never picked by a file name. */
	ok(doc_format_of("page.html") == NULL && doc_format_of("spec.yaml") == NULL,
	    "format table: .html and .yaml files are no documentation by name");
	is_int(sel(&none, "docs/page.html"), 0, "format table: docs/page.html not selected");
	is_int(sel(&none, "docs/notes.unknown"), 0,
	    "format table: an unknown extension not selected");
}

int
main(void)
{
	test_corpus_list();
	test_defaults();
	test_folders();
	test_exclude_folders();
	test_exclude_files();
	test_index_source();
	test_generated();
	test_format_table();
	return tap_done();
}
