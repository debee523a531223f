/* store/policies.c: the stored settings of the source policy. */
#include "config.h"

#include <stddef.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/policies.h"
#include "store/conn.h"

int
store_policy_settings_each(struct db *db, int (*cb)(const char *, const char *, void *),
    void *arg)
{
	sqlite3_stmt	*st = NULL;
	const char	*name, *v;
	int		 r;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT name, value FROM settings "
	    "WHERE name LIKE 'policy.%'", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		v = (const char *)sqlite3_column_text(st, 1);
		if (name != NULL && v != NULL && cb(name, v, arg) == -1) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (r != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	return 0;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return -1;
}
