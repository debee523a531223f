/*
 * multipart.h: a multipart/form-data request body (RFC 7578) split into its parts, for
 * uploads (POST /api/parse-openapi-upload). The parts point into the body; nothing is
 * copied. Strict: a boundary of 1..70 characters, CRLF line ends, a Content-Disposition of
 * form-data with a name on every part, at most MULTIPART_MAX_PARTS parts.
 */
#ifndef MULTIPART_H
#define MULTIPART_H

#include <stddef.h>

#define MULTIPART_MAX_PARTS	16

struct multipart_part {
	char		 name[64];	/* the form field's name */
	char		 filename[256];	/* "" when the part is not a file */
	char		 type[128];	/* its Content-Type, "" when none */
	const char	*data;
	size_t		 len;
};

/*
 * Splits body (len bytes) sent with content_type into parts[0..*n). 0, or -1 with the
 * reason in err ("the multipart body ...").
 */
int	 multipart_parse(const char *content_type, const char *body, size_t len,
	    struct multipart_part *parts, size_t *n, char *err, size_t errsz);
/* The part named name, or NULL. */
const struct multipart_part *multipart_find(const struct multipart_part *, size_t n,
	    const char *name);

#endif /* MULTIPART_H */
