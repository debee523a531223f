/*
 * trial.c: the record that this instance has started its one evaluation period. It lives in
 * the settings table under a name no setting uses, so deleting DATA_DIR/license.key does
 * not make a second trial possible.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/util.h"
#include "store/trial.h"
#include "store/stmt.h"

#define TRIAL_NAME	"license.trial_started"

/* Engine: the time of the record comes from here (the engines' date functions differ). */
int
store_trial_claim(struct db *db, const char *date, char *prev, size_t prevsz)
{
	struct db_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1, s;

	prev[0] = '\0';
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_stmt_run(db, "INSERT INTO settings (name, value, updated_at) VALUES (?1, ?2, "
	    "?3) ON CONFLICT (name) DO NOTHING", "ttt", TRIAL_NAME, date, now) == -1)
		return -1;
	if (db_changes(db) == 1)
		return 1;
	if (db_prepare(db, "SELECT value FROM settings WHERE name = ?1", &st) == -1)
		goto err;
	db_bind_text(st, 1, TRIAL_NAME);
	if ((s = db_step(st)) == DB_ROW)
		snprintf(prev, prevsz, "%s", db_col_text(st, 0));
	else if (s != DB_DONE)
		goto err;
	rc = 0;
	goto out;
err:
	log_err("%s: %s", __func__, db_conn_errmsg(db));
out:
	db_finalize(st);
	return rc;
}
