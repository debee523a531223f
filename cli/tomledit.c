/*
 * tomledit.c: a small line-based editor for one server's tables in a Codex config.toml.
 * There is no C TOML library in Debian. This reads just enough TOML to know, line by line,
 * whether a line is a table header, a key = value line, a continuation (multi-line string
 * or array) or a blank/comment line, and which table it belongs to. It rewrites only the
 * lines of the server's own tables and copies every other line byte for byte.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"

#define TOML_PARTS	16	/* most parts of a dotted key compared */
#define TOML_PARTLEN	128

enum toml_kind { TL_BLANK, TL_HEADER, TL_KEYVAL, TL_MORE };

struct toml_line {
	const char	*p;		/* start of the line */
	size_t		 len;		/* with its newline */
	enum toml_kind	 kind;
	int		 ours;		/* in [mcp_servers.<name>] or one of its sub-tables */
};

struct tomledit_key {
	char	 part[TOML_PARTS][TOML_PARTLEN];
	int	 n;			/* parts kept (at most TOML_PARTS) */
};

/* Lexer state carried from line to line. */
struct toml_lex {
	char	 ml;			/* 0, '"' or '\'': inside a multi-line string */
	int	 depth;			/* open [ and { of a value */
};

static const char *
tomledit_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static int
tomledit_bare(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '-';
}

/*
 * Reads a dotted key (bare, "basic" or 'literal' parts, blanks around the dots) at *sp and
 * moves *sp past it and the blanks after it. Quoted parts are kept as written between the
 * quotes. Returns -1 when there is no key.
 */
static int
tomledit_key(const char **sp, const char *e, struct tomledit_key *k)
{
	const char	*s = tomledit_ws(*sp, e), *from, *to;
	size_t		 n;
	char		 quote;

	k->n = 0;
	for (;;) {
		if (s < e && (*s == '"' || *s == '\'')) {
			quote = *s++;
			for (from = s; s < e && *s != quote; s++)
				if (quote == '"' && *s == '\\' && s + 1 < e)
					s++;
			if (s >= e)
				return -1;
			to = s++;
		} else {
			for (from = s; s < e && tomledit_bare(*s); s++)
				;
			if (s == from)
				return -1;
			to = s;
		}
		if (k->n < TOML_PARTS) {
			n = (size_t)(to - from);
			if (n >= TOML_PARTLEN)
				n = TOML_PARTLEN - 1;
			memcpy(k->part[k->n], from, n);
			k->part[k->n][n] = '\0';
			k->n++;
		}
		s = tomledit_ws(s, e);
		if (s < e && *s == '.') {
			s = tomledit_ws(s + 1, e);
			continue;
		}
		*sp = s;
		return 0;
	}
}

/*
 * Scans value text [s, e) of one line, updating the multi-line string state and the
 * bracket depth; a '#' outside strings ends the line. -1 on a string left open on a line.
 */
static int
tomledit_scan(struct toml_lex *x, const char *s, const char *e)
{
	char	 q;

	while (s < e) {
		if (x->ml != 0) {
			if (x->ml == '"' && *s == '\\') {
				s += s + 1 < e ? 2 : 1;
				continue;
			}
			if (e - s >= 3 && s[0] == x->ml && s[1] == x->ml && s[2] == x->ml) {
				s += 3;
				/* up to two quotes may end the content right before */
				if (s < e && *s == x->ml)
					s++;
				if (s < e && *s == x->ml)
					s++;
				x->ml = 0;
			} else
				s++;
			continue;
		}
		switch (*s) {
		case '#':
			return 0;
		case '"':
		case '\'':
			q = *s;
			if (e - s >= 3 && s[1] == q && s[2] == q) {
				x->ml = q;
				s += 3;
				break;
			}
			for (s++; s < e && *s != q; s++)
				if (q == '"' && *s == '\\' && s + 1 < e)
					s++;
			if (s >= e)
				return -1;
			s++;
			break;
		case '[':
		case '{':
			x->depth++;
			s++;
			break;
		case ']':
		case '}':
			if (--x->depth < 0)
				return -1;
			s++;
			break;
		default:
			s++;
		}
	}
	return 0;
}

/* 1 when key k starts with mcp_servers.<name>. */
static int
tomledit_is_ours(const struct tomledit_key *k, const char *name)
{
	return k->n >= 2 && strcmp(k->part[0], "mcp_servers") == 0 &&
	    strcmp(k->part[1], name) == 0;
}

/* Appends the value as a TOML basic string. */
static int
tomledit_add_string(struct buf *b, const char *v)
{
	const unsigned char	*s;

	if (buf_addc(b, '"') == -1)
		return -1;
	for (s = (const unsigned char *)v; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\') {
			if (buf_addc(b, '\\') == -1 || buf_addc(b, (char)*s) == -1)
				return -1;
		} else if (*s < 0x20 || *s == 0x7f) {
			if (buf_printf(b, "\\u%04x", *s) == -1)
				return -1;
		} else if (buf_addc(b, (char)*s) == -1)
			return -1;
	}
	return buf_addc(b, '"');
}

/* Appends a key: bare when it can be, else quoted. */
static int
tomledit_add_key(struct buf *b, const char *k)
{
	const char	*s;

	for (s = k; *s != '\0' && tomledit_bare(*s); s++)
		;
	return *s == '\0' && s != k ? buf_adds(b, k) : tomledit_add_string(b, k);
}

/* The server's tables, with the file's line ending. */
static int
tomledit_block(struct buf *b, const char *name, const char *url, const char *hname,
    const char *hvalue, const char *nl)
{
	if (buf_printf(b, "[mcp_servers.%s]%surl = ", name, nl) == -1 ||
	    tomledit_add_string(b, url) == -1 || buf_adds(b, nl) == -1)
		return -1;
	if (hvalue == NULL)
		return 0;
	if (buf_printf(b, "%s[mcp_servers.%s.http_headers]%s", nl, name, nl) == -1 ||
	    tomledit_add_key(b, hname) == -1 || buf_adds(b, " = ") == -1 ||
	    tomledit_add_string(b, hvalue) == -1 || buf_adds(b, nl) == -1)
		return -1;
	return 0;
}

/*
 * Classifies every line; marks the lines of the server's tables. Refuses the forms this
 * editor does not handle. lines has one entry per line of in.
 */
static int
tomledit_read(const char *in, size_t len, const char *name, struct toml_line *lines,
    size_t *nlines, char *err, size_t errsz)
{
	struct toml_lex	 x = { 0, 0 };
	struct tomledit_key	 table, k;
	const char	*p = in, *e = in + len, *nl, *le, *s;
	size_t		 n = 0;
	int		 ours = 0, array, j;

	table.n = 0;
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		le = nl != NULL ? nl : e;
		if (le > p && le[-1] == '\r')
			le--;
		lines[n].p = p;
		lines[n].len = (size_t)((nl != NULL ? nl + 1 : e) - p);
		s = tomledit_ws(p, le);
		if (x.ml != 0 || x.depth > 0) {
			lines[n].kind = TL_MORE;
			if (tomledit_scan(&x, s, le) == -1)
				goto bad;
		} else if (s == le || *s == '#') {
			lines[n].kind = TL_BLANK;
		} else if (*s == '[') {
			lines[n].kind = TL_HEADER;
			array = s + 1 < le && s[1] == '[';
			s += array ? 2 : 1;
			if (tomledit_key(&s, le, &table) == -1 || s >= le || *s != ']' ||
			    (array && (s + 1 >= le || s[1] != ']')))
				goto bad;
			s = tomledit_ws(s + (array ? 2 : 1), le);
			if (s < le && *s != '#')
				goto bad;
			ours = tomledit_is_ours(&table, name);
			if (array && (ours || (table.n == 1 &&
			    strcmp(table.part[0], "mcp_servers") == 0))) {
				snprintf(err, errsz, "line %zu declares an array of tables "
				    "[[%s]]; ctxd edits only [mcp_servers.%s] tables", n + 1,
				    table.n == 1 ? "mcp_servers" : "mcp_servers...", name);
				return -1;
			}
		} else {
			lines[n].kind = TL_KEYVAL;
			if (tomledit_key(&s, le, &k) == -1 || s >= le || *s != '=')
				goto bad;
			if (!ours) {
				/* the key's full name: table + dotted key */
				struct tomledit_key full = table;

				for (j = 0; j < k.n && full.n < TOML_PARTS; j++)
					memcpy(full.part[full.n++], k.part[j], TOML_PARTLEN);
				if (tomledit_is_ours(&full, name) || (full.n == 1 &&
				    strcmp(full.part[0], "mcp_servers") == 0)) {
					snprintf(err, errsz, "line %zu defines %s with a "
					    "dotted key or an inline table; ctxd edits only "
					    "a [mcp_servers.%s] table: rewrite that entry as "
					    "such a table (or remove it) and run ctxd setup "
					    "again", n + 1, full.n == 1 ? "mcp_servers" :
					    "this server", name);
					return -1;
				}
			}
			if (tomledit_scan(&x, s + 1, le) == -1)
				goto bad;
		}
		lines[n].ours = ours;
		n++;
		p = nl != NULL ? nl + 1 : e;
	}
	if (x.ml != 0 || x.depth != 0) {
		snprintf(err, errsz, "it ends inside a multi-line string or an open "
		    "array; it is not valid TOML");
		return -1;
	}
	*nlines = n;
	return 0;
bad:
	snprintf(err, errsz, "line %zu is not TOML this editor can read", n + 1);
	return -1;
}

int
tomledit_set(const char *in, size_t len, const char *name, const char *url,
    const char *header_name, const char *header_value, char **out, char *err,
    size_t errsz)
{
	struct toml_line	*lines = NULL;
	struct buf		 b;
	const char		*nl = "\n", *first;
	size_t			 nlines = 0, i, j, cap = 1, last;
	int			 placed = 0, rc = -1;

	buf_init(&b);
	*out = NULL;
	for (i = 0; i < len; i++)
		if (in[i] == '\n')
			cap++;
	if ((lines = calloc(cap, sizeof(*lines))) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if (tomledit_read(in, len, name, lines, &nlines, err, errsz) == -1)
		goto out;
	/* the file's line ending: its first one (a last line ending in '\r' becomes \r\n) */
	if ((first = memchr(in, '\n', len)) != NULL ? first > in && first[-1] == '\r' :
	    len > 0 && in[len - 1] == '\r')
		nl = "\r\n";
	/*
	 * A table of ours runs from its header to its last key/value or continuation line;
	 * the blank and comment lines after it belong to what follows, unless the next
	 * header is ours too (then they are dropped with the tables).
	 */
	for (i = 0; i < nlines; ) {
		if (!lines[i].ours) {
			if (buf_add(&b, lines[i].p, lines[i].len) == -1)
				goto nomem;
			i++;
			continue;
		}
		last = i;
		for (j = i; j < nlines && lines[j].ours; j++)
			if (lines[j].kind != TL_BLANK)
				last = j;
		/* blank and comment lines after the last table of ours stay */
		for (j = last + 1; j < nlines && lines[j].ours; j++)
			lines[j].ours = 0;
		if (!placed && (tomledit_block(&b, name, url, header_name, header_value,
		    nl) == -1))
			goto nomem;
		placed = 1;
		i = last + 1;
	}
	if (!placed) {
		/* end the last line, then a blank line before the tables */
		if (b.len > 0 && b.p[b.len - 1] != '\n' &&
		    buf_adds(&b, b.p[b.len - 1] == '\r' ? "\n" : nl) == -1)
			goto nomem;
		if (b.len > 0 && !(b.len >= 2 && b.p[b.len - 2] == '\n') &&
		    !(b.len >= 3 && b.p[b.len - 2] == '\r' && b.p[b.len - 3] == '\n') &&
		    buf_adds(&b, nl) == -1)
			goto nomem;
		if (tomledit_block(&b, name, url, header_name, header_value, nl) == -1)
			goto nomem;
	}
	*out = buf_detach(&b);
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	buf_release(&b);
	free(lines);
	return rc;
}
