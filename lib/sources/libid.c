/* libid.c: the normal form of a library id (see libid.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/url.h"
#include "sources/libid.h"

/* The Unicode spaces in UTF-8 (besides the ASCII blanks), refused around an id. */
static const char *const libid_spaces[] = {
	"\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x81",
	"\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84", "\xe2\x80\x85", "\xe2\x80\x86",
	"\xe2\x80\x87", "\xe2\x80\x88", "\xe2\x80\x89", "\xe2\x80\x8a", "\xe2\x80\x8b",
	"\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80",
	"\xef\xbb\xbf",
};

/* The bytes of the whitespace character s..s+n starts with, 0 when none. */
static size_t
libid_space_len(const char *s, size_t n)
{
	size_t	 i, k;

	if (n > 0 && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
		return 1;
	for (i = 0; i < sizeof(libid_spaces) / sizeof(libid_spaces[0]); i++) {
		k = strlen(libid_spaces[i]);
		if (k <= n && memcmp(s, libid_spaces[i], k) == 0)
			return k;
	}
	return 0;
}

/* 1 when s (n bytes) starts or ends with whitespace. */
static int
libid_surrounded(const char *s, size_t n)
{
	size_t	 k;

	if (libid_space_len(s, n) > 0)
		return 1;
	for (k = 1; k <= 3 && k <= n; k++)
		if (libid_space_len(s + n - k, k) == k)
			return 1;
	return 0;
}

/* Why segment s (n bytes) of an owner or name, or of a version (version 1), is refused. */
static const char *
libid_bad_segment(const char *s, size_t n, int version)
{
	size_t	 i;
	unsigned char c;

	if (n == 0)
		return "it has an empty segment";
	if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return "it has a '.' or '..' segment";
	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (version ? c <= ' ' || c > '~' : !((c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		    c == '_' || c == '.'))
			return version ? "its version has a blank or a character that is "
			    "not printable ASCII" : "its owner or name has a character other "
			    "than ASCII letters, digits, '-', '_' and '.'";
	}
	return NULL;
}

/*
 * Checks in and finds its parts: the end of "/owner/name" (*baselen) and the version
 * (*ver, *verlen; *ver NULL for none). NULL, or why it is refused.
 */
static const char *
libid_parse(const char *in, size_t *baselen, const char **ver, size_t *verlen)
{
	const char	*owner, *name, *end, *p, *e, *why;
	size_t		 n = strlen(in);

	*ver = NULL;
	*verlen = 0;
	if (libid_surrounded(in, n))
		return "it has whitespace at its start or end (after URL-decoding); send "
		    "the id without it";
	for (p = in; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "it holds a control character";
	if (in[0] != '/')
		return "it does not start with '/'";
	owner = in + 1;
	if ((name = strchr(owner, '/')) == NULL)
		return *owner == '\0' ? "it has an empty segment" :
		    "it has no repository segment";
	if ((why = libid_bad_segment(owner, (size_t)(name - owner), 0)) != NULL)
		return why;
	name++;
	end = name + strcspn(name, "/@");
	if ((why = libid_bad_segment(name, (size_t)(end - name), 0)) != NULL)
		return why;
	*baselen = (size_t)(end - in);
	if (*end == '\0' || (*end == '@' && end[1] == '\0'))
		return NULL;
	*ver = end + 1;
	*verlen = strlen(*ver);
	for (p = *ver; ; p = e + 1) {
		e = p + strcspn(p, "/");
		if ((why = libid_bad_segment(p, (size_t)(e - p), 1)) != NULL)
			return why;
		if (*e == '\0')
			break;
	}
	return NULL;
}

static void
libid_error(char *err, size_t errsz, const char *why)
{
	snprintf(err, errsz, "is a malformed library id: %s (it must look like /owner/repo, "
	    "/owner/repo/version or /owner/repo@version)", why);
}

int
libid_check(const char *in, char *err, size_t errsz)
{
	const char	*why, *ver;
	size_t		 baselen, verlen;

	if ((why = libid_parse(in, &baselen, &ver, &verlen)) == NULL)
		return 0;
	libid_error(err, errsz, why);
	return -1;
}

int
libid_normalize(const char *in, struct libid *l, char *err, size_t errsz)
{
	const char	*why, *ver;
	size_t		 baselen = 0, verlen, n, i;

	memset(l, 0, sizeof(*l));
	if ((why = libid_parse(in, &baselen, &ver, &verlen)) != NULL) {
		libid_error(err, errsz, why);
		return -1;
	}
	n = baselen + (ver != NULL ? 1 + verlen : 0);
	if ((l->id = malloc(n + 1)) == NULL || (l->key = malloc(n + 1)) == NULL) {
		libid_release(l);
		snprintf(err, errsz, "out of memory");
		return -2;
	}
	memcpy(l->id, in, baselen);
	if (ver != NULL) {
		l->id[baselen] = '/';
		memcpy(l->id + baselen + 1, ver, verlen);
	}
	l->id[n] = '\0';
	memcpy(l->key, l->id, n + 1);
	for (i = 0; i < baselen; i++)
		if (l->key[i] >= 'A' && l->key[i] <= 'Z')
			l->key[i] = (char)(l->key[i] - 'A' + 'a');
	l->baselen = baselen;
	l->versioned = ver != NULL;
	return 0;
}

void
libid_release(struct libid *l)
{
	free(l->id);
	free(l->key);
	l->id = l->key = NULL;
}

/* See libid.h. */
int
libid_valid_segment(const char *s, size_t n)
{
	size_t	 i;

	if (n == 0 || n > 200 || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' &&
		    s[i] != '.')
			return 0;
	return 1;
}

/* See libid.h. */
int
libid_from_url(const char *url, char *id, size_t idsz, char *host, size_t hostsz,
    char *err, size_t errsz)
{
	struct url_parts u;
	const char	*seg[2] = { NULL, NULL }, *s, *e, *path;
	size_t		 seglen[2] = { 0, 0 };
	int		 rc = -1;

	if (url_parse(url, "repoUrl", &u, err, errsz) == -1)
		return -1;
	if (u.has_query || u.has_fragment) {
		snprintf(err, errsz, "field 'repoUrl' must not have a query or "
		    "fragment");
		goto out;
	}
	/* The last two non-empty path segments are the owner and the repository. */
	path = u.path;
	e = path + strlen(path);
	while (e > path && e[-1] == '/')
		e--;
	for (int k = 1; k >= 0; k--) {
		s = e;
		while (s > path && s[-1] != '/')
			s--;
		seg[k] = s;
		seglen[k] = (size_t)(e - s);
		e = s;
		while (e > path && e[-1] == '/')
			e--;
	}
	if (seglen[1] > 4 && strncmp(seg[1] + seglen[1] - 4, ".git", 4) == 0)
		seglen[1] -= 4;
	if (!libid_valid_segment(seg[0], seglen[0]) ||
	    !libid_valid_segment(seg[1], seglen[1])) {
		snprintf(err, errsz, "field 'repoUrl' must end in /owner/repo "
		    "(letters, digits, '.', '-', '_')");
		goto out;
	}
	if ((size_t)snprintf(id, idsz, "/%.*s/%.*s", (int)seglen[0], seg[0],
	    (int)seglen[1], seg[1]) >= idsz ||
	    (size_t)snprintf(host, hostsz, "%s", u.host) >= hostsz) {
		snprintf(err, errsz, "field 'repoUrl' is too long");
		goto out;
	}
	rc = 0;
out:
	url_release(&u);
	return rc;
}

/* See libid.h. */
void
libid_part(char *out, size_t sz, const char *s, size_t n)
{
	size_t	 len = strlen(out), i;

	for (i = 0; i < n && len + 1 < sz && len < LIBID_PART_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isalnum(c))
			out[len++] = (char)tolower(c);
		else if (len > 0 && out[len - 1] != '_')
			out[len++] = '_';
	}
	out[len] = '\0';
}

/* See libid.h. */
int
libid_part_trim(char *s)
{
	size_t	 n = strlen(s);

	while (n > 0 && s[n - 1] == '_')
		s[--n] = '\0';
	return n > 0 ? 0 : -1;
}

/* See libid.h. */
const char *
libid_basename(const char *path)
{
	const char	*s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* 1 when the word w (n bytes) is one of the '_'-separated words of list (len bytes). */
static int
libid_has_word(const char *list, size_t len, const char *w, size_t n)
{
	const char	*s, *e, *end = list + len;

	for (s = list; s < end; s = e + 1) {
		if ((e = memchr(s, '_', (size_t)(end - s))) == NULL)
			e = end;
		if ((size_t)(e - s) == n && memcmp(s, w, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * Drops from part (words separated by '_') each word with a letter that is the type's
 * word (type, tn bytes) or repeats a word before it.
 */
static void
libid_drop_repeats(char *part, const char *type, size_t tn)
{
	char	 out[LIBID_PART_MAX + 1];
	size_t	 len = 0, i, n;
	const char *s, *e;
	int	 alpha;

	for (s = part; *s != '\0'; s = *e != '\0' ? e + 1 : e) {
		e = s + strcspn(s, "_");
		n = (size_t)(e - s);
		for (alpha = 0, i = 0; i < n; i++)
			alpha |= isalpha((unsigned char)s[i]) != 0;
		if (n == 0 || (alpha && ((n == tn && memcmp(s, type, n) == 0) ||
		    libid_has_word(out, len, s, n))))
			continue;
		if (len > 0)
			out[len++] = '_';
		memcpy(out + len, s, n);
		len += n;
	}
	out[len] = '\0';
	if (len > 0)
		memcpy(part, out, len + 1);
}

/* See libid.h. */
int
libid_of_url(char *id, size_t idsz, char *legacy, size_t legacysz, const char *prefix,
    const char *host, const char *path, size_t n, char *err, size_t errsz)
{
	char		 part[LIBID_PART_MAX + 1] = "";
	const char	*type = prefix + strspn(prefix, "/");
	size_t		 hn = strlen(host), tn = strcspn(type, "/");

	libid_part(part, sizeof(part), host, hn);
	libid_part(part, sizeof(part), "_", 1);
	libid_part(part, sizeof(part), path, n);
	if (libid_part_trim(part) == -1) {
		snprintf(err, errsz, "no library id can be made from the URL");
		return -1;
	}
	snprintf(legacy, legacysz, "%s%s", prefix, part);
	/* a new id: no default port, no repeated word */
	if (hn > 3 && strcmp(host + hn - 3, ":80") == 0)
		hn -= 3;
	else if (hn > 4 && strcmp(host + hn - 4, ":443") == 0)
		hn -= 4;
	part[0] = '\0';
	libid_part(part, sizeof(part), host, hn);
	libid_part(part, sizeof(part), "_", 1);
	libid_part(part, sizeof(part), path, n);
	(void)libid_part_trim(part);
	libid_drop_repeats(part, type, tn);
	snprintf(id, idsz, "%s%s", prefix, part);
	if (strcmp(id, legacy) == 0)
		legacy[0] = '\0';
	return 0;
}
