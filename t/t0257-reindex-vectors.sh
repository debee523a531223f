#!/usr/bin/env bash
# Answers between a re-index's write and its embed step: the write deletes the library's
# snippets (and their vectors) and inserts new ones; until the embed step gives the library a
# new embed_version, a query process must not fuse the vectors it holds for the deleted
# snippets (bench/soak saw those answer 500). The worker is stopped (SIGSTOP) once the new
# index is committed and before its vectors are written; every answer meanwhile is 200 with
# snippets of the new index.
. "$top_srcdir/t/lib/harness.sh"
require_cmd node curl jq git nginx fcgiwrap

ctxd_setup
standin_start
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
# Sources that name the commit (the test git server has no known web layout).
ctxd_admin settings set git.web_url_template '{repo}/src/commit/{commit}/{path}' >/dev/null
ctxd_admin settings set ai.llm.provider openai >/dev/null || bail_out "cannot set the provider"
ctxd_admin settings set ai.llm.base_url "$SBASE" >/dev/null || bail_out "cannot set base_url"
ctxd_admin settings set ai.embed.model emb-reindex >/dev/null || bail_out "cannot set the model"
printf 'sk-good-%s\n' "$(openssl rand -hex 4)" | ctxd_admin settings set ai.llm.api_key - \
    >/dev/null || bail_out "cannot set the key"
ADMIN=$(ctxd_admin key create --admin tests)
LIB=/corpora/curl
url=$(gitserver_add_bundle curl public)
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$url\"}" >/dev/null
# A second library after it: the re-index's new snippets get ids after all of these (SQLite
# reuses the highest ids only), so the ids of the vectors held for the old ones are gone.
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$(gitserver_add_bundle requests public)\"}" >/dev/null
"$top_builddir/ctxd-worker" 2>"$T/log/worker1.log"
is "$(_sql "SELECT count(*) FROM embeddings")" "$(_sql "SELECT count(*) FROM snippets WHERE dup_of IS NULL")" \
    "every snippet has a vector"

questions=("send a json body with a POST request" "set a timeout for the transfer"
    "follow redirects" "upload a file with FTP" "use a proxy with authentication")
# ask_all LABEL: every question, several times (both query workers load the vectors); each
# answer must be 200 with Source lines of the commit now indexed.
ask_all() {
	local q i code bad=0 commit
	commit=$(_sql "SELECT indexed_commit FROM libraries WHERE id = '$LIB'")
	for ((i = 0; i < 4; i++)); do
		for q in "${questions[@]}"; do
			code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=$LIB \
			    --data-urlencode "query=$q" --data-urlencode fast=true)
			if [ "$code" != 200 ] || ! http_body | grep -q "^Source: \(.*/\)\?$commit/"; then
				bad=$((bad + 1))
				[ "$bad" -le 3 ] && diag "$q: $code $(http_body | head -c 200)"
			fi
		done
	done
	is "$bad" 0 "$1: every answer is 200 from the index served"
}
ask_all "before the re-index"

# A new commit, and a forced re-index; stop the worker when the index is committed.
work=$T/curl-work
git clone -q "$T/gitsrv/public/corpora/curl.git" "$work"
printf '\n# Wombat option\n\nThe wombat option makes transfers calmer.\n' >>"$work/docs/FAQ.md"
git -C "$work" -c user.email=t@example.com -c user.name=t commit -qam wombat
git -C "$work" push -q origin main
http POST "$BASE/api/libraries/corpora/curl/refresh?force=true" -H "Authorization: Bearer $ADMIN" >/dev/null
job=$(http_body | jq -r .jobId)
"$top_builddir/ctxd-worker" 2>"$T/log/worker2.log" &
wpid=$!
stopped=no
for ((i = 0; i < 3000; i++)); do
	if [ -n "$(_sql "SELECT 1 FROM job_log WHERE job_id = $job AND line LIKE 'indexed commit %'")" ]; then
		kill -STOP "$wpid" && stopped=yes
		break
	fi
	_alive "$wpid" || break
	sleep 0.01
done
is "$stopped" yes "the worker is stopped after writing the index"
embedded=$(_sql "SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id WHERE s.library_id = '$LIB'")
total=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND dup_of IS NULL")
if [ "$stopped" = yes ] && [ "$embedded" -lt "$total" ]; then
	ask_all "between the write and the vectors ($embedded of $total snippets have one)"
else
	skip "the embed step ended before the worker could be stopped ($embedded of $total)"
fi
kill -CONT "$wpid" 2>/dev/null
wait "$wpid"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "the re-index ends done"
ask_all "after the re-index"

done_testing
