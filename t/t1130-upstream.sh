#!/usr/bin/env bash
# An upstream of public libraries (lib/search/upstream.c): two real instances on the
# loopback, "up" being the upstream of the test's own instance. Library search merges and
# marks, context proxied (text and JSON), the upstream's 401 and a key that fixes it, the
# caller's key not forwarded, the upstream down, the MCP tools, ctxd-admin upstream test.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap cc

ctxd_setup
gitserver_start
ctxd_second_start up
UPADMIN=$(DATA_DIR=$SECOND_DATA_DIR DATABASE_URL=$SECOND_DATABASE_URL ctxd_admin key create --admin tests)
for lib in requests axum; do
	url=$(gitserver_add_bundle "$lib" public)
	[ "$lib" = axum ] && axum_url=$url
	is "$(http POST "$SECOND_BASE/api/parse" -H "Authorization: Bearer $UPADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 \
	    "upstream: parse $lib"
	is "$(DATA_DIR=$SECOND_DATA_DIR DATABASE_URL=$SECOND_DATABASE_URL wait_job "/corpora/$lib")" finalized "upstream: $lib indexed"
done
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$axum_url\"}")" 202 "local: parse axum"
is "$(wait_job /corpora/axum)" finalized "local: axum indexed"

search() { http GET "$BASE/api/v2/libs/search?libraryName=$1"; }
Q="How do I set a timeout on a request?"
ctx() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
	    --data-urlencode "query=$Q" "$@"
}

# ---------------------------------------------------------------- no upstream: nothing leaves
is "$(search requests)" 200 "no upstream: search answers"
is "$(http_body | jq '.results | length')" 0 "no upstream: no upstream library"
is "$(ctx)" 404 "no upstream: a library held only upstream is unknown"
ctxd_admin upstream test >"$T/test.out" 2>&1
like "$(cat "$T/test.out")" "no upstream is set" "upstream test: says none is set"

# ---------------------------------------------------------------- upstream set
ctxd_admin settings set upstream.url "$SECOND_BASE/api" >/dev/null
ok "$(ctxd_admin upstream test >"$T/test.out" 2>&1; echo $?)" "upstream test: succeeds"
like "$(cat "$T/test.out")" "answers: a library search gave [0-9]+ result" \
    "upstream test: says what it answered"
is "$(http POST "$BASE/api/upstream/test" -H "Authorization: Bearer $ADMIN")" 200 \
    "POST /api/upstream/test: 200"
is "$(http_body | jq -r '[.ok, .configured] | @tsv')" "true	true" "POST /api/upstream/test: ok"
like "$(http_body | jq -r .message)" "answers: a library search gave" \
    "POST /api/upstream/test: the outcome in words"
is "$(search requests)" 200 "search requests: 200"
is "$(http_body | jq -r '[.results[] | .id + " " + .origin] | join(",")')" \
    "/corpora/requests upstream" "search requests: the upstream's library, marked upstream"
is "$(http_body | jq -r '.results[0].source')" Upstream \
    "search requests: a chained ctxd's Local (Private) source is called Upstream"
is "$(search axum)" 200 "search axum: 200"
is "$(http_body | jq -r '[.results[] | .id + " " + .origin] | join(",")')" \
    "/corpora/axum local" "search axum: the local library wins, no duplicate"

curl -s -G "$SECOND_BASE/api/v2/context" --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$Q" >"$T/direct.txt"
is "$(ctx)" 200 "context through the upstream: 200"
like "$(head -c 4 "$T/http.body")" '^### ' "context through the upstream: snippets"
ok "$(cmp -s "$T/http.body" "$T/direct.txt"; echo $?)" "context: the upstream's answer, unchanged"
is "$(ctx --data-urlencode type=json)" 200 "context type=json: 200"
ok "$(http_body | jq -e 'type == "array" or type == "object"' >/dev/null; echo $?)" \
    "context type=json: JSON passed through"
is "$(http GET "$BASE/api/v2/context?libraryId=/nobody/nothing&query=x")" 404 \
    "a library known nowhere: 404"

# ---------------------------------------------------------------- valgrind
# ctxd-query in CGI mode under valgrind (as t0140): the merge, the proxied context (a cache
# miss, then a hit), a denied and an unknown library.
vgq() {
	env REQUEST_METHOD=GET DOCUMENT_URI="$1" QUERY_STRING="$2" CTXD_SECCOMP=off \
	    valgrind -q --error-exitcode=99 --leak-check=full \
	    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
	    --log-file="$T/log/vg.%p" "$top_builddir/ctxd-query" >"$T/cgi.out" 2>"$T/cgi.err"
	is "$?" 0 "valgrind: $1?$2: clean" || diag "$(cat "$T"/log/vg.* 2>/dev/null | head -40)"
	rm -f "$T"/log/vg.*
}
if command -v valgrind >/dev/null && ! ldd "$top_builddir/ctxd-query" | grep -q libasan; then
	vgq /api/v2/libs/search libraryName=requests
	like "$(cat "$T/cgi.out")" '"origin":"upstream"' "valgrind: the upstream's library found"
	vgq /api/v2/context "libraryId=/corpora/requests&query=valgrind+miss&tokens=2000"
	like "$(head -1 "$T/cgi.out")" '^Status: 200' "valgrind: proxied context 200"
	vgq /api/v2/context "libraryId=/corpora/requests&query=valgrind+miss&tokens=2000"
	vgq /api/v2/context "libraryId=/nobody/nothing&query=x&type=json"
else
	skip "valgrind missing or an ASan build" 6
fi

# ---------------------------------------------------------------- MCP tools
mcp() {
	curl -s "$BASE/mcp" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' --data-binary "$1" |
	    jq -r '.result.content[0].text'
}
like "$(mcp '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"requests","query":"timeouts"}}}')" \
    $'Context7-compatible library ID: /corpora/requests\n(.|\n)*- Origin: upstream' \
    "MCP resolve-library-id: the upstream's library, with its origin line"
mcp "$(jq -cn --arg q "$Q" '{jsonrpc: "2.0", id: 2, method: "tools/call", params: {name:
    "query-docs", arguments: {libraryId: "/corpora/requests", query: $q}}}')" >"$T/mcp.txt"
like "$(head -c 4 "$T/mcp.txt")" '^### ' "MCP query-docs: answered by the upstream"

# ---------------------------------------------------------------- the unmodified context7-mcp
# @upstash/context7-mcp pointed at this instance resolves and queries a library that lives
# only upstream (node and npm as in t0510; skipped without them).
if command -v node >/dev/null && command -v npm >/dev/null &&
    E2E=$top_builddir/t/e2e && "$top_srcdir/t/e2e/install.sh" "$E2E" >"$T/log/npm.log" 2>&1; then
	mkdir -p "$T/home"
	HOME=$T/home XDG_CONFIG_HOME=$T/home/.config timeout 60 node \
	    "$E2E/context7-stdio.mjs" "$BASE" requests "$Q" >"$T/c7.json" 2>"$T/log/c7.err" || true
	is "$(jq -r '.error // "none"' "$T/c7.json" 2>&1)" none "context7-mcp: no error"
	like "$(jq -r .resolve "$T/c7.json")" \
	    $'Context7-compatible library ID: /corpora/requests\n(.|\n)*- Source: Upstream' \
	    "context7-mcp: resolve-library-id finds the upstream's library, marked"
	jq -r .docs "$T/c7.json" >"$T/c7.txt"
	truncate -s -1 "$T/c7.txt"
	ok "$(cmp -s "$T/c7.txt" "$T/direct.txt"; echo $?)" \
	    "context7-mcp: query-docs gives the upstream's context"
else
	_show_log "$T/log/npm.log"
	skip "node, npm or the npm install of t/e2e missing" 3
fi

# ---------------------------------------------------------------- policies (h-policy)
set_policy() { ctxd_admin settings set "$1" "$2" >/dev/null || fail "set $1"; }
ids() { search "$1" >/dev/null; http_body | jq -r '[.results[] | .id + " " + .origin] | join(",")'; }
set_policy policy.other false
is "$(ids requests)" "/corpora/requests upstream" "policy.other off: a git library still shown"
set_policy policy.git false
is "$(ids requests)" "" "policy.git off: the upstream's git library left out"
is "$(ctx)" 403 "policy.git off: context 403"
like "$(http_body | jq -r .error)" "blocked by policy.*git" "policy.git off: names the rule"
is "$(http GET "$BASE/api/v2/context?libraryId=/corpora/requests/v2.0&query=x")" 403 \
    "policy.git off: a version of the library is a git library too"
is "$(ids axum)" "/corpora/axum local" "policy.git off: a local git library unaffected"
curl -s "$BASE/mcp" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' --data-binary \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"/corpora/requests","query":"timeouts"}}}' \
    >"$T/mcp-denied.json"
is "$(jq -r '.result.isError' "$T/mcp-denied.json")" true "policy.git off: MCP query-docs is a tool error"
like "$(jq -r '.result.content[0].text' "$T/mcp-denied.json")" "blocked by policy" \
    "policy.git off: MCP query-docs names the rule"
set_policy policy.git true
set_policy policy.block "/corpora/req*"
is "$(ids requests)" "" "block list: the library left out"
is "$(ctx)" 403 "block list: context 403"
like "$(http_body | jq -r .error)" "blocked by policy.*block list" "block list: named"
set_policy policy.allow "/corpora/*"
is "$(ctx)" 403 "block list wins over the allow list"
ctxd_admin settings unset policy.block >/dev/null
is "$(ctx)" 200 "allow list: a listed library answered"
set_policy policy.allow "/other/*"
is "$(ctx)" 403 "allow list: a library not on it, 403"
like "$(http_body | jq -r .error)" "not on the allow list" "allow list: named"
is "$(ids requests)" "" "allow list: search leaves it out"
ctxd_admin settings unset policy.allow >/dev/null
set_policy policy.min_trust 5
is "$(ctx)" 200 "min trust: a library without a reported trust score not held back"
ctxd_admin settings unset policy.min_trust >/dev/null
set_policy policy.other true
is "$(ids requests)" "/corpora/requests upstream" "policies reset: shown again"

# ---------------------------------------------------------------- the upstream wants a key
DATA_DIR=$SECOND_DATA_DIR DATABASE_URL=$SECOND_DATABASE_URL ctxd_admin settings set perm.require_mcp_auth true >/dev/null
# Answers are cached (upstream.cache_ttl_s): a fresh one is served without asking again.
is "$(ctx)" 200 "cache: a fresh answer served from the cache"
ok "$(cmp -s "$T/http.body" "$T/direct.txt"; echo $?)" "cache: the same answer"
ls "$DATA_DIR/upstream-cache" >"$T/cache.ls" 2>/dev/null
ok "$(grep -qE '^[0-9a-f]{64}$' "$T/cache.ls"; echo $?)" "cache: files named by hash"
is "$(stat -c %a "$DATA_DIR/upstream-cache")" 700 "cache: the folder is 0700"
Q="How do I send a file with a POST request?"
is "$(ctx -H "Authorization: Bearer $ADMIN")" 401 "upstream 401 passed on"
like "$(http_body | jq -r .error)" '^upstream: ' "upstream 401: its error, named upstream"
is "$(search requests)" 200 "upstream 401: search still answers"
is "$(http_body | jq '.results | length')" 0 "upstream 401: only local results"
is "$(ctxd_admin upstream test >"$T/test.out" 2>&1; echo $?)" 1 "upstream test: fails on 401"
like "$(cat "$T/test.out")" "HTTP 401 \(check upstream.api_key\)" "upstream test: names the 401"
http POST "$BASE/api/upstream/test" -H "Authorization: Bearer $ADMIN" >/dev/null
is "$(http_body | jq -r '[.ok, .configured] | @tsv')" "false	true" \
    "POST /api/upstream/test: a 401 is ok false"
# The caller's own key is never forwarded: an admin key of the upstream sent by the caller
# does not open it.
is "$(ctx -H "Authorization: Bearer $UPADMIN")" 401 "the caller's key is not forwarded"
printf '%s' "$UPADMIN" | ctxd_admin settings set upstream.api_key - >/dev/null
is "$(ctx)" 200 "with upstream.api_key: 200"
unlike "$(ctxd_admin settings get upstream.api_key 2>&1)" "$UPADMIN" "the key is not shown"

# ---------------------------------------------------------------- an expired license
# The license (minted for a year) expires while the server runs: a clock moved ahead.
ctxd_clock_shim
ctxd_stop
LD_PRELOAD=$CTXD_CLOCK_SO ctxd_start
echo $((400 * 86400)) >"$CTXD_TEST_CLOCK"
is "$(ids requests)" "" "expired license: no upstream library in the search"
is "$(ids axum)" "/corpora/axum local" "expired license: local libraries still answered"
is "$(ctx)" 403 "expired license: context 403"
like "$(http_body | jq -r .error)" "license is expired" "expired license: says so"
rm -f "$CTXD_TEST_CLOCK"
is "$(ctx)" 200 "valid license again: answered"

# ---------------------------------------------------------------- the upstream down
ctxd_second_stop
is "$(search axum)" 200 "upstream down: search answers"
is "$(http_body | jq -r '[.results[].id] | join(",")')" /corpora/axum \
    "upstream down: the local answer intact"
touch -d '2 days ago' "$DATA_DIR"/upstream-cache/*	# older than upstream.cache_ttl_s
is "$(ctx)" 200 "upstream down: a cached answer served (hit, however old)"
like "$(head -c 4 "$T/http.body")" '^### ' "upstream down: the cached snippets"
Q="How do I stream a download?"
is "$(ctx)" 502 "upstream down: context 502 on a cache miss"
like "$(http_body | jq -r .error)" "could not be reached" "upstream down: says why"
unlike "$(http_body)" "$UPADMIN" "upstream down: the key is not in the error"
n=$(grep -c "further upstream failures" "$T/log/query.log" || true)
search axum >/dev/null
search axum >/dev/null
is "$(grep -c "further upstream failures" "$T/log/query.log" || true)" "$n" \
    "upstream down: logged once, not once per request"

# ---------------------------------------------------------------- an upstream that hangs
# standin LOG VAR SCRIPT: runs `node -e SCRIPT PORT` on a free port and waits (30 s at most:
# a loaded machine starts node slowly) until it listens, then sets VAR to the port. A stand-in
# that exits first (the port taken meanwhile by another test) starts again on another port,
# three times at most.
standin() {
	local log=$1 var=$2 script=$3 port try i
	for ((try = 0; try < 3; try++)); do
		port=$(pick_port)
		_spawn "$log" node -e "$script" "$port"
		for ((i = 0; i < 300; i++)); do
			if [ -n "$(ss -ltnH "sport = :$port" 2>/dev/null)" ]; then
				printf -v "$var" %s "$port"
				return 0
			fi
			_alive "$_spawned" || break
			sleep 0.1
		done
	done
	bail_out "no stand-in listens ($log): $(tail -n 3 "$log")"
}
standin "$T/log/hang.log" HANGPORT 'require("net").createServer(() => {}).listen(+process.argv[1], "127.0.0.1")'
ctxd_admin settings set upstream.url "http://127.0.0.1:$HANGPORT/api" >/dev/null
ctxd_admin settings set upstream.timeout_s 1 >/dev/null
start=$SECONDS
is "$(search axum)" 200 "upstream hangs: search answers"
is "$(http_body | jq -r '[.results[].id] | join(",")')" /corpora/axum \
    "upstream hangs: the local answer intact"
ok "$([ $((SECONDS - start)) -le 3 ]; echo $?)" "upstream hangs: search answered after one timeout"
Q="How do I use a session?"
start=$SECONDS
is "$(ctx)" 504 "upstream hangs: context 504 after upstream.timeout_s" || diag "$(http_body)"
ok "$([ $((SECONDS - start)) -le 3 ]; echo $?)" \
    "upstream hangs: context answered after one timeout, not one per request made"

# ---------------------------------------------------------------- an upstream that is hostile
# Too big an answer, text that is not UTF-8, a header meant to be injected into ours.
standin "$T/log/big.log" BIGPORT '
const big = Buffer.alloc(5 * 1024 * 1024, 0x61);
require("http").createServer((req, res) => {
	if (req.url.includes("half")) { res.writeHead(200, { "Content-Type": "text/plain" }); res.end(big.subarray(0, 600 * 1024)); return; }
	if (req.url.includes("big")) { res.writeHead(200, { "Content-Type": "text/plain" }); res.end(big); }
	else if (req.url.includes("latin")) { res.writeHead(200, { "Content-Type": "text/plain", "X-Evil": "1" }); res.end(Buffer.from([0x63, 0xe9, 0x0a])); }
	else if (req.url.includes("libs/search")) { res.writeHead(200, { "Content-Type": "application/json" }); res.end(JSON.stringify({ results: ["git", "website", "llmstxt", "openapi", "wiki", "other"].map((t, i) => ({ id: "/t/" + t, title: t, type: t, trustScore: i })) })); }
	else { res.writeHead(200, { "Content-Type": "text/plain", "X-Evil": "1", "Set-Cookie": "a=b" }); res.end("### fine\n"); }
}).listen(+process.argv[1], "127.0.0.1")'
ctxd_admin settings set upstream.url "http://127.0.0.1:$BIGPORT/api" >/dev/null
ctxd_admin settings set upstream.timeout_s 10 >/dev/null
Q="big"
is "$(ctx)" 502 "hostile upstream: an answer over 4 MiB refused"
Q="latin"
is "$(ctx)" 502 "hostile upstream: text that is not UTF-8 refused"
like "$(http_body | jq -r .error)" "not valid UTF-8" "hostile upstream: says why"
Q="fine"
is "$(ctx)" 200 "hostile upstream: a good answer passed on"
is "$(http_header X-Evil)$(http_header Set-Cookie)" "" "hostile upstream: none of its headers copied"

# The cache stays under upstream.cache_mb: the oldest answer goes.
ctxd_admin settings set upstream.cache_mb 1 >/dev/null
rm -rf "$DATA_DIR/upstream-cache"
Q="half one"
is "$(ctx)" 200 "cache cap: a 600 KB answer"
first=$(ls "$DATA_DIR/upstream-cache")
sleep 1
Q="half two"
is "$(ctx)" 200 "cache cap: another one"
is "$(find "$DATA_DIR/upstream-cache" -type f | wc -l)" 1 "cache cap: 1 MB holds one of them"
ok "$([ ! -e "$DATA_DIR/upstream-cache/$first" ]; echo $?)" "cache cap: the older one went"

# ---------------------------------------------------------------- each source type switch
# This upstream reports one library per source type (trust scores 0 to 5).
all="/t/git,/t/website,/t/llmstxt,/t/openapi,/t/wiki,/t/other"
tids() { search t >/dev/null; http_body | jq -r '[.results[] | select(.origin == "upstream") | .id] | join(",")'; }
is "$(tids)" "$all" "source types: every library shown with all switches on"
for sw in git website llmstxt openapi; do
	set_policy "policy.$sw" false
	is "$(tids)" "$(echo "$all" | sed "s|/t/$sw,||")" "policy.$sw off: its libraries left out"
	set_policy "policy.$sw" true
done
set_policy policy.other false
is "$(tids)" /t/git,/t/website,/t/llmstxt,/t/openapi \
    "policy.other off: the types not known here (wiki, other) left out"
set_policy policy.other true
set_policy policy.min_trust 3
is "$(tids)" /t/openapi,/t/wiki,/t/other "min trust 3: the libraries below it left out"
ctxd_admin settings unset policy.min_trust >/dev/null
done_testing
