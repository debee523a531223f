/* log.h: the log (stderr or syslog), one line an event, secrets never written. */
#ifndef LOG_H
#define LOG_H

#include <stddef.h>

void	 log_init(const char *prog);
/*
 * Sets the context of the following records ("job 12", "request ID"; NULL or "" clears
 * it), escaped and cut at 79 bytes; log_context returns it ("" when none).
 */
void	 log_set_context(const char *ctx);
const char *log_context(void);
void	 log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 log_err(const char *, ...) __attribute__((format(printf, 1, 2)));
/*
 * Copies s into out (outsz bytes, cut at a character boundary) with its control
 * characters escaped: newline, CR and tab as \n \r \t, other C0 controls and DEL as \xNN,
 * C1 controls as \u00NN, and a backslash doubled (so an escape and the same characters
 * written by an outsider differ). The log writers (log_*, jobs_log) use it: one record,
 * one line. Escape a text once: escaping an escaped text doubles its backslashes.
 */
void	 log_escape(const char *s, char *out, size_t outsz);

#endif /* LOG_H */
