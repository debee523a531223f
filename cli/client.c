/*
 * client.c: the client tool's HTTP: the deployment's root URL, a GET of the API and the text
 * of an error answer. ctxd.c (library, docs) and setup.c (the client configuration) use it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <json.h>

#include "base/buf.h"
#include "net/fetch.h"
#include "cli.h"

#define CLI_BODY_MAX	(32 * 1024 * 1024)

char *
ctxd_base_url(const char *url, char *err, size_t errsz)
{
	CURLU		*u;
	char		*scheme = NULL, *part = NULL, *full = NULL, *path = NULL, *ret = NULL;
	size_t		 n;
	static const char *const bad[] = { "/mcp", "/api", "/api/v2", "/api/v1" };
	size_t		 i;

	if ((u = curl_url()) == NULL) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
		snprintf(err, errsz, "the base URL must start with http:// or https://");
		goto out;
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
		snprintf(err, errsz, "the base URL is not a valid http(s) URL");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &part, 0) == CURLUE_OK) {
		snprintf(err, errsz, "the base URL must not hold a user name or password");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_QUERY, &part, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_FRAGMENT, &part, 0) == CURLUE_OK) {
		snprintf(err, errsz, "the base URL must not have a query (?) or "
		    "fragment (#)");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &full, 0) != CURLUE_OK) {
		snprintf(err, errsz, "the base URL is not a valid http(s) URL");
		goto out;
	}
	n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		path[--n] = '\0';
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t	 m = strlen(bad[i]);

		if (n >= m && strcasecmp(path + n - m, bad[i]) == 0) {
			snprintf(err, errsz, "the base URL ends in %s: give the "
			    "deployment's root URL (without %s); ctxd adds /mcp and /api "
			    "itself", bad[i], bad[i]);
			goto out;
		}
	}
	n = strlen(full);
	while (n > 0 && full[n - 1] == '/')
		full[--n] = '\0';
	if ((ret = strdup(full)) == NULL)
		snprintf(err, errsz, "out of memory");
out:
	curl_free(scheme);
	curl_free(part);
	curl_free(path);
	curl_free(full);
	curl_url_cleanup(u);
	return ret;
}

int
ctxd_get(const char *base, const char *path, const char *key, struct buf *body,
    long *status, char *err, size_t errsz)
{
	struct fetch		 f;
	struct fetch_req	 r;
	struct buf		 url, auth;
	size_t			 n = 0;
	int			 rc = -1;

	*status = 0;
	fetch_init(&f);
	fetch_req_init(&r);
	buf_init(&url);
	buf_init(&auth);
	if (buf_printf(&url, "%s%s", base, path) == -1 || (key != NULL &&
	    buf_printf(&auth, "Authorization: Bearer %s", key) == -1)) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if (key != NULL)
		r.headers[n++] = auth.p;
	r.headers[n++] = "X-Context7-Source: ctxd-cli";
	r.url = url.p;
	r.connect_ms = 15000;
	r.timeout_ms = 120000;
	r.max_size = CLI_BODY_MAX;
	r.user_agent = "ctxd/" PACKAGE_VERSION;
	(void)fetch_secret(&f, key);
	if (fetch_run(&f, &r, 1) == -1) {
		snprintf(err, errsz, "%s", *r.reason ? r.reason : r.error);
		goto out;
	}
	*status = r.status;
	if (buf_add(body, r.answer.p != NULL ? r.answer.p : "", r.answer.len) == -1) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	rc = 0;
out:
	fetch_req_release(&r);
	fetch_release(&f);
	if (auth.p != NULL)
		explicit_bzero(auth.p, auth.len);
	buf_release(&auth);
	buf_release(&url);
	return rc;
}

const char *
ctxd_error_text(struct buf *body, long status, char *tmp, size_t tmpsz)
{
	struct json_object	*o, *v;

	if (body->p != NULL && (o = json_tokener_parse(body->p)) != NULL) {
		if (json_object_is_type(o, json_type_object) &&
		    json_object_object_get_ex(o, "error", &v) &&
		    json_object_is_type(v, json_type_string)) {
			snprintf(tmp, tmpsz, "%s", json_object_get_string(v));
			json_object_put(o);
			return tmp;
		}
		json_object_put(o);
	}
	snprintf(tmp, tmpsz, "HTTP status %ld", status);
	return tmp;
}
