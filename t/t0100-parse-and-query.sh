#!/usr/bin/env bash
# Parse a corpus served by a real git server, wait for the worker, and check
# /api/v2/context and /api/v2/libs/search through nginx (text and JSON formats).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
like "$ADMIN" '^ctxd_[A-Za-z0-9_-]{43}$' "admin key has the ctxd_ prefix"

for corpus in vite requests curl; do
	url=$(gitserver_add_bundle "$corpus" public)
	code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")
	is "$code" 202 "parse $corpus: 202"
	is "$(http_body | jq -r .libraryId)" "/corpora/$corpus" "parse $corpus: libraryId"
	like "$(http_body | jq -r .jobId)" '^[0-9]+$' "parse $corpus: jobId"
	like "$(http_body | jq -r .message)" "queued" "parse $corpus: message"
done
for corpus in vite requests curl; do
	is "$(wait_job "/corpora/$corpus")" finalized "$corpus indexed"
done
is "$(_sql "SELECT run_status FROM libraries WHERE id = '/corpora/curl'")" ok \
    "curl run status ok"
like "$(_sql "SELECT total_snippets FROM libraries WHERE id = '/corpora/curl'")" \
    '^[0-9]{4,}$' "curl has thousands of snippets"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE library_id = '/corpora/curl')")" \
    'indexed commit [0-9a-f]{12}' "job log records the indexed commit"
commit=$(git -C "$T/gitsrv/public/corpora/curl.git" rev-parse main)
is "$(_sql "SELECT indexed_commit FROM libraries WHERE id = '/corpora/curl'")" "$commit" \
    "the indexed commit is the branch head"

# Questions of dev-questions.json with their expected files: a source among the first five
# snippets must be one of the expected files, and the answer must carry the expected tokens.
QUESTIONS=(curl-02 curl-06 curl-09 curl-17 vite-02 vite-09 vite-14 requests-03 requests-10 requests-14)
for qid in "${QUESTIONS[@]}"; do
	rec=$(jq -c --arg id "$qid" '.[] | select(.id == $id)' "$CORPORA/dev-questions.json")
	corpus=$(jq -r .corpus <<<"$rec")
	q=$(jq -r .q <<<"$rec")
	code=$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=/corpora/$corpus" \
	    --data-urlencode "query=$q")
	is "$code" 200 "$qid: 200"
	like "$(http_header Content-Type)" '^text/plain' "$qid: text/plain"
	http_body >"$T/answer.txt"
	top5=$(grep '^Source: ' "$T/answer.txt" | head -5 | sed -E 's|^Source: [^ ]*/corpora/[^/]*/||; s|#.*||')
	hit=1
	for f in $(jq -r '.files[]' <<<"$rec"); do
		grep -qxF "$f" <<<"$top5" && hit=0
	done
	ok $hit "$qid: an expected file is among the first five sources"
	[ $hit -eq 0 ] || diag "top 5 for '$q':" "$top5"
	for tok in $(jq -r '.must_contain[]' <<<"$rec"); do
		grep -qF -- "$tok" "$T/answer.txt"
		ok $? "$qid: the answer contains $tok"
	done
done

# The exact text format: rebuilt from the JSON answer of the same question, block by block.
q='How do I make curl try again when the server answers 503?'
http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
    --data-urlencode "query=$q" >/dev/null
http_body >"$T/txt"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/curl \
    --data-urlencode "query=$q" --data-urlencode type=json)
is "$code" 200 "type=json: 200"
like "$(http_header Content-Type)" '^application/json' "type=json: application/json"
http_body >"$T/json"
is "$(jq -r '(.codeSnippets | length) + (.infoSnippets | length) > 0' "$T/json")" true \
    "type=json has snippets"
is "$(jq -r '[.codeSnippets[] | has("codeTitle", "codeDescription", "codeLanguage", "codeTokens", "codeId", "pageTitle", "codeList")] | all' "$T/json")" \
    true "code snippets have every field of the hosted API"
# The test git server is neither GitHub- nor GitLab-type: sources are the repository URL
# and the path, not an invented /blob/ link (t0120 checks the links of both known types).
like "$(jq -r '.codeSnippets[0].codeId' "$T/json")" \
    "^$GITBASE/public/corpora/curl/[^#]*#_snippet_0\$" \
    "codeId is the source (repository URL and path on an unknown host type) with #_snippet_N"
sep=$(printf '%.0s-' {1..32})
text=$(cat "$T/txt"; printf x)
text=${text%x}
SEPARATOR=$'\n\n'"$sep"$'\n\n'
nblocks=0 bad=0
while :; do
	block=${text%%"$SEPARATOR"*}
	nblocks=$((nblocks + 1))
	# "### title", blank line, "Source: url" (here the repository URL and path), blank
	# line, then content; fences balanced.
	if ! [[ $block =~ ^\#\#\#\ [^$'\n']+$'\n\n'Source:\ (https?://|[0-9a-f]{40}/)[^$'\n']+$'\n\n'[^$'\n'] ]]; then
		bad=$((bad + 1))
		diag "malformed block:" "${block:0:300}"
	fi
	fences=$(grep -c '^```' <<<"$block")
	[ $((fences % 2)) -eq 0 ] || { bad=$((bad + 1)); diag "unbalanced fences in:" "${block:0:300}"; }
	[ "$block" = "$text" ] && break
	text=${text#*"$SEPARATOR"}
done
is "$bad" 0 "every block has a heading, a Source line, blank lines and balanced fences"
is "$nblocks" "$(grep -c '^### ' "$T/txt")" "blocks are joined by blank line, 32 dashes, blank line"
is "$(grep -c -- '^-\{33,\}$' "$T/txt")" 0 "no separator longer than 32 dashes"
first_fence=$(awk '/^```/ { print; exit }' "$T/txt")
like "$first_fence" '^```[a-z]*$' "code blocks are fenced with a language"
isnt "$(tail -c 1 "$T/txt" | od -An -tx1 | tr -d ' ')" 0a "the answer ends with the last block, no trailing newline"

# The library search finds the libraries, in the hosted API's shape.
code=$(http GET "$BASE/api/v2/libs/search?libraryName=curl&query=http+client")
is "$code" 200 "libs/search: 200"
is "$(http_body | jq -r '.results[0].id')" /corpora/curl "libs/search: curl first"
is "$(http_body | jq -r '.results[0].state')" finalized "libs/search: state"
is "$(http_body | jq -r '.searchFilterApplied')" false "libs/search: searchFilterApplied"
is "$(http_body | jq -r '.results[0] | [has("id","title","description","branch","lastUpdateDate","state","totalTokens","totalSnippets","stars","trustScore","benchmarkScore","versions","source")] | all')" \
    true "libs/search: every field"
like "$(http_body | jq -r '.results[0].totalSnippets')" '^[0-9]{4,}$' "libs/search: totalSnippets"
is "$(http_body | jq -r '.results[0].branch')" main "libs/search: branch"
code=$(http GET "$BASE/api/v2/libs/search?libraryName=nothing-like-this")
is "$code" 200 "libs/search without a match: 200"
is "$(http_body | jq -c '.results')" '[]' "libs/search without a match: no results"

# A version that is not indexed answers 404 naming those that are (t0190 has more).
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/vite/v7.0.0 \
    --data-urlencode "query=env variable prefix")
is "$code" 404 "libraryId with a version that is not indexed: 404"
like "$(http_body)" 'no indexed version v7.0.0.*/corpora/vite \(the default branch\)' \
    "... naming the indexed versions"

# Re-parsing an unchanged repository: the worker sees the same commit and keeps the index.
before=$(_sql "SELECT total_snippets FROM libraries WHERE id = '/corpora/requests'")
code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/corpora/requests.git\"}")
is "$code" 202 "second parse: 202"
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
is "$(_sql "SELECT state || ' ' || message FROM jobs WHERE id = $job")" "done unchanged" \
    "second parse of an unchanged commit is a no-op"
is "$(_sql "SELECT total_snippets FROM libraries WHERE id = '/corpora/requests'")" "$before" \
    "snippet count unchanged"

# A new commit: only the changed file is parsed again.
work=$T/requests-work
git clone -q "$T/gitsrv/public/corpora/requests.git" "$work"
printf '\nZebrafish configuration\n-----------------------\n\nSet zebrafish_mode to true.\n' >>"$work/docs/user/quickstart.rst"
git -C "$work" -c user.email=t@example.com -c user.name=t commit -qam "add zebrafish"
git -C "$work" push -q origin main
code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/corpora/requests.git\"}")
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = $job")" \
    ' 1 parsed, [0-9]+ unchanged' "only the changed file is parsed"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=zebrafish configuration")
is "$code" 200 "new content: 200"
like "$(http_body | head -1)" '^### Zebrafish configuration$' "new content is served"
is "$(_sql "SELECT indexed_commit FROM libraries WHERE id = '/corpora/requests'")" \
    "$(git -C "$work" rev-parse HEAD)" "the new commit is indexed"

done_testing
