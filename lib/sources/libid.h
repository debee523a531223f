/*
 * libid.h: the one normal form of a library id as clients send it, made once before any
 * lookup, policy, cache or upstream decision (GET /api/v2/context, the MCP tools, the
 * upstream's search results, POST /api/policies/try).
 *
 * An id is /owner/name, optionally with a version: /owner/name/version and
 * /owner/name@version are the same id. It is refused ("is a malformed library id: ...")
 * when it has whitespace at its start or end (after URL-decoding; ASCII blanks and the
 * Unicode spaces), does not start with '/', has no name, an empty, "." or ".." segment
 * (also as the version), a control character, an owner or name with a character other
 * than ASCII letters, digits, '-', '_' and '.', or a version with a blank or a byte that
 * is not printable ASCII.
 *
 * The normal form is "/owner/name" or "/owner/name/version" ('@' becomes '/', an empty
 * "@" version is dropped). Owner and name are compared without regard to ASCII case, as
 * the hosted API does; a version keeps its case (git tags and branches differ by case):
 *   key	owner and name in lower case: what the policies match (they also ignore the
 *		case of the version), the upstream is asked and its answers are cached by;
 *   id		the case as sent: a local library is found by it exactly first, else by
 *		owner and name in any case with the version exact (search.c).
 */
#ifndef LIBID_H
#define LIBID_H

#include <stddef.h>

struct libid {
	char	*id;		/* the normal form, owner and name as sent */
	char	*key;		/* the normal form, owner and name in lower case */
	size_t	 baselen;	/* bytes of "/owner/name" in both */
	int	 versioned;	/* 1: "/version" follows at baselen */
};

/*
 * Normalises in into l (libid_release frees it): 0; -1 when in is not a library id, with
 * err saying why ("is a malformed library id: ..."); -2 out of memory.
 */
int	 libid_normalize(const char *in, struct libid *l, char *err, size_t errsz);
void	 libid_release(struct libid *);
/* The same rules as a validate.h check: 0, or -1 with err. */
int	 libid_check(const char *in, char *err, size_t errsz);
/* 1 when s..s+n is usable as one segment of an id (owner, name, version), else 0. */
int	 libid_valid_segment(const char *s, size_t n);
/*
 * The id of a git repository URL (the last two path segments, a ".git" dropped) and its
 * host[:port] in host: 0, or -1 with err naming the field 'repoUrl'.
 */
int	 libid_from_url(const char *url, char *id, size_t idsz, char *host, size_t hostsz,
	    char *err, size_t errsz);

/*
 * The id parts of the source types (sources/entry.h): libid_part appends to out (size sz,
 * NUL-terminated) the id form of s..s+n: letters and digits lowercased, every run of
 * other characters one '_', at most LIBID_PART_MAX characters in all; libid_part_trim
 * drops the trailing '_' (-1 when nothing is left). libid_of_url writes prefix and the id
 * form of host and the first n bytes of path into id (-1 with err when nothing is left).
 * libid_basename: the last segment of a path.
 */
#define LIBID_PART_MAX	120
void	 libid_part(char *out, size_t sz, const char *s, size_t n);
int	 libid_part_trim(char *s);
/*
 * libid_of_url drops from a new id a default port (":80", ":443") and every word (a run
 * with a letter) that repeats the type's word (prefix "/openapi/": openapi) or a word
 * before it; legacy (legacysz bytes) gets the id of the rules before, "" when the same.
 */
int	 libid_of_url(char *id, size_t idsz, char *legacy, size_t legacysz,
	    const char *prefix, const char *host,
	    const char *path, size_t n, char *err, size_t errsz);
const char *libid_basename(const char *path);

#endif
