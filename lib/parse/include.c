/*
 * include.c: include directives of documentation pages resolved from the repository
 * (include.h). Line based: a directive stands on a line of its own (after indentation),
 * except mdBook's and the shortcodes, which take their line; the replacement keeps the
 * directive's indentation.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "parse/include.h"

#define INCLUDE_PATH_MAX	1024

struct inc {
	const char	*path;		/* the including page */
	include_read_fn	 read;
	void		*arg;
	void		(*used)(void *, const char *);
	struct buf	*out;
	size_t		 nfiles;
	size_t		 lookups;	/* reads tried, found or not (INCLUDE_MAX_LOOKUPS) */
	int		 rst;		/* the page is reStructuredText */
	int		 changed;
};

/* What part of a file a directive names, and how it is shown. */
struct inc_sel {
	const char	*ranges;	/* "1-5,7", "3:8", "N:M"; NULL: all */
	size_t		 rangeslen;
	char		 start[256], end[256];	/* markers: the lines after start, before end */
	size_t		 startlen, endlen;	/* 0: from the first line, to the last */
	const char	*lang;		/* NULL: by the file's name */
	size_t		 langlen;
	int		 raw;		/* inside a code block already: the lines only */
	int		 rstblock;	/* as a reStructuredText code-block */
	int		 dedent;
};

static const struct {
	const char	*ext, *lang;
} include_langs[] = {
	{ "py", "python" }, { "pyi", "python" }, { "js", "javascript" }, { "mjs", "javascript" },
	{ "cjs", "javascript" }, { "jsx", "jsx" }, { "ts", "typescript" }, { "tsx", "tsx" },
	{ "mts", "typescript" }, { "vue", "vue" }, { "rs", "rust" }, { "go", "go" },
	{ "java", "java" }, { "kt", "kotlin" }, { "kts", "kotlin" }, { "scala", "scala" },
	{ "c", "c" }, { "h", "c" }, { "cc", "cpp" }, { "cpp", "cpp" }, { "hpp", "cpp" },
	{ "cs", "csharp" }, { "rb", "ruby" }, { "php", "php" }, { "swift", "swift" },
	{ "sh", "bash" }, { "bash", "bash" }, { "zsh", "bash" }, { "ps1", "powershell" },
	{ "toml", "toml" }, { "yaml", "yaml" }, { "yml", "yaml" }, { "json", "json" },
	{ "jsonc", "json" }, { "md", "markdown" }, { "mdx", "mdx" }, { "html", "html" },
	{ "htm", "html" }, { "xml", "xml" }, { "css", "css" }, { "scss", "scss" },
	{ "sql", "sql" }, { "lua", "lua" }, { "ex", "elixir" }, { "exs", "elixir" },
	{ "hs", "haskell" }, { "dart", "dart" }, { "r", "r" }, { "txt", "text" },
	{ "ini", "ini" }, { "cfg", "ini" }, { "conf", "text" }, { "rst", "rst" },
	{ "graphql", "graphql" }, { "proto", "protobuf" }, { "zig", "zig" },
	{ "svelte", "svelte" }, { "nix", "nix" }, { "tf", "hcl" },
};

const char *
include_lang(const char *path)
{
	const char	*base = strrchr(path, '/'), *dot;
	size_t		 i;

	base = base != NULL ? base + 1 : path;
	if (strcasecmp(base, "Dockerfile") == 0)
		return "dockerfile";
	if (strcasecmp(base, "Makefile") == 0)
		return "makefile";
	if ((dot = strrchr(base, '.')) == NULL)
		return "";
	for (i = 0; i < sizeof(include_langs) / sizeof(include_langs[0]); i++)
		if (strcasecmp(dot + 1, include_langs[i].ext) == 0)
			return include_langs[i].lang;
	return "";
}

int
include_join(const char *from, const char *rel, char *out, size_t outsz)
{
	char		 tmp[INCLUDE_PATH_MAX * 2];
	const char	*p, *slash;
	size_t		 n = 0, seg, dirlen = 0;

	if (rel[0] == '/')
		rel++;
	else if ((slash = strrchr(from, '/')) != NULL)
		dirlen = (size_t)(slash - from);
	if (dirlen + strlen(rel) + 2 > sizeof(tmp) || outsz == 0)
		return -1;
	/* Walks the components of dir(from)/rel, resolving "." and "..". */
	memcpy(tmp, from, dirlen);
	tmp[dirlen] = '/';
	memcpy(tmp + dirlen + 1, rel, strlen(rel) + 1);
	*out = '\0';
	for (p = dirlen > 0 ? tmp : tmp + 1; *p != '\0'; p += seg + (p[seg] == '/')) {
		seg = strcspn(p, "/");
		if (seg == 0 || (seg == 1 && p[0] == '.'))
			continue;
		if (seg == 2 && p[0] == '.' && p[1] == '.') {
			if (n == 0)
				return -1;	/* above the repository's root */
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
			out[n] = '\0';
			continue;
		}
		if (n + seg + 2 > outsz)
			return -1;
		if (n > 0)
			out[n++] = '/';
		memcpy(out + n, p, seg);
		n += seg;
		out[n] = '\0';
	}
	return n > 0 ? 0 : -1;
}

/* A one-line note where an include could not be resolved. */
static int
inc_note(struct inc *c, const char *ind, size_t indlen, const char *what, const char *path,
    size_t pathlen)
{
	c->changed = 1;
	return buf_add(c->out, ind, indlen) == -1 ||
	    buf_printf(c->out, "(included file %.*s: %s)\n", (int)pathlen, path, what) == -1 ?
	    -1 : 0;
}

/* 1 when line l (length n) holds s. */
static int
inc_has(const char *l, size_t n, const char *s, size_t slen)
{
	size_t	 i;

	if (slen == 0 || slen > n)
		return 0;
	for (i = 0; i + slen <= n; i++)
		if (memcmp(l + i, s, slen) == 0)
			return 1;
	return 0;
}

/* Marker lines of the tools (anchors, regions, snippet sections): never shown. */
static int
inc_marker(const char *l, size_t n)
{
	return inc_has(l, n, "ANCHOR:", 7) || inc_has(l, n, "ANCHOR_END:", 11) ||
	    inc_has(l, n, "#region", 7) || inc_has(l, n, "#endregion", 10) ||
	    inc_has(l, n, "--8<-- [start:", 14) || inc_has(l, n, "--8<-- [end:", 12);
}

/* 1 when line number k (1-based) is in ranges ("1-5,7", "3:8", "4:", ":6"). */
static int
inc_in_ranges(const char *r, size_t n, long k)
{
	const char	*p = r, *e = r + n;
	long		 a, b;
	char		*end;

	while (p < e) {
		while (p < e && (*p == ',' || *p == ' '))
			p++;
		if (p >= e)
			break;
		a = 1;
		b = -1;
		if (isdigit((unsigned char)*p)) {
			a = strtol(p, &end, 10);
			p = end;
		}
		if (p < e && (*p == '-' || *p == ':')) {
			p++;
			if (p < e && isdigit((unsigned char)*p)) {
				b = strtol(p, &end, 10);
				p = end;
			} else
				b = 0;		/* open: to the end */
		} else
			b = a;
		if (k >= a && (b == 0 || k <= b))
			return 1;
		while (p < e && *p != ',')
			p++;
	}
	return 0;
}

/*
 * One read of the page's lookups: c->read's answer, or INCLUDE_MISSING without reading once
 * the page has used its INCLUDE_MAX_LOOKUPS (*spent set): a page of many directives for
 * missing files, deep in folders, would otherwise cost a read per folder per directive.
 */
static int
inc_lookup(struct inc *c, const char *path, char **data, size_t *len, int *spent)
{
	if (c->lookups >= INCLUDE_MAX_LOOKUPS) {
		*spent = 1;
		return INCLUDE_MISSING;
	}
	c->lookups++;
	return c->read(c->arg, path, data, len);
}

/*
 * Reads rel for the page: relative to its folder, else to each folder above it (tools
 * resolve from their project's folder: mkdocs' docs, VitePress's srcDir), never outside
 * the repository. Returns 0 with data, or the note's text in *why.
 */
static int
inc_read(struct inc *c, const char *rel, size_t rellen, int rootfirst, char **data,
    size_t *len, const char **why)
{
	char	 r[INCLUDE_PATH_MAX], from[INCLUDE_PATH_MAX], path[INCLUDE_PATH_MAX];
	char	*slash;
	int	 rc, inside = 0, big = 0, spent = 0;

	*data = NULL;
	*why = "not found";
	if (rellen == 0 || rellen >= sizeof(r) || memchr(rel, '\0', rellen) != NULL)
		return 1;
	memcpy(r, rel, rellen);
	r[rellen] = '\0';
	if (c->nfiles >= INCLUDE_MAX_FILES) {
		*why = "too many includes in one page";
		return 1;
	}
	if (rootfirst && include_join("", r, path, sizeof(path)) == 0) {
		inside = 1;
		if ((rc = inc_lookup(c, path, data, len, &spent)) == -1)
			return -1;
		if (rc == 0)
			goto found;
		big |= rc == INCLUDE_TOO_BIG;
	}
	snprintf(from, sizeof(from), "%s", c->path);
	for (;;) {
		if (include_join(from, r, path, sizeof(path)) == 0) {
			inside = 1;
			if ((rc = inc_lookup(c, path, data, len, &spent)) == -1)
				return -1;
			if (rc == 0)
				goto found;
			big |= rc == INCLUDE_TOO_BIG;
		}
		if (spent || (slash = strrchr(from, '/')) == NULL)
			break;
		*slash = '\0';
		/* from names a file: the next folder up is from's own */
		if ((slash = strrchr(from, '/')) != NULL)
			slash[1] = 'x', slash[2] = '\0';
		else
			snprintf(from, sizeof(from), "x");
	}
	*why = spent ? "too many include lookups in one page" : big ? "over the size limit" :
	    inside ? "not found" : "outside the repository";
	return 1;
found:
	c->nfiles++;
	if (c->used != NULL)
		c->used(c->arg, path);
	return 0;
}

static int
inc_fence(struct buf *out, const char *ind, size_t indlen, size_t n)
{
	if (buf_add(out, ind, indlen) == -1)
		return -1;
	while (n-- > 0)
		if (buf_addc(out, '`') == -1)
			return -1;
	return 0;
}

/*
 * Emits the lines sel names of file path (data, len) at indentation ind: a fenced block
 * with the file's language, the lines only inside a code block, or a reStructuredText
 * code-block.
 */
static int
inc_emit(struct inc *c, const char *ind, size_t indlen, const char *path, size_t pathlen,
    const char *data, size_t len, const struct inc_sel *sel)
{
	const char	*p = data, *e = data + len, *nl, *first = NULL, *last = NULL;
	char		 name[INCLUDE_PATH_MAX];
	const char	*lang;
	size_t		 n, fence = 3, run, dedent = (size_t)-1, i;
	long		 k = 0;
	int		 on, pass;

	snprintf(name, sizeof(name), "%.*s", (int)pathlen, path);
	lang = sel->lang != NULL ? NULL : include_lang(name);
	/* Pass 0 measures (fence, dedent, whether anything is selected); pass 1 writes. */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (first == NULL) {
				if (inc_note(c, ind, indlen, sel->startlen > 0 ?
				    "the named part is not in it" : "no such lines", path,
				    pathlen) == -1)
					return -1;
				return 0;
			}
			if (sel->rstblock) {
				if (buf_add(c->out, ind, indlen) == -1 ||
				    buf_printf(c->out, ".. code-block:: %.*s\n\n",
				    sel->lang ? (int)sel->langlen : (int)strlen(lang),
				    sel->lang ? sel->lang : lang) == -1)
					return -1;
			} else if (!sel->raw && (inc_fence(c->out, ind, indlen, fence) == -1 ||
			    buf_printf(c->out, "%.*s\n", sel->lang ? (int)sel->langlen :
			    (int)strlen(lang), sel->lang ? sel->lang : lang) == -1))
				return -1;
		}
		on = sel->startlen == 0;
		k = 0;
		for (p = data; p < e; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(e - p));
			if (nl == NULL)
				nl = e;
			n = (size_t)(nl - p);
			if (n > 0 && p[n - 1] == '\r')
				n--;
			k++;
			if (!on) {
				on = inc_has(p, n, sel->start, sel->startlen);
				continue;
			}
			if (sel->endlen > 0 && inc_has(p, n, sel->end, sel->endlen))
				break;
			if (sel->ranges != NULL && !inc_in_ranges(sel->ranges,
			    sel->rangeslen, k))
				continue;
			if (inc_marker(p, n))
				continue;
			if (pass == 0) {
				if (first == NULL)
					first = p;
				last = p;
				for (i = 0; i < n && p[i] == ' '; i++)
					;
				if (i < n && i < dedent)
					dedent = i;
				for (i = 0; i < 3 && i < n && p[i] == ' '; i++)
					;
				for (run = 0; i < n && p[i] == '`'; i++)
					run++;
				if (run >= fence)
					fence = run + 1;
				continue;
			}
			i = sel->dedent && dedent != (size_t)-1 && n >= dedent ? dedent : 0;
			if (n == 0 || i >= n) {
				if (buf_addc(c->out, '\n') == -1)
					return -1;
				continue;
			}
			if (buf_add(c->out, ind, indlen) == -1 ||
			    (sel->rstblock && buf_adds(c->out, "   ") == -1) ||
			    buf_add(c->out, p + i, n - i) == -1 || buf_addc(c->out, '\n') == -1)
				return -1;
		}
	}
	(void)last;
	if (!sel->raw && !sel->rstblock && (inc_fence(c->out, ind, indlen, fence) == -1 ||
	    buf_addc(c->out, '\n') == -1))
		return -1;
	c->changed = 1;
	return 0;
}

/* Resolves one include: reads rel and emits it, or the note. */
static int
inc_one(struct inc *c, const char *ind, size_t indlen, const char *rel, size_t rellen,
    int rootfirst, const struct inc_sel *sel)
{
	char		*data;
	size_t		 len;
	const char	*why;
	int		 rc;

	if ((rc = inc_read(c, rel, rellen, rootfirst, &data, &len, &why)) == -1)
		return -1;
	if (rc != 0)
		return inc_note(c, ind, indlen, why, rel, rellen);
	if (memchr(data, '\0', len) != NULL) {
		free(data);
		return inc_note(c, ind, indlen, "a binary file", rel, rellen);
	}
	rc = inc_emit(c, ind, indlen, rel, rellen, data, len, sel);
	free(data);
	return rc;
}

static const char *
inc_skipws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* The end of a token (path) at p: whitespace or one of stop. */
static const char *
inc_token(const char *p, const char *e, const char *stop)
{
	while (p < e && *p != ' ' && *p != '\t' && strchr(stop, *p) == NULL)
		p++;
	return p;
}

/* A quoted "x" or 'x' at p: its text in *s, *n; the end, or NULL. */
static const char *
inc_quoted(const char *p, const char *e, const char **s, size_t *n)
{
	const char	*q;

	if (p >= e || (*p != '"' && *p != '\''))
		return NULL;
	if ((q = memchr(p + 1, *p, (size_t)(e - p - 1))) == NULL)
		return NULL;
	*s = p + 1;
	*n = (size_t)(q - p - 1);
	return q + 1;
}

/* Sets the markers of a named part of kind 'm' (mdBook), 'p' (pymdownx), 'v' (VitePress). */
static void
inc_named(struct inc_sel *sel, int kind, const char *name, size_t n)
{
	if (n == 0 || n > 200)
		return;
	snprintf(sel->start, sizeof(sel->start), kind == 'm' ? "ANCHOR: %.*s" :
	    kind == 'p' ? "[start:%.*s]" : "#region %.*s", (int)n, name);
	if (kind == 'v')
		snprintf(sel->end, sizeof(sel->end), "#endregion");
	else
		snprintf(sel->end, sizeof(sel->end), kind == 'm' ? "ANCHOR_END: %.*s" :
		    "[end:%.*s]", (int)n, name);
	sel->startlen = strlen(sel->start);
	sel->endlen = strlen(sel->end);
	sel->dedent = 1;
}

/*
 * One option line of a literalinclude (Sphinx's indented ":name: value", MyST's inside its
 * fence), s at its first ':' and e at the line's end: :lines, :language, :start-after and
 * :end-before fill *sel (markers of 200 bytes or more are ignored); others are left.
 */
static void
inc_option(const char *s, const char *e, struct inc_sel *sel)
{
	const char	*t, *v;
	size_t		 vl, nl;

	if ((t = memchr(s + 1, ':', (size_t)(e - s - 1))) == NULL)
		return;
	v = inc_skipws(t + 1, e);
	vl = (size_t)(e - v);
	nl = (size_t)(t - s);
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
		vl--;
	if (nl == 6 && memcmp(s, ":lines", 6) == 0) {
		sel->ranges = v;
		sel->rangeslen = vl;
	} else if (nl == 9 && memcmp(s, ":language", 9) == 0) {
		sel->lang = v;
		sel->langlen = vl;
	} else if (nl == 12 && memcmp(s, ":start-after", 12) == 0 && vl < 200) {
		snprintf(sel->start, sizeof(sel->start), "%.*s", (int)vl, v);
		sel->startlen = vl;
	} else if (nl == 11 && memcmp(s, ":end-before", 11) == 0 && vl < 200) {
		snprintf(sel->end, sizeof(sel->end), "%.*s", (int)vl, v);
		sel->endlen = vl;
	}
}

/* A file spec "path:N:M", "path:N:", "path:name" split: the path's length, *sel filled. */
static size_t
inc_colon_spec(const char *s, size_t n, struct inc_sel *sel, int kind)
{
	const char	*colon = memchr(s, ':', n);
	size_t		 plen;

	if (colon == NULL)
		return n;
	plen = (size_t)(colon - s);
	colon++;
	if (colon < s + n && (isdigit((unsigned char)*colon) || *colon == ':')) {
		sel->ranges = colon;
		sel->rangeslen = (size_t)(s + n - colon);
	} else if (colon < s + n)
		inc_named(sel, kind, colon, (size_t)(s + n - colon));
	return plen;
}

/* Docusaurus raw-loader imports of the page: NAME -> path. */
#define INCLUDE_MAX_IMPORTS	32
struct inc_import {
	char	 name[64];
	char	 path[INCLUDE_PATH_MAX];
};

/* 1 when the line at p (up to e) is a fence ("```" or "~~~", after up to 3 spaces). */
static int
inc_is_fence(const char *p, const char *e, char *ch, size_t *len)
{
	size_t	 i = 0, n = 0;

	while (i < 3 && p + i < e && p[i] == ' ')
		i++;
	if (p + i >= e || (p[i] != '`' && p[i] != '~'))
		return 0;
	while (p + i + n < e && p[i + n] == p[i])
		n++;
	if (n < 3)
		return 0;
	*ch = p[i];
	*len = n;
	return 1;
}

/* The value of attr="v" (or attr=v) in s[0..n): its start and length, or NULL. */
static const char *
inc_attr(const char *s, size_t n, const char *attr, size_t *vlen)
{
	size_t	 alen = strlen(attr), i;
	const char *v, *q;

	for (i = 0; i + alen < n; i++) {
		if (memcmp(s + i, attr, alen) != 0 || (i > 0 && s[i - 1] != ' ' &&
		    s[i - 1] != '\t' && s[i - 1] != '{'))
			continue;
		v = s + i + alen;
		if (*v == '"' || *v == '\'') {
			if ((q = memchr(v + 1, *v, (size_t)(s + n - v - 1))) == NULL)
				return NULL;
			*vlen = (size_t)(q - v - 1);
			return v + 1;
		}
		q = inc_token(v, s + n, "}");
		*vlen = (size_t)(q - v);
		return *vlen > 0 ? v : NULL;
	}
	return NULL;
}

int
include_resolve(const char *path, const char *data, size_t len, include_read_fn read,
    void *arg, void (*used)(void *, const char *), char **out, size_t *outlen)
{
	struct inc_import imp[INCLUDE_MAX_IMPORTS];
	struct inc	 c;
	struct buf	 b;
	struct inc_sel	 sel;
	const char	*p, *e = data + len, *nl, *ind, *q, *t, *s, *le;
	const char	*ext = strrchr(path, '.');
	size_t		 indlen, flen = 0, sn, nimp = 0, i, plen;
	char		 fch = 0, ch;
	int		 infence = 0, inblock = 0, rc = -1;

	*out = NULL;
	*outlen = 0;
	/* Documentation pages only (source files are code, not directives). */
	if (ext == NULL || (strcasecmp(ext, ".md") != 0 && strcasecmp(ext, ".mdx") != 0 &&
	    strcasecmp(ext, ".markdown") != 0 && strcasecmp(ext, ".rst") != 0 &&
	    strcasecmp(ext, ".txt") != 0 && strcasecmp(ext, ".adoc") != 0))
		return 0;
	/* Cheap test first: most pages hold no directive. */
	if (!inc_has(data, len, "{*", 2) && !inc_has(data, len, "8<-", 3) &&
	    !inc_has(data, len, "{{#", 3) && !inc_has(data, len, "literalinclude", 14) &&
	    !inc_has(data, len, "<<<", 3) && !inc_has(data, len, "raw-loader", 10) &&
	    !inc_has(data, len, "file=", 5) && !inc_has(data, len, "{%", 2) &&
	    !inc_has(data, len, "{{<", 3) && !inc_has(data, len, "{{%", 3))
		return 0;
	memset(&c, 0, sizeof(c));
	buf_init(&b);
	c.path = path;
	c.read = read;
	c.arg = arg;
	c.used = used;
	c.out = &b;
	c.rst = ext != NULL && (strcasecmp(ext, ".rst") == 0 || strcasecmp(ext, ".txt") == 0);
	for (p = data; p < e; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL)
			nl = e;
		le = nl;
		if (le > p && le[-1] == '\r')
			le--;
		ind = p;
		q = inc_skipws(p, le);
		indlen = (size_t)(q - p);
		memset(&sel, 0, sizeof(sel));
		sel.raw = infence;
		if (b.len > INCLUDE_MAX_OUT)
			goto copy;
		/* pymdownx.snippets block form: file names between two --8<-- lines */
		if (inblock) {
			if (q + 6 <= le && memcmp(q, "--8<--", 6) == 0 &&
			    inc_skipws(q + 6, le) == le) {
				inblock = 0;
				continue;
			}
			if (q == le || *q == ';')
				continue;
			plen = inc_colon_spec(q, (size_t)(le - q), &sel, 'p');
			if (inc_one(&c, ind, indlen, q, plen, 1, &sel) == -1)
				goto out;
			continue;
		}
		/* Code fences: a file= fence (remark-code-import) is filled from its file. */
		if (inc_is_fence(q, le, &ch, &sn)) {
			if (infence && ch == fch && sn >= flen && inc_skipws(q + sn, le) == le) {
				infence = 0;
				goto copy;
			}
			if (!infence && !c.rst) {
				const char *fv;
				size_t fvl;

				if ((fv = inc_attr(q + sn, (size_t)(le - q - sn), "file=", &fvl)) !=
				    NULL && fvl > 0) {
					const char *hash = memchr(fv, '#', fvl);
					size_t pl = hash ? (size_t)(hash - fv) : fvl;
					const char *lp;

					/* #L3-L6 */
					if (hash != NULL && hash + 1 < fv + fvl && hash[1] == 'L') {
						static char r[64];
						size_t k = 0;

						for (lp = hash + 2; lp < fv + fvl && k + 1 < sizeof(r); lp++)
							if (*lp != 'L')
								r[k++] = *lp;
						r[k] = '\0';
						sel.ranges = r;
						sel.rangeslen = k;
					}
					/* the fence line without file=, the file's lines, the close */
					{
						size_t hl = (size_t)(fv - p) - 5 -
						    (fv[-1] == '"' || fv[-1] == '\'');

						while (hl > 0 && (p[hl - 1] == ' ' || p[hl - 1] == '\t'))
							hl--;
						if (buf_add(&b, p, hl) == -1 || buf_addc(&b, '\n') == -1)
							goto nomem;
					}
					sel.raw = 1;
					if (inc_one(&c, ind, 0, fv, pl, 0, &sel) == -1)
						goto out;
					/* skip the fence's own body up to its close */
					for (p = nl + 1; p < e; p = nl + 1) {
						if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL)
							nl = e;
						if (inc_is_fence(p, nl, &fch, &flen) && fch == ch &&
						    flen >= sn)
							break;
					}
					if (p < e && (buf_add(&b, p, (size_t)(nl - p)) == -1 ||
					    buf_addc(&b, '\n') == -1))
						goto nomem;
					if (p >= e)
						nl = e - 1 < data ? data : e - 1;
					c.changed = 1;
					if (p >= e)
						break;
					continue;
				}
				/* MyST: ```{literalinclude} path, options, close */
				t = inc_skipws(q + sn, le);
				if ((size_t)(le - t) > 16 && memcmp(t, "{literalinclude}", 16) == 0) {
					const char *fp = inc_skipws(t + 16, le), *fe;

					fe = inc_token(fp, le, "");
					for (p = nl + 1; p < e; p = nl + 1) {
						if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL)
							nl = e;
						s = inc_skipws(p, nl);
						if (inc_is_fence(s, nl, &fch, &flen))
							break;
						if (s < nl && *s == ':')
							inc_option(s, nl, &sel);
					}
					sel.raw = 0;
					if (inc_one(&c, ind, indlen, fp, (size_t)(fe - fp), 0, &sel) == -1)
						goto out;
					if (p >= e)
						break;
					continue;
				}
			}
			if (!infence) {
				infence = 1;
				fch = ch;
				flen = sn;
			}
			goto copy;
		}
		/* FastAPI: {* path hl[...] ln[...] *} */
		if (!infence && le - q >= 4 && q[0] == '{' && q[1] == '*' && le[-1] == '}' &&
		    le[-2] == '*') {
			s = inc_skipws(q + 2, le - 2);
			t = inc_token(s, le - 2, "");
			for (i = 0; t + i + 3 < le - 2; i++)
				if (memcmp(t + i, "ln[", 3) == 0) {
					const char *rb = memchr(t + i + 3, ']', (size_t)(le - t - i - 3));

					if (rb != NULL) {
						sel.ranges = t + i + 3;
						sel.rangeslen = (size_t)(rb - t - i - 3);
					}
				}
			if (inc_one(&c, ind, indlen, s, (size_t)(t - s), 0, &sel) == -1)
				goto out;
			continue;
		}
		/* pymdownx.snippets: --8<-- "file", ;--8<-- escaped, a block of names */
		if (q < le && *q == ';' && le - q >= 7 && memcmp(q + 1, "--8<--", 6) == 0) {
			if (buf_add(&b, p, indlen) == -1 || buf_add(&b, q + 1,
			    (size_t)(le - q - 1)) == -1 || buf_addc(&b, '\n') == -1)
				goto nomem;
			c.changed = 1;
			continue;
		}
		if (le - q >= 6 && memcmp(q, "--8<--", 6) == 0) {
			s = inc_skipws(q + 6, le);
			if (s == le) {
				inblock = 1;
				c.changed = 1;
				continue;
			}
			if (inc_quoted(s, le, &t, &sn) != NULL && (sn == 0 || *t != '[')) {
				plen = inc_colon_spec(t, sn, &sel, 'p');
				if (inc_one(&c, ind, indlen, t, plen, 1, &sel) == -1)
					goto out;
				continue;
			}
		}
		/* mdBook: {{#include path[:anchor|:N:M]}} */
		if ((s = memmem(q, (size_t)(le - q), "{{#include ", 11)) != NULL ||
		    (s = memmem(q, (size_t)(le - q), "{{#rustdoc_include ", 19)) != NULL) {
			s = inc_skipws(memchr(s, ' ', (size_t)(le - s)), le);
			if ((t = memmem(s, (size_t)(le - s), "}}", 2)) != NULL) {
				const char *pe = t;

				while (pe > s && pe[-1] == ' ')
					pe--;
				plen = inc_colon_spec(s, (size_t)(pe - s), &sel, 'm');
				if (inc_one(&c, ind, indlen, s, plen, 0, &sel) == -1)
					goto out;
				continue;
			}
		}
		/* Sphinx: .. literalinclude:: path, then its :option: lines */
		if (!infence && le - q > 19 && memcmp(q, ".. literalinclude::", 19) == 0) {
			const char *fp = inc_skipws(q + 19, le), *fe = inc_token(fp, le, "");
			const char *np;

			for (np = nl + 1; np < e; np = nl + 1) {
				const char *ne = memchr(np, '\n', (size_t)(e - np));

				if (ne == NULL)
					ne = e;
				s = inc_skipws(np, ne);
				if (s >= ne || (size_t)(s - np) <= indlen || *s != ':')
					break;
				nl = ne;
				inc_option(s, ne, &sel);
			}
			sel.rstblock = c.rst;
			if (inc_one(&c, ind, indlen, fp, (size_t)(fe - fp), 0, &sel) == -1)
				goto out;
			if (nl >= e)
				break;
			continue;
		}
		/* VitePress: <<< @/path#region{1,2 lang} [title] */
		if (!infence && le - q > 4 && memcmp(q, "<<<", 3) == 0) {
			int root = 0;
			const char *pe, *hash, *br;

			s = inc_skipws(q + 3, le);
			if (le - s >= 2 && s[0] == '@' && s[1] == '/') {
				s += 2;
				root = 1;
			}
			pe = inc_token(s, le, "");
			br = memchr(s, '{', (size_t)(pe - s));
			hash = memchr(s, '#', (size_t)((br ? br : pe) - s));
			if (br != NULL) {
				const char *bre = memchr(br, '}', (size_t)(le - br));
				const char *w;

				/* a word in the braces is the language; numbers highlight */
				for (w = br + 1; bre != NULL && w < bre; w++)
					if (isalpha((unsigned char)*w)) {
						sel.lang = w;
						sel.langlen = (size_t)(inc_token(w, bre, "}") - w);
						break;
					}
			}
			if (hash != NULL)
				inc_named(&sel, 'v', hash + 1, (size_t)((br ? br : pe) - hash - 1));
			plen = (size_t)((hash ? hash : br ? br : pe) - s);
			if (inc_one(&c, ind, indlen, s, plen, root, &sel) == -1)
				goto out;
			continue;
		}
		/* Docusaurus: import NAME from '!!raw-loader!path'; then <CodeBlock>{NAME}</CodeBlock> */
		if (!infence && le - q > 7 && memcmp(q, "import ", 7) == 0 &&
		    (s = memmem(q, (size_t)(le - q), "!!raw-loader!", 13)) != NULL) {
			const char *nm = inc_skipws(q + 7, le), *nme = inc_token(nm, le, "");
			const char *pe = s + 13;

			while (pe < le && *pe != '"' && *pe != '\'')
				pe++;
			if (nimp < INCLUDE_MAX_IMPORTS && (size_t)(nme - nm) < sizeof(imp[0].name) &&
			    (size_t)(pe - s - 13) < sizeof(imp[0].path)) {
				snprintf(imp[nimp].name, sizeof(imp[0].name), "%.*s",
				    (int)(nme - nm), nm);
				snprintf(imp[nimp].path, sizeof(imp[0].path), "%.*s",
				    (int)(pe - s - 13), s + 13);
				nimp++;
			}
			c.changed = 1;
			continue;
		}
		if (!infence && nimp > 0 && memmem(q, (size_t)(le - q), "<CodeBlock", 10) != NULL) {
			for (i = 0; i < nimp; i++) {
				char ref[80];

				snprintf(ref, sizeof(ref), "{%.63s}", imp[i].name);
				if (memmem(q, (size_t)(le - q), ref, strlen(ref)) != NULL)
					break;
			}
			if (i < nimp) {
				const char *lv = inc_attr(q, (size_t)(le - q), "language=", &sn);

				if (lv != NULL) {
					sel.lang = lv;
					sel.langlen = sn;
				}
				if (inc_one(&c, ind, indlen, imp[i].path, strlen(imp[i].path), 0,
				    &sel) == -1)
					goto out;
				continue;
			}
		}
		/* Jekyll {% include_relative f %} / {% include f %}; Hugo readfile, include */
		if (!infence && ((s = memmem(q, (size_t)(le - q), "{%", 2)) != NULL ||
		    (s = memmem(q, (size_t)(le - q), "{{<", 3)) != NULL ||
		    (s = memmem(q, (size_t)(le - q), "{{%", 3)) != NULL)) {
			const char *w = inc_skipws(s + (s[1] == '%' ? 2 : 3), le), *we;
			int jekyll = s[1] == '%', incdir = 0;

			we = inc_token(w, le, "\"'");
			if (jekyll && (size_t)(we - w) == 16 && memcmp(w, "include_relative", 16) == 0)
				incdir = 0;
			else if (jekyll && (size_t)(we - w) == 7 && memcmp(w, "include", 7) == 0)
				incdir = 1;
			else if (!jekyll && (((size_t)(we - w) == 8 && memcmp(w, "readfile", 8) == 0) ||
			    ((size_t)(we - w) == 7 && memcmp(w, "include", 7) == 0)))
				incdir = 2;
			else
				goto copy;
			w = inc_skipws(we, le);
			if (incdir == 2 && (size_t)(le - w) > 5 && memcmp(w, "file=", 5) == 0)
				w += 5;
			if (inc_quoted(w, le, &t, &sn) == NULL) {
				t = w;
				sn = (size_t)(inc_token(w, le, "%}") - w);
			}
			if (sn == 0)
				goto copy;
			if (incdir == 1) {
				char inc[INCLUDE_PATH_MAX];

				snprintf(inc, sizeof(inc), "_includes/%.*s", (int)sn, t);
				if (inc_one(&c, ind, indlen, inc, strlen(inc), 1, &sel) == -1)
					goto out;
			} else if (inc_one(&c, ind, indlen, t, sn, incdir == 2, &sel) == -1)
				goto out;
			continue;
		}
copy:
		if (buf_add(&b, p, (size_t)(nl - p)) == -1 ||
		    (nl < e && buf_addc(&b, '\n') == -1))
			goto nomem;
	}
	if (!c.changed) {
		rc = 0;
		goto out;
	}
	*outlen = b.len;
	*out = buf_detach(&b);
	return 1;
nomem:
	rc = -1;
out:
	buf_release(&b);
	return rc;
}
