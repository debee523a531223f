#!/usr/bin/env bash
# GitOps reconcile against a manifest repository on the local git server: every row of the
# decision table (add, re-index a changed entry, re-index an unfinished one, leave a
# matching one, prune on and off, never touch a library added by hand, skip a processed
# commit), a wiki entry without the wiki integration failing alone, a manifest host without
# credentials, the API (status, config, reconcile with its counts) and the gitops flag of
# GET /api/libraries.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/gitops.sh"
require_cmd jq git nginx fcgiwrap sqlite3

ctxd_setup
GIT_USER=x-access-token gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'
REQ=$(gitserver_add_bundle requests public)
AXUM=$(gitserver_add_bundle axum public)
gitops_repo_init acme/gitops

reconcile() { http POST "$BASE/api/gitops/reconcile?wait=${1:-0}" -H "$A"; }
count() { gitops_last ".counts.$1"; }
action() { gitops_last "| .entries[] | select(.id == \"$1\") | .action"; }
jobs_of() { _sql "SELECT count(*) FROM jobs WHERE library_id = '$1' AND kind = '${2:-index}'"; }

# Configuration through PUT /api/gitops/config; a bad schedule is refused.
is "$(http PUT "$BASE/api/gitops/config" -H "$A" -H "$J" --data '{"schedule": "61 * * * *"}')" \
    400 "a cron expression with minute 61 is refused"
like "$(http_body | jq -r .error)" 'minute' "the error names the minute field"
is "$(http PUT "$BASE/api/gitops/config" -H "$A" -H "$J" \
    --data "{\"repoUrl\": \"$GITOPS_URL\", \"schedule\": \"daily\"}")" 200 "config saved"
is "$(http_body | jq -r '.config.repoUrl, .config.manifestPath, .config.branch, .config.schedule, .config.prune, .config.enabled' | tr '\n' ' ')" \
    "$GITOPS_URL repos.yaml  daily false false " "the status shows the config and its defaults"
is "$(ctxd_admin settings get gitops.schedule 2>/dev/null || _sql "SELECT value FROM settings WHERE name = 'gitops.schedule'")" \
    daily "the config is the gitops.* settings"

# No credential for the manifest host: the sync reports it.
gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
YAML
is "$(reconcile)" 202 "reconcile queued (wait=0)"
run=$(http_body | jq -r .id)
like "$run" '^[0-9]+$' "the answer names the run"
gitops_run
is "$(gitops_last .state)" failed "without a credential the sync fails"
like "$(gitops_last .message)" "no git credential .*127.0.0.1:$GITPORT" "and says why, naming the host"
is "$(_sql "SELECT count(*) FROM libraries")" 0 "nothing was added"

# A hand-added library, and the manifest v1.
gitops_credentials
is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" \
    --data "{\"repoUrl\": \"$GITBASE/public/hand/made.git\"}")" 202 "a library added by hand"
c1=$(gitops_push <<YAML
defaults:
  indexSourceCode: false
repos:
  - url: $REQ
    folders: [docs]
  - repoUrl: $AXUM
  - url: $GITBASE/public/hand/made.git
  - type: wiki
    url: https://wiki.example.com/wiki
    spaceKey: ENG
YAML
)
is "$(reconcile)" 202 "reconcile queued"
gitops_run
is "$(gitops_last .state)" done "the sync is done"
is "$(gitops_last .manifestCommit)" "$c1" "it read the pushed commit"
is "$(count created),$(count updated),$(count unchanged),$(count skipped),$(count failed)" \
    "2,0,0,1,1" "counts: 2 created, 1 skipped (by hand), 1 failed (wiki)"
is "$(action /corpora/requests)" created "requests created"
is "$(action /hand/made)" skipped "the hand-added library is skipped"
like "$(gitops_last '| .entries[] | select(.id == "/hand/made") | .reason')" 'by hand' "reported, not adopted"
is "$(gitops_last '| .entries[] | select(.type == "wiki") | .action')" failed \
    "the wiki entry fails alone"
like "$(gitops_last '| .entries[] | select(.type == "wiki") | .reason')" 'wiki integration' \
    "because the wiki integration is not configured"
is "$(_sql "SELECT gitops FROM libraries WHERE id = '/hand/made'")" 0 "the hand-added library stays unmanaged"
is "$(_sql "SELECT count(*) FROM libraries WHERE source_type = 'wiki'")" 0 "no wiki library"
is "$(wait_job /corpora/requests)" finalized "requests indexed by the same worker run"
is "$(wait_job /corpora/axum)" finalized "axum indexed"
is "$(_sql "SELECT settings FROM libraries WHERE id = '/corpora/requests'" | jq -c .folders)" \
    '["docs"]' "the entry's folders are stored"
http GET "$BASE/api/libraries" -H "$A" >/dev/null
is "$(http_body | jq -r '[.libraries[] | select(.gitops) | .id] | sort | join(",")')" \
    "/corpora/axum,/corpora/requests" "GET /api/libraries shows the GitOps-managed flag"
is "$(_sql "SELECT last_commit FROM gitops_state")" "$c1" "the processed commit is recorded"

# The same commit again: the whole sync is skipped; no job queued.
njobs=$(_sql "SELECT count(*) FROM jobs")
is "$(reconcile)" 202 "reconcile again"
gitops_run
is "$(gitops_last .state)" skipped "an unchanged commit skips the whole sync"
like "$(gitops_last .message)" 'processed already' "and says so"
is "$(_sql "SELECT count(*) FROM jobs")" "$njobs" "no job queued"

# v2: requests changed (excludeFiles), axum's last run did not finish (cancelled; a run a
# worker died in is requeued by the worker itself, jobs_recover): a new pushed commit,
# reconcile waiting for the worker.
_sql "UPDATE libraries SET run_status = 'cancelled' WHERE id = '/corpora/axum'" >/dev/null
c2=$(gitops_push <<YAML
repos:
  - url: $REQ
    folders: [docs]
    excludeFiles: [api.rst]
  - repoUrl: $AXUM
  - url: $GITBASE/public/hand/made.git
YAML
)
# The worker (CTXD_WORKER is /bin/true) starts once the sync is queued; the wait covers it.
(
	for ((i = 0; i < 200; i++)); do
		[ "$(_sql "SELECT count(*) FROM gitops_runs WHERE state = 'queued'")" -gt 0 ] && break
		sleep 0.05
	done
	exec "$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
) &
wpid=$!
is "$(reconcile 60)" 200 "reconcile waits for the sync and answers 200"
wait "$wpid"
is "$(http_body | jq -r .state)" done "the answer is the finished run"
is "$(http_body | jq -c '[.counts.created, .counts.updated, .counts.unchanged, .counts.pruned, .counts.skipped, .counts.failed]')" \
    "[0,2,0,0,1,0]" "the answer's counts: 2 updated, 1 skipped"
is "$(http_body | jq -r '.entries[] | select(.id == "/corpora/requests") | .reason')" \
    "settings changed" "requests re-indexed because its settings changed"
is "$(http_body | jq -r '.entries[] | select(.id == "/corpora/axum") | .reason')" \
    "its last run did not finish" "axum re-indexed because its last run did not finish"
is "$(jobs_of /corpora/requests)" 2 "one more index job for requests"
is "$(jobs_of /corpora/axum)" 2 "one more index job for axum"
is "$(wait_job /corpora/axum)" finalized "axum indexed again"

# v3, a matching entry and nothing else: unchanged, no job.
c3=$(gitops_push <<YAML
repos:
  - url: $REQ
    folders: [docs]
    excludeFiles: [api.rst]
  - repoUrl: $AXUM
YAML
)
gitops_run	# nothing queued: a no-op
reconcile >/dev/null
gitops_run
is "$(gitops_last .state)" done "v3 synced"
is "$(count unchanged),$(count updated),$(count created)" "2,0,0" "matching entries untouched"
is "$(jobs_of /corpora/requests)" 2 "no new job for requests"

# An invalid manifest (an unknown type, a field of another type): the whole sync is
# rejected with errors naming file, line and column; nothing changes.
njobs=$(_sql "SELECT count(*) FROM jobs")
gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
    folders: [docs]
    maxPages: 10
  - url: https://docs.example.com/
    type: site
YAML
is "$(reconcile 0)" 202 "reconcile an invalid manifest"
gitops_run
is "$(gitops_last .state)" failed "the sync is rejected"
like "$(gitops_last .message)" 'not valid \(2 errors\); nothing was changed' "and says nothing changed"
like "$(gitops_last '.errors[0]')" "^repos.yaml:4:5: field 'maxPages' is not a field of a git" \
    "the first error names file, line and column"
like "$(gitops_last '.errors[1]')" "^repos.yaml:6:11: field 'type' must be one of" \
    "the second one too"
is "$(_sql "SELECT count(*) FROM jobs")" "$njobs" "no job queued"
is "$(_sql "SELECT last_commit FROM gitops_state")" "$c3" "the processed commit stays the last valid one"
is "$(_sql "SELECT count(*) FROM libraries WHERE gitops = 1")" 2 "the libraries are untouched"

# v4 drops axum: prune off keeps it (reported), prune on deletes it.
gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
    folders: [docs]
    excludeFiles: [api.rst]
YAML
reconcile >/dev/null
gitops_run
is "$(count pruned),$(count kept)" "0,1" "prune off: axum is kept"
is "$(action /corpora/axum)" kept "and reported as having left the manifest"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/corpora/axum'")" 1 "axum is still there"
is "$(http PUT "$BASE/api/gitops/config" -H "$A" -H "$J" --data '{"prune": true}')" 200 "prune on"
reconcile >/dev/null
gitops_run
is "$(gitops_last .state)" done "a changed configuration syncs the same commit again"
is "$(count pruned)" 1 "prune on: axum pruned"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/corpora/axum'")" 0 "axum deleted"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '/corpora/axum'")" 0 "with its snippets"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/hand/made'")" 1 \
    "the hand-added library is never pruned"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/corpora/requests'")" 1 "requests stays"

# Ids of URLs lost default ports and repeated words (November 2026): a managed library that
# has the id of before keeps it, is neither made again nor pruned.
gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
    folders: [docs]
    excludeFiles: [api.rst]
  - type: website
    url: http://127.0.0.1:80/docs/docs/
YAML
reconcile >/dev/null
gitops_run
is "$(action /websites/127_0_0_1_docs)" created "a new website entry gets the id of the new rule"
_sql "UPDATE libraries SET id = '/websites/127_0_0_1_80_docs_docs' WHERE id = '/websites/127_0_0_1_docs';
    UPDATE jobs SET library_id = '/websites/127_0_0_1_80_docs_docs' WHERE library_id = '/websites/127_0_0_1_docs';"
gitops_push <<YAML >/dev/null
# the same entries, a new commit
repos:
  - url: $REQ
    folders: [docs]
    excludeFiles: [api.rst]
  - type: website
    url: http://127.0.0.1:80/docs/docs/
YAML
reconcile >/dev/null
gitops_run
is "$(gitops_last .state)" done "the next commit syncs"
like "$(action /websites/127_0_0_1_80_docs_docs)" '^(unchanged|updated)$' \
    "the library with the id of before is the manifest's entry"
is "$(count created),$(count pruned)" "0,0" "nothing made again, nothing pruned"
is "$(_sql "SELECT count(*) FROM libraries WHERE url LIKE 'http://127.0.0.1%/docs/docs/'")" 1 \
    "one library for the URL"

done_testing
