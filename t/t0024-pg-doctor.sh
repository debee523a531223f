#!/usr/bin/env bash
# ctxd-admin doctor on PostgreSQL (DATABASE_URL), on a throwaway cluster of this test's own
# (t/lib/pg.sh, through the harness's CTXD_TEST_ENGINE=postgres): the connection (the
# server's version, host, port, database and user, never the password; from the environment
# or /etc/default/ctxd), the schema version against this build's (newer, older, none), the
# database's size, and the segment cache (the segments stored in PostgreSQL against the files
# in this node's DATA_DIR/segments: missing, damaged, of another size, a folder no fetch can
# write into). Nothing names ctxd.db, and none is made.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap
# It starts a PostgreSQL of its own: once, in the SQLite run.
engine_sqlite_only "starts its own PostgreSQL"
export CTXD_TEST_ENGINE=postgres

ctxd_setup
# The owner doctor expects of DATA_DIR: this test's user (as t1010 does).
export CTXD_USER
CTXD_USER=$(id -un)
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle curl public)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 "parse curl"
"$top_builddir/ctxd-worker" 2>"$T/log/worker.log"
is "$(wait_job /corpora/curl)" finalized "indexed on PostgreSQL"
name=$(_sql "SELECT lib_no || '-' || index_version || '.seg' FROM libraries WHERE id = '/corpora/curl'")
seg=$DATA_DIR/segments/$name
is "$(_sql "SELECT count(*) FROM segment_files WHERE name = '$name'")" 1 \
    "the worker stored the segment in PostgreSQL"
cp "$seg" "$T/saved.seg"
mb=$(awk -v b="$(stat -c %s "$seg")" 'BEGIN { printf "%.1f", b / 1048576 }')
port=${DATABASE_URL##*:}
port=${port%%/*}
db=${DATABASE_URL##*/}

# doctor [ENV...]: ctxd-admin doctor's output (stdout and stderr) in $out, its status in $rc.
doctor() {
	out=$(env "$@" "$top_builddir/ctxd-admin" doctor 2>&1)
	rc=$?
}
# The FIX lines but those of the system this test does not install (nginx, cron, units).
NL=$'\n'
fixes() { grep '^FIX' <<<"$out" | grep -vE '^FIX  (nginx|cron|units):'; }

# ---------------------------------------------------------------------- a healthy instance
doctor
like "$out" "ok   database: PostgreSQL 1[5-9][.0-9]* at host 127\\.0\\.0\\.1, port $port, database $db, user ctxd \\(DATABASE_URL of the environment\\)" \
    "the connection: the server's version, host, port, database, user, and where the URL is from"
like "$out" "ok   database: schema version $SCHEMA_VERSION \\(from 0 by ctxd" "the schema version is this build's"
like "$out" 'ok   database: [0-9.]+ MB in PostgreSQL' "the database's size, in PostgreSQL"
like "$out" 'ok   segments: 1 of 1 indexed libraries' "the library's segment is whole"
like "$out" "ok   segment cache: 1 segment stored in PostgreSQL \\($mb MB\\), 1 of them in $DATA_DIR/segments as stored \\($mb MB, size and SHA-256 checked\\)($NL|$)" \
    "the segment cache: stored in PostgreSQL and here, alike"
is "$(fixes)" "" "nothing to fix but the system's"
unlike "$out" 'ctxd\.db|free pages' "nothing names ctxd.db or SQLite's free pages"
is "$(grep -vcE '^(ok   |FIX  |[0-9]+ checks? to fix$)' <<<"$out")" 0 "one line per check, nothing on stderr"
# The other commands' messages name the PostgreSQL database too, not ctxd.db.
where="the PostgreSQL database at host 127\\.0\\.0\\.1, port $port, database $db, user ctxd"
like "$(ctxd_admin init 2>&1)" "^initialised $DATA_DIR \\(secret\\.key\\) and $where \\(schema version $SCHEMA_VERSION\\)$" \
    "init names the PostgreSQL database"
like "$(ctxd_admin compact 2>&1)" "^compacted $where \\(VACUUM\\): [0-9.]+ MB -> [0-9.]+ MB$" \
    "compact names it too"
ok "$([ ! -e "$DATA_DIR/ctxd.db" ]; echo $?)" "no ctxd.db in DATA_DIR"

# DATABASE_URL from the service's settings file, as a packaged server has it.
printf 'DATA_DIR=%s\nDATABASE_URL="%s"\n' "$DATA_DIR" "$DATABASE_URL" >"$T/defaults"
doctor -u DATABASE_URL -u DATA_DIR CTXD_DEFAULTS="$T/defaults"
like "$out" "ok   database: PostgreSQL [.0-9]+ at host 127\\.0\\.0\\.1, port $port, database $db, user ctxd \\(DATABASE_URL in $T/defaults\\)" \
    "DATABASE_URL from the settings file, said so"
like "$out" 'ok   segment cache: 1 segment stored' "... the same database"

# ------------------------------------------------------------------- the segment cache
# Missing here: a query fetches it, nothing to fix.
rm -f "$seg"
doctor
like "$out" "ok   segment cache: 1 segment stored in PostgreSQL \\($mb MB\\), 0 of them in $DATA_DIR/segments as stored \\(0\\.0 MB, size and SHA-256 checked\\), 1 not fetched yet \\(the library's next query fetches it\\)" \
    "a segment missing here: not fetched yet"
unlike "$out" 'without a segment' "... not a library without a segment (it is stored)"
is "$(fixes)" "" "... nothing to fix"
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
    --data-urlencode 'query=curl send json body' --data-urlencode type=json)" 200 "a query of the library"
ok "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" "... fetched the stored segment"
doctor
like "$out" 'ok   segment cache: 1 segment stored in PostgreSQL \([0-9.]+ MB\), 1 of them in ' \
    "doctor: in the cache again"
# The node's copier (search/copier.h) builds its local copy of the library
# (store/localcopy.h) ahead, outside the questions; a copy of a version no library serves
# (a deleted library's) is removed.
for ((i = 0; i < 300; i++)); do
	ls "$DATA_DIR/copies/"*.db >/dev/null 2>&1 && break
	sleep 0.1
done
doctor
like "$out" "ok   local copies: 1 library in $DATA_DIR/copies \\([0-9.]+ MB, built by the copier ahead and for the questions that ask\\); 0 of versions no library serves removed" \
    "doctor: the node's local copy of the library"
echo stale >"$DATA_DIR/copies/9999-1.db"
doctor
like "$out" "ok   local copies: 1 library in $DATA_DIR/copies \\([0-9.]+ MB, built by the copier ahead and for the questions that ask\\); 1 of versions no library serves removed" \
    "... a copy no library's version names: removed"
ok "$([ ! -e "$DATA_DIR/copies/9999-1.db" ]; echo $?)" "... gone from the folder"

# Damaged here (bytes changed, the same size): a fix, naming the file and what to do.
size=$(stat -c %s "$seg")
printf 'XXXX' | dd of="$seg" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
doctor
like "$out" "FIX  segment cache: 1 file in $DATA_DIR/segments differs from the copy stored in PostgreSQL \\(size or SHA-256\\): $name: remove it there; the library's next query fetches the stored copy" \
    "a damaged file: it differs from the stored copy, and what to do"
isnt "$rc" 0 "... doctor fails"
cp "$T/saved.seg" "$seg"
# Another size (bytes added at the end).
printf 'trailing' >>"$seg"
doctor
like "$out" "FIX  segment cache: 1 file in $DATA_DIR/segments differs from the copy stored in PostgreSQL \\(size or SHA-256\\): $name" \
    "a file of another size: it differs from the stored copy"
rm -f "$seg"
doctor
is "$(fixes)" "" "removed, as doctor says: nothing to fix (the next query fetches it)"
cp "$T/saved.seg" "$seg"

# The folder a fetch writes into, not writable by the service's user.
chmod 0550 "$DATA_DIR/segments"
doctor
like "$out" "FIX  segment cache: $DATA_DIR/segments is not writable by the user $CTXD_USER: no segment can be fetched from PostgreSQL .*chmod 0750 $DATA_DIR/segments" \
    "a cache folder no fetch can write into: a fix"
chmod 0750 "$DATA_DIR/segments"
doctor
is "$(fixes)" "" "writable again: nothing to fix"

# -------------------------------------------------------------------- the schema version
pg_sql "UPDATE ctxd_schema SET version = version + 1"
doctor
like "$out" "FIX  database: schema version $((SCHEMA_VERSION + 1)) in PostgreSQL, this ctxd's is $SCHEMA_VERSION: a newer ctxd upgraded the database: install that release on this node too" \
    "a newer schema: a fix, and what to do"
isnt "$rc" 0 "... doctor fails"
pg_sql "UPDATE ctxd_schema SET version = version - 2"
doctor
like "$out" "FIX  database: schema version $((SCHEMA_VERSION - 1)) in PostgreSQL, this ctxd's is $SCHEMA_VERSION: run ctxd-admin init as the user ctxd" \
    "an older schema: a fix, and what to do"
pg_sql "UPDATE ctxd_schema SET version = version + 1"
doctor
is "$(fixes)" "" "this build's again: nothing to fix"
pg_sql "CREATE DATABASE emptydb" >/dev/null
doctor DATABASE_URL="${DATABASE_URL%/*}/emptydb"
like "$out" "FIX  database: the PostgreSQL database holds no ctxd schema \\(this ctxd's is version $SCHEMA_VERSION\\): run ctxd-admin init" \
    "an empty database: no ctxd schema, and what to do"
unlike "$out" 'ctxd\.db|error' "... naming no ctxd.db, and no error of tables it does not have"

# ------------------------------------------------------------------ no server, no password
dead=$(pick_port)
doctor DATABASE_URL="postgresql://ctxd:S3cretPw@127.0.0.1:$dead/ctxd"
like "$out" "FIX  database: cannot connect to PostgreSQL at host 127\\.0\\.0\\.1, port $dead, database ctxd, user ctxd \\(DATABASE_URL of the environment\\): .*(refused|failed).*: check DATABASE_URL" \
    "an unreachable server: where, why, and what to check"
isnt "$rc" 0 "... doctor fails"
unlike "$out" 'S3cretPw' "... and never says the password"
unlike "$out" 'ctxd\.db' "... nor names ctxd.db"
unlike "$out" 'schema version|segment cache' "... nor checks what it cannot reach"
like "$out" 'FIX  providers: the settings cannot be read' "... the providers' settings neither"
ok "$([ ! -e "$DATA_DIR/ctxd.db" ]; echo $?)" "... and makes no ctxd.db"
printf 'DATA_DIR=%s\nDATABASE_URL=postgresql://ctxd:S3cretPw@127.0.0.1:%s/ctxd\n' "$DATA_DIR" "$dead" \
    >"$T/defaults"
doctor -u DATABASE_URL -u DATA_DIR CTXD_DEFAULTS="$T/defaults"
like "$out" "FIX  database: cannot connect to PostgreSQL at host 127\\.0\\.0\\.1, port $dead, .*\\(DATABASE_URL in $T/defaults\\)" \
    "the settings file's unreachable server: said so"
unlike "$out" 'S3cretPw' "... without the password"
# A URL libpq cannot parse (its message would quote the password).
doctor DATABASE_URL="postgresql://ctxd:p%zzS3cretPw@127.0.0.1:$dead/ctxd"
like "$out" "FIX  database: DATABASE_URL of the environment: the URL cannot be parsed" \
    "a URL that cannot be parsed: said so"
unlike "$out" 'S3cretPw' "... without the password"
done_testing
