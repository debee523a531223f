#!/usr/bin/env bash
# ctxd-admin migrate-to-postgres: an instance's SQLite database (a library indexed by the
# real worker with the vendors' stand-in as embedder, so snippets, documents, vectors and
# embeddings; users, keys, settings, jobs and their log, the audit log) copied into an empty
# PostgreSQL database of a throwaway cluster (t/lib/pg.sh): the same rows, table by table
# and value by value, vectors byte for byte, ids kept and identities past them; refused into
# a database that is not empty, rolled back whole when a statement fails, and no password
# in a message.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
# It starts a cluster of its own and checks both engines: once, in the SQLite run.
engine_sqlite_only "starts its own PostgreSQL and checks both engines"
require_cmd jq git nginx fcgiwrap sqlite3 node openssl

ctxd_setup
standin_start
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
standin_embedder emb-migrate
printf 'member password 1\n' | ctxd_admin user create mia >/dev/null 2>&1 ||
    bail_out "cannot create the member"
ctxd_admin key create --user mia mias-key >/dev/null
url=$(gitserver_add_bundle requests public)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 "parse requests"
"$top_builddir/ctxd-worker" 2>"$T/log/worker.log"
is "$(wait_job /corpora/requests)" finalized "indexed, with vectors"
like "$(_sql "SELECT count(*) FROM vectors")" '^[1-9][0-9]*$' "the SQLite database holds vectors"
is "$(http PUT "$BASE/api/policies" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data '{"other": false}')" 200 "a policy change (audited)"
ctxd_stop

pg_start
out=$(ctxd_admin migrate-to-postgres "$DATABASE_URL" 2>&1); rc=$?
is "$rc" 0 "migrate-to-postgres succeeds"
like "$out" 'copied .*ctxd\.db into PostgreSQL 1[5-9]\.[0-9]+ \(schema version [0-9]+\), every count checked' \
    "and says what it did"
like "$out" $'\nsnippets\t[1-9][0-9]*\n' "a line per table with its rows"

# Table by table, value by value (each engine prints the same text for the same value).
DB=$DATA_DIR/ctxd.db
same() {	# same TABLE COLUMNS: the table's rows, by id order, on both engines
	sqlite3 -separator '|' "$DB" "SELECT $2 FROM $1 ORDER BY 1, 2" >"$T/lite.txt"
	pg_sql "SELECT $2 FROM $1 ORDER BY 1, 2" | tr -s '\n' >"$T/pg.txt"
	tr -s '\n' <"$T/lite.txt" >"$T/lite2.txt"
	ok "$(cmp -s "$T/lite2.txt" "$T/pg.txt"; echo $?)" "$1: the same $(wc -l <"$T/pg.txt") rows"
	cmp -s "$T/lite2.txt" "$T/pg.txt" || diag "$(diff "$T/lite2.txt" "$T/pg.txt" | head -10)"
}
# Every table but the vectors (bytes, below) and SQLite's full-text tables: every column.
for t in $(sqlite3 "$DB" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'snippets_fts%'
    AND name NOT LIKE 'sqlite_%' AND name <> 'vectors' ORDER BY name"); do
	same "$t" "*"
done
like "$(pg_sql "SELECT count(*) FROM audit_log")" '^[1-9]' "... the audit log has rows to compare"
is "$(sqlite3 "$DB" "SELECT lower(hex(group_concat(vector, ''))) FROM (SELECT vector FROM vectors ORDER BY model, hash)" | md5sum)" \
    "$(pg_sql "SELECT encode(string_agg(vector, ''::bytea ORDER BY model, hash), 'hex') FROM vectors" | md5sum)" \
    "vectors: byte for byte"
is "$(sqlite3 "$DB" "SELECT text FROM snippets ORDER BY id" | md5sum)" \
    "$(pg_sql "SELECT text FROM snippets ORDER BY id" | md5sum)" "snippets: every text, as it was"
is "$(pg_sql "SELECT version FROM ctxd_schema")" "$(sqlite3 "$DB" 'PRAGMA user_version')" \
    "the same schema version"
maxid=$(sqlite3 "$DB" "SELECT max(id) FROM users")
is "$(pg_sql "INSERT INTO users (name, role, password, created_at, updated_at) VALUES ('new', 'member', 'x', 'n', 'n') RETURNING id")" \
    "$((maxid + 1))" "a new row's id follows the copied ones"
is "$(pg_sql "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'snippets_fts%'")" 0 \
    "no full-text tables in PostgreSQL"

# Into a database that is not empty: refused, nothing changed.
before=$(pg_sql "SELECT count(*) FROM snippets")
out=$(ctxd_admin migrate-to-postgres "$DATABASE_URL" 2>&1); rc=$?
is "$rc" 1 "a second copy is refused"
like "$out" 'not empty \(table [a-z_]+ has [0-9]+ rows\): copy into a new database' "... saying why"
is "$(pg_sql "SELECT count(*) FROM snippets")" "$before" "... and changes nothing"

# A failure part way: nothing is left (the schema and the rows are one transaction).
"$_PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U ctxd clash
pg2="postgresql://ctxd@127.0.0.1:$PG_PORT/clash"
"$_PG_BIN/psql" -X -q "$pg2" -c "CREATE TABLE audit_log (x int)"
out=$(ctxd_admin migrate-to-postgres "$pg2" 2>&1); rc=$?
is "$rc" 1 "a copy that meets a clashing table fails"
like "$out" 'audit_log.*already exists.*PostgreSQL is left as it was' "... naming it"
is "$("$_PG_BIN/psql" -X -A -t "$pg2" -c "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")" 1 \
    "... and leaves nothing behind"

# Mistakes: no URL, a server that is not there (its password never shown).
out=$(env -u DATABASE_URL "$top_builddir/ctxd-admin" migrate-to-postgres 2>&1); rc=$?
is "$rc" 2 "no URL: a usage error"
like "$out" 'give the PostgreSQL database.s URL' "... saying what to give"
out=$(ctxd_admin migrate-to-postgres "postgresql://ctxd:s3cret-pw@127.0.0.1:1/x?connect_timeout=3" 2>&1); rc=$?
is "$rc" 1 "an unreachable server fails"
like "$out" 'cannot connect to PostgreSQL' "... saying so"
unlike "$out" 's3cret-pw' "... without the password"
done_testing
