/* store/users.c: the rows of the users table. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "base/log.h"
#include "base/util.h"
#include "store/users.h"
#include "store/conn.h"

static void
store_user_from_row(sqlite3_stmt *st, struct user *u)
{
	memset(u, 0, sizeof(*u));
	u->id = sqlite3_column_int64(st, 0);
	snprintf(u->name, sizeof(u->name), "%s", (const char *)sqlite3_column_text(st, 1));
	u->admin = strcmp((const char *)sqlite3_column_text(st, 2), "admin") == 0;
	u->disabled = sqlite3_column_int(st, 3);
	u->must_change = sqlite3_column_int(st, 4);
	snprintf(u->created, sizeof(u->created), "%s",
	    (const char *)sqlite3_column_text(st, 5));
	snprintf(u->updated, sizeof(u->updated), "%s",
	    (const char *)sqlite3_column_text(st, 6));
}

#define USER_COLUMNS	"id, name, role, disabled, must_change_password, created_at, " \
			"updated_at, password"

/* One user by name (byname) or id; 0 found, 1 none, -1 error. *hash gets the hash. */
static int
store_user_get(struct db *db, const char *name, long long id, struct user *u, char **hash)
{
	sqlite3_stmt	*st;
	int		 rc = 1, s;

	if (hash != NULL)
		*hash = NULL;
	if (sqlite3_prepare_v2(db_lite(db), name != NULL ?
	    "SELECT " USER_COLUMNS " FROM users WHERE name = ?1" :
	    "SELECT " USER_COLUMNS " FROM users WHERE id = ?2", -1, &st, NULL) !=
	    SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	if (name != NULL)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, id);
	if ((s = sqlite3_step(st)) == SQLITE_ROW) {
		store_user_from_row(st, u);
		if (hash != NULL &&
		    (*hash = strdup((const char *)sqlite3_column_text(st, 7))) == NULL)
			rc = -1;
		else
			rc = 0;
	} else if (s != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		rc = -1;
	}
	sqlite3_finalize(st);
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

int
store_user_insert(struct db *db, const char *name, int admin, const char *hash,
    int must_change, long long *id)
{
	sqlite3_stmt	*st = NULL;
	char		 now[32];
	int		 rc = -1, s;

	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db_lite(db), "INSERT INTO users (name, role, password, "
	    "must_change_password, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, "
	    "?5, ?5)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, admin ? "admin" : "member", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, must_change != 0);
	sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
	if (((s = sqlite3_step(st)) & 0xff) == SQLITE_CONSTRAINT) {
		rc = 1;
		goto out;
	}
	if (s != SQLITE_DONE)
		goto dberr;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(db_lite(db));
	rc = 0;
	goto out;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
out:
	sqlite3_finalize(st);
	return rc;
}

/*
 * Runs one UPDATE/DELETE of a user: ?1 = id, and where the statement names them ?2 = text,
 * ?3 = num, ?4 = now. 0 when a row changed, 1 when none did, -1 on error.
 */
static int
store_user_write(struct db *db, const char *sql, long long id, const char *text, int num)
{
	sqlite3_stmt	*st;
	char		 now[32];
	int		 rc = -1;

	util_iso8601(time(NULL), now, sizeof(now));
	if (sqlite3_prepare_v2(db_lite(db), sql, -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int(st, 3, num);
	if (sqlite3_bind_parameter_count(st) >= 4)
		sqlite3_bind_text(st, 4, now, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = sqlite3_changes(db_lite(db)) > 0 ? 0 : 1;
	else
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return rc;
}

int
store_user_set_password(struct db *db, long long id, const char *hash, int must_change)
{
	return store_user_write(db, "UPDATE users SET password = ?2, "
	    "must_change_password = ?3, updated_at = ?4 WHERE id = ?1", id, hash,
	    must_change != 0);
}

int
store_user_set_role(struct db *db, long long id, int admin)
{
	return store_user_write(db, "UPDATE users SET role = ?2, updated_at = ?4 WHERE "
	    "id = ?1", id, admin ? "admin" : "member", 0);
}

int
store_user_set_disabled(struct db *db, long long id, int disabled)
{
	return store_user_write(db, "UPDATE users SET disabled = ?3, updated_at = ?4 WHERE "
	    "id = ?1", id, NULL, disabled != 0);
}

int
store_user_delete(struct db *db, long long id)
{
	return store_user_write(db, "DELETE FROM users WHERE id = ?1", id, NULL, 0);
}

int
store_user_other_admins(struct db *db, long long id)
{
	sqlite3_stmt	*st;
	int		 n = -1;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT count(*) FROM users WHERE role = 'admin' "
	    "AND disabled = 0 AND id != ?1", -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

int
store_user_each(struct db *db, int (*cb)(const struct user *, void *), void *arg)
{
	sqlite3_stmt	*st;
	struct user	 u;
	int		 s, rc = 0;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT " USER_COLUMNS " FROM users ORDER BY name",
	    -1, &st, NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		store_user_from_row(st, &u);
		if (cb(&u, arg) != 0)
			break;
	}
	if (s != SQLITE_ROW && s != SQLITE_DONE) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}
