#!/usr/bin/env bash
# The OpenAPI source: specs served by the fixtures' nginx are
# indexed by URL (Swagger 2.0 and OpenAPI 3.0 in JSON and YAML, the multi-file
# petstore-separate whose $refs name files next to it, a 3.1 webhook-only spec, Twilio's
# Messaging YAML and 1.9 MB 2010 JSON) and by upload (JSON and YAML); /api/v2/context
# answers with the right operation, its Source the spec URL#operationId. A 404 spec, a
# file that is not a spec and a redirect to the cloud metadata address fail their jobs
# saying why.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl

ctxd_setup
fixture_site openapi "$FIXTURES/openapi" \
    'location = /meta.json { return 302 http://169.254.169.254/latest/meta-data; }'
fixtures_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
EX=learn-openapis/examples

# add URL: POST /api/libraries for the spec at URL (a path under the fixtures' site);
# prints the library id.
add() {
	http POST "$BASE/api/libraries" -H "$A" -H 'Content-Type: application/json' \
	    --data "{\"type\":\"openapi\",\"url\":\"$FIX_OPENAPI/$1\"}" >/dev/null
	http_body | jq -r .libraryId
}

# ask ID QUERY: the text answer of /api/v2/context into $T/answer.txt.
ask() {
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" \
	    --data-urlencode "query=$2" >/dev/null
	http_body >"$T/answer.txt"
}

# first_source: the first Source line of the last answer.
first_source() {
	grep -m1 '^Source: ' "$T/answer.txt" | sed 's/^Source: //'
}

# job_message ID: the state and message of the library's last job.
job_message() {
	_sql "SELECT state || ': ' || coalesce(message, '') FROM jobs WHERE library_id = '$1' ORDER BY id DESC LIMIT 1"
}

# --- by URL: a representative set ------------------------------------------------------------
# limits.max_file_kb bounds repository files only: the 1.9 MB spec is within sources.max_spec_kb
ctxd_admin settings set limits.max_file_kb 100 >/dev/null
P20=$(add $EX/v2.0/json/petstore.json)
P30=$(add $EX/v3.0/petstore.yaml)
SEP=$(add $EX/v2.0/yaml/petstore-separate/spec/swagger.yaml)
HOOK=$(add $EX/v3.1/webhook-example.json)
MSG=$(add twilio/spec/yaml/twilio_messaging_v1.yaml)
TW=$(add twilio/spec/json/twilio_api_v2010.json)
for id in "$P20" "$P30" "$SEP" "$HOOK" "$MSG" "$TW"; do
	is "$(wait_job "$id")" finalized "$id indexed"
done

ask "$P20" "list all pets"
is "$(first_source)" "$FIX_OPENAPI/$EX/v2.0/json/petstore.json#listPets" \
    "2.0 JSON: the operation listPets comes first, its Source the spec URL#operationId"
grep -qF "### GET /pets — List all pets" "$T/answer.txt"
ok $? "... titled METHOD path — summary"
grep -qF -- "- \`limit\` (query): integer(int32) — How many items to return at one time (max 100)" "$T/answer.txt"
ok $? "... with its parameter: name, in, type and description"
grep -qF "curl -X GET 'http://petstore.swagger.io/v1/pets'" "$T/answer.txt"
ok $? "... and a curl example on scheme://host/basePath"

ask "$P30" "info for a specific pet by id"
is "$(first_source)" "$FIX_OPENAPI/$EX/v3.0/petstore.yaml#showPetById" "3.0 YAML: showPetById"
grep -qF -- "- \`200\`: Expected response to a valid request — Pet { id: integer(int64) (required), name: string (required), tag: string }" "$T/answer.txt"
ok $? "... its response with the compact schema of the \$ref'd Pet"
grep -qF "curl -X GET 'http://petstore.swagger.io/v1/pets/<petId>'" "$T/answer.txt"
ok $? "... curl on the first server, the path parameter a placeholder"

# petstore-separate: every $ref names a file next to the spec or in ../common
ask "$SEP" "creates a new pet in the store"
is "$(first_source)" "$FIX_OPENAPI/$EX/v2.0/yaml/petstore-separate/spec/swagger.yaml#addPet" \
    "multi-file 2.0: addPet"
grep -qF "Request body (application/json, required): NewPet Pet { id: integer(int64) (required), name: string (required), tag: string } & { description: integer(int64) }" "$T/answer.txt"
ok $? "... its body schema from NewPet.yaml, itself refs Pet.yaml"
grep -qF "Error { code: integer(int32) (required), message: string (required) }" "$T/answer.txt"
ok $? "... its error schema from ../common/Error.yaml"
# a task-worded question: "remove" is none of the spec's words, but the verbs of DELETE
ask "$SEP" "remove a pet from the store"
is "$(first_source)" "$FIX_OPENAPI/$EX/v2.0/yaml/petstore-separate/spec/swagger.yaml#deletePet" \
    "\"remove a pet\" finds DELETE /pets/{id} by its Keywords line"
grep -qF "Keywords: delete remove destroy pet pets id." "$T/answer.txt"
ok $? "... which spells out the method's verbs, the operationId and the path in words"
for f in spec/Pet.yaml spec/NewPet.yaml spec/parameters.yaml common/Error.yaml; do
	is "$(fixtures_requests openapi | grep -c " /$EX/v2.0/yaml/petstore-separate/$f 200 ")" 1 \
	    "... $f fetched once"
done

# the same library again: a conditional GET with the stored validators, 304, kept as is
fixtures_requests_reset
http POST "$BASE/api/libraries" -H "$A" -H 'Content-Type: application/json' \
    --data "{\"type\":\"openapi\",\"url\":\"$FIX_OPENAPI/$EX/v3.0/petstore.yaml\"}" >/dev/null
wait_jobid "$(http_body | jq -r .jobId)"
ok $? "re-indexing the 3.0 YAML spec: the job is done"
like "$(fixtures_requests openapi)" "^[0-9]+ GET /$EX/v3.0/petstore.yaml 304 \"[^\"]*\" \"\\\\?\"?[^\"]+\"" \
    "... its GET carries If-None-Match and answers 304"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE library_id = '$P30')")" \
    "petstore.yaml: not modified \\(HTTP 304\\)" "... the job log says not modified"
ask "$P30" "info for a specific pet by id"
is "$(first_source)" "$FIX_OPENAPI/$EX/v3.0/petstore.yaml#showPetById" "... and the snippets stay"

ask "$HOOK" "new pet webhook"
is "$(first_source)" "$FIX_OPENAPI/$EX/v3.1/webhook-example.json#webhook-post-newPet" \
    "3.1 webhooks: the webhook newPet"
grep -qF "Request body (application/json): Pet { id: integer(int64) (required)" "$T/answer.txt"
ok $? "... with its payload's schema"

ask "$MSG" "POST Services CreateService"
like "$(first_source)" "^$FIX_OPENAPI/twilio/spec/yaml/twilio_messaging_v1.yaml#CreateService$" \
    "Twilio Messaging YAML: CreateService"
grep -qF "curl -X POST 'https://messaging.twilio.com/v1/Services'" "$T/answer.txt"
ok $? "... curl on its server"
grep -qF -- "--data-urlencode 'FriendlyName=string'" "$T/answer.txt"
ok $? "... its form body's required field"

ask "$TW" "send a message"
is "$(first_source)" "$FIX_OPENAPI/twilio/spec/json/twilio_api_v2010.json#CreateMessage" \
    "Twilio 2010 JSON (1.9 MB): CreateMessage"
like "$(_sql "SELECT total_snippets FROM libraries WHERE id = '$TW'")" '^(19[89]|2[0-9][0-9])$' \
    "... one snippet per operation (197) and the overview"

# --- by upload: JSON and YAML ---------------------------------------------------------------------
while read -r f q anchor; do
	http POST "$BASE/api/parse-openapi-upload" -H "$A" \
	    -F "openapiFile=@$FIXTURES/openapi/$f" -F "projectTitle=Up $(basename "$f")" >/dev/null
	id=$(http_body | jq -r .libraryId)
	is "$(wait_job "$id")" finalized "upload $(basename "$f") indexed"
	ask "$id" "${q//_/ }"
	is "$(first_source)" "upload:$(basename "$f")#$anchor" \
	    "... the operation comes back, its Source upload:<file name>#operationId"
done <<EOF
$EX/v3.0/petstore.json info_for_a_specific_pet showPetById
$EX/v3.0/petstore-expanded.yaml deletes_a_single_pet_based_on_the_ID_supplied deletePet
EOF

# an upload has no neighbours: its $refs to other files are a warning, shown as names
http POST "$BASE/api/parse-openapi-upload" -H "$A" -F "projectTitle=Separate" \
    -F "openapiFile=@$FIXTURES/openapi/$EX/v2.0/yaml/petstore-separate/spec/swagger.yaml" >/dev/null
id=$(http_body | jq -r .libraryId)
is "$(wait_job "$id")" finalized "an upload whose \$refs name other files is indexed"
like "$(_sql "SELECT group_concat(level || ' ' || line, ' | ') FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE library_id = '$id')")" \
    'warning 10 \$refs do not resolve \(the first: [^)]+\); they are shown as names' \
    "... with a warning counting the unresolved \$refs"
ask "$id" "creates a new pet in the store"
grep -qF "Request body (application/json, required): → NewPet — Pet to add to the store" "$T/answer.txt"
ok $? "... which are shown as names"

# --- errors ------------------------------------------------------------------------------------
id=$(add $EX/v3.0/no-such-spec.json)
is "$(wait_job "$id")" error "a 404 spec fails"
is "$(job_message "$id")" "failed: could not fetch $FIX_OPENAPI/$EX/v3.0/no-such-spec.json: HTTP 404 Not Found" \
    "... naming the URL and the status"
id=$(add $EX/v2.0/json/petstore-separate/spec/Pet.json)
is "$(wait_job "$id")" error "a JSON file that is not a spec fails"
is "$(job_message "$id")" "failed: $FIX_OPENAPI/$EX/v2.0/json/petstore-separate/spec/Pet.json: not an OpenAPI document: it has no openapi or swagger key" \
    "... saying so"
id=$(add README.md)
is "$(wait_job "$id")" error "a Markdown file fails"
like "$(job_message "$id")" "^failed: $FIX_OPENAPI/README.md: not (JSON or YAML|an OpenAPI document)" \
    "... saying it is not a spec"
id=$(add meta.json)
is "$(wait_job "$id")" error "a redirect to 169.254.169.254 fails"
is "$(job_message "$id")" "failed: could not fetch $FIX_OPENAPI/meta.json: address 169.254.169.254 of host 169.254.169.254 is not allowed by fetch.allowed_networks" \
    "... refused by the address policy"

ctxd_admin settings set sources.max_spec_kb 2 >/dev/null
id=$(add $EX/v3.0/petstore-expanded.json)
is "$(wait_job "$id")" error "a spec over sources.max_spec_kb fails"
is "$(job_message "$id")" "failed: could not fetch $FIX_OPENAPI/$EX/v3.0/petstore-expanded.json: the answer is larger than 2048 bytes" \
    "... saying it is too large"
ctxd_admin settings set sources.max_spec_kb 16384 >/dev/null

done_testing
