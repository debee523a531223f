/*
 * fts-check: a test helper (not a test) for the shell tests (harness `fts_check`). Opens
 * DATA_DIR/ctxd.db as the service does (db_open: the "ctxd" tokenizer registered, which the
 * sqlite3 shell lacks) and runs FTS5's integrity check of snippets_fts with rank 1: the
 * full-text index must hold exactly the tokens of the rows it stores. Prints "ok", or the
 * error, and exits 0 or 1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/conn.h"

int
main(int argc, char *argv[])
{
	struct db	*db = NULL;
	int	 rc;

	if (argc != 2) {
		fprintf(stderr, "usage: fts-check DATA_DIR\n");
		return 2;
	}
	log_init("fts-check");
	if (db_open(argv[1], DB_READWRITE, &db) == -1)
		return 1;
	rc = sqlite3_exec(db_lite(db), "INSERT INTO snippets_fts (snippets_fts, rank) VALUES "
	    "('integrity-check', 1)", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		printf("ok\n");
	else
		printf("%s\n", sqlite3_errmsg(db_lite(db)));
	db_close(db);
	return rc == SQLITE_OK ? 0 : 1;
}
