#!/usr/bin/env bash
# ctxd-mcp through nginx, spoken with curl: every protocol version, tools/list, both tools
# on a real indexed library (same answer as /api/v2/context), the legacy tool, every error
# path of the transport and of JSON-RPC, and the optional API key authentication.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")
is "$code" 202 "parse requests: 202"
is "$(wait_job /corpora/requests)" finalized "requests indexed"

MCP=$BASE/mcp
# rpc JSON [CURL ARGS...]: POST one body to /mcp as an MCP client does; prints the status.
rpc() {
	local body=$1
	shift
	http POST "$MCP" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' "$@" --data-binary "$body"
}
# jbody FILTER: jq on the last body.
jbody() { http_body | jq -r "$1" 2>/dev/null; }

# ---------------------------------------------------------------- initialize, versions
for v in 2024-11-05 2025-03-26 2025-06-18 2025-11-25; do
	code=$(rpc "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"$v\",\"capabilities\":{},\"clientInfo\":{\"name\":\"curl\",\"version\":\"1\"}}}")
	is "$code" 200 "initialize $v: 200"
	is "$(jbody .result.protocolVersion)" "$v" "initialize $v: negotiated $v"
done
like "$(http_header Content-Type)" '^application/json' "initialize: JSON answer"
is "$(jbody .result.serverInfo.name)" ctxd "server name"
like "$(jbody .result.serverInfo.version)" '^[0-9]+\.[0-9]+' "server version"
is "$(jbody '.result.capabilities.tools | type')" object "tools capability"
like "$(jbody .result.instructions)" 'library, framework, SDK, API or CLI' "instructions"
is "$(http_header Mcp-Session-Id)" "" "no session id: stateless"
is "$(http_header X-Accel-Buffering)" "" "nginx keeps X-Accel-Buffering to itself"
rpc '{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"2030-01-01","capabilities":{}}}' >/dev/null
is "$(jbody .result.protocolVersion)" 2025-11-25 "unknown version: the newest offered"
is "$(jbody .id)" x "string id echoed"

code=$(rpc '{"jsonrpc":"2.0","method":"notifications/initialized"}')
is "$code" 202 "notification: 202"
is "$(http_body)" "" "notification: no body"
code=$(rpc '{"jsonrpc":"2.0","id":5,"result":{}}')
is "$code" 202 "a response: 202"
code=$(rpc '{"jsonrpc":"2.0","id":2,"method":"ping"}' -H 'MCP-Protocol-Version: 2025-06-18')
is "$code" 200 "ping: 200"
is "$(http_body)" '{"jsonrpc":"2.0","id":2,"result":{}}' "ping: empty result"

# ---------------------------------------------------------------- tools
code=$(rpc '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' -H 'MCP-Protocol-Version: 2025-11-25')
is "$code" 200 "tools/list: 200"
is "$(jbody '[.result.tools[].name] | join(",")')" "resolve-library-id,query-docs" "tools listed"
is "$(jbody '[.result.tools[] | select(.name == "query-docs") | .inputSchema.required[]] | join(",")')" \
    "libraryId,query" "query-docs schema"
like "$(jbody '.result.tools[0].description')" 'query-docs' "resolve-library-id description"

code=$(rpc '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"requests","query":"send a POST request"}}}')
is "$code" 200 "resolve-library-id: 200"
text=$(jbody '.result.content[0].text')
like "$text" $'^Available Libraries:\n\n- Title: ' "resolve-library-id: header and first block"
like "$text" $'\n- Context7-compatible library ID: /corpora/requests\n' "resolve-library-id: the id"
like "$text" $'\n- Code Snippets: [0-9]+\n- Source Reputation: (High|Medium|Low|Unknown)' \
    "resolve-library-id: snippets and reputation"
is "$(jbody '.result.isError // false')" false "resolve-library-id: not an error"
rpc '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"zzqqxxnothing","query":"x"}}}' >/dev/null
like "$(jbody '.result.content[0].text')" '^No libraries matched' "resolve-library-id: no match sentence"

q="How do I set a timeout on a request?"
code=$(rpc "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"query-docs\",\"arguments\":{\"libraryId\":\"/corpora/requests\",\"query\":\"$q\"}}}")
is "$code" 200 "query-docs: 200"
jbody '.result.content[0].text' >"$T/mcp.txt"
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$q" >"$T/rest.txt"
echo >>"$T/rest.txt"
like "$(cat "$T/mcp.txt")" '^### ' "query-docs: snippets"
ok "$(cmp -s "$T/mcp.txt" "$T/rest.txt"; echo $?)" "query-docs = /api/v2/context, byte for byte"
rpc "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"query-docs\",\"arguments\":{\"context7CompatibleLibraryID\":\"/corpora/requests\",\"userQuery\":\"$q\"}}}" >/dev/null
jbody '.result.content[0].text' >"$T/alias.txt"
ok "$(cmp -s "$T/alias.txt" "$T/rest.txt"; echo $?)" "query-docs with aliases: same answer"
# a version that is not indexed: a tool error naming the versions that are
rpc "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"query-docs\",\"arguments\":{\"libraryId\":\"/corpora/requests/v2.31.0\",\"query\":\"$q\"}}}" >/dev/null
is "$(jbody '.result.isError')" true "query-docs of a version not indexed: a tool error"
like "$(jbody '.result.content[0].text')" "has no indexed version v2\\.31\\.0.*/corpora/requests \\(the default branch\\)" \
    "... naming the versions that are"
rpc '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"context7CompatibleLibraryID":"/corpora/requests","topic":"timeout","tokens":1500}}}' >/dev/null
like "$(jbody '.result.content[0].text')" '^### ' "get-library-docs (legacy): snippets"
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=timeout" --data-urlencode tokens=1500 >"$T/rest2.txt"
echo >>"$T/rest2.txt"
jbody '.result.content[0].text' >"$T/legacy.txt"
ok "$(cmp -s "$T/legacy.txt" "$T/rest2.txt"; echo $?)" "get-library-docs: topic and tokens as in /api/v2/context"

rpc '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"/nobody/nothing","query":"x"}}}' >/dev/null
is "$(jbody .result.isError)" true "query-docs on an unknown library: isError"
like "$(jbody '.result.content[0].text')" 'does not exist' "... with the reason"
rpc '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"not-an-id","query":"x"}}}' >/dev/null
is "$(jbody .result.isError)" true "query-docs with a malformed id: isError"
long=$(printf '%.0sa' {1..501})
rpc "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"query-docs\",\"arguments\":{\"libraryId\":\"/corpora/requests\",\"query\":\"$long\"}}}" >/dev/null
is "$(jbody .result.isError)" true "query-docs with a 501-character query: isError"
# Lengths in characters, on both faces: 500 Japanese characters (1,500 bytes) are a question.
ja500=$(printf '%.0s日' {1..500})
rpc "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"query-docs\",\"arguments\":{\"libraryId\":\"/corpora/requests\",\"query\":\"$ja500\"}}}" >/dev/null
is "$(jbody '.result.isError // false')" false "query-docs with a 500-character Japanese query: not an error"
like "$(jbody '.result.content[0].text')" 'No documentation in /corpora/requests' "... answered"
code=$(http GET "$BASE/api/v2/context" --get --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$ja500")
is "$code" 200 "/api/v2/context with the same query: 200"
rpc "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"query-docs\",\"arguments\":{\"libraryId\":\"/corpora/requests\",\"query\":\"${ja500}日\"}}}" >/dev/null
is "$(jbody .result.isError)" true "query-docs with a 501-character Japanese query: isError"
like "$(jbody '.result.content[0].text')" "'query' is longer than 500 characters" "... saying why"
code=$(http GET "$BASE/api/v2/context" --get --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=${ja500}日")
is "$code" 400 "/api/v2/context with the same query: 400"

# ---------------------------------------------------------------- JSON-RPC errors
code=$(rpc '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"no-such-tool","arguments":{}}}')
is "$code/$(jbody .error.code)" 200/-32602 "unknown tool: -32602"
code=$(rpc '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"/corpora/requests"}}}')
is "$code/$(jbody .error.code)" 200/-32602 "missing argument: -32602"
code=$(rpc '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":7,"query":"x"}}}')
is "$code/$(jbody .error.code)" 200/-32602 "numeric argument: -32602"
code=$(rpc '{"jsonrpc":"2.0","id":8,"method":"tools/call"}')
is "$code/$(jbody .error.code)" 200/-32602 "tools/call without params: -32602"
code=$(rpc '{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}')
is "$code/$(jbody .error.code)" 200/-32602 "initialize without protocolVersion: -32602"
code=$(rpc '{"jsonrpc":"2.0","id":9,"method":"prompts/list"}')
is "$code/$(jbody .error.code)/$(jbody .id)" 200/-32601/9 "unknown method: -32601"
code=$(rpc '{"jsonrpc":"2.0","id":10,"method":')
is "$code/$(jbody .error.code)/$(jbody .id)" 400/-32700/null "truncated JSON: 400, -32700"
code=$(rpc 'hello')
is "$code/$(jbody .error.code)" 400/-32700 "not JSON: 400, -32700"
code=$(rpc '{"jsonrpc":"1.0","id":11,"method":"ping"}')
is "$code/$(jbody .error.code)/$(jbody .id)" 400/-32600/11 "jsonrpc 1.0: 400, -32600"
code=$(rpc '{"jsonrpc":"2.0","id":12}')
is "$code/$(jbody .error.code)" 400/-32600 "no method: 400, -32600"
code=$(rpc '42')
is "$code/$(jbody .error.code)" 400/-32600 "a number: 400, -32600"

# ---------------------------------------------------------------- batches
batch='[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]'
code=$(rpc "$batch")
is "$code" 200 "batch without a version header (2025-03-26): 200"
is "$(jbody '[.[].id] | join(",")')" "1,2" "batch: one response per request"
code=$(rpc "$batch" -H 'MCP-Protocol-Version: 2025-03-26')
is "$code" 200 "batch under 2025-03-26: 200"
code=$(rpc "$batch" -H 'MCP-Protocol-Version: 2024-11-05')
is "$code" 200 "batch under 2024-11-05: 200"
code=$(rpc "$batch" -H 'MCP-Protocol-Version: 2025-06-18')
is "$code/$(jbody .error.code)" 400/-32600 "batch under 2025-06-18: 400, -32600"
code=$(rpc "$batch" -H 'MCP-Protocol-Version: 2025-11-25')
is "$code/$(jbody .error.code)" 400/-32600 "batch under 2025-11-25: 400, -32600"
code=$(rpc '[{"jsonrpc":"2.0","method":"notifications/initialized"}]')
is "$code" 202 "batch of notifications: 202"
code=$(rpc '[]')
is "$code/$(jbody .error.code)" 400/-32600 "empty batch: 400, -32600"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H 'MCP-Protocol-Version: 1999-01-01')
is "$code" 400 "unsupported MCP-Protocol-Version header: 400"
# Bounded: at most 32 messages, and an answer of at most 1 MiB per request, 4 MiB in all.
calls() {
	jq -cn --argjson n "$1" '[range(1; $n + 1) | {jsonrpc: "2.0", id: ., method: "tools/call",
	    params: {name: "get-library-docs", arguments: {context7CompatibleLibraryID:
	    "/corpora/requests", topic: "timeout", tokens: 100000}}}]'
}
calls 1290 >"$T/batch1290.json"
code=$(http POST "$MCP" -H 'Content-Type: application/json' --data-binary @"$T/batch1290.json")
is "$code/$(jbody .error.code)" 400/-32600 "a batch of 1290 calls ($(wc -c <"$T/batch1290.json") bytes): 400, -32600"
like "$(jbody .error.message)" "at most 32 messages, this one has 1290" "... naming the limit"
calls 32 >"$T/batch32.json"
code=$(http POST "$MCP" -H 'Content-Type: application/json' --data-binary @"$T/batch32.json")
is "$code" 200 "a batch of 32 calls of the largest budget: 200"
# (test-mcp fills the 4 MiB; this corpus's answers fit in it, and the limits must not bite)
is "$(jbody '[.[] | select(.result.content[0].text | startswith("### "))] | length')" 32 \
    "... each answered ($(wc -c <"$T/http.body") bytes)"
# Ids past 64 bits are echoed as sent.
code=$(rpc '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}')
is "$(http_body)" '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}' \
    "an id past 64 bits echoed as sent"
code=$(rpc '[{"jsonrpc":"2.0","id":-18446744073709551617,"method":"ping"}]')
is "$(http_body)" '[{"jsonrpc":"2.0","id":-18446744073709551617,"result":{}}]' \
    "... in a batch too"

# ---------------------------------------------------------------- HTTP
code=$(http GET "$MCP" -H 'Accept: text/event-stream')
is "$code" 405 "GET: 405"
is "$(http_header Allow)" POST "GET: Allow: POST"
is "$(jbody .jsonrpc)" 2.0 "GET: JSON-RPC error body"
code=$(http DELETE "$MCP")
is "$code" 405 "DELETE: 405"
code=$(http PUT "$MCP" -H 'Content-Type: application/json' --data '{}')
is "$code" 405 "PUT: 405"
code=$(http POST "$MCP" -H 'Content-Type: text/plain' --data '{"jsonrpc":"2.0","id":1,"method":"ping"}')
is "$code/$(jbody .error.code)" 415/-32000 "text/plain: 415"
code=$(http POST "$MCP" --data '{"jsonrpc":"2.0","id":1,"method":"ping"}')
is "$code" 415 "form content type (curl default): 415"
code=$(http POST "$MCP" -H 'Content-Type: application/json' -H 'Accept: text/html' --data '{"jsonrpc":"2.0","id":1,"method":"ping"}')
is "$code" 406 "Accept: text/html: 406"
code=$(http POST "$MCP" -H 'Content-Type: application/json' -H 'Accept:' --data '{"jsonrpc":"2.0","id":1,"method":"ping"}')
is "$code" 200 "no Accept header: 200"
head -c 300000 /dev/zero | tr '\0' ' ' >"$T/big.json"
printf '{"jsonrpc":"2.0","id":1,"method":"ping"}' >>"$T/big.json"
code=$(http POST "$MCP" -H 'Content-Type: application/json' --data-binary @"$T/big.json")
is "$code/$(jbody .error.code)" 413/-32000 "a 300 KB body: 413 with a JSON-RPC error"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Origin: http://127.0.0.1:$PORT")
is "$code" 200 "Origin of the server itself: 200"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Origin: http://evil.example")
is "$code/$(jbody .error.code)" 403/-32000 "foreign Origin: 403"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Origin: http://127.0.0.1:1")
is "$code" 403 "same host, other port: 403"
ctxd_admin settings set mcp.allowed_origins "https://ide.example.com, http://evil.example"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Origin: http://evil.example")
is "$code" 200 "Origin listed in mcp.allowed_origins: 200"
ctxd_admin settings unset mcp.allowed_origins

# ---------------------------------------------------------------- authentication
ping='{"jsonrpc":"2.0","id":1,"method":"ping"}'
code=$(rpc "$ping")
is "$code" 200 "auth off: no key needed"
ctxd_admin settings set perm.require_mcp_auth true
KEY=$(ctxd_admin key create mcp-user)
code=$(rpc "$ping")
is "$code" 401 "auth on, no key: 401"
like "$(http_header WWW-Authenticate)" '^Bearer' "401: WWW-Authenticate: Bearer"
is "$(jbody .jsonrpc)/$(jbody .error.code)/$(jbody .id)" "2.0/-32001/null" "401: JSON-RPC error body"
code=$(rpc "$ping" -H "Authorization: Bearer ctxd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
is "$code" 401 "auth on, unknown key: 401"
like "$(http_header WWW-Authenticate)" 'invalid_token' "... invalid_token"
code=$(rpc "$ping" -H "Authorization: Bearer $KEY")
is "$code" 200 "Authorization: Bearer key: 200"
code=$(rpc "$ping" -H "context7-api-key: $KEY")
is "$code" 200 "context7-api-key header: 200"
code=$(rpc "$ping" -H "X-API-Key: $KEY")
is "$code" 200 "x-api-key header: 200"
code=$(rpc "$ping" -H "X-API-Key: Bearer $KEY")
is "$code" 200 "x-api-key header with Bearer: 200"
code=$(rpc "$ping" -H "X-API-Key: ctxd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
is "$code" 401 "wrong x-api-key: 401"
# The route's authorization runs before the handler's transport checks (Origin among them).
code=$(rpc "$ping" -H "Origin: http://evil.example")
is "$code/$(jbody .error.code)" 401/-32001 "auth on, foreign Origin, no key: 401 (authorization first)"
code=$(rpc "$ping" -H "Origin: http://evil.example" -H "Authorization: Bearer $KEY")
is "$code" 403 "auth on, foreign Origin, valid key: 403"
code=$(rpc '{"jsonrpc":"2.0","method":"notifications/initialized"}')
is "$code" 401 "notification without a key: 401"
code=$(http GET "$MCP")
is "$code" 405 "GET stays 405 with auth on"
ctxd_admin settings set perm.require_mcp_auth false
code=$(rpc "$ping")
is "$code" 200 "auth off again: 200"

# ---------------------------------------------------------------- valgrind
# ctxd-mcp in plain CGI mode (one request) under valgrind: no invalid access, no leak.
if command -v valgrind >/dev/null 2>&1 && ! ldd "$top_builddir/ctxd-mcp" | grep -q libasan; then
	VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
	    --errors-for-leak-kinds=definite,indirect)
	for body in \
	    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"/corpora/requests","query":"timeout"}}}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"requests","query":"x"}}}' \
	    '[{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","id":4,"method":"nope"},5]' \
	    '{"jsonrpc":"2.0","id":'; do
		# valgrind 3.19 does not know seccomp(2): the filter stays out (ctxd-mcp(8)).
		printf '%s' "$body" | env REQUEST_METHOD=POST DOCUMENT_URI=/mcp \
		    CONTENT_TYPE=application/json CONTENT_LENGTH=${#body} CTXD_SECCOMP=off \
		    "${VG[@]}" --log-file="$T/log/vg.mcp" "$top_builddir/ctxd-mcp" \
		    >"$T/cgi.out" 2>"$T/cgi.err"
		rc=$?
		is "$rc" 0 "valgrind-clean: ${body:0:70}"
		[ "$rc" -eq 0 ] || diag "$(head -40 "$T/log/vg.mcp")"
	done
	like "$(head -1 "$T/cgi.out")" '^Status: 400' "CGI mode answers too"
else
	skip "valgrind missing or a sanitizer build" 5
fi

done_testing
