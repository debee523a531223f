/* backend.c: the table of source back ends and the document set they fill. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ctxd.h"
#include "sources/backend.h"

static const struct backend_ops *const backend_table[] = {
	&backend_git,
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

void
backend_set_init(struct backend_set *s)
{
	memset(s, 0, sizeof(*s));
}

void
backend_set_release(struct backend_set *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++) {
		free(s->docs[i].path);
		free(s->docs[i].url);
		free(s->docs[i].data);
	}
	free(s->docs);
	free(s->label);
	free(s->url_prefix);
	backend_set_init(s);
}

struct backend_doc *
backend_set_add(struct backend_set *s, const char *path, const char *hash, size_t size)
{
	struct backend_doc *d;
	size_t		 cap;

	if (strlen(hash) >= BACKEND_HASH_MAX) {
		log_err("%s: %s: content hash too long", __func__, path);
		return NULL;
	}
	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 64;
		if ((d = reallocarray(s->docs, cap, sizeof(*d))) == NULL)
			return NULL;
		s->docs = d;
		s->cap = cap;
	}
	d = &s->docs[s->n];
	memset(d, 0, sizeof(*d));
	if ((d->path = strdup(path)) == NULL)
		return NULL;
	memcpy(d->hash, hash, strlen(hash) + 1);
	d->size = size;
	d->changed = -1;
	s->n++;
	return d;
}
