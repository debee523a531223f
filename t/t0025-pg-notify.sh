#!/usr/bin/env bash
# Several nodes on one PostgreSQL database (docs/DESIGN.md, "Two engines"): a warm query or
# MCP worker answers a question with no round trip to the server when the node has a local
# copy of the library (store/localcopy.h), else with at most one (the responders'
# CTXD_LOG_ROUND_TRIPS=1 log line counts them: lib/store/pg.c), none for a question whose
# candidates' rows it kept from an earlier one, with the answers a SQLite
# instance gives, and a node learns of changes through LISTEN/NOTIFY: a second instance on
# the same database answers with a re-indexed library's new content within a second of its
# job's end, and follows a settings change and a revoked key as fast.
# t/unit/test-store-notify runs first against the cluster: the drain on its own.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
require_cmd jq git nginx fcgiwrap
# It starts a cluster of its own, which two instances share: once, in the SQLite run.
engine_sqlite_only "starts its own PostgreSQL, shared by two instances"

pg_start
# The drain and what a listening connection keeps, against the server (test-store-notify).
out=$("$top_builddir/t/unit/test-store-notify" 2>&1); rc=$?
is "$rc" 0 "test-store-notify against the server: every check passes"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -40)"
like "$(grep -c '^ok .* - postgres: ' <<<"$out")" '^[0-9]{2,}$' \
    "... PostgreSQL's checks ran ($(grep -c '^ok .* - postgres: ' <<<"$out"))"
# The harness's reads (wait_job) go to the shared database.
_sql() {
	PGOPTIONS='-c client_min_messages=warning' "$_PG_BIN/psql" -X -q -A -t \
	    -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "$1"
}
export CTXD_LOG_ROUND_TRIPS=1
ctxd_setup
gitserver_start
test_repo acme/notes
put README.md <<'MD'
# Notes

Intro to the notes library.

## Widgets

The widget frobnicator spins at 100 rpm by default. Set rpm to change it.

## Gadgets

Gadgets hold the marmalade configuration in a file named gadget.toml.
MD
commit "first"
bundle=$(gitserver_add_bundle requests public)
bundle2=$(gitserver_add_bundle curl public)

# A SQLite instance indexing the same corpus: the answers to compare with.
pgurl=$DATABASE_URL
unset DATABASE_URL
ctxd_second_start lite
LITE=$SECOND_BASE
export DATABASE_URL=$pgurl
# A node without local copies (store/localcopy.h): its questions read the rows from the
# database, in one statement (store_query_prefetch).
CTXD_LOCAL_COPIES_MB=0 ctxd_second_start three
THREE=$SECOND_BASE QT=$T/three/log/query.log
# The second node: the same database, a DATA_DIR of its own (its segments fetched).
ctxd_second_start two
TWO=$SECOND_BASE TWO_LOG=$T/two/log
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
LITE_ADMIN=$(DATA_DIR=$T/lite/data DATABASE_URL= ctxd_admin key create --admin tests)

parse() { # BASE KEY URL
	http POST "$1/api/parse" -H "Authorization: Bearer $2" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$3\"}"
}
is "$(parse "$BASE" "$ADMIN" "$GITBASE/public/acme/notes.git")" 202 "parse acme/notes: 202"
is "$(parse "$BASE" "$ADMIN" "$bundle")" 202 "parse requests: 202"
is "$(parse "$BASE" "$ADMIN" "$bundle2")" 202 "parse curl: 202"
is "$(parse "$LITE" "$LITE_ADMIN" "$bundle")" 202 "parse requests on the SQLite instance: 202"
is "$(parse "$LITE" "$LITE_ADMIN" "$bundle2")" 202 "parse curl on the SQLite instance: 202"
is "$(wait_job /acme/notes)" finalized "acme/notes indexed"
is "$(wait_job /corpora/requests)" finalized "requests indexed"
is "$(wait_job /corpora/curl)" finalized "curl indexed"
# The first index runs on an empty database leave the planner's statistics behind (none
# taken): a run brings those of the tables it wrote up to date (store_analyze), rather than
# leaving the first questions to plans made for empty tables until autovacuum comes by.
is "$(_sql "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN ('snippets',
    'documents') AND last_analyze IS NOT NULL")" 2 \
    "an index run took the statistics of snippets and documents (ANALYZE)"
is "$(_sql "SELECT count(*) FROM pg_class WHERE relname IN ('snippets', 'documents') AND
    reltuples > 0")" 2 "... which the planner now counts rows in"
for lib in requests curl; do
	lite_state=
	for ((i = 0; i < 900; i++)); do
		lite_state=$(sqlite3 "$T/lite/data/ctxd.db" "SELECT state FROM libraries WHERE id = '/corpora/$lib'" 2>/dev/null)
		case $lite_state in finalized | error) break ;; esac
		sleep 0.2
	done
	is "$lite_state" finalized "$lib indexed on the SQLite instance"
done

# The workers' last steps after the jobs (segments written and uploaded) change libraries
# rows, which drops the responders' kept rows: the counts below are of a quiet instance.
for ((i = 0; i < 600; i++)); do
	busy=
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$top_builddir/ctxd-worker" ] && busy=1 && break
	done
	[ -z "$busy" ] && break
	sleep 0.2
done
ok "$([ -z "$busy" ]; echo $?)" "the workers are done"

# The index write sends the snippets of the files in batches (lib/store/snippets.c): its
# rows cost about a round trip per document, not one per snippet (the worker of either
# node ran the job: its log line; the SQLite instance's count 0 is not read).
trips=$(cat "$T"/data/worker.log "$T"/two/data/worker.log 2>/dev/null | grep -F '(/corpora/curl)' |
    sed -nE 's/.*round trips: ([0-9]+) writing the rows of the files.*/\1/p' | tail -n 1)
docs=$(_sql "SELECT count(*) FROM documents WHERE library_id = '/corpora/curl'")
sn=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '/corpora/curl'")
ok "$([ -n "$trips" ] && [ "$trips" -gt 0 ] && [ "$sn" -gt 1000 ] && [ "$trips" -le $((docs + sn / 64 + 10)) ]
    echo $?)" "curl's rows written in batches: ${trips:-no} round trips for $docs documents and $sn snippets"

# last LOG ROUTE: "N PID", the round trips of the last request to ROUTE the responder
# logged and the worker that answered it.
last() {
	grep -F "round trips: " "$1" | grep -E "\((GET|POST) $2, worker " | tail -n 1 |
	    sed -E 's/.*round trips: ([0-9]+) .*, worker ([0-9]+)\).*/\1 \2/'
}
# warm LOG ROUTE KEY CMD...: runs CMD (one request) until a worker that answered KEY before
# (a library, a key: what it keeps) answers it; sets N to that request's round trips
# ("" when no warm worker answered in 8 tries). Each responder runs 2 workers.
declare -A seen
warm() {
	local log=$1 route=$2 key=$3 i n pid
	shift 3
	N=
	for ((i = 0; i < 8; i++)); do
		"$@" >/dev/null
		read -r n pid <<<"$(last "$log" "$route")"
		[ -n "$pid" ] || continue
		if [ -n "${seen[$pid $key]:-}" ]; then
			N=$n
			return 0
		fi
		seen[$pid $key]=1
	done
}
ctx() { # BASE LIBRARY QUESTION [CURL ARGS]
	http GET "$1/api/v2/context" -G --data-urlencode "libraryId=$2" \
	    --data-urlencode "query=$3" "${@:4}"
}
mcpq() { # BASE LIBRARY QUESTION [CURL ARGS]
	http POST "$1/mcp" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' "${@:4}" --data-binary \
	    "$(jq -cn --arg l "$2" --arg q "$3" '{jsonrpc: "2.0", id: 5, method: "tools/call", params: {name: "query-docs", arguments: {libraryId: $l, query: $q}}}')"
}
QL=$T/log/query.log QM=$T/log/mcp.log

# ---------------------------------------------------------------- (a) round trips
# Every question of t/corpora/dev-questions.json about requests and curl (curl's man pages
# carry code-only snippets, which take their page's opening), at the default budget and
# at 5,000 tokens, on a warm worker: none on the first node (its local copies of the
# libraries answer), one on the node without copies (the prefetch's statement); each
# answer the SQLite instance's.
# round LOG BASE LIB QUESTION [CURL ARGS]: asks a warm worker, compares with the SQLite
# instance's answer (same += 1 when equal), and keeps the most round trips in max.
round() {
	local log=$1 base=$2 lib=$3 q=$4
	shift 4
	warm "$log" /api/v2/context "$lib" ctx "$base" "/corpora/$lib" "$q" "$@"
	http_body >"$T/pg.txt"
	[ "${N:-9}" -le 1 ] || diag "${N:-no warm worker} round trips: $base $lib '$q' ($*)"
	if [ -z "$N" ]; then max=missing; elif [ "$max" != missing ] && [ "$N" -gt "$max" ]; then max=$N; fi
	ctx "$LITE" "/corpora/$lib" "$q" "$@" >/dev/null
	http_body >"$T/lite.txt"
	if cmp -s "$T/pg.txt" "$T/lite.txt" && [ -s "$T/pg.txt" ]; then
		same=$((same + 1))
	else
		diag "answers differ for $base $lib '$q' ($*):" "$(diff "$T/lite.txt" "$T/pg.txt" | head -20)"
	fi
}
# copies_in DIR: the local copies DIR holds, in order, each followed by a space.
copies_in() { (cd "$1" 2>/dev/null && ls -- *.db 2>/dev/null | sort | tr '\n' ' '); }
# wait_copies DIR WANT: waits up to 30 s for DIR to hold exactly the copies WANT; 1 if not.
wait_copies() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(copies_in "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# The node's copier (search/copier.h) builds a copy of every library ahead, as each one's
# version appears, before any question asks for it.
want=$(_sql "SELECT lib_no || '-' || index_version || '.db' FROM libraries WHERE id IN
    ('/corpora/requests', '/corpora/curl', '/acme/notes') ORDER BY 1" | tr '\n' ' ')
ok "$(wait_copies "$T/data/copies" "$want"; echo $?)" \
    "the first node's copier built a copy of each library ahead: $want($(copies_in "$T/data/copies"))"
is "$(grep -c "GET /api/v2/context" "$QL")" 0 "... with no question asked of the node"
# A question that finds no copy of its library's version (here removed) reads the rows
# from the database and asks the copier, which builds it again outside the question.
curl_copy=$(_sql "SELECT lib_no || '-' || index_version || '.db' FROM libraries WHERE id = '/corpora/curl'")
rm -f "$T/data/copies/$curl_copy"
is "$(ctx "$BASE" /corpora/curl "how do I set a timeout")" 200 \
    "a question of /corpora/curl, its copy removed, is answered"
read -r n _ <<<"$(last "$QL" /api/v2/context)"
ok "$([ -n "$n" ] && [ "$n" -ge 1 ]; echo $?)" "... from the database (${n:-no} round trips)"
ok "$(wait_copies "$T/data/copies" "$want"; echo $?)" \
    "the node's copier then builds the copy again: $curl_copy ($(copies_in "$T/data/copies"))"
max=0 same=0 asked=0 max3=0 same3=0
while IFS=$'\t' read -r lib q; do
	for tok in 0 5000; do
		extra=()
		[ "$tok" -eq 0 ] || extra=(--data-urlencode "tokens=$tok")
		asked=$((asked + 1))
		round "$QL" "$BASE" "$lib" "$q" "${extra[@]}"
		m1=$max s1=$same max=$max3 same=$same3
		round "$QT" "$THREE" "$lib" "$q" "${extra[@]}"
		max3=$max same3=$same max=$m1 same=$s1
	done
done < <(jq -r '.[] | select(.corpus == "requests" or .corpus == "curl") | [.corpus, .q] | @tsv' \
    "$CORPORA/dev-questions.json")
diag "GET /api/v2/context (anonymous), $asked questions: at most $max round trips with local copies, $max3 without"
is "$max" 0 "a warm question to /api/v2/context costs no round trip with the node's local copies ($asked questions)"
is "$same" "$asked" "... and each answer is the SQLite instance's, byte for byte"
is "$max3" 1 "without local copies, one round trip ($asked questions)"
is "$same3" "$asked" "... and each answer is the SQLite instance's, byte for byte"
# The copies are the libraries' current versions, in the first node's DATA_DIR only.
is "$(copies_in "$T/data/copies")" "$want" \
    "the first node holds a local copy of each library, at its version: $want"
ok "$([ ! -e "$T/three/data/copies" ]; echo $?)" "... the node without copies none"
Q="How do I set a timeout on a request?"
warm "$QL" /api/v2/context requests ctx "$BASE" /corpora/requests "$Q" -H "Authorization: Bearer $ADMIN"
diag "GET /api/v2/context (API key): $N round trips"
like "$N" '^[01]$' "... with an API key: at most one"
# The same question again to a worker that answered it: its candidates' rows are kept
# (store/query.c), until the next change of the libraries table; no round trip (on the node
# without copies, where the rows come from the database).
warm "$QT" /api/v2/context "q:$Q" ctx "$THREE" /corpora/requests "$Q"
http_body >"$T/pg.txt"
diag "GET /api/v2/context, a question the worker answered before: $N round trips"
is "$N" 0 "... the same question again on that worker: none (its candidates' rows kept)"
ctx "$LITE" /corpora/requests "$Q" >/dev/null
http_body >"$T/lite.txt"
ok "$(cmp -s "$T/pg.txt" "$T/lite.txt"; echo $?)" "... answering as the SQLite instance"
warm "$QL" /api/v2/libs/search libs http GET "$BASE/api/v2/libs/search" -G --data-urlencode libraryName=requests
is "$(http_body | jq -r '.results[0].id')" /corpora/requests "libs/search finds it"
diag "GET /api/v2/libs/search: $N round trips"
is "$N" 0 "libs/search: none (the list is kept)"
warm "$QM" /mcp requests mcpq "$BASE" /corpora/requests "$Q"
http_body | jq -r '.result.content[0].text' >"$T/mcp.txt"
diag "MCP tools/call query-docs: $N round trips"
like "$N" '^[01]$' "MCP query-docs: at most one round trip"
ctx "$LITE" /corpora/requests "$Q" >/dev/null
{ http_body; echo; } >"$T/lite.txt"
ok "$(cmp -s "$T/mcp.txt" "$T/lite.txt"; echo $?)" "... answering as the SQLite instance"

# With a key required, the key's lookup is kept too.
ctxd_admin settings set perm.require_mcp_auth true >/dev/null
warm "$QL" /api/v2/context key ctx "$BASE" /corpora/requests "$Q" -H "Authorization: Bearer $ADMIN"
is "$(http_body | head -c 4)" "### " "perm.require_mcp_auth on: a key's question answers"
diag "GET /api/v2/context (a key required and given): $N round trips"
like "$N" '^[01]$' "... with at most one round trip"
warm "$QM" /mcp key mcpq "$BASE" /corpora/requests "$Q" -H "Authorization: Bearer $ADMIN"
diag "MCP query-docs (a key required and given): $N round trips"
like "$N" '^[01]$' "... on MCP too"
is "$(ctx "$BASE" /corpora/requests "$Q")" 401 "... and none without a key"
ctxd_admin settings set perm.require_mcp_auth false >/dev/null

# ---------------------------------------------------------------- (b) staleness
now_ms() { date +%s%3N; }
warm_two() {
	for i in 1 2 3 4; do ctx "$TWO" /acme/notes "widget frobnicator rpm" >/dev/null; done
}
is "$(ctx "$TWO" /acme/notes "widget frobnicator rpm")" 200 "the second node answers"
like "$(http_body)" "spins at 100 rpm" "... from the first content version"
warm_two
put README.md <<'MD'
# Notes

Intro to the notes library.

## Widgets

The widget frobnicator spins at 250 rpm by default. Set rpm to change it.

## Gadgets

Gadgets hold the marmalade configuration in a file named gadget.toml.
MD
commit "second"
job0=$(_sql "SELECT coalesce(max(id), 0) FROM jobs WHERE library_id = '/acme/notes'")
is "$(http POST "$BASE/api/libraries/acme/notes/refresh" -H "Authorization: Bearer $ADMIN")" 202 \
    "re-index acme/notes on the first node"
# Poll the job and the second node's answer together, every 100 ms.
done_at= new_at= deadline=$(($(now_ms) + 120000))
while [ "$(now_ms)" -lt "$deadline" ]; do
	t=$(now_ms)
	if [ -z "$done_at" ] && [ "$(_sql "SELECT state FROM jobs WHERE library_id = '/acme/notes' AND id > $job0 ORDER BY id DESC LIMIT 1")" = done ]; then
		done_at=$t
	fi
	if [ -z "$new_at" ]; then
		ctx "$TWO" /acme/notes "widget frobnicator rpm" >/dev/null
		http_body | grep -q "spins at 250 rpm" && new_at=$t
	fi
	[ -n "$done_at" ] && [ -n "$new_at" ] && break
	[ -n "$done_at" ] && [ $((t - done_at)) -gt 5000 ] && break
	sleep 0.1
done
ok "$([ -n "$done_at" ]; echo $?)" "the re-index job finished"
ok "$([ -n "$new_at" ]; echo $?)" "the second node answers with the new content"
lag=never
[ -n "$new_at" ] && [ -n "$done_at" ] && lag=$((new_at - done_at))
diag "the second node answered the new content $lag ms after the job was seen done"
ok "$([ "$lag" != never ] && [ "$lag" -le 1000 ]; echo $?)" "... within a second of the job's end ($lag ms)"
want=$(_sql "SELECT lib_no || '-' || index_version || '.db' FROM libraries ORDER BY 1" | tr '\n' ' ')
ok "$(wait_copies "$T/two/data/copies" "$want"; echo $?)" \
    "the second node's copy of the new version replaced the old one ($want: $(copies_in "$T/two/data/copies"))"
warm "$TWO_LOG/query.log" /api/v2/context notes2 ctx "$TWO" /acme/notes "widget frobnicator rpm"
is "$N" 0 "the second node, warm again (its segment fetched, its copy built), answers with no round trip"
like "$(http_body)" "spins at 250 rpm" "... from its copy of the new version"

# Built ahead: the copier of a node that holds a library's copy builds the new version's
# when PostgreSQL announces it, before any question of the node asks for it.
put README.md <<'MD'
# Notes

## Widgets

The widget frobnicator spins at 400 rpm by default.
MD
commit "third"
job0=$(_sql "SELECT coalesce(max(id), 0) FROM jobs WHERE library_id = '/acme/notes'")
asked2=$(grep -c "GET /api/v2/context" "$TWO_LOG/query.log")
is "$(http POST "$BASE/api/libraries/acme/notes/refresh" -H "Authorization: Bearer $ADMIN")" 202 \
    "re-index acme/notes again on the first node"
for ((i = 0; i < 1200; i++)); do
	[ "$(_sql "SELECT state FROM jobs WHERE library_id = '/acme/notes' AND id > $job0 ORDER BY id DESC LIMIT 1")" = done ] && break
	sleep 0.1
done
want=$(_sql "SELECT lib_no || '-' || index_version || '.db' FROM libraries ORDER BY 1" | tr '\n' ' ')
ok "$(wait_copies "$T/two/data/copies" "$want"; echo $?)" \
    "the second node's copier built the new version's copy ahead, the old one removed ($want: $(copies_in "$T/two/data/copies"))"
is "$(grep -c "GET /api/v2/context" "$TWO_LOG/query.log")" "$asked2" \
    "... with no question asked of the second node meanwhile"

# A setting: the second node follows perm.require_mcp_auth within a second.
warm_two
set_at=$(now_ms)
ctxd_admin settings set perm.require_mcp_auth true >/dev/null
seen=
for ((i = 0; i < 100; i++)); do
	[ "$(ctx "$TWO" /acme/notes "widget frobnicator rpm")" = 401 ] && { seen=$(now_ms); break; }
	sleep 0.1
done
lag=never
[ -z "$seen" ] || lag=$((seen - set_at))
ok "$([ "$lag" != never ] && [ "$lag" -le 1000 ]; echo $?)" "the second node requires a key within a second of the setting ($lag ms)"
# A key revoked on the first node is refused by the second within a second.
KEY=$(ctxd_admin key create --admin revokeme)
KEYID=$(_sql "SELECT max(id) FROM api_keys")
for i in 1 2 3 4; do ctx "$TWO" /acme/notes "widget" -H "Authorization: Bearer $KEY" >/dev/null; done
is "$(ctx "$TWO" /acme/notes "widget" -H "Authorization: Bearer $KEY")" 200 "the second node takes the new key"
set_at=$(now_ms)
ctxd_admin key revoke "$KEYID" >/dev/null
seen=
for ((i = 0; i < 100; i++)); do
	[ "$(ctx "$TWO" /acme/notes "widget" -H "Authorization: Bearer $KEY")" = 401 ] && { seen=$(now_ms); break; }
	sleep 0.1
done
lag=never
[ -z "$seen" ] || lag=$((seen - set_at))
ok "$([ "$lag" != never ] && [ "$lag" -le 1000 ]; echo $?)" "... and refuses it within a second of its revocation ($lag ms)"
ctxd_admin settings set perm.require_mcp_auth false >/dev/null

# A lost connection drops every cache: the worker says so and exits, another takes over.
"$_PG_BIN/psql" -X -q -A -t "$DATABASE_URL" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'" >/dev/null
code=
for ((i = 0; i < 50; i++)); do
	code=$(ctx "$TWO" /acme/notes "widget frobnicator rpm")
	[ "$code" = 200 ] && break
	sleep 0.2
done
is "$code" 200 "after the connections are cut, the second node answers again"
like "$(http_body)" "spins at 400 rpm" "... with the current content"
# (the loss shows either at a request's start, "is lost: every cache dropped", or at its
# statement, "was lost ... connecting again", when the server's goodbye arrived in between)
like "$(cat "$TWO_LOG/query.log")" "connection to PostgreSQL (is|was) lost" "... having logged the lost connection"

done_testing
