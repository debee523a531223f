/* entry.c: the one validator of a source entry and the library ids it derives (entry.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "base/util.h"
#include "base/validate.h"
#include "net/url.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/libid.h"
#include "sources/request.h"
#include "store/library.h"

/* The fields every entry may have (url or its alias repoUrl is required: entry_parse). */
static const struct validate_field entry_common_fields[] = {
	{ .name = "type", .type = VALIDATE_STRING, .min = 1, .max = 16,
	    .label = "Source type", .doc = "the kind of source (GET /api/sources/types)" },
	{ .name = "url", .type = VALIDATE_STRING, .min = 1, .max = ENTRY_URL_MAX,
	    .label = "URL", .doc = "the source's address" },
	{ .name = "repoUrl", .type = VALIDATE_STRING, .min = 1, .max = ENTRY_URL_MAX,
	    .doc = "another name of url" },
	{ .name = "title", .type = VALIDATE_STRING, .min = 1, .max = ENTRY_TITLE_MAX,
	    .label = "Title",
	    .doc = "the name shown for the library; by default one is made from the source" },
	{ .name = "description", .type = VALIDATE_STRING, .max = ENTRY_DESCRIPTION_MAX,
	    .label = "Description",
	    .doc = "a sentence on what the library documents, shown to agents that search "
	    "libraries" },
	{ .name = NULL }
};
static const struct validate_table entry_common = {
	.fields = entry_common_fields, .allow_unknown = 1, .what = "field"
};

/* 1 when fields (a NULL-name-terminated list, or NULL) declare name. */
static int
entry_in(const struct validate_field *fields, const char *name)
{
	for (; fields != NULL && fields->name != NULL; fields++)
		if (strcmp(fields->name, name) == 0)
			return 1;
	return 0;
}

/* 1 when a source entry of type t may have the field name. */
static int
entry_declares(const struct backend_ops *t, const char *name)
{
	return entry_in(entry_common_fields, name) || entry_in(t->fields, name);
}

/* The source types' names, "git, website, ..." in the registry's order. */
static const char *
entry_type_names(void)
{
	static char	 names[256];
	const struct backend_ops *t;
	size_t		 i, len = 0;

	if (*names != '\0')
		return names;
	for (i = 0; (t = backend_at(i)) != NULL && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
		    i > 0 ? ", " : "", t->type);
	return names;
}

/*
 * Every member of o must be declared by type t: a field of another type is named as
 * such ("field 'maxDepth' is not a field of a git source; website sources have it").
 */
static int
entry_check_names(const struct backend_ops *t, json_object *o, char *err, size_t errsz)
{
	const struct backend_ops *other;
	size_t		 i;

	json_object_object_foreach(o, key, val) {
		(void)val;
		if (entry_declares(t, key))
			continue;
		for (i = 0; (other = backend_at(i)) != NULL; i++)
			if (entry_declares(other, key)) {
				snprintf(err, errsz, "field '%.64s' is not a field of a %s "
				    "source (%s sources have it)", key, t->type,
				    other->type);
				return -1;
			}
		snprintf(err, errsz, "unknown field '%.64s'", key);
		return -1;
	}
	return 0;
}

int
entry_upload_id(const char *title, const char *file_name, char *id, size_t idsz,
    char *err, size_t errsz)
{
	char		 part[LIBID_PART_MAX + 1] = "";
	const char	*s = title != NULL && *title != '\0' ? title : file_name;
	size_t		 n = s != NULL ? strlen(s) : 0;

	if (s == file_name && s != NULL) {
		const char *dot = strrchr(s, '.');

		if (dot != NULL && dot > s)
			n = (size_t)(dot - s);
	}
	if (s != NULL)
		libid_part(part, sizeof(part), s, n);
	if (libid_part_trim(part) == -1) {
		snprintf(err, errsz, "no library id can be made from the title or the "
		    "file name: give a projectTitle with letters or digits");
		return -1;
	}
	snprintf(id, idsz, "/openapi/%s", part);
	return 0;
}

/* Copies the optional title and description. */
static int
entry_texts(struct parse_req *p, json_object *o)
{
	const char	*t = validate_str(o, "title"), *d = validate_str(o, "description");

	if (t != NULL) {
		if ((p->title = strdup(t)) == NULL)
			return -1;
		p->given |= LIBRARY_GIVEN_TITLE;
	}
	if (d != NULL) {
		if ((p->description = strdup(d)) == NULL)
			return -1;
		p->given |= LIBRARY_GIVEN_DESCRIPTION;
	}
	return 0;
}

int
entry_parse(json_object *o, struct parse_req *p, char *err, size_t errsz)
{
	const struct backend_ops *t;
	struct validate_table fields = { .allow_unknown = 1, .what = "field" };
	struct url_parts u;
	const char	*type, *name, *url;
	unsigned	 given;
	int		 rc = -1;

	memset(p, 0, sizeof(*p));
	memset(&u, 0, sizeof(u));
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errsz, "a source entry must be a JSON object");
		return -1;
	}
	if (validate_given(o, "type") && validate_str(o, "type") == NULL) {
		snprintf(err, errsz, "field 'type' must be a string (one of %s)",
		    entry_type_names());
		return -1;
	}
	type = validate_given(o, "type") ? validate_str(o, "type") : "git";
	if ((t = backend_lookup(type)) == NULL) {
		snprintf(err, errsz, "field 'type' must be one of %s (not '%.32s')",
		    entry_type_names(), type);
		return -1;
	}
	fields.fields = t->fields;
	if (entry_check_names(t, o, err, errsz) == -1 ||
	    validate_object(&entry_common, o, err, errsz) == -1 ||
	    (!t->url_own && validate_object(&fields, o, err, errsz) == -1))
		return -1;
	if (validate_given(o, "url") && validate_given(o, "repoUrl")) {
		snprintf(err, errsz, "give the URL as 'url' or as 'repoUrl', not both");
		return -1;
	}
	name = validate_given(o, "repoUrl") ? "repoUrl" : "url";
	if ((url = validate_str(o, name)) == NULL) {
		snprintf(err, errsz, "missing required field 'url'");
		return -1;
	}
	if (t->url_own) {
		/* The type checks its fields and URL itself (git: as POST /api/parse). */
		if (t->entry(p, o, NULL, name, err, errsz) == -1)
			return -1;
		given = p->given;
		if (entry_texts(p, o) == -1)
			goto nomem;
		p->given |= given;
		return 0;
	}
	p->type = t->type;
	if (entry_texts(p, o) == -1)
		goto nomem;
	if (url_parse(url, name, &u, err, errsz) == -1)
		goto out;
	if ((p->repo_url = strdup(u.canon)) == NULL || (p->branch = strdup("")) == NULL)
		goto nomem;
	memcpy(p->host, u.host, sizeof(p->host));
	if (t->entry(p, o, &u, name, err, errsz) == -1)
		goto out;
	/* The back end's own checks (a wiki page URL's form). */
	if (t->validate != NULL && t->validate(p->settings, err, errsz) == -1)
		goto out;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
out:
	url_release(&u);
	if (rc == -1)
		backend_req_release(p);
	return rc;
}

int
entry_parse_text(const char *json, size_t len, struct parse_req *p, char *err,
    size_t errsz)
{
	static const struct validate_field any[] = {
		{ .name = NULL }
	};
	static const struct validate_table t = {
		.fields = any, .allow_unknown = 1, .what = "field"
	};
	json_object	*o;
	int		 rc;

	memset(p, 0, sizeof(*p));
	if ((o = validate_json(&t, json, len, err, errsz)) == NULL)
		return -1;
	rc = entry_parse(o, p, err, errsz);
	json_object_put(o);
	return rc;
}

json_object *
entry_types_json(void)
{
	return backend_types_json(entry_common_fields);
}

int
entry_stable_id(struct db *db, struct parse_req *p)
{
	struct store_library l;
	int		 rc = -1, exists;

	if (p->legacy_id[0] == '\0' || strcmp(p->legacy_id, p->id) == 0)
		return 0;
	memset(&l, 0, sizeof(l));
	if (store_library_load(db, p->id, &l) == -1)
		return -1;
	exists = l.exists;
	store_library_release(&l);
	if (exists)
		return 0;
	memset(&l, 0, sizeof(l));
	if (store_library_load(db, p->legacy_id, &l) == -1)
		return -1;
	if (l.exists)
		memcpy(p->id, p->legacy_id, sizeof(p->id));
	rc = 0;
	store_library_release(&l);
	return rc;
}
