/* store/documents.h: the rows of the documents table that the sources read. */
#ifndef STORE_DOCUMENTS_H
#define STORE_DOCUMENTS_H

#include <stddef.h>

struct db;

/*
 * What the last run stored of library_id's document path: its content hash into hash
 * ("" when there is no such document or it does not fit hashsz), and its etag, modified
 * and url (malloc'd, NULL when not stored). 0, or -1 on a database error.
 */
int	 store_document_stored(struct db *, const char *library_id, const char *path,
	    char *hash, size_t hashsz, char **etag, char **modified, char **url);

#endif /* STORE_DOCUMENTS_H */
