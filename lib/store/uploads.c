/*
 * store/uploads.c: the uploads the OpenAPI libraries name.
 *
 * Engine: the upload is a field of libraries.settings (JSON as text), a string or nothing:
 * SQLite reads it with json_valid, json_type and json_extract, PostgreSQL with
 * settings::jsonb (a settings text that is not JSON, which ctxd never writes, is an
 * error there where SQLite passes over it). A value compared with IS NOT on SQLite, which
 * also holds for NULL, is IS DISTINCT FROM on PostgreSQL.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/uploads.h"
#include "store/stmt.h"

/* The "upload" string of libraries.settings, NULL when it is none. */
#define UPLOAD_LITE	"CASE WHEN json_valid(settings) THEN CASE WHEN json_type(settings, " \
			"'$.upload') = 'text' THEN json_extract(settings, '$.upload') END END"
#define UPLOAD_PG	"CASE WHEN jsonb_typeof(settings::jsonb -> 'upload') = 'string' THEN " \
			"settings::jsonb ->> 'upload' END"

int
store_upload_of(struct db *db, const char *library_id, char **value)
{
	struct db_stmt	*st;
	int		 step;

	*value = NULL;
	if (db_prepare(db, DB_PAIR("SELECT " UPLOAD_LITE " FROM libraries WHERE id = ?1 AND "
	    "source_type = 'openapi'", "SELECT " UPLOAD_PG " FROM libraries WHERE id = ?1 AND "
	    "source_type = 'openapi'"), &st) == -1)
		goto dberr;
	db_bind_text(st, 1, library_id);
	if ((step = db_step(st)) == DB_ROW && !db_col_null(st, 0) &&
	    (*value = strdup(db_col_text(st, 0))) == NULL) {
		db_finalize(st);
		log_err("%s: out of memory", __func__);
		return -1;
	}
	db_finalize(st);
	if (step == DB_ROW || step == DB_DONE)
		return 0;
dberr:
	log_err("%s: %s", __func__, db_conn_errmsg(db));
	return -1;
}

int
store_upload_used(struct db *db, const char *name, const char *except)
{
	struct db_stmt	*st;
	int		 step;

	if (db_prepare(db, DB_PAIR("SELECT 1 FROM libraries WHERE source_type = 'openapi' "
	    "AND id IS NOT ?2 AND " UPLOAD_LITE " = ?1 LIMIT 1",
	    "SELECT 1 FROM libraries WHERE source_type = 'openapi' "
	    "AND id IS DISTINCT FROM ?2 AND " UPLOAD_PG " = ?1 LIMIT 1"), &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, except);
	step = db_step(st);
	if (step != DB_ROW && step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return step == DB_ROW ? 1 : step == DB_DONE ? 0 : -1;
}

int
store_upload_each_of_user(struct db *db, long long user_id, const char *except,
    const char *name, int (*cb)(const char *, void *), void *arg)
{
	struct db_stmt	*st;
	int		 step;

	if (db_prepare(db, DB_PAIR("SELECT DISTINCT u FROM (SELECT " UPLOAD_LITE " AS u FROM "
	    "libraries WHERE source_type = 'openapi' AND coalesce(created_by, 0) = ?1 AND "
	    "id IS NOT ?2) WHERE u IS NOT NULL AND u IS NOT ?3",
	    "SELECT DISTINCT u FROM (SELECT " UPLOAD_PG " AS u FROM "
	    "libraries WHERE source_type = 'openapi' AND coalesce(created_by, 0) = ?1 AND "
	    "id IS DISTINCT FROM ?2) AS t WHERE u IS NOT NULL AND u IS DISTINCT FROM ?3"),
	    &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return -1;
	}
	db_bind_int64(st, 1, user_id);
	db_bind_text(st, 2, except);
	db_bind_text(st, 3, name);
	while ((step = db_step(st)) == DB_ROW) {
		if (db_col_null(st, 0))
			continue;
		if (cb(db_col_text(st, 0), arg) == -1) {
			db_finalize(st);
			return -1;
		}
	}
	if (step != DB_DONE)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return step == DB_DONE ? 0 : -1;
}
