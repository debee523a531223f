/*
 * links.h: the links of a fetched page, for the website crawler. From HTML (libxml2's
 * HTML parser, recovering, no network): every a[href], the first <base href>, the first
 * <link rel=canonical href>, and <meta name=robots> noindex / nofollow ("none" is both).
 * From Markdown: the targets of inline links "[text](target)" and autolinks "<http...>".
 * The hrefs are kept as written (resolving them is the caller's), at most LINKS_MAX of
 * them, each at most LINKS_MAX_HREF bytes (longer ones are dropped). Linear in the page.
 * And the frontier: the bounded queue of the URLs still to fetch.
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

/*
 * The crawler's frontier: the queue of URLs met but not yet fetched, first in first out,
 * bounded by a number of URLs and by the bytes of their text. A URL that does not fit is
 * dropped and counted (dropped); the caller decides what to tell. Memory stays within
 * about max_items entries whatever the number of pushes (the array is compacted).
 */
struct frontier_item {
	char	*url;
	int	 depth;
	int	 start;		/* the start URL, or where it redirected to */
};

struct frontier {
	struct frontier_item *v;
	size_t	 head, n, cap;	/* the queue is v[head .. n) */
	size_t	 max_items, max_bytes, bytes;
	size_t	 dropped;	/* URLs refused: the queue was full */
};

void	 frontier_init(struct frontier *, size_t max_items, size_t max_bytes);
/* 1 queued (url copied), 0 dropped (full), -1 out of memory. */
int	 frontier_push(struct frontier *, const char *url, int depth, int start);
/* 1 with *out (its url the caller's to free), 0 when empty. */
int	 frontier_pop(struct frontier *, struct frontier_item *out);
/* URLs queued. */
size_t	 frontier_len(const struct frontier *);
void	 frontier_release(struct frontier *);

#endif /* LINKS_H */
