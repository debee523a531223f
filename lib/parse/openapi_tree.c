/*
 * openapi_tree.c: the files of a multi-file OpenAPI description, followed from the spec's
 * $refs breadth first, a batch at a time. Contract in openapi_tree.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "parse/openapi.h"
#include "parse/openapi_tree.h"

struct openapi_tree {
	const struct openapi_tree_limits *lim;
	struct openapi_tree_stats *st;
	json_object	*seen;		/* key -> null, each key queued once */
	char		**queue;	/* keys waiting to be fetched, FIFO */
	size_t		 head, nqueue, capqueue;
	const char	*from;		/* key of the file whose $refs are walked */
	int		 nomem;
};

/* Queues the file a $ref names, once (openapi_refs' callback). */
static int
openapi_tree_ref(void *arg, const char *ref)
{
	struct openapi_tree *t = arg;
	char		 key[OPENAPI_KEY_MAX + 1], **q;
	size_t		 cap;
	int		 k;

	if ((k = openapi_ref_key(t->from, ref, key, sizeof(key))) == 0)
		return 0;
	if (k == -1) {
		t->st->refused++;
		return 0;
	}
	if (json_object_object_get_ex(t->seen, key, NULL))
		return 0;
	json_object_object_add(t->seen, key, NULL);
	if (json_object_object_length(t->seen) > (int)t->lim->max_files) {
		t->st->over_files++;
		return 0;
	}
	if (t->nqueue == t->capqueue) {
		cap = t->capqueue > 0 ? t->capqueue * 2 : 64;
		if ((q = reallocarray(t->queue, cap, sizeof(*q))) == NULL)
			goto nomem;
		t->queue = q;
		t->capqueue = cap;
	}
	if ((t->queue[t->nqueue] = strdup(key)) == NULL)
		goto nomem;
	t->nqueue++;
	return 0;
nomem:
	t->nomem = 1;
	return -1;
}

/* Parses one fetched file into files and walks its $refs; 0 also when it is bad. */
static int
openapi_tree_take(struct openapi_tree *t, const struct openapi_tree_ops *ops,
    struct openapi_tree_file *f, json_object *files)
{
	json_object	*doc;
	char		 why[256];

	if (f->too_large) {
		t->st->over_bytes++;
		return 0;
	}
	if (f->data == NULL) {
		t->st->failed++;
		if (ops->warn != NULL)
			ops->warn(ops->arg, f->key, f->err[0] != '\0' ? f->err :
			    "it cannot be fetched");
		return 0;
	}
	if (f->len > f->max || t->st->bytes + f->len > t->lim->max_bytes) {
		t->st->over_bytes++;
		return 0;
	}
	if (openapi_load(f->data, f->len, OPENAPI_AUTO, &doc, why, sizeof(why)) == -1) {
		t->st->failed++;
		if (ops->warn != NULL)
			ops->warn(ops->arg, f->key, why);
		return 0;
	}
	t->st->bytes += f->len;
	t->st->files++;
	if (json_object_object_add(files, f->key, doc) != 0) {
		json_object_put(doc);
		t->nomem = 1;
		return -1;
	}
	/* the key as files holds it: it lives as long as files does */
	t->from = f->key;
	return openapi_refs(doc, openapi_tree_ref, t);
}

int
openapi_tree_load(json_object *root, const struct openapi_tree_ops *ops,
    const struct openapi_tree_limits *lim, json_object **files,
    struct openapi_tree_stats *st)
{
	struct openapi_tree		 t;
	struct openapi_tree_file	 batch[OPENAPI_TREE_BATCH];
	size_t				 n, i, left;
	int				 rc = -1, stop = 0;

	memset(&t, 0, sizeof(t));
	t.lim = lim;
	t.st = st;
	*files = NULL;
	if ((t.seen = json_object_new_object()) == NULL ||
	    (*files = json_object_new_object()) == NULL)
		goto out;
	t.from = "";
	if (openapi_refs(root, openapi_tree_ref, &t) == -1)
		goto out;
	while (t.head < t.nqueue && !stop) {
		n = t.nqueue - t.head;
		if (n > OPENAPI_TREE_BATCH)
			n = OPENAPI_TREE_BATCH;
		if (st->bytes >= lim->max_bytes) {
			/* the byte total is reached: the rest is counted, not fetched */
			st->over_bytes += t.nqueue - t.head;
			break;
		}
		left = lim->max_bytes - st->bytes;
		memset(batch, 0, n * sizeof(*batch));
		for (i = 0; i < n; i++) {
			batch[i].key = t.queue[t.head + i];
			batch[i].max = lim->max_file < left ? lim->max_file : left;
		}
		if (ops->get(ops->arg, batch, n) == -1)
			stop = 1;
		for (i = 0; i < n && !stop; i++) {
			/* the key moves into files: its copy there is what later $refs see */
			if (openapi_tree_take(&t, ops, &batch[i], *files) == -1)
				stop = 1;
		}
		if (ops->release != NULL)
			ops->release(ops->arg, batch, n);
		t.head += n;
	}
	rc = stop || t.nomem ? -1 : 0;
out:
	for (i = 0; i < t.nqueue; i++)
		free(t.queue[i]);
	free(t.queue);
	json_object_put(t.seen);
	if (rc == -1) {
		json_object_put(*files);
		*files = NULL;
	}
	return rc;
}
