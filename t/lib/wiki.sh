# t/lib/wiki.sh: helpers of the wiki tests (t076x). Source it after t/lib/harness.sh, with
# BASE, A (an admin's Authorization header) and J (the JSON Content-Type header) set.
#
#   wiki_index BODY    POST /api/libraries BODY and wait for its job: prints the job id,
#                      returns 0 when the job is done, 1 when it failed
#   wiki_reindex ID    the same for POST /api/libraries/ID/refresh
#   wiki_jobmsg JOB    the job's message
#   wiki_joblog JOB    its log lines joined with " | "
#   wiki_settings JSON PATCH /api/settings JSON; prints the status

_wiki_job() {
	local code=$1 job
	[ "$code" = 202 ] || { diag "$2: $code $(http_body)"; return 2; }
	job=$(http_body | jq -r .jobId)
	echo "$job"
	wait_jobid "$job"
}
wiki_index() {
	_wiki_job "$(http POST "$BASE/api/libraries" -H "$A" -H "$J" --data "$1")" "POST /api/libraries"
}
wiki_reindex() {
	_wiki_job "$(http POST "$BASE/api/libraries$1/refresh" -H "$A")" "refresh $1"
}
wiki_jobmsg() { _sql "SELECT message FROM jobs WHERE id = $1;"; }
wiki_joblog() { _sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = $1;"; }
wiki_settings() { http PATCH "$BASE/api/settings" -H "$A" -H "$J" --data "$1"; }
