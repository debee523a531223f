/* store/query.c: the reads of the query path (store/query.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/log.h"
#include "store/conn.h"
#include "store/db.h"
#include "store/query.h"
#include "store/settings.h"
#include "store/stmt.h"

/*
 * What a listening connection (db_listen: a query or MCP worker on PostgreSQL) keeps
 * between requests, dropped when a change of the libraries table is announced
 * (db_drain_changes): the rows store_query_library read (found or not), at most
 * STORE_QUERY_LIBS_KEPT (then emptied and filled again: more than a node's libraries, so
 * that uniform traffic over a thousand of them costs no round trip for their rows; the
 * arrays are allocated at the first row kept, never for a local copy's statements), and the list of
 * store_query_libraries when it has at most STORE_QUERY_LIST_KEPT libraries (a longer one
 * is read for each request). SQLite keeps nothing: its reads are local.
 */
#define STORE_QUERY_LIBS_KEPT	4096
#define STORE_QUERY_LIBS_HASH	8192		/* buckets, a power of two */
#define STORE_QUERY_LIST_KEPT	4096

struct store_query_kept {
	char		*key;		/* the id asked */
	int		 found;
	int		 next;		/* the bucket's next, -1 */
	struct store_query_lib l;	/* its strings malloc'd */
};

struct store_query_kept_row {
	struct store_query_libs_row r;	/* its strings malloc'd */
};

/*
 * A snippet store_query_prefetch read: a candidate's whole row, a heading trail before one,
 * or a candidate's place (its path, title and flag: what the ranking reads of every one).
 */
struct store_query_pre_row {
	int		 kind;		/* 0 a candidate, 1 a trail, 2 a candidate's place */
	long long	 id, tokens, document_id, ord, of_doc, of_ord, limit;
	int		 flagged, has_text;
	char		*title, *breadcrumb, *anchor, *text, *code, *path, *page_title;
	char		*blob_prefix, *indexed_commit, *flags, *url;
	int		 null_text, null_blob_prefix, null_commit, null_url;
};

/* What store_query_prefetch read for one request: the ids asked and the rows. */
struct store_query_pre {
	char		*library_id;
	long long	*ids;		/* asked, in any order */
	char		*full;		/* for each of ids: 1 when its whole row was read */
	/*
	 * For each of ids, what the caller knows of it (store_query_prefetch's placed): 0
	 * nothing, its place is read; 1 its place, not flagged (its flags' rules are not
	 * read); 2 its place, flagged.
	 */
	char		*known;
	size_t		 nids;
	int		 short_bytes, lookback;
	int		 more_failed;	/* the second statement failed: read one by one */
	int		 with_places;	/* the first statement read places: the second is the same */
	struct store_query_pre_row *rows;
	size_t		 nrows, caprows;
};

/*
 * What a listening connection keeps of the prefetch's rows between requests: for each
 * candidate asked (library and snippet id), whether the library shows it, its place, and,
 * once read, its whole row and trails. A prefetch whose candidates are all kept costs no
 * round trip; one that misses some reads only those. Every change of the libraries table
 * (db_drain_changes: an index run's end, a delete, a rename) drops them all, as it drops
 * store_query_library's rows: an index run writes a library's snippets, documents and
 * flags in the transaction that ends with its libraries row, and a library that shows
 * another's documents changes only when one of the two rows does. At most
 * STORE_QUERY_ROWS_KEPT candidates and STORE_QUERY_ROWS_BYTES of their texts (then
 * emptied and filled again); CTXD_QUERY_KEPT_ROWS in the environment sets fewer (0:
 * none, for measuring without).
 */
#define STORE_QUERY_ROWS_KEPT	8192
#define STORE_QUERY_ROWS_BYTES	(24L * 1024 * 1024)
#define STORE_QUERY_ROWS_HASH	16384		/* buckets, a power of two */

struct store_query_cand {
	char		*library_id;
	long long	 id;
	int		 shown;		/* 0: the library does not show it */
	int		 placed;	/* place held (of a candidate shown) */
	int		 whole;		/* row and trails held */
	struct store_query_pre_row place, row;
	struct store_query_pre_row *trails;
	size_t		 ntrails;
	int		 next;		/* the bucket's next, -1 */
};

struct store_query {
	struct db		*db;
	struct db_stmt	*lib;
	struct db_stmt	*snippet;
	struct db_stmt	*libs;
	struct db_stmt	*prev;
	struct db_stmt	*text;
	struct db_stmt	*setting;	/* content.injection */
	struct db_stmt	*anyflag;	/* has the library a flagged snippet */
	struct db_stmt	*isflag;	/* is a snippet flagged */
	struct db_stmt	*docpath;	/* a document's path */
	struct store_query_kept *kept;	/* STORE_QUERY_LIBS_KEPT; NULL until the first */
	int		*kept_heads;	/* STORE_QUERY_LIBS_HASH buckets: kept's first, -1 */
	size_t		 nkept;
	unsigned long	 kept_gen;	/* DB_CACHE_LIBRARIES's when kept was filled */
	struct store_query_kept_row *list;	/* NULL: not kept */
	size_t		 nlist;
	unsigned long	 list_gen;
	int		 list_long;	/* at list_gen, too long to keep */
	struct db_stmt	*pre;		/* store_query_prefetch's, prepared at its first use */
	struct db_stmt	*pre_places;	/* the same with the candidates' places */
	struct store_query_pre *pf;	/* the prefetched rows; NULL: none */
	int		 pf_opening;	/* the characters of a trail's text it holds */
	struct store_query_cand *cands;	/* kept rows; NULL until the first */
	int		*buckets;
	size_t		 ncands, maxcands;
	long		 cand_bytes;
	unsigned long	 cand_gen;	/* DB_CACHE_LIBRARIES's when cands was filled */
	int		 cand_opening, cand_short, cand_lookback;	/* of the kept trails */
	struct store_query *route;	/* store_query_route's copy; NULL: none */
	int		 own_db;	/* store_query_open_copy's: close db with q */
};

static void	store_query_cands_drop(struct store_query *);

static const char store_query_lib_sql[] =
    "SELECT id, state, lib_no, indexed_commit IS NOT NULL, "
    "coalesce(last_error, ''), total_snippets, index_version, embed_version, title, "
    "source_type FROM libraries WHERE id = ?1";

/* Snippet ?1's document path and title. */
static const char store_query_docpath_sql[] =
    "SELECT d.path, s.title FROM snippets s JOIN documents d ON d.id = s.document_id "
    "WHERE s.id = ?1";

/*
 * A library shows its own snippets and those of documents of other versions it shares
 * (lib/index/share.h, the view library_snippets).
 */
/*
 * Snippet ?1 as library ?2 shows it: the Source line names its document and commit.
 * Engine: SQLite's group_concat joins a snippet's flags in the order of the key
 * (snippet_id, rule); PostgreSQL's string_agg in the same (byte) order.
 */
#define STORE_QUERY_SNIPPET(flags) \
    "SELECT s.title, s.breadcrumb, s.anchor, s.text, s.code, s.tokens, d.path, " \
    "d.title, l.blob_prefix, l.indexed_commit, s.document_id, s.ord, " \
    "(SELECT " flags " FROM snippet_flags WHERE snippet_id = s.id), " \
    "d.url FROM library_snippets s JOIN documents d ON d.id = s.document_id " \
    "JOIN libraries l ON l.id = s.library_id WHERE s.id = ?1 AND s.library_id = ?2"
static const char store_query_snippet_sql[] = DB_PAIR(
    STORE_QUERY_SNIPPET("group_concat(rule, ', ')"),
    STORE_QUERY_SNIPPET("string_agg(rule, ', ' ORDER BY rule COLLATE \"C\")"));

/* The heading trails of the (at most ?3) snippets before ord ?2 of document ?1, nearest first. */
static const char store_query_prev_sql[] =
    "SELECT id, title, breadcrumb, ord FROM library_snippets WHERE document_id = ?1 AND "
    "ord < ?2 ORDER BY ord DESC LIMIT ?3";

/* A snippet's text, and whether it is flagged (lib/search/inject.h). */
static const char store_query_text_sql[] =
    "SELECT text, EXISTS (SELECT 1 FROM snippet_flags WHERE snippet_id = ?1) "
    "FROM snippets WHERE id = ?1";

/* A setting (content.injection, read for each answer). */
static const char store_query_setting_sql[] =
    "SELECT value FROM settings WHERE name = ?1";

/*
 * Whether a library has flagged snippets (its own or shown from another library of its
 * family: flags rows carry the owner's id), and whether a snippet is flagged.
 */
static const char store_query_anyflag_sql[] =
    "SELECT 1 FROM libraries l JOIN libraries v ON v.id = coalesce(l.version_of, l.id) OR "
    "v.version_of = coalesce(l.version_of, l.id) JOIN snippet_flags f ON f.library_id = "
    "v.id JOIN library_snippets s ON s.id = f.snippet_id AND s.library_id = ?1 WHERE "
    "l.id = ?1 LIMIT 1";
static const char store_query_isflag_sql[] =
    "SELECT 1 FROM snippet_flags WHERE snippet_id = ?1 LIMIT 1";

/*
 * Engine: SQLite's json_group_array makes the versions' list (["a","b"], branches in
 * byte order); PostgreSQL's string_agg of to_json the same text (json_agg would put a
 * space after each comma).
 */
#define STORE_QUERY_LIBS(versions) \
    "SELECT id, title, description, coalesce(indexed_branch, branch), updated_at, " \
    "state, total_tokens, total_snippets, host, " versions ", source_type FROM libraries " \
    "WHERE state <> 'delete' AND version_of IS NULL"
static const char store_query_libs_sql[] = DB_PAIR(
    STORE_QUERY_LIBS("(SELECT json_group_array(branch) FROM "
	"(SELECT v.branch FROM libraries v WHERE v.version_of = libraries.id AND "
	"v.state <> 'delete' ORDER BY v.branch))"),
    STORE_QUERY_LIBS("(SELECT coalesce('[' || string_agg(to_json(v.branch)::text, ',' "
	"ORDER BY v.branch COLLATE \"C\") || ']', '[]') FROM libraries v WHERE "
	"v.version_of = libraries.id AND v.state <> 'delete')"));

/*
 * The versions of a library that have an index, for the 404 of another one.
 * Engine: group_concat of an ordered list (SQLite), string_agg in byte order (PostgreSQL).
 */
static const char store_query_versions_sql[] = DB_PAIR(
    "SELECT group_concat(branch, ', ') FROM (SELECT branch FROM libraries WHERE "
    "version_of = ?1 AND state <> 'delete' AND indexed_commit IS NOT NULL ORDER BY branch)",
    "SELECT string_agg(branch, ', ' ORDER BY branch COLLATE \"C\") FROM libraries WHERE "
    "version_of = ?1 AND state <> 'delete' AND indexed_commit IS NOT NULL");

/*
 * The stored libraries whose id equals ?1 but for case, in byte order.
 * Engine: COLLATE NOCASE compares ASCII letters without case (SQLite); on PostgreSQL the
 * collation nocase (sql/pg/schema.sql) ignores the case of every letter, and the order
 * is made byte order with COLLATE "C".
 */
static const char store_query_nocase_sql[] = DB_PAIR(
    "SELECT id FROM libraries WHERE id = ?1 COLLATE NOCASE AND state <> 'delete' "
    "ORDER BY id",
    "SELECT id FROM libraries WHERE id = ?1 COLLATE NOCASE AND state <> 'delete' "
    "ORDER BY id COLLATE \"C\"");

/*
 * store_query_prefetch (PostgreSQL, a listening connection only: never prepared on
 * SQLite). One statement, one row a candidate (a single SELECT: what PostgreSQL starts
 * and runs for each question is most of its cost):
 * - kind 0: of the candidates ?6 (an array of snippet ids), what store_query_snippet reads
 *   as library ?2 shows it (the rules that flagged it only of the candidates of ?7, those
 *   the caller does not know unflagged; column 18 unused: flagged is flags not NULL); the
 *   nearest
 *   heading trail before it (columns 21-26: its id, title, breadcrumb, ord, first ?3
 *   characters of text and flag, the text only when search_expand's walk may pick it: the
 *   same section continued, or for code with almost no prose one whose breadcrumb opens
 *   the candidate's or the document's first; else NULL, store_query_opening reads it
 *   alone); in column 20 how many trails before it the walk of
 *   store_query_prev covers: ?5 when it has code and its text is under ?4 bytes
 *   (search_expand's "code with almost no prose"), else 1; and for those with ?5, in
 *   column 27, the other trails among the ?5 that search_expand's walk may end at (a
 *   document's first, one whose breadcrumb followed by " > " opens the candidate's:
 *   store_query_prev) as a JSON array of [id, title, breadcrumb, ord, opening, flag],
 *   nearest first (store_query_pre_add makes each trail a row of kind 1);
 * - kind 2 (store_query_pre_places_sql only): the place of each candidate of ?1 (an
 *   array), what store_query_snippet_place and store_query_flagged read.
 * ?1 is read by both (the first only to name its type). starts_with is exact (byte)
 * comparison, as strncmp. Each reads snippets and documents as library_snippets joins them
 * (a document of the library, the snippets of the document it shows), without the view:
 * the view's own document is the one its path and title come from (one probe of
 * documents_shown a candidate, not two), and each trail is a backward walk of the index
 * snippets_document over the shown document that stops at its limit.
 */
#define STORE_QUERY_PRE_WALK \
    "octet_length(s.text) < ?4::int AND s.code <> '[]'"
#define STORE_QUERY_PRE_PICK \
    "(p.title = s.title AND p.breadcrumb = s.breadcrumb) OR (" STORE_QUERY_PRE_WALK " AND " \
    "(p.ord = 0 OR (p.breadcrumb <> '' AND starts_with(s.breadcrumb, p.breadcrumb || " \
    "' > '))))"
#define STORE_QUERY_PRE_ROWS \
    "SELECT 0, s.id, s.title, s.breadcrumb, s.anchor, s.text, s.code, s.tokens, d.path, " \
    "d.title, (SELECT blob_prefix FROM libraries WHERE id = ?2::text), (SELECT " \
    "indexed_commit FROM libraries WHERE id = ?2::text), d.id, s.ord, CASE WHEN s.id = " \
    "ANY (?7::bigint[]) THEN (SELECT string_agg(rule, ', ' ORDER BY rule COLLATE \"C\") " \
    "FROM snippet_flags WHERE snippet_id = s.id) END, d.url, NULL::bigint, NULL::bigint, " \
    "false, true, CASE WHEN " STORE_QUERY_PRE_WALK " THEN ?5::bigint ELSE 1 END, p.id, " \
    "p.title, p.breadcrumb, p.ord, CASE WHEN " STORE_QUERY_PRE_PICK " THEN left(p.text, " \
    "?3::int) END, CASE WHEN " STORE_QUERY_PRE_PICK " THEN EXISTS (SELECT 1 FROM " \
    "snippet_flags f WHERE f.snippet_id = p.id) ELSE false END, CASE WHEN " \
    STORE_QUERY_PRE_WALK " THEN (SELECT json_agg(json_build_array(w.id, w.title, " \
    "w.breadcrumb, w.ord, left(w.text, ?3::int), EXISTS (SELECT 1 FROM snippet_flags f " \
    "WHERE f.snippet_id = w.id)) ORDER BY w.ord DESC) FROM (SELECT y.*, row_number() OVER " \
    "(ORDER BY y.ord DESC) AS rn FROM (SELECT x.id, x.title, x.breadcrumb, x.ord, x.text " \
    "FROM snippets x WHERE x.document_id = s.document_id AND x.ord < s.ord ORDER BY x.ord " \
    "DESC LIMIT ?5::bigint) y) w WHERE w.rn >= 2 AND (w.ord = 0 OR (w.breadcrumb <> '' " \
    "AND starts_with(s.breadcrumb, w.breadcrumb || ' > ')))) END FROM snippets s JOIN " \
    "documents d ON d.shows = s.document_id AND d.library_id = ?2::text LEFT JOIN LATERAL " \
    "(SELECT x.id, x.title, x.breadcrumb, x.ord, x.text FROM snippets x WHERE " \
    "x.document_id = s.document_id AND x.ord < s.ord ORDER BY x.ord DESC LIMIT 1) p ON " \
    "true WHERE s.id = ANY (?6::bigint[])"
static const char store_query_pre_sql[] =
    STORE_QUERY_PRE_ROWS " AND ?1::bigint[] IS NOT NULL";
static const char store_query_pre_places_sql[] =
    STORE_QUERY_PRE_ROWS " UNION ALL "
    "SELECT 2, s.id, s.title, NULL, NULL, NULL, NULL, 0::bigint, d.path, NULL, NULL, NULL, "
    "d.id, s.ord, NULL, NULL, NULL::bigint, NULL::bigint, EXISTS (SELECT 1 FROM "
    "snippet_flags f WHERE f.snippet_id = s.id), true, 0::bigint, NULL::bigint, NULL, "
    "NULL, NULL::bigint, NULL, false, NULL::json FROM snippets s JOIN documents d ON "
    "d.shows = s.document_id AND d.library_id = ?2::text WHERE s.id = ANY "
    "(?1::bigint[])";

/* Column i's text, NULL for a NULL column. */
static const char *
store_query_col(struct db_stmt *st, int i)
{
	return db_col_null(st, i) ? NULL : db_col_text(st, i);
}

static void
store_query_kept_drop(struct store_query *q)
{
	size_t	 i;

	for (i = 0; i < q->nkept; i++) {
		struct store_query_kept *k = &q->kept[i];

		free(k->key);
		free((char *)k->l.id);
		free((char *)k->l.state);
		free((char *)k->l.error);
		free((char *)k->l.title);
		free((char *)k->l.source_type);
	}
	q->nkept = 0;
	if (q->kept_heads != NULL)
		memset(q->kept_heads, 0xff, STORE_QUERY_LIBS_HASH * sizeof(*q->kept_heads));
}

/* FNV-1a of a library id: its bucket among STORE_QUERY_LIBS_HASH. */
static size_t
store_query_key_hash(const char *id)
{
	unsigned long long h = 0xcbf29ce484222325ULL;

	for (; *id != '\0'; id++)
		h = (h ^ (unsigned char)*id) * 0x100000001b3ULL;
	return (size_t)(h ^ (h >> 32)) & (STORE_QUERY_LIBS_HASH - 1);
}

static void
store_query_list_drop(struct store_query *q)
{
	size_t	 i;

	for (i = 0; q->list != NULL && i < q->nlist; i++) {
		struct store_query_libs_row *r = &q->list[i].r;

		free((char *)r->id);
		free((char *)r->title);
		free((char *)r->description);
		free((char *)r->branch);
		free((char *)r->updated_at);
		free((char *)r->state);
		free((char *)r->host);
		free((char *)r->versions);
		free((char *)r->type);
	}
	free(q->list);
	q->list = NULL;
	q->nlist = 0;
	q->list_long = 0;
}

/* The statements reading a library's rows (those a local copy answers): 0, or -1. */
static int
store_query_prepare_rows(struct store_query *q)
{
	if (db_prepare(q->db, store_query_snippet_sql, &q->snippet) == -1 ||
	    db_prepare(q->db, store_query_prev_sql, &q->prev) == -1 ||
	    db_prepare(q->db, store_query_text_sql, &q->text) == -1 ||
	    db_prepare(q->db, store_query_anyflag_sql, &q->anyflag) == -1 ||
	    db_prepare(q->db, store_query_isflag_sql, &q->isflag) == -1 ||
	    db_prepare(q->db, store_query_docpath_sql, &q->docpath) == -1)
		return -1;
	return 0;
}

/*
 * *st prepared from sql unless it is: 0, or -1 (logged). A copy's statements are prepared
 * on first use (a worker opens a copy again when it has closed more than it keeps open:
 * a question then pays only the statements it runs).
 */
static int
store_query_stmt(struct store_query *q, struct db_stmt **st, const char *sql)
{
	if (*st != NULL)
		return 0;
	if (db_prepare(q->db, sql, st) == -1) {
		log_err("store_query: %s", db_conn_errmsg(q->db));
		return -1;
	}
	return 0;
}

struct store_query *
store_query_open(struct db *db)
{
	struct store_query *q;
	const char	*env;
	char		*end;
	long		 v;

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		log_err("%s: out of memory", __func__);
		return NULL;
	}
	q->db = db;
	q->maxcands = STORE_QUERY_ROWS_KEPT;
	if ((env = getenv("CTXD_QUERY_KEPT_ROWS")) != NULL && *env != '\0') {
		errno = 0;
		v = strtol(env, &end, 10);
		if (errno == 0 && *end == '\0' && v >= 0 && v < STORE_QUERY_ROWS_KEPT)
			q->maxcands = (size_t)v;
	}
	if (db_prepare(db, store_query_lib_sql, &q->lib) == -1 ||
	    db_prepare(db, store_query_libs_sql, &q->libs) == -1 ||
	    db_prepare(db, store_query_setting_sql, &q->setting) == -1 ||
	    store_query_prepare_rows(q) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		store_query_close(q);
		return NULL;
	}
	return q;
}

struct store_query *
store_query_open_copy(struct db *copy)
{
	struct store_query *q;

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		log_err("%s: out of memory", __func__);
		db_close(copy);
		return NULL;
	}
	q->db = copy;
	q->own_db = 1;		/* its statements: prepared on first use (store_query_stmt) */
	return q;
}

void
store_query_route(struct store_query *q, struct store_query *copy)
{
	q->route = copy;
}

void
store_query_close(struct store_query *q)
{
	if (q == NULL)
		return;
	db_finalize(q->lib);
	db_finalize(q->snippet);
	db_finalize(q->libs);
	db_finalize(q->prev);
	db_finalize(q->text);
	db_finalize(q->setting);
	db_finalize(q->anyflag);
	db_finalize(q->isflag);
	db_finalize(q->docpath);
	db_finalize(q->pre);
	db_finalize(q->pre_places);
	store_query_kept_drop(q);
	free(q->kept);
	free(q->kept_heads);
	store_query_list_drop(q);
	store_query_prefetch_drop(q);
	store_query_cands_drop(q);
	free(q->cands);
	free(q->buckets);
	if (q->own_db)
		db_close(q->db);
	free(q);
}

/* ------------------------------------------------------------ one request's prefetch */

/* Frees r's strings. */
static void
store_query_row_release(struct store_query_pre_row *r)
{
	free(r->title);
	free(r->breadcrumb);
	free(r->anchor);
	free(r->text);
	free(r->code);
	free(r->path);
	free(r->page_title);
	free(r->blob_prefix);
	free(r->indexed_commit);
	free(r->flags);
	free(r->url);
	memset(r, 0, sizeof(*r));
}

/* A copy of src into dst (its own strings): the bytes of its strings, or -1 (dst empty). */
static long
store_query_row_copy(struct store_query_pre_row *dst, const struct store_query_pre_row *src)
{
	char	**to[] = { &dst->title, &dst->breadcrumb, &dst->anchor, &dst->text,
		    &dst->code, &dst->path, &dst->page_title, &dst->blob_prefix,
		    &dst->indexed_commit, &dst->flags, &dst->url };
	char	*const from[] = { src->title, src->breadcrumb, src->anchor, src->text,
		    src->code, src->path, src->page_title, src->blob_prefix,
		    src->indexed_commit, src->flags, src->url };
	size_t	 i;
	long	 bytes = 0;

	*dst = *src;
	for (i = 0; i < sizeof(to) / sizeof(to[0]); i++) {
		*to[i] = NULL;
		if (from[i] == NULL)
			continue;
		if ((*to[i] = strdup(from[i])) == NULL) {
			store_query_row_release(dst);
			return -1;
		}
		bytes += (long)strlen(from[i]) + 1;
	}
	return bytes;
}

static void
store_query_pre_free(struct store_query_pre *pf)
{
	size_t	 i;

	if (pf == NULL)
		return;
	for (i = 0; i < pf->nrows; i++)
		store_query_row_release(&pf->rows[i]);
	free(pf->rows);
	free(pf->ids);
	free(pf->full);
	free(pf->known);
	free(pf->library_id);
	free(pf);
}

void
store_query_prefetch_drop(struct store_query *q)
{
	store_query_pre_free(q->pf);
	q->pf = NULL;
}

/* Empties the kept candidates. */
static void
store_query_cands_drop(struct store_query *q)
{
	size_t	 i, k;

	for (i = 0; i < q->ncands; i++) {
		struct store_query_cand *c = &q->cands[i];

		free(c->library_id);
		store_query_row_release(&c->place);
		store_query_row_release(&c->row);
		for (k = 0; k < c->ntrails; k++)
			store_query_row_release(&c->trails[k]);
		free(c->trails);
	}
	q->ncands = 0;
	q->cand_bytes = 0;
	if (q->buckets != NULL)
		for (i = 0; i < STORE_QUERY_ROWS_HASH; i++)
			q->buckets[i] = -1;
}

static size_t
store_query_cand_hash(long long id)
{
	return (size_t)(((unsigned long long)id * 0x9E3779B97F4A7C15ULL) >> 40) &
	    (STORE_QUERY_ROWS_HASH - 1);
}

/* The kept candidate id of library_id, NULL when not kept. */
static struct store_query_cand *
store_query_cand_find(struct store_query *q, const char *library_id, long long id)
{
	int	 k;

	for (k = q->buckets[store_query_cand_hash(id)]; k != -1; k = q->cands[k].next)
		if (q->cands[k].id == id && strcmp(q->cands[k].library_id, library_id) == 0)
			return &q->cands[k];
	return NULL;
}

/* A new kept candidate (emptied first when full): NULL when out of memory. */
static struct store_query_cand *
store_query_cand_add(struct store_query *q, const char *library_id, long long id)
{
	struct store_query_cand *c;
	size_t	 h = store_query_cand_hash(id);

	if (q->ncands == q->maxcands || q->cand_bytes > STORE_QUERY_ROWS_BYTES)
		store_query_cands_drop(q);
	c = &q->cands[q->ncands];
	memset(c, 0, sizeof(*c));
	if ((c->library_id = strdup(library_id)) == NULL)
		return NULL;
	c->id = id;
	c->next = q->buckets[h];
	q->buckets[h] = (int)q->ncands++;
	q->cand_bytes += (long)sizeof(*c) + (long)strlen(library_id);
	return c;
}

/* Room in pf for one more row: 0, or -1 out of memory. */
static int
store_query_pre_room(struct store_query_pre *pf)
{
	struct store_query_pre_row *n;
	size_t		 cap;

	if (pf->nrows < pf->caprows)
		return 0;
	cap = pf->caprows ? pf->caprows * 2 : 128;
	if ((n = reallocarray(pf->rows, cap, sizeof(*n))) == NULL)
		return -1;
	pf->rows = n;
	pf->caprows = cap;
	return 0;
}

/* Adds a copy of r to pf: 0, or -1 out of memory. */
static int
store_query_pre_put(struct store_query_pre *pf, const struct store_query_pre_row *r)
{
	if (store_query_pre_room(pf) == -1)
		return -1;
	if (store_query_row_copy(&pf->rows[pf->nrows], r) == -1)
		return -1;
	pf->nrows++;
	return 0;
}

/*
 * The kept rows of pf's candidates into pf; need[i] says what is not kept of ids[i]:
 * 1 its place, 2 its whole row and trails (when pf reads it whole). 0, or -1.
 */
static int
store_query_cands_get(struct store_query *q, struct store_query_pre *pf, char *need)
{
	struct store_query_cand *c;
	size_t	 i, k;

	for (i = 0; i < pf->nids; i++) {
		if ((c = store_query_cand_find(q, pf->library_id, pf->ids[i])) == NULL) {
			need[i] = (!pf->known[i] ? 1 : 0) | (pf->full[i] ? 2 : 0);
			continue;
		}
		need[i] = (!pf->known[i] && c->shown && !c->placed ? 1 : 0) |
		    (pf->full[i] && c->shown && !c->whole ? 2 : 0);
		if (!pf->known[i] && c->shown && c->placed &&
		    store_query_pre_put(pf, &c->place) == -1)
			return -1;
		if (!pf->full[i] || !c->whole)
			continue;
		if (store_query_pre_put(pf, &c->row) == -1)
			return -1;
		for (k = 0; k < c->ntrails; k++)
			if (store_query_pre_put(pf, &c->trails[k]) == -1)
				return -1;
	}
	return 0;
}

/* Keeps what the statement read of the candidates need names. Out of memory: less kept. */
static void
store_query_cands_put(struct store_query *q, const struct store_query_pre *pf,
    const char *need)
{
	struct store_query_cand *c;
	const struct store_query_pre_row *r, *p;
	size_t	 i, j, k, nt;
	long	 b;

	for (i = 0; i < pf->nids; i++) {
		if (need[i] == 0)
			continue;
		p = r = NULL;
		for (j = 0; j < pf->nrows; j++)
			if (pf->rows[j].id == pf->ids[i] && pf->rows[j].kind == 2)
				p = &pf->rows[j];
			else if (pf->rows[j].id == pf->ids[i] && pf->rows[j].kind == 0)
				r = &pf->rows[j];
		if ((c = store_query_cand_find(q, pf->library_id, pf->ids[i])) == NULL) {
			/* read now (else it was dropped since: not kept) */
			if ((c = store_query_cand_add(q, pf->library_id, pf->ids[i])) == NULL)
				continue;
			/* shown: the place or the row the statement read says so */
			c->shown = (need[i] & 1) ? p != NULL : r != NULL;
		}
		if ((need[i] & 1) && c->shown && !c->placed && p != NULL) {
			if ((b = store_query_row_copy(&c->place, p)) == -1) {
				store_query_cands_drop(q);	/* kept as gone: drop all */
				return;
			}
			q->cand_bytes += b;
			c->placed = 1;
		}
		if (!(need[i] & 2) || !c->shown || c->whole || r == NULL)
			continue;
		for (j = 0, nt = 0; j < pf->nrows; j++)
			if (pf->rows[j].kind == 1 && pf->rows[j].of_doc == r->document_id &&
			    pf->rows[j].of_ord == r->ord)
				nt++;
		if (nt > 0 && (c->trails = calloc(nt, sizeof(*c->trails))) == NULL)
			continue;
		if ((b = store_query_row_copy(&c->row, r)) == -1) {
			free(c->trails);
			c->trails = NULL;
			continue;
		}
		q->cand_bytes += b;
		for (j = 0, k = 0; j < pf->nrows && k < nt; j++) {
			if (pf->rows[j].kind != 1 || pf->rows[j].of_doc != r->document_id ||
			    pf->rows[j].of_ord != r->ord)
				continue;
			if ((b = store_query_row_copy(&c->trails[k], &pf->rows[j])) == -1)
				break;
			q->cand_bytes += b;
			k++;
		}
		c->ntrails = k;
		if (k < nt) {		/* out of memory: not kept whole */
			for (j = 0; j < k; j++)
				store_query_row_release(&c->trails[j]);
			free(c->trails);
			c->trails = NULL;
			c->ntrails = 0;
			store_query_row_release(&c->row);
			continue;
		}
		c->whole = 1;
	}
}

/* A copy of column i of st ("" for NULL; *isnull set when given). 0, or -1. */
static int
store_query_pre_col(struct db_stmt *st, int i, char **out, int *isnull)
{
	if (isnull != NULL)
		*isnull = db_col_null(st, i);
	return (*out = strdup(db_col_text(st, i))) != NULL ? 0 : -1;
}

/* Element i of JSON array t as a string, "" for a null. */
static const char *
store_query_json_str(struct json_object *t, size_t i)
{
	const char	*v = json_object_get_string(json_object_array_get_idx(t, i));

	return v != NULL ? v : "";
}

/*
 * A new row of kind 1 in pf (a trail before the candidate of_doc, of_ord, read with its
 * walk's limit), its strings but title, breadcrumb and text as a trail's: "" (NULL where
 * a NULL is told apart). NULL out of memory.
 */
static struct store_query_pre_row *
store_query_trail_add(struct store_query_pre *pf, long long of_doc, long long of_ord,
    long long limit)
{
	struct store_query_pre_row *r;

	if (store_query_pre_room(pf) == -1)
		return NULL;
	r = &pf->rows[pf->nrows++];
	memset(r, 0, sizeof(*r));
	r->kind = 1;
	r->document_id = r->of_doc = of_doc;
	r->of_ord = of_ord;
	r->limit = limit;
	r->has_text = 1;
	r->null_blob_prefix = r->null_commit = r->null_url = 1;
	if ((r->anchor = strdup("")) == NULL || (r->code = strdup("")) == NULL ||
	    (r->path = strdup("")) == NULL || (r->page_title = strdup("")) == NULL ||
	    (r->blob_prefix = strdup("")) == NULL || (r->indexed_commit = strdup("")) == NULL ||
	    (r->url = strdup("")) == NULL)
		return NULL;	/* released with pf */
	return r;
}

/*
 * Adds the row st stands on to pf, and the trails a row of kind 0 carries: 0, or -1 out
 * of memory or on a walk that is not what the statement makes (logged).
 */
static int
store_query_pre_add(struct store_query_pre *pf, struct db_stmt *st)
{
	struct store_query_pre_row *r;
	struct json_object *walk;
	long long	 of_doc, of_ord, limit;
	size_t		 i;

	if (store_query_pre_room(pf) == -1)
		return -1;
	r = &pf->rows[pf->nrows++];
	memset(r, 0, sizeof(*r));
	r->kind = (int)db_col_int64(st, 0);
	r->id = db_col_int64(st, 1);
	r->tokens = db_col_int64(st, 7);
	r->document_id = db_col_int64(st, 12);
	r->ord = db_col_int64(st, 13);
	r->of_doc = db_col_int64(st, 16);
	r->of_ord = db_col_int64(st, 17);
	r->flagged = db_col_int64(st, 18) != 0;
	r->has_text = db_col_int64(st, 19) != 0;
	r->limit = db_col_int64(st, 20);
	if (store_query_pre_col(st, 2, &r->title, NULL) == -1 ||
	    store_query_pre_col(st, 3, &r->breadcrumb, NULL) == -1 ||
	    store_query_pre_col(st, 4, &r->anchor, NULL) == -1 ||
	    store_query_pre_col(st, 5, &r->text, &r->null_text) == -1 ||
	    store_query_pre_col(st, 6, &r->code, NULL) == -1 ||
	    store_query_pre_col(st, 8, &r->path, NULL) == -1 ||
	    store_query_pre_col(st, 9, &r->page_title, NULL) == -1 ||
	    store_query_pre_col(st, 10, &r->blob_prefix, &r->null_blob_prefix) == -1 ||
	    store_query_pre_col(st, 11, &r->indexed_commit, &r->null_commit) == -1 ||
	    store_query_pre_col(st, 14, &r->flags, NULL) == -1 ||
	    store_query_pre_col(st, 15, &r->url, &r->null_url) == -1)
		return -1;
	if (db_col_null(st, 14)) {
		free(r->flags);
		r->flags = NULL;
	}
	if (r->kind != 0)
		return 0;
	r->flagged = r->flags != NULL;
	if (db_col_null(st, 21))
		return 0;		/* the document's first: no trail */
	of_doc = r->document_id;
	of_ord = r->ord;
	limit = r->limit;
	/* the nearest trail before the candidate, in columns 21-26 */
	if ((r = store_query_trail_add(pf, of_doc, of_ord, limit)) == NULL)
		return -1;
	r->id = db_col_int64(st, 21);
	r->ord = db_col_int64(st, 24);
	r->flagged = db_col_int64(st, 26) != 0;
	r->has_text = !db_col_null(st, 25);	/* text is NOT NULL: a NULL was not read */
	if (store_query_pre_col(st, 22, &r->title, NULL) == -1 ||
	    store_query_pre_col(st, 23, &r->breadcrumb, NULL) == -1 ||
	    store_query_pre_col(st, 25, &r->text, NULL) == -1)
		return -1;
	/* the others of the walk, in column 27: [[id, title, breadcrumb, ord, text, flag]...] */
	if (db_col_null(st, 27))
		return 0;
	if ((walk = json_tokener_parse(db_col_text(st, 27))) == NULL ||
	    !json_object_is_type(walk, json_type_array)) {
		json_object_put(walk);
		log_err("%s: a walk that is not a JSON array", __func__);
		return -1;
	}
	for (i = 0; i < json_object_array_length(walk); i++) {
		struct json_object *t = json_object_array_get_idx(walk, i);

		if (!json_object_is_type(t, json_type_array) ||
		    json_object_array_length(t) != 6 ||
		    (r = store_query_trail_add(pf, of_doc, of_ord, limit)) == NULL)
			goto bad;
		r->id = json_object_get_int64(json_object_array_get_idx(t, 0));
		r->ord = json_object_get_int64(json_object_array_get_idx(t, 3));
		r->flagged = json_object_get_boolean(json_object_array_get_idx(t, 5));
		/* a NULL text was not read (store_query_opening reads it) */
		r->has_text = json_object_array_get_idx(t, 4) != NULL;
		if ((r->text = strdup(store_query_json_str(t, 4))) == NULL ||
		    (r->title = strdup(store_query_json_str(t, 1))) == NULL ||
		    (r->breadcrumb = strdup(store_query_json_str(t, 2))) == NULL)
			goto bad;
	}
	json_object_put(walk);
	return 0;
bad:
	json_object_put(walk);
	return -1;
}

/*
 * The order store_query_prev reads trails in: by kind, then each candidate's trails
 * together (of_doc, of_ord), nearest first.
 */
static int
store_query_row_cmp(const void *a, const void *b)
{
	const struct store_query_pre_row *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->of_doc != y->of_doc)
		return x->of_doc < y->of_doc ? -1 : 1;
	if (x->of_ord != y->of_ord)
		return x->of_ord < y->of_ord ? -1 : 1;
	if (x->ord != y->ord)
		return x->ord > y->ord ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Into *out (malloc'd): the ids of pf whose sel has a bit of mask as an array literal,
 * {1,2,3}; *count how many. 0, or -1 out of memory.
 */
static int
store_query_pre_array(const struct store_query_pre *pf, const char *sel, int mask,
    char **out, size_t *count)
{
	size_t	 i, len = 0, cap = pf->nids * 21 + 3;
	int	 k;

	*count = 0;
	if ((*out = malloc(cap)) == NULL)
		return -1;
	(*out)[len++] = '{';
	for (i = 0; i < pf->nids; i++) {
		if (!(sel[i] & mask))
			continue;
		k = snprintf(*out + len, cap - len, "%s%lld", *count > 0 ? "," : "",
		    pf->ids[i]);
		if (k < 0 || (size_t)k >= cap - len) {
			free(*out);
			*out = NULL;
			return -1;
		}
		len += (size_t)k;
		(*count)++;
	}
	(*out)[len++] = '}';
	(*out)[len] = '\0';
	return 0;
}

/*
 * 1 when the kept candidates may serve a prefetch with these trails (emptied when the
 * libraries changed since or the trails asked differ), 0 when none are kept.
 */
static int
store_query_cands_ready(struct store_query *q, int opening, int short_bytes, int lookback)
{
	size_t	 i;

	if (q->maxcands == 0)
		return 0;
	if (q->cands == NULL) {
		if ((q->cands = calloc(q->maxcands, sizeof(*q->cands))) == NULL ||
		    (q->buckets = calloc(STORE_QUERY_ROWS_HASH, sizeof(*q->buckets))) == NULL) {
			free(q->cands);
			q->cands = NULL;
			return 0;
		}
		for (i = 0; i < STORE_QUERY_ROWS_HASH; i++)
			q->buckets[i] = -1;
		q->cand_gen = db_cache_gen(q->db, DB_CACHE_LIBRARIES);
		q->cand_opening = opening;
		q->cand_short = short_bytes;
		q->cand_lookback = lookback;
	}
	if (!db_cache_valid(q->db, DB_CACHE_LIBRARIES, q->cand_gen) ||
	    q->cand_opening != opening || q->cand_short != short_bytes ||
	    q->cand_lookback != lookback) {
		store_query_cands_drop(q);
		q->cand_gen = db_cache_gen(q->db, DB_CACHE_LIBRARIES);
		q->cand_opening = opening;
		q->cand_short = short_bytes;
		q->cand_lookback = lookback;
	}
	return 1;
}

/*
 * Runs the prefetch statement: places of light's ids, rows and trails of full's, into pf;
 * the flags' rules only of the candidates the caller does not know unflagged.
 */
static int
store_query_pre_run(struct store_query *q, struct store_query_pre *pf, const char *light,
    const char *full)
{
	struct db_stmt	**st;
	char		*flagsof = NULL, *sel;
	size_t		 i, count;
	int		 step, rc;

	if ((sel = calloc(pf->nids, 1)) == NULL)
		return -1;
	for (i = 0; i < pf->nids; i++)
		sel[i] = pf->known[i] != 1;
	rc = store_query_pre_array(pf, sel, 1, &flagsof, &count);
	free(sel);
	if (rc == -1)
		return -1;
	if (strcmp(light, "{}") != 0)
		pf->with_places = 1;
	st = pf->with_places ? &q->pre_places : &q->pre;

	if (*st == NULL && db_prepare(q->db, st == &q->pre ? store_query_pre_sql :
	    store_query_pre_places_sql, st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
		free(flagsof);
		return -1;
	}
	db_reset(*st);
	db_bind_text(*st, 1, light);
	db_bind_text(*st, 2, pf->library_id);
	db_bind_int64(*st, 3, q->pf_opening);
	db_bind_int64(*st, 4, pf->short_bytes);
	db_bind_int64(*st, 5, pf->lookback);
	db_bind_text(*st, 6, full);
	db_bind_text(*st, 7, flagsof);
	while ((step = db_step(*st)) == DB_ROW)
		if (store_query_pre_add(pf, *st) == -1) {
			db_reset(*st);
			free(flagsof);
			log_err("%s: out of memory", __func__);
			return -1;
		}
	db_reset(*st);
	free(flagsof);
	if (step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
		return -1;
	}
	qsort(pf->rows, pf->nrows, sizeof(*pf->rows), store_query_row_cmp);
	return 0;
}

int
store_query_prefetch(struct store_query *q, const char *library_id, const long long *ids,
    const char *placed, size_t n, size_t nwhole, int opening, int short_bytes, int lookback)
{
	struct store_query_pre *pf = NULL;
	char		*places = NULL, *wholes = NULL, *need = NULL;
	size_t		 i, np = 0, nw = 0;
	int		 keep;

	store_query_prefetch_drop(q);
	if (q->route != NULL || !q->db->listening || n == 0)
		return 0;
	if ((pf = calloc(1, sizeof(*pf))) == NULL ||
	    (pf->ids = calloc(n, sizeof(*pf->ids))) == NULL ||
	    (pf->full = calloc(n, sizeof(*pf->full))) == NULL ||
	    (pf->known = calloc(n, sizeof(*pf->known))) == NULL ||
	    (pf->library_id = strdup(library_id)) == NULL ||
	    (need = calloc(n, 1)) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		pf->ids[i] = ids[i];
		pf->full[i] = i < nwhole;
		pf->known[i] = placed != NULL ? placed[i] : 0;
	}
	pf->nids = n;
	pf->short_bytes = short_bytes;
	pf->lookback = lookback;
	q->pf_opening = opening;
	/* what is kept goes into pf; the statement reads the rest (need) */
	if ((keep = store_query_cands_ready(q, opening, short_bytes, lookback)) != 0) {
		if (store_query_cands_get(q, pf, need) == -1)
			goto nomem;
	} else
		for (i = 0; i < n; i++)
			need[i] = (!pf->known[i] ? 1 : 0) | (pf->full[i] ? 2 : 0);
	if (store_query_pre_array(pf, need, 1, &places, &np) == -1 ||
	    store_query_pre_array(pf, need, 2, &wholes, &nw) == -1)
		goto nomem;
	if (np + nw > 0) {
		if (store_query_pre_run(q, pf, places, wholes) == -1)
			goto fail;
		if (keep)
			store_query_cands_put(q, pf, need);
	}
	free(places);
	free(wholes);
	free(need);
	q->pf = pf;
	return 0;
nomem:
	log_err("%s: out of memory", __func__);
fail:
	free(places);
	free(wholes);
	free(need);
	store_query_pre_free(pf);
	return -1;
}

/*
 * The second statement: the rows and trails of the candidates the first did not read
 * whole, all of them at once (the answer went further than the caller foresaw). 0, or -1
 * when it failed (logged once; the reads then go one by one).
 */
static int
store_query_pre_more(struct store_query *q)
{
	struct store_query_pre *pf = q->pf;
	char		*rest = NULL, *sel;
	size_t		 i, count;

	if (pf->more_failed)
		return -1;
	if ((sel = calloc(pf->nids, 1)) == NULL) {
		log_err("%s: out of memory", __func__);
		pf->more_failed = 1;
		return -1;
	}
	for (i = 0; i < pf->nids; i++)
		sel[i] = !pf->full[i];
	if (store_query_pre_array(pf, sel, 1, &rest, &count) == -1) {
		log_err("%s: out of memory", __func__);
		free(sel);
		pf->more_failed = 1;
		return -1;
	}
	free(sel);
	if (count > 0 && store_query_pre_run(q, pf, "{}", rest) == -1) {
		free(rest);
		pf->more_failed = 1;
		return -1;
	}
	free(rest);
	for (i = 0; i < pf->nids; i++)
		pf->full[i] = 1;
	return 0;
}

/*
 * 1 when id was asked of the prefetch (of library_id when not NULL), 2 when its whole
 * row was read too, 0 when not asked.
 */
static int
store_query_pre_asked(struct store_query *q, long long id, const char *library_id)
{
	size_t	 i;

	if (q->pf == NULL || (library_id != NULL && strcmp(q->pf->library_id, library_id)))
		return 0;
	for (i = 0; i < q->pf->nids; i++)
		if (q->pf->ids[i] == id)
			return q->pf->full[i] ? 2 : 1;
	return 0;
}

/* 1 when id was asked of the prefetch with its place (store_query_prefetch's placed). */
static int
store_query_pre_placed(struct store_query *q, long long id)
{
	size_t	 i;

	for (i = 0; q->pf != NULL && i < q->pf->nids; i++)
		if (q->pf->ids[i] == id)
			return !q->pf->known[i];
	return 0;
}

/*
 * The prefetched candidate id, its whole row (kind 0) or its place (kind 2); NULL when the
 * library does not show it (gone).
 */
static struct store_query_pre_row *
store_query_pre_find(struct store_query *q, long long id, int kind)
{
	size_t	 i;

	for (i = 0; i < q->pf->nrows; i++)
		if (q->pf->rows[i].kind == kind && q->pf->rows[i].id == id)
			return &q->pf->rows[i];
	return NULL;
}

/* Keeps the answer of store_query_library for id (l NULL: none); out of memory: not kept. */
static void
store_query_keep(struct store_query *q, const char *id, const struct store_query_lib *l)
{
	struct store_query_kept *k;
	size_t		 h;

	if (q->kept == NULL) {
		if ((q->kept = calloc(STORE_QUERY_LIBS_KEPT, sizeof(*q->kept))) == NULL ||
		    (q->kept_heads = malloc(STORE_QUERY_LIBS_HASH *
		    sizeof(*q->kept_heads))) == NULL) {
			free(q->kept);
			q->kept = NULL;
			return;
		}
		memset(q->kept_heads, 0xff, STORE_QUERY_LIBS_HASH * sizeof(*q->kept_heads));
	}
	if (q->nkept == STORE_QUERY_LIBS_KEPT)
		store_query_kept_drop(q);
	k = &q->kept[q->nkept];
	memset(k, 0, sizeof(*k));
	if ((k->key = strdup(id)) == NULL)
		return;
	h = store_query_key_hash(id);
	k->next = q->kept_heads[h];
	q->kept_heads[h] = (int)q->nkept;
	if (l != NULL) {
		k->found = 1;
		k->l = *l;
		k->l.id = strdup(l->id);
		k->l.state = strdup(l->state);
		k->l.error = strdup(l->error);
		k->l.title = strdup(l->title);
		k->l.source_type = strdup(l->source_type);
	}
	q->nkept++;
	if (l != NULL && (k->l.id == NULL || k->l.state == NULL || k->l.error == NULL ||
	    k->l.title == NULL || k->l.source_type == NULL))
		store_query_kept_drop(q);
}

/* The kept answer for id: 1 (row), 0 (none), -1 not kept. */
static int
store_query_kept_find(struct store_query *q, const char *id,
    void (*fn)(const struct store_query_lib *, void *), void *arg)
{
	int	 i;

	if (!q->db->listening)
		return -1;
	if (!db_cache_valid(q->db, DB_CACHE_LIBRARIES, q->kept_gen)) {
		store_query_kept_drop(q);
		q->kept_gen = db_cache_gen(q->db, DB_CACHE_LIBRARIES);
	}
	if (q->kept == NULL)
		return -1;
	for (i = q->kept_heads[store_query_key_hash(id)]; i != -1; i = q->kept[i].next)
		if (strcmp(q->kept[i].key, id) == 0) {
			if (q->kept[i].found)
				fn(&q->kept[i].l, arg);
			return q->kept[i].found;
		}
	return -1;
}

int
store_query_library(struct store_query *q, const char *id,
    void (*fn)(const struct store_query_lib *, void *), void *arg)
{
	struct store_query_lib l;
	int		 step;

	if ((step = store_query_kept_find(q, id, fn, arg)) != -1)
		return step;
	db_reset(q->lib);
	db_bind_text(q->lib, 1, id);
	if ((step = db_step(q->lib)) == DB_ROW) {
		l.id = db_col_text(q->lib, 0);
		l.state = db_col_text(q->lib, 1);
		l.lib_no = db_col_int64(q->lib, 2);
		l.has_index = (int)db_col_int64(q->lib, 3);
		l.error = db_col_text(q->lib, 4);
		l.snippets = db_col_int64(q->lib, 5);
		l.index_version = db_col_int64(q->lib, 6);
		l.embed_version = db_col_int64(q->lib, 7);
		l.title = db_col_text(q->lib, 8);
		l.source_type = db_col_text(q->lib, 9);
		if (q->db->listening)
			store_query_keep(q, id, &l);
		fn(&l, arg);
	} else if (step == DB_DONE) {
		if (q->db->listening)
			store_query_keep(q, id, NULL);
	} else
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
	db_reset(q->lib);
	return step == DB_ROW ? 1 : step == DB_DONE ? 0 : -1;
}

int
store_query_nocase(struct store_query *q, const char *id, int (*fn)(const char *, void *),
    void *arg)
{
	struct db_stmt	*st = NULL;
	const char	*have;
	int		 step;

	if (db_prepare(q->db, store_query_nocase_sql, &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
		return -1;
	}
	db_bind_text(st, 1, id);
	while ((step = db_step(st)) == DB_ROW)
		if ((have = store_query_col(st, 0)) != NULL && fn(have, arg) == 1)
			break;
	if (step != DB_ROW && step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
	db_finalize(st);
	return step == DB_ROW || step == DB_DONE ? 0 : -1;
}

int
store_query_versions(struct store_query *q, const char *base, char **have)
{
	struct db_stmt	*st = NULL;
	int		 step, rc = 0;

	*have = NULL;
	if (db_prepare(q->db, store_query_versions_sql, &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
		return -1;
	}
	db_bind_text(st, 1, base);
	if ((step = db_step(st)) == DB_ROW && !db_col_null(st, 0) &&
	    (*have = strdup(db_col_text(st, 0))) == NULL)
		rc = -1;
	else if (step != DB_ROW && step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

int
store_query_snippet(struct store_query *q, long long id, const char *library_id,
    int (*fn)(const struct store_query_snippet *, void *), void *arg)
{
	struct store_query_snippet r;
	struct store_query_pre_row *p;
	struct db_stmt	*st;
	int		 step, rc = -1, asked;

	if (q->route != NULL)
		return store_query_snippet(q->route, id, library_id, fn, arg);
	if (store_query_stmt(q, &q->snippet, store_query_snippet_sql) == -1)
		return -1;
	st = q->snippet;
	if ((asked = store_query_pre_asked(q, id, library_id)) != 0) {
		/*
		 * not shown (gone: its place was read, and is none), or shown and deeper
		 * than the first statement read
		 */
		if (store_query_pre_placed(q, id) && store_query_pre_find(q, id, 2) == NULL)
			return 1;
		if (asked == 1 && store_query_pre_more(q) == 0)
			asked = 2;
	}
	if (asked == 2) {
		if ((p = store_query_pre_find(q, id, 0)) == NULL)
			return 1;
		r.title = p->title;
		r.breadcrumb = p->breadcrumb;
		r.anchor = p->anchor;
		r.text = p->text;
		r.code = p->code;
		r.tokens = (int)p->tokens;
		r.path = p->path;
		r.page_title = p->page_title;
		r.blob_prefix = p->null_blob_prefix ? NULL : p->blob_prefix;
		r.indexed_commit = p->null_commit ? NULL : p->indexed_commit;
		r.document_id = p->document_id;
		r.ord = p->ord;
		r.flags = p->flags;
		r.url = p->null_url ? NULL : p->url;
		return fn(&r, arg);
	}
	db_reset(st);
	db_bind_int64(st, 1, id);
	db_bind_text(st, 2, library_id);
	if ((step = db_step(st)) == DB_DONE)
		rc = 1;
	else if (step == DB_ROW) {
		r.title = db_col_text(st, 0);
		r.breadcrumb = db_col_text(st, 1);
		/* anchor, code and path are NOT NULL columns: no NULL to tell apart */
		r.anchor = db_col_text(st, 2);
		r.text = db_col_text(st, 3);
		r.code = db_col_text(st, 4);
		r.tokens = (int)db_col_int64(st, 5);
		r.path = db_col_text(st, 6);
		r.page_title = db_col_text(st, 7);
		r.blob_prefix = store_query_col(st, 8);
		r.indexed_commit = store_query_col(st, 9);
		r.document_id = db_col_int64(st, 10);
		r.ord = db_col_int64(st, 11);
		r.flags = store_query_col(st, 12);
		r.url = store_query_col(st, 13);
		rc = fn(&r, arg);
	} else
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
	db_reset(st);
	return rc;
}

int
store_query_prev(struct store_query *q, long long doc, long long ord, int limit,
    int (*fn)(long long, const char *, const char *, long long, void *), void *arg)
{
	struct store_query_pre_row *p;
	size_t	 i, k = 0, first = 0;
	int	 step, covered = 0, sent, more = 0;

	if (q->route != NULL)
		return store_query_prev(q->route, doc, ord, limit, fn, arg);
	if (store_query_stmt(q, &q->prev, store_query_prev_sql) == -1)
		return -1;
	/*
	 * From the prefetch when it read the trails before this place, as many as asked; a
	 * candidate's place whose trails the first statement did not read has them read
	 * with the rest (store_query_pre_more).
	 */
again:
	for (i = 0; q->pf != NULL && i < q->pf->nrows; i++) {
		p = &q->pf->rows[i];
		if (p->kind == 0 && p->document_id == doc && p->ord == ord)
			covered = 1;
		else if (p->kind == 1 && p->of_doc == doc && p->of_ord == ord && k++ == 0)
			first = i;
		else if (p->kind == 2 && p->document_id == doc && p->ord == ord &&
		    !more && store_query_pre_asked(q, p->id, NULL) == 1)
			more = 1;
	}
	if (!covered && more == 1) {
		more = 2;
		k = 0;
		if (store_query_pre_more(q) == 0)
			goto again;
	}
	/* the trails read are those of the statement's limit (not all: store/query.h) */
	if (covered && (k == 0 || limit <= q->pf->rows[first].limit)) {
		for (i = first, sent = 0; k > 0 && i < q->pf->nrows && sent < limit; i++) {
			p = &q->pf->rows[i];
			if (p->kind != 1 || p->of_doc != doc || p->of_ord != ord)
				break;
			sent++;
			if (fn(p->id, p->title, p->breadcrumb, p->ord, arg) == 1)
				break;
		}
		return 0;
	}
	db_reset(q->prev);
	db_bind_int64(q->prev, 1, doc);
	db_bind_int64(q->prev, 2, ord);
	db_bind_int64(q->prev, 3, limit);
	while ((step = db_step(q->prev)) == DB_ROW)
		if (fn(db_col_int64(q->prev, 0), db_col_text(q->prev, 1),
		    db_col_text(q->prev, 2), db_col_int64(q->prev, 3), arg) == 1)
			break;
	if (step != DB_ROW && step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
	db_reset(q->prev);
	return step == DB_ROW || step == DB_DONE ? 0 : -1;
}

int
store_query_snippet_place(struct store_query *q, long long id, char *path, size_t pathsz,
    char *title, size_t titlesz)
{
	struct store_query_pre_row *p;
	int	 rc = 0;

	if (q->route != NULL)
		return store_query_snippet_place(q->route, id, path, pathsz, title, titlesz);
	*path = *title = '\0';
	if (store_query_stmt(q, &q->docpath, store_query_docpath_sql) == -1)
		return -1;
	if (store_query_pre_placed(q, id)) {
		if ((p = store_query_pre_find(q, id, 2)) == NULL)
			return 0;
		snprintf(path, pathsz, "%s", p->path);
		snprintf(title, titlesz, "%s", p->title);
		return 1;
	}
	db_reset(q->docpath);
	db_bind_int64(q->docpath, 1, id);
	if (db_step(q->docpath) == DB_ROW && !db_col_null(q->docpath, 0)) {
		snprintf(path, pathsz, "%s", db_col_text(q->docpath, 0));
		snprintf(title, titlesz, "%s", db_col_text(q->docpath, 1));
		rc = 1;
	}
	db_reset(q->docpath);
	return rc;
}

int
store_query_opening(struct store_query *q, long long id, int chars, char **text,
    int *flagged)
{
	size_t	 i;

	if (q->route != NULL)
		return store_query_opening(q->route, id, chars, text, flagged);
	*text = NULL;
	*flagged = 0;
	for (i = 0; q->pf != NULL && chars <= q->pf_opening && i < q->pf->nrows; i++) {
		struct store_query_pre_row *p = &q->pf->rows[i];

		if (p->kind != 1 || p->id != id || !p->has_text)
			continue;
		if (p->null_text)
			return 0;
		*flagged = p->flagged;
		return (*text = strdup(p->text)) != NULL ? 1 : -1;
	}
	return store_query_text(q, id, text, flagged);
}

int
store_query_text(struct store_query *q, long long id, char **text, int *flagged)
{
	int	 rc = 0;

	if (q->route != NULL)
		return store_query_text(q->route, id, text, flagged);
	*text = NULL;
	*flagged = 0;
	if (store_query_stmt(q, &q->text, store_query_text_sql) == -1)
		return -1;
	db_reset(q->text);
	db_bind_int64(q->text, 1, id);
	if (db_step(q->text) == DB_ROW && !db_col_null(q->text, 0)) {
		*flagged = (int)db_col_int64(q->text, 1);
		rc = (*text = strdup(db_col_text(q->text, 0))) != NULL ? 1 : -1;
	}
	db_reset(q->text);
	return rc;
}

int
store_query_setting(struct store_query *q, const char *name, char *out, size_t outsz)
{
	int	 rc = 0;

	*out = '\0';
	if (q->db->listening) {
		/* the settings the connection keeps (settings.c) */
		char	*v = settings_stored(q->db, name);

		if (v == NULL)
			return 0;
		snprintf(out, outsz, "%s", v);
		free(v);
		return 1;
	}
	db_reset(q->setting);
	db_bind_text(q->setting, 1, name);
	if (db_step(q->setting) == DB_ROW) {
		snprintf(out, outsz, "%s", db_col_text(q->setting, 0));
		rc = 1;
	}
	db_reset(q->setting);
	return rc;
}

int
store_query_any_flagged(struct store_query *q, const char *library_id)
{
	int	 step;

	if (q->route != NULL)
		return store_query_any_flagged(q->route, library_id);
	/*
	 * Prefetched: every candidate's own flag is at hand (store_query_flagged), and a
	 * candidate the library shows is flagged only when the library shows a flagged
	 * snippet: "yes" leaves the answer to each candidate's flag.
	 */
	if (q->pf != NULL && strcmp(q->pf->library_id, library_id) == 0)
		return 1;
	if (store_query_stmt(q, &q->anyflag, store_query_anyflag_sql) == -1)
		return -1;
	db_reset(q->anyflag);
	db_bind_text(q->anyflag, 1, library_id);
	step = db_step(q->anyflag);
	if (step != DB_ROW && step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
	db_reset(q->anyflag);
	if (step != DB_ROW && step != DB_DONE)
		return -1;
	return step == DB_ROW;
}

int
store_query_flagged(struct store_query *q, long long id)
{
	struct store_query_pre_row *p;
	int	 step;

	if (q->route != NULL)
		return store_query_flagged(q->route, id);
	if (store_query_pre_placed(q, id))
		return (p = store_query_pre_find(q, id, 2)) != NULL && p->flagged;
	if (store_query_stmt(q, &q->isflag, store_query_isflag_sql) == -1)
		return -1;
	db_reset(q->isflag);
	db_bind_int64(q->isflag, 1, id);
	step = db_step(q->isflag);
	if (step != DB_ROW && step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
	db_reset(q->isflag);
	if (step != DB_ROW && step != DB_DONE)
		return -1;
	return step == DB_ROW;
}

/* Adds r to the kept list (growing it): 0, or -1 out of memory (the list dropped). */
static int
store_query_list_add(struct store_query *q, const struct store_query_libs_row *r)
{
	struct store_query_kept_row *k;
	struct store_query_libs_row *c;

	if (q->nlist % 64 == 0) {
		if ((k = reallocarray(q->list, q->nlist + 64, sizeof(*k))) == NULL)
			goto fail;
		q->list = k;
	}
	c = &q->list[q->nlist].r;
	*c = *r;
	c->id = strdup(r->id);
	c->title = strdup(r->title);
	c->description = strdup(r->description);
	c->branch = strdup(r->branch);
	c->updated_at = strdup(r->updated_at);
	c->state = strdup(r->state);
	c->host = strdup(r->host);
	c->versions = strdup(r->versions);
	c->type = strdup(r->type);
	q->nlist++;
	if (c->id == NULL || c->title == NULL || c->description == NULL ||
	    c->branch == NULL || c->updated_at == NULL || c->state == NULL ||
	    c->host == NULL || c->versions == NULL || c->type == NULL)
		goto fail;
	return 0;
fail:
	store_query_list_drop(q);
	return -1;
}

/* A row of the libraries' list statement (q->libs) into r; its texts live until the next step. */
static void
store_query_libs_row_read(struct db_stmt *st, struct store_query_libs_row *r)
{
	r->id = db_col_text(st, 0);
	r->title = db_col_text(st, 1);
	r->description = db_col_text(st, 2);
	r->branch = db_col_text(st, 3);
	r->updated_at = db_col_text(st, 4);
	r->state = db_col_text(st, 5);
	r->tokens = db_col_int64(st, 6);
	r->snippets = db_col_int64(st, 7);
	r->host = db_col_text(st, 8);
	r->versions = db_col_text(st, 9);
	r->type = db_col_text(st, 10);
}

/* Reads the list into q->list (a listening connection): 0, 1 too long to keep, -1. */
static int
store_query_list_fill(struct store_query *q)
{
	struct store_query_libs_row r;
	struct db_stmt	*st = q->libs;
	int		 step, rc = 0;

	store_query_list_drop(q);
	q->list_gen = db_cache_gen(q->db, DB_CACHE_LIBRARIES);
	db_reset(st);
	while ((step = db_step(st)) == DB_ROW) {
		if (q->nlist == STORE_QUERY_LIST_KEPT) {
			store_query_list_drop(q);
			q->list_long = 1;
			rc = 1;
			break;
		}
		store_query_libs_row_read(st, &r);
		if (store_query_list_add(q, &r) == -1) {
			rc = -1;
			break;
		}
	}
	if (rc == 0 && step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
		store_query_list_drop(q);
		rc = -1;
	}
	db_reset(st);
	/* an empty list is kept too */
	if (rc == 0 && q->list == NULL && (q->list = calloc(1, sizeof(*q->list))) == NULL)
		rc = -1;
	return rc;
}

int
store_query_libraries(struct store_query *q,
    int (*fn)(const struct store_query_libs_row *, void *), void *arg)
{
	struct store_query_libs_row r;
	struct db_stmt	*st = q->libs;
	size_t		 i;
	int		 step, rc = 0;

	if (q->db->listening) {
		if (!db_cache_valid(q->db, DB_CACHE_LIBRARIES, q->list_gen) ||
		    (q->list == NULL && !q->list_long))
			rc = store_query_list_fill(q);
		if (rc == -1)
			return -1;
		for (i = 0; q->list != NULL && i < q->nlist; i++)
			if (fn(&q->list[i].r, arg) == -1)
				return -1;
		if (q->list != NULL)
			return 0;
		rc = 0;		/* too long to keep: read it */
	}
	db_reset(st);
	/* every column is NOT NULL (the versions' list is "[]" for none) */
	while ((step = db_step(st)) == DB_ROW) {
		store_query_libs_row_read(st, &r);
		if ((rc = fn(&r, arg)) == -1)
			break;
	}
	if (rc == 0 && step != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(q->db));
		rc = -1;
	}
	db_reset(st);
	return rc;
}
