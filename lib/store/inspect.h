/*
 * store/inspect.h: the database looked at as it is, for the doctor and the health probe:
 * a connection that changes nothing, the last schema upgrade, the counts of the queue.
 */
#ifndef STORE_INSPECT_H
#define STORE_INSPECT_H

#include <stddef.h>

struct db;

/*
 * DATA_DIR/ctxd.db opened read-only as it is (not db_open, which would migrate or tighten
 * modes: whoever looks changes nothing), busy timeout 5 s; NULL when it cannot be read.
 * With DATABASE_URL set, PostgreSQL's database instead: a connection of its own whose
 * transactions are read only, locks waited for 5 s, whatever its schema version; NULL
 * (logged) when it cannot connect. Close with db_close.
 */
struct db *store_inspect_open(const char *datadir);
/*
 * store_inspect_open without the log line: NULL with why (the password never in it: the
 * doctor prints it) when the database cannot be read or reached.
 */
struct db *store_inspect_connect(const char *datadir, char *why, size_t whysz);
/*
 * Where the database is, for a message: with DATABASE_URL its host, port, database and
 * user (never the password: pg_url_describe), else "SQLite <version>". 0, or -1 when
 * DATABASE_URL cannot be parsed (out says so).
 */
int	 store_inspect_where(char *out, size_t outsz);
/* The engine and its version: "PostgreSQL 15.18" (the server's), "SQLite 3.45.1". Static. */
const char *store_inspect_server(struct db *);
/*
 * The last schema upgrade (schema_history): the version it came from, the release that
 * made it and its day (YYYY-MM-DD). 0, or -1 when there is none or it cannot be read.
 */
int	 store_inspect_last_upgrade(struct db *, int *from, char *release,
	    size_t releasesz, char *day, size_t daysz);
/* The jobs queued and running, and the libraries: 0, or -1 (logged). */
int	 store_inspect_counts(struct db *, long long *queued, long long *running,
	    long long *libraries);

#endif /* STORE_INSPECT_H */
