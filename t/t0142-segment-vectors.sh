#!/usr/bin/env bash
# The vectors in an index segment (docs/DESIGN.md, "Index segments"; lib/search/vecseg.c), with
# the vendors' stand-in as the embedder: the worker writes the library's vectors into its
# segment after the embed step; query workers answer hybrid questions from the mapped vectors
# byte for byte as from the vectors built from the database, and still do when the
# embeddings rows are gone (so the vectors are read from the segment; without it the same
# questions get other, lexical, answers). Vectors of another embed version are not used: the
# answer is built from the database until the worker has written the segment again, which a
# running query worker then maps, dropping its mapping of the replaced file. On PostgreSQL
# the worker also stores the segment in the database (lib/store/segstore.c), where a query
# worker without the file fetches it: "no segment" there means neither the file nor the copy.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node openssl sqlite3

ctxd_setup
standin_start
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
standin_embedder emb-seg
LIB=/corpora/curl
url=$(gitserver_add_bundle curl public)
parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "$1"
}
is "$(parse "{\"repoUrl\": \"$url\"}")" 202 "parse curl"
"$top_builddir/ctxd-worker" 2>"$T/log/worker1.log"
is "$(wait_job $LIB)" finalized "indexed and embedded"
seg=$DATA_DIR/segments/$(_sql "SELECT lib_no || '-' || index_version || '.seg' FROM libraries
    WHERE id = '$LIB'")
ok "$([ -s "$seg" ]; echo $?)" "the segment $(basename "$seg") is written"
nemb=$(_sql "SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id
    WHERE s.library_id = '$LIB' AND e.model = 'emb-seg'")
like "$nemb" '^[0-9]{3,}$' "the snippets have vectors ($nemb)"
ctxd_admin doctor >"$T/doctor.out" 2>&1
like "$(cat "$T/doctor.out")" "ok +segments: 1 of 1 indexed libraries, [0-9.]+ MB; 0 unused files removed; vectors in 1 \\($nemb vectors\\)" \
    "doctor: the segment holds every vector"

QS=("curl send json body" "How do I make curl retry when the server answers 503?"
    "set a timeout for the connection" "CURLOPT_URL" "proxy authentication"
    "upload a file with a form post" "verbose output for debugging TLS")
# and curl's questions of the dev set (bench/eval)
mapfile -t -O "${#QS[@]}" QS < <(jq -r '.[] | select(.corpus == "curl") | .q' \
    "$CORPORA/dev-questions.json")
answers() {
	local q
	for q in "${QS[@]}"; do
		http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=$LIB \
		    --data-urlencode "query=$q" --data-urlencode type=json \
		    --data-urlencode fast=true >/dev/null
		http_body
		echo
	done
}
same() {	# same A B WHAT: files A and B are equal (else the start of their diff)
	ok "$(cmp -s "$1" "$2"; echo $?)" "$3"
	cmp -s "$1" "$2" || diag "$(diff "$1" "$2" | head -10)"
}
answers >"$T/seg.txt"
is "$(grep -c . "$T/seg.txt")" "${#QS[@]}" "${#QS[@]} questions answered"
like "$(wc -c <"$T/seg.txt")" '^[0-9]{4,}$' "hybrid answers from the segment's vectors"

# unstore: on PostgreSQL, the database's copy of the segment goes too.
unstore() {
	[ "$(ctxd_test_engine)" = sqlite ] ||
	    _sql "DELETE FROM segment_files WHERE name = '$(basename "$seg")'" >/dev/null
}
# Byte for byte as from the vectors built from the database (fresh workers, no segment).
ctxd_stop
mv "$seg" "$T/saved.seg"
unstore
ctxd_start
answers >"$T/built.txt"
same "$T/seg.txt" "$T/built.txt" "the same answers with the vectors built from the database"

# The vectors are read from the segment: without the embeddings rows, the same answers.
ctxd_stop
cp "$T/saved.seg" "$seg"
_sql "DELETE FROM embeddings WHERE snippet_id IN (SELECT id FROM snippets
    WHERE library_id = '$LIB')" >/dev/null
is "$(_sql "SELECT count(*) FROM embeddings")" 0 "the embeddings rows are deleted"
ctxd_start
answers >"$T/nodb.txt"
same "$T/seg.txt" "$T/nodb.txt" "the same answers from the segment without the embeddings rows"
ctxd_stop
rm -f "$seg"
unstore
ctxd_start
answers >"$T/lex.txt"
ok "$(! cmp -s "$T/seg.txt" "$T/lex.txt"; echo $?)" \
    "without the segment's vectors too, the answers differ (lexical only)"
diag "$(paste -d '\n' "$T/seg.txt" "$T/lex.txt" | paste - - | awk -F '\t' '$1 != $2' | wc -l) of ${#QS[@]} answers differ"

# Vectors of an older embed version are not used: built from the database (none now).
ctxd_stop
cp "$T/saved.seg" "$seg"
_sql "UPDATE libraries SET embed_version = (SELECT max(embed_version) + 1 FROM libraries)
    WHERE id = '$LIB'" >/dev/null
ctxd_start
answers >"$T/stale.txt"
same "$T/lex.txt" "$T/stale.txt" "vectors of another embed version are not used"

# The next run embeds again and rewrites the segment; while its writer is held before the
# rename, the answers come from the vectors built from the database; after it, the running
# query workers map the new file and let go of the replaced one.
ino=$(stat -c %i "$seg")
is "$(parse "{\"repoUrl\": \"$url\"}")" 202 "re-parse, unchanged"
CTXD_TEST_SEGMENT_STALL=1 "$top_builddir/ctxd-worker" 2>"$T/log/worker2.log" &
wpid=$!
for ((i = 0; i < 1200; i++)); do
	compgen -G "$DATA_DIR/segments/.*.tmp" >/dev/null && break
	sleep 0.1
done
ok "$(compgen -G "$DATA_DIR/segments/.*.tmp" >/dev/null; echo $?)" \
    "the worker is writing the segment"
answers >"$T/during.txt"
same "$T/seg.txt" "$T/during.txt" "meanwhile: hybrid answers from the vectors in the database"
wait "$wpid"
is "$(wait_job $LIB)" finalized "re-run done"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = (SELECT max(id)
    FROM jobs WHERE library_id = '$LIB')")" 'index segment written in [0-9]+ ms' \
    "the job's log has the segment's time"
ok "$([ -s "$seg" ] && [ "$(stat -c %i "$seg")" != "$ino" ]; echo $?)" \
    "the segment is replaced by a new file"
like "$(cat "$T/log/worker2.log")" 'is rewritten: its vectors are of the model at embed version' \
    "the worker says why it rewrote the segment"
# old_maps: mappings of the replaced file by the query workers
old_maps() {
	local p n=0
	for p in $(pgrep -f -- "$T/run/query.sock"); do
		n=$((n + $(grep -c -- "$(basename "$seg") (deleted)" "/proc/$p/maps" 2>/dev/null)))
	done
	echo "$n"
}
like "$(old_maps)" '^[1-9]' "the query workers still map the replaced file"
for ((i = 0; i < 20; i++)); do
	[ "$(old_maps)" = 0 ] && break
	answers >/dev/null
done
is "$(old_maps)" 0 "after a few questions no query worker maps the replaced file"
answers >"$T/after.txt"
same "$T/seg.txt" "$T/after.txt" "the answers from the new segment are the same"

done_testing
