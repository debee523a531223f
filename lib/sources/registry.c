/*
 * registry.c: the table of source back ends, one row a source type. It names every back
 * end, so it sits above them: a back end never calls it.
 */
#include "config.h"

#include <string.h>

#include "sources/backend.h"

static const struct backend_ops *const backend_table[] = {
	&backend_git,
	&backend_website,
	&backend_llmstxt,
	&backend_wiki,
	&backend_openapi,
};

const struct backend_ops *
backend_lookup(const char *type)
{
	size_t	 i;

	for (i = 0; i < sizeof(backend_table) / sizeof(backend_table[0]); i++)
		if (strcmp(backend_table[i]->type, type) == 0)
			return backend_table[i];
	return NULL;
}
