/*
 * libname.c: a question without the words that name the library it is asked of
 * (libname_strip). "argo cd list applications endpoint", asked of Argo CD's API, says
 * "argo cd" to name the product, not to ask for the few sections that happen to say
 * "Argo CD": those rare words would outweigh the rest of the question. So a word of the
 * question whose every part is a word of the library's name (the name part of its id,
 * "/owner/name", and its title) and rare in the library is left out of the lexical question; what the
 * question asks stays. A name word the library says often ("agent" in the docs of
 * "1MCP Agent") is a topic of its own and stays.
 */
#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "search/libname.h"

#define LIBNAME_MIN	2	/* shorter parts neither name nor count */
#define LIBNAME_MAX	512	/* bytes of the name part of an id kept */

/* 1 when the n bytes at w are, case aside, one of the alphanumeric words of name. */
static int
libname_in(const char *name, const char *w, size_t n)
{
	const char	*p = name, *s;

	while (*p != '\0') {
		while (*p != '\0' && !isalnum((unsigned char)*p))
			p++;
		for (s = p; isalnum((unsigned char)*p); p++)
			;
		if ((size_t)(p - s) == n && strncasecmp(s, w, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * 1 when the question word w (n bytes, no blank) names the library: it has a part of at
 * least LIBNAME_MIN letters or digits, not all digits, and each such part is a word of
 * the id's name or of the title ("Argo-CD's": argo, cd) that rare() finds rare,
 * or a word of always.
 */
static int
libname_word(const char *seg, const char *title, const char *always, const char *w,
    size_t n, int (*rare)(const char *, size_t, void *), void *arg)
{
	size_t	 i = 0, s, k;
	int	 named = 0, digits;

	while (i < n) {
		while (i < n && !isalnum((unsigned char)w[i]))
			i++;
		for (s = i, digits = 1; i < n && isalnum((unsigned char)w[i]); i++)
			digits &= isdigit((unsigned char)w[i]) != 0;
		k = i - s;
		if (k < LIBNAME_MIN || digits)
			continue;
		if (always != NULL && libname_in(always, w + s, k)) {
			named = 1;
			continue;
		}
		if ((!libname_in(seg, w + s, k) && !libname_in(title, w + s, k)) ||
		    (rare != NULL && !rare(w + s, k, arg)))
			return 0;
		named = 1;
	}
	return named;
}

int
libname_strip(const char *id, const char *title, const char *always, const char *question,
    int (*rare)(const char *, size_t, void *), void *arg, struct buf *out)
{
	const char	*seg, *p, *w;
	char		 name[LIBNAME_MAX];
	int		 kept = 0, dropped = 0;

	buf_reset(out);
	/* the name of "/owner/name[/version]" */
	seg = id != NULL ? id : "";
	if (*seg == '/' && (p = strchr(seg + 1, '/')) != NULL)
		seg = p + 1;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(seg, "/"), seg);
	if (title == NULL)
		title = "";
	for (p = question; *p != '\0';) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		for (w = p; *p != '\0' && !isspace((unsigned char)*p); p++)
			;
		if (libname_word(name, title, always, w, (size_t)(p - w), rare, arg)) {
			dropped = 1;
			continue;
		}
		if ((out->len > 0 && buf_addc(out, ' ') == -1) ||
		    buf_add(out, w, (size_t)(p - w)) == -1)
			return -1;
		while (w < p && !isalnum((unsigned char)*w))
			w++;
		kept |= w < p;
	}
	if (!dropped || !kept) {
		buf_reset(out);
		return 0;
	}
	return 1;
}
