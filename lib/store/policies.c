/* store/policies.c: the stored settings of the source policy. */
#include "config.h"

#include <stddef.h>

#include "base/log.h"
#include "store/policies.h"
#include "store/stmt.h"

/*
 * Engine: LIKE ignores case on SQLite but not on PostgreSQL; setting names are lowercase,
 * so 'policy.%' finds the same rows on both.
 */
int
store_policy_settings_each(struct db *db, int (*cb)(const char *, const char *, void *),
    void *arg)
{
	struct db_stmt	*st = NULL;
	int		 r;

	if (db_prepare(db, "SELECT name, value FROM settings WHERE name LIKE 'policy.%'",
	    &st) == -1)
		goto dberr;
	while ((r = db_step(st)) == DB_ROW) {
		if (!db_col_null(st, 0) && !db_col_null(st, 1) &&
		    cb(db_col_text(st, 0), db_col_text(st, 1), arg) == -1) {
			db_finalize(st);
			return -1;
		}
	}
	if (r != DB_DONE)
		goto dberr;
	db_finalize(st);
	return 0;
dberr:
	log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return -1;
}
