/* store/audit.c: the rows of the audit_log table. */
#include "config.h"

#include <stddef.h>

#include "base/log.h"
#include "store/audit.h"
#include "store/stmt.h"

int
store_audit_add(struct db *db, const char *at, const char *actor, const char *action,
    const char *detail)
{
	return db_stmt_run(db, "INSERT INTO audit_log (at, actor, action, detail) VALUES (?1, "
	    "?2, ?3, ?4)", "tttt", at, actor, action, detail);
}

int
store_audit_each(struct db *db, const char *action, long limit,
    int (*cb)(const struct store_audit_row *, void *), void *arg)
{
	struct store_audit_row	 e;
	struct db_stmt		*st = NULL;
	int			 r;

	if (db_prepare(db, "SELECT id, at, actor, action, detail FROM audit_log WHERE "
	    "action = ?2 ORDER BY id DESC LIMIT ?1", &st) == -1)
		goto dberr;
	db_bind_int64(st, 1, limit);
	db_bind_text(st, 2, action);
	while ((r = db_step(st)) == DB_ROW) {
		e.id = db_col_int64(st, 0);
		e.at = db_col_text(st, 1);
		e.actor = db_col_text(st, 2);
		e.action = db_col_text(st, 3);
		e.detail = db_col_null(st, 4) ? NULL : db_col_text(st, 4);
		if (cb(&e, arg) == -1) {
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
