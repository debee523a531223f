/*
 * registry.c: the table of source back ends, one row a source type. It names every back
 * end, so it sits above them: a back end never calls it.
 */
#include "config.h"

#include <string.h>

#include <json.h>

#include "base/validate.h"
#include "sources/backend.h"

/* In the order of interface.md's manifest entry types (and of errors that list them). */
static const struct backend_ops *const backend_table[] = {
	&backend_git,
	&backend_wiki,
	&backend_website,
	&backend_llmstxt,
	&backend_openapi,
};

const struct backend_ops *
backend_at(size_t i)
{
	return i < sizeof(backend_table) / sizeof(backend_table[0]) ? backend_table[i] : NULL;
}

const struct backend_ops *
backend_lookup(const char *type)
{
	size_t	 i;

	for (i = 0; i < sizeof(backend_table) / sizeof(backend_table[0]); i++)
		if (strcmp(backend_table[i]->type, type) == 0)
			return backend_table[i];
	return NULL;
}

/* Adds the fields of list (NULL-name-terminated) to the array a. */
static void
backend_fields_json(json_object *a, const struct validate_field *list)
{
	static const char *const types[] = {
		[VALIDATE_STRING] = "string", [VALIDATE_BOOL] = "boolean",
		[VALIDATE_INT] = "integer", [VALIDATE_LIST] = "list",
		[VALIDATE_OBJECT] = "object", [VALIDATE_NUMBER] = "number"
	};
	const struct validate_field *f;
	json_object	*o, *d;

	for (f = list; f != NULL && f->name != NULL; f++) {
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(f->name));
		json_object_object_add(o, "type", json_object_new_string(types[f->type]));
		if (f->label != NULL)
			json_object_object_add(o, "label", json_object_new_string(f->label));
		if (f->doc != NULL)
			json_object_object_add(o, "doc", json_object_new_string(f->doc));
		json_object_object_add(o, "required", json_object_new_boolean(f->required));
		if (f->type != VALIDATE_BOOL) {
			json_object_object_add(o, "min", json_object_new_int64(f->min));
			if (f->max > 0)
				json_object_object_add(o, "max",
				    json_object_new_int64(f->max));
		}
		if (f->type == VALIDATE_LIST && f->elem_max > 0)
			json_object_object_add(o, "elemMax",
			    json_object_new_int64(f->elem_max));
		if (f->choices != NULL)
			json_object_object_add(o, "choices",
			    json_object_new_string(f->choices));
		if (f->dflt != NULL && (d = json_tokener_parse(f->dflt)) != NULL)
			json_object_object_add(o, "default", d);
		if (f->group != NULL)
			json_object_object_add(o, "group", json_object_new_string(f->group));
		json_object_array_add(a, o);
	}
}

json_object *
backend_types_json(const struct validate_field *common)
{
	const struct backend_ops *t;
	json_object	*a = json_object_new_array(), *o, *fields, *up;
	size_t		 i;

	for (i = 0; (t = backend_at(i)) != NULL; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "type", json_object_new_string(t->type));
		json_object_object_add(o, "label", json_object_new_string(t->label));
		json_object_object_add(o, "about", json_object_new_string(t->about));
		json_object_object_add(o, "url", json_object_new_string(t->url_doc));
		fields = json_object_new_array();
		backend_fields_json(fields, common);
		backend_fields_json(fields, t->fields);
		json_object_object_add(o, "fields", fields);
		if (t->upload_path != NULL) {
			up = json_object_new_object();
			json_object_object_add(up, "path",
			    json_object_new_string(t->upload_path));
			json_object_object_add(up, "field",
			    json_object_new_string(t->upload_field));
			json_object_object_add(up, "maxBytes",
			    json_object_new_int64(t->upload_max));
			json_object_object_add(o, "upload", up);
		}
		json_object_array_add(a, o);
	}
	return a;
}
