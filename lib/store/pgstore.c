/* pgstore.c: a PostgreSQL database as the store: schema and copy (pgstore.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "base/log.h"
#include "base/util.h"
#include "store/pg.h"
#include "store/pgstore.h"
#include "store/stmt.h"

/* Compiled in from sql/ by script/sql2c (lib/store/sql_schema.c). */
extern const char sql_pg_schema[];
extern const char *const sql_pg_migrations[];	/* [0] upgrades sql_pg_base to + 1, ... */
extern const int sql_pg_base;
extern const int sql_version;		/* this build's schema version (db_schema_version) */

/* The advisory lock key of schema changes ("ctxd" in ASCII). */
#define PGSTORE_SCHEMA_LOCK	"SELECT pg_advisory_xact_lock(1668577380)"

static void
pgstore_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
pgstore_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * The rows a new SQLite database starts with (sql/schema.sql, sql/0005-gitops.sql), for a new
 * PostgreSQL one that is not a copy's target (a copy brings SQLite's own): the admin "admin"
 * with the password "admin", to be changed at the first sign-in (the same scrypt hash as
 * sql/schema.sql's), and GitOps' one state row. ?1, where there is one: now.
 */
static const char *const pgstore_seed[] = {
	"INSERT INTO users (name, role, password, must_change_password, created_at, updated_at) "
	    "VALUES ('admin', 'admin', 'scrypt$15$8$1$SblK_THMWHlEAd8JMlbEvw$AezytBo02SmJVncd_"
	    "OQQDIhmjeK5GwSWUyRosYfPSgU', 1, ?1, ?1)",
	"INSERT INTO gitops_state (id) VALUES (1)",
};

/*
 * The schema inside the caller's transaction: created (version 0) or migrated. history: add
 * the schema_history row and seed a new database (not when a copy brings SQLite's own
 * history and rows).
 */
static int
pgstore_migrate_in(struct pg *pg, struct db *db, int *from, int history, char *err,
    size_t errlen)
{
	struct db_stmt	*st;
	long long	 exists, v;
	int		 i, rc, to = sql_version;

	*from = 0;
	if (pg_exec(pg, PGSTORE_SCHEMA_LOCK) == -1 ||
	    db_stmt_int(db, "SELECT to_regclass('ctxd_schema') IS NOT NULL", &exists) == -1)
		goto fail;
	if (!exists) {
		if (pg_exec(pg, sql_pg_schema) == -1)
			goto fail;
		v = sql_pg_base;
		for (i = 0; history && i < (int)(sizeof(pgstore_seed) / sizeof(pgstore_seed[0]));
		    i++) {
			char	 now[32];

			util_iso8601(time(NULL), now, sizeof(now));
			if (db_prepare(db, pgstore_seed[i], &st) == -1)
				goto fail;
			if (db_param_count(st) >= 1)
				db_bind_text(st, 1, now);
			rc = db_step(st);
			db_finalize(st);
			if (rc != DB_DONE)
				goto fail;
		}
	} else {
		if (db_stmt_int(db, "SELECT version FROM ctxd_schema", &v) == -1)
			goto fail;
		*from = (int)v;
	}
	if (v > to) {
		pgstore_err(err, errlen, "the database has schema version %lld, newer than "
		    "this build's %d: run a newer ctxd", v, to);
		return -1;
	}
	for (i = (int)v - sql_pg_base; v < to; i++, v++)
		if (sql_pg_migrations[i] == NULL || pg_exec(pg, sql_pg_migrations[i]) == -1)
			goto fail;
	if (db_prepare(db, "UPDATE ctxd_schema SET version = ?1", &st) == -1)
		goto fail;
	db_bind_int64(st, 1, to);
	i = db_step(st);
	db_finalize(st);
	if (i != DB_DONE)
		goto fail;
	if (history && *from != to) {
		if (db_prepare(db, "INSERT INTO schema_history (from_version, to_version, "
		    "release, at) VALUES (?1, ?2, ?3, ?4)", &st) == -1)
			goto fail;
		db_bind_int64(st, 1, *from);
		db_bind_int64(st, 2, to);
		db_bind_text(st, 3, PACKAGE_VERSION);
		db_bind_int64(st, 4, (long long)time(NULL));
		i = db_step(st);
		db_finalize(st);
		if (i != DB_DONE)
			goto fail;
	}
	return 0;
fail:
	pgstore_err(err, errlen, "%s", pg_errmsg(pg));
	return -1;
}

int
pgstore_migrate(struct pg *pg, int *from, char *err, size_t errlen)
{
	struct db	*db = db_conn_pg(pg);

	if (db == NULL) {
		pgstore_err(err, errlen, "out of memory");
		return -1;
	}
	if (pg_begin(pg) == -1 || pgstore_migrate_in(pg, db, from, 1, err, errlen) == -1 ||
	    pg_commit(pg) == -1) {
		if (*err == '\0')
			pgstore_err(err, errlen, "%s", pg_errmsg(pg));
		pg_rollback(pg);
		db_conn_free(db);
		return -1;
	}
	db_conn_free(db);
	return 0;
}

/*
 * The tables a copy carries, parents first: SQLite's statement that reads a table, its
 * columns in the order PostgreSQL's statement writes them, and the count both engines run.
 * blob: the column that is bytes, -1 none. t0019 checks that every column of both schemas is
 * here. documents.shows is left out: PostgreSQL's trigger computes it.
 */
static const struct pgstore_table {
	const char	*name;
	int		 blob;
	const char	*select, *insert, *count;
} pgstore_tables[] = {
	{ "users", -1,
	    "SELECT id, name, role, password, disabled, must_change_password, "
	    "created_at, updated_at FROM users",
	    "INSERT INTO users (id, name, role, password, disabled, "
	    "must_change_password, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, "
	    "?5, ?6, ?7, ?8)",
	    "SELECT count(*) FROM users" },
	{ "libraries", -1,
	    "SELECT id, lib_no, source_type, url, host, branch, settings, title, "
	    "description, state, gitops, indexed_commit, indexed_branch, "
	    "indexed_settings, blob_prefix, index_version, embed_version, run_status, "
	    "run_started, run_finished, last_error, total_documents, total_snippets, "
	    "total_tokens, created_at, updated_at, created_by, version_of, "
	    "created_anonymously FROM libraries",
	    "INSERT INTO libraries (id, lib_no, source_type, url, host, branch, "
	    "settings, title, description, state, gitops, indexed_commit, "
	    "indexed_branch, indexed_settings, blob_prefix, index_version, "
	    "embed_version, run_status, run_started, run_finished, last_error, "
	    "total_documents, total_snippets, total_tokens, created_at, updated_at, "
	    "created_by, version_of, created_anonymously) VALUES (?1, ?2, ?3, ?4, ?5, "
	    "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
	    "?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)",
	    "SELECT count(*) FROM libraries" },
	{ "library_hosts", -1,
	    "SELECT id, host, bound_at FROM library_hosts",
	    "INSERT INTO library_hosts (id, host, bound_at) VALUES (?1, ?2, ?3) ON "
	    "CONFLICT (id) DO UPDATE SET host = excluded.host, bound_at = "
	    "excluded.bound_at",
	    "SELECT count(*) FROM library_hosts" },
	{ "documents", -1,
	    "SELECT id, library_id, path, blob, title, url, etag, modified, "
	    "snippets_from FROM documents",
	    "INSERT INTO documents (id, library_id, path, blob, title, url, etag, "
	    "modified, snippets_from) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	    "SELECT count(*) FROM documents" },
	{ "snippets", -1,
	    "SELECT id, library_id, document_id, ord, title, breadcrumb, anchor, "
	    "text, code, tokens, hash, sig, dup_of, heading, described FROM snippets",
	    "INSERT INTO snippets (id, library_id, document_id, ord, title, "
	    "breadcrumb, anchor, text, code, tokens, hash, sig, dup_of, heading, "
	    "described) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
	    "?13, ?14, ?15)",
	    "SELECT count(*) FROM snippets" },
	{ "snippet_descriptions", -1,
	    "SELECT hash, model, title, description, created_at FROM "
	    "snippet_descriptions",
	    "INSERT INTO snippet_descriptions (hash, model, title, description, "
	    "created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
	    "SELECT count(*) FROM snippet_descriptions" },
	{ "snippet_flags", -1,
	    "SELECT snippet_id, library_id, rule, excerpt FROM snippet_flags",
	    "INSERT INTO snippet_flags (snippet_id, library_id, rule, excerpt) VALUES "
	    "(?1, ?2, ?3, ?4)",
	    "SELECT count(*) FROM snippet_flags" },
	{ "vectors", 3,
	    "SELECT model, hash, dim, vector FROM vectors",
	    "INSERT INTO vectors (model, hash, dim, vector) VALUES (?1, ?2, ?3, ?4)",
	    "SELECT count(*) FROM vectors" },
	{ "embeddings", -1,
	    "SELECT snippet_id, model, hash FROM embeddings",
	    "INSERT INTO embeddings (snippet_id, model, hash) VALUES (?1, ?2, ?3)",
	    "SELECT count(*) FROM embeddings" },
	{ "jobs", -1,
	    "SELECT id, library_id, kind, state, force, attempts, cancel_requested, "
	    "message, created_at, started_at, finished_at, phase, docs_total, "
	    "docs_done, snippets_total, describe_total, described, embed_total, "
	    "embedded, progress_at, queued_by, queued_via, lease_holder, lease_until, "
	    "claim_no, queued_admin FROM jobs",
	    "INSERT INTO jobs (id, library_id, kind, state, force, attempts, "
	    "cancel_requested, message, created_at, started_at, finished_at, phase, "
	    "docs_total, docs_done, snippets_total, describe_total, described, "
	    "embed_total, embedded, progress_at, queued_by, queued_via, lease_holder, "
	    "lease_until, claim_no, queued_admin) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	    "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, "
	    "?23, ?24, ?25, ?26)",
	    "SELECT count(*) FROM jobs" },
	{ "job_log", -1,
	    "SELECT id, job_id, at, level, line FROM job_log",
	    "INSERT INTO job_log (id, job_id, at, level, line) VALUES (?1, ?2, ?3, "
	    "?4, ?5)",
	    "SELECT count(*) FROM job_log" },
	{ "settings", -1,
	    "SELECT name, value, updated_at FROM settings",
	    "INSERT INTO settings (name, value, updated_at) VALUES (?1, ?2, ?3)",
	    "SELECT count(*) FROM settings" },
	{ "api_keys", -1,
	    "SELECT id, name, prefix, hash, admin, created_at, last_used_at, "
	    "revoked_at, user_id FROM api_keys",
	    "INSERT INTO api_keys (id, name, prefix, hash, admin, created_at, "
	    "last_used_at, revoked_at, user_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	    "?8, ?9)",
	    "SELECT count(*) FROM api_keys" },
	{ "sessions", -1,
	    "SELECT id, user_id, hash, created, last_seen FROM sessions",
	    "INSERT INTO sessions (id, user_id, hash, created, last_seen) VALUES (?1, "
	    "?2, ?3, ?4, ?5)",
	    "SELECT count(*) FROM sessions" },
	{ "login_throttle", -1,
	    "SELECT scope, key, failures, last_at, locked_until FROM login_throttle",
	    "INSERT INTO login_throttle (scope, key, failures, last_at, locked_until) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)",
	    "SELECT count(*) FROM login_throttle" },
	{ "gitops_runs", -1,
	    "SELECT id, trigger, state, attempts, manifest_commit, result, message, "
	    "created_at, started_at, finished_at FROM gitops_runs",
	    "INSERT INTO gitops_runs (id, trigger, state, attempts, manifest_commit, "
	    "result, message, created_at, started_at, finished_at) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	    "SELECT count(*) FROM gitops_runs" },
	{ "gitops_state", -1,
	    "SELECT id, last_commit, last_config, last_slot FROM gitops_state",
	    "INSERT INTO gitops_state (id, last_commit, last_config, last_slot) "
	    "VALUES (?1, ?2, ?3, ?4)",
	    "SELECT count(*) FROM gitops_state" },
	{ "ghapp_tokens", -1,
	    "SELECT installation_id, token, expires_at FROM ghapp_tokens",
	    "INSERT INTO ghapp_tokens (installation_id, token, expires_at) VALUES "
	    "(?1, ?2, ?3)",
	    "SELECT count(*) FROM ghapp_tokens" },
	{ "hook_deliveries", -1,
	    "SELECT id, received_at FROM hook_deliveries",
	    "INSERT INTO hook_deliveries (id, received_at) VALUES (?1, ?2)",
	    "SELECT count(*) FROM hook_deliveries" },
	{ "schema_history", -1,
	    "SELECT id, from_version, to_version, release, at FROM schema_history",
	    "INSERT INTO schema_history (id, from_version, to_version, release, at) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)",
	    "SELECT count(*) FROM schema_history" },
	{ "audit_log", -1,
	    "SELECT id, at, actor, action, detail FROM audit_log",
	    "INSERT INTO audit_log (id, at, actor, action, detail) VALUES (?1, ?2, "
	    "?3, ?4, ?5)",
	    "SELECT count(*) FROM audit_log" },
	/* empty on SQLite (store/segstore.h); listed so that every table is copied */
	{ "segment_files", -1,
	    "SELECT name, lib_no, index_version, embed_version, vec_model, size, sha256, "
	    "stored_at FROM segment_files",
	    "INSERT INTO segment_files (name, lib_no, index_version, embed_version, "
	    "vec_model, size, sha256, stored_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	    "SELECT count(*) FROM segment_files" },
	{ "segment_chunks", 2,
	    "SELECT name, seq, data FROM segment_chunks",
	    "INSERT INTO segment_chunks (name, seq, data) VALUES (?1, ?2, ?3)",
	    "SELECT count(*) FROM segment_chunks" },
};

/*
 * Copies one table's rows; *n: how many. 0, or -1. A text value that is not UTF-8 (a row
 * an older version stored before it repaired such bytes: PostgreSQL's UTF-8 database
 * refuses it) is copied with U+FFFD for each bad byte, as the index and the answers repair
 * it, and counted in a warning.
 */
static int
pgstore_copy_table(struct db *lite, struct db *pg, const struct pgstore_table *t,
    long long *n, char *err, size_t errlen)
{
	struct db_stmt	*from = NULL, *to = NULL;
	const void	*b;
	const char	*v;
	char		*fixed;
	size_t		 len;
	long long	 repaired = 0;
	int		 i, ncol, rc = -1, step;

	*n = 0;
	if (db_prepare(lite, t->select, &from) == -1) {
		pgstore_err(err, errlen, "%s: %s", t->name, db_conn_errmsg(lite));
		goto out;
	}
	if (db_prepare(pg, t->insert, &to) == -1) {
		pgstore_err(err, errlen, "%s: %s", t->name, db_conn_errmsg(pg));
		goto out;
	}
	ncol = db_param_count(to);
	while ((step = db_step(from)) == DB_ROW) {
		db_reset(to);
		for (i = 0; i < ncol; i++) {
			if (db_col_null(from, i))
				db_bind_null(to, i + 1);
			else if (i == t->blob) {
				b = db_col_blob(from, i, &len);
				db_bind_blob(to, i + 1, b, len);
			} else {
				v = db_col_text(from, i);
				if (util_utf8_valid(v, strlen(v))) {
					db_bind_text(to, i + 1, v);
					continue;
				}
				/* PostgreSQL copies what it binds: freed at once */
				if ((fixed = util_utf8_repair(v, strlen(v), NULL)) == NULL) {
					pgstore_err(err, errlen, "%s: out of memory", t->name);
					goto out;
				}
				db_bind_text(to, i + 1, fixed);
				free(fixed);
				repaired++;
			}
		}
		if (db_step(to) != DB_DONE) {
			pgstore_err(err, errlen, "%s, row %lld: %s", t->name, *n + 1,
			    db_conn_errmsg(pg));
			goto out;
		}
		(*n)++;
	}
	if (step != DB_DONE) {
		pgstore_err(err, errlen, "%s: %s", t->name, db_conn_errmsg(lite));
		goto out;
	}
	if (repaired > 0)
		log_warn("%s: %lld text value%s not UTF-8 (stored by an older version): copied "
		    "with U+FFFD for each invalid byte", t->name, repaired,
		    repaired == 1 ? " was" : "s were");
	rc = 0;
out:
	db_finalize(from);
	db_finalize(to);
	return rc;
}

int
pgstore_copy(struct db *l, struct pg *pg, FILE *out, char *err, size_t errlen)
{
	struct db	*p = db_conn_pg(pg);
	const size_t	 ntables = sizeof(pgstore_tables) / sizeof(pgstore_tables[0]);
	long long	 v, n, m;
	size_t		 i;
	int		 from;

	*err = '\0';
	if (p == NULL) {
		pgstore_err(err, errlen, "out of memory");
		goto fail;
	}
	/* (PRAGMA through store/stmt.h: db.c calls pgstore_migrate, so no db.h here) */
	if (db_stmt_int(l, "PRAGMA user_version", &v) == -1 || (from = (int)v) != sql_version) {
		pgstore_err(err, errlen, "the SQLite database has schema version %d, this build "
		    "copies version %d: run ctxd-admin init with this build first",
		    (int)v, sql_version);
		goto fail;
	}
	if (pg_begin(pg) == -1 || pg_exec(pg, "SET CONSTRAINTS ALL DEFERRED") == -1)
		goto fail;
	if (db_stmt_int(p, "SELECT to_regclass('ctxd_schema') IS NOT NULL", &v) == -1)
		goto fail;
	if (v) {
		/* Made by ctxd-admin init, say: taken only while no table but the history has rows. */
		for (i = 0; i < ntables; i++) {
			if (strcmp(pgstore_tables[i].name, "schema_history") == 0)
				continue;
			if (db_stmt_int(p, pgstore_tables[i].count, &n) == -1)
				goto fail;
			if (n > 0) {
				pgstore_err(err, errlen, "the PostgreSQL database is not empty "
				    "(table %s has %lld rows): copy into a new database",
				    pgstore_tables[i].name, n);
				goto fail;
			}
		}
		if (pg_exec(pg, "DELETE FROM schema_history") == -1)
			goto fail;
	}
	if (pgstore_migrate_in(pg, p, &from, 0, err, errlen) == -1)
		goto fail;
	for (i = 0; i < ntables; i++) {
		if (pgstore_copy_table(l, p, &pgstore_tables[i], &n, err, errlen) == -1)
			goto fail;
		if (db_stmt_int(l, pgstore_tables[i].count, &v) == -1 ||
		    db_stmt_int(p, pgstore_tables[i].count, &m) == -1)
			goto fail;
		if (v != n || m != n) {
			pgstore_err(err, errlen, "%s: %lld rows in SQLite, %lld copied, %lld in "
			    "PostgreSQL", pgstore_tables[i].name, v, n, m);
			goto fail;
		}
		fprintf(out, "%s\t%lld\n", pgstore_tables[i].name, n);
	}
	if (pg_exec(pg, "SELECT ctxd_reset_identities()") == -1 ||
	    pg_exec(pg, "SET CONSTRAINTS ALL IMMEDIATE") == -1 || pg_commit(pg) == -1)
		goto fail;
	db_conn_free(p);
	return 0;
fail:
	if (*err == '\0')
		pgstore_err(err, errlen, "%s", pg_errmsg(pg));
	if (pg_in_transaction(pg))
		pg_rollback(pg);
	db_conn_free(p);
	return -1;
}
