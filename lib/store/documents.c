/* store/documents.c: the rows of the documents table that the sources read. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/documents.h"
#include "store/conn.h"

int
store_document_stored(struct db *db, const char *library_id, const char *path, char *hash,
    size_t hashsz, char **etag, char **modified, char **url)
{
	sqlite3_stmt	*st;
	const char	*h;
	int		 rc = -1, step;

	*hash = '\0';
	*etag = *modified = *url = NULL;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT blob, etag, modified, url FROM documents "
	    "WHERE library_id = ?1 AND path = ?2", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(st)) == SQLITE_ROW) {
		h = (const char *)sqlite3_column_text(st, 0);
		if (h != NULL && strlen(h) < hashsz)
			memcpy(hash, h, strlen(h) + 1);
		*etag = db_column_dup(st, 1, NULL);
		*modified = db_column_dup(st, 2, NULL);
		*url = db_column_dup(st, 3, NULL);
		rc = 0;
	} else if (step == SQLITE_DONE)
		rc = 0;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}
