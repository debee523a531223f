/*
 * code.c: the documentation comments of source files to sections (indexSourceCode).
 *
 * A lexer first masks every line of the file: comments and string literals become spaces,
 * so that braces, keywords and item names are only ever read from code. A second pass
 * finds the doc comments (Rust "//!" and "///", slash-star-star and slash-star-bang blocks,
 * "///" in the C family, Go comment blocks above func/type, Python docstrings, Ruby comment
 * blocks above def/class), names what each documents (qualified by the enclosing impl, class
 * or trait, tracked with a brace stack or, for Python and Ruby, with indentation) and feeds
 * the comment text, as Markdown, to markdown_parse_fragment(): one section per doc comment
 * titled with the symbol, plus one per heading inside it, the item's signature closing the
 * first one. Before that, each language's comment conventions become Markdown: JSDoc and
 * Javadoc tags one paragraph each, @example and <pre>{@code} blocks fences (code_tags),
 * doctests, reST literal blocks and code directives fences and Google-style sections lists
 * (code_pydoc), Go's indented blocks fences (code_godoc). Text outside doc comments
 * never becomes prose. On request (code_parse_overview) a file with little documentation
 * gets one more section listing its main signatures, for the LLM to describe.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "parse/code.h"
#include "parse/doc.h"
#include "parse/parse.h"

#define SRC_MAXSCOPE	256	/* deeper nesting is counted, not named */
#define SRC_HEADER	1024	/* bytes of code kept to name a '{' */
#define SRC_SIGLINES	3	/* signature lines shown */

enum src_kind { SRC_RUST, SRC_CLIKE, SRC_GO, SRC_PYTHON, SRC_RUBY };

struct src_ext {
	const char	*ext;
	enum src_kind	 kind;
	const char	*lang;		/* fence language of code and signatures */
	const char	*sep;		/* between a type and its member */
	int		 tick;		/* `...` strings (JS template literals, Go raw) */
};

static const struct src_ext src_exts[] = {
	{ "rs", SRC_RUST, "rust", "::", 0 },
	{ "c", SRC_CLIKE, "c", ".", 0 },
	{ "h", SRC_CLIKE, "c", ".", 0 },
	{ "cc", SRC_CLIKE, "cpp", "::", 0 },
	{ "cpp", SRC_CLIKE, "cpp", "::", 0 },
	{ "hpp", SRC_CLIKE, "cpp", "::", 0 },
	{ "go", SRC_GO, "go", ".", 1 },
	{ "java", SRC_CLIKE, "java", ".", 0 },
	{ "kt", SRC_CLIKE, "kotlin", ".", 0 },
	{ "py", SRC_PYTHON, "python", ".", 0 },
	{ "ts", SRC_CLIKE, "typescript", ".", 1 },
	{ "tsx", SRC_CLIKE, "tsx", ".", 1 },
	{ "js", SRC_CLIKE, "javascript", ".", 1 },
	{ "jsx", SRC_CLIKE, "jsx", ".", 1 },
	{ "mjs", SRC_CLIKE, "javascript", ".", 1 },
	{ "swift", SRC_CLIKE, "swift", ".", 0 },
	{ "rb", SRC_RUBY, "ruby", "::", 0 },
	{ "php", SRC_CLIKE, "php", "::", 0 },
	{ "cs", SRC_CLIKE, "csharp", ".", 0 },
	{ "scala", SRC_CLIKE, "scala", ".", 0 },
	{ NULL, SRC_RUST, NULL, NULL, 0 }
};

/* Lexer states, recorded at the start of every line. */
enum lx_state { LX_CODE, LX_BLOCK, LX_STR, LX_RAW, LX_TICK, LX_TRIPLE };

struct lexer {
	const struct src_ext	*x;
	enum lx_state		 st;
	int			 depth;		/* nested block comments (Rust) */
	int			 hashes;	/* r#"..."# */
	char			 quote;
};

struct scope {
	char	*name;			/* NULL: a block that names nothing */
	size_t	 indent;		/* Python and Ruby */
};

struct src {
	const struct src_ext	*x;
	struct docb		*b;
	char			*txt;		/* clean input */
	char			*mask;		/* same offsets; comments, strings blanked */
	size_t			*off, *len;	/* lines */
	unsigned char		*st;		/* lexer state at each line start */
	size_t			 nlines;
	struct scope		 scopes[SRC_MAXSCOPE];
	size_t			 nscopes;	/* may exceed SRC_MAXSCOPE */
	struct buf		 header;	/* code since the last { } or ; */
	int			 hparen;	/* its open parentheses */
	int			 hangle;	/* its open angle brackets */
	char			*module;	/* Rust module path, Python module */
	const char		*base;		/* file name */
	int			 ndocs;
	/* the overview of Python and Ruby: in a top-level class, its members' column */
	int			 ovclass;
	size_t			 ovmember;
};

static const struct src_ext *
code_ext(const char *path)
{
	const char	*base, *dot;
	size_t		 i;

	if (path == NULL)
		return NULL;
	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	if ((dot = strrchr(base, '.')) == NULL || dot == base)
		return NULL;
	for (i = 0; src_exts[i].ext != NULL; i++)
		if (strcmp(dot + 1, src_exts[i].ext) == 0)
			return &src_exts[i];
	return NULL;
}

int
code_is_source(const char *path)
{
	return code_ext(path) != NULL;
}

/* ---------------------------------------------------------------- small helpers */

static int
code_isid(int c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static const char *
code_skipws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return s;
}

/* Reads an identifier at *p (after white space) into out; "" when there is none. */
static void
code_word(const char **p, char *out, size_t outsz)
{
	const char	*s = code_skipws(*p);
	size_t		 k = 0;

	if (s[0] == 'r' && s[1] == '#' && code_isid(s[2]))
		s += 2;		/* Rust raw identifier */
	while (code_isid(*s)) {
		if (k + 1 < outsz)
			out[k++] = *s;
		s++;
	}
	out[k] = '\0';
	*p = s;
}

/* Skips a balanced group opening at s (one of "([{<"); "->" does not close '<'. */
static const char *
code_skip_group(const char *s)
{
	char	 open = *s, close;
	int	 depth = 0;

	close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : '>';
	for (; *s != '\0'; s++) {
		if (open == '<' && *s == '-' && s[1] == '>') {
			s++;
			continue;
		}
		if (*s == open)
			depth++;
		else if (*s == close && --depth == 0)
			return s + 1;
	}
	return s;
}

/*
 * Skips Rust attributes "#[...]" / "#![...]", C#-style "[...]", Java "@Name(...)" and a C++
 * "template <...>" head.
 */
static const char *
code_skip_attrs(const char *s, enum src_kind kind)
{
	const char	*p;
	char		 w[64];

	for (;;) {
		s = code_skipws(s);
		if (s[0] == '#' && (s[1] == '[' || (s[1] == '!' && s[2] == '[')))
			s = code_skip_group(s + (s[1] == '!' ? 2 : 1));
		else if (kind == SRC_CLIKE && strncmp(s, "template", 8) == 0 &&
		    *(p = code_skipws(s + 8)) == '<')
			s = code_skip_group(p);
		else if (kind == SRC_CLIKE && s[0] == '[')
			s = code_skip_group(s);
		else if (kind == SRC_CLIKE && s[0] == '@' && code_isid(s[1])) {
			s++;
			code_word(&s, w, sizeof(w));
			while (*s == '.' && code_isid(s[1])) {
				s++;
				code_word(&s, w, sizeof(w));
			}
			if (*s == '(')
				s = code_skip_group(s);
		} else
			return s;
	}
}

/* Slug of a symbol: identifier characters lowercased, every other run one '-'. */
static char *
code_symslug(const char *sym)
{
	struct buf	 b;
	int		 dash = 0;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	for (; *sym != '\0'; sym++) {
		if (code_isid(*sym) || *sym == '-') {
			if (dash && b.len > 0 && buf_addc(&b, '-') == -1)
				goto fail;
			dash = 0;
			if (buf_addc(&b, (char)tolower((unsigned char)*sym)) == -1)
				goto fail;
		} else
			dash = 1;
	}
	return buf_detach(&b);
fail:
	buf_release(&b);
	return NULL;
}

/*
 * Removes the indentation common to the non-blank lines of s and the blank lines at both
 * ends; returns a malloc'd string.
 */
static char *
code_dedent(const char *s)
{
	struct buf	 b;
	const char	*l, *eol;
	size_t		 n, ind, min = (size_t)-1, i;

	for (l = s; *l != '\0'; l = *eol != '\0' ? eol + 1 : eol) {
		eol = strchr(l, '\n');
		if (eol == NULL)
			eol = l + strlen(l);
		n = (size_t)(eol - l);
		for (ind = 0; ind < n && (l[ind] == ' ' || l[ind] == '\t'); ind++)
			;
		if (ind < n && ind < min)
			min = ind;
	}
	if (min == (size_t)-1)
		min = 0;
	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	for (l = s; *l != '\0'; l = *eol != '\0' ? eol + 1 : eol) {
		eol = strchr(l, '\n');
		if (eol == NULL)
			eol = l + strlen(l);
		n = (size_t)(eol - l);
		for (i = 0; i < n && i < min && (l[i] == ' ' || l[i] == '\t'); i++)
			;
		if (b.len == 0 && i == n)
			continue;	/* leading blank lines */
		if (buf_add(&b, l + i, n - i) == -1 || buf_addc(&b, '\n') == -1) {
			buf_release(&b);
			return NULL;
		}
	}
	while (b.len > 0 && isspace((unsigned char)b.p[b.len - 1]))
		b.p[--b.len] = '\0';
	return buf_detach(&b);
}

/* ---------------------------------------------------------------- lexer */

/* Length of the UTF-8 sequence starting with byte c (1 for anything else). */
static size_t
source_u8len(unsigned char c)
{
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/*
 * Masks one line s[0..n) into m: code is copied, comments and literals become spaces.
 * The state carries over to the next line (block comments, Rust strings, `...`,
 * Python triple-quoted strings).
 */
static void
code_lex_line(struct lexer *lx, const char *s, size_t n, char *m)
{
	enum src_kind	 kind = lx->x->kind;
	size_t		 i = 0, k, j;
	char		 c;

	memset(m, ' ', n);
	while (i < n) {
		c = s[i];
		switch (lx->st) {
		case LX_BLOCK:
			if (c == '*' && i + 1 < n && s[i + 1] == '/') {
				i += 2;
				if (--lx->depth <= 0)
					lx->st = LX_CODE;
			} else if (kind == SRC_RUST && c == '/' && i + 1 < n &&
			    s[i + 1] == '*') {
				i += 2;
				lx->depth++;
			} else
				i++;
			continue;
		case LX_STR:
			if (c == '\\')
				i += 2;
			else {
				if (c == lx->quote)
					lx->st = LX_CODE;
				i++;
			}
			continue;
		case LX_RAW:
			if (c == '"' && i + 1 + (size_t)lx->hashes <= n) {
				for (k = 0; k < (size_t)lx->hashes && s[i + 1 + k] == '#'; k++)
					;
				if (k == (size_t)lx->hashes) {
					lx->st = LX_CODE;
					i += 1 + k;
					continue;
				}
			}
			i++;
			continue;
		case LX_TICK:
			if (c == '\\' && kind != SRC_GO)
				i += 2;
			else {
				if (c == '`')
					lx->st = LX_CODE;
				i++;
			}
			continue;
		case LX_TRIPLE:
			if (c == '\\')
				i += 2;
			else if (c == lx->quote && i + 2 < n && s[i + 1] == c &&
			    s[i + 2] == c) {
				lx->st = LX_CODE;
				i += 3;
			} else
				i++;
			continue;
		case LX_CODE:
			break;
		}
		if ((kind == SRC_PYTHON || kind == SRC_RUBY) && c == '#')
			return;
		if (kind != SRC_PYTHON && kind != SRC_RUBY && c == '/' && i + 1 < n) {
			if (s[i + 1] == '/')
				return;
			if (s[i + 1] == '*') {
				lx->st = LX_BLOCK;
				lx->depth = 1;
				i += 2;
				continue;
			}
		}
		if (kind == SRC_PYTHON && (c == '"' || c == '\'') && i + 2 < n &&
		    s[i + 1] == c && s[i + 2] == c) {
			lx->st = LX_TRIPLE;
			lx->quote = c;
			i += 3;
			continue;
		}
		if (kind == SRC_RUST && (c == 'r' || (c == 'b' && i + 1 < n &&
		    s[i + 1] == 'r')) && (i == 0 || !code_isid(s[i - 1]))) {
			j = i + (c == 'b' ? 2 : 1);
			for (k = 0; j + k < n && s[j + k] == '#'; k++)
				;
			if (j + k < n && s[j + k] == '"') {
				lx->st = LX_RAW;
				lx->hashes = (int)k;
				i = j + k + 1;
				continue;
			}
		}
		if (c == '"' || (c == '\'' && kind != SRC_RUST)) {
			lx->st = LX_STR;
			lx->quote = c;
			i++;
			continue;
		}
		if (c == '\'') {
			/* Rust: a char literal, or a lifetime ('a, 'static) */
			if (i + 1 < n && s[i + 1] == '\\') {
				lx->st = LX_STR;
				lx->quote = '\'';
				i++;
				continue;
			}
			k = i + 1 < n ? source_u8len((unsigned char)s[i + 1]) : 1;
			if (i + 1 + k < n && s[i + 1 + k] == '\'') {
				i += 2 + k;
				continue;
			}
		}
		if (lx->x->tick && c == '`') {
			lx->st = LX_TICK;
			i++;
			continue;
		}
		m[i] = c;
		i++;
	}
	/* Only Rust strings and continued lines span lines; a stray quote ends here. */
	if (lx->st == LX_STR && kind != SRC_RUST && (n == 0 || s[n - 1] != '\\'))
		lx->st = LX_CODE;
}

/* ---------------------------------------------------------------- emitting */

/* Indentation of line l (n bytes) in columns, n when it is blank. */
static size_t
code_indent(const char *l, size_t n)
{
	size_t	 i;

	for (i = 0; i < n && (l[i] == ' ' || l[i] == '\t'); i++)
		;
	return i;
}

/* One line of a NUL-terminated text: its start, end, the next line, length, indentation. */
struct src_line {
	const char	*l, *eol, *nl;
	size_t		 n, ind;
};

static void
code_line(const char *l, struct src_line *L)
{
	L->l = l;
	if ((L->eol = strchr(l, '\n')) == NULL)
		L->eol = l + strlen(l);
	L->nl = *L->eol != '\0' ? L->eol + 1 : L->eol;
	L->n = (size_t)(L->eol - l);
	L->ind = code_indent(l, L->n);
}

/* Appends the lines in blk, dedented, as a code fence of lang ("" for the file's). */
static int
code_fence(struct buf *out, struct buf *blk, const char *lang)
{
	char	*d;
	int	 rc;

	if (blk->len == 0)
		return 0;
	if ((d = code_dedent(blk->p)) == NULL)
		return -1;
	rc = *d == '\0' ? 0 : buf_printf(out, "\n```%s\n%s\n```\n\n", lang, d);
	free(d);
	buf_reset(blk);
	return rc;
}

/*
 * Appends the block of lines from *pl on that are indented more than base (blank lines
 * inside kept) to out as a fence of lang; *pl moves to the first line after it.
 */
static int
code_indented_block(struct buf *out, const char **pl, size_t base, const char *lang)
{
	struct buf	 blk;
	struct src_line	 L;
	const char	*l;
	size_t		 keep = 0;
	int		 rc = -1;

	buf_init(&blk);
	if (buf_add(&blk, "", 0) == -1)
		goto out;
	for (l = *pl; *l != '\0'; l = L.nl) {
		code_line(l, &L);
		if (L.ind < L.n && L.ind <= base)
			break;
		if (buf_add(&blk, l, L.n) == -1 || buf_addc(&blk, '\n') == -1)
			goto out;
		if (L.ind < L.n)
			keep = blk.len;
	}
	*pl = l;
	blk.len = keep;
	blk.p[keep] = '\0';
	rc = code_fence(out, &blk, lang);
out:
	buf_release(&blk);
	return rc;
}

/*
 * Appends one prose line of a Javadoc/JSDoc comment: inline {@code x}, {@link x} and
 * {@linkplain x} become `x`, and the type parameter of "@param <T>" is quoted so that
 * Markdown does not read it as HTML.
 */
static int
code_tags_line(struct buf *out, const char *l, size_t n)
{
	const char	*e = l + n, *p, *c;
	const char	*gt = memrchr(l, '>', n), *brace = memrchr(l, '}', n);
	size_t		 k;

	/* (a '>' or '}' is looked for only where one is left: linear in the line) */
	for (p = l; p < e; p++) {
		k = brace == NULL || p > brace ? 0 : strncmp(p, "{@code ", 7) == 0 ? 7 :
		    strncmp(p, "{@link ", 7) == 0 ? 7 : strncmp(p, "{@linkplain ", 12) == 0 ?
		    12 : 0;
		if (k == 0 && gt != NULL && p < gt && strncmp(p, "@param <", 8) == 0 &&
		    (c = memchr(p, '>', (size_t)(e - p))) != NULL) {
			if (buf_printf(out, "@param `%.*s`", (int)(c - p - 6), p + 7) == -1)
				return -1;
			p = c;
			continue;
		}
		if (k > 0 && (c = memchr(p, '}', (size_t)(e - p))) != NULL) {
			if (buf_printf(out, "`%.*s`", (int)(c - p - k), p + k) == -1)
				return -1;
			p = c;
			continue;
		}
		if (buf_addc(out, *p) == -1)
			return -1;
	}
	return buf_addc(out, '\n');
}

/*
 * Preprocesses JSDoc/Javadoc/YARD tags: each "@tag" its own paragraph; @example blocks
 * and Javadoc <pre> (with or without {@code ...}) become code fences of the file's
 * language.
 */
static int
code_tags(struct buf *out, const char *s)
{
	struct buf	 ex;
	struct src_line	 L;
	const char	*l, *f;
	int		 fence = 0, example = 0, pre = 0, rc = -1;

	buf_init(&ex);
	if (buf_add(out, "", 0) == -1 || buf_add(&ex, "", 0) == -1)
		goto out;
	for (l = s; *l != '\0'; l = L.nl) {
		code_line(l, &L);
		f = l + L.ind;
		if (pre) {
			if ((f = memmem(l, L.n, "</pre>", 6)) != NULL) {
				pre = 0;
				if (f > l && f[-1] == '}')
					f--;		/* the {@code ...} brace */
				if ((f > l && buf_add(&ex, l, (size_t)(f - l)) == -1) ||
				    buf_addc(&ex, '\n') == -1 || code_fence(out, &ex, "") == -1)
					goto out;
				continue;
			}
			if (buf_add(&ex, l, L.n) == -1 || buf_addc(&ex, '\n') == -1)
				goto out;
			continue;
		}
		if (!example && (strncmp(f, "```", 3) == 0 || strncmp(f, "~~~", 3) == 0))
			fence = !fence;
		if (!fence && strncmp(f, "<pre>", 5) == 0) {
			if (example && code_fence(out, &ex, "") == -1)
				goto out;
			example = 0;
			pre = 1;
			f += 5;
			if (strncmp(f, "{@code", 6) == 0)
				f += 6;
			if (*code_skipws(f) != '\0' && f < L.eol && *f != '\n' &&
			    (buf_add(&ex, f, (size_t)(L.eol - f)) == -1 ||
			    buf_addc(&ex, '\n') == -1))
				goto out;
			continue;
		}
		if (!fence && *f == '@') {
			if (example && code_fence(out, &ex, "") == -1)
				goto out;
			example = 0;
			if (strncmp(f, "@example", 8) == 0 && !code_isid(f[8])) {
				if (buf_printf(out, "\nExample:%.*s\n\n", (int)(L.eol - f - 8),
				    f + 8) == -1)
					goto out;
				example = strncmp(code_skipws(L.eol), "```", 3) != 0;
				continue;
			}
			if (buf_addc(out, '\n') == -1)
				goto out;
		}
		if (example) {
			if (buf_add(&ex, l, L.n) == -1 || buf_addc(&ex, '\n') == -1)
				goto out;
			continue;
		}
		if ((fence ? buf_add(out, l, L.n) == -1 || buf_addc(out, '\n') == -1 :
		    code_tags_line(out, l, L.n) == -1))
			goto out;
	}
	if ((example || pre) && code_fence(out, &ex, "") == -1)
		goto out;
	rc = 0;
out:
	buf_release(&ex);
	return rc;
}

/* The language of a reST code directive at f (".. code-block:: lang"), or NULL. */
static const char *
code_rst_directive(const char *f, const char *eol, char *lang, size_t langsz)
{
	static const char *const dirs[] = {
		".. code-block::", ".. code::", ".. sourcecode::", ".. doctest::",
		".. testcode::", NULL
	};
	const char *const	*d;
	const char		*p;
	char			 w[32];

	for (d = dirs; *d != NULL; d++)
		if (strncmp(f, *d, strlen(*d)) == 0)
			break;
	if (*d == NULL)
		return NULL;
	p = f + strlen(*d);
	code_word(&p, w, sizeof(w));
	snprintf(lang, langsz, "%s", w[0] != '\0' && p <= eol ? w : "python");
	return lang;
}

/*
 * A Google-style section ("Args:", "Returns:", "Raises:" ...) at line L followed by lines
 * indented more: its entries become a Markdown list, their continuation lines kept with
 * them. *pl moves past it. 0 when L is not such a header (nothing written).
 */
static int
code_pysection(struct buf *out, const struct src_line *L, const char **pl)
{
	struct src_line	 M;
	const char	*f = L->l + L->ind, *e, *l;
	size_t		 first = 0;

	if (L->n - L->ind < 2 || L->n - L->ind > 32 || !isupper((unsigned char)*f) ||
	    L->eol[-1] != ':' || L->eol[-2] == ':')
		return 0;
	for (e = f; e < L->eol - 1; e++)
		if (!isalpha((unsigned char)*e) && *e != ' ')
			return 0;
	code_line(L->nl, &M);
	if (M.ind == M.n || M.ind <= L->ind)
		return 0;
	if (buf_add(out, L->l, L->n) == -1 || buf_adds(out, "\n\n") == -1)
		return -1;
	for (l = L->nl; *l != '\0'; l = M.nl) {
		code_line(l, &M);
		if (M.ind == M.n || M.ind <= L->ind)
			break;
		if (first == 0)
			first = M.ind;
		if (buf_adds(out, M.ind <= first ? "- " : "  ") == -1 ||
		    buf_add(out, l + M.ind, M.n - M.ind) == -1 || buf_addc(out, '\n') == -1)
			return -1;
	}
	*pl = l;
	return buf_addc(out, '\n') == -1 ? -1 : 1;
}

/*
 * Preprocesses a dedented docstring: ">>>" sessions, reST "::" literal blocks and code
 * directives become fenced code; Google-style sections become lists.
 */
static int
code_pydoc(struct buf *out, const char *s)
{
	struct buf	 blk;
	struct src_line	 L;
	const char	*l, *f;
	char		 lang[32];
	size_t		 qn;
	int		 fence = 0, rc = -1, c;

	buf_init(&blk);
	if (buf_add(out, "", 0) == -1 || buf_add(&blk, "", 0) == -1)
		goto out;
	for (l = s; *l != '\0'; ) {
		code_line(l, &L);
		f = l + L.ind;
		if (strncmp(f, "```", 3) == 0)
			fence = !fence;
		if (fence) {
			if (buf_add(out, l, L.n) == -1 || buf_addc(out, '\n') == -1)
				goto out;
			l = L.nl;
			continue;
		}
		if (L.n - L.ind >= 3 && strncmp(f, ">>>", 3) == 0) {
			/* a doctest session: up to a blank line */
			while (*l != '\0' && L.ind < L.n) {
				if (buf_add(&blk, l, L.n) == -1 || buf_addc(&blk, '\n') == -1)
					goto out;
				l = L.nl;
				code_line(l, &L);
			}
			if (code_fence(out, &blk, "python") == -1)
				goto out;
			continue;
		}
		if (code_rst_directive(f, L.eol, lang, sizeof(lang)) != NULL) {
			qn = L.ind;
			for (l = L.nl; *l != '\0'; l = L.nl) {
				code_line(l, &L);		/* options (":linenos:") */
				if (L.ind == L.n || L.ind <= qn || l[L.ind] != ':')
					break;
			}
			if (code_indented_block(out, &l, qn, lang) == -1)
				goto out;
			continue;
		}
		if (L.n >= 2 && l[L.n - 1] == ':' && l[L.n - 2] == ':') {
			qn = L.n - 2;
			if (qn > 0 && l[qn - 1] == ' ')
				while (qn > 0 && l[qn - 1] == ' ')
					qn--;
			else
				qn++;	/* "Example::" reads "Example:" */
			if (buf_add(out, l, qn) == -1 || buf_addc(out, '\n') == -1)
				goto out;
			qn = L.ind;
			l = L.nl;
			if (code_indented_block(out, &l, qn, "python") == -1)
				goto out;
			continue;
		}
		if ((c = code_pysection(out, &L, &l)) == -1)
			goto out;
		if (c == 1)
			continue;
		if (buf_add(out, l, L.n) == -1 || buf_addc(out, '\n') == -1)
			goto out;
		l = L.nl;
	}
	rc = 0;
out:
	buf_release(&blk);
	return rc;
}

/*
 * Preprocesses a Go doc comment: a span of indented lines is a code block (kept with its
 * tabs, fenced as Go) unless it is a list ("- item", "1. item").
 */
static int
code_godoc(struct buf *out, const char *s)
{
	struct src_line	 L;
	const char	*l, *f;

	if (buf_add(out, "", 0) == -1)
		return -1;
	for (l = s; *l != '\0'; ) {
		code_line(l, &L);
		f = l + L.ind;
		if (L.ind > 0 && L.ind < L.n && !((strchr("-*+", *f) != NULL && f[1] == ' ') ||
		    (isdigit((unsigned char)*f) && (f[1] == '.' || f[1] == ')')))) {
			if (code_indented_block(out, &l, 0, "go") == -1)
				return -1;
			continue;
		}
		if (buf_add(out, f, L.n - L.ind) == -1 || buf_addc(out, '\n') == -1)
			return -1;
		l = L.nl;
	}
	return 0;
}

/*
 * Emits one doc comment: raw (comment markers stripped) is dedented and parsed as Markdown
 * under symbol, with the signature sig (may be NULL) closing its first section.
 */
static int
code_emit(struct src *S, const char *symbol, const char *raw, const char *sig)
{
	struct md_fragment	 f;
	struct buf		 pre;
	char			*text = NULL, *slug = NULL;
	const char		*md;
	size_t			 mdlen;
	int			 rc = -1;

	buf_init(&pre);
	if ((text = code_dedent(raw)) == NULL)
		goto nomem;
	if (*text == '\0' || symbol == NULL || *symbol == '\0') {
		rc = 0;
		goto out;
	}
	md = text;
	mdlen = strlen(text);
	if (S->x->kind == SRC_CLIKE || S->x->kind == SRC_RUBY) {
		if (code_tags(&pre, text) == -1)
			goto nomem;
		md = pre.p;
		mdlen = pre.len;
	} else if (S->x->kind == SRC_PYTHON || S->x->kind == SRC_GO) {
		if ((S->x->kind == SRC_PYTHON ? code_pydoc(&pre, text) :
		    code_godoc(&pre, text)) == -1)
			goto nomem;
		md = pre.p;
		mdlen = pre.len;
	}
	if ((slug = code_symslug(symbol)) == NULL)
		goto nomem;
	memset(&f, 0, sizeof(f));
	f.symbol = symbol;
	f.anchor = slug;
	f.anchor_prefix = S->x->kind == SRC_RUST ? slug : NULL;
	f.deflang = S->x->lang;
	f.sig = sig != NULL && *sig != '\0' ? sig : NULL;
	f.siglang = S->x->lang;
	f.noindent = S->x->kind != SRC_RUST && S->x->kind != SRC_GO;
	if (markdown_parse_fragment(S->b, md, mdlen, &f) == -1)
		goto out;
	S->ndocs++;
	rc = 0;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	free(text);
	free(slug);
	buf_release(&pre);
	return rc;
}

/* Named scopes joined with the language's separator, then name (malloc'd). */
static char *
code_qualify(struct src *S, const char *name, const char *sep)
{
	struct buf	 b;
	size_t		 i, n = S->nscopes < SRC_MAXSCOPE ? S->nscopes : SRC_MAXSCOPE;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	for (i = 0; i < n; i++) {
		if (S->scopes[i].name == NULL)
			continue;
		if ((b.len > 0 && buf_adds(&b, sep) == -1) ||
		    buf_adds(&b, S->scopes[i].name) == -1)
			goto fail;
	}
	if (name != NULL && *name != '\0' && ((b.len > 0 && buf_adds(&b, sep) == -1) ||
	    buf_adds(&b, name) == -1))
		goto fail;
	return buf_detach(&b);
fail:
	buf_release(&b);
	return NULL;
}

static char	*code_clike_scope(const char *);

/*
 * 1 when the masked code h[0..n) of the C family declares a type with type parameters
 * ("class W<T = {}>"): a '{' within its angle brackets opens nothing.
 */
static int
code_generic_decl(struct src *S, const char *h, size_t n)
{
	char	 t[256], *name;

	if (S->x->kind != SRC_CLIKE || h == NULL || memchr(h, '<', n) == NULL)
		return 0;
	if (n >= sizeof(t))
		n = sizeof(t) - 1;
	memcpy(t, h, n);
	t[n] = '\0';
	if ((name = code_clike_scope(t)) == NULL)
		return 0;
	free(name);
	return 1;
}

/*
 * The signature of the item starting at line i, byte offset from: raw lines up to the
 * first '{' or ';' of code (the ';' kept) or ':' ending a Python line, at most
 * SRC_SIGLINES lines, dedented. *hdr receives the masked text of the same span.
 */
static char *
code_signature(struct src *S, size_t i, size_t from, struct buf *hdr)
{
	struct buf	 b;
	const char	*m, *r;
	size_t		 k, n, j, end, start;
	int		 done = 0, paren = 0, angle = 0, generic;
	char		*sig = NULL;

	buf_init(&b);
	buf_reset(hdr);
	generic = code_generic_decl(S, S->mask + S->off[i] + from, S->len[i] - from);
	if (buf_add(&b, "", 0) == -1 || buf_add(hdr, "", 0) == -1)
		goto out;
	for (k = 0; k < SRC_SIGLINES && i + k < S->nlines && !done; k++) {
		m = S->mask + S->off[i + k];
		r = S->txt + S->off[i + k];
		n = S->len[i + k];
		start = k == 0 ? from : 0;
		end = n;
		if (k > 0 && code_indent(m, n) == n)
			break;		/* a blank line or a comment ends it */
		for (j = start; j < n; j++) {
			if (m[j] == '(' || m[j] == '[')
				paren++;
			else if (m[j] == ')' || m[j] == ']')
				paren--;
			else if (generic && m[j] == '<')
				angle++;
			else if (generic && m[j] == '>' && (j == 0 || (m[j - 1] != '-' &&
			    m[j - 1] != '=')))
				angle--;
			if (m[j] == '{' && paren <= 0 && angle <= 0 &&
			    S->x->kind != SRC_PYTHON) {
				end = j;
				done = 1;
				break;
			}
			if (m[j] == ';' && paren <= 0) {
				end = j + 1;
				done = 1;
				break;
			}
		}
		if (S->x->kind == SRC_PYTHON && paren <= 0) {
			for (j = n; j > start && (m[j - 1] == ' ' || m[j - 1] == '\t'); j--)
				;
			if (j > start && m[j - 1] == ':')
				done = 1;
		}
		if (k == 0 && S->x->kind == SRC_CLIKE && *code_skipws(m + start) == '#' &&
		    (n == 0 || r[n - 1] != '\\'))
			done = 1;	/* #define: one line unless continued */
		while (end > start && (r[end - 1] == ' ' || r[end - 1] == '\t'))
			end--;
		if (buf_add(&b, r + start, end - start) == -1 ||
		    buf_addc(&b, '\n') == -1 ||
		    buf_add(hdr, m + start, end - start) == -1 || buf_addc(hdr, ' ') == -1)
			goto out;
	}
	sig = code_dedent(b.p);
out:
	buf_release(&b);
	return sig;
}

/* ---------------------------------------------------------------- naming */

static int
code_is(const char *w, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(w, *list) == 0)
			return 1;
	return 0;
}

static char	*code_word_before(const char *, const char *);

/* The type an "impl" header implements for: "impl<T> Trait for a::Type<T>" -> "Type". */
static char *
code_rust_impl(const char *s)
{
	const char	*t, *p, *last = NULL, *where;
	char		 w[128];
	int		 depth = 0;

	s = code_skipws(s);
	if (*s == '<')
		s = code_skip_group(s);
	t = s;
	for (p = s; *p != '\0'; p++) {
		if (*p == '-' && p[1] == '>') {
			p++;
			continue;
		}
		if (*p == '<' || *p == '(')
			depth++;
		else if (*p == '>' || *p == ')')
			depth--;
		else if (depth == 0 && strncmp(p, "for", 3) == 0 && !code_isid(p[3]) &&
		    p > s && !code_isid(p[-1]))
			t = p + 3;
		else if (depth == 0 && (*p == '{' || (strncmp(p, "where", 5) == 0 &&
		    !code_isid(p[5]) && p > s && !code_isid(p[-1]))))
			break;
	}
	where = p;
	for (p = t;;) {
		p = code_skipws(p);
		while (*p == '&' || *p == '!' || *p == '*')
			p = code_skipws(p + 1);
		if (*p == '\'') {
			p++;
			code_word(&p, w, sizeof(w));
			continue;
		}
		code_word(&p, w, sizeof(w));
		if (w[0] == '\0' || p > where)
			break;
		if (strcmp(w, "mut") == 0 || strcmp(w, "dyn") == 0 ||
		    strcmp(w, "const") == 0)
			continue;
		last = p;
		if (p[0] == ':' && p[1] == ':') {
			p += 2;
			continue;
		}
		break;
	}
	if (last == NULL)
		return NULL;
	for (p = last; p > t && code_isid(p[-1]); p--)
		;
	return strndup(p, (size_t)(last - p));
}

/*
 * Names a Rust item from its header (masked code). *member is set for struct fields and
 * enum variants. NULL when the item has no name of its own (macro input, a "use" group).
 * With scope set, names what a '{' after the header opens: impl (the type), trait, struct,
 * enum, union, mod, macro_rules ("name!"); functions and other blocks name nothing.
 */
static char *
code_rust_name(const char *h, int *member, int scope)
{
	static const char *const quals[] = {
		"async", "unsafe", "default", "extern", NULL
	};
	static const char *const kinds[] = {
		"fn", "struct", "enum", "union", "trait", "type", "mod", "static", NULL
	};
	const char	*p = code_skip_attrs(h, SRC_RUST), *q;
	char		 w[128], n[128];
	struct buf	 b;

	*member = 0;
	code_word(&p, w, sizeof(w));
	if (strcmp(w, "pub") == 0) {
		p = code_skipws(p);
		if (*p == '(')
			p = code_skip_group(p);
		code_word(&p, w, sizeof(w));
	}
	for (;;) {
		if (strcmp(w, "const") == 0) {
			q = p;
			code_word(&q, n, sizeof(n));
			if (code_is(n, quals) || strcmp(n, "fn") == 0) {
				code_word(&p, w, sizeof(w));
				continue;
			}
			return scope ? NULL : strdup(n);
		}
		if (!code_is(w, quals))
			break;
		code_word(&p, w, sizeof(w));
	}
	if (strcmp(w, "impl") == 0)
		return code_rust_impl(p);
	if (code_is(w, kinds)) {
		if (scope && (strcmp(w, "fn") == 0 || strcmp(w, "type") == 0 ||
		    strcmp(w, "static") == 0))
			return NULL;
		code_word(&p, n, sizeof(n));
		if (strcmp(w, "static") == 0 && strcmp(n, "mut") == 0)
			code_word(&p, n, sizeof(n));
		return n[0] != '\0' ? strdup(n) : NULL;
	}
	if (strcmp(w, "macro_rules") == 0) {
		p = code_skipws(p);
		if (*p == '!')
			p++;
		code_word(&p, n, sizeof(n));
		if (n[0] == '\0')
			return NULL;
		buf_init(&b);
		if (buf_printf(&b, "%s!", n) == -1) {
			buf_release(&b);
			return NULL;
		}
		return buf_detach(&b);
	}
	if (!scope && strcmp(w, "use") == 0) {
		/* "pub use a::b::Key;" re-exports Key; a group names nothing */
		q = p + strlen(p);
		while (q > p && (q[-1] == ' ' || q[-1] == ';'))
			q--;
		return code_word_before(p, q);
	}
	if (scope || w[0] == '\0' || strcmp(w, "let") == 0)
		return NULL;
	p = code_skipws(p);
	if (*p == ':' && p[1] == ':')
		return NULL;	/* a path expression */
	if (*p == '\0' || strchr(":({,=", *p) != NULL) {
		*member = 1;
		return strdup(w);
	}
	return NULL;
}

static const char *const clike_scope_kw[] = {
	"class", "struct", "interface", "enum", "union", "namespace", "trait", "object",
	"record", "protocol", "extension", "module", NULL
};

static const char *const clike_stop_kw[] = {
	"function", "if", "for", "while", "switch", "return", "catch", "sizeof",
	"typeof", "new", "do", "else", "fun", "func", "def", NULL
};

/* First '=' of h that is an assignment (not ==, =>, <=, >=, !=), or NULL. */
static const char *
code_assign(const char *h)
{
	const char	*p;

	for (p = h; (p = strchr(p, '=')) != NULL; p++) {
		if (p[1] == '=' || p[1] == '>') {
			p++;
			continue;
		}
		if (p > h && strchr("=<>!+-*/%&|^", p[-1]) != NULL)
			continue;
		return p;
	}
	return NULL;
}

/* The identifier that ends right before e (white space and a <...> skipped), malloc'd. */
static char *
code_word_before(const char *h, const char *e)
{
	const char	*s;
	int		 depth = 0;

	while (e > h && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '?' || e[-1] == '!'))
		e--;
	if (e > h && e[-1] == '>') {
		for (; e > h; e--) {
			if (e[-1] == '>')
				depth++;
			else if (e[-1] == '<' && --depth == 0) {
				e--;
				break;
			}
		}
		while (e > h && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
	}
	for (s = e; s > h && (code_isid(s[-1]) || s[-1] == '$' || s[-1] == '~'); s--)
		;
	if (s == e)
		return NULL;
	return strndup(s, (size_t)(e - s));
}

/* Names the class/struct/... a C-family header opens, or NULL. */
static char *
code_clike_scope(const char *h)
{
	const char	*p = code_skip_attrs(h, SRC_CLIKE), *paren = strchr(h, '(');
	char		 w[128];

	for (;;) {
		code_word(&p, w, sizeof(w));
		if (w[0] == '\0')
			return NULL;
		if (code_is(w, clike_scope_kw)) {
			if (paren != NULL && (strcmp(w, "struct") == 0 ||
			    strcmp(w, "union") == 0 || strcmp(w, "enum") == 0))
				return NULL;	/* "struct kv *kv_open(...)": a function */
			if (paren != NULL && paren < p && strcmp(w, "class") != 0 &&
			    strcmp(w, "record") != 0 && strcmp(w, "object") != 0)
				return NULL;
			code_word(&p, w, sizeof(w));
			if (strcmp(w, "class") == 0 || strcmp(w, "struct") == 0)
				code_word(&p, w, sizeof(w));
			return w[0] != '\0' ? strdup(w) : NULL;
		}
		p = code_skipws(p);
		if (*p != '\0' && !code_isid(*p))
			return NULL;
	}
}

/* A C++ operator's name ("operator<", "operator()") ending right before paren, or NULL. */
static char *
code_operator(const char *h, const char *paren)
{
	const char	*e = paren, *s, *q;
	struct buf	 b;

	if (e - h >= 2 && e[-1] == ')' && e[-2] == '(')
		e -= 2;		/* operator() */
	for (s = e; s > h && strchr("+-*/%^&|~!=<>[], \t", s[-1]) != NULL; s--)
		;
	if (s - h < 8 || strncmp(s - 8, "operator", 8) != 0 ||
	    (s - h > 8 && code_isid(s[-9])))
		return NULL;
	buf_init(&b);
	if (buf_adds(&b, "operator") == -1)
		goto fail;
	for (q = s; q < paren; q++)
		if (*q != ' ' && *q != '\t' && buf_addc(&b, *q) == -1)
			goto fail;
	return buf_detach(&b);
fail:
	buf_release(&b);
	return NULL;
}

/* Names a documented C-family item from its header (masked code), or NULL. */
static char *
code_clike_name(const char *h)
{
	const char	*p = code_skip_attrs(h, SRC_CLIKE), *paren, *eq, *colon, *e;
	char		 w[128], *name, *sc;

	if (*p == '#') {
		p = code_skipws(p + 1);
		code_word(&p, w, sizeof(w));
		if (strcmp(w, "define") != 0)
			return NULL;
		code_word(&p, w, sizeof(w));
		return w[0] != '\0' ? strdup(w) : NULL;
	}
	if ((sc = code_clike_scope(p)) != NULL)
		return sc;
	paren = strchr(p, '(');
	eq = code_assign(p);
	if (eq != NULL && (paren == NULL || eq < paren)) {
		/* "const foo: Type = ...": the name sits before the ':' */
		colon = memchr(p, ':', (size_t)(eq - p));
		return code_word_before(p, colon != NULL ? colon : eq);
	}
	if (paren != NULL) {
		if ((name = code_operator(p, paren)) != NULL)
			return name;
		name = code_word_before(p, paren);
		if (name != NULL && !code_is(name, clike_stop_kw))
			return name;
		free(name);
		colon = memchr(p, ':', (size_t)(paren - p));
		return colon != NULL ? code_word_before(p, colon) : NULL;
	}
	for (e = p + strlen(p); e > p && strchr(" \t;,{", e[-1]) != NULL; e--)
		;
	colon = memchr(p, ':', (size_t)(e - p));	/* "name: Type" members */
	return code_word_before(p, colon != NULL ? colon : e);
}

/* ---------------------------------------------------------------- brace languages */

static void
code_pop(struct src *S)
{
	if (S->nscopes == 0)
		return;
	S->nscopes--;
	if (S->nscopes < SRC_MAXSCOPE) {
		free(S->scopes[S->nscopes].name);
		S->scopes[S->nscopes].name = NULL;
	}
}


/* Feeds the masked line to the brace stack: '{' names a scope from the code before it. */
static int
code_braces(struct src *S, const char *m, size_t n)
{
	size_t	 i = code_indent(m, n);
	char	*name;
	int	 member;

	/* (the indentation within the line: the mask of a comment line is all blanks) */
	if (S->x->kind == SRC_CLIKE && i < n && m[i] == '#') {
		/* a preprocessor line ends what came before and names nothing */
		buf_reset(&S->header);
		S->hparen = S->hangle = 0;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (m[i] == '(')
			S->hparen++;
		else if (m[i] == ')' && S->hparen > 0)
			S->hparen--;
		else if (m[i] == '<')
			S->hangle++;
		else if (m[i] == '>' && S->hangle > 0 && (i == 0 || (m[i - 1] != '-' &&
		    m[i - 1] != '=')))
			S->hangle--;
		if ((m[i] == '{' || m[i] == '}') && (S->hparen > 0 || (S->hangle > 0 &&
		    code_generic_decl(S, S->header.p, S->header.len)))) {
			/*
			 * an object in a decorator's arguments, a callback, a type parameter's
			 * default ("class W<T = {}>"): the header goes on
			 */
			if (m[i] == '{') {
				if (S->nscopes < SRC_MAXSCOPE)
					S->scopes[S->nscopes].name = NULL;
				S->nscopes++;
			} else
				code_pop(S);
			if (S->header.len < SRC_HEADER && buf_addc(&S->header, m[i]) == -1)
				return -1;
			continue;
		}
		if (m[i] == '{') {
			name = NULL;
			if (S->header.p != NULL) {
				if (S->x->kind == SRC_RUST)
					name = code_rust_name(S->header.p, &member, 1);
				else
					name = code_clike_scope(S->header.p);
			}
			if (S->nscopes < SRC_MAXSCOPE)
				S->scopes[S->nscopes].name = name;
			else
				free(name);
			S->nscopes++;
			buf_reset(&S->header);
			S->hangle = 0;
		} else if (m[i] == '}') {
			code_pop(S);
			buf_reset(&S->header);
			S->hangle = 0;
		} else if (m[i] == ';') {
			buf_reset(&S->header);
			S->hangle = 0;
		} else if (S->header.len < SRC_HEADER &&
		    (S->header.len > 0 || (m[i] != ' ' && m[i] != '\t'))) {
			if (buf_addc(&S->header, m[i]) == -1)
				return -1;
		}
	}
	if (S->header.len > 0 && S->header.len < SRC_HEADER &&
	    buf_addc(&S->header, ' ') == -1)
		return -1;
	return 0;
}

/* 1 when the line at i is blank in code (blank, or only a plain comment). */
static int
code_blank_code(struct src *S, size_t i)
{
	return code_indent(S->mask + S->off[i], S->len[i]) == S->len[i];
}

/*
 * Collects a slash-star-star or slash-star-bang block comment that opens at line i (its
 * lines' leading '*' stripped); returns its last line and sets *rest to the offset after
 * the closing star-slash on it.
 */
static size_t
code_block_doc(struct src *S, size_t i, struct buf *out, size_t *rest)
{
	const char	*l, *e, *c;
	size_t		 k, n, from;

	for (k = i; k < S->nlines; k++) {
		l = S->txt + S->off[k];
		n = S->len[k];
		from = 0;
		if (k == i)
			from = (size_t)(strstr(l, "/*") - l) + 3;
		else {
			from = code_indent(l, n);
			if (from < n && l[from] == '*' &&
			    !(from + 1 < n && l[from + 1] == '/'))
				from++;
		}
		if (from > n)
			from = n;
		c = NULL;
		for (e = l + from; e + 1 < l + n; e++)
			if (e[0] == '*' && e[1] == '/') {
				c = e;
				break;
			}
		e = c != NULL ? c : l + n;
		while (c != NULL && e > l + from && e[-1] == '*')
			e--;
		if (buf_add(out, l + from, (size_t)(e - l - from)) == -1 ||
		    buf_addc(out, '\n') == -1)
			return (size_t)-1;
		if (c != NULL) {
			*rest = (size_t)(c - l) + 2;
			return k;
		}
	}
	*rest = S->len[S->nlines - 1];
	return S->nlines - 1;
}

/* Lines that open a file rather than declare an item: a doc comment there is the file's. */
static int
code_file_opener(const char *m)
{
	static const char *const words[] = {
		"#include", "#ifndef", "#pragma", "#if", "import", "package", "using",
		"namespace", "require", "<?php", "use", "from", "'use strict'", NULL
	};
	const char *const	*w;

	m = code_skipws(m);
	for (w = words; *w != NULL; w++)
		if (strncmp(m, *w, strlen(*w)) == 0)
			return 1;
	return 0;
}

/*
 * 1 when the masked line m[0..n) holds code after its attributes or annotations: the item
 * is on the same line ("[[nodiscard]] int f();", "@Override public void run() {").
 */
static int
code_code_after_attrs(struct src *S, const char *m, size_t n)
{
	char	 t[512];

	if (n >= sizeof(t))
		return 1;
	memcpy(t, m, n);
	t[n] = '\0';
	return *code_skipws(code_skip_attrs(t, S->x->kind)) != '\0';
}

/* Emits the pending doc for the item at line i (from byte from on). */
static int
code_item(struct src *S, size_t i, size_t from, const char *doc)
{
	struct buf	 hdr;
	char		*sig = NULL, *name = NULL, *sym = NULL;
	int		 member = 0, rc = -1;

	buf_init(&hdr);
	if ((sig = code_signature(S, i, from, &hdr)) == NULL)
		goto nomem;
	if (S->x->kind == SRC_RUST) {
		name = code_rust_name(hdr.p, &member, 0);
		if (member) {
			/* a field or variant: its own line */
			if (strchr(sig, '\n') != NULL)
				*strchr(sig, '\n') = '\0';
			memmove(sig, code_skipws(sig), strlen(code_skipws(sig)) + 1);
		}
	}
	else if (S->ndocs == 0 && code_file_opener(hdr.p)) {
		rc = code_emit(S, S->base, doc, NULL);
		goto out;
	} else
		name = code_clike_name(hdr.p);
	if (name == NULL || name[0] == '$') {
		/* no name of its own (macro input): the enclosing item's, or the module's */
		if ((sym = code_qualify(S, NULL, S->x->sep)) == NULL)
			goto nomem;
		if (*sym == '\0') {
			free(sym);
			sym = strdup(S->module);
		}
		free(sig);
		sig = NULL;
	} else
		sym = code_qualify(S, name, S->x->sep);
	if (sym == NULL)
		goto nomem;
	rc = code_emit(S, sym, doc, sig);
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	buf_release(&hdr);
	free(sig);
	free(name);
	free(sym);
	return rc;
}

/* Rust and the C family: doc comments, attributes, items, braces. */
static int
code_parse_braces(struct src *S)
{
	struct buf	 doc, inner;
	const char	*l, *m, *t;
	size_t		 i, n, ind, last, rest = 0;
	int		 rc = -1, pending = 0, attr = 0, adepth = 0;
	int		 rust = S->x->kind == SRC_RUST;
	char		*sym;

	buf_init(&doc);
	buf_init(&inner);
	for (i = 0; i < S->nlines; i++) {
		if (doc_build_poll(S->b) == -1)
			goto out;
		l = S->txt + S->off[i];
		m = S->mask + S->off[i];
		n = S->len[i];
		ind = code_indent(l, n);
		t = l + ind;
		if (S->st[i] == LX_CODE && n - ind >= 3 && t[0] == '/' &&
		    ((t[1] == '/' && t[2] == '!' && rust) ||
		    (t[1] == '*' && t[2] == '!' && rust))) {
			if (t[1] == '/') {
				if (buf_add(&inner, t + 3, n - ind - 3) == -1 ||
				    buf_addc(&inner, '\n') == -1)
					goto nomem;
				continue;
			}
			if ((last = code_block_doc(S, i, &inner, &rest)) == (size_t)-1)
				goto nomem;
			for (; i < last; i++)
				if (code_braces(S, S->mask + S->off[i], S->len[i]) == -1)
					goto nomem;
			if (code_braces(S, S->mask + S->off[i] + rest,
			    S->len[i] - rest) == -1)
				goto nomem;
			continue;
		}
		if (inner.len > 0 && ind < n && strncmp(t, "#![", 3) != 0) {
			/* inner docs document the module, or the inline mod around them */
			if ((sym = code_qualify(S, NULL, "::")) == NULL)
				goto nomem;
			if (code_emit(S, *sym != '\0' ? sym : S->module, inner.p,
			    NULL) == -1) {
				free(sym);
				goto out;
			}
			free(sym);
			buf_reset(&inner);
		}
		if (S->st[i] == LX_CODE && n - ind >= 3 && t[0] == '/' && t[1] == '/' &&
		    (t[2] == '/' || (t[2] == '!' && !rust)) && (n - ind == 3 || t[3] != '/')) {
			if (!pending)
				buf_reset(&doc);
			pending = 1;
			if (buf_add(&doc, t + 3, n - ind - 3) == -1 ||
			    buf_addc(&doc, '\n') == -1)
				goto nomem;
			continue;
		}
		if (S->st[i] == LX_CODE && n - ind >= 3 && t[0] == '/' && t[1] == '*' &&
		    (t[2] == '*' || t[2] == '!') && (n - ind == 3 ||
		    (t[3] != '*' && t[3] != '/'))) {
			if (pending && !rust) {
				/* the earlier comment documents nothing but maybe the file */
				if (S->ndocs == 0 &&
				    code_emit(S, S->base, doc.p, NULL) == -1)
					goto out;
				pending = 0;
			}
			if (!pending)
				buf_reset(&doc);
			pending = 1;
			if ((last = code_block_doc(S, i, &doc, &rest)) == (size_t)-1)
				goto nomem;
			for (; i < last; i++)
				if (code_braces(S, S->mask + S->off[i], S->len[i]) == -1)
					goto nomem;
			/* code after the comment on its last line: the item */
			m = S->mask + S->off[i] + rest;
			n = S->len[i] - rest;
			if (code_indent(m, n) < n) {
				if (code_item(S, i, rest, doc.p) == -1)
					goto out;
				pending = 0;
			}
			if (code_braces(S, m, n) == -1)
				goto nomem;
			continue;
		}
		if (pending && !attr && !code_blank_code(S, i)) {
			t = code_skipws(m);
			if (((rust && t[0] == '#' && (t[1] == '[' || t[1] == '!')) ||
			    (!rust && (t[0] == '@' || t[0] == '['))) &&
			    !code_code_after_attrs(S, m, n)) {
				attr = 1;
				adepth = 0;
			} else {
				if (code_item(S, i, 0, doc.p) == -1)
					goto out;
				pending = 0;
			}
		}
		if (attr) {
			/* an attribute, until its brackets balance */
			for (t = m; t < m + n; t++) {
				if (*t == '[' || *t == '(')
					adepth++;
				else if (*t == ']' || *t == ')')
					adepth--;
			}
			if (adepth <= 0)
				attr = 0;
		}
		if (code_braces(S, m, n) == -1)
			goto nomem;
	}
	if (inner.len > 0 && code_emit(S, S->module, inner.p, NULL) == -1)
		goto out;
	rc = 0;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	buf_release(&doc);
	buf_release(&inner);
	return rc;
}

/* ---------------------------------------------------------------- Go */

/* The receiver type of "(r *List[T])" at p, malloc'd, or NULL. */
static char *
code_go_recv(const char *p)
{
	const char	*e = code_skip_group(p), *q;
	char		 w[128], last[128];

	last[0] = '\0';
	for (q = p + 1; q < e; ) {
		if (*q == '[') {
			q = code_skip_group(q);
			continue;
		}
		if (code_isid(*q)) {
			code_word(&q, w, sizeof(w));
			snprintf(last, sizeof(last), "%s", w);
			continue;
		}
		q++;
	}
	return last[0] != '\0' ? strdup(last) : NULL;
}

/* Emits a Go func or type: "Recv.Name" for methods, the signature up to the brace. */
static int
code_go_item(struct src *S, size_t i, const char *recv, const char *name, const char *doc)
{
	struct buf	 sym, hdr;
	char		*sig = NULL;
	int		 rc = -1;

	buf_init(&sym);
	buf_init(&hdr);
	if ((sig = code_signature(S, i, 0, &hdr)) == NULL ||
	    buf_printf(&sym, "%s%s%s", recv != NULL ? recv : "", recv != NULL ? "." : "",
	    name) == -1) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	rc = code_emit(S, sym.p, doc, sig);
out:
	free(sig);
	buf_release(&sym);
	buf_release(&hdr);
	return rc;
}

/* Go: a block of "//" lines right above a top-level func, type, var, const or package. */
static int
code_parse_go(struct src *S)
{
	struct buf	 doc;
	const char	*l, *t, *p;
	char		 w[128], name[128], *recv = NULL;
	size_t		 i, n, ind;
	int		 rc = -1, incomment = 0;

	buf_init(&doc);
	for (i = 0; i < S->nlines; i++) {
		if (doc_build_poll(S->b) == -1)
			goto out;
		l = S->txt + S->off[i];
		n = S->len[i];
		ind = code_indent(l, n);
		t = l + ind;
		if (S->st[i] == LX_CODE && n - ind >= 2 && t[0] == '/' && t[1] == '/' &&
		    code_blank_code(S, i)) {
			if (!incomment)
				buf_reset(&doc);
			incomment = 1;
			t += 2;
			if (*t == ' ')
				t++;	/* gofmt's one space; a tab starts code */
			if (strncmp(t, "go:", 3) == 0 || strncmp(t, "+build", 6) == 0 ||
			    strncmp(t, " +build", 7) == 0 || strncmp(t, "nolint", 6) == 0)
				continue;
			if (buf_add(&doc, t, (size_t)(l + n - t)) == -1 ||
			    buf_addc(&doc, '\n') == -1)
				goto nomem;
			continue;
		}
		if (incomment && ind == 0 && n > 0 && S->st[i] == LX_CODE) {
			p = S->mask + S->off[i];
			code_word(&p, w, sizeof(w));
			name[0] = '\0';
			if (strcmp(w, "package") == 0) {
				code_word(&p, name, sizeof(name));
				if (name[0] != '\0' &&
				    code_emit(S, name, doc.p, NULL) == -1)
					goto out;
			} else if (strcmp(w, "func") == 0 || strcmp(w, "type") == 0 ||
			    strcmp(w, "var") == 0 || strcmp(w, "const") == 0) {
				p = code_skipws(p);
				if (strcmp(w, "func") == 0 && *p == '(') {
					recv = code_go_recv(p);
					p = code_skip_group(p);
				}
				code_word(&p, name, sizeof(name));
				if (name[0] != '\0' &&
				    code_go_item(S, i, recv, name, doc.p) == -1)
					goto out;
				free(recv);
				recv = NULL;
			}
		}
		incomment = 0;
	}
	rc = 0;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	free(recv);
	buf_release(&doc);
	return rc;
}

/* ---------------------------------------------------------------- Python and Ruby */

/* Pops the indentation scopes that a code line at column ind closes. */
static void
code_dedent_scopes(struct src *S, size_t ind)
{
	while (S->nscopes > 0 && (S->nscopes > SRC_MAXSCOPE ||
	    S->scopes[S->nscopes - 1].indent >= ind))
		code_pop(S);
}

static int
code_push(struct src *S, const char *name, size_t ind)
{
	char	*d = NULL;

	if (name != NULL && (d = strdup(name)) == NULL)
		return -1;
	if (S->nscopes < SRC_MAXSCOPE) {
		S->scopes[S->nscopes].name = d;
		S->scopes[S->nscopes].indent = ind;
	} else
		free(d);
	S->nscopes++;
	return 0;
}

/*
 * The docstring that opens at line i (raw text, after the indentation), or -1 when the line
 * is not a string; *end gets its last line. PEP 257 layout: the first line is stripped, the
 * others dedented.
 */
static int
code_docstring(struct src *S, size_t i, struct buf *out, size_t *end)
{
	const char	*l = S->txt + S->off[i], *t, *q, *c;
	char		*rest = NULL, *ded = NULL;
	char		 quote[4];
	size_t		 n = S->len[i], k, ql;
	int		 rc = -1;

	t = l + code_indent(l, n);
	while (strchr("rRuUbB", *t) != NULL && *t != '\0' && t < l + n)
		t++;
	if (*t != '"' && *t != '\'')
		return -1;
	ql = (t[1] == *t && t[2] == *t) ? 3 : 1;
	memcpy(quote, t, ql);
	quote[ql] = '\0';
	q = t + ql;
	buf_reset(out);
	if (buf_add(out, "", 0) == -1)
		return -1;
	/* the whole string, newlines included, from the clean input */
	if ((c = strstr(q, quote)) == NULL)
		c = S->txt + strlen(S->txt);
	for (k = i; k < S->nlines && S->off[k] + S->len[k] < (size_t)(c - S->txt); k++)
		;
	*end = k < S->nlines ? k : S->nlines - 1;
	t = memchr(q, '\n', (size_t)(c - q));
	if (t == NULL)
		t = c;
	while (q < t && (*q == ' ' || *q == '\t'))
		q++;
	if (buf_add(out, q, (size_t)(t - q)) == -1 || buf_addc(out, '\n') == -1)
		return -1;
	if (t < c) {
		/* a blank line after the summary stays a paragraph break */
		for (q = t + 1; q < c && (*q == ' ' || *q == '\t'); q++)
			;
		if (q < c && *q == '\n' && buf_addc(out, '\n') == -1)
			return -1;
		if ((rest = strndup(t + 1, (size_t)(c - t - 1))) == NULL ||
		    (ded = code_dedent(rest)) == NULL || buf_adds(out, ded) == -1)
			goto out;
	}
	rc = 0;
out:
	free(rest);
	free(ded);
	return rc;
}

/* Python: module, class and function docstrings; scopes follow indentation. */
static int
code_parse_python(struct src *S)
{
	struct buf	 doc, hdr;
	const char	*m, *p;
	char		 w[128], name[128], *sig = NULL, *sym = NULL;
	size_t		 i, j, k, n, ind, end;
	int		 rc = -1, depth, first = 1, isclass;

	buf_init(&doc);
	buf_init(&hdr);
	for (i = 0; i < S->nlines; i++) {
		if (doc_build_poll(S->b) == -1)
			goto out;
		if (S->st[i] != LX_CODE)
			continue;
		m = S->mask + S->off[i];
		n = S->len[i];
		ind = code_indent(S->txt + S->off[i], S->len[i]);
		if (ind == n)
			continue;		/* blank */
		if (first && S->txt[S->off[i] + ind] != '#') {
			first = 0;
			if (code_docstring(S, i, &doc, &end) == 0) {
				if (code_emit(S, S->module, doc.p, NULL) == -1)
					goto out;
				i = end;
				continue;
			}
		}
		if (code_blank_code(S, i))
			continue;		/* a comment */
		code_dedent_scopes(S, ind);
		p = m + ind;
		code_word(&p, w, sizeof(w));
		if (strcmp(w, "async") == 0)
			code_word(&p, w, sizeof(w));
		isclass = strcmp(w, "class") == 0;
		if (!isclass && strcmp(w, "def") != 0)
			continue;
		code_word(&p, name, sizeof(name));
		if (name[0] == '\0')
			continue;
		/* the signature ends at a ':' outside brackets */
		depth = 0;
		for (j = i; j < S->nlines && j < i + 50; j++) {
			const char *mm = S->mask + S->off[j];

			for (k = 0; k < S->len[j]; k++) {
				if (strchr("([{", mm[k]) != NULL)
					depth++;
				else if (strchr(")]}", mm[k]) != NULL)
					depth--;
			}
			for (k = S->len[j]; k > 0 && (mm[k - 1] == ' ' || mm[k - 1] == '\t');
			    k--)
				;
			if (depth <= 0 && k > 0 && mm[k - 1] == ':')
				break;
		}
		if ((sym = code_qualify(S, name, ".")) == NULL)
			goto nomem;
		if (code_push(S, name, ind) == -1)
			goto nomem;
		for (k = j + 1; k < S->nlines && code_indent(S->txt + S->off[k],
		    S->len[k]) == S->len[k]; k++)
			;
		if (j < S->nlines && k < S->nlines && S->st[k] == LX_CODE &&
		    code_docstring(S, k, &doc, &end) == 0) {
			if ((sig = code_signature(S, i, 0, &hdr)) == NULL)
				goto nomem;
			if (code_emit(S, sym, doc.p, sig) == -1)
				goto out;
			free(sig);
			sig = NULL;
			i = end;
		}
		free(sym);
		sym = NULL;
	}
	rc = 0;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	free(sig);
	free(sym);
	buf_release(&doc);
	buf_release(&hdr);
	return rc;
}

/* Ruby: a block of '#' lines right above def, class or module. */
static int
code_parse_ruby(struct src *S)
{
	struct buf	 doc, sym;
	const char	*l, *t, *p;
	char		 w[128], name[128], *q = NULL, *sig = NULL;
	size_t		 i, n, ind;
	int		 rc = -1, incomment = 0, self;

	buf_init(&doc);
	buf_init(&sym);
	for (i = 0; i < S->nlines; i++) {
		if (doc_build_poll(S->b) == -1)
			goto out;
		l = S->txt + S->off[i];
		n = S->len[i];
		ind = code_indent(l, n);
		t = l + ind;
		if (S->st[i] == LX_CODE && ind < n && *t == '#') {
			if (!incomment)
				buf_reset(&doc);
			incomment = 1;
			if (t[1] == '!' || strncmp(t, "# frozen_string_literal", 23) == 0 ||
			    strncmp(t, "# -*-", 5) == 0 || strncmp(t, "# rubocop:", 10) == 0)
				continue;
			if (buf_add(&doc, t + 1, (size_t)(l + n - t - 1)) == -1 ||
			    buf_addc(&doc, '\n') == -1)
				goto nomem;
			continue;
		}
		if (ind == n || S->st[i] != LX_CODE) {
			incomment = 0;
			continue;
		}
		code_dedent_scopes(S, ind);
		p = S->mask + S->off[i] + ind;
		code_word(&p, w, sizeof(w));
		if (strcmp(w, "class") == 0 || strcmp(w, "module") == 0 ||
		    strcmp(w, "def") == 0) {
			self = 0;
			p = code_skipws(p);
			if (strncmp(p, "self.", 5) == 0) {
				self = 1;
				p += 5;
			}
			code_word(&p, name, sizeof(name));
			while (w[0] != 'd' && p[0] == ':' && p[1] == ':') {
				/* class A::B */
				p += 2;
				code_word(&p, name, sizeof(name));
			}
			if (name[0] != '\0') {
				if ((q = code_qualify(S, NULL, "::")) == NULL)
					goto nomem;
				buf_reset(&sym);
				if (buf_printf(&sym, "%s%s%s", q, *q == '\0' ? "" :
				    w[0] != 'd' ? "::" : self ? "." : "#", name) == -1)
					goto nomem;
				free(q);
				q = NULL;
				if (incomment) {
					if ((sig = strndup(t, (size_t)(l + n - t))) == NULL)
						goto nomem;
					if (code_emit(S, sym.p, doc.p, sig) == -1)
						goto out;
					free(sig);
					sig = NULL;
				}
				if (w[0] != 'd' && code_push(S, name, ind) == -1)
					goto nomem;
			}
		}
		incomment = 0;
	}
	rc = 0;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	free(q);
	free(sig);
	buf_release(&doc);
	buf_release(&sym);
	return rc;
}

/* ---------------------------------------------------------------- overview */

#define SRC_OVERVIEW_MIN_LINES	20	/* shorter files get no overview */
#define SRC_OVERVIEW_LINES	40	/* fewer doc comments than one per this many lines */
#define SRC_OVERVIEW_BYTES	2000	/* of signatures shown */

/* 1 when the scopes open are all named (a type, a module): not inside a function body. */
static int
code_named_scopes(const struct src *S)
{
	size_t	 i;

	if (S->nscopes >= SRC_MAXSCOPE)
		return 0;
	for (i = 0; i < S->nscopes; i++)
		if (S->scopes[i].name == NULL)
			return 0;
	return 1;
}

/* 1 when the code line i (masked m, n bytes) declares an item worth an overview line. */
static int
code_overview_line(struct src *S, size_t i, const char *m, size_t n)
{
	static const char *const stop[] = {
		"if", "for", "while", "switch", "return", "else", "do", "case", "default",
		"catch", "try", "throw", "import", "package", "using", "use", "from",
		"require", "goto", "break", "continue", "new", "delete", "await", "yield",
		"namespace", "mod", "let", "var", "assert", "pass", "raise", "with", NULL
	};
	static const char *const types[] = {
		"class", "struct", "interface", "enum", "trait", "impl", "type", "union",
		"fn", "func", "def", "module", "record", NULL
	};
	const char	*p;
	char		 w[64];
	size_t		 ind = code_indent(m, n), k;

	if (S->st[i] != LX_CODE || ind == n)
		return 0;
	p = m + ind;
	switch (S->x->kind) {
	case SRC_GO:
		code_word(&p, w, sizeof(w));
		return ind == 0 && (strcmp(w, "func") == 0 || strcmp(w, "type") == 0);
	case SRC_PYTHON:
	case SRC_RUBY:
		/* top-level items and the members of a top-level class, not nested defs */
		if (code_blank_code(S, i))
			return 0;
		if (ind == 0)
			S->ovclass = 0;
		else if (S->ovclass && S->ovmember == 0)
			S->ovmember = ind;
		code_word(&p, w, sizeof(w));
		if (strcmp(w, "async") == 0)
			code_word(&p, w, sizeof(w));
		if (ind == 0 && (strcmp(w, "class") == 0 || strcmp(w, "module") == 0)) {
			S->ovclass = 1;
			S->ovmember = 0;
		}
		return (ind == 0 || (S->ovclass && ind == S->ovmember)) &&
		    (strcmp(w, "def") == 0 || strcmp(w, "class") == 0 ||
		    strcmp(w, "module") == 0);
	case SRC_RUST:
	case SRC_CLIKE:
		break;
	}
	if (!code_named_scopes(S) || (S->header.len > 0 &&
	    *code_skip_attrs(S->header.p, S->x->kind) != '\0'))
		return 0;	/* in a body, or not the start of a statement */
	if (*p == '#' || *p == '@' || (*p == '[' && S->x->kind == SRC_CLIKE) ||
	    !code_isid(*p))
		return 0;	/* preprocessor, attributes, annotations */
	for (;;) {
		code_word(&p, w, sizeof(w));
		if (code_is(w, stop))
			return 0;
		if (code_is(w, types))
			return 1;
		p = code_skipws(p);
		if (strcmp(w, "pub") == 0 && *p == '(')
			p = code_skip_group(p);
		if (!code_isid(*p))
			break;
	}
	/* a function: a '(' before the '{' or ';' that ends it ("int\nf(void)\n{") */
	for (k = 0; k < SRC_SIGLINES && i + k < S->nlines; k++) {
		m = S->mask + S->off[i + k];
		for (p = m; p < m + S->len[i + k]; p++)
			if (*p == '(')
				return 1;
			else if (*p == '{' || *p == ';')
				return 0;
	}
	return 0;
}

/* Appends a signature, its lines indented one level when it is a member (member set). */
static int
code_overview_add(struct buf *sigs, const char *sig, int member)
{
	const char	*l, *eol;

	for (l = sig; *l != '\0'; l = *eol != '\0' ? eol + 1 : eol) {
		if ((eol = strchr(l, '\n')) == NULL)
			eol = l + strlen(l);
		if ((member && buf_adds(sigs, "    ") == -1) ||
		    buf_add(sigs, l, (size_t)(eol - l)) == -1 || buf_addc(sigs, '\n') == -1)
			return -1;
	}
	return 0;
}

/*
 * After the doc comments: a file of SRC_OVERVIEW_MIN_LINES lines or more with fewer doc
 * comments than one per SRC_OVERVIEW_LINES lines gets one more section, "PATH — overview",
 * without prose, its main signatures (top-level and type members, not bodies) as code,
 * at most SRC_OVERVIEW_BYTES. 1 when it was added, 0 when not, -1 on failure.
 */
static int
code_overview(struct src *S, const char *path)
{
	struct buf	 sigs, hdr, title;
	char		*sig = NULL;
	const char	*m;
	size_t		 i, n;
	int		 rc = -1;

	if (S->nlines < SRC_OVERVIEW_MIN_LINES ||
	    (size_t)S->ndocs * SRC_OVERVIEW_LINES >= S->nlines)
		return 0;
	buf_init(&sigs);
	buf_init(&hdr);
	buf_init(&title);
	while (S->nscopes > 0)
		code_pop(S);
	buf_reset(&S->header);
	if (buf_add(&sigs, "", 0) == -1)
		goto nomem;
	for (i = 0; i < S->nlines && sigs.len < SRC_OVERVIEW_BYTES; i++) {
		if (doc_build_poll(S->b) == -1)
			goto out;
		m = S->mask + S->off[i];
		n = S->len[i];
		if (code_overview_line(S, i, m, n)) {
			if ((sig = code_signature(S, i, 0, &hdr)) == NULL)
				goto nomem;
			if (*sig != '\0' && sigs.len + strlen(sig) < SRC_OVERVIEW_BYTES &&
			    code_overview_add(&sigs, sig, code_indent(m, n) > 0) == -1)
				goto nomem;
			free(sig);
			sig = NULL;
		}
		if (S->x->kind != SRC_GO && S->x->kind != SRC_PYTHON &&
		    S->x->kind != SRC_RUBY && code_braces(S, m, n) == -1)
			goto nomem;
	}
	while (sigs.len > 0 && sigs.p[sigs.len - 1] == '\n')
		sigs.p[--sigs.len] = '\0';
	if (sigs.len == 0) {
		rc = 0;
		goto out;
	}
	if (buf_printf(&title, "%s \xe2\x80\x94 overview", path) == -1)
		goto nomem;
	if (doc_build_heading_anchor(S->b, 1, title.p, "overview") == -1 ||
	    doc_build_code(S->b, S->x->lang, sigs.p, sigs.len) == -1)
		goto out;
	rc = 1;
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	free(sig);
	buf_release(&sigs);
	buf_release(&hdr);
	buf_release(&title);
	return rc;
}

/* ---------------------------------------------------------------- entry */

/*
 * Rust module path of a file: the crate is the folder holding "src" ('-' read as '_'),
 * then the folders below src and the file stem; lib.rs, main.rs and mod.rs name their
 * folder. "axum/src/extract/ws.rs" -> "axum::extract::ws".
 */
static char *
code_rust_module(const char *path)
{
	struct buf	 b;
	char		*p, *s, *c, **comp = NULL, *dot;
	size_t		 n = 0, i, from = 0;
	int		 hassrc = 0;

	buf_init(&b);
	if ((p = strdup(path)) == NULL ||
	    (comp = calloc(strlen(path) + 1, sizeof(*comp))) == NULL)
		goto fail;
	for (s = p; s != NULL; ) {
		c = strsep(&s, "/");
		if (*c != '\0' && strcmp(c, ".") != 0)
			comp[n++] = c;
	}
	if (n == 0)
		goto fail;
	if ((dot = strrchr(comp[n - 1], '.')) != NULL)
		*dot = '\0';
	for (i = 0; i + 1 < n; i++)
		if (strcmp(comp[i], "src") == 0) {
			from = i + 1;
			hassrc = 1;
		}
	if (buf_add(&b, "", 0) == -1)
		goto fail;
	if (hassrc) {
		c = from >= 2 ? comp[from - 2] : "crate";
		for (; *c != '\0'; c++)
			if (buf_addc(&b, *c == '-' ? '_' : *c) == -1)
				goto fail;
	}
	for (i = from; i < n; i++) {
		if (i == n - 1 && (strcmp(comp[i], "lib") == 0 ||
		    strcmp(comp[i], "main") == 0 || strcmp(comp[i], "mod") == 0) && b.len > 0)
			break;
		if ((b.len > 0 && buf_adds(&b, "::") == -1) || buf_adds(&b, comp[i]) == -1)
			goto fail;
	}
	free(p);
	free(comp);
	return buf_detach(&b);
fail:
	free(p);
	free(comp);
	buf_release(&b);
	return NULL;
}

/* Python module of a file: "pkg/sub/mod.py" -> "pkg.sub.mod", __init__ names its folder. */
static char *
code_py_module(const char *path)
{
	char	*m, *dot, *s;
	size_t	 n;

	while (strncmp(path, "./", 2) == 0)
		path += 2;
	if (strncmp(path, "src/", 4) == 0 || strncmp(path, "lib/", 4) == 0)
		path += 4;
	if ((m = strdup(path)) == NULL)
		return NULL;
	if ((dot = strrchr(m, '.')) != NULL && strchr(dot, '/') == NULL)
		*dot = '\0';
	n = strlen(m);
	if (n >= 8 && strcmp(m + n - 8, "__init__") == 0 && (n == 8 || m[n - 9] == '/'))
		m[n > 8 ? n - 9 : 0] = '\0';
	for (s = m; *s != '\0'; s++)
		if (*s == '/')
			*s = '.';
	return m;
}

int
code_parse(const char *path, const char *data, size_t len, struct doc *out)
{
	return code_parse_poll(path, data, len, out, NULL);
}

int
code_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	return code_parse_overview(path, data, len, out, poll, NULL);
}

int
code_parse_overview(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll, int *overview)
{
	struct src	 S;
	struct docb	 b;
	struct lexer	 lx;
	size_t		 tlen, i, k;
	const char	*base;
	int		 rc = -1, binit = 0;

	memset(&S, 0, sizeof(S));
	memset(out, 0, sizeof(*out));
	buf_init(&S.header);
	if ((S.x = code_ext(path)) == NULL) {
		log_err("%s: %s: not a source file", __func__, path != NULL ? path : "");
		return -1;
	}
	base = strrchr(path, '/');
	S.base = base != NULL ? base + 1 : path;
	if ((S.txt = doc_clean_input(data, len, &tlen)) == NULL)
		goto out;
	for (i = 0, S.nlines = 1; i < tlen; i++)
		if (S.txt[i] == '\n')
			S.nlines++;
	if ((S.off = calloc(S.nlines, sizeof(*S.off))) == NULL ||
	    (S.len = calloc(S.nlines, sizeof(*S.len))) == NULL ||
	    (S.st = calloc(S.nlines, 1)) == NULL ||
	    (S.mask = malloc(tlen + 1)) == NULL)
		goto nomem;
	memset(&lx, 0, sizeof(lx));
	lx.x = S.x;
	for (i = 0, k = 0; k < S.nlines; k++) {
		S.off[k] = i;
		while (i < tlen && S.txt[i] != '\n')
			i++;
		S.len[k] = i - S.off[k];
		S.st[k] = (unsigned char)lx.st;
		code_lex_line(&lx, S.txt + S.off[k], S.len[k], S.mask + S.off[k]);
		S.mask[i] = '\n';
		i++;
	}
	S.mask[tlen] = '\0';
	if (S.x->kind == SRC_RUST)
		S.module = code_rust_module(path);
	else if (S.x->kind == SRC_PYTHON)
		S.module = code_py_module(path);
	else
		S.module = strdup(S.base);
	if (S.module == NULL)
		goto nomem;
	if (doc_build_init(&b, out, poll) == -1)
		goto out;
	binit = 1;
	S.b = &b;
	switch (S.x->kind) {
	case SRC_RUST:
	case SRC_CLIKE:
		rc = code_parse_braces(&S);
		break;
	case SRC_GO:
		rc = code_parse_go(&S);
		break;
	case SRC_PYTHON:
		rc = code_parse_python(&S);
		break;
	case SRC_RUBY:
		rc = code_parse_ruby(&S);
		break;
	}
	if (rc == -1)
		goto out;
	if (overview != NULL && (*overview = code_overview(&S, path)) == -1) {
		rc = -1;
		goto out;
	}
	binit = 0;
	rc = doc_build_finish(&b, S.x->kind == SRC_RUST ? S.module : S.base, path);
	goto out;
nomem:
	log_err("%s: out of memory", __func__);
out:
	if (binit)
		doc_build_release(&b);
	if (rc == -1)
		doc_release(out);
	while (S.nscopes > 0)
		code_pop(&S);
	buf_release(&S.header);
	free(S.module);
	free(S.txt);
	free(S.mask);
	free(S.off);
	free(S.len);
	free(S.st);
	return rc;
}
