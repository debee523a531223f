/* blockedit.c: a block of lines between marker lines in a text file (AGENTS.md). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"

/* 1 when the line [s, e) (no newline) is the marker, trailing blanks and '\r' ignored. */
static int
blockedit_is(const char *s, const char *e, const char *marker)
{
	size_t	 n = strlen(marker);

	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return (size_t)(e - s) == n && memcmp(s, marker, n) == 0;
}

int
blockedit_set(const char *in, size_t len, const char *begin, const char *end,
    const char *body, char **out, char *err, size_t errsz)
{
	struct buf	 b;
	const char	*p = in, *e = in + len, *nl, *next;
	int		 inside = 0, done = 0;

	buf_init(&b);
	*out = NULL;
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		next = nl != NULL ? nl + 1 : e;
		if (!inside && blockedit_is(p, nl != NULL ? nl : e, begin)) {
			inside = 1;
			if (!done && buf_printf(&b, "%s\n%s%s\n", begin, body, end) == -1)
				goto nomem;
			done = 1;
		} else if (inside && blockedit_is(p, nl != NULL ? nl : e, end))
			inside = 0;
		else if (!inside && buf_add(&b, p, (size_t)(next - p)) == -1)
			goto nomem;
		p = next;
	}
	if (inside) {
		snprintf(err, errsz, "it has a line %s without a line %s after it", begin, end);
		buf_release(&b);
		return -1;
	}
	if (!done) {
		if (b.len > 0 && b.p[b.len - 1] != '\n' && buf_addc(&b, '\n') == -1)
			goto nomem;
		if (b.len > 0 && !(b.len >= 2 && b.p[b.len - 2] == '\n') &&
		    buf_addc(&b, '\n') == -1)
			goto nomem;
		if (buf_printf(&b, "%s\n%s%s\n", begin, body, end) == -1)
			goto nomem;
	}
	if (b.p == NULL && buf_adds(&b, "") == -1)
		goto nomem;
	*out = buf_detach(&b);
	return 0;
nomem:
	snprintf(err, errsz, "out of memory");
	buf_release(&b);
	return -1;
}
