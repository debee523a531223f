#!/usr/bin/env bash
# One slow git server cannot stop the queue: a server that accepts and never answers, and one
# that drips a byte now and then, each fail their job within git.stall_timeout_s (plus slack),
# and one whose connections never complete within git.connect_timeout_s, each with a message
# naming the URL and the deadline, and the worker goes on with the next job, which is indexed.
# A drip fast enough for the stall rule still ends at the job's deadline
# (limits.job_timeout_s), in one attempt. The stand-ins are t/standin/gitstall.js and
# t/standin/noaccept.py.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node python3 timeout

STALL=3
CONNECT=2
ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself, and times it
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
ctxd_admin settings set git.stall_timeout_s "$STALL" >/dev/null &&
    ctxd_admin settings set git.connect_timeout_s "$CONNECT" >/dev/null ||
    bail_out "cannot set the git deadlines"

# gitstall NAME MODE [RATE]: start t/standin/gitstall.js in MODE; sets PORT_<NAME>.
gitstall() {
	local port
	_spawn "$T/log/gitstall-$1.log" node "$top_srcdir/t/standin/gitstall.js" "$2" 0 ${3:+"$3"}
	port=$(_standin_port "$T/log/gitstall-$1.log" "$_spawned") ||
	    bail_out "the gitstall stand-in $1 did not start"
	printf -v "PORT_$1" '%s' "$port"
}
gitstall silent silent
gitstall drip drip 4
gitstall fastdrip drip 40
_spawn "$T/log/noaccept.log" python3 "$top_srcdir/t/standin/noaccept.py"
PORT_noaccept=$(_standin_port "$T/log/noaccept.log" "$_spawned") ||
    bail_out "the noaccept stand-in did not start"

# parse URL: POST /api/parse as the admin; prints the job id (empty unless 202).
parse() {
	local code
	code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$1\"}")
	[ "$code" = 202 ] && http_body | jq -r .jobId
}

# seconds JOB: how long job JOB ran (finished_at - started_at), -1 when it did not end.
seconds() {
	_sql "SELECT coalesce(CAST(strftime('%s', finished_at) AS INTEGER) -
	    CAST(strftime('%s', started_at) AS INTEGER), -1) FROM jobs WHERE id = $1"
}

test_repo acme/good
put README.md <<'EOF'
# Good

The quokka library answers every question about marsupials.
EOF
commit "good"

silent_url=http://127.0.0.1:$PORT_silent/acme/silent
drip_url=http://127.0.0.1:$PORT_drip/acme/drip
silent_job=$(parse "$silent_url.git")
drip_job=$(parse "$drip_url.git")
noaccept_url=http://127.0.0.1:$PORT_noaccept/acme/noaccept
noaccept_job=$(parse "$noaccept_url.git")
good_job=$(parse "$GITBASE/public/acme/good.git")
ok "$([ -n "$silent_job" ] && [ -n "$drip_job" ] && [ -n "$noaccept_job" ] && [ -n "$good_job" ]; echo $?)" \
    "four libraries queued: the silent server's, the dripping one's, the unconnectable one's, then a good one"

# Before the deadlines, the silent server held the worker until limits.job_timeout_s
# (1800 s) ended it, three times: give the worker far less than that.
start=$SECONDS
timeout 120 "$top_builddir/ctxd-worker" 2>"$T/log/worker1.log"
is $? 0 "the worker ends by itself (not killed by the test's 120 s)"
elapsed=$((SECONDS - start))

is "$(_sql "SELECT state FROM jobs WHERE id = $silent_job")" failed "the silent server's job failed"
msg=$(_sql "SELECT message FROM jobs WHERE id = $silent_job")
like "$msg" "^could not fetch $silent_url(\\.git)?: 127\\.0\\.0\\.1:$PORT_silent sent nothing for $STALL s \\(setting git\\.stall_timeout_s\\)" \
    "its message names the URL and the deadline"
t=$(seconds "$silent_job")
ok "$([ "$t" -ge 0 ] && [ "$t" -le $((STALL + 15)) ]; echo $?)" \
    "it failed within the stall deadline and slack ($t s)"
is "$(_sql "SELECT attempts FROM jobs WHERE id = $silent_job")" 1 "in one attempt"
like "$(cat "$T/log/gitstall-silent.log")" "connection 1" "the silent server was reached"

is "$(_sql "SELECT state FROM jobs WHERE id = $drip_job")" failed "the dripping server's job failed"
msg=$(_sql "SELECT message FROM jobs WHERE id = $drip_job")
like "$msg" "^could not fetch $drip_url(\\.git)?: 127\\.0\\.0\\.1:$PORT_drip sent only [0-9]+ bytes in $STALL s, less than 16 bytes a second \\(setting git\\.stall_timeout_s\\)" \
    "its message names the URL, the deadline and the trickle"
t=$(seconds "$drip_job")
ok "$([ "$t" -ge 0 ] && [ "$t" -le $((STALL + 15)) ]; echo $?)" \
    "it failed within the stall deadline and slack ($t s)"

is "$(_sql "SELECT state FROM jobs WHERE id = $noaccept_job")" failed \
    "the job of the server that never completes a connection failed"
like "$(_sql "SELECT message FROM jobs WHERE id = $noaccept_job")" \
    "^could not fetch $noaccept_url(\\.git)?: no connection to 127\\.0\\.0\\.1:$PORT_noaccept within $CONNECT s \\(setting git\\.connect_timeout_s\\)" \
    "its message names the URL and the connect deadline"
t=$(seconds "$noaccept_job")
ok "$([ "$t" -ge 0 ] && [ "$t" -le $((CONNECT + 15)) ]; echo $?)" \
    "it failed within the connect deadline and slack ($t s)"

is "$(_sql "SELECT state FROM jobs WHERE id = $good_job")" done "the job queued after them ran"
is "$(_sql "SELECT state FROM libraries WHERE id = '/acme/good'")" finalized \
    "and its library is indexed"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/acme/good \
    --data-urlencode "query=quokka marsupials")
like "$(http_body)" 'quokka library answers' "and answers"
ok "$([ "$elapsed" -le 90 ]; echo $?)" "the worker took $elapsed s for the four jobs"
is "$(_sql "SELECT state || ' ' || run_status FROM libraries WHERE id = '/acme/silent'")" \
    "error failed" "the silent server's library shows the failed run"

# A drip above 16 bytes a second passes the stall rule; the job's deadline ends it, and the
# job fails in its one attempt (the worker's alarm would have killed it three times).
ctxd_admin settings set limits.job_timeout_s 10 >/dev/null || bail_out "cannot set the job timeout"
fast_url=http://127.0.0.1:$PORT_fastdrip/acme/fastdrip
fast_job=$(parse "$fast_url.git")
ok "$([ -n "$fast_job" ]; echo $?)" "a library on a faster drip queued"
timeout 60 "$top_builddir/ctxd-worker" 2>"$T/log/worker2.log"
is $? 0 "the worker ends by itself"
is "$(_sql "SELECT state || ' ' || attempts FROM jobs WHERE id = $fast_job")" "failed 1" \
    "the faster drip's job failed in one attempt"
like "$(_sql "SELECT message FROM jobs WHERE id = $fast_job")" \
    "^could not fetch $fast_url(\\.git)?: the job's time ran out \\(setting limits\\.job_timeout_s\\) while fetching from 127\\.0\\.0\\.1:$PORT_fastdrip" \
    "its message names the URL and the job's deadline"

done_testing
