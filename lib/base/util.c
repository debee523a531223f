/* util.c: bounded parsing, files, clocks, encodings (see util.h). */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"

int
util_parse_long(const char *s, long min, long max, long *out)
{
	char	*end;
	long	 v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
util_read_file(const char *path, size_t max, char **out, size_t *outlen)
{
	struct buf	 b;
	char		 chunk[65536];
	ssize_t		 n;
	int		 fd;

	buf_init(&b);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || (size_t)n > max - b.len ||
		    buf_add(&b, chunk, (size_t)n) == -1) {
			if (n != -1)
				errno = EFBIG;
			close(fd);
			buf_release(&b);
			return -1;
		}
		if (n == 0)
			break;
	}
	close(fd);
	if (outlen != NULL)
		*outlen = b.len;
	*out = buf_detach(&b);
	return 0;
}

int
util_write_file(const char *path, const void *p, size_t n, mode_t mode)
{
	struct buf	 tmp;
	const char	*c = p;
	ssize_t		 w;
	int		 fd, rc = -1;

	buf_init(&tmp);
	if (buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid()) == -1)
		return -1;
	fd = open(tmp.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd == -1)
		goto out;
	while (n > 0) {
		w = write(fd, c, n);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			unlink(tmp.p);
			goto out;
		}
		c += w;
		n -= (size_t)w;
	}
	if (fsync(fd) == -1 || close(fd) == -1 || rename(tmp.p, path) == -1) {
		unlink(tmp.p);
		goto out;
	}
	rc = 0;
out:
	buf_release(&tmp);
	return rc;
}

int
util_fsync_path(const char *path)
{
	int	 fd, rc, err;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = fsync(fd);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

int
util_mkdir_p(const char *path, mode_t mode)
{
	char	*p, *s;
	int	 rc = 0;

	if ((p = strdup(path)) == NULL)
		return -1;
	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) == -1 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	return rc;
}

char *
util_path_join(const char *a, const char *b)
{
	struct buf	 r;

	buf_init(&r);
	if (buf_printf(&r, "%s/%s", a, b) == -1) {
		buf_release(&r);
		return NULL;
	}
	return buf_detach(&r);
}

long long
util_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
util_iso8601(time_t t, char *out, size_t outsz)
{
	struct tm	 tm;

	gmtime_r(&t, &tm);
	strftime(out, outsz, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *
util_b64url_encode(const unsigned char *p, size_t n)
{
	struct buf	 b;
	size_t		 i;
	uint32_t	 v;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	for (i = 0; i < n; i += 3) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		if (buf_addc(&b, b64url[(v >> 18) & 63]) == -1 ||
		    buf_addc(&b, b64url[(v >> 12) & 63]) == -1 ||
		    (i + 1 < n && buf_addc(&b, b64url[(v >> 6) & 63]) == -1) ||
		    (i + 2 < n && buf_addc(&b, b64url[v & 63]) == -1)) {
			buf_release(&b);
			return NULL;
		}
	}
	return buf_detach(&b);
}

static int
util_b64url_value(char c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(b64url, c)) == NULL)
		return -1;
	return (int)(p - b64url);
}

int
util_b64url_decode(const char *s, size_t n, unsigned char **out, size_t *outlen)
{
	unsigned char	*r;
	size_t		 i, o = 0;
	uint32_t	 acc = 0;
	int		 bits = 0, v;

	if (n % 4 == 1)
		return -1;
	if ((r = malloc(n * 3 / 4 + 1)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if ((v = util_b64url_value(s[i])) == -1) {
			free(r);
			return -1;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			r[o++] = (unsigned char)(acc >> bits);
		}
	}
	*out = r;
	*outlen = o;
	return 0;
}

void
util_hex(const unsigned char *p, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	size_t	 i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int
util_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
util_unhex(const char *s, unsigned char *out, size_t outlen)
{
	size_t	 i;
	int	 hi, lo;

	if (strlen(s) != 2 * outlen)
		return -1;
	for (i = 0; i < outlen; i++) {
		if ((hi = util_hexval(s[2 * i])) == -1 ||
		    (lo = util_hexval(s[2 * i + 1])) == -1)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

char *
util_exe_dir(void)
{
	char	 path[PATH_MAX];
	ssize_t	 n;
	char	*slash;

	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	if ((slash = strrchr(path, '/')) == NULL)
		return NULL;
	*slash = '\0';
	return strdup(path);
}

const char *
util_data_dir(void)
{
	const char	*d = getenv("DATA_DIR");

	return (d != NULL && *d != '\0') ? d : "/data";
}

int
util_str_endswith(const char *s, const char *suffix)
{
	size_t	 a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

void
util_utf8_trim(char *s)
{
	size_t	 n = strlen(s), i = n, need;
	unsigned char c;

	/* Back over continuation bytes (at most 3) to the character's first byte. */
	while (i > 0 && n - i < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0 || (c = (unsigned char)s[i - 1]) < 0xc0)
		return;
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

size_t
util_utf8_len(const unsigned char *p, size_t n)
{
	size_t	 len, i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((len == 3 && p[0] == 0xe0 && p[1] < 0xa0) ||	/* overlong */
	    (len == 3 && p[0] == 0xed && p[1] >= 0xa0) ||	/* surrogate */
	    (len == 4 && p[0] == 0xf0 && p[1] < 0x90) ||	/* overlong */
	    (len == 4 && p[0] == 0xf4 && p[1] >= 0x90))	/* past U+10FFFF */
		return 0;
	return len;
}

int
util_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t		 i = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = util_utf8_len(p + i, n - i)) == 0)
			return 0;
		i += k;
	}
	return 1;
}

char *
util_utf8_repair(const char *s, size_t n, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf	 b;
	size_t		 i = 0, k;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		goto fail;
	while (i < n) {
		if ((k = util_utf8_len(p + i, n - i)) == 0) {
			if (buf_add(&b, "\xef\xbf\xbd", 3) == -1)	/* U+FFFD */
				goto fail;
			i++;
			continue;
		}
		if (buf_add(&b, p + i, k) == -1)
			goto fail;
		i += k;
	}
	if (outlen != NULL)
		*outlen = b.len;
	return buf_detach(&b);
fail:
	buf_release(&b);
	return NULL;
}

void
util_utf8_scrub(char *s)
{
	unsigned char	*p = (unsigned char *)s, *e = p + strlen(s);
	size_t		 k;

	for (; p < e; p += k)
		if ((k = util_utf8_len(p, (size_t)(e - p))) == 0) {
			*p = '?';
			k = 1;
		}
}

int
util_host_split(const char *s, size_t len, char *name, size_t namesz, char *port,
    size_t portsz)
{
	const char	*e = s + len, *colon, *p;
	size_t		 n;
	int		 v6 = 0;

	if (len == 0)
		return -1;
	if (s[0] == '[') {			/* [v6]:port */
		v6 = 1;
		if ((p = memchr(s, ']', len)) == NULL)
			return -1;
		colon = p + 1 < e ? p + 1 : NULL;
		if (colon != NULL && *colon != ':')
			return -1;
		s++;
		n = (size_t)(p - s);
	} else {
		for (colon = NULL, p = s; p < e; p++)
			if (*p == ':')
				colon = p;
		n = (size_t)((colon != NULL ? colon : e) - s);
	}
	if (n > 0 && s[n - 1] == '.')		/* "localhost." is "localhost" */
		n--;
	if (n == 0 || n >= namesz)
		return -1;
	for (p = s; p < s + n; p++) {
		char	 c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ||
		    (c == ':' && v6)))
			return -1;
		name[p - s] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	name[n] = '\0';
	*port = '\0';
	if (colon != NULL) {
		n = (size_t)(e - colon - 1);
		if (n == 0 || n > 5 || n >= portsz ||
		    strspn(colon + 1, "0123456789") < n)
			return -1;
		memcpy(port, colon + 1, n);
		port[n] = '\0';
	}
	return 0;
}

int
util_str_in(const char *const *list, const char *s)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}
