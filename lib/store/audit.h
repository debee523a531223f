/* store/audit.h: the audit_log table: who changed what, when. */
#ifndef STORE_AUDIT_H
#define STORE_AUDIT_H

struct db;

/* Appends an entry: at (ISO 8601), actor, action and its detail (JSON text). 0, or -1. */
int	 store_audit_add(struct db *, const char *at, const char *actor,
	    const char *action, const char *detail);

struct store_audit_row {
	long long	 id;
	const char	*at, *actor, *action;
	const char	*detail;		/* NULL when none */
};

/*
 * Calls cb for the last limit entries of action, newest first; cb returning -1 stops
 * with -1. 0, or -1 (a database error is logged).
 */
int	 store_audit_each(struct db *, const char *action, long limit,
	    int (*cb)(const struct store_audit_row *, void *), void *);

#endif /* STORE_AUDIT_H */
