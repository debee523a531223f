/*
 * store/uploads.c: the uploads the OpenAPI libraries name.
 *
 * Engine: the upload is a field of libraries.settings, read with SQLite's JSON functions
 * (json_valid, json_extract; PostgreSQL: settings::jsonb ->> 'upload'), and compared with
 * IS NOT, which also holds for NULL (PostgreSQL: IS DISTINCT FROM).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/log.h"
#include "store/uploads.h"
#include "store/conn.h"

int
store_upload_of(struct db *db, const char *library_id, char **value)
{
	sqlite3_stmt	*st;
	int		 step;

	*value = NULL;
	if (sqlite3_prepare_v2(db_lite(db), "SELECT CASE WHEN json_valid(settings) THEN "
	    "json_extract(settings, '$.upload') END FROM libraries WHERE id = ?1 AND "
	    "source_type = 'openapi'", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, library_id, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(st)) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_TEXT &&
	    (*value = strdup((const char *)sqlite3_column_text(st, 0))) == NULL)
		step = SQLITE_NOMEM;
	sqlite3_finalize(st);
	if (step == SQLITE_ROW || step == SQLITE_DONE)
		return 0;
dberr:
	log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	return -1;
}

int
store_upload_used(struct db *db, const char *name, const char *except)
{
	sqlite3_stmt	*st;
	int		 step;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT 1 FROM libraries WHERE source_type = 'openapi' "
	    "AND id IS NOT ?2 AND CASE WHEN json_valid(settings) THEN "
	    "json_extract(settings, '$.upload') END = ?1 LIMIT 1", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (except != NULL)
		sqlite3_bind_text(st, 2, except, -1, SQLITE_STATIC);
	step = sqlite3_step(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
}

int
store_upload_each_of_user(struct db *db, long long user_id, const char *except,
    const char *name, int (*cb)(const char *, void *), void *arg)
{
	sqlite3_stmt	*st;
	int		 step;

	if (sqlite3_prepare_v2(db_lite(db), "SELECT DISTINCT u FROM (SELECT CASE WHEN "
	    "json_valid(settings) THEN json_extract(settings, '$.upload') END AS u FROM "
	    "libraries WHERE source_type = 'openapi' AND coalesce(created_by, 0) = ?1 AND "
	    "id IS NOT ?2) WHERE u IS NOT NULL AND u IS NOT ?3", -1, &st,
	    NULL) != SQLITE_OK) {
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, user_id);
	if (except != NULL)
		sqlite3_bind_text(st, 2, except, -1, SQLITE_STATIC);
	if (name != NULL)
		sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT)
			continue;
		if (cb((const char *)sqlite3_column_text(st, 0), arg) == -1) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (step != SQLITE_DONE)
		log_err("%s: %s", __func__, sqlite3_errmsg(db_lite(db)));
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : -1;
}
