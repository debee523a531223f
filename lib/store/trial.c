/*
 * trial.c: the record that this instance has started its one evaluation period. It lives in
 * the settings table under a name no setting uses, so deleting DATA_DIR/license.key does
 * not make a second trial possible.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/trial.h"
#include "store/conn.h"

#define TRIAL_NAME	"license.trial_started"

int
store_trial_claim(struct db *db, const char *date, char *prev, size_t prevsz)
{
	sqlite3_stmt	*st = NULL;
	const char	*v;
	int		 rc = -1;

	prev[0] = '\0';
	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO settings (name, value, updated_at) "
	    "VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) "
	    "ON CONFLICT (name) DO NOTHING", -1, &st, NULL) != SQLITE_OK)
		goto err;
	sqlite3_bind_text(st, 1, TRIAL_NAME, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, date, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto err;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_changes(db_lite(db)) == 1)
		return 1;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT value FROM settings WHERE name = ?1", -1, &st,
	    NULL) != SQLITE_OK)
		goto err;
	sqlite3_bind_text(st, 1, TRIAL_NAME, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && (v = (const char *)sqlite3_column_text(st,
	    0)) != NULL)
		snprintf(prev, prevsz, "%s", v);
	rc = 0;
	goto out;
err:
	log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
out:
	sqlite3_finalize(st);
	return rc;
}
