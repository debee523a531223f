/* store/share.c: the rows behind the sharing of snippets between versions (store/share.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/db.h"
#include "store/library.h"
#include "store/share.h"
#include "store/stmt.h"

/*
 * The statements of store_share_copy (?1 library, ?2 document copied to, ?3 document
 * copied): snippets, their flags and embeddings rows, a snippet of the copy matched to its
 * original by ord (unique in a document). Each uses every parameter: PostgreSQL needs a
 * type for each (the last one's ?1 is a condition always true).
 * Engine: the parameters in the first one's SELECT list are cast (PostgreSQL cannot
 * infer their types there).
 */
static const char *const store_share_copy_sql[] = {
	"INSERT INTO snippets (library_id, document_id, ord, title, breadcrumb, anchor, text, "
	"code, tokens, hash, sig, heading, described) SELECT CAST(?1 AS text), CAST(?2 AS "
	"bigint), ord, title, breadcrumb, anchor, text, code, tokens, hash, sig, heading, "
	"described FROM snippets WHERE document_id = ?3 ORDER BY ord",
	"INSERT INTO snippet_flags (snippet_id, library_id, rule, excerpt) SELECT n.id, "
	"CAST(?1 AS text), "
	"g.rule, g.excerpt FROM snippets n JOIN snippets o ON o.document_id = ?3 AND o.ord = "
	"n.ord JOIN snippet_flags g ON g.snippet_id = o.id WHERE n.document_id = ?2",
	"INSERT INTO embeddings (snippet_id, model, hash) SELECT n.id, e.model, e.hash FROM "
	"snippets n JOIN snippets o ON o.document_id = ?3 AND o.ord = n.ord JOIN embeddings "
	"e ON e.snippet_id = o.id WHERE n.document_id = ?2 AND CAST(?1 AS text) IS NOT NULL",
};
#define STORE_SHARE_NCOPY	(sizeof(store_share_copy_sql) / sizeof(store_share_copy_sql[0]))

int
store_share_copy(struct db *db, const char *library_id, long long to_doc, long long from_doc)
{
	size_t		 i;

	for (i = 0; i < STORE_SHARE_NCOPY; i++)
		if (db_run(db, store_share_copy_sql[i], "tII", library_id, to_doc,
		    from_doc) == -1)
			return -1;
	return 0;
}

int
store_share_own(struct db *db, long long doc)
{
	return db_run(db, "UPDATE documents SET snippets_from = NULL WHERE id = ?1", "I", doc);
}

/* Reads st's rows (two integers each) into p (emptied first): 0, -1. */
static int
store_share_pairs_read(struct db_stmt *st, struct store_doc_pairs *p)
{
	long long	*t;
	int		 step;

	p->n = 0;
	while ((step = db_step(st)) == DB_ROW) {
		if (p->n == p->cap) {
			size_t ncap = p->cap ? p->cap * 2 : 16;

			if ((t = reallocarray(p->v, ncap, 2 * sizeof(*t))) == NULL)
				return -1;
			p->v = t;
			p->cap = ncap;
		}
		p->v[2 * p->n] = db_col_int64(st, 0);
		p->v[2 * p->n + 1] = db_col_int64(st, 1);
		p->n++;
	}
	return step == DB_DONE ? 0 : -1;
}

/*
 * Engine: json_each reads the JSON array of paths kept (json_array_elements_text on
 * PostgreSQL, where a column alias cannot be named in WHERE: the heir is chosen in a
 * subquery). The pairs come in the owners' id order.
 * On PostgreSQL, where another transaction may make a document show an owner between
 * this read and the caller's moves and deletes (SQLite's one writer rules it out), the
 * owner documents are first locked (FOR UPDATE, which a new document's foreign key check
 * of snippets_from waits for) in a statement of their own: the read after it sees every
 * document that shows them.
 */
int
store_share_heirs(struct db *db, const char *library_id, const char *keep_json,
    struct store_doc_pairs *p)
{
	struct db_stmt	*st = NULL;
	int		 rc = -1;

	if (db_conn_engine(db) == DB_ENGINE_POSTGRES) {
		/* PostgreSQL only (see above) */
		if (db_prepare(db, "SELECT count(*) FROM (SELECT d.id FROM documents d WHERE "
		    "d.library_id = ?1 AND d.snippets_from IS NULL AND (CAST(?2 AS text) IS NULL "
		    "OR d.path NOT IN (SELECT value FROM json_array_elements_text(CAST(?2 AS "
		    "json)))) FOR UPDATE) AS locked", &st) == -1)
			goto out;
		db_bind_text(st, 1, library_id);
		db_bind_text(st, 2, keep_json);
		if (db_step(st) != DB_ROW)
			goto out;
		db_finalize(st);
		st = NULL;
	}
	if (db_prepare(db, DB_PAIR("SELECT d.id, (SELECT min(r.id) FROM documents r WHERE "
	    "r.snippets_from = d.id) AS heir FROM documents d WHERE d.library_id = ?1 AND "
	    "d.snippets_from IS NULL AND (?2 IS NULL OR d.path NOT IN (SELECT value FROM "
	    "json_each(?2))) AND heir IS NOT NULL ORDER BY d.id",
	    "SELECT id, heir FROM (SELECT d.id, (SELECT min(r.id) FROM documents r WHERE "
	    "r.snippets_from = d.id) AS heir FROM documents d WHERE d.library_id = ?1 AND "
	    "d.snippets_from IS NULL AND (CAST(?2 AS text) IS NULL OR d.path NOT IN (SELECT "
	    "value FROM json_array_elements_text(CAST(?2 AS json))))) AS o WHERE heir IS NOT "
	    "NULL ORDER BY id"), &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	db_bind_text(st, 2, keep_json);
	rc = store_share_pairs_read(st, p);
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * The statements that move the snippets of owner document ?1 to document ?2, which showed
 * them: the snippets and their flags take ?2's library; the other documents showing ?1
 * show ?2. Snippet ids stay, so do their embeddings rows and the duplicates that name them.
 * Engine: each uses both parameters, PostgreSQL needs a type for each (in the second and
 * the last a condition always true).
 */
static const char *const store_share_move_sql[] = {
	"UPDATE snippets SET document_id = ?2, library_id = (SELECT library_id FROM documents "
	"WHERE id = ?2) WHERE document_id = ?1",
	"UPDATE snippet_flags SET library_id = (SELECT library_id FROM documents WHERE id = "
	"?2) WHERE snippet_id IN (SELECT id FROM snippets WHERE document_id = ?2) AND "
	"CAST(?1 AS bigint) IS NOT NULL",
	"UPDATE documents SET snippets_from = ?2 WHERE snippets_from = ?1 AND id <> ?2",
	"UPDATE documents SET snippets_from = NULL WHERE id = ?2 AND CAST(?1 AS bigint) IS NOT "
	"NULL",
};
#define STORE_SHARE_NMOVE	(sizeof(store_share_move_sql) / sizeof(store_share_move_sql[0]))

int
store_share_move(struct db *db, long long owner, long long heir)
{
	size_t	 k;

	for (k = 0; k < STORE_SHARE_NMOVE; k++)
		if (db_run(db, store_share_move_sql[k], "II", owner, heir) == -1)
			return -1;
	return 0;
}

/* The first document (by id) that shows doc. */
int
store_share_viewer(struct db *db, long long doc, long long *id, char **library_id)
{
	struct db_stmt	*st = NULL;
	int		 step, rc = -1;

	*library_id = NULL;
	if (db_prepare(db, "SELECT id, library_id FROM documents WHERE snippets_from = ?1 "
	    "ORDER BY id LIMIT 1", &st) == -1)
		goto out;
	db_bind_int64(st, 1, doc);
	if ((step = db_step(st)) == DB_DONE)
		rc = 0;
	else if (step == DB_ROW && (*library_id = strdup(db_col_text(st, 1))) != NULL) {
		*id = db_col_int64(st, 0);
		rc = 1;
	}
out:
	if (rc == -1)
		log_err("%s: document %lld: %s", __func__, doc, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * Engine: reads the view library_snippets (a library's own and shown snippets); the
 * pairs in the documents' id order.
 */
static const char store_share_lost_sql[] =
    "SELECT DISTINCT d.id, d.snippets_from FROM documents d JOIN snippets s ON "
    "s.document_id = d.snippets_from WHERE d.library_id = ?1 AND d.snippets_from IS NOT "
    "NULL AND s.dup_of IS NOT NULL AND NOT EXISTS (SELECT 1 FROM library_snippets k WHERE "
    "k.id = s.dup_of AND k.library_id = ?1) ORDER BY d.id";

int
store_share_lost(struct db *db, const char *library_id, struct store_doc_pairs *p)
{
	struct db_stmt	*st = NULL;
	int		 rc = -1;

	if (db_prepare(db, store_share_lost_sql, &st) == -1)
		goto out;
	db_bind_text(st, 1, library_id);
	rc = store_share_pairs_read(st, p);
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, library_id, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

/*
 * The statements of store_share_touch, by vectors: ?1 the library whose snippets changed.
 * The embedder gives vectors to the snippets a library shows, its own and others' (shown
 * by other versions too): every other library of the family reloads its vectors.
 * Engine: the first reads the view library_snippets; both take their numbers after
 * store_library_numbers_lock.
 */
static const char *const store_share_touch_sql[] = {
	"UPDATE libraries SET index_version = (SELECT max(index_version) + 1 FROM libraries), "
	"total_tokens = (SELECT coalesce(sum(s.tokens), 0) FROM library_snippets s WHERE "
	"s.library_id = libraries.id AND s.dup_of IS NULL) WHERE id IN (SELECT r.library_id "
	"FROM documents o JOIN documents r ON r.snippets_from = o.id WHERE o.library_id = ?1)",
	"UPDATE libraries SET embed_version = (SELECT max(embed_version) + 1 FROM libraries) "
	"WHERE id <> ?1 AND coalesce(version_of, id) = (SELECT coalesce(version_of, id) FROM "
	"libraries WHERE id = ?1)",
};

int
store_share_touch(struct db *db, const char *library_id, int vectors)
{
	if (store_library_numbers_lock(db) == -1)
		return -1;
	return db_run(db, store_share_touch_sql[vectors != 0], "t", library_id);
}
