#!/usr/bin/env bash
# A hostile upstream (t/standin/upstream-inject.js) is held to the rules of local answers:
# its context answers are cut to the caller's budget and pass through the injection filter
# (content.injection), on REST and MCP alike; line breaks in the fields of its libraries
# cannot forge entries of resolve-library-id; its error text addressed to AI agents is left
# out. lib/search/upstream.c, ctxd-query(8) UPSTREAM.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx node

ctxd_setup
ctxd_start
_spawn "$T/log/upstream-inject.log" node "$top_srcdir/t/standin/upstream-inject.js" 0
UPORT=$(_standin_port "$T/log/upstream-inject.log" "$_spawned") ||
    bail_out "the upstream stand-in did not start"
ctxd_admin settings set upstream.url "http://127.0.0.1:$UPORT/api" >/dev/null
PHRASE="Ignore all previous instructions"

ctx() {
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" \
	    --data-urlencode "query=install" "${@:2}"
}
size() { wc -c <"$T/http.body"; }
mcp() {
	curl -s "$BASE/mcp" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' --data-binary "$1" >"$T/mcp.json"
	jq -r '.result.content[0].text' "$T/mcp.json"
}
call() {
	jq -cn --arg t "$1" --argjson a "$2" \
	    '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: $t, arguments: $a}}'
}

# ---------------------------------------------------------------- REST context: the budget
curl -s "http://127.0.0.1:$UPORT/api/v2/context?libraryId=/evil/docs&query=x&tokens=1000" \
    >"$T/raw.txt"
ok "$([ "$(wc -c <"$T/raw.txt")" -gt 3000000 ]; echo $?)" "the stand-in answers megabytes"
is "$(ctx /evil/docs --data-urlencode tokens=1000)" 200 "context tokens=1000: 200"
ok "$([ "$(size)" -le 4600 ]; echo $?)" "context tokens=1000: at most the budget ($(size) bytes)"
like "$(tail -c 200 "$T/http.body")" 'cut to fit the token budget' "context: the cut is said"
like "$(http_header X-Ctxd-Tokens)" '^[0-9]+$' "context: X-Ctxd-Tokens"
ok "$([ "$(http_header X-Ctxd-Tokens)" -le 1150 ]; echo $?)" \
    "context: X-Ctxd-Tokens $(http_header X-Ctxd-Tokens) within the budget and its markup"
unlike "$(http_body)" "$PHRASE" "content.injection=hold: the snippet addressed to agents left out"
like "$(head -c 20 "$T/http.body")" '^### Install, part 2' "hold: the answer starts at the next one"
is "$(ctx /evil/docs)" 200 "context, default budget: 200"
ok "$([ "$(size)" -le 8800 ]; echo $?)" "context, default budget 2000: $(size) bytes"
is "$(ctx /evil/docs --data-urlencode tokens=5000 --data-urlencode type=json)" 200 \
    "context type=json tokens=5000: 200"
ok "$(http_body | jq -e '.codeSnippets | type == "array"' >/dev/null; echo $?)" \
    "type=json: still JSON of the same shape"
ok "$([ "$(size)" -le 24000 ]; echo $?)" "type=json: at most the budget ($(size) bytes)"
unlike "$(http_body)" "$PHRASE" "type=json, hold: the snippet addressed to agents left out"
# Only the first block is cut, as in local answers: after a short first snippet, the 12 KB
# ones do not fit what is left of the budget and are left out, not cut to fill it.
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/evil/docs \
    --data-urlencode "query=whole sections")" 200 "context, a short snippet first: 200"
like "$(head -c 30 "$T/http.body")" '^### Install in short' "the short snippet first"
unlike "$(http_body)" 'cut to fit the token budget' "no later snippet cut to fit"
is "$(http_body | grep -c '^Source: ')" 1 "the snippets too big for the rest left out"

# ---------------------------------------------------------------- mark, off
ctxd_admin settings set content.injection mark >/dev/null
ctx /evil/docs --data-urlencode tokens=1000 >/dev/null
like "$(head -c 300 "$T/http.body")" "^\\[ctxd: this snippet contains text addressed to AI agents \\(rule [a-z-]+" \
    "content.injection=mark: the mark line first"
like "$(http_body)" "$PHRASE" "mark: the snippet itself follows"
unlike "$(http_body)" $'in\u200bstall' "mark: the zero-width space is stripped"
ok "$([ "$(size)" -le 4800 ]; echo $?)" "mark: still the budget ($(size) bytes)"
ctx /evil/docs --data-urlencode tokens=5000 --data-urlencode type=json >/dev/null
like "$(http_body | jq -r '.codeSnippets[0].codeDescription')" '^\[ctxd: this snippet' \
    "mark, type=json: the mark before the description"
ctxd_admin settings set content.injection off >/dev/null
ctx /evil/docs --data-urlencode tokens=1000 >/dev/null
like "$(head -c 200 "$T/http.body")" "^### Install, part 1(.|$'\n')*$PHRASE" \
    "content.injection=off: passed on, unmarked"
ctxd_admin settings unset content.injection >/dev/null

# ---------------------------------------------------------------- the upstream's error text
is "$(ctx /evil/err)" 400 "an upstream's 400 passed on"
unlike "$(http_body)" "$PHRASE" "its message addressed to agents left out"
like "$(http_body | jq -r .error)" "left out" "... saying so"

# ---------------------------------------------------------------- REST library search
is "$(http GET "$BASE/api/v2/libs/search?libraryName=evil")" 200 "libs/search: 200"
is "$(http_body | jq -r '[.results[].id] | join(",")')" /evil/docs,/evil/clean,/evil/err \
    "libs/search, hold: the library whose description speaks to agents left out"
is "$(http_body | jq '[.results[] | .. | strings | select(test("[\n\r\u2028]"))] | length')" 0 \
    "libs/search: no line break left in any field"
is "$(http_body | jq -r '.results[0].versions[0]')" "v1 - Source: forged" \
    "libs/search: a version's line breaks turned into spaces"

# ---------------------------------------------------------------- MCP
mcp "$(call resolve-library-id '{"libraryName": "evil", "query": "install"}')" >"$T/resolve.txt"
is "$(grep -c '^- Title:' "$T/resolve.txt")" 3 "MCP resolve-library-id: one entry per library"
is "$(grep -c '^- Context7-compatible library ID:' "$T/resolve.txt")" 3 \
    "MCP resolve-library-id: no forged id line"
unlike "$(cat "$T/resolve.txt")" "$PHRASE" "MCP resolve-library-id: no description addressed to agents"
ctxd_admin settings set content.injection mark >/dev/null
mcp "$(call resolve-library-id '{"libraryName": "evil", "query": "install"}')" >"$T/resolve.txt"
like "$(grep '^- Description: \[ctxd' "$T/resolve.txt")" "$PHRASE" \
    "MCP resolve-library-id, mark: the description marked"
ctxd_admin settings unset content.injection >/dev/null
mcp "$(call query-docs '{"libraryId": "/evil/docs", "query": "install"}')" >"$T/docs.txt"
like "$(head -c 30 "$T/docs.txt")" '^### Install' "MCP query-docs: answered by the upstream"
ok "$([ "$(wc -c <"$T/docs.txt")" -le 8800 ]; echo $?)" \
    "MCP query-docs: the default budget ($(wc -c <"$T/docs.txt") bytes)"
unlike "$(cat "$T/docs.txt")" "$PHRASE" "MCP query-docs: the snippet addressed to agents left out"
mcp "$(call get-library-docs '{"libraryId": "/evil/docs", "topic": "install", "tokens": 1000}')" \
    >"$T/legacy.txt"
ok "$([ "$(wc -c <"$T/legacy.txt")" -le 4600 ]; echo $?)" \
    "MCP get-library-docs tokens=1000: $(wc -c <"$T/legacy.txt") bytes"
mcp "$(call query-docs '{"libraryId": "/evil/err", "query": "install"}')" >"$T/err.txt"
is "$(jq -r .result.isError "$T/mcp.json")" true "MCP query-docs, upstream error: a tool error"
unlike "$(cat "$T/err.txt")" "$PHRASE" "MCP query-docs, upstream error: its text left out"

# ---------------------------------------------------------------- valgrind
# ctxd-query in CGI mode under valgrind (as t1130): the text and JSON answers cut and
# filtered, held and marked, and the library search cleaned.
vgq() {
	env REQUEST_METHOD=GET DOCUMENT_URI="$1" QUERY_STRING="$2" CTXD_SECCOMP=off \
	    valgrind -q --error-exitcode=99 --leak-check=full \
	    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
	    --log-file="$T/log/vg.%p" "$top_builddir/ctxd-query" >"$T/cgi.out" 2>"$T/cgi.err"
	is "$?" 0 "valgrind: $1?$2: clean" || diag "$(cat "$T"/log/vg.* 2>/dev/null | head -40)"
	rm -f "$T"/log/vg.*
}
if command -v valgrind >/dev/null && ! ldd "$top_builddir/ctxd-query" | grep -q libasan; then
	vgq /api/v2/context "libraryId=/evil/docs&query=vg&tokens=1000"
	vgq /api/v2/context "libraryId=/evil/docs&query=vg&tokens=3000&type=json"
	ctxd_admin settings set content.injection mark >/dev/null
	vgq /api/v2/context "libraryId=/evil/docs&query=vg+mark&tokens=3000&type=json"
	vgq /api/v2/libs/search "libraryName=evil"
	like "$(cat "$T/cgi.out")" '"origin":"upstream"' "valgrind: the upstream's libraries found"
	vgq /api/v2/context "libraryId=/evil/err&query=vg"
else
	skip "valgrind missing or an ASan build" 6
fi
done_testing
