/*
 * policy.h: the policies for public documentation, which decide which libraries of the
 * upstream (a Context7-compatible service) the instance answers for. They never
 * apply to local libraries: the caller asks only about a library that is not local.
 *
 * The policies are settings (ctxd-admin settings, PUT /api/policies):
 *   policy.git, policy.website, policy.llmstxt, policy.openapi, policy.other
 *		a switch per source type of the upstream's libraries (default true)
 *   policy.allow	library id globs ('*' any run of characters), comma-separated; empty
 *			allows every library
 *   policy.block	library id globs; the block list wins over the allow list
 *   policy.min_trust	the lowest trust score allowed, a number from 0 to 100 (empty: none);
 *			a library whose trust the upstream does not report is not held back
 * and a valid, unexpired license ($LICENSE_KEY) is required: without one public
 * documentation is off. Matching is linear in the library id and the lists.
 */
#ifndef POLICY_H
#define POLICY_H

#include <stddef.h>

#include "base/policy_value.h"
#include "store/settings.h"

struct json_object;
struct db;

/* The source types, in the order of policy_types. */
enum policy_type { POLICY_GIT, POLICY_WEBSITE, POLICY_LLMSTXT, POLICY_OPENAPI,
	POLICY_OTHER, POLICY_NTYPES };


/* The policies as stored (policy_load fills it, policy_release frees it). */
struct policy {
	int	 types[POLICY_NTYPES];	/* 1: the source type is allowed */
	char	*allow;			/* comma-separated globs, "" for none */
	char	*block;
	double	 min_trust;		/* < 0: no minimum */
};

/* The setting name of a type ("policy.git"), and its words ("git", "website", ...). */
const char *policy_setting(enum policy_type);
const char *policy_type_word(enum policy_type);
/*
 * The type of the upstream's word for a source type, any case: git (also repo, github,
 * gitlab, bitbucket), website (web, site), llmstxt (llms.txt), openapi; a source type of
 * ours: the policy its back end names (backend_ops.policy_word); NULL or anything else:
 * POLICY_OTHER.
 */
enum policy_type policy_type_of(const char *source_type);
/* Reads the policies; 0, or -1 on a database error or out of memory. */
int	 policy_load(struct db *, const char *datadir, struct policy *);
void	 policy_release(struct policy *);
/*
 * The decision of p for a library (no license check): 1 allowed, 0 denied with why naming
 * the rule. trust < 0: not reported.
 *
 * The id is first brought to the normal form of libid.h (a malformed id is denied): its
 * versions split off, and the lists matched without regard to ASCII case. A glob
 * matches the library when it matches the whole of "/owner/name" or of
 * "/owner/name/version" ("/owner/name@version" is the same id): a block of /vercel/next.js
 * blocks /Vercel/Next.js, /vercel/next.js/v15.0.0 and /vercel/next.js@canary too; one of
 * /vercel/next.js/v14* blocks only those versions. The same holds for the allow list.
 */
int	 policy_decide(const struct policy *p, const char *library_id,
	    const char *source_type, double trust, char *why, size_t whysz);
/*
 * 1 when $LICENSE_KEY is a valid, unexpired license for this build, else 0 with why
 * ("public documentation is off: the license is expired").
 */
int	 policy_license_ok(char *why, size_t whysz);

/* The decision for a library of the upstream: 1 allowed, 0 denied (why names the rule:
   "blocked by policy: source type websites is off", "blocked by policy: /vercel/(star)
   is on the block list", "... not on the allow list", "... trust score 3.1 is below
   the minimum 5", "public documentation is off: the license is expired"), -1 on a
   database error. source_type is the upstream's word (NULL or unknown: "other");
   trust < 0: not reported. */
int	 policy_check(struct db *db, const char *datadir, const char *library_id,
	    const char *source_type, double trust, char *why, size_t whysz);

/*
 * The lists' part of policy_check, before the upstream is asked about the library (its
 * type and trust): the license, then the block and allow lists for library_id. 1 allowed
 * so far, 0 denied with why, -1 on a database error.
 */
int	 policy_check_id(struct db *db, const char *datadir, const char *library_id,
	    char *why, size_t whysz);

/*
 * The policies as the API shows them: {"git": true, "website": ..., "llmstxt", "openapi",
 * "other", "allow": [globs], "block": [globs], "minTrust": number or null}; NULL out of
 * memory. The caller puts it.
 */
struct json_object *policy_json(const struct policy *);
/*
 * Writes the members of API body o (shape of policy_json, checked by the caller's
 * validate_table; any subset; null minTrust, allow or block clears it) as the policy.*
 * settings in a transaction of its own and records the change in the audit trail as
 * done by actor: all or nothing. On BAD or DBERR err says why.
 */
enum settings_apply_result policy_save_json(struct db *, const char *datadir,
	    struct json_object *o, const char *actor, char *err, size_t errsz);
/*
 * Records in audit_log (action "policies") what changed since before, as done by actor:
 * {"setting": {"from", "to"}} in policy_json's names; nothing when nothing changed. For
 * callers that write the settings themselves (ctxd-admin settings). 0, or -1.
 */
int	 policy_record(struct db *, const char *datadir, const struct policy *before,
	    const char *actor);
/* The last limit changes of the policies, newest first: [{id, at, actor, action,
   changes}]; NULL on a database error. */
struct json_object *policy_audit_json(struct db *, long limit);

#endif
