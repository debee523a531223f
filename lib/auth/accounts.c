/*
 * accounts.c: the changes of an account that reach beyond its users row, each in one
 * transaction: a role, a disabled flag or a password that ends the user's sessions and
 * forgets the sign-in failures counted against the name (session.c), and a deletion. Above
 * both user.c (the rows) and session.c (sign-in), which call neither this nor each other.
 */
#include "config.h"

#include "auth/accounts.h"
#include "auth/session.h"
#include "auth/user.h"
#include "store/db.h"

/* 1 when u is an enabled admin and no other enabled admin exists, 0 when not, -1 on error. */
static int
accounts_is_last_admin(struct db *db, const struct user *u)
{
	int	 n;

	if (!u->admin || u->disabled)
		return 0;
	if ((n = user_other_admins(db, u->id)) == -1)
		return -1;
	return n == 0;
}

enum user_result
accounts_update(struct db *db, const struct user *u, const struct user_change *c)
{
	int	 admin = c->admin != -1 ? c->admin : u->admin;
	int	 disabled = c->disabled != -1 ? c->disabled : u->disabled;
	int	 last;

	if (db_begin(db) == -1)
		return USER_ERROR;
	if ((!admin || disabled) && (last = accounts_is_last_admin(db, u)) != 0) {
		db_rollback(db);
		return last == 1 ? USER_LAST_ADMIN : USER_ERROR;
	}
	if ((admin != u->admin && user_set_role(db, u->id, admin) != 0) ||
	    (disabled != u->disabled && user_set_disabled(db, u->id, disabled) != 0) ||
	    (c->password != NULL && user_set_password(db, u->id, c->password,
	    c->must_change == 1) != 0) ||
	    /* A disabled user or a reset password ends the user's sessions. */
	    ((disabled || c->password != NULL) && session_end_user(db, u->id, 0) == -1) ||
	    (c->password != NULL && session_throttle_clear(db, u->name) == -1) ||
	    db_commit(db) == -1) {
		db_rollback(db);
		return USER_ERROR;
	}
	return USER_OK;
}

enum user_result
accounts_remove(struct db *db, const struct user *u)
{
	int	 last;

	if (db_begin(db) == -1)
		return USER_ERROR;
	if ((last = accounts_is_last_admin(db, u)) != 0) {
		db_rollback(db);
		return last == 1 ? USER_LAST_ADMIN : USER_ERROR;
	}
	if (user_delete(db, u->id) != 0 || db_commit(db) == -1) {
		db_rollback(db);
		return USER_ERROR;
	}
	return USER_OK;
}

int
accounts_change_password(struct db *db, const struct user *u, const char *password,
    int must_change, long long keep_session)
{
	if (db_begin(db) == -1)
		return -1;
	if (user_set_password(db, u->id, password, must_change) != 0 ||
	    session_end_user(db, u->id, keep_session) == -1 ||
	    session_throttle_clear(db, u->name) == -1 || db_commit(db) == -1) {
		db_rollback(db);
		return -1;
	}
	return 0;
}
