/* store/documents.c: the rows of the documents table that the sources read. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/documents.h"
#include "store/stmt.h"

/* Column i's text malloc'd, or NULL when it is NULL; *nomem set when memory is short. */
static char *
store_document_dup(struct db_stmt *st, int i, int *nomem)
{
	char	*s;

	if (db_col_null(st, i))
		return NULL;
	if ((s = strdup(db_col_text(st, i))) == NULL)
		*nomem = 1;
	return s;
}

int
store_document_stored(struct db *db, const char *library_id, const char *path, char *hash,
    size_t hashsz, char **etag, char **modified, char **url)
{
	struct db_stmt	*st;
	const char	*h;
	int		 rc = -1, step, nomem = 0;

	*hash = '\0';
	*etag = *modified = *url = NULL;
	if (db_prepare(db, "SELECT blob, etag, modified, url FROM documents WHERE library_id = "
	    "?1 AND path = ?2", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, library_id);
	db_bind_text(st, 2, path);
	if ((step = db_step(st)) == DB_ROW) {
		h = db_col_text(st, 0);
		if (!db_col_null(st, 0) && strlen(h) < hashsz)
			memcpy(hash, h, strlen(h) + 1);
		*etag = store_document_dup(st, 1, &nomem);
		*modified = store_document_dup(st, 2, &nomem);
		*url = store_document_dup(st, 3, &nomem);
		rc = 0;
		if (nomem) {
			log_err("%s: out of memory", __func__);
			free(*etag);
			free(*modified);
			free(*url);
			*etag = *modified = *url = NULL;
			rc = -1;
		}
	} else if (step == DB_DONE)
		rc = 0;
	else
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}
