/*
 * util.h: bounded parsing, files, clocks and encodings. Self-contained (needs only buf.c):
 * used by the server library and by the client tool ctxd.
 */
#ifndef UTIL_H
#define UTIL_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

/* Parses a whole decimal string into [min, max]; -1 on junk, overflow or range. */
int	 util_parse_long(const char *, long min, long max, long *out);
/* Reads a whole file of at most max bytes; *out NUL-terminated, caller frees. */
int	 util_read_file(const char *path, size_t max, char **out, size_t *outlen);
/* Writes via a temporary file + rename, with the given mode. */
int	 util_write_file(const char *path, const void *, size_t, mode_t);
int	 util_mkdir_p(const char *path, mode_t);
/*
 * fsync of the file or folder at path (a folder: after a rename into it, so that the new
 * name survives a crash). 0, or -1 with errno.
 */
int	 util_fsync_path(const char *path);
/* Returns "a/b" (malloc'd). */
char	*util_path_join(const char *, const char *);
/* ISO 8601 UTC "YYYY-MM-DDTHH:MM:SSZ" into out (>= 21 bytes). */
void	 util_iso8601(time_t, char *out, size_t outsz);
/* Milliseconds of the monotonic clock (for deadlines and durations). */
long long util_now_ms(void);
/* Base64url without padding; returns malloc'd string / decoded bytes. */
char	*util_b64url_encode(const unsigned char *, size_t);
int	 util_b64url_decode(const char *, size_t, unsigned char **out, size_t *outlen);
void	 util_hex(const unsigned char *, size_t, char *out);	/* out: 2n+1 */
int	 util_unhex(const char *, unsigned char *out, size_t outlen);
/* Value of one hex digit, -1 if c is none. */
int	 util_hexval(char c);
/* Directory holding the running executable (malloc'd), for finding siblings. */
char	*util_exe_dir(void);
/* Data folder: $DATA_DIR or the default "/data". Never NULL. */
const char *util_data_dir(void);
int	 util_str_endswith(const char *, const char *);
/* 1 when s is one of the NULL-terminated list (NULL: an empty list), else 0. */
int	 util_str_in(const char *const *list, const char *s);
/* Drops an incomplete UTF-8 character that a bounded copy left at the end of s. */
void	 util_utf8_trim(char *);
/*
 * Length in bytes of the one well-formed UTF-8 character at p (n bytes there), or 0 when
 * they are not one: a stray continuation byte, a cut sequence, an overlong form, a
 * surrogate or a value past U+10FFFF.
 */
size_t	 util_utf8_len(const unsigned char *p, size_t n);
/* 1 when the n bytes at s are all well-formed UTF-8, else 0. */
int	 util_utf8_valid(const char *s, size_t n);
/*
 * A copy of the n bytes at s (malloc'd, NUL-terminated, its length in *outlen when not
 * NULL) with each byte that does not start a well-formed UTF-8 character replaced by
 * U+FFFD; NULL when out of memory.
 */
char	*util_utf8_repair(const char *s, size_t n, size_t *outlen);
/*
 * Makes s valid UTF-8 in place, its length unchanged: each byte that does not start a
 * well-formed character becomes '?'. For text that echoes input (an error message), so
 * that an answer holding it is valid UTF-8 whatever the client sent.
 */
void	 util_utf8_scrub(char *s);

/*
 * Splits host[:port] of len bytes ("[v6]:port" too) into name (lowercase, without
 * brackets and a trailing dot) and port ("" when none). -1 when malformed or too long.
 */
int	 util_host_split(const char *s, size_t len, char *name, size_t namesz, char *port,
	    size_t portsz);

#endif
