/*
 * test-wiki.c: the wiki back end's checks of a library's settings (backend_wiki.validate,
 * lib/sources/wiki.c): every page URL form of cloud and datacenter is taken, with or
 * without a context path, and the URLs of no known form, with a bad page id or tiny key,
 * or with a space id that is not a number are refused with a message naming the field.
 * The requests themselves are tested against the stand-in (t0760, t0765).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sources/backend.h"
#include "tap.h"

/* validate on {"pageUrls": [url]}: 0 or -1, the message in err. */
static int
page(const char *url, char *err, size_t errsz)
{
	char	 s[2048];

	snprintf(s, sizeof(s), "{\"pageUrls\":[\"%s\"],\"includeSubPages\":false}", url);
	return backend_wiki.validate(s, err, errsz);
}

int
main(void)
{
	static const char *const good[] = {
		"https://acme.atlassian.net/wiki/spaces/ENG/pages/65538/Code+Samples",
		"https://acme.atlassian.net/wiki/spaces/ENG/pages/65538",
		"https://acme.atlassian.net/wiki/spaces/ENG/pages/edit-v2/65542",
		"https://acme.atlassian.net/wiki/pages/viewpage.action?pageId=131074",
		"https://acme.atlassian.net/wiki/x/AQAB",
		"https://wiki.example.com/pages/viewpage.action?spaceKey=X&pageId=7",
		"https://wiki.example.com/confluence/display/OPS/Runbook+Headers",
		"https://wiki.example.com/display/OPS/Caf%C3%A9+%2B+more",
		"http://127.0.0.1:8090/confluence/x/AwAG",
		"https://wiki.example.com/x/_-A",
	};
	static const char *const bad[] = {
		"https://acme.atlassian.net/wiki/about",
		"https://acme.atlassian.net/wiki/spaces/ENG/pages/abc/Title",
		"https://acme.atlassian.net/wiki/spaces/ENG/pages/0",
		"https://acme.atlassian.net/wiki/spaces/ENG/pages/99999999999999999999999/T",
		"https://acme.atlassian.net/wiki/pages/viewpage.action?pageId=x1",
		"https://acme.atlassian.net/wiki/pages/viewpage.action",
		"https://acme.atlassian.net/wiki/x/AAAA",
		"https://acme.atlassian.net/wiki/x/ABCDEFGHIJKL",
		"https://acme.atlassian.net/wiki/x/a*b",
		"https://wiki.example.com/display/OPS",
		"https://wiki.example.com/display/OPS/%00",
		"not a url",
	};
	char	 err[1024];
	size_t	 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err[0] = '\0';
		ok(page(good[i], err, sizeof(err)) == 0, "taken: %s %s", good[i], err);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ok(page(bad[i], err, sizeof(err)) == -1 &&
		    strstr(err, "field 'pageUrls[0]': ") == err &&
		    strstr(err, "is not a wiki page URL of a known form") != NULL,
		    "refused: %s (%s)", bad[i], err);
	}
	ok(backend_wiki.validate("{\"spaceKey\":\"ENG\",\"spaceId\":\"98305\"}", err,
	    sizeof(err)) == 0, "a space key with its id");
	ok(backend_wiki.validate("{\"spaceKey\":\"ENG\",\"spaceId\":\"x\"}", err,
	    sizeof(err)) == -1 && strstr(err, "spaceId") != NULL,
	    "a space id that is not a number: %s", err);
	ok(backend_wiki.validate("{\"title\":\"x\"}", err, sizeof(err)) == -1,
	    "neither a space nor pages: %s", err);
	ok(backend_wiki.validate("[1]", err, sizeof(err)) == -1, "not an object: %s", err);
	return tap_done();
}
