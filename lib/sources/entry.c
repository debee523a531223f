/* entry.c: the one validator of a source entry and the library ids it derives (entry.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <json.h>

#include "base/util.h"
#include "base/validate.h"
#include "net/url.h"
#include "sources/backend.h"
#include "sources/entry.h"
#include "sources/gitsrc.h"
#include "sources/request.h"

#define ENTRY_URL_MAX		2048
#define ENTRY_LIST_MAX		100	/* excludePatterns, pageUrls */
#define ENTRY_PATTERN_MAX	255
#define ENTRY_DEFAULT_PAGES	100
#define ENTRY_DEFAULT_DEPTH	3

/* The fields every entry may have (url or its alias repoUrl is required: entry_url). */
#define ENTRY_COMMON_FIELDS \
	{ .name = "type", .type = VALIDATE_STRING, .min = 1, .max = 16, \
	    .choices = ENTRY_TYPE_LIST }, \
	{ .name = "url", .type = VALIDATE_STRING, .min = 1, .max = ENTRY_URL_MAX }, \
	{ .name = "repoUrl", .type = VALIDATE_STRING, .min = 1, .max = ENTRY_URL_MAX }, \
	{ .name = "title", .type = VALIDATE_STRING, .min = 1, .max = ENTRY_TITLE_MAX }, \
	{ .name = "description", .type = VALIDATE_STRING, .max = ENTRY_DESCRIPTION_MAX }

/* An exclude pattern: a glob on the URL path, no control characters. */
static int
entry_check_pattern(const char *v, char *err, size_t errsz)
{
	for (; *v != '\0'; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f) {
			snprintf(err, errsz, "must not contain control characters");
			return -1;
		}
	return 0;
}

/* A wiki space key: letters, digits and '_' (the wiki's own rule, case kept). */
static int
entry_check_space_key(const char *v, char *err, size_t errsz)
{
	if (strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~") !=
	    strlen(v)) {
		snprintf(err, errsz, "must be letters, digits, '_' or a leading '~' (a "
		    "personal space)");
		return -1;
	}
	return 0;
}

static const struct validate_field entry_git_fields[] = {
	ENTRY_COMMON_FIELDS,
	{ .name = NULL }
};
static const struct validate_field entry_website_fields[] = {
	ENTRY_COMMON_FIELDS,
	{ .name = "maxPages", .type = VALIDATE_INT, .min = 1, .max = ENTRY_MAX_PAGES },
	{ .name = "maxDepth", .type = VALIDATE_INT, .max = ENTRY_MAX_DEPTH },
	{ .name = "excludePatterns", .type = VALIDATE_LIST, .max = ENTRY_LIST_MAX,
	    .elem_max = ENTRY_PATTERN_MAX, .check = entry_check_pattern },
	{ .name = NULL }
};
static const struct validate_field entry_llmstxt_fields[] = {
	ENTRY_COMMON_FIELDS,
	{ .name = "maxPages", .type = VALIDATE_INT, .min = 1, .max = ENTRY_MAX_PAGES },
	{ .name = NULL }
};
static const struct validate_field entry_openapi_fields[] = {
	ENTRY_COMMON_FIELDS,
	{ .name = NULL }
};
static const struct validate_field entry_wiki_fields[] = {
	ENTRY_COMMON_FIELDS,
	{ .name = "spaceKey", .type = VALIDATE_STRING, .min = 1, .max = 255,
	    .check = entry_check_space_key },
	{ .name = "spaceId", .type = VALIDATE_STRING, .min = 1, .max = 64 },
	{ .name = "spaceName", .type = VALIDATE_STRING, .min = 1, .max = 255 },
	{ .name = "pageUrls", .type = VALIDATE_LIST, .min = 1, .max = ENTRY_LIST_MAX,
	    .elem_max = ENTRY_URL_MAX },
	{ .name = "includeSubPages", .type = VALIDATE_BOOL },
	{ .name = NULL }
};

/* Each type's fields (git's own are gitsrc_parse_table's, checked by library.c). */
static const struct entry_type {
	const char			*type;
	const struct validate_table	 table;
} entry_types[] = {
	/* git's own: library.c */
	{ "git", { .fields = entry_git_fields, .allow_unknown = 1, .what = "field" } },
	{ "wiki", { .fields = entry_wiki_fields, .what = "field" } },
	{ "website", { .fields = entry_website_fields, .what = "field" } },
	{ "llmstxt", { .fields = entry_llmstxt_fields, .what = "field" } },
	{ "openapi", { .fields = entry_openapi_fields, .what = "field" } },
};
#define ENTRY_NTYPES	(sizeof(entry_types) / sizeof(entry_types[0]))

static const struct entry_type *
entry_type_find(const char *type)
{
	size_t	 i;

	for (i = 0; i < ENTRY_NTYPES; i++)
		if (strcmp(entry_types[i].type, type) == 0)
			return &entry_types[i];
	return NULL;
}

/* 1 when the fields of type t declare name (git: also gitsrc_parse_table). */
static int
entry_declares(const struct entry_type *t, const char *name)
{
	const struct validate_field *f;

	for (f = t->table.fields; f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return 1;
	if (strcmp(t->type, "git") == 0)
		for (f = gitsrc_parse_table.fields; f->name != NULL; f++)
			if (strcmp(f->name, name) == 0)
				return 1;
	return 0;
}

/*
 * Every member of o must be declared by type t: a field of another type is named as
 * such ("field 'maxDepth' is not a field of a git source; website sources have it").
 */
static int
entry_check_names(const struct entry_type *t, json_object *o, char *err, size_t errsz)
{
	size_t	 i;

	json_object_object_foreach(o, key, val) {
		(void)val;
		if (entry_declares(t, key))
			continue;
		for (i = 0; i < ENTRY_NTYPES; i++)
			if (entry_declares(&entry_types[i], key)) {
				snprintf(err, errsz, "field '%.64s' is not a field of a %s "
				    "source (%s sources have it)", key, t->type,
				    entry_types[i].type);
				return -1;
			}
		snprintf(err, errsz, "unknown field '%.64s'", key);
		return -1;
	}
	return 0;
}

/* Appends to out (size sz, NUL-terminated) the id form of s: see entry.h. */
static void
entry_id_part(char *out, size_t sz, const char *s, size_t n)
{
	size_t	 len = strlen(out), i;

	for (i = 0; i < n && len + 1 < sz && len < ENTRY_ID_PART_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isalnum(c))
			out[len++] = (char)tolower(c);
		else if (len > 0 && out[len - 1] != '_')
			out[len++] = '_';
	}
	out[len] = '\0';
}

/* Trims trailing '_' of an id part; -1 when nothing is left. */
static int
entry_id_trim(char *s)
{
	size_t	 n = strlen(s);

	while (n > 0 && s[n - 1] == '_')
		s[--n] = '\0';
	return n > 0 ? 0 : -1;
}

/* The last segment of a path (after the last '/'). */
static const char *
entry_basename(const char *path)
{
	const char	*s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* Writes prefix + the id form of host and path (up to n bytes of path) into p->id. */
static int
entry_id_of(struct parse_req *p, const char *prefix, const char *host, const char *path,
    size_t n, char *err, size_t errsz)
{
	char	 part[ENTRY_ID_PART_MAX + 1] = "";

	entry_id_part(part, sizeof(part), host, strlen(host));
	entry_id_part(part, sizeof(part), "_", 1);
	entry_id_part(part, sizeof(part), path, n);
	if (entry_id_trim(part) == -1) {
		snprintf(err, errsz, "no library id can be made from the URL");
		return -1;
	}
	snprintf(p->id, sizeof(p->id), "%s%s", prefix, part);
	return 0;
}

/* A website's id: /websites/<host and path>, index.html and trailing '/' dropped. */
static int
entry_website_id(struct parse_req *p, const struct url_parts *u, char *err, size_t errsz)
{
	size_t		 n = strlen(u->path);
	const char	*base = entry_basename(u->path);

	if (strcasecmp(base, "index.html") == 0 || strcasecmp(base, "index.htm") == 0)
		n = (size_t)(base - u->path);
	return entry_id_of(p, "/websites/", u->host, u->path, n, err, errsz);
}

/* llms.txt: /llmstxt/<host and folder>-<file>; the file must be an llms file. */
static int
entry_llmstxt_id(struct parse_req *p, const struct url_parts *u, const char *name,
    char *err, size_t errsz)
{
	const char	*base = entry_basename(u->path);
	char		 file[32];
	size_t		 i, n;

	if (strcasecmp(base, "llms.txt") != 0 && strcasecmp(base, "llms-full.txt") != 0 &&
	    strcasecmp(base, "llms-small.txt") != 0) {
		snprintf(err, errsz, "field '%s' must point to a file named llms.txt, "
		    "llms-full.txt or llms-small.txt", name);
		return -1;
	}
	if (entry_id_of(p, "/llmstxt/", u->host, u->path, (size_t)(base - u->path), err,
	    errsz) == -1)
		return -1;
	for (i = 0; base[i] != '\0' && i + 1 < sizeof(file); i++)
		file[i] = (char)tolower((unsigned char)base[i]);
	file[i] = '\0';
	n = strlen(p->id);
	if ((size_t)snprintf(p->id + n, sizeof(p->id) - n, "-%s", file) >=
	    sizeof(p->id) - n) {
		snprintf(err, errsz, "field '%s' is too long", name);
		return -1;
	}
	return 0;
}

/* OpenAPI by URL: /openapi/<host and path>, a .json/.yaml/.yml extension dropped. */
static int
entry_openapi_id(struct parse_req *p, const struct url_parts *u, char *err, size_t errsz)
{
	size_t	 n = strlen(u->path);

	if (util_str_endswith(u->path, ".json") || util_str_endswith(u->path, ".yaml"))
		n -= 5;
	else if (util_str_endswith(u->path, ".yml"))
		n -= 4;
	return entry_id_of(p, "/openapi/", u->host, u->path, n, err, errsz);
}

int
entry_upload_id(const char *title, const char *file_name, char *id, size_t idsz,
    char *err, size_t errsz)
{
	char		 part[ENTRY_ID_PART_MAX + 1] = "";
	const char	*s = title != NULL && *title != '\0' ? title : file_name;
	size_t		 n = s != NULL ? strlen(s) : 0;

	if (s == file_name && s != NULL) {
		const char *dot = strrchr(s, '.');

		if (dot != NULL && dot > s)
			n = (size_t)(dot - s);
	}
	if (s != NULL)
		entry_id_part(part, sizeof(part), s, n);
	if (entry_id_trim(part) == -1) {
		snprintf(err, errsz, "no library id can be made from the title or the "
		    "file name: give a projectTitle with letters or digits");
		return -1;
	}
	snprintf(id, idsz, "/openapi/%s", part);
	return 0;
}

/* A wiki entry: exactly one form; the id from the space key, the title or a page. */
static int
entry_wiki(struct parse_req *p, json_object *o, char *err, size_t errsz)
{
	const char	*key = validate_str(o, "spaceKey");
	json_object	*pages = NULL;
	struct url_parts pu;
	char		 name[32], part[ENTRY_ID_PART_MAX + 1] = "";
	size_t		 i, n;

	json_object_object_get_ex(o, "pageUrls", &pages);
	if (key != NULL && validate_given(o, "pageUrls")) {
		snprintf(err, errsz, "a wiki source takes 'spaceKey' or 'pageUrls', not "
		    "both");
		return -1;
	}
	if (key == NULL && !validate_given(o, "pageUrls")) {
		snprintf(err, errsz, "a wiki source needs 'spaceKey' (a whole space) or "
		    "'pageUrls' (pages)");
		return -1;
	}
	if (key != NULL && validate_given(o, "includeSubPages")) {
		snprintf(err, errsz, "field 'includeSubPages' goes with 'pageUrls', not "
		    "with 'spaceKey'");
		return -1;
	}
	if (key == NULL && (validate_given(o, "spaceId") || validate_given(o,
	    "spaceName"))) {
		snprintf(err, errsz, "fields 'spaceId' and 'spaceName' go with "
		    "'spaceKey', not with 'pageUrls'");
		return -1;
	}
	if (key != NULL) {
		entry_id_part(part, sizeof(part), key, strlen(key));
	} else {
		n = (size_t)json_object_array_length(pages);
		if (n == 0) {
			snprintf(err, errsz, "field 'pageUrls' must list at least one "
			    "page");
			return -1;
		}
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "pageUrls[%zu]", i);
			if (url_parse(json_object_get_string(json_object_array_get_idx(
			    pages, i)), name, &pu, err, errsz) == -1)
				return -1;
			if (i == 0 && p->title == NULL) {
				entry_id_part(part, sizeof(part), pu.path,
				    strlen(pu.path));
				if (strchr(pu.canon, '?') != NULL)
					entry_id_part(part, sizeof(part),
					    strchr(pu.canon, '?'),
					    strlen(strchr(pu.canon, '?')));
			}
			url_release(&pu);
		}
		if (p->title != NULL)
			entry_id_part(part, sizeof(part), p->title, strlen(p->title));
	}
	if (entry_id_trim(part) == -1) {
		snprintf(err, errsz, "no library id can be made from the wiki entry: give "
		    "a title with letters or digits");
		return -1;
	}
	snprintf(p->id, sizeof(p->id), "/wiki/%s", part);
	return 0;
}

/*
 * The canonical settings JSON of a non-git entry: the type's fields (not the common
 * ones) with the defaults filled in.
 */
static int
entry_settings(struct parse_req *p, json_object *o)
{
	json_object	*s = json_object_new_object(), *g = json_object_new_object(), *v;
	const struct entry_type *t = entry_type_find(p->type);
	const struct validate_field *f;

	if (s == NULL || g == NULL) {
		json_object_put(s);
		json_object_put(g);
		return -1;
	}
	for (f = t->table.fields; f->name != NULL; f++) {
		if (strcmp(f->name, "type") == 0 || strcmp(f->name, "url") == 0 ||
		    strcmp(f->name, "repoUrl") == 0 || strcmp(f->name, "title") == 0 ||
		    strcmp(f->name, "description") == 0)
			continue;
		if (json_object_object_get_ex(o, f->name, &v) &&
		    !json_object_is_type(v, json_type_null)) {
			json_object_object_add(s, f->name, json_object_get(v));
			json_object_object_add(g, f->name, json_object_get(v));
		} else if (strcmp(f->name, "maxPages") == 0)
			json_object_object_add(s, f->name,
			    json_object_new_int(ENTRY_DEFAULT_PAGES));
		else if (strcmp(f->name, "maxDepth") == 0)
			json_object_object_add(s, f->name,
			    json_object_new_int(ENTRY_DEFAULT_DEPTH));
		else if (strcmp(f->name, "excludePatterns") == 0)
			json_object_object_add(s, f->name, json_object_new_array());
		else if (strcmp(f->name, "includeSubPages") == 0 &&
		    validate_given(o, "pageUrls"))
			json_object_object_add(s, f->name, json_object_new_boolean(0));
	}
	p->settings = strdup(json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	p->given_settings = strdup(json_object_to_json_string_ext(g,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(s);
	json_object_put(g);
	return p->settings != NULL && p->given_settings != NULL ? 0 : -1;
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
	const struct entry_type *t;
	const struct backend_ops *ops;
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
		    "git, wiki, website, llmstxt, openapi");
		return -1;
	}
	type = validate_given(o, "type") ? validate_str(o, "type") : "git";
	if ((t = entry_type_find(type)) == NULL) {
		snprintf(err, errsz, "field 'type' must be one of git, wiki, website, "
		    "llmstxt, openapi (not '%.32s')", type);
		return -1;
	}
	if (entry_check_names(t, o, err, errsz) == -1 ||
	    validate_object(&t->table, o, err, errsz) == -1)
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
	if (strcmp(t->type, "git") == 0) {
		if (gitsrc_parse_object(o, name, 1, p, err, errsz) == -1)
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
	if (strcmp(t->type, "website") == 0)
		rc = entry_website_id(p, &u, err, errsz);
	else if (strcmp(t->type, "llmstxt") == 0)
		rc = entry_llmstxt_id(p, &u, name, err, errsz);
	else if (strcmp(t->type, "openapi") == 0)
		rc = entry_openapi_id(p, &u, err, errsz);
	else
		rc = entry_wiki(p, o, err, errsz);
	if (rc == -1)
		goto out;
	rc = -1;
	if (entry_settings(p, o) == -1)
		goto nomem;
	/* The back end's own checks (a wiki page URL's form). */
	if ((ops = backend_lookup(t->type)) != NULL && ops->validate != NULL &&
	    ops->validate(p->settings, err, errsz) == -1)
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
