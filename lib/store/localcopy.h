/*
 * store/localcopy.h: a library's local copy, for a query node on PostgreSQL (docs/DESIGN.md,
 * "One round trip a question"): the rows its answers read (the documents and snippets the
 * library shows, their flags, its blob prefix and commit) copied out of the database into a
 * SQLite file in the node's own DATA_DIR, DATA_DIR/copies/<lib_no>-<index_version>.db,
 * beside the segment of the same version. A question answered from it reads no row from
 * PostgreSQL: the statements of store/query.h run on the copy as they run on an embedded
 * SQLite store (store_query_open_copy), so the answer is the one SQLite gives.
 *
 * Why a version's copy never goes stale: everything it holds changes only in the
 * transaction that gives the library a new index_version (an index run writes the
 * snippets, documents, flags, commit and blob prefix and ends with store_library_indexed
 * or a store_library_bump; a version that shows another's documents is bumped with it,
 * store_share_touch), as the segment's places and flags already assume; the next
 * question asks for the copy of the new version, which is built afresh.
 *
 * Cost: four statements a page of 256 of the library's documents, read in one REPEATABLE
 * READ transaction (curl's 6,385 snippets in 71 ms); about the text's size on disk, 0.66 KB
 * a snippet (a copy is a cache: a node removes it when its folder is over budget, and
 * builds it again when asked). A copy is opened immutable: no file lock, no look for a
 * journal at each statement.
 */
#ifndef STORE_LOCALCOPY_H
#define STORE_LOCALCOPY_H

#include <stddef.h>

struct db;

/*
 * Writes library_id's copy as of lib_no and index_version into path, through a temporary
 * file ".<name>.<pid>.tmp" beside it renamed over it (a reader sees no file or a whole
 * one). 0 written; 1 not, and nothing is wrong (the library is at another version now, or
 * shows more than max_snippets snippets; logged at info); -1 failed (logged).
 */
int	 localcopy_build(struct db *db, const char *library_id, long long lib_no,
	    long long index_version, long long max_snippets, const char *path);

/*
 * The copy at path opened read only, when it is library_id's at lib_no and
 * index_version: a SQLite connection (close with db_close), or NULL: errno ENOENT when
 * there is no file, else it is not that copy or not readable (why says which).
 */
struct db *localcopy_open(const char *path, const char *library_id, long long lib_no,
	    long long index_version, char *why, size_t whysz);

/* A library a copy may be made of (localcopy_libraries). */
struct localcopy_lib {
	const char	*id;
	long long	 lib_no, index_version, snippets;
};
/*
 * Calls fn with each library that has an index and is not being deleted, in order of
 * lib_no (one statement): what a node's copier compares with the copies it holds. 0, or -1
 * (logged).
 */
int	 localcopy_libraries(struct db *db, void (*fn)(const struct localcopy_lib *, void *),
	    void *arg);

#endif
