#!/usr/bin/env bash
# ctxd-mcp through nginx, spoken with curl, under MCP 2026-07-28 beside the legacy revisions
# (dual-era /mcp): how a request is recognised, server/discover, _meta checks, the
# Mcp-Method and Mcp-Name header checks (Base64 form included), resultType, caching hints,
# removed methods, and authentication the same in both eras.
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
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"}}'
# rpc JSON [CURL ARGS...]: POST one body to /mcp; prints the status.
rpc() {
	local body=$1
	shift
	http POST "$MCP" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' "$@" --data-binary "$body"
}
# rpc26 METHOD PARAMS-MEMBERS [CURL ARGS...]: a 2026-07-28 request (id 7) with the standard
# headers; PARAMS-MEMBERS are the members of params besides _meta ("" for none). The
# headers' values are $MH (Mcp-Method) and $PV (MCP-Protocol-Version) when set.
rpc26() {
	local method=$1 members=$2
	shift 2
	rpc "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"$method\",\"params\":{${members:+$members,}$META}}" \
	    -H "MCP-Protocol-Version: ${PV:-2026-07-28}" -H "Mcp-Method: ${MH:-$method}" "$@"
}
jbody() { http_body | jq -r "$1" 2>/dev/null; }

# ---------------------------------------------------------------- server/discover
code=$(rpc26 server/discover "")
is "$code" 200 "server/discover: 200"
is "$(jbody '.result.supportedVersions | join(",")')" \
    "2026-07-28,2025-11-25,2025-06-18,2025-03-26,2024-11-05" "discover: every version served"
is "$(jbody '.result.capabilities.tools | type')" object "discover: tools capability"
is "$(jbody '.result.capabilities | keys | join(",")')" tools "discover: tools only"
is "$(jbody .result.resultType)" complete "discover: resultType complete"
is "$(jbody '.result._meta["io.modelcontextprotocol/serverInfo"].name')" ctxd "discover: serverInfo in _meta"
like "$(jbody '.result._meta["io.modelcontextprotocol/serverInfo"].version')" '^[0-9]+\.[0-9]+' \
    "discover: server version"
is "$(jbody .result.ttlMs)/$(jbody .result.cacheScope)" 3600000/public "discover: caching hints"
like "$(jbody .result.instructions)" 'resolve-library-id' "discover: instructions"
is "$(jbody .id)" 7 "discover: id echoed"
is "$(http_header Mcp-Session-Id)" "" "no session id"
# clientInfo is optional.
code=$(rpc '{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover')
is "$code/$(jbody .result.resultType)" 200/complete "discover without clientInfo: 200"

# ---------------------------------------------------------------- tools
code=$(rpc26 tools/list "")
is "$code" 200 "tools/list: 200"
is "$(jbody '[.result.tools[].name] | join(",")')" "resolve-library-id,query-docs" "tools/list: the tools"
is "$(jbody .result.resultType)/$(jbody .result.ttlMs)/$(jbody .result.cacheScope)" \
    complete/3600000/public "tools/list: resultType and caching hints"
is "$(jbody '.result._meta["io.modelcontextprotocol/serverInfo"].name')" ctxd "tools/list: serverInfo"

Q="How do I set a timeout on a request?"
code=$(rpc26 tools/call "\"name\":\"query-docs\",\"arguments\":{\"libraryId\":\"/corpora/requests\",\"query\":\"$Q\"}" \
    -H 'Mcp-Name: query-docs')
is "$code" 200 "tools/call query-docs: 200"
jbody '.result.content[0].text' >"$T/mcp.txt"
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$Q" >"$T/rest.txt"
echo >>"$T/rest.txt"
ok "$(cmp -s "$T/mcp.txt" "$T/rest.txt"; echo $?)" "query-docs under 2026-07-28 = /api/v2/context"
is "$(jbody .result.resultType)" complete "tools/call: resultType"
is "$(jbody '.result.ttlMs // "none"')" none "tools/call: no caching hints"
code=$(rpc26 tools/call '"name":"resolve-library-id","arguments":{"libraryName":"requests","query":"x"}' \
    -H 'Mcp-Name:   resolve-library-id  ')
is "$code/$(jbody '.result.isError // false')" 200/false "Mcp-Name with blanks around it: accepted"
# The name in Base64 (=?base64?...?=), as clients send names that are not plain ASCII.
b64=$(printf '%s' resolve-library-id | base64 -w0)
code=$(rpc26 tools/call '"name":"resolve-library-id","arguments":{"libraryName":"requests","query":"x"}' \
    -H "Mcp-Name: =?base64?$b64?=")
is "$code/$(jbody '.result.isError // false')" 200/false "Mcp-Name in Base64: accepted"
# A missing argument is a tool error the model can correct, not a protocol error.
code=$(rpc26 tools/call '"name":"resolve-library-id","arguments":{}' -H 'Mcp-Name: resolve-library-id')
is "$code/$(jbody .result.isError)" 200/true "missing argument: a tool error"
like "$(jbody '.result.content[0].text')" 'libraryName' "... naming the argument"
code=$(rpc26 tools/call '"name":"nope","arguments":{}' -H 'Mcp-Name: nope')
is "$code/$(jbody .error.code)/$(jbody .id)" 200/-32602/7 "unknown tool: -32602"

# ---------------------------------------------------------------- header checks (-32020)
hm() { is "$code/$(jbody .error.code)/$(jbody .id)" 400/-32020/7 "$1"; }
code=$(MH=prompts/list rpc26 tools/list "")
hm "Mcp-Method not the body's method: 400, -32020"
code=$(rpc '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{'"$META"'}}' -H 'MCP-Protocol-Version: 2026-07-28')
hm "no Mcp-Method: 400, -32020"
like "$(jbody .error.message)" 'Mcp-Method' "... the message names the header"
code=$(MH=TOOLS/LIST rpc26 tools/list "")
hm "Mcp-Method differs in case: 400, -32020"
code=$(rpc '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{'"$META"'}}' \
    -H 'mcp-protocol-version: 2026-07-28' -H 'MCP-METHOD: tools/list')
is "$code" 200 "header names in any case: 200"
code=$(rpc26 tools/call '"name":"query-docs","arguments":{}' -H 'Mcp-Name: resolve-library-id')
hm "Mcp-Name not params.name: 400, -32020"
code=$(rpc26 tools/call '"name":"query-docs","arguments":{}')
hm "no Mcp-Name on tools/call: 400, -32020"
code=$(rpc26 tools/call '"arguments":{}' -H 'Mcp-Name: query-docs')
hm "Mcp-Name without params.name: 400, -32020"
code=$(rpc26 tools/call '"name":"query-docs","arguments":{}' -H 'Mcp-Name: =?base64?cXVlcnktZG9jcw?=')
hm "Mcp-Name with bad Base64 padding: 400, -32020"
code=$(rpc26 tools/call '"name":"query-docs","arguments":{}' -H 'Mcp-Name: =?base64?cXVl!!!ZG9jcw==?=')
hm "Mcp-Name with characters outside Base64: 400, -32020"
code=$(rpc '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{'"$META"'}}' -H 'Mcp-Method: tools/list')
hm "_meta of 2026-07-28 without the MCP-Protocol-Version header: 400, -32020"
code=$(PV=2025-11-25 rpc26 tools/list "")
hm "MCP-Protocol-Version header not the _meta version: 400, -32020"

# ---------------------------------------------------------------- _meta (-32602), versions (-32022)
code=$(rpc '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list')
is "$code/$(jbody .error.code)/$(jbody .id)" 400/-32602/7 "2026-07-28 header, no _meta: 400, -32602"
code=$(rpc '{"jsonrpc":"2.0","id":7,"method":"tools/list"}' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list')
is "$code/$(jbody .error.code)" 400/-32602 "no params at all: 400, -32602"
code=$(rpc '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list')
is "$code/$(jbody .error.code)" 400/-32602 "no clientCapabilities: 400, -32602"
like "$(jbody .error.message)" 'clientCapabilities' "... named"
code=$(rpc '{"jsonrpc":"2.0","id":"v","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    -H 'MCP-Protocol-Version: 2099-01-01' -H 'Mcp-Method: tools/list')
is "$code/$(jbody .error.code)/$(jbody .id)" 400/-32022/v "unknown version: 400, -32022, id echoed"
is "$(jbody .error.data.requested)" 2099-01-01 "... data.requested"
is "$(jbody '.error.data.supported | join(",")')" \
    "2026-07-28,2025-11-25,2025-06-18,2025-03-26,2024-11-05" "... data.supported"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H 'MCP-Protocol-Version: 1999-01-01')
is "$code/$(jbody .error.code)" 400/-32022 "legacy-shaped request with an unknown version header: 400, -32022"

# ---------------------------------------------------------------- methods (404, -32601)
for m in initialize ping logging/setLevel resources/subscribe prompts/list nope/nothing; do
	code=$(rpc26 "$m" "")
	is "$code/$(jbody .error.code)/$(jbody .id)" 404/-32601/7 "2026-07-28 $m: 404, -32601"
done
code=$(rpc "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$META}}]" \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list')
is "$code/$(jbody .error.code)" 400/-32600 "a batch under 2026-07-28: 400, -32600"
code=$(rpc "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{$META}}" \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: notifications/cancelled')
is "$code" 202 "a notification: 202"

# ---------------------------------------------------------------- legacy unchanged
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}')
is "$code/$(jbody .result.protocolVersion)" 200/2025-11-25 "legacy initialize: 200, 2025-11-25"
is "$(jbody '.result.resultType // "none"')" none "legacy result: no resultType"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{}}}' \
    -H 'MCP-Protocol-Version: 2026-07-28')
is "$code/$(jbody .result.protocolVersion)" 200/2025-11-25 "initialize (no _meta) asking for 2026-07-28: the newest legacy version"
code=$(rpc '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' -H 'MCP-Protocol-Version: 2025-11-25')
is "$code/$(jbody '.result.ttlMs // "none"')" 200/none "legacy tools/list: 200, no caching hints"
code=$(rpc '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{}}}' \
    -H 'MCP-Protocol-Version: 2025-11-25')
is "$code/$(jbody .error.code)" 200/-32602 "legacy missing argument: still -32602"
code=$(rpc '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}' \
    -H 'MCP-Protocol-Version: 2025-11-25')
is "$code/$(jbody .result | jq -c . 2>/dev/null)" "200/{}" "a legacy version in _meta: served as legacy"

# ---------------------------------------------------------------- authentication, both eras
ctxd_admin settings set perm.require_mcp_auth true
KEY=$(ctxd_admin key create mcp-user)
code=$(rpc26 tools/list "")
is "$code" 401 "auth on, 2026-07-28 without a key: 401"
like "$(http_header WWW-Authenticate)" '^Bearer' "... WWW-Authenticate: Bearer"
is "$(jbody .error.code)" -32001 "... the same JSON-RPC error as legacy"
code=$(rpc '{"jsonrpc":"2.0","id":1,"method":"ping"}')
is "$code" 401 "auth on, legacy without a key: 401"
for h in "Authorization: Bearer $KEY" "X-API-Key: $KEY" "context7-api-key: $KEY"; do
	code=$(rpc26 tools/list "" -H "$h")
	is "$code" 200 "auth on, 2026-07-28 with ${h%%:*}: 200"
done
ctxd_admin settings set perm.require_mcp_auth false

# ---------------------------------------------------------------- valgrind
# ctxd-mcp in plain CGI mode (one request) under valgrind: 2026-07-28 requests answered and
# refused, no invalid access, no leak.
if command -v valgrind >/dev/null 2>&1 && ! ldd "$top_builddir/ctxd-mcp" | grep -q libasan; then
	VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
	    --errors-for-leak-kinds=definite,indirect)
	b64=$(printf '%s' query-docs | base64 -w0)
	# method|Mcp-Name|version in _meta|status
	for c in "server/discover||2026-07-28|200" "tools/list||2026-07-28|200" \
	    "tools/call|=?base64?$b64?=|2026-07-28|200" "tools/call|other|2026-07-28|400" \
	    "tools/list||2099-01-01|400" "ping||2026-07-28|404"; do
		IFS='|' read -r m name ver want <<<"$c"
		members=""
		[ "$m" = tools/call ] && members='"name":"query-docs","arguments":{"libraryId":"/corpora/requests","query":"timeout"},'
		body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$m\",\"params\":{$members\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"$ver\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}"
		# valgrind 3.19 does not know seccomp(2): the filter stays out (ctxd-mcp(8)).
		printf '%s' "$body" | env REQUEST_METHOD=POST DOCUMENT_URI=/mcp \
		    CONTENT_TYPE=application/json CONTENT_LENGTH=${#body} CTXD_SECCOMP=off \
		    HTTP_MCP_PROTOCOL_VERSION="$ver" HTTP_MCP_METHOD="$m" ${name:+HTTP_MCP_NAME="$name"} \
		    "${VG[@]}" --log-file="$T/log/vg.mcp" "$top_builddir/ctxd-mcp" \
		    >"$T/cgi.out" 2>"$T/cgi.err"
		rc=$?
		is "$rc/$(head -1 "$T/cgi.out" | tr -d '\r' | cut -c9-11)" "0/$want" \
		    "valgrind-clean: $m ${name:+(Mcp-Name $name) }$ver: $want"
		[ "$rc" -eq 0 ] || diag "$(head -40 "$T/log/vg.mcp")"
	done
else
	skip "valgrind missing or a sanitizer build" 6
fi

done_testing
