/*
 * store/segstore.c: the index segments stored in PostgreSQL (segstore.h). Written on
 * store/stmt.h; every statement would also run on SQLite, but on SQLite the calls return
 * "not stored" before any statement: a single node keeps its segments in DATA_DIR only.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/segstore.h"
#include "store/stmt.h"

/* The columns of a segment_files row, in segstore_row's order. */
#define SEGSTORE_COLS	"lib_no, index_version, embed_version, vec_model, size, sha256, " \
			"stored_at"

int
segstore_enabled(struct db *db)
{
	return db != NULL && db_conn_engine(db) == DB_ENGINE_POSTGRES;
}

/* A decimal number without sign or leading zero at *p, up to a char not a digit. */
static const char *
segstore_number(const char *p, long long *v)
{
	long long	 n = 0;
	const char	*s = p;

	if (*p == '0')
		return p[1] >= '0' && p[1] <= '9' ? NULL : (*v = 0, p + 1);
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (999999999999999999LL - (*p - '0')) / 10)
			return NULL;
		n = n * 10 + (*p - '0');
	}
	if (p == s)
		return NULL;
	*v = n;
	return p;
}

int
segstore_name_valid(const char *name, long long *lib_no, long long *index_version)
{
	long long	 a, b;
	const char	*p;

	if (name == NULL || strlen(name) > 48 || (p = segstore_number(name, &a)) == NULL ||
	    *p != '-' || (p = segstore_number(p + 1, &b)) == NULL || strcmp(p, ".seg") != 0)
		return 0;
	if (lib_no != NULL)
		*lib_no = a;
	if (index_version != NULL)
		*index_version = b;
	return 1;
}

/* The row st stands on (SEGSTORE_COLS) into *out. */
static void
segstore_row(struct db_stmt *st, struct segstore_info *out)
{
	memset(out, 0, sizeof(*out));
	out->lib_no = db_col_int64(st, 0);
	out->index_version = db_col_int64(st, 1);
	out->embed_version = db_col_int64(st, 2);
	snprintf(out->vec_model, sizeof(out->vec_model), "%s", db_col_text(st, 3));
	out->size = db_col_int64(st, 4);
	snprintf(out->sha256, sizeof(out->sha256), "%s", db_col_text(st, 5));
	snprintf(out->stored_at, sizeof(out->stored_at), "%s", db_col_text(st, 6));
}

/* segstore_describe without the engine check. */
static int
segstore_read(struct db *db, const char *name, struct segstore_info *out)
{
	struct db_stmt	*st;
	int		 rc = -1, s;

	if (db_prepare(db, "SELECT " SEGSTORE_COLS " FROM segment_files WHERE name = ?1",
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, name);
	if ((s = db_step(st)) == DB_ROW) {
		segstore_row(st, out);
		rc = 0;
	} else if (s == DB_DONE)
		rc = 1;
	else
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return rc;
}

int
segstore_describe(struct db *db, const char *name, struct segstore_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!segstore_enabled(db))
		return 1;
	if (!segstore_name_valid(name, NULL, NULL)) {
		log_err("%s: not a segment's name", __func__);
		return -1;
	}
	return segstore_read(db, name, out);
}

int
segstore_each(struct db *db, int (*fn)(const char *, const struct segstore_info *, void *),
    void *arg)
{
	struct segstore_info info;
	struct db_stmt	*st;
	int		 rc = 0, s;

	if (!segstore_enabled(db))
		return 0;
	if (db_prepare(db, DB_PAIR("SELECT " SEGSTORE_COLS ", name FROM segment_files ORDER "
	    "BY name", "SELECT " SEGSTORE_COLS ", name FROM segment_files ORDER BY name "
	    "COLLATE \"C\""), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	while ((s = db_step(st)) == DB_ROW) {
		char	 name[64];

		segstore_row(st, &info);
		snprintf(name, sizeof(name), "%s", db_col_text(st, 7));
		if (fn(name, &info, arg) == -1) {
			rc = -1;
			break;
		}
	}
	if (s == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

/* Reads up to len bytes (fewer only at the end of the file): the count, or -1. */
static ssize_t
segstore_read_full(int fd, unsigned char *p, size_t len)
{
	size_t	 got = 0;
	ssize_t	 n;

	while (got < len) {
		if ((n = read(fd, p + got, len - got)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Writes all of p: 0, or -1 with errno. */
static int
segstore_write_full(int fd, const unsigned char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The SHA-256 of md so far as 64 lowercase hex digits (md is finished). */
static int
segstore_sha_hex(EVP_MD_CTX *md, char out[65])
{
	unsigned char	 d[EVP_MAX_MD_SIZE];
	unsigned int	 dlen = 0;

	if (EVP_DigestFinal_ex(md, d, &dlen) != 1 || dlen != 32)
		return -1;
	util_hex(d, dlen, out);
	return 0;
}

/*
 * Runs a statement of one row and one integer column with the integer parameters a and b
 * (b is ignored by a statement of one parameter): the value, or -1 (logged).
 */
static long long
segstore_int(struct db *db, const char *who, const char *sql, long long a, long long b)
{
	struct db_stmt	*st;
	long long	 v = -1;

	if (db_prepare(db, sql, &st) == -1) {
		log_err("%s: %s", who, db_conn_errmsg(db));
		return -1;
	}
	db_bind_int64(st, 1, a);
	if (db_param_count(st) >= 2)
		db_bind_int64(st, 2, b);
	if (db_step(st) == DB_ROW)
		v = db_col_int64(st, 0);
	else
		log_err("%s: %s", who, db_conn_errmsg(db));
	db_finalize(st);
	return v;
}

/*
 * Concurrency: on PostgreSQL a transaction reads committed rows only, so two nodes putting
 * two versions of one library at once could each miss the other's uncommitted row and keep
 * both. A transaction-scoped advisory lock per library (the two-integer key space, apart
 * from the schema's single-key lock) serializes the puts of a library: the second one sees
 * the first one's row and keeps only the newest version. On SQLite (never reached: calls
 * return first) BEGIN IMMEDIATE would do the same.
 */
#define SEGSTORE_LOCK	DB_PAIR("SELECT ?1 * 0", \
	"SELECT count(*) FROM (SELECT pg_advisory_xact_lock(1936025447, " \
	"(?1::bigint % 2147483647)::integer)) l")

int
segstore_put(struct db *db, const char *dir, const char *name, long long embed_version,
    const char *model)
{
	struct db_stmt	*ins = NULL;
	struct stat	 st;
	EVP_MD_CTX	*md = NULL;
	unsigned char	*buf = NULL;
	char		 path[4096], now[32], sha[65];
	long long	 lib_no, iv, seq, done = 0;
	ssize_t		 n;
	int		 fd = -1, rc = -1, began = 0;

	if (!segstore_enabled(db))
		return 1;
	if (!segstore_name_valid(name, &lib_no, &iv) || model == NULL ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		log_err("%s: not a segment's name or path", __func__);
		return -1;
	}
	if (db_in_transaction(db)) {
		log_err("%s: %s: called inside a transaction", __func__, name);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 || fstat(fd, &st) == -1) {
		log_err("%s: %s: %s", __func__, path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > SEGSTORE_MAX_BYTES) {
		log_err("%s: %s: not a file of at most %lld bytes", __func__, path,
		    SEGSTORE_MAX_BYTES);
		goto out;
	}
	if ((buf = malloc(SEGSTORE_CHUNK)) == NULL || (md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		goto out;
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_begin(db) == -1)
		goto out;
	began = 1;
	if (segstore_int(db, __func__, SEGSTORE_LOCK, lib_no, 0) == -1)
		goto out;
	switch (segstore_int(db, __func__, "SELECT count(*) FROM segment_files WHERE "
	    "lib_no = ?1 AND index_version > ?2", lib_no, iv)) {
	case 0:
		break;
	case -1:
		goto out;
	default:
		log_info("%s: %s not stored: a newer version of the library is", __func__,
		    name);
		rc = 1;
		goto out;
	}
	/* the same name (its chunks with it: ON DELETE CASCADE) and the older versions */
	if (db_stmt_run(db, "DELETE FROM segment_files WHERE lib_no = ?1 AND "
	    "index_version <= ?2", "II", lib_no, iv) == -1)
		goto out;
	/* the SHA-256 is known once the chunks are read: set at the end, in the same transaction */
	if (db_prepare(db, "INSERT INTO segment_files (name, lib_no, index_version, "
	    "embed_version, vec_model, size, sha256, stored_at) VALUES (?1, ?2, ?3, ?4, ?5, "
	    "?6, '', ?7)", &ins) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		goto out;
	}
	db_bind_text(ins, 1, name);
	db_bind_int64(ins, 2, lib_no);
	db_bind_int64(ins, 3, iv);
	db_bind_int64(ins, 4, embed_version);
	db_bind_text(ins, 5, model);
	db_bind_int64(ins, 6, (long long)st.st_size);
	db_bind_text(ins, 7, now);
	if (db_step(ins) != DB_DONE) {
		log_err("%s: %s: %s", __func__, name, db_conn_errmsg(db));
		goto out;
	}
	db_finalize(ins);
	ins = NULL;
	if (db_prepare(db, "INSERT INTO segment_chunks (name, seq, data) VALUES (?1, ?2, ?3)",
	    &ins) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		goto out;
	}
	db_bind_text(ins, 1, name);
	for (seq = 0; done < (long long)st.st_size; seq++) {
		if ((n = segstore_read_full(fd, buf, SEGSTORE_CHUNK)) <= 0) {
			log_err("%s: %s: %s", __func__, path, n == 0 ? "shorter than its size" :
			    strerror(errno));
			goto out;
		}
		if (EVP_DigestUpdate(md, buf, (size_t)n) != 1)
			goto out;
		db_bind_int64(ins, 2, seq);
		db_bind_blob(ins, 3, buf, (size_t)n);
		if (db_step(ins) != DB_DONE) {
			log_err("%s: %s: chunk %lld: %s", __func__, name, seq,
			    db_conn_errmsg(db));
			goto out;
		}
		db_reset(ins);
		done += n;
		if (n < SEGSTORE_CHUNK && done < (long long)st.st_size) {
			log_err("%s: %s: shorter than its size", __func__, path);
			goto out;
		}
	}
	if (done != (long long)st.st_size || segstore_read_full(fd, buf, 1) != 0) {
		log_err("%s: %s: changed while it was read", __func__, path);
		goto out;
	}
	if (segstore_sha_hex(md, sha) == -1 || db_stmt_run(db, "UPDATE segment_files SET "
	    "sha256 = ?2 WHERE name = ?1", "tt", name, sha) == -1)
		goto out;
	db_finalize(ins);
	ins = NULL;
	if (db_commit(db) == -1) {
		log_err("%s: %s: %s", __func__, name, db_conn_errmsg(db));
		goto out;
	}
	began = 0;
	rc = 0;
out:
	db_finalize(ins);
	if (began)
		db_rollback(db);
	EVP_MD_CTX_free(md);
	free(buf);
	if (fd != -1)
		close(fd);
	return rc;
}

int
segstore_fetch(struct db *db, const char *dir, const char *name, long long max,
    struct segstore_info *out)
{
	struct segstore_info info;
	struct db_stmt	*st = NULL;
	EVP_MD_CTX	*md = NULL;
	const void	*p;
	char		 path[4096], tmp[4096], sha[65];
	long long	 nchunks, seq, want, left;
	size_t		 len;
	int		 fd = -1, rc = -1, began = 0, made = 0, err = 0, s;

	if (out != NULL)
		memset(out, 0, sizeof(*out));
	if (!segstore_enabled(db))
		return 1;
	if (!segstore_name_valid(name, NULL, NULL) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp", dir, name, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		log_err("%s: not a segment's name or path", __func__);
		errno = EINVAL;
		return -1;
	}
	if (max <= 0 || max > SEGSTORE_MAX_BYTES)
		max = SEGSTORE_MAX_BYTES;
	/*
	 * The row and its chunks of one snapshot, so that a put replacing them meanwhile is
	 * not seen: the caller's read transaction when one is open (a question's, on
	 * PostgreSQL REPEATABLE READ), else one of its own.
	 */
	if (!db_in_transaction(db)) {
		if (db_begin_read(db) == -1) {
			err = EIO;
			goto out;
		}
		began = 1;
	}
	if ((s = segstore_read(db, name, &info)) != 0) {
		rc = s;
		err = EIO;
		goto out;
	}
	if (out != NULL)
		*out = info;
	if (info.size < 0 || info.size > max) {
		log_err("%s: %s: its stored size, %lld bytes, is over the limit (%lld)",
		    __func__, name, info.size, max);
		err = EFBIG;
		goto out;
	}
	nchunks = (info.size + SEGSTORE_CHUNK - 1) / SEGSTORE_CHUNK;
	if (db_prepare(db, "SELECT count(*) FROM segment_chunks WHERE name = ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		err = EIO;
		goto out;
	}
	db_bind_text(st, 1, name);
	seq = db_step(st) == DB_ROW ? db_col_int64(st, 0) : -1;
	db_finalize(st);
	st = NULL;
	if (seq == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		err = EIO;
		goto out;
	}
	if (seq != nchunks) {
		log_err("%s: %s: %lld chunks stored for %lld bytes", __func__, name, seq,
		    info.size);
		err = EBADMSG;
		goto out;
	}
	if ((md = EVP_MD_CTX_new()) == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		err = ENOMEM;
		goto out;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640)) == -1) {
		err = errno;
		log_err("%s: %s: %s", __func__, tmp, strerror(err));
		goto out;
	}
	made = 1;
	/*
	 * One execution a chunk: PostgreSQL's rows come whole at a statement's first step, so
	 * a statement over every chunk would hold the whole segment in memory.
	 */
	if (db_prepare(db, "SELECT data FROM segment_chunks WHERE name = ?1 AND seq = ?2",
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		err = EIO;
		goto out;
	}
	db_bind_text(st, 1, name);
	for (seq = 0, left = info.size; seq < nchunks; seq++, left -= want) {
		want = left < SEGSTORE_CHUNK ? left : SEGSTORE_CHUNK;
		db_bind_int64(st, 2, seq);
		if ((s = db_step(st)) != DB_ROW) {
			if (s == DB_DONE)
				log_err("%s: %s: chunk %lld is missing", __func__, name, seq);
			else
				log_err("%s: %s: %s", __func__, name, db_conn_errmsg(db));
			err = s == DB_DONE ? EBADMSG : EIO;
			goto out;
		}
		p = db_col_blob(st, 0, &len);
		if ((long long)len != want) {
			log_err("%s: %s: chunk %lld has %zu bytes, not %lld", __func__, name,
			    seq, len, want);
			err = EBADMSG;
			goto out;
		}
		if (EVP_DigestUpdate(md, p, len) != 1) {
			err = ENOMEM;
			goto out;
		}
		if (segstore_write_full(fd, p, len) == -1) {
			err = errno;
			log_err("%s: %s: %s", __func__, tmp, strerror(err));
			goto out;
		}
		db_reset(st);
	}
	db_finalize(st);
	st = NULL;
	if (began)
		db_rollback(db);	/* the snapshot ends: it wrote nothing */
	began = 0;
	if (segstore_sha_hex(md, sha) == -1) {
		err = ENOMEM;
		goto out;
	}
	if (strcmp(sha, info.sha256) != 0) {
		log_err("%s: %s: the stored bytes do not match the stored SHA-256", __func__,
		    name);
		err = EBADMSG;
		goto out;
	}
	if (fsync(fd) == -1 || close(fd) == -1) {
		err = errno;
		fd = -1;
		log_err("%s: %s: %s", __func__, tmp, strerror(err));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) == -1) {
		err = errno;
		log_err("%s: %s: %s", __func__, path, strerror(err));
		goto out;
	}
	if (util_fsync_path(dir) == -1)
		log_warn("%s: %s: %s", __func__, dir, strerror(errno));
	rc = 0;
out:
	db_finalize(st);
	if (began)
		db_rollback(db);
	EVP_MD_CTX_free(md);
	if (fd != -1)
		close(fd);
	if (rc == -1) {
		if (made)
			unlink(tmp);
		errno = err != 0 ? err : EIO;
	}
	return rc;
}

int
segstore_delete_library(struct db *db, long long lib_no, long long *n)
{
	if (n != NULL)
		*n = 0;
	if (!segstore_enabled(db))
		return 0;
	if (db_stmt_run(db, "DELETE FROM segment_files WHERE lib_no = ?1", "I", lib_no) == -1)
		return -1;
	if (n != NULL)
		*n = db_changes(db);
	return 0;
}
