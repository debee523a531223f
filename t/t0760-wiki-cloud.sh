#!/usr/bin/env bash
# The wiki source on a cloud site, against the stand-in of the
# vendor's REST v2 (t/standin/wiki.js cloud: cursor pagination cut to 3 items, Basic auth):
# not configured -> the job says what to set; the secrets are write-only; a wrong token ->
# a 401 job error naming the URL, the token nowhere; a whole space indexed across list pages;
# pages by URL in every cloud form, across two spaces, with includeSubPages; a query finds
# the code macro's code; a re-index keeps the pages whose version did not change; a page URL
# of another site and a pagination loop are refused or cut.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx curl node

ctxd_setup
TOKEN="cloudtok$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
EMAIL=docs-bot@example.com
wiki_standin_start cloud --token "$TOKEN" --email "$EMAIL" --delay-ms 150
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

. "$top_srcdir/t/lib/wiki.sh"
docs() { _sql "SELECT group_concat(path || ' ' || title, ', ') FROM (SELECT path, title FROM documents WHERE library_id = '$1' ORDER BY path) AS d;"; }
SPACE='{"type":"wiki","url":"'$WBASE'","spaceKey":"ENG"}'

# --- not configured: the job says what to set ------------------------------------------------
job=$(wiki_index "$SPACE")
is $? 1 "not configured: the job fails"
like "$(wiki_jobmsg "$job")" "the wiki integration is not configured: set wiki.site_url, wiki.kind \(cloud or datacenter\) and wiki.token" \
    "... saying what to configure"
is "$(wiki_settings '{"wiki.site_url": "'$WBASE'", "wiki.kind": "cloud", "wiki.token": "x'$TOKEN'"}')" 200 "site, kind and a token set"
job=$(wiki_reindex /wiki/eng)
like "$(wiki_jobmsg "$job")" "not configured: set wiki.email \(" "cloud without wiki.email: the message names it"

# --- the settings API: secrets write-only -------------------------------------------------------
is "$(wiki_settings '{"wiki.email": "'$EMAIL'"}')" 200 "wiki.email set"
is "$(http GET "$BASE/api/settings" -H "$A")" 200 "GET /api/settings"
is "$(http_body | jq -r '.settings["wiki.token"] | "\(.set) \(has("value"))"')" "true false" \
    "wiki.token: shown as set, its value never"
is "$(http_body | jq -r '.settings["wiki.kind"].value')" cloud "wiki.kind is shown"
http_body | grep -qF -- "$TOKEN"
ok $((!$?)) "the token is not in the settings answer"
is "$(wiki_settings '{"wiki.kind": "server"}')" 400 "wiki.kind takes cloud or datacenter only"

# --- a wrong token: a 401 job error naming the URL, not the token -----------------------------------
job=$(wiki_reindex /wiki/eng)
is $? 1 "a wrong token: the job fails"
like "$(wiki_jobmsg "$job")" "could not fetch http://127.0.0.1:$WPORT/wiki/api/v2/spaces: HTTP 401 Unauthorized" \
    "... with the URL (no query) and the HTTP status"
is "$(curl -s "$WBASE/_log" | jq -r '[.[] | select(.auth == "bad")] | length')" 1 \
    "... after one request (no retry of a 401)"
is "$(wiki_settings '{"wiki.token": "'$TOKEN'"}')" 200 "the right token set"

# --- a whole space: every list page followed ----------------------------------------------------------
job=$(wiki_reindex /wiki/eng)
ok $? "space ENG indexed"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '/wiki/eng';")" 8 "... its 8 pages are documents"
is "$(_sql "SELECT title FROM libraries WHERE id = '/wiki/eng';")" Engineering \
    "... the library, added without a title, is named after the space"
is "$(curl -s "$WBASE/_log" | jq -r '[.[] | select(.path | test("/spaces/98305/pages"))] | length')" 3 \
    "... read in 3 list requests (cursor pagination followed to its end)"
like "$(docs /wiki/eng)" "pages/65538 Code Samples, pages/65539 Links and Images, .*pages/65544 Page Layout" \
    "... each page a document pages/ID with its title"
is "$(_sql "SELECT url || ' ' || etag FROM documents WHERE library_id = '/wiki/eng' AND path = 'pages/65538';")" \
    "$WBASE/wiki/spaces/ENG/pages/65538/Code+Samples v1" "... its web URL and version"
like "$(wiki_joblog "$job")" "8 wiki pages fetched" "the job log counts the pages"
# Read with wiki.token while anonymous reads are on: the job log says anyone can read them.
like "$(wiki_joblog "$job")" "these wiki pages were read with the instance's credentials \(wiki\.token\), and anonymous reads are on: anyone who reaches the server can read them.*perm\.require_mcp_auth" \
    "... and warns that anonymous reads open them to anyone"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=/wiki/eng" \
    --data-urlencode "query=collapse-and-title bash code" --data-urlencode "type=json")
is "$code" 200 "query the space"
hit=$(http_body | jq -r '[.codeSnippets[] | select(any(.codeList[]; .code | test("collapse-and-title")))][0]')
is "$(jq -r '.codeList[] | select(.code | test("collapse-and-title")) | .language' <<<"$hit")" \
    bash "... the code macro's code comes with its language"
like "$(jq -r .codeId <<<"$hit")" "^$WBASE/wiki/spaces/ENG/pages/65538/Code\\+Samples" \
    "... from the page's URL"

# --- re-index: unchanged pages kept by version -----------------------------------------------------------
ctxd_admin settings set perm.require_mcp_auth true
job=$(wiki_reindex /wiki/eng)
ok $? "re-index of an unchanged space"
like "$(wiki_joblog "$job")" "already indexed; nothing to do" "... nothing to do"
unlike "$(wiki_joblog "$job")" "anonymous reads are on" "... and, reads needing a key, no warning"
ctxd_admin settings set perm.require_mcp_auth false
curl -s -X POST "$WBASE/_edit/65541" >/dev/null
job=$(wiki_reindex /wiki/eng)
ok $? "re-index after one page was edited"
like "$(wiki_joblog "$job")" "8 documents: 1 parsed, 7 unchanged" "... only that page is parsed again"
is "$(_sql "SELECT etag FROM documents WHERE library_id = '/wiki/eng' AND path = 'pages/65541';")" v2 \
    "... and its new version stored"
curl -s -X POST "$WBASE/_touch/65538" >/dev/null
job=$(wiki_reindex /wiki/eng)
like "$(wiki_joblog "$job")" "8 documents: 0 parsed, 8 unchanged" \
    "a body changed without a new version (a site migration): kept by its version"

curl -s -X POST "$WBASE/_fail/2/503" >/dev/null
curl -s -X POST "$WBASE/_edit/65539" >/dev/null
job=$(wiki_reindex /wiki/eng)
ok $? "two 503 answers in a row: retried, the job is done"
like "$(wiki_joblog "$job")" "8 documents: 1 parsed, 7 unchanged" "... with the edited page"
curl -s -X POST "$WBASE/_fail/100/403" >/dev/null
job=$(wiki_reindex /wiki/eng)
is $? 1 "a 403 answer: the job fails"
like "$(wiki_jobmsg "$job")" "^could not fetch http://127.0.0.1:$WPORT/wiki/api/v2/spaces: HTTP 403 Forbidden$" \
    "... naming the URL and the status"
curl -s -X POST "$WBASE/_fail/1/302" >/dev/null
job=$(wiki_reindex /wiki/eng)
is $? 1 "a redirect to another origin: the job fails"
like "$(wiki_jobmsg "$job")" "^could not fetch http://127.0.0.1:$WPORT/wiki/api/v2/spaces: HTTP 302$" "... on the 302"
is "$(curl -s "$WBASE/_log" | jq '[.[] | select(.path | startswith("/elsewhere"))] | length')" 0 \
    "... which is not followed (the credential goes nowhere else)"
curl -s -X POST "$WBASE/_fail/0/503" >/dev/null

# --- pages by URL, every cloud form, across spaces, with sub-pages -----------------------------------------
tiny=$(curl -s "$WBASE/_tiny/131075" | jq -r .key)
job=$(wiki_index '{"type":"wiki","url":"'$WBASE'","title":"Picked pages","pageUrls":[
  "'$WBASE'/wiki/spaces/ENG/pages/65539/Links+and+Images",
  "'$WBASE'/wiki/spaces/ENG/pages/edit-v2/65542",
  "'$WBASE'/wiki/pages/viewpage.action?pageId=131074",
  "'$WBASE'/wiki/x/'$tiny'"]}')
ok $? "pages by URL in the four cloud forms, across two spaces"
is "$(curl -s "$WBASE/_stats" | jq .maxInflight)" 4 "... fetched by id 4 at once (sources.inflight)"
is "$(_sql "SELECT group_concat(path, ' ') FROM (SELECT path FROM documents WHERE library_id = '/wiki/picked_pages' ORDER BY path) AS d;")" \
    "pages/131074 pages/131075 pages/65539 pages/65542" "... exactly those pages (the tiny link decoded)"
is "$(wiki_settings '{"sources.inflight": 1}')" 200 "sources.inflight set to 1"
curl -s "$WBASE/_stats" >/dev/null
job=$(wiki_index '{"type":"wiki","url":"'$WBASE'","title":"Code tree","includeSubPages":true,"pageUrls":[
  "'$WBASE'/wiki/spaces/ENG/pages/65538/Code+Samples", "'$WBASE'/wiki/x/'$tiny'"]}')
ok $? "includeSubPages"
is "$(_sql "SELECT group_concat(path, ' ') FROM (SELECT path FROM documents WHERE library_id = '/wiki/code_tree' ORDER BY path) AS d;")" \
    "pages/131075 pages/131076 pages/65538 pages/65540 pages/65543" "... the pages and their sub-trees (grandchildren too)"
is "$(curl -s "$WBASE/_stats" | jq .maxInflight)" 1 "... one request at a time with sources.inflight 1"
wiki_settings '{"sources.inflight": null}' >/dev/null

# --- the bench questions (bench/questions/wiki.json) over both spaces' trees -------------------------------
job=$(wiki_index '{"type":"wiki","url":"'$WBASE'","title":"All","includeSubPages":true,"pageUrls":[
  "'$WBASE'/wiki/spaces/ENG/pages/65537/Engineering+Home", "'$WBASE'/wiki/spaces/OPS/pages/131073/Operations+Home"]}')
ok $? "both spaces' trees indexed as one library"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '/wiki/all';")" 12 "... all 12 pages"
for qid in $(jq -r '.[].id' "$top_srcdir/bench/questions/wiki.json"); do
	rec=$(jq -c --arg id "$qid" '.[] | select(.id == $id)' "$top_srcdir/bench/questions/wiki.json")
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=/wiki/all" \
	    --data-urlencode "query=$(jq -r .q <<<"$rec")" >/dev/null
	http_body >"$T/answer.txt"
	top5=$(grep '^Source: ' "$T/answer.txt" | head -5)
	want=$(jq -r '.files[0]' <<<"$rec")
	grep -qF "/${want}/" <<<"$top5"
	ok $? "$qid: $want is among the first five sources" || diag "$top5"
	for tok in $(jq -r '.must_contain[] | @base64' <<<"$rec"); do
		tok=$(base64 -d <<<"$tok")
		grep -qF -- "$tok" "$T/answer.txt"
		ok $? "$qid: the answer contains $tok"
	done
done

# --- refusals -----------------------------------------------------------------------------------------------
is "$(http POST "$BASE/api/libraries" -H "$A" -H "$J" --data '{"type":"wiki","url":"'$WBASE'","pageUrls":["'$WBASE'/wiki/about"]}')" 400 \
    "a URL of no page form: 400"
like "$(http_body | jq -r .error)" "pageUrls\[0\].*not a wiki page URL of a known form" "... naming the field"
job=$(wiki_index '{"type":"wiki","url":"'$WBASE'","title":"Elsewhere","pageUrls":["http://127.0.0.2:'$WPORT'/wiki/spaces/ENG/pages/65539/Links"]}')
is $? 1 "a page URL of another site: the job fails"
like "$(wiki_jobmsg "$job")" "the page URL http://127.0.0.2:$WPORT/wiki/spaces/ENG/pages/65539/Links is not on the configured wiki site" \
    "... saying so"
job=$(wiki_index '{"type":"wiki","url":"http://127.0.0.2:'$WPORT'","title":"Other site","pageUrls":["'$WBASE'/wiki/pages/viewpage.action?pageId=65537"]}')
is $? 1 "a library URL of another site: the job fails"
like "$(wiki_jobmsg "$job")" "the library's URL http://127.0.0.2:$WPORT/ is not on the configured wiki site $WBASE/wiki" \
    "... saying so"
job=$(wiki_index '{"type":"wiki","url":"'$WBASE'","title":"Gone","pageUrls":["'$WBASE'/wiki/pages/viewpage.action?pageId=999"]}')
is $? 1 "a page that does not exist: the job fails"
like "$(wiki_jobmsg "$job")" "could not fetch http://127.0.0.1:$WPORT/wiki/api/v2/pages/999: HTTP 404 Not Found" "... with the URL and 404"
curl -s -X POST "$WBASE/_loop" >/dev/null
job=$(wiki_index '{"type":"wiki","url":"'$WBASE'","spaceKey":"OPS"}')
ok $? "a pagination loop: the job ends"
like "$(wiki_joblog "$job")" "the pagination of http://127.0.0.1:$WPORT/wiki/api/v2/spaces/98306/pages repeats a link; stopped there" \
    "... cut where the link repeats"

# --- the token never shows ------------------------------------------------------------------------------------
b64=$(printf '%s:%s' "$EMAIL" "$TOKEN" | base64 -w0)
leak=$(grep -rlF -e "$TOKEN" -e "$b64" "$T/log" 2>/dev/null | grep -v wiki-standin)
is "$leak" "" "the token is in no log file"
is "$(_sql "SELECT count(*) FROM job_log WHERE instr(line, '$TOKEN') > 0 OR instr(line, '$b64') > 0;") $(_sql "SELECT count(*) FROM jobs WHERE instr(message, '$TOKEN') > 0 OR instr(message, '$b64') > 0;")" \
    "0 0" "... nor in a job log or job message"
http GET "$BASE/api/jobs?limit=100" -H "$A" >/dev/null
http_body | grep -qF -e "$TOKEN" -e "$b64"
ok $((!$?)) "... nor in the jobs API"

done_testing
