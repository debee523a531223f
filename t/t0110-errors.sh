#!/usr/bin/env bash
# Every error status of /api/v2/context, /api/v2/libs/search and /api/parse, each with a JSON
# {"error": ...} naming the problem, and a bad request changes nothing.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq sqlite3

ctxd_setup
# The responders must not start a worker here: libraries stay "initial".
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
MEMBER=$(ctxd_admin key create reader)

# expect STATUS ERE DESC -- CURL ARGS...: the status, a JSON content type and an error body.
expect() {
	local want=$1 ere=$2 desc=$3 code
	shift 4
	code=$(http "$@")
	is "$code" "$want" "$desc: $want"
	like "$(http_header Content-Type)" '^application/json' "$desc: JSON"
	like "$(http_body | jq -r .error 2>/dev/null)" "$ere" "$desc: error says why"
}
long=$(printf '%.0sa' {1..501})
ctx=$BASE/api/v2/context
expect 400 "missing required parameter 'libraryId'" "context without libraryId" -- GET "$ctx?query=x"
expect 400 "missing required parameter 'query'" "context without query" -- GET "$ctx?libraryId=/a/b"
expect 400 "'query' must not be empty" "context with an empty query" -- GET "$ctx?libraryId=/a/b&query="
expect 400 "'libraryId' must not be empty" "context with an empty libraryId" -- GET "$ctx?libraryId=&query=x"
expect 400 "'query' is longer than 500" "context with a 501-character query" -- GET "$ctx?libraryId=/a/b&query=$long"
expect 400 "'libraryId' is longer than 500" "context with a 501-character libraryId" -- GET "$ctx?libraryId=/$long&query=x"
expect 400 "must look like /owner/repo" "context with a malformed libraryId" -- GET "$ctx?libraryId=abc&query=x"
expect 400 "'type' must be 'txt' or 'json'" "context with type=xml" -- GET "$ctx?libraryId=/a/b&query=x&type=xml"
expect 400 "'tokens' must be a whole number" "context with tokens=lots" -- GET "$ctx?libraryId=/a/b&query=x&tokens=lots"
expect 400 "'fast' must be 'true' or 'false'" "context with fast=maybe" -- GET "$ctx?libraryId=/a/b&query=x&fast=maybe"
expect 400 "malformed query string" "context with a bad escape" -- GET "$ctx?libraryId=/a/b&query=%zz"
expect 404 "library /nobody/nothing does not exist" "context for an unknown library" -- GET "$ctx?libraryId=/nobody/nothing&query=x"
expect 405 "accepts only GET" "POST to context" -- POST "$ctx?libraryId=/a/b&query=x"
expect 400 "missing required parameter 'libraryName'" "libs/search without libraryName" -- GET "$BASE/api/v2/libs/search"
expect 400 "'libraryName' is longer than 500" "libs/search with a long name" -- GET "$BASE/api/v2/libs/search?libraryName=$long"
expect 404 "no such endpoint" "unknown /api/v2 path" -- GET "$BASE/api/v2/nothing"
q500=$(printf '%.0sa' {1..500})
is "$(http GET "$ctx?libraryId=/nobody/nothing&query=$q500")" 404 "a 500-character query is within bounds"
# Lengths are counted in characters: 500 Japanese characters (1,500 bytes) are within bounds.
ja500=$(printf '%.0s日' {1..500})
is "$(http GET "$ctx" --get --data-urlencode libraryId=/nobody/nothing --data-urlencode "query=$ja500")" 404 \
    "a 500-character Japanese query is within bounds"
expect 400 "'query' is longer than 500 characters" "context with a 501-character Japanese query" -- \
    GET "$ctx" --get --data-urlencode libraryId=/a/b --data-urlencode "query=${ja500}日"
# Owner and name of a library id are ASCII (ctxd-query(8), LIBRARY IDS): a Japanese one is
# within the length bound but malformed, and the message says why without echoing it.
expect 400 "malformed library id: its owner or name has a character other than ASCII" \
    "context with a 500-character Japanese libraryId" -- \
    GET "$ctx" --get --data-urlencode "libraryId=/a/${ja500:3}" --data-urlencode query=x
expect 404 "^library /a/a+ does not exist" "context with a 500-character libraryId: 404" -- \
    GET "$ctx" --get --data-urlencode "libraryId=/a/$(printf '%.0sa' {1..497})" --data-urlencode query=x

# /api/parse
P=$BASE/api/parse
J='Content-Type: application/json'
AUTH="Authorization: Bearer $ADMIN"
expect 401 "missing" "parse without a key" -- POST "$P" -H "$J" --data '{"repoUrl":"https://github.com/a/b"}'
is "$(http_header WWW-Authenticate)" Bearer "401 carries WWW-Authenticate: Bearer"
expect 401 "invalid" "parse with an unknown key" -- POST "$P" -H "$J" -H "Authorization: Bearer ctxd_nope" --data '{"repoUrl":"https://github.com/a/b"}'
expect 401 "invalid" "parse with a non-bearer credential" -- POST "$P" -H "$J" -H "Authorization: Basic Zm9vOmJhcg==" --data '{"repoUrl":"https://github.com/a/b"}'
ctxd_admin key revoke "$(ctxd_admin key list | awk -F'\t' '$2 == "reader" { print $1 }')" >/dev/null
expect 401 "invalid" "parse with a revoked key" -- POST "$P" -H "$J" -H "Authorization: Bearer $MEMBER" --data '{"repoUrl":"https://github.com/a/b"}'
expect 415 "Content-Type must be application/json" "parse with form data" -- POST "$P" -H "$AUTH" --data 'repoUrl=x'
expect 400 "not valid JSON" "parse with bad JSON" -- POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl": '
expect 400 "missing required field 'repoUrl'" "parse without repoUrl" -- POST "$P" -H "$AUTH" -H "$J" --data '{}'
expect 400 "'repoUrl' is not a URL" "parse with a non-URL" -- POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl":"hello"}'
expect 400 "field 'repoUrl' must be a string" "parse with a numeric repoUrl" -- POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl":5}'
expect 400 "field 'folders' must be a list of strings" "parse with folders as a string" -- POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl":"https://github.com/a/b","folders":"docs"}'
expect 400 "must not carry credentials" "parse with credentials in the URL" -- POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl":"https://u:p@github.com/a/b"}'
head -c 70000 /dev/zero | tr '\0' ' ' >"$T/big.json"
expect 413 "larger than 65536 bytes" "parse with a 70 KB body" -- POST "$P" -H "$AUTH" -H "$J" --data-binary "@$T/big.json"
expect 405 "accepts only POST" "GET /api/parse" -- GET "$P"
is "$(_sql 'SELECT count(*) FROM libraries') $(_sql 'SELECT count(*) FROM jobs')" "0 0" \
    "bad requests changed nothing"

# A good parse; the library is pending until its first index: 202 with an error body.
code=$(http POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl":"http://git.one.example/acme/docs.git"}')
is "$code" 202 "parse accepted"
is "$(http_body | jq -r .libraryId)" /acme/docs "library id from the URL"
expect 202 "being indexed for the first time" "context while the first index runs" -- GET "$ctx?libraryId=/acme/docs&query=x"
# The same /owner/repo on another host is a clash, not an overwrite.
expect 409 "already exists for http://git.one.example/acme/docs" "same id on another host" -- POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl":"https://git.two.example/acme/docs"}'
is "$(_sql "SELECT url FROM libraries WHERE id = '/acme/docs'")" http://git.one.example/acme/docs \
    "the first library is untouched"
# The same repository again: the queued job is reused.
http POST "$P" -H "$AUTH" -H "$J" --data '{"repoUrl":"http://git.one.example/acme/docs/"}' >/dev/null
is "$(_sql "SELECT count(*) FROM jobs WHERE library_id = '/acme/docs'")" 1 "a second parse reuses the queued job"

# Anonymous parse when the setting allows it.
ctxd_admin settings set perm.anonymous_parse true
is "$(http POST "$P" -H "$J" --data '{"repoUrl":"https://github.com/open/thing"}')" 202 \
    "anonymous parse allowed by the setting"

# An internal error answers 500 with JSON, and the responder keeps serving.
# (PostgreSQL keeps the foreign keys to snippets: the drop takes them along.)
_sql "UPDATE libraries SET indexed_commit = 'abc' WHERE id = '/acme/docs';
    DROP TABLE snippets$([ "$(ctxd_test_engine)" = postgres ] && echo ' CASCADE');"
expect 500 "could not be built" "context when the database is broken" -- GET "$ctx?libraryId=/acme/docs&query=anything"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=docs")" 200 "the responder keeps serving"
is "$(http_body | jq -r '.results[0].id')" /acme/docs "and answers correctly"

done_testing
