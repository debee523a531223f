/* select.c: which repository files are documentation (and, optionally, source) to index. */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "parse/code.h"
#include "parse/parse.h"
#include "sources/gitsrc.h"
#include "sources/select.h"

/*
 * Default file exclusions: a base name that starts with one of these words (any case) followed
 * by the end of the name or by '.', '-' or '_' ("CHANGELOG.md", "LICENSE-MIT", "THANKS-filter",
 * but not "newsletter.md"). Changelogs, licences and community boilerplate repeat every API
 * name and drown the real documentation in search results.
 */
static const char *const select_noise_words[] = {
	"CHANGELOG", "CHANGES", "HISTORY", "NEWS", "RELEASE-NOTES", "RELEASE_NOTES",
	"RELEASENOTES", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS",
	"THANKS", "CODE_OF_CONDUCT", "CODE-OF-CONDUCT", "PULL_REQUEST_TEMPLATE",
	"ISSUE_TEMPLATE", NULL
};

/* Default file exclusions by glob on the base name (any case): build files that end in .txt. */
static const char *const select_noise_globs[] = {
	"CMakeLists.txt", "requirements*.txt", "constraints*.txt", "robots.txt", NULL
};

/*
 * Default folder exclusions (any case, at any depth below the folder the rules include):
 * archives, translations, vendored code. Folders whose name starts with '.' (.github, .git,
 * .vitepress, .changeset ...) hold tooling, templates and configuration: excluded as well.
 */
static const char *const select_noise_dirs[] = {
	"archive", "archived", "deprecated", "legacy", "old", "outdated", "i18n", "l10n",
	"locale", "locales", "translations", "node_modules", "bower_components", "vendor",
	"third_party", "third-party", "LICENSES", NULL
};

/*
 * Translation heuristic, kept conservative: a folder is a translation when its name is one of
 * these language codes, alone or with a region or script ("pt-br", "zh_CN", "zh-Hans"), AND it
 * sits directly under a folder named as in select_locale_parents (VitePress docs/zh/, Hugo
 * content/de/, expressjs.com src/content/docs/fr/). English ("en", "en-us") is never a
 * translation. Two-letter folders that are not in the list (js, ui, db, go) are kept, and so
 * is a language folder anywhere else. The same codes as the middle part of a file name
 * ("index.fr.md", mkdocs-static-i18n) mark a translated file.
 */
static const char *const select_locales[] = {
	"ar", "bg", "bn", "ca", "cs", "da", "de", "el", "es", "et", "fa", "fi", "fr", "he",
	"hi", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "ms", "nb", "nl", "no", "pl",
	"pt", "ro", "ru", "sk", "sl", "sr", "sv", "ta", "th", "tr", "uk", "vi", "zh", NULL
};

static const char *const select_locale_parents[] = {
	"docs", "doc", "documentation", "content", "pages", "site", "website", NULL
};

/*
 * With indexSourceCode, source files (code_is_source) are selected as well, minus tests,
 * benchmarks, fixtures and generated or built code: folders named like these (any case, at
 * any depth below the folder the rules include) and files matching select_source_globs.
 */
static const char *const select_source_dirs[] = {
	"test", "tests", "__tests__", "__mocks__", "testdata", "test_data", "testing",
	"fixtures", "benches", "generated", "__generated__", "gen-src", "dist", "build",
	"target", "out", "__pycache__", "site-packages", "Pods", "external", NULL
};

static const char *const select_source_globs[] = {
	"*_test.go", "*_test.py", "test_*.py", "conftest.py", "*.test.[jt]s", "*.test.[jt]sx",
	"*.spec.[jt]s", "*.spec.[jt]sx", "*.min.js", "*.bundle.js", "*.pb.go", "*_pb2.py",
	"*_pb2_grpc.py", "*_pb.js", "*_pb.d.ts", "*_grpc_pb.js", "*.pb.swift", "*.pb.h",
	"*.pb.cc", "*.generated.*", "*_generated.*", "*Test.java", "*Tests.java",
	"*Test.kt", "*Tests.cs", "*Tests.swift", "*_spec.rb", "*_test.rb", NULL
};

static int
select_in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcasecmp(*list, s) == 0)
			return 1;
	return 0;
}

/* 1 when s is a non-English language code, optionally with "-cc", "_cc" or a script. */
static int
select_is_locale(const char *s, size_t len)
{
	char	 lang[3];
	size_t	 i;

	if (len != 2 && (len < 5 || len > 7 || (s[2] != '-' && s[2] != '_')))
		return 0;
	for (i = 3; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	lang[0] = s[0];
	lang[1] = s[1];
	lang[2] = '\0';
	return select_in_list(select_locales, lang);
}

/* 1 when a file so named is documentation: its row of doc_formats says so. */
static int
select_is_doc(const char *base)
{
	const struct doc_format *f = doc_format_of(base);

	return f != NULL && f->by_name == DOC_BY_NAME_DOC;
}

static int
select_is_noise_file(const char *base)
{
	const char *const	*w;
	const char		*dot, *prev;
	size_t			 n;

	for (w = select_noise_words; *w != NULL; w++) {
		n = strlen(*w);
		if (strncasecmp(base, *w, n) == 0 && (base[n] == '\0' ||
		    base[n] == '.' || base[n] == '-' || base[n] == '_'))
			return 1;
	}
	for (w = select_noise_globs; *w != NULL; w++)
		if (fnmatch(*w, base, FNM_CASEFOLD) == 0)
			return 1;
	/* "name.fr.md": a translated page next to its original. */
	if ((dot = strrchr(base, '.')) != NULL && dot != base) {
		for (prev = dot - 1; prev > base && *prev != '.'; prev--)
			;
		if (prev > base && select_is_locale(prev + 1, (size_t)(dot - prev - 1)))
			return 1;
	}
	return 0;
}

/*
 * Normalises a folder or path rule: strips leading "./" and "/" and trailing "/". Sets
 * *anchored when the rule names a place from the repository root (it started with "/" or
 * "./", or it has several components) rather than a folder name valid at any depth.
 * Returns a malloc'd string, possibly empty (the root).
 */
static char *
select_norm(const char *rule, int *anchored)
{
	const char	*s = rule;
	char		*r;
	size_t		 n;

	*anchored = 0;
	for (;;) {
		if (s[0] == '.' && s[1] == '/')
			s += 2;
		else if (s[0] == '/')
			s++;
		else
			break;
		*anchored = 1;
	}
	if (strcmp(s, ".") == 0)
		s = "";
	if ((r = strdup(s)) == NULL)
		return NULL;
	n = strlen(r);
	while (n > 0 && r[n - 1] == '/')
		r[--n] = '\0';
	if (strchr(r, '/') != NULL)
		*anchored = 1;
	return r;
}

/* Number of '/'-separated components of a non-empty normalised rule. */
static size_t
select_ncomp(const char *s)
{
	size_t	 n = 1;

	for (; *s != '\0'; s++)
		if (*s == '/')
			n++;
	return n;
}

/* Joins the first k components into b ("a/b/c"). */
static int
select_join(struct buf *b, char *const *comp, size_t k)
{
	size_t	 i;

	buf_reset(b);
	if (buf_add(b, "", 0) == -1)
		return -1;
	for (i = 0; i < k; i++)
		if ((i > 0 && buf_addc(b, '/') == -1) || buf_adds(b, comp[i]) == -1)
			return -1;
	return 0;
}

/*
 * 1 when the folder rule (glob allowed) matches the path's folders. An include rule, or an
 * anchored exclude rule, of k components matches the first k folders ("docs", "docs/",
 * "/docs" and "./docs" alike); an exclude rule of one component without a leading "/" or
 * "./" matches a folder of that name at any depth ("node_modules"). *depth receives the
 * number of folders the match covers. A rule naming the root ("", "/", "./") matches
 * everything as an include rule and nothing as an exclude rule. -1 on memory failure.
 */
static int
select_dir_match(const char *rule, int include, char *const *comp, size_t ndirs,
    struct buf *b, size_t *depth)
{
	char	*r;
	size_t	 k, i;
	int	 anchored, rc = 0;

	if ((r = select_norm(rule, &anchored)) == NULL)
		return -1;
	if (*r == '\0') {
		*depth = 0;
		rc = include;
		goto out;
	}
	if (anchored || include) {
		k = select_ncomp(r);
		if (k > ndirs)
			goto out;
		if (select_join(b, comp, k) == -1) {
			rc = -1;
			goto out;
		}
		if (fnmatch(r, b->p, FNM_PATHNAME) == 0) {
			*depth = k;
			rc = 1;
		}
		goto out;
	}
	for (i = 0; i < ndirs; i++)
		if (fnmatch(r, comp[i], 0) == 0) {
			*depth = i + 1;
			rc = 1;
			break;
		}
out:
	free(r);
	return rc;
}

/*
 * 1 when the exclude_files rule matches: a rule without '/' is a glob on the base name; a
 * rule with '/' is a glob on the whole path (FNM_PATHNAME, so '*' stays within a folder), and
 * a leading "**" + "/" lets it match at any depth. -1 on memory failure.
 */
static int
select_file_match(const char *rule, char *const *comp, size_t n, struct buf *b)
{
	const char	*r = rule;
	size_t		 i;
	int		 anydepth = 0;

	if (strchr(rule, '/') == NULL)
		return fnmatch(rule, comp[n - 1], 0) == 0;
	for (;;) {
		if (r[0] == '.' && r[1] == '/')
			r += 2;
		else if (r[0] == '/')
			r++;
		else if (strncmp(r, "**/", 3) == 0) {
			r += 3;
			anydepth = 1;
		} else
			break;
	}
	for (i = 0; i < n; i++) {
		if (i > 0 && !anydepth)
			break;
		buf_reset(b);
		if (select_join(b, comp + i, n - i) == -1)
			return -1;
		if (fnmatch(r, b->p, FNM_PATHNAME) == 0)
			return 1;
	}
	return 0;
}

/*
 * Applies the built-in exclusions to the folders below the first `from` ones (those that an
 * include rule named explicitly are the user's choice) and to the file name.
 */
static int
select_is_noise(char *const *comp, size_t n, size_t from)
{
	size_t	 i;

	for (i = from; i + 1 < n; i++) {
		if (comp[i][0] == '.' || select_in_list(select_noise_dirs, comp[i]))
			return 1;
		if (i > 0 && select_in_list(select_locale_parents, comp[i - 1]) &&
		    select_is_locale(comp[i], strlen(comp[i])))
			return 1;
	}
	return comp[n - 1][0] == '.' || select_is_noise_file(comp[n - 1]);
}

/* Source files only: the test, generated and built code select_source_* describe. */
static int
select_is_noise_source(char *const *comp, size_t n, size_t from)
{
	const char *const	*g;
	size_t			 i;

	for (i = from; i + 1 < n; i++)
		if (select_in_list(select_source_dirs, comp[i]))
			return 1;
	for (g = select_source_globs; *g != NULL; g++)
		if (fnmatch(*g, comp[n - 1], 0) == 0)
			return 1;
	return 0;
}

int
select_path(const struct select_rules *rules, const char *path)
{
	struct buf	 b;
	char		*p = NULL, *s, *c, **comp = NULL;
	size_t		 n = 0, i, depth, from = 0;
	int		 m, rc = 0, found, src = 0;

	buf_init(&b);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	while (path[0] == '/')
		path++;
	if (*path == '\0' || (p = strdup(path)) == NULL)
		goto out;
	if ((comp = calloc(strlen(p) / 2 + 2, sizeof(*comp))) == NULL)
		goto out;
	for (s = p; s != NULL; ) {
		c = strsep(&s, "/");
		if (*c == '\0' || strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0)
			goto out;
		comp[n++] = c;
	}
	if (n == 0)
		goto out;
	if (!select_is_doc(comp[n - 1])) {
		if (rules == NULL || !rules->index_source || !code_is_source(comp[n - 1]))
			goto out;
		src = 1;
	}

	if (rules != NULL && rules->nfolders > 0) {
		found = 0;
		for (i = 0; i < rules->nfolders; i++) {
			depth = 0;
			if ((m = select_dir_match(rules->folders[i], 1, comp, n - 1,
			    &b, &depth)) == -1)
				goto out;
			if (m && (!found || depth > from)) {
				from = depth;
				found = 1;
			}
		}
		if (!found)
			goto out;
	}
	if (rules != NULL) {
		/* A memory failure (-1) also leaves the file out. */
		for (i = 0; i < rules->nexclude_folders; i++)
			if (select_dir_match(rules->exclude_folders[i], 0, comp, n - 1,
			    &b, &depth) != 0)
				goto out;
		for (i = 0; i < rules->nexclude_files; i++)
			if (select_file_match(rules->exclude_files[i], comp, n, &b) != 0)
				goto out;
	}
	rc = !select_is_noise(comp, n, from) && !(src &&
	    select_is_noise_source(comp, n, from));
out:
	buf_release(&b);
	free(comp);
	free(p);
	return rc;
}

/* Bytes of a source file's head read for a "generated" marker. */
#define SELECT_GEN_HEAD		4096
/* Minified: this long at least, with lines this long on average, or one this long. */
#define SELECT_MIN_BYTES	2048
#define SELECT_MIN_AVGLINE	300
#define SELECT_MIN_LONGLINE	8192

/* Where needle (ASCII, any case) first occurs in h[0..n), or NULL. */
static const char *
select_find(const char *h, size_t n, const char *needle)
{
	size_t	 k = strlen(needle), i;

	for (i = 0; i + k <= n; i++)
		if (strncasecmp(h + i, needle, k) == 0)
			return h + i;
	return NULL;
}

/*
 * The generator markers of the first SELECT_GEN_HEAD bytes: Go's "Code generated ... DO
 * NOT EDIT." line, "@generated" (Facebook/Phabricator, Rust's bindgen, ...), an
 * "auto-generated"/"autogenerated"/"generated by" line with "do not edit" or "do not
 * modify" in the head (protoc, grpc, swig, Thrift, Bison ...).
 */
static const char *
select_generated_head(const char *h, size_t n)
{
	static const char *const by[] = {
		"auto-generated", "autogenerated", "automatically generated", "generated by",
		"generated from", NULL
	};
	const char *const	*w;
	const char		*p, *eol;

	if ((p = select_find(h, n, "code generated")) != NULL) {
		eol = memchr(p, '\n', (size_t)(h + n - p));
		if (select_find(p, (size_t)((eol != NULL ? eol : h + n) - p),
		    "do not edit") != NULL)
			return "generated";	/* the Go convention, on one line */
	}
	if (select_find(h, n, "@generated") != NULL)
		return "generated";
	if (select_find(h, n, "do not edit") == NULL && select_find(h, n,
	    "do not modify") == NULL)
		return NULL;
	for (w = by; *w != NULL; w++)
		if (select_find(h, n, *w) != NULL)
			return "generated";
	return NULL;
}

const char *
select_generated(const char *path, const char *data, size_t len)
{
	size_t	 i, lines = 1, run = 0, longest = 0;

	if (path == NULL || data == NULL || !code_is_source(path))
		return NULL;
	if (select_generated_head(data, len < SELECT_GEN_HEAD ? len : SELECT_GEN_HEAD) !=
	    NULL)
		return "generated";
	if (len < SELECT_MIN_BYTES)
		return NULL;
	for (i = 0; i < len; i++) {
		if (data[i] == '\n') {
			lines++;
			run = 0;
		} else if (++run > longest)
			longest = run;
	}
	if (len / lines >= SELECT_MIN_AVGLINE || longest >= SELECT_MIN_LONGLINE)
		return "minified";
	return NULL;
}

void
select_rules_release(struct select_rules *r)
{
	size_t	 i;

	for (i = 0; i < r->nfolders; i++)
		free(r->folders[i]);
	free(r->folders);
	for (i = 0; i < r->nexclude_folders; i++)
		free(r->exclude_folders[i]);
	free(r->exclude_folders);
	for (i = 0; i < r->nexclude_files; i++)
		free(r->exclude_files[i]);
	free(r->exclude_files);
	memset(r, 0, sizeof(*r));
}
