/*
 * store/snippets.h: the documents and snippets rows an index run reads and writes
 * (lib/index/index.c): what is stored of a path, a document of another version to show,
 * the delete of a library's old documents and the writes of the new ones with their
 * snippets.
 *
 * The reader and the writer are caller-owned sets of prepared statements, made once per
 * run and used for every file (prepared statements: the run writes thousands of rows).
 * Each function returns 0, or -1 on a database error (logged), unless it says otherwise.
 */
#ifndef STORE_SNIPPETS_H
#define STORE_SNIPPETS_H

#include <stddef.h>

struct db;
struct store_reader;
struct store_writer;

/* The statements that read what is stored of the files of a run; NULL on an error. */
struct store_reader *store_reader_open(struct db *);
void	 store_reader_close(struct store_reader *);
/*
 * The content hash stored for document path of library_id into hash: 1, or 0 ("") when
 * there is none or it does not fit hashsz, or -1.
 */
int	 store_reader_blob(struct store_reader *, const char *library_id, const char *path,
	    char *hash, size_t hashsz);
/*
 * A document of another library of family (the library whose versions share files, or
 * one of its versions), indexed and not being deleted, with path and content hash,
 * preferably one whose snippets hold no duplicate: its id, 0 when none (or on an error).
 */
long long store_reader_reusable(struct store_reader *, const char *library_id,
	    const char *path, const char *hash, const char *family);

/*
 * Inside the caller's transaction: deletes the documents of library_id (and their
 * snippets): all of them when keep_json is NULL, else those whose
 * path is not in the JSON array of paths keep_json.
 */
int	 store_documents_delete(struct db *, const char *library_id,
	    const char *keep_json);
/*
 * A new document path of library_id that shows the snippets of document from (a file of
 * another version with the same path and content: the snippets from shows).
 */
int	 store_document_show(struct db *, const char *library_id, long long from);
/*
 * The HTTP validators of document path that the server sent last: each of etag and
 * modified that is not NULL replaces the stored one.
 */
int	 store_document_validators(struct db *, const char *library_id,
	    const char *path, const char *etag, const char *modified);

/* The statements that write the documents and snippets of library_id. */
struct store_writer *store_writer_open(struct db *, const char *library_id);
void	 store_writer_close(struct store_writer *);

/* A new document of the writer's library: its id into *id. */
struct store_document_values {
	const char	*path, *hash, *title, *url, *etag, *modified;
};
int	 store_writer_document(struct store_writer *, const struct store_document_values *,
	    long long *id);

/*
 * A new snippet: its id into *id. id may be NULL when the caller does not need the id:
 * on PostgreSQL the row then waits in the writer's batch (a bounded number of rows and
 * bytes) and is written with the batch, by a later call that asks for an id, by the call
 * that fills the batch, or by store_writer_flush; a failure of the batch's statement
 * returns -1 from that call, and none of the batch's rows is written. On SQLite every row
 * is written at once.
 */
struct store_snippet_values {
	long long	 document_id, ord;
	const char	*title, *breadcrumb, *anchor, *text;
	const char	*code;		/* the code JSON */
	const char	*path;		/* its document's (for the log) */
	int		 tokens;
	const char	*hash;		/* the dedup signature (lib/index/dedup.h) */
	int		 has_sig;
	long long	 sig;
};
int	 store_writer_snippet(struct store_writer *, const struct store_snippet_values *,
	    long long *id);
/*
 * Writes the snippets waiting in the writer's batch (PostgreSQL; nothing on SQLite): to
 * be called before anything reads them and before the commit. store_writer_close forgets
 * those not written.
 */
int	 store_writer_flush(struct store_writer *);

/*
 * After a run's commit (PostgreSQL; nothing on SQLite): brings the planner's statistics of
 * the tables a run writes up to date when they lag as far as autovacuum waits for (never
 * taken, or more rows changed since than 50 plus a tenth of the table), rather than
 * leaving the first questions on a new index to plans made for an empty table. ANALYZE
 * reads a sample of bounded size whatever the table's. Outside a transaction. Returns
 * how many tables it analysed, or -1 (logged).
 */
int	 store_analyze(struct db *);

#endif /* STORE_SNIPPETS_H */
