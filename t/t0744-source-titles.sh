#!/usr/bin/env bash
# Names from the source: a library added without a title takes the one its source gives
# once indexed (an OpenAPI spec's info.title, with info.version as its version label; an
# llms.txt file's H1; a website's name shared by its pages' titles, else its start page's
# title); a library added with a title keeps it.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl

ctxd_setup
ORG=$FIXTURES/llmstxt/llmstxt-org/site
fixture_site openapi "$FIXTURES/openapi"
fixture_site typer "$FIXTURES/websites/typer/html"
fixture_site org "$ORG"
fixtures_start
export CTXD_WORKER=/bin/true	# one ctxd-worker run below, after the first look
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)

# add JSON: POST /api/libraries; prints the library id.
add() {
	http POST "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "$1" >/dev/null
	http_body | jq -r .libraryId
}
title() { _sql "SELECT title FROM libraries WHERE id = '$1'"; }

MSG=$(add "{\"type\":\"openapi\",\"url\":\"$FIX_OPENAPI/twilio/spec/yaml/twilio_messaging_v1.yaml\"}")
ARGO=$(add "{\"type\":\"openapi\",\"url\":\"$FIX_OPENAPI/argo-cd/assets/swagger.json\",\"title\":\"Argo CD\"}")
LLMS=$(add "{\"type\":\"llmstxt\",\"url\":\"$FIX_ORG/llms.txt\"}")
SITE=$(add "{\"type\":\"website\",\"url\":\"$FIX_TYPER/\",\"maxPages\":12}")
is "$(title "$MSG")" "$(basename "$MSG")" "before indexing, a library without a title is named after its id"
"$top_builddir/ctxd-worker" >/dev/null 2>&1
for id in "$MSG" "$ARGO" "$LLMS" "$SITE"; do
	is "$(wait_job "$id")" finalized "$id indexed"
done
is "$(title "$MSG")" "Twilio - Messaging" "OpenAPI: the title is info.title"
is "$(_sql "SELECT indexed_branch FROM libraries WHERE id = '$MSG'")" "1.0.0" \
    "... and info.version the version label"
is "$(title "$ARGO")" "Argo CD" "a title the user gave is kept"
is "$(title "$LLMS")" "llms.txt" "llms.txt: the title is the file's H1"
is "$(title "$SITE")" "Typer" "website: the name the pages' titles share"
is "$(http GET "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN" >/dev/null; http_body |
    jq -r --arg id "$MSG" '.libraries[] | select(.id == $id) | .title')" "Twilio - Messaging" \
    "GET /api/libraries lists the source's title"

done_testing
