/* store/ghapp.c: the rows of hook_deliveries and ghapp_tokens. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/db.h"
#include "store/ghapp.h"
#include "store/stmt.h"

/*
 * Engine: ON CONFLICT DO NOTHING on the primary key id (SQLite 3.24+ and PostgreSQL), and
 * the connection's count of changed rows. On PostgreSQL a delivery that two nodes record
 * at once is new for one of them: the second insert waits for the first's key.
 */
int
store_delivery_add(struct db *db, const char *id, long long now)
{
	if (db_run(db, "INSERT INTO hook_deliveries (id, received_at) VALUES (?1, ?2) ON "
	    "CONFLICT (id) DO NOTHING", "tI", id, now) == -1)
		return -1;
	return db_changes(db) > 0;
}

int
store_delivery_expire(struct db *db, const char *id, long long before)
{
	return db_run(db, "DELETE FROM hook_deliveries WHERE id = ?1 AND received_at < ?2",
	    "tI", id, before);
}

/*
 * Engine: the order of arrival is SQLite's rowid; PostgreSQL has none, and keeps the keep
 * latest by received_at (ties in one second by id).
 */
int
store_delivery_trim(struct db *db, int keep)
{
	/* db_stmt_run: db_run on SQLite takes one text, not a DB_PAIR */
	return db_stmt_run(db, DB_PAIR("DELETE FROM hook_deliveries WHERE rowid <= (SELECT "
	    "max(rowid) FROM hook_deliveries) - ?1", "DELETE FROM hook_deliveries WHERE id "
	    "IN (SELECT id FROM hook_deliveries ORDER BY received_at DESC, id DESC OFFSET "
	    "?1)"), "i", keep);
}

void
store_delivery_forget(struct db *db, const char *id, const char *key)
{
	(void)db_run(db, "DELETE FROM hook_deliveries WHERE id IN (?1, ?2)", "tt", id, key);
}

char *
store_ghapp_token_get(struct db *db, long long id, long long after)
{
	struct db_stmt	*st = NULL;
	char		*sealed = NULL;

	if (db_prepare(db, "SELECT token FROM ghapp_tokens WHERE installation_id = ?1 "
	    "AND expires_at > ?2", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return NULL;
	}
	db_bind_int64(st, 1, id);
	db_bind_int64(st, 2, after);
	if (db_step(st) == DB_ROW && !db_col_null(st, 0))
		sealed = strdup(db_col_text(st, 0));
	db_finalize(st);
	return sealed;
}

/* Engine: an upsert on the primary key, one text for SQLite 3.24+ and PostgreSQL. */
int
store_ghapp_token_put(struct db *db, long long id, const char *sealed, long long expires)
{
	return db_run(db, "INSERT INTO ghapp_tokens (installation_id, token, expires_at) "
	    "VALUES (?1, ?2, ?3) ON CONFLICT (installation_id) DO UPDATE SET token = "
	    "excluded.token, expires_at = excluded.expires_at", "ItI", id, sealed, expires);
}
