#!/usr/bin/env bash
# ctxd library and ctxd docs against a real indexed library (corpus bundle on a real git
# server, indexed by the worker), their error paths, and the key sent as a bearer token.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap python3

ctxd_setup
gitserver_start
ctxd_start
CTXD=$top_builddir/ctxd
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")
is "$code" 202 "parse requests: 202"
is "$(wait_job /corpora/requests)" finalized "requests indexed"

# run ARGS...: ctxd without CTXD_* variables; stdout in $T/out, stderr in $T/err; prints
# the exit status.
run() {
	local rc=0
	env -u CTXD_API_KEY -u CTXD_BASE_URL ${EXTRA_ENV:+"${EXTRA_ENV[@]}"} "$CTXD" "$@" \
	    >"$T/out" 2>"$T/err" </dev/null || rc=$?
	echo "$rc"
}
EXTRA_ENV=()

# ------------------------------------------------------------------------- library
rc=$(run --base-url "$BASE" library requests "how do I set a timeout")
is "$rc" 0 "library requests QUERY: exit 0"
is "$(head -1 "$T/out")" "requests (/corpora/requests)" "library: title and id on the first line"
like "$(sed -n 2p "$T/out")" '^  snippets: [0-9]+  tokens: [0-9]+  .*state: finalized  updated: 20[0-9-]+T' \
    "library: counts, state and date"
rc=$(run library requests --base-url "$BASE/")
is "$rc" 0 "library NAME without a query, options after the command, trailing /: exit 0"
like "$(head -1 "$T/out")" '/corpora/requests' "library without a query finds it"
rc=$(run --base-url "$BASE" --json library requests)
is "$(jq -r '.results[0].id' "$T/out")" /corpora/requests "library --json: the answer as it is"
EXTRA_ENV=(CTXD_BASE_URL="$BASE")
rc=$(run library requests)
is "$rc" 0 "CTXD_BASE_URL stands in for --base-url"
EXTRA_ENV=()
rc=$(run --base-url "$BASE" library zzzyyyxxx)
is "$rc" 1 "library without a match: exit 1"
like "$(cat "$T/err")" 'no library matches "zzzyyyxxx"' "library without a match: says so"

# ------------------------------------------------------------------------- docs
rc=$(run --base-url "$BASE" docs /corpora/requests "how do I set a timeout")
is "$rc" 0 "docs ID QUERY: exit 0"
http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=how do I set a timeout" >/dev/null
cmp -s "$T/out" <(sed -e '$a\' "$T/http.body")
ok $? "docs prints the context text as /api/v2/context answers it (plus a final newline)"
grep -q '^Source: ' "$T/out" && grep -qi 'timeout' "$T/out"
ok $? "docs: snippets with sources about timeouts"
rc=$(run --base-url "$BASE" --json docs /corpora/requests "timeout")
like "$(jq -r '.codeSnippets | length' "$T/out")" '^[1-9]' "docs --json: the JSON answer"

# ------------------------------------------------------------------------- errors
rc=$(run --base-url "$BASE" docs /nobody/nothing "x")
is "$rc" 1 "docs for an unknown library: exit 1"
http GET "$BASE/api/v2/context?libraryId=/nobody/nothing&query=x" >/dev/null
is "$(cat "$T/err")" "ctxd: $(http_body | jq -r .error) (HTTP 404)" \
    "docs for an unknown library: the server's error text"
is "$(wc -c <"$T/out")" 0 "nothing on stdout on an error"
rc=$(run --base-url "$BASE" docs notanid "x")
is "$rc" 1 "docs with a malformed id: exit 1"
like "$(cat "$T/err")" 'must look like /owner/repo.*HTTP 400' "malformed id: the 400 text"
rc=$(run docs /corpora/requests x)
is "$rc" 2 "no base URL: exit 2"
like "$(cat "$T/err")" 'base-url' "no base URL: says how to give it"
rc=$(run --base-url "$BASE/api" docs /corpora/requests x)
is "$rc" 2 "base URL ending in /api: rejected"
rc=$(run --base-url "$BASE" docs /corpora/requests)
is "$rc" 2 "docs without a query: usage, exit 2"
rc=$(run --base-url "$BASE" --claude docs /corpora/requests x)
is "$rc" 2 "a setup option with docs: exit 2"
port=$(pick_port)
rc=$(run --base-url "http://127.0.0.1:$port" library requests)
is "$rc" 1 "nothing listening: exit 1"
like "$(cat "$T/err")" 'cannot reach' "nothing listening: says so"

# ------------------------------------------------------------------------- the key
# A one-request server records the request and answers 401 with a JSON error.
KEY=ctxd_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' | head -c 43)
cat >"$T/one.py" <<'EOF'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[2], "w") as f:
            f.write(self.path + "\n" + str(self.headers))
        body = json.dumps({"error": "the key is not valid here"}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
# Port 0: the system picks a free port, written to the ready file once bound,
# so no other test can take it between a pick and the bind.
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
s.handle_request()
EOF
python3 "$T/one.py" - "$T/req.txt" "$T/ready" &
one=$!
for ((i = 0; i < 300; i++)); do [ -s "$T/ready" ] && break; sleep 0.1; done
port=$(cat "$T/ready")
EXTRA_ENV=(CTXD_API_KEY="$KEY")
rc=$(run --base-url "http://127.0.0.1:$port" docs /a/b "q r")
EXTRA_ENV=()
wait "$one"
is "$rc" 1 "a 401 answer: exit 1"
is "$(cat "$T/err")" "ctxd: the key is not valid here (HTTP 401)" "a 401 answer: its error text"
grep -qxF "Authorization: Bearer $KEY" <(tr -d '\r' <"$T/req.txt")
ok $? "CTXD_API_KEY is sent as Authorization: Bearer"
is "$(head -1 "$T/req.txt")" "/api/v2/context?libraryId=%2Fa%2Fb&query=q%20r" \
    "docs asks /api/v2/context with the parameters encoded"
grep -qF -- "$KEY" "$T/out" "$T/err"
ok $((!$?)) "the key is not printed"

done_testing
