#!/usr/bin/env bash
# The token budget bounds the answer, even when one section is huge: a repository holding a
# 2 MB paragraph and a 2 MB code block is indexed; /api/v2/context (text and JSON) and the
# MCP tools answer within the budget (bytes / 4, as lib/base/tokenize.c counts tokens) plus the
# documented per-snippet margin (heading, Source line, separator), with the cut snippet
# keeping its heading and Source line and ending with the cut note.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
LIB=/test/budget

test_repo test/budget
mkdir -p "$work/docs"
# words N: N bytes of prose, words of the vocabulary below, one paragraph (no newline).
words() {
	yes 'zorblax frobnicate the widget and its quux cache' | tr '\n' ' ' | head -c "$1"
}
{
	printf '# Huge guide\n\n## Zorblax everything\n\n'
	words 2000000
	printf '\n'
} >"$work/docs/huge.md"
{
	printf '# Code dump\n\n## Zorblax table\n\nThe zorblax table, generated:\n\n```c\n'
	awk 'BEGIN { for (i = 0; i < 40000; i++) printf "int zorblax_%06d = frobnicate(%d);\n", i, i }'
	printf '```\n'
} >"$work/docs/code.md"
cat >"$work/docs/small.md" <<'EOF'
# Small guide

## Configure zorblax

Set the zorblax cache size before you frobnicate the widget.
EOF
commit docs
ok "$([ "$(stat -c %s "$work/docs/huge.md")" -gt 2000000 ]; echo $?)" "docs/huge.md holds a 2 MB paragraph"

code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/test/budget.git\"}")
is "$code" 202 "parse queued"
"$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
is "$(_sql "SELECT state FROM libraries WHERE id = '$LIB'")" finalized "indexed"
diag "largest snippet: $(_sql "SELECT max(length(text) + length(code)) FROM snippets WHERE library_id = '$LIB'") bytes"

# check_bound LABEL FILE BUDGET: the answer in FILE is at most BUDGET tokens (bytes / 4) plus
# 80 tokens (the heading, Source line and separator, a 200-byte URL) per snippet.
check_bound() {
	local label=$1 file=$2 budget=$3 bytes n max
	bytes=$(wc -c <"$file")
	n=$(grep -c '^Source: ' "$file")
	max=$((4 * (budget + 80 * n)))
	ok "$([ "$n" -ge 1 ] && [ "$bytes" -le "$max" ]; echo $?)" \
	    "$label: $bytes bytes, $n snippets, within $budget tokens + margin ($max bytes)"
}
q='zorblax frobnicate widget'

# REST, text, tokens=1000.
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=$LIB --data-urlencode "query=$q" \
    --data-urlencode tokens=1000 -o "$T/rest.txt" -w '%{http_code}' >"$T/code"
is "$(cat "$T/code")" 200 "context tokens=1000: 200"
check_bound "context tokens=1000" "$T/rest.txt" 1000
ok "$(grep -q '^… (cut to fit the token budget)$' "$T/rest.txt"; echo $?)" "a cut snippet ends with the cut note line"
ok "$(grep -q '^### Zorblax everything$' "$T/rest.txt" || grep -q '^### Zorblax table$' "$T/rest.txt"; echo $?)" \
    "a huge section keeps its heading"
ok "$(grep -q "^Source: .*docs/\(huge\|code\)\.md#zorblax" "$T/rest.txt"; echo $?)" "and its Source line"

# A 1.5 MB code block is cut at a line end, inside balanced fences.
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=$LIB \
    --data-urlencode "query=zorblax table generated" --data-urlencode tokens=1000 -o "$T/code.txt"
check_bound "context for the code block" "$T/code.txt" 1000
ok "$(grep -q '^### Zorblax table$' "$T/code.txt"; echo $?)" "the code section is answered"
fences=$(grep -c '^```' "$T/code.txt")
ok "$([ "$fences" -ge 2 ] && [ $((fences % 2)) -eq 0 ]; echo $?)" "its fences are balanced ($fences)"
last=$(awk '/^```c$/ { inblk = 1; next } /^```$/ { inblk = 0 } inblk { l = $0 } END { print l }' "$T/code.txt")
like "$last" '^int zorblax_[0-9]{6} = frobnicate\([0-9]+\);$' "the code ends with a whole line"

# REST, JSON: the strings together stay within the budget.
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=$LIB --data-urlencode "query=$q" \
    --data-urlencode tokens=1000 --data-urlencode type=json -o "$T/rest.json"
chars=$(jq '[(.codeSnippets[] | (.codeTitle, .codeDescription, (.codeList[].code))),
    (.infoSnippets[] | (.content, .breadcrumb))] | map(length) | add // 0' "$T/rest.json")
n=$(jq '(.codeSnippets | length) + (.infoSnippets | length)' "$T/rest.json")
ok "$([ "$n" -ge 1 ] && [ "$chars" -le $((4 * (1000 + 80 * n))) ]; echo $?)" \
    "context JSON tokens=1000: $chars characters of text in $n snippets"

# The largest budget cuts the 2 MB paragraph too.
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=$LIB --data-urlencode "query=$q" \
    --data-urlencode tokens=100000 -o "$T/rest-max.txt"
check_bound "context tokens=100000" "$T/rest-max.txt" 100000

# MCP: query-docs (the default budget, 2000 tokens) and the legacy tool with tokens=1000.
mcp() {
	curl -s "$BASE/mcp" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' --data-binary "$1" |
	    jq -r '.result.content[0].text'
}
mcp "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"query-docs\",\"arguments\":{\"libraryId\":\"$LIB\",\"query\":\"$q\"}}}" >"$T/mcp.txt"
check_bound "MCP query-docs" "$T/mcp.txt" 2000
ok "$(grep -q '^… (cut to fit the token budget)$' "$T/mcp.txt"; echo $?)" "MCP: the cut note"
mcp "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"get-library-docs\",\"arguments\":{\"context7CompatibleLibraryID\":\"$LIB\",\"topic\":\"$q\",\"tokens\":1000}}}" >"$T/mcp-legacy.txt"
check_bound "MCP get-library-docs tokens=1000" "$T/mcp-legacy.txt" 1000

# A question only the small section answers is not cut.
curl -s -G "$BASE/api/v2/context" --data-urlencode libraryId=$LIB \
    --data-urlencode "query=configure zorblax cache size" -o "$T/small.txt"
ok "$(grep -q 'Set the zorblax cache size before you frobnicate the widget.' "$T/small.txt"; echo $?)" \
    "the small section is answered whole"

done_testing
