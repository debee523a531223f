#!/usr/bin/env bash
# Hybrid retrieval against the vendor stand-in: with an embedding provider configured, the
# query path embeds the question and fuses the vector ranking with the lexical one, then the
# LLM reranks unless fast=true; a slow, failing or stopped provider never fails or stalls an
# answer (1.5 s and 5 s deadlines, then what it has), and no key shows in any log.
. "$top_srcdir/t/lib/harness.sh"

require_cmd node curl jq git nginx fcgiwrap
ctxd_setup

standin_start
r=$(openssl rand -hex 6)

# embedded_questions Q: how many embedding requests carried the text Q.
embedded_questions() {
	curl -s "$SBASE/_log" | jq --arg q "$1" '[.[] | select(.path == "/v1/embeddings")
	    | select((.body | tostring) | contains($q))] | length'
}
setkey() {
	printf '%s\n' "$1" | ctxd_admin settings set ai.llm.api_key - || bail_out "cannot set the key"
}

gitserver_start
export CTXD_WORKER=/bin/true
ctxd_start
ctxd_admin settings set ai.llm.provider openai >/dev/null
ctxd_admin settings set ai.llm.base_url "$SBASE" >/dev/null
ctxd_admin settings set ai.embed.model emb-one >/dev/null
setkey "sk-good-$r"
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$url\"}" >/dev/null
"$top_builddir/ctxd-worker" 2>"$T/log/worker.log"
is "$(_sql "SELECT count(*) FROM embeddings") $(_sql "SELECT total_snippets FROM libraries")" \
    "$(_sql "SELECT total_snippets FROM libraries") $(_sql "SELECT total_snippets FROM libraries")" \
    "every snippet has a vector"

ask() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
	    --data-urlencode "query=$1"
}
Q1="how do I set a timeout on a request $r"
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$Q1" --data-urlencode fast=true)" 200 "hybrid answer: 200"
like "$(http_body)" '^### ' "hybrid answer has snippets"
like "$(http_body)" 'timeout' "and is about the question"
is "$(embedded_questions "$Q1")" 1 "the question was embedded once by the query path"
is "$(_sql "SELECT count(*) FROM libraries WHERE embed_version > 0")" 1 \
    "the library's vectors have a version for the query processes"

# LLM reranking (the stand-in answers a ranking prompt with the numbers reversed): on by
# default, skipped with fast=true; only the question and the snippets' trails and prose go.
chats() {
	curl -s "$SBASE/_log" | jq '[.[] | select(.path == "/v1/chat/completions")] | length'
}
Q3="proxies for https requests $r"
before=$(chats)
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$Q3" --data-urlencode fast=true)" 200 "fast=true: 200"
fast_first=$(http_body | grep -m1 '^### ')
is "$(chats)" "$before" "fast=true sends nothing to the LLM"
is "$(ask "$Q3")" 200 "reranked: 200"
reranked_first=$(http_body | grep -m1 '^### ')
is "$(chats)" "$((before + 1))" "without fast, one reranking request"
isnt "$reranked_first" "$fast_first" "the LLM's order is applied"
body=$(curl -s "$SBASE/_log" | jq -r '[.[] | select(.path == "/v1/chat/completions")] | last | .body | tostring')
like "$body" "proxies for https requests $r" "the reranking prompt carries the question"
like "$body" '\[1\] ' "and numbered snippets"
unlike "$body" '/blob/|https?://127\.0\.0\.1' "but no source URLs or hosts"

# A slow provider (3 s): the answer comes after the 1.5 s deadline, lexical only.
setkey "sk-slow-$r"
sleep 11	# the query processes re-read the provider settings every 10 s
Q2="session objects and cookies $r"
start=$(date +%s%N)
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=$Q2" --data-urlencode fast=true)" 200 "slow provider: 200"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok "$([ "$ms" -lt 2900 ]; echo $?)" "slow provider: answered in $ms ms (embedding deadline 1.5 s)"
start=$(date +%s%N)
is "$(ask "$Q2 again")" 200 "slow provider with reranking: 200"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok "$([ "$ms" -lt 7500 ]; echo $?)" "slow provider with reranking: $ms ms (1.5 s + 5 s deadlines)"
like "$(http_body)" '^### ' "slow provider: lexical snippets"

# A refused key and a stopped provider: lexical answers, no key in the logs.
setkey "sk-401-$r"
sleep 11
is "$(ask "proxies $r")" 200 "refused key: 200"
like "$(http_body)" '^### ' "refused key: lexical snippets"
kill "$standin_pid"
wait "$standin_pid" 2>/dev/null
start=$(date +%s%N)
is "$(ask "proxies and SOCKS $r")" 200 "stopped provider: 200"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok "$([ "$ms" -lt 2900 ]; echo $?)" "stopped provider: answered in $ms ms"
like "$(cat "$T/log/query.log")" 'the question was not embedded' "the query log says why"
ok "$(cat "$T"/log/*.log | grep -q "sk-401-$r\|sk-slow-$r\|sk-good-$r"; echo $((1 - $?)))" \
    "no key in any log"

done_testing
