#!/usr/bin/env bash
# script/server as a new user runs it (here without its bootstrap and build, which the suite
# has done: SKIP_BUILD=1): the whole service comes up on PORT, listening on 127.0.0.1 only
# unless BIND says otherwise, and it says where it listens. Its start is quiet and honest: the
# UI address first, the first sign-in (admin / admin) only while that password is unchanged,
# no warning about the data folder it just made; and ctxd-admin doctor agrees with the
# Status page's /api/health on the checks both make (license, database, disk).
. "$top_srcdir/t/lib/harness.sh"
require_cmd nginx curl ss setsid
[ "$top_srcdir" -ef "$top_builddir" ] || skip_all "script/server runs from an in-tree build"

T=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-test.XXXXXX") || bail_out "mktemp failed"
port=$(pick_port) || bail_out "no free port"
server=
data=$T/data
start_server() {
	(cd "$top_srcdir" && SKIP_BUILD=1 PORT=$port DATA_DIR="$data" LICENSE_KEY= \
	    exec setsid script/server >"$T/out" 2>"$T/err") &
	server=$!
	code=000
	for ((i = 0; i < 300; i++)); do
		code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' \
		    "http://127.0.0.1:$port/api/health" 2>/dev/null || true)
		[ "$code" = 200 ] && grep -q "Ctrl-C stops" "$T/err" && break
		kill -0 "$server" 2>/dev/null || break
		sleep 0.2
	done
}
stop_server() {
	[ -n "$server" ] || return 0
	kill -TERM "$server" 2>/dev/null
	for ((i = 0; i < 100; i++)); do kill -0 "$server" 2>/dev/null || return 0; sleep 0.2; done
	kill -KILL -- "-$server" 2>/dev/null
}
trap 'st=$?; stop_server; (exit $st); _harness_cleanup' EXIT

start_server
is "$code" 200 "script/server: /api/health answers on 127.0.0.1:$port" || diag "$(cat "$T/err")"
listen=$(ss -ltnH "sport = :$port" | awk '{print $4}' | sort -u | tr '\n' ' ')
is "$listen" "127.0.0.1:$port " "by default it listens on the loopback only"
like "$(cat "$T/out")" "listening on 127\.0\.0\.1:$port, this machine only" \
    "... and says so, with how to serve other machines (BIND)"
like "$(cat "$T/out")" "BIND=0.0.0.0" "... naming BIND"

# A quiet start on a fresh data folder: the UI address is the first line, then the first
# sign-in; no warning (such as tightening the modes of the folders it just made).
is "$(sed -n 1p "$T/out")" "ctxd web UI: http://127.0.0.1:$port/" "the first line is the UI address"
is "$(sed -n 2p "$T/out")" "first sign-in: admin / admin, then choose a password" \
    "... then the default credentials, while they are unchanged"
unlike "$(cat "$T/out" "$T/err")" "warning|tightened|npm" \
    "no warning and no npm output on a fresh data folder" || diag "$(cat "$T/err")"
mode=$(stat -c %a "$T/data")
is "$mode" 750 "the data folder it made has the service's mode 0750"

# ctxd-admin doctor and GET /api/health (what the Status page shows) agree.
DATA_DIR=$T/data "$top_builddir/ctxd-admin" key create --admin status >"$T/key" 2>&1
key=$(grep -o 'ctxd_[A-Za-z0-9_-]*' "$T/key" | head -n 1)
health=$(curl -s -m 10 -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/health")
lic=$(jq -r .license.status <<<"$health")
db=$(jq -r .database.ok <<<"$health")
disk=$(jq -r .disk.ok <<<"$health")
is "$lic/$db/$disk" "valid/true/true" "/api/health: license, database and disk fine" ||
    diag "$health"
# The key script/server minted: from the environment of its ctxd-web.
web=$(pgrep -f -n "ctxd-web --socket $T/data/run/web.sock")
srv_key=$(tr '\0' '\n' </proc/"$web"/environ | sed -n 's/^LICENSE_KEY=//p')
DATA_DIR=$T/data LICENSE_KEY=$srv_key CTXD_DEFAULTS=/dev/null \
    "$top_builddir/ctxd-admin" doctor >"$T/doctor" 2>&1
for c in license database disk; do
	case $c in license) h=$([ "$lic" = valid ] && echo ok) ;; database) h=$([ "$db" = true ] && echo ok) ;;
	disk) h=$([ "$disk" = true ] && echo ok) ;; esac
	d=$(grep -E "^(ok|FIX) +$c" "$T/doctor" | head -n 1 | awk '{print $1}')
	is "${d:-none}" "${h:-FIX}" "doctor and /api/health agree on the $c" || diag "$(cat "$T/doctor")"
done

# After the admin chose a password, a restart no longer prints the default credentials.
stop_server
printf 'An0ther-long-password\nAn0ther-long-password\n' |
    DATA_DIR=$T/data "$top_builddir/ctxd-admin" passwd admin >/dev/null 2>&1
ok $? "the admin's password changed"
: >"$T/out"
start_server
is "$code" 200 "script/server starts again"
is "$(sed -n 1p "$T/out")" "ctxd web UI: http://127.0.0.1:$port/" "the first line is the UI address"
unlike "$(cat "$T/out" "$T/err")" "admin / admin" "... and the default credentials are not shown"
unlike "$(cat "$T/out" "$T/err")" "warning" "... nor any warning on a restart"

# With DATABASE_URL (README, Configuration) the store is that PostgreSQL database: init makes
# the schema there, the responders answer from it, and DATA_DIR gets no ctxd.db.
stop_server
. "$top_srcdir/t/lib/pg.sh"
pg_start
data=$T/pgdata
: >"$T/out"
start_server
is "$code" 200 "script/server with DATABASE_URL: /api/health answers" || diag "$(cat "$T/err")"
is "$(pg_sql "SELECT version FROM ctxd_schema")" "$SCHEMA_VERSION" "... the schema is in PostgreSQL"
pg_sql "INSERT INTO libraries (id, lib_no, url, host, title, created_at, updated_at)
    VALUES ('/only/in-postgres', 1, 'u', 'h', 't', 'c', 'c')"
key=$(DATA_DIR=$data "$top_builddir/ctxd-admin" key create --admin pg 2>&1 | grep -o 'ctxd_[A-Za-z0-9_-]*' | head -n 1)
is "$(curl -s -m 10 -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/health" |
    jq -r '.libraries')" 1 "... the responders answer from it (a key and a library only it holds)"
like "$(cat "$T/err")" "database: PostgreSQL \(DATABASE_URL\)" "... and it says which database"
ok "$([ ! -e "$data/ctxd.db" ]; echo $?)" "... no ctxd.db in DATA_DIR"
done_testing
