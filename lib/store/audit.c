/* store/audit.c: the rows of the audit_log table. */
#include "config.h"

#include <stddef.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/audit.h"
#include "store/db.h"
#include "store/conn.h"

int
store_audit_add(struct db *db, const char *at, const char *actor, const char *action,
    const char *detail)
{
	return db_run(db, "INSERT INTO audit_log (at, actor, action, detail) VALUES (?1, ?2, "
	    "?3, ?4)", "tttt", at, actor, action, detail);
}

int
store_audit_each(struct db *db, const char *action, long limit,
    int (*cb)(const struct store_audit_row *, void *), void *arg)
{
	struct store_audit_row	 e;
	sqlite3_stmt		*st = NULL;
	int			 r;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT id, at, actor, action, detail FROM audit_log "
	    "WHERE action = ?2 ORDER BY id DESC LIMIT ?1", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, limit);
	sqlite3_bind_text(st, 2, action, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		e.id = sqlite3_column_int64(st, 0);
		e.at = (const char *)sqlite3_column_text(st, 1);
		e.actor = (const char *)sqlite3_column_text(st, 2);
		e.action = (const char *)sqlite3_column_text(st, 3);
		e.detail = (const char *)sqlite3_column_text(st, 4);
		if (cb(&e, arg) == -1) {
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
