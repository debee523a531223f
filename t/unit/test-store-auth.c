/*
 * test-store-auth.c: the store's accounts modules on either engine (lib/store/users.c,
 * sessions.c, keys.c, audit.c, policies.c, trial.c and the statements of settings.c): the
 * same calls on a SQLite database (db_open in a temporary DATA_DIR) and, when DATABASE_URL
 * names a server (t/t0018-pg-engine.sh starts one), on PostgreSQL (the schema of
 * pgstore_migrate in a schema of the test's own, dropped at the end). Each engine's answers
 * are checked, and written to a trace that must be the same for both.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/crypto.h"
#include "store/audit.h"
#include "store/keys.h"
#include "store/pg.h"
#include "store/pgstore.h"
#include "store/policies.h"
#include "store/sessions.h"
#include "store/settings.h"
#include "store/stmt.h"
#include "store/trial.h"
#include "store/users.h"
#include "db-helpers.h"
#include "tap.h"
#include "store-trace.h"

/* The names store_user_each gives, joined by a space (stop: how many to take, 0 all). */
struct names {
	char	 s[256];
	int	 n, stop;
};

static int
user_name_cb(const struct user *u, void *arg)
{
	struct names	*nm = arg;
	size_t		 len = strlen(nm->s);

	snprintf(nm->s + len, sizeof(nm->s) - len, "%s%s", len ? " " : "", u->name);
	return ++nm->n == nm->stop;
}

static int
key_cb(const struct apikey_row *k, void *arg)
{
	char	*s = arg;
	size_t	 len = strlen(s);

	snprintf(s + len, 1024 - len, "%s[%s %s owner=%s admin=%d created=%s used=%s "
	    "revoked=%s]", len ? " " : "", k->name, k->prefix, k->owner ? k->owner : "-",
	    k->admin, k->created, k->last_used ? k->last_used : "-",
	    k->revoked ? k->revoked : "-");
	return 0;
}

static int
audit_cb(const struct store_audit_row *e, void *arg)
{
	char	*s = arg;
	size_t	 len = strlen(s);

	if (strcmp(e->actor, "stop") == 0)
		return -1;
	snprintf(s + len, 512 - len, "%s[%s %s %s %s]", len ? " " : "", e->at, e->actor,
	    e->action, e->detail ? e->detail : "-");
	return 0;
}

/* The rows come in no order: each name's value in its place, and any other counted. */
struct policies {
	char	 git[16], website[16];
	int	 other;
};

static int
policy_cb(const char *name, const char *value, void *arg)
{
	struct policies	*p = arg;

	if (strcmp(name, "policy.git") == 0)
		snprintf(p->git, sizeof(p->git), "%s", value);
	else if (strcmp(name, "policy.website") == 0)
		snprintf(p->website, sizeof(p->website), "%s", value);
	else
		p->other++;
	return 0;
}

static void
alert_cb(const char *key, void *arg)
{
	char	*s = arg;
	size_t	 len = strlen(s);

	snprintf(s + len, 256 - len, "%s%s", len ? " " : "", key);
}

static void
test_users(struct db *db, const char *e, long long *ann, long long *bob)
{
	static const char *const x[] = { "x_1", "x@1", "X1", "x.1", "x-1" };
	struct names	 nm;
	struct user	 u;
	char		*hash = NULL;
	long long	 id;
	size_t		 i;

	/* SQLite's schema makes a first admin; PostgreSQL's does not: start alike */
	if (store_user_by_name(db, "admin", &u, NULL) == 0)
		store_user_delete(db, u.id);
	eq_int(store_user_insert(db, "Ann", 1, "h1", 1, ann), 0, "%s: a user", e);
	eq_int(store_user_insert(db, "bob", 0, "h2", 0, bob), 0, "%s: another", e);
	ok(*ann > 0 && *bob > 0 && *ann != *bob, "%s: ... with their ids", e);
	id = -7;
	eq_int(store_user_insert(db, "ANN", 0, "h3", 0, &id), 1,
	    "%s: a name taken in another case: 1", e);
	eq_int(id, -7, "%s: ... and no id", e);
	tr("insert taken %lld", id);
	eq_int(store_user_by_name(db, "aNN", &u, &hash), 0, "%s: found by name, any case", e);
	eq_int(u.id, *ann, "%s: ... its id", e);
	eq_str(u.name, "Ann", "%s: ... its name as created", e);
	ok(u.admin && u.must_change && !u.disabled, "%s: ... its flags", e);
	eq_str(hash, "h1", "%s: ... its hash", e);
	eq_int(strlen(u.created), 20, "%s: ... created at (%s)", e, u.created);
	tr("by_name %s admin=%d must=%d disabled=%d hash=%s", u.name, u.admin, u.must_change,
	    u.disabled, hash);
	free(hash);
	eq_int(store_user_by_id(db, *bob, &u), 0, "%s: found by id", e);
	ok(strcmp(u.name, "bob") == 0 && !u.admin && !u.must_change, "%s: ... the member", e);
	tr("by_id %s admin=%d must=%d", u.name, u.admin, u.must_change);
	eq_int(store_user_by_id(db, *bob + 1000, &u), 1, "%s: no such id: 1", e);
	eq_int(store_user_by_name(db, "nobody", &u, NULL), 1, "%s: no such name: 1", e);
	eq_int(store_user_other_admins(db, *ann), 0, "%s: no other admin than Ann", e);
	eq_int(store_user_other_admins(db, *bob), 1, "%s: one other than bob", e);
	eq_int(store_user_set_role(db, *bob, 1), 0, "%s: bob made an admin", e);
	eq_int(store_user_other_admins(db, *ann), 1, "%s: ... another admin", e);
	eq_int(store_user_set_disabled(db, *bob, 1), 0, "%s: bob disabled", e);
	eq_int(store_user_other_admins(db, *ann), 0, "%s: ... a disabled admin does not count",
	    e);
	store_user_by_id(db, *bob, &u);
	ok(u.admin && u.disabled, "%s: ... bob reads so", e);
	tr("bob admin=%d disabled=%d", u.admin, u.disabled);
	eq_int(store_user_set_role(db, *bob, 0) + store_user_set_disabled(db, *bob, 0), 0,
	    "%s: bob a member again, enabled", e);
	eq_int(store_user_set_password(db, *ann, "h4", 0), 0, "%s: a new password", e);
	store_user_by_name(db, "Ann", &u, &hash);
	ok(hash != NULL && strcmp(hash, "h4") == 0 && !u.must_change,
	    "%s: ... stored, no change required", e);
	free(hash);
	eq_int(store_user_set_password(db, *bob + 1000, "h", 0), 1, "%s: no such user: 1", e);
	eq_int(store_user_set_role(db, *bob + 1000, 0), 1, "%s: ... role: 1", e);
	eq_int(store_user_set_disabled(db, *bob + 1000, 0), 1, "%s: ... disabled: 1", e);
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		store_user_insert(db, x[i], 0, "h", 0, NULL);
	memset(&nm, 0, sizeof(nm));
	eq_int(store_user_each(db, user_name_cb, &nm), 0, "%s: every user", e);
	eq_str(nm.s, "Ann bob x-1 x.1 X1 x@1 x_1", "%s: ... by name, case ignored, then bytes",
	    e);
	tr("each %s", nm.s);
	memset(&nm, 0, sizeof(nm));
	nm.stop = 2;
	ok(store_user_each(db, user_name_cb, &nm) == 0 && nm.n == 2,
	    "%s: ... the callback stops it", e);
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (store_user_by_name(db, x[i], &u, NULL) == 0)
			eq_int(store_user_delete(db, u.id), 0, "%s: delete %s", e, x[i]);
	eq_int(store_user_delete(db, u.id), 1, "%s: deleted twice: 1", e);
}

static void
test_sessions(struct db *db, const char *e, long long ann, long long bob)
{
	long long	 s1, s2, s3, id, user, seen;
	long		 f, last, locked, addrs;
	char		 s[256];

	ok(store_session_insert(db, ann, "sh1", 1000, &s1) == 0 &&
	    store_session_insert(db, bob, "sh2", 1000, &s2) == 0 &&
	    store_session_insert(db, ann, "sh3", 2000, &s3) == 0, "%s: three sessions", e);
	ok(s1 > 0 && s2 > s1 && s3 > s2, "%s: ... with their ids", e);
	eq_int(store_session_insert(db, bob, "sh1", 3000, NULL), -1,
	    "%s: a token's hash is unique", e);
	eq_int(store_session_lookup(db, "sh1", 900, 900, &id, &user, &seen), 0,
	    "%s: a session looked up", e);
	ok(id == s1 && user == ann && seen == 1000, "%s: ... its id, user, last sight", e);
	eq_int(store_session_lookup(db, "sh1", 1001, 0, &id, &user, &seen), 1,
	    "%s: ... not when last seen too long ago", e);
	eq_int(store_session_lookup(db, "sh1", 0, 1001, &id, &user, &seen), 1,
	    "%s: ... nor created too long ago", e);
	eq_int(store_session_lookup(db, "nope", 0, 0, &id, &user, &seen), 1,
	    "%s: no such session: 1", e);
	eq_int(store_session_touch(db, s1, 1500), 0, "%s: touched", e);
	store_session_lookup(db, "sh1", 0, 0, &id, &user, &seen);
	eq_int(seen, 1500, "%s: ... seen later", e);
	eq_int(store_session_expire(db, 1200, 0), 0, "%s: expire", e);
	eq_int(store_session_lookup(db, "sh2", 0, 0, &id, &user, &seen), 1,
	    "%s: ... the session not seen since", e);
	eq_int(store_session_lookup(db, "sh1", 0, 0, &id, &user, &seen), 0,
	    "%s: ... not the one seen", e);
	eq_int(store_session_delete_user(db, ann, s3), 0, "%s: a user's sessions but one", e);
	ok(store_session_lookup(db, "sh1", 0, 0, &id, &user, &seen) == 1 &&
	    store_session_lookup(db, "sh3", 0, 0, &id, &user, &seen) == 0,
	    "%s: ... the one kept", e);
	eq_int(store_session_delete(db, s3), 0, "%s: delete one", e);
	eq_int(store_session_lookup(db, "sh3", 0, 0, &id, &user, &seen), 1, "%s: ... gone", e);
	store_session_insert(db, ann, "sh4", 2000, NULL);

	/* the throttle of failed sign-ins */
	ok(store_throttle_fail(db, "user", "ann", 100, 60) == 0 &&
	    store_throttle_fail(db, "user", "ann", 100, 60) == 0 &&
	    store_throttle_fail(db, "user", "ann", 100, 60) == 0, "%s: three failures", e);
	eq_int(store_throttle_get(db, "user", "ann", &f, &last, &locked), 0, "%s: ... counted",
	    e);
	ok(f == 3 && last == 100 && locked == 0, "%s: ... 3 at 100 (%ld %ld %ld)", e, f, last,
	    locked);
	store_throttle_fail(db, "user", "ann", 200, 60);
	store_throttle_get(db, "user", "ann", &f, &last, &locked);
	ok(f == 1 && last == 200, "%s: a failure after the window counts anew", e);
	eq_int(store_throttle_get(db, "addr", "ann", &f, &last, &locked), 1,
	    "%s: no such row: 1", e);
	store_throttle_fail(db, "addr", "10.0.0.1 ann", 200, 60);
	store_throttle_fail(db, "addr", "10.0.0.2 ann", 205, 60);
	store_throttle_fail(db, "addr", "10.0.0.3 bob", 205, 60);
	store_throttle_fail(db, "addr", "10.0.0.4 ann", 10, 60);
	eq_int(store_throttle_count(db, "ann", 210, 60, &f, &addrs), 0, "%s: count", e);
	ok(f == 1 && addrs == 2, "%s: ... 1 failure, from 2 addresses in the window (%ld %ld)",
	    e, f, addrs);
	tr("count %ld %ld", f, addrs);
	ok(store_throttle_count(db, "nobody", 210, 60, &f, &addrs) == 0 && f == 0 &&
	    addrs == 0, "%s: ... none for another", e);
	store_throttle_fail(db, "user", "ann", 201, 60);
	eq_int(store_throttle_lock(db, "user", "ann", 210, 3, 300), 0,
	    "%s: lock at 3 failures", e);
	store_throttle_get(db, "user", "ann", &f, &last, &locked);
	ok(f == 2 && locked == 0, "%s: ... not at 2", e);
	store_throttle_fail(db, "user", "ann", 202, 60);
	store_throttle_lock(db, "user", "ann", 210, 3, 300);
	store_throttle_get(db, "user", "ann", &f, &last, &locked);
	ok(f == 0 && last == 202 && locked == 510, "%s: ... locked at 3 until 210 + 300 "
	    "(%ld %ld %ld)", e, f, last, locked);
	tr("locked %ld %ld %ld", f, last, locked);
	store_throttle_fail(db, "user", "bob", 205, 60);
	store_throttle_fail(db, "user", "bob", 205, 60);
	store_throttle_fail(db, "user", "Zed", 205, 60);
	store_throttle_fail(db, "user", "Zed", 205, 60);
	store_throttle_fail(db, "user", "amy", 205, 60);
	s[0] = '\0';
	eq_int(store_throttle_each_alert(db, 1, 210, 60, alert_cb, s), 0, "%s: alerts", e);
	eq_str(s, "Zed bob amy", "%s: ... most failures first, then by key's bytes", e);
	tr("alerts %s", s);
	s[0] = '\0';
	store_throttle_each_alert(db, 1, 400, 60, alert_cb, s);
	eq_str(s, "", "%s: ... none past the window", e);
	eq_int(store_throttle_forgive(db, "bob", "10.0.0.3 bob", 0), 0, "%s: forgive", e);
	ok(store_throttle_get(db, "user", "bob", &f, &last, &locked) == 1 &&
	    store_throttle_get(db, "addr", "10.0.0.3 bob", &f, &last, &locked) == 0,
	    "%s: ... the user's row, not the pair's", e);
	store_throttle_forgive(db, "bob", "10.0.0.3 bob", 1);
	eq_int(store_throttle_get(db, "addr", "10.0.0.3 bob", &f, &last, &locked), 1,
	    "%s: ... and with the pair, the pair's", e);
	eq_int(store_throttle_clear(db, "ann"), 0, "%s: clear", e);
	ok(store_throttle_get(db, "user", "ann", &f, &last, &locked) == 1 &&
	    store_throttle_get(db, "addr", "10.0.0.1 ann", &f, &last, &locked) == 1 &&
	    store_throttle_get(db, "addr", "10.0.0.4 ann", &f, &last, &locked) == 1 &&
	    store_throttle_get(db, "user", "Zed", &f, &last, &locked) == 0,
	    "%s: ... the user's row and every pair of it, no other", e);
	store_throttle_fail(db, "user", "kept", 2000, 60);
	store_throttle_prune(db, 1000, 1000);
	ok(store_throttle_get(db, "user", "Zed", &f, &last, &locked) == 1 &&
	    store_throttle_get(db, "user", "kept", &f, &last, &locked) == 0,
	    "%s: prune: the old rows go", e);
}

static void
test_keys(struct db *db, struct db *ro, const char *e, long long ann, long long bob)
{
	long long	 k1, k2, k3, id, user;
	char		 s[1024];
	int		 admin;

	ok(store_key_insert(db, ann, "k1", "pfx1", "kh1", 0, "2026-01-01T00:00:00Z", &k1) == 0 &&
	    store_key_insert(db, 0, "op", "pfx2", "kh2", 1, "2026-01-02T00:00:00Z", &k2) == 0 &&
	    store_key_insert(db, bob, "k3", "pfx3", "kh3", 1, "2026-01-03T00:00:00Z", &k3) == 0,
	    "%s: three keys", e);
	ok(k1 > 0 && k2 > k1 && k3 > k2, "%s: ... with their ids", e);
	eq_int(store_key_lookup(db, "kh1", &id, &user, &admin), 0, "%s: a key looked up", e);
	ok(id == k1 && user == ann && admin == 1, "%s: ... an admin's key is an admin key", e);
	eq_int(store_key_lookup(db, "kh2", &id, &user, &admin), 0, "%s: an operator key", e);
	ok(id == k2 && user == 0 && admin == 1, "%s: ... no owner, its own flag", e);
	eq_int(store_key_lookup(db, "kh3", &id, &user, &admin), 0, "%s: a member's key", e);
	ok(id == k3 && user == bob && admin == 0, "%s: ... its owner's role, not the flag", e);
	store_user_set_disabled(db, bob, 1);
	eq_int(store_key_lookup(db, "kh3", &id, &user, &admin), 1,
	    "%s: ... not while its owner is disabled", e);
	store_user_set_disabled(db, bob, 0);
	eq_int(store_key_lookup(db, "nope", &id, &user, &admin), 1, "%s: no such key: 1", e);
	eq_int(store_key_touch(db, k1, "2026-02-01T00:00:00Z", "2026-01-31T00:00:00Z"), 0,
	    "%s: touched", e);
	eq_int(store_key_touch(db, k1, "2026-02-01T00:10:00Z", "2026-01-31T00:00:00Z"), 0,
	    "%s: touched again, used since 'before'", e);
	eq_int(store_key_touch(ro != NULL ? ro : db, k3, "2026-02-02T00:00:00Z",
	    "2026-02-01T00:00:00Z"), 0, "%s: touched through %s", e, ro != NULL ?
	    "a read-only connection" : "the connection");
	s[0] = '\0';
	eq_int(store_key_each(db, -1, key_cb, s), 0, "%s: every key", e);
	eq_str(s, "[k1 pfx1 owner=Ann admin=1 created=2026-01-01T00:00:00Z "
	    "used=2026-02-01T00:00:00Z revoked=-] [op pfx2 owner=- admin=1 "
	    "created=2026-01-02T00:00:00Z used=- revoked=-] [k3 pfx3 owner=bob admin=0 "
	    "created=2026-01-03T00:00:00Z used=2026-02-02T00:00:00Z revoked=-]",
	    "%s: ... oldest first, the last use kept unless before 'before'", e);
	tr("keys %s", s);
	s[0] = '\0';
	store_key_each(db, 0, key_cb, s);
	ok(strncmp(s, "[op ", 4) == 0 && strchr(s + 1, '[') == NULL, "%s: operator keys", e);
	s[0] = '\0';
	store_key_each(db, ann, key_cb, s);
	ok(strncmp(s, "[k1 ", 4) == 0 && strchr(s + 1, '[') == NULL, "%s: a user's keys", e);
	eq_int(store_key_revoke(db, k1, bob, "2026-03-01T00:00:00Z"), 1,
	    "%s: not revoked by another user", e);
	eq_int(store_key_revoke(db, k1, ann, "2026-03-01T00:00:00Z"), 0,
	    "%s: revoked by its owner", e);
	eq_int(store_key_revoke(db, k1, ann, "2026-03-02T00:00:00Z"), 1, "%s: ... once", e);
	eq_int(store_key_lookup(db, "kh1", &id, &user, &admin), 1, "%s: ... no longer valid",
	    e);
	eq_int(store_key_revoke(db, k2, -1, "2026-03-03T00:00:00Z"), 0,
	    "%s: any key by an admin (-1)", e);
	eq_int(store_key_revoke(db, k2 + 1000, -1, "2026-03-03T00:00:00Z"), 1,
	    "%s: no such key: 1", e);
	s[0] = '\0';
	store_key_each(db, -1, key_cb, s);
	ok(strstr(s, "revoked=2026-03-01T00:00:00Z") != NULL &&
	    strstr(s, "revoked=2026-03-03T00:00:00Z") != NULL, "%s: ... listed revoked", e);
	tr("keys %s", s);
}

static void
test_audit(struct db *db, const char *e)
{
	char	 s[512];

	ok(store_audit_add(db, "t1", "ann", "user.create", "{\"a\":1}") == 0 &&
	    store_audit_add(db, "t2", "ann", "key.revoke", "{}") == 0 &&
	    store_audit_add(db, "t3", "bob", "user.create", "{\"b\":2}") == 0,
	    "%s: audit entries", e);
	s[0] = '\0';
	eq_int(store_audit_each(db, "user.create", 10, audit_cb, s), 0, "%s: an action's", e);
	eq_str(s, "[t3 bob user.create {\"b\":2}] [t1 ann user.create {\"a\":1}]",
	    "%s: ... newest first", e);
	tr("audit %s", s);
	s[0] = '\0';
	store_audit_each(db, "user.create", 1, audit_cb, s);
	eq_str(s, "[t3 bob user.create {\"b\":2}]", "%s: ... at most limit", e);
	store_audit_add(db, "t4", "stop", "user.create", "{}");
	eq_int(store_audit_each(db, "user.create", 10, audit_cb, s), -1,
	    "%s: ... a callback's -1 stops it", e);
}

static void
test_settings(struct db *db, const char *dir, const char *e)
{
	struct policies	 pol;
	struct db_stmt	*st;
	char		 err[256], prev[32], *v;

	ok(settings_set(db, dir, "policy.git", "false", err, sizeof(err)) == 0 &&
	    settings_set(db, dir, "policy.website", "false", err, sizeof(err)) == 0 &&
	    settings_set(db, dir, "limits.max_repo_mb", "77", err, sizeof(err)) == 0 &&
	    settings_set(db, dir, "git.github.token", "ghp_secret", err, sizeof(err)) == 0,
	    "%s: settings set (%s)", e, err);
	eq_int(settings_set(db, dir, "limits.max_repo_mb", "x", err, sizeof(err)), -1,
	    "%s: a bad value refused (%s)", e, err);
	eq_int(settings_get_long(db, dir, "limits.max_repo_mb", 5), 77, "%s: ... kept", e);
	eq_int(settings_get_bool(db, "policy.git", 1), 0, "%s: a flag", e);
	v = settings_get(db, dir, "git.github.token");
	eq_str(v, "ghp_secret", "%s: a secret read back", e);
	free(v);
	ok(db_prepare(db, "SELECT value FROM settings WHERE name = ?1", &st) == 0 &&
	    db_bind_text(st, 1, "git.github.token") == 0 && db_step(st) == DB_ROW &&
	    strstr(db_col_text(st, 0), "ghp_") == NULL, "%s: ... stored sealed", e);
	db_finalize(st);
	eq_int(settings_set(db, dir, "policy.git", "true", err, sizeof(err)), 0,
	    "%s: set again", e);
	v = settings_get(db, dir, "policy.git");
	eq_str(v, "true", "%s: ... the new value", e);
	free(v);
	memset(&pol, 0, sizeof(pol));
	eq_int(store_policy_settings_each(db, policy_cb, &pol), 0, "%s: the policy settings",
	    e);
	ok(strcmp(pol.git, "true") == 0 && strcmp(pol.website, "false") == 0 && pol.other == 0,
	    "%s: ... those stored (git=%s website=%s, %d other)", e, pol.git, pol.website,
	    pol.other);
	tr("policies git=%s website=%s other=%d", pol.git, pol.website, pol.other);
	eq_int(settings_unset(db, "policy.website"), 0, "%s: unset", e);
	eq_int(settings_is_set(db, "policy.website"), 0, "%s: ... not set", e);
	v = settings_get(db, dir, "policy.website");
	eq_str(v, "true", "%s: ... the default", e);
	free(v);
	eq_int(settings_is_set(db, "limits.max_repo_mb"), 1, "%s: another still set", e);
	eq_int(settings_unset(db, "no.such"), -1, "%s: an unknown setting: -1", e);

	eq_int(store_trial_claim(db, "2026-03-01", prev, sizeof(prev)), 1,
	    "%s: the trial recorded", e);
	eq_int(store_trial_claim(db, "2026-04-01", prev, sizeof(prev)), 0,
	    "%s: ... once", e);
	eq_str(prev, "2026-03-01", "%s: ... its date", e);
	tr("trial %s", prev);
}

static void
suite(struct db *db, struct db *ro, const char *dir, const char *e, int n)
{
	long long	 ann = 0, bob = 0, id, user, seen;
	char		 s[1024];
	int		 admin;

	cur = trace[n];
	test_users(db, e, &ann, &bob);
	test_sessions(db, e, ann, bob);
	test_keys(db, ro, e, ann, bob);
	test_audit(db, e);
	test_settings(db, dir, e);
	/* a user's sessions and keys go with the user */
	eq_int(store_user_delete(db, ann), 0, "%s: Ann deleted", e);
	eq_int(store_session_lookup(db, "sh4", 0, 0, &id, &user, &seen), 1,
	    "%s: ... her sessions with her", e);
	s[0] = '\0';
	store_key_each(db, -1, key_cb, s);
	ok(strstr(s, "[k1 ") == NULL && strstr(s, "[k3 ") != NULL, "%s: ... and her keys", e);
	eq_int(store_key_lookup(db, "kh3", &id, &user, &admin), 0, "%s: ... not bob's", e);
	tr("keys %s", s);
}

int
main(void)
{
	const char	*url = dbh_pg_url();
	struct db	*db = NULL, *ro = NULL, *pdb;
	struct pg	*pg;
	char		 dir[256], path[512], err[256] = "";
	int		 from;

	if (dbh_open(dir, sizeof(dir), &db) == -1 || crypto_secret_create(dir) == -1) {
		ok(0, "a SQLite database in a temporary DATA_DIR");
		return tap_done();
	}
	ok(db_open(dir, DB_READONLY, &ro) == 0, "sqlite: a read-only connection too");
	suite(db, ro, dir, "sqlite", 0);
	db_close(ro);
	if (url == NULL || *url == '\0')
		printf("# DATABASE_URL unset: PostgreSQL is not tried\n");
	else if ((pg = pg_connect(url, err, sizeof(err))) == NULL)
		ok(0, "connect to PostgreSQL: %s", err);
	else {
		ok(pg_exec(pg, "DROP SCHEMA IF EXISTS storeauth CASCADE; CREATE SCHEMA "
		    "storeauth; SET search_path = storeauth") == 0, "postgres: a schema of the "
		    "test's own");
		ok(pgstore_migrate(pg, &from, err, sizeof(err)) == 0 && from == 0,
		    "postgres: the store's schema (%s)", err);
		pdb = db_conn_pg(pg);
		ok(pdb != NULL && db_conn_engine(pdb) == DB_ENGINE_POSTGRES,
		    "postgres: a connection");
		if (pdb != NULL)
			suite(pdb, NULL, dir, "postgres", 1);
		db_conn_free(pdb);
		ok(pg_exec(pg, "SET search_path = public; DROP SCHEMA storeauth CASCADE") == 0,
		    "postgres: the schema dropped");
		pg_close(pg);
		eq_str(trace[1], trace[0], "SQLite and PostgreSQL answered alike");
	}
	snprintf(path, sizeof(path), "%s/secret.key", dir);
	unlink(path);
	dbh_remove(dir, db);
	return tap_done();
}
