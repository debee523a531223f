/* store/ghapp.c: the rows of hook_deliveries and ghapp_tokens. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/db.h"
#include "store/ghapp.h"
#include "store/conn.h"

/*
 * Engine: INSERT OR IGNORE on the primary key id (PostgreSQL: ON CONFLICT DO NOTHING),
 * and the connection's count of changed rows.
 */
int
store_delivery_add(struct db *db, const char *id, long long now)
{
	if (db_run(db, "INSERT OR IGNORE INTO hook_deliveries (id, received_at) VALUES "
	    "(?1, ?2)", "tI", id, now) == -1)
		return -1;
	return sqlite3_changes(db_lite(db)) > 0;
}

int
store_delivery_expire(struct db *db, const char *id, long long before)
{
	return db_run(db, "DELETE FROM hook_deliveries WHERE id = ?1 AND received_at < ?2",
	    "tI", id, before);
}

/* Engine: the order of arrival is SQLite's rowid. */
int
store_delivery_trim(struct db *db, int keep)
{
	return db_run(db, "DELETE FROM hook_deliveries WHERE rowid <= (SELECT max(rowid) "
	    "FROM hook_deliveries) - ?1", "i", keep);
}

void
store_delivery_forget(struct db *db, const char *id, const char *key)
{
	(void)db_run(db, "DELETE FROM hook_deliveries WHERE id IN (?1, ?2)", "tt", id, key);
}

char *
store_ghapp_token_get(struct db *db, long long id, long long after)
{
	sqlite3_stmt	*st = NULL;
	const char	*t;
	char		*sealed = NULL;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT token FROM ghapp_tokens WHERE installation_id = ?1 "
	    "AND expires_at > ?2", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, after);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (t = (const char *)sqlite3_column_text(st, 0)) != NULL)
		sealed = strdup(t);
out:
	sqlite3_finalize(st);
	return sealed;
}

/* Engine: INSERT OR REPLACE on the primary key (PostgreSQL: ON CONFLICT DO UPDATE). */
int
store_ghapp_token_put(struct db *db, long long id, const char *sealed, long long expires)
{
	return db_run(db, "INSERT OR REPLACE INTO ghapp_tokens (installation_id, token, "
	    "expires_at) VALUES (?1, ?2, ?3)", "ItI", id, sealed, expires);
}
