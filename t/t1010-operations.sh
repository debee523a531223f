#!/usr/bin/env bash
# The operations of ctxd-admin without the package (t1000 runs them on the installed one):
# backup while the service serves and indexes, with and without secret.key; restore (refused
# while running, refused for a damaged file or a newer schema, an older schema migrated, the
# secrets readable again only with the key); doctor's lines; compact (free pages given back
# to the disk online, a busy database refused with the reason); the log lines' context (the
# job or the request). On PostgreSQL (CTXD_TEST_ENGINE=postgres) backup and restore refuse,
# naming pg_dump and pg_restore, and change nothing; compact is PostgreSQL's VACUUM, online;
# doctor and the log lines as on SQLite.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin t1010)
ctxd_admin settings set git.github.token tok-t1010 >/dev/null

# ------------------------------------------------------------------------- backup
url=$(gitserver_add_bundle requests public)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 "parse requests"
is "$(wait_job /corpora/requests)" finalized "requests indexed"
url=$(gitserver_add_bundle vite public)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 "parse vite"
# Backups while vite is indexed and the responders answer.
if [ "$(ctxd_test_engine)" = postgres ]; then
	for b in b1 b2; do
		ctxd_admin backup $([ $b = b2 ] && echo --with-secret) "$T/$b.db" >/dev/null \
		    2>"$T/log/$b.err"
		isnt $? 0 "backup refuses on PostgreSQL ($b)"
		like "$(cat "$T/log/$b.err")" 'the store is PostgreSQL \(DATABASE_URL\): back it up with pg_dump' \
		    "... naming pg_dump"
		ok "$([ ! -e "$T/$b.db" ]; echo $?)" "... and writes no file"
	done
else
	ctxd_admin backup "$T/b1.db" >"$T/log/b1.out" 2>"$T/log/b1.err"
	ok $? "backup while indexing" || _show_log "$T/log/b1.err"
	like "$(cat "$T/log/b1.err")" 'warning: secret.key is not in' "backup warns: no secret.key in it"
	ctxd_admin backup --with-secret "$T/b2.db" >/dev/null 2>"$T/log/b2.err"
	ok $? "backup --with-secret"
	like "$(cat "$T/log/b2.err")" "warning: .*b2.db holds secret.key" "backup --with-secret warns"
fi
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode query=session)" 200 "the service answers meanwhile"
is "$(wait_job /corpora/vite)" finalized "the indexing went on"
if [ "$(ctxd_test_engine)" = postgres ]; then
	# restore: refused, naming pg_restore, whether the service runs or not; nothing changes
	ctxd_admin key create later >/dev/null
	printf 'garbage' >"$T/any.db"
	ctxd_admin restore "$T/any.db" >/dev/null 2>"$T/log/r.err"
	isnt $? 0 "restore refuses on PostgreSQL while the service runs"
	ctxd_stop
	ctxd_admin restore "$T/any.db" >/dev/null 2>"$T/log/r.err"
	isnt $? 0 "restore refuses on PostgreSQL once stopped"
	like "$(cat "$T/log/r.err")" 'store is PostgreSQL \(DATABASE_URL\): .*\(restore with pg_restore\)' \
	    "... naming pg_restore"
	is "$(_sql "SELECT count(*) FROM api_keys WHERE name = 'later'")" 1 "nothing was restored"
	is "$(_sql "SELECT state FROM libraries WHERE id = '/corpora/requests'")" finalized \
	    "the library is still there"
else
	for b in b1 b2; do
		is "$(sqlite3 "$T/$b.db" 'PRAGMA integrity_check')" ok "$b passes the integrity check"
		is "$(sqlite3 "$T/$b.db" "SELECT state FROM libraries WHERE id = '/corpora/requests'")" \
		    finalized "$b has the indexed library"
		is "$(stat -c %a "$T/$b.db")" 600 "$b is 0600"
	done
	is "$(sqlite3 "$T/b1.db" "SELECT count(*) FROM sqlite_schema WHERE name = 'backup_secret'")" 0 \
	    "b1 has no secret.key"
	is "$(sqlite3 "$T/b2.db" "SELECT length(key) FROM backup_secret")" 32 "b2 holds secret.key"

	# ------------------------------------------------------------------------ restore
	ctxd_admin key create later >/dev/null
	ctxd_admin restore "$T/b1.db" >/dev/null 2>"$T/log/r.err"
	isnt $? 0 "restore refuses while the service runs"
	like "$(cat "$T/log/r.err")" 'the service is running \(process [0-9]+' "restore says why"
	is "$(_sql "SELECT count(*) FROM api_keys WHERE name = 'later'")" 1 "nothing was restored"
	ctxd_stop
	printf 'garbage' >"$T/bad.db"
	ctxd_admin restore "$T/bad.db" >/dev/null 2>"$T/log/r.err"
	isnt $? 0 "restore refuses a file that is not a database"
	cp "$T/b1.db" "$T/newer.db"
	sqlite3 "$T/newer.db" 'PRAGMA user_version = 99'
	ctxd_admin restore "$T/newer.db" >/dev/null 2>"$T/log/r.err"
	isnt $? 0 "restore refuses a newer schema"
	like "$(cat "$T/log/r.err")" 'schema version 99' "... and says so"
	# a database of the previous schema version: sql/schema.sql and every migration but the last,
	# as db_migrate would have left it (whatever the last migration is; the sqlite3 shell lacks
	# ctxd's FTS tokenizer: the full-text table of the versions before 17 gets FTS5's own)
	{
		sed "s/tokenize = 'porter ctxd'/tokenize = 'porter unicode61'/" "$top_srcdir/sql/schema.sql"
		find "$top_srcdir/sql" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.sql' | sort | head -n -1 | xargs cat
		echo "PRAGMA user_version = $((SCHEMA_VERSION - 1));"
	} | sqlite3 "$T/older.db"
	ctxd_admin restore "$T/older.db" >/dev/null 2>"$T/log/r.err"
	ok $? "restore takes an older schema" || _show_log "$T/log/r.err"
	is "$(_sql 'PRAGMA user_version')" "$SCHEMA_VERSION" "... and migrates it"
	is "$(_sql 'SELECT from_version FROM schema_history ORDER BY id DESC LIMIT 1')" \
	    "$((SCHEMA_VERSION - 1))" "... which schema_history records"
	ctxd_admin restore "$T/b1.db" >/dev/null 2>"$T/log/r.err"
	ok $? "restore once stopped"
	is "$(_sql "SELECT count(*) FROM api_keys WHERE name = 'later'")" 0 "the later key is gone"
	is "$(_sql "SELECT state FROM libraries WHERE id = '/corpora/requests'")" finalized \
	    "the library is back"
	ctxd_start
	is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
	    --data-urlencode query=session)" 200 "the restored service answers"
	ctxd_stop

	# The secrets on another machine: readable only with secret.key.
	for b in b1 b2; do
		DATA_DIR=$T/other-$b ctxd_admin init >/dev/null
		DATA_DIR=$T/other-$b ctxd_admin restore "$T/$b.db" >"$T/log/$b.out" 2>&1
		ok $? "restore $b on another DATA_DIR"
	done
	like "$(cat "$T/log/b2.out")" 'with secret.key' "b2 brings secret.key back"
	cmp -s "$DATA_DIR/secret.key" "$T/other-b2/secret.key"
	ok $? "... the same key"
	is "$(stat -c %a "$T/other-b2/secret.key")" 600 "... 0600"
	is "$(DATA_DIR=$T/other-b2 ctxd_admin settings get git.github.token 2>/dev/null)" "(set)" \
	    "with the key, the stored token is readable"
	is "$(sqlite3 "$T/other-b2/ctxd.db" "SELECT count(*) FROM sqlite_schema WHERE name = 'backup_secret'")" 0 \
	    "the key is not left in the database"
	cmp -s "$DATA_DIR/secret.key" "$T/other-b1/secret.key"
	isnt $? 0 "b1 leaves the other machine's own key"
fi

# ------------------------------------------------------------------------- doctor
printf 'LICENSE_KEY=%s\nPORT=3000\nDATA_DIR=%s\n' "$LICENSE_KEY" "$DATA_DIR" >"$T/defaults"
# CTXD_USER: the owner doctor expects is this test's user, whether or not a ctxd package (and
# its user ctxd) is installed on the machine meanwhile (t1000 may run beside this test)
CTXD_USER=$(id -un)
export CTXD_USER
out=$(env -u DATA_DIR -u LICENSE_KEY CTXD_DEFAULTS="$T/defaults" "$top_builddir/ctxd-admin" doctor)
like "$out" '(^|\n)ok   license: valid until [0-9-]{10}' "doctor: license from the defaults file"
like "$out" "ok   DATA_DIR $DATA_DIR: owner and mode 0750" "doctor: DATA_DIR from the defaults file"
like "$out" 'ok   secret.key: owner and mode 0600' "doctor: secret.key"
like "$out" "ok   database: schema version $SCHEMA_VERSION \\(from 0 by ctxd" "doctor: schema"
like "$out" 'ok   disk: [0-9]+ MB free' "doctor: disk"
like "$out" 'ok   providers: none configured' "doctor: providers"
is "$(grep -vcE '^(ok   |FIX  |[0-9]+ checks? to fix$)' <<<"$out")" 0 "doctor: one line per check"
chmod 0640 "$DATA_DIR/secret.key"
chmod 0777 "$DATA_DIR"
printf 'LICENSE_KEY=\n' >"$T/defaults"
out=$(env -u LICENSE_KEY CTXD_DEFAULTS="$T/defaults" "$top_builddir/ctxd-admin" doctor)
isnt $? 0 "doctor fails when something needs fixing"
like "$out" "FIX  license: LICENSE_KEY is not set: set your license key in $T/defaults" \
    "doctor: a missing license and the fix"
like "$out" "FIX  DATA_DIR $DATA_DIR: owner [0-9]+, mode 0777: chown $CTXD_USER:$CTXD_USER" "doctor: a loose DATA_DIR"
like "$out" 'FIX  secret.key: owner [0-9]+, mode 0640: .*chmod 0600' "doctor: a loose secret.key"
is "$(stat -c %a "$DATA_DIR") $(stat -c %a "$DATA_DIR/secret.key")" "777 640" \
    "doctor only looks: the modes are left as they were"
chmod 0750 "$DATA_DIR"
chmod 0600 "$DATA_DIR/secret.key"

# ------------------------------------------------------------------------- compact
# Deleting a library leaves free pages; ctxd-admin compact gives them back to the disk while
# the service serves, and says why when it cannot.
ctxd_start
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$GITBASE/public/corpora/vite.git\"}")" 202 "parse vite again"
# Its job, not the library's state (finalized from the first run while this one is queued).
wait_jobid "$(http_body | jq -r .jobId)"
ok $? "vite indexed"
is "$(http DELETE "$BASE/api/libraries/corpora/vite" -H "Authorization: Bearer $ADMIN")" 202 \
    "delete vite"
wait_jobid "$(http_body | jq -r .jobId)"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/corpora/vite'")" 0 "vite is deleted"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	free_pages=$(_sql 'PRAGMA freelist_count')
	ok "$([ "$free_pages" -gt 100 ]; echo $?)" "the delete left free pages ($free_pages)"
fi
out=$(env -u LICENSE_KEY CTXD_DEFAULTS="$T/defaults" "$top_builddir/ctxd-admin" doctor)
if [ "$(ctxd_test_engine)" = postgres ]; then
	like "$out" 'ok   database: [0-9]+\.[0-9] MB in PostgreSQL \(its autovacuum reuses the space of deleted rows\)' \
	    "doctor: the database's size"
else
	like "$out" 'ok   database: [0-9]+\.[0-9] MB, [0-9]+\.[0-9] MB of it free pages' \
	    "doctor: the database's size and its free pages"
fi
if [ "$(ctxd_test_engine)" = postgres ]; then
	# compact is VACUUM, which does not wait for a writer holding rows (only schema
	# changes and another VACUUM would make it wait)
	vacuumed() { _sql "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN
	    ('snippets', 'documents', 'embeddings') AND last_vacuum IS NOT NULL"; }
	is "$(vacuumed)" 0 "no table was vacuumed by hand before"
	printf "BEGIN;\nUPDATE settings SET value = value WHERE name = 'git.github.token';\nSELECT pg_sleep(60);\nROLLBACK;\n" |
	    PGAPPNAME=t1010-holder "$_PG_BIN/psql" -X -q "$DATABASE_URL" >/dev/null 2>&1 &
	holder=$!
	sleep 1
	ctxd_admin compact >"$T/log/compact1.out" 2>"$T/log/compact1.err"
	is $? 0 "compact while a writer holds rows: exit 0" || _show_log "$T/log/compact1.err"
	kill -0 "$holder" 2>/dev/null
	ok $? "... without waiting for the writer"
	_sql "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE
	    application_name = 't1010-holder'" >/dev/null
	wait "$holder"
	is "$(vacuumed)" 3 "... the tables were vacuumed"
	is "$(_sql "SELECT value FROM settings WHERE name = 'git.github.token'" | wc -l)" 1 \
	    "... and the writer's row is as it was"
	compacted="the PostgreSQL database at host [^ ]+, port [0-9]+, database [^ ]+, user [^ ]+ \\(VACUUM\\): [0-9.]+ MB -> [0-9.]+ MB"
else
	# the database's files: the main file and its write-ahead log
	db_bytes() { cat "$DATA_DIR/ctxd.db" "$DATA_DIR/ctxd.db-wal" 2>/dev/null | wc -c; }
	size_before=$(db_bytes)
	# a writer holding the database: compact waits its busy timeout, then says why
	{ echo 'BEGIN IMMEDIATE;'; echo "UPDATE settings SET value = value WHERE name = 'git.github.token';"
	    echo '.shell sleep 14'; echo 'ROLLBACK;'; } |
	    sqlite3 "$DATA_DIR/ctxd.db" >/dev/null 2>&1 &
	holder=$!
	sleep 1
	ctxd_admin compact >"$T/log/compact1.out" 2>"$T/log/compact1.err"
	is $? 1 "compact while a writer holds the database: exit 1"
	like "$(cat "$T/log/compact1.err")" 'compact of .*/ctxd.db failed: the database is busy \(a job or a backup is writing\); run it again when it is done' \
	    "... and says why"
	is "$(_sql 'PRAGMA freelist_count')" "$free_pages" "... changing nothing"
	wait "$holder"
	compacted="$DATA_DIR/ctxd.db: [0-9.]+ MB -> [0-9.]+ MB \\([0-9.]+ MB of free pages given back to the disk\\)"
fi
ctxd_admin compact >"$T/log/compact2.out" 2>"$T/log/compact2.err"
ok $? "compact while the service serves" || _show_log "$T/log/compact2.err"
like "$(cat "$T/log/compact2.out")" "^compacted $compacted$" "compact prints the sizes"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	is "$(_sql 'PRAGMA freelist_count')" 0 "no free page is left"
	size_after=$(db_bytes)
	ok "$([ "$size_after" -lt "$size_before" ]; echo $?)" "the file shrank ($size_before -> $size_after bytes)"
	is "$(_sql 'PRAGMA integrity_check')" ok "the compacted database passes integrity_check"
fi
is "$(index_check)" ok "... and its index segments are its rows'"
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode query=session)" 200 "the service answers from it"
like "$(http_body)" 'Session' "... with the snippets it had"
ctxd_admin compact extra >/dev/null 2>"$T/log/compact3.err"
is $? 2 "compact takes no operand: exit 2"
like "$(cat "$T/log/compact3.err")" '^usage: ctxd-admin compact' "... with its usage"
ctxd_stop

# ------------------------------------------------------------------------- log lines
# The worker the responder started names its job on each line, the responders their request.
grep -Eq '^ctxd-worker: info: job [0-9]+: ' "$DATA_DIR/worker.log"
ok $? "worker log lines name their job"
grep -Eq '^ctxd-worker: [a-z]+: [^j]' "$DATA_DIR/worker.log" &&
    ! grep -Eq '^ctxd-worker: [a-z]+: job [0-9]+: job [0-9]+:' "$DATA_DIR/worker.log"
ok $? "... once, and lines outside a job name none"
ctxd_start
# A failed sign-in is logged by ctxd-web.
http POST "$BASE/api/session" -H 'Content-Type: application/json' \
    --data '{"username": "nobody-t1010", "password": "wrong"}' >/dev/null
sleep 0.2
grep 'nobody-t1010' "$T/log/web.log" >"$T/resp.log"
grep -Eq '^ctxd-web: warning: request [0-9a-f]{32}: failed sign-in as nobody-t1010' "$T/resp.log"
ok $? "responder log lines name nginx's request id" || _show_log "$T/log/web.log"

done_testing
