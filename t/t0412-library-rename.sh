#!/usr/bin/env bash
# PATCH /api/libraries/OWNER/REPO: an admin changes a library's title and description, which
# change what it shows (the library's page, libs/search) but not how it is indexed: no job
# is queued and the index stays as it is. Bad input is refused naming the problem and
# changes nothing; a library the GitOps manifest manages is changed there (409).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
MEMBER=$(ctxd_admin key create members-key)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

requests=$(gitserver_add_bundle requests public acme)
http POST "$BASE/api/parse" -H "$A" -H "$J" --data "{\"repoUrl\": \"$requests\"}" >/dev/null
is "$(wait_job /acme/requests)" finalized "requests indexed"
jobs() { _sql "SELECT count(*) FROM jobs WHERE library_id = '/acme/requests'"; }
state() { _sql "SELECT title || '|' || description || '|' || index_version || '|' ||
    indexed_commit FROM libraries WHERE id = '/acme/requests'"; }
jobs0=$(jobs)
state0=$(state)

patch() { http PATCH "$BASE/api/libraries/acme/requests" -H "${2:-$A}" -H "$J" --data "$1"; }

is "$(patch '{"title": "Requests (HTTP for Humans)", "description": "Python HTTP client"}')" \
    200 "an admin changes the title and the description"
is "$(http_body | jq -r '.title + "|" + .description')" \
    "Requests (HTTP for Humans)|Python HTTP client" "the answer is the library as stored"
is "$(jobs)" "$jobs0" "no job is queued"
is "$(_sql "SELECT index_version || '|' || indexed_commit FROM libraries
    WHERE id = '/acme/requests'")" "$(cut -d'|' -f3,4 <<<"$state0")" \
    "the index is the one it was"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=requests" -H "$A")" 200 "libs/search"
is "$(http_body | jq -r '.results[] | select(.id == "/acme/requests") | .title')" \
    "Requests (HTTP for Humans)" "libs/search shows the new title"
is "$(patch '{"description": "HTTP for Humans"}')" 200 "the description alone"
is "$(http_body | jq -r '.title + "|" + .description')" \
    "Requests (HTTP for Humans)|HTTP for Humans" "... the title is kept"

state1=$(state)
refused() {	# refused CODE BODY MESSAGE-PATTERN WHAT [AUTH]
	is "$(patch "$2" "${5:-$A}")" "$1" "$4: $1"
	like "$(http_body | jq -r .error)" "$3" "... naming the problem"
}
refused 400 '{"branch": "dev"}' "unknown field 'branch'.*POST /api/libraries" \
    "a source setting is not changed here"
refused 400 '{}' "nothing to change" "an empty body"
refused 400 '{"title": ""}' "title" "an empty title"
refused 400 "{\"title\": \"$(printf 'x%.0s' $(seq 201))\"}" "title" "a title over 200 characters"
refused 400 '{"title": 7}' "title" "a title that is not a string"
refused 400 'not json' "JSON" "a body that is not JSON"
refused 403 '{"title": "mine"}' "admin" "a member's key" "Authorization: Bearer $MEMBER"
is "$(http PATCH "$BASE/api/libraries/acme/none" -H "$A" -H "$J" \
    --data '{"title": "x"}')" 404 "a library that does not exist: 404"
like "$(http_body | jq -r .error)" "/acme/none does not exist" "... naming it"
_sql "UPDATE libraries SET gitops = 1 WHERE id = '/acme/requests'"
refused 409 '{"title": "by hand"}' "GitOps manifest" "a library the GitOps manifest manages"
_sql "UPDATE libraries SET gitops = 0 WHERE id = '/acme/requests'"
is "$(state)" "$state1" "nothing refused changed the library"
is "$(jobs)" "$jobs0" "... nor queued a job"

done_testing
