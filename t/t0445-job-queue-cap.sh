#!/usr/bin/env bash
# The queued jobs per user are capped (jobs.max_queued_per_user): a member's request that
# would go over it gets 429 naming the cap, and queues nothing (no library, no job); other
# members, admins and operator admin keys are not held back by it; anonymous callers share
# one cap; a job that leaves the queue makes room again; deletions are not capped; a request
# for a library whose index job is queued joins it and is not refused at the cap. Each job
# records who queued it (jobs.queued_by, queued_via).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq sqlite3 curl

CAP=3
ctxd_setup
export CTXD_WORKER=/bin/true	# nothing runs: the jobs stay queued
ctxd_start
J='Content-Type: application/json'
ADMIN=$(ctxd_admin key create --admin tests)
for u in mia noa; do
	printf '%s password 1\n' "$u" | ctxd_admin user create "$u" >/dev/null 2>&1 ||
	    bail_out "cannot create user $u"
done
printf 'ada password 1\n' | ctxd_admin user create --admin ada >/dev/null 2>&1 ||
    bail_out "cannot create user ada"
MIA=$(ctxd_admin key create --user mia mia-key)
NOA=$(ctxd_admin key create --user noa noa-key)
ADA=$(ctxd_admin key create --user ada ada-key)
mia_id=$(_sql "SELECT id FROM users WHERE name = 'mia'")
ada_id=$(_sql "SELECT id FROM users WHERE name = 'ada'")

# parse KEY NAME [EXTRA]: POST /api/parse of http://127.0.0.1:9/acme/NAME as KEY ("" for
# none), EXTRA added to the body; prints the status.
parse() {
	local auth=()
	[ -n "$1" ] && auth=(-H "Authorization: Bearer $1")
	http POST "$BASE/api/parse" "${auth[@]}" -H "$J" \
	    --data "{\"repoUrl\": \"http://127.0.0.1:9/acme/$2.git\"${3:-}}"
}
jobs() { _sql "SELECT count(*) FROM jobs"; }
libs() { _sql "SELECT count(*) FROM libraries"; }

is "$(ctxd_admin settings get jobs.max_queued_per_user)" 50 "the cap is 50 by default"
ctxd_admin settings set jobs.max_queued_per_user "$CAP" >/dev/null || bail_out "cannot set the cap"

for i in 1 2 3; do
	is "$(parse "$MIA" "mia$i")" 202 "member mia queues library $i of $CAP"
done
is "$(_sql "SELECT group_concat(DISTINCT queued_via || ' ' || queued_by) FROM jobs")" \
    "user $mia_id" "her jobs record her as the one who queued them"
njobs=$(jobs)
nlibs=$(libs)
is "$(parse "$MIA" mia4)" 429 "the request over the cap gets 429"
err=$(http_body | jq -r .error)
like "$err" "you have $CAP index jobs queued, and the most one user may have is $CAP \\(setting jobs\\.max_queued_per_user\\)" \
    "the error names the cap and the setting"
like "$(http_header Retry-After)" '^[0-9]+$' "with Retry-After"
is "$(jobs) $(libs)" "$njobs $nlibs" "nothing was queued or added on refusal"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/acme/mia4'")" 0 "no library row for it"
# A request for a library whose index job is queued joins that job: it queues nothing.
mia1_job=$(_sql "SELECT id FROM jobs WHERE library_id = '/acme/mia1'")
is "$(http POST "$BASE/api/libraries/acme/mia1/refresh" -H "Authorization: Bearer $MIA")" 202 \
    "at the cap, a refresh of a library with a queued job is accepted"
is "$(http_body | jq -r .jobId)" "$mia1_job" "... it joins the queued job"
is "$(parse "$MIA" mia1)" 202 "at the cap, parsing a library with a queued job again is accepted"
is "$(http_body | jq -r .jobId)" "$mia1_job" "... it joins the queued job too"
is "$(jobs) $(libs)" "$njobs $nlibs" "and neither queued a job"

# Another member has a cap of her own; admins have none.
is "$(parse "$NOA" noa1)" 202 "another member still queues"
for i in 1 2 3 4 5; do
	is "$(parse "$ADMIN" "op$i")" 202 "the operator admin key queues library $i (not capped)"
done
for i in 1 2 3 4; do
	is "$(parse "$ADA" "ada$i")" 202 "admin user ada queues library $i (not capped)"
done
is "$(_sql "SELECT queued_via || ' ' || queued_by FROM jobs j WHERE library_id = '/acme/ada1'")" \
    "user $ada_id" "an admin's job records the admin"
is "$(_sql "SELECT queued_via || ' ' || coalesce(CAST(queued_by AS text), '-') FROM jobs WHERE library_id = '/acme/op1'")" \
    "key -" "an operator key's job records the key"

# A request that would queue several jobs (a library with versions) counts them all.
is "$(parse "$NOA" noa2 ', "versions": ["v1", "v2"]')" 429 \
    "a library with two versions (three jobs) over the cap of a member with one queued: 429"
like "$(http_body | jq -r .error)" "would queue 3 more" "the error says how many it would queue"
is "$(_sql "SELECT count(*) FROM libraries WHERE id LIKE '/acme/noa2%'")" 0 "and nothing of it was added"
is "$(parse "$NOA" noa3 ', "versions": ["v1"]')" 202 "one version (two jobs) still fits"

# A job that leaves the queue makes room.
job=$(_sql "SELECT id FROM jobs WHERE library_id = '/acme/mia1'")
is "$(http POST "$BASE/api/jobs/$job/cancel" -H "Authorization: Bearer $ADMIN")" 200 \
    "an admin cancels one of mia's jobs"
is "$(parse "$MIA" mia4)" 202 "mia queues again"
is "$(parse "$MIA" mia5)" 429 "and is at the cap again"
is "$(http POST "$BASE/api/libraries/acme/mia1/refresh" -H "Authorization: Bearer $MIA")" 429 \
    "a refresh of a library without a queued job over the cap gets 429 too"

# Deletions are not capped (they end the library's queued jobs).
is "$(http DELETE "$BASE/api/libraries/acme/mia2" -H "Authorization: Bearer $MIA")" 202 \
    "mia deletes her library at the cap"
is "$(parse "$MIA" mia5)" 202 "its queued job left the queue: room for one more"

# Anonymous callers share one cap.
ctxd_admin settings set perm.anonymous_parse true >/dev/null || bail_out "cannot set the switch"
for i in 1 2 3; do
	is "$(parse "" "anon$i")" 202 "an anonymous caller queues library $i"
done
is "$(parse "" anon4)" 429 "the anonymous callers together are capped"
like "$(http_body | jq -r .error)" "anonymous callers have $CAP index jobs queued, and the most they may have together is $CAP" \
    "the error says so"
is "$(parse "$MIA" mia6)" 429 "mia's cap is her own still"

done_testing
