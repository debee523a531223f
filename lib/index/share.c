/* share.c: the versions of a library share the snippets of unchanged files (share.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "index/share.h"
#include "store/share.h"

void
share_libs_init(struct share_libs *l)
{
	memset(l, 0, sizeof(*l));
}

void
share_libs_release(struct share_libs *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++)
		free(l->ids[i]);
	free(l->ids);
	memset(l, 0, sizeof(*l));
}

char *
share_libs_pop(struct share_libs *l)
{
	return l->n > 0 ? l->ids[--l->n] : NULL;
}

/* Adds id unless it is there already: 0, -1 out of memory. */
static int
share_libs_add(struct share_libs *l, const char *id)
{
	char	**t;
	size_t	 i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->ids[i], id) == 0)
			return 0;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 4;

		if ((t = reallocarray(l->ids, ncap, sizeof(*t))) == NULL)
			return -1;
		l->ids = t;
		l->cap = ncap;
	}
	if ((l->ids[l->n] = strdup(id)) == NULL)
		return -1;
	l->n++;
	return 0;
}

int
share_copy(struct db *db, const char *library_id, long long to_doc,
    long long from_doc)
{
	return store_share_copy(db, library_id, to_doc, from_doc);
}

int
share_disown(struct db *db, const char *library_id, const char *keep_json)
{
	struct store_doc_pairs p;
	size_t		 i;
	int		 rc = -1;

	memset(&p, 0, sizeof(p));
	if (store_share_heirs(db, library_id, keep_json, &p) == -1)
		goto out;
	for (i = 0; i < p.n; i++)
		if (store_share_move(db, p.v[2 * i], p.v[2 * i + 1]) == -1)
			goto out;
	rc = 0;
out:
	free(p.v);
	return rc;
}

/*
 * Document doc of library_id, which showed the snippets of owner document from, gets its
 * own copy of them (share_copy) and owns it. 0, or -1 on a database error.
 */
static int
share_own(struct db *db, const char *library_id, long long doc, long long from)
{
	if (store_share_copy(db, library_id, doc, from) == -1)
		return -1;
	return store_share_own(db, doc);
}

int
share_unshare(struct db *db, long long doc, struct share_libs *changed)
{
	char		*lib = NULL;
	long long	 id;
	int		 found, rc = -1;

	/* The copies made below own their snippets: the next look no longer sees them. */
	while ((found = store_share_viewer(db, doc, &id, &lib)) == 1) {
		if (share_libs_add(changed, lib) == -1 || share_own(db, lib, id, doc) == -1)
			goto out;
		free(lib);
		lib = NULL;
	}
	rc = found;
out:
	if (rc == -1)
		log_err("%s: document %lld failed", __func__, doc);
	free(lib);
	return rc;
}

int
share_validate(struct db *db, const char *library_id)
{
	struct store_doc_pairs p;
	size_t		 i;
	int		 rc = -1;

	memset(&p, 0, sizeof(p));
	/* A copy shows other kept copies than the document it showed: again until none. */
	for (;;) {
		if (store_share_lost(db, library_id, &p) == -1)
			goto out;
		if (p.n == 0)
			break;
		for (i = 0; i < p.n; i++)
			if (share_own(db, library_id, p.v[2 * i], p.v[2 * i + 1]) == -1)
				goto out;
	}
	rc = 0;
out:
	free(p.v);
	return rc;
}

int
share_touch(struct db *db, const char *library_id, enum share_touch what)
{
	return store_share_touch(db, library_id, what == SHARE_TOUCH_VECTORS);
}
