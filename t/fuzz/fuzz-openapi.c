/*
 * fuzz-openapi.c: the OpenAPI loader and snippets (lib/parse/openapi.c, lib/parse/openapi_doc.c) on
 * arbitrary bytes. The first byte picks the syntax the loader is told: even JSON, odd
 * YAML. A loaded tree has its $refs walked (the back end's file keys, the unresolved
 * count) and the text is parsed into snippets as the pipeline does.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "parse/openapi.h"
#include "parse/parse.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* openapi_refs' callback: the key of each $ref, as the back end computes it. */
static int
fuzz_openapi_ref(void *arg, const char *ref)
{
	char	 key[OPENAPI_KEY_MAX + 1];

	(void)arg;
	(void)openapi_ref_key("../a/b.yaml", ref, key, sizeof(key));
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object	*t = NULL;
	struct doc	 d;
	char		 err[256], first[64];

	if (size == 0)
		return 0;
	if (openapi_load((const char *)data + 1, size - 1, data[0] % 2 ? OPENAPI_YAML :
	    OPENAPI_JSON, &t, err, sizeof(err)) == 0) {
		(void)openapi_version(t, err, sizeof(err));
		(void)openapi_refs(t, fuzz_openapi_ref, NULL);
		(void)openapi_unresolved(t, first, sizeof(first));
		json_object_put(t);
	}
	if (doc_parse_as(DOC_FORMAT_OPENAPI, "spec.json", (const char *)data + 1, size - 1,
	    &d, NULL) == 0)
		doc_release(&d);
	return 0;
}
