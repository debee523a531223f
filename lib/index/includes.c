/*
 * includes.c: include directives of a repository's pages resolved at index time
 * (includes.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "index/includes.h"
#include "parse/include.h"
#include "sources/backend.h"

struct index_inc {
	const struct backend_ops *ops;
	struct backend_ctx *ctx;
	const struct backend_set *set;
	size_t		 max;
	struct buf	 used;		/* "path hash\n" of each file read */
	int		 nomem;
};

static const struct backend_doc *
index_inc_find(const struct backend_set *set, const char *path)
{
	size_t	 i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->docs[i].path, path) == 0)
			return &set->docs[i];
	return NULL;
}

static int
index_inc_read(void *arg, const char *path, char **data, size_t *len)
{
	struct index_inc *x = arg;
	const struct backend_doc *f;
	struct backend_doc tmp;
	char		 err[256];

	*data = NULL;
	*len = 0;
	if ((f = index_inc_find(x->set, path)) == NULL)
		return INCLUDE_MISSING;
	if (f->size > x->max)
		return INCLUDE_TOO_BIG;
	if (x->ops->load == NULL)
		return INCLUDE_MISSING;
	tmp = *f;
	tmp.data = NULL;
	tmp.len = 0;
	if (x->ops->load(x->ctx, &tmp, x->max, err, sizeof(err)) == -1 || tmp.data == NULL)
		return INCLUDE_MISSING;
	*data = tmp.data;
	*len = tmp.len;
	return 0;
}

static void
index_inc_used(void *arg, const char *path)
{
	struct index_inc *x = arg;
	const struct backend_doc *f = index_inc_find(x->set, path);

	if (buf_printf(&x->used, "%s %s\n", path, f != NULL ? f->hash : "") == -1)
		x->nomem = 1;
}

int
index_includes(const struct backend_ops *ops, struct backend_ctx *ctx,
    const struct backend_set *set, struct backend_doc *d, size_t max)
{
	struct index_inc x;
	char		*out = NULL;
	char		 hex[65];
	size_t		 outlen;
	int		 rc;

	if (d->data == NULL)
		return 0;
	memset(&x, 0, sizeof(x));
	x.ops = ops;
	x.ctx = ctx;
	x.set = set;
	x.max = max;
	buf_init(&x.used);
	if (buf_printf(&x.used, "%s\n", d->hash) == -1)
		goto nomem;
	rc = include_resolve(d->path, d->data, d->len, index_inc_read, &x, index_inc_used,
	    &out, &outlen);
	if (rc == -1 || x.nomem)
		goto nomem;
	if (rc == 1) {
		free(d->data);
		d->data = out;
		d->len = outlen;
		crypto_sha256_hex(x.used.p, x.used.len, hex);
		snprintf(d->hash, sizeof(d->hash), "%s", hex);
	}
	buf_release(&x.used);
	return 0;
nomem:
	free(out);
	buf_release(&x.used);
	return -1;
}
