#!/usr/bin/env bash
# The API edge: answers that echo input are valid UTF-8
# (REST, MCP, ctxd-web); the Host must be one of the server's names (setting
# server.hostnames) on every responder; duplicate JSON names are refused; nginx's own errors
# are JSON; mcp.allowed_origins holds origins only; tokens follows one rule and malformed
# library ids are 400; an API key works in the x-api-key and context7-api-key headers on
# every route; ctxd-admin answers --help and refuses unknown options.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3 iconv

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
J='Content-Type: application/json'
ADMIN=$(ctxd_admin key create --admin edge-admin)
MEMBER=$(ctxd_admin key create edge-member)
A="Authorization: Bearer $ADMIN"
MCP_ACCEPT='Accept: application/json, text/event-stream'

# utf8: 0 when the last answer's body is valid UTF-8.
utf8() { iconv -f UTF-8 -t UTF-8 "$T/http.body" >/dev/null 2>&1; }
# json_error: the last answer is a JSON {"error": text} (prints the text); else fails.
json_error() { jq -er '.error | strings' "$T/http.body"; }
# rpc BODY [CURL ARGS...]: POST BODY to /mcp; prints the status.
rpc() {
	local body=$1
	shift
	http POST "$BASE/mcp" -H "$J" -H "$MCP_ACCEPT" --data-binary "$body" "$@"
}

# An indexed library for the budget checks.
url=$(gitserver_add_bundle axum public acme)
is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" --data "{\"repoUrl\": \"$url\"}")" 202 \
    "fixture: /acme/axum queued"
"$top_builddir/ctxd-worker" 2>>"$T/log/worker-runs.log"
is "$(_sql "SELECT state FROM libraries WHERE id = '/acme/axum'")" finalized "fixture: indexed"

# --- item 9: echoed input is valid UTF-8 -----------------------------------------------------
is "$(http GET "$BASE/api/v2/context?libraryId=/acme/%FFaxum&query=x")" 400 \
    "REST: a libraryId that is not UTF-8: 400"
like "$(json_error)" "parameter 'libraryId' is not valid UTF-8" "saying so"
is "$(http GET "$BASE/api/v2/context?libraryId=/acme/axum&query=x&x%FF=1")" 400 \
    "REST: an undeclared parameter's name that is not UTF-8: 400"
like "$(json_error)" "a parameter name is not valid UTF-8" "saying so"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum&other=%C0%AF")" 400 \
    "REST: an overlong form in an undeclared parameter: 400"
like "$(json_error)" "parameter 'other' is not valid UTF-8" "naming it"
is "$(http GET "$BASE/api/libraries?st%FEate=x" -H "$A")" 400 "ctxd-web: a bad name: 400"
utf8
ok $? "ctxd-web: the answer is valid UTF-8"
is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" \
    --data-binary $'{"repoUrl": "https://github.com/a/b", "f\xffo": 1}')" 400 \
    "ctxd-web: an unknown JSON field that is not UTF-8: 400"
utf8
ok $? "the error quoting it is valid UTF-8"
like "$(json_error)" "unknown field 'f\\?o'" "the byte is shown as '?'"
is "$(rpc $'{"jsonrpc":"2.0","id":1,"method":"tools/x\xff\xfe"}')" 200 \
    "MCP: a method name that is not UTF-8 is answered"
utf8
ok $? "MCP: the error quoting it is valid UTF-8"
like "$(jq -r .error.message "$T/http.body")" "Method not found: 'tools/x\\?\\?'" "with '?' for the bytes"
is "$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H $'MCP-Protocol-Version: 2025-\xff')" 400 \
    "MCP: a version header that is not UTF-8: 400"
utf8
ok $? "MCP: the error quoting the header is valid UTF-8"

# --- item 10: the server's names ---------------------------------------------------------------
for p in /api/v2/libs/search?libraryName=axum /api/health /api/client-config /api/support-bundle; do
	is "$(http GET "$BASE$p" -H 'Host: rebind.example')" 421 "Host rebind.example on ${p%%\?*}: 421"
done
like "$(json_error)" "does not answer to the Host 'rebind.example'.*server.hostnames" \
    "the error names the Host and the setting"
is "$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Host: rebind.example:$PORT" \
    -H "Origin: http://rebind.example:$PORT")" 421 \
    "/mcp: a DNS-rebinding page (Origin = Host = its own name): 421"
like "$(jq -r .error.message "$T/http.body")" "rebind.example.*server.hostnames" \
    "as a JSON-RPC error naming the Host"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H 'X-Forwarded-Host: localhost, rebind.example')" \
    421 "an X-Forwarded-Host entry that is not a name of the server: 421"
for h in "127.0.0.1:$PORT" "localhost:$PORT" "api.localhost:$PORT" "[::1]:$PORT" "$(hostname)"; do
	is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H "Host: $h")" 200 "Host $h: 200"
done
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H 'X-Forwarded-Host: localhost')" 200 \
    "X-Forwarded-Host localhost: 200"
is "$(ctxd_admin settings set server.hostnames 'docs.example.com, ctxd.internal:8080' 2>&1; echo $?)" 0 \
    "server.hostnames set"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H "Host: docs.example.com:$PORT")" 200 \
    "a listed name without a port: any port"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H "Host: ctxd.internal:$PORT")" 421 \
    "a listed name with another port: 421"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H 'Host: ctxd.internal:8080' \
    -H 'X-Forwarded-Host: docs.example.com')" 200 "behind a proxy: both names listed: 200"
is "$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Host: docs.example.com:$PORT" \
    -H "Origin: https://docs.example.com:$PORT")" 200 "/mcp: Origin of a listed name: 200"
is "$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Origin: http://docs.example.com:$PORT")" 403 \
    "/mcp: Origin of a listed name but another host than the request's: 403"
is "$(ctxd_admin settings set server.hostnames 'bad/name' >/dev/null 2>&1; echo $?)" 1 \
    "server.hostnames refuses a value that is no host[:port]"
ctxd_admin settings unset server.hostnames
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H "Host: docs.example.com:$PORT")" 421 \
    "unset again: 421"

# --- item 13: duplicate JSON names -------------------------------------------------------------
is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" \
    --data '{"repoUrl": "https://github.com/a/one", "repoUrl": "https://github.com/a/two"}')" 400 \
    "/api/parse: repoUrl twice: 400"
like "$(json_error)" "the name 'repoUrl' appears twice" "naming it"
is "$(_sql "SELECT count(*) FROM libraries WHERE id IN ('/a/one', '/a/two')")" 0 "nothing was added"
is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" \
    --data '{"repoUrl": "https://github.com/a/one", "folders": ["x"], "folder\u0073": []}')" 400 \
    "/api/parse: the same name once escaped: 400"
like "$(json_error)" "'folders' appears twice" "naming it"
is "$(http PATCH "$BASE/api/settings" -H "$A" -H "$J" \
    --data '{"mcp.allowed_origins": "*", "mcp.allowed_origins": "https://a.example"}')" 400 \
    "PATCH /api/settings: a setting twice: 400"
is "$(ctxd_admin settings get mcp.allowed_origins)" "" "and nothing was stored"
is "$(rpc '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}')" 400 "/mcp: id twice: 400"
is "$(jq -r '[.error.code, (.id | tostring)] | @tsv' "$T/http.body")" "$(printf -- '-32600\tnull')" \
    "-32600 without an id"
like "$(jq -r .error.message "$T/http.body")" "the name 'id' appears twice" "naming it"
is "$(rpc '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"/acme/axum","query":"routing","libraryId":"/x/y"}}}')" \
    400 "/mcp: a tool argument twice: 400"
like "$(jq -r .error.message "$T/http.body")" "'libraryId' appears twice" "naming it"
is "$(rpc '{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"id":1,"x":{"id":2}}}}')" 200 \
    "/mcp: the same name in different objects is fine"

# --- item 14: nginx's own errors are JSON --------------------------------------------------
# nginx_error STATUS DESC CURL ARGS...: the request gets STATUS with a JSON error body.
nginx_error() {
	local want=$1 desc=$2
	shift 2
	is "$(http GET "$@")" "$want" "$desc: $want"
	like "$(http_header Content-Type)" '^application/json' "$desc: Content-Type application/json"
	ok "$(json_error >/dev/null; echo $?)" "$desc: a JSON {\"error\": ...} body"
}
nginx_error 400 "two Authorization headers" "$BASE/api/v2/libs/search?libraryName=a" \
    -H "$A" -H 'Authorization: Bearer other'
nginx_error 431 "a 100 KB header" "$BASE/api/v2/libs/search?libraryName=a" \
    -H "X-Big: $(head -c 100000 /dev/zero | tr '\0' a)"
nginx_error 414 "a 100,000-character query" \
    "$BASE/api/v2/libs/search?libraryName=$(head -c 100000 /dev/zero | tr '\0' a)"
head -c 2000000 /dev/zero | tr '\0' a >"$T/big.json"
is "$(http POST "$BASE/api/parse" -H "$J" --data-binary @"$T/big.json")" 413 "a 2 MB body: 413"
ok "$(json_error >/dev/null; echo $?)" "a 2 MB body: a JSON error"
is "$(http GET "$BASE/.ctxd-error/400")" 404 "the error pages are not reachable from outside"

# --- item 15: mcp.allowed_origins holds origins ----------------------------------------------
for v in 'javascript:alert(1)' 'https://ok.example, ftp://files.example' 'https://a.example/path' \
    'https://user@a.example' 'http://' 'https://a.example:99999'; do
	is "$(http PATCH "$BASE/api/settings" -H "$A" -H "$J" \
	    --data "$(jq -cn --arg v "$v" '{"mcp.allowed_origins": $v}')")" 400 \
	    "mcp.allowed_origins = '$v': 400"
done
like "$(json_error)" "mcp.allowed_origins: entry 'https://a.example:99999' must be \\* or an origin" \
    "the error names the entry"
is "$(ctxd_admin settings get mcp.allowed_origins)" "" "nothing was stored"
is "$(ctxd_admin settings set mcp.allowed_origins 'javascript:alert(1)' 2>/dev/null; echo $?)" 1 \
    "ctxd-admin refuses it too"
is "$(http PATCH "$BASE/api/settings" -H "$A" -H "$J" \
    --data '{"mcp.allowed_origins": "https://ide.example.com:8443, http://[::1]:3000 *"}')" 200 \
    "origins with ports, an IPv6 one and *: 200"
ctxd_admin settings unset mcp.allowed_origins

# --- item 16: one rule for tokens, malformed ids ---------------------------------------------
ctx() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/acme/axum \
	    --data-urlencode 'query=routing and handlers' --data-urlencode fast=true "$@"
}
is "$(ctx --data-urlencode tokens=1000)" 200 "tokens=1000: 200"
cp "$T/http.body" "$T/min.txt"
for t in 0 -5 500 999; do
	is "$(ctx --data-urlencode "tokens=$t")" 200 "tokens=$t: 200"
	ok "$(cmp -s "$T/http.body" "$T/min.txt"; echo $?)" "tokens=$t: raised to 1000 (the same answer)"
done
is "$(ctx --data-urlencode tokens=100000)" 200 "tokens=100000: 200"
cp "$T/http.body" "$T/max.txt"
is "$(ctx --data-urlencode tokens=99999999999999999999)" 200 "a huge tokens: 200"
ok "$(cmp -s "$T/http.body" "$T/max.txt"; echo $?)" "lowered to 100000 (the same answer)"
for t in abc 1.5 '' 12x; do
	is "$(ctx --data-urlencode "tokens=$t")" 400 "tokens='$t': 400"
done
like "$(json_error)" "parameter 'tokens' must be a whole number" "saying it must be a whole number"
for id in /../../etc/passwd /acme//axum /acme/axum/ /acme/./axum acme/axum /acme $'/acme/ax\x01um'; do
	is "$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$id" \
	    --data-urlencode query=x)" 400 "libraryId '${id//[$'\x01']/^A}': 400"
	like "$(json_error)" "malformed library id" "'${id//[$'\x01']/^A}': malformed library id"
done
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=/acme/axum/v1.2" \
    --data-urlencode query=routing)" 404 "a version segment is well formed: 404, not 400"
like "$(json_error)" "has no indexed version v1.2" "... naming the version that is not indexed"
is "$(rpc '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"/../../etc/passwd","query":"x"}}}')" \
    200 "MCP query-docs with /../../etc/passwd: answered"
is "$(jq -r '.result.isError' "$T/http.body")" true "as a tool error"
like "$(jq -r '.result.content[0].text' "$T/http.body")" "malformed library id" "saying malformed library id"
is "$(rpc '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"context7CompatibleLibraryID":"/a//b","tokens":0}}}')" \
    200 "MCP get-library-docs with /a//b: answered"
like "$(jq -r '.result.content[0].text' "$T/http.body")" "malformed library id" "malformed library id"

# --- item 17: the key headers on every route ---------------------------------------------------
is "$(http GET "$BASE/api/libraries" -H "x-api-key: $ADMIN")" 200 "x-api-key on an admin route: 200"
is "$(http GET "$BASE/api/libraries" -H "context7-api-key: Bearer $ADMIN")" 200 \
    "context7-api-key (with Bearer) on an admin route: 200"
is "$(http GET "$BASE/api/libraries" -H "x-api-key: $MEMBER")" 403 "a member key there: 403"
is "$(http GET "$BASE/api/keys" -H "x-api-key: ctxd_nope")" 401 "an unknown key in x-api-key: 401"
ctxd_admin settings set perm.require_mcp_auth true
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H "x-api-key: $MEMBER")" 200 \
    "x-api-key on /api/v2 with authentication required: 200"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=axum" -H "x-api-key: $ADMIN")" 200 \
    "an operator key is accepted where a key is required"
is "$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "x-api-key: $MEMBER")" 200 "and on /mcp"
ctxd_admin settings set perm.require_mcp_auth false

# --- item 12: ctxd-admin --help and unknown options --------------------------------------------
nkeys() { ctxd_admin key list | tail -n +2 | wc -l; }
before=$(nkeys)
for c in "key create" "key list" "key revoke" "user create" "user disable" "passwd" \
    "settings set" "settings get" "license mint" "license show" "init" "provider test" \
    "explain"; do
	# shellcheck disable=SC2086
	out=$(ctxd_admin $c --help 2>&1)
	is "$?" 0 "ctxd-admin $c --help: exit 0"
	like "$out" "^usage: ctxd-admin ${c%% *}" "ctxd-admin $c --help: its usage"
done
out=$(ctxd_admin key create -h)
is "$?" 0 "key create -h: exit 0"
out=$(ctxd_admin key create --admin --help)
is "$?" 0 "key create --admin --help: exit 0"
is "$(nkeys)" "$before" "no key was created by --help or -h"
out=$(ctxd_admin key create --bogus 2>&1)
is "$?" 2 "key create --bogus: exit 2"
like "$out" "unknown option '--bogus'" "naming the option"
out=$(ctxd_admin key create -x name 2>&1)
is "$?" 2 "key create -x name: exit 2"
is "$(nkeys)" "$before" "no key was created"
ctxd_admin key create -- -ci- >/dev/null
is "$?" 0 "key create -- -ci-: a name beginning with '-' after '--'"
is "$(ctxd_admin key list | awk -F'\t' '$2 == "-ci-"' | wc -l)" 1 "the key is named -ci-"
for c in "user disable -x" "settings get -x" "passwd -x" "license show -x" "init -x" "user create -x"; do
	# shellcheck disable=SC2086
	ctxd_admin $c </dev/null >/dev/null 2>&1
	is "$?" 2 "ctxd-admin $c: exit 2"
done

# --- last: a responder that is not running gives a JSON 502 --------------------------------------
rm -f "$T/run/query.sock"
nginx_error 502 "a responder that is not running" "$BASE/api/v2/libs/search?libraryName=a"

done_testing
