/*
 * backend.c: what the source back ends share: the document set they fill, the stored
 * documents, HTTP error texts, progress and cancellation (the table of back ends is
 * registry.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "net/fetch.h"
#include "sources/backend.h"
#include "sources/gitsrc.h"
#include "sources/request.h"
#include "store/documents.h"
#include "store/jobs.h"
#include "store/settings.h"

void
backend_set_init(struct backend_set *s)
{
	memset(s, 0, sizeof(*s));
}

void
backend_set_release(struct backend_set *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++) {
		free(s->docs[i].path);
		free(s->docs[i].url);
		free(s->docs[i].data);
		free(s->docs[i].title);
		free(s->docs[i].etag);
		free(s->docs[i].modified);
	}
	free(s->docs);
	free(s->label);
	free(s->url_prefix);
	free(s->title);
	backend_set_init(s);
}

struct backend_doc *
backend_set_add(struct backend_set *s, const char *path, const char *hash, size_t size)
{
	struct backend_doc *d;
	size_t		 cap;

	if (strlen(hash) >= BACKEND_HASH_MAX) {
		log_err("%s: %s: content hash too long", __func__, path);
		return NULL;
	}
	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 64;
		if ((d = reallocarray(s->docs, cap, sizeof(*d))) == NULL)
			return NULL;
		s->docs = d;
		s->cap = cap;
	}
	d = &s->docs[s->n];
	memset(d, 0, sizeof(*d));
	if ((d->path = strdup(path)) == NULL)
		return NULL;
	memcpy(d->hash, hash, strlen(hash) + 1);
	d->size = size;
	d->changed = -1;
	s->n++;
	return d;
}

static int
backend_doc_cmp(const void *a, const void *b)
{
	const struct backend_doc *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

int
backend_set_digest(struct backend_set *s)
{
	const struct backend_doc **v;
	struct buf	 b;
	size_t		 i;
	int		 rc = -1;

	if (s->version[0] != '\0')
		return 0;
	buf_init(&b);
	if (s->n > 0 && (v = calloc(s->n, sizeof(*v))) == NULL)
		return -1;
	if (s->n == 0)
		v = NULL;
	for (i = 0; i < s->n; i++)
		v[i] = &s->docs[i];
	if (s->n > 0)
		qsort(v, s->n, sizeof(*v), backend_doc_cmp);
	for (i = 0; i < s->n; i++)
		if (buf_printf(&b, "%s%c%s%c", v[i]->path, 0, v[i]->hash, 0) == -1)
			goto out;
	crypto_sha256_hex(b.p != NULL ? b.p : "", b.len, s->version);
	rc = 0;
out:
	free(v);
	buf_release(&b);
	return rc;
}

int
backend_stored_get(struct backend_ctx *c, const char *path, struct backend_stored *out)
{
	memset(out, 0, sizeof(*out));
	return store_document_stored(c->db, c->library_id, path, out->hash,
	    sizeof(out->hash), &out->etag, &out->modified, &out->url);
}

void
backend_stored_release(struct backend_stored *s)
{
	free(s->etag);
	free(s->modified);
	free(s->url);
	memset(s, 0, sizeof(*s));
}

/* The URL for a message: scheme, host, port and path; never userinfo, query or fragment. */
static void
backend_url_text(const char *url, char *out, size_t sz)
{
	CURLU	*u = curl_url();
	char	*scheme = NULL, *host = NULL, *port = NULL, *path = NULL;

	snprintf(out, sz, "(an unreadable URL)");
	if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK) {
		if (curl_url_get(u, CURLUPART_PORT, &port, 0) == CURLUE_OK)
			snprintf(out, sz, "%s://%s:%s%s", scheme, host, port, path);
		else
			snprintf(out, sz, "%s://%s%s", scheme, host, path);
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(u);
}

/* The reason phrase of the HTTP statuses a source answers with, "" for others. */
static const char *
backend_status_text(long status)
{
	switch (status) {
	case 400: return " Bad Request";
	case 401: return " Unauthorized";
	case 403: return " Forbidden";
	case 404: return " Not Found";
	case 405: return " Method Not Allowed";
	case 408: return " Request Timeout";
	case 410: return " Gone";
	case 429: return " Too Many Requests";
	case 500: return " Internal Server Error";
	case 502: return " Bad Gateway";
	case 503: return " Service Unavailable";
	case 504: return " Gateway Timeout";
	default: return "";
	}
}

int
backend_http_error(const struct fetch_req *q, char *err, size_t errsz)
{
	char	 u[1024];

	backend_url_text(q->url, u, sizeof(u));
	if (q->result == FETCH_OK)
		snprintf(err, errsz, FETCH_FAILED_PREFIX "%s: HTTP %ld%s", u, q->status,
		    backend_status_text(q->status));
	else
		snprintf(err, errsz, FETCH_FAILED_PREFIX "%s: %s", u, q->error);
	return -1;
}

int
backend_stop(struct backend_ctx *c)
{
	if (c->deadline_ms > 0 && util_now_ms() >= c->deadline_ms)
		return 2;
	return jobs_cancel_requested(c->db, c->job_id) == 1 ? 1 : 0;
}

void
backend_credentials_warning(struct backend_ctx *c, const char *how, const char *what)
{
	if (settings_get_bool(c->db, "perm.require_mcp_auth", 0))
		return;
	jobs_log(c->db, c->job_id, "warning", "%s, and anonymous reads are on: anyone who "
	    "reaches the server can read %s through /mcp and /api/v2; turn on "
	    "perm.require_mcp_auth to require an API key", how, what);
}

void
backend_progress(struct backend_ctx *c, size_t done, size_t total)
{
	if (c->job == NULL)
		return;
	c->job->progress.docs_done = (long long)done;
	c->job->progress.docs_total = total == 0 ? 0 : (long long)(total > done ? total : done);
	jobs_progress(c->job, 0);
}

long
backend_timeout(const struct backend_ctx *c, long timeout_ms)
{
	long long	 left;

	if (c->deadline_ms == 0)
		return timeout_ms;
	left = c->deadline_ms - util_now_ms();
	if (left <= 0)
		return 0;
	return left < timeout_ms ? (long)left : timeout_ms;
}

void
backend_page_deadline(const struct backend_ctx *c, long page_ms, struct fetch_req *q)
{
	q->timeout_ms = backend_timeout(c, page_ms);
	q->timeout_setting = q->timeout_ms < page_ms ? "limits.job_timeout_s" :
	    "sources.page_timeout_s";
}

void
backend_req_release(struct parse_req *p)
{
	free(p->repo_url);
	free(p->branch);
	free(p->settings);
	free(p->given_settings);
	free(p->title);
	free(p->description);
	select_rules_release(&p->rules);
	for (size_t i = 0; i < p->nversions; i++)
		free(p->versions[i]);
	free(p->versions);
	memset(p, 0, sizeof(*p));
}

int
backend_entry_settings(struct parse_req *p, json_object *o,
    const struct validate_field *fields, const char *const *omit, char *err, size_t errsz)
{
	json_object	*s = json_object_new_object(), *g = json_object_new_object(), *v;
	const struct validate_field *f;
	int		 rc = -1;

	if (s == NULL || g == NULL)
		goto out;
	for (f = fields; f->name != NULL; f++) {
		if (util_str_in(omit, f->name))
			continue;
		if (json_object_object_get_ex(o, f->name, &v) &&
		    !json_object_is_type(v, json_type_null)) {
			json_object_object_add(s, f->name, json_object_get(v));
			json_object_object_add(g, f->name, json_object_get(v));
		} else if (f->dflt != NULL &&
		    (v = json_tokener_parse(f->dflt)) != NULL)
			json_object_object_add(s, f->name, v);
	}
	p->settings = strdup(json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	p->given_settings = strdup(json_object_to_json_string_ext(g,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	rc = p->settings != NULL && p->given_settings != NULL ? 0 : -1;
out:
	if (rc == -1)
		snprintf(err, errsz, "out of memory");
	json_object_put(s);
	json_object_put(g);
	return rc;
}
