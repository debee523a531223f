#!/usr/bin/env bash
# Index segments (docs/DESIGN.md, "Index segments"): an index run writes the library's
# segment; query workers answer from it exactly as from the database; a corrupt segment is
# refused and the answer still comes (built from the database); the next run rewrites it; a
# worker killed while writing a segment leaves the previous one in use.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle curl public)
parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "$1"
}
is "$(parse "{\"repoUrl\": \"$url\"}")" 202 "parse curl"
"$top_builddir/ctxd-worker" 2>"$T/log/worker1.log"
is "$(wait_job /corpora/curl)" finalized "indexed"
segname() {
	_sql "SELECT lib_no || '-' || index_version || '.seg' FROM libraries WHERE id = '/corpora/curl'"
}
seg=$DATA_DIR/segments/$(segname)
ok "$([ -s "$seg" ]; echo $?)" "the segment $(basename "$seg") is written"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE library_id = '/corpora/curl')")" \
    'index segment written in [0-9]+ ms' "the job's log has the segment's time"

QS=("curl send json body" "How do I make curl retry when the server answers 503?"
    "set a timeout for the connection" "CURLOPT_URL" "proxy authentication")
answers() {
	local q
	for q in "${QS[@]}"; do
		http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
		    --data-urlencode "query=$q" --data-urlencode type=json >/dev/null
		http_body
		echo
	done
}
answers >"$T/mapped.txt"
like "$(wc -c <"$T/mapped.txt")" '^[0-9]{4,}$' "answers from the segment"

# The same answers built from the database (fresh workers, no segment).
ctxd_stop
mv "$seg" "$T/saved.seg"
ctxd_start
answers >"$T/built.txt"
ok "$(cmp -s "$T/mapped.txt" "$T/built.txt"; echo $?)" \
    "the answers from the segment are those built from the database"
[ -s "$T/built.txt" ] && ! cmp -s "$T/mapped.txt" "$T/built.txt" && diag "$(diff "$T/mapped.txt" "$T/built.txt" | head -20)"

# A corrupt segment: refused (logged), the answer is built from the database.
ctxd_stop
cp "$T/saved.seg" "$seg"
size=$(stat -c %s "$seg")
printf 'XXXX' | dd of="$seg" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
ctxd_start
answers >"$T/corrupt.txt"
ok "$(cmp -s "$T/mapped.txt" "$T/corrupt.txt"; echo $?)" "a corrupt segment: the same answers"
like "$(cat "$T/log/query.log")" 'checksum mismatch' "the query worker says why it refused the segment"

# The next index run (nothing changed) rewrites it.
is "$(parse "{\"repoUrl\": \"$url\"}")" 202 "re-parse, unchanged"
"$top_builddir/ctxd-worker" 2>"$T/log/worker2.log"
is "$(wait_job /corpora/curl)" finalized "re-run done"
is "$(basename "$seg")" "$(segname)" "same version"
ok "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" "the corrupt segment is rewritten whole"

# A worker killed while it writes the next version's segment leaves the previous one in use.
work=$T/curl-work
git clone -q "$T/gitsrv/public/corpora/curl.git" "$work"
printf '\n# Quokka option\n\nThe quokka option makes transfers happier.\n' >>"$work/docs/FAQ.md"
git -C "$work" -c user.email=t@example.com -c user.name=t commit -qam quokka
git -C "$work" push -q origin main
is "$(parse "{\"repoUrl\": \"$url\"}")" 202 "re-parse, new commit"
CTXD_TEST_SEGMENT_STALL=1 "$top_builddir/ctxd-worker" 2>"$T/log/worker3.log" &
wpid=$!
for ((i = 0; i < 1200; i++)); do
	compgen -G "$DATA_DIR/segments/.*.tmp" >/dev/null && break
	sleep 0.1
done
ok "$(compgen -G "$DATA_DIR/segments/.*.tmp" >/dev/null; echo $?)" "the worker is writing a segment"
kill -9 "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
sleep 0.5
newseg=$DATA_DIR/segments/$(segname)
ok "$([ "$newseg" != "$seg" ] && [ ! -e "$newseg" ]; echo $?)" "the new version's segment is not in place"
ok "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" "the previous segment is intact"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
    --data-urlencode "query=quokka option")
is "$code" 200 "the library answers after the kill"

# The next run writes the new version's segment, removes the old one and the dead writer's
# temporary file.
is "$(parse "{\"repoUrl\": \"$url\", \"excludeFiles\": [\"none.md\"]}")" 202 "re-parse again"
"$top_builddir/ctxd-worker" 2>"$T/log/worker4.log"
is "$(wait_job /corpora/curl)" finalized "re-run done"
newseg=$DATA_DIR/segments/$(segname)
ok "$([ -s "$newseg" ]; echo $?)" "the new version's segment is written"
ok "$([ ! -e "$seg" ] || [ "$seg" = "$newseg" ]; echo $?)" "the old version's segment is removed"
ok "$(compgen -G "$DATA_DIR/segments/.*.tmp" >/dev/null; [ $? -ne 0 ]; echo $?)" \
    "the dead writer's temporary file is removed"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
    --data-urlencode "query=quokka option")
like "$(http_body)" 'quokka option makes transfers happier' "the new content is served"

# ctxd-admin doctor removes segments no library version names and checks the others.
cp "$newseg" "$DATA_DIR/segments/999-1.seg"
ctxd_admin doctor >"$T/doctor.out" 2>&1
like "$(cat "$T/doctor.out")" 'ok +segments: 1 of 1 indexed libraries, [0-9.]+ MB; 1 unused file removed' \
    "doctor: the segments in use, one unused removed"
ok "$([ ! -e "$DATA_DIR/segments/999-1.seg" ] && [ -s "$newseg" ]; echo $?)" \
    "doctor: the unused one is gone, the one in use stays"
size=$(stat -c %s "$newseg")
printf 'XXXX' | dd of="$newseg" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
ctxd_admin doctor >"$T/doctor.out" 2>&1
like "$(cat "$T/doctor.out")" "segment of /corpora/curl \\($(basename "$newseg")\\): body checksum mismatch" \
    "doctor: a damaged segment is reported"

done_testing
