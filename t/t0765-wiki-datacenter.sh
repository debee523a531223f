#!/usr/bin/env bash
# The wiki source on a datacenter site, against the stand-in of
# the vendor's REST API (t/standin/wiki.js datacenter: offset pagination cut to 3 items,
# Bearer personal access token), under a context path (/confluence) and without one: not
# configured -> the job says what to set; a wrong token -> a 401 job error naming the URL,
# the token nowhere; a whole space indexed across list pages; pages by URL in every
# datacenter form (viewpage.action, /display/KEY/Title+With+Pluses resolved by title, tiny
# links), across two spaces, with includeSubPages (child/page, recursively); a query finds
# the code macro's code; a re-index keeps the pages whose version did not change.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx curl node

ctxd_setup
TOKEN="dcpat$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
wiki_standin_start datacenter --token "$TOKEN" --context /confluence
SITE=$WBASE/confluence
wiki_standin_start datacenter --token "$TOKEN"
ROOTSITE=$WBASE
WBASE=${SITE%/confluence}
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

. "$top_srcdir/t/lib/wiki.sh"
paths() { _sql "SELECT group_concat(path, ' ') FROM (SELECT path FROM documents WHERE library_id = '$1' ORDER BY path) AS d;"; }

# --- not configured ----------------------------------------------------------------------------------
is "$(wiki_settings '{"wiki.site_url": "'$SITE'", "wiki.kind": "datacenter"}')" 200 "site and kind set, no token"
job=$(wiki_index '{"type":"wiki","url":"'$SITE'","spaceKey":"ENG"}')
is $? 1 "not configured: the job fails"
like "$(wiki_jobmsg "$job")" "the wiki integration is not configured: set wiki.token \(" "... naming the token (no email on datacenter)"

# --- a wrong token --------------------------------------------------------------------------------------
is "$(wiki_settings '{"wiki.token": "bad'$TOKEN'"}')" 200 "a wrong token set"
job=$(wiki_reindex /wiki/eng)
is $? 1 "a wrong token: the job fails"
like "$(wiki_jobmsg "$job")" "^could not fetch http://127.0.0.1:[0-9]+/confluence/rest/api/content: HTTP 401 Unauthorized$" \
    "... with the URL under the context path (no query) and the HTTP status"
is "$(wiki_settings '{"wiki.token": "'$TOKEN'"}')" 200 "the right token set"
is "$(http GET "$BASE/api/settings" -H "$A"; http_body | jq -r '.settings["wiki.token"] | "\(.set) \(.value)"')" \
    "200true null" "the token is write-only"

# --- a whole space through the offset pagination ------------------------------------------------------------
job=$(wiki_reindex /wiki/eng)
ok $? "space ENG indexed"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '/wiki/eng';")" 8 "... its 8 pages are documents"
is "$(curl -s "$WBASE/_log" | jq -r '[.[] | select(.auth == "ok" and (.path | test("^/confluence/rest/api/content[?]spaceKey=ENG")))] | length')" 3 \
    "... read in 3 list requests (start=0, 3, 6)"
is "$(_sql "SELECT url || ' ' || etag || ' ' || title FROM documents WHERE library_id = '/wiki/eng' AND path = 'pages/65538';")" \
    "$SITE/display/ENG/Code+Samples v1 Code Samples" "... a page's web URL (context path kept), version and title"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=/wiki/eng" \
    --data-urlencode "query=echo Hello World bash comment" --data-urlencode "type=json")
is "$code" 200 "query the space"
hit=$(http_body | jq -r '[.codeSnippets[] | select(any(.codeList[]; .code | test("echo \"Hello World\"")))][0]')
is "$(jq -r '.codeList[] | select(.code | test("Hello World")) | .language' <<<"$hit")" bash \
    "... the code macro's code comes with its language"
like "$(jq -r .codeId <<<"$hit")" "^$SITE/display/ENG/Shell\\+Comments" "... from its page"

# --- re-index: by version -------------------------------------------------------------------------------------
job=$(wiki_reindex /wiki/eng)
like "$(wiki_joblog "$job")" "already indexed; nothing to do" "an unchanged space: nothing to do"
curl -s -X POST "$WBASE/_edit/65540" >/dev/null
job=$(wiki_reindex /wiki/eng)
like "$(wiki_joblog "$job")" "8 documents: 1 parsed, 7 unchanged" "one page edited: only it is parsed again"
is "$(_sql "SELECT etag FROM documents WHERE library_id = '/wiki/eng' AND path = 'pages/65540';")" v2 "... its new version stored"

# --- pages by URL ---------------------------------------------------------------------------------------------------
tiny=$(curl -s "$WBASE/_tiny/131076" | jq -r .key)
job=$(wiki_index '{"type":"wiki","url":"'$SITE'","title":"Picked","pageUrls":[
  "'$SITE'/pages/viewpage.action?pageId=65542",
  "'$SITE'/display/ENG/Links+and+Images",
  "'$SITE'/display/OPS/Runbook%20Headers",
  "'$SITE'/x/'$tiny'"]}')
ok $? "pages by URL in the datacenter forms, across two spaces"
is "$(paths /wiki/picked)" "pages/131074 pages/131076 pages/65539 pages/65542" "... exactly those pages"
like "$(curl -s "$WBASE/_log" | jq -r '.[].path')" "/confluence/rest/api/content\?spaceKey=ENG&title=Links%20and%20Images&" \
    "... a /display/ URL resolved by its space and title"
job=$(wiki_index '{"type":"wiki","url":"'$SITE'","title":"Tree","includeSubPages":true,"pageUrls":["'$SITE'/display/ENG/Code+Samples"]}')
ok $? "includeSubPages"
is "$(paths /wiki/tree)" "pages/65538 pages/65540 pages/65543" "... the page, its child and grandchild"
like "$(curl -s "$WBASE/_log" | jq -r '.[].path')" "/confluence/rest/api/content/65540/child/page\?" "... through child/page, recursively"
job=$(wiki_index '{"type":"wiki","url":"'$SITE'","title":"Nope","pageUrls":["'$SITE'/display/ENG/No+Such+Page"]}')
is $? 1 "a title that is no page: the job fails"
like "$(wiki_jobmsg "$job")" 'no wiki page titled "No Such Page" in space ENG' "... saying so"
job=$(wiki_index '{"type":"wiki","url":"'$SITE'","title":"Cloudy","pageUrls":["'$SITE'/spaces/ENG/pages/65538/Code+Samples"]}')
is $? 1 "a cloud page URL on a datacenter site: the job fails"
like "$(wiki_jobmsg "$job")" "has the form /spaces/KEY/pages/ID/Title, which a datacenter wiki site does not use" "... saying so"
job=$(wiki_index '{"type":"wiki","url":"'$SITE'","title":"Outside","pageUrls":["'$ROOTSITE'/pages/viewpage.action?pageId=65542"]}')
is $? 1 "a page URL of another site (another port): the job fails"
like "$(wiki_jobmsg "$job")" "is not on the configured wiki site $SITE" "... saying so"
is "$(curl -s "$ROOTSITE/_log" | jq length)" 0 "... and nothing was sent there"

# --- a site without a context path ----------------------------------------------------------------------------------
is "$(wiki_settings '{"wiki.site_url": "'$ROOTSITE'/"}')" 200 "the site moved to a root URL"
job=$(wiki_index '{"type":"wiki","url":"'$ROOTSITE'","spaceKey":"OPS"}')
ok $? "space OPS indexed from a site without a context path"
is "$(_sql "SELECT count(*) || ' ' || min(url) FROM documents WHERE library_id = '/wiki/ops';")" \
    "4 $ROOTSITE/display/OPS/Include+Macros" "... its 4 pages, with their URLs"

# --- the token never shows ----------------------------------------------------------------------------------------------
leak=$(grep -rlF -e "$TOKEN" "$T/log" 2>/dev/null | grep -v wiki-standin)
is "$leak" "" "the token is in no log file"
is "$(_sql "SELECT count(*) FROM job_log WHERE instr(line, '$TOKEN') > 0;") $(_sql "SELECT count(*) FROM jobs WHERE instr(message, '$TOKEN') > 0;")" \
    "0 0" "... nor in a job log or job message"
http GET "$BASE/api/jobs?limit=100" -H "$A" >/dev/null
http_body | grep -qF -e "$TOKEN"
ok $((!$?)) "... nor in the jobs API"

done_testing
