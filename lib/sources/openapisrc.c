/*
 * openapisrc.c: the OpenAPI source back end (type "openapi"). The spec comes from the
 * library's URL, fetched through lib/net/fetch.c under the address policy
 * (fetch.allowed_networks, each redirect hop too), or from an upload the web responder
 * stored as DATA_DIR/uploads/<sha256>.<json|yaml|yml> (settings "upload"). It must be
 * JSON or YAML and an OpenAPI 2.0 or 3.x description, else the job fails saying so.
 *
 * A spec fetched by URL may $ref files next to it, which $ref files in turn (the large
 * public APIs publish thousands): openapi_tree_load follows them breadth first, each file
 * once, resolved against the spec's URL and kept within its folder or the folder above
 * (openapi_ref_key refuses the rest), fetched OPENAPI_TREE_BATCH at a time with
 * sources.inflight requests in flight, through the address policy like the spec. Limits
 * (settings): sources.openapi_max_files files, sources.openapi_max_total_kb for the spec
 * and its files together, sources.max_spec_kb for any one of them; a limit reached is a
 * job-log warning with the count of files left out, a file that cannot be fetched or
 * parsed a warning too, and the $refs to such files stay named references. An upload
 * has no neighbours.
 *
 * The one document of the set is the spec as compact JSON with those files under
 * OPENAPI_FILES_KEY, format DOC_FORMAT_OPENAPI (parsed by openapi_parse_poll), its URL
 * the spec's (a snippet's Source is URL#operationId), its path the spec's file name.
 *
 * An upload is kept while a library's settings name it (one file may serve several
 * libraries: the names are content addresses). The web responder removes the one a
 * re-upload replaces and the one of an add that failed, the delete job (forget) the one
 * of a deleted library; each holds the folder's lock (openapisrc_uploads_lock) from
 * looking at the libraries to removing the file, so that an upload of the same content
 * at the same time keeps its file.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "net/fetch.h"
#include "net/url.h"
#include "parse/openapi.h"
#include "parse/openapi_tree.h"
#include "parse/parse.h"
#include "sources/backend.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "store/jobs.h"
#include "store/netpolicy.h"
#include "store/settings.h"
#include "store/uploads.h"

#define OPENAPI_SRC_WARNINGS	20	/* files that fail, each named in the job log */
#define OPENAPI_SRC_LOCK_WAIT_MS 30000	/* longest wait for the uploads folder's lock */
#define OPENAPI_SRC_ACCEPT	"Accept: application/json, application/yaml, " \
	"application/x-yaml, text/yaml, text/plain;q=0.5, */*;q=0.1"

/* What a fetch run needs: the library's context and the limits of its settings. */
struct openapisrc {
	struct backend_ctx *c;
	size_t		 max_file;	/* bytes of the spec or one of its files */
	size_t		 max_total;	/* bytes of the spec and its files together */
	size_t		 max_files;	/* files besides the spec */
	long		 timeout_ms;
	size_t		 inflight;
	json_object	*files;		/* key -> parsed file */
	struct openapi_tree_stats st;	/* of the files and the spec's bytes */
	size_t		 warned;	/* files named in the job log */
	struct backend_stored stored;	/* the previous run's document */
	char		 etag[256], modified[64];	/* of the spec's answer */
};

/* 1 when name is what the web responder stores: 64 hex digits and .json/.yaml/.yml. */
static int
openapisrc_upload_name(const char *name)
{
	size_t	 i;

	for (i = 0; i < 64; i++)
		if (util_hexval(name[i]) < 0)
			return 0;
	return strcmp(name + 64, ".json") == 0 || strcmp(name + 64, ".yaml") == 0 ||
	    strcmp(name + 64, ".yml") == 0;
}

/* The settings' "upload" (NULL when absent) and "fileName"; -1 with err when bad. */
static int
openapisrc_settings(const char *settings, json_object **js, const char **upload,
    const char **fname, char *err, size_t errsz)
{
	json_object	*v;

	*upload = *fname = NULL;
	if ((*js = json_tokener_parse(settings != NULL ? settings : "{}")) == NULL ||
	    !json_object_is_type(*js, json_type_object)) {
		json_object_put(*js);
		*js = NULL;
		snprintf(err, errsz, "the library's stored settings are unreadable");
		return -1;
	}
	if (json_object_object_get_ex(*js, "upload", &v)) {
		*upload = json_object_get_string(v);
		if (!json_object_is_type(v, json_type_string) ||
		    !openapisrc_upload_name(*upload)) {
			snprintf(err, errsz, "the library's stored upload name is not one "
			    "this server stores");
			json_object_put(*js);
			*js = NULL;
			return -1;
		}
	}
	if (json_object_object_get_ex(*js, "fileName", &v) &&
	    json_object_is_type(v, json_type_string))
		*fname = json_object_get_string(v);
	return 0;
}

static int
openapisrc_validate(const char *settings, char *err, size_t errsz)
{
	json_object	*js;
	const char	*up, *fn;

	if (openapisrc_settings(settings, &js, &up, &fn, err, errsz) == -1)
		return -1;
	json_object_put(js);
	return 0;
}

/* A request of the spec or one of its files, with the source's limits. */
static void
openapisrc_req(struct openapisrc *s, struct fetch_req *q, const char *url)
{
	fetch_req_init(q);
	q->url = url;
	q->headers[0] = OPENAPI_SRC_ACCEPT;
	backend_page_deadline(s->c, s->timeout_ms, q);
	q->max_size = s->max_file < s->max_total ? s->max_file : s->max_total;
	q->tries = 3;
	q->redirects = 5;
}

/* Parses an answer or a file's content as JSON or YAML, an error naming what. */
static json_object *
openapisrc_parse(const char *what, const char *data, size_t len, char *err,
    size_t errsz)
{
	json_object	*t;
	char		 why[256];

	if (openapi_load(data, len, OPENAPI_AUTO, &t, why, sizeof(why)) == -1) {
		snprintf(err, errsz, "%s: %s", what, why);
		return NULL;
	}
	return t;
}

/* The URL of a file key, resolved against the spec's URL (malloc'd, NULL on error). */
static char *
openapisrc_file_url(const char *base, const char *key)
{
	CURLU	*u = curl_url();
	char	*s = NULL, *r = NULL;

	if (u != NULL && curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_URL, key, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK)
		r = strdup(s);
	curl_free(s);
	curl_url_cleanup(u);
	return r;
}

/* What openapi_tree_load's get needs: the spec's URL and the requests of a batch. */
struct openapisrc_batch {
	struct openapisrc *s;
	const char	*base;
	struct fetch_req q[OPENAPI_TREE_BATCH];
	char		*urls[OPENAPI_TREE_BATCH];
};

/* Fetches a batch of the spec's files at once (sources.inflight in flight). */
static int
openapisrc_get_files(void *arg, struct openapi_tree_file *files, size_t n)
{
	struct openapisrc_batch *b = arg;
	struct fetch	 f;
	size_t		 i;

	for (i = 0; i < n; i++) {
		b->urls[i] = openapisrc_file_url(b->base, files[i].key);
		openapisrc_req(b->s, &b->q[i], b->urls[i] != NULL ? b->urls[i] : "");
		b->q[i].max_size = files[i].max > 0 ? files[i].max : 1;
	}
	fetch_init(&f);
	f.inflight = b->s->inflight;
	fetch_run(&f, b->q, n);
	fetch_release(&f);
	for (i = 0; i < n; i++) {
		if (b->q[i].result == FETCH_ETOOBIG)
			files[i].too_large = 1;
		else if (b->q[i].result != FETCH_OK || b->q[i].status / 100 != 2)
			backend_http_error(&b->q[i], files[i].err, sizeof(files[i].err));
		else {
			files[i].data = b->q[i].answer.p != NULL ? b->q[i].answer.p : "";
			files[i].len = b->q[i].answer.len;
		}
	}
	return 0;
}

static void
openapisrc_release_files(void *arg, struct openapi_tree_file *files, size_t n)
{
	struct openapisrc_batch *b = arg;
	size_t		 i;

	(void)files;
	for (i = 0; i < n; i++) {
		fetch_req_release(&b->q[i]);
		free(b->urls[i]);
		b->urls[i] = NULL;
	}
}

/* A file that cannot be fetched or parsed: one warning each, the first few. */
static void
openapisrc_warn_file(void *arg, const char *key, const char *why)
{
	struct openapisrc_batch *b = arg;

	if (b->s->warned++ < OPENAPI_SRC_WARNINGS)
		jobs_log(b->s->c->db, b->s->c->job_id, "warning", "the $refs to %.300s "
		    "stay unresolved: %s", key, why);
}

/* Fetches the files the spec $refs, the files they $ref in turn, and so on. */
static int
openapisrc_neighbours(struct openapisrc *s, json_object *root, const char *base,
    char *err, size_t errsz)
{
	struct openapisrc_batch *b;
	struct openapi_tree_ops ops;
	struct openapi_tree_limits lim;

	if ((b = calloc(1, sizeof(*b))) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	b->s = s;
	b->base = base;
	memset(&ops, 0, sizeof(ops));
	ops.get = openapisrc_get_files;
	ops.release = openapisrc_release_files;
	ops.warn = openapisrc_warn_file;
	ops.arg = b;
	lim.max_files = s->max_files;
	lim.max_bytes = s->max_total;
	lim.max_file = s->max_file;
	json_object_put(s->files);
	if (openapi_tree_load(root, &ops, &lim, &s->files, &s->st) == -1) {
		snprintf(err, errsz, "out of memory");
		free(b);
		return -1;
	}
	free(b);
	return 0;
}

/*
 * The spec by URL, parsed; *base: the answer's URL. Unless the run re-parses all, the
 * request is conditional on the validators the previous run stored: a 304 gives NULL
 * with *unchanged set.
 */
static json_object *
openapisrc_get(struct openapisrc *s, char **base, size_t *len, int *unchanged,
    char *err, size_t errsz)
{
	struct fetch_req q;
	struct fetch	 f;
	json_object	*t = NULL;
	char		 inm[300], ims[100];
	size_t		 h = 1;

	*unchanged = 0;
	netpolicy_load(s->c->db, s->c->datadir);
	openapisrc_req(s, &q, s->c->url);
	if (s->stored.hash[0] != '\0' && s->stored.etag != NULL &&
	    strlen(s->stored.etag) < 256) {
		snprintf(inm, sizeof(inm), "If-None-Match: %s", s->stored.etag);
		q.headers[h++] = inm;
	}
	if (s->stored.hash[0] != '\0' && s->stored.modified != NULL &&
	    strlen(s->stored.modified) < 64) {
		snprintf(ims, sizeof(ims), "If-Modified-Since: %s", s->stored.modified);
		q.headers[h++] = ims;
	}
	fetch_init(&f);
	fetch_run(&f, &q, 1);
	fetch_release(&f);
	if (q.result == FETCH_OK && q.status == 304 && h > 1) {
		*unchanged = 1;
		goto out;
	}
	if (q.result != FETCH_OK || q.status / 100 != 2) {
		backend_http_error(&q, err, errsz);
		goto out;
	}
	if ((t = openapisrc_parse(s->c->url, q.answer.p != NULL ? q.answer.p : "",
	    q.answer.len, err, errsz)) == NULL)
		goto out;
	*len = q.answer.len;
	fetch_answer_header(&q, "ETag", s->etag, sizeof(s->etag));
	fetch_answer_header(&q, "Last-Modified", s->modified, sizeof(s->modified));
	*base = strdup(q.final_url != NULL ? q.final_url : s->c->url);
out:
	fetch_req_release(&q);
	return t;
}

/* The uploaded spec, parsed. */
static json_object *
openapisrc_upload(struct openapisrc *s, const char *name, size_t *len, char *err,
    size_t errsz)
{
	json_object	*t = NULL;
	char		*dir = NULL, *path = NULL, *data = NULL;

	if ((dir = util_path_join(s->c->datadir, "uploads")) == NULL ||
	    (path = util_path_join(dir, name)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if (util_read_file(path, s->max_file, &data, len) == -1) {
		snprintf(err, errsz, "the uploaded file %s cannot be read, or is larger "
		    "than %zu KB (setting sources.max_spec_kb)", name, s->max_file / 1024);
		goto out;
	}
	t = openapisrc_parse(s->c->url, data, *len, err, errsz);
out:
	free(dir);
	free(path);
	free(data);
	return t;
}

/* The document's path: the last segment of the URL's path (or the upload's name). */
static char *
openapisrc_doc_path(const char *url, const char *fname)
{
	const char	*s, *e;

	if (fname != NULL && *fname != '\0' && strchr(fname, '/') == NULL)
		return strdup(fname);
	e = url + strcspn(url, "?#");
	for (s = e; s > url && s[-1] != '/'; s--)
		;
	if (s == e || strchr(url, '/') == NULL)
		return strdup("openapi.json");
	return strndup(s, (size_t)(e - s));
}

/*
 * The HTTP validators d keeps for the next run's conditional GET: the spec's, when it
 * has no files next to it (a 304 of the spec says nothing about them).
 */
static int
openapisrc_validators(struct openapisrc *s, struct backend_doc *d)
{
	if (s->st.files > 0)
		return 0;
	if (s->etag[0] != '\0' && (d->etag = strdup(s->etag)) == NULL)
		return -1;
	if (s->modified[0] != '\0' && (d->modified = strdup(s->modified)) == NULL)
		return -1;
	return 0;
}

#define OPENAPI_SRC_JSON	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * The spec as compact JSON into b, its files (s->files) under OPENAPI_FILES_KEY: each file
 * written and then freed, so that the tree of a large spec and its text are never held
 * whole at once (the worker's peak memory). -1 when out of memory.
 */
static int
openapisrc_text(struct openapisrc *s, json_object *root, struct buf *b)
{
	struct lh_entry	*e;
	json_object	*k;
	const char	*text;
	char		*key;
	size_t		 n = 0;
	int		 rc;

	if ((text = json_object_to_json_string_ext(root, OPENAPI_SRC_JSON)) == NULL ||
	    buf_adds(b, text) == -1)
		return -1;
	if (json_object_object_length(s->files) == 0)
		return 0;
	/* root is an object: its text ends in '}', "{}" when empty */
	b->p[--b->len] = '\0';
	if (buf_adds(b, b->len > 1 ? ",\"" OPENAPI_FILES_KEY "\":{" :
	    "\"" OPENAPI_FILES_KEY "\":{") == -1)
		return -1;
	while ((e = json_object_get_object(s->files)->head) != NULL) {
		if ((key = strdup((const char *)lh_entry_k(e))) == NULL ||
		    (k = json_object_new_string(key)) == NULL) {
			free(key);
			return -1;
		}
		rc = (n++ > 0 && buf_addc(b, ',') == -1) ||
		    buf_adds(b, json_object_to_json_string_ext(k, OPENAPI_SRC_JSON)) == -1 ||
		    buf_addc(b, ':') == -1 || (text = json_object_to_json_string_ext(
		    (json_object *)lh_entry_v(e), OPENAPI_SRC_JSON)) == NULL ||
		    buf_adds(b, text) == -1 ? -1 : 0;
		json_object_put(k);
		json_object_object_del(s->files, key);
		free(key);
		if (rc == -1)
			return -1;
	}
	return buf_adds(b, "}}");
}

/* Adds the one document: the spec (with its files) as compact JSON. */
static int
openapisrc_add(struct openapisrc *s, json_object *root, const char *fname,
    struct backend_set *out, char *err, size_t errsz)
{
	struct backend_doc *d;
	struct buf	 b;
	char		 hash[65], *path;

	buf_init(&b);
	if (openapisrc_text(s, root, &b) == -1 || b.p == NULL ||
	    (path = openapisrc_doc_path(s->c->url, fname)) == NULL) {
		buf_release(&b);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	crypto_sha256_hex(b.p, b.len, hash);
	d = backend_set_add(out, path, hash, b.len);
	free(path);
	if (d == NULL) {
		buf_release(&b);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	d->len = b.len;
	d->data = buf_detach(&b);
	if (d->data == NULL || (d->url = strdup(s->c->url)) == NULL ||
	    openapisrc_validators(s, d) == -1) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	d->format = DOC_FORMAT_OPENAPI;
	return 0;
}

/* The document of a spec that answered 304: the stored one, kept. */
static int
openapisrc_add_unchanged(struct openapisrc *s, struct backend_set *out, char *err,
    size_t errsz)
{
	struct backend_doc *d;
	char		*path;

	jobs_log(s->c->db, s->c->job_id, "info", "%s: not modified (HTTP 304)",
	    s->c->url);
	if ((path = openapisrc_doc_path(s->c->url, NULL)) == NULL ||
	    (d = backend_set_add(out, path, s->stored.hash, 0)) == NULL ||
	    (d->url = strdup(s->c->url)) == NULL ||
	    (s->stored.etag != NULL && (d->etag = strdup(s->stored.etag)) == NULL) ||
	    (s->stored.modified != NULL &&
	    (d->modified = strdup(s->stored.modified)) == NULL)) {
		free(path);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	free(path);
	d->changed = 0;
	d->format = DOC_FORMAT_OPENAPI;
	return 0;
}

/* Logs what was fetched, the limits reached and the $refs that stay unresolved. */
static void
openapisrc_report(struct openapisrc *s, json_object *root, int version, size_t len)
{
	char	 first[256];
	size_t	 n = openapi_unresolved(root, first, sizeof(first));

	jobs_log(s->c->db, s->c->job_id, "info", "%s: OpenAPI %s, %zu KB, %zu files "
	    "next to it (%zu KB in all)", s->c->url, version == 2 ? "2.0 (Swagger)" :
	    "3.x", len / 1024, s->st.files, s->st.bytes / 1024);
	if (s->st.over_files > 0)
		jobs_log(s->c->db, s->c->job_id, "warning", "the spec names more than %zu "
		    "files (setting sources.openapi_max_files): %zu files are not fetched "
		    "and the $refs to them are shown as names", s->max_files,
		    s->st.over_files);
	if (s->st.over_bytes > 0)
		jobs_log(s->c->db, s->c->job_id, "warning", "the spec's files reach %zu KB "
		    "in all (setting sources.openapi_max_total_kb) or one is over %zu KB "
		    "(setting sources.max_spec_kb): %zu files are not fetched and the $refs "
		    "to them are shown as names", s->max_total / 1024, s->max_file / 1024,
		    s->st.over_bytes);
	if (s->st.failed > OPENAPI_SRC_WARNINGS)
		jobs_log(s->c->db, s->c->job_id, "warning", "%zu files of the spec cannot "
		    "be fetched or parsed (the first %d are named above)", s->st.failed,
		    OPENAPI_SRC_WARNINGS);
	if (n > 0)
		jobs_log(s->c->db, s->c->job_id, "warning", "%zu $refs do not resolve "
		    "(the first: %.200s); they are shown as names", n, first);
	if (s->st.refused > 0)
		jobs_log(s->c->db, s->c->job_id, "warning", "%zu $refs name files that "
		    "are not fetched (another host, an absolute path or a folder further "
		    "up than the spec's parent)", s->st.refused);
}

/* A one-line copy of o's string at key (at most 200 bytes), NULL when none or blank. */
static char *
openapisrc_info_str(json_object *o, const char *key, int *nomem)
{
	json_object	*v;
	char		*r, *p;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    (!json_object_is_type(v, json_type_string) &&
	    !json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)))
		return NULL;
	if ((r = strndup(json_object_get_string(v), 200)) == NULL) {
		*nomem = 1;
		return NULL;
	}
	util_utf8_trim(r);
	for (p = r; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	for (p = r; *p == ' '; p++)
		;
	if (*p == '\0') {
		free(r);
		return NULL;
	}
	return r;
}

/* The names the spec gives: info.title the library's title, info.version its label. */
static int
openapisrc_names(json_object *root, struct backend_set *out)
{
	json_object	*info;
	int		 nomem = 0;

	if (!json_object_object_get_ex(root, "info", &info))
		return 0;
	out->title = openapisrc_info_str(info, "title", &nomem);
	out->label = openapisrc_info_str(info, "version", &nomem);
	return nomem ? -1 : 0;
}

static int
openapisrc_fetch(struct backend_ctx *c, struct backend_set *out, char *err,
    size_t errsz)
{
	struct openapisrc s;
	json_object	*js = NULL, *root = NULL;
	const char	*upload, *fname;
	char		*base = NULL, *path = NULL, why[256];
	size_t		 len = 0;
	int		 version, unchanged = 0, rc = -1;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.max_file = (size_t)settings_get_long(c->db, c->datadir, "sources.max_spec_kb",
	    16384) * 1024;
	s.max_total = (size_t)settings_get_long(c->db, c->datadir,
	    "sources.openapi_max_total_kb", 65536) * 1024;
	s.max_files = (size_t)settings_get_long(c->db, c->datadir,
	    "sources.openapi_max_files", 10000);
	s.timeout_ms = settings_get_long(c->db, c->datadir, "sources.page_timeout_s",
	    30) * 1000;
	s.inflight = (size_t)settings_get_long(c->db, c->datadir, "sources.inflight", 4);
	if ((s.files = json_object_new_object()) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if (openapisrc_settings(c->settings, &js, &upload, &fname, err, errsz) == -1)
		goto out;
	if (upload != NULL)
		root = openapisrc_upload(&s, upload, &len, err, errsz);
	else {
		if ((path = openapisrc_doc_path(c->url, NULL)) == NULL ||
		    (!c->full && backend_stored_get(c, path, &s.stored) == -1)) {
			snprintf(err, errsz, "the database is busy");
			goto out;
		}
		root = openapisrc_get(&s, &base, &len, &unchanged, err, errsz);
		if (unchanged) {
			rc = openapisrc_add_unchanged(&s, out, err, errsz);
			goto out;
		}
	}
	if (root == NULL)
		goto out;
	if ((version = openapi_version(root, why, sizeof(why))) == -1) {
		snprintf(err, errsz, "%s: %s", c->url, why);
		goto out;
	}
	s.st.bytes = len;
	if (upload == NULL && base != NULL &&
	    openapisrc_neighbours(&s, root, base, err, errsz) == -1)
		goto out;
	if (json_object_object_length(s.files) > 0)
		json_object_object_add(root, OPENAPI_FILES_KEY, json_object_get(s.files));
	if (base != NULL)
		json_object_object_add(root, OPENAPI_URL_KEY, json_object_new_string(base));
	openapisrc_report(&s, root, version, len);
	/* the files are written into the document's text one by one (openapisrc_text) */
	json_object_object_del(root, OPENAPI_FILES_KEY);
	if (openapisrc_names(root, out) == -1) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	rc = openapisrc_add(&s, root, upload != NULL ? fname : NULL, out, err, errsz);
out:
	free(base);
	free(path);
	backend_stored_release(&s.stored);
	json_object_put(js);
	json_object_put(root);
	json_object_put(s.files);
	return rc;
}

/* ------------------------------------------------------------------ the uploads */

int
openapisrc_uploads_lock(const char *dir)
{
	struct timespec	 ts = { 0, 50 * 1000 * 1000 };
	long		 waited;
	int		 fd;

	/* close-on-exec: a worker the responder starts must not inherit the lock */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	for (waited = 0; flock(fd, LOCK_EX | LOCK_NB) == -1; waited += 50) {
		if ((errno != EWOULDBLOCK && errno != EINTR) ||
		    waited >= OPENAPI_SRC_LOCK_WAIT_MS) {
			if (errno == EWOULDBLOCK)
				errno = EBUSY;
			close(fd);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return fd;
}

void
openapisrc_uploads_unlock(int fd)
{
	if (fd != -1)
		close(fd);
}

int
openapisrc_upload_of(struct db *db, const char *library_id, char **name)
{
	if (store_upload_of(db, library_id, name) == -1)
		return -1;
	if (*name != NULL && !openapisrc_upload_name(*name)) {
		free(*name);
		*name = NULL;
	}
	return 0;
}

int
openapisrc_upload_release(struct db *db, const char *datadir, const char *name,
    const char *except)
{
	char	*dir = NULL, *path = NULL;
	int	 used, rc = -1;

	if (!openapisrc_upload_name(name))
		return 0;
	if ((used = store_upload_used(db, name, except)) != 0)
		return used == 1 ? 0 : -1;
	if ((dir = util_path_join(datadir, "uploads")) == NULL ||
	    (path = util_path_join(dir, name)) == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	if (unlink(path) == -1 && errno != ENOENT) {
		log_err("%s: %s: %s", __func__, path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(dir);
	free(path);
	return rc;
}

struct openapisrc_bytes {
	const char		*dir;
	unsigned long long	*bytes;
};

/* store_upload_each_of_user's callback: adds the size of one upload (a valid name). */
static int
openapisrc_bytes_add(const char *v, void *arg)
{
	struct openapisrc_bytes	*ob = arg;
	struct stat		 sb;
	char			*path;

	if (!openapisrc_upload_name(v))
		return 0;
	if ((path = util_path_join(ob->dir, v)) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
		*ob->bytes += (unsigned long long)sb.st_size;
	free(path);
	return 0;
}

int
openapisrc_uploads_bytes(struct db *db, const char *datadir, long long user_id,
    const char *except, const char *name, unsigned long long *bytes)
{
	struct openapisrc_bytes	 ob;
	char			*dir;
	int			 rc;

	*bytes = 0;
	if ((dir = util_path_join(datadir, "uploads")) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	ob.dir = dir;
	ob.bytes = bytes;
	rc = store_upload_each_of_user(db, user_id, except, name, openapisrc_bytes_add, &ob);
	free(dir);
	return rc;
}

/* A deleted library's upload goes with it, unless another library names it too. */
static int
openapisrc_forget(struct db *db, const char *datadir, const char *library_id)
{
	char	*name = NULL, *dir = NULL;
	int	 fd, rc = -1;

	if (openapisrc_upload_of(db, library_id, &name) == -1)
		return -1;
	if (name == NULL)
		return 0;
	if ((dir = util_path_join(datadir, "uploads")) == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	if ((fd = openapisrc_uploads_lock(dir)) == -1) {
		if (errno == ENOENT)
			rc = 0;
		else
			log_err("%s: %s: %s", __func__, dir, strerror(errno));
		goto out;
	}
	rc = openapisrc_upload_release(db, datadir, name, library_id);
	openapisrc_uploads_unlock(fd);
out:
	free(dir);
	free(name);
	return rc;
}

/* An OpenAPI entry has no fields of its own (sources/entry.c has the common ones). */
static const struct validate_field openapisrc_fields[] = {
	{ .name = NULL }
};

/* OpenAPI by URL: /openapi/<host and path>, a .json/.yaml/.yml extension dropped. */
static int
openapisrc_id(struct parse_req *p, const struct url_parts *u, char *err, size_t errsz)
{
	size_t	 n = strlen(u->path);

	if (util_str_endswith(u->path, ".json") || util_str_endswith(u->path, ".yaml"))
		n -= 5;
	else if (util_str_endswith(u->path, ".yml"))
		n -= 4;
	return libid_of_url(p->id, sizeof(p->id), p->legacy_id, sizeof(p->legacy_id),
	    "/openapi/", u->host, u->path, n, err, errsz);
}

static int
openapisrc_entry(struct parse_req *p, json_object *o, const struct url_parts *u,
    const char *url_name, char *err, size_t errsz)
{
	(void)url_name;
	if (openapisrc_id(p, u, err, errsz) == -1)
		return -1;
	return backend_entry_settings(p, o, openapisrc_fields, NULL, err, errsz);
}

const struct backend_ops backend_openapi = {
	.type = "openapi",
	.label = "OpenAPI",
	.about = "An OpenAPI (Swagger) description of an HTTP API, by URL or uploaded.",
	.url_doc = "the address of the JSON or YAML description",
	.policy_word = "openapi",
	.fields = openapisrc_fields,
	.entry = openapisrc_entry,
	.upload_path = "/api/parse-openapi-upload",
	.upload_field = "openapiFile",
	.upload_max = BACKEND_UPLOAD_MAX,
	.version_noun = "content version",
	.validate = openapisrc_validate,
	.fetch = openapisrc_fetch,
	.forget = openapisrc_forget,
};
