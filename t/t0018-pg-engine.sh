#!/usr/bin/env bash
# PostgreSQL through libpq (lib/store/pg.c), on a throwaway cluster of this test's own
# (t/lib/pg.sh: initdb, a server on 127.0.0.1, removed at the end): t/unit/test-pg's engine
# checks (statements, parameters, bytes, NULLs, transactions, errors, a statement run
# while another's rows are read, a lock not granted in time) against the real server.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
# It starts a cluster of its own and checks both engines: once, in the SQLite run.
engine_sqlite_only "starts its own PostgreSQL and checks both engines"

ctxd_setup
pg_start
is "$(pg_sql "SELECT current_user || ' ' || current_database()")" "ctxd ctxd" \
    "a cluster of the test's own, role and database ctxd"
like "$(pg_sql "SHOW server_version")" '^1[5-9]' "PostgreSQL 15 or later"
out=$("$top_builddir/t/unit/test-pg" 2>&1); rc=$?
is "$rc" 0 "test-pg against the server: every check passes"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -40)"
like "$(grep -c '^ok' <<<"$out")" '^[0-9]{2,}$' "... and the engine's checks ran ($(grep -c '^ok' <<<"$out") of them)"
unlike "$out" 'DATABASE_URL unset' "... not skipped"
is "$(pg_sql "SELECT count(*) FROM pg_tables WHERE tablename = 't'")" 0 "test-pg left no table behind"
# The store's statements on either engine: the same calls, the same answers (test-stmt).
out=$("$top_builddir/t/unit/test-stmt" 2>&1); rc=$?
is "$rc" 0 "test-stmt: SQLite and PostgreSQL answer alike"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -40)"
like "$(grep -c '^ok .* - postgres: ' <<<"$out")" '^[0-9]{2,}$' "... PostgreSQL's checks ran"
# The accounts' store modules (users, sessions, keys, audit, policies, trial, settings) on
# either engine: the same calls, the same answers (test-store-auth).
out=$("$top_builddir/t/unit/test-store-auth" 2>&1); rc=$?
is "$rc" 0 "test-store-auth: the accounts' store on SQLite and PostgreSQL"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -40)"
like "$(grep -c '^ok .* - postgres: ' <<<"$out")" '^[0-9]{3,}$' "... PostgreSQL's checks ran"
like "$out" 'ok [0-9]+ - SQLite and PostgreSQL answered alike' "... and answered as SQLite did"
is "$(pg_sql "SELECT count(*) FROM pg_namespace WHERE nspname = 'storeauth'")" 0 \
    "test-store-auth left no schema behind"

# The schema for PostgreSQL (sql/pg/schema.sql): the tables and columns of a SQLite database
# of the same version (but SQLite's full-text tables), and the same rules.
"$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -f "$top_srcdir/sql/pg/schema.sql" \
    >"$T/schema.out" 2>&1
is "$?" 0 "sql/pg/schema.sql loads"
[ -s "$T/schema.out" ] && diag "$(head -20 "$T/schema.out")"
# then its migrations, as pgstore_migrate runs them (which also counts ctxd_schema.version up)
pgver=$(pg_sql "SELECT version FROM ctxd_schema")
for m in "$top_srcdir"/sql/pg/[0-9][0-9][0-9][0-9]-*.sql; do
	[ -e "$m" ] || continue
	PGOPTIONS='-c client_min_messages=warning' "$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
	    "$DATABASE_URL" -f "$m" >"$T/migration.out" 2>&1
	is "$?" 0 "sql/pg/${m##*/} runs" || diag "$(head -20 "$T/migration.out")"
	pgver=$((pgver + 1))
done
DATABASE_URL= DATA_DIR=$T/lite ctxd_admin init >/dev/null 2>&1
is "$pgver" "$(sqlite3 "$T/lite/ctxd.db" 'PRAGMA user_version')" \
    "with its migrations, its version is the SQLite schema's (a migration past it needs its sql/pg twin)"
sqlite3 "$T/lite/ctxd.db" "SELECT m.name || '.' || p.name FROM sqlite_master m, pragma_table_xinfo(m.name) p
    WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'snippets_fts%' AND m.name NOT LIKE 'sqlite_%'
    ORDER BY 1" >"$T/lite.cols"
pg_sql "SELECT table_name || '.' || column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name <> 'ctxd_schema' ORDER BY 1" >"$T/pg.cols"
LC_ALL=C sort -o "$T/lite.cols" "$T/lite.cols"
LC_ALL=C sort -o "$T/pg.cols" "$T/pg.cols"
ok "$(cmp -s "$T/lite.cols" "$T/pg.cols"; echo $?)" \
    "the same tables, views and columns as SQLite's ($(wc -l <"$T/pg.cols") columns)"
cmp -s "$T/lite.cols" "$T/pg.cols" || diag "$(diff "$T/lite.cols" "$T/pg.cols" | head -20)"
pg_sql "INSERT INTO users (name, role, password, created_at, updated_at) VALUES ('Ann', 'admin', 'x', 'n', 'n')"
pg_sql "INSERT INTO users (name, role, password, created_at, updated_at) VALUES ('ann', 'member', 'x', 'n', 'n')" 2>/dev/null
isnt "$?" 0 "user names are unique without case (COLLATE NOCASE)"
is "$(pg_sql "SELECT name FROM users WHERE name = 'ANN' COLLATE NOCASE")" Ann \
    "the store's COLLATE NOCASE text runs as it is"
pg_sql "INSERT INTO libraries (id, lib_no, url, host, title, created_at, updated_at)
    VALUES ('/a/b', 1, 'u', 'h1', 't', 'c1', 'c1')"
is "$(pg_sql "SELECT host || ' ' || bound_at FROM library_hosts WHERE id = '/A/B'")" "h1 c1" \
    "a new library binds its id to its host (any case)"
pg_sql "UPDATE libraries SET host = 'h2', updated_at = 'u2' WHERE id = '/a/b'"
is "$(pg_sql "SELECT host || ' ' || bound_at FROM library_hosts WHERE id = '/a/b'")" "h2 u2" \
    "a new host rebinds it"
pg_sql "DELETE FROM libraries WHERE id = '/a/b'"
is "$(pg_sql "SELECT host FROM library_hosts WHERE id = '/a/b'")" h2 "the binding outlives the library"
pg_sql "INSERT INTO libraries (id, lib_no, url, host, title, created_at, updated_at)
    VALUES ('/c/d', 2, 'u', 'h', 't', 'c', 'c')"
is "$(pg_sql "INSERT INTO documents (library_id, path, blob, title) VALUES ('/c/d', 'p', 'b', 't') RETURNING id = shows")" t \
    "a document shows its own snippets"
is "$(pg_sql "INSERT INTO documents (library_id, path, blob, title, snippets_from) SELECT '/c/d', 'p2', 'b', 't', id FROM documents WHERE path = 'p' RETURNING shows = snippets_from")" t \
    "... or those of the document it takes them from"
pg_sql "INSERT INTO jobs (library_id, kind, created_at) VALUES ('/c/d', 'delete', 'n')"
is "$(pg_sql "UPDATE libraries SET state = 'delete' WHERE id = '/c/d'; UPDATE libraries SET state = 'finalized' WHERE id = '/c/d'; SELECT state FROM libraries WHERE id = '/c/d'")" \
    delete "a library stays deleted while its delete job is queued"

# ------------------------------------------------------------- DATABASE_URL: one switch
# A database of its own (the checks above filled "ctxd"); DATA_DIR stays for local files.
pg_sql "CREATE DATABASE node" || bail_out "CREATE DATABASE node"
NODE=${DATABASE_URL%/ctxd}/node
mkdir -p "$T/node"
out=$(DATABASE_URL=$NODE DATA_DIR=$T/node ctxd_admin init 2>&1)
is "$?" 0 "ctxd-admin init with DATABASE_URL creates the schema in PostgreSQL" || diag "$out"
node_sql() { "$_PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$NODE" -c "$1"; }
is "$(node_sql "SELECT version FROM ctxd_schema")" "$(sqlite3 "$T/lite/ctxd.db" 'PRAGMA user_version')" \
    "... at this build's schema version"
is "$(node_sql "SELECT count(*) FROM schema_history")" 1 "... with its history row"
ok "$([ ! -e "$T/node/ctxd.db" ]; echo $?)" "... and no SQLite database in DATA_DIR"
DATABASE_URL=$NODE DATA_DIR=$T/node ctxd_admin init >/dev/null 2>&1
is "$?" 0 "init again: already current"
is "$(node_sql "SELECT count(*) FROM schema_history")" 1 "... nothing migrated"
printf 'ann password 1\n' | DATABASE_URL=$NODE DATA_DIR=$T/node ctxd_admin user create ann >/dev/null 2>&1
is "$?" 0 "ctxd-admin user create on PostgreSQL"
is "$(node_sql "SELECT name || ' ' || role FROM users ORDER BY id")" "admin admin
ann member" "... the user is in PostgreSQL, after the admin a new database starts with"
is "$(node_sql "SELECT must_change_password FROM users WHERE name = 'admin'")" 1 \
    "... who must change the password at the first sign-in"
is "$(node_sql "SELECT count(*) FROM gitops_state")" 1 "... and GitOps' state row"
DATABASE_URL=$NODE DATA_DIR=$T/node ctxd_admin settings set worker.concurrency 3 >/dev/null 2>&1
is "$?" 0 "ctxd-admin settings set on PostgreSQL"
is "$(DATABASE_URL=$NODE DATA_DIR=$T/node ctxd_admin settings get worker.concurrency 2>&1)" 3 \
    "... and get: the value from PostgreSQL"
node_sql "UPDATE ctxd_schema SET version = version + 1"
out=$(DATABASE_URL=$NODE DATA_DIR=$T/node ctxd_admin init 2>&1)
isnt "$?" 0 "a newer schema is refused"
like "$out" "newer than this build" "... saying so"
node_sql "UPDATE ctxd_schema SET version = version - 1"
out=$(DATABASE_URL=mysql://ctxd@127.0.0.1/ctxd DATA_DIR=$T/node ctxd_admin init 2>&1)
isnt "$?" 0 "a DATABASE_URL that is not postgresql:// is refused"
like "$out" "DATABASE_URL is not a postgresql:// URL" "... saying so"
port=$(pick_port)
out=$(DATABASE_URL="postgresql://ctxd:s3cr3t-pw@127.0.0.1:$port/ctxd" DATA_DIR=$T/node \
    ctxd_admin init 2>&1)
isnt "$?" 0 "an unreachable server: init fails"
like "$out" "cannot connect to PostgreSQL" "... saying so"
unlike "$out" "s3cr3t-pw" "... without the password"
ok "$([ ! -e "$T/node/ctxd.db" ]; echo $?)" "no SQLite database was made meanwhile"
# An operator's ctxd-admin on a packaged node: DATA_DIR and DATABASE_URL from the service's
# settings file (/etc/default/ctxd; CTXD_DEFAULTS here) when the environment has neither.
printf 'DATA_DIR=%s\nDATABASE_URL="%s"\n' "$T/node" "$NODE" >"$T/defaults"
is "$(env -u DATA_DIR -u DATABASE_URL CTXD_DEFAULTS=$T/defaults \
    "$top_builddir/ctxd-admin" settings get worker.concurrency 2>&1)" 3 \
    "ctxd-admin takes DATABASE_URL from /etc/default/ctxd: the service's PostgreSQL"
mkdir -p "$T/other"
env -u DATABASE_URL DATA_DIR=$T/other "$top_builddir/ctxd-admin" init >/dev/null 2>&1
is "$(env -u DATABASE_URL DATA_DIR=$T/other CTXD_DEFAULTS=$T/defaults \
    "$top_builddir/ctxd-admin" settings get worker.concurrency 2>&1)" 0 \
    "... but not for a DATA_DIR the environment names (another instance: its SQLite)"
ok "$([ -e "$T/other/ctxd.db" ]; echo $?)" "... whose database is DATA_DIR/ctxd.db"
out=$(DATABASE_URL=$NODE DATA_DIR=$T/node ctxd_admin backup "$T/node.bak" 2>&1)
is "$?" 1 "ctxd-admin backup on PostgreSQL: refused"
like "$out" "pg_dump" "... naming pg_dump"
ok "$([ ! -e "$T/node.bak" ]; echo $?)" "... and no file written"
done_testing
