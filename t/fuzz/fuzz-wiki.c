/*
 * fuzz-wiki.c: the wiki back end's checks of a library's settings (lib/sources/wiki.c:
 * the settings JSON, and the page URL reader behind it: URL parts, path segments, the
 * page forms, pageId queries, /display/ titles with '+' and percent escapes, tiny link
 * keys) on arbitrary bytes. The first byte picks the input: 0 the settings JSON itself,
 * else one page URL (put in {"pageUrls": [URL], "includeSubPages": true}).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "sources/backend.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object	*o, *a;
	char		*s, err[1024];

	if (size == 0 || (s = malloc(size)) == NULL)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] == 0)
		(void)backend_wiki.validate(s, err, sizeof(err));
	else if ((o = json_object_new_object()) != NULL) {
		a = json_object_new_array();
		json_object_array_add(a, json_object_new_string(s));
		json_object_object_add(o, "pageUrls", a);
		json_object_object_add(o, "includeSubPages", json_object_new_boolean(1));
		(void)backend_wiki.validate(json_object_to_json_string(o), err, sizeof(err));
		json_object_put(o);
	}
	free(s);
	return 0;
}
