/* test-policy.c: the policies for public documentation (lib/sources/policy.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/license.h"
#include "base/log.h"
#include "sources/libid.h"
#include "sources/policy.h"
#include "store/db.h"
#include "store/settings.h"
#include "tap.h"
#include "store/conn.h"

static char	 dir[] = "/tmp/test-policy.XXXXXX";

/* Sets a setting, failing the test on error. */
static void
set(struct db *db, const char *name, const char *value)
{
	char	 err[256] = "";

	if (settings_set(db, dir, name, value, err, sizeof(err)) == -1)
		ok(0, "set %s: %s", name, err);
}

/* policy_check's answer and reason for a library. */
static int
check(struct db *db, const char *id, const char *type, double trust, char *why, size_t n)
{
	why[0] = '\0';
	return policy_check(db, dir, id, type, trust, why, n);
}

/* Sets $LICENSE_KEY to a key minted with the development key, expiring at expires. */
static int
license(time_t expires)
{
	struct license	 lic;
	const char	*top = getenv("top_srcdir");
	char		 path[1024], *key;
	int		 rc;

	memset(&lic, 0, sizeof(lic));
	snprintf(lic.plan, sizeof(lic.plan), "trial");
	snprintf(lic.licensee, sizeof(lic.licensee), "test");
	snprintf(lic.id, sizeof(lic.id), "test-policy");
	lic.issued = expires - 86400 * 400;
	lic.expires = expires;
	snprintf(path, sizeof(path), "%s/keys/dev-license.key", top != NULL ? top : ".");
	if ((key = license_mint(path, &lic)) == NULL)
		return -1;
	rc = setenv("LICENSE_KEY", key, 1);
	free(key);
	return rc;
}

static void
test_types(struct db *db)
{
	char	 why[256];

	is_int(policy_type_of("git"), POLICY_GIT, "git");
	is_int(policy_type_of("GitHub"), POLICY_GIT, "github is git");
	is_int(policy_type_of("llms.txt"), POLICY_LLMSTXT, "llms.txt");
	is_int(policy_type_of("OpenAPI"), POLICY_OPENAPI, "openapi any case");
	is_int(policy_type_of("confluence"), POLICY_OTHER, "unknown is other");
	is_int(policy_type_of(NULL), POLICY_OTHER, "NULL is other");
	is_int(check(db, "/a/b", "website", -1, why, sizeof(why)), 1, "default: allowed");
	is_str(why, "allowed by policy", "allowed: why");

	set(db, "policy.website", "false");
	is_int(check(db, "/a/b", "website", -1, why, sizeof(why)), 0, "website off");
	is_str(why, "blocked by policy: source type websites is off", "website off: why");
	is_int(check(db, "/a/b", "git", -1, why, sizeof(why)), 1, "git still on");
	set(db, "policy.website", "true");

	set(db, "policy.git", "false");
	is_int(check(db, "/a/b", "repo", -1, why, sizeof(why)), 0, "git off (alias repo)");
	set(db, "policy.git", "true");
	set(db, "policy.llmstxt", "false");
	is_int(check(db, "/a/b", "llmstxt", -1, why, sizeof(why)), 0, "llmstxt off");
	set(db, "policy.llmstxt", "true");
	set(db, "policy.openapi", "false");
	is_int(check(db, "/a/b", "openapi", -1, why, sizeof(why)), 0, "openapi off");
	set(db, "policy.openapi", "true");

	set(db, "policy.other", "false");
	is_int(check(db, "/a/b", "confluence", -1, why, sizeof(why)), 0, "unknown: other off");
	is_str(why, "blocked by policy: source type other is off", "other off: why");
	is_int(check(db, "/a/b", NULL, -1, why, sizeof(why)), 0, "NULL: other off");
	is_int(check(db, "/a/b", "git", -1, why, sizeof(why)), 1, "git on with other off");
	set(db, "policy.other", "true");
}

static void
test_lists(struct db *db)
{
	char	 why[256], err[256];

	set(db, "policy.block", "/vercel/*");
	is_int(check(db, "/vercel/next.js", "git", -1, why, sizeof(why)), 0, "blocked");
	is_str(why, "blocked by policy: /vercel/* is on the block list", "blocked: why");
	is_int(check(db, "/facebook/react", "git", -1, why, sizeof(why)), 1, "not blocked");
	is_int(check(db, "/vercelx/next.js", "git", -1, why, sizeof(why)), 1,
	    "glob is whole-id");

	set(db, "policy.allow", "/facebook/*, /vercel/next.js");
	is_int(check(db, "/facebook/react", "git", -1, why, sizeof(why)), 1, "allowed");
	is_int(check(db, "/mongodb/docs", "git", -1, why, sizeof(why)), 0, "not allowed");
	is_str(why, "blocked by policy: /mongodb/docs is not on the allow list",
	    "not allowed: why");
	is_int(check(db, "/vercel/next.js", "git", -1, why, sizeof(why)), 0,
	    "block list wins over the allow list");
	is_str(why, "blocked by policy: /vercel/* is on the block list", "block wins: why");
	set(db, "policy.allow", "");
	set(db, "policy.block", "");
	is_int(check(db, "/vercel/next.js", "git", -1, why, sizeof(why)), 1, "lists cleared");

	ok(settings_set(db, dir, "policy.allow", "/a b", err, sizeof(err)) == -1,
	    "a blank inside a glob is refused");
	ok(strstr(err, "policy.allow") != NULL, "error names the setting: %s", err);
	ok(settings_set(db, dir, "policy.block", "/a/\x01", err, sizeof(err)) == -1,
	    "a control character is refused");
}

static void
test_trust(struct db *db)
{
	char	 why[256], err[256];

	set(db, "policy.min_trust", "5");
	is_int(check(db, "/a/b", "git", 3.1, why, sizeof(why)), 0, "trust below minimum");
	is_str(why, "blocked by policy: trust score 3.1 is below the minimum 5",
	    "trust: why");
	is_int(check(db, "/a/b", "git", 5, why, sizeof(why)), 1, "trust at minimum");
	is_int(check(db, "/a/b", "git", -1, why, sizeof(why)), 1, "trust not reported");
	set(db, "policy.min_trust", "7.5");
	is_int(check(db, "/a/b", "git", 7.4, why, sizeof(why)), 0, "decimal minimum");
	set(db, "policy.min_trust", "");
	is_int(check(db, "/a/b", "git", 0, why, sizeof(why)), 1, "no minimum");
	ok(settings_set(db, dir, "policy.min_trust", "abc", err, sizeof(err)) == -1,
	    "trust not a number refused");
	ok(settings_set(db, dir, "policy.min_trust", "101", err, sizeof(err)) == -1,
	    "trust above 100 refused");
	ok(settings_set(db, dir, "policy.min_trust", "-1", err, sizeof(err)) == -1,
	    "negative trust refused");
	ok(settings_set(db, dir, "policy.min_trust", "nan", err, sizeof(err)) == -1,
	    "nan refused");
}

/*
 * Ids that name the same library as /vercel/next.js (a version of it, another case), or
 * that must be refused: every one against block rules of the exact id and of wildcards,
 * and against allow rules.
 */
static const char *const same_library[] = {
	"/vercel/next.js", "/vercel/next.js/v15.0.0", "/vercel/next.js@canary",
	"/Vercel/Next.js", "/VERCEL/NEXT.JS", "/VERCEL/next.js", "/Vercel/Next.js/v15.0.0",
	"/vercel/NEXT.js@canary", "/vercel/next.js@", "/vercel/next.js/canary/extra",
	NULL
};
static const char *const refused[] = {
	"/vercel/next.js ", " /vercel/next.js", "/vercel/next.js\t", "\n/vercel/next.js",
	"/vercel/next.js\xc2\xa0", "\xe3\x80\x80/vercel/next.js", "/vercel/next.js\xef\xbb\xbf",
	"/vercel/next.js%20", "/vercel /next.js", "/vercel/ next.js", "/vercel/next.js@ canary",
	"/vercel/next.js/", "/vercel//next.js", "/vercel/./next.js", "/vercel/next.js/..",
	"/vercel/next.js@..", "vercel/next.js", "/vercel", "/",
	"/vercel/n\xc3\xa9xt.js", "/vercel/next.js/v1\x01", "/vercel/@canary", NULL
};

static void
test_ids(struct db *db)
{
	static const struct {
		const char	*block, *allow;
		int		 allowed;	/* for every id of same_library */
	} rules[] = {
		{ "/vercel/next.js", "", 0 },
		{ "/Vercel/Next.js", "", 0 },
		{ "/vercel/*", "", 0 },
		{ "/VERCEL/*", "", 0 },
		{ "/*/next.js", "", 0 },
		{ "/vercel/next*", "", 0 },
		{ "/facebook/react, /vercel/next.js", "", 0 },
		{ "/vercel/next.js", "/vercel/*", 0 },
		{ "", "/vercel/next.js", 1 },
		{ "", "/VERCEL/Next.JS", 1 },
		{ "", "/vercel/*", 1 },
		{ "", "/facebook/*", 0 },
		{ "/facebook/*", "", 1 },
		{ "/vercel/next.js.x", "", 1 },
	};
	char		 why[256], err[400];
	size_t		 i, k;
	struct libid	 l;
	int		 r;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		set(db, "policy.block", rules[i].block);
		set(db, "policy.allow", rules[i].allow);
		for (k = 0; same_library[k] != NULL; k++) {
			r = check(db, same_library[k], "git", -1, why, sizeof(why));
			ok(r == rules[i].allowed, "block '%s' allow '%s': %s: %d (%s)",
			    rules[i].block, rules[i].allow, same_library[k], r, why);
		}
	}
	/* A block of one version blocks that version only, in any case. */
	set(db, "policy.allow", "");
	set(db, "policy.block", "/vercel/next.js/v14*");
	is_int(check(db, "/vercel/next.js/v14.2", "git", -1, why, sizeof(why)), 0,
	    "version block: that version");
	is_int(check(db, "/Vercel/Next.js@V14.2", "git", -1, why, sizeof(why)), 0,
	    "version block: @version, any case");
	is_int(check(db, "/vercel/next.js/v15.0.0", "git", -1, why, sizeof(why)), 1,
	    "version block: another version");
	is_int(check(db, "/vercel/next.js", "git", -1, why, sizeof(why)), 1,
	    "version block: the library itself");
	set(db, "policy.block", "/Vercel/*");
	is_int(check(db, "/VERCEL/next.js", "git", -1, why, sizeof(why)), 0,
	    "block /Vercel/*: /VERCEL/next.js");
	is_str(why, "blocked by policy: /Vercel/* is on the block list",
	    "the rule named as written");
	set(db, "policy.block", "");
	for (k = 0; refused[k] != NULL; k++) {
		ok(check(db, refused[k], "git", -1, why, sizeof(why)) == 0,
		    "refused id denied: '%s'", refused[k]);
		ok(strstr(why, "malformed library id") != NULL, "... as malformed: %s", why);
	}

	/* The normal form. */
	for (k = 0; same_library[k] != NULL; k++) {
		r = libid_normalize(same_library[k], &l, err, sizeof(err));
		ok(r == 0, "normalize %s", same_library[k]);
		if (r != 0)
			continue;
		ok(l.baselen == 15, "%s: base /owner/name", same_library[k]);
		ok(strncmp(l.key, "/vercel/next.js", 15) == 0, "%s: key %s",
		    same_library[k], l.key);
		ok(strncasecmp(l.id, same_library[k], 15) == 0 && strncmp(l.id,
		    same_library[k], 15) == 0, "%s: id keeps the case: %s", same_library[k],
		    l.id);
		libid_release(&l);
	}
	ok(libid_normalize("/Vercel/Next.js@Canary", &l, err, sizeof(err)) == 0 &&
	    strcmp(l.id, "/Vercel/Next.js/Canary") == 0 &&
	    strcmp(l.key, "/vercel/next.js/Canary") == 0 && l.versioned,
	    "@version: '/', the version keeps its case");
	libid_release(&l);
	ok(libid_normalize("/vercel/next.js@", &l, err, sizeof(err)) == 0 &&
	    strcmp(l.id, "/vercel/next.js") == 0 && !l.versioned, "an empty @version dropped");
	libid_release(&l);
	for (k = 0; refused[k] != NULL; k++) {
		ok(libid_normalize(refused[k], &l, err, sizeof(err)) == -1,
		    "refused: '%s'", refused[k]);
		ok(strncmp(err, "is a malformed library id: ", 27) == 0, "why: %s", err);
		ok(libid_check(refused[k], err, sizeof(err)) == -1,
		    "libid_check refuses '%s' too", refused[k]);
	}
	libid_normalize("/vercel/next.js ", &l, err, sizeof(err));
	ok(strstr(err, "whitespace at its start or end") != NULL, "trailing blank: named");
	libid_normalize("\xe3\x80\x80/vercel/next.js", &l, err, sizeof(err));
	ok(strstr(err, "whitespace at its start or end") != NULL, "leading ideographic space: named");
}

/* Linear matching: a long id against many-star globs answers at once. */
static void
test_bounds(void)
{
	struct policy	 p;
	char		*id, *glob, why[256];
	size_t		 n = 200000, i;
	clock_t		 t0;
	int		 r;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < POLICY_NTYPES; i++)
		p.types[i] = 1;
	p.min_trust = -1;
	id = malloc(n + 1);
	glob = malloc(n + 1);
	if (id == NULL || glob == NULL) {
		ok(0, "out of memory");
		goto out;
	}
	memset(id, 'a', n);
	memcpy(id, "/a/", 3);		/* a library id, else it is denied as malformed */
	id[n] = '\0';
	for (i = 0; i < n; i += 2) {
		glob[i] = '*';
		glob[i + 1] = 'a';
	}
	glob[n - 1] = 'b';
	glob[n] = '\0';
	p.block = glob;
	t0 = clock();
	r = policy_decide(&p, id, "git", -1, why, sizeof(why));
	is_int(r, 1, "adversarial glob does not match");
	ok(clock() - t0 < 2 * CLOCKS_PER_SEC, "adversarial glob is fast");
out:
	free(id);
	free(glob);
}

int
main(void)
{
	struct db	*db = NULL;
	char	 why[256], cmd[128];

	log_init("test-policy");
	if (mkdtemp(dir) == NULL || db_open(dir, DB_READWRITE, &db) == -1) {
		ok(0, "database");
		return tap_done();
	}
	if (license(time(NULL) + 86400 * 30) == -1)
		ok(0, "mint a license");
	test_types(db);
	test_lists(db);
	test_ids(db);
	test_trust(db);
	test_bounds();

	if (license(time(NULL) - 86400 * 2) == -1)
		ok(0, "mint an expired license");
	is_int(check(db, "/a/b", "git", -1, why, sizeof(why)), 0, "expired license: off");
	is_str(why, "public documentation is off: the license is expired",
	    "expired license: why");
	unsetenv("LICENSE_KEY");
	is_int(check(db, "/a/b", "git", -1, why, sizeof(why)), 0, "no license: off");
	is_str(why, "public documentation is off: the license is missing",
	    "no license: why");

	db_lite_close(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		ok(0, "remove %s", dir);
	return tap_done();
}
