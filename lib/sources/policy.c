/* policy.c: the policies for public documentation (see policy.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json.h>

#include "base/buf.h"
#include "base/license.h"
#include "base/log.h"
#include "base/util.h"
#include "sources/backend.h"
#include "sources/libid.h"
#include "sources/policy.h"
#include "sources/robots.h"
#include "store/audit.h"
#include "store/db.h"
#include "store/policies.h"
#include "store/settings.h"

static const struct {
	const char	*setting;
	const char	*word;
	const char	*label;		/* in the reasons */
} policy_types[POLICY_NTYPES] = {
	{ "policy.git", "git", "git repositories" },
	{ "policy.website", "website", "websites" },
	{ "policy.llmstxt", "llmstxt", "llms.txt" },
	{ "policy.openapi", "openapi", "OpenAPI" },
	{ "policy.other", "other", "other" },
};

/* Other words of the upstream for a type. */
static const struct {
	const char		*word;
	enum policy_type	 type;
} policy_aliases[] = {
	{ "repo", POLICY_GIT }, { "github", POLICY_GIT }, { "gitlab", POLICY_GIT },
	{ "bitbucket", POLICY_GIT }, { "web", POLICY_WEBSITE }, { "site", POLICY_WEBSITE },
	{ "llms.txt", POLICY_LLMSTXT },
};

const char *
policy_setting(enum policy_type t)
{
	return t < POLICY_NTYPES ? policy_types[t].setting : NULL;
}

const char *
policy_type_word(enum policy_type t)
{
	return t < POLICY_NTYPES ? policy_types[t].word : NULL;
}

enum policy_type
policy_type_of(const char *source_type)
{
	const struct backend_ops *b;
	size_t	 i;

	if (source_type == NULL)
		return POLICY_OTHER;
	/* A type of ours says which policy covers it (its back end's policy word). */
	if ((b = backend_lookup(source_type)) != NULL)
		source_type = b->policy_word != NULL ? b->policy_word : "other";
	for (i = 0; i < POLICY_NTYPES; i++)
		if (strcasecmp(source_type, policy_types[i].word) == 0)
			return (enum policy_type)i;
	for (i = 0; i < sizeof(policy_aliases) / sizeof(policy_aliases[0]); i++)
		if (strcasecmp(source_type, policy_aliases[i].word) == 0)
			return policy_aliases[i].type;
	return POLICY_OTHER;
}

struct policy_match {
	const char	*id;		/* the normal form, in lower case */
	const char	*base;		/* its "/owner/name" */
	const char	*glob;		/* the glob that matched */
	size_t		 globlen;
};

/* policy_each_glob callback: 1 when the glob matches the whole library id or its base. */
static int
policy_match(const char *g, size_t n, void *arg)
{
	struct policy_match	*m = arg;

	if (!robots_match(g, n, m->id, 1) && !robots_match(g, n, m->base, 1))
		return 0;
	m->glob = g;
	m->globlen = n;
	return 1;
}

/* 1 when list holds no glob. */
static int
policy_list_empty(const char *list)
{
	return list == NULL || list[strspn(list, " \t,")] == '\0';
}

/* A copy of s in lower case (ASCII), NULL out of memory. */
static char *
policy_lower(const char *s)
{
	char	*c, *p;

	if ((c = strdup(s != NULL ? s : "")) == NULL)
		return NULL;
	for (p = c; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return c;
}

/*
 * The glob of list that matches m (the lists and the id compared in lower case), in
 * m->glob as list spells it: 1, 0 none, -1 out of memory.
 */
static int
policy_find(const char *list, struct policy_match *m)
{
	char	*low;
	int	 r;

	if ((low = policy_lower(list)) == NULL)
		return -1;
	if ((r = policy_each_glob(low, policy_match, m)) == 1)
		m->glob = list + (m->glob - low);
	free(low);
	return r;
}

/*
 * The lists' part of the decision about the library of normalised id l (its key):
 * 1 allowed, 0 denied with why, -1 out of memory.
 */
static int
policy_decide_lists(const struct policy *p, const struct libid *l, char *why,
    size_t whysz)
{
	struct policy_match	 m = { NULL, NULL, NULL, 0 };
	char			*id;
	int			 r;

	if ((id = policy_lower(l->key)) == NULL ||
	    (m.base = strndup(id, l->baselen)) == NULL) {
		free(id);
		return -1;
	}
	m.id = id;
	if ((r = policy_find(p->block, &m)) == 1) {
		snprintf(why, whysz, "blocked by policy: %.*s is on the block list",
		    (int)m.globlen, m.glob);
		r = 0;
	} else if (r == 0) {
		/* Allowed when the allow list is empty or holds a match; -1 no memory. */
		if (policy_list_empty(p->allow))
			r = 1;
		else if ((r = policy_find(p->allow, &m)) == 0)
			snprintf(why, whysz, "blocked by policy: %s is not on the allow "
			    "list", l->key);
	}
	free(id);
	free((char *)m.base);
	return r;
}

/*
 * Normalises library_id into l: 1, or 0 with why (a malformed id or out of memory, both
 * denied).
 */
static int
policy_normalize(const char *library_id, struct libid *l, char *why, size_t whysz)
{
	char	 err[256];

	switch (libid_normalize(library_id, l, err, sizeof(err))) {
	case 0:
		return 1;
	case -1:
		snprintf(why, whysz, "blocked by policy: the id %s", err);
		return 0;
	default:
		snprintf(why, whysz, "blocked by policy: out of memory");
		return 0;
	}
}

int
policy_decide(const struct policy *p, const char *library_id, const char *source_type,
    double trust, char *why, size_t whysz)
{
	enum policy_type	 t = policy_type_of(source_type);
	struct libid		 l;
	int			 r;

	if (!p->types[t]) {
		snprintf(why, whysz, "blocked by policy: source type %s is off",
		    policy_types[t].label);
		return 0;
	}
	if (!policy_normalize(library_id, &l, why, whysz))
		return 0;
	r = policy_decide_lists(p, &l, why, whysz);
	libid_release(&l);
	if (r == -1) {
		snprintf(why, whysz, "blocked by policy: out of memory");
		return 0;
	}
	if (r == 0)
		return 0;
	if (p->min_trust >= 0 && trust >= 0 && trust < p->min_trust) {
		snprintf(why, whysz, "blocked by policy: trust score %g is below the "
		    "minimum %g", trust, p->min_trust);
		return 0;
	}
	snprintf(why, whysz, "allowed by policy");
	return 1;
}

int
policy_license_ok(char *why, size_t whysz)
{
	enum license_status	 st;
	char			*key;

	key = license_key_load(NULL);
	st = license_verify_any(key, license_now(), NULL);
	free(key);
	if (st == LICENSE_OK)
		return 1;
	snprintf(why, whysz, "public documentation is off: the license is %s",
	    st == LICENSE_EXPIRED ? "expired" : st == LICENSE_MISSING ? "missing" :
	    "not valid");
	return 0;
}

/* Sets the policy field of one stored setting (name, value); 0, or -1 out of memory. */
static int
policy_set_field(struct policy *p, const char *name, const char *v)
{
	size_t	 i;
	char	**dst = NULL;

	for (i = 0; i < POLICY_NTYPES; i++)
		if (strcmp(name, policy_types[i].setting) == 0)
			p->types[i] = strcmp(v, "true") == 0;
	if (strcmp(name, "policy.min_trust") == 0)
		p->min_trust = policy_trust_value(v);
	else if (strcmp(name, "policy.allow") == 0)
		dst = &p->allow;
	else if (strcmp(name, "policy.block") == 0)
		dst = &p->block;
	if (dst == NULL)
		return 0;
	free(*dst);
	return (*dst = strdup(v)) == NULL ? -1 : 0;
}

/* store_policy_settings_each's callback: one stored setting into the policy. */
static int
policy_load_one(const char *name, const char *v, void *arg)
{
	if (policy_set_field(arg, name, v) == -1) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	return 0;
}

int
policy_load(struct db *db, const char *datadir, struct policy *p)
{
	size_t		 i;

	(void)datadir;			/* no policy setting is a secret */
	memset(p, 0, sizeof(*p));
	p->min_trust = -1;
	for (i = 0; i < POLICY_NTYPES; i++)
		p->types[i] = 1;
	if (store_policy_settings_each(db, policy_load_one, p) == -1) {
		policy_release(p);
		return -1;
	}
	return 0;
}

void
policy_release(struct policy *p)
{
	free(p->allow);
	free(p->block);
	p->allow = p->block = NULL;
}

int
policy_check(struct db *db, const char *datadir, const char *library_id,
    const char *source_type, double trust, char *why, size_t whysz)
{
	struct policy	 p;
	int		 r;

	if (!policy_license_ok(why, whysz))
		return 0;
	if (policy_load(db, datadir, &p) == -1) {
		snprintf(why, whysz, "database error");
		return -1;
	}
	r = policy_decide(&p, library_id, source_type, trust, why, whysz);
	policy_release(&p);
	return r;
}

int
policy_check_id(struct db *db, const char *datadir, const char *library_id, char *why,
    size_t whysz)
{
	struct policy	 p;
	struct libid	 l;
	int		 r;

	if (!policy_license_ok(why, whysz))
		return 0;
	if (!policy_normalize(library_id, &l, why, whysz))
		return 0;
	if (policy_load(db, datadir, &p) == -1) {
		libid_release(&l);
		snprintf(why, whysz, "database error");
		return -1;
	}
	if ((r = policy_decide_lists(&p, &l, why, whysz)) == -1) {
		snprintf(why, whysz, "blocked by policy: out of memory");
		r = 0;
	}
	policy_release(&p);
	libid_release(&l);
	return r;
}

/* Appends the globs of list to array a. */
static int
policy_glob_add(const char *g, size_t n, void *arg)
{
	json_object	*a = arg;

	json_object_array_add(a, json_object_new_string_len(g, (int)n));
	return 0;
}

json_object *
policy_json(const struct policy *p)
{
	json_object	*o = json_object_new_object(), *allow, *block;
	size_t		 i;

	allow = json_object_new_array();
	block = json_object_new_array();
	if (o == NULL || allow == NULL || block == NULL) {
		json_object_put(o);
		json_object_put(allow);
		json_object_put(block);
		return NULL;
	}
	for (i = 0; i < POLICY_NTYPES; i++)
		json_object_object_add(o, policy_types[i].word,
		    json_object_new_boolean(p->types[i]));
	policy_each_glob(p->allow != NULL ? p->allow : "", policy_glob_add, allow);
	policy_each_glob(p->block != NULL ? p->block : "", policy_glob_add, block);
	json_object_object_add(o, "allow", allow);
	json_object_object_add(o, "block", block);
	json_object_object_add(o, "minTrust", p->min_trust < 0 ? NULL :
	    json_object_new_double(p->min_trust));
	return o;
}

/* The comma-separated text of a JSON list of globs (NULL or null: ""); malloc'd. */
static char *
policy_list_text(json_object *a)
{
	struct buf	 b;
	size_t		 i, n;

	buf_init(&b);
	n = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	for (i = 0; i < n; i++)
		if (buf_printf(&b, "%s%s", i > 0 ? ", " : "", json_object_get_string(
		    json_object_array_get_idx(a, i))) == -1) {
			buf_release(&b);
			return NULL;
		}
	return n == 0 || b.p == NULL ? strdup("") : buf_detach(&b);
}

/*
 * The settings object for the API body o (validated: the type words as booleans, allow
 * and block as lists, minTrust a number or null); NULL out of memory.
 */
static json_object *
policy_settings_of(json_object *o)
{
	json_object	*s = json_object_new_object(), *v;
	char		*t, num[32];
	size_t		 i;

	if (s == NULL)
		return NULL;
	for (i = 0; i < POLICY_NTYPES; i++)
		if (json_object_object_get_ex(o, policy_types[i].word, &v) && v != NULL)
			json_object_object_add(s, policy_types[i].setting, json_object_get(v));
	for (i = 0; i < 2; i++) {
		if (!json_object_object_get_ex(o, i == 0 ? "allow" : "block", &v))
			continue;
		if ((t = policy_list_text(v)) == NULL)
			goto oom;
		json_object_object_add(s, i == 0 ? "policy.allow" : "policy.block",
		    json_object_new_string(t));
		free(t);
	}
	if (json_object_object_get_ex(o, "minTrust", &v)) {
		if (v == NULL)
			num[0] = '\0';
		else
			snprintf(num, sizeof(num), "%g", json_object_get_double(v));
		json_object_object_add(s, "policy.min_trust", json_object_new_string(num));
	}
	return s;
oom:
	json_object_put(s);
	return NULL;
}

/* The members of after that differ from before, {name: {from, to}}; NULL out of memory. */
static json_object *
policy_diff(json_object *before, json_object *after)
{
	json_object	*d = json_object_new_object(), *c, *b;

	if (d == NULL)
		return NULL;
	json_object_object_foreach(after, k, a) {
		b = json_object_object_get(before, k);
		if (json_object_equal(a, b))
			continue;
		if ((c = json_object_new_object()) == NULL) {
			json_object_put(d);
			return NULL;
		}
		json_object_object_add(c, "from", json_object_get(b));
		json_object_object_add(c, "to", json_object_get(a));
		json_object_object_add(d, k, c);
	}
	return d;
}

int
policy_record(struct db *db, const char *datadir, const struct policy *before,
    const char *actor)
{
	struct policy	 after;
	json_object	*b = NULL, *a = NULL, *d = NULL;
	char		 now[32];
	int		 rc = -1, loaded = 0;

	if (policy_load(db, datadir, &after) == -1)
		return -1;
	loaded = 1;
	if ((b = policy_json(before)) == NULL || (a = policy_json(&after)) == NULL ||
	    (d = policy_diff(b, a)) == NULL) {
		log_err("%s: out of memory", __func__);
		goto out;
	}
	if (json_object_object_length(d) == 0) {
		rc = 0;
		goto out;
	}
	util_iso8601(time(NULL), now, sizeof(now));
	rc = store_audit_add(db, now, actor, "policies",
	    json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN));
out:
	json_object_put(b);
	json_object_put(a);
	json_object_put(d);
	if (loaded)
		policy_release(&after);
	return rc;
}

enum settings_apply_result
policy_save_json(struct db *db, const char *datadir, json_object *o, const char *actor,
    char *err, size_t errsz)
{
	static const char *const names[] = { "policy.git", "policy.website",
	    "policy.llmstxt", "policy.openapi", "policy.other", "policy.allow",
	    "policy.block", "policy.min_trust", NULL };
	enum settings_apply_result rc = SETTINGS_APPLY_DBERR;
	struct policy	 before;
	json_object	*s = NULL;
	int		 loaded = 0, began = 0;

	snprintf(err, errsz, "database error");
	if ((s = policy_settings_of(o)) == NULL) {
		snprintf(err, errsz, "out of memory");
		return SETTINGS_APPLY_DBERR;
	}
	if (db_begin(db) == -1)
		goto out;
	began = 1;
	if (policy_load(db, datadir, &before) == -1)
		goto out;
	loaded = 1;
	if ((rc = settings_apply_json(db, datadir, s, names, err, errsz)) !=
	    SETTINGS_APPLY_OK)
		goto out;
	rc = SETTINGS_APPLY_DBERR;
	if (policy_record(db, datadir, &before, actor) == -1 || db_commit(db) == -1)
		goto out;
	began = 0;
	rc = SETTINGS_APPLY_OK;
out:
	if (began)
		db_rollback(db);
	if (loaded)
		policy_release(&before);
	json_object_put(s);
	return rc;
}

/* store_audit_each's callback: one entry into the array. */
static int
policy_audit_entry(const struct store_audit_row *r, void *arg)
{
	json_object	*e, *d;

	if ((e = json_object_new_object()) == NULL)
		return -1;
	json_object_object_add(e, "id", json_object_new_int64(r->id));
	json_object_object_add(e, "at", json_object_new_string(r->at));
	json_object_object_add(e, "actor", json_object_new_string(r->actor));
	json_object_object_add(e, "action", json_object_new_string(r->action));
	d = r->detail != NULL ? json_tokener_parse(r->detail) : NULL;
	json_object_object_add(e, "changes", d != NULL ? d : json_object_new_object());
	json_object_array_add(arg, e);
	return 0;
}

json_object *
policy_audit_json(struct db *db, long limit)
{
	json_object	*a = json_object_new_array();

	if (a == NULL)
		return NULL;
	if (store_audit_each(db, "policies", limit, policy_audit_entry, a) == -1) {
		json_object_put(a);
		return NULL;
	}
	return a;
}
