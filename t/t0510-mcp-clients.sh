#!/usr/bin/env bash
# Real clients against ctxd through nginx, from npm (versions pinned in t/e2e/package-lock.json):
# (a) the official MCP TypeScript SDK client over Streamable HTTP at /mcp, with and without
#     required authentication; (b) the unmodified @upstash/context7-mcp server with
#     CONTEXT7_API_URL=$BASE/api, driven over stdio by the SDK client; (c) the unmodified
#     ctx7 CLI with --base-url.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node npm flock

ctxd_setup
E2E=$top_builddir/t/e2e
if ! "$top_srcdir/t/e2e/install.sh" "$E2E" >"$T/log/npm.log" 2>&1; then
	_show_log "$T/log/npm.log"
	bail_out "npm ci of t/e2e failed"
fi
# Node clients write nothing outside the test's folder.
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config
mkdir -p "$HOME"
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")
is "$code" 202 "parse requests: 202"
is "$(wait_job /corpora/requests)" finalized "requests indexed"
Q="How do I set a timeout on a request?"
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$Q" >"$T/rest.txt"
like "$(head -c 4 "$T/rest.txt")" '^### ' "the REST answer has snippets"

# node_json SCRIPT ARGS...: run a client script (60 s at most); its JSON output in $T/out.json.
node_json() {
	local script=$1
	shift
	timeout 60 node "$E2E/$script" "$@" >"$T/out.json" 2>"$T/log/$script.err" || true
	if ! jq -e . "$T/out.json" >/dev/null 2>&1; then
		diag "$script printed no JSON:" "$(head -c 2000 "$T/out.json")"
		_show_log "$T/log/$script.err"
		echo '{}' >"$T/out.json"
	fi
}
j() { jq -r "$1" "$T/out.json"; }

# ------------------------------------------------------------ (a) SDK, Streamable HTTP
node_json sdk-http.mjs "$BASE" requests "$Q"
is "$(j '.error // "none"')" none "SDK client: no error"
is "$(j .server.name)" ctxd "SDK client: connected to ctxd"
is "$(j .protocolVersion)" 2025-11-25 "SDK client: negotiated 2025-11-25"
like "$(j .instructions)" 'resolve-library-id' "SDK client: server instructions"
is "$(j '.tools | join(",")')" "resolve-library-id,query-docs" "SDK client: tools listed"
like "$(j .resolve)" $'^Available Libraries:\n\n- Title: .*\n- Context7-compatible library ID: /corpora/requests\n' \
    "SDK client: resolve-library-id finds /corpora/requests"
is "$(j .resolveIsError)" false "SDK client: resolve-library-id not an error"
j .docs >"$T/docs.txt"
truncate -s -1 "$T/docs.txt"
ok "$(cmp -s "$T/docs.txt" "$T/rest.txt"; echo $?)" "SDK client: query-docs = /api/v2/context"
is "$(j .docsIsError)" false "SDK client: query-docs not an error"
is "$(j .missingIsError)" true "SDK client: unknown library is a tool error"
is "$(j .unknownTool)" -32602 "SDK client: unknown tool -32602"
is "$(j .ping)" true "SDK client: ping"

ctxd_admin settings set perm.require_mcp_auth true
KEY=$(ctxd_admin key create e2e-user)
node_json sdk-http.mjs "$BASE" requests "$Q"
is "$(j .code)" 401 "SDK client, auth required, no key: refused with 401"
like "$(j '.error // "none"')" 'API key is missing' "SDK client, no key: the JSON-RPC error says why"
is "$(j '.tools // "none"')" none "SDK client, no key: no tools"
node_json sdk-http.mjs "$BASE" requests "$Q" ctxd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
is "$(j .code)" 401 "SDK client, wrong key: refused with 401"
node_json sdk-http.mjs "$BASE" requests "$Q" "$KEY"
is "$(j '.error // "none"')" none "SDK client with its key: no error"
is "$(j '.tools | join(",")')" "resolve-library-id,query-docs" "SDK client with its key: tools"
j .docs >"$T/docs.txt"
truncate -s -1 "$T/docs.txt"
ok "$(cmp -s "$T/docs.txt" "$T/rest.txt"; echo $?)" "SDK client with its key: query-docs"
ctxd_admin settings set perm.require_mcp_auth false

# ------------------------------------------------------------ (b) context7-mcp over stdio
node_json context7-stdio.mjs "$BASE" requests "$Q"
is "$(j '.error // "none"')" none "context7-mcp: no error"
like "$(j '.tools | join(",")')" 'resolve-library-id' "context7-mcp: its tools"
like "$(j .resolve)" 'Context7-compatible library ID: /corpora/requests' \
    "context7-mcp: resolve-library-id finds the ctxd library"
j .docs >"$T/docs.txt"
truncate -s -1 "$T/docs.txt"
ok "$(cmp -s "$T/docs.txt" "$T/rest.txt"; echo $?)" "context7-mcp: query-docs returns ctxd's context"

# ------------------------------------------------------------ (c) ctx7 CLI
CTX7=$E2E/node_modules/ctx7/dist/index.js
timeout 60 node "$CTX7" --base-url "$BASE" library requests "$Q" >"$T/ctx7-lib.txt" 2>&1
ok $? "ctx7 library: exit 0"
like "$(cat "$T/ctx7-lib.txt")" '/corpora/requests' "ctx7 library: lists /corpora/requests"
timeout 60 node "$CTX7" --base-url "$BASE" docs /corpora/requests "$Q" >"$T/ctx7-docs.txt" 2>&1
ok $? "ctx7 docs: exit 0"
first=$(sed -n '1{s/^### //;p;}' "$T/rest.txt")
like "$(cat "$T/ctx7-docs.txt")" "$(printf '%s' "$first" | sed 's/[][\\.*^$(){}?+|/]/\\&/g')" \
    "ctx7 docs: prints ctxd's first snippet"
if [ "$_tap_failed" -gt 0 ]; then
	diag "ctx7 library:" "$(head -c 1500 "$T/ctx7-lib.txt")"
	diag "ctx7 docs:" "$(head -c 1500 "$T/ctx7-docs.txt")"
fi

done_testing
