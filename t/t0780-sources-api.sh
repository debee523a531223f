#!/usr/bin/env bash
# Adding any source: POST /api/libraries takes one source entry in the
# shape of a GitOps manifest entry, validated by lib/sources/entry.c (every refusal a 400 naming the
# field, nothing stored); the hosted service's POST /api/parse-website, /api/parse-openapi
# and /api/parse-openapi-upload (multipart) map onto it; ids are stable; GET /api/libraries
# shows each library's type and source settings; a re-POST keeps the stored fields it does not
# give and changing them needs an admin or the user who added the library. The jobs are not
# run here (CTXD_WORKER=/bin/true): the back ends have their own tests (t07xx).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx curl

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

post() { http POST "$BASE$1" -H "$A" -H "$J" --data "$2"; }
nlibs() { _sql "SELECT count(*) FROM libraries;"; }
njobs() { _sql "SELECT count(*) FROM jobs;"; }

# --- every refusal: 400 naming the field, nothing stored -----------------------------------
refuse() {
	local body=$1 want=$2 before_l before_j
	before_l=$(nlibs) before_j=$(njobs)
	is "$(post /api/libraries "$body")" 400 "400: $body"
	like "$(http_body | jq -r .error)" "$want" "... says: $want"
	is "$(nlibs) $(njobs)" "$before_l $before_j" "... and stores nothing"
}
refuse '{"type":"svn","url":"https://h.example/a/b"}' "field 'type' must be one of git, wiki, website, llmstxt, openapi"
refuse '{"type":"website","maxPages":3}' "missing required field 'url'"
refuse '{"url":"https://h.example/a/b","maxDepth":2}' "field 'maxDepth' is not a field of a git source"
refuse '{"type":"website","url":"https://h.example/","branch":"x"}' "field 'branch' is not a field of a website source"
refuse '{"type":"website","url":"https://h.example/","maxPages":"9"}' "field 'maxPages' must be a whole number"
refuse '{"type":"website","url":"https://h.example/","excludePatterns":[1]}' "field 'excludePatterns'"
refuse '{"type":"llmstxt","url":"https://h.example/docs.txt"}' "field 'url' must point to a file named llms.txt, llms-full.txt or llms-small.txt"
refuse '{"type":"wiki","url":"https://w.example/"}' "needs 'spaceKey' .a whole space. or 'pageUrls'"
refuse '{"type":"wiki","url":"https://w.example/","spaceKey":"A","pageUrls":["https://w.example/x"]}' "'spaceKey' or 'pageUrls', not both"
refuse '{"type":"openapi","url":"file:///etc/passwd"}' "field 'url' must be an http or https URL"
refuse '{"type":"website","url":"https://h.example/","title":42}' "field 'title' must be a string"
refuse '{"url":"https://h.example/a/b","repoUrl":"https://h.example/a/b"}' "not both"
refuse '[1]' "must be a JSON object"

# --- each type is added: 202 {libraryId, jobId, message} -----------------------------------
add() {
	local body=$1 id=$2
	is "$(post /api/libraries "$body")" 202 "202: $body"
	is "$(http_body | jq -r .libraryId)" "$id" "... library $id"
	http_body | jq -e '(.jobId | type) == "number" and (.message | test("queued as job"))' >/dev/null
	ok $? "... with its job and a message"
}
add '{"type":"website","url":"http://127.0.0.1:9/typer/","title":"Typer","maxPages":20}' /websites/127_0_0_1_9_typer
add '{"type":"llmstxt","url":"http://127.0.0.1:9/llms.txt"}' /llmstxt/127_0_0_1_9-llms.txt
add '{"type":"openapi","url":"http://127.0.0.1:9/specs/petstore.yaml","description":"Pets"}' /openapi/127_0_0_1_9_specs_petstore
add '{"type":"wiki","url":"http://127.0.0.1:9/wiki","spaceKey":"ENG"}' /wiki/eng
add '{"repoUrl":"http://127.0.0.1:9/acme/docs.git","branch":"main"}' /acme/docs
is "$(_sql "SELECT source_type || ' ' || title || ' ' || settings FROM libraries WHERE id = '/websites/127_0_0_1_9_typer';")" \
    'website Typer {"maxPages":20,"maxDepth":3,"excludePatterns":[]}' "the website's type, title and settings with defaults are stored"

# --- the hosted service's endpoints ----------------------------------------------------------
is "$(post /api/parse-website '{"websiteUrl":"http://127.0.0.1:9/mkdocs/index.html","projectTitle":"MkDocs","maxDepth":1,"excludePatterns":["/about/*"]}')" 202 "parse-website: 202"
is "$(http_body | jq -r .libraryId)" /websites/127_0_0_1_9_mkdocs "parse-website: the id"
is "$(_sql "SELECT title || ' ' || settings FROM libraries WHERE id = '/websites/127_0_0_1_9_mkdocs';")" \
    'MkDocs {"maxPages":100,"maxDepth":1,"excludePatterns":["/about/*"]}' "parse-website: fields mapped"
is "$(post /api/parse-website '{"url":"http://127.0.0.1:9/x/"}')" 400 "parse-website takes websiteUrl, not url"
like "$(http_body | jq -r .error)" "unknown field 'url'" "... and says so"
is "$(post /api/parse-openapi '{"openApiUrl":"http://127.0.0.1:9/api/v2.json","projectTitle":"API v2"}')" 202 "parse-openapi: 202"
is "$(http_body | jq -r .libraryId)" /openapi/127_0_0_1_9_api_v2 "parse-openapi: the id"
is "$(post /api/parse-openapi '{}')" 400 "parse-openapi without openApiUrl: 400"
like "$(http_body | jq -r .error)" "missing required field 'openApiUrl'" "... naming it"

# --- the upload ------------------------------------------------------------------------------
printf 'openapi: 3.0.3\ninfo:\n  title: Pets\n  version: "1"\npaths: {}\n' >"$T/pets.yaml"
code=$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -F "openapiFile=@$T/pets.yaml" -F "projectTitle=Pet Store")
is "$code" 202 "upload: 202"
is "$(http_body | jq -r .libraryId)" /openapi/pet_store "upload: the id from the title"
sha=$(sha256sum "$T/pets.yaml" | cut -d' ' -f1)
cmp -s "$T/pets.yaml" "$DATA_DIR/uploads/$sha.yaml"
ok $? "upload: the file is kept as DATA_DIR/uploads/<sha256>.yaml"
is "$(_sql "SELECT url || ' ' || host || ' ' || settings FROM libraries WHERE id = '/openapi/pet_store';")" \
    "upload:pets.yaml upload {\"upload\":\"$sha.yaml\",\"fileName\":\"pets.yaml\"}" "upload: the library's URL and settings"
printf '{"openapi":"3.1.0","info":{"title":"J","version":"1"}}' >"$T/j.json"
is "$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -F "openapiFile=@$T/j.json")" 202 "upload of JSON without a title: 202"
is "$(http_body | jq -r .libraryId)" /openapi/j "... the id from the file name"
test -f "$DATA_DIR/uploads/$(sha256sum "$T/j.json" | cut -d' ' -f1).json"
ok $? "... kept as .json"
before=$(nlibs)
printf 'just: yaml\n' >"$T/not.yaml"
is "$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -F "openapiFile=@$T/not.yaml")" 400 "a file that is not a spec: 400"
like "$(http_body | jq -r .error)" "not an OpenAPI description" "... says so"
is "$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -F "projectTitle=x")" 400 "no file: 400"
like "$(http_body | jq -r .error)" "missing required field 'openapiFile'" "... naming it"
is "$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -F "openapiFile=@$T/pets.yaml" -F "colour=red")" 400 "an unknown form field: 400"
is "$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -H "$J" --data '{}')" 415 "a JSON body: 415"
like "$(http_body | jq -r .error)" "multipart/form-data" "... says what it takes"
is "$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -H 'Content-Type: multipart/form-data; boundary=zz' --data-binary $'--zz\r\nbroken')" 400 "a malformed multipart body: 400"
is "$(nlibs)" "$before" "the refused uploads stored nothing"
head -c $((17 * 1024 * 1024)) /dev/zero >"$T/big.yaml"
is "$(http POST "$BASE/api/parse-openapi-upload" -H "$A" -F "openapiFile=@$T/big.yaml")" 413 "an upload over 16 MB: 413"

# --- the list shows type and settings ---------------------------------------------------------
is "$(http GET "$BASE/api/libraries?limit=100" -H "$A")" 200 "GET /api/libraries: 200"
is "$(http_body | jq -r '.libraries[] | select(.id == "/llmstxt/127_0_0_1_9-llms.txt") | "\(.sourceType) \(.url) \(.settings.maxPages)"')" \
    "llmstxt http://127.0.0.1:9/llms.txt 100" "the list shows the type, URL and settings"
is "$(http_body | jq -r '.libraries[] | select(.id == "/wiki/eng") | .settings.spaceKey')" ENG "... of a wiki too"

# --- re-POST: stored fields kept, changes need the admin or the one who added it ---------------
is "$(post /api/libraries '{"type":"website","url":"http://127.0.0.1:9/typer/"}')" 202 "re-POST without fields: 202"
is "$(_sql "SELECT title || ' ' || settings FROM libraries WHERE id = '/websites/127_0_0_1_9_typer';")" \
    'Typer {"maxPages":20,"maxDepth":3,"excludePatterns":[]}' "... keeps the stored title and maxPages"
MEMBER=$(ctxd_admin key create reader)
is "$(http POST "$BASE/api/libraries" -H "Authorization: Bearer $MEMBER" -H "$J" --data '{"type":"website","url":"http://127.0.0.1:9/typer/","maxPages":99}')" 403 "a member changing maxPages: 403"
like "$(http_body | jq -r .error)" "maxPages" "... naming the field"
is "$(post /api/libraries '{"type":"website","url":"http://127.0.0.1:9/typer/","maxPages":99}')" 202 "the admin may change it"
is "$(_sql "SELECT json_extract(settings, '\$.maxPages') FROM libraries WHERE id = '/websites/127_0_0_1_9_typer';")" 99 "... and it is stored"
is "$(post /api/libraries '{"type":"llmstxt","url":"http://127.0.0.1:9/typer/llms.txt"}')" 202 "another URL, another id"
is "$(http POST "$BASE/api/libraries" -H "$J" --data '{"type":"website","url":"http://127.0.0.1:9/z/"}')" 401 "anonymous (perm.anonymous_parse off): 401"

# --- GET /api/sources/types: what the forms are built from, as the back ends declare it -------
is "$(http GET "$BASE/api/sources/types" -H "$A")" 200 "GET /api/sources/types: 200"
T_JSON=$(http_body)
is "$(jq -r '[.[].type] | sort | join(" ")' <<<"$T_JSON")" "git llmstxt openapi website wiki" \
    "... every source type"
is "$(jq -r '.[] | select(.type == "website") | .label' <<<"$T_JSON")" Website "... with its label"
is "$(jq -c '.[] | select(.type == "website") | .fields[] | select(.name == "maxPages") | [.min, .max, .default, .label]' <<<"$T_JSON")" \
    '[1,100000,100,"Maximum pages"]' "... and each field's bounds, default and label"
is "$(jq -r '.[] | select(.type == "wiki") | [.fields[].name] | join(" ")' <<<"$T_JSON")" \
    "type url repoUrl title description spaceKey spaceId spaceName pageUrls includeSubPages" \
    "... the common fields first, then the type's own"
is "$(jq -r '[.[] | .fields[] | select(.label == null and .name != "repoUrl")] | length' <<<"$T_JSON")" 0 \
    "... each (but the alias repoUrl) with a label"
# A bound the server declares is the bound it enforces.
max=$(jq -r '.[] | select(.type == "website") | .fields[] | select(.name == "maxDepth") | .max' <<<"$T_JSON")
refuse "{\"type\":\"website\",\"url\":\"http://127.0.0.1:9/d/\",\"maxDepth\":$((max + 1))}" "maxDepth"
is "$(post /api/libraries "{\"type\":\"website\",\"url\":\"http://127.0.0.1:9/d/\",\"maxDepth\":$max}")" 202 \
    "... and its declared maximum is taken"
is "$(http GET "$BASE/api/sources/types?x=1" -H "$A")" 400 "an unknown parameter: 400"

done_testing
