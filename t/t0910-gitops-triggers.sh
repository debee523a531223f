#!/usr/bin/env bash
# GitOps triggers other than the webhook: instance start (ctxd-web queues a sync when GitOps
# is enabled), the schedule evaluated by every worker run (due, not due, missed slots run
# once, manual, disabled), and a sync interrupted by a killed worker that the next worker
# completes without duplicates.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/gitops.sh"
require_cmd jq git nginx fcgiwrap sqlite3

ctxd_setup
GIT_USER=x-access-token gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
REQ=$(gitserver_add_bundle requests public)
gitops_repo_init acme/gitops
gitops_credentials
gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
YAML
set_() { ctxd_admin settings set "$1" "$2" >/dev/null || bail_out "settings set $1 $2"; }
runs() { _sql "SELECT count(*) FROM gitops_runs WHERE trigger = '$1'${2:+ AND $2}"; }
set_ gitops.repo_url "$GITOPS_URL"

# Start: disabled, no sync; enabled, one sync queued by ctxd-web's start.
ctxd_start
is "$(runs start)" 0 "GitOps off: no sync at start"
ctxd_stop
set_ gitops.enabled true
ctxd_start
is "$(runs start)" 1 "GitOps on: ctxd-web queued a sync at start"
is "$(_sql "SELECT state FROM gitops_runs WHERE trigger = 'start'")" queued "it is queued"
gitops_run
is "$(_sql "SELECT state FROM gitops_runs WHERE trigger = 'start'")" done "the worker ran it"
is "$(wait_job /corpora/requests)" finalized "the manifest's library is indexed"

# The schedule. The first evaluation starts the clock; a slot since the last one is due.
set_ gitops.schedule '* * * * *'
_sql "UPDATE gitops_state SET last_slot = NULL" >/dev/null
gitops_run
is "$(runs schedule)" 0 "the first evaluation only records the time"
like "$(_sql "SELECT last_slot FROM gitops_state")" '^20[0-9-]+T[0-9:]+Z$' "it is recorded"
_sql "UPDATE gitops_state SET last_slot = strftime('%Y-%m-%dT%H:%M:00Z', 'now', '-5 minutes')" >/dev/null
gitops_run
is "$(runs schedule)" 1 "five missed every-minute slots: one sync"
is "$(_sql "SELECT state FROM gitops_runs WHERE trigger = 'schedule'")" skipped \
    "it ran (the commit was processed: skipped)"
_sql "UPDATE gitops_state SET last_slot = strftime('%Y-%m-%dT%H:%M:00Z', 'now', '-3 hours')" >/dev/null
set_ gitops.schedule hourly
gitops_run
is "$(runs schedule)" 2 "hourly, three hours since the last evaluation: due (one sync)"
set_ gitops.schedule '0 0 29 2 *'
_sql "UPDATE gitops_state SET last_slot = strftime('%Y-%m-%dT%H:%M:00Z', 'now', '-3 hours')" >/dev/null
gitops_run
is "$(runs schedule)" 2 "a slot outside the window: not due"
set_ gitops.schedule manual
_sql "UPDATE gitops_state SET last_slot = strftime('%Y-%m-%dT%H:%M:00Z', 'now', '-3 hours')" >/dev/null
gitops_run
is "$(runs schedule)" 2 "manual: never due"
set_ gitops.schedule '* * * * *'
set_ gitops.enabled false
_sql "UPDATE gitops_state SET last_slot = strftime('%Y-%m-%dT%H:%M:00Z', 'now', '-3 hours')" >/dev/null
gitops_run
is "$(runs schedule)" 2 "GitOps off: the schedule does not run"

# A sync interrupted mid-way: the worker is killed while the run is 'running'; the next
# worker runs it again and completes it, without duplicate libraries or jobs.
killed=no
for try in 1 2 3 4 5; do
	gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
    excludeFiles: [try$try.md]
  - url: $GITBASE/public/corpora/axum.git
YAML
	[ -d "$T/gitsrv/public/corpora/axum.git" ] || gitserver_add_bundle axum public >/dev/null
	id=$(_sql "INSERT INTO gitops_runs (trigger, created_at) VALUES ('api', 'now') RETURNING id")
	rq_before=$(_sql "SELECT count(*) FROM jobs WHERE library_id = '/corpora/requests'")
	"$top_builddir/ctxd-worker" 2>>"$T/log/worker-kill.log" &
	wpid=$!
	for ((i = 0; i < 2000; i++)); do
		[ "$(_sql "SELECT state FROM gitops_runs WHERE id = $id")" = running ] && break
		sleep 0.005
	done
	kill -9 "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	if [ "$(_sql "SELECT state FROM gitops_runs WHERE id = $id")" = running ]; then
		killed=yes
		break
	fi
	gitops_run	# it finished first: let it complete, and try again
done
is "$killed" yes "the worker was killed in the middle of a sync"
# The manifest is applied in one transaction and the run marked done in the next: the kill
# lands before the first commits (nothing written) or between the two (all of it written, the
# run still 'running'; on PostgreSQL's quick commit often so). Never part of it.
axum_now=$(_sql "SELECT count(*) FROM libraries WHERE id = '/corpora/axum'")
rq_new=$(($(_sql "SELECT count(*) FROM jobs WHERE library_id = '/corpora/requests'") - rq_before))
ok "$({ [ "$axum_now" = 0 ] && [ "$rq_new" = 0 ]; } ||
    { [ "$axum_now" = 1 ] && [ "$rq_new" = 1 ]; }; echo $?)" \
    "the interrupted sync wrote all of the manifest or nothing of it (axum: $axum_now, requests' new jobs: $rq_new)"
gitops_run
is "$(_sql "SELECT state || ' ' || attempts FROM gitops_runs WHERE id = $id")" "done 2" \
    "the next worker ran the sync again and completed it"
is "$(_sql "SELECT count(*) FROM libraries WHERE id IN ('/corpora/axum', '/corpora/requests')")" 2 \
    "both libraries exist"
is "$(_sql "SELECT count(*) FROM jobs WHERE library_id = '/corpora/axum'")" 1 \
    "axum has one index job, not two"
is "$(_sql "SELECT count(*) FROM jobs WHERE library_id = '/corpora/requests'")" $((rq_before + 1)) \
    "requests' change queued one job, not two"
is "$(wait_job /corpora/axum)" finalized "axum indexed"
gitops_run
is "$(_sql "SELECT count(*) FROM gitops_runs WHERE state IN ('queued', 'running')")" 0 \
    "no sync left queued"

done_testing
