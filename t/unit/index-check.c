/*
 * index-check: a test helper (not a test) for the shell tests (harness `index_check`).
 * Opens the store as the service does (DATA_DIR/ctxd.db, or DATABASE_URL's PostgreSQL
 * database) and, for each library whose current index
 * version has a segment (DATA_DIR/segments/<lib_no>-<index_version>.seg), writes that
 * segment again from the database rows into a temporary folder (segwrite_library: the
 * worker's own path) and compares the two byte for byte: the lexical index a query process
 * maps must hold exactly the tokens of the rows it stands for. Prints "ok", or what differs,
 * and exits 0 or 1.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "index/segwrite.h"
#include "store/db.h"
#include "store/conn.h"
#include "store/stmt.h"

/* 0 when files a and b hold the same bytes, 1 when not, -1 when one cannot be read. */
static int
same_file(const char *a, const char *b)
{
	FILE	*fa, *fb;
	int	 ca, cb, rc = 0;

	if ((fa = fopen(a, "rb")) == NULL)
		return -1;
	if ((fb = fopen(b, "rb")) == NULL) {
		fclose(fa);
		return -1;
	}
	do {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			rc = 1;
	} while (rc == 0 && ca != EOF);
	fclose(fa);
	fclose(fb);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct db	*db = NULL;
	struct db_stmt	*st = NULL;
	struct stat	 sb;
	char		 tmp[] = "/tmp/index-check.XXXXXX", seg[2048], again[2048],
			 path[2048];
	long long	 ms;
	int		 rc = 0, w, checked = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: index-check DATA_DIR\n");
		return 2;
	}
	log_init("index-check");
	if (mkdtemp(tmp) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	if (db_open(argv[1], DB_READWRITE, &db) == -1)
		return 1;
	if (db_prepare(db, "SELECT id, lib_no, index_version FROM libraries WHERE "
	    "indexed_commit IS NOT NULL ORDER BY id", &st) == -1) {
		printf("%s\n", db_errmsg(db));
		db_close(db);
		return 1;
	}
	while (rc == 0 && db_step(st) == DB_ROW) {
		const char *id = db_col_text(st, 0);

		snprintf(seg, sizeof(seg), "%s/segments/%lld-%lld.seg", argv[1],
		    db_col_int64(st, 1), db_col_int64(st, 2));
		if (stat(seg, &sb) == -1)
			continue;	/* not written (yet): queries build from the rows */
		if ((w = segwrite_library(db, tmp, id, &ms, again, sizeof(again))) == 1)
			continue;	/* not ready to answer */
		if (w == -1) {
			printf("%s: its segment could not be written again\n", id);
			rc = 1;
		} else if ((w = same_file(seg, again)) != 0) {
			printf("%s: %s %s the one written from the database rows\n", id, seg,
			    w == 1 ? "differs from" : "cannot be compared with");
			rc = 1;
		}
		unlink(again);
		checked++;
	}
	db_finalize(st);
	db_close(db);
	snprintf(path, sizeof(path), "%s/segments", tmp);
	rmdir(path);
	rmdir(tmp);
	if (rc == 0)
		printf("ok\n");
	fprintf(stderr, "index-check: %d segments compared\n", checked);
	return rc;
}
