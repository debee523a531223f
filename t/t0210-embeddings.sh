#!/usr/bin/env bash
# Embeddings after an index write, against the vendor stand-in (t/standin/vendors.js): every
# snippet gets a 64-dim float32 vector for the configured model; an unchanged commit sends
# no embedding request; a model change re-embeds; a refused key leaves the library
# searchable lexically (run_status degraded, no secret anywhere) and the next parse fills
# the missing vectors.
. "$top_srcdir/t/lib/harness.sh"

require_cmd node curl jq git nginx fcgiwrap
ctxd_setup

standin_start

r=$(openssl rand -hex 6)
KEY_GOOD=sk-good-$r
KEY_401=sk-401-$r

# requests PATH: how many requests the stand-in has seen on PATH.
requests() {
	curl -s "$SBASE/_log" | node -e '
		let s = ""; process.stdin.on("data", (c) => s += c).on("end", () =>
		    console.log(JSON.parse(s).filter((e) => e.path === process.argv[1]).length));
	' "$1"
}

setkey() {
	printf '%s\n' "$1" | ctxd_admin settings set ai.llm.api_key - || bail_out "cannot set the key"
}

gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ctxd_admin settings set ai.llm.provider openai >/dev/null || bail_out "cannot set the provider"
ctxd_admin settings set ai.llm.base_url "$SBASE" >/dev/null || bail_out "cannot set base_url"
ctxd_admin settings set ai.embed.model emb-one >/dev/null || bail_out "cannot set the model"
setkey "$KEY_GOOD"
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
LIB=/corpora/requests
parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}"
}
# rows MODEL: embeddings rows of the library's snippets for MODEL.
rows() {
	_sql "SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id
	    WHERE s.library_id = '$LIB' AND e.model = '$1'"
}
lastjob() {
	_sql "SELECT max(id) FROM jobs WHERE library_id = '$LIB'"
}
joblog() {
	_sql "SELECT line FROM job_log WHERE job_id = $1 ORDER BY id"
}

is "$(parse)" 202 "parse requests"
worker vg
is "$(wait_job $LIB)" finalized "indexed"
snippets=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB'")
ok "$([ "$snippets" -gt 10 ]; echo $?)" "requests has snippets ($snippets)"
is "$(rows emb-one)" "$snippets" "one vector per snippet for emb-one"
is "$(_sql "SELECT count(*) FROM embeddings e LEFT JOIN vectors v USING (model, hash)
    WHERE e.model = 'emb-one' AND (coalesce(v.dim, 0) != 64 OR
    coalesce(length(v.vector), 0) != 256 OR length(e.hash) != 64)")" 0 \
    "every vector has 64 float32 values and a SHA-256 hash"
is "$(_sql "SELECT run_status FROM libraries WHERE id = '$LIB'")" ok "run_status ok"
job1=$(lastjob)
like "$(joblog "$job1")" "embedded $snippets snippets \\([0-9]+ reused\\) with emb-one in [0-9.]+ s" \
    "the job log has the embedded line"
# The stored vector is the stand-in's vector of the snippet's text, normalised.
norm=$(_sql "SELECT hex(vector) FROM vectors WHERE model = 'emb-one' LIMIT 1" |
    node -e 'let s = ""; process.stdin.on("data", (c) => s += c).on("end", () => {
	const b = Buffer.from(s.trim(), "hex"); let t = 0;
	for (let i = 0; i < b.length; i += 4) t += b.readFloatLE(i) ** 2;
	console.log(Math.abs(Math.sqrt(t) - 1) < 1e-4 ? "unit" : "norm " + Math.sqrt(t)); })')
is "$norm" unit "vectors are L2-normalised"
emb1=$(requests /v1/embeddings)
ok "$([ "$emb1" -ge 1 ]; echo $?)" "embedding requests were sent ($emb1)"

# The unchanged commit: no request, the rows stay.
is "$(parse)" 202 "parse again (unchanged commit)"
worker
is "$(requests /v1/embeddings)" "$emb1" "no embedding request for an unchanged commit"
is "$(rows emb-one)" "$snippets" "the vectors stay"
unlike "$(joblog "$(lastjob)")" "embedded" "no embedded line when nothing was missing"

# A model change re-embeds under the new name; the old rows stay.
ctxd_admin settings set ai.embed.model emb-two >/dev/null
is "$(parse)" 202 "parse after a model change"
worker
is "$(rows emb-two)" "$snippets" "one vector per snippet for emb-two"
is "$(rows emb-one)" "$snippets" "emb-one rows left alone"
ok "$([ "$(requests /v1/embeddings)" -gt "$emb1" ]; echo $?)" "the new model was requested"

# A refused key: the job is done, the library degraded but searchable.
ctxd_admin settings set ai.embed.model emb-three >/dev/null
setkey "$KEY_401"
is "$(parse)" 202 "parse with a refused key"
worker vg
job=$(lastjob)
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "the job is done"
is "$(_sql "SELECT state || ' ' || run_status FROM libraries WHERE id = '$LIB'")" \
    "finalized degraded" "the library is finalized, run_status degraded"
like "$(joblog "$job")" "embedding failed: .*key was refused.*searchable lexically" \
    "the job log says the key was refused"
like "$(_sql "SELECT message FROM jobs WHERE id = $job")" "embedding failed.*searchable lexically" \
    "the job message says so"
is "$(rows emb-three)" 0 "no vectors for emb-three"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=$LIB \
    --data-urlencode "query=session cookies")
is "$code" 200 "context still answers"
leak=no
for f in "$T"/log/*; do
	grep -qF -- "$r" "$f" 2>/dev/null && { leak="yes ($f)"; diag "$(grep -F -- "$r" "$f")"; }
done
_sql "SELECT line FROM job_log; SELECT coalesce(message, '') FROM jobs;
    SELECT coalesce(last_error, '') FROM libraries" >"$T/dbtext"
grep -qF -- "$r" "$T/dbtext" && leak="yes (database)"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	grep -qaF -- "$KEY_401" "$DATA_DIR/ctxd.db" && leak="yes (database file)"
else
	"$_PG_BIN/pg_dump" "$DATABASE_URL" >"$T/dump.sql" || bail_out "pg_dump failed"
	grep -qaF -- "$KEY_401" "$T/dump.sql" && leak="yes (database dump)"
fi
is "$leak" no "the key is in no log, job message or database text"

# The key fixed: the next parse of the unchanged commit fills the missing vectors.
setkey "$KEY_GOOD"
is "$(parse)" 202 "parse with the key fixed"
worker
is "$(rows emb-three)" "$snippets" "the missing vectors are filled"
is "$(_sql "SELECT run_status FROM libraries WHERE id = '$LIB'")" ok "run_status ok again"
like "$(joblog "$(lastjob)")" "embedded $snippets snippets" "embedded line"
diag "$(joblog "$job")"

# The same texts in another library: their vectors are copied, nothing is requested.
before=$(requests /v1/embeddings)
url2=$(gitserver_add_bundle requests public other)
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url2\"}" >/dev/null
worker
is "$(_sql "SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id
    WHERE s.library_id = '/other/requests' AND e.model = 'emb-three'")" "$snippets" \
    "the other library has its vectors"
is "$(requests /v1/embeddings)" "$before" "all copied by hash: no request"
like "$(_sql "SELECT line FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE
    library_id = '/other/requests')")" "embedded $snippets snippets \\($snippets reused\\)" \
    "the embedded line counts them as reused"

done_testing
