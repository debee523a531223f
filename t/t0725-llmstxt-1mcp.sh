#!/usr/bin/env bash
# The llms.txt source on 1mcp's docs (a VitePress site served through its route map,
# FIXCONF_1MCP): its llms.txt is an index of llms files, each followed once (their own
# llms links are not); their root-relative, extensionless links become pages, asked for
# as /x.md first until the site shows it has none; the /zh/ links are 404s, warnings of a
# finished job; queries find the right page#anchor; maxPages bounds the requests.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl sqlite3

ctxd_setup
fixture_site 1mcp "$FIXTURES/llmstxt/1mcp/docs/en" "$FIXCONF_1MCP"
fixtures_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'
F=$FIX_1MCP

NL=$'\n'	# (char(10) is SQLite's only)
joblog() { _sql "SELECT group_concat(level || ': ' || line, '$NL') FROM job_log WHERE job_id = $1;"; }
ndocs() { _sql "SELECT count(*) FROM documents WHERE library_id = '$1';"; }
ask() {	# ask LIBID QUERY: the first Source of the text answer
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" \
	    --data-urlencode "query=$2" >/dev/null
	http_body | sed -n 's/^Source: //p' | head -1
}

is "$(http POST "$BASE/api/libraries" -H "$A" -H "$J" \
    --data "{\"type\":\"llmstxt\",\"url\":\"$F/llms.txt\"}")" 202 "added"
ID=$(http_body | jq -r .libraryId)
JOB=$(http_body | jq -r .jobId)
wait_jobid "$JOB"
ok $? "the index of llms files is indexed (dead links do not fail it)"
fixtures_requests 1mcp >"$T/req"
for f in llms.txt llms-en.txt llms-zh.txt llms-full.txt; do
	is "$(grep -c " GET /$f 200 " "$T/req")" 1 "$f is fetched once"
done
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '$ID' AND path LIKE 'llms%.txt';")" 4 \
    "the four llms files are documents"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '$ID' AND path NOT LIKE 'llms%';")" 23 \
    "the 23 English pages (22 of llms-en.txt, 1 more of llms-full.txt) are documents"
is "$(_sql "SELECT url FROM documents WHERE library_id = '$ID' AND path = 'commands/mcp/';")" "$F/commands/mcp/" \
    "a /x/ link: its path and URL"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '$ID' AND path = 'reference/mcp-servers';")" 1 \
    "the page only llms-full.txt links is there"
nzh=$(grep -c ' GET /zh/' "$T/req")
ok "$([ "$nzh" -ge 23 ] && echo 0 || echo 1)" "the 23 /zh/ routes are asked for ($nzh requests)"
is "$(grep ' GET /zh/' "$T/req" | grep -vc ' 404 ')" 0 "... and all are 404s"
log=$(joblog "$JOB")
is "$(grep -c 'warning: page not indexed: could not fetch .*/zh/.*: HTTP 404 Not Found' <<<"$log")" 23 \
    "each of the 23 distinct /zh/ routes is one warning naming its URL and status"
like "$log" "fetched 27 pages \(0 of them unchanged\), 23 failed" "the summary counts pages and failures"
md=$(grep -c '\.md ' "$T/req")
ok "$([ "$md" -ge 3 ] && [ "$md" -le 12 ] && echo 0 || echo 1)" \
    "the .md addresses are tried, then given up on a site that has none ($md asked)"
grep -q ' GET /guide/installation "text/markdown, text/html;q=0.9"' "$T/req" ||
    grep -q ' GET /guide/installation 200 "text/markdown, text/html;q=0.9"' "$T/req"
ok $? "a page is asked for with Accept: text/markdown, text/html;q=0.9"
is "$(_sql "SELECT title FROM documents WHERE library_id = '$ID' AND path = 'guide/installation';")" \
    "Installation Guide - Binary, NPM, Docker" "a page's front matter title"

like "$(ask "$ID" "How do I run 1MCP in a Docker container?")" "^$F/guide/installation#" \
    "a query about Docker finds the installation page"
like "$(ask "$ID" "serverDefaults shared defaults for every MCP server")" "^$F/reference/mcp-servers#" \
    "a query about serverDefaults finds the reference page"
bench_questions llmstxt.json 1mcp "$ID" "$F"

# --- maxPages bounds the requests --------------------------------------------------------
fixtures_requests_reset
is "$(http POST "$BASE/api/libraries" -H "$A" -H "$J" \
    --data "{\"type\":\"llmstxt\",\"url\":\"$F/llms.txt\",\"maxPages\":5}")" 202 "maxPages 5: 202"
JOB=$(http_body | jq -r .jobId)
wait_jobid "$JOB"
ok $? "... indexed"
fixtures_requests 1mcp | awk '{ print $3 }' | sed 's/\.md$//' | sort -u >"$T/asked"
is "$(wc -l <"$T/asked" | tr -d ' ')" 5 "five pages asked for"
is "$(grep -c '^/llms.*\.txt$' "$T/asked")" 4 "... the llms files first"
is "$(ndocs "$ID")" 5 "five documents are left"
like "$(joblog "$JOB")" '[0-9]+ links past maxPages not fetched' "the log counts what was left out"
done_testing
