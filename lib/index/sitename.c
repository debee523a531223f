/* sitename.c: a website's name from its pages' titles. Contract in sitename.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "index/sitename.h"

#define SITENAME_MAX	200
#define SITENAME_PAGES	100	/* titles looked at */

static const char *const sitename_seps[] = {
	" - ", " | ", " \xe2\x80\x94 ", " \xe2\x80\x93 ", " \xc2\xb7 ", " :: ", NULL
};

/* The part of title t after its last separator, NULL when it has none. */
static const char *
sitename_tail(const char *t)
{
	const char	*best = NULL, *p;
	size_t		 i;

	for (i = 0; sitename_seps[i] != NULL; i++)
		for (p = t; (p = strstr(p, sitename_seps[i])) != NULL; p++)
			if (best == NULL || p + strlen(sitename_seps[i]) > best)
				best = p + strlen(sitename_seps[i]);
	return best != NULL && *best != '\0' ? best : NULL;
}

/* A trimmed copy of s, NULL when blank. */
static char *
sitename_copy(const char *s)
{
	char	*r;
	size_t	 n;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if ((r = strndup(s, SITENAME_MAX)) == NULL)
		return NULL;
	util_utf8_trim(r);
	for (n = strlen(r); n > 0 && strchr(" \t\r\n", r[n - 1]) != NULL; n--)
		r[n - 1] = '\0';
	for (n = 0; r[n] != '\0'; n++)
		if (r[n] == '\n' || r[n] == '\r' || r[n] == '\t')
			r[n] = ' ';
	if (*r == '\0') {
		free(r);
		return NULL;
	}
	return r;
}

char *
sitename_of(const char *const *titles, size_t n)
{
	const char	*tail, *t, *best = NULL;
	size_t		 i, j, count, bestcount = 0, some = 0;

	if (n > SITENAME_PAGES)		/* the first pages tell */
		n = SITENAME_PAGES;
	for (i = 0; i < n; i++)
		some += titles[i] != NULL;
	for (i = 0; i < n; i++) {
		if (titles[i] == NULL || (tail = sitename_tail(titles[i])) == NULL)
			continue;
		for (count = 0, j = 0; j < n; j++)
			if (titles[j] != NULL && (strcmp(titles[j], tail) == 0 ||
			    ((t = sitename_tail(titles[j])) != NULL && strcmp(t, tail) == 0)))
				count++;
		if (count > bestcount) {
			bestcount = count;
			best = tail;
		}
	}
	if (best != NULL && bestcount >= 2 && bestcount * 2 >= some)
		return sitename_copy(best);
	return n > 0 && titles[0] != NULL ? sitename_copy(titles[0]) : NULL;
}
