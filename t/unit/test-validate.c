/* test-validate.c: input validation at the edge (parse requests, URLs, ids, query strings). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ctxd.h"
#include "http.h"
#include "search.h"
#include "tap.h"

/* Expects a parse request to fail with an error containing want. */
static void
parse_fails(const char *json, const char *want, const char *name)
{
	struct parse_req p;
	char		 err[512] = "";
	int		 rc;

	rc = library_parse_request(json, strlen(json), &p, err, sizeof(err));
	ok(rc == -1 && strstr(err, want) != NULL, "%s", name);
	if (rc != -1 || strstr(err, want) == NULL)
		printf("#   rc %d, error '%s', want '%s'\n", rc, err, want);
}

static void
id_is(const char *url, const char *want_id, const char *want_host)
{
	char	 id[512], host[256], err[512];
	int	 rc = library_id_from_url(url, id, sizeof(id), host, sizeof(host),
		    err, sizeof(err));

	ok(rc == 0 && strcmp(id, want_id) == 0 && strcmp(host, want_host) == 0,
	    "id of %s is %s on %s", url, want_id, want_host);
	if (rc != 0)
		printf("#   error: %s\n", err);
	else if (strcmp(id, want_id) != 0 || strcmp(host, want_host) != 0)
		printf("#   got %s on %s\n", id, host);
}

static void
id_fails(const char *url, const char *want)
{
	char	 id[512], host[256], err[512] = "";
	int	 rc = library_id_from_url(url, id, sizeof(id), host, sizeof(host),
		    err, sizeof(err));

	ok(rc == -1 && strstr(err, want) != NULL, "%s refused (%s)", url, want);
	if (rc != -1 || strstr(err, want) == NULL)
		printf("#   rc %d error '%s'\n", rc, err);
}

int
main(void)
{
	struct parse_req p;
	char		 err[512], id[512], big[70000], q[64];
	char		*settings;

	ok(library_parse_request("{\"repoUrl\":\"https://github.com/a/b\"}", 36, &p,
	    err, sizeof(err)) == 0, "minimal request accepted");
	is_str(p.repo_url, "https://github.com/a/b", "repoUrl kept");
	is_str(p.branch, "", "branch defaults to the default branch");
	library_parse_request_release(&p);

	{
		const char *full = "{\"repoUrl\":\"http://git.internal:8080/team/"
		    "docs.git\",\"branch\":\"release/2.x\",\"folders\":[\"docs\"],"
		    "\"excludeFolders\":[\"docs/old\",\"node_modules\"],"
		    "\"excludeFiles\":[\"*.txt\"],\"indexSourceCode\":true}";

		ok(library_parse_request(full, strlen(full), &p, err,
		    sizeof(err)) == 0, "full request accepted");
		is_str(p.branch, "release/2.x", "branch kept");
		is_int(p.rules.nfolders, 1, "one folder");
		is_int(p.rules.nexclude_folders, 2, "two excluded folders");
		is_str(p.rules.exclude_files[0], "*.txt", "excluded file pattern");
		is_int(p.rules.index_source, 1, "indexSourceCode");
		settings = library_settings_json(&p);
		is_str(settings, "{\"folders\":[\"docs\"],\"excludeFolders\":"
		    "[\"docs/old\",\"node_modules\"],\"excludeFiles\":[\"*.txt\"],"
		    "\"indexSourceCode\":true}", "settings JSON is canonical");
		library_parse_request_release(&p);
		{
			struct select_rules r;

			ok(library_settings_rules(settings, &r) == 0 &&
			    r.nexclude_folders == 2 && r.index_source == 1 &&
			    strcmp(r.folders[0], "docs") == 0,
			    "settings JSON reads back as rules");
			library_rules_release(&r);
		}
		free(settings);
	}

	parse_fails("", "not valid JSON", "empty body");
	parse_fails("{\"repoUrl\":", "not valid JSON", "truncated JSON");
	parse_fails("{\"repoUrl\":\"https://github.com/a/b\"} x", "not valid JSON",
	    "trailing junk");
	parse_fails("[1,2]", "must be a JSON object", "array body");
	parse_fails("{}", "missing required field 'repoUrl'", "no repoUrl");
	parse_fails("{\"repoUrl\":null}", "missing required field 'repoUrl'",
	    "null repoUrl");
	parse_fails("{\"repoUrl\":42}", "field 'repoUrl' must be a string",
	    "numeric repoUrl");
	parse_fails("{\"repoUrl\":\"not a url\"}", "'repoUrl' is not a URL",
	    "repoUrl not a URL");
	parse_fails("{\"repoUrl\":\"ftp://h/a/b\"}", "http or https",
	    "ftp repoUrl");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"branch\":7}",
	    "field 'branch' must be a string", "numeric branch");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"branch\":\"a..b\"}",
	    "field 'branch' is not a valid git branch name", "bad branch");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"folders\":\"docs\"}",
	    "field 'folders' must be a list of strings", "folders not a list");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"folders\":[1]}",
	    "'folders' must be a list of strings", "folders with a number");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"excludeFolders\":[\"../x\"]}",
	    "'excludeFolders' entry 1", "folder with ..");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"indexSourceCode\":\"yes\"}",
	    "field 'indexSourceCode' must be true or false", "string boolean");
	parse_fails("{\"repoUrl\":\"https://h/a/b\",\"repourl\":\"x\"}",
	    "unknown field 'repourl'", "unknown field");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "{\"repoUrl\":\"https://h/a/", 24);
	memcpy(big + sizeof(big) - 3, "\"}", 2);
	parse_fails(big, "longer than 2048", "oversize repoUrl");

	id_is("https://github.com/curl/curl", "/curl/curl", "github.com");
	id_is("https://github.com/curl/curl.git", "/curl/curl", "github.com");
	id_is("https://GitLab.Example.com/group/sub/proj.git/", "/sub/proj",
	    "gitlab.example.com");
	id_is("http://127.0.0.1:8080/git/private/acme/docs.git", "/acme/docs",
	    "127.0.0.1:8080");
	id_fails("https://user:tok@github.com/a/b", "must not carry credentials");
	id_fails("https://github.com/onlyone", "must end in /owner/repo");
	id_fails("https://github.com/a/b?x=1", "must not have a query");
	id_fails("https://github.com/a/b%20c", "must end in /owner/repo");
	id_fails("file:///srv/a/b", "http or https");

	ok(search_normalize_id("/a/b", id, sizeof(id)) == 0 &&
	    strcmp(id, "/a/b") == 0, "plain id");
	ok(search_normalize_id("/a/b/v1.2.3", id, sizeof(id)) == 0 &&
	    strcmp(id, "/a/b") == 0, "version suffix dropped");
	ok(search_normalize_id("/a/b@v2", id, sizeof(id)) == 0 &&
	    strcmp(id, "/a/b") == 0, "@version dropped");
	ok(search_normalize_id("a/b", id, sizeof(id)) == -1, "no leading slash");
	ok(search_normalize_id("/a", id, sizeof(id)) == -1, "no repo");
	ok(search_normalize_id("//b", id, sizeof(id)) == -1, "empty owner");
	ok(search_normalize_id("/a/", id, sizeof(id)) == -1, "empty repo");

	snprintf(q, sizeof(q), "a+b%%20c%%2Fd");
	ok(http_urldecode(q) == 0 && strcmp(q, "a b c/d") == 0, "urldecode");
	snprintf(q, sizeof(q), "bad%%zz");
	ok(http_urldecode(q) == -1, "bad escape refused");
	snprintf(q, sizeof(q), "nul%%00");
	ok(http_urldecode(q) == -1, "NUL byte refused");
	return tap_done();
}
