/*
 * rst.c: reStructuredText documents to sections.
 *
 * A small line-based reader, enough for Sphinx documentation: section titles (underline,
 * or overline and underline; levels in order of first appearance of each style),
 * paragraphs, "::" literal blocks, doctest blocks, code-block/code/sourcecode directives,
 * admonitions (their text kept with a "Note: " style prefix), autodoc directives (one
 * "API: module.name" line), bullet and enumerated lists, block quotes, grid and simple
 * tables. Other directives, comments and link targets are dropped. Inline markup is
 * reduced: ``x`` and :role:`x` become `x`, `text <url>`_ becomes text.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "parse/doc.h"
#include "parse/parse.h"

#define RST_MAXSTYLES	16
#define RST_MAXDEPTH	12

struct rstline {
	const char	*s;		/* first byte after the indentation */
	size_t		 n;		/* bytes after the indentation, trailing blanks cut */
	size_t		 ind;		/* columns of indentation (tabs to 8) */
	int		 blank;
};

struct rstctx {
	struct docb	*b;
	struct {
		char	 ch;
		int	 over;
	}		 styles[RST_MAXSTYLES];
	int		 nstyles;
	char		 highlight[128];
	char		 module[128];
};

/* A prefix for the first paragraph of a nested body ("Note: ", "- "). */
struct rstpfx {
	const char	*first;
	int		 item;		/* emit the body's paragraphs as list items */
};

static int	rst_body(struct rstctx *, const char *, int top, int depth,
		    struct rstpfx *);

/* Splits text into lines; *out is malloc'd. */
static int
rst_lines(const char *text, struct rstline **out, size_t *nout)
{
	struct rstline	*l = NULL, *nl;
	const char	*p = text, *eol;
	size_t		 n = 0, cap = 0, i, col, len;

	while (*p != '\0') {
		eol = strchr(p, '\n');
		len = eol != NULL ? (size_t)(eol - p) : strlen(p);
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nl = reallocarray(l, cap, sizeof(*l))) == NULL) {
				free(l);
				return -1;
			}
			l = nl;
		}
		for (i = 0, col = 0; i < len && (p[i] == ' ' || p[i] == '\t'); i++)
			col = p[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
		l[n].s = p + i;
		l[n].ind = col;
		while (len > i && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		l[n].n = len - i;
		l[n].blank = l[n].n == 0;
		n++;
		if (eol == NULL)
			break;
		p = eol + 1;
	}
	*out = l;
	*nout = n;
	return 0;
}

/* Number of UTF-8 characters in s[0..n). */
static size_t
rst_width(const char *s, size_t n)
{
	size_t	 i, w = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

/* 1 when the line is a section adornment: one punctuation character repeated. */
static int
rst_adorn(const struct rstline *l)
{
	size_t	 i;

	if (l->blank || l->ind != 0 || l->n < 2 ||
	    strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", l->s[0]) == NULL)
		return 0;
	for (i = 1; i < l->n; i++)
		if (l->s[i] != l->s[0])
			return 0;
	return 1;
}

/* Index of the first line after i that is not blank and indented at most base. */
static size_t
rst_block_end(const struct rstline *l, size_t n, size_t i, size_t base)
{
	for (i++; i < n; i++)
		if (!l[i].blank && l[i].ind <= base)
			break;
	return i;
}

/*
 * The text of lines [a, b), dedented by their smallest indentation (the first line's
 * own text may be given separately as first/firstlen, already without indentation).
 */
static int
rst_sub(const struct rstline *l, size_t a, size_t b, const char *first,
    size_t firstlen, struct buf *out)
{
	size_t	 i, k, min = (size_t)-1;

	if (buf_add(out, "", 0) == -1)
		return -1;
	for (i = a; i < b; i++)
		if (!l[i].blank && l[i].ind < min)
			min = l[i].ind;
	if (first != NULL && (buf_add(out, first, firstlen) == -1 ||
	    buf_addc(out, '\n') == -1))
		return -1;
	for (i = a; i < b; i++) {
		if (!l[i].blank)
			for (k = min; k < l[i].ind; k++)
				if (buf_addc(out, ' ') == -1)
					return -1;
		if (buf_add(out, l[i].s, l[i].n) == -1 || buf_addc(out, '\n') == -1)
			return -1;
	}
	return 0;
}

static int
rst_is_code_role(const char *r, size_t n)
{
	static const char *roles[] = { "class", "meth", "func", "attr", "exc", "mod",
	    "data", "obj", "const", "member", "var", "type", "code", "command",
	    "program", "option", "envvar", "file", "samp", "kbd", "macro", "struct" };
	size_t	 i;
	const char *c;

	/* "py:class" is "class" */
	while ((c = memchr(r, ':', n)) != NULL) {
		n -= (size_t)(c - r) + 1;
		r = c + 1;
	}
	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (strlen(roles[i]) == n && strncmp(roles[i], r, n) == 0)
			return 1;
	return 0;
}

/* Reduces inline markup of s[0..n) into out. */
static int
rst_inline(const char *s, size_t n, struct buf *out)
{
	const char	*e, *lt, *d, *end = s + n, *role;
	size_t		 i, rn, dn;

	for (i = 0; i < n;) {
		const char *p = s + i;

		if (*p == '\\' && i + 1 < n) {
			if (p[1] != ' ' && buf_addc(out, p[1]) == -1)
				return -1;
			i += 2;
			continue;
		}
		if (*p == '`' && i + 1 < n && p[1] == '`' &&
		    (e = memmem(p + 2, (size_t)(end - p - 2), "``", 2)) != NULL) {
			if (buf_addc(out, '`') == -1 ||
			    buf_add(out, p + 2, (size_t)(e - p - 2)) == -1 ||
			    buf_addc(out, '`') == -1)
				return -1;
			i = (size_t)(e - s) + 2;
			continue;
		}
		role = NULL;
		rn = 0;
		if (*p == ':' && (i == 0 || !isalnum((unsigned char)p[-1]))) {
			for (e = p + 1; e < end && (isalnum((unsigned char)*e) ||
			    strchr(":_+.-", *e) != NULL); e++)
				;
			if (e < end && *e == '`' && e - p >= 3 && e[-1] == ':') {
				role = p + 1;
				rn = (size_t)(e - p) - 2;
				p = e;
			} else {
				/*
				 * Not a role, and no colon of the same run starts one
				 * (it would end at the same e): the run is plain text.
				 */
				if (buf_add(out, p, (size_t)(e - p)) == -1)
					return -1;
				i = (size_t)(e - s);
				continue;
			}
		}
		if (*p == '`' && (e = memchr(p + 1, '`', (size_t)(end - p - 1))) != NULL &&
		    e > p + 1) {
			d = p + 1;
			dn = (size_t)(e - d);
			/* "text <target>": keep the text, or the target when there is none */
			if (dn > 0 && d[dn - 1] == '>' &&
			    (lt = memrchr(d, '<', dn)) != NULL) {
				if (lt > d) {
					dn = (size_t)(lt - d);
					while (dn > 0 && d[dn - 1] == ' ')
						dn--;
				} else {
					d = lt + 1;
					dn = dn - 2;
				}
			}
			if (role != NULL && dn > 0 && (*d == '~' || *d == '!')) {
				if (*d == '~' && (lt = memrchr(d, '.', dn)) != NULL) {
					dn -= (size_t)(lt + 1 - d);
					d = lt + 1;
				} else {
					d++;
					dn--;
				}
			}
			if (role != NULL && rn == 3 && strncmp(role, "rfc", 3) == 0) {
				if (buf_printf(out, "RFC %.*s", (int)dn, d) == -1)
					return -1;
			} else if (role != NULL && rn == 3 && strncmp(role, "pep", 3) == 0) {
				if (buf_printf(out, "PEP %.*s", (int)dn, d) == -1)
					return -1;
			} else if (role == NULL && e + 1 < end && e[1] == '_') {
				if (buf_add(out, d, dn) == -1)
					return -1;
			} else if (role == NULL || rst_is_code_role(role, rn)) {
				if (buf_addc(out, '`') == -1 || buf_add(out, d, dn) == -1 ||
				    buf_addc(out, '`') == -1)
					return -1;
			} else if (buf_add(out, d, dn) == -1)
				return -1;
			e++;
			while (e < end && *e == '_')
				e++;
			i = (size_t)(e - s);
			continue;
		}
		if (role != NULL) {
			/*
			 * Not a role after all: the interpreted text after it does not
			 * close, whichever colon of the run it starts from, so the run is
			 * plain text; the backtick is read next.
			 */
			if (buf_add(out, s + i, (size_t)(p - (s + i))) == -1)
				return -1;
			i = (size_t)(p - s);
			continue;
		}
		if (buf_addc(out, *p) == -1)
			return -1;
		i++;
	}
	return 0;
}

/* Emits a paragraph (joined lines, inline markup reduced) with the pending prefix. */
static int
rst_para(struct rstctx *x, const char *s, size_t n, struct rstpfx *pf)
{
	struct buf	 b;
	int		 rc = -1;
	enum docb_kind	 kind = pf != NULL && pf->item ? DOCB_ITEM : DOCB_PARA;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		goto out;
	if (pf != NULL && pf->first != NULL) {
		if (buf_adds(&b, pf->first) == -1)
			goto out;
		pf->first = NULL;
	} else if (kind == DOCB_ITEM && buf_adds(&b, "  ") == -1)
		goto out;
	if (rst_inline(s, n, &b) == -1)
		goto out;
	rc = doc_build_text(x->b, b.p, b.len, kind);
out:
	buf_release(&b);
	if (rc == -1)
		log_err("%s: out of memory", __func__);
	return rc;
}

/* Adds a literal block (lines [a, b)) as code. */
static int
rst_literal(struct rstctx *x, const struct rstline *l, size_t a, size_t b,
    const char *lang)
{
	struct buf	 t;
	int		 rc = -1;

	buf_init(&t);
	while (b > a && l[b - 1].blank)
		b--;
	if (rst_sub(l, a, b, NULL, 0, &t) == -1)
		goto out;
	if (lang == NULL) {
		if (x->highlight[0] != '\0')
			lang = x->highlight;
		else if (strncmp(t.p, ">>>", 3) == 0)
			lang = "python";
		else
			lang = "";
	}
	rc = doc_build_code(x->b, lang, t.p, t.len);
out:
	buf_release(&t);
	return rc;
}

static int
rst_heading(struct rstctx *x, const char *s, size_t n, char ch, int over)
{
	struct buf	 t;
	int		 i, level, rc = -1;

	for (i = 0; i < x->nstyles; i++)
		if (x->styles[i].ch == ch && x->styles[i].over == over)
			break;
	if (i == x->nstyles && x->nstyles < RST_MAXSTYLES) {
		x->styles[i].ch = ch;
		x->styles[i].over = over;
		x->nstyles++;
	}
	level = i + 1 > 6 ? 6 : i + 1;
	buf_init(&t);
	if (buf_add(&t, "", 0) == -1 || rst_inline(s, n, &t) == -1)
		goto out;
	doc_squeeze(t.p);
	if (*t.p == '\0') {
		rc = 0;
		goto out;
	}
	rc = doc_build_heading(x->b, level, t.p);
out:
	buf_release(&t);
	return rc;
}

/* Directive name at s ("code-block" of ".. code-block:: python"), its args after "::". */
static int
rst_directive(const struct rstline *l, char *name, size_t namesz, const char **args,
    size_t *argslen)
{
	const char	*s = l->s + 3, *end = l->s + l->n, *c;
	size_t		 k;

	if (l->n < 4)
		return 0;
	if ((c = memmem(s, (size_t)(end - s), "::", 2)) == NULL || c == s)
		return 0;
	for (k = 0; s + k < c; k++)
		if (!isalnum((unsigned char)s[k]) && strchr("-_:.", s[k]) == NULL)
			return 0;
	if (k + 1 > namesz)
		return 0;
	memcpy(name, s, k);
	name[k] = '\0';
	c += 2;
	while (c < end && *c == ' ')
		c++;
	*args = c;
	*argslen = (size_t)(end - c);
	return 1;
}

/* Handles the directive at line i; returns the index of the next line to read. */
static size_t
rst_do_directive(struct rstctx *x, const struct rstline *l, size_t n, size_t i,
    int depth, int *err)
{
	static const struct { const char *name; const char *label; int args_are_text; }
	    adm[] = {
		{ "note", "Note", 1 }, { "warning", "Warning", 1 }, { "tip", "Tip", 1 },
		{ "hint", "Hint", 1 }, { "important", "Important", 1 },
		{ "caution", "Caution", 1 }, { "danger", "Danger", 1 },
		{ "attention", "Attention", 1 }, { "error", "Error", 1 },
		{ "seealso", "See also", 1 }, { "todo", "To do", 1 },
		{ "admonition", NULL, 0 }, { "topic", NULL, 0 }, { "sidebar", NULL, 0 },
		{ "versionadded", "New in version", 0 },
		{ "versionchanged", "Changed in version", 0 },
		{ "deprecated", "Deprecated since version", 0 },
		{ "container", "", 0 }, { "only", "", 0 }, { "rubric", NULL, 0 },
	};
	char		 name[48], word[128];
	const char	*args, *base;
	size_t		 alen, end, a, k, wl;
	struct buf	 t, pfx;
	struct rstpfx	 pf;

	*err = 0;
	end = rst_block_end(l, n, i, l[i].ind);
	if (!rst_directive(&l[i], name, sizeof(name), &args, &alen))
		return end;		/* comment, target, substitution, footnote */
	/* options: ":name: value" lines right after the directive line */
	for (a = i + 1; a < end && !l[a].blank && l[a].s[0] == ':'; a++)
		;
	base = strrchr(name, ':') != NULL ? strrchr(name, ':') + 1 : name;
	for (wl = 0; wl < alen && args[wl] != ' ' && wl + 1 < sizeof(word); wl++)
		word[wl] = args[wl];
	word[wl] = '\0';

	if (strcmp(base, "code-block") == 0 || strcmp(base, "code") == 0 ||
	    strcmp(base, "sourcecode") == 0) {
		if (rst_literal(x, l, a, end, word[0] != '\0' ? word : NULL) == -1)
			*err = 1;
		return end;
	}
	if (strcmp(base, "highlight") == 0) {
		snprintf(x->highlight, sizeof(x->highlight), "%s", word);
		return end;
	}
	if (strcmp(base, "module") == 0 || strcmp(base, "currentmodule") == 0) {
		snprintf(x->module, sizeof(x->module), "%s", word);
		return end;
	}
	buf_init(&t);
	buf_init(&pfx);
	if (strncmp(base, "auto", 4) == 0 || strcmp(base, "function") == 0 ||
	    strcmp(base, "class") == 0 || strcmp(base, "method") == 0 ||
	    strcmp(base, "attribute") == 0 || strcmp(base, "exception") == 0 ||
	    strcmp(base, "data") == 0 || strcmp(base, "decorator") == 0) {
		if (alen == 0)
			goto done;
		if (buf_adds(&t, "API: ") == -1)
			goto fail;
		if (strchr(word, '.') == NULL && x->module[0] != '\0' &&
		    strcmp(base, "automodule") != 0 && strcmp(base, "module") != 0 &&
		    buf_printf(&t, "%s.", x->module) == -1)
			goto fail;
		if (buf_add(&t, args, strncmp(base, "auto", 4) == 0 ? wl : alen) == -1)
			goto fail;
		if (doc_build_text(x->b, t.p, t.len, DOCB_ITEM) == -1)
			goto fail;
		buf_reset(&t);
		if (rst_sub(l, a, end, NULL, 0, &t) == -1 ||
		    rst_body(x, t.p, 0, depth + 1, NULL) == -1)
			goto fail;
		goto done;
	}
	for (k = 0; k < sizeof(adm) / sizeof(adm[0]); k++)
		if (strcmp(adm[k].name, base) == 0)
			break;
	if (k == sizeof(adm) / sizeof(adm[0]))
		goto done;		/* toctree, image, include, ...: dropped */
	if (adm[k].args_are_text) {
		if (buf_adds(&pfx, adm[k].label) == -1 || buf_adds(&pfx, ": ") == -1)
			goto fail;
		if (rst_sub(l, a, end, alen > 0 ? args : NULL, alen, &t) == -1)
			goto fail;
	} else {
		if (adm[k].label == NULL && alen > 0 && strcmp(base, "rubric") != 0 &&
		    buf_printf(&pfx, "%.*s: ", (int)alen, args) == -1)
			goto fail;
		if (adm[k].label != NULL && *adm[k].label != '\0' &&
		    buf_printf(&pfx, "%s %.*s: ", adm[k].label, (int)alen, args) == -1)
			goto fail;
		if (strcmp(base, "rubric") == 0 && alen > 0 &&
		    rst_para(x, args, alen, NULL) == -1)
			goto fail;
		if (rst_sub(l, a, end, NULL, 0, &t) == -1)
			goto fail;
	}
	pf.first = pfx.len > 0 ? pfx.p : NULL;
	pf.item = 0;
	if (rst_body(x, t.p, 0, depth + 1, &pf) == -1)
		goto fail;
	if (pf.first != NULL && pfx.len > 2) {
		/* a body-less "versionadded:: 2.1" still says something */
		pfx.p[pfx.len - 2] = '.';
		if (doc_build_text(x->b, pfx.p, pfx.len - 1, DOCB_PARA) == -1)
			goto fail;
	}
done:
	buf_release(&t);
	buf_release(&pfx);
	return end;
fail:
	buf_release(&t);
	buf_release(&pfx);
	*err = 1;
	return end;
}

/* Length of a list marker at the start of s ("- ", "* ", "1. ", "#. ", "(a) "), or 0. */
static size_t
rst_list_marker(const char *s, size_t n, int *ordered)
{
	size_t	 k = 0;

	*ordered = 0;
	if (n >= 2 && strchr("-*+", s[0]) != NULL && s[1] == ' ')
		return 2;
	if (n >= 1 && n < 2 && strchr("-*+", s[0]) != NULL)
		return 1;
	if (n >= 3 && s[0] == '#' && s[1] == '.' && s[2] == ' ') {
		*ordered = 1;
		return 3;
	}
	if (n > 0 && s[0] == '(')
		k = 1;
	while (k < n && k < 5 && isdigit((unsigned char)s[k]))
		k++;
	if (k == 0 || (k == 1 && s[0] == '(') || k >= n)
		return 0;
	if ((s[k] == '.' || s[k] == ')') && k + 1 < n && s[k + 1] == ' ') {
		*ordered = 1;
		return k + 2;
	}
	return 0;
}

/* Table line: emits "a | b" for a row, nothing for a border. */
static int
rst_table_line(struct rstctx *x, const struct rstline *l, int grid)
{
	struct buf	 t, r;
	const char	*p = l->s, *end = l->s + l->n, *c;
	char		*cell;
	int		 rc = -1;

	if (*p == '+' || (!grid && strspn(p, "= ") == l->n) ||
	    (!grid && strspn(p, "- ") == l->n))
		return 0;
	buf_init(&t);
	buf_init(&r);
	if (buf_add(&t, "", 0) == -1)
		goto out;
	while (p < end) {
		if (grid) {
			if (*p == '|')
				p++;
			if ((c = memchr(p, '|', (size_t)(end - p))) == NULL)
				c = end;
		} else {
			while (p < end && *p == ' ')
				p++;
			for (c = p; c < end && !(c[0] == ' ' && c + 1 < end && c[1] == ' ');
			    c++)
				;
		}
		buf_reset(&r);
		if (buf_add(&r, "", 0) == -1 || rst_inline(p, (size_t)(c - p), &r) == -1)
			goto out;
		cell = r.p;
		doc_squeeze(cell);
		if (*cell != '\0' && ((t.len > 0 && buf_adds(&t, " | ") == -1) ||
		    buf_adds(&t, cell) == -1))
			goto out;
		p = c;
	}
	rc = doc_build_text(x->b, t.p, t.len, DOCB_ITEM);
out:
	buf_release(&t);
	buf_release(&r);
	return rc;
}

/*
 * Parses a body of lines (dedented so that its own text sits at column 0). Headings only
 * when top; pf (may be NULL) prefixes the first paragraph.
 */
static int
rst_body(struct rstctx *x, const char *text, int top, int depth, struct rstpfx *pf)
{
	struct rstline	*l = NULL;
	struct buf	 t, item;
	size_t		 n, i, j, k, end, mk;
	int		 err, ordered, rc = -1, num = 0;
	char		 bullet[16];
	struct rstpfx	 ipf;

	buf_init(&t);
	buf_init(&item);
	if (depth > RST_MAXDEPTH)
		return 0;
	if (rst_lines(text, &l, &n) == -1)
		goto out;
	for (i = 0; i < n;) {
		const struct rstline *L = &l[i];

		if (doc_build_poll(x->b) == -1)
			goto out;
		if (L->blank) {
			i++;
			continue;
		}
		/* indented: block quote or definition body */
		if (L->ind > 0) {
			end = rst_block_end(l, n, i, 0);
			buf_reset(&t);
			if (rst_sub(l, i, end, NULL, 0, &t) == -1 ||
			    rst_body(x, t.p, 0, depth + 1, pf) == -1)
				goto out;
			i = end;
			continue;
		}
		if (top && rst_adorn(L) && i + 2 < n && !l[i + 1].blank &&
		    rst_adorn(&l[i + 2]) && l[i + 2].s[0] == L->s[0] &&
		    rst_width(l[i + 1].s, l[i + 1].n) <= L->n + 2) {
			if (rst_heading(x, l[i + 1].s, l[i + 1].n, L->s[0], 1) == -1)
				goto out;
			i += 3;
			continue;
		}
		if (top && !rst_adorn(L) && i + 1 < n && rst_adorn(&l[i + 1]) &&
		    l[i + 1].n >= 3 && (l[i + 1].n >= rst_width(L->s, L->n) ||
		    l[i + 1].n >= 4) && (L->n < 2 || strncmp(L->s, "..", 2) != 0)) {
			if (rst_heading(x, L->s, L->n, l[i + 1].s[0], 0) == -1)
				goto out;
			i += 2;
			continue;
		}
		if (rst_adorn(L) && (i + 1 >= n || l[i + 1].blank) && L->n >= 4) {
			i++;		/* transition */
			continue;
		}
		if (L->n >= 2 && L->s[0] == '.' && L->s[1] == '.' &&
		    (L->n == 2 || L->s[2] == ' ')) {
			i = rst_do_directive(x, l, n, i, depth, &err);
			if (err)
				goto out;
			continue;
		}
		if (L->s[0] == '+' && L->n > 1 && (L->s[1] == '-' || L->s[1] == '=')) {
			for (; i < n && !l[i].blank; i++)
				if (rst_table_line(x, &l[i], 1) == -1)
					goto out;
			continue;
		}
		if (L->s[0] == '=' && strspn(L->s, "= ") == L->n &&
		    memmem(L->s, L->n, "= =", 3) != NULL) {
			/* simple table: up to the blank line after its closing border */
			for (k = 0; i < n; i++) {
				if (l[i].blank && k >= 2)
					break;
				if (l[i].blank)
					continue;
				if (l[i].s[0] == '=' && strspn(l[i].s, "= ") == l[i].n)
					k++;
				else if (rst_table_line(x, &l[i], 0) == -1)
					goto out;
			}
			continue;
		}
		if ((mk = rst_list_marker(L->s, L->n, &ordered)) > 0) {
			end = rst_block_end(l, n, i, mk > 1 ? mk - 1 : 0);
			buf_reset(&item);
			if (rst_sub(l, i + 1, end, L->s + mk, L->n - mk, &item) == -1)
				goto out;
			if (ordered)
				snprintf(bullet, sizeof(bullet), "%d. ", ++num);
			else
				snprintf(bullet, sizeof(bullet), "- ");
			ipf.first = bullet;
			ipf.item = 1;
			if (pf != NULL && pf->first != NULL) {
				if (doc_build_text(x->b, pf->first, strlen(pf->first),
				    DOCB_PARA) == -1)
					goto out;
				pf->first = NULL;
			}
			if (rst_body(x, item.p, 0, depth + 1, &ipf) == -1)
				goto out;
			i = end;
			continue;
		}
		num = 0;
		if (L->s[0] == '|' && L->n > 1 && L->s[1] == ' ') {
			for (; i < n && !l[i].blank && l[i].s[0] == '|'; i++)
				if (rst_para(x, l[i].s + 2 <= l[i].s + l[i].n ?
				    l[i].s + 2 : l[i].s, l[i].n >= 2 ? l[i].n - 2 : 0,
				    pf) == -1)
					goto out;
			continue;
		}
		/* doctest block */
		if (L->n >= 3 && strncmp(L->s, ">>>", 3) == 0) {
			for (j = i; j < n && !l[j].blank; j++)
				;
			if (rst_literal(x, l, i, j, "python") == -1)
				goto out;
			i = j;
			continue;
		}
		/* paragraph: lines at this indentation up to a blank line */
		buf_reset(&t);
		if (buf_add(&t, "", 0) == -1)
			goto out;
		for (j = i; j < n && !l[j].blank && l[j].ind == 0; j++) {
			if (top && j > i && j + 1 < n && rst_adorn(&l[j + 1]) &&
			    !rst_adorn(&l[j]))
				break;
			if (j > i && buf_addc(&t, ' ') == -1)
				goto out;
			if (buf_add(&t, l[j].s, l[j].n) == -1)
				goto out;
		}
		k = t.len;
		if (k >= 2 && strcmp(t.p + k - 2, "::") == 0) {
			/* "text::" -> "text:", "text ::" and "::" -> "text" */
			k--;
			if (k == 1 || t.p[k - 2] == ' ') {
				k--;
				while (k > 0 && t.p[k - 1] == ' ')
					k--;
			}
			if (k > 0 && rst_para(x, t.p, k, pf) == -1)
				goto out;
			for (k = j; k < n && l[k].blank; k++)
				;
			if (k < n && l[k].ind > 0) {
				end = rst_block_end(l, n, k, 0);
				if (rst_literal(x, l, k, end, NULL) == -1)
					goto out;
				j = end;
			}
			i = j;
			continue;
		}
		if (rst_para(x, t.p, t.len, pf) == -1)
			goto out;
		i = j;
	}
	rc = 0;
out:
	free(l);
	buf_release(&t);
	buf_release(&item);
	if (rc == -1 && !x->b->stopped)
		log_err("%s: failed", __func__);
	return rc;
}

int
rst_parse(const char *path, const char *data, size_t len, struct doc *out)
{
	return rst_parse_poll(path, data, len, out, NULL);
}

int
rst_parse_poll(const char *path, const char *data, size_t len, struct doc *out,
    struct doc_poll *poll)
{
	struct rstctx	 x;
	struct docb	 b;
	char		*src;
	size_t		 srclen;
	int		 rc = -1;

	memset(&x, 0, sizeof(x));
	memset(out, 0, sizeof(*out));
	if ((src = doc_clean_input(data, len, &srclen)) == NULL)
		return -1;
	if (doc_build_init(&b, out, poll) == -1)
		goto out;
	x.b = &b;
	if (rst_body(&x, src, 1, 0, NULL) == -1) {
		doc_build_release(&b);
		goto out;
	}
	rc = doc_build_finish(&b, NULL, path);
out:
	if (rc == -1)
		doc_release(out);
	free(src);
	return rc;
}
