/* log.c: one-line log records on stderr ("prog: level: message"). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "ctxd.h"

static const char *log_prog = "ctxd";

void
log_init(const char *prog)
{
	log_prog = prog;
}

static void
log_vemit(const char *level, const char *fmt, va_list ap)
{
	char	 line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s: %s\n", log_prog, level, line);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit("info", fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit("warning", fmt, ap);
	va_end(ap);
}

void
log_err(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vemit("error", fmt, ap);
	va_end(ap);
}
