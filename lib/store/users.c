/* store/users.c: the rows of the users table. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/util.h"
#include "store/users.h"
#include "store/stmt.h"

static void
store_user_from_row(struct db_stmt *st, struct user *u)
{
	memset(u, 0, sizeof(*u));
	u->id = db_col_int64(st, 0);
	snprintf(u->name, sizeof(u->name), "%s", db_col_text(st, 1));
	u->admin = strcmp(db_col_text(st, 2), "admin") == 0;
	u->disabled = db_col_int64(st, 3) != 0;
	u->must_change = db_col_int64(st, 4) != 0;
	snprintf(u->created, sizeof(u->created), "%s", db_col_text(st, 5));
	snprintf(u->updated, sizeof(u->updated), "%s", db_col_text(st, 6));
}

#define USER_COLUMNS	"id, name, role, disabled, must_change_password, created_at, " \
			"updated_at, password"

/* One user by name (byname) or id; 0 found, 1 none, -1 error. *hash gets the hash. */
static int
store_user_get(struct db *db, const char *name, long long id, struct user *u, char **hash)
{
	struct db_stmt	*st;
	int		 rc = 1, s;

	if (hash != NULL)
		*hash = NULL;
	if (db_prepare(db, name != NULL ?
	    "SELECT " USER_COLUMNS " FROM users WHERE name = ?1" :
	    "SELECT " USER_COLUMNS " FROM users WHERE id = ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	if (name != NULL)
		db_bind_text(st, 1, name);
	else
		db_bind_int64(st, 1, id);
	if ((s = db_step(st)) == DB_ROW) {
		store_user_from_row(st, u);
		if (hash != NULL && (*hash = strdup(db_col_text(st, 7))) == NULL)
			rc = -1;
		else
			rc = 0;
	} else if (s != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}

int
store_user_by_name(struct db *db, const char *name, struct user *u, char **hash)
{
	return store_user_get(db, name, 0, u, hash);
}

int
store_user_by_id(struct db *db, long long id, struct user *u)
{
	return store_user_get(db, NULL, id, u, NULL);
}

/*
 * Engine: a taken name (the unique key, case-insensitive on both engines) is no error but
 * no row back (ON CONFLICT DO NOTHING ... RETURNING): on PostgreSQL a refused row would
 * abort the caller's transaction, and neither engine logs a failure that is none.
 */
int
store_user_insert(struct db *db, const char *name, int admin, const char *hash,
    int must_change, long long *id)
{
	struct db_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1, s;

	util_iso8601(time(NULL), now, sizeof(now));
	if (db_prepare(db, "INSERT INTO users (name, role, password, must_change_password, "
	    "created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5) ON CONFLICT DO NOTHING "
	    "RETURNING id", &st) == -1)
		goto dberr;
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, admin ? "admin" : "member");
	db_bind_text(st, 3, hash);
	db_bind_int64(st, 4, must_change != 0);
	db_bind_text(st, 5, now);
	if ((s = db_step(st)) == DB_DONE) {
		rc = 1;
		goto out;
	}
	if (s != DB_ROW)
		goto dberr;
	if (id != NULL)
		*id = db_col_int64(st, 0);
	if (db_step(st) != DB_DONE)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	log_err("%s: %s", __func__, db_conn_errmsg(db));
out:
	db_finalize(st);
	return rc;
}

/* 0 when the last UPDATE/DELETE of a user (its result rc) changed a row, 1 when none. */
static int
store_user_changed(struct db *db, int rc)
{
	if (rc == -1)
		return -1;
	return db_changes(db) > 0 ? 0 : 1;
}

/* Each statement binds ?1 = id, ?2 = now, then its own values. */
int
store_user_set_password(struct db *db, long long id, const char *hash, int must_change)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	return store_user_changed(db, db_stmt_run(db, "UPDATE users SET password = ?3, "
	    "must_change_password = ?4, updated_at = ?2 WHERE id = ?1", "Itti", id, now,
	    hash, must_change != 0));
}

int
store_user_set_role(struct db *db, long long id, int admin)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	return store_user_changed(db, db_stmt_run(db, "UPDATE users SET role = ?3, "
	    "updated_at = ?2 WHERE id = ?1", "Itt", id, now, admin ? "admin" : "member"));
}

int
store_user_set_disabled(struct db *db, long long id, int disabled)
{
	char	 now[32];

	util_iso8601(time(NULL), now, sizeof(now));
	return store_user_changed(db, db_stmt_run(db, "UPDATE users SET disabled = ?3, "
	    "updated_at = ?2 WHERE id = ?1", "Iti", id, now, disabled != 0));
}

int
store_user_delete(struct db *db, long long id)
{
	return store_user_changed(db, db_stmt_run(db, "DELETE FROM users WHERE id = ?1", "I",
	    id));
}

int
store_user_other_admins(struct db *db, long long id)
{
	struct db_stmt	*st;
	int		 n = -1;

	if (db_prepare(db, "SELECT count(*) FROM users WHERE role = 'admin' AND disabled = 0 "
	    "AND id != ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_int64(st, 1, id);
	if (db_step(st) == DB_ROW)
		n = (int)db_col_int64(st, 0);
	else
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return n;
}

/*
 * Engine: by name without case, in SQLite's order (NOCASE: ASCII letters folded, then
 * bytes) on both: PostgreSQL's ICU collation nocase would sort punctuation otherwise.
 */
int
store_user_each(struct db *db, int (*cb)(const struct user *, void *), void *arg)
{
	struct db_stmt	*st;
	struct user	 u;
	int		 s, rc = 0;

	if (db_prepare(db, DB_PAIR("SELECT " USER_COLUMNS " FROM users ORDER BY name",
	    "SELECT " USER_COLUMNS " FROM users ORDER BY lower(name) COLLATE \"C\""),
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	while ((s = db_step(st)) == DB_ROW) {
		store_user_from_row(st, &u);
		if (cb(&u, arg) != 0)
			break;
	}
	if (s != DB_ROW && s != DB_DONE) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		rc = -1;
	}
	db_finalize(st);
	return rc;
}
