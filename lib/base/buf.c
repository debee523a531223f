/* buf.c: the growable byte buffer (see buf.h). */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

void
buf_init(struct buf *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
}

void
buf_release(struct buf *b)
{
	free(b->p);
	buf_init(b);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

static int
buf_grow(struct buf *b, size_t need)
{
	size_t	 ncap;
	char	*np;

	if (need > SIZE_MAX - b->len - 1)
		return -1;
	if (b->len + need + 1 <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 256;
	while (ncap < b->len + need + 1)
		ncap *= 2;
	if ((np = realloc(b->p, ncap)) == NULL)
		return -1;
	b->p = np;
	b->cap = ncap;
	return 0;
}

int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) == -1)
		return -1;
	if (n > 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int
buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int
buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list	 ap2;
	int	 n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || buf_grow(b, (size_t)n) == -1)
		return -1;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	int	 rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *
buf_detach(struct buf *b)
{
	char	*p = b->p;

	if (p == NULL)
		p = strdup("");
	buf_init(b);
	return p;
}
