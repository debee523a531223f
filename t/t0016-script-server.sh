#!/usr/bin/env bash
# script/server as a new user runs it (here without its bootstrap and build, which the suite
# has done: SKIP_BUILD=1): the whole service comes up on PORT, listening on 127.0.0.1 only
# unless BIND says otherwise, and it says where it listens.
. "$top_srcdir/t/lib/harness.sh"
require_cmd nginx curl ss setsid
[ "$top_srcdir" -ef "$top_builddir" ] || skip_all "script/server runs from an in-tree build"

T=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-test.XXXXXX") || bail_out "mktemp failed"
port=$(pick_port) || bail_out "no free port"
(cd "$top_srcdir" && SKIP_BUILD=1 PORT=$port DATA_DIR="$T/data" LICENSE_KEY= \
    exec setsid script/server >"$T/out" 2>"$T/err") &
server=$!
stop_server() {
	kill -TERM "$server" 2>/dev/null
	for ((i = 0; i < 100; i++)); do kill -0 "$server" 2>/dev/null || return 0; sleep 0.2; done
	kill -KILL -- "-$server" 2>/dev/null
}
trap 'st=$?; stop_server; (exit $st); _harness_cleanup' EXIT

code=000
for ((i = 0; i < 300; i++)); do
	code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$port/api/health" \
	    2>/dev/null || true)
	[ "$code" = 200 ] && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.2
done
is "$code" 200 "script/server: /api/health answers on 127.0.0.1:$port" || diag "$(cat "$T/err")"
listen=$(ss -ltnH "sport = :$port" | awk '{print $4}' | sort -u | tr '\n' ' ')
is "$listen" "127.0.0.1:$port " "by default it listens on the loopback only"
like "$(cat "$T/out")" "listening on 127\.0\.0\.1:$port, this machine only" \
    "... and says so, with how to serve other machines (BIND)"
like "$(cat "$T/out")" "BIND=0.0.0.0" "... naming BIND"
done_testing
