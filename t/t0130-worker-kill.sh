#!/usr/bin/env bash
# A worker killed in the middle of a run leaves the previous index served; the next worker sees
# the unfinished run and re-indexes. Also: one worker at a time (the lock).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
# Sources that name the commit (the test git server has no known web layout).
ctxd_admin settings set git.web_url_template '{repo}/src/commit/{commit}/{path}' >/dev/null
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle curl public)
parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "$1"
}
is "$(parse "{\"repoUrl\": \"$url\"}")" 202 "parse curl"
"$top_builddir/ctxd-worker" 2>"$T/log/worker1.log"
is "$(wait_job /corpora/curl)" finalized "first index done"
old_commit=$(_sql "SELECT indexed_commit FROM libraries WHERE id = '/corpora/curl'")
old_count=$(_sql "SELECT total_snippets FROM libraries WHERE id = '/corpora/curl'")
old_rows=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '/corpora/curl'")

# A new commit, and new settings so that the whole repository is parsed again.
work=$T/curl-work
git clone -q "$T/gitsrv/public/corpora/curl.git" "$work"
printf '\n# Quokka option\n\nThe quokka option makes transfers happier.\n' >>"$work/docs/FAQ.md"
git -C "$work" -c user.email=t@example.com -c user.name=t commit -qam quokka
git -C "$work" push -q origin main

killed=no
for try in 1 2 3; do
	is "$(parse "{\"repoUrl\": \"$url\", \"excludeFiles\": [\"try$try.md\"]}")" 202 "re-parse (try $try)"
	job=$(http_body | jq -r .jobId)
	"$top_builddir/ctxd-worker" 2>"$T/log/worker-kill.log" &
	wpid=$!
	# Kill it as soon as it has started the job, before it can commit.
	for ((i = 0; i < 2000; i++)); do
		[ "$(_sql "SELECT state FROM jobs WHERE id = $job")" = running ] && break
		sleep 0.005
	done
	kill -9 "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	if [ "$(_sql "SELECT state FROM jobs WHERE id = $job")" = running ]; then
		killed=yes
		break
	fi
done
is "$killed" yes "the worker was killed in the middle of a job"
is "$(_sql "SELECT run_status FROM libraries WHERE id = '/corpora/curl'")" running \
    "the killed run is left marked running"
is "$(_sql "SELECT indexed_commit FROM libraries WHERE id = '/corpora/curl'")" "$old_commit" \
    "the previous index is still the one served"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
    --data-urlencode "query=curl send json body")
is "$code" 200 "context still answers after the kill"
like "$(http_body)" "Source: [^ ]*$old_commit/docs/cmdline-opts/json.md" "from the previous index"
is "$(_sql "SELECT total_snippets FROM libraries WHERE id = '/corpora/curl'")" "$old_count" \
    "snippet count unchanged"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	is "$(_sql "PRAGMA integrity_check")" ok "the database is intact"
else
	# (PostgreSQL has no integrity check of its files: the killed run left no row behind.)
	is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '/corpora/curl'")" "$old_rows" \
	    "the killed run left no row in the database"
fi

# The lock: a second worker exits at once while one holds it.
exec 9>"$DATA_DIR/worker.lock"
flock -n 9
start=$SECONDS
"$top_builddir/ctxd-worker"
is $? 0 "a worker finding the lock taken exits 0"
ok "$([ $((SECONDS - start)) -lt 5 ]; echo $?)" "and at once"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" running "without touching the jobs"
exec 9>&-

# The next worker recovers: the job is run again in full and the new commit is served.
"$top_builddir/ctxd-worker" 2>"$T/log/worker3.log"
is $? 0 "the next worker runs"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "the interrupted job is done"
is "$(_sql "SELECT run_status FROM libraries WHERE id = '/corpora/curl'")" ok "run status ok"
is "$(_sql "SELECT indexed_commit FROM libraries WHERE id = '/corpora/curl'")" \
    "$(git -C "$work" rev-parse HEAD)" "the new commit is indexed"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
    --data-urlencode "query=quokka option")
like "$(http_body)" 'quokka option makes transfers happier' "the new content is served"

# A job that keeps killing the worker is given up after three starts; the index is kept.
_sql "UPDATE jobs SET state = 'running', attempts = 3 WHERE id = $job;
    UPDATE libraries SET run_status = 'running' WHERE id = '/corpora/curl';"
"$top_builddir/ctxd-worker" 2>>"$T/log/worker3.log"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" failed "a job started three times fails"
like "$(_sql "SELECT message FROM jobs WHERE id = $job")" 'stopped before the end of this job 3 times' \
    "and says why"
is "$(_sql "SELECT state || ' ' || run_status FROM libraries WHERE id = '/corpora/curl'")" \
    "finalized failed" "the library keeps its index and shows the failed run"
is "$(_sql "SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')")" 0 "nothing is left queued"
is "$(http GET "$BASE/api/v2/context?libraryId=/corpora/curl&query=quokka")" 200 "the index is still served"
is "$(index_check)" ok "each index segment is its rows' after the kills"

done_testing
