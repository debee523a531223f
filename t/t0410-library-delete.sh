#!/usr/bin/env bash
# DELETE /api/libraries/OWNER/REPO: the responder queues a delete job and starts the worker;
# the worker removes every row of the library (documents, snippets, embeddings,
# its earlier jobs and their logs, the library) and its clone folder, and keeps the delete
# job as the record. Another library is untouched; the library can be added again.
# perm.anonymous_delete allows it without a key for a library added anonymously.
. "$top_srcdir/t/lib/harness.sh"
require_cmd node jq git nginx fcgiwrap

ctxd_setup
standin_start
gitserver_start
ctxd_start
ctxd_admin settings set ai.llm.provider openai >/dev/null || bail_out "cannot set the provider"
ctxd_admin settings set ai.llm.base_url "$SBASE" >/dev/null || bail_out "cannot set base_url"
ctxd_admin settings set ai.embed.model emb-one >/dev/null || bail_out "cannot set the model"
printf 'sk-good-%s\n' "$(openssl rand -hex 6)" | ctxd_admin settings set ai.llm.api_key - ||
    bail_out "cannot set the key"
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"

parse() {
	http POST "$BASE/api/parse" -H "$A" -H 'Content-Type: application/json' \
	    --data "{\"repoUrl\": \"$1\"}"
}
# count LIB: "documents snippets embeddings jobs job_log kept" rows of library LIB.
count() {
	_sql "SELECT (SELECT count(*) FROM documents WHERE library_id = '$1') || ' ' ||
	    (SELECT count(*) FROM snippets WHERE library_id = '$1') || ' ' ||
	    (SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id
	        WHERE s.library_id = '$1') || ' ' ||
	    (SELECT count(*) FROM jobs WHERE library_id = '$1') || ' ' ||
	    (SELECT count(*) FROM job_log WHERE job_id IN (SELECT id FROM jobs WHERE
	        library_id = '$1')) || ' ' ||
	    (SELECT count(*) FROM snippets WHERE library_id = '$1' AND dup_of IS NULL)"
}

axum=$(gitserver_add_bundle axum public acme)
requests=$(gitserver_add_bundle requests public acme)
is "$(parse "$axum")" 202 "parse axum"
is "$(wait_job /acme/axum)" finalized "axum indexed"
is "$(parse "$requests")" 202 "parse requests"
is "$(wait_job /acme/requests)" finalized "requests indexed"
is "$(parse "$axum")" 202 "parse axum again (a second job)"
wait_jobid "$(http_body | jq -r .jobId)"
before=$(count /acme/axum)
# (duplicate snippets keep their row but have no vector)
read -r docs snippets embs jobs logs kept <<<"$before"
ok "$([ "$docs" -gt 0 ] && [ "$snippets" -gt 0 ] &&
    [ "$embs" -eq "$kept" ] && [ "$jobs" -eq 2 ] && [ "$logs" -gt 0 ]; echo $?)" \
    "axum has documents, snippets, embeddings, jobs and logs ($before)"
others=$(count /acme/requests)
read -r _ osn oemb _ _ okept <<<"$others"
ok "$([ "$osn" -gt 0 ] && [ "$oemb" -eq "$okept" ]; echo $?)" \
    "requests too ($others)"
clone=$(find "$DATA_DIR/repos" -type d -name axum.git)
ok "$([ -n "$clone" ] && [ -d "$clone" ]; echo $?)" "the clone of axum exists"

# Refused without a valid key; nothing changes.
is "$(http DELETE "$BASE/api/libraries/acme/axum")" 401 "delete without a key: 401"
is "$(http DELETE "$BASE/api/libraries/acme/axum" -H "Authorization: Bearer ctxd_nope")" 401 \
    "delete with an unknown key: 401"
is "$(http DELETE "$BASE/api/libraries/acme/nothing" -H "$A")" 404 "delete an unknown library: 404"
is "$(count /acme/axum)" "$before" "refused deletes changed nothing"

is "$(http DELETE "$BASE/api/libraries/acme/axum" -H "$A")" 202 "delete accepted"
job=$(http_body | jq -r .jobId)
like "$(http_body | jq -r .message)" "deletion of /acme/axum is queued as job $job" "the answer names the job"
wait_jobid "$job"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "the delete job is done"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/acme/axum'")" 0 "the library row is gone"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '/acme/axum'")" 0 "no documents"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '/acme/axum'")" 0 "no snippets"
is "$(_sql "SELECT count(*) FROM embeddings")" \
    "$oemb" "embeddings are those of the other library only"
is "$(_sql "SELECT count(*) FROM embeddings WHERE snippet_id NOT IN (SELECT id FROM snippets)")" 0 \
    "no orphan embeddings"
is "$(_sql "SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM embeddings e
    WHERE e.model = v.model AND e.hash = v.hash)")" 0 "no vector is left that only axum used"
is "$(_sql "SELECT group_concat(CAST(id AS text)) FROM jobs WHERE library_id = '/acme/axum'")" "$job" \
    "the earlier jobs are gone; the delete job stays as the record"
is "$(_sql "SELECT count(*) FROM job_log WHERE job_id NOT IN (SELECT id FROM jobs)")" 0 \
    "their log lines are gone"
ok "$([ ! -e "$clone" ]; echo $?)" "the clone folder is gone"
ok "$([ -d "${clone%/*}/requests.git" ]; echo $?)" "the other library's clone stays"
is "$(count /acme/requests)" "$others" "the other library is untouched"
is "$(http GET "$BASE/api/jobs/$job" -H "$A")" 200 "the delete job's status"
like "$(http_body | jq -r .message)" "^deleted library /acme/axum: $docs documents, $kept snippets" \
    "says what was deleted"
is "$(http GET "$BASE/api/jobs/$job/log" -H "$A")" 200 "its log"
like "$(http_body | jq -r '.lines[0].line')" "deleting library /acme/axum" "has the deletion"
is "$(http GET "$BASE/api/libraries/acme/axum" -H "$A")" 404 "the library is not found any more"
is "$(http GET "$BASE/api/v2/context?libraryId=/acme/axum&query=routing")" 404 "context: 404"
is "$(http GET "$BASE/api/v2/context?libraryId=/acme/requests&query=session")" 200 \
    "the other library still answers"

# The library can be added again (here anonymously), and deleted anonymously when the setting
# allows it (a library added anonymously; who may delete what: t0330).
ctxd_admin settings set perm.anonymous_parse true
is "$(http POST "$BASE/api/parse" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$axum\"}")" 202 "add axum again, anonymously"
is "$(wait_job /acme/axum)" finalized "indexed again"
ok "$([ -d "$clone" ]; echo $?)" "cloned again"
is "$(http DELETE "$BASE/api/libraries/acme/axum")" 401 "still no anonymous delete"
ctxd_admin settings set perm.anonymous_delete true
is "$(http DELETE "$BASE/api/libraries/acme/axum")" 202 "perm.anonymous_delete allows it"
wait_jobid "$(http_body | jq -r .jobId)"
is "$(count /acme/axum)" "0 0 0 1 2 0" "gone again (the delete job and its two log lines stay)"
ok "$([ ! -e "$clone" ]; echo $?)" "and its clone"
is "$(index_check)" ok "the index segments of what is left are their rows'"
done_testing
