#!/usr/bin/env bash
# Policies cannot be walked around by spelling a library id differently (lib/sources/libid.c, the
# one normal form; lib/sources/policy.c): every variant of /vercel/next.js (a version, an @tag,
# another case) against block rules of the exact id and of wildcards and against allow
# rules, on every entry point that reaches the upstream: GET /api/v2/context,
# GET /api/v2/libs/search, the MCP tools query-docs, get-library-docs and
# resolve-library-id, and POST /api/policies/try. An id with whitespace around it (after
# URL-decoding) is refused with 400 naming the problem. A denied id never reaches the
# upstream; an allowed one reaches it in its normal form (owner and name in lower case).
# Local libraries keep the case of their source and are found in any case.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap cc node

ctxd_setup
gitserver_start
# A local library whose owner and name are not lower case: /Acme/Demo.
dir=$T/gitsrv/public/Acme/Demo.git
mkdir -p "${dir%/*}"
git clone -q --bare "$CORPORA/requests.bundle" "$dir" >"$T/log/bundle.log" 2>&1 &&
    git -C "$dir" update-server-info >>"$T/log/bundle.log" 2>&1 ||
    bail_out "cannot serve /Acme/Demo"
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'
is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" \
    --data "{\"repoUrl\": \"$GITBASE/public/Acme/Demo.git\"}")" 202 "local: parse /Acme/Demo"
is "$(wait_job /Acme/Demo)" finalized "local: /Acme/Demo indexed, with the case of its source"

_spawn "$T/log/upstream.out" node "$top_srcdir/t/standin/upstream.js" "$T/upstream.log" 0
UPORT=$(_standin_port "$T/log/upstream.out" "$_spawned") || bail_out "no upstream stand-in"
ctxd_admin settings set upstream.url "http://127.0.0.1:$UPORT/api" >/dev/null
ctxd_admin settings set upstream.cache_ttl_s 0 >/dev/null	# every answer asked afresh
set_policy() { ctxd_admin settings set "$1" "$2" >/dev/null || fail "set $1 '$2'"; }
: >"$T/upstream.log"

VARIANTS=(/vercel/next.js /vercel/next.js/v15.0.0 /vercel/next.js@canary /Vercel/Next.js
    /VERCEL/next.js /VERCEL/NEXT.JS/v15.0.0)
# What the upstream must be asked for each variant, when it is asked.
NORMAL=(/vercel/next.js /vercel/next.js/v15.0.0 /vercel/next.js/canary /vercel/next.js
    /vercel/next.js /vercel/next.js/v15.0.0)
# Whitespace around the id, URL-encoded as a client would send it.
SPACED=('/vercel/next.js%20' '%20/vercel/next.js' '/vercel/next.js%09' '/vercel/next.js%0A'
    '/vercel/next.js%C2%A0' '%E3%80%80/vercel/next.js' '/vercel/next.js/v15.0.0%20')

ctx() { http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" --data-urlencode query=routing; }
mcp() {
	http POST "$BASE/mcp" -H "$J" -H 'Accept: application/json, text/event-stream' \
	    --data-binary "$1" >/dev/null
	# isError, a tab and the first line of the text
	http_body | jq -r '"\(.result.isError // false)\t\(.result.content[0].text |
	    split("\n")[0])"'
}
docs() {
	mcp "$(jq -cn --arg id "$1" '{jsonrpc: "2.0", id: 1, method: "tools/call", params:
	    {name: "query-docs", arguments: {libraryId: $id, query: "routing"}}}')"
}
legacy() {
	mcp "$(jq -cn --arg id "$1" '{jsonrpc: "2.0", id: 2, method: "tools/call", params:
	    {name: "get-library-docs", arguments: {context7CompatibleLibraryID: $id,
	    topic: "routing"}}}')"
}
resolve() {
	http POST "$BASE/mcp" -H "$J" -H 'Accept: application/json, text/event-stream' \
	    --data-binary '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"next.js","query":"routing"}}}' \
	    >/dev/null
	http_body | jq -r '.result.content[0].text' | sed -n 's/^- Context7-compatible library ID: //p' |
	    sort | paste -sd, -
}
search() {
	http GET "$BASE/api/v2/libs/search?libraryName=next.js" >/dev/null
	http_body | jq -r '[.results[] | select(.origin == "upstream") | .id] | sort | join(",")'
}
try() {
	http POST "$BASE/api/policies/try" -H "$A" -H "$J" --data "$(jq -cn --arg id "$1" \
	    '{libraryId: $id, sourceType: "git"}')" >/dev/null
	http_body | jq -r .allowed
}
asked() { grep -c 'v2/context' "$T/upstream.log" || true; }

# ---------------------------------------------------------------- denied: every variant
# Each rule denies every variant; the upstream is never asked for it.
for rule in "block /vercel/next.js" "block /Vercel/Next.JS" "block /vercel/*" "block /VERCEL/*" \
    "block /*/next.js" "allow /facebook/*"; do
	set_policy policy.block ""
	set_policy policy.allow ""
	set_policy "policy.${rule%% *}" "${rule#* }"
	: >"$T/upstream.log"
	for id in "${VARIANTS[@]}"; do
		is "$(ctx "$id")" 403 "$rule: context $id: 403"
		like "$(http_body | jq -r .error)" "blocked by policy" "$rule: context $id: names the rule"
		like "$(docs "$id")" $'^true\t.*blocked by policy' "$rule: MCP query-docs $id: tool error"
		like "$(legacy "$id")" $'^true\t.*blocked by policy' "$rule: MCP get-library-docs $id: tool error"
		is "$(try "$id")" false "$rule: POST /api/policies/try $id: not allowed"
	done
	is "$(asked)" 0 "$rule: no context asked of the upstream"
	unlike "$(cat "$T/upstream.log")" "libraryName=next" \
	    "$rule: not even the library search that finds its type"
	is "$(search)" /facebook/react "$rule: libs/search: every spelling of next.js left out"
	is "$(resolve)" "$(search)" "$rule: resolve-library-id: the same libraries"
done

# ---------------------------------------------------------------- allowed: the normal form asked
set_policy policy.block ""
set_policy policy.allow "/Vercel/Next.js"
: >"$T/upstream.log"
for i in "${!VARIANTS[@]}"; do
	id=${VARIANTS[$i]}
	is "$(ctx "$id")" 200 "allow /Vercel/Next.js: context $id: 200"
	is "$(head -1 "$T/http.body")" "### upstream context of ${NORMAL[$i]}" \
	    "allow /Vercel/Next.js: context $id: the upstream asked for ${NORMAL[$i]}"
	is "$(docs "$id")" "$(printf 'false\t### upstream context of %s' "${NORMAL[$i]}")" \
	    "allow /Vercel/Next.js: MCP query-docs $id: answered"
	is "$(legacy "$id")" "$(printf 'false\t### upstream context of %s' "${NORMAL[$i]}")" \
	    "allow /Vercel/Next.js: MCP get-library-docs $id: answered"
	is "$(try "$id")" true "allow /Vercel/Next.js: try $id: allowed"
done
grep 'v2/context' "$T/upstream.log" | sed 's/.*libraryId=\([^&]*\).*/\1/; s/%2[Ff]/\//g' |
    sort -u >"$T/asked.ids"
is "$(paste -sd, - <"$T/asked.ids")" /vercel/next.js,/vercel/next.js/canary,/vercel/next.js/v15.0.0 \
    "allow: the upstream asked for the normal forms only (owner and name in lower case)"
# The upstream lists next.js in three cases: one is kept (ids differ by case only).
NEXT=/vercel/next.js,/vercel/next.js/v15.0.0,/vercel/next.js@canary
is "$(search)" "$NEXT" "allow /Vercel/Next.js: libs/search: next.js once, not once per case"
is "$(resolve)" "$NEXT" "allow /Vercel/Next.js: resolve-library-id: the same"
# A block of one version blocks that version, in either spelling, and no other.
set_policy policy.allow ""
set_policy policy.block "/vercel/next.js/v15*"
is "$(ctx /Vercel/Next.js@v15.0.0)" 403 "block of a version: @version in another case: 403"
is "$(ctx /vercel/next.js/v14.0.0)" 200 "block of a version: another version: 200"
is "$(ctx /vercel/next.js)" 200 "block of a version: the library itself: 200"
set_policy policy.block ""

# ---------------------------------------------------------------- whitespace: 400
: >"$T/upstream.log"
for id in "${SPACED[@]}"; do
	is "$(http GET "$BASE/api/v2/context?libraryId=$id&query=x")" 400 "context '$id': 400"
	like "$(http_body | jq -r .error)" \
	    "^parameter 'libraryId' is a malformed library id: it has whitespace at its start or end" \
	    "context '$id': names the problem"
	raw=$(printf '%bX' "${id//%/\\x}")	# X keeps a trailing newline
	raw=${raw%X}
	like "$(docs "$raw")" $'^true\t.*whitespace at its start or end' "MCP query-docs '$id': tool error naming it"
	like "$(legacy "$raw")" $'^true\t.*whitespace at its start or end' "MCP get-library-docs '$id': tool error naming it"
done
is "$(asked)" 0 "whitespace: nothing asked of the upstream"
is "$(http GET "$BASE/api/v2/context?libraryId=/vercel/next%20.js&query=x")" 400 \
    "a blank inside the name: 400"
like "$(http_body | jq -r .error)" "owner or name has a character other than" "... named"

# ---------------------------------------------------------------- local libraries, any case
set_policy policy.block "/acme/*"
: >"$T/upstream.log"
for id in /Acme/Demo /acme/demo /ACME/DEMO /aCmE/dEmO; do
	is "$(ctx "$id")" 200 "local $id: 200 (policies never apply to local libraries)"
	unlike "$(head -1 "$T/http.body")" "upstream context" "local $id: answered locally"
	is "$(docs "$id" | cut -f1)" false "local $id: MCP query-docs answers"
done
is "$(ctx /acme/demo/v9)" 404 "local, a version not indexed: 404"
like "$(http_body | jq -r .error)" "library /Acme/Demo has no indexed version v9" \
    "... naming the stored library"
is "$(ctx /ACME/other)" 403 "another library of the blocked owner, any case: 403"
is "$(asked)" 0 "local and blocked: nothing asked of the upstream"
http GET "$BASE/api/v2/libs/search?libraryName=demo" >/dev/null
is "$(http_body | jq -r '[.results[] | select(.origin == "local") | .id] | join(",")')" /Acme/Demo \
    "libs/search lists the local library with its stored case"

done_testing
