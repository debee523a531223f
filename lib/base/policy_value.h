/*
 * base/policy_value.h: the syntax of the policies' settings (sources/policy.h): a list of
 * library id globs (policy.allow, policy.block) and a trust score (policy.min_trust).
 */
#ifndef BASE_POLICY_VALUE_H
#define BASE_POLICY_VALUE_H

#include <stddef.h>

#define POLICY_MAX_GLOBS	256	/* most globs in one list */
#define POLICY_MAX_TRUST	100

/*
 * Validates a list of globs for policy.allow or policy.block (the settings' check): each
 * a non-empty id of printable ASCII without blanks, at most POLICY_MAX_GLOBS of them.
 * 0, or -1 with err set.
 */
int	 policy_check_globs(const char *list, char *err, size_t errsz);
/* Validates policy.min_trust: "" or a number from 0 to POLICY_MAX_TRUST. */
int	 policy_check_trust(const char *v, char *err, size_t errsz);
/* The number of policy.min_trust ("" or NULL: -1). */
double	 policy_trust_value(const char *v);
/*
 * Calls fn for each glob of the comma-separated list (blanks around a glob ignored) with
 * its bytes; stops at the first nonzero answer and returns it, else 0.
 */
int	 policy_each_glob(const char *list, int (*fn)(const char *, size_t, void *),
	    void *arg);

#endif /* BASE_POLICY_VALUE_H */
