/*
 * fuzz-json.c: JSON request bodies through the one edge validator (lib/base/validate.c:
 * validate_json, validate_object; json-c underneath), against declared tables of every
 * field type (strings with bounds, choices and a check, booleans, bounded integers, lists
 * of strings, objects, unknown keys refused or allowed), and the /api/parse body
 * (gitsrc_parse_request). The first byte picks the table.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/validate.h"
#include "sources/gitsrc.h"
#include "sources/request.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
fz_check_folder(const char *v, char *err, size_t errsz)
{
	if (strstr(v, "..") != NULL) {
		snprintf(err, errsz, "must not contain '..'");
		return -1;
	}
	return 0;
}

static const struct validate_field fz_user[] = {
	{ .name = "name", .type = VALIDATE_STRING, .required = 1, .min = 1, .max = 64 },
	{ .name = "password", .type = VALIDATE_STRING, .min = 8, .max = 256 },
	{ .name = "role", .type = VALIDATE_STRING, .min = 1, .max = 10,
	    .choices = "admin|member" },
	{ .name = "disabled", .type = VALIDATE_BOOL },
	{ .name = "mustChange", .type = VALIDATE_BOOL },
	{ .name = NULL }
};

static const struct validate_field fz_lib[] = {
	{ .name = "repoUrl", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = 2048 },
	{ .name = "branch", .type = VALIDATE_STRING, .min = 1, .max = 255 },
	{ .name = "folders", .type = VALIDATE_LIST, .max = 100, .elem_max = 255,
	    .check = fz_check_folder },
	{ .name = "excludeFolders", .type = VALIDATE_LIST, .max = 100, .elem_max = 255,
	    .check = fz_check_folder },
	{ .name = "indexSourceCode", .type = VALIDATE_BOOL },
	{ .name = "maxFiles", .type = VALIDATE_INT, .min = 1, .max = 100000 },
	{ .name = "settings", .type = VALIDATE_OBJECT },
	{ .name = NULL }
};

static const struct validate_table fz_tables[] = {
	{ fz_user, 0, "field" },
	{ fz_lib, 0, "field" },
	{ fz_lib, 1, "field" },
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_req p;
	json_object	*o, *s;
	char		 err[512];
	const char	*text = (const char *)data + 1;
	size_t		 n = size - 1;
	int		 which;

	if (size == 0)
		return 0;
	which = data[0] % 4;
	if (which == 3) {
		char *copy = malloc(n + 1);

		if (copy == NULL)
			return 0;
		memcpy(copy, text, n);
		copy[n] = '\0';
		if (gitsrc_parse_request(copy, n, &p, err, sizeof(err)) == 0)
			backend_req_release(&p);
		free(copy);
		return 0;
	}
	if ((o = validate_json(&fz_tables[which], text, n, err, sizeof(err))) == NULL)
		return 0;
	validate_str(o, "name");
	validate_bool(o, "disabled", 0);
	validate_long(o, "maxFiles", 0);
	if (json_object_object_get_ex(o, "settings", &s) &&
	    json_object_is_type(s, json_type_object))
		validate_object(&fz_tables[0], s, err, sizeof(err));
	json_object_put(o);
	return 0;
}
