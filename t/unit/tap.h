/* tap.h: a minimal TAP producer for the C unit tests (header-only). */
#ifndef TAP_H
#define TAP_H

#include <stdio.h>
#include <stdarg.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) tap_is_int((long)(got), (long)(want), __FILE__, __LINE__, __VA_ARGS__)

static int
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list	 ap;

	tap_n++;
	printf("%s %d - ", pass ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

static int __attribute__((unused))
tap_is_str(const char *got, const char *want, const char *file, int line,
    const char *name, ...)
{
	int	 pass = got != NULL && want != NULL && strcmp(got, want) == 0;

	tap_ok(pass, file, line, "%s", name);
	if (!pass)
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
		    want ? want : "(null)");
	return pass;
}

static int __attribute__((unused))
tap_is_int(long got, long want, const char *file, int line, const char *name, ...)
{
	int	 pass = got == want;

	tap_ok(pass, file, line, "%s", name);
	if (!pass)
		printf("#   got:  %ld\n#   want: %ld\n", got, want);
	return pass;
}

/* Call last: prints the plan and returns the exit status. */
static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
