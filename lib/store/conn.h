/*
 * store/conn.h: the connection as lib/store's own modules see it (not for other folders):
 * the engine and its native handle. Modules not yet written on store/stmt.h reach SQLite
 * through db_lite; on PostgreSQL they are not called (docs/DESIGN.md, "Two engines").
 */
#ifndef STORE_CONN_H
#define STORE_CONN_H

#include "store/db.h"
#include "store/sqltext.h"
#include "store/stmt.h"

struct sqlite3;
struct pg;

struct db {
	enum db_engine	 engine;
	struct sqlite3	*lite;		/* DB_ENGINE_SQLITE */
	struct pg	*pg;		/* DB_ENGINE_POSTGRES */
	int		 listening;	/* db_listen: caches of enum db_cache allowed */
	int		 readonly;	/* PostgreSQL: db_readonly's answer, -1 not asked yet */
	unsigned long	 gen[DB_CACHE_N];	/* bumped by each change of the kind */
};

/*
 * 1 when a cache of kind k filled at generation gen still holds: the connection listens
 * (db_listen) and no change of kind k was announced since (db_drain_changes).
 */
static inline int
db_cache_valid(const struct db *db, enum db_cache k, unsigned long gen)
{
	return db->listening && db->gen[k] == gen;
}

/*
 * Opens the SQLite file path with SQLite's open flags as a connection, without db_open's
 * setup (a backup's copy, the doctor's look, a second handle that writes): SQLITE_OK, or
 * SQLite's error code with *out NULL.
 */
int	 db_lite_open(const char *path, int flags, struct db **out);
/*
 * Closes a connection of db_lite_open or db_open's SQLite (NULL: nothing): SQLITE_OK, or
 * SQLite's error code when statements were left open (it is closed when they are).
 */
int	 db_lite_close(struct db *);

/* The SQLite handle of a SQLite connection (NULL on PostgreSQL). */
static inline struct sqlite3 *
db_lite(struct db *db)
{
	return db->lite;
}

#endif
