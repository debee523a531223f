/* sitemap.c: sitemaps for the crawler (sitemap.h). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>

#include "base/buf.h"
#include "sources/sitemap.h"

/*
 * The inflated bytes of a gzip stream (sitemap.xml.gz) in *out, at most SITEMAP_MAX_BYTES
 * of them: a larger one (a decompression bomb too) is refused. 0, or -1 when data is not
 * whole gzip or inflates past the bound (*out released).
 */
static int
sitemap_gunzip(const char *data, size_t len, struct buf *out)
{
	struct archive	*a;
	struct archive_entry *e;
	char		 chunk[16384];
	la_ssize_t	 n;
	int		 rc = -1;

	buf_init(out);
	if ((a = archive_read_new()) == NULL)
		return -1;
	if (archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_format_raw(a) != ARCHIVE_OK ||
	    archive_read_open_memory(a, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK ||
	    archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP)
		goto out;
	while ((n = archive_read_data(a, chunk, sizeof(chunk))) > 0)
		if (out->len + (size_t)n > (size_t)SITEMAP_MAX_BYTES ||
		    buf_add(out, chunk, (size_t)n) == -1)
			goto out;
	if (n == 0)
		rc = 0;
out:
	archive_read_free(a);
	if (rc == -1)
		buf_release(out);
	return rc;
}

/*
 * Adds the trimmed text t of a <loc> element, unless it is empty, longer than
 * SITEMAP_MAX_LOC or the locations kept are at a bound. 0, or -1 out of memory.
 */
static int
sitemap_add(struct sitemap *s, const char *t, size_t *cap, size_t *bytes)
{
	const char	*p;
	size_t		 n;
	char		**v;

	for (p = t; isspace((unsigned char)*p); p++)
		;
	for (n = strlen(p); n > 0 && isspace((unsigned char)p[n - 1]); n--)
		;
	if (n == 0 || n > SITEMAP_MAX_LOC || s->n >= SITEMAP_MAX_URLS ||
	    *bytes + n + 1 > (size_t)SITEMAP_MAX_LOC_BYTES)
		return 0;
	if (s->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((v = reallocarray(s->locs, *cap, sizeof(*v))) == NULL)
			return -1;
		s->locs = v;
	}
	if ((s->locs[s->n] = strndup(p, n)) == NULL)
		return -1;
	s->n++;
	*bytes += n + 1;
	return 0;
}

/*
 * Read as a stream (libxml2's xmlTextReader): only the current <loc> is ever a tree, so
 * memory does not grow with the sitemap's elements.
 */
int
sitemap_parse(const char *data, size_t len, struct sitemap *out)
{
	struct buf	 plain;
	xmlTextReaderPtr r = NULL;
	const char	*item = NULL, *name;
	xmlChar		*t;
	size_t		 cap = 0, bytes = 0;
	int		 rc = -1, ret, depth, in_item = 0, got_loc = 0;

	memset(out, 0, sizeof(*out));
	buf_init(&plain);
	if (len > (size_t)SITEMAP_MAX_BYTES)
		return -1;
	if (len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
		if (sitemap_gunzip(data, len, &plain) == -1)
			return -1;
		data = plain.p != NULL ? plain.p : "";
		len = plain.len;
	}
	r = xmlReaderForMemory(data, (int)len, "sitemap.xml", NULL, XML_PARSE_NONET |
	    XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	if (r == NULL)
		goto out;
	/* <urlset><url><loc>: the first <loc> of each item, at depth 2 */
	while ((ret = xmlTextReaderRead(r)) == 1) {
		if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT ||
		    (name = (const char *)xmlTextReaderConstLocalName(r)) == NULL)
			continue;
		if ((depth = xmlTextReaderDepth(r)) == 0) {
			if (strcmp(name, "urlset") == 0)
				item = "url";
			else if (strcmp(name, "sitemapindex") == 0) {
				item = "sitemap";
				out->is_index = 1;
			} else
				goto out;
		} else if (depth == 1) {
			in_item = strcmp(name, item) == 0;
			got_loc = 0;
		} else if (depth == 2 && in_item && !got_loc && strcmp(name, "loc") == 0) {
			got_loc = 1;
			if ((t = xmlTextReaderReadString(r)) == NULL)
				continue;
			ret = sitemap_add(out, (const char *)t, &cap, &bytes);
			xmlFree(t);
			if (ret == -1)
				goto out;
		}
	}
	if (ret == 0 && item != NULL)
		rc = 0;
out:
	xmlFreeTextReader(r);
	buf_release(&plain);
	if (rc == -1)
		sitemap_release(out);
	return rc;
}

void
sitemap_release(struct sitemap *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		free(s->locs[i]);
	free(s->locs);
	memset(s, 0, sizeof(*s));
}
