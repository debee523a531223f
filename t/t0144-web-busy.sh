#!/usr/bin/env bash
# A write the web API is asked for while another connection holds the database's writer (a
# long index run's write on SQLite, a locked table on PostgreSQL) waits the busy timeout
# (10 s), then fails: the answer is 503 with Retry-After and an error that says the
# database was busy, not a 500 that reads as the server's own fault, and nothing is
# written. Reads go on meanwhile, also with a key whose last use is due to be written (best
# effort: skipped rather than waited for); once the writer lets go the same write succeeds.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx fcgiwrap sqlite3

ctxd_setup
ctxd_start
J='Content-Type: application/json'
A="Authorization: Bearer $(ctxd_admin key create --admin tests)"
B="Authorization: Bearer $(ctxd_admin key create --admin fresh)"	# never used yet

is "$(http PATCH "$BASE/api/settings" -H "$A" -H "$J" \
    --data '{"mcp.allowed_origins": "https://a.example"}')" 200 "a setting is written"
is "$(ctxd_admin settings get mcp.allowed_origins)" "https://a.example" "... and stored"

# another connection holds the writer 16 s: longer than the busy timeout
hold_writer 16 settings
sleep 1
is "$(http GET "$BASE/api/settings" -H "$A")" 200 "reads go on while the writer is held"
t0=$SECONDS
is "$(http GET "$BASE/api/settings" -H "$B")" 200 \
    "a key's first use while the writer is held: answered"
ok "$([ $((SECONDS - t0)) -lt 5 ]; echo $?)" \
    "... without waiting out the busy timeout (10 s) to note its last use ($((SECONDS - t0)) s)"
is "$(http PATCH "$BASE/api/settings" -H "$A" -H "$J" \
    --data '{"mcp.allowed_origins": "https://b.example"}')" 503 \
    "a write that waited out the busy timeout: 503, not 500"
like "$(http_body | jq -r .error)" 'the database is busy \(another writer held it past the busy timeout\): try again shortly' \
    "... saying the database was busy"
unlike "$(http_body)" 'LINE [0-9]|INSERT|ERROR:|locked|lock timeout' "... and nothing of the database's own message"
is "$(http_header Retry-After)" 5 "... and when to try again (Retry-After)"
kill -0 "$HOLDER" 2>/dev/null
is $? 0 "(the writer was still held when it answered)"
wait "$HOLDER"
is $? 0 "the writer is released"
is "$(ctxd_admin settings get mcp.allowed_origins)" "https://a.example" \
    "the failed write changed nothing"

is "$(http PATCH "$BASE/api/settings" -H "$A" -H "$J" \
    --data '{"mcp.allowed_origins": "https://b.example"}')" 200 "the same write, once the writer let go: 200"
is "$(ctxd_admin settings get mcp.allowed_origins)" "https://b.example" "... and stored"
done_testing
