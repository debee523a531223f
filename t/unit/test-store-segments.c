/*
 * test-store-segments.c: the index segments stored in the database (lib/store/segstore.c)
 * on either engine. PostgreSQL stores them: a multi-chunk file (2.5 MiB of random bytes) put
 * and fetched byte for byte, a re-put replacing it (the fetched file renamed over the old
 * one), older versions deleted and a newer one kept, the size limit, a tampered, missing or
 * extra chunk and a wrong size refused at fetch with nothing left behind, the library's
 * delete, and two connections (a put waits for another put of the same library; a fetch
 * is not held up by an uncommitted put). SQLite stores nothing: every call answers "not
 * stored" and the tables stay empty. The answers that do not depend on what is stored
 * (names, missing rows, empty tables) go to a trace that must be the same for both engines.
 * PostgreSQL's half runs when DATABASE_URL names a server (t/t0023-pg-store-segments.sh
 * starts one).
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/crypto.h"
#include "base/util.h"
#include "store/pg.h"
#include "store/pgstore.h"
#include "store/segstore.h"
#include "store/stmt.h"
#include "db-helpers.h"
#include "tap.h"
#include "store-trace.h"

#define SCHEMA	"storesegs"
#define BIG	(5 * SEGSTORE_CHUNK / 2)	/* 2.5 MiB: three chunks, the last a half */

/* A statement's one integer answer (-1 on error). */
static long long
one(struct db *db, const char *sql)
{
	struct db_stmt	*st;
	long long	 v = -1;

	if (db_prepare(db, sql, &st) == -1) {
		printf("# %s: %s\n", sql, db_conn_errmsg(db));
		return -1;
	}
	if (db_step(st) == DB_ROW)
		v = db_col_int64(st, 0);
	db_finalize(st);
	return v;
}

static int
run(struct db *db, const char *sql)
{
	int	 rc = db_stmt_run(db, sql, "");

	if (rc == -1)
		printf("# %s: %s\n", sql, db_conn_errmsg(db));
	return rc;
}

/* Writes len bytes of p to dir/name. */
static int
put_file(const char *dir, const char *name, const void *p, size_t len)
{
	char	 path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return util_write_file(path, p, len, 0640);
}

/* 1 when dir/name holds exactly p[0..len). */
static int
same_file(const char *dir, const char *name, const void *p, size_t len)
{
	char	 path[1024], *got = NULL;
	size_t	 glen = 0;
	int	 same;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (util_read_file(path, len + 16, &got, &glen) == -1)
		return 0;
	same = glen == len && memcmp(got, p, len) == 0;
	free(got);
	return same;
}

/* Removes dir/name. */
static void
rm_file(const char *dir, const char *name)
{
	char	 path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* The inode of dir/name, 0 when there is none. */
static ino_t
inode(const char *dir, const char *name)
{
	char		 path[1024];
	struct stat	 st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* Files in dir whose name ends in .tmp. */
static int
tmp_files(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += util_str_endswith(de->d_name, ".tmp");
	closedir(d);
	return n;
}

/* Removes dir and the files in it. */
static void
remove_dir(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[1024];

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' || util_str_endswith(de->d_name, ".tmp")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

/* segstore_each's calls, as "name:size:index_version " each; -1 once stop_after are seen. */
struct each_seen {
	char	 names[256];
	int	 calls, stop_after;
};

static int
each_one(const char *name, const struct segstore_info *info, void *arg)
{
	struct each_seen *e = arg;
	size_t	 len = strlen(e->names);

	snprintf(e->names + len, sizeof(e->names) - len, "%s:%lld:%lld ", name, info->size,
	    info->index_version);
	e->calls++;
	return e->stop_after > 0 && e->calls >= e->stop_after ? -1 : 0;
}

/* What does not depend on what is stored: the same answers on both engines. */
static void
common(struct db *db, const char *dst, const char *e)
{
	struct segstore_info info;
	long long	 a = -1, b = -1, n = -1;

	ok(segstore_name_valid("7-3.seg", &a, &b) && a == 7 && b == 3,
	    "%s: 7-3.seg names library 7, index version 3", e);
	ok(segstore_name_valid("0-12.seg", NULL, NULL), "%s: 0-12.seg is a name", e);
	ok(!segstore_name_valid("../7-3.seg", NULL, NULL) &&
	    !segstore_name_valid("7-3.seg.tmp", NULL, NULL) &&
	    !segstore_name_valid("07-3.seg", NULL, NULL) &&
	    !segstore_name_valid("-7-3.seg", NULL, NULL) &&
	    !segstore_name_valid("7-.seg", NULL, NULL) &&
	    !segstore_name_valid("7-3", NULL, NULL) &&
	    !segstore_name_valid("99999999999999999999-3.seg", NULL, NULL),
	    "%s: a path, a temporary file, a leading zero, a sign, no number, no .seg, a "
	    "number too large: not names", e);
	tr("names ok");
	eq_int(one(db, "SELECT count(*) FROM segment_files"), 0, "%s: segment_files is empty", e);
	eq_int(one(db, "SELECT count(*) FROM segment_chunks"), 0, "%s: segment_chunks is empty", e);
	tr("tables %lld %lld", one(db, "SELECT count(*) FROM segment_files"),
	    one(db, "SELECT count(*) FROM segment_chunks"));
	eq_int(segstore_describe(db, "9-1.seg", &info), 1, "%s: describe: not stored", e);
	tr("describe missing %d size %lld", segstore_describe(db, "9-1.seg", &info), info.size);
	eq_int(segstore_fetch(db, dst, "9-1.seg", 0, &info), 1, "%s: fetch: not stored", e);
	eq_int(inode(dst, "9-1.seg"), 0, "%s: ... and no file made", e);
	tr("fetch missing %d", segstore_fetch(db, dst, "9-1.seg", 0, NULL));
	eq_int(segstore_delete_library(db, 9, &n), 0, "%s: delete a library with none stored", e);
	eq_int(n, 0, "%s: ... none deleted", e);
	tr("delete none %lld", n);
	eq_int(segstore_fetch(db, dst, "../9-1.seg", 0, NULL), segstore_enabled(db) ? -1 : 1,
	    "%s: fetch of a path: refused (PostgreSQL) or not stored (SQLite)", e);
	{
		struct each_seen seen = { "", 0, 0 };

		eq_int(segstore_each(db, each_one, &seen), 0, "%s: each: nothing stored", e);
		eq_int(seen.calls, 0, "%s: ... no call", e);
		tr("each none %d", seen.calls);
	}
}

/* SQLite: no call stores anything. */
static void
suite_sqlite(struct db *db, const char *src, const char *dst, const unsigned char *big)
{
	struct segstore_info info;

	cur = trace[0];
	eq_int(segstore_enabled(db), 0, "sqlite: segments are not stored");
	common(db, dst, "sqlite");
	ok(run(db, "INSERT INTO libraries (id, lib_no, url, host, title, created_at, "
	    "updated_at) VALUES ('/a/seven', 7, 'u', 'h', 't', 'c', 'c')") == 0,
	    "sqlite: library 7");
	ok(put_file(src, "7-3.seg", big, BIG) == 0, "sqlite: a segment file");
	eq_int(segstore_put(db, src, "7-3.seg", 5, "m1"), 1, "sqlite: put: not stored");
	eq_int(one(db, "SELECT count(*) FROM segment_files") +
	    one(db, "SELECT count(*) FROM segment_chunks"), 0, "sqlite: ... the tables stay empty");
	eq_int(segstore_describe(db, "7-3.seg", &info), 1, "sqlite: describe: not stored");
	eq_int(segstore_fetch(db, dst, "7-3.seg", 0, &info), 1, "sqlite: fetch: not stored");
	eq_int(inode(dst, "7-3.seg"), 0, "sqlite: ... no file made");
	ok(same_file(src, "7-3.seg", big, BIG), "sqlite: the segment file is left as it was");
}

/* A put of another connection: waits for the lock of a put of the same library. */
static void
two_connections(struct db *db, const char *src, const char *dst, const unsigned char *big)
{
	struct pg	*pg2;
	struct db	*b;
	struct segstore_info info;
	char		 err[256];

	if ((pg2 = pg_connect(dbh_pg_url(), err, sizeof(err))) == NULL ||
	    pg_exec(pg2, "SET search_path = " SCHEMA) == -1 || (b = db_conn_pg(pg2)) == NULL) {
		ok(0, "postgres: a second connection: %s", err);
		if (pg2 != NULL)
			pg_close(pg2);
		return;
	}
	ok(1, "postgres: a second connection");
	/* b holds the lock of library 7's puts, as a put in progress does */
	ok(run(b, "BEGIN") == 0 && one(b, "SELECT count(*) FROM (SELECT "
	    "pg_advisory_xact_lock(1936025447, 7)) l") == 1,
	    "postgres: the other connection takes library 7's put lock");
	ok(run(db, "SET lock_timeout = '300ms'") == 0, "postgres: a short lock timeout");
	ok(put_file(src, "7-6.seg", big + 7, 1000) == 0, "postgres: 7-6.seg");
	eq_int(segstore_put(db, src, "7-6.seg", 0, ""), -1,
	    "postgres: a put of library 7 meanwhile waits for it (and gives up at the timeout)");
	eq_int(segstore_describe(db, "7-6.seg", &info), 1, "postgres: ... storing nothing");
	eq_int(segstore_describe(db, "7-5.seg", &info), 0,
	    "postgres: ... the stored version left as it was");
	/* a put of library 8 is not held by library 7's */
	ok(put_file(src, "8-2.seg", big, 3000) == 0, "postgres: 8-2.seg");
	eq_int(segstore_put(db, src, "8-2.seg", 0, ""), 0,
	    "postgres: a put of another library goes through");
	/* an uncommitted replacement does not hold a fetch up, nor show in it */
	ok(run(b, "DELETE FROM segment_files WHERE name = '7-5.seg'") == 0,
	    "postgres: the other connection deletes 7-5.seg, uncommitted");
	rm_file(dst, "7-5.seg");
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, &info), 0,
	    "postgres: a fetch meanwhile gets the committed segment");
	run(b, "ROLLBACK");
	ok(run(db, "SET lock_timeout = 0") == 0, "postgres: the lock timeout reset");
	eq_int(segstore_put(db, src, "7-6.seg", 0, ""), 0,
	    "postgres: once the lock is released the put goes through");
	eq_int(segstore_describe(db, "7-5.seg", &info), 1, "postgres: ... replacing 7-5.seg");
	db_close(b);
}

/* PostgreSQL: the segments stored. */
static void
suite_pg(struct db *db, const char *src, const char *dst, const unsigned char *big,
    const unsigned char *big2)
{
	struct segstore_info info;
	char		 sha[65];
	ino_t		 ino;
	long long	 n;

	cur = trace[1];
	eq_int(segstore_enabled(db), 1, "postgres: segments are stored");
	common(db, dst, "postgres");
	ok(run(db, "INSERT INTO libraries (id, lib_no, url, host, title, created_at, "
	    "updated_at) VALUES ('/a/seven', 7, 'u', 'h', 't', 'c', 'c'), ('/a/eight', 8, "
	    "'u', 'h', 't', 'c', 'c')") == 0, "postgres: libraries 7 and 8");

	/* a round trip of three chunks */
	ok(put_file(src, "7-3.seg", big, BIG) == 0, "postgres: 7-3.seg, 2.5 MiB");
	eq_int(segstore_put(db, src, "7-3.seg", 5, "m1"), 0, "postgres: put");
	eq_int(one(db, "SELECT count(*) FROM segment_chunks WHERE name = '7-3.seg'"), 3,
	    "postgres: ... as three chunks");
	eq_int(one(db, "SELECT max(length(data)) FROM segment_chunks"), SEGSTORE_CHUNK,
	    "postgres: ... of 1 MiB at most");
	crypto_sha256_hex(big, BIG, sha);
	eq_int(segstore_describe(db, "7-3.seg", &info), 0, "postgres: describe");
	ok(info.size == BIG && strcmp(info.sha256, sha) == 0 && info.embed_version == 5 &&
	    strcmp(info.vec_model, "m1") == 0 && info.lib_no == 7 && info.index_version == 3 &&
	    strlen(info.stored_at) == 20, "postgres: ... size, SHA-256, embed version, model, "
	    "library, version, time (%lld %s %lld %s %s)", info.size, info.sha256,
	    info.embed_version, info.vec_model, info.stored_at);
	eq_int(segstore_fetch(db, dst, "7-3.seg", 0, &info), 0, "postgres: fetch");
	ok(same_file(dst, "7-3.seg", big, BIG), "postgres: ... byte for byte");
	eq_int(info.size, BIG, "postgres: ... its row given");
	eq_int(tmp_files(dst), 0, "postgres: ... no temporary file left");

	/* the size limit */
	ino = inode(dst, "7-3.seg");
	errno = 0;
	eq_int(segstore_fetch(db, dst, "7-3.seg", BIG - 1, NULL), -1,
	    "postgres: a fetch over its size limit is refused");
	eq_int(errno, EFBIG, "postgres: ... EFBIG");
	ok(inode(dst, "7-3.seg") == ino && tmp_files(dst) == 0,
	    "postgres: ... the node's copy left as it was, no temporary file");

	/* re-put: new vectors for the same content version */
	ok(put_file(src, "7-3.seg", big2, BIG - 100) == 0, "postgres: 7-3.seg rewritten");
	eq_int(segstore_put(db, src, "7-3.seg", 6, "m1"), 0, "postgres: put again");
	eq_int(segstore_describe(db, "7-3.seg", &info), 0, "postgres: describe");
	crypto_sha256_hex(big2, BIG - 100, sha);
	ok(info.size == BIG - 100 && strcmp(info.sha256, sha) == 0 && info.embed_version == 6,
	    "postgres: ... the new row replaced the old");
	eq_int(one(db, "SELECT count(*) FROM segment_chunks WHERE name = '7-3.seg'"), 3,
	    "postgres: ... its chunks the old ones");
	eq_int(segstore_fetch(db, dst, "7-3.seg", 0, NULL), 0, "postgres: fetch again");
	ok(same_file(dst, "7-3.seg", big2, BIG - 100), "postgres: ... the new bytes");
	ok(inode(dst, "7-3.seg") != ino, "postgres: ... in a new file renamed over the name");

	/* a new version deletes the older; an older one does not replace a newer */
	ok(put_file(src, "7-5.seg", big, BIG) == 0, "postgres: 7-5.seg");
	eq_int(segstore_put(db, src, "7-5.seg", 0, ""), 0, "postgres: put of version 5");
	eq_int(segstore_describe(db, "7-3.seg", &info), 1, "postgres: ... version 3 deleted");
	eq_int(one(db, "SELECT count(*) FROM segment_chunks WHERE name = '7-3.seg'"), 0,
	    "postgres: ... with its chunks");
	eq_int(segstore_put(db, src, "7-3.seg", 6, "m1"), 1,
	    "postgres: a put of the older version 3 is not stored");
	eq_int(segstore_describe(db, "7-3.seg", &info), 1, "postgres: ... version 3 absent");
	eq_int(segstore_describe(db, "7-5.seg", &info), 0, "postgres: ... version 5 kept");
	eq_int(info.embed_version, 0, "postgres: ... without vectors");
	errno = 0;
	eq_int(segstore_put(db, src, "7-4.seg", 0, ""), -1,
	    "postgres: a put of a file that is not there fails");
	eq_int(segstore_put(db, src, "../7-5.seg", 0, ""), -1,
	    "postgres: a put of a path is refused");

	/* damaged rows: refused at fetch, the node's copy untouched */
	rm_file(dst, "7-5.seg");
	ok(run(db, "UPDATE segment_chunks SET data = set_byte(data, 10, (get_byte(data, 10) "
	    "+ 1) % 256) WHERE name = '7-5.seg' AND seq = 1") == 0,
	    "postgres: a byte of 7-5.seg's second chunk changed");
	errno = 0;
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), -1, "postgres: fetch refuses it");
	eq_int(errno, EBADMSG, "postgres: ... EBADMSG (its SHA-256)");
	ok(inode(dst, "7-5.seg") == 0 && tmp_files(dst) == 0,
	    "postgres: ... no file, no temporary file");
	ok(run(db, "UPDATE segment_chunks SET data = set_byte(data, 10, (get_byte(data, 10) "
	    "+ 255) % 256) WHERE name = '7-5.seg' AND seq = 1") == 0, "postgres: ... put back");
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), 0, "postgres: then it is fetched");
	ok(same_file(dst, "7-5.seg", big, BIG), "postgres: ... byte for byte");
	ino = inode(dst, "7-5.seg");
	ok(run(db, "UPDATE segment_chunks SET data = substr(data, 1, 1000) WHERE "
	    "name = '7-5.seg' AND seq = 2") == 0, "postgres: its last chunk cut short");
	errno = 0;
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), -1, "postgres: fetch refuses it");
	eq_int(errno, EBADMSG, "postgres: ... EBADMSG (a chunk's size)");
	ok(inode(dst, "7-5.seg") == ino && same_file(dst, "7-5.seg", big, BIG) &&
	    tmp_files(dst) == 0, "postgres: ... the node's copy left as it was");
	ok(run(db, "DELETE FROM segment_chunks WHERE name = '7-5.seg' AND seq = 2") == 0,
	    "postgres: its last chunk deleted");
	errno = 0;
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), -1, "postgres: fetch refuses it");
	eq_int(errno, EBADMSG, "postgres: ... EBADMSG (a chunk missing)");
	ok(run(db, "INSERT INTO segment_chunks (name, seq, data) VALUES ('7-5.seg', 2, "
	    "'\\x00'), ('7-5.seg', 3, '\\x00')") == 0, "postgres: two chunks instead");
	errno = 0;
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), -1, "postgres: fetch refuses it");
	eq_int(errno, EBADMSG, "postgres: ... EBADMSG (a chunk too many)");
	ok(run(db, "UPDATE segment_files SET size = 1099511627776 WHERE name = '7-5.seg'") == 0,
	    "postgres: its row says 1 TiB");
	errno = 0;
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), -1, "postgres: fetch refuses it");
	eq_int(errno, EFBIG, "postgres: ... EFBIG");
	ok(inode(dst, "7-5.seg") == ino && tmp_files(dst) == 0,
	    "postgres: ... the node's copy left as it was, no temporary file");
	/* put again repairs it */
	eq_int(segstore_put(db, src, "7-5.seg", 0, ""), 0, "postgres: put again repairs it");
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), 0, "postgres: ... fetched");
	/* inside the caller's read transaction (a question's): fetched in its snapshot */
	rm_file(dst, "7-5.seg");
	ok(db_begin_read(db) == 0, "postgres: a read transaction");
	eq_int(segstore_fetch(db, dst, "7-5.seg", 0, NULL), 0, "postgres: fetch inside it");
	ok(db_in_transaction(db) && same_file(dst, "7-5.seg", big, BIG),
	    "postgres: ... byte for byte, the transaction still the caller's");
	ok(db_commit(db) == 0, "postgres: ... which ends it");
	eq_int(segstore_put(db, src, "7-5.seg", 0, ""), 0, "postgres: a put outside one");
	ok(!db_in_transaction(db), "postgres: ... ends its own");
	ok(db_begin(db) == 0, "postgres: a write transaction");
	eq_int(segstore_put(db, src, "7-5.seg", 0, ""), -1,
	    "postgres: a put inside a caller's transaction is refused");
	db_rollback(db);

	two_connections(db, src, dst, big);

	/* every stored segment, in name order; a callback's -1 stops */
	{
		struct each_seen seen = { "", 0, 0 }, once = { "", 0, 1 };

		eq_int(segstore_each(db, each_one, &seen), 0, "postgres: each");
		is_str(seen.names, "7-6.seg:1000:6 8-2.seg:3000:2 ",
		    "postgres: ... the two stored, in name order, with their rows");
		eq_int(segstore_each(db, each_one, &once), -1,
		    "postgres: a callback's -1 stops each with -1");
		eq_int(once.calls, 1, "postgres: ... after that call");
	}

	/* the library's segments go with it */
	ok(put_file(src, "99-1.seg", big, 10) == 0, "postgres: 99-1.seg");
	eq_int(segstore_put(db, src, "99-1.seg", 0, ""), -1,
	    "postgres: a put for a library that is not there fails (a foreign key)");
	eq_int(one(db, "SELECT count(*) FROM segment_files WHERE lib_no = 99") +
	    one(db, "SELECT count(*) FROM segment_chunks WHERE name = '99-1.seg'"), 0,
	    "postgres: ... leaving no row");
	ok(segstore_delete_library(db, 7, &n) == 0 && n == 1,
	    "postgres: delete library 7's segments: one");
	eq_int(one(db, "SELECT count(*) FROM segment_chunks WHERE name LIKE '7-%'"), 0,
	    "postgres: ... with their chunks");
	eq_int(segstore_describe(db, "8-2.seg", &info), 0, "postgres: ... library 8's kept");
	ok(run(db, "DELETE FROM libraries WHERE lib_no = 8") == 0, "postgres: library 8 deleted");
	eq_int(one(db, "SELECT count(*) FROM segment_files") +
	    one(db, "SELECT count(*) FROM segment_chunks"), 0,
	    "postgres: ... its stored segments with it");
}

int
main(void)
{
	struct db	*db = NULL, *pdb = NULL;
	unsigned char	*big, *big2;
	char		 dir[256], src[512], dst[512], path[600], err[256] = "";
	int		 rc;

	if ((big = malloc(BIG)) == NULL || (big2 = malloc(BIG)) == NULL ||
	    crypto_random(big, BIG) == -1 || crypto_random(big2, BIG) == -1) {
		ok(0, "random bytes");
		return tap_done();
	}
	if (dbh_open(dir, sizeof(dir), &db) == -1) {
		ok(0, "a SQLite database in a temporary DATA_DIR");
		return tap_done();
	}
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(dst, sizeof(dst), "%s/segments", dir);
	ok(mkdir(src, 0750) == 0 && mkdir(dst, 0750) == 0, "a worker's and a node's folders");
	suite_sqlite(db, src, dst, big);
	if (dbh_pg_url() == NULL)
		printf("# DATABASE_URL unset: PostgreSQL is not tried\n");
	else if ((rc = dbh_pg_open(SCHEMA, &pdb, err, sizeof(err))) != 0)
		ok(0, "postgres: the store's schema in a schema of the test's own: %s", err);
	else {
		ok(1, "postgres: the store's schema in a schema of the test's own");
		suite_pg(pdb, src, dst, big, big2);
		ok(dbh_pg_close(pdb, SCHEMA) == 0, "postgres: the schema dropped");
		eq_str(trace[1], trace[0], "SQLite and PostgreSQL answered alike");
	}
	remove_dir(src);
	remove_dir(dst);
	snprintf(path, sizeof(path), "%s", dir);
	dbh_remove(path, db);
	free(big);
	free(big2);
	return tap_done();
}
