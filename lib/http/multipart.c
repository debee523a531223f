/* multipart.c: multipart/form-data bodies (multipart.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http/multipart.h"

#define MULTIPART_BOUNDARY_MAX	70
#define MULTIPART_HEADERS_MAX	4096	/* bytes of one part's header block */

/* The boundary parameter of a multipart/form-data Content-Type into out; -1 if none. */
static int
multipart_boundary(const char *ct, char *out, size_t sz)
{
	const char	*p;
	size_t		 n;

	if (ct == NULL || strncasecmp(ct, "multipart/form-data", 19) != 0)
		return -1;
	for (p = ct + 19; (p = strchr(p, ';')) != NULL; ) {
		p++;
		p += strspn(p, " \t");
		if (strncasecmp(p, "boundary=", 9) != 0)
			continue;
		p += 9;
		if (*p == '"') {
			p++;
			n = strcspn(p, "\"");
			if (p[n] != '"')
				return -1;
		} else
			n = strcspn(p, "; \t");
		if (n < 1 || n > MULTIPART_BOUNDARY_MAX || n >= sz)
			return -1;
		memcpy(out, p, n);
		out[n] = '\0';
		return 0;
	}
	return -1;
}

/*
 * The value of parameter name (name="value") in a Content-Disposition line [s, e) into
 * out: 1 when found, 0 when not, -1 when too long or malformed.
 */
static int
multipart_param(const char *s, const char *e, const char *name, char *out, size_t sz)
{
	size_t		 nl = strlen(name), n;
	const char	*p, *q;

	for (p = s; p < e; p++) {
		if (p != s && p[-1] != ' ' && p[-1] != ';' && p[-1] != '\t')
			continue;
		if ((size_t)(e - p) <= nl + 1 || strncasecmp(p, name, nl) != 0 ||
		    p[nl] != '=')
			continue;
		p += nl + 1;
		if (*p != '"')
			return -1;
		p++;
		for (q = p; q < e && *q != '"'; q++)
			if ((unsigned char)*q < 0x20)
				return -1;
		if (q >= e || (n = (size_t)(q - p)) >= sz)
			return -1;
		memcpy(out, p, n);
		out[n] = '\0';
		return 1;
	}
	return 0;
}

/* Reads one part's header block [s, e) into part; -1 with err. */
static int
multipart_headers(const char *s, const char *e, struct multipart_part *part, char *err,
    size_t errsz)
{
	const char	*l, *le;
	int		 disp = 0;
	size_t		 n;

	for (l = s; l < e; l = le + 2) {
		if ((le = memchr(l, '\r', (size_t)(e - l))) == NULL)
			le = e;
		if (le < e && le[1] != '\n') {
			snprintf(err, errsz, "the multipart body has a bare CR in a part's "
			    "headers");
			return -1;
		}
		if ((size_t)(le - l) > 20 && strncasecmp(l, "Content-Disposition:", 20) == 0) {
			const char *v = l + 20 + strspn(l + 20, " \t");

			if ((size_t)(le - v) < 9 || strncasecmp(v, "form-data", 9) != 0 ||
			    multipart_param(v, le, "name", part->name,
			    sizeof(part->name)) != 1 ||
			    multipart_param(v, le, "filename", part->filename,
			    sizeof(part->filename)) == -1) {
				snprintf(err, errsz, "the multipart body has a part whose "
				    "Content-Disposition is not form-data with a name");
				return -1;
			}
			disp = 1;
		} else if ((size_t)(le - l) > 13 &&
		    strncasecmp(l, "Content-Type:", 13) == 0) {
			const char *v = l + 13 + strspn(l + 13, " \t");

			n = (size_t)(le - v);
			if (n >= sizeof(part->type))
				n = sizeof(part->type) - 1;
			memcpy(part->type, v, n);
			part->type[n] = '\0';
		}
		if (le == e)
			break;
	}
	if (!disp) {
		snprintf(err, errsz, "the multipart body has a part without a "
		    "Content-Disposition");
		return -1;
	}
	return 0;
}

int
multipart_parse(const char *content_type, const char *body, size_t len,
    struct multipart_part *parts, size_t *n, char *err, size_t errsz)
{
	char		 b[MULTIPART_BOUNDARY_MAX + 1], delim[MULTIPART_BOUNDARY_MAX + 5];
	const char	*p, *end = body + len, *h, *next;
	size_t		 dl;

	*n = 0;
	if (multipart_boundary(content_type, b, sizeof(b)) == -1) {
		snprintf(err, errsz, "Content-Type must be multipart/form-data with a "
		    "boundary of 1 to 70 characters");
		return -1;
	}
	dl = (size_t)snprintf(delim, sizeof(delim), "\r\n--%s", b);
	/* The first delimiter may open the body (no CRLF before it) or end a preamble. */
	if (len >= dl - 2 && memcmp(body, delim + 2, dl - 2) == 0)
		p = body + dl - 2;
	else if ((p = memmem(body, len, delim, dl)) != NULL)
		p += dl;
	else
		goto malformed;
	for (;;) {
		if (end - p >= 2 && p[0] == '-' && p[1] == '-')
			return 0;
		if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
			goto malformed;
		p += 2;
		if (*n == MULTIPART_MAX_PARTS) {
			snprintf(err, errsz, "the multipart body has more than %d parts",
			    MULTIPART_MAX_PARTS);
			return -1;
		}
		h = memmem(p, (size_t)(end - p) < MULTIPART_HEADERS_MAX ? (size_t)(end - p) :
		    MULTIPART_HEADERS_MAX, "\r\n\r\n", 4);
		if (h == NULL)
			goto malformed;
		memset(&parts[*n], 0, sizeof(parts[*n]));
		if (multipart_headers(p, h, &parts[*n], err, errsz) == -1)
			return -1;
		p = h + 4;
		if ((next = memmem(p, (size_t)(end - p), delim, dl)) == NULL)
			goto malformed;
		parts[*n].data = p;
		parts[*n].len = (size_t)(next - p);
		(*n)++;
		p = next + dl;
	}
malformed:
	snprintf(err, errsz, "the multipart body is malformed (a boundary, a part's "
	    "headers or its end is missing)");
	return -1;
}

const struct multipart_part *
multipart_find(const struct multipart_part *parts, size_t n, const char *name)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(parts[i].name, name) == 0)
			return &parts[i];
	return NULL;
}
