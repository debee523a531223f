#!/usr/bin/env bash
# Hostile repositories with the real worker and a real git
# server. (1) A 100 KB file of 25,000 identical '# a' headings no longer stops indexing:
# the repository indexes in seconds, and 5,000 repeated headings get the anchors a, a-1,
# ... a-4999. (2) A file name holding a newline forges no line in worker.log nor in the
# job log: control characters are escaped. (3) The job log's counts add up when files are
# skipped (over the size limit, binary) instead of underflowing. (4) A cancel while the
# worker is inside one slow file ends the job within about a second, and a job past its
# deadline (limits.job_timeout_s) fails while parsing with a message naming the setting.
# The slow file is made slow by CTXD_TEST_PARSE_SLEEP_US (a test-only knob: every parser
# check sleeps that long), since a linear parser is never slow on a file within the limits.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

# repo NAME: commits the files of $T/w/NAME and serves them as /git/public/t/NAME.git.
repo() {
	local w=$T/w/$1 dir=$T/gitsrv/public/t/$1.git
	git -C "$w" init -q -b main && git -C "$w" add -A &&
	    git -C "$w" -c user.name=t -c user.email=t@t commit -qm files ||
	    bail_out "cannot commit $1"
	mkdir -p "${dir%/*}"
	git clone -q --bare "$w" "$dir" && git -C "$dir" update-server-info ||
	    bail_out "cannot serve $1"
	echo "$GITBASE/public/t/$1.git"
}
# parse URL: queues the parse; prints the job id.
parse() {
	is "$(http POST "$BASE/api/parse" -H "$A" -H "$J" --data "{\"repoUrl\": \"$1\"}")" 202 \
	    "parse $1: 202" >&2
	http_body | jq -r .jobId
}
NL=$'\n' CR=$'\r'
job_sql() { _sql "SELECT $2 FROM jobs WHERE id = $1"; }
joblog() { _sql "SELECT line FROM job_log WHERE job_id = $1 ORDER BY id"; }
# wait_for SQL WANT SECONDS: until the query answers WANT; 0 when it did.
wait_for() {
	local deadline=$((SECONDS + $3)) got=""
	while [ "$SECONDS" -lt "$deadline" ]; do
		got=$(_sql "$1" 2>/dev/null || true)
		[ "$got" = "$2" ] && return 0
		sleep 0.1
	done
	diag "wait_for: '$1' is '$got', not '$2' after $3 s"
	return 1
}

# --- a hostile repository ------------------------------------------------------------------
w=$T/w/hostile
mkdir -p "$w/docs"
printf '# a\n%.0s' $(seq 25000) >"$w/docs/headings.md"
printf '# a\nx\n%.0s' $(seq 5000) >"$w/docs/repeats.md"
printf '# Guide\n\nInstall it with `make install`.\n\n## Usage\n\nRun it.\n' >"$w/docs/normal.md"
head -c 300000 /dev/zero | tr '\0' 'x' | fold -w 80 >"$w/docs/big.md"
printf '# Binary\n\0\1\2\3 not text\n' >"$w/docs/binary.md"
# a name that would forge a worker.log line, in a binary file so that the worker logs it
printf 'x\0y\n' >"$w/docs/a
FAKE worker: line.md"
# a name with a backslash and an n: logged as \\n, never as the escape of a newline
printf 'x\0y\n' >"$w/docs/"'c\nFAKE.md'
is "$(ls "$w/docs" | wc -l)" 8 "the repository holds 7 files (one name spans two lines)"
url=$(repo hostile)
ctxd_admin settings set limits.max_file_kb 200 >/dev/null

job=$(parse "$url")
t0=$SECONDS
"$top_builddir/ctxd-worker" 2>"$T/log/worker1.log"
is $? 0 "the worker exits 0"
took=$((SECONDS - t0))
is "$(job_sql "$job" state)" done "the job is done"
ok "$([ "$took" -le 20 ]; echo $?)" "in seconds ($took s), not minutes"
joblog "$job" >"$T/joblog1"
grep -q '^skipped docs/big.md: [0-9]* bytes is more than the limit of 200 KB' "$T/joblog1"
ok $? "the over-size file is skipped"
grep -q '^skipped docs/binary.md: it is a binary file$' "$T/joblog1"
ok $? "the binary file is skipped"
counts=$(sed -n 's/^\([0-9]*\) documentation files: \([0-9]*\) parsed, \([0-9]*\) unchanged, \([0-9]*\) skipped$/\1 \2 \3 \4/p' "$T/joblog1")
is "$counts" "7 3 0 4" "7 documentation files: 3 parsed, 0 unchanged, 4 skipped"
read -r n p u s <<<"${counts:-0 0 0 0}"
is "$((p + u + s))" "$n" "the counts add up"

# (2) no forged line
grep -n '^FAKE' "$T/log/worker1.log"
is $? 1 "worker.log has no line forged by the file name"
grep -qF 'skipped docs/a\nFAKE worker: line.md: it is a binary file' "$T/log/worker1.log"
ok $? "it has the name with its newline escaped"
# (the newline and the carriage return as they are: char(10) is SQLite's alone)
is "$(_sql "SELECT count(*) FROM job_log WHERE job_id = $job AND (instr(line, '$NL') > 0 OR instr(line, '$CR') > 0)")" 0 \
    "no job log line holds a newline"
grep -qF 'skipped docs/a\nFAKE worker: line.md: it is a binary file' "$T/joblog1"
ok $? "the job log has the escaped name"
grep -qF 'skipped docs/c\\nFAKE.md: it is a binary file' "$T/log/worker1.log"
ok $? "a backslash in a name is doubled in worker.log (\\n is not a newline's escape)"
grep -qF 'skipped docs/c\\nFAKE.md: it is a binary file' "$T/joblog1"
ok $? "and in the job log"
is "$(http GET "$BASE/api/jobs/$job/log" -H "$A")" 200 "the job log over the API"
is "$(http_body | jq -r '.lines[].line' | grep -c '^FAKE')" 0 "forges no line either"

# (1) the headings
LIB=/t/hostile
is "$(_sql "SELECT count(*) FROM snippets s JOIN documents d ON d.id = s.document_id WHERE d.path = 'docs/repeats.md'")" 5000 \
    "5,000 repeated headings: 5,000 snippets"
is "$(_sql "SELECT count(DISTINCT s.anchor) FROM snippets s JOIN documents d ON d.id = s.document_id WHERE d.path = 'docs/repeats.md'")" 5000 \
    "each with its own anchor"
is "$(_sql "SELECT group_concat(anchor, ' ') FROM (SELECT s.anchor FROM snippets s JOIN documents d ON d.id = s.document_id WHERE d.path = 'docs/repeats.md' ORDER BY s.ord LIMIT 3) AS r")" \
    "a a-1 a-2" "a, a-1, a-2, ..."
is "$(_sql "SELECT s.anchor FROM snippets s JOIN documents d ON d.id = s.document_id WHERE d.path = 'docs/repeats.md' ORDER BY s.ord DESC LIMIT 1")" \
    "a-4999" "... a-4999"
grep -c 'headings.md' "$T/joblog1"
is $? 1 "the 25,000-heading file is parsed, not skipped"
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$LIB" --data-urlencode "query=install make")" 200 \
    "the library answers"
like "$(http_body)" 'make install' "with the normal file's text"

# counts PATTERN JOB: "files parsed unchanged skipped" of the job's log.
counts() {
	joblog "$1" | sed -n 's/^\([0-9]*\) documentation files: \([0-9]*\) parsed, \([0-9]*\) unchanged, \([0-9]*\) skipped$/\1 \2 \3 \4/p'
}
# With the limit raised, a parse of the same commit reads the skipped file again (a run that
# skipped files over a limit is not recorded as the index of its settings).
ctxd_admin settings unset limits.max_file_kb >/dev/null
job=$(parse "$url")
"$top_builddir/ctxd-worker" 2>"$T/log/worker2.log"
is "$(counts "$job")" "7 4 0 3" "the limit raised: 4 parsed, the 3 binary files skipped"
# A new commit that changes one file: the others are unchanged, and counted so.
printf '# Guide\n\nInstall it with `make install` or `make all`.\n' >"$T/w/hostile/docs/normal.md"
git -C "$T/w/hostile" -c user.name=t -c user.email=t@t commit -qam change &&
    git -C "$T/w/hostile" push -q "$T/gitsrv/public/t/hostile.git" main &&
    git -C "$T/gitsrv/public/t/hostile.git" update-server-info || bail_out "cannot push"
job=$(parse "$url")
"$top_builddir/ctxd-worker" 2>"$T/log/worker3.log"
read -r n p u s <<<"$(counts "$job")"
is "$n $((p + u + s)) $s" "7 7 3" "an incremental run: the counts add up ($n: $p parsed, $u unchanged, $s skipped)"
ok "$([ "${u:-0}" -ge 2 ] && [ "${u:-0}" -lt 1000 ]; echo $?)" "the unchanged files are counted ($u)"

# --- cancel inside one slow file --------------------------------------------------------------
w=$T/w/slow
mkdir -p "$w/docs"
for i in $(seq 3000); do printf -- '- item %d\n' "$i"; done >"$w/docs/slow.md"
url=$(repo slow)
job=$(parse "$url")
CTXD_TEST_PARSE_SLEEP_US=5000 "$top_builddir/ctxd-worker" 2>"$T/log/worker4.log" &
wpid=$!
wait_for "SELECT count(*) > 0 FROM job_log WHERE job_id = $job AND line LIKE 'branch % is at commit %'" 1 60
ok $? "the worker fetched the repository"
sleep 1.5	# well inside the file: its 3,000 lines take 15 s at 5 ms a check
is "$(http POST "$BASE/api/jobs/$job/cancel" -H "$A")" 202 "cancel the running job: 202"
t0=$(date +%s%N)
wait_for "SELECT state FROM jobs WHERE id = $job" cancelled 20
ok $? "the job ends cancelled"
ms=$((($(date +%s%N) - t0) / 1000000))
ok "$([ "$ms" -le 2500 ]; echo $?)" "within about a second ($ms ms), inside the file"
wait "$wpid"
is $? 0 "the worker exits 0"
joblog "$job" >"$T/joblog3"
grep -q '^stopped while parsing docs/slow.md$' "$T/joblog3"
ok $? "the job log names the file it stopped in"
is "$(job_sql "$job" message)" "cancelled while parsing: nothing was written; the library has no index" \
    "the job's message"

# --- the deadline inside one slow file --------------------------------------------------------
ctxd_admin settings set limits.job_timeout_s 10 >/dev/null
job=$(parse "$url")
t0=$SECONDS
CTXD_TEST_PARSE_SLEEP_US=5000 "$top_builddir/ctxd-worker" 2>"$T/log/worker5.log"
is $? 0 "the worker exits 0 (it was not killed by its alarm)"
took=$((SECONDS - t0))
is "$(job_sql "$job" state)" failed "a job past its deadline fails"
ok "$([ "$took" -le 9 ]; echo $?)" "before the worker's alarm ($took s of 10)"
like "$(job_sql "$job" message)" '^the job ran out of time while parsing docs/slow.md: it may take 10 s \(setting limits.job_timeout_s\); nothing was written$' \
    "the message names the file and the setting"
ctxd_admin settings unset limits.job_timeout_s >/dev/null

! grep -lE 'Sanitizer|runtime error' "$T"/log/worker*.log
ok $? "no sanitizer report in the worker runs"

done_testing
