/*
 * store-trace.h: what the both-engine store tests (t/unit/test-store-*.c) share: tap.h's
 * is_int and is_str with a formatted name (eq_int, eq_str), and the trace of each engine's
 * answers, a line per answer (tr into cur: trace[0] for SQLite, trace[1] for PostgreSQL),
 * which must come out alike. Include after tap.h; one test program each (static storage).
 */
#ifndef STORE_TRACE_H
#define STORE_TRACE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define eq_int(got, want, ...) do {						\
	long long g_ = (got), w_ = (want);					\
	if (!ok(g_ == w_, __VA_ARGS__))						\
		printf("#   got:  %lld\n#   want: %lld\n", g_, w_);		\
} while (0)
#define eq_str(got, want, ...) do {						\
	const char *g_ = (got), *w_ = (want);					\
	if (!ok(g_ != NULL && strcmp(g_, w_) == 0, __VA_ARGS__))		\
		printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", w_);	\
} while (0)

/* What each engine answered; a line past the buffer's end is dropped. */
static char	 trace[2][65536];
static char	*cur;

static void tr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
tr(const char *fmt, ...)
{
	size_t	 len = strlen(cur);
	va_list	 ap;

	if (len + 2 >= sizeof(trace[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(cur + len, sizeof(trace[0]) - len - 1, fmt, ap);
	va_end(ap);
	len = strlen(cur);
	cur[len] = '\n';
	cur[len + 1] = '\0';
}

#endif
