/*
 * http-helpers.h: the request side of the small HTTP servers that unit tests fork on
 * 127.0.0.1 (test-aws, test-fetch). Header-only; include after <string.h>, <strings.h>,
 * <stdio.h> and <unistd.h>.
 */
#ifndef HTTP_HELPERS_H
#define HTTP_HELPERS_H

/* Reads a request's head (up to the blank line) into req (NUL-terminated). */
static void
req_read(int fd, char *req, size_t sz)
{
	size_t	 len = 0;
	ssize_t	 r;

	while (len < sz - 1) {
		if ((r = read(fd, req + len, sz - 1 - len)) <= 0)
			break;
		len += (size_t)r;
		req[len] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL)
			break;
	}
	req[len] = '\0';
}

/* The value of header name in a raw request (copied into out), or NULL. */
static const char *
req_header(const char *req, const char *name, char *out, size_t outsz)
{
	const char	*p = strstr(req, "\r\n"), *e;
	size_t		 n = strlen(name);

	while (p != NULL && p[2] != '\r') {
		p += 2;
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			e = strstr(p, "\r\n");
			snprintf(out, outsz, "%.*s", (int)(e != NULL ? e - p : 0), p);
			return out;
		}
		p = strstr(p, "\r\n");
	}
	return NULL;
}

#endif
