/*
 * store/segstore.h: the index segments stored in the database (tables segment_files and
 * segment_chunks, sql/0018-segment-store.sql), for several nodes that share one PostgreSQL
 * database (DATABASE_URL) but each have their own DATA_DIR: the worker that writes
 * DATA_DIR/segments/<lib_no>-<index_version>.seg uploads it once (segstore_put), and a
 * query process of another node fetches it into its own DATA_DIR/segments on first use
 * (segstore_fetch), then maps it as on a single node (docs/DESIGN.md, "Index segments").
 *
 * Engine: only PostgreSQL stores segments. On SQLite (one node, one DATA_DIR) every call is
 * a no-op that answers "not stored" (1), and the tables stay empty.
 *
 * Memory: a segment moves chunk by chunk (SEGSTORE_CHUNK bytes), never whole, both ways.
 */
#ifndef STORE_SEGSTORE_H
#define STORE_SEGSTORE_H

#include <stddef.h>

struct db;

#define SEGSTORE_CHUNK		(1024 * 1024)	/* bytes of one segment_chunks row */
/*
 * The largest segment stored or fetched: far above any library's (360,000 snippets make
 * about 260 MB); a stored row claiming more is refused, not fetched.
 */
#define SEGSTORE_MAX_BYTES	(8LL * 1024 * 1024 * 1024)

#define SEGSTORE_MODEL_MAX	128	/* bytes of a model's name with its NUL (as vecseg.h) */

/* What the store holds of one segment. */
struct segstore_info {
	long long	 lib_no, index_version;
	long long	 embed_version;	/* of the vectors it holds (0: none) */
	char		 vec_model[SEGSTORE_MODEL_MAX];	/* their model ("": none) */
	long long	 size;		/* bytes */
	char		 sha256[65];	/* lowercase hex */
	char		 stored_at[32];	/* ISO 8601 */
};

/* 1 when the connection's engine stores segments (PostgreSQL), else 0. */
int	 segstore_enabled(struct db *);

/*
 * 1 when name is a segment's file name, "<lib_no>-<index_version>.seg" (decimal numbers,
 * no sign, no leading zero), with the numbers in *lib_no and *index_version (either NULL).
 */
int	 segstore_name_valid(const char *name, long long *lib_no, long long *index_version);

/*
 * Uploads dir/name (a segment the worker has written; its name gives lib_no and
 * index_version), whose vectors are of model at embed_version ("" and 0: it has none, or
 * they are not to be used): its segment_files row and
 * its chunks in one transaction, replacing a stored segment of the same name, and deleting
 * the library's rows of older index versions. Read from the file chunk by chunk (the
 * SHA-256 computed on the way). A library whose newer index version is stored already
 * keeps it: this one is not stored (1). Must not be called inside a transaction.
 * 0 stored; 1 not stored (SQLite, or a newer version is stored); -1 failure (logged; the
 * store unchanged).
 */
int	 segstore_put(struct db *, const char *dir, const char *name, long long embed_version,
	    const char *model);

/* The stored row of name into *out: 0; 1 not stored (SQLite, or no row); -1 error (logged). */
int	 segstore_describe(struct db *, const char *name, struct segstore_info *out);

/*
 * Calls fn with every stored segment (its name and row), in name order; fn returning -1
 * stops with -1. A row a library (the older versions are deleted as a newer one is
 * stored), so the rows are read at once. 0 (SQLite: nothing stored, no call), or -1
 * (logged).
 */
int	 segstore_each(struct db *, int (*fn)(const char *name, const struct segstore_info *,
	    void *), void *arg);

/*
 * Fetches the stored segment name into dir/name: its chunks, one statement execution a
 * chunk inside one read snapshot (the caller's transaction when one is open, else a
 * read transaction of its own), are written to dir/.<name>.<pid>.tmp (created
 * exclusively, 0640), their count, sizes and SHA-256 checked against the row, fsynced,
 * renamed over dir/name (a reader holding the old file sees a new inode) and dir fsynced.
 * max: the largest size accepted (0: SEGSTORE_MAX_BYTES). *out (may be NULL): the row.
 * 0 fetched; 1 not stored (SQLite, or no row); -1 failure, logged, dir/name unchanged and
 * no temporary file left, with errno: EFBIG (the row's size is past max), EBADMSG (the
 * chunks do not make the row's size or SHA-256: a damaged or changing row), else the
 * error of the database or the file system.
 */
int	 segstore_fetch(struct db *, const char *dir, const char *name, long long max,
	    struct segstore_info *out);

/*
 * Deletes every stored segment of library lib_no (also done by the database when the
 * libraries row goes: ON DELETE CASCADE). *n (may be NULL): how many. 0 (SQLite: nothing
 * stored, *n 0), or -1 (logged).
 */
int	 segstore_delete_library(struct db *, long long lib_no, long long *n);

#endif /* STORE_SEGSTORE_H */
