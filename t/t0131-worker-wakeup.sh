#!/usr/bin/env bash
# No job is left waiting for cron: a job queued while a worker still holds the lock after its
# last look for work (its own worker found the lock held and left) is run by that worker,
# which looks again once it has released the lock. CTXD_TEST_WORKER_LINGER_MS holds a worker
# in that window long enough to queue the job in it.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the responders start no worker: the test's worker is the only one
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)

# A worker with nothing to do, lingering 3 s with the lock after its last look.
CTXD_TEST_WORKER_LINGER_MS=3000 "$top_builddir/ctxd-worker" 2>"$T/log/worker-linger.log" &
wpid=$!
sleep 1
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 \
    "a library is added while the worker lingers"
job=$(http_body | jq -r .jobId)
# A worker started now (as the responder would) finds the lock held and leaves at once.
"$top_builddir/ctxd-worker" 2>"$T/log/worker-second.log"
is $? 0 "a second worker leaves at once: the lock is held"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" queued "... and the job still waits"
wait "$wpid"
is $? 0 "the lingering worker exits 0"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done \
    "the lingering worker looked again after unlocking and ran the job"
is "$(_sql "SELECT state FROM libraries WHERE id = '/corpora/requests'")" finalized \
    "the library is indexed"
like "$(cat "$T/log/worker-linger.log")" "ran 1 job" "its log says it ran the job"
done_testing
