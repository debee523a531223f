/*
 * store/share.h: the rows behind the sharing of snippets between the versions of a
 * library (lib/index/share.h says the rules): copying a document's snippets, moving them
 * to another owner, and the documents that show another's. Every function runs inside the
 * caller's write transaction; 0, or -1 on a database error (logged).
 */
#ifndef STORE_SHARE_H
#define STORE_SHARE_H

#include <stddef.h>

struct db;

/* Pairs of document ids (2 a pair in v). */
struct store_doc_pairs {
	long long	*v;
	size_t		 n, cap;
};

/*
 * Copies the snippets of document from_doc into document to_doc of library library_id,
 * with their flags rows and embeddings rows (a duplicate's copy is not one: no dup_of).
 */
int	 store_share_copy(struct db *, const char *library_id, long long to_doc,
	    long long from_doc);
/* Document doc shows no other's snippets any more (it owns its copy). */
int	 store_share_own(struct db *, long long doc);
/*
 * The owner documents of library_id that other documents show (all of them when
 * keep_json is NULL, else those whose path is not in the JSON array keep_json), each with
 * the first document that shows it, into p (replacing its pairs).
 */
int	 store_share_heirs(struct db *, const char *library_id, const char *keep_json,
	    struct store_doc_pairs *p);
/*
 * Moves the snippets of owner document owner (and their flags rows) to
 * document heir, which showed them; the other documents showing owner show heir.
 */
int	 store_share_move(struct db *, long long owner, long long heir);
/*
 * A document that shows the snippets of doc: 1 with its id and library (*library_id
 * malloc'd), 0 when none does, -1 on a database or memory error.
 */
int	 store_share_viewer(struct db *, long long doc, long long *id,
	    char **library_id);
/*
 * The documents of library_id that show a duplicate whose kept copy the library does not
 * show, each with the document it shows, into p (replacing its pairs).
 */
int	 store_share_lost(struct db *, const char *library_id, struct store_doc_pairs *p);
/*
 * Others reload what changed under them: the libraries showing snippets of library_id
 * get a new index_version and token count (vectors 0), or the other libraries of its
 * family a new embed_version (vectors 1).
 */
int	 store_share_touch(struct db *, const char *library_id, int vectors);

#endif /* STORE_SHARE_H */
