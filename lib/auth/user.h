/* user.h: user accounts and their passwords. */
#ifndef USER_H
#define USER_H

#include <stddef.h>

#include "store/users.h"

struct db;

#define USER_PASSWORD_MIN	10
#define USER_PASSWORD_MAX	1024

/* scrypt hash "scrypt$LOG2N$R$P$SALT$HASH" of a password with a new salt (malloc'd). */
char	*user_password_hash(const char *password);
/*
 * 1 when password matches the stored hash (constant-time compare), 0 when not, -1 on a
 * malformed hash. *weaker (may be NULL) is set when the hash's parameters are below the
 * current ones.
 */
int	 user_password_verify(const char *stored, const char *password, int *weaker);
/* The same work as a verification, for a user name that does not exist. */
void	 user_password_dummy(const char *password);
int	 user_valid_name(const char *);
/* 0 when pw is acceptable for user name (may be NULL); else -1 and a reason in err. */
int	 user_valid_password(const char *pw, const char *name, char *err, size_t errsz);
/* 0 found, 1 no such user, -1 error; *hash (may be NULL) gets the stored hash. */
int	 user_by_name(struct db *, const char *name, struct user *, char **hash);
int	 user_by_id(struct db *, long long id, struct user *);
/* Validates and stores a new user; -1 with the reason in err (e.g. the name is taken). */
int	 user_create(struct db *, const char *name, int admin, const char *password,
	    int must_change, long long *id, char *err, size_t errsz);
/* These return 0 when the user changed, 1 when there is no such user, -1 on error. */
int	 user_set_password(struct db *, long long id, const char *password,
	    int must_change);
int	 user_set_role(struct db *, long long id, int admin);
int	 user_set_disabled(struct db *, long long id, int disabled);
int	 user_delete(struct db *, long long id);
/* Enabled admins other than user id (-1 on error). */
int	 user_other_admins(struct db *, long long id);
/* Calls cb for every user by name; cb non-zero stops. */
int	 user_each(struct db *, int (*cb)(const struct user *, void *), void *);

/* A change to user: -1 (password NULL) leaves a field as it is. */
struct user_change {
	int		 admin;		/* the role: 1 admin, 0 member */
	int		 disabled;
	const char	*password;	/* a new password (a reset), already validated */
	int		 must_change;	/* with a password: to be changed at sign-in */
};
enum user_result { USER_OK, USER_LAST_ADMIN, USER_ERROR };

#endif /* USER_H */
