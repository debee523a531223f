/* jsonedit.c: sets one server entry in an agent's JSON configuration (json-c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "cli.h"

#define JSONEDIT_DEPTH	512

static int
jsonedit_blank(const char *s, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 0;
	return 1;
}

/* Parses the whole of in; strict when strict is set. NULL with the reason in err. */
static json_object *
jsonedit_parse(const char *in, size_t len, int strict, char *err, size_t errsz)
{
	json_tokener		*tok;
	json_object		*o;
	enum json_tokener_error	 e;
	size_t			 used;

	if ((tok = json_tokener_new_ex(JSONEDIT_DEPTH)) == NULL) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	if (strict)
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, in, (int)len);
	e = json_tokener_get_error(tok);
	if (o == NULL && e == json_tokener_continue)
		o = json_tokener_parse_ex(tok, "", 1);	/* end of input */
	e = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	if (o != NULL && e == json_tokener_success &&
	    !jsonedit_blank(in + used, len > used ? len - used : 0)) {
		json_object_put(o);
		o = NULL;
		snprintf(err, errsz, "text follows the JSON value (offset %zu)", used);
	} else if (o == NULL)
		snprintf(err, errsz, "%s (offset %zu)", e == json_tokener_continue ?
		    "the JSON text ends too early" : json_tokener_error_desc(e), used);
	json_tokener_free(tok);
	return o;
}

int
jsonedit_set(const char *in, size_t len, const char *key, const char *name,
    json_object *entry, char **out, char *err, size_t errsz)
{
	json_object	*root = NULL, *sub, *loose;
	const char	*text;
	size_t		 n;
	char		 why[256];
	int		 rc = -1;

	*out = NULL;
	if (len > 0x7ffffffe) {
		snprintf(err, errsz, "the file is too large");
		goto out;
	}
	if (jsonedit_blank(in, len))
		root = json_object_new_object();
	else if ((root = jsonedit_parse(in, len, 1, why, sizeof(why))) == NULL) {
		if ((loose = jsonedit_parse(in, len, 0, err, errsz)) != NULL) {
			json_object_put(loose);
			snprintf(err, errsz, "it holds comments or trailing commas, "
			    "which rewriting it would lose");
		} else
			snprintf(err, errsz, "it is not valid JSON: %s", why);
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errsz, "its top level is not a JSON object");
		goto out;
	}
	if (!json_object_object_get_ex(root, key, &sub)) {
		sub = json_object_new_object();
		json_object_object_add(root, key, sub);
	} else if (!json_object_is_type(sub, json_type_object)) {
		snprintf(err, errsz, "its \"%s\" is not a JSON object", key);
		goto out;
	}
	json_object_object_add(sub, name, entry);
	entry = NULL;
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
	    JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(text);
	if ((*out = malloc(n + 2)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	memcpy(*out, text, n);
	(*out)[n] = '\n';
	(*out)[n + 1] = '\0';
	rc = 0;
out:
	json_object_put(entry);
	json_object_put(root);
	return rc;
}
