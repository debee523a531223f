#!/usr/bin/env bash
# The index segments for an operator: `ctxd-admin index list` gives each library's segment
# and size, `ctxd-admin doctor` names a missing or damaged one and the command that writes
# it, `ctxd-admin index rebuild` writes it from the database (the same bytes an index run
# writes), and the support bundle lists the segments with their sizes.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap tar

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle curl public)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 "parse curl"
never=$(gitserver_add_bundle requests public)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$never\", \"branch\": \"no-such-branch\"}")" 202 \
    "parse a library whose index run fails (no such branch)"
"$top_builddir/ctxd-worker" 2>"$T/log/worker1.log"
is "$(wait_job /corpora/curl)" finalized "indexed"
is "$(wait_job /corpora/requests)" error "the other library's only index run failed"
seg=$DATA_DIR/segments/$(_sql "SELECT lib_no || '-' || index_version || '.seg' FROM libraries WHERE id = '/corpora/curl'")
ok "$([ -s "$seg" ]; echo $?)" "the index run wrote the segment"
cp "$seg" "$T/saved.seg"
mb=$(awk -v b="$(stat -c %s "$seg")" 'BEGIN { printf "%.1f", b / 1048576 }')

row() { ctxd_admin index list | awk -F'\t' -v id="$1" '$1 == id'; }
is "$(ctxd_admin index list | head -1)" "$(printf 'LIBRARY\tSTATE\tSNIPPETS\tSEGMENT_MB\tSEGMENT')" "index list: a header"
snips=$(_sql "SELECT total_snippets FROM libraries WHERE id = '/corpora/curl'")
is "$(row /corpora/curl)" "$(printf '/corpora/curl\tfinalized\t%s\t%s\tok' "$snips" "$mb")" \
    "index list: the library, its snippets, its segment's size, ok"
like "$(row /corpora/requests)" $'^/corpora/requests\t[a-z]+\t0\t0\\.0\tno index$' \
    "a library without a finished index run has no segment to write"
like "$(ctxd_admin doctor)" 'ok   segments: 1 of 1 indexed libraries' "doctor: the segment is whole"

# A missing segment: listed, named by the doctor with the command that writes it (on
# PostgreSQL, which stores it, not a fix: the next query fetches it).
rm -f "$seg"
like "$(row /corpora/curl)" $'\t0\\.0\tmissing$' "index list: missing"
out=$(ctxd_admin doctor); rc=$?
if [ "$(ctxd_test_engine)" = postgres ]; then
	like "$out" 'ok   segment cache: 1 segment stored in PostgreSQL .*, 1 not fetched yet' \
	    "doctor: the missing segment, stored in PostgreSQL: not fetched yet"
	unlike "$out" 'without a segment' "... not a fix"
else
	like "$out" 'FIX  segments: 1 indexed library without a segment .*`ctxd-admin index rebuild` writes them' \
	    "doctor: the missing segment and what writes it"
	isnt "$rc" 0 "doctor fails while it is missing"
fi
out=$(ctxd_admin index rebuild); rc=$?
is "$rc" 0 "index rebuild succeeds"
like "$out" '^/corpora/curl: .*\.seg written \(it was missing\), [0-9.]+ MB in [0-9]+ ms$' "and says what it wrote"
ok "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" "the rebuilt segment is the one the index run wrote, byte for byte"
like "$(row /corpora/curl)" $'\tok$' "index list: ok again"
like "$(ctxd_admin doctor)" 'ok   segments: 1 of 1' "doctor: whole again"

# A damaged segment: the check it fails, and a rebuild of that library rewrites it.
size=$(stat -c %s "$seg")
printf 'XXXX' | dd of="$seg" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
like "$(row /corpora/curl)" $'\tdamaged: .*checksum' "index list: damaged, and why"
like "$(ctxd_admin doctor)" 'FIX  segment of /corpora/curl \([0-9]+-[0-9]+\.seg\): .*checksum.*ctxd-admin index rebuild' \
    "doctor: the damaged segment, why, and the command"
like "$(ctxd_admin index rebuild /corpora/curl)" 'written \(it was damaged\)' "rebuild of the one library"
ok "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" "rewritten whole"
is "$(ctxd_admin index rebuild /corpora/curl)" "/corpora/curl: $seg is whole, kept" "a whole segment is kept"

# The worker writes a missing segment from the database when it runs with nothing queued
# (on PostgreSQL it fetches the one the index run stored there: lib/store/segstore.c).
got=written
[ "$(ctxd_test_engine)" = postgres ] && got=fetched
rm -f "$seg"
"$top_builddir/ctxd-worker" 2>"$T/log/worker2.log"
ok "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" "the worker wrote the missing segment, byte for byte"
like "$(cat "$T/log/worker2.log")" "segment of /corpora/curl $got from the database \\(it was missing\\)" \
    "... and said so"
is "$(cat "$DATA_DIR/segments/.checked")" "$(sed -n '1{s/^ctxd (//;s/).*//;p;}' "$top_srcdir/debian/changelog")" \
    "it checked every segment once for this version"
# A damaged one: left to the doctor once this version has checked them all (no reading of
# every segment a run), written by the first run after an upgrade.
printf 'XXXX' | dd of="$seg" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
"$top_builddir/ctxd-worker" 2>"$T/log/worker3.log"
isnt "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" 0 "a later run does not read every segment"
echo 0.0.1 >"$DATA_DIR/segments/.checked"
"$top_builddir/ctxd-worker" 2>"$T/log/worker4.log"
ok "$(cmp -s "$seg" "$T/saved.seg"; echo $?)" "the first run of a new version rewrites the damaged segment"
like "$(cat "$T/log/worker4.log")" "segment of /corpora/curl $got from the database \\(it was damaged: .*checksum" \
    "... saying why"

# Mistakes.
out=$(ctxd_admin index rebuild /corpora/nope 2>&1); rc=$?
is "$rc" 1 "rebuild of an unknown library fails"
like "$out" '/corpora/nope: no such library' "... naming it"
out=$(ctxd_admin index rebuild /corpora/requests 2>&1); rc=$?
is "$rc" 1 "rebuild of a library without an index fails"
like "$out" 'no index run has finished' "... saying why"
ctxd_admin index >/dev/null 2>&1; is "$?" 2 "index without a subcommand: usage"
ctxd_admin index list extra >/dev/null 2>&1; is "$?" 2 "index list takes no operand"
out=$(ctxd_admin index rebuild --all 2>&1); rc=$?
is "$rc" 2 "an unknown option is refused"

# The support bundle lists the segments with their sizes, no content.
is "$(http GET "$BASE/api/support-bundle" -H "Authorization: Bearer $ADMIN")" 200 "support bundle"
mkdir -p "$T/bundle" && tar -xzf "$T/http.body" -C "$T/bundle"
d=$(echo "$T"/bundle/ctxd-support-*)
is "$(jq -r '.[] | select(.id == "/corpora/curl") | [.status, .bytes, .segment] | @tsv' "$d/segments.json")" \
    "$(printf 'ok\t%s\t%s' "$(stat -c %s "$seg")" "$(basename "$seg")")" "segments.json: status, size, file"
is "$(jq -r '.[] | select(.id == "/corpora/requests") | [.status, (.segment | tostring)] | @tsv' "$d/segments.json")" \
    "$(printf 'no index\tnull')" "segments.json: a library without an index"
done_testing
