/*
 * llmstxt.c: the llms.txt source back end (type "llmstxt", prefix llmsrc_: llmstxt_ is
 * the structure parser's, lib/parse/llmstxt.c). See man/ctxd-source-llmstxt.7.
 *
 * The llms file of the library's URL is fetched (always whole: its links are needed) and
 * becomes a document; an expanded one (<doc> blocks, several H1s) becomes one document
 * per part instead, and its links are not followed. The links of a one-part llms file are
 * followed: a linked llms file (llms*.txt) once, from the given file only (no loops);
 * pages from the given file and the linked llms files, the "## Optional" sections' last,
 * at most maxPages requests in all (sources.max_pages caps it). Scope: only links to the
 * llms file's own host and port (http or https, the scheme's default port standing for
 * either); others are counted, not fetched. A page
 * is asked for as Markdown first: /x.md for /x, /x/index.md then /x.md for /x/, then the
 * address itself with Accept: text/markdown, text/html;q=0.9; an answer in HTML is parsed
 * as HTML. Every request goes through lib/net/fetch.c under fetch.allowed_networks (redirects
 * included), sources.inflight at once (one at a time, sources.crawl_delay_ms apart, when
 * a delay is set), each within sources.page_timeout_s and sources.max_page_kb. A page that
 * fails is a warning; the llms file failing fails the job. Re-index: pages are asked for
 * with If-None-Match / If-Modified-Since, a 304 keeps the stored document.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/util.h"
#include "base/validate.h"
#include "net/fetch.h"
#include "net/url.h"
#include "parse/llmstxt.h"
#include "parse/parse.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "store/jobs.h"
#include "store/netpolicy.h"
#include "store/settings.h"

#define LLMSRC_ACCEPT_PAGE	"Accept: text/markdown, text/html;q=0.9"
#define LLMSRC_ACCEPT_LLMS	"Accept: text/markdown, text/plain;q=0.95, text/html;q=0.5"
#define LLMSRC_MAX_INFLIGHT	32
#define LLMSRC_REDIRECTS	5
/* Pages whose .md addresses all missed, with no .md hit, before they are not asked. */
#define LLMSRC_MD_GIVEUP	3
#define LLMSRC_MAX_VARIANTS	3
/* maxPages when the settings have none (entry.c stores its default with each entry). */
#define LLMSRC_DEFAULT_PAGES	100

struct llmsrc_page {
	char		*url;		/* the link, resolved, without its fragment */
	char		*path;		/* the document's path: the URL's path */
	char		*name;		/* the link's text, or NULL */
	int		 llms;		/* an llms file: asked for as is, links read */
	int		 optional;	/* from an "## Optional" section */
	int		 variant;	/* the next of its addresses to ask */
	int		 done;
	struct backend_stored stored;	/* the previous run's validators */
};

struct llmsrc {
	struct backend_ctx *c;
	struct backend_set *out;
	char		*host;		/* the scope: the llms file's host */
	char		*port;		/* and port; NULL: the scheme's default */
	long		 budget;	/* requests left of maxPages */
	long		 timeout_ms, delay_ms;
	size_t		 inflight, max_size;
	struct llmsrc_page *pages;
	size_t		 npages, cap;
	size_t		*seen;		/* open-addressed set of page indexes + 1 by path */
	size_t		 seen_mask;
	/* counts for the job's summary */
	size_t		 nfetched, nunchanged, nfailed, noffsite, nover, nloops;
	size_t		 nbytes_over;	/* pages not asked: limits.max_repo_mb reached */
	int		 md_hits, md_misses;
	int		 cancelled;	/* backend_stop's answer: 1 cancelled, 2 past the
					 * job's deadline */
	size_t		 bytes, max_bytes; /* fetched so far, limits.max_repo_mb */
};

static int
llmsrc_validate(const char *settings, char *err, size_t errsz)
{
	json_object	*o = json_tokener_parse(settings), *v;
	int		 rc = -1;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		snprintf(err, errsz, "the library's stored settings are unreadable");
	else if (json_object_object_get_ex(o, "maxPages", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1 ||
	    json_object_get_int64(v) > ENTRY_MAX_PAGES))
		snprintf(err, errsz, "the library's maxPages must be a whole number from "
		    "1 to %d", ENTRY_MAX_PAGES);
	else
		rc = 0;
	json_object_put(o);
	return rc;
}

/* maxPages of the settings (default LLMSRC_DEFAULT_PAGES), capped by sources.max_pages. */
static long
llmsrc_max_pages(struct backend_ctx *c)
{
	json_object	*o = json_tokener_parse(c->settings), *v;
	long		 n = LLMSRC_DEFAULT_PAGES, cap;

	if (o != NULL && json_object_object_get_ex(o, "maxPages", &v))
		n = (long)json_object_get_int64(v);
	json_object_put(o);
	cap = settings_get_long(c->db, c->datadir, "sources.max_pages", 1000);
	if (n > cap) {
		jobs_log(c->db, c->job_id, "info", "maxPages %ld is capped at %ld (setting "
		    "sources.max_pages)", n, cap);
		n = cap;
	}
	return n < 1 ? 1 : n;
}

/* The port of u, or NULL when it has none or its scheme's default (curl_free it). */
static char *
llmsrc_port(CURLU *u)
{
	char	*port = NULL, *scheme = NULL;

	if (curl_url_get(u, CURLUPART_PORT, &port, 0) != CURLUE_OK)
		return NULL;
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    ((strcmp(scheme, "http") == 0 && strcmp(port, "80") == 0) ||
	    (strcmp(scheme, "https") == 0 && strcmp(port, "443") == 0))) {
		curl_free(port);
		port = NULL;
	}
	curl_free(scheme);
	return port;
}

/* 1 when ports a and b (llmsrc_port's) are the same. */
static int
llmsrc_port_eq(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/*
 * Resolves link against base: 0 with *url (no fragment) and *path (the URL's path
 * without its leading '/', "index" for the root; malloc'd), 1 when it is not an http(s)
 * link or leaves the scope host and port (off-site), -1 out of memory.
 */
static int
llmsrc_resolve(struct llmsrc *s, const char *base, const char *link, char **url,
    char **path)
{
	CURLU	*u = curl_url();
	char	*scheme = NULL, *host = NULL, *p = NULL, *port = NULL;
	int	 rc = 1;

	*url = *path = NULL;
	if (u == NULL)
		return -1;
	if (curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_URL, link, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PATH, &p, 0) != CURLUE_OK)
		goto out;
	if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
		goto out;
	port = llmsrc_port(u);
	if (strcasecmp(host, s->host) != 0 || !llmsrc_port_eq(port, s->port)) {
		s->noffsite++;
		goto out;
	}
	rc = -1;
	if (curl_url_get(u, CURLUPART_URL, url, 0) != CURLUE_OK)
		goto out;
	if ((*path = strdup(p[0] == '/' && p[1] != '\0' ? p + 1 :
	    p[0] == '/' ? "index" : p)) == NULL) {
		curl_free(*url);
		*url = NULL;
		goto out;
	}
	rc = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(p);
	curl_url_cleanup(u);
	return rc;
}

/*
 * The slot of path in the set of pages seen: the slot holding its page (index + 1), or
 * the empty one where it goes. The set holds at least twice as many slots as pages.
 */
static size_t *
llmsrc_seen(struct llmsrc *s, const char *path)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;
	const char	*p;
	size_t		 i;

	for (p = path; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (i = (size_t)h & s->seen_mask; s->seen[i] != 0 &&
	    strcmp(s->pages[s->seen[i] - 1].path, path) != 0; i = (i + 1) & s->seen_mask)
		;
	return &s->seen[i];
}

/* Fills the set of pages seen anew (after the pages moved). */
static void
llmsrc_seen_fill(struct llmsrc *s)
{
	size_t	 i;

	memset(s->seen, 0, (s->seen_mask + 1) * sizeof(*s->seen));
	for (i = 0; i < s->npages; i++)
		*llmsrc_seen(s, s->pages[i].path) = i + 1;
}

/* Grows the set of pages seen to hold twice the pages (doubling). */
static int
llmsrc_seen_grow(struct llmsrc *s)
{
	size_t		*old = s->seen, n = s->seen_mask + 1;

	if (s->seen != NULL && s->npages * 2 < n)
		return 0;
	n = s->seen != NULL ? n * 2 : 256;
	if ((s->seen = calloc(n, sizeof(*s->seen))) == NULL) {
		s->seen = old;
		return -1;
	}
	s->seen_mask = n - 1;
	llmsrc_seen_fill(s);
	free(old);
	return 0;
}

/*
 * Adds the page of link (resolved against base) unless it is off-site, not http(s), or
 * already in the set: 0 (added or not), -1 out of memory.
 */
static int
llmsrc_add(struct llmsrc *s, const char *base, const struct llmstxt_link *l, int llms)
{
	struct llmsrc_page *p;
	char		*url, *path;
	size_t		 cap;
	int		 r;

	if ((r = llmsrc_resolve(s, base, l->url, &url, &path)) != 0)
		return r == 1 ? 0 : -1;
	if (llmsrc_seen_grow(s) == -1)
		goto nomem;
	if (*llmsrc_seen(s, path) != 0) {
		curl_free(url);
		free(path);
		return 0;
	}
	if (s->npages == s->cap) {
		cap = s->cap ? s->cap * 2 : 64;
		if ((p = reallocarray(s->pages, cap, sizeof(*p))) == NULL)
			goto nomem;
		s->pages = p;
		s->cap = cap;
	}
	p = &s->pages[s->npages];
	memset(p, 0, sizeof(*p));
	p->path = path;
	p->llms = llms;
	p->optional = l->optional;
	if ((p->url = strdup(url)) == NULL ||
	    (l->name != NULL && (p->name = strdup(l->name)) == NULL)) {
		free(p->url);
		free(p->name);
		goto nomem;
	}
	*llmsrc_seen(s, path) = ++s->npages;
	curl_free(url);
	return 0;
nomem:
	curl_free(url);
	free(path);
	return -1;
}

/* The addresses to ask for page p, Markdown first: 1..LLMSRC_MAX_VARIANTS of them. */
static int
llmsrc_variants(struct llmsrc *s, const struct llmsrc_page *p,
    char v[LLMSRC_MAX_VARIANTS][2048])
{
	CURLU	*u;
	char	*path = NULL, *x = NULL, buf[2048];
	size_t	 n, k = 0;
	const char *suffix[2];
	int	 i;

	if (p->llms || util_str_endswith(p->path, ".md") ||
	    util_str_endswith(p->path, ".markdown") || util_str_endswith(p->path, ".txt") ||
	    (s->md_hits == 0 && s->md_misses >= LLMSRC_MD_GIVEUP) ||
	    (u = curl_url()) == NULL) {
		snprintf(v[0], sizeof(v[0]), "%s", p->url);
		return 1;
	}
	if (curl_url_set(u, CURLUPART_URL, p->url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK) {
		n = strlen(path);
		suffix[0] = path[n - 1] == '/' ? "index.md" : ".md";
		suffix[1] = path[n - 1] == '/' && n > 1 ? ".md" : NULL;
		for (i = 0; i < 2 && suffix[i] != NULL; i++) {
			snprintf(buf, sizeof(buf), "%.*s%s", (int)(i == 1 ? n - 1 : n), path,
			    suffix[i]);
			if (curl_url_set(u, CURLUPART_PATH, buf, 0) == CURLUE_OK &&
			    curl_url_get(u, CURLUPART_URL, &x, 0) == CURLUE_OK &&
			    strlen(x) < sizeof(v[0]))
				snprintf(v[k++], sizeof(v[0]), "%s", x);
			curl_free(x);
			x = NULL;
		}
	}
	curl_free(path);
	curl_url_cleanup(u);
	snprintf(v[k++], sizeof(v[0]), "%s", p->url);
	return (int)k;
}

/* 1 when a Markdown page names its own title (front matter "title:" or a first H1). */
static int
llmsrc_md_titled(const char *s)
{
	const char	*end;

	s += strspn(s, " \t\r\n");
	if (strncmp(s, "---", 3) == 0 && (end = strstr(s + 3, "\n---")) != NULL) {
		if (strncmp(s + 3, "\ntitle:", 7) == 0 || memmem(s, (size_t)(end - s),
		    "\ntitle:", 7) != NULL)
			return 1;
		s = end + 4;
		s += strcspn(s, "\n");
		s += strspn(s, " \t\r\n");
	}
	return s[0] == '#' && (s[1] == ' ' || s[1] == '\t');
}

/* The HTTP validators of an answer into d. */
static int
llmsrc_validators(struct backend_doc *d, const struct fetch_req *q)
{
	char	 v[512];

	if (fetch_answer_header(q, "ETag", v, sizeof(v)) && (d->etag = strdup(v)) == NULL)
		return -1;
	if (fetch_answer_header(q, "Last-Modified", v, sizeof(v)) &&
	    (d->modified = strdup(v)) == NULL)
		return -1;
	return 0;
}

/*
 * A document of content data[0..len) (copied) at path with its web address url, format
 * and title (each may be NULL): NULL out of memory.
 */
static struct backend_doc *
llmsrc_doc(struct llmsrc *s, const char *path, const char *url, const char *data,
    size_t len, const char *format, const char *title)
{
	struct backend_doc *d;
	char		 hash[65];

	crypto_sha256_hex(data, len, hash);
	if ((d = backend_set_add(s->out, path, hash, len)) == NULL)
		return NULL;
	d->format = format;
	if ((d->data = malloc(len + 1)) == NULL || (d->url = strdup(url)) == NULL ||
	    (title != NULL && (d->title = strdup(title)) == NULL))
		return NULL;
	memcpy(d->data, data, len);
	d->data[len] = '\0';
	d->len = len;
	return d;
}

/* base joined with link (absolute, no fragment; malloc'd), or NULL. */
static char *
llmsrc_join(const char *base, const char *link)
{
	CURLU	*u = curl_url();
	char	*x = NULL, *r = NULL;

	if (u != NULL && curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_URL, link, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &x, 0) == CURLUE_OK &&
	    (strncmp(x, "http://", 7) == 0 || strncmp(x, "https://", 8) == 0))
		r = strdup(x);
	curl_free(x);
	curl_url_cleanup(u);
	return r;
}

/*
 * The parts of an expanded llms file at path (address url): a document each, its path
 * "PATH/N-slug-of-title", its address the part's own when it names one.
 */
static int
llmsrc_parts(struct llmsrc *s, const char *path, const char *url, const char *data,
    const struct llmstxt_parts *parts)
{
	const struct llmstxt_part *pt;
	struct buf	 b;
	char		*slug, *own;
	size_t		 i;
	int		 rc = 0;

	buf_init(&b);
	for (i = 0; i < parts->n && rc == 0; i++) {
		pt = &parts->v[i];
		slug = doc_slug(pt->title != NULL ? pt->title : "part");
		own = pt->url != NULL ? llmsrc_join(url, pt->url) : NULL;
		buf_reset(&b);
		if (slug == NULL || buf_printf(&b, "%s/%zu-%s", path, i + 1, slug) == -1 ||
		    llmsrc_doc(s, b.p, own != NULL ? own : url, data + pt->off, pt->len,
		    DOC_FORMAT_MARKDOWN, pt->title) == NULL)
			rc = -1;
		free(slug);
		free(own);
	}
	buf_release(&b);
	jobs_log(s->c->db, s->c->job_id, "info", "%s is split into %zu documents by its %s"
	    "%s; its links are not followed", url, parts->n, parts->form == LLMSTXT_BLOCKS ?
	    "<doc> blocks" : "H1 headings", parts->dropped ? " (more parts were dropped)" :
	    "");
	return rc;
}

/*
 * An llms file's answer (page p): its documents and, when it is one part, its links
 * (llms files among them only when p is the given file). 0, or -1 out of memory.
 */
static int
llmsrc_llms(struct llmsrc *s, size_t pi, const struct fetch_req *q, int root)
{
	struct llmstxt_parts parts;
	struct llmstxt	 t;
	struct backend_doc *d;
	const char	*base = q->final_url != NULL ? q->final_url : q->url;
	char		*url = NULL, *path = NULL;
	size_t		 i, nopt = 0;
	int		 rc = -1, llms;

	if (llmstxt_split(q->answer.p, q->answer.len, &parts) == -1)
		return -1;
	if (parts.form != LLMSTXT_WHOLE) {
		rc = llmsrc_parts(s, s->pages[pi].path, s->pages[pi].url, q->answer.p, &parts);
		llmstxt_parts_release(&parts);
		return rc;
	}
	if ((d = llmsrc_doc(s, s->pages[pi].path, s->pages[pi].url, q->answer.p ?
	    q->answer.p : "", q->answer.len, DOC_FORMAT_MARKDOWN, NULL)) == NULL ||
	    llmsrc_validators(d, q) == -1 || llmstxt_parse(q->answer.p ? q->answer.p :
	    "", q->answer.len, &t) == -1)
		return -1;
	/* the given file's H1 names the library when its user did not */
	if (root && t.title != NULL && *t.title != '\0' && s->out->title == NULL &&
	    (s->out->title = strndup(t.title, 200)) == NULL)
		goto out;
	if (s->out->title != NULL)
		util_utf8_trim(s->out->title);
	for (i = 0; i < t.nlinks; i++) {
		nopt += t.links[i].optional;
		if ((rc = llmsrc_resolve(s, base, t.links[i].url, &url, &path)) == -1)
			goto out;
		llms = rc == 0 && llmstxt_is_llms_path(path);
		curl_free(url);
		free(path);
		if (rc == 1)
			continue;
		if (llms && !root)
			s->nloops++;
		else if (llmsrc_add(s, base, &t.links[i], llms) == -1)
			goto out;
	}
	jobs_log(s->c->db, s->c->job_id, "info", "%s: \"%s\", %zu links in %zu sections "
	    "(%zu in Optional)%s", s->pages[pi].url, t.title ? t.title : "", t.nlinks,
	    t.nsections, nopt, t.dropped ? ", more links were dropped" : "");
	rc = 0;
out:
	llmstxt_release(&t);
	return rc;
}

/*
 * A kept document for a 304 answer q to page p: its validators for the next run are the
 * ETag the 304 sends (RFC 9110: it is the current one), else the stored one.
 */
static int
llmsrc_unchanged(struct llmsrc *s, struct llmsrc_page *p, const struct fetch_req *q)
{
	struct backend_doc *d;
	char		 v[512];
	const char	*etag = fetch_answer_header(q, "ETag", v, sizeof(v)) ? v :
	    p->stored.etag;

	if ((d = backend_set_add(s->out, p->path, p->stored.hash, 0)) == NULL ||
	    (d->url = strdup(p->url)) == NULL ||
	    (etag != NULL && (d->etag = strdup(etag)) == NULL) ||
	    (p->stored.modified != NULL &&
	    (d->modified = strdup(p->stored.modified)) == NULL))
		return -1;
	d->changed = 0;
	s->nunchanged++;
	return 0;
}

/* A page's 2xx answer into a document: Markdown, or HTML when it says so. */
static int
llmsrc_page_doc(struct llmsrc *s, struct llmsrc_page *p, const struct fetch_req *q,
    int html)
{
	struct backend_doc *d;
	const char	*data = q->answer.p != NULL ? q->answer.p : "";
	int		 titled;

	titled = html ? strcasestr(data, "<title") != NULL : llmsrc_md_titled(data);
	if ((d = llmsrc_doc(s, p->path, p->url, data, q->answer.len, html ?
	    DOC_FORMAT_HTML : DOC_FORMAT_MARKDOWN, titled ? NULL : p->name)) == NULL ||
	    llmsrc_validators(d, q) == -1)
		return -1;
	return 0;
}

/* The failure of a page's request, logged as a warning. */
static void
llmsrc_failed(struct llmsrc *s, const struct fetch_req *q)
{
	char	 why[1024];

	backend_http_error(q, why, sizeof(why));
	jobs_log(s->c->db, s->c->job_id, "warning", "page not indexed: %s", why);
	s->nfailed++;
}

/*
 * What becomes of page pi after its request q for address variant (of nv): 0 done, 1
 * ask its next address, -1 out of memory.
 */
static int
llmsrc_answer(struct llmsrc *s, size_t pi, const struct fetch_req *q, int nv)
{
	struct llmsrc_page *p = &s->pages[pi];
	char		 ct[128];
	int		 last = p->variant >= nv - 1, html;

	if (q->result == FETCH_OK && q->status == 304 && p->stored.hash[0] != '\0')
		return llmsrc_unchanged(s, p, q);
	if (q->result == FETCH_OK && q->status / 100 == 2) {
		fetch_answer_header(q, "Content-Type", ct, sizeof(ct));
		html = strncasecmp(ct, "text/html", 9) == 0 ||
		    strncasecmp(ct, "application/xhtml", 17) == 0;
		if (!last && html)	/* a site that answers every path with its app */
			return 1;
		s->nfetched++;
		s->bytes += q->answer.len;
		if (!last)
			s->md_hits++;
		else if (p->variant > 0)
			s->md_misses++;
		if (p->llms)
			return llmsrc_llms(s, pi, q, 0);
		return llmsrc_page_doc(s, p, q, html);
	}
	if (!last && q->result == FETCH_OK && (q->status == 404 || q->status == 410))
		return 1;
	llmsrc_failed(s, q);
	return 0;
}

/* The request for page p's current address v (headers kept in hdr). */
static void
llmsrc_req(struct llmsrc *s, struct llmsrc_page *p, const char *v,
    char hdr[2][600], struct fetch_req *q)
{
	int	 h = 0;

	fetch_req_init(q);
	q->url = v;
	backend_page_deadline(s->c, s->timeout_ms, q);
	q->max_size = s->max_size;
	q->redirects = LLMSRC_REDIRECTS;
	q->tries = 2;
	q->retry = FETCH_RETRY_HTTP;
	q->headers[h++] = p->llms ? LLMSRC_ACCEPT_LLMS : LLMSRC_ACCEPT_PAGE;
	if (p->stored.hash[0] != '\0' && p->stored.etag != NULL &&
	    strlen(p->stored.etag) < 500) {
		snprintf(hdr[0], 600, "If-None-Match: %s", p->stored.etag);
		q->headers[h++] = hdr[0];
	}
	if (p->stored.hash[0] != '\0' && p->stored.modified != NULL &&
	    strlen(p->stored.modified) < 500) {
		snprintf(hdr[1], 600, "If-Modified-Since: %s", p->stored.modified);
		q->headers[h++] = hdr[1];
	}
	q->headers[h] = NULL;
}

/* One round's buffers: the requests in flight at once. */
struct llmsrc_round {
	struct fetch_req q[LLMSRC_MAX_INFLIGHT];
	size_t		 page[LLMSRC_MAX_INFLIGHT];
	int		 nv[LLMSRC_MAX_INFLIGHT];
	char		 v[LLMSRC_MAX_INFLIGHT][LLMSRC_MAX_VARIANTS][2048];
	char		 hdr[LLMSRC_MAX_INFLIGHT][2][600];
};

/* Picks the next pages of [*next, to) to ask (those asking again first) into r. */
static size_t
llmsrc_pick(struct llmsrc *s, struct llmsrc_round *r, size_t k, size_t *next, size_t to)
{
	struct llmsrc_page *p;

	for (; k < s->inflight && *next < to; (*next)++) {
		p = &s->pages[*next];
		if (p->done)
			continue;
		if (s->bytes >= s->max_bytes) {	/* not asked: counted in the summary */
			p->done = 1;
			s->nbytes_over++;
			continue;
		}
		if (!s->c->full && !p->llms &&
		    backend_stored_get(s->c, p->path, &p->stored) == -1)
			memset(&p->stored, 0, sizeof(p->stored));
		r->page[k] = *next;
		r->nv[k] = llmsrc_variants(s, p, r->v[k]);
		k++;
	}
	return k;
}

/* Fetches pages [from, to): each is done (a document, kept, or a warning) at the end. */
static int
llmsrc_run(struct llmsrc *s, size_t from, size_t to)
{
	struct llmsrc_round *r;
	struct llmsrc_page *p;
	struct fetch	 f;
	size_t		 k = 0, i, j, next = from;
	int		 rc = 0, a;
	struct timespec	 ts = { s->delay_ms / 1000, (s->delay_ms % 1000) * 1000000L };

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return -1;
	fetch_init(&f);
	while (rc == 0 && (k = llmsrc_pick(s, r, k, &next, to)) > 0) {
		/*
		 * a cancelled job or one past its deadline: no more requests, the
		 * pipeline's next check ends it
		 */
		if ((s->cancelled = backend_stop(s->c)) != 0)
			break;
		for (i = 0; i < k; i++) {
			p = &s->pages[r->page[i]];
			llmsrc_req(s, p, r->v[i][p->variant], r->hdr[i], &r->q[i]);
		}
		fetch_run(&f, r->q, k);
		for (i = j = 0; i < k; i++) {
			p = &s->pages[r->page[i]];
			a = 0;
			if (rc == 0 && (a = llmsrc_answer(s, r->page[i], &r->q[i],
			    r->nv[i])) == 1) {
				p = &s->pages[r->page[i]];	/* pages may have grown */
				p->variant++;	/* asked again, first in the next round */
				r->page[j] = r->page[i];
				r->nv[j] = r->nv[i];
				if (j != i)
					memcpy(r->v[j], r->v[i], sizeof(r->v[i]));
				j++;
			} else if (a == -1)
				rc = -1;
			else
				s->pages[r->page[i]].done = 1;
			fetch_req_release(&r->q[i]);
		}
		k = j;
		if (s->delay_ms > 0)
			nanosleep(&ts, NULL);
	}
	fetch_release(&f);
	free(r);
	return rc;
}

/*
 * Orders pages [from, npages) stably: llms files, then pages, then the Optional
 * sections' pages. Then spends the budget on them in that order (on the llms files only
 * with llms_only), marking done (not asked) those past it. Returns the end of the range
 * spent on.
 */
static size_t
llmsrc_order(struct llmsrc *s, size_t from, int llms_only, int *nomem)
{
	struct llmsrc_page *v;
	size_t		 n = s->npages - from, k = 0, i;
	int		 pass;

	if (n == 0)
		return from;
	if ((v = calloc(n, sizeof(*v))) == NULL) {
		*nomem = 1;
		return from;
	}
	for (pass = 0; pass < 3; pass++)
		for (i = from; i < s->npages; i++)
			if ((pass == 0 && s->pages[i].llms) || (pass == 1 &&
			    !s->pages[i].llms && !s->pages[i].optional) || (pass == 2 &&
			    !s->pages[i].llms && s->pages[i].optional))
				v[k++] = s->pages[i];
	memcpy(s->pages + from, v, n * sizeof(*v));
	free(v);
	llmsrc_seen_fill(s);
	for (i = from; i < s->npages && (!llms_only || s->pages[i].llms); i++) {
		if (s->budget > 0)
			s->budget--;
		else if (!s->pages[i].done) {
			s->pages[i].done = 1;
			s->nover++;
		}
	}
	return i;
}

/* Reads the limits of the sources.* settings and the scope host into s. */
static int
llmsrc_setup(struct llmsrc *s, char *err, size_t errsz)
{
	struct backend_ctx *c = s->c;
	CURLU		*u = curl_url();
	s->budget = llmsrc_max_pages(c);
	s->timeout_ms = settings_get_long(c->db, c->datadir, "sources.page_timeout_s",
	    30) * 1000;
	s->inflight = (size_t)settings_get_long(c->db, c->datadir, "sources.inflight", 4);
	s->delay_ms = settings_get_long(c->db, c->datadir, "sources.crawl_delay_ms", 0);
	s->max_size = (size_t)settings_get_long(c->db, c->datadir, "sources.max_page_kb",
	    4096) * 1024;
	s->max_bytes = (size_t)c->max_fetch_mb * 1024 * 1024;
	if (s->inflight > LLMSRC_MAX_INFLIGHT)
		s->inflight = LLMSRC_MAX_INFLIGHT;
	if (s->inflight < 1 || s->delay_ms > 0)
		s->inflight = 1;
	if (u == NULL || curl_url_set(u, CURLUPART_URL, c->url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &s->host, 0) != CURLUE_OK) {
		curl_url_cleanup(u);
		snprintf(err, errsz, "the library's URL is not a URL");
		return -1;
	}
	s->port = llmsrc_port(u);
	curl_url_cleanup(u);
	return 0;
}

/*
 * The scope after the llms file's redirects: the host and port of the address that
 * answered (example.com/llms.txt moved to docs.example.com: its links are
 * docs.example.com's).
 */
static int
llmsrc_scope(struct llmsrc *s, const char *final)
{
	CURLU	*u;
	char	*host = NULL, *port = NULL;

	if (final == NULL || (u = curl_url()) == NULL)
		return 0;
	if (curl_url_set(u, CURLUPART_URL, final, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    (port = llmsrc_port(u), strcasecmp(host, s->host) != 0 ||
	    !llmsrc_port_eq(port, s->port))) {
		jobs_log(s->c->db, s->c->job_id, "info", "%s moved to %s: its links are "
		    "fetched on %s%s%s", s->c->url, final, host, port != NULL ? ":" : "",
		    port != NULL ? port : "");
		curl_free(s->host);
		curl_free(s->port);
		s->host = host;
		s->port = port;
		host = port = NULL;
	}
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return 0;
}

/* The given llms file: fetched whole, its failure the job's. */
static int
llmsrc_root(struct llmsrc *s, char *err, size_t errsz)
{
	struct llmstxt_link l = { NULL, NULL, NULL, NULL, 0 };
	struct fetch_req q;
	struct fetch	 f;
	char		 v[LLMSRC_MAX_VARIANTS][2048], hdr[2][600];
	int		 rc = -1;

	l.url = (char *)s->c->url;
	if (llmsrc_add(s, s->c->url, &l, 1) == -1 || s->npages != 1) {
		snprintf(err, errsz, "the library's URL %s is not an http or https URL",
		    s->c->url);
		return -1;
	}
	llmsrc_variants(s, &s->pages[0], v);
	llmsrc_req(s, &s->pages[0], v[0], hdr, &q);
	fetch_init(&f);
	fetch_run(&f, &q, 1);
	s->budget--;
	s->pages[0].done = 1;
	if (q.result != FETCH_OK || q.status / 100 != 2)
		backend_http_error(&q, err, errsz);
	else if (llmsrc_scope(s, q.final_url) == -1 || llmsrc_llms(s, 0, &q, 1) == -1)
		snprintf(err, errsz, "out of memory");
	else {
		s->nfetched++;
		rc = 0;
	}
	fetch_req_release(&q);
	fetch_release(&f);
	return rc;
}

static int
llmsrc_fetch(struct backend_ctx *c, struct backend_set *out, char *err, size_t errsz)
{
	struct llmsrc	*s;
	size_t		 end, from;
	int		 nomem = 0;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	c->priv = s;
	s->c = c;
	s->out = out;
	if (llmsrc_setup(s, err, errsz) == -1)
		return -1;
	/* Every request, redirects included, is checked against fetch.allowed_networks. */
	netpolicy_load(c->db, c->datadir);
	jobs_log(c->db, c->job_id, "info", "fetching %s (at most %ld pages)", c->url,
	    s->budget);
	if (llmsrc_root(s, err, errsz) == -1)
		return -1;
	end = llmsrc_order(s, 1, 1, &nomem);	/* the linked llms files first */
	if (nomem || llmsrc_run(s, 1, end) == -1)
		goto nomem;
	from = end;
	end = llmsrc_order(s, from, 0, &nomem);
	if (nomem || (!s->cancelled && llmsrc_run(s, from, end) == -1))
		goto nomem;
	if (s->cancelled == 1)
		jobs_log(c->db, c->job_id, "info", "stopped: the job is cancelled");
	else if (s->cancelled == 2)
		jobs_log(c->db, c->job_id, "warning", "stopped at the job's deadline "
		    "(setting limits.job_timeout_s): pages not fetched");
	if (s->nbytes_over > 0)
		jobs_log(c->db, c->job_id, "warning", "stopped at %ld MB fetched (setting "
		    "limits.max_repo_mb): %zu pages not fetched", c->max_fetch_mb,
		    s->nbytes_over);
	jobs_log(c->db, c->job_id, s->nfailed > 0 ? "warning" : "info",
	    "fetched %zu pages (%zu of them unchanged), %zu failed; %zu links off %s%s%s "
	    "not followed; %zu links past maxPages not fetched; %zu llms files linked from "
	    "linked llms files not followed", s->nfetched + s->nunchanged, s->nunchanged,
	    s->nfailed, s->noffsite, s->host, s->port != NULL ? ":" : "",
	    s->port != NULL ? s->port : "", s->nover, s->nloops);
	return 0;
nomem:
	snprintf(err, errsz, "out of memory");
	return -1;
}

static void
llmsrc_release(struct backend_ctx *c)
{
	struct llmsrc	*s = c->priv;
	size_t		 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->npages; i++) {
		free(s->pages[i].url);
		free(s->pages[i].path);
		free(s->pages[i].name);
		backend_stored_release(&s->pages[i].stored);
	}
	free(s->pages);
	free(s->seen);
	curl_free(s->host);
	curl_free(s->port);
	free(s);
	c->priv = NULL;
}

/* An llms.txt entry's own fields (sources/entry.c has the common ones). */
static const struct validate_field llmsrc_fields[] = {
	{ .name = "maxPages", .type = VALIDATE_INT, .min = 1, .max = ENTRY_MAX_PAGES,
	    .label = "Maximum pages", .dflt = "100",
	    .doc = "how many of the pages it lists to index at most (the setting "
	    "sources.max_pages may lower it)" },
	{ .name = NULL }
};

/* llms.txt: /llmstxt/<host and folder>-<file>; the file must be an llms file. */
static int
llmsrc_id(struct parse_req *p, const struct url_parts *u, const char *name,
    char *err, size_t errsz)
{
	const char	*base = libid_basename(u->path);
	char		 file[32];
	size_t		 i, n;

	if (strcasecmp(base, "llms.txt") != 0 && strcasecmp(base, "llms-full.txt") != 0 &&
	    strcasecmp(base, "llms-small.txt") != 0) {
		snprintf(err, errsz, "field '%s' must point to a file named llms.txt, "
		    "llms-full.txt or llms-small.txt", name);
		return -1;
	}
	if (libid_of_url(p->id, sizeof(p->id), p->legacy_id, sizeof(p->legacy_id),
	    "/llmstxt/", u->host, u->path, (size_t)(base - u->path), err, errsz) == -1)
		return -1;
	for (i = 0; base[i] != '\0' && i + 1 < sizeof(file); i++)
		file[i] = (char)tolower((unsigned char)base[i]);
	file[i] = '\0';
	n = strlen(p->id);
	if ((size_t)snprintf(p->id + n, sizeof(p->id) - n, "-%s", file) >=
	    sizeof(p->id) - n) {
		snprintf(err, errsz, "field '%s' is too long", name);
		return -1;
	}
	n = strlen(p->legacy_id);
	if (n > 0 && (size_t)snprintf(p->legacy_id + n, sizeof(p->legacy_id) - n, "-%s",
	    file) >= sizeof(p->legacy_id) - n)
		p->legacy_id[0] = '\0';
	return 0;
}

static int
llmsrc_entry(struct parse_req *p, json_object *o, const struct url_parts *u,
    const char *url_name, char *err, size_t errsz)
{
	if (llmsrc_id(p, u, url_name, err, errsz) == -1)
		return -1;
	return backend_entry_settings(p, o, llmsrc_fields, NULL, err, errsz);
}

const struct backend_ops backend_llmstxt = {
	.type = "llmstxt",
	.label = "llms.txt",
	.about = "A site's llms.txt file and the pages it lists.",
	.url_doc = "the address of llms.txt, llms-full.txt or llms-small.txt",
	.policy_word = "llmstxt",
	.fields = llmsrc_fields,
	.entry = llmsrc_entry,
	.version_noun = "content version",
	.validate = llmsrc_validate,
	.fetch = llmsrc_fetch,
	.release = llmsrc_release,
};
