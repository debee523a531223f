#!/usr/bin/env bash
# The llms.txt source (lib/sources/llmstxt.c): llmstxt.org's own site (its llms.txt links
# absolute https://llmstxt.org/ URLs, rewritten by nginx to the local site) is indexed: the
# index and its three .md pages become documents, queries find the right page#anchor, a
# re-index asks with the stored validators and gets 304s; its llms-ctx file given as an
# llms-full.txt is split by its <doc> blocks; a test-made site shows the dead links (404,
# a redirect to the cloud metadata address refused by the address policy, off-site links)
# as warnings of a finished job, the Optional section last, an HTML-only page asked for
# with Accept; and an llms.txt that is 404 fails the job naming its URL and status.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl sqlite3

ctxd_setup
mkdir -p "$T/mix/docs"
cat >"$T/mix/llms.txt" <<'EOS'
# Mix

> A test-made llms.txt.

## Docs

- [Good](/docs/good): a page that exists as /docs/good.md
- [Meta](/meta): redirects to the cloud metadata address
- [Gone](/gone): a 404
- [Elsewhere](https://elsewhere.example/x): another host
- [App](/app): only HTML
- [More](/llms-more.txt): another llms file

## Optional

- [Extra](extra.md)
EOS
printf '# More\n\n- [More page](/more.md)\n- [Loop](/llms.txt)\n- [Deeper](/llms-deeper.txt)\n' >"$T/mix/llms-more.txt"
printf '# More page\n\nThe capybara note.\n' >"$T/mix/more.md"
printf '# Good page\n\nThe zanzibar widget turns left.\n' >"$T/mix/docs/good.md"
printf 'No heading here, only the quokka fact.\n' >"$T/mix/extra.md"
printf '<html><head><title>App</title></head><body><h1>App</h1><p>x</p></body></html>\n' >"$T/mix/app.html"
ORG=$FIXTURES/llmstxt/llmstxt-org/site
fixture_site org "$ORG" '
	location = /llms.txt {
		sub_filter "https://llmstxt.org" "http://127.0.0.1:$server_port";
		sub_filter_once off;
		sub_filter_types text/plain;
	}
	location = /llms-full.txt { alias '"$ORG"'/llms-ctx-full.txt; }'
fixture_site mix "$T/mix" '
	location = /meta { return 302 http://169.254.169.254/latest/meta-data/; }
	location = /app { default_type text/html; try_files /app.html =404; }'
fixtures_start
# same host, another port (the other fixture site): another site, not followed
printf -- '- [Other port](http://127.0.0.1:%s/ed-commonmark.md)\n' "$FIXPORT_ORG" >>"$T/mix/llms.txt"
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

add() {	# add URL [EXTRA JSON FIELDS]: POST the source, print its library id
	http POST "$BASE/api/libraries" -H "$A" -H "$J" \
	    --data "{\"type\":\"llmstxt\",\"url\":\"$1\"${2:+,$2}}" >/dev/null
	http_body | jq -r .libraryId
}
NL=$'\n'	# (char(10) is SQLite's only)
joblog() { _sql "SELECT group_concat(level || ': ' || line, '$NL') FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE library_id = '$1');"; }
docs() { _sql "SELECT group_concat(path, ' ') FROM (SELECT path FROM documents WHERE library_id = '$1' ORDER BY path) AS d;"; }
ask() {	# ask LIBID QUERY: the first Source of the text answer
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" \
	    --data-urlencode "query=$2" >/dev/null
	http_body | sed -n 's/^Source: //p' | head -1
}

# --- llmstxt.org: the index and its pages ------------------------------------------------
ID=$(add "$FIX_ORG/llms.txt")
is "$ID" "/llmstxt/127_0_0_1_${FIXPORT_ORG}-llms.txt" "the library id"
is "$(wait_job "$ID")" finalized "llmstxt.org is indexed"
is "$(docs "$ID")" "ed-commonmark.md index.md intro.html.md llms.txt" \
    "the llms.txt and its three linked pages are the documents"
is "$(_sql "SELECT url FROM documents WHERE library_id = '$ID' AND path = 'intro.html.md';")" \
    "$FIX_ORG/intro.html.md" "a page's URL is its link, host rewritten"
fixtures_requests org >"$T/req1"
is "$(grep -c ' 200 ' "$T/req1")" 4 "four requests, all 200"
grep -q '^[0-9]* GET /index.md 200 "text/markdown, text/html;q=0.9"' "$T/req1"
ok $? "pages are asked for with Accept: text/markdown, text/html;q=0.9"
grep -q ' GET /index.md.md ' "$T/req1"
ok $((!$?)) "a link ending in .md is not asked for as .md.md"
like "$(joblog "$ID")" '"llms.txt", 3 links in 1 sections' "the log names the structure"
like "$(joblog "$ID")" 'fetched 4 pages \(0 of them unchanged\), 0 failed' "... and sums up"
like "$(ask "$ID" "ed line editor hello world")" "^$FIX_ORG/ed-commonmark.md#" \
    "a query about ed finds the ed page"
like "$(ask "$ID" "What is the format of an llms.txt file")" "^$FIX_ORG/(index.md|llms.txt)#" \
    "a query about the format finds the proposal or the index"
like "$(ask "$ID" "How do I install the llms_txt2ctx CLI in my terminal?")" "^$FIX_ORG/intro.html.md#" \
    "a query about the CLI finds the python docs"
ask "$ID" "A proposal that those interested in providing LLM-friendly content" >/dev/null
grep -q "Source: $FIX_ORG/llms.txt" "$T/http.body"
ok $? "the index's summary is a snippet of its own"
bench_questions llmstxt.json llmstxt-org "$ID" "$FIX_ORG"

# --- re-index: conditional GET, 304s -----------------------------------------------------
fixtures_requests_reset
is "$(http POST "$BASE/api/libraries/${ID#/}/refresh" -H "$A")" 202 "refresh: 202"
wait_jobid "$(http_body | jq -r .jobId)"
ok $? "... re-indexed"
fixtures_requests org >"$T/req2"
is "$(grep -c ' 304 ' "$T/req2")" 3 "the three pages answer 304"
like "$(grep ' GET /ed-commonmark.md 304 ' "$T/req2" | awk -F'"' '{ print $4 }')" \
    '[0-9a-f]+-[0-9a-f]+' "... asked with If-None-Match: the stored ETag"
is "$(grep -c ' GET /llms.txt 200 ' "$T/req2")" 1 "the llms.txt itself is fetched whole"
like "$(joblog "$ID")" 'fetched 4 pages \(3 of them unchanged\)' "the log counts them"
is "$(docs "$ID")" "ed-commonmark.md index.md intro.html.md llms.txt" "the documents are kept"
like "$(ask "$ID" "ed line editor hello world")" "^$FIX_ORG/ed-commonmark.md#" "... and still found"

# --- llms-full.txt split by its <doc> blocks ---------------------------------------------
fixtures_requests_reset
FULL=$(add "$FIX_ORG/llms-full.txt")
is "$(wait_job "$FULL")" finalized "the llms-full.txt is indexed"
is "$(docs "$FULL")" "llms-full.txt/1-llmstxt-proposal llms-full.txt/2-python-library-docs llms-full.txt/3-ed-demo" \
    "one document per <doc> block, named by its title"
is "$(_sql "SELECT title FROM documents WHERE library_id = '$FULL' AND path = 'llms-full.txt/3-ed-demo';")" \
    "ed demo" "a block's title is the document's"
like "$(joblog "$FULL")" 'split into 3 documents by its <doc> blocks' "the log says so"
is "$(fixtures_requests org | grep -vc ' /llms-full.txt ')" 0 "its links are not followed"
like "$(ask "$FULL" "ed line editor hello world")" "^$FIX_ORG/llms-full.txt#" \
    "a part's Source is the file and the section's anchor"

# --- dead links are warnings; the scope; Optional last -----------------------------------
fixtures_requests_reset
ctxd_admin settings set sources.inflight 1 >/dev/null	# one at a time: the order shows
MIX=$(add "$FIX_MIX/llms.txt")
is "$(wait_job "$MIX")" finalized "a source with dead links finishes"
log=$(joblog "$MIX")
like "$log" "warning: page not indexed: could not fetch $FIX_MIX/gone: HTTP 404 Not Found" \
    "a 404 is a warning naming the URL and status"
like "$log" "warning: page not indexed: could not fetch $FIX_MIX/meta: .*(address|policy|allowed)" \
    "a redirect to 169.254.169.254 is refused by the address policy"
like "$log" "fetched [0-9]+ pages .*, 2 failed; 2 links off 127.0.0.1:$FIXPORT_MIX not followed" \
    "the summary counts the failures and the off-site links (another host, another port)"
fixtures_requests mix >"$T/req3"
grep -q 'elsewhere' "$T/req3"
ok $((!$?)) "the off-site link is not asked for"
is "$(fixtures_requests org | grep -c 'ed-commonmark')" 0 \
    "a link to the same host's other port is not asked for"
is "$(docs "$MIX")" "app docs/good extra.md llms-more.txt llms.txt more.md" \
    "the pages that answered are documents"
is "$(_sql "SELECT count(*) FROM snippets s JOIN documents d ON d.id = s.document_id WHERE d.library_id = '$MIX' AND d.path = 'app';")" 1 \
    "the HTML page is parsed as HTML"
like "$log" "2 llms files linked from linked llms files not followed" \
    "an llms file linked from a linked one is not followed, nor a loop back"
is "$(grep -c ' /llms.txt ' "$T/req3") $(grep -c ' /llms-deeper.txt ' "$T/req3")" "1 0" \
    "... neither is asked for"
is "$(_sql "SELECT title FROM documents WHERE library_id = '$MIX' AND path = 'extra.md';")" "Extra" \
    "a page without a title of its own takes the link's name"
is "$(_sql "SELECT title FROM documents WHERE library_id = '$MIX' AND path = 'docs/good';")" "Good page" \
    "a page with an H1 keeps it"
is "$(_sql "SELECT url FROM documents WHERE library_id = '$MIX' AND path = 'docs/good';")" "$FIX_MIX/docs/good" \
    "the URL is the link, not the .md asked for"
grep -q ' GET /docs/good.md 200 ' "$T/req3"
ok $? "the .md of an extensionless link is asked for first"
grep -q ' GET /app 200 "text/markdown, text/html;q=0.9"' "$T/req3" && grep -q ' GET /app.md 404 ' "$T/req3"
ok $? "an HTML-only page: .md 404, then the page with Accept"
is "$(awk '{ print $3 }' "$T/req3" | tail -2 | tr '\n' ' ')" "/more.md /extra.md " \
    "a linked llms file's page comes before the Optional section's"

# --- the llms file failing fails the job -------------------------------------------------
BAD=$(add "$FIX_MIX/sub/llms.txt")
wait_job "$BAD" >/dev/null
is "$(_sql "SELECT state FROM jobs WHERE id = (SELECT max(id) FROM jobs WHERE library_id = '$BAD');")" failed \
    "a 404 llms.txt fails the job"
like "$(_sql "SELECT message FROM jobs WHERE id = (SELECT max(id) FROM jobs WHERE library_id = '$BAD');")" \
    "could not fetch $FIX_MIX/sub/llms.txt: HTTP 404 Not Found" "... naming the URL and status"

done_testing
