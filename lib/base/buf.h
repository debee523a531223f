/*
 * buf.h: a growable byte buffer, always NUL-terminated when p != NULL. Self-contained: used
 * by the server library and by the client tool ctxd.
 */
#ifndef BUF_H
#define BUF_H

#include <stdarg.h>
#include <stddef.h>

/* Growable byte buffer, always NUL-terminated when p != NULL. */
struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

void	 buf_init(struct buf *);
void	 buf_release(struct buf *);
void	 buf_reset(struct buf *);		/* len = 0, keeps memory */
int	 buf_add(struct buf *, const void *, size_t);
int	 buf_adds(struct buf *, const char *);
int	 buf_addc(struct buf *, char);
int	 buf_printf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 buf_vprintf(struct buf *, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
char	*buf_detach(struct buf *);		/* caller frees; buf is reset */

#endif
