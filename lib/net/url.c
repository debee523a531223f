/* url.c: a source URL checked and split (url.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "net/url.h"

void
url_release(struct url_parts *u)
{
	free(u->canon);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

int
url_parse(const char *url, const char *name, struct url_parts *out, char *err,
    size_t errsz)
{
	CURLU	*u;
	char	*scheme = NULL, *h = NULL, *port = NULL, *path = NULL, *user = NULL;
	char	*pass = NULL, *canon = NULL, *query = NULL, *frag = NULL;
	int	 rc = -1;

	memset(out, 0, sizeof(*out));
	if ((u = curl_url()) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		snprintf(err, errsz, "field '%s' is not a URL", name);
		goto out;
	}
	curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	curl_url_get(u, CURLUPART_HOST, &h, 0);
	curl_url_get(u, CURLUPART_PORT, &port, 0);
	curl_url_get(u, CURLUPART_PATH, &path, 0);
	curl_url_get(u, CURLUPART_USER, &user, 0);
	curl_url_get(u, CURLUPART_PASSWORD, &pass, 0);
	out->has_query = curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK;
	out->has_fragment = curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0) == CURLUE_OK;
	if (scheme == NULL || (strcmp(scheme, "https") != 0 &&
	    strcmp(scheme, "http") != 0)) {
		snprintf(err, errsz, "field '%s' must be an http or https URL", name);
		goto out;
	}
	if (user != NULL || pass != NULL) {
		snprintf(err, errsz, "field '%s' must not carry credentials: store "
		    "tokens in the settings instead", name);
		goto out;
	}
	if (h == NULL || *h == '\0') {
		snprintf(err, errsz, "field '%s' has no host", name);
		goto out;
	}
	if (curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &canon, 0) != CURLUE_OK)
		goto nomem;
	if ((size_t)snprintf(out->host, sizeof(out->host), "%s%s%s", h, port ? ":" : "",
	    port ? port : "") >= sizeof(out->host)) {
		snprintf(err, errsz, "field '%s' has too long a host", name);
		goto out;
	}
	for (char *c = out->host; *c != '\0'; c++)
		*c = (char)tolower((unsigned char)*c);
	if ((out->canon = strdup(canon)) == NULL ||
	    (out->path = strdup(path != NULL ? path : "/")) == NULL)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	if (rc == -1)
		url_release(out);
	curl_free(scheme);
	curl_free(h);
	curl_free(port);
	curl_free(path);
	curl_free(user);
	curl_free(pass);
	curl_free(canon);
	curl_free(query);
	curl_free(frag);
	curl_url_cleanup(u);
	return rc;
}
