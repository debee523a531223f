#!/usr/bin/env bash
# What the web UI's Libraries and Jobs pages read (ctxd-web(8), ADMIN API; ctxd-query(8)):
# a job's progress, written by the worker as it goes (documents parsed of total while it
# parses, snippets embedded of total after), in GET /api/jobs and GET /api/jobs/ID; the
# snippet browser GET /api/libraries/ID/snippets (filter, pages, validation, 404); the
# X-Ctxd-Tokens header of GET /api/v2/context (the try box shows it). The worker is slowed
# by CTXD_TEST_FILE_DELAY_MS (a test-only knob) so that the parse takes a few seconds.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3 node

ctxd_setup
gitserver_start
standin_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'
url=$(gitserver_add_bundle requests public)
LIB=/corpora/requests
ctxd_admin settings set ai.llm.provider openai >/dev/null &&
    ctxd_admin settings set ai.llm.base_url "$SBASE" >/dev/null &&
    ctxd_admin settings set ai.embed.model emb-one >/dev/null &&
    ctxd_admin settings set ai.llm.model llm-desc >/dev/null &&
    printf 'sk-good-%s\n' "$(openssl rand -hex 6)" | ctxd_admin settings set ai.llm.api_key - ||
    bail_out "cannot configure the embedding stand-in"

# --- progress while the worker runs ---------------------------------------------------------
is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" --data "{\"repoUrl\": \"$url\"}")" 202 "parse requests"
job=$(http_body | jq -r .jobId)
is "$(http GET "$BASE/api/jobs/$job" -H "$A")" 200 "a queued job"
is "$(http_body | jq -c '.progress | [.phase, .documentsTotal, .documentsDone]')" '[null,0,0]' \
    "has an empty progress"
CTXD_TEST_FILE_DELAY_MS=150 "$top_builddir/ctxd-worker" 2>"$T/log/worker.log" &
wpid=$!
# Poll as the UI does; keep each distinct (phase, done) seen while the job runs.
: >"$T/seen"
deadline=$((SECONDS + 90))
while [ "$SECONDS" -lt "$deadline" ]; do
	http GET "$BASE/api/jobs/$job" -H "$A" >/dev/null
	state=$(http_body | jq -r .state)
	[ "$state" = running ] && http_body | jq -r '.progress | "\(.phase) \(.documentsDone) \(.documentsTotal)"' >>"$T/seen"
	case $state in done | failed | cancelled) break ;; esac
	sleep 0.2
done
wait "$wpid"
is $? 0 "the worker exits 0"
is "$state" done "the job is done"
parsing=$(grep -c '^parsing ' "$T/seen")
mid=$(awk '$1 == "parsing" && $2 > 0 && $2 < $3 { print $2 }' "$T/seen" | sort -un | wc -l)
ok "$([ "$mid" -ge 2 ]; echo $?)" "while parsing, the documents done moved through $mid values below the total"
total=$(awk '$1 == "parsing" { print $3 }' "$T/seen" | sort -u)
ok "$([ -n "$total" ] && [ "$total" -gt 1 ]; echo $?)" "the total ($total) is known from the start of the parse"
# At most one write every 0.5 s while parsing: about delay x files / 500 ms writes.
writes=$(sort -u "$T/seen" | awk '$1 == "parsing"' | wc -l)
ok "$([ "$writes" -le $((total * 150 / 500 + 3)) ]; echo $?)" \
    "progress is written at most every 0.5 s ($writes distinct parse states for $total files)"
grep -q '^fetching ' "$T/seen" || grep -q '^parsing 0 ' "$T/seen"
ok $? "the run shows its first step before any document is done"

is "$(http GET "$BASE/api/jobs/$job" -H "$A")" 200 "the finished job"
snips=$(_sql "SELECT total_snippets FROM libraries WHERE id = '$LIB'")
kept=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND dup_of IS NULL")
is "$(http_body | jq -c '.progress | [.phase, .documentsDone == .documentsTotal, .snippetsTotal]')" \
    "[\"segment\",true,$snips]" \
    "its progress: all documents done, the snippets written, ended writing the index segment (after embedding)"
is "$(http_body | jq -c '.progress | [.embedTotal, .embedded]')" "[$kept,$kept]" \
    "every kept snippet embedded, of the total to embed ($kept)"
weak=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND described = 1 AND title <> heading")
is "$(http_body | jq -c '.progress | [.describeTotal > 0, .described == .describeTotal]')" '[true,true]' \
    "the snippets the LLM described, of those it judged weak ($weak retitled)"
ok "$(http_body | jq -e '.progress.updatedAt | test("^[0-9-]+T[0-9:]+Z$")' >/dev/null; echo $?)" \
    "with the time of its last write"
is "$(http GET "$BASE/api/jobs?library=$LIB" -H "$A")" 200 "the job list"
is "$(http_body | jq -c ".jobs[] | select(.id == $job) | .progress | [.documentsTotal, .embedded]")" \
    "[$total,$kept]" "shows the same progress"

# --- the snippet browser --------------------------------------------------------------------
S="$BASE/api/libraries$LIB/snippets"
is "$(http GET "$S" -H "$A")" 200 "snippets of the library"
is "$(http_body | jq -c '[.libraryId, .total, .limit, .offset, (.snippets | length)]')" \
    "[\"$LIB\",$kept,20,0,20]" "the first page of 20, the total of served snippets"
ok "$(http_body | jq -e '.snippets | all(.id > 0 and (.title | type) == "string" and
    (.breadcrumb | type) == "string" and (.text | type) == "string" and
    (.code | type) == "array" and .tokens > 0 and (.source | startswith("'"$url"'" | sub("\\.git$"; "")) or contains("/")))' >/dev/null; echo $?)" \
    "each with title, breadcrumb, text, code list, tokens and source"
ok "$(http_body | jq -e '[.snippets[] | .code[]] | length > 0 and all(has("language") and has("code"))' >/dev/null; echo $?)" \
    "code blocks carry their language"
http GET "$S" -G -H "$A" --data limit=7 --data offset=0 >/dev/null
p1=$(http_body | jq -c '[.snippets[].id]')
http GET "$S" -G -H "$A" --data limit=7 --data offset=7 >/dev/null
p2=$(http_body | jq -c '[.snippets[].id]')
is "$(jq -n --argjson a "$p1" --argjson b "$p2" '[($a | length), ($b | length), ($a - $b | length)] | @tsv' -r)" \
    "$(printf '7\t7\t7')" "two pages of 7 do not overlap"
http GET "$S" -G -H "$A" --data offset="$kept" >/dev/null
is "$(http_body | jq -c '[.total, (.snippets | length)]')" "[$kept,0]" "past the end: an empty page"
is "$(http GET "$S" -G -H "$A" --data-urlencode q=SESSION)" 200 "filter on 'SESSION'"
n=$(http_body | jq .total)
ok "$([ "$n" -gt 0 ] && [ "$n" -lt "$kept" ]; echo $?)" "keeps some snippets ($n of $kept)"
ok "$(http_body | jq -e '.q == "SESSION" and (.snippets | all([.title, .text, (.code | tostring), .path] | join(" ") | ascii_downcase | contains("session")))' >/dev/null; echo $?)" \
    "each holds it in its title, text, code or path, whatever the case"
want=$(_sql "SELECT count(*) FROM snippets s JOIN documents d ON d.id = s.document_id WHERE s.library_id = '$LIB' AND s.dup_of IS NULL AND (lower(s.title) LIKE '%session%' OR lower(s.text) LIKE '%session%' OR lower(s.code) LIKE '%session%' OR lower(d.path) LIKE '%session%')")
is "$n" "$want" "the total is the number of matching snippets"
http GET "$S" -G -H "$A" --data-urlencode 'q=zzqx no such words' >/dev/null
is "$(http_body | jq -c '[.total, .snippets]')" '[0,[]]' "a filter nothing matches: none"
http GET "$S" -G -H "$A" --data-urlencode "q=%_'\"" >/dev/null
is "$(http_body | jq .total)" 0 "SQL wildcards and quotes are plain characters"
is "$(http GET "$S?limit=0" -H "$A")" 400 "limit 0: 400"
like "$(http_body | jq -r .error)" 'limit' "the error names limit"
is "$(http GET "$S?limit=101" -H "$A")" 400 "limit 101: 400"
is "$(http GET "$S?offset=-1" -H "$A")" 400 "a negative offset: 400"
is "$(http GET "$S" -G -H "$A" --data-urlencode "q=$(printf 'x%.0s' {1..201})")" 400 "a filter of 201 characters: 400"
is "$(http GET "$S?sort=title" -H "$A")" 400 "an unknown parameter: 400"
like "$(http_body | jq -r .error)" 'sort' "the error names it"
is "$(http GET "$BASE/api/libraries/corpora/nothing/snippets" -H "$A")" 404 "an unknown library: 404"
like "$(http_body | jq -r .error)" 'corpora/nothing' "the error names it"

# --- the try box: the text answer with its token count ---------------------------------------
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$LIB" \
    --data-urlencode "query=how do I use a session")" 200 "a question"
bytes=$(wc -c <"$T/http.body")
is "$(http_header X-Ctxd-Tokens)" "$(((bytes + 3) / 4))" "X-Ctxd-Tokens: the answer's tokens as the budget counts them"
done_testing
