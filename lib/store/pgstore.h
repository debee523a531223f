/*
 * store/pgstore.h: a PostgreSQL database as the store (docs/DESIGN.md, "Two engines"): its
 * schema, created or migrated from sql/pg/, and the copy of a SQLite instance into it
 * (ctxd-admin migrate-to-postgres).
 */
#ifndef STORE_PGSTORE_H
#define STORE_PGSTORE_H

#include <stddef.h>
#include <stdio.h>

struct pg;
struct db;

/*
 * Creates the schema in an empty database or brings an older one to this build's version,
 * in one transaction under an advisory lock (nodes that start at once migrate once).
 * *from: the version found (0: none). Refuses a newer schema. 0, or -1 with why in err.
 */
int	 pgstore_migrate(struct pg *, int *from, char *err, size_t errlen);

/*
 * Copies the SQLite database lite (at this build's schema version) into pg, which has no
 * ctxd tables or only empty ones: the schema, then every table's rows with their ids (not
 * SQLite's full-text tables: PostgreSQL ranks from the index segments), identities moved past
 * them, each table's count checked against SQLite's; one transaction, so a failure leaves
 * pg as it was. A line per table on out. 0, or -1 with why in err.
 */
int	 pgstore_copy(struct db *lite, struct pg *pg, FILE *out, char *err,
	    size_t errlen);

#endif
