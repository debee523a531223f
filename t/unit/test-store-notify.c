/*
 * test-store-notify.c: how a listening connection learns of changes (lib/store/db.c:
 * db_listen, db_drain_changes, db_cache_gen; lib/store/pg.c: pg_notices and the round-trip
 * counter; the triggers of sql/pg/0019-notify.sql) and what it keeps (the settings:
 * settings_stored). On SQLite nothing is kept: a change is read at once. On PostgreSQL
 * (when DATABASE_URL names a server: t/t0025-pg-notify.sh starts one), with a second
 * connection as the writer: a kept setting is served without a round trip until a change
 * is announced; draining costs no round trip; a change is announced at its commit (not
 * before, not after a rollback), only for its own table, and an UPDATE that changes
 * nothing (or only a key's last use) announces nothing; a lost connection drops every
 * cache.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/db.h"
#include "store/pg.h"
#include "store/settings.h"
#include "store/stmt.h"
#include "db-helpers.h"
#include "tap.h"

#define SCHEMA	"storenotify"
#define NAME	"content.injection"

/* The generations of a's caches as one comparable string. */
static void
gens(struct db *a, char *out, size_t outsz)
{
	snprintf(out, outsz, "%lu %lu %lu", db_cache_gen(a, DB_CACHE_LIBRARIES),
	    db_cache_gen(a, DB_CACHE_SETTINGS), db_cache_gen(a, DB_CACHE_KEYS));
}

/*
 * Drains a for up to ms milliseconds until the generation of kind k moves: 1 it moved,
 * 0 it did not, -1 the connection is lost.
 */
static int
heard(struct db *a, enum db_cache k, int ms)
{
	unsigned long	 g = db_cache_gen(a, k);
	int		 i;

	for (i = 0; i <= ms / 10; i++) {
		if (db_drain_changes(a) == -1)
			return -1;
		if (db_cache_gen(a, k) != g)
			return 1;
		usleep(10000);
	}
	return 0;
}

/* The stored value of NAME on db, "-" when none (static). */
static const char *
stored(struct db *db)
{
	static char	 v[64];
	char		*s = settings_stored(db, NAME);

	snprintf(v, sizeof(v), "%s", s != NULL ? s : "-");
	free(s);
	return v;
}

static void
sqlite_half(void)
{
	struct db	*db = NULL;
	char		 dir[256];

	if (dbh_open(dir, sizeof(dir), &db) == -1) {
		ok(0, "sqlite: a database in a temporary DATA_DIR");
		return;
	}
	ok(db_listen(db) == 0, "sqlite: db_listen is nothing");
	is_int(db_listening(db), 0, "sqlite: ... the connection does not listen");
	is_int(db_drain_changes(db), 0, "sqlite: draining is nothing");
	is_str(stored(db), "-", "sqlite: " NAME " not stored");
	ok(db_run(db, "INSERT INTO settings (name, value, updated_at) VALUES (?1, 'mark', "
	    "'2026-01-01T00:00:00Z')", "t", NAME) == 0, "sqlite: a setting written");
	is_str(stored(db), "mark", "sqlite: ... read at once (nothing kept)");
	is_int(db_round_trips(db), 0, "sqlite: no round trip is counted");
	dbh_remove(dir, db);
}

static void
postgres_half(const char *url)
{
	struct db	*a = NULL, *b = NULL;
	struct pg	*pg;
	char		 err[256] = "", g0[64], g1[64], sql[128];
	unsigned long	 rt;
	long long	 pid = 0;

	if (dbh_pg_open(SCHEMA, &a, err, sizeof(err)) != 0) {
		ok(0, "postgres: a schema of the test's own (%s)", err);
		return;
	}
	if ((pg = pg_connect(url, err, sizeof(err))) == NULL ||
	    pg_exec(pg, "SET search_path = " SCHEMA) == -1 || (b = db_conn_pg(pg)) == NULL) {
		ok(0, "postgres: a second connection (%s)", err);
		if (b == NULL)
			pg_close(pg);
		dbh_pg_close(a, SCHEMA);
		return;
	}
	ok(1, "postgres: a second connection, the writer");

	/* The counter: one statement is its prepare, its execution and its release. */
	rt = db_round_trips(a);
	ok(db_stmt_int(a, "SELECT pg_backend_pid()", &pid) == 0, "postgres: a statement");
	is_int(db_round_trips(a) - rt, 3, "postgres: ... counted as 3 round trips "
	    "(prepare, execute, deallocate)");

	ok(db_listen(a) == 0, "postgres: db_listen");
	is_int(db_listening(a), 1, "postgres: ... the connection listens");
	is_str(stored(a), "-", "postgres: " NAME " not stored (the settings read and kept)");
	rt = db_round_trips(a);
	is_str(stored(a), "-", "postgres: ... read again");
	is_int(db_round_trips(a) - rt, 0, "postgres: ... from what the connection keeps");

	/* A write in a transaction is announced at its commit, for its table only. */
	gens(a, g0, sizeof(g0));
	ok(db_begin(b) == 0 && db_run(b, "INSERT INTO settings (name, value, updated_at) "
	    "VALUES (?1, 'mark', '2026-01-01T00:00:00Z')", "t", NAME) == 0,
	    "postgres: the writer sets %s in a transaction", NAME);
	is_int(heard(a, DB_CACHE_SETTINGS, 200), 0, "postgres: ... not announced before "
	    "its commit");
	is_str(stored(a), "-", "postgres: ... the kept value stands");
	ok(db_commit(b) == 0, "postgres: ... committed");
	rt = db_round_trips(a);
	is_int(heard(a, DB_CACHE_SETTINGS, 5000), 1, "postgres: ... announced");
	is_int(db_round_trips(a) - rt, 0, "postgres: ... draining costs no round trip");
	gens(a, g1, sizeof(g1));
	snprintf(sql, sizeof(sql), "%lu %lu %lu", db_cache_gen(a, DB_CACHE_LIBRARIES),
	    strtoul(strchr(g0, ' ') + 1, NULL, 10) + 1, db_cache_gen(a, DB_CACHE_KEYS));
	is_str(g1, sql, "postgres: ... the settings' caches dropped, libraries' and keys' "
	    "kept");
	is_str(stored(a), "mark", "postgres: ... and the new value read");

	/* Nothing changed, nothing announced; a rollback announces nothing. */
	ok(db_run(b, "UPDATE settings SET value = value WHERE name = ?1", "t", NAME) == 0,
	    "postgres: an UPDATE that changes nothing");
	is_int(heard(a, DB_CACHE_SETTINGS, 300), 0, "postgres: ... announces nothing");
	ok(db_begin(b) == 0 && db_run(b, "DELETE FROM settings WHERE name = ?1", "t",
	    NAME) == 0, "postgres: a delete");
	db_rollback(b);
	is_int(heard(a, DB_CACHE_SETTINGS, 300), 0, "postgres: ... rolled back: nothing "
	    "announced");
	is_str(stored(a), "mark", "postgres: ... the value stands");
	ok(db_run(b, "DELETE FROM settings WHERE name = ?1", "t", NAME) == 0,
	    "postgres: the delete committed");
	is_int(heard(a, DB_CACHE_SETTINGS, 5000), 1, "postgres: ... announced");
	is_str(stored(a), "-", "postgres: ... and read");

	/* A key: its use (last_used_at) is not announced, its revocation is. */
	ok(db_run(b, "INSERT INTO api_keys (name, prefix, hash, admin, created_at) VALUES "
	    "('k', 'ctxd_x', 'h', 0, '2026-01-01T00:00:00Z')", "") == 0,
	    "postgres: a key created");
	is_int(heard(a, DB_CACHE_KEYS, 5000), 1, "postgres: ... announced");
	ok(db_run(b, "UPDATE api_keys SET last_used_at = '2026-01-02T00:00:00Z' WHERE "
	    "hash = 'h'", "") == 0 && db_changes(b) == 1, "postgres: the key used");
	is_int(heard(a, DB_CACHE_KEYS, 300), 0, "postgres: ... not announced (no lookup "
	    "changes)");
	ok(db_run(b, "UPDATE api_keys SET revoked_at = '2026-01-03T00:00:00Z' WHERE "
	    "hash = 'h'", "") == 0 && db_changes(b) == 1, "postgres: the key revoked");
	is_int(heard(a, DB_CACHE_KEYS, 5000), 1, "postgres: ... announced");

	/* A lost connection drops every cache and stops listening. */
	gens(a, g0, sizeof(g0));
	snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%lld)", pid);
	ok(pid > 0 && db_exec(b, sql) == 0, "postgres: the listener's backend ended");
	is_int(heard(a, DB_CACHE_SETTINGS, 5000), -1, "postgres: ... db_drain_changes: "
	    "the connection is lost");
	gens(a, g1, sizeof(g1));
	ok(strcmp(g0, g1) != 0 && db_cache_gen(a, DB_CACHE_LIBRARIES) !=
	    strtoul(g0, NULL, 10), "postgres: ... every cache dropped");
	is_int(db_listening(a), 0, "postgres: ... and the connection listens no more");

	db_close(a);
	ok(dbh_pg_close(b, SCHEMA) == 0, "postgres: the schema dropped");
}

int
main(void)
{
	const char	*url = dbh_pg_url();

	sqlite_half();
	if (url == NULL)
		printf("# DATABASE_URL unset: PostgreSQL is not tried\n");
	else
		postgres_half(url);
	return tap_done();
}
