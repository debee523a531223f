/* share.c: the versions of a library share the snippets of unchanged files (share.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "index/share.h"
#include "store/db.h"
#include "store/fts.h"

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

/*
 * The statements of share_copy (?1 library, ?2 document copied to, ?3 document copied):
 * snippets, their full-text rows, flags and embeddings rows, a snippet of the copy matched
 * to its original by ord (unique in a document).
 */
static const char *const share_copy_sql[] = {
	"INSERT INTO snippets (library_id, document_id, ord, title, breadcrumb, anchor, text, "
	"code, tokens, hash, sig, heading, described) SELECT ?1, ?2, ord, title, breadcrumb, "
	"anchor, text, code, tokens, hash, sig, heading, described FROM snippets WHERE "
	"document_id = ?3 ORDER BY ord",
	"INSERT INTO snippets_fts (rowid, lib, title, breadcrumb, body, code, path) SELECT "
	"n.id, (SELECT 'l' || lib_no FROM libraries WHERE id = ?1), f.title, f.breadcrumb, "
	"f.body, f.code, f.path FROM snippets n JOIN snippets o ON o.document_id = ?3 AND "
	"o.ord = n.ord JOIN snippets_fts f ON f.rowid = o.id WHERE n.document_id = ?2",
	"INSERT INTO snippet_flags (snippet_id, library_id, rule, excerpt) SELECT n.id, ?1, "
	"g.rule, g.excerpt FROM snippets n JOIN snippets o ON o.document_id = ?3 AND o.ord = "
	"n.ord JOIN snippet_flags g ON g.snippet_id = o.id WHERE n.document_id = ?2",
	"INSERT INTO embeddings (snippet_id, model, hash) SELECT n.id, e.model, e.hash FROM "
	"snippets n JOIN snippets o ON o.document_id = ?3 AND o.ord = n.ord JOIN embeddings "
	"e ON e.snippet_id = o.id WHERE n.document_id = ?2",
};
#define SHARE_NCOPY	(sizeof(share_copy_sql) / sizeof(share_copy_sql[0]))

/* The copies of the duplicates of document ?3 in document ?2 (they have no full-text row). */
static const char share_copy_dups_sql[] =
    "SELECT n.id FROM snippets n JOIN snippets o ON o.document_id = ?3 AND o.ord = n.ord "
    "WHERE n.document_id = ?2 AND o.dup_of IS NOT NULL";

int
share_copy(sqlite3 *db, const char *library_id, long long to_doc, long long from_doc)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 step = SQLITE_ERROR;

	for (i = 0; i < SHARE_NCOPY; i++)
		if (db_run(db, share_copy_sql[i], "tII", library_id, to_doc, from_doc) == -1)
			return -1;
	if (sqlite3_prepare_v2(db, share_copy_dups_sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 2, to_doc);
	sqlite3_bind_int64(st, 3, from_doc);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (store_fts_put(db, sqlite3_column_int64(st, 0)) == -1)
			break;
out:
	if (step != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : -1;
}

/* Pairs of document ids read before the rows change. */
struct share_pairs {
	long long	*v;		/* 2 a pair */
	size_t		 n, cap;
};

/* Reads st's rows (two integers each) into p: 0, -1. */
static int
share_pairs_read(sqlite3_stmt *st, struct share_pairs *p)
{
	long long	*t;
	int		 step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (p->n == p->cap) {
			size_t ncap = p->cap ? p->cap * 2 : 16;

			if ((t = reallocarray(p->v, ncap, 2 * sizeof(*t))) == NULL)
				return -1;
			p->v = t;
			p->cap = ncap;
		}
		p->v[2 * p->n] = sqlite3_column_int64(st, 0);
		p->v[2 * p->n + 1] = sqlite3_column_int64(st, 1);
		p->n++;
	}
	return step == SQLITE_DONE ? 0 : -1;
}

/*
 * The statements that move the snippets of owner document ?1 to document ?2, which showed
 * them: the snippets and their flags and full-text rows take ?2's library; the other
 * documents showing ?1 show ?2. Snippet ids stay, so do their embeddings rows and the
 * duplicates that name them.
 */
static const char *const share_move_sql[] = {
	"UPDATE snippets SET document_id = ?2, library_id = (SELECT library_id FROM documents "
	"WHERE id = ?2) WHERE document_id = ?1",
	"UPDATE snippet_flags SET library_id = (SELECT library_id FROM documents WHERE id = "
	"?2) WHERE snippet_id IN (SELECT id FROM snippets WHERE document_id = ?2)",
	"UPDATE snippets_fts SET lib = (SELECT 'l' || l.lib_no FROM documents d JOIN "
	"libraries l ON l.id = d.library_id WHERE d.id = ?2) WHERE rowid IN (SELECT id FROM "
	"snippets WHERE document_id = ?2)",
	"UPDATE documents SET snippets_from = ?2 WHERE snippets_from = ?1 AND id <> ?2",
	"UPDATE documents SET snippets_from = NULL WHERE id = ?2",
};
#define SHARE_NMOVE	(sizeof(share_move_sql) / sizeof(share_move_sql[0]))

int
share_disown(sqlite3 *db, const char *library_id, const char *keep_json)
{
	struct share_pairs p;
	sqlite3_stmt	*st = NULL;
	size_t		 i, k;
	int		 rc = -1;

	memset(&p, 0, sizeof(p));
	if (sqlite3_prepare_v2(db, "SELECT d.id, (SELECT min(r.id) FROM documents r WHERE "
	    "r.snippets_from = d.id) AS heir FROM documents d WHERE d.library_id = ?1 AND "
	    "d.snippets_from IS NULL AND (?2 IS NULL OR d.path NOT IN (SELECT value FROM "
	    "json_each(?2))) AND heir IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	if (keep_json != NULL)
		sqlite3_bind_text(st, 2, keep_json, -1, SQLITE_STATIC);
	if (share_pairs_read(st, &p) == -1)
		goto out;
	for (i = 0; i < p.n; i++)
		for (k = 0; k < SHARE_NMOVE; k++)
			if (db_run(db, share_move_sql[k], "II", p.v[2 * i],
			    p.v[2 * i + 1]) == -1)
				goto out;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(p.v);
	return rc;
}

/*
 * Document doc of library_id, which showed the snippets of owner document from, gets its
 * own copy of them (share_copy) and owns it. 0, or -1 on a database error.
 */
static int
share_own(sqlite3 *db, const char *library_id, long long doc, long long from)
{
	if (share_copy(db, library_id, doc, from) == -1)
		return -1;
	return db_run(db, "UPDATE documents SET snippets_from = NULL WHERE id = ?1", "I", doc);
}

int
share_unshare(sqlite3 *db, long long doc, struct share_libs *changed)
{
	sqlite3_stmt	*st = NULL;
	const unsigned char *t;
	char		*lib = NULL;
	long long	 id;
	int		 step, rc = -1;

	/* The copies made below own their snippets: the select no longer sees them. */
	if (sqlite3_prepare_v2(db, "SELECT id, library_id FROM documents WHERE "
	    "snippets_from = ?1 LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (;;) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, doc);
		if ((step = sqlite3_step(st)) == SQLITE_DONE)
			break;
		if (step != SQLITE_ROW || (t = sqlite3_column_text(st, 1)) == NULL ||
		    (lib = strdup((const char *)t)) == NULL)
			goto out;
		id = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		if (share_libs_add(changed, lib) == -1 || share_own(db, lib, id, doc) == -1)
			goto out;
		free(lib);
		lib = NULL;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: document %lld: %s", __func__, doc, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(lib);
	return rc;
}

/*
 * The documents of library ?1 that show a duplicate whose kept copy the library does not
 * show, with the document they show.
 */
static const char share_lost_sql[] =
    "SELECT DISTINCT d.id, d.snippets_from FROM documents d JOIN snippets s ON "
    "s.document_id = d.snippets_from WHERE d.library_id = ?1 AND d.snippets_from IS NOT "
    "NULL AND s.dup_of IS NOT NULL AND NOT EXISTS (SELECT 1 FROM library_snippets k WHERE "
    "k.id = s.dup_of AND k.library_id = ?1)";

int
share_validate(sqlite3 *db, const char *library_id)
{
	struct share_pairs p;
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 rc = -1;

	memset(&p, 0, sizeof(p));
	if (sqlite3_prepare_v2(db, share_lost_sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	/* A copy shows other kept copies than the document it showed: again until none. */
	for (;;) {
		p.n = 0;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
		if (share_pairs_read(st, &p) == -1)
			goto out;
		sqlite3_reset(st);
		if (p.n == 0)
			break;
		for (i = 0; i < p.n; i++)
			if (share_own(db, library_id, p.v[2 * i], p.v[2 * i + 1]) == -1)
				goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(p.v);
	return rc;
}

/*
 * The statements of share_touch, by its what: ?1 the library whose snippets changed. The
 * embedder gives vectors to the snippets a library shows, its own and others' (shown by
 * other versions too): every other library of the family reloads its vectors.
 */
static const char *const share_touch_sql[] = {
	"UPDATE libraries SET index_version = (SELECT max(index_version) + 1 FROM libraries), "
	"total_tokens = (SELECT coalesce(sum(s.tokens), 0) FROM library_snippets s WHERE "
	"s.library_id = libraries.id AND s.dup_of IS NULL) WHERE id IN (SELECT r.library_id "
	"FROM documents o JOIN documents r ON r.snippets_from = o.id WHERE o.library_id = ?1)",
	"UPDATE libraries SET embed_version = (SELECT max(embed_version) + 1 FROM libraries) "
	"WHERE id <> ?1 AND coalesce(version_of, id) = (SELECT coalesce(version_of, id) FROM "
	"libraries WHERE id = ?1)",
};

int
share_touch(sqlite3 *db, const char *library_id, enum share_touch what)
{
	return db_run(db, share_touch_sql[what == SHARE_TOUCH_VECTORS], "t", library_id);
}
