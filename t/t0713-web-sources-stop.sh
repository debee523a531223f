#!/usr/bin/env bash
# A web source's fetch stops between requests when its job is cancelled or reaches its
# deadline (backend_stop: lib/sources/backend.c), for the website crawler and the llms.txt
# back end: the job ends cancelled (or failed at its deadline) within a second or two, the
# requests stop, and the job log says why; meanwhile the crawl's progress counts its pages. A
# slow site: 40 pages one at a time with sources.crawl_delay_ms 400.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl sqlite3

ctxd_setup
S=$T/site
mkdir -p "$S/docs"
{
	echo '# Chain'
	echo
	echo '> Forty pages.'
	echo
	echo '## Pages'
	echo
} >"$S/docs/llms.txt"
for i in $(seq 1 40); do
	printf '<!doctype html><html><head><title>Page %d</title></head><body><h1>Page %d</h1><p>Words of page %d.</p><a href="p%d.html">next</a></body></html>\n' \
	    "$i" "$i" "$i" $((i + 1)) >"$S/docs/p$i.html"
	printf '# Page %d\n\nWords of page %d.\n' "$i" "$i" >"$S/docs/p$i.md"
	printf -- '- [Page %d](/docs/p%d.md): page %d\n' "$i" "$i" "$i" >>"$S/docs/llms.txt"
done
fixture_site site "$S"
fixtures_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'
ctxd_admin settings set sources.crawl_delay_ms 400 >/dev/null
ctxd_admin settings set sources.inflight 1 >/dev/null

add() {	# add JSON: POST /api/libraries; prints the job id
	http POST "$BASE/api/libraries" -H "$A" -H "$J" --data "$1" >/dev/null
	http_body | jq -r .jobId
}
state() { _sql "SELECT state FROM jobs WHERE id = $1;"; }
joblog() { _sql "SELECT line FROM job_log WHERE job_id = $1 ORDER BY id;"; }
pages() { fixtures_requests site | grep -c ' /docs/p[0-9]*\.\(html\|md\) '; }
# wait_state JOB STATE SECONDS: 0 once the job is in STATE, 1 after SECONDS
wait_state() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(state "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# wait_pages N: until N pages were asked for (20 s at most)
wait_pages() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(pages)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

stop_on_cancel() {	# stop_on_cancel WHAT JSON
	local job n1 n2
	fixtures_requests_reset
	job=$(add "$2")
	wait_pages 3
	ok $? "$1: the fetch is under way"
	if [ "$1" = website ]; then
		# the crawl counts its pages as it goes (backend_progress), within a second or so
		local i p=""
		for ((i = 0; i < 30; i++)); do
			http GET "$BASE/api/jobs/$job" -H "$A" >/dev/null
			p=$(http_body | jq -c '.progress | {phase, documentsDone, documentsTotal}')
			jq -e '.phase == "fetching" and .documentsDone >= 2' <<<"$p" >/dev/null && break
			sleep 0.1
		done
		jq -e '.phase == "fetching" and .documentsDone >= 2 and .documentsTotal > .documentsDone' \
		    <<<"$p" >/dev/null
		ok $? "$1: the job shows the pages fetched of those known so far ($p)"
	fi
	is "$(http POST "$BASE/api/jobs/$job/cancel" -H "$A")" 202 "$1: cancel: 202"
	wait_state "$job" cancelled 5
	ok $? "$1: the job is cancelled within seconds (state $(state "$job"))"
	n1=$(pages)
	sleep 1
	n2=$(pages)
	is "$n2" "$n1" "$1: no request after the cancel"
	ok "$([ "$n1" -lt 40 ]; echo $?)" "$1: $n1 of 40 pages were asked for"
	like "$(joblog "$job")" "stopped: the job is cancelled" "$1: the job log says why"
}
stop_on_cancel website "{\"type\":\"website\",\"url\":\"$FIX_SITE/docs/p1.html\",\"maxDepth\":20}"
stop_on_cancel llmstxt "{\"type\":\"llmstxt\",\"url\":\"$FIX_SITE/docs/llms.txt\"}"

# The deadline: limits.job_timeout_s 10 (the worker's alarm); fetching stops half-way
# (lib/index/index.c: a run of a minute or less stops at half its time), about 12 pages in.
ctxd_admin settings set limits.job_timeout_s 10 >/dev/null
stop_at_deadline() {	# stop_at_deadline WHAT JSON PATTERN
	local job n t0
	fixtures_requests_reset
	t0=$SECONDS
	job=$(add "$2")
	wait_state "$job" failed 9
	ok $? "$1: the job failed before the worker's alarm ($((SECONDS - t0)) s)"
	n=$(pages)
	ok "$([ "$n" -ge 3 ] && [ "$n" -lt 40 ]; echo $?)" "$1: the fetch stopped part-way ($n of 40 pages)"
	like "$(joblog "$job")" "$3" "$1: the job log says it stopped at the deadline"
	like "$(_sql "SELECT message FROM jobs WHERE id = $job;")" \
	    "^the job ran out of time while fetching: it may take 10 s \\(setting limits.job_timeout_s\\); nothing was written$" \
	    "$1: the job failed, saying it ran out of time while fetching"
}
stop_at_deadline website "{\"type\":\"website\",\"url\":\"$FIX_SITE/docs/p1.html\",\"maxDepth\":20,\"title\":\"d\"}" \
    "stopped at the job's deadline \\(setting limits.job_timeout_s\\)"
stop_at_deadline llmstxt "{\"type\":\"llmstxt\",\"url\":\"$FIX_SITE/docs/llms.txt\",\"title\":\"d\"}" \
    "stopped at the job's deadline \\(setting limits.job_timeout_s\\)"

done_testing
