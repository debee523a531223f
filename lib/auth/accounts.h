/*
 * accounts.h: the changes of an account that reach beyond its users row (accounts.c).
 */
#ifndef ACCOUNTS_H
#define ACCOUNTS_H

#include "auth/user.h"

struct db;

/*
 * Applies c to user u in one transaction. Demoting or disabling the last enabled admin
 * changes nothing (USER_LAST_ADMIN). Disabling u or resetting the password ends u's
 * sessions; a new password also forgets the sign-in failures counted against u's name.
 */
enum user_result accounts_update(struct db *, const struct user *u,
	    const struct user_change *c);
/* Deletes u (its sessions and keys go with it) in one transaction, unless it is the last
 * enabled admin (USER_LAST_ADMIN). */
enum user_result accounts_remove(struct db *, const struct user *u);
/*
 * Sets u's password in one transaction, ends u's sessions except keep_session (0: all)
 * and forgets the sign-in failures counted against u's name.
 */
int	 accounts_change_password(struct db *, const struct user *u,
	    const char *password, int must_change, long long keep_session);

#endif
