#!/usr/bin/env bash
# Names from the source: a library added without a title takes the one its source gives
# once indexed (an OpenAPI spec's info.title, with info.version as its version label; an
# llms.txt file's H1; a website's name shared by its pages' titles, else its start page's
# title); a library added with a title keeps it. New ids drop a default port and repeated
# words; a library that exists under the id of before keeps it.
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

# --- ids ---------------------------------------------------------------------------------------
DISC=$(add "{\"type\":\"openapi\",\"url\":\"$FIX_OPENAPI/discord/specs/openapi.json\"}")
is "$DISC" "/openapi/127_0_0_1_${FIXPORT_OPENAPI}_discord_specs" \
    "a new id drops the word that repeats the type (openapi.json under /openapi/)"
is "$(add '{"type":"website","url":"http://127.0.0.1:80/docs/guide/docs/"}')" /websites/127_0_0_1_docs_guide \
    "... and a default port, and a word repeated in the path"
is "$(add '{"type":"llmstxt","url":"https://docs.example.com:443/docs/llms.txt"}')" /llmstxt/docs_example_com-llms.txt \
    "... https on 443 too"
# A library added before (its id the old form) keeps its id when added again.
_sql "UPDATE libraries SET id = '/openapi/127_0_0_1_${FIXPORT_OPENAPI}_discord_specs_openapi' WHERE id = '$DISC';
    UPDATE jobs SET library_id = '/openapi/127_0_0_1_${FIXPORT_OPENAPI}_discord_specs_openapi' WHERE library_id = '$DISC';"
is "$(add "{\"type\":\"openapi\",\"url\":\"$FIX_OPENAPI/discord/specs/openapi.json\"}")" \
    "/openapi/127_0_0_1_${FIXPORT_OPENAPI}_discord_specs_openapi" "a library with the id of before keeps it"
is "$(_sql "SELECT count(*) FROM libraries WHERE url LIKE '%/discord/specs/openapi.json'")" 1 \
    "... and no second library is made"

done_testing
