#!/usr/bin/env bash
# The versions of a git library with the real worker and a real git
# server: a repository with two tags whose docs differ; POST /api/parse with "versions"
# indexes each tag as /owner/repo/<tag> besides the default branch; /api/v2/context and MCP
# query-docs answer /owner/repo/<tag> and /owner/repo@<tag> from that tag; a version that is
# not indexed answers 404 naming those that are; libs/search and resolve-library-id list the
# versions; files whose blob is the same in another version are reused, not parsed again;
# removing a version from the list and deleting the library delete the versions.
. "$top_srcdir/t/lib/harness.sh"

require_cmd curl jq git nginx fcgiwrap sqlite3 node
ctxd_setup
standin_start
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
# an embedder (the vendors' stand-in): a reused file's vectors are copied, not requested
standin_embedder emb-one

test_repo test/kv

for i in 1 2 3 4 5; do
	printf '# Chapter %s\n\nThe unchanging chapter %s about storage engines.\n' "$i" "$i" |
	    put "docs/chapter$i.md"
done
# Two install pages. On main they are the same: one of the two snippets is a duplicate (no
# full-text row). Each tag has the text of main in one of them (the other differs), so one
# tag reuses main's duplicate, which is the only copy there and must be found.
install() { printf '# Installing\n\nRun the WOMBATINSTALL script, then restart the store server.\n'; }
other() { printf '# Installing\n\nUse the package manager of your %s system.\n' "$1"; }
install | put docs/install.md
other first | put docs/guide/install.md
put docs/timeout.md <<'EOF'
# Timeouts

Set the timeout with `kv_set_timeout(conn, seconds)`; the default is OLDDEFAULT seconds.
EOF
commit one v1.0
other second | put docs/install.md
install | put docs/guide/install.md
put docs/timeout.md <<'EOF'
# Timeouts

Set the timeout with `kv_timeout_ms(conn, millis)`; the default is NEWDEFAULT milliseconds.
EOF
commit two v2.0
install | put docs/install.md
put docs/timeout.md <<'EOF'
# Timeouts

Timeouts are configured by the MAINBRANCH policy object.
EOF
commit three
LIB=/test/kv

parse() {	# parse [EXTRA JSON]
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' \
	    --data "{\"repoUrl\": \"$GITBASE/public/test/kv.git\"${1:-}}"
}
ask() {	# ask LIBID [QUERY]: the answer (default: to the timeout question), status in $T/code
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" \
	    --data-urlencode "query=${2:-how do I set the timeout}" >"$T/code"
	http_body
}
joblog() { _sql "SELECT group_concat(line, '|') FROM job_log WHERE job_id =
    (SELECT max(id) FROM jobs WHERE library_id = '$1')"; }

# --- validation --------------------------------------------------------------------------
is "$(parse ', "versions": ["v1.0", "../x"]')" 400 "a version that is not a safe ref name: 400"
like "$(http_body | jq -r .error)" "versions" "the error names the field"
is "$(parse ', "versions": "v1.0"')" 400 "versions must be a list"
is "$(parse ", \"versions\": [$(seq -s, 1 21)]")" 400 "more than 20 versions: 400"

# --- two tags and the default branch ---------------------------------------------------
is "$(parse ', "versions": ["v1.0", "v2.0"]')" 202 "parse with two versions"
worker
is "$(wait_job $LIB)" finalized "default branch indexed"
is "$(wait_job $LIB/v1.0)" finalized "v1.0 indexed"
is "$(wait_job $LIB/v2.0)" finalized "v2.0 indexed"
is "$(_sql "SELECT branch || ' ' || version_of FROM libraries WHERE id = '$LIB/v1.0'")" \
    "v1.0 $LIB" "the version is a library of its own on the tag"

like "$(ask $LIB/v1.0)" 'OLDDEFAULT' "/owner/repo/v1.0 answers from v1.0"
unlike "$(ask $LIB/v1.0)" 'NEWDEFAULT|MAINBRANCH' "... and from nothing else"
like "$(ask $LIB@v2.0)" 'NEWDEFAULT' "/owner/repo@v2.0 answers from v2.0"
unlike "$(ask $LIB@v2.0)" 'OLDDEFAULT|MAINBRANCH' "... and from nothing else"
like "$(ask $LIB)" 'MAINBRANCH' "/owner/repo answers from the default branch"
unlike "$(ask $LIB)" 'OLDDEFAULT|NEWDEFAULT' "... and from nothing else"
ask $LIB/v3.0 >/dev/null
is "$(cat "$T/code")" 404 "a version that is not indexed: 404"
like "$(http_body)" "no indexed version v3.0.*$LIB \\(the default branch\\), v1.0, v2.0" \
    "the 404 names the indexed versions"
ask /test/nothing/v1.0 >/dev/null
is "$(cat "$T/code")" 404 "a versioned id of no library: 404"

# --- reuse across versions ----------------------------------------------------------------
# v1.0 and v2.0 share six unchanged files (five chapters, an install page) with main.
like "$(joblog $LIB/v1.0)" "reused 6 files of other versions of $LIB" \
    "a version reuses the unchanged files of another one"
like "$(joblog $LIB/v2.0)" "reused 6 files of other versions.*\\|indexed commit [0-9a-f]+: 8 documents, 8 snippets" \
    "... and still has all of its documents"
like "$(joblog $LIB/v2.0)" "2 parsed, 0 unchanged" "only the changed files are parsed"
# (migration sql/0012-shared-documents.sql) the unchanged file's snippet is stored once; each
# version's document row shows it (t0259-shared-documents.sh tests the sharing itself)
is "$(_sql "SELECT count(*) FROM snippets WHERE text LIKE '%unchanging chapter 3%'")" 1 \
    "the snippet of an unchanged file is stored once"
is "$(_sql "SELECT group_concat(library_id, ' ') FROM (SELECT library_id FROM library_snippets
    WHERE text LIKE '%unchanging chapter 3%' ORDER BY 1) AS v")" "$LIB $LIB/v1.0 $LIB/v2.0" \
    "... and each version shows it"
# the index stays consistent: no full-text table keeps a copy (each segment is its rows':
# index_check below)
if [ "$(ctxd_test_engine)" = sqlite ]; then
	is "$(_sql "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'snippets_fts%'")" 0 \
	    "no full-text table holds a second copy of the snippets"
else
	is "$(_sql "SELECT count(*) FROM pg_class WHERE relname LIKE 'snippets_fts%'")" 0 \
	    "no full-text table holds a second copy of the snippets"
fi
for v in "" /v1.0 /v2.0; do
	is "$(_sql "SELECT count(*) FROM snippets s WHERE library_id = '$LIB$v' AND dup_of IS NULL AND
	    NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.snippet_id = s.id AND e.model = 'emb-one')")" 0 \
	    "$LIB$v: a vector for each kept snippet"
done
# the shared snippets have their vectors: only the parsed files' snippets went to the embed step
like "$(joblog $LIB/v1.0)" 'embedded 2 snippets \(0 reused\)' "v1.0 embeds only its two parsed files"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND dup_of IS NOT NULL")" 1 \
    "main: one install section is a duplicate"
# v2.0's docs/guide/install.md is main's duplicate, whose kept copy (main's docs/install.md)
# v2.0 does not have: v2.0 gets a copy of its snippet (kept there); v1.0's docs/install.md
# is main's kept copy, which v1.0 shows
is "$(_sql "SELECT CASE WHEN d.snippets_from IS NULL THEN 1 ELSE 0 END || ' ' || count(s.id) ||
    ' ' || count(s.dup_of) FROM documents d LEFT JOIN snippets s ON s.document_id = d.id WHERE
    d.library_id = '$LIB/v2.0' AND d.path = 'docs/guide/install.md' GROUP BY d.id")" "1 1 0" \
    "v2.0 holds a kept copy of the install page that is a duplicate in main"
is "$(_sql "SELECT o.library_id FROM documents d JOIN documents o ON o.id = d.snippets_from WHERE
    d.library_id = '$LIB/v1.0' AND d.path = 'docs/install.md'")" "$LIB" \
    "v1.0 shows main's kept install page"
like "$(ask $LIB/v1.0 'install script')" 'WOMBATINSTALL' "v1.0 answers from its reused install page"
like "$(ask $LIB/v2.0 'install script')" 'WOMBATINSTALL' "v2.0 answers from its reused install page"

# --- search and MCP ----------------------------------------------------------------------
is "$(http GET "$BASE/api/v2/libs/search?libraryName=kv&query=timeout")" 200 "libs/search: 200"
is "$(http_body | jq -c '[.results[] | select(.id == "/test/kv") | .versions]')" \
    '[["v1.0","v2.0"]]' "libs/search lists the versions"
is "$(http_body | jq '[.results[] | select(.id | startswith("/test/kv/"))] | length')" 0 \
    "the versions are not libraries of their own in the search"
mcp() {	# mcp TOOL ARGS-JSON: the text of the answer
	curl -s "$BASE/mcp" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' --data-binary \
	    "$(jq -cn --arg t "$1" --argjson a "$2" '{jsonrpc: "2.0", id: 1, method: "tools/call",
	    params: {name: $t, arguments: $a}}')" | jq -r '.result.content[0].text'
}
like "$(mcp resolve-library-id '{"libraryName": "kv", "query": "timeout"}')" 'v1\.0.*v2\.0' \
    "resolve-library-id names the versions"
like "$(mcp query-docs '{"libraryId": "/test/kv/v1.0", "query": "how do I set the timeout"}')" \
    'OLDDEFAULT' "query-docs answers a version"
like "$(mcp query-docs '{"libraryId": "/test/kv@v9", "query": "timeout"}')" \
    'no indexed version v9' "query-docs: a version not indexed"

# --- admin API ---------------------------------------------------------------------------
is "$(http GET "$BASE/api/libraries/test/kv" -H "Authorization: Bearer $ADMIN")" 200 "detail: 200"
is "$(http_body | jq -c '[.versions[].version]')" '["v1.0","v2.0"]' "the detail lists the versions"
is "$(http GET "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN")" 200 "list: 200"
is "$(http_body | jq -c '[.libraries[] | select(.id == "/test/kv") | .versions[].version]')" \
    '["v1.0","v2.0"]' "the list shows them"

# --- who may change them ------------------------------------------------------------------
KEY=$(ctxd_admin key create tests-user)
userparse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
	    --data "{\"repoUrl\": \"$GITBASE/public/test/kv.git\", \"versions\": $1}"
}
is "$(userparse '["v1.0", "v2.0", "v3.0"]')" 403 "another version list needs an admin or the creator"
like "$(http_body | jq -r .error)" "\\(versions\\)" "the 403 names versions"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '$LIB/v3.0'")" 0 "and stores nothing"
is "$(userparse '["v2.0", "v1.0"]')" 202 "the stored list (in any order) only re-indexes"

# --- remove one version, then delete the library -----------------------------------------
is "$(parse ', "versions": ["v2.0"]')" 202 "re-post without v1.0"
worker
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '$LIB/v1.0'")" 0 "v1.0 is deleted"
is "$(wait_job $LIB/v2.0)" finalized "v2.0 stays"
is "$(http DELETE "$BASE/api/libraries/test/kv" -H "Authorization: Bearer $ADMIN")" 202 \
    "delete the library"
worker
is "$(_sql "SELECT count(*) FROM libraries WHERE id LIKE '/test/kv%'")" 0 \
    "deleting a library deletes its versions"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id LIKE '/test/kv%'")" 0 "and their snippets"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id LIKE '/test/kv%'") $(_sql \
    'SELECT count(*) FROM embeddings')" "0 0" "... their documents and embeddings rows"
is "$(index_check)" ok "each index segment holds exactly its rows' tokens"

done_testing
