/*
 * sitemap.h: a sitemap (sitemaps.org: <urlset><url><loc>, or a <sitemapindex> of
 * <sitemap><loc>; plain or gzip-compressed, as sitemap.xml.gz) read with libxml2 (and
 * libarchive for gzip) for the website crawler: no network, no entity expansion, at most
 * SITEMAP_MAX_BYTES read or inflated, read as a stream (memory does not grow with its
 * elements), at most SITEMAP_MAX_URLS locations kept, of at most SITEMAP_MAX_LOC bytes
 * each and SITEMAP_MAX_LOC_BYTES in all (the rest are left out).
 */
#ifndef SITEMAP_H
#define SITEMAP_H

#include <stddef.h>

#define SITEMAP_MAX_URLS	50000
#define SITEMAP_MAX_BYTES	(16L * 1024 * 1024)
#define SITEMAP_MAX_LOC		2048
#define SITEMAP_MAX_LOC_BYTES	(8L * 1024 * 1024)

struct sitemap {
	char	**locs;		/* the <loc> texts, trimmed */
	size_t	  n;
	int	  is_index;	/* a sitemap index: locs are sitemaps */
};

/* 0 with *out filled (sitemap_release frees it), -1 when data is not a sitemap. */
int	 sitemap_parse(const char *data, size_t len, struct sitemap *out);
void	 sitemap_release(struct sitemap *);

#endif /* SITEMAP_H */
