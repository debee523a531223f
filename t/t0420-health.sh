#!/usr/bin/env bash
# GET /api/health and GET /api/ready: no credential needed, nothing secret in them; 200 when
# healthy / ready, 503 when the database is missing, broken or has another schema version
# (on PostgreSQL: refuses connections, is not ctxd's or has another schema version).
# Anyone but an admin learns only the status; an admin's key or session gets the report.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq sqlite3

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
secret=ghp_health$(openssl rand -hex 8)
printf '%s\n' "$secret" | ctxd_admin settings set git.github.token -
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data '{"repoUrl": "https://git.example.com/acme/docs"}' >/dev/null

is "$(http GET "$BASE/api/health")" 200 "health without a key: 200"
like "$(http_header Content-Type)" '^application/json' "JSON"
is "$(http_body | jq -c .)" '{"status":"ok"}' "without a key: only the status"
MEMBER=$(ctxd_admin key create member-key)
is "$(http GET "$BASE/api/health" -H "Authorization: Bearer $MEMBER")" 200 "health with a member's key: 200"
is "$(http_body | jq -c .)" '{"status":"ok"}' "a member sees only the status too"
is "$(http GET "$BASE/api/health" -H "Authorization: Bearer not-a-key")" 200 \
    "health with an invalid key: 200 (the credential is not needed)"
is "$(http_body | jq -c .)" '{"status":"ok"}' "and only the status"
ctxd_admin_session
is "$(http GET "$BASE/api/health" -b "$ADMIN_JAR")" 200 "health with an admin's session: 200"
is "$(http_body | jq -r .license.status)" valid "an admin's session gets the report"
is "$(http GET "$BASE/api/health" -H "Authorization: Bearer $ADMIN")" 200 "health with an admin's key: 200"
h=$(http_body)
is "$(jq -r '[.status, .license.status, .license.plan, .database.ok, .database.schemaVersion] | @tsv' <<<"$h")" \
    "$(printf 'ok\tvalid\ttrial\ttrue\t%s' "$SCHEMA_VERSION")" "status, license, database and schema version"
like "$(jq -r .license.expires <<<"$h")" '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' "license expiry date"
ok "$(jq -e '.disk.ok and .disk.freeBytes > 0 and .disk.totalBytes >= .disk.freeBytes' <<<"$h" >/dev/null; echo $?)" \
    "disk free and total bytes of DATA_DIR"
is "$(jq -r '[.queue.queued, .queue.running, .libraries] | @tsv' <<<"$h")" "$(printf '1\t0\t1')" \
    "queue length and libraries count"
ok "$(jq -e 'has("error") | not' <<<"$h" >/dev/null; echo $?)" "no error when healthy"
unlike "$h" "$secret|$LICENSE_KEY|licensee|$DATA_DIR" "no secret, key, licensee or path in it"
is "$(http GET "$BASE/api/ready")" 200 "ready without a key: 200"
is "$(http_body | jq -c .)" '{"ready":true,"schemaVersion":'"$SCHEMA_VERSION"'}' "ready body"
is "$(http HEAD "$BASE/api/health")" 200 "HEAD health: 200"
is "$(http POST "$BASE/api/health")" 405 "POST health: 405"
is "$(http GET "$BASE/api/ready?verbose=1")" 400 "an unknown parameter: 400"

# Another schema version: not ready, unhealthy.
schema_version 99
is "$(http GET "$BASE/api/ready")" 503 "ready with schema version 99: 503"
like "$(http_body | jq -r .error)" 'not ready: the database cannot be opened or its schema is not version '"$SCHEMA_VERSION" \
    "says why"
is "$(http GET "$BASE/api/health")" 503 "health with schema version 99: 503"
is "$(http_body | jq -r '[.status, has("database"), has("version")] | @tsv')" "$(printf 'unhealthy\tfalse\tfalse')" \
    "without a key: unhealthy, no details"
unlike "$(http_body | jq -r .error)" 'database' "and the error does not say why"
is "$(http GET "$BASE/api/health" -H "Authorization: Bearer $ADMIN")" 503 "an admin's health with schema version 99: 503"
is "$(http_body | jq -r '[.status, .database.ok] | @tsv')" "$(printf 'unhealthy\tfalse')" "database not ok"
like "$(http_body | jq -r .error)" 'database' "the error names the database"
schema_version "$SCHEMA_VERSION"
is "$(http GET "$BASE/api/ready")" 200 "schema version restored: ready again"

# A missing database, then a file that is not a database (on PostgreSQL: a database that
# refuses connections, then one without ctxd's schema).
if [ "$(ctxd_test_engine)" = postgres ]; then
	db=${DATABASE_URL##*/}
	pg_admin() { DATABASE_URL=${DATABASE_URL%/*}/ctxd _sql "$1" >/dev/null; }
	# (the connections open already stay, as SQLite's open file does after the mv below)
	pg_admin "ALTER DATABASE $db ALLOW_CONNECTIONS false" || bail_out "cannot close the database $db"
else
	mv "$DATA_DIR/ctxd.db" "$DATA_DIR/ctxd.db.away"
fi
is "$(http GET "$BASE/api/ready")" 503 "ready without the database: 503"
is "$(http GET "$BASE/api/health" -H "Authorization: Bearer $ADMIN")" 503 "health without the database: 503"
is "$(http_body | jq -r '.database.ok')" false "database not ok"
if [ "$(ctxd_test_engine)" = postgres ]; then
	pg_admin "ALTER DATABASE $db ALLOW_CONNECTIONS true" || bail_out "cannot open $db again"
	_sql 'ALTER TABLE ctxd_schema RENAME TO ctxd_schema_away'
	broken="a database without ctxd's schema"
else
	head -c 8192 /dev/urandom >"$DATA_DIR/ctxd.db"
	broken="a broken database file"
fi
is "$(http GET "$BASE/api/ready")" 503 "ready with $broken: 503"
is "$(http GET "$BASE/api/health")" 503 "health with $broken: 503"
if [ "$(ctxd_test_engine)" = postgres ]; then
	_sql 'ALTER TABLE ctxd_schema_away RENAME TO ctxd_schema'
else
	rm -f "$DATA_DIR/ctxd.db"
	mv "$DATA_DIR/ctxd.db.away" "$DATA_DIR/ctxd.db"
fi
is "$(http GET "$BASE/api/ready")" 200 "the database is back: ready"
is "$(http GET "$BASE/api/health")" 200 "and healthy"
if [ "$(ctxd_test_engine)" = postgres ]; then
	# Every connection to the database dropped (PostgreSQL restarted, a failover): each
	# responder worker connects again at its next statement, and no request fails.
	pg_admin "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = '$db'" ||
	    bail_out "cannot drop the connections to $db"
	answers=""
	for i in 1 2 3 4; do
		answers="$answers $(http GET "$BASE/api/health" -H "Authorization: Bearer $ADMIN") $(http_body | jq -r .database.ok)"
	done
	is "$answers" " 200 true 200 true 200 true 200 true" \
	    "the connections dropped: an admin's health answers with the report at once"
	# (a worker that caches between requests answers 503 "try again" once and is replaced)
	codes=""
	for i in 1 2 3 4 5 6; do
		codes="$codes $(http GET "$BASE/api/v2/libs/search?libraryName=docs")"
		case $codes in *200) break ;; esac
	done
	like "$codes" '^( 503)* 200$' "... and so does a library search, at the latest after a 503 a worker ($codes)"
	like "$(cat "$T"/log/*.log)" 'the connection to PostgreSQL was lost \(.*\): connecting again' \
	    "... which the responders logged"
fi
ok "$(grep -qF "$secret" "$T"/log/*.log; echo $((1 - $?)))" "the secret is in no log"
done_testing
