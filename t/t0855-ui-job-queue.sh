#!/usr/bin/env bash
# The web UI's job list in Chromium says where each queued job stands and why it waits (the
# checks are in t/e2e/ui/t0855-job-queue.mjs): three queued jobs are next, 2nd and 3rd in
# line; a job queued for a library whose job runs waits for that job. No worker runs: the
# running job is one the test marks as held by a live lease.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node npm flock sqlite3 chromium

ctxd_setup
ui_install
gitserver_start
test_repo test/q
printf '# Queue\n\nJobs wait their turn.\n' | put README.md
commit "first" v1
export CTXD_WORKER=/bin/true	# nothing runs: the jobs stay queued
ctxd_start
ctxd_admin_session
ADMIN=$(ctxd_admin key create --admin tests)
# add NAME VAR: queues /q/NAME, the test repository served again under that name; sets VAR
# to its job.
add() {
	mkdir -p "$T/gitsrv/public/q"
	ln -sfn "$T/gitsrv/public/test/q.git" "$T/gitsrv/public/q/$1.git"
	is "$(http POST "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' \
	    --data "{\"type\": \"git\", \"url\": \"$GITBASE/public/q/$1.git\"}")" 202 \
	    "POST /api/libraries /q/$1"
	printf -v "$2" '%s' "$(http_body | jq -r .jobId)"
}
add run r
_sql "UPDATE jobs SET state = 'running', lease_holder = 'elsewhere:1',
    lease_until = '2999-01-01T00:00:00Z' WHERE id = $r" || bail_out "cannot mark job $r running"
add one j1; add two j2; add three j3
add run w
isnt "$w" "$r" "a request for /q/run while its job runs queues a job of its own"
ui_run t0855-job-queue.mjs "$BASE" "$ADMIN_PASSWORD" "$j1" "$j2" "$j3" "$r" "$w"
done_testing
