#!/usr/bin/env bash
# The website crawler (lib/sources/website.c) against hostile sites (t/standin/maze.js): a
# link maze (every page links to 10,000 pages never seen before) and a sitemap bomb (an
# index of ten sitemaps of 50,000 URLs each). The frontier is bounded: the job finishes,
# fetches at most maxPages pages, the job log says how many links were dropped, the links
# file kept for the next run stays small, and the worker's peak memory (its maximum resident
# set, by /usr/bin/time) stays under 100 MB. And pages marked noindex count against the
# byte budget (limits.max_repo_mb) like the others. And a page with more links than the
# links file keeps of a page is asked for in full on the next run (200, not 304), so that its
# links are read again (a static site of the fixtures' nginx, which sends ETags).
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq curl sqlite3 node nginx

ctxd_setup
S=$T/site
mkdir -p "$S/docs"
{
	printf '<!doctype html><html><head><title>Index</title></head><body><h1>Index</h1>'
	for i in $(seq 1 1200); do printf '<a href="p%d.html">%d</a>\n' "$i" "$i"; done
	printf '</body></html>\n'
} >"$S/docs/index.html"
for i in 1 2 3; do
	printf '<!doctype html><html><head><title>P%d</title></head><body><h1>Page %d</h1><p>Words.</p></body></html>\n' \
	    "$i" "$i" >"$S/docs/p$i.html"
done
fixture_site site "$S"
fixtures_start
# every worker the service starts runs under /usr/bin/time: its peak memory in $T/rss
if [ -x /usr/bin/time ]; then
	cat >"$T/worker.sh" <<EOF
#!/bin/sh
echo \$\$ >"$T/run/worker.\$\$.pid"
exec /usr/bin/time -a -o "$T/rss" -f '%M' "$top_builddir/ctxd-worker"
EOF
	chmod +x "$T/worker.sh"
	export CTXD_WORKER=$T/worker.sh
fi
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

add() {	# add JSON: POST /api/libraries; prints the job id
	http POST "$BASE/api/libraries" -H "$A" -H "$J" --data "$1" >/dev/null
	http_body | jq -r .jobId
}
joblog() { _sql "SELECT line FROM job_log WHERE job_id = $1 ORDER BY id;"; }
# maze KIND ARGS...: start t/standin/maze.js KIND; sets MPORT, its requests in $T/maze-KIND.req
maze() {
	local kind=$1 log=$T/log/maze-$1.log
	shift
	: >"$T/maze-$kind.req"
	_spawn "$log" node "$top_srcdir/t/standin/maze.js" "$kind" 0 --log "$T/maze-$kind.req" "$@"
	MPORT=$(_standin_port "$log" "$_spawned") || bail_out "the $kind stand-in did not start"
}
# workers_done: wait (up to 60 s) until the workers started so far have exited
workers_done() {
	local f i
	for ((i = 0; i < 600; i++)); do
		for f in "$T"/run/worker.*.pid; do
			[ -e "$f" ] || continue
			_alive "$(cat "$f")" && { sleep 0.1; continue 2; }
			rm -f "$f"
		done
		return 0
	done
	return 1
}
# peak: the largest peak memory (MB) of the workers since the last call
peak() {
	local kb=0
	if [ -f "$T/rss" ]; then
		kb=$(grep -E '^[0-9]+$' "$T/rss" | sort -n | tail -1)
		rm -f "$T/rss"
	fi
	echo $(((${kb:-0} + 1023) / 1024))
}
# check_peak WHAT: the workers' peak memory was under 100 MB
check_peak() {
	local mb
	if [ -z "${CTXD_WORKER:-}" ]; then
		skip "no /usr/bin/time: peak memory not measured"
	elif ldd "$top_builddir/ctxd-worker" | grep -q libasan; then
		skip "a sanitizer build: peak memory not measured"
	else
		workers_done
		mb=$(peak)
		diag "$1: the worker's peak memory was $mb MB"
		ok $((!(mb > 0 && mb < 100))) "$1: the worker's peak memory stays under 100 MB ($mb MB)"
	fi
}
linksfile() { stat -c %s "$DATA_DIR"/crawl/*.links 2>/dev/null | sort -n | tail -1; }

# --- a link maze: 60 pages, each with 10,000 links never seen before -------------------
maze links --links 10000
job=$(add "{\"type\":\"website\",\"url\":\"http://127.0.0.1:$MPORT/maze/\",\"maxPages\":60}")
ID=$(http_body | jq -r .libraryId)
WAIT_TIMEOUT=300 wait_jobid "$job"
ok $? "the maze's job finishes"
joblog "$job" >"$T/log1"
diag "$(grep -v '^could not' "$T/log1" | head -20)"
n=$(grep -cE '^GET /maze/(r[0-9]+x*)?$' "$T/maze-links.req")
ok $((!(n >= 30 && n <= 60))) "at most maxPages 60 pages are fetched ($n)"
docs=$(_sql "SELECT count(*) FROM documents WHERE library_id = '$ID';")
ok $((!(docs >= 1 && docs <= 60))) "at most 60 documents ($docs)"
like "$(cat "$T/log1")" '[0-9]+ links dropped: the queue of pages to fetch was full \(120 URLs' \
    "the job log says how many links were dropped, and the queue's bound"
like "$(cat "$T/log1")" 'the links of [0-9]+ pages are not kept for the next run' \
    "... and that the links of pages with too many are not kept"
size=$(linksfile)
ok $((!(size < 1024 * 1024))) "the links file stays small ($size bytes)"
check_peak "the link maze"

# --- a sitemap bomb: ten sitemaps of 50,000 URLs, maxPages 5 ----------------------------
maze sitemap --sitemaps 10 --urls 50000
job=$(add "{\"type\":\"website\",\"url\":\"http://127.0.0.1:$MPORT/docs/\",\"maxPages\":5}")
ID=$(http_body | jq -r .libraryId)
WAIT_TIMEOUT=300 wait_jobid "$job"
ok $? "the sitemap bomb's job finishes"
joblog "$job" >"$T/log2"
diag "$(head -20 "$T/log2")"
is "$(grep -c '^GET /docs/sm-' "$T/maze-sitemap.req")" 10 "the ten sitemaps are read"
n=$(grep -cE '^GET /docs/(s[0-9]+-[0-9]+\.html)?$' "$T/maze-sitemap.req")
ok $((!(n >= 1 && n <= 5))) "at most maxPages 5 pages are fetched ($n)"
like "$(cat "$T/log2")" '4999[0-9]{2} links dropped: the queue of pages to fetch was full \(10 URLs' \
    "the sitemaps' URLs count against the queue: the log says how many were dropped"
size=$(linksfile)
ok $((!(size > 0 && size < 1024 * 1024))) "the links file stays small ($size bytes)"
check_peak "the sitemap bomb"

# --- noindex pages count against limits.max_repo_mb -------------------------------------
ctxd_admin settings set limits.max_repo_mb 1 >/dev/null
maze noindex --size 262144
job=$(add "{\"type\":\"website\",\"url\":\"http://127.0.0.1:$MPORT/docs/\",\"maxPages\":50,\"maxDepth\":20}")
ID=$(http_body | jq -r .libraryId)
WAIT_TIMEOUT=300 wait_jobid "$job"
ok $? "the noindex site's job finishes"
joblog "$job" >"$T/log3"
diag "$(cat "$T/log3")"
n=$(grep -c '^GET /docs/n[0-9]*\.html' "$T/maze-noindex.req")
ok $((!(n >= 3 && n <= 8))) "pages marked noindex count against the 1 MB budget: $n of 256 KB fetched"
like "$(cat "$T/log3")" "stopped at 1 MB of pages \(setting limits.max_repo_mb\)" \
    "the job log says the byte budget stopped the crawl"
like "$(cat "$T/log3")" "[0-9]+ pages marked noindex" "... and counts the noindex pages"
ctxd_admin settings set limits.max_repo_mb 1024 >/dev/null

# --- a page whose links are not kept is asked for in full next time ---------------------
job=$(add "{\"type\":\"website\",\"url\":\"$FIX_SITE/docs/index.html\",\"maxPages\":3}")
LIB=$(http_body | jq -r .libraryId)
WAIT_TIMEOUT=300 wait_jobid "$job"
ok $? "a site whose index has 1,200 links is indexed"
like "$(joblog "$job")" "the links of 1 pages are not kept for the next run" \
    "the job log says the index's links are not kept"
fixtures_requests_reset
http POST "$BASE/api/libraries$LIB/refresh" -H "$A" >/dev/null
WAIT_TIMEOUT=300 wait_jobid "$(http_body | jq -r .jobId)"
ok $? "re-indexed"
is "$(fixtures_requests site | awk '$3 == "/docs/index.html" { print $4 }')" 200 \
    "the page whose links were not kept is asked for without validators (200, not 304)"
is "$(fixtures_requests site | awk '$3 == "/docs/p1.html" { print $4 }')" 304 \
    "... a page whose links were kept is asked for with them (304)"
workers_done

done_testing
