/*
 * test-crawl.c: the crawler's parsers: robots.txt (lib/sources/robots.c: the group of our agent,
 * merged groups, the "*" group as fallback, longest match, Allow winning a tie, '*' and
 * '$', Crawl-delay, Sitemap lines), sitemaps (lib/sources/sitemap.c: urlset, index, gzip, not a sitemap,
 * no entity expansion) and link extraction (lib/sources/links.c: a[href], base, canonical,
 * meta robots; Markdown links), and the frontier (lib/sources/links.c: bounded in URLs and in bytes,
 * what does not fit dropped and counted, first in first out, memory within its bound).
 */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sources/links.h"
#include "sources/robots.h"
#include "sources/sitemap.h"
#include "tap.h"

static int
allowed(const char *txt, const char *path)
{
	struct robots	 r;
	int		 a;

	if (robots_parse(txt, strlen(txt), "ctxd", &r) == -1)
		return -1;
	a = robots_allowed(&r, path);
	robots_release(&r);
	return a;
}

static void
test_robots(void)
{
	const char	*t = "# comment\n"
	    "User-agent: *\nDisallow: /\n\n"
	    "User-agent: other\nUser-agent: CTXD/1.0\nDisallow: /private  # no\n"
	    "Allow: /private/open\nDisallow: /*.pdf$\nCrawl-delay: 2.5\n"
	    "Sitemap: http://h.example/sitemap.xml\n"
	    "User-agent: ctxd\nDisallow: /tmp/\n";
	struct robots	 r;

	is_int(allowed(t, "/index.html"), 1, "robots: our group, not '*', applies");
	is_int(allowed(t, "/private/x"), 0, "robots: Disallow prefix");
	is_int(allowed(t, "/private/open/x"), 1, "robots: the longer Allow wins");
	is_int(allowed(t, "/a/b.pdf"), 0, "robots: '*' and '$'");
	is_int(allowed(t, "/a/b.pdf?x"), 1, "robots: '$' anchors the end");
	is_int(allowed(t, "/tmp/x"), 0, "robots: two groups of ours are merged");
	is_int(allowed(t, "/robots.txt"), 1, "robots: robots.txt itself is always allowed");
	ok(robots_parse(t, strlen(t), "ctxd", &r) == 0 && r.delay_ms == 2500 &&
	    r.nsitemaps == 1 && strcmp(r.sitemaps[0], "http://h.example/sitemap.xml") == 0,
	    "robots: Crawl-delay 2.5 s and the Sitemap line");
	robots_release(&r);
	is_int(allowed("User-agent: *\nDisallow: /x\n", "/x/y"), 0,
	    "robots: the '*' group when none names us");
	is_int(allowed("User-agent: ctxdbot\nDisallow: /\n", "/y"), 1,
	    "robots: another agent's group does not apply (whole token)");
	is_int(allowed("User-agent: ctxd\nDisallow: /a\nAllow: /a\n", "/a"), 1,
	    "robots: Allow wins a tie");
	is_int(allowed("User-agent: ctxd\nDisallow:\n", "/a"), 1,
	    "robots: an empty Disallow allows all");
	is_int(allowed("", "/a"), 1, "robots: an empty file allows all");
	/* found by fuzz-crawl: a NUL byte inside a rule read past the pattern's copy */
	ok(robots_parse("User-agent: ctxd\nDisallow: /a\0\0\0\0\0\0\0\0\0\0\0\0bc\n", 44,
	    "ctxd", &r) == 0 && r.n == 1 && r.rules[0].len == 2 &&
	    robots_allowed(&r, "/a/x") == 0, "robots: a NUL byte ends a rule's pattern");
	robots_release(&r);
	is_int(robots_match("/docs/*", 7, "/docs/a/b.html", 1), 1, "glob: '*' crosses '/'");
	is_int(robots_match("*.pdf", 5, "/docs/a.pdf.html", 1), 0, "glob: whole path");
	is_int(robots_match("/a*b*c", 6, "/aXbYbZc", 1), 1, "glob: pieces in order");
	is_int(robots_match("/a*b$", 5, "/ab", 0), 1, "robots: '*' may match nothing");
	is_int(robots_match("/a*b$", 5, "/abc", 0), 0, "robots: '$' after a '*'");
	is_int(robots_match("/a*bb$", 6, "/abbb", 0), 1, "robots: the last piece ends the path");
	is_int(robots_match("*", 1, "/x", 1), 1, "glob: '*' alone");
	is_int(robots_match("/x", 2, "/xy", 1), 0, "glob: no '*' is the whole path");
}

/* Gzip of len bytes of data into out (cap bytes): its size, 0 on failure. */
static size_t
gzip_of(const char *data, size_t len, char *out, size_t cap)
{
	struct archive	*a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t		 used = 0;
	int		 ok = a != NULL && e != NULL &&
	    archive_write_add_filter_gzip(a) == ARCHIVE_OK &&
	    archive_write_set_format_raw(a) == ARCHIVE_OK &&
	    archive_write_open_memory(a, out, cap, &used) == ARCHIVE_OK;

	archive_entry_set_pathname(e, "sitemap.xml");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)len);
	ok = ok && archive_write_header(a, e) == ARCHIVE_OK &&
	    archive_write_data(a, data, len) == (la_ssize_t)len &&
	    archive_write_close(a) == ARCHIVE_OK;
	archive_entry_free(e);
	archive_write_free(a);
	return ok ? used : 0;
}

/* sitemap.xml.gz: read as the plain one; cut, or inflating past the bound: refused. */
static void
test_sitemap_gzip(const char *set)
{
	static char	 gz[1 << 20];
	struct sitemap	 s;
	char		*big;
	size_t		 n, bign = (size_t)SITEMAP_MAX_BYTES + 1024;

	n = gzip_of(set, strlen(set), gz, sizeof(gz));
	ok(n > 2 && (unsigned char)gz[0] == 0x1f, "gzip of a urlset made (%zu bytes)", n);
	ok(sitemap_parse(gz, n, &s) == 0 && s.n == 2 && strcmp(s.locs[1], "http://h/b") == 0,
	    "sitemap.xml.gz: the locs of the urlset inside");
	sitemap_release(&s);
	ok(sitemap_parse(gz, n / 2, &s) == -1, "a cut gzip stream is not a sitemap");
	/* A urlset padded with blanks past SITEMAP_MAX_BYTES: a few KB compressed. */
	if ((big = malloc(bign)) == NULL)
		return;
	memset(big, ' ', bign);
	memcpy(big, set, strlen(set));
	n = gzip_of(big, bign, gz, sizeof(gz));
	ok(n > 0 && n < 100000, "a gzip bomb of %zu bytes made (%zu compressed)", bign, n);
	ok(sitemap_parse(gz, n, &s) == -1, "one that inflates past SITEMAP_MAX_BYTES: refused");
	free(big);
}

static void
test_sitemap(void)
{
	const char	*set = "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/"
	    "schemas/sitemap/0.9'><url><loc> http://h/a </loc><lastmod>x</lastmod></url>"
	    "<url><loc>http://h/b</loc></url></urlset>";
	const char	*idx = "<sitemapindex><sitemap><loc>http://h/s1.xml</loc></sitemap>"
	    "</sitemapindex>";
	const char	*ent = "<?xml version='1.0'?><!DOCTYPE urlset [<!ENTITY x SYSTEM "
	    "'file:///etc/passwd'>]><urlset><url><loc>&x;</loc></url></urlset>";
	struct sitemap	 s;

	ok(sitemap_parse(set, strlen(set), &s) == 0 && s.n == 2 && !s.is_index &&
	    strcmp(s.locs[0], "http://h/a") == 0 && strcmp(s.locs[1], "http://h/b") == 0,
	    "sitemap: the locs of a urlset, trimmed");
	sitemap_release(&s);
	ok(sitemap_parse(idx, strlen(idx), &s) == 0 && s.n == 1 && s.is_index,
	    "sitemap: an index");
	sitemap_release(&s);
	ok(sitemap_parse("<html/>", 7, &s) == -1, "sitemap: not a sitemap");
	ok(sitemap_parse(ent, strlen(ent), &s) == -1 || s.n == 0 ||
	    strstr(s.locs[0], "root") == NULL, "sitemap: an external entity is not read");
	sitemap_release(&s);
	test_sitemap_gzip(set);
}

static void
test_links(void)
{
	const char	*h = "<html><head><base href='/base/'><link rel='alternate canonical' "
	    "href='http://h/c'><meta name='ROBOTS' content='NoIndex, follow'></head><body>"
	    "<div><p><a href=' a.html '>a</a><a name=x>no</a></p></div><a href='b#f'>b</a>";
	const char	*m = "# T\n\nSee [a](a.md) and [b](b.html \"t\"), <https://h/x>, "
	    "[c]( ), ![img](i.png).\n";
	struct links	 l;

	ok(links_html(h, strlen(h), &l) == 0 && l.n == 2 && strcmp(l.hrefs[0], "a.html") == 0 &&
	    strcmp(l.hrefs[1], "b#f") == 0, "links: a[href], trimmed, in order");
	ok(l.base != NULL && strcmp(l.base, "/base/") == 0, "links: <base href>");
	ok(l.canonical != NULL && strcmp(l.canonical, "http://h/c") == 0,
	    "links: rel=canonical among other words");
	ok(l.noindex && !l.nofollow, "links: meta robots noindex, any case");
	links_release(&l);
	ok(links_html("<meta name=robots content=none>", 31, &l) == 0 && l.noindex &&
	    l.nofollow, "links: meta robots none");
	links_release(&l);
	ok(links_markdown(m, strlen(m), &l) == 0 && l.n == 4 &&
	    strcmp(l.hrefs[0], "a.md") == 0 && strcmp(l.hrefs[1], "b.html") == 0 &&
	    strcmp(l.hrefs[2], "https://h/x") == 0 && strcmp(l.hrefs[3], "i.png") == 0,
	    "links: Markdown inline links and autolinks");
	links_release(&l);
}

/* The frontier: a bound of URLs and one of bytes; a full one drops and counts. */
static void
test_frontier(void)
{
	struct frontier		 f;
	struct frontier_item	 it;
	char			 url[64], big[300];
	size_t			 i, pushed = 0, popped = 0, maxcap = 0;
	unsigned long		 last = 0;
	int			 r, order = 1;

	frontier_init(&f, 4, 1024);
	for (i = 0; i < 10; i++) {
		snprintf(url, sizeof(url), "http://h/%zu", i);
		if (frontier_push(&f, url, (int)i, i == 0) == 1)
			pushed++;
	}
	is_int((int)pushed, 4, "frontier: at most max_items URLs queued");
	is_int((int)f.dropped, 6, "frontier: the others dropped and counted");
	is_int((int)frontier_len(&f), 4, "frontier: its length");
	ok(frontier_pop(&f, &it) == 1 && strcmp(it.url, "http://h/0") == 0 && it.depth == 0 &&
	    it.start == 1, "frontier: first in, first out, depth and start kept");
	free(it.url);
	is_int(frontier_push(&f, "http://h/again", 1, 0), 1, "frontier: room again once one is taken");
	is_int(frontier_push(&f, "http://h/more", 1, 0), 0, "frontier: ... and full again");
	while (frontier_pop(&f, &it) == 1)
		free(it.url);
	is_int((int)frontier_len(&f), 0, "frontier: emptied");
	is_int(frontier_pop(&f, &it), 0, "frontier: nothing to take from an empty one");
	ok(it.url == NULL, "frontier: ... and no URL given");
	frontier_release(&f);

	/* the byte bound: 300-byte URLs in 1,024 bytes */
	frontier_init(&f, 100, 1024);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (i = 0; i < 10; i++)
		(void)frontier_push(&f, big, 1, 0);
	is_int((int)frontier_len(&f), 3, "frontier: at most max_bytes of URLs queued");
	ok(f.bytes <= 1024 && f.dropped == 7, "frontier: its bytes within the bound, 7 dropped");
	frontier_release(&f);

	/* a maze: a million pushes and pops keep the array within max_items */
	frontier_init(&f, 120, 1 << 20);
	for (i = 0; i < 1000000; i++) {
		snprintf(url, sizeof(url), "http://h/r%zu", i);
		if ((r = frontier_push(&f, url, 1, 0)) == -1)
			break;
		if (f.cap > maxcap)
			maxcap = f.cap;
		if (i % 100 == 0 && frontier_pop(&f, &it) == 1) {
			/* taken in the order they came: increasing numbers */
			if (popped > 0 && strtoul(it.url + 10, NULL, 10) <= last)
				order = 0;
			last = strtoul(it.url + 10, NULL, 10);
			popped++;
			free(it.url);
		}
	}
	ok(maxcap <= 120, "frontier: a million links met, the array stays within 120 "
	    "entries (%zu)", maxcap);
	ok(frontier_len(&f) == 120 && f.dropped == 1000000 - 120 - popped,
	    "frontier: full, the rest dropped and counted (%zu)", f.dropped);
	ok(order && popped == 10000, "frontier: first in, first out all along");
	frontier_release(&f);

	frontier_init(&f, 0, 1024);
	is_int(frontier_push(&f, "http://h/", 0, 1), 0, "frontier: a bound of 0 takes nothing");
	frontier_release(&f);
}

/* Bounds of the streaming sitemap reader: long locs, the first loc of an item, many items. */
static void
test_sitemap_bounds(void)
{
	struct buf	 b;
	struct sitemap	 s;
	size_t		 i;
	char		 longloc[SITEMAP_MAX_LOC + 2];

	memset(longloc, 'a', sizeof(longloc) - 1);
	longloc[sizeof(longloc) - 1] = '\0';
	buf_init(&b);
	buf_printf(&b, "<urlset><url><loc>%s</loc></url><url><loc>http://h/1</loc>"
	    "<loc>http://h/second</loc></url><x><loc>http://h/not</loc></x>", longloc);
	for (i = 0; i < SITEMAP_MAX_URLS + 10; i++)
		buf_printf(&b, "<url><loc>http://h/p%zu</loc></url>", i);
	buf_printf(&b, "</urlset>");
	ok(sitemap_parse(b.p, b.len, &s) == 0, "sitemap: %zu bytes of urls read", b.len);
	is_int((int)s.n, SITEMAP_MAX_URLS, "sitemap: at most SITEMAP_MAX_URLS locs kept");
	ok(s.n > 1 && strcmp(s.locs[0], "http://h/1") == 0 && strcmp(s.locs[1], "http://h/p0") == 0,
	    "sitemap: a loc over SITEMAP_MAX_LOC left out, the first loc of an item only, "
	    "not those of other elements");
	sitemap_release(&s);
	buf_release(&b);
	ok(sitemap_parse("<urlset><url><loc>http://h/a</loc></url>", 40, &s) == -1,
	    "sitemap: a cut one is not a sitemap");
}

int
main(void)
{
	test_frontier();
	test_sitemap_bounds();
	test_robots();
	test_sitemap();
	test_links();
	return tap_done();
}
