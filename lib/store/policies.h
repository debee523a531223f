/* store/policies.h: the stored settings of the source policy (policy.*). */
#ifndef STORE_POLICIES_H
#define STORE_POLICIES_H

struct db;

/*
 * Calls cb with the name and value of each stored setting policy.*; cb returning -1
 * stops with -1. 0, or -1 (a database error is logged).
 */
int	 store_policy_settings_each(struct db *,
	    int (*cb)(const char *name, const char *value, void *), void *);

#endif /* STORE_POLICIES_H */
