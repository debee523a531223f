/*
 * links.h: the links of a fetched page, for the website crawler. From HTML (libxml2's
 * HTML parser, recovering, no network): every a[href], the first <base href>, the first
 * <link rel=canonical href>, and <meta name=robots> noindex / nofollow ("none" is both).
 * From Markdown: the targets of inline links "[text](target)" and autolinks "<http...>".
 * The hrefs are kept as written (resolving them is the caller's), at most LINKS_MAX of
 * them, each at most LINKS_MAX_HREF bytes (longer ones are dropped). Linear in the page.
 */
#ifndef LINKS_H
#define LINKS_H

#include <stddef.h>

#define LINKS_MAX	10000
#define LINKS_MAX_HREF	2048

struct links {
	char	**hrefs;
	size_t	  n, cap;
	char	 *base;		/* <base href>, else NULL */
	char	 *canonical;	/* <link rel=canonical href>, else NULL */
	int	  noindex, nofollow;
};

/* 0 with *out filled (links_release frees it), -1 out of memory or not parsed. */
int	 links_html(const char *data, size_t len, struct links *out);
int	 links_markdown(const char *data, size_t len, struct links *out);
void	 links_release(struct links *);

#endif /* LINKS_H */
