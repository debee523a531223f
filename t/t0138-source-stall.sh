#!/usr/bin/env bash
# A stalled source of any type fails its job within its deadline, with a message naming the
# URL and the setting, and frees its worker: a server that accepts and never answers (and one
# that drips a byte now and then) behind a website, an llms.txt file and an OpenAPI
# description, with sources.page_timeout_s 3; a good library queued after them is indexed.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node timeout

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself, and times it
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
ctxd_admin settings set sources.page_timeout_s 3 >/dev/null &&
    ctxd_admin settings set worker.concurrency 2 >/dev/null || bail_out "cannot set the deadlines"
J='Content-Type: application/json'

stall() {	# stall NAME MODE: start t/standin/gitstall.js; sets PORT_<NAME>
	local port
	_spawn "$T/log/stall-$1.log" node "$top_srcdir/t/standin/gitstall.js" "$2" 0 ${3:+"$3"}
	port=$(_standin_port "$T/log/stall-$1.log" "$_spawned") ||
	    bail_out "the stall stand-in $1 did not start"
	printf -v "PORT_$1" '%s' "$port"
}
stall silent silent
stall drip drip 2

# add TYPE URL: POST /api/libraries; prints the job id (empty unless 202).
add() {
	local code
	code=$(http POST "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN" -H "$J" \
	    --data "{\"type\": \"$1\", \"url\": \"$2\"}")
	[ "$code" = 202 ] && http_body | jq -r .jobId
}
web=http://127.0.0.1:$PORT_silent/docs/
llms=http://127.0.0.1:$PORT_drip/llms.txt
spec=http://127.0.0.1:$PORT_silent/openapi.json
web_job=$(add website "$web")
llms_job=$(add llmstxt "$llms")
spec_job=$(add openapi "$spec")
good=$(gitserver_add_bundle requests public)
good_job=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H "$J" \
    --data "{\"repoUrl\": \"$good\"}" >/dev/null; http_body | jq -r .jobId)
ok "$([ -n "$web_job" ] && [ -n "$llms_job" ] && [ -n "$spec_job" ] && [ -n "$good_job" ]; echo $?)" \
    "three stalled sources and a good one queued"

start=$SECONDS
timeout 120 "$top_builddir/ctxd-worker" 2>"$T/log/worker.log"
is $? 0 "the worker ends by itself"
elapsed=$((SECONDS - start))
ok "$([ "$elapsed" -lt 60 ]; echo $?)" "within a minute ($elapsed s; the job's own limit is 1800 s)"
for j in web llms spec; do
	id=${j}_job
	url=${!j}
	is "$(_sql "SELECT state FROM jobs WHERE id = ${!id}")" failed "the stalled $j source's job failed"
	msg=$(_sql "SELECT message FROM jobs WHERE id = ${!id}")
	# a website's first request is its robots.txt: the message names that URL of the site
	[ "$j" = web ] && url=http://127.0.0.1:$PORT_silent/robots.txt
	like "$msg" "^could not fetch ${url//./\\.}: " "... its message names the URL ($msg)"
	like "$msg" "no complete answer within 3\\.0 s \\(setting sources\\.page_timeout_s\\)" \
	    "... and the deadline that passed"
done
is "$(_sql "SELECT state FROM jobs WHERE id = $good_job")" done "the good library queued after them is indexed"

done_testing
