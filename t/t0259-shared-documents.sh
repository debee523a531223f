#!/usr/bin/env bash
# The versions of a library share the snippets of unchanged files (migration
# sql/0012-shared-documents.sql, lib/index/share.c), with the real worker, a real git server and
# the vendors' stand-in as the embedder:
# - a version stores no snippet, full-text or embeddings row for a file another version has
#   unchanged, embeds none of them again, and answers from them with its own Source lines,
#   through the index segments and through an index a query process builds from the
#   database when there is no segment (a large library indexed before segments answers all
#   the same, with a warning), with the same answers byte for byte, also when a budget of one
#   byte of private memory (CTXD_TEST_SEARCH_PRIVATE_BYTES=1) makes each library's built index
#   go when another library is asked and keeps no built vectors (one ranking at every size: no
#   library is ranked another way);
# - re-indexing main after a shared file changed moves that file's old snippets to a version
#   that shows them (which answers its old text still), and a file main now holds twice is
#   copied for the versions that showed it before main's dedup pass hides one (they answer
#   it still); a query process that had those versions loaded answers from the new state;
# - deleting the version that owns moved snippets gives them to the other version showing
#   them; main and that version answer as before;
# - deleting the library leaves no document, snippet, flags, embeddings row or
#   vector behind.
# On PostgreSQL, "no segment" is none in DATA_DIR and none stored in the database.
# The re-index of main runs under valgrind when it is there.
. "$top_srcdir/t/lib/harness.sh"

require_cmd curl jq git nginx fcgiwrap sqlite3 node openssl
ctxd_setup
standin_start
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
# Sources that name the commit (the test git server has no known web layout).
ctxd_admin settings set git.web_url_template '{repo}/src/commit/{commit}/{path}' >/dev/null
ADMIN=$(ctxd_admin key create --admin tests)
MODEL=emb-docs
standin_embedder "$MODEL"

test_repo test/sd
page() {	# page TITLE WORD: a page of two sections naming WORD
	printf '# %s\n\nThe %s setting tunes the storage engine of the %s page.\n\n' "$1" "$2" "$1"
	printf '## More about %s\n\nRead %s together with the compaction notes of %s.\n' "$1" "$2" "$1"
}
page Alpha ALPHAWORD | put docs/alpha.md
page Beta BETAWORD | put docs/beta.md
page Charlie CHARLIEWORD | put docs/deep/shared/charlie.md
page Notes ONENOTES | put docs/notes.md
commit one v1.0
page Notes TWONOTES | put docs/notes.md
commit two v2.0
page Notes MAINNOTES | put docs/notes.md
commit three
LIB=/test/sd
C1=$(git -C "$work" rev-parse v1.0)
C2=$(git -C "$work" rev-parse v2.0)
CM=$(git -C "$work" rev-parse HEAD)

parse() {	# parse [EXTRA JSON]
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' \
	    --data "{\"repoUrl\": \"$GITBASE/public/test/sd.git\"${1:-}}"
}
ask() {	# ask LIBID QUERY: the answer (fast: no reranking), status in $T/code
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" \
	    --data-urlencode "query=$2" --data-urlencode fast=true >"$T/code"
	http_body
}
joblog() { _sql "SELECT group_concat(line, '|') FROM job_log WHERE job_id =
    (SELECT max(id) FROM jobs WHERE library_id = '$1')"; }
texts() {	# the texts the stand-in was asked to embed so far (and the questions), one a line
	curl -s "$SBASE/_log" | jq -r '.[] | select(.path == "/v1/embeddings") | .body |
	    (if type == "string" then fromjson else . end).input |
	    if type == "array" then .[] else . end | gsub("\n"; " ")'
}
owned() { _sql "SELECT count(*) FROM snippets WHERE library_id = '$1'"; }
shown() { _sql "SELECT count(*) FROM library_snippets WHERE library_id = '$1' AND dup_of IS NULL"; }
# fk_broken: the rows that name a missing row (SQLite's foreign keys are checked by the
# statement; PostgreSQL checks each of them itself when a transaction commits)
fk_broken() {
	if [ "$(ctxd_test_engine)" = postgres ]; then echo 0; else _sql 'PRAGMA foreign_key_check' | wc -l; fi
}
# segments_away DIR, segments_back DIR (the service stopped): the index segments leave
# DATA_DIR for DIR and come back; on PostgreSQL the copies stored in the database
# (segment_files, lib/store/segstore.c) leave with them, kept in tables of the test.
segments_away() {
	mv "$DATA_DIR/segments" "$1" || bail_out "segments_away"
	[ "$(ctxd_test_engine)" = postgres ] || return 0
	_sql "BEGIN; CREATE TABLE t0259_files AS SELECT * FROM segment_files;
	    CREATE TABLE t0259_chunks AS SELECT * FROM segment_chunks; DELETE FROM segment_files;
	    COMMIT" || bail_out "segments_away: the stored segments"
}
segments_back() {
	mv "$1" "$DATA_DIR/segments" || bail_out "segments_back"
	[ "$(ctxd_test_engine)" = postgres ] || return 0
	_sql "BEGIN; INSERT INTO segment_files SELECT * FROM t0259_files;
	    INSERT INTO segment_chunks SELECT * FROM t0259_chunks;
	    DROP TABLE t0259_files; DROP TABLE t0259_chunks; COMMIT" ||
	    bail_out "segments_back: the stored segments"
}
# consistent LIBID: each kept snippet the library shows has a vector,
# each duplicate's kept copy is shown by the library too, and no foreign key is broken
consistent() {
	is "$(_sql "SELECT count(*) FROM library_snippets s WHERE s.library_id = '$1' AND
	    s.dup_of IS NULL AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE
	    e.snippet_id = s.id)") $(_sql "SELECT
	    count(*) FROM library_snippets s WHERE s.library_id = '$1' AND s.dup_of IS NOT NULL AND
	    NOT EXISTS (SELECT 1 FROM library_snippets k WHERE k.library_id = '$1' AND
	    k.id = s.dup_of)") $(fk_broken)" "0 0 0" \
	    "$1: a vector for each kept snippet, a kept copy for each duplicate"
}

# --- main and two versions -----------------------------------------------------------------
is "$(parse ', "versions": ["v1.0", "v2.0"]')" 202 "parse main with two versions"
worker
for v in "" /v1.0 /v2.0; do
	is "$(wait_job $LIB$v)" finalized "$LIB$v indexed"
done
main_owned=$(owned $LIB)
is "$(owned $LIB/v1.0) $(owned $LIB/v2.0)" "2 2" \
    "each version stores the snippets of its changed file only (two sections)"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '$LIB/v1.0'") $(_sql "SELECT
    count(*) FROM documents WHERE library_id = '$LIB/v1.0' AND snippets_from IS NOT NULL")" "4 3" \
    "v1.0 has a document for each file; three show main's snippets"
is "$(_sql "SELECT count(*) FROM documents d JOIN documents o ON o.id = d.snippets_from
    WHERE o.snippets_from IS NOT NULL")" 0 "a shared document names an owner, never another share"
is "$(_sql "SELECT total_snippets FROM libraries WHERE id = '$LIB/v1.0'")" "$(shown $LIB/v1.0)" \
    "v1.0's snippet count is the snippets it shows"
is "$(shown $LIB/v1.0)" "$main_owned" "... as many as main's"
is "$(texts | grep -c 'ALPHAWORD setting tunes\|Read ALPHAWORD together')" 2 "the stand-in embedded the shared texts once (two sections)"
like "$(joblog $LIB/v1.0)" 'embedded 2 snippets \(0 reused\)' "v1.0 embeds its own file only"
for v in "" /v1.0 /v2.0; do consistent $LIB$v; done

a1=$(ask $LIB/v1.0 'ALPHAWORD storage engine')
like "$a1" "Source: [^ ]*$C1/docs/alpha.md" "v1.0 answers from a shared file with its own commit"
unlike "$a1" "$CM|$C2" "... and no other"
like "$(ask $LIB/v2.0 'ALPHAWORD storage engine')" "Source: [^ ]*$C2/docs/alpha.md" \
    "so does v2.0"
like "$(ask $LIB 'ALPHAWORD storage engine')" "Source: [^ ]*$CM/docs/alpha.md" "and main"
like "$(ask $LIB/v1.0 'notes setting')" 'ONENOTES' "v1.0 answers its own notes"
unlike "$(ask $LIB/v1.0 'notes setting')" 'TWONOTES|MAINNOTES' "... and no other version's"
before_cm=$(ask $LIB/v1.0 'CHARLIEWORD compaction')
like "$before_cm" "Source: [^ ]*$C1/docs/deep/shared/charlie.md" "v1.0 answers CHARLIEWORD"
http GET "$BASE/api/libraries$LIB/v1.0/snippets" -G --data-urlencode q=ALPHAWORD \
    -H "Authorization: Bearer $ADMIN" >/dev/null
like "$(http_body | jq -r '"\(.total) \(.snippets[0].source)"')" "^2 [^ ]*$C1/docs/alpha.md" \
    "the admin's snippet listing of v1.0 has the shared snippets, with v1.0's Source"

# --- no index segments: built from the database (a large library indexed before them) -------
ctxd_stop
segments_away "$DATA_DIR/segments.away"
ctxd_start
a1s=$(ask $LIB/v1.0 'ALPHAWORD storage engine')
like "$a1s" "Source: [^ ]*$C1/docs/alpha.md" "built from the database, v1.0 answers from a shared file"
unlike "$a1s" "$CM|$C2" "... with its own commit only"
like "$(ask $LIB/v2.0 'notes setting')" 'TWONOTES' "... and its own notes (v2.0)"
unlike "$(ask $LIB/v2.0 'notes setting')" 'ONENOTES|MAINNOTES' "... not another version's"
like "$(ask $LIB 'ALPHAWORD storage engine')" "Source: [^ ]*$CM/docs/alpha.md" \
    "... main answers with its commit"
like "$(cat "$T/log/query.log")" 'has no index segment: its index is built' \
    "... and the query process warns that the library has no segment"
ctxd_stop
segments_back "$DATA_DIR/segments.away"
ctxd_start

# --- one ranking: segments, indexes built in memory, a budget of one byte -------------------
ask3() { ask $LIB/v1.0 'ALPHAWORD storage engine'; ask $LIB/v2.0 'notes setting'
	ask $LIB 'ALPHAWORD storage engine'; }
seg_answers=$(ask3)
like "$seg_answers" 'TWONOTES' "v2.0 answers its own notes"
ls "$DATA_DIR"/segments/*.seg >/dev/null 2>&1
ok $? "the answers above came from segments"
ctxd_stop
segments_away "$T/segments.kept"
ctxd_start
is "$(ask3)" "$seg_answers" "no segment: the indexes built in memory answer byte for byte the same"
ctxd_stop
export CTXD_TEST_SEARCH_PRIVATE_BYTES=1
ctxd_start
built1=$(ask3)
is "$(ask3)" "$built1" "a budget of one byte (each built index freed when another library is asked): the same answers again"
like "$(cat "$T"/log/query*.log)" "exceed the query worker's memory budget" \
    "... vectors over the budget are not kept (lexical answers)"
ctxd_stop
segments_back "$T/segments.kept"
ctxd_start
# (vectors a segment does not hold yet, a version's shared ones, are built and over the budget)
like "$(ask3)" 'TWONOTES' "... and the mapped segments within that budget answer (v2.0 its own notes)"
ctxd_stop
unset CTXD_TEST_SEARCH_PRIVATE_BYTES
ctxd_start

# --- main changes a shared file and copies another one ----------------------------------------
# beta.md changes: its old snippets move to a version. docs/charlie.md is new, with the
# text of docs/deep/shared/charlie.md: main's pass prefers the shallower path and hides the
# deeper one, which the versions show: they get their copy first.
ask $LIB/v1.0 'CHARLIEWORD compaction' >/dev/null	# v1.0 is loaded in a query process
page Beta BETANEW | put docs/beta.md
page Charlie CHARLIEWORD | put docs/charlie.md
commit four
CM=$(git -C "$work" rev-parse HEAD)
beta_ids=$(_sql "SELECT group_concat(CAST(id AS text)) FROM snippets WHERE library_id = '$LIB' AND
    text LIKE '%BETAWORD%'")
is "$(http POST "$BASE/api/libraries$LIB/refresh" -H "Authorization: Bearer $ADMIN")" 202 \
    "re-index main"
worker vg
is "$(_sql "SELECT indexed_commit FROM libraries WHERE id = '$LIB'")" "$CM" "main is indexed"
is "$(_sql "SELECT group_concat(DISTINCT library_id) FROM snippets WHERE id IN ($beta_ids)")" \
    "$LIB/v1.0" "main's old beta.md snippets (same ids) now belong to v1.0"
is "$(_sql "SELECT count(*) FROM documents d JOIN snippets s ON s.document_id = d.id WHERE
    d.library_id = '$LIB/v1.0' AND d.path = 'docs/beta.md' AND d.snippets_from IS NULL")" 2 \
    "... to its beta.md document"
is "$(_sql "SELECT d.library_id FROM documents d JOIN documents o ON o.id = d.snippets_from
    WHERE d.path = 'docs/beta.md'")" "$LIB/v2.0" "v2.0 shows them from there"
like "$(ask $LIB/v1.0 'BETAWORD storage engine')" "BETAWORD.*Source: [^ ]*$C1/docs/beta.md" \
    "v1.0 answers the old text of the changed file"
like "$(ask $LIB/v2.0 'BETAWORD storage engine')" "Source: [^ ]*$C2/docs/beta.md" "so does v2.0"
unlike "$(ask $LIB 'BETAWORD BETANEW storage engine')" 'BETAWORD' "main answers the new text only"
is "$(_sql "SELECT count(*) FROM documents WHERE path = 'docs/deep/shared/charlie.md' AND
    snippets_from IS NOT NULL")" 0 "no version shows main's deep charlie.md any more"
is "$(_sql "SELECT count(*) FROM snippets s JOIN documents d ON d.id = s.document_id WHERE
    d.path = 'docs/deep/shared/charlie.md' AND s.dup_of IS NULL") $(_sql "SELECT count(*) FROM
    snippets s JOIN documents d ON d.id = s.document_id WHERE d.library_id = '$LIB' AND
    d.path = 'docs/deep/shared/charlie.md' AND s.dup_of IS NOT NULL")" "4 2" \
    "each version has its own kept copy; main's are duplicates"
like "$(joblog $LIB)" "$LIB/v[12].0 now has its own copy of files it showed from $LIB" \
    "the job log says so"
after_cm=$(ask $LIB/v1.0 'CHARLIEWORD compaction')
like "$after_cm" "Source: [^ ]*$C1/docs/deep/shared/charlie.md" \
    "the query process answers v1.0 from its copy"
is "$(grep -c '^### ' <<<"$after_cm")" "$(grep -c '^### ' <<<"$before_cm")" "... as before"
like "$(ask $LIB 'CHARLIEWORD compaction')" "Source: [^ ]*$CM/docs/charlie.md" \
    "main answers from the shallower copy"
for v in "" /v1.0 /v2.0; do consistent $LIB$v; done
is "$(texts | grep -c 'CHARLIEWORD setting tunes\|Read CHARLIEWORD together')" 2 "no CHARLIEWORD text was embedded again"
is "$(index_check)" ok "each index segment holds exactly its rows' tokens after the moves and copies"

# --- deleting the version that owns moved snippets ---------------------------------------------
main_answer=$(ask $LIB 'ALPHAWORD storage engine')
v2_beta=$(ask $LIB/v2.0 'BETAWORD storage engine')
is "$(http DELETE "$BASE/api/libraries$LIB/v1.0" -H "Authorization: Bearer $ADMIN")" 202 \
    "delete v1.0"
worker
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '$LIB/v1.0'")" 0 "v1.0 is deleted"
is "$(_sql "SELECT group_concat(DISTINCT library_id) FROM snippets WHERE id IN ($beta_ids)")" \
    "$LIB/v2.0" "the old beta.md snippets moved to v2.0"
is "$(ask $LIB/v2.0 'BETAWORD storage engine')" "$v2_beta" "v2.0 answers them as before"
is "$(ask $LIB 'ALPHAWORD storage engine')" "$main_answer" "main answers as before"
for v in "" /v2.0; do consistent $LIB$v; done
is "$(index_check)" ok "... and after the version's delete moved them"

# --- deleting the library ----------------------------------------------------------------------
is "$(http DELETE "$BASE/api/libraries$LIB" -H "Authorization: Bearer $ADMIN")" 202 \
    "delete the library"
worker
is "$(_sql "SELECT count(*) FROM libraries WHERE id LIKE '$LIB%'")" 0 "the library and its versions are gone"
is "$(_sql "SELECT (SELECT count(*) FROM documents) || ' ' || (SELECT count(*) FROM snippets) || ' ' ||
    (SELECT count(*) FROM snippet_flags) || ' ' || (SELECT count(*) FROM embeddings) || ' ' ||
    (SELECT count(*) FROM vectors)")" \
    "0 0 0 0 0" "no document, snippet, flags, embeddings row or vector is left"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	is "$(_sql 'PRAGMA integrity_check')" ok "the database is sound"
fi
is "$(index_check)" ok "... and so are its index segments"

done_testing
