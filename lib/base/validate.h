/*
 * validate.h: the one edge validator. Query parameters and JSON bodies are checked against
 * a declared table of fields (type, required, bounds, list element rules); unknown keys
 * are refused. The error names the field and the bound. String lengths are counted in
 * characters (UTF-8 code points), not bytes, and must be valid UTF-8 without NUL.
 *
 * The pure checks (validate_object, validate_string) serve every caller that has JSON or
 * text from elsewhere (a stored setting, a manifest entry); validate_query and
 * validate_body (http_validate.c, declared in http.h) are their HTTP faces, which answer the
 * 4xx themselves.
 */
#ifndef VALIDATE_H
#define VALIDATE_H

#include <stddef.h>

#include <json.h>

#define VALIDATE_BODY_MAX	(64 * 1024)	/* bytes of a JSON body */

enum validate_type {
	VALIDATE_STRING,	/* min..max characters; choices, when set, lists the values */
	VALIDATE_BOOL,		/* JSON true/false; as a parameter "true" or "false" */
	VALIDATE_INT,		/* a whole number in min..max (a parameter: decimal digits) */
	VALIDATE_LIST,		/* JSON array of at most max strings, each 1..elem_max characters */
	VALIDATE_OBJECT,	/* JSON object (its members are the caller's to check) */
	VALIDATE_NUMBER		/* a JSON number, whole or not, in min..max */
};

/*
 * One declared field. check (may be NULL) is a further rule on a string value or on each
 * element of a list: it returns 0, or -1 with the reason (completing "field 'x' ...", for
 * example "must not contain '..'") in err.
 */
struct validate_field {
	const char		*name;
	enum validate_type	 type;
	int			 required;	/* 0, 1, or VALIDATE_ASKED */
	long			 min, max;	/* STRING: characters; INT: value; LIST: entries */
	long			 elem_max;	/* LIST: characters of one entry */
	const char		*choices;	/* STRING: "txt|json", or NULL for any */
	int			(*check)(const char *value, char *err, size_t errsz);
	const char		*doc;		/* what it is, for a schema made of
						   the table (validate_schema) */
	const char		*label;		/* its name for people ("Maximum
						   pages"), for forms made of the table */
	const char		*dflt;		/* the JSON of its value when not
						   given (a stored source setting), or NULL */
	const char		*group;		/* for forms: the alternative it belongs
						   to ("Some pages"), NULL: always */
};
/*
 * required: a field that a schema made of the table (validate_schema) lists as required,
 * but whose absence the validator lets pass: clients of an older schema leave it out.
 */
#define VALIDATE_ASKED	2

/* A table: the fields (ending with a row whose name is NULL) and what to do with others. */
struct validate_table {
	const struct validate_field *fields;
	int			 allow_unknown;	/* ignore undeclared keys (else refused) */
	const char		*what;		/* "parameter" or "field" in errors */
};

/*
 * The JSON Schema of the objects t takes (an MCP tool's inputSchema): "type": "object", a
 * property per field (its type: string, boolean, number (VALIDATE_INT and VALIDATE_NUMBER,
 * as the hosted API's schemas say), array of strings, object; its doc as "description"; a
 * string's choices as "enum") and "required" naming the fields required or asked. The
 * caller puts it; NULL when out of memory.
 */
json_object *validate_schema(const struct validate_table *t);

/*
 * In JSON text s of n bytes: the index just past the string (quoted with '"', or '\'' as
 * json-c allows) that starts at s[i]; n when it does not end.
 */
size_t	 validate_skip_string(const char *s, size_t n, size_t i);
/*
 * The index past the blanks and comments (json-c takes both comment forms) that start at
 * s[i], at most n.
 */
size_t	 validate_skip_blank(const char *s, size_t n, size_t i);

/* Number of characters of UTF-8 text s of n bytes, or -1 when it is not valid UTF-8. */
long	 validate_utf8_chars(const char *s, size_t n);
/*
 * Checks that no object of JSON text (n bytes), which json-c parsed into root, has a
 * member name twice (json-c keeps the last one silently). Linear in n. 0 when unique;
 * -1 with the repeated name (scrubbed, cut to fit) in key when not, "" when it cannot be
 * told (out of memory, very deep nesting).
 */
int	 validate_json_unique(const char *text, size_t n, json_object *root, char *key,
	    size_t keysz);
/*
 * Checks one value v (n bytes) against the string rules of f (length in characters,
 * choices, check). 0, or -1 with an error naming the field in err.
 */
int	 validate_string(const struct validate_field *f, const char *kind, const char *v,
	    size_t n, char *err, size_t errsz);
/* Checks a JSON object against t. 0, or -1 with an error naming the field in err. */
int	 validate_object(const struct validate_table *t, json_object *o, char *err,
	    size_t errsz);
/*
 * Parses text (n bytes) as one JSON object and checks it against t: the object (caller
 * puts), or NULL with the error in err.
 */
/*
 * Checks one member key of object o against t (as validate_object does for each): 0, or
 * -1 with err when t does not declare it (and refuses others) or its value breaks its
 * declaration. An absent or null member passes.
 */
int	 validate_object_field(const struct validate_table *t, json_object *o,
	    const char *key, char *err, size_t errsz);
json_object *validate_json(const struct validate_table *t, const char *text, size_t n,
	    char *err, size_t errsz);
/* The field of t named name, NULL when t does not declare it. */
const struct validate_field *validate_find(const struct validate_table *t,
	    const char *name);
/* One query parameter value v of declared field f: 0, or -1 with err. */
int	 validate_param(const struct validate_field *f, const char *v, char *err,
	    size_t errsz);

/* 1 when member name of a validated object is present and not null. */
int	 validate_given(json_object *, const char *name);
/* Members of a validated object: the string (NULL when absent), bool / number (or dflt). */
const char *validate_str(json_object *, const char *name);
int	 validate_bool(json_object *, const char *name, int dflt);
long	 validate_long(json_object *, const char *name, long dflt);

#endif
