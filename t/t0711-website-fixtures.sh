#!/usr/bin/env bash
# The website source on two real documentation sites (the fixtures mkdocs and typer, each
# served as its own site): crawled within scope, queried (a known answer comes from the
# right page and anchor), maxPages stops the crawl and says how many links were left, and a
# re-index asks with validators: every page answers 304, is unchanged, keeps its snippets.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl sqlite3

ctxd_setup
fixture_site mkdocs "$FIXTURES/websites/mkdocs/html"
fixture_site typer "$FIXTURES/websites/typer/html"
fixtures_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

add() {	# add JSON: POST /api/libraries; prints the library id
	http POST "$BASE/api/libraries" -H "$A" -H "$J" --data "$1" >/dev/null
	http_body | jq -r .libraryId
}
joblog() { _sql "SELECT line FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE library_id = '$1') ORDER BY id;"; }
ask() {	# ask ID QUESTION: the Source lines of the answer
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" --data-urlencode "query=$2" >/dev/null
	http_body | grep '^Source: ' | head -5
}
pages() { fixtures_requests "$1" | awk '$3 != "/robots.txt" && $3 !~ /sitemap/' | wc -l; }

TY=$(add "{\"type\":\"website\",\"url\":\"$FIX_TYPER/\"}")
MK=$(add "{\"type\":\"website\",\"url\":\"$FIX_MKDOCS/index.html\"}")
is "$(wait_job "$TY")" finalized "typer is crawled and indexed"
is "$(wait_job "$MK")" finalized "mkdocs is crawled and indexed"
joblog "$TY" >"$T/ty.log"
joblog "$MK" >"$T/mk.log"
diag "$(grep -E 'fetched|documents|stopped' "$T/ty.log" "$T/mk.log")"
nty=$(_sql "SELECT count(*) FROM documents WHERE library_id = '$TY';")
ok "$([ "$nty" -ge 55 ]; echo $?)" "typer: $nty pages are documents (60 content pages)"
nmk=$(_sql "SELECT count(*) FROM documents WHERE library_id = '$MK';")
ok "$([ "$nmk" -ge 17 ] && [ "$nmk" -le 20 ]; echo $?)" "mkdocs: $nmk pages are documents (19 content pages)"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '$MK' AND path IN ('/user-guide/plugins.html', '/user-guide/custom-themes.html', '/user-guide/styling-your-docs.html');")" 0 \
    "mkdocs: the noindex redirect stubs are not documents"
like "$(cat "$T/ty.log")" "sitemap $FIX_TYPER/sitemap.xml.gz: 60 pages" \
    "typer: its only sitemap, sitemap.xml.gz, is read (its pages name the public host: not followed)"
is "$(fixtures_requests | grep -vc "^\($FIXPORT_MKDOCS\|$FIXPORT_TYPER\) ")" 0 "nothing was asked of another address"
is "$(fixtures_requests typer | awk '{ print $3 }' | sort | uniq -d | wc -l)" 0 "typer: no page was fetched twice"
like "$(cat "$T/mk.log")" "could not fetch $FIX_MKDOCS/user-guide/configuration/: HTTP 404 Not Found" \
    "mkdocs: a broken link is a warning naming the URL and the status"

like "$(ask "$TY" "How do I ask for a password with confirmation and hide the input?")" \
    "Source: $FIX_TYPER/tutorial/options/password/#a-password-prompt" "typer: the password prompt section answers"
like "$(ask "$TY" "How do I show a progress bar?")" "Source: $FIX_TYPER/tutorial/progressbar/#progress-bar" \
    "typer: the progress bar section answers"
like "$(ask "$MK" "What does mkdocs serve do?")" "Source: $FIX_MKDOCS/user-guide/cli.html#mkdocs-serve" \
    "mkdocs: the answer comes from the command line page"
# (best first: the GitHub Pages section's subsections outscore it and lead, with its trail)
like "$(ask "$MK" "How do I deploy my docs to GitHub Pages?" | head -1)" \
    "Source: $FIX_MKDOCS/user-guide/deploying-your-docs.html#(github-pages|project-pages|custom-domains|user-pages)" \
    "mkdocs: the answer comes from the GitHub Pages section"
like "$(http_body | grep -A2 -m1 '^Source: ')" "(#github-pages|Under: .*GitHub Pages)" \
    "mkdocs: ... or one of its subsections, under its heading"

# the bench questions (bench/questions/website.json): an expected page among the first five
# sources, and the expected tokens in the answer
bench_questions website.json websites/typer "$TY" "$FIX_TYPER"
bench_questions website.json websites/mkdocs "$MK" "$FIX_MKDOCS"

# --- maxPages ------------------------------------------------------------------------------
fixtures_requests_reset
SUB=$(add "{\"type\":\"website\",\"url\":\"$FIX_TYPER/tutorial/\",\"maxPages\":5}")
is "$(wait_job "$SUB")" finalized "a crawl limited to 5 pages"
is "$(pages typer)" 5 "... asks for 5 pages"
like "$(joblog "$SUB")" "stopped at maxPages 5: [0-9]+ more links not followed" "... and says where it stopped"
is "$(fixtures_requests typer | awk '$3 !~ "^/tutorial/" && $3 != "/robots.txt"' | wc -l)" 0 \
    "... within the scope of its start folder"

# --- re-index: every page answers 304 ------------------------------------------------------
before=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$TY';")
fixtures_requests_reset
is "$(http POST "$BASE/api/libraries$TY/refresh" -H "$A")" 202 "typer: re-index queued"
wait_jobid "$(http_body | jq -r .jobId)"
ok $? "typer: re-indexed"
n304=$(fixtures_requests typer | awk '$4 == 304' | wc -l)
is "$n304" "$nty" "typer: every page is asked for with its validators and answers 304"
is "$(fixtures_requests typer | awk '$4 == 200 && $3 !~ /sitemap|robots/' | wc -l)" 0 "typer: no page is sent again"
like "$(joblog "$TY")" "$nty unchanged" "typer: the job log counts them unchanged"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$TY';")" "$before" "typer: the snippets are kept"

done_testing
