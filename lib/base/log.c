/*
 * log.c: one-line log records on stderr ("prog: level: message", or "prog: level: context:
 * message" while a context is set: "job 12", "request 3f2a..."). A message may carry
 * what an outsider chose (a file name of an indexed repository, a server's answer): its
 * control characters are escaped (log_escape), so one record is always one line.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"

static const char *log_prog = "ctxd";
static char log_ctx[80];	/* "" when none */

void
log_init(const char *prog)
{
	log_prog = prog;
}

void
log_set_context(const char *ctx)
{
	if (ctx == NULL)
		ctx = "";
	log_escape(ctx, log_ctx, sizeof(log_ctx));
}

const char *
log_context(void)
{
	return log_ctx;
}

void
log_escape(const char *s, char *out, size_t outsz)
{
	const unsigned char	*p = (const unsigned char *)s;
	char			 esc[8];
	size_t			 o = 0, k;

	if (outsz == 0)
		return;
	for (; *p != '\0'; p++) {
		k = 1;
		esc[0] = (char)*p;
		if (*p == '\\')
			k = (size_t)snprintf(esc, sizeof(esc), "\\\\");
		else if (*p == '\n' || *p == '\r' || *p == '\t')
			k = (size_t)snprintf(esc, sizeof(esc), "\\%c",
			    *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
		else if (*p < 0x20 || *p == 0x7f)
			k = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* C1 controls (U+0080..U+009F; U+0085 is a line break) */
			k = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", p[1]);
			p++;
		}
		if (o + k >= outsz)
			break;
		memcpy(out + o, esc, k);
		o += k;
	}
	out[o] = '\0';
	util_utf8_trim(out);
}

static void
log_vemit(const char *level, const char *fmt, va_list ap)
{
	char	 line[2048], esc[4 * 2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	util_utf8_trim(line);
	log_escape(line, esc, sizeof(esc));
	if (log_ctx[0] != '\0')
		fprintf(stderr, "%s: %s: %s: %s\n", log_prog, level, log_ctx, esc);
	else
		fprintf(stderr, "%s: %s: %s\n", log_prog, level, esc);
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
