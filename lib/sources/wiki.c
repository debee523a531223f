/*
 * wiki.c: the wiki source back end (Confluence-type sites, Cloud and Data Center). A wiki
 * library names a whole space (spaceKey, with spaceId on Cloud) or pages by their URLs
 * (pageUrls, with includeSubPages for each page's sub-tree). The pages are read through
 * the site's REST API with the credentials of the wiki integration settings:
 *  - cloud: REST v2 under https://SITE/wiki/api/v2 (cursor pagination), Basic auth with
 *    wiki.email and wiki.token (an API token);
 *  - datacenter: REST under SITE[/context]/rest/api (offset pagination), Bearer auth with
 *    wiki.token (a personal access token).
 * Every request goes to the configured site's scheme, host and port only (no redirect is
 * followed, a next link or page URL of another origin is refused), under the address
 * policy of fetch.allowed_networks, with the limits of the sources.* settings. Each page
 * is a document of format "storage" (its storage-format XHTML body), path "pages/ID",
 * its web URL, its title, and its version number kept as the document's etag ("vN"): a
 * page whose stored version is the same is not parsed again.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/util.h"
#include "base/validate.h"
#include "net/fetch.h"
#include "net/url.h"
#include "parse/parse.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "store/jobs.h"
#include "store/netpolicy.h"
#include "store/settings.h"

#define WIKI_LIST_LIMIT		25	/* items asked per list request */
#define WIKI_MAX_DEPTH		32	/* sub-page levels below a given page */
#define WIKI_MAX_LISTS		20000	/* list requests of one job */
#define WIKI_ID_MAX		20	/* digits of a page or space id */
#define WIKI_TRIES		3
#define WIKI_INFLIGHT_MAX	32	/* the bound of sources.inflight */

enum wiki_kind { WIKI_CLOUD, WIKI_DC };

/* A set of 64-bit keys (page ids, hashes of list URLs): open addressing, 0 is free. */
struct wiki_set {
	uint64_t	*v;
	size_t		 n, cap;
};

/* A page to visit for its sub-pages, and how deep below a given page it is. */
struct wiki_todo {
	uint64_t	 id;
	int		 depth;
};

struct wiki {
	struct backend_ctx *c;
	struct backend_set *out;
	enum wiki_kind	 kind;
	char		*origin;	/* scheme://host[:port] of wiki.site_url */
	char		*context;	/* datacenter: the site URL's path ("" or
					 * "/confluence"); cloud: "/wiki" */
	char		*api;		/* origin + context: where API paths and webui
					 * links start */
	char		*auth;		/* "Authorization: ..." header */
	char		*token, *email;
	struct fetch	 f;
	size_t		 page_max;	/* bytes of one page body (sources.max_page_kb) */
	long		 timeout_ms, delay_ms;
	size_t		 max_pages;
	long long	 last_ms;
	size_t		 nlists;
	int		 full;		/* max_pages reached */
	struct wiki_set	 ids, lists;
	struct wiki_todo *todo;
	size_t		 ntodo, captodo;
	uint64_t	*pending;	/* pages to fetch by id (wiki_flush) */
	size_t		 npending, cappending;
	size_t		 inflight;	/* requests at once (sources.inflight) */
};

/* A page named by URL (wiki_ref_parse). */
enum wiki_form { WIKI_BY_ID, WIKI_BY_TITLE, WIKI_BY_TINY };
struct wiki_ref {
	enum wiki_form	 form;
	const char	*name;		/* the form, for messages */
	int		 cloud_ok, dc_ok;
	char		 prefix[256];	/* the path before the form's segments */
	uint64_t	 id;
	char		 space[256];
	char		*title;		/* decoded (BY_TITLE) */
};

/* ---------------------------------------------------------------- small helpers */

static int
wiki_set_add(struct wiki_set *s, uint64_t k)
{
	uint64_t	*v;
	size_t		 i, cap;

	if (k == 0)
		k = 1;
	if (2 * (s->n + 1) > s->cap) {
		cap = s->cap ? s->cap * 2 : 256;
		if ((v = calloc(cap, sizeof(*v))) == NULL)
			return -1;
		for (i = 0; i < s->cap; i++)
			if (s->v[i] != 0) {
				size_t j = (size_t)(s->v[i] * 0x9E3779B97F4A7C15ULL) &
				    (cap - 1);
				while (v[j] != 0)
					j = (j + 1) & (cap - 1);
				v[j] = s->v[i];
			}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	i = (size_t)(k * 0x9E3779B97F4A7C15ULL) & (s->cap - 1);
	for (; s->v[i] != 0; i = (i + 1) & (s->cap - 1))
		if (s->v[i] == k)
			return 0;
	s->v[i] = k;
	s->n++;
	return 1;
}

/* A 64-bit hash of a text (FNV-1a), for the set of list URLs seen. */
static uint64_t
wiki_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* A page or space id: 1 to WIKI_ID_MAX digits, not 0. 0 and *out, or -1. */
static int
wiki_id(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t	 i;

	if (n == 0 || n > WIKI_ID_MAX - 1)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v == 0)
		return -1;
	*out = v;
	return 0;
}

/* A JSON member by a dotted path ("body.storage.value"), NULL when absent. */
static json_object *
wiki_get_path(json_object *o, const char *path)
{
	char		 k[64];
	const char	*dot;
	size_t		 n;

	while (o != NULL && *path != '\0') {
		dot = strchr(path, '.');
		n = dot != NULL ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(k) || !json_object_is_type(o, json_type_object))
			return NULL;
		memcpy(k, path, n);
		k[n] = '\0';
		if (!json_object_object_get_ex(o, k, &o))
			return NULL;
		path += n + (dot != NULL);
	}
	return o;
}

/* A string member by a dotted path, NULL when absent or not a string. */
static const char *
wiki_str(json_object *o, const char *path)
{
	json_object *v = wiki_get_path(o, path);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The id of an item (a string of digits, or a number): 0 and *out, or -1. */
static int
wiki_item_id(json_object *o, uint64_t *out)
{
	json_object	*v = wiki_get_path(o, "id");
	char		 t[32];

	if (json_object_is_type(v, json_type_int)) {
		snprintf(t, sizeof(t), "%lld", (long long)json_object_get_int64(v));
		return wiki_id(t, strlen(t), out);
	}
	if (!json_object_is_type(v, json_type_string))
		return -1;
	return wiki_id(json_object_get_string(v), strlen(json_object_get_string(v)), out);
}

/*
 * Decodes a Confluence tiny link's key (the page id's little-endian bytes in base64
 * with '+' and '/' written '_' and '-', trailing 'A's and padding dropped). 0, or -1.
 */
static int
wiki_tiny_decode(const char *key, uint64_t *out)
{
	char		 s[12];
	unsigned char	*raw = NULL;
	size_t		 n = strlen(key), i, rawlen = 0;
	uint64_t	 v = 0;

	if (n == 0 || n > 11)
		return -1;
	for (i = 0; i < 11; i++) {
		s[i] = i < n ? key[i] : 'A';
		if (s[i] == '-')	/* tiny '/' is base64url '_', tiny '+' is '-' */
			s[i] = '_';
		else if (s[i] == '_')
			s[i] = '-';
	}
	s[11] = '\0';
	if (util_b64url_decode(s, 11, &raw, &rawlen) == -1)
		return -1;
	for (i = rawlen < 8 ? rawlen : 8; i > 0; i--)
		v = (v << 8) | raw[i - 1];
	free(raw);
	if (v == 0)
		return -1;
	*out = v;
	return 0;
}

/* ---------------------------------------------------------------- page URLs */
/*
 * The origin of url, "scheme://host[:port]" in lowercase, the port only when it is not
 * the scheme's default: 0, or -1 when url is not a URL.
 */
static int
wiki_origin(const char *url, char *out, size_t sz)
{
	CURLU	*u = curl_url();
	char	*scheme = NULL, *host = NULL, *port = NULL;
	size_t	 i;
	int	 rc = -1;

	if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
		if (curl_url_get(u, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT) !=
		    CURLUE_OK)
			port = NULL;
		snprintf(out, sz, "%s://%s%s%s", scheme, host, port ? ":" : "",
		    port ? port : "");
		for (i = 0; out[i] != '\0'; i++)
			out[i] = (char)tolower((unsigned char)out[i]);
		rc = 0;
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return rc;
}


/* Splits path ("/a/b/c") into at most max segments (pointers into path, which is cut). */
static size_t
wiki_segments(char *path, char **seg, size_t max)
{
	size_t	 n = 0;
	char	*p = path, *s;

	while (p != NULL && *p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		if (n == max)
			return max + 1;
		s = p;
		if ((p = strchr(p, '/')) != NULL)
			*p++ = '\0';
		seg[n++] = s;
	}
	return n;
}

/* The query parameter pageId of a query string: 0 and *id, or -1. */
static int
wiki_query_page_id(const char *q, uint64_t *id)
{
	const char	*p, *e;

	for (p = q; p != NULL && *p != '\0'; p = e != NULL ? e + 1 : NULL) {
		e = strchr(p, '&');
		if (strncmp(p, "pageId=", 7) == 0)
			return wiki_id(p + 7, (e != NULL ? (size_t)(e - p) : strlen(p)) - 7,
			    id);
	}
	return -1;
}

/* A display URL's title segment: '+' is a space, then percent-decoded. */
static char *
wiki_title_decode(const char *seg)
{
	char	*t, *d, *r;
	size_t	 i;
	int	 len;

	if ((t = strdup(seg)) == NULL)
		return NULL;
	for (i = 0; t[i] != '\0'; i++)
		if (t[i] == '+')
			t[i] = ' ';
	d = curl_easy_unescape(NULL, t, 0, &len);
	free(t);
	if (d == NULL)
		return NULL;
	r = (len > 0 && memchr(d, '\0', (size_t)len) == NULL) ? strdup(d) : NULL;
	curl_free(d);
	return r;
}

/* Fills r from the segments of a page URL's path at the form's start (index i). */
static int
wiki_ref_form(struct wiki_ref *r, char **seg, size_t n, const char *query)
{
	size_t	 i;

	if (n >= 2 && strcmp(seg[n - 2], "x") == 0) {
		r->form = WIKI_BY_TINY, r->name = "tiny link /x/KEY";
		r->cloud_ok = r->dc_ok = 1, i = n - 2;
		if (wiki_tiny_decode(seg[n - 1], &r->id) == -1)
			return -1;
	} else if (n >= 2 && strcmp(seg[n - 1], "viewpage.action") == 0 &&
	    strcmp(seg[n - 2], "pages") == 0) {
		r->form = WIKI_BY_ID, r->name = "/pages/viewpage.action?pageId=ID";
		r->cloud_ok = r->dc_ok = 1, i = n - 2;
		if (wiki_query_page_id(query, &r->id) == -1)
			return -1;
	} else if (n >= 4 && strcmp(seg[n - 4], "spaces") == 0 &&
	    strcmp(seg[n - 2], "pages") == 0 && strcmp(seg[n - 1], "edit-v2") != 0) {
		r->form = WIKI_BY_ID, r->name = "/spaces/KEY/pages/ID";
		r->cloud_ok = 1, i = n - 4;
		if (wiki_id(seg[n - 1], strlen(seg[n - 1]), &r->id) == -1)
			return -1;
	} else if (n >= 5 && strcmp(seg[n - 5], "spaces") == 0 &&
	    strcmp(seg[n - 3], "pages") == 0) {
		/* /spaces/KEY/pages/ID/Title or /spaces/KEY/pages/edit-v2/ID */
		const char *id = strcmp(seg[n - 2], "edit-v2") == 0 ? seg[n - 1] : seg[n - 2];

		r->form = WIKI_BY_ID, r->name = "/spaces/KEY/pages/ID/Title";
		r->cloud_ok = 1, i = n - 5;
		if (wiki_id(id, strlen(id), &r->id) == -1)
			return -1;
	} else if (n >= 3 && strcmp(seg[n - 3], "display") == 0) {
		r->form = WIKI_BY_TITLE, r->name = "/display/KEY/Title";
		r->dc_ok = 1, i = n - 3;
		if (strlen(seg[n - 2]) >= sizeof(r->space) ||
		    (r->title = wiki_title_decode(seg[n - 1])) == NULL)
			return -1;
		memcpy(r->space, seg[n - 2], strlen(seg[n - 2]) + 1);
	} else
		return -1;
	r->prefix[0] = '\0';
	for (n = 0; n < i; n++)
		if ((size_t)snprintf(r->prefix + strlen(r->prefix), sizeof(r->prefix) -
		    strlen(r->prefix), "/%s", seg[n]) >= sizeof(r->prefix) - strlen(r->prefix))
			return -1;
	return 0;
}

/*
 * Reads a wiki page URL of a known form into r (wiki_ref_release frees it), and its
 * scheme://host[:port] into origin. 0, or -1 with err naming the URL and the forms.
 */
static int
wiki_ref_parse(const char *url, struct wiki_ref *r, char *origin, size_t osz,
    char *err, size_t errsz)
{
	CURLU	*u = curl_url();
	char	*path = NULL, *query = NULL;
	char	*seg[64];
	size_t	 n;
	int	 rc = -1;

	memset(r, 0, sizeof(*r));
	if (u == NULL || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK ||
	    wiki_origin(url, origin, osz) == -1)
		goto bad;
	if (curl_url_get(u, CURLUPART_QUERY, &query, 0) != CURLUE_OK)
		query = NULL;
	if ((n = wiki_segments(path, seg, 63)) > 63 ||
	    wiki_ref_form(r, seg, n, query) == -1)
		goto bad;
	rc = 0;
	goto out;
bad:
	snprintf(err, errsz, "%.400s is not a wiki page URL of a known form "
	    "(/spaces/KEY/pages/ID[/Title], /spaces/KEY/pages/edit-v2/ID, "
	    "/pages/viewpage.action?pageId=ID, /display/KEY/Title, /x/TINY)", url);
	free(r->title);
	r->title = NULL;
out:
	curl_free(path);
	curl_free(query);
	curl_url_cleanup(u);
	return rc;
}

static void
wiki_ref_release(struct wiki_ref *r)
{
	free(r->title);
	r->title = NULL;
}

/* ---------------------------------------------------------------- settings */

/* The library's settings: space key (and id), or the page URLs and includeSubPages. */
struct wiki_opts {
	json_object	*o;
	const char	*space_key, *space_id;
	json_object	*pages;
	int		 subpages;
};

static int
wiki_opts_read(const char *settings, struct wiki_opts *w, char *err, size_t errsz)
{
	json_object	*v;

	memset(w, 0, sizeof(*w));
	if (settings == NULL || (w->o = json_tokener_parse(settings)) == NULL ||
	    !json_object_is_type(w->o, json_type_object)) {
		json_object_put(w->o);
		w->o = NULL;
		snprintf(err, errsz, "the library's stored settings are unreadable");
		return -1;
	}
	w->space_key = wiki_str(w->o, "spaceKey");
	w->space_id = wiki_str(w->o, "spaceId");
	if (json_object_object_get_ex(w->o, "pageUrls", &v) &&
	    json_object_is_type(v, json_type_array))
		w->pages = v;
	w->subpages = json_object_get_boolean(wiki_get_path(w->o, "includeSubPages"));
	if ((w->space_key == NULL) == (w->pages == NULL)) {
		json_object_put(w->o);
		w->o = NULL;
		snprintf(err, errsz, "a wiki source takes 'spaceKey' or 'pageUrls'");
		return -1;
	}
	return 0;
}

static int
wiki_validate(const char *settings, char *err, size_t errsz)
{
	struct wiki_opts o;
	struct wiki_ref	 r;
	char		 origin[512], name[32], why[512];
	uint64_t	 id;
	size_t		 i;
	int		 rc = -1;

	if (wiki_opts_read(settings, &o, err, errsz) == -1)
		return -1;
	if (o.space_id != NULL && wiki_id(o.space_id, strlen(o.space_id), &id) == -1) {
		snprintf(err, errsz, "field 'spaceId' must be a space's numeric id");
		goto out;
	}
	for (i = 0; o.pages != NULL && i < json_object_array_length(o.pages); i++) {
		const char *u = json_object_get_string(json_object_array_get_idx(o.pages,
		    i));

		snprintf(name, sizeof(name), "pageUrls[%zu]", i);
		if (u == NULL || wiki_ref_parse(u, &r, origin, sizeof(origin), why,
		    sizeof(why)) == -1) {
			snprintf(err, errsz, "field '%s': %s", name, u == NULL ?
			    "must be a string" : why);
			goto out;
		}
		wiki_ref_release(&r);
	}
	rc = 0;
out:
	json_object_put(o.o);
	return rc;
}

/* ---------------------------------------------------------------- the integration */

/* The settings of the wiki integration that are missing, as "a, b and c" ("" if none). */
static void
wiki_missing(const char *site, const char *kind, const char *email, const char *token,
    char *out, size_t sz)
{
	const char	*m[4];
	size_t		 n = 0, i;

	if (site == NULL || *site == '\0')
		m[n++] = "wiki.site_url";
	if (kind == NULL || *kind == '\0')
		m[n++] = "wiki.kind (cloud or datacenter)";
	if (kind != NULL && strcmp(kind, "cloud") == 0 && (email == NULL || *email == '\0'))
		m[n++] = "wiki.email";
	if (token == NULL || *token == '\0')
		m[n++] = "wiki.token";
	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sz - strlen(out), "%s%s", i == 0 ? "" :
		    i + 1 == n ? " and " : ", ", m[i]);
}

/* w->origin, w->context and w->api from wiki.site_url. 0, or -1 with err. */
static int
wiki_site(struct wiki *w, const char *site, char *err, size_t errsz)
{
	char	 origin[512], *path = NULL;
	CURLU	*u = curl_url();
	size_t	 n;
	int	 rc = -1;

	if (u == NULL || curl_url_set(u, CURLUPART_URL, site, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK ||
	    wiki_origin(site, origin, sizeof(origin)) == -1) {
		snprintf(err, errsz, "setting wiki.site_url is not a URL");
		goto out;
	}
	for (n = strlen(path); n > 0 && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';
	if (w->kind == WIKI_CLOUD && *path != '\0' && strcmp(path, "/wiki") != 0) {
		snprintf(err, errsz, "setting wiki.site_url of a cloud wiki is "
		    "https://SITE, without a path");
		goto out;
	}
	if ((w->origin = strdup(origin)) == NULL || (w->context = strdup(w->kind == WIKI_CLOUD ? "/wiki" :
	    path)) == NULL || (w->api = malloc(strlen(w->origin) +
	    strlen(w->context) + 1)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	memcpy(w->api, w->origin, strlen(w->origin) + 1);
	memcpy(w->api + strlen(w->origin), w->context, strlen(w->context) + 1);
	rc = 0;
out:
	curl_free(path);
	curl_url_cleanup(u);
	return rc;
}

/* The Authorization header of the kind (w->auth), its secrets registered. */
static int
wiki_auth(struct wiki *w, char *err, size_t errsz)
{
	struct buf	 b;
	char		*enc = NULL, *p;
	size_t		 i;

	for (p = w->token; *p != '\0'; p++)
		if ((unsigned char)*p < 0x21 || *p == 0x7f) {
			snprintf(err, errsz, "setting wiki.token holds blanks or "
			    "control characters");
			return -1;
		}
	buf_init(&b);
	if (w->kind == WIKI_DC) {
		if (buf_printf(&b, "Authorization: Bearer %s", w->token) == -1)
			goto nomem;
	} else {
		if (strchr(w->email, ':') != NULL || strpbrk(w->email, "\r\n") != NULL) {
			snprintf(err, errsz, "setting wiki.email holds ':' or a line break");
			return -1;
		}
		if (buf_printf(&b, "%s:%s", w->email, w->token) == -1 ||
		    (enc = util_b64url_encode((unsigned char *)b.p, b.len)) == NULL)
			goto nomem;
		explicit_bzero(b.p, b.len);
		buf_reset(&b);
		for (i = 0; enc[i] != '\0'; i++)	/* base64url to base64 */
			enc[i] = enc[i] == '-' ? '+' : enc[i] == '_' ? '/' : enc[i];
		if (buf_printf(&b, "Authorization: Basic %s%s", enc, i % 4 == 2 ? "==" :
		    i % 4 == 3 ? "=" : "") == -1)
			goto nomem;
		explicit_bzero(enc, strlen(enc));
		free(enc);
	}
	w->auth = buf_detach(&b);
	fetch_secret(&w->f, w->token);
	fetch_secret(&w->f, strchr(w->auth, ' ') + 1);
	fetch_secret(&w->f, strrchr(w->auth, ' ') + 1);
	return 0;
nomem:
	free(enc);
	buf_release(&b);
	snprintf(err, errsz, "out of memory");
	return -1;
}

/*
 * Reads the wiki integration settings and the sources.* limits into w. -1 with err
 * saying what to configure when the integration is not configured.
 */
static int
wiki_configure(struct wiki *w, char *err, size_t errsz)
{
	struct backend_ctx *c = w->c;
	char	*site = settings_get(c->db, c->datadir, "wiki.site_url");
	char	*kind = settings_get(c->db, c->datadir, "wiki.kind");
	char	 miss[256];
	int	 rc = -1;

	w->email = settings_get(c->db, c->datadir, "wiki.email");
	w->token = settings_get(c->db, c->datadir, "wiki.token");
	wiki_missing(site, kind, w->email, w->token, miss, sizeof(miss));
	if (*miss != '\0') {
		snprintf(err, errsz, "the wiki integration is not configured: set %s "
		    "(ctxd-admin settings set, or Settings > Integrations)", miss);
		goto out;
	}
	w->kind = strcmp(kind, "cloud") == 0 ? WIKI_CLOUD : WIKI_DC;
	if (wiki_site(w, site, err, errsz) == -1 || wiki_auth(w, err, errsz) == -1)
		goto out;
	w->max_pages = (size_t)settings_get_long(c->db, c->datadir, "sources.max_pages",
	    1000);
	w->page_max = (size_t)settings_get_long(c->db, c->datadir, "sources.max_page_kb",
	    4096) * 1024;
	w->timeout_ms = settings_get_long(c->db, c->datadir, "sources.page_timeout_s",
	    30) * 1000;
	w->delay_ms = settings_get_long(c->db, c->datadir, "sources.crawl_delay_ms", 0);
	w->inflight = (size_t)settings_get_long(c->db, c->datadir, "sources.inflight", 4);
	if (w->inflight > WIKI_INFLIGHT_MAX)
		w->inflight = WIKI_INFLIGHT_MAX;
	if (w->delay_ms > 0)
		w->inflight = 1;
	w->f.inflight = w->inflight;
	rc = 0;
out:
	free(site);
	free(kind);
	return rc;
}

/* ---------------------------------------------------------------- requests */

/* The URL without its query, for messages. */
static void
wiki_url_text(const char *url, char *out, size_t sz)
{
	snprintf(out, sz, "%.*s", (int)strcspn(url, "?#"), url);
}

/*
 * Sets q up to GET url (on the site's origin only, else -1: the credential goes nowhere
 * else), within the job's time, after sources.crawl_delay_ms since the last request.
 * 0, or -1 with err (q is then not set up).
 */
static int
wiki_req(struct wiki *w, struct fetch_req *q, const char *url, size_t cap, char *err,
    size_t errsz)
{
	struct timespec	 ts;
	char		 u[512];
	long long	 wait;
	size_t		 on = strlen(w->origin);

	if (strncmp(url, w->origin, on) != 0 || url[on] != '/') {
		wiki_url_text(url, u, sizeof(u));
		snprintf(err, errsz, "refused to send the wiki credentials to %s: it is "
		    "not on %s (setting wiki.site_url)", u, w->origin);
		return -1;
	}
	switch (backend_stop(w->c)) {
	case 1:
		snprintf(err, errsz, "the job was cancelled");
		return -1;
	case 2:
		snprintf(err, errsz, "the wiki fetch ran out of time (setting "
		    "limits.job_timeout_s)");
		return -1;
	}
	if (w->delay_ms > 0 && w->last_ms > 0 &&
	    (wait = w->last_ms + w->delay_ms - util_now_ms()) > 0) {
		ts.tv_sec = (time_t)(wait / 1000);
		ts.tv_nsec = (long)(wait % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	}
	fetch_req_init(q);
	q->method = "GET";
	q->url = url;
	q->headers[0] = w->auth;
	q->headers[1] = "Accept: application/json";
	q->secret_headers = 1;
	backend_page_deadline(w->c, w->timeout_ms, q);
	q->max_size = cap;
	q->tries = WIKI_TRIES;
	return 0;
}

/*
 * The answer of q as a JSON object in *out. An answer over its cap: 0 with *out NULL when
 * toobig is given (*toobig set), else an error. Other failures and non-2xx answers: -1
 * with err naming the URL and status.
 */
static int
wiki_answer(const struct fetch_req *q, json_object **out, int *toobig, char *err,
    size_t errsz)
{
	char	 u[512];

	*out = NULL;
	if (q->result == FETCH_ETOOBIG && toobig != NULL) {
		*toobig = 1;
		return 0;
	}
	if (q->result != FETCH_OK || q->status < 200 || q->status > 299)
		return backend_http_error(q, err, errsz);
	if (q->answer.p == NULL || (*out = json_tokener_parse(q->answer.p)) == NULL ||
	    !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		wiki_url_text(q->url, u, sizeof(u));
		snprintf(err, errsz, "the wiki's answer to %s is not a JSON object", u);
		return -1;
	}
	return 0;
}

/* GETs url and parses its answer (wiki_req, wiki_answer). */
static int
wiki_get(struct wiki *w, const char *url, size_t cap, json_object **out, int *toobig,
    char *err, size_t errsz)
{
	struct fetch_req q;
	int		 rc;

	*out = NULL;
	if (wiki_req(w, &q, url, cap, err, errsz) == -1)
		return -1;
	(void)fetch_run(&w->f, &q, 1);
	w->last_ms = util_now_ms();
	rc = wiki_answer(&q, out, toobig, err, errsz);
	fetch_req_release(&q);
	return rc;
}

/* An API URL: w->api + the path made of fmt (malloc'd; NULL on no memory). */
static char *
wiki_url(struct wiki *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *
wiki_url(struct wiki *w, const char *fmt, ...)
{
	struct buf	 b;
	va_list		 ap;
	int		 r;

	buf_init(&b);
	va_start(ap, fmt);
	r = buf_adds(&b, w->api) == -1 ? -1 : buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (r == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* The cap of a list answer: WIKI_LIST_LIMIT pages and some, within FETCH_MAX_SIZE. */
static size_t
wiki_list_cap(const struct wiki *w)
{
	size_t cap = w->page_max * 4 + 65536;

	return cap > (size_t)FETCH_MAX_SIZE ? (size_t)FETCH_MAX_SIZE : cap;
}

/* ---------------------------------------------------------------- pages */

/* The web address of a page: the site + its webui link, else the viewpage form. */
static char *
wiki_page_url(struct wiki *w, json_object *p, uint64_t id)
{
	const char	*webui = wiki_str(p, "_links.webui");
	const char	*c;

	if (webui != NULL && webui[0] == '/' && webui[1] != '/' && strlen(webui) < 2048) {
		for (c = webui; *c != '\0' && (unsigned char)*c > 0x20 && *c != 0x7f; c++)
			;
		if (*c == '\0')
			return wiki_url(w, "%s", webui);
	}
	return wiki_url(w, "/pages/viewpage.action?pageId=%llu", (unsigned long long)id);
}

/*
 * Adds page p (an answer's page object with its storage body) as a document: skipped
 * with a warning when it has no body or a body over sources.max_page_kb; unchanged
 * (changed 0) when the stored document has its version. 0, or -1 with err.
 */
static int
wiki_page_add(struct wiki *w, json_object *p, uint64_t id, char *err, size_t errsz)
{
	json_object	*bv = wiki_get_path(p, "body.storage.value");
	json_object	*ver = wiki_get_path(p, "version.number");
	const char	*title = wiki_str(p, "title"), *body;
	struct backend_stored st;
	struct backend_doc *d;
	char		 path[32], hash[65], etag[32];
	size_t		 len;

	snprintf(path, sizeof(path), "pages/%llu", (unsigned long long)id);
	if (!json_object_is_type(bv, json_type_string)) {
		jobs_log(w->c->db, w->c->job_id, "warning", "skipped wiki page %llu: the "
		    "answer has no storage-format body", (unsigned long long)id);
		return 0;
	}
	body = json_object_get_string(bv);
	len = (size_t)json_object_get_string_len(bv);
	if (len > w->page_max) {
		jobs_log(w->c->db, w->c->job_id, "warning", "skipped wiki page %llu: %zu "
		    "bytes is more than the limit of %zu KB (setting sources.max_page_kb)",
		    (unsigned long long)id, len, w->page_max / 1024);
		return 0;
	}
	crypto_sha256_hex(body, len, hash);
	if ((d = backend_set_add(w->out, path, hash, len)) == NULL ||
	    (d->data = malloc(len + 1)) == NULL)
		goto nomem;
	memcpy(d->data, body, len);
	d->data[len] = '\0';
	d->len = len;
	d->format = DOC_FORMAT_STORAGE;
	if ((d->title = strdup(title != NULL && *title != '\0' ? title : path)) == NULL ||
	    (d->url = wiki_page_url(w, p, id)) == NULL)
		goto nomem;
	if (json_object_is_type(ver, json_type_int)) {
		snprintf(etag, sizeof(etag), "v%lld", (long long)json_object_get_int64(ver));
		if ((d->etag = strdup(etag)) == NULL)
			goto nomem;
		if (!w->c->full && backend_stored_get(w->c, path, &st) == 0) {
			if (st.etag != NULL && strcmp(st.etag, etag) == 0)
				d->changed = 0;
			backend_stored_release(&st);
		}
	}
	if (w->out->n >= w->max_pages)
		w->full = 1;
	backend_progress(w->c, w->out->n, 0);	/* the space's size is not known */
	return 0;
nomem:
	snprintf(err, errsz, "out of memory");
	return -1;
}

/* The API URL of page id with its body (malloc'd; NULL on no memory). */
static char *
wiki_page_api(struct wiki *w, uint64_t id)
{
	return w->kind == WIKI_CLOUD ?
	    wiki_url(w, "/api/v2/pages/%llu?body-format=storage", (unsigned long long)id) :
	    wiki_url(w, "/rest/api/content/%llu?expand=body.storage,version",
	    (unsigned long long)id);
}

/* Queues page id to be fetched by id (wiki_flush). */
static int
wiki_pending_push(struct wiki *w, uint64_t id)
{
	uint64_t	*v;
	size_t		 cap;

	if (w->npending == w->cappending) {
		cap = w->cappending ? w->cappending * 2 : 64;
		if ((v = reallocarray(w->pending, cap, sizeof(*v))) == NULL)
			return -1;
		w->pending = v;
		w->cappending = cap;
	}
	w->pending[w->npending++] = id;
	return 0;
}

/* One answer of wiki_flush: the page added, or skipped when over the size limit. */
static int
wiki_flush_one(struct wiki *w, const struct fetch_req *q, uint64_t id, char *err,
    size_t errsz)
{
	json_object	*o = NULL;
	int		 big = 0, rc;

	if ((rc = wiki_answer(q, &o, &big, err, errsz)) == 0 && big)
		jobs_log(w->c->db, w->c->job_id, "warning", "skipped wiki page %llu: it "
		    "is larger than the limit of %zu KB (setting sources.max_page_kb)",
		    (unsigned long long)id, w->page_max / 1024);
	else if (rc == 0)
		rc = wiki_page_add(w, o, id, err, errsz);
	json_object_put(o);
	return rc;
}

/*
 * Fetches the queued pages by id, sources.inflight requests at once (one at a time with
 * sources.crawl_delay_ms), and adds them. 0, or -1 with err at the first failure.
 */
static int
wiki_flush(struct wiki *w, char *err, size_t errsz)
{
	struct fetch_req q[WIKI_INFLIGHT_MAX];
	char		*urls[WIKI_INFLIGHT_MAX];
	size_t		 i, k, n, done = 0;
	int		 rc = 0;

	while (done < w->npending && rc == 0) {
		n = w->npending - done < w->inflight ? w->npending - done : w->inflight;
		for (k = 0; k < n; k++)
			if ((urls[k] = wiki_page_api(w, w->pending[done + k])) == NULL ||
			    wiki_req(w, &q[k], urls[k], w->page_max + 65536, err,
			    errsz) == -1) {
				if (urls[k] == NULL)
					snprintf(err, errsz, "out of memory");
				free(urls[k]);
				rc = -1;
				break;
			}
		if (k > 0)
			(void)fetch_run(&w->f, q, k);
		w->last_ms = util_now_ms();
		for (i = 0; i < k; i++) {
			if (rc == 0)
				rc = wiki_flush_one(w, &q[i], w->pending[done + i], err,
				    errsz);
			fetch_req_release(&q[i]);
			free(urls[i]);
		}
		done += n;
	}
	w->npending = 0;
	return rc;
}

/* Queues page id for its sub-pages. */
static int
wiki_todo_push(struct wiki *w, uint64_t id, int depth)
{
	struct wiki_todo *t;
	size_t		 cap;

	if (w->ntodo == w->captodo) {
		cap = w->captodo ? w->captodo * 2 : 64;
		if ((t = reallocarray(w->todo, cap, sizeof(*t))) == NULL)
			return -1;
		w->todo = t;
		w->captodo = cap;
	}
	w->todo[w->ntodo].id = id;
	w->todo[w->ntodo++].depth = depth;
	return 0;
}

/*
 * An item of a list: a page seen for the first time is added (queued to be fetched by
 * id, wiki_flush, when the item has no body) and, when depth >= 0, queued for its
 * sub-pages at that depth.
 */
static int
wiki_take(struct wiki *w, json_object *item, int depth, char *err, size_t errsz)
{
	const char	*type = wiki_str(item, "type");
	uint64_t	 id;
	int		 k;

	if (w->full || (type != NULL && strcmp(type, "page") != 0))
		return 0;
	if (wiki_item_id(item, &id) == -1) {
		jobs_log(w->c->db, w->c->job_id, "warning", "skipped a wiki list item "
		    "without a page id");
		return 0;
	}
	if ((k = wiki_set_add(&w->ids, id)) == 0)
		return 0;
	if (k == -1 || (depth >= 0 && wiki_todo_push(w, id, depth) == -1)) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	if (wiki_get_path(item, "body.storage.value") != NULL)
		return wiki_page_add(w, item, id, err, errsz);
	if (wiki_pending_push(w, id) == -1) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	if (w->out->n + w->npending >= w->max_pages)
		w->full = 1;
	return 0;
}

/*
 * The next list URL of answer o (n items): its _links.next, a path on the site, made
 * absolute; NULL at the end (no next link; on datacenter also fewer items than asked).
 */
static char *
wiki_next(struct wiki *w, json_object *o, size_t n)
{
	const char	*next = wiki_str(o, "_links.next"), *c;
	size_t		 cl = strlen(w->context);

	json_object	*lim = wiki_get_path(o, "limit");

	/* Data Center: a page of fewer items than its limit is the last. */
	if (next == NULL || n == 0 || (w->kind == WIKI_DC &&
	    json_object_is_type(lim, json_type_int) &&
	    (int64_t)n < json_object_get_int64(lim)))
		return NULL;
	for (c = next; *c != '\0' && (unsigned char)*c > 0x20 && *c != 0x7f; c++)
		;
	if (*c != '\0' || next[0] != '/' || next[1] == '/' || strlen(next) > 4096) {
		jobs_log(w->c->db, w->c->job_id, "warning", "ignored a next link that is "
		    "not a path on the wiki site");
		return NULL;
	}
	/* Cloud's links start with /wiki; some sites' links carry the context path. */
	if (cl > 0 && strncmp(next, w->context, cl) == 0 && next[cl] == '/') {
		struct buf b;

		buf_init(&b);
		if (buf_printf(&b, "%s%s", w->origin, next) == -1)
			return NULL;
		return buf_detach(&b);
	}
	return wiki_url(w, "%s", next);
}

/*
 * Reads a paginated list from url to its end (or sources.max_pages), every item through
 * wiki_take at depth; *nitems counts the items. A link seen twice ends it.
 */
static int
wiki_list(struct wiki *w, const char *first, int depth, size_t *nitems, char *err,
    size_t errsz)
{
	json_object	*o, *res;
	char		*url, *next, u[512];
	size_t		 i, n;
	int		 k, rc = -1;

	if ((url = strdup(first)) == NULL)
		goto nomem;
	while (url != NULL && !w->full) {
		wiki_url_text(url, u, sizeof(u));
		if ((k = wiki_set_add(&w->lists, wiki_hash(url))) == -1)
			goto nomem;
		if (k == 0 || ++w->nlists > WIKI_MAX_LISTS) {
			jobs_log(w->c->db, w->c->job_id, "warning", "the pagination of %s %s; "
			    "stopped there", u, k == 0 ? "repeats a link" : "goes on too long");
			break;
		}
		if (wiki_get(w, url, wiki_list_cap(w), &o, NULL, err, errsz) == -1)
			goto out;
		res = wiki_get_path(o, "results");
		if (!json_object_is_type(res, json_type_array)) {
			json_object_put(o);
			snprintf(err, errsz, "the wiki's answer to %s has no results list", u);
			goto out;
		}
		n = json_object_array_length(res);
		for (i = 0; i < n && !w->full; i++)
			if (wiki_take(w, json_object_array_get_idx(res, i), depth, err,
			    errsz) == -1) {
				json_object_put(o);
				goto out;
			}
		*nitems += n;
		next = wiki_next(w, o, n);
		json_object_put(o);
		free(url);
		url = next;
		if (wiki_flush(w, err, errsz) == -1)
			goto out;
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	free(url);
	return rc;
}

/* ---------------------------------------------------------------- the two forms */

/* Cloud: the id of space key (spaceId when given, else GET /spaces?keys=KEY). */
static int
wiki_space_id(struct wiki *w, const char *key, const char *given, uint64_t *id,
    char *err, size_t errsz)
{
	json_object	*o = NULL, *res, *s;
	char		*k = NULL, *url = NULL;
	size_t		 i;
	int		 rc = -1;

	if (given != NULL)
		return wiki_id(given, strlen(given), id);
	if ((k = fetch_escape(key)) == NULL ||
	    (url = wiki_url(w, "/api/v2/spaces?keys=%s", k)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if (wiki_get(w, url, wiki_list_cap(w), &o, NULL, err, errsz) == -1)
		goto out;
	res = wiki_get_path(o, "results");
	for (i = 0; json_object_is_type(res, json_type_array) &&
	    i < json_object_array_length(res); i++) {
		s = json_object_array_get_idx(res, i);
		if (wiki_str(s, "key") != NULL && strcmp(wiki_str(s, "key"), key) == 0 &&
		    wiki_item_id(s, id) == 0) {
			/* the space's name names the library when its user did not */
			if (wiki_str(s, "name") != NULL && w->out->title == NULL &&
			    (w->out->title = strndup(wiki_str(s, "name"), 200)) == NULL) {
				snprintf(err, errsz, "out of memory");
				goto out;
			}
			if (w->out->title != NULL)
				util_utf8_trim(w->out->title);
			rc = 0;
			goto out;
		}
	}
	snprintf(err, errsz, "the wiki space %s was not found on %s (or the account "
	    "of wiki.email may not read it)", key, w->origin);
out:
	json_object_put(o);
	free(k);
	free(url);
	return rc;
}

/* A whole space: every page of the space. */
static int
wiki_space(struct wiki *w, const char *key, const char *space_id, char *err,
    size_t errsz)
{
	char		*k = NULL, *url = NULL;
	uint64_t	 id;
	size_t		 n = 0;
	int		 rc = -1;

	if ((k = fetch_escape(key)) == NULL)
		goto nomem;
	if (w->kind == WIKI_CLOUD) {
		if (wiki_space_id(w, key, space_id, &id, err, errsz) == -1)
			goto out;
		url = wiki_url(w, "/api/v2/spaces/%llu/pages?body-format=storage&limit=%d",
		    (unsigned long long)id, WIKI_LIST_LIMIT);
	} else
		url = wiki_url(w, "/rest/api/content?spaceKey=%s&type=page&expand="
		    "body.storage,version&start=0&limit=%d", k, WIKI_LIST_LIMIT);
	if (url == NULL)
		goto nomem;
	if (wiki_list(w, url, -1, &n, err, errsz) == -1)
		goto out;
	if (n == 0) {
		snprintf(err, errsz, "the wiki space %s on %s has no pages (or the "
		    "account may not read them)", key, w->origin);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	free(k);
	free(url);
	return rc;
}

/* Checks page URL r (of origin) against the site and kind. 0, or -1 with err. */
static int
wiki_ref_check(struct wiki *w, const char *url, const struct wiki_ref *r,
    const char *origin, char *err, size_t errsz)
{
	char	 u[512];

	wiki_url_text(url, u, sizeof(u));
	if (strcmp(origin, w->origin) != 0 || strcmp(r->prefix, w->context) != 0) {
		snprintf(err, errsz, "the page URL %s is not on the configured wiki site "
		    "%s (setting wiki.site_url)", u, w->api);
		return -1;
	}
	if (!(w->kind == WIKI_CLOUD ? r->cloud_ok : r->dc_ok)) {
		snprintf(err, errsz, "the page URL %s has the form %s, which a %s wiki "
		    "site does not use", u, r->name, w->kind == WIKI_CLOUD ? "cloud" :
		    "datacenter");
		return -1;
	}
	return 0;
}

/* Data Center: the page titled r->title in space r->space, added (wiki_take). */
static int
wiki_page_by_title(struct wiki *w, const struct wiki_ref *r, int depth, char *err,
    size_t errsz)
{
	json_object	*o = NULL, *res;
	char		*k = fetch_escape(r->space), *t = fetch_escape(r->title), *url = NULL;
	int		 rc = -1;

	if (k == NULL || t == NULL || (url = wiki_url(w, "/rest/api/content?spaceKey=%s&"
	    "title=%s&type=page&expand=body.storage,version", k, t)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if (wiki_get(w, url, wiki_list_cap(w), &o, NULL, err, errsz) == -1)
		goto out;
	res = wiki_get_path(o, "results");
	if (!json_object_is_type(res, json_type_array) ||
	    json_object_array_length(res) == 0) {
		snprintf(err, errsz, "no wiki page titled \"%.200s\" in space %.100s on %s",
		    r->title, r->space, w->origin);
		goto out;
	}
	rc = wiki_take(w, json_object_array_get_idx(res, 0), depth, err, errsz);
out:
	json_object_put(o);
	free(k);
	free(t);
	free(url);
	return rc;
}

/* The sub-pages of the queued pages, level by level, to WIKI_MAX_DEPTH. */
static int
wiki_subpages(struct wiki *w, char *err, size_t errsz)
{
	struct wiki_todo t;
	char		*url;
	size_t		 i, n = 0;
	int		 rc = 0, deep = 0;

	for (i = 0; i < w->ntodo && !w->full && rc == 0; i++) {
		t = w->todo[i];
		if (t.depth >= WIKI_MAX_DEPTH) {
			deep = 1;
			continue;
		}
		url = w->kind == WIKI_CLOUD ?
		    wiki_url(w, "/api/v2/pages/%llu/children?limit=%d",
		    (unsigned long long)t.id, WIKI_LIST_LIMIT) :
		    wiki_url(w, "/rest/api/content/%llu/child/page?expand=body.storage,"
		    "version&start=0&limit=%d", (unsigned long long)t.id, WIKI_LIST_LIMIT);
		if (url == NULL) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		rc = wiki_list(w, url, t.depth + 1, &n, err, errsz);
		free(url);
	}
	if (deep)
		jobs_log(w->c->db, w->c->job_id, "warning", "sub-pages more than %d levels "
		    "below a given page were left out", WIKI_MAX_DEPTH);
	return rc;
}

/* Pages by URL, and their sub-pages with includeSubPages. */
static int
wiki_pages(struct wiki *w, const struct wiki_opts *o, char *err, size_t errsz)
{
	struct wiki_ref	 r;
	const char	*url;
	char		 origin[512];
	size_t		 i;
	int		 rc = 0, k;

	for (i = 0; i < json_object_array_length(o->pages) && rc == 0 && !w->full; i++) {
		url = json_object_get_string(json_object_array_get_idx(o->pages, i));
		if (url == NULL || wiki_ref_parse(url, &r, origin, sizeof(origin), err,
		    errsz) == -1)
			return -1;
		if ((rc = wiki_ref_check(w, url, &r, origin, err, errsz)) == 0) {
			if (r.form == WIKI_BY_TITLE)
				rc = wiki_page_by_title(w, &r, o->subpages ? 0 : -1, err,
				    errsz);
			else if ((k = wiki_set_add(&w->ids, r.id)) == -1 ||
			    (k == 1 && o->subpages && wiki_todo_push(w, r.id, 0) == -1)) {
				snprintf(err, errsz, "out of memory");
				rc = -1;
			} else if (k == 1 && wiki_pending_push(w, r.id) == -1) {
				snprintf(err, errsz, "out of memory");
				rc = -1;
			} else if (w->out->n + w->npending >= w->max_pages)
				w->full = 1;
		}
		wiki_ref_release(&r);
	}
	if (rc == 0)
		rc = wiki_flush(w, err, errsz);
	if (rc == 0 && o->subpages)
		rc = wiki_subpages(w, err, errsz);
	return rc;
}

/* ---------------------------------------------------------------- the back end */

/* The library's URL must be on the configured site (scheme, host and port). */
static int
wiki_same_site(struct wiki *w, const char *url, char *err, size_t errsz)
{
	char	 origin[512], u[512];

	if (wiki_origin(url, origin, sizeof(origin)) == 0 && strcmp(origin, w->origin) == 0)
		return 0;
	wiki_url_text(url, u, sizeof(u));
	snprintf(err, errsz, "the library's URL %s is not on the configured wiki site %s "
	    "(setting wiki.site_url)", u, w->api);
	return -1;
}

static int
wiki_fetch(struct backend_ctx *c, struct backend_set *out, char *err, size_t errsz)
{
	struct wiki_opts o;
	struct wiki	*w;
	int		 rc = -1;

	if (wiki_opts_read(c->settings, &o, err, errsz) == -1)
		return -1;
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	c->priv = w;
	w->c = c;
	w->out = out;
	fetch_init(&w->f);
	w->f.failfast = 0;
	if (wiki_configure(w, err, errsz) == -1)
		goto out;
	if (wiki_same_site(w, c->url, err, errsz) == -1)
		goto out;
	/* Every connection is checked against fetch.allowed_networks. */
	netpolicy_load(c->db, c->datadir);
	jobs_log(c->db, c->job_id, "info", "fetching %s from the %s wiki %s",
	    o.space_key != NULL ? "a space" : "pages", w->kind == WIKI_CLOUD ? "cloud" :
	    "datacenter", w->api);
	/* a space given with its name (spaceName) is named so when its user gave no title */
	if (o.space_key != NULL && wiki_str(o.o, "spaceName") != NULL &&
	    (w->out->title = strndup(wiki_str(o.o, "spaceName"), 200)) == NULL) {
		snprintf(err, errsz, "out of memory");
		rc = -1;
	} else if (o.space_key != NULL)
		rc = wiki_space(w, o.space_key, o.space_id, err, errsz);
	else
		rc = wiki_pages(w, &o, err, errsz);
	if (rc == 0 && w->full)
		jobs_log(c->db, c->job_id, "warning", "stopped at %zu pages (setting "
		    "sources.max_pages)", out->n);
	if (rc == 0)
		jobs_log(c->db, c->job_id, "info", "%zu wiki pages fetched", out->n);
	/* Wiki pages are always read with wiki.token: under anonymous reads, anyone's. */
	if (rc == 0 && out->n > 0)
		backend_credentials_warning(c, "these wiki pages were read with the "
		    "instance's credentials (wiki.token)", "them");
out:
	json_object_put(o.o);
	return rc;
}

static void
wiki_release(struct backend_ctx *c)
{
	struct wiki	*w = c->priv;

	if (w == NULL)
		return;
	if (w->token != NULL)
		explicit_bzero(w->token, strlen(w->token));
	if (w->auth != NULL)
		explicit_bzero(w->auth, strlen(w->auth));
	fetch_release(&w->f);
	free(w->token);
	free(w->auth);
	free(w->email);
	free(w->origin);
	free(w->context);
	free(w->api);
	free(w->ids.v);
	free(w->lists.v);
	free(w->todo);
	free(w->pending);
	free(w);
	c->priv = NULL;
}

/* A wiki space key: letters, digits and '_' (the wiki's own rule, case kept). */
static int
wiki_check_space_key(const char *v, char *err, size_t errsz)
{
	if (strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~") !=
	    strlen(v)) {
		snprintf(err, errsz, "must be letters, digits, '_' or a leading '~' (a "
		    "personal space)");
		return -1;
	}
	return 0;
}

/*
 * A wiki entry's own fields (sources/entry.c has the common ones, of which the URL is the
 * wiki's site): a whole space (spaceKey, with spaceId and spaceName) or pages (pageUrls,
 * with includeSubPages): the first of each is asked (required in its alternative).
 */
#define WIKI_SPACE	"A whole space"
#define WIKI_PAGES	"Some pages"
static const struct validate_field wiki_fields[] = {
	{ .name = "spaceKey", .type = VALIDATE_STRING, .min = 1, .max = 255,
	    .required = VALIDATE_ASKED, .group = WIKI_SPACE,
	    .check = wiki_check_space_key, .label = "Space key",
	    .doc = "the key of the wiki space to index whole, such as DOCS" },
	{ .name = "spaceId", .type = VALIDATE_STRING, .min = 1, .max = 64,
	    .group = WIKI_SPACE, .label = "Space id",
	    .doc = "the space's numeric id, when the wiki needs it to list the pages" },
	{ .name = "spaceName", .type = VALIDATE_STRING, .min = 1, .max = 255,
	    .group = WIKI_SPACE, .label = "Space name", .doc = "the space's name, the title when none is given" },
	{ .name = "pageUrls", .type = VALIDATE_LIST, .min = 1, .max = ENTRY_LIST_MAX,
	    .elem_max = ENTRY_URL_MAX, .required = VALIDATE_ASKED, .group = WIKI_PAGES,
	    .label = "Page URLs",
	    .doc = "wiki page addresses: index these pages only" },
	{ .name = "includeSubPages", .type = VALIDATE_BOOL, .group = WIKI_PAGES,
	    .label = "Include sub-pages",
	    .dflt = "false", .doc = "also index the pages below each page listed" },
	{ .name = NULL }
};

/* A wiki entry: exactly one form; the id from the space key, the title or a page. */
static int
wiki_entry_id(struct parse_req *p, json_object *o, char *err, size_t errsz)
{
	const char	*key = validate_str(o, "spaceKey");
	json_object	*pages = NULL;
	struct url_parts pu;
	char		 name[32], part[LIBID_PART_MAX + 1] = "";
	size_t		 i, n;

	json_object_object_get_ex(o, "pageUrls", &pages);
	if (key != NULL && validate_given(o, "pageUrls")) {
		snprintf(err, errsz, "a wiki source takes 'spaceKey' or 'pageUrls', not "
		    "both");
		return -1;
	}
	if (key == NULL && !validate_given(o, "pageUrls")) {
		snprintf(err, errsz, "a wiki source needs 'spaceKey' (a whole space) or "
		    "'pageUrls' (pages)");
		return -1;
	}
	if (key != NULL && validate_given(o, "includeSubPages")) {
		snprintf(err, errsz, "field 'includeSubPages' goes with 'pageUrls', not "
		    "with 'spaceKey'");
		return -1;
	}
	if (key == NULL && (validate_given(o, "spaceId") || validate_given(o,
	    "spaceName"))) {
		snprintf(err, errsz, "fields 'spaceId' and 'spaceName' go with "
		    "'spaceKey', not with 'pageUrls'");
		return -1;
	}
	if (key != NULL) {
		libid_part(part, sizeof(part), key, strlen(key));
	} else {
		n = (size_t)json_object_array_length(pages);
		if (n == 0) {
			snprintf(err, errsz, "field 'pageUrls' must list at least one "
			    "page");
			return -1;
		}
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "pageUrls[%zu]", i);
			if (url_parse(json_object_get_string(json_object_array_get_idx(
			    pages, i)), name, &pu, err, errsz) == -1)
				return -1;
			if (i == 0 && p->title == NULL) {
				libid_part(part, sizeof(part), pu.path,
				    strlen(pu.path));
				if (strchr(pu.canon, '?') != NULL)
					libid_part(part, sizeof(part),
					    strchr(pu.canon, '?'),
					    strlen(strchr(pu.canon, '?')));
			}
			url_release(&pu);
		}
		if (p->title != NULL)
			libid_part(part, sizeof(part), p->title, strlen(p->title));
	}
	if (libid_part_trim(part) == -1) {
		snprintf(err, errsz, "no library id can be made from the wiki entry: give "
		    "a title with letters or digits");
		return -1;
	}
	snprintf(p->id, sizeof(p->id), "/wiki/%s", part);
	return 0;
}

static int
wiki_entry(struct parse_req *p, json_object *o, const struct url_parts *u,
    const char *url_name, char *err, size_t errsz)
{
	/* A whole space has no includeSubPages, not even its default. */
	static const char *const space_omits[] = { "includeSubPages", NULL };

	(void)u;
	(void)url_name;
	if (wiki_entry_id(p, o, err, errsz) == -1)
		return -1;
	return backend_entry_settings(p, o, wiki_fields, validate_given(o, "pageUrls") ?
	    NULL : space_omits, err, errsz);
}

const struct backend_ops backend_wiki = {
	.type = "wiki",
	.label = "Wiki",
	.about = "Pages of the wiki set up in Settings > Integrations (its site and "
	    "credentials): a whole space, or some pages.",
	.url_doc = "the wiki's site, such as https://example.atlassian.net/wiki",
	.fields = wiki_fields,
	.entry = wiki_entry,
	.version_noun = "page set",
	.validate = wiki_validate,
	.fetch = wiki_fetch,
	.release = wiki_release,
};
