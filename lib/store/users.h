/* store/users.h: the users table: one row per account (auth/user.h checks and hashes). */
#ifndef STORE_USERS_H
#define STORE_USERS_H

struct db;

#define USER_NAME_MAX		64

struct user {
	long long	 id;
	char		 name[USER_NAME_MAX + 1];
	int		 admin;		/* role admin (else member) */
	int		 disabled;
	int		 must_change;	/* may do nothing but change the password */
	char		 created[32], updated[32];
};

/* 0 found, 1 no such user, -1 error; *hash (may be NULL) gets the stored hash (malloc'd). */
int	 store_user_by_name(struct db *, const char *name, struct user *, char **hash);
int	 store_user_by_id(struct db *, long long id, struct user *);
/* Stores a new user with a password hash: 0 (*id, may be NULL), 1 the name is taken, -1. */
int	 store_user_insert(struct db *, const char *name, int admin, const char *hash,
	    int must_change, long long *id);
/* These return 0 when the user changed, 1 when there is no such user, -1 on error. */
int	 store_user_set_password(struct db *, long long id, const char *hash,
	    int must_change);
int	 store_user_set_role(struct db *, long long id, int admin);
int	 store_user_set_disabled(struct db *, long long id, int disabled);
int	 store_user_delete(struct db *, long long id);
/* Enabled admins other than user id (-1 on error). */
int	 store_user_other_admins(struct db *, long long id);
/* Calls cb for every user by name; cb non-zero stops. */
int	 store_user_each(struct db *, int (*cb)(const struct user *, void *), void *);

#endif /* STORE_USERS_H */
