#!/usr/bin/env bash
# Strict UTF-8: a git file name that is not UTF-8 (docs/bad\xff\xfe.md) and content with
# invalid bytes are indexed with each invalid byte replaced by U+FFFD, and every answer the
# API gives about them (REST context as JSON and text, MCP query-docs, the snippet list, the
# library's documents and jobs) is valid UTF-8. Rows stored with invalid bytes before the
# index repaired them are answered repaired too: the one point answers leave by
# (http_respond) replaces such bytes, and a copy into PostgreSQL repairs them.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3 iconv

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
J='Content-Type: application/json'
ADMIN=$(ctxd_admin key create --admin utf8-admin)
A="Authorization: Bearer $ADMIN"
LIB=/acme/badnames
FFFD=$'\xef\xbf\xbd'
NL=$'\n'

# utf8: 0 when the last answer's body is valid UTF-8.
utf8() { iconv -f UTF-8 -t UTF-8 "$T/http.body" >/dev/null 2>&1; }
# mcp_call TOOL ARGS-JSON: POST a tools/call to /mcp; prints the status.
mcp_call() {
	http POST "$BASE/mcp" -H "$J" -H 'Accept: application/json, text/event-stream' \
	    --data-binary "$(jq -cn --arg t "$1" --argjson a "$2" '{jsonrpc: "2.0", id: 1,
	    method: "tools/call", params: {name: $t, arguments: $a}}')"
}
# every_answer WHEN: each endpoint's answer about the library is 200 and valid UTF-8.
every_answer() {
	local when=$1 p
	for p in "/api/v2/context?libraryId=$LIB&query=zebrafoo+widget&type=json" \
	    "/api/v2/context?libraryId=$LIB&query=zebrafoo+widget&type=txt" \
	    "/api/v2/context?libraryId=$LIB&query=zebrafoo+widget" \
	    "/api/libraries$LIB/snippets?limit=100" \
	    "/api/libraries$LIB/snippets?q=zebrafoo" \
	    "/api/libraries$LIB" \
	    "/api/jobs?library=$LIB"; do
		is "$(http GET "$BASE$p" -H "$A")" 200 "$when: GET $p answers"
		utf8
		ok $? "$when: GET $p: the answer is valid UTF-8"
	done
	is "$(mcp_call query-docs "{\"libraryId\": \"$LIB\", \"query\": \"zebrafoo widget\"}")" 200 \
	    "$when: MCP query-docs answers"
	utf8
	ok $? "$when: MCP query-docs: the answer is valid UTF-8"
	like "$(jq -r '.result.content[0].text' "$T/http.body")" 'zebrafoo' \
	    "$when: MCP query-docs: with the document's text"
}

test_repo acme/badnames
put README.md <<'MD'
# Badnames

The zebrafoo widget library: see the docs.
MD
printf '# Caf\xe9 zebrafoo\n\nThe zebrafoo widget \xff\xfe setup text, long enough to be a snippet.\n\n```sh\necho \xc0\xaf zebrafoo\n```\n' \
    >"$work/README-latin1.md"
mkdir -p "$work/docs"
printf '# Widget zebrafoo guide\n\nHow the zebrafoo widget starts: run it \xe6\x97 twice.\n' \
    >"$work/docs/bad"$'\xff\xfe'".md"
# two names that repair to the same one: only one is kept
printf '# Twin zebrafoo\n\nOne twin.\n' >"$work/docs/twin"$'\xff'".md"
printf '# Twin zebrafoo\n\nThe other twin.\n' >"$work/docs/twin"$'\xfe'".md"
commit "names and text that are not UTF-8"

is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" \
    --data "{\"repoUrl\": \"$GITBASE/public/acme/badnames.git\"}")" 202 "the library is queued"
worker
is "$(wait_job "$LIB")" finalized "indexed"

# --- the index holds UTF-8 only ---------------------------------------------------------------
paths=$(_sql "SELECT path FROM documents WHERE library_id = '$LIB' ORDER BY path")
ok "$(printf '%s' "$paths" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; echo $?)" \
    "every stored path is UTF-8"
like "$paths" "docs/bad$FFFD$FFFD\\.md" "the bad name is stored with U+FFFD for each byte"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '$LIB' AND path LIKE 'docs/twin%'")" 1 \
    "of two names that repair to the same, one is kept"
_sql "SELECT title || '$NL' || breadcrumb || '$NL' || text || '$NL' || code FROM snippets
    WHERE library_id = '$LIB'" >"$T/snippets.txt"
ok "$(iconv -f UTF-8 -t UTF-8 "$T/snippets.txt" >/dev/null 2>&1; echo $?)" \
    "every stored title, heading, text and code is UTF-8"
like "$(cat "$T/snippets.txt")" "Caf$FFFD zebrafoo" "an invalid byte of a heading is U+FFFD"
like "$(cat "$T/snippets.txt")" "widget $FFFD$FFFD setup" "and of the text"
like "$(_sql "SELECT group_concat(line, '$NL') FROM job_log")" \
    "not UTF-8, and repaired it is another file's" "the job log names the twin it skipped"

# --- every answer is UTF-8 --------------------------------------------------------------------
every_answer "indexed"
http GET "$BASE/api/v2/context?libraryId=$LIB&query=widget+zebrafoo+starts&type=json" >/dev/null
like "$(http_body | jq -r '[.. | strings] | join(" ")')" "bad$FFFD$FFFD\\.md" \
    "the JSON context names the file with U+FFFD"

# --- rows stored before the repair still answer UTF-8 -----------------------------------------
# (SQLite's alone: a PostgreSQL database in UTF-8 refuses text that is not, so no such row
# can be there.)
[ "$(ctxd_test_engine)" = sqlite ] || done_testing
sqlite3 -cmd '.timeout 5000' "$DATA_DIR/ctxd.db" "
UPDATE documents SET path = CAST(X'646f63732f6f6c64ff2e6d64' AS TEXT), title = CAST(X'4f6c64fe' AS TEXT)
    WHERE library_id = '$LIB' AND path LIKE 'docs/bad%';
UPDATE snippets SET title = title || CAST(X'20c0afff' AS TEXT),
    breadcrumb = breadcrumb || CAST(X'20ed' AS TEXT), text = text || CAST(X'20e697' AS TEXT)
    WHERE library_id = '$LIB';" || bail_out "cannot write the old rows"
like "$(_sql "SELECT hex(path) FROM documents WHERE library_id = '$LIB' AND path LIKE 'docs/old%'")" \
    'FF2E6D64$' "sanity: the database now holds a path that is not UTF-8"
every_answer "old rows"
http GET "$BASE/api/libraries$LIB/snippets?limit=100" -H "$A" >/dev/null
# (jq would repair the bytes itself: look at the raw body)
ok "$(grep -qF " $FFFD$FFFD$FFFD" "$T/http.body"; echo $?)" \
    "an old title's bytes are answered as U+FFFD, one each"

# A copy into PostgreSQL (ctxd-admin migrate-to-postgres) takes such rows too, repaired as
# the answers repair them: PostgreSQL's UTF-8 database refuses the bytes themselves.
. "$top_srcdir/t/lib/pg.sh"
pg_start
out=$(ctxd_admin migrate-to-postgres "$DATABASE_URL" 2>&1)
is $? 0 "migrate-to-postgres copies a database holding rows that are not UTF-8" || diag "$out"
like "$out" "documents: 2 text values were not UTF-8 \\(stored by an older version\\): copied with U\\+FFFD" \
    "... and says how many values it repaired"
is "$(pg_sql "SELECT path || ' ' || title FROM documents WHERE library_id = '$LIB' AND
    path LIKE 'docs/old%'")" "docs/old$FFFD.md Old$FFFD" "... each invalid byte copied as U+FFFD"
is "$(pg_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB'")" \
    "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB'")" "... every snippet copied"

done_testing
