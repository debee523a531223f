/* url.h: a source URL checked and split (libcurl's URL API). */
#ifndef URL_H
#define URL_H

#include <stddef.h>

/* A source URL's parts (url_parse). */
struct url_parts {
	char	*canon;		/* scheme://host[:port]/path[?query], fragment dropped */
	char	 host[256];	/* host[:port], lowercase */
	char	*path;		/* "/..." */
	int	 has_query, has_fragment;
};

/*
 * Checks a source URL given in field name: http or https, a host, no credentials; fills
 * *out (url_release frees it). 0, or -1 with an error naming the field in err.
 */
int	 url_parse(const char *url, const char *name, struct url_parts *out, char *err,
	    size_t errsz);
void	 url_release(struct url_parts *);

#endif /* URL_H */
