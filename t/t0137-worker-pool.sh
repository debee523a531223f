#!/usr/bin/env bash
# ctxd-worker runs up to worker.concurrency jobs at once, each in a process of its own:
# - three jobs run at once, a fourth waits; each job holds a lease in the pool's name;
# - kill -9 of one job's process: that job is recovered at once and run again (attempts 2),
#   the two others go on and end in one attempt, and the fourth runs;
# - kill -9 of the pool: its job processes die with it; the next worker recovers the jobs;
# - two jobs of one library never run at once: a second job queued while the first runs
#   waits for it, although slots are free;
# - the claim order is fair: with one slot, two members' jobs alternate (mia, noa, mia, ...)
#   after the service's and an admin's, whatever order they were queued in; an admin's
#   request merged into a member's queued job moves it into the admin's turn;
# - four jobs writing at once: none fails on a locked database; each logs where its time went;
# - GET /api/jobs gives each queued job its place in line and the job of its library it
#   waits for (the job list shows them).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap pgrep

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
J='Content-Type: application/json'
ADMIN=$(ctxd_admin key create --admin tests)
for u in mia noa; do
	printf '%s password 1\n' "$u" | ctxd_admin user create "$u" >/dev/null 2>&1 ||
	    bail_out "cannot create user $u"
done
MIA=$(ctxd_admin key create --user mia mia-key)
NOA=$(ctxd_admin key create --user noa noa-key)
gitserver_add_bundle requests public >/dev/null

# serve NAME: the requests corpus served again as /pool/NAME; prints its URL.
serve() {
	mkdir -p "$T/gitsrv/public/pool"
	ln -sfn "$T/gitsrv/public/corpora/requests.git" "$T/gitsrv/public/pool/$1.git"
	echo "$GITBASE/public/pool/$1.git"
}
# parse KEY NAME [EXTRA]: queue /pool/NAME as KEY; prints the job id (empty unless 202).
parse() {
	local code
	code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $1" -H "$J" \
	    --data "{\"repoUrl\": \"$(serve "$2")\"${3:-}}")
	[ "$code" = 202 ] && http_body | jq -r .jobId
}
running() { _sql "SELECT count(*) FROM jobs WHERE state = 'running'"; }
# wait_for CMD WANT SECONDS: until $(CMD) prints WANT; returns 1 on timeout.
wait_for() {
	local deadline=$((SECONDS + $3))
	while [ "$SECONDS" -lt "$deadline" ]; do
		[ "$($1)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
set_() { ctxd_admin settings set "$1" "$2" >/dev/null || bail_out "settings set $1 $2"; }

# ---------------------------------------------------------------- three at once, kill -9 one
set_ worker.concurrency 3
export CTXD_TEST_FILE_DELAY_MS=150	# each file parsed waits: a job lasts seconds
for n in a b c d; do
	printf -v "job_$n" '%s' "$(parse "$ADMIN" "$n")"
done
ok "$([ -n "$job_a" ] && [ -n "$job_d" ]; echo $?)" "four libraries queued"
"$top_builddir/ctxd-worker" 2>"$T/log/pool1.log" &
pool=$!
wait_for running 3 60
is "$(running)" 3 "three jobs run at once (worker.concurrency 3)"
is "$(_sql "SELECT state FROM jobs WHERE id = $job_d")" queued "the fourth waits"
is "$(pgrep -c -P "$pool" ctxd-worker)" 3 "each running job has a process of its own"
holder=$(_sql "SELECT DISTINCT lease_holder FROM jobs WHERE state = 'running'")
like "$holder" ":$pool\$" "the running jobs are leased to the pool (host:pid)"
ok "$(_sql "SELECT count(*) FROM jobs WHERE state = 'running' AND lease_until >
    strftime('%Y-%m-%dT%H:%M:%SZ', 'now')" | grep -qx 3; echo $?)" "... with leases that have not lapsed"
victim_pid=$(pgrep -P "$pool" ctxd-worker | head -n 1)
victim_job=$(_sql "SELECT id FROM jobs WHERE state = 'running' ORDER BY id LIMIT 1")
# which job a process runs: the log lines it writes carry "job N"; kill the first child and
# find its job as the one requeued
kill -9 "$victim_pid"
wait "$pool"
is $? 0 "the pool ends when the queue is empty"
is "$(_sql "SELECT count(*) FROM jobs WHERE id IN ($job_a, $job_b, $job_c, $job_d) AND
    state = 'done'")" 4 "every job is done, the killed one too"
is "$(_sql "SELECT count(*) FROM jobs WHERE id IN ($job_a, $job_b, $job_c, $job_d) AND
    attempts = 2")" 1 "one job ran twice: the one whose process was killed"
is "$(_sql "SELECT count(*) FROM jobs WHERE id IN ($job_a, $job_b, $job_c, $job_d) AND
    attempts = 1")" 3 "the others ran once: the kill did not stop them"
like "$(cat "$T/log/pool1.log")" "its process died of signal 9" "the pool logs the death"
is "$(_sql "SELECT count(*) FROM libraries WHERE id LIKE '/pool/%' AND state = 'finalized'")" 4 \
    "the four libraries are indexed"
: "$victim_job"

# ------------------------------------------------------------------------ kill -9 the pool
for n in e f; do parse "$ADMIN" "$n" >/dev/null; done
"$top_builddir/ctxd-worker" 2>"$T/log/pool2.log" &
pool=$!
wait_for running 2 60
is "$(running)" 2 "two jobs run"
children=$(pgrep -P "$pool" ctxd-worker | tr '\n' ' ')
kill -9 "$pool"
wait "$pool" 2>/dev/null
gone=no
for ((i = 0; i < 50; i++)); do
	alive=0
	for c in $children; do kill -0 "$c" 2>/dev/null && alive=1; done
	[ "$alive" = 0 ] && { gone=yes; break; }
	sleep 0.1
done
is "$gone" yes "the job processes die with the pool"
is "$(running)" 2 "their jobs are left running"
"$top_builddir/ctxd-worker" 2>"$T/log/pool3.log"
is $? 0 "the next worker runs"
is "$(_sql "SELECT count(*) FROM libraries WHERE id IN ('/pool/e', '/pool/f') AND
    state = 'finalized'")" 2 "... and completes the two libraries"
is "$(running)" 0 "no job is left running"

# ------------------------------------------------------ one library, never two jobs at once
first=$(parse "$ADMIN" g)
"$top_builddir/ctxd-worker" 2>"$T/log/pool4.log" &
pool=$!
wait_for running 1 60
second=$(parse "$ADMIN" g ', "excludeFiles": ["HISTORY.md"]')
ok "$([ -n "$second" ] && [ "$second" != "$first" ]; echo $?)" \
    "a request with new settings for a library being indexed queues a second job"
is "$(http GET "$BASE/api/jobs/$second" -H "Authorization: Bearer $ADMIN")" 200 "GET the second job"
is "$(http_body | jq -c .queue)" "{\"position\":1,\"waitsForJob\":$first}" \
    "it is next in line, and says it waits for the first job of its library"
both=0
while kill -0 "$pool" 2>/dev/null; do
	[ "$(_sql "SELECT count(*) FROM jobs WHERE library_id = '/pool/g' AND
	    state = 'running'")" -gt 1 ] && both=1
	sleep 0.05
done
wait "$pool"
is "$both" 0 "the two jobs of /pool/g never ran at once (with slots free)"
is "$(_sql "SELECT group_concat(state, ' ') FROM (SELECT state FROM jobs WHERE id IN
    ($first, $second) ORDER BY id) AS j")" "done done" "both ran, one after the other"
is "$(_sql "SELECT started_at >= (SELECT finished_at FROM jobs WHERE id = $first) FROM jobs
    WHERE id = $second")" 1 "the second started after the first ended"
again=$(parse "$ADMIN" h)
again2=$(parse "$ADMIN" h)
is "$again2" "$again" "two requests for a queued library are one job"
"$top_builddir/ctxd-worker" 2>"$T/log/pool5.log"

# ------------------------------------------------------------------------- the fair order
unset CTXD_TEST_FILE_DELAY_MS
set_ worker.concurrency 1
m1=$(parse "$MIA" m1); m2=$(parse "$MIA" m2); m3=$(parse "$MIA" m3)
n1=$(parse "$NOA" n1); n2=$(parse "$NOA" n2)
s1=$(parse "$ADMIN" s1)		# an admin's operator key
is "$(_sql "SELECT count(*) FROM jobs WHERE state = 'queued'")" 6 "six jobs queued: mia's three, noa's two, then an admin key's"
is "$(http GET "$BASE/api/jobs?state=queued" -H "Authorization: Bearer $ADMIN")" 200 "the queued jobs"
is "$(http_body | jq -r '[.jobs | sort_by(.queue.position)[] | .libraryId[6:]] | join(" ")')" \
    "s1 m1 n1 m2 n2 m3" "their places in line are the order the worker takes them in"
is "$(http_body | jq -r '[.jobs[] | .queue.position] | sort | join(" ")')" "1 2 3 4 5 6" \
    "... numbered from 1"
"$top_builddir/ctxd-worker" 2>"$T/log/pool6.log"
order=$(_sql "SELECT group_concat(j, ' ') FROM (SELECT substr(library_id, 7) AS j FROM jobs
    WHERE id IN ($m1, $m2, $m3, $n1, $n2, $s1) ORDER BY claim_no) AS q")
is "$order" "s1 m1 n1 m2 n2 m3" "the admin key's job first, then mia and noa in turn"

# ------------------------------------- an admin's request merged into a member's queued job
# mia queues t1 and t2, noa t3; an admin then asks for t2 again: the request is merged into
# mia's job, which now goes in the admin's turn, ahead of the members' jobs.
t1=$(parse "$MIA" t1); t2=$(parse "$MIA" t2); t3=$(parse "$NOA" t3)
t2again=$(parse "$ADMIN" t2)
is "$t2again" "$t2" "an admin's request for a library a member queued is merged into that job"
is "$(_sql "SELECT queued_admin FROM jobs WHERE id = $t2")" 1 "... which is now the admin's"
is "$(http GET "$BASE/api/jobs?state=queued" -H "Authorization: Bearer $ADMIN")" 200 "the queued jobs"
is "$(http_body | jq -r '[.jobs | sort_by(.queue.position)[] | .libraryId[6:]] | join(" ")')" \
    "t2 t3 t1" "the merged job is first in line"
"$top_builddir/ctxd-worker" 2>"$T/log/pool8.log"
order=$(_sql "SELECT group_concat(j, ' ') FROM (SELECT substr(library_id, 7) AS j FROM jobs
    WHERE id IN ($t1, $t2, $t3) ORDER BY claim_no) AS q")
is "$order" "t2 t3 t1" "the worker takes it first, then noa's (served longest ago) and mia's"

# ------------------------------------------------------------------ four writers at once
set_ worker.concurrency 4
for n in w1 w2 w3 w4; do parse "$ADMIN" "$n" >/dev/null; done
"$top_builddir/ctxd-worker" 2>"$T/log/pool7.log"
is "$(_sql "SELECT count(*) FROM libraries WHERE id LIKE '/pool/w_' AND state = 'finalized'")" 4 \
    "four jobs writing at once all end indexed"
unlike "$(cat "$T/log/pool7.log")" "locked|busy" "no database is locked or busy error"
is "$(_sql "SELECT count(*) FROM job_log l JOIN jobs j ON j.id = l.job_id WHERE
    j.library_id LIKE '/pool/w_' AND l.line LIKE 'time: fetch % ms, parse % ms, write % ms (% ms of it waiting for another writer), describe and embed % ms, in all % ms; % ms waiting for other writers in all'")" 4 \
    "each job logs where its time went, and its waits for another job's write"
is "$(_sql "SELECT count(*) FROM jobs WHERE state = 'failed'")" 0 "no job failed in this test"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	is "$(_sql "PRAGMA integrity_check")" ok "the database is intact"
else
	# (PostgreSQL has no integrity check of its files: the rows are checked against the
	# segments written from them.)
	is "$(index_check)" ok "each index segment is the one its rows make"
fi

done_testing
