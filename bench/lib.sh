# shellcheck shell=bash
# bench/lib.sh: shared setup of the benchmarks (bench/index, bench/load, bench/mcp).
#
# Source it first thing:   . "$(dirname "$0")/lib.sh"
#
# It finds the source root from its own location, builds the executables there with
# script/build when one is missing, and sources the test harness (t/lib/harness.sh), whose
# EXIT trap stops everything started here (git server, responders, nginx, stray workers) and
# removes the temporary directory $T (CTXD_KEEP_TMP=1 keeps it).
#
# Functions:
#   bench_setup                 ctxd_setup (which lists the loopback in fetch.allowed_networks,
#                               so that the git server and the stand-ins are reached) + git
#                               server serving the curl bundle + responders
#                               (CTXD_WORKER=/bin/true: they do not start the worker) +
#                               an admin key. Sets ADMIN, CURL_URL, LIB=/corpora/curl.
#   bench_parse JSON            POST /api/parse with JSON; sets BENCH_JOB; returns 1 unless 202.
#   bench_worker LABEL          run ctxd-worker under /usr/bin/time -v; sets W_WALL (s),
#                               W_RSS_MB, W_RC, W_JOB_STATE; returns 1 when the worker or the
#                               job failed.
#   bench_index_curl            bench_setup, parse curl and index it (for bench/load).
#   bench_machine               one line: date, nproc, memory, CPU model, commit, load average
#                               (call it before the measurements: other load skews them).
#   bench_query_workers N       restart ctxd-query with --workers N on the same socket.
#   bench_wrk_script FILE       write the wrk Lua script: it cycles through the request paths
#                               of the file $BENCH_PATHS names and prints one RESULT line
#                               (requests, rps, p50/p90/p99/max ms, non200, sock_errors).
#   bench_field NAME LINE       the value of NAME=value in a RESULT line.

set -uo pipefail

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
top_srcdir=$bench_root
top_builddir=$bench_root
CORPORA=${CORPORA:-$bench_root/t/corpora}
export top_srcdir top_builddir CORPORA

for _b in ctxd-query ctxd-web ctxd-mcp ctxd-hook ctxd-worker ctxd-admin; do
	if [ ! -x "$bench_root/$_b" ]; then
		echo "bench: $_b is not built: running script/build" >&2
		"$bench_root/script/build" || { echo "bench: script/build failed" >&2; exit 1; }
		break
	fi
done
unset _b

# shellcheck source=t/lib/harness.sh
. "$bench_root/t/lib/harness.sh"
set -uo pipefail

require_cmd jq git nginx fcgiwrap curl sqlite3 openssl
[ -x /usr/bin/time ] || skip_all "/usr/bin/time is not installed (Debian package time)"

LIB=/corpora/curl
[ -r "$CORPORA/curl.bundle" ] ||
    bail_out "no $CORPORA/curl.bundle: set CORPORA to the directory of the git bundles"

bench_setup() {
	ctxd_setup
	gitserver_start
	export CTXD_WORKER=/bin/true	# the benchmark runs the worker itself
	ctxd_start
	ADMIN=$(ctxd_admin key create --admin bench) || bail_out "ctxd-admin key create failed"
	CURL_URL=$(gitserver_add_bundle curl public) || bail_out "cannot serve the curl bundle"
	export ADMIN CURL_URL
}

bench_parse() {
	local code
	code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "$1")
	if [ "$code" != 202 ]; then
		echo "bench: POST /api/parse answered $code: $(http_body)" >&2
		return 1
	fi
	BENCH_JOB=$(http_body | jq -r .jobId)
}

# _bench_rss_mb FILE: "Maximum resident set size (kbytes)" of a /usr/bin/time -v report, in MB.
_bench_rss_mb() {
	awk -F': *' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$1"
}

# shellcheck disable=SC2034	# W_* are read by the callers
bench_worker() {
	local label=$1 t0 t1
	t0=$EPOCHREALTIME
	/usr/bin/time -v -o "$T/log/time-$label.txt" "$top_builddir/ctxd-worker" \
	    >"$T/log/worker-$label.log" 2>&1
	W_RC=$?
	t1=$EPOCHREALTIME
	W_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	W_RSS_MB=$(_bench_rss_mb "$T/log/time-$label.txt")
	W_JOB_STATE=$(_sql "SELECT state FROM jobs WHERE id = ${BENCH_JOB//[^0-9]/}" 2>/dev/null)
	if [ "$W_RC" -ne 0 ] || [ "$W_JOB_STATE" != "done" ]; then
		echo "bench: ctxd-worker ($label) exited $W_RC, job $BENCH_JOB is '$W_JOB_STATE'" >&2
		tail -n 20 "$T/log/worker-$label.log" >&2
		_sql "SELECT level || ' ' || line FROM job_log WHERE job_id = ${BENCH_JOB//[^0-9]/} \
		    ORDER BY id DESC LIMIT 10" >&2
		return 1
	fi
	return 0
}

bench_index_curl() {
	bench_setup
	bench_parse "{\"repoUrl\": \"$CURL_URL\"}" || bail_out "cannot queue the curl parse"
	bench_worker index || bail_out "indexing curl failed"
	[ "$(_sql "SELECT state FROM libraries WHERE id = '$LIB'")" = finalized ] ||
	    bail_out "$LIB is not finalized after the worker run"
}

bench_machine() {
	local mem cpu commit
	mem=$(awk '/^MemTotal:/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)
	cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
	# BENCH_COMMIT names the commit when this tree is a copy without .git.
	if [ -n "${BENCH_COMMIT:-}" ]; then
		commit=$BENCH_COMMIT
	elif commit=$(git -C "$bench_root" rev-parse --short HEAD 2>/dev/null); then
		git -C "$bench_root" diff --quiet HEAD -- 2>/dev/null || commit="$commit (modified)"
	else
		commit=$(git -C /work/main rev-parse --short HEAD 2>/dev/null || echo unknown)
		commit="$commit? (/work/main HEAD; this tree has no .git: set BENCH_COMMIT)"
	fi
	echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), nproc $(nproc), memory $mem, CPU ${cpu:-unknown}, commit $commit, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
}

# bench_query_workers N: replace the ctxd-query started by ctxd_start (--workers 2) with one
# running N workers on the same socket; nginx connects per request, so it picks it up.
bench_query_workers() {
	local n=$1 i
	[ "${#_responder_pids[@]}" -ge 1 ] || bail_out "ctxd_start first"
	_stop_group "${_responder_pids[0]}" TERM
	rm -f "$T/run/query.sock"
	_spawn "$T/log/query-w$n.log" "$top_builddir/ctxd-query" \
	    --socket "$T/run/query.sock" --workers "$n"
	_responder_pids[0]=$_spawned	# set by the harness's _spawn
	for ((i = 0; i < 100; i++)); do
		[ -S "$T/run/query.sock" ] &&
		    [ "$(_http_code "$BASE/api/v2/libs/search?libraryName=curl")" = 200 ] && return 0
		_alive "$_spawned" || break
		sleep 0.1
	done
	_show_log "$T/log/query-w$n.log"
	bail_out "ctxd-query --workers $n did not come up"
}

bench_wrk_script() {
	cat >"$1" <<'EOF'
-- Cycles through the request paths in $BENCH_PATHS (one per line), each thread from its own
-- offset; counts answers other than 200; done() prints one RESULT line.
local paths = {}
for line in io.lines(os.getenv("BENCH_PATHS")) do
	if line ~= "" then paths[#paths + 1] = line end
end

local threads = {}
local nthreads = 0
function setup(thread)
	thread:set("tid", nthreads)
	nthreads = nthreads + 1
	table.insert(threads, thread)
end

local i = 0
function init(args)
	i = (tid or 0) * 7
	non200 = 0
	responses = 0
end

function request()
	i = i % #paths + 1
	return wrk.format("GET", paths[i])
end

function response(status, headers, body)
	responses = responses + 1
	if status ~= 200 then non200 = non200 + 1 end
end

function done(summary, latency, requests)
	local bad, resp = 0, 0
	for _, t in ipairs(threads) do
		bad = bad + t:get("non200")
		resp = resp + t:get("responses")
	end
	local e = summary.errors
	local secs = summary.duration / 1e6
	io.write(string.format("RESULT requests=%d responses=%d secs=%.3f rps=%.1f " ..
	    "p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f non200=%d " ..
	    "sock_errors=%d\n", summary.requests, resp, secs, summary.requests / secs,
	    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
	    latency:percentile(99) / 1000, latency.max / 1000, bad,
	    e.connect + e.read + e.write + e.timeout))
end
EOF
}

bench_field() {
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"
}
