/*
 * website.c: the website source back end, a crawler. From the library's start URL it
 * fetches pages breadth first through lib/net/fetch.c (several in flight, sources.inflight;
 * one at a time with a pause between them when sources.crawl_delay_ms or the robots.txt
 * Crawl-delay asks for one), within the scope of the start URL (same scheme, host and port,
 * path under the start URL's folder), honouring robots.txt (agent "ctxd"), maxPages,
 * maxDepth and excludePatterns, seeded by the sitemap (robots.txt's Sitemap lines, else
 * the scope's sitemap.xml or sitemap.xml.gz; an index followed one level). Each page is asked for as
 * Markdown first (Accept), else HTML; answers of other types are skipped. Redirects are
 * followed by hand, and only within scope; fetch.c checks the address policy on every
 * request. A page is one document: path = the URL's path and query, url = the page (its
 * in-scope canonical URL when it names one), format markdown or html, and its ETag and
 * Last-Modified for the next run's conditional GET (a 304 is an unchanged document; its
 * links are those the previous run saw, kept in DATA_DIR/crawl/<sha256 of id>.links).
 * Pages with the same canonical URL or the same content are kept once.
 */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "net/fetch.h"
#include "net/url.h"
#include "parse/parse.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/libid.h"
#include "sources/links.h"
#include "sources/request.h"
#include "sources/robots.h"
#include "sources/sitemap.h"
#include "store/jobs.h"
#include "store/netpolicy.h"
#include "store/settings.h"

#define WEBSITE_AGENT		"ctxd"
#define WEBSITE_ACCEPT		"Accept: text/markdown, text/html;q=0.9, */*;q=0.1"
#define WEBSITE_MAX_URL		2048
#define WEBSITE_MAX_CHILDREN	50	/* sitemaps of a sitemap index followed */
#define WEBSITE_DETAIL_MAX	30	/* job log lines about single pages */
#define WEBSITE_TRIES		2
#define WEBSITE_LINKS_MAX_BYTES	(64L * 1024 * 1024)	/* a links file read */
/*
 * The frontier (the URLs met, not yet fetched, sitemaps' too): at most this many times
 * maxPages (a crawl fetches at most maxPages of them anyway), and at most these bytes of
 * URLs. Links met while it is full are dropped, and the job log counts them.
 */
#define WEBSITE_QUEUE_PER_PAGE	2
#define WEBSITE_QUEUE_MAX_BYTES	(8L * 1024 * 1024)
/* URLs skipped (out of scope, excluded, dropped...) remembered so as to count them once */
#define WEBSITE_SKIPPED_MAX_BYTES (4L * 1024 * 1024)
/*
 * The links file written for the next run: at most this many links of a page, and this
 * many bytes in all. A page whose links do not fit is not in the file: the next run then
 * asks for it in full (no conditional GET), so that its links are read again.
 */
#define WEBSITE_PAGE_LINKS_MAX	1000
#define WEBSITE_LINKS_SAVE_MAX	(4L * 1024 * 1024)

/* Why a page or link was not kept: the counters of the job log's summary. */
enum website_skip {
	SKIP_ROBOTS, SKIP_SCOPE, SKIP_EXCLUDED, SKIP_TOOBIG, SKIP_TYPE, SKIP_FAILED,
	SKIP_NOINDEX, SKIP_DUPLICATE, SKIP_REDIRECT, SKIP_DEPTH, SKIP_DROPPED, SKIP_N
};

static const char *const website_skip_text[SKIP_N] = {
	"disallowed by robots.txt", "out of scope", "excluded by excludePatterns",
	"too big (setting sources.max_page_kb)", "not HTML or Markdown", "failed",
	"marked noindex", "duplicates (same URL or content)", "redirected out of scope",
	"deeper than maxDepth", "dropped (the queue of pages to fetch was full)",
};

/* How a URL was met (website_follow). */
#define WEBSITE_LINK		0
#define WEBSITE_REDIRECT	1	/* a redirect's target */
#define WEBSITE_START		2	/* ... of the start URL */
#define WEBSITE_SITEMAP		3	/* a sitemap's entry */

/* One request of a batch. */
struct website_slot {
	struct frontier_item page;
	struct fetch_req *req;		/* in the batch's array */
	struct backend_stored st;
	char	*inm, *ims;		/* If-None-Match, If-Modified-Since lines */
};

struct website {
	struct backend_ctx *c;
	long		 max_pages, max_depth, inflight, delay_ms, timeout_ms;
	size_t		 max_page, max_bytes, bytes;
	json_object	*excludes;	/* array of strings (the settings' own) */
	json_object	*settings;
	char		*scheme, *host, *port, *prefix;
	struct robots	 robots;
	struct frontier	 queue;		/* the URLs to fetch */
	struct lh_table	*seen;		/* the URLs queued, and those skipped (up to a bound) */
	size_t		 skipped_bytes;	/* of the URLs skipped in seen */
	struct lh_table	*hashes;	/* content hashes of the pages kept */
	struct lh_table	*kept;		/* URLs of the documents */
	struct lh_table	*oldlinks;	/* page URL -> its links, the previous run's */
	struct buf	 links;		/* this run's, for the next */
	size_t		 links_mark;	/* where the current page's lines start in links */
	size_t		 page_links;	/* links of the current page in links */
	int		 recording;	/* the current page's links go to links */
	size_t		 nunrecorded;	/* pages whose links did not fit in links */
	size_t		 npages, nnew, nunchanged, nskip[SKIP_N], ndetail;
	int		 cancelled;	/* the job's cancellation was requested */
	int		 conditional;	/* GETs carry the stored validators */
};

static void
website_entry_free(struct lh_entry *e)
{
	free((void *)lh_entry_k(e));
	free(lh_entry_v(e));
}

/* Adds key (copied) with value v (owned) unless present: 1 added, 0 present, -1 nomem. */
static int
website_set_add(struct lh_table *t, const char *key, char *v)
{
	char	*k;

	if (lh_table_lookup_ex(t, key, NULL)) {
		free(v);
		return 0;
	}
	if ((k = strdup(key)) == NULL || lh_table_insert(t, k, v) != 0) {
		free(k);
		free(v);
		return -1;
	}
	return 1;
}

/* A job log line about one page, up to WEBSITE_DETAIL_MAX of them. */
static void __attribute__((format(printf, 2, 3)))
website_detail(struct website *w, const char *fmt, ...)
{
	va_list	 ap;
	char	 line[1024];

	if (w->ndetail++ < WEBSITE_DETAIL_MAX) {
		va_start(ap, fmt);
		vsnprintf(line, sizeof(line), fmt, ap);
		va_end(ap);
		jobs_log(w->c->db, w->c->job_id, "warning", "%s", line);
	} else if (w->ndetail == WEBSITE_DETAIL_MAX + 1)
		jobs_log(w->c->db, w->c->job_id, "warning", "more skipped pages are "
		    "counted in the summary only");
}

/* ------------------------------------------------------------------ URLs and scope */

/*
 * href resolved against base (NULL: href is absolute), its fragment dropped, normalised by
 * libcurl (lowercase scheme, dot segments removed, default port dropped): malloc'd, or
 * NULL when it is not a URL.
 */
static char *
website_resolve(const char *base, const char *href)
{
	CURLU	*u;
	char	*s = NULL, *r = NULL;

	if (strlen(href) > WEBSITE_MAX_URL || (u = curl_url()) == NULL)
		return NULL;
	if ((base == NULL || curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK) &&
	    curl_url_set(u, CURLUPART_URL, href, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &s, CURLU_NO_DEFAULT_PORT) == CURLUE_OK &&
	    strlen(s) <= WEBSITE_MAX_URL)
		r = strdup(s);
	curl_free(s);
	curl_url_cleanup(u);
	return r;
}

/* The parts of an absolute URL (each curl_free'd by the caller; port with its default). */
static int
website_parts(const char *url, char **scheme, char **host, char **port, char **path,
    char **query)
{
	CURLU	*u = curl_url();
	int	 rc = -1;

	*scheme = *host = *port = *path = NULL;
	if (query != NULL)
		*query = NULL;
	if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PATH, path, 0) == CURLUE_OK) {
		if (query != NULL &&
		    curl_url_get(u, CURLUPART_QUERY, query, 0) != CURLUE_OK)
			*query = NULL;
		rc = 0;
	}
	curl_url_cleanup(u);
	return rc;
}

/* The path and query of url ("/a/b?q"), malloc'd; NULL when unreadable. */
static char *
website_path(const char *url)
{
	char	*scheme, *host, *port, *path, *query, *r = NULL;
	struct buf b;

	buf_init(&b);
	if (website_parts(url, &scheme, &host, &port, &path, &query) == 0 &&
	    buf_printf(&b, "%s%s%s", path, query != NULL ? "?" : "",
	    query != NULL ? query : "") == 0)
		r = buf_detach(&b);
	buf_release(&b);
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	return r;
}

/*
 * 1 when url is within the scope (scheme, host, port, and path prefix unless any_path),
 * else 0.
 */
static int
website_in(const struct website *w, const char *url, int any_path)
{
	char	*scheme, *host, *port, *path;
	int	 in = 0;

	if (website_parts(url, &scheme, &host, &port, &path, NULL) == 0)
		in = strcasecmp(scheme, w->scheme) == 0 && strcasecmp(host, w->host) == 0 &&
		    strcmp(port, w->port) == 0 &&
		    (any_path || strncmp(path, w->prefix, strlen(w->prefix)) == 0);
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	return in;
}

static int
website_in_scope(const struct website *w, const char *url)
{
	return website_in(w, url, 0);
}

/* 1 when path matches one of the excludePatterns. */
static int
website_excluded(const struct website *w, const char *path)
{
	size_t		 i, n = json_object_array_length(w->excludes);
	const char	*p;

	for (i = 0; i < n; i++) {
		p = json_object_get_string(json_object_array_get_idx(w->excludes, i));
		if (p != NULL && robots_match(p, strlen(p), path, 1))
			return 1;
	}
	return 0;
}

/*
 * The scope of the start URL: its scheme, host and port, and its folder (the path up to
 * its last '/'; a last segment without a '.' is a folder too: /docs is /docs/).
 */
static int
website_scope(struct website *w, char *err, size_t errsz)
{
	char	*path = NULL, *slash;
	int	 rc = -1;

	if (website_parts(w->c->url, &w->scheme, &w->host, &w->port, &path, NULL) == -1) {
		snprintf(err, errsz, "the start URL is not a URL");
		goto out;
	}
	if ((slash = strrchr(path, '/')) == NULL) {
		snprintf(err, errsz, "the start URL is not a URL");
		goto out;
	}
	if (strchr(slash, '.') != NULL || slash[1] == '\0')
		w->prefix = strndup(path, (size_t)(slash - path) + 1);
	else if (asprintf(&w->prefix, "%s/", path) == -1)
		w->prefix = NULL;
	if (w->prefix == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	rc = 0;
out:
	curl_free(path);
	return rc;
}

/* ------------------------------------------------------------------ the frontier */

/*
 * Counts a link skipped for why, once per URL as long as the URLs skipped fit in
 * WEBSITE_SKIPPED_MAX_BYTES (past that, once per time it is met). 0, or -1 nomem.
 */
static int
website_skip(struct website *w, const char *url, enum website_skip why)
{
	size_t	 len = strlen(url) + 1;

	w->nskip[why]++;
	if (w->skipped_bytes + len > (size_t)WEBSITE_SKIPPED_MAX_BYTES)
		return 0;
	w->skipped_bytes += len;
	return website_set_add(w->seen, url, NULL) == -1 ? -1 : 0;
}

/* The links of the page url go to the links file from here (website_links_add). */
static int
website_links_page(struct website *w, const char *url)
{
	w->links_mark = w->links.len;
	w->page_links = 0;
	w->recording = 0;
	if (w->links.len + strlen(url) + 3 > (size_t)WEBSITE_LINKS_SAVE_MAX) {
		w->nunrecorded++;
		return 0;
	}
	w->recording = 1;
	return buf_printf(&w->links, "P %s\n", url);
}

/*
 * A link of the current page for the links file: the page's lines are taken back when
 * they pass WEBSITE_PAGE_LINKS_MAX links or the file WEBSITE_LINKS_SAVE_MAX bytes.
 */
static int
website_links_add(struct website *w, const char *url)
{
	if (!w->recording)
		return 0;
	if (w->page_links >= WEBSITE_PAGE_LINKS_MAX ||
	    w->links.len + strlen(url) + 3 > (size_t)WEBSITE_LINKS_SAVE_MAX) {
		w->links.len = w->links_mark;
		if (w->links.p != NULL)
			w->links.p[w->links.len] = '\0';
		w->recording = 0;
		w->nunrecorded++;
		return 0;
	}
	w->page_links++;
	return buf_printf(&w->links, "L %s\n", url);
}

/*
 * A link met on a page (or a redirect's target, or a sitemap's entry): resolved against
 * base, recorded for the next run when in scope and met on a page, and queued at depth when
 * in scope, not excluded, allowed by robots.txt, not deeper than maxDepth, not met before
 * and the frontier has room. Returns 0, or -1 out of memory.
 */
static int
website_follow(struct website *w, const char *base, const char *href, int depth,
    int how)
{
	char	*url, *path = NULL;
	int	 rc = 0, link = how == WEBSITE_LINK || how == WEBSITE_SITEMAP;

	if ((url = website_resolve(base, href)) == NULL)
		return 0;
	if (!website_in_scope(w, url)) {
		if (!link) {
			w->nskip[SKIP_REDIRECT]++;
			website_detail(w, "skipped %s: redirected out of scope to %s",
			    base, url);
		} else if (!lh_table_lookup_ex(w->seen, url, NULL))
			rc = website_skip(w, url, SKIP_SCOPE);
		goto out;
	}
	if ((how == WEBSITE_LINK && website_links_add(w, url) == -1) ||
	    (path = website_path(url)) == NULL) {
		rc = -1;
		goto out;
	}
	if (lh_table_lookup_ex(w->seen, url, NULL))
		goto out;
	if (website_excluded(w, path))
		rc = website_skip(w, url, SKIP_EXCLUDED);
	else if (!robots_allowed(&w->robots, path))
		rc = website_skip(w, url, SKIP_ROBOTS);
	else if (depth > w->max_depth)
		rc = website_skip(w, url, SKIP_DEPTH);
	else if ((rc = frontier_push(&w->queue, url, depth, how == WEBSITE_START)) == 1)
		rc = website_set_add(w->seen, url, NULL) == -1 ? -1 : 0;
	else if (rc == 0)
		rc = website_skip(w, url, SKIP_DROPPED);
out:
	free(url);
	free(path);
	return rc;
}

/* ------------------------------------------------------------------ settings */

static int
website_validate(const char *settings, char *err, size_t errsz)
{
	json_object	*o = json_tokener_parse(settings), *v;
	size_t		 i;
	int		 rc = -1;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		goto bad;
	if (json_object_object_get_ex(o, "maxPages", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1))
		goto bad;
	if (json_object_object_get_ex(o, "maxDepth", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0))
		goto bad;
	if (json_object_object_get_ex(o, "excludePatterns", &v)) {
		if (!json_object_is_type(v, json_type_array))
			goto bad;
		for (i = 0; i < json_object_array_length(v); i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i),
			    json_type_string))
				goto bad;
	}
	rc = 0;
	goto out;
bad:
	snprintf(err, errsz, "the library's stored settings are unreadable");
out:
	json_object_put(o);
	return rc;
}

/* The source's fields and the server's settings. */
static int
website_settings(struct website *w, char *err, size_t errsz)
{
	struct backend_ctx *c = w->c;
	json_object	*v;
	long		 cap;

	w->settings = json_tokener_parse(c->settings);
	w->max_pages = 100;
	w->max_depth = 3;
	if (json_object_object_get_ex(w->settings, "maxPages", &v))
		w->max_pages = (long)json_object_get_int64(v);
	if (json_object_object_get_ex(w->settings, "maxDepth", &v))
		w->max_depth = (long)json_object_get_int64(v);
	if (!json_object_object_get_ex(w->settings, "excludePatterns", &w->excludes))
		w->excludes = NULL;
	if ((cap = settings_get_long(c->db, c->datadir, "sources.max_pages", 1000)) <
	    w->max_pages) {
		jobs_log(c->db, c->job_id, "info", "maxPages %ld is cut to %ld (setting "
		    "sources.max_pages)", w->max_pages, cap);
		w->max_pages = cap;
	}
	w->inflight = settings_get_long(c->db, c->datadir, "sources.inflight", 4);
	w->delay_ms = settings_get_long(c->db, c->datadir, "sources.crawl_delay_ms", 0);
	w->timeout_ms = settings_get_long(c->db, c->datadir, "sources.page_timeout_s", 30) *
	    1000;
	w->max_page = (size_t)settings_get_long(c->db, c->datadir, "sources.max_page_kb",
	    4096) * 1024;
	w->max_bytes = (size_t)c->max_fetch_mb * 1024 * 1024;
	frontier_init(&w->queue, (size_t)w->max_pages * WEBSITE_QUEUE_PER_PAGE,
	    WEBSITE_QUEUE_MAX_BYTES);
	if (w->excludes == NULL && (w->excludes = json_object_new_array()) != NULL &&
	    w->settings != NULL)
		json_object_object_add(w->settings, "excludePatterns", w->excludes);
	if (w->settings == NULL || w->excludes == NULL) {
		snprintf(err, errsz, "the library's stored settings are unreadable");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ single requests */

/* The time a request may take now: the page timeout, or what is left of the job's. */
static long
website_timeout(const struct website *w)
{
	return backend_timeout(w->c, w->timeout_ms);
}

/* A GET of url (robots.txt, a sitemap) into q: redirects followed by fetch.c. */
static void
website_get(struct website *w, struct fetch_req *q, const char *url, size_t max)
{
	struct fetch	 f;

	fetch_req_init(q);
	q->url = url;
	backend_page_deadline(w->c, w->timeout_ms, q);
	q->max_size = max;
	q->tries = WEBSITE_TRIES;
	q->redirects = 5;
	q->user_agent = WEBSITE_AGENT;
	fetch_init(&f);
	if (q->timeout_ms > 0)
		fetch_run(&f, q, 1);
	else
		q->result = FETCH_ETIMEOUT;
	fetch_release(&f);
}

/*
 * robots.txt of the site: a 4xx answer allows everything; a 5xx disallows everything
 * (RFC 9309), which the start URL then reports; no answer at all (the site cannot be
 * reached, the address policy refuses it) fails the job with why (-1 with err).
 */
static int
website_robots(struct website *w, char *err, size_t errsz)
{
	struct fetch_req q;
	char		*url = NULL;
	int		 rc = -1;

	if (asprintf(&url, "%s://%s:%s/robots.txt", w->scheme, w->host, w->port) == -1)
		goto nomem;
	website_get(w, &q, url, ROBOTS_MAX_BYTES);
	if ((q.result == FETCH_OK && q.status >= 200 && q.status < 300) ||
	    q.result == FETCH_ETOOBIG) {
		if (robots_parse(q.answer.p != NULL ? q.answer.p : "", q.answer.len,
		    WEBSITE_AGENT, &w->robots) == -1)
			goto nomem;
		jobs_log(w->c->db, w->c->job_id, "info", "robots.txt: %zu rules for %s, "
		    "crawl delay %ld ms, %zu sitemaps", w->robots.n, WEBSITE_AGENT,
		    w->robots.delay_ms, w->robots.nsitemaps);
	} else if (q.result != FETCH_OK) {
		backend_http_error(&q, err, errsz);
		goto out;
	} else if (q.status >= 500) {
		w->robots.disallow_all = 1;
		jobs_log(w->c->db, w->c->job_id, "warning", "robots.txt answered HTTP "
		    "%ld: nothing may be fetched", q.status);
	}
	if (w->robots.delay_ms > w->delay_ms)
		w->delay_ms = w->robots.delay_ms;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	fetch_req_release(&q);
	free(url);
	return rc;
}

/* One sitemap: its pages queued at depth 1, an index's sitemaps read when nested is 0. */
static int
website_sitemap(struct website *w, const char *url, int nested, int *found)
{
	struct fetch_req q;
	struct sitemap	 s;
	size_t		 i;
	int		 rc = 0;

	website_get(w, &q, url, SITEMAP_MAX_BYTES);
	if (q.result != FETCH_OK || q.status < 200 || q.status > 299 ||
	    sitemap_parse(q.answer.p != NULL ? q.answer.p : "", q.answer.len, &s) == -1)
		goto out;
	*found = 1;
	jobs_log(w->c->db, w->c->job_id, "info", "sitemap %s: %zu %s", url, s.n,
	    s.is_index ? "sitemaps" : "pages");
	for (i = 0; i < s.n && rc == 0; i++) {
		if (s.is_index && !nested && i < WEBSITE_MAX_CHILDREN &&
		    website_in(w, s.locs[i], 1))
			rc = website_sitemap(w, s.locs[i], 1, found);
		else if (!s.is_index && w->max_depth >= 1)
			rc = website_follow(w, NULL, s.locs[i], 1, WEBSITE_SITEMAP);
	}
	sitemap_release(&s);
out:
	fetch_req_release(&q);
	return rc;
}

/*
 * The sitemaps robots.txt names on the site (same scheme, host and port), else the scope's
 * sitemap.xml, else its sitemap.xml.gz.
 */
static int
website_sitemaps(struct website *w)
{
	char	*url = NULL;
	size_t	 i;
	int	 found = 0, rc = 0;

	for (i = 0; i < w->robots.nsitemaps && rc == 0; i++) {
		if ((url = website_resolve(NULL, w->robots.sitemaps[i])) != NULL &&
		    website_in(w, url, 1))
			rc = website_sitemap(w, url, 0, &found);
		free(url);
	}
	/* Some generators write only the compressed one (MkDocs' sitemap.xml.gz). */
	for (i = 0; i < 2 && !found && rc == 0; i++) {
		if (asprintf(&url, "%s://%s:%s%ssitemap.xml%s", w->scheme, w->host, w->port,
		    w->prefix, i == 0 ? "" : ".gz") == -1)
			return -1;
		rc = website_sitemap(w, url, 0, &found);
		free(url);
	}
	return rc;
}

/* ------------------------------------------------------------------ the pages */

/* The links file of a library: DATA_DIR/crawl/<sha256 of the library id>.links. */
static char *
website_links_path(const char *datadir, const char *library_id)
{
	char	 h[65], *p = NULL;

	crypto_sha256_hex(library_id, strlen(library_id), h);
	if (asprintf(&p, "%s/crawl/%s.links", datadir, h) == -1)
		return NULL;
	return p;
}

static char *
website_links_file(const struct website *w)
{
	return website_links_path(w->c->datadir, w->c->library_id);
}

/* A deleted library's links file goes with it. */
static int
website_forget(struct db *db, const char *datadir, const char *library_id)
{
	char	*p;
	int	 rc = 0;

	(void)db;
	if ((p = website_links_path(datadir, library_id)) == NULL)
		return -1;
	if (unlink(p) == -1 && errno != ENOENT) {
		log_err("%s: %s: %s", __func__, p, strerror(errno));
		rc = -1;
	}
	free(p);
	return rc;
}

/*
 * Reads the previous run's links: "P url" lines, each followed by its "L link" lines. 0, or
 * -1 when there is no such file (then no conditional GET is made: a 304 page's links would
 * be unknown).
 */
static int
website_links_load(struct website *w)
{
	char		*file = website_links_file(w), *data = NULL, *line, *save, *page = NULL;
	struct buf	 b;
	size_t		 len;
	int		 rc = -1;

	buf_init(&b);
	if (file == NULL || util_read_file(file, WEBSITE_LINKS_MAX_BYTES, &data, &len) == -1)
		goto out;
	rc = 0;
	for (line = strtok_r(data, "\n", &save); ; line = strtok_r(NULL, "\n", &save)) {
		if ((line == NULL || strncmp(line, "P ", 2) == 0) && page != NULL) {
			website_set_add(w->oldlinks, page, buf_detach(&b));
			page = NULL;
		}
		if (line == NULL)
			break;
		if (strncmp(line, "P ", 2) == 0)
			page = line + 2;
		else if (page != NULL && strncmp(line, "L ", 2) == 0)
			buf_printf(&b, "%s\n", line + 2);
	}
out:
	buf_release(&b);
	free(data);
	free(file);
	return rc;
}

static void
website_links_save(struct website *w)
{
	char	*file = website_links_file(w), *dir;

	if (file == NULL)
		return;
	dir = strndup(file, (size_t)(strrchr(file, '/') - file));
	if (dir == NULL || util_mkdir_p(dir, 0700) == -1 ||
	    util_write_file(file, w->links.p != NULL ? w->links.p : "", w->links.len,
	    0600) == -1)
		log_warn("%s: cannot write %s", __func__, file);
	free(dir);
	free(file);
}

/* Follows the links of a page: those extracted, or those the previous run recorded. */
static int
website_page_links(struct website *w, const char *url, const struct links *l,
    const char *old, int depth)
{
	const char	*base = url, *p, *nl;
	char		*b = NULL, *href;
	size_t		 i;
	int		 rc = 0;

	if (l != NULL && l->base != NULL && (b = website_resolve(url, l->base)) != NULL)
		base = b;
	for (i = 0; l != NULL && i < l->n && rc == 0; i++)
		rc = website_follow(w, base, l->hrefs[i], depth + 1, WEBSITE_LINK);
	for (p = old; p != NULL && *p != '\0' && rc == 0; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		if ((href = strndup(p, (size_t)(nl - p))) == NULL)
			rc = -1;
		else
			rc = website_follow(w, NULL, href, depth + 1, WEBSITE_LINK);
		free(href);
	}
	free(b);
	return rc;
}

/*
 * Keeps a page as a document under url (the page's, or its canonical one): path, url,
 * format, content, hash and validators. 0 (also when it is a duplicate), -1 nomem.
 */
static int
website_keep(struct website *w, struct website_slot *s, const char *url,
    const char *format, struct backend_set *out)
{
	struct backend_doc *d;
	char		 hash[65], v[512], *path;
	int		 added;

	crypto_sha256_hex(s->req->answer.p, s->req->answer.len, hash);
	if ((added = website_set_add(w->hashes, hash, NULL)) == -1)
		return -1;
	if (added == 0 || lh_table_lookup_ex(w->kept, url, NULL)) {
		w->nskip[SKIP_DUPLICATE]++;
		return 0;
	}
	if (website_set_add(w->kept, url, NULL) == -1 || (path = website_path(url)) == NULL)
		return -1;
	d = backend_set_add(out, path, hash, s->req->answer.len);
	free(path);
	if (d == NULL || (d->url = strdup(url)) == NULL)
		return -1;
	d->format = format;
	d->len = s->req->answer.len;
	d->data = buf_detach(&s->req->answer);
	if (fetch_answer_header(s->req, "ETag", v, sizeof(v)) &&
	    (d->etag = strdup(v)) == NULL)
		return -1;
	if (fetch_answer_header(s->req, "Last-Modified", v, sizeof(v)) &&
	    (d->modified = strdup(v)) == NULL)
		return -1;
	w->nnew++;
	return 0;
}

/* A 304: the stored document, unchanged, and the links the previous run saw on it. */
static int
website_unchanged(struct website *w, struct website_slot *s, struct backend_set *out)
{
	struct backend_doc *d;
	char		*path, *old = NULL, v[512];
	const char	*url = s->st.url != NULL ? s->st.url : s->page.url;

	if ((path = website_path(s->page.url)) == NULL)
		return -1;
	d = lh_table_lookup_ex(w->kept, url, NULL) ? NULL :
	    backend_set_add(out, path, s->st.hash, 0);
	free(path);
	if (d != NULL) {
		if (website_set_add(w->kept, url, NULL) == -1 ||
		    (d->url = strdup(url)) == NULL)
			return -1;
		d->changed = 0;
		d->etag = fetch_answer_header(s->req, "ETag", v, sizeof(v)) ? strdup(v) :
		    s->st.etag != NULL ? strdup(s->st.etag) : NULL;
		d->modified = s->st.modified != NULL ? strdup(s->st.modified) : NULL;
		website_set_add(w->hashes, s->st.hash, NULL);
	}
	w->nunchanged++;
	if (website_links_page(w, s->page.url) == -1)
		return -1;
	lh_table_lookup_ex(w->oldlinks, s->page.url, (void **)&old);
	return website_page_links(w, s->page.url, NULL, old, s->page.depth);
}

/* The media type of the answer, lowercase, without parameters. */
static void
website_type(const struct fetch_req *q, char *out, size_t sz)
{
	char	*p;

	fetch_answer_header(q, "Content-Type", out, sz);
	if ((p = strchr(out, ';')) != NULL)
		*p = '\0';
	for (p = out; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	while (p > out && isspace((unsigned char)p[-1]))
		*--p = '\0';
}

/* A 2xx page: its links followed, and kept unless noindex, a duplicate or another type. */
static int
website_answer(struct website *w, struct website_slot *s, struct backend_set *out)
{
	struct links	 l;
	const char	*format, *url = s->page.url;
	char		 type[128], *canon = NULL;
	int		 rc = -1;

	website_type(s->req, type, sizeof(type));
	if (strcmp(type, "text/markdown") == 0 || strcmp(type, "text/x-markdown") == 0)
		format = DOC_FORMAT_MARKDOWN;
	else if (strcmp(type, "text/html") == 0 ||
	    strcmp(type, "application/xhtml+xml") == 0)
		format = DOC_FORMAT_HTML;
	else {
		w->nskip[SKIP_TYPE]++;
		website_detail(w, "skipped %s: its type is %s, not HTML or Markdown",
		    url, *type ? type : "not given");
		return 0;
	}
	if (s->req->answer.len == 0)
		return 0;
	if ((strcmp(format, DOC_FORMAT_HTML) == 0 ? links_html : links_markdown)(
	    s->req->answer.p, s->req->answer.len, &l) == -1)
		memset(&l, 0, sizeof(l));
	if (website_links_page(w, url) == -1)
		goto out;
	/* the canonical URL names the page when it is in scope */
	if (l.canonical != NULL && (canon = website_resolve(url, l.canonical)) != NULL &&
	    website_in_scope(w, canon)) {
		url = canon;
		website_set_add(w->seen, canon, NULL);
	}
	if (!l.nofollow && website_page_links(w, s->page.url, &l, NULL,
	    s->page.depth) == -1)
		goto out;
	if (l.noindex)
		w->nskip[SKIP_NOINDEX]++;
	else if (website_keep(w, s, url, format, out) == -1)
		goto out;
	rc = 0;
out:
	free(canon);
	links_release(&l);
	return rc;
}

/*
 * 1 with err when the start URL url redirects out of its scope, to loc (the library should
 * be added with the URL it moved to), else 0.
 */
static int
website_start_away(struct website *w, const char *url, const char *loc, char *err,
    size_t errsz)
{
	char	*to = website_resolve(url, loc);
	int	 away = to == NULL || !website_in_scope(w, to);

	if (away)
		snprintf(err, errsz, "the start URL %s redirects out of its scope to %s: add "
		    "the library with that URL", url, to != NULL ? to : "an unreadable URL");
	free(to);
	return away;
}

/*
 * One answer of a batch. The start URL (or a redirect's target from it) answering other
 * than 2xx, 3xx or 304 fails the job (-1 with err); another page's failure is counted and
 * logged.
 */
static int
website_handle(struct website *w, struct website_slot *s, struct backend_set *out,
    char *err, size_t errsz)
{
	struct fetch_req *q = s->req;
	char		 loc[WEBSITE_MAX_URL + 1], why[512];

	/* every answer counts against limits.max_repo_mb, kept as a document or not */
	w->bytes += q->answer.len;
	if (q->result == FETCH_ETOOBIG) {
		w->nskip[SKIP_TOOBIG]++;
		website_detail(w, "skipped %s: %s", s->page.url, q->error);
		return 0;
	}
	if (q->result == FETCH_OK && q->status == 304 && s->st.hash[0] != '\0')
		return website_unchanged(w, s, out);
	if (q->result == FETCH_OK && q->status >= 300 && q->status < 400 &&
	    fetch_answer_header(q, "Location", loc, sizeof(loc))) {
		if (s->page.start && website_start_away(w, s->page.url, loc, err, errsz))
			return -1;
		return website_follow(w, s->page.url, loc, s->page.depth, s->page.start ?
		    WEBSITE_START : WEBSITE_REDIRECT);
	}
	if (q->result == FETCH_OK && q->status >= 200 && q->status < 300)
		return website_answer(w, s, out);
	if (s->page.start)
		return backend_http_error(q, err, errsz);
	w->nskip[SKIP_FAILED]++;
	backend_http_error(q, why, sizeof(why));
	website_detail(w, "%s", why);
	return 0;
}

/* Sets up the request of a slot: Accept, and the validators of the stored document. */
static int
website_slot_init(struct website *w, struct website_slot *s)
{
	struct fetch_req *q = s->req;
	char		*path;
	int		 h = 0;

	fetch_req_init(q);
	q->url = s->page.url;
	backend_page_deadline(w->c, w->timeout_ms, q);
	q->max_size = w->max_page;
	q->tries = WEBSITE_TRIES;
	q->user_agent = WEBSITE_AGENT;
	q->headers[h++] = WEBSITE_ACCEPT;
	/* validators only for a page whose links the previous run recorded */
	if (!w->conditional || !lh_table_lookup_ex(w->oldlinks, s->page.url, NULL))
		return 0;
	if ((path = website_path(s->page.url)) == NULL ||
	    backend_stored_get(w->c, path, &s->st) == -1) {
		free(path);
		return -1;
	}
	free(path);
	if (s->st.hash[0] == '\0')
		return 0;
	if (s->st.etag != NULL && asprintf(&s->inm, "If-None-Match: %s", s->st.etag) != -1)
		q->headers[h++] = s->inm;
	if (s->st.modified != NULL &&
	    asprintf(&s->ims, "If-Modified-Since: %s", s->st.modified) != -1)
		q->headers[h++] = s->ims;
	return 0;
}

static void
website_slot_release(struct website_slot *s)
{
	if (s->req != NULL)
		fetch_req_release(s->req);
	backend_stored_release(&s->st);
	free(s->page.url);
	free(s->inm);
	free(s->ims);
	memset(s, 0, sizeof(*s));
}

/* Sleeps ms milliseconds (the politeness pause). */
static void
website_pause(long ms)
{
	struct timespec	 ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Fetches the next batch of queued pages (one when pausing between requests). Returns 1
 * when a batch ran, 0 when the crawl is over (queue empty or a limit reached), -1 with err.
 */
static int
website_batch(struct website *w, struct backend_set *out, char *err, size_t errsz)
{
	struct website_slot slots[32];
	struct fetch_req reqs[32];
	struct fetch	 f;
	size_t		 n = 0, i, known, want = w->delay_ms > 0 ? 1 : (size_t)w->inflight;
	int		 rc = -1;

	if (want > sizeof(slots) / sizeof(slots[0]))
		want = sizeof(slots) / sizeof(slots[0]);
	if (frontier_len(&w->queue) == 0 || w->npages >= (size_t)w->max_pages ||
	    w->bytes >= w->max_bytes || website_timeout(w) <= 0)
		return 0;
	/* a cancelled job: the crawl stops here, the pipeline's next check ends the job */
	if ((w->cancelled = backend_stop(w->c) == 1))
		return 0;
	memset(slots, 0, sizeof(slots));
	if (w->delay_ms > 0 && w->npages > 0)
		website_pause(w->delay_ms);
	while (n < want && w->npages < (size_t)w->max_pages &&
	    frontier_pop(&w->queue, &slots[n].page) == 1) {
		slots[n].req = &reqs[n];
		w->npages++;
		if (website_slot_init(w, &slots[n++]) == -1) {
			snprintf(err, errsz, "the database is unreadable");
			goto out;
		}
	}
	/* one run: its requests in flight together */
	fetch_init(&f);
	f.inflight = n;
	fetch_run(&f, reqs, n);
	fetch_release(&f);
	for (i = 0; i < n; i++)
		if (website_handle(w, &slots[i], out, err, errsz) == -1) {
			if (*err == '\0')
				snprintf(err, errsz, "out of memory");
			goto out;
		}
	/* pages fetched of those known so far (fetched and queued), within maxPages */
	known = w->npages + frontier_len(&w->queue);
	backend_progress(w->c, w->npages, known < (size_t)w->max_pages ? known :
	    (size_t)w->max_pages);
	rc = 1;
out:
	for (i = 0; i < n; i++)
		website_slot_release(&slots[i]);
	return rc;
}

/* ------------------------------------------------------------------ the crawl */

/* The job log's summary: pages fetched, unchanged, skipped and why, the limit reached. */
static void
website_summary(struct website *w)
{
	struct buf	 b;
	size_t		 i, left = frontier_len(&w->queue);

	buf_init(&b);
	buf_printf(&b, "fetched %zu pages: %zu new or changed, %zu unchanged", w->npages,
	    w->nnew, w->nunchanged);
	for (i = 0; i < SKIP_N; i++)
		if (w->nskip[i] > 0)
			buf_printf(&b, "; %zu %s %s", w->nskip[i], i == SKIP_DEPTH ||
			    i == SKIP_SCOPE || i == SKIP_ROBOTS || i == SKIP_EXCLUDED ||
			    i == SKIP_DROPPED ?
			    "links" : "pages", website_skip_text[i]);
	if (b.p != NULL)
		jobs_log(w->c->db, w->c->job_id, "info", "%s", b.p);
	buf_release(&b);
	if (w->nskip[SKIP_DROPPED] > 0)
		jobs_log(w->c->db, w->c->job_id, "warning", "%zu links dropped: the queue "
		    "of pages to fetch was full (%ld URLs, %ld MB: %d times maxPages)",
		    w->nskip[SKIP_DROPPED], w->max_pages * WEBSITE_QUEUE_PER_PAGE,
		    WEBSITE_QUEUE_MAX_BYTES / (1024 * 1024), WEBSITE_QUEUE_PER_PAGE);
	if (w->nunrecorded > 0)
		jobs_log(w->c->db, w->c->job_id, "info", "the links of %zu pages are not "
		    "kept for the next run (over %d links, or the file over %ld MB): those "
		    "pages are fetched in full next time", w->nunrecorded,
		    WEBSITE_PAGE_LINKS_MAX, WEBSITE_LINKS_SAVE_MAX / (1024 * 1024));
	if (left == 0)
		return;
	if (w->cancelled)
		jobs_log(w->c->db, w->c->job_id, "info", "stopped: the job is cancelled");
	else if (w->npages >= (size_t)w->max_pages)
		jobs_log(w->c->db, w->c->job_id, "warning", "stopped at maxPages %ld: %zu "
		    "more links not followed", w->max_pages, left);
	else if (w->bytes >= w->max_bytes)
		jobs_log(w->c->db, w->c->job_id, "warning", "stopped at %zu MB of pages "
		    "(setting limits.max_repo_mb): %zu more links not followed",
		    w->bytes / (1024 * 1024), left);
	else
		jobs_log(w->c->db, w->c->job_id, "warning", "stopped at the job's deadline "
		    "(setting limits.job_timeout_s): %zu more links not followed", left);
}

static void
website_free(struct website *w)
{
	if (w == NULL)
		return;
	json_object_put(w->settings);
	curl_free(w->scheme);
	curl_free(w->host);
	curl_free(w->port);
	free(w->prefix);
	robots_release(&w->robots);
	frontier_release(&w->queue);
	if (w->seen != NULL)
		lh_table_free(w->seen);
	if (w->hashes != NULL)
		lh_table_free(w->hashes);
	if (w->kept != NULL)
		lh_table_free(w->kept);
	if (w->oldlinks != NULL)
		lh_table_free(w->oldlinks);
	buf_release(&w->links);
	free(w);
}

/* The crawler's state for ctx, or NULL with err. */
static struct website *
website_new(struct backend_ctx *c, char *err, size_t errsz)
{
	struct website	*w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		goto nomem;
	w->c = c;
	buf_init(&w->links);
	if ((w->seen = lh_kchar_table_new(1024, website_entry_free)) == NULL ||
	    (w->hashes = lh_kchar_table_new(1024, website_entry_free)) == NULL ||
	    (w->kept = lh_kchar_table_new(1024, website_entry_free)) == NULL ||
	    (w->oldlinks = lh_kchar_table_new(1024, website_entry_free)) == NULL)
		goto nomem;
	if (website_settings(w, err, errsz) == -1 || website_scope(w, err, errsz) == -1) {
		website_free(w);
		return NULL;
	}
	return w;
nomem:
	website_free(w);
	snprintf(err, errsz, "out of memory");
	return NULL;
}

static int
website_fetch(struct backend_ctx *c, struct backend_set *out, char *err, size_t errsz)
{
	struct website	*w;
	char		*start = NULL, *path = NULL;
	int		 rc = -1, more;

	*err = '\0';
	if ((w = website_new(c, err, errsz)) == NULL)
		return -1;
	jobs_log(c->db, c->job_id, "info", "crawling %s (scope %s://%s:%s%s, maxPages %ld, "
	    "maxDepth %ld)", c->url, w->scheme, w->host, w->port, w->prefix, w->max_pages,
	    w->max_depth);
	/* every request is checked against fetch.allowed_networks */
	netpolicy_load(c->db, c->datadir);
	w->conditional = !c->full && website_links_load(w) == 0;
	if (website_robots(w, err, errsz) == -1)
		goto out;
	if ((start = website_resolve(NULL, c->url)) == NULL ||
	    (path = website_path(start)) == NULL)
		goto nomem;
	if (!robots_allowed(&w->robots, path)) {
		snprintf(err, errsz, "robots.txt of %s disallows the start URL %s", w->host,
		    start);
		goto out;
	}
	if (website_set_add(w->seen, start, NULL) == -1 || frontier_push(&w->queue, start, 0, 1) != 1)
		goto nomem;
	if (website_sitemaps(w) == -1)
		goto nomem;
	while ((more = website_batch(w, out, err, errsz)) == 1)
		;
	if (more == -1)
		goto out;
	website_summary(w);
	website_links_save(w);
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	free(start);
	free(path);
	website_free(w);
	return rc;
}

/* An exclude pattern: a glob on the URL path, no control characters. */
static int
website_check_pattern(const char *v, char *err, size_t errsz)
{
	for (; *v != '\0'; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f) {
			snprintf(err, errsz, "must not contain control characters");
			return -1;
		}
	return 0;
}

/* A website entry's own fields (sources/entry.c has the common ones). */
static const struct validate_field website_fields[] = {
	{ .name = "maxPages", .type = VALIDATE_INT, .min = 1, .max = ENTRY_MAX_PAGES,
	    .label = "Maximum pages", .dflt = "100",
	    .doc = "how many pages to index at most (the setting sources.max_pages may "
	    "lower it)" },
	{ .name = "maxDepth", .type = VALIDATE_INT, .max = ENTRY_MAX_DEPTH,
	    .label = "Maximum depth", .dflt = "3",
	    .doc = "how many links away from the start page to follow" },
	{ .name = "excludePatterns", .type = VALIDATE_LIST, .max = ENTRY_LIST_MAX,
	    .elem_max = ENTRY_PATTERN_MAX, .check = website_check_pattern,
	    .label = "Exclude patterns", .dflt = "[]",
	    .doc = "globs on the URL path of pages to leave out, such as /blog/*" },
	{ .name = NULL }
};

/* A website's id: /websites/<host and path>, index.html and trailing '/' dropped. */
static int
website_id(struct parse_req *p, const struct url_parts *u, char *err, size_t errsz)
{
	size_t		 n = strlen(u->path);
	const char	*base = libid_basename(u->path);

	if (strcasecmp(base, "index.html") == 0 || strcasecmp(base, "index.htm") == 0)
		n = (size_t)(base - u->path);
	return libid_of_url(p->id, sizeof(p->id), p->legacy_id, sizeof(p->legacy_id),
	    "/websites/", u->host, u->path, n, err, errsz);
}

static int
website_entry(struct parse_req *p, json_object *o, const struct url_parts *u,
    const char *url_name, char *err, size_t errsz)
{
	(void)url_name;
	if (website_id(p, u, err, errsz) == -1)
		return -1;
	return backend_entry_settings(p, o, website_fields, NULL, err, errsz);
}

const struct backend_ops backend_website = {
	.type = "website",
	.label = "Website",
	.about = "A documentation site, crawled from its start page within the same site.",
	.url_doc = "the start page, such as https://docs.example.com/",
	.policy_word = "website",
	.fields = website_fields,
	.entry = website_entry,
	.version_noun = "content version",
	.validate = website_validate,
	.fetch = website_fetch,
	.forget = website_forget,
};
