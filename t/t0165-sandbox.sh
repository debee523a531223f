#!/usr/bin/env bash
# The read-only responders run under their seccomp filter (lib/base/sandbox.c): each worker of
# ctxd-query and ctxd-mcp has Seccomp: 2 in /proc/PID/status and still answers; ctxd-web and
# ctxd-hook have none; CTXD_SECCOMP=off leaves it out and says so. (t/unit/test-sandbox checks
# which calls the filter refuses.)
. "$top_srcdir/t/lib/harness.sh"
require_cmd pgrep jq

# responder_pid NAME: the pid of responder NAME (query, web, mcp or hook) ctxd_start started.
responder_pid() {
	local i names=(query web mcp hook)
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = "$1" ] && echo "${_responder_pids[$i]}"
	done
}

# seccomp_modes NAME: the Seccomp: field of each worker of responder NAME, sorted, one line.
seccomp_modes() {
	local pid
	for pid in $(pgrep -P "$(responder_pid "$1")"); do
		sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$pid/status"
	done | sort | tr '\n' ' '
}

# copier_listens NAME: how many of responder NAME's sockets (the listening one: the supervisor
# opens no other) its copier holds, and the copier's pid.
copier_listens() {
	local parent pid cp="" n=0 s held
	parent=$(responder_pid "$1")
	for pid in $(pgrep -P "$parent"); do
		[ "$(cat "/proc/$pid/comm")" = ctxd-copier ] && cp=$pid
	done
	[ -n "$cp" ] || { echo "no copier"; return; }
	held=$(find "/proc/$cp/fd" -printf '%l\n')
	for s in $(find "/proc/$parent/fd" -lname 'socket:*' -printf '%l\n'); do
		grep -qxF "$s" <<<"$held" && n=$((n + 1))
	done
	echo "$n (copier $cp)"
}

ctxd_setup
ctxd_start
is "$(seccomp_modes query)" "2 2 2 " "both ctxd-query workers and its copier (search/copier.h) run under the filter"
is "$(seccomp_modes mcp)" "2 2 2 " "both ctxd-mcp workers and its copier too"
is "$(seccomp_modes web)" "0 0 " "ctxd-web has none (it starts the worker)"
like "$(copier_listens query)" "^0 \\(copier [0-9]+\\)$" "ctxd-query's copier holds none of its listening socket"
like "$(copier_listens mcp)" "^0 \\(copier [0-9]+\\)$" "... nor ctxd-mcp's"
is "$(seccomp_modes hook)" "0 0 " "nor ctxd-hook"
like "$(cat "$T/log/query.log")" 'seccomp filter on' "ctxd-query's log says the filter is on"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x&query=y")" 200 \
    "the sandboxed ctxd-query answers"
is "$(http POST "$BASE/mcp" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')" 200 "the sandboxed ctxd-mcp answers"
is "$(http_body | jq -r '.result.tools | length')" 2 "with its tools"

ctxd_stop
CTXD_SECCOMP=off
export CTXD_SECCOMP
ctxd_start
unset CTXD_SECCOMP
is "$(seccomp_modes query)" "0 0 0 " "CTXD_SECCOMP=off: ctxd-query runs without the filter"
is "$(seccomp_modes mcp)" "0 0 0 " "and ctxd-mcp too"
like "$(cat "$T/log/query.log")" 'seccomp filter off: CTXD_SECCOMP=off' "the log says so"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x&query=y")" 200 "it answers as well"

# A copier that fails at its start again and again (CTXD_TEST_COPIER_FAIL: tests only)
# never stops the workers: it starts again later and later (lib/http/http_route.c), while
# five workers failing at start would stop the responder.
ctxd_stop
CTXD_TEST_COPIER_FAIL=1 ctxd_start
for ((i = 0; i < 200; i++)); do
	[ "$(grep -c 'background process [0-9]* exited (status 256)' "$T/log/query.log")" -ge 6 ] && break
	sleep 0.1
done
like "$(grep -c 'background process [0-9]* exited (status 256)' "$T/log/query.log")" '^([6-9]|[1-9][0-9]+)$' \
    "a copier failing at its start is started again (6 times here)"
like "$(grep 'background process' "$T/log/query.log" | tail -n 1)" 'starting it again in [0-9]+ ms' \
    "... each time later, said so"
unlike "$(cat "$T/log/query.log")" 'keep failing' "... and the responder does not stop"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x&query=y")" 200 "its workers answer"

done_testing
