#!/usr/bin/env bash
# A job's long write holds SQLite's one writer longer than the pool's busy timeout (10 s) and
# longer than a lease (shortened here to 3 s by CTXD_TEST_WORKER_LEASE_S): bench/scale's
# 1M-snippet library held it 24 s. The pool must ride it out:
# - its claims fail "database is locked" meanwhile: that means nothing claimable now, not a
#   fatal error (the pool used to wait for its job and exit 1, leaving the queue);
# - its renewals fail meanwhile and the running job's lease lapses: the pool must not then
#   take its own live job for an orphan and requeue it under its running process;
# - once the writer lets go, the running job ends in one attempt, the job queued behind it
#   runs, and the pool exits 0.
# On PostgreSQL the same with the table jobs locked by another connection.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
J='Content-Type: application/json'
ADMIN=$(ctxd_admin key create --admin tests)
URL=$(gitserver_add_bundle requests public)
ctxd_admin settings set worker.concurrency 2 >/dev/null || bail_out "settings set"

parse() {
	local code
	code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H "$J" \
	    --data "{\"repoUrl\": \"$URL\"${1:-}}")
	[ "$code" = 202 ] && http_body | jq -r .jobId
}
running() { _sql "SELECT count(*) FROM jobs WHERE state = 'running'"; }
wait_for() {
	local deadline=$((SECONDS + $3))
	while [ "$SECONDS" -lt "$deadline" ]; do
		[ "$($1)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# 150 ms a file: the job (29 files) still runs when the writer is taken, even on a loaded
# machine (at 20 ms CI once saw it end before: no lease left to lapse)
export CTXD_TEST_FILE_DELAY_MS=150 CTXD_TEST_WORKER_LEASE_S=3
first=$(parse)
ok "$([ -n "$first" ]; echo $?)" "a job is queued"
"$top_builddir/ctxd-worker" 2>"$T/log/pool.log" &
pool=$!
wait_for running 1 60
is "$(running)" 1 "the job runs"
# a second job of the same library waits for the first: the pool, with a slot free, tries
# to claim one every round, and meets the lock
second=$(parse ', "excludeFiles": ["HISTORY.md"]')
ok "$([ -n "$second" ] && [ "$second" != "$first" ]; echo $?)" "a second job is queued behind it"

# another connection holds the writer 22 s: the renewal waits out the busy timeout (10 s),
# then a claim does (10 s more); both fail, and the lease lapses. On PostgreSQL, whose
# writers lock rows, the other connection locks the table jobs against every write (the
# pool's lock_timeout is its busy timeout); reads go on.
hold_writer 22 jobs
sleep 21
kill -0 "$pool" 2>/dev/null
is $? 0 "the pool is still there while the writer is held"
is "$(_sql "SELECT lease_until < strftime('%Y-%m-%dT%H:%M:%SZ', 'now') FROM jobs
    WHERE id = $first AND state = 'running'")" 1 \
    "the running job's lease has lapsed (the case to survive)"
wait "$HOLDER"
is $? 0 "the writer is released"

wait "$pool"
is $? 0 "the pool exits 0 once the queue is empty"
like "$(cat "$T/log/pool.log")" "database is busy" "it logged that the database was busy"
unlike "$(grep -v -e 'database is locked' -e 'canceling statement due to lock timeout' \
    "$T/log/pool.log")" ": error: " \
    "... and no error but the store's busy statements"
is "$(_sql "SELECT group_concat(state || ' ' || attempts, ', ') FROM (SELECT state,
    attempts FROM jobs WHERE id IN ($first, $second) ORDER BY id) AS j")" "done 1, done 1" \
    "both jobs are done, each in one attempt: the live one was never requeued"
is "$(_sql "SELECT count(*) FROM jobs WHERE message LIKE '%previous worker stopped%' OR
    message LIKE '%$(printf 'completes the titles')%'")" 0 "no job was recovered"
is "$(_sql "SELECT state FROM libraries WHERE id = '/corpora/requests'")" finalized \
    "the library is indexed"
done_testing
