/*
 * share.h: the versions of a library share the snippets of unchanged files
 * (sql/0012-shared-documents.sql).
 *
 * A document either owns its snippets (documents.snippets_from
 * NULL) or shows those of an owner document of another library of its family
 * (snippets_from names the owner, never a document that shows another's). A library shows
 * the snippets of its documents, its own and shared (the view library_snippets). Every
 * function here runs inside the caller's write transaction.
 *
 * Rules that keep one library's decisions from changing another's answers:
 * - a shared snippet keeps the rows of its owner: its full-text row carries the owner
 *   library's tag "l<lib_no>", its flags rows the owner library's id;
 * - a shared snippet is a duplicate or not as its owner's dedup pass decided (lib/index/dedup.h);
 *   a library shows a duplicate only while it shows its kept copy too: before each pass
 *   the documents that would hide the only copy are copied for it (share_validate);
 * - an owner's pass that changes the decision of a snippet other libraries show copies
 *   its document for them first (share_unshare); they then decide their duplicates again;
 * - before an owner document is deleted its snippets move to a document showing them
 *   (share_disown), which the others then show.
 */
#ifndef SHARE_H
#define SHARE_H

#include <stddef.h>

struct db;

/* Libraries whose snippets changed under them (share_unshare): ids, each once. */
struct share_libs {
	char	**ids;
	size_t	  n, cap;
};

void	 share_libs_init(struct share_libs *);
void	 share_libs_release(struct share_libs *);
/* Removes and returns the last id (the caller frees it), NULL when none is left. */
char	*share_libs_pop(struct share_libs *);

/*
 * Copies the snippets of document from_doc into document to_doc of library library_id,
 * with their full-text rows (tagged with that library's lib_no), flags rows and
 * embeddings rows (an embeddings row names a shared vector, which is not copied). A
 * duplicate there is copied as a kept snippet with a full-text row made again; the
 * library's dedup pass decides anew. 0, or -1 on a database error.
 */
int	 share_copy(struct db *, const char *library_id, long long to_doc,
	    long long from_doc);
/*
 * Before documents of library_id are deleted (all of them when keep_json is NULL, else
 * those whose path is not in the JSON array of paths keep_json): each that other
 * documents show gives its snippets (with their full-text, flags and embeddings rows) to
 * the first of them, which the others show from then on. 0, or -1 on a database error.
 */
int	 share_disown(struct db *, const char *library_id, const char *keep_json);
/*
 * Copies the snippets of owner document doc into each document that shows them, which
 * then owns its copy, and adds those documents' libraries to *changed (their dedup pass
 * must run again). Called before a pass changes the decision of one of doc's snippets. 0,
 * or -1 on a database or memory error.
 */
int	 share_unshare(struct db *, long long doc, struct share_libs *changed);/*
 * Before a dedup pass of library_id: each of its documents that shows a duplicate whose
 * kept copy the library does not show (the only copy there) gets a copy of the snippets
 * it showed (share_copy), which the pass then decides as the library's own. 0, or -1 on
 * a database or memory error.
 */
int	 share_validate(struct db *, const char *library_id);

/*
 * After the snippets library_id owns changed in place (LLM titles, lib/index/describe.h): the
 * other libraries that show some of them get a new index_version and token count (what ==
 * SHARE_TOUCH_INDEX). After the snippets it shows got vectors (lib/index/embedder.h): the other
 * libraries of its family get a new embed_version (SHARE_TOUCH_VECTORS). Query processes
 * then reload them. 0, or -1 on a database error.
 */
enum share_touch { SHARE_TOUCH_INDEX, SHARE_TOUCH_VECTORS };
int	 share_touch(struct db *, const char *library_id, enum share_touch what);

#endif
