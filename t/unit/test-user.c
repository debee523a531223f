/* test-user.c: scrypt password hashes, password and name rules, CSRF token derivation. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/accounts.h"
#include "auth/session.h"
#include "auth/user.h"
#include "base/log.h"
#include "db-helpers.h"
#include "tap.h"
#include "store/conn.h"

/* The hash of "admin" that sql/schema.sql gives the default admin. */
static const char schema_admin[] =
    "scrypt$15$8$1$SblK_THMWHlEAd8JMlbEvw$AezytBo02SmJVncd_OQQDIhmjeK5GwSWUyRosYfPSgU";

static void
test_hash(void)
{
	char	*a, *b, *t;
	int	 weaker = -1;

	a = user_password_hash("correct horse");
	b = user_password_hash("correct horse");
	ok(a != NULL && b != NULL, "hash two passwords");
	ok(a != NULL && strncmp(a, "scrypt$15$8$1$", 14) == 0,
	    "the hash names scrypt and its parameters N=2^15 r=8 p=1");
	ok(a != NULL && b != NULL && strcmp(a, b) != 0,
	    "the same password hashes differently (per-user salt)");
	ok(a != NULL && strstr(a, "correct") == NULL, "the hash does not hold the password");
	is_int(user_password_verify(a, "correct horse", &weaker), 1, "the password verifies");
	is_int(weaker, 0, "with the current parameters");
	is_int(user_password_verify(a, "correct hors", NULL), 0, "a shorter one does not");
	is_int(user_password_verify(a, "correct horsf", NULL), 0, "a different one does not");
	is_int(user_password_verify(a, "", NULL), 0, "an empty one does not");
	is_int(user_password_verify(schema_admin, "admin", &weaker), 1,
	    "the schema's default admin hash is the hash of \"admin\"");

	/* Older, weaker parameters still verify and are flagged for a re-hash. */
	is_int(user_password_verify("scrypt$10$8$1$c2FsdHNhbHRzYWx0$"
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "x", &weaker), 0,
	    "a 2^10 hash is checked (no match)");
	is_int(weaker, 1, "and flagged as weaker");

	/* Malformed hashes are errors, never a match. */
	is_int(user_password_verify("", "x", NULL), -1, "empty hash");
	is_int(user_password_verify("bcrypt$15$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA", "x",
	    NULL), -1, "another algorithm");
	is_int(user_password_verify("scrypt$40$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA", "x",
	    NULL), -1, "N out of bounds");
	is_int(user_password_verify("scrypt$20$32$16$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA", "x",
	    NULL), -1, "parameters needing too much memory");
	is_int(user_password_verify("scrypt$15$8$1$AAAAAAAAAAA", "x", NULL), -1,
	    "missing hash field");
	is_int(user_password_verify("scrypt$15$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA$x", "x",
	    NULL), -1, "extra field");
	is_int(user_password_verify("scrypt$15$8$1$A*A$AAAAAAAAAAAAAAAAAAAAAA", "x", NULL), -1,
	    "salt not base64url");
	if (a != NULL) {
		t = strdup(a);
		t[strlen(t) - 2] = t[strlen(t) - 2] == 'A' ? 'B' : 'A';
		is_int(user_password_verify(t, "correct horse", NULL), 0,
		    "a changed hash does not match");
		free(t);
	}
	free(a);
	free(b);
}

static void
test_rules(void)
{
	char	 err[256];

	ok(user_valid_name("alice"), "alice is a valid name");
	ok(user_valid_name("a.b_c-d@example.com"), "an e-mail address is a valid name");
	ok(!user_valid_name(""), "an empty name is not");
	ok(!user_valid_name("a b"), "a name with a space is not");
	ok(!user_valid_name("a/b"), "a name with a slash is not");
	ok(!user_valid_name("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
	    "a 65-character name is not");
	is_int(user_valid_password("123456789", NULL, err, sizeof(err)), -1,
	    "9 characters are too few");
	ok(strstr(err, "at least 10") != NULL, "the reason says so");
	is_int(user_valid_password("1234567890", NULL, err, sizeof(err)), 0,
	    "10 characters are enough");
	is_int(user_valid_password("Alice12345", "alice12345", err, sizeof(err)), -1,
	    "the user name is not a password");
}

static void
test_csrf(void)
{
	char	 a[SESSION_CSRF_LEN + 1], b[SESSION_CSRF_LEN + 1];

	session_csrf("UfUnRCjzOz1IXiprUQbxJTVoo-inMXhtuiJlPjs0-Wo", a);
	session_csrf("UfUnRCjzOz1IXiprUQbxJTVoo-inMXhtuiJlPjs0-Wp", b);
	is_int(strlen(a), SESSION_CSRF_LEN, "a CSRF token has 43 characters");
	ok(strcmp(a, b) != 0, "another session has another token");
	ok(session_csrf_ok("UfUnRCjzOz1IXiprUQbxJTVoo-inMXhtuiJlPjs0-Wo", a),
	    "the token checks against its session");
	ok(!session_csrf_ok("UfUnRCjzOz1IXiprUQbxJTVoo-inMXhtuiJlPjs0-Wp", a),
	    "not against another");
	ok(!session_csrf_ok("UfUnRCjzOz1IXiprUQbxJTVoo-inMXhtuiJlPjs0-Wo", NULL),
	    "a missing token fails");
	ok(!session_csrf_ok("UfUnRCjzOz1IXiprUQbxJTVoo-inMXhtuiJlPjs0-Wo", ""),
	    "an empty token fails");
}

/* Sessions of user id that are still live. */
static int
count_sessions(struct db *db, long long id)
{
	sqlite3_stmt	*st;
	int		 n = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT count(*) FROM sessions WHERE user_id = ?1", -1,
	    &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The whole changes of lib/auth/user.c and lib/auth/session.c, on a real database. */
static void
test_changes(void)
{
	struct user_change c;
	struct user	 a, b;
	struct db		*db;
	char		 dir[128], err[256], *tok;
	long long	 aid, bid, sid, keep;
	int		 i;

	if (dbh_open(dir, sizeof(dir), &db) == -1) {
		ok(0, "a temporary database");
		return;
	}
	ok(user_create(db, "Alice", 1, "correct horse battery", 0, &aid, err,
	    sizeof(err)) == 0, "admin Alice created");
	ok(user_create(db, "bob", 0, "correct horse battery", 0, &bid, err,
	    sizeof(err)) == 0, "member bob created");
	user_by_id(db, aid, &a);
	user_by_id(db, bid, &b);

	/* The last enabled admin stays: admin (the schema's) is one, so disable it first. */
	memset(&c, 0, sizeof(c));
	c.admin = c.must_change = -1;
	c.disabled = 1;
	if (user_by_name(db, "admin", &b, NULL) == 0)
		is_int(accounts_update(db, &b, &c), USER_OK, "another admin can be disabled");
	user_by_id(db, bid, &b);
	is_int(accounts_update(db, &a, &c), USER_LAST_ADMIN, "the last admin is not disabled");
	user_by_id(db, aid, &a);
	ok(!a.disabled, "and stays enabled");
	c.disabled = -1;
	c.admin = 0;
	is_int(accounts_update(db, &a, &c), USER_LAST_ADMIN, "nor demoted");
	is_int(accounts_remove(db, &a), USER_LAST_ADMIN, "nor deleted");
	c.admin = 1;
	is_int(accounts_update(db, &b, &c), USER_OK, "bob made admin");
	user_by_id(db, bid, &b);
	ok(b.admin, "bob is an admin");
	c.admin = 0;
	is_int(accounts_update(db, &a, &c), USER_OK, "now Alice can be demoted");

	/* A password change ends the other sessions and forgets the name's failures. */
	user_by_id(db, aid, &a);
	tok = session_sign_in(db, &a, NULL, NULL, &keep);
	ok(tok != NULL, "Alice signed in");
	free(tok);
	tok = session_create(db, aid, &sid);
	free(tok);
	for (i = 0; i < 3; i++)
		session_throttle_fail(db, "alice", "192.0.2.1");
	ok(session_throttle_wait(db, "alice", "192.0.2.1") > 0, "alice is throttled "
	    "from that address");
	is_int(session_throttle_wait(db, "alice", "192.0.2.9"), 0, "but not from another");
	ok(accounts_change_password(db, &a, "another good passphrase", 0, keep) == 0,
	    "password changed");
	is_int(count_sessions(db, aid), 1, "only the kept session is left");
	is_int(session_throttle_wait(db, "alice", "192.0.2.1"), 0,
	    "the lowercased name's failures are forgotten (the user is 'Alice')");
	for (i = 0; i < 3; i++)
		session_throttle_fail(db, "Alice", "192.0.2.1");
	ok(session_throttle_wait(db, "ALICE", "192.0.2.1") > 0,
	    "the throttle keys the name in any case");
	ok(session_throttle_clear(db, "ALICE") == 0 &&
	    session_throttle_wait(db, "alice", "192.0.2.1") == 0,
	    "session_throttle_clear takes the name in any case (ctxd-admin user unlock)");

	/* A reset password ends every session; a disabled user's too. */
	memset(&c, 0, sizeof(c));
	c.admin = c.disabled = -1;
	c.password = "a reset passphrase here";
	c.must_change = 1;
	is_int(accounts_update(db, &a, &c), USER_OK, "password reset");
	is_int(count_sessions(db, aid), 0, "a reset ends every session");
	user_by_id(db, aid, &a);
	ok(a.must_change, "the reset password must be changed");
	is_int(accounts_remove(db, &a), USER_OK, "Alice (a member now) deleted");
	is_int(user_by_id(db, aid, &a), 1, "and gone");
	dbh_remove(dir, db);
}

int
main(void)
{
	log_init("test-user");
	test_hash();
	test_rules();
	test_csrf();
	test_changes();
	return tap_done();
}
