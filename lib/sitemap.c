/* sitemap.c: sitemaps for the crawler (sitemap.h). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "ctxd.h"
#include "sitemap.h"

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

/* Adds the trimmed text of a <loc> element. 0, or -1 out of memory. */
static int
sitemap_add(struct sitemap *s, xmlNode *loc, size_t *cap)
{
	xmlChar		*t = xmlNodeGetContent(loc);
	const char	*p;
	size_t		 n;
	char		**v;
	int		 rc = -1;

	if (t == NULL)
		return 0;
	for (p = (const char *)t; isspace((unsigned char)*p); p++)
		;
	for (n = strlen(p); n > 0 && isspace((unsigned char)p[n - 1]); n--)
		;
	if (n == 0 || s->n >= SITEMAP_MAX_URLS) {
		rc = 0;
		goto out;
	}
	if (s->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((v = reallocarray(s->locs, *cap, sizeof(*v))) == NULL)
			goto out;
		s->locs = v;
	}
	if ((s->locs[s->n] = strndup(p, n)) == NULL)
		goto out;
	s->n++;
	rc = 0;
out:
	xmlFree(t);
	return rc;
}

static int
sitemap_is(const xmlNode *n, const char *name)
{
	return n != NULL && n->type == XML_ELEMENT_NODE &&
	    strcmp((const char *)n->name, name) == 0;
}

int
sitemap_parse(const char *data, size_t len, struct sitemap *out)
{
	struct buf	 plain;
	xmlDoc		*doc = NULL;
	xmlNode		*root, *e, *c;
	const char	*item;
	size_t		 cap = 0;
	int		 rc = -1;

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
	doc = xmlReadMemory(data, (int)len, "sitemap.xml", NULL, XML_PARSE_NONET |
	    XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	if (doc == NULL || (root = xmlDocGetRootElement(doc)) == NULL)
		goto out;
	if (sitemap_is(root, "urlset"))
		item = "url";
	else if (sitemap_is(root, "sitemapindex")) {
		item = "sitemap";
		out->is_index = 1;
	} else
		goto out;
	/* <urlset><url><loc>: two levels, no recursion */
	for (e = root->children; e != NULL; e = e->next) {
		if (!sitemap_is(e, item))
			continue;
		for (c = e->children; c != NULL; c = c->next)
			if (sitemap_is(c, "loc")) {
				if (sitemap_add(out, c, &cap) == -1)
					goto out;
				break;
			}
	}
	rc = 0;
out:
	xmlFreeDoc(doc);
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
