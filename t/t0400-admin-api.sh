#!/usr/bin/env bash
# The admin API of ctxd-web (ctxd-web(8), ADMIN API): 401/403 on every admin endpoint without
# a key, with an invalid key and with a member key; settings (secrets write-only, all or
# nothing, validated), the setup wizard, libraries (list, detail, refresh re-indexes a new
# commit), jobs (list, status, log, cancel), the support bundle (no secret, no snippet
# content), and no secret in any response or log.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap tar

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself: queued jobs stay queued
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
MEMBER=$(ctxd_admin key create reader)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

r=$(openssl rand -hex 8)
S_LLM=sk-llm-$r
S_GH=ghp_gh$r
S_GL=glpat-gl$r
S_HOOK=whsec$r
S_WIKI=wikitok$r
S_PEM_LINE=MIIEpAIBAAKCAQEA$r
SECRETS=("$S_LLM" "$S_GH" "$S_GL" "$S_HOOK" "$S_WIKI" "$S_PEM_LINE")

# api METHOD PATH [CURL ARGS...]: http against $BASE; every body is kept for the secret check.
api() {
	local m=$1 p=$2 code
	shift 2
	code=$(http "$m" "$BASE$p" "$@")
	cat "$T/http.body" >>"$T/all-responses"
	echo >>"$T/all-responses"
	echo "$code"
}
body() { http_body; }
worker() { "$top_builddir/ctxd-worker" 2>>"$T/log/worker-runs.log"; }

# --- authorization matrix -------------------------------------------------------------------
# Admin calls need an admin's key or session; refresh and delete are permissioned
# operations: any user's key or session (or nobody, with their perm.anonymous_*). The
# support bundle needs an admin (or nobody, with perm.anonymous_support_bundle).
endpoints=(
	"GET /api/settings" "PUT /api/settings" "PATCH /api/settings" "GET /api/setup"
	"POST /api/setup/ai-provider" "POST /api/setup/git-tokens/skip" "GET /api/libraries"
	"GET /api/libraries/acme/docs" "POST /api/libraries/acme/docs/refresh"
	"DELETE /api/libraries/acme/docs" "GET /api/jobs" "GET /api/jobs/1"
	"GET /api/jobs/1/log" "POST /api/jobs/1/cancel" "GET /api/support-bundle"
	"GET /api/libraries/acme/docs/snippets" "GET /api/libraries/acme/docs/explain?query=x"
)
for e in "${endpoints[@]}"; do
	m=${e%% *} p=${e#* }
	is "$(api "$m" "$p" -H "$J" --data '{}')" 401 "$e without a key: 401"
	like "$(body | jq -r .error)" 'the API key is missing' "$e: says the key is missing"
	is "$(api "$m" "$p" -H "$J" -H 'Authorization: Bearer ctxd_nope' --data '{}')" 401 "$e with an unknown key: 401"
	like "$(body | jq -r .error)" 'the API key is invalid' "$e: says the key is invalid"
	case $e in
	*/refresh | DELETE*) ;;
	*) is "$(api "$m" "$p" -H "$J" -H "Authorization: Bearer $MEMBER" --data '{}')" 403 "$e with a member key: 403" ;;
	esac
done
# A member's key passes the permissioned ones (an unknown library: 404, nothing changes).
is "$(api POST /api/libraries/acme/nothing/refresh -H "Authorization: Bearer $MEMBER")" 404 \
    "refresh with a member key passes authorization"
is "$(api DELETE /api/libraries/acme/nothing -H "Authorization: Bearer $MEMBER")" 404 \
    "delete with a member key passes authorization"
is "$(api GET /api/support-bundle -H "Authorization: Bearer $MEMBER")" 403 \
    "the support bundle with a member key: 403 (it holds what members may not read)"
is "$(api GET /api/health)" 200 "health needs no key"
is "$(api GET /api/ready)" 200 "ready needs no key"
is "$(api GET /api/nothing -H "$A")" 404 "unknown /api path: 404"
is "$(api POST /api/settings -H "$A")" 405 "POST /api/settings: 405"
is "$(http_header Allow)" "GET, PUT, PATCH" "405 names the allowed methods"

# --- settings -------------------------------------------------------------------------------
is "$(api GET /api/settings -H "$A")" 200 "settings read"
is "$(body | jq -r '.settings["git.github.host"].value')" github.com "a default value is shown"
is "$(body | jq -r '.settings["git.github.host"].isDefault')" true "and marked as the default"
is "$(body | jq -r '.settings["ai.llm.api_key"] | [.secret, .set, has("value")] | @tsv')" \
    "$(printf 'true\tfalse\tfalse')" "an unset secret: secret, not set, no value"
is "$(body | jq -r '.settings["perm.anonymous_refresh"].value')" false "perm.anonymous_refresh (default false)"
is "$(body | jq -r '.settings["limits.max_files"].value')" 20000 "a number setting is a JSON number"
is "$(body | jq -r '.settings["ai.llm.provider"].choices | join(",")')" \
    "openai,anthropic,gemini,bedrock,custom" "an enum lists its choices"
for n in git.github.app_id git.github.app_installation_id git.github.app_private_key \
    git.github.webhook_secret wiki.site_url wiki.token perm.anonymous_delete \
    perm.anonymous_support_bundle setup.ai_provider; do
	is "$(body | jq -r --arg n "$n" '.settings | has($n)')" true "setting $n exists"
done

pem=$(printf -- '-----BEGIN RSA PRIVATE KEY-----\n%s\nAAAA BBBB\n-----END RSA PRIVATE KEY-----' "$S_PEM_LINE")
put=$(jq -n --arg llm "$S_LLM" --arg gh "$S_GH" --arg hook "$S_HOOK" --arg wiki "$S_WIKI" \
    --arg pem "$pem" '{"ai.llm.provider": "openai", "ai.llm.api_key": $llm,
    "git.github.token": $gh, "git.github.webhook_secret": $hook, "wiki.token": $wiki,
    "wiki.site_url": "https://wiki.example.com", "git.github.app_id": 12345,
    "git.github.app_private_key": $pem, "limits.max_files": 500, "perm.anonymous_refresh": false}')
is "$(api PUT /api/settings -H "$A" -H "$J" --data "$put")" 200 "settings written"
is "$(body | jq -r '[.settings["ai.llm.api_key"].set, .settings["git.github.token"].set,
    .settings["git.github.app_private_key"].set, .settings["wiki.token"].set] | @tsv')" \
    "$(printf 'true\ttrue\ttrue\ttrue')" "the answer says the secrets are set"
is "$(body | jq -r '.settings["limits.max_files"].value')" 500 "a number written as a JSON number"
is "$(body | jq -r '.settings["git.github.app_id"].value')" 12345 "the App ID is stored"
is "$(ctxd_admin settings get ai.llm.provider)" openai "the value is in the database"
is "$(ctxd_admin settings get wiki.site_url)" https://wiki.example.com "wiki.site_url is stored"
is "$(_sql "SELECT count(*) FROM settings WHERE instr(value, '$S_LLM') > 0 OR instr(value, '$S_PEM_LINE') > 0")" 0 \
    "secrets are stored encrypted"

# All or nothing: one bad entry and nothing changes.
expect400() {
	local desc=$1 data=$2 ere=$3
	is "$(api PATCH /api/settings -H "$A" -H "$J" --data "$data")" 400 "$desc: 400"
	like "$(body | jq -r .error)" "$ere" "$desc: the error says why"
}
expect400 "an unknown setting" '{"ai.llm.model": "m1", "no.such": "x"}' "unknown setting 'no.such'"
is "$(ctxd_admin settings get ai.llm.model)" "" "a rejected body changed nothing"
expect400 "a bad number" '{"limits.max_files": "lots"}' "limits.max_files must be a whole number"
expect400 "a number out of range" '{"limits.max_files": 0}' "from 1 to"
expect400 "a bad bool" '{"perm.anonymous_delete": "yes"}' "must be true or false"
expect400 "a bool as a number" '{"perm.anonymous_delete": 1}' "must be a string, true, false or null"
expect400 "a bad enum" '{"ai.llm.provider": "acme"}' "must be one of"
expect400 "a secret with a space" '{"git.gitlab.token": "a b"}' "without spaces"
expect400 "a bad URL" '{"ai.llm.base_url": "ftp://x"}' "http or https URL"
expect400 "an object value" '{"ai.llm.model": {}}' "must be a string or null"
expect400 "an empty body" '{}' "names no setting"
expect400 "bad JSON" '{"ai.llm.model": ' "not valid JSON"
expect400 "an array" '[]' "must be a JSON object"
is "$(api PATCH /api/settings -H "$A" --data '{}')" 415 "settings without a JSON content type: 415"
is "$(api GET '/api/settings?x=1' -H "$A")" 400 "an unknown query parameter: 400"
is "$(ctxd_admin settings get limits.max_files)" 500 "bad writes left limits.max_files alone"

# Clearing: null or "" resets a setting; a secret is cleared.
is "$(api PATCH /api/settings -H "$A" -H "$J" --data '{"wiki.token": null, "limits.max_files": ""}')" 200 \
    "null and \"\" reset settings"
is "$(body | jq -r '.settings["wiki.token"].set')" false "the secret is cleared"
is "$(body | jq -r '.settings["limits.max_files"] | [.value, .isDefault] | @tsv')" "$(printf '20000\ttrue')" \
    "the number is back to its default"

# --- setup wizard ---------------------------------------------------------------------------
is "$(api GET /api/setup -H "$A")" 200 "setup state"
is "$(body | jq -r '[.complete, (.steps | map(.step + "=" + .state) | join(","))] | @tsv')" \
    "$(printf 'false\tai-provider=pending,embedding=pending,git-tokens=pending,who-can-read=pending')" "four pending steps"
is "$(body | jq -r '.steps[0].settings["ai.llm.api_key"] | [.set, has("value")] | @tsv')" "$(printf 'true\tfalse')" \
    "a step shows its settings, secrets as set/unset only"
is "$(api POST /api/setup/ai-provider -H "$A" -H "$J" --data '{"git.gitlab.token": "x"}')" 400 \
    "a setting of another step: 400"
like "$(body | jq -r .error)" "does not belong to this step" "and says so"
is "$(api POST /api/setup/ai-provider -H "$A" -H "$J" --data '{"ai.llm.provider": null}')" 400 \
    "saving the AI step without a provider: 400"
is "$(ctxd_admin settings get ai.llm.provider)" openai "and the provider is untouched"
is "$(api POST /api/setup/ai-provider -H "$A" -H "$J" --data "{\"ai.llm.provider\": \"openai\", \"ai.llm.model\": \"gpt-x\", \"ai.llm.api_key\": \"$S_LLM\"}")" 200 \
    "AI provider step saved"
is "$(body | jq -r '.state')" done "the step is done"
is "$(api POST /api/setup/embedding/skip -H "$A")" 200 "embedding step skipped"
is "$(body | jq -r '.state')" skipped "the step is skipped"
is "$(api POST /api/setup/git-tokens -H "$A" -H "$J" --data '{"git.github.token": null}')" 400 \
    "git step without any token: 400"
is "$(api GET /api/settings -H "$A")" 200 "settings again"
is "$(body | jq -r '.settings["git.github.token"].set')" true "the refused step left the token"
is "$(api POST /api/setup/git-tokens -H "$A" -H "$J" --data "{\"git.gitlab.token\": \"$S_GL\"}")" 200 \
    "git tokens step saved"
is "$(api GET /api/setup -H "$A")" 200 "setup state again"
is "$(body | jq -r '[.complete, (.steps | map(.state) | join(","))] | @tsv')" "$(printf 'false\tdone,skipped,done,pending')" \
    "with who can read pending the wizard is not complete"
# Who can read: a decision, true or false; nothing else, no reset.
is "$(body | jq -r '.steps[3] | [.title, (.settings | keys | join(",")), .settings["perm.require_mcp_auth"].label] | @tsv')" \
    "$(printf 'Who can read\tperm.require_mcp_auth\tRequire MCP authentication')" "step 4 is who can read, over perm.require_mcp_auth"
is "$(api POST /api/setup/who-can-read -H "$A" -H "$J" --data '{}')" 400 "who can read saved without a choice: 400"
is "$(api POST /api/setup/who-can-read -H "$A" -H "$J" --data '{"perm.require_mcp_auth": null}')" 400 \
    "a reset is no choice: 400"
like "$(body | jq -r .error)" 'perm.require_mcp_auth must be true .* or false' "and says what to choose"
is "$(ctxd_admin settings get setup.who_can_read)" pending "the refused step stays pending"
is "$(api POST /api/setup/who-can-read -H "$A" -H "$J" --data '{"perm.anonymous_parse": true}')" 400 \
    "another permission is not this step's"
is "$(api POST /api/setup/who-can-read -H "$A" -H "$J" --data '{"perm.require_mcp_auth": true}')" 200 \
    "who can read saved: an API key is needed"
is "$(body | jq -r '[.state, .settings["perm.require_mcp_auth"].value] | @tsv')" "$(printf 'done\ttrue')" "done, reads need a key"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x&query=x")" 401 "an anonymous read is now refused"
is "$(api POST /api/setup/who-can-read -H "$A" -H "$J" --data '{"perm.require_mcp_auth": false}')" 200 \
    "who can read saved again: anyone"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x&query=x")" 200 "an anonymous read is answered again"
is "$(api GET /api/setup -H "$A")" 200 "setup state at the end"
is "$(body | jq -r '[.complete, (.steps | map(.state) | join(","))] | @tsv')" "$(printf 'true\tdone,skipped,done,done')" \
    "the wizard is complete and remembers each step"
# Every setting has the label the web UI shows (GET /api/settings: label).
is "$(api GET /api/settings -H "$A")" 200 "settings for their labels"
is "$(body | jq -r '[.settings | to_entries[] | select((.value.label // "") == "") | .key] | join(",")')" "" \
    "every setting has a label"
is "$(api POST /api/setup/nothing -H "$A")" 404 "an unknown step: 404"
is "$(api GET /api/setup/ai-provider -H "$A")" 405 "GET on a step: 405"
is "$(ctxd_admin settings get setup.embedding)" skipped "the state is a setting"
# The AI provider would be called by the worker: turn it off again for the indexing below.
api PATCH /api/settings -H "$A" -H "$J" --data '{"ai.llm.provider": null}' >/dev/null

# --- libraries ------------------------------------------------------------------------------
url=$(gitserver_add_bundle axum public acme)
is "$(api POST /api/parse -H "$A" -H "$J" --data "{\"repoUrl\": \"$url\"}")" 202 "parse a repository"
job1=$(body | jq -r .jobId)
is "$(api GET /api/libraries/acme/axum -H "$A")" 200 "library detail while queued"
is "$(body | jq -r '[.state, .jobs[0].state, .jobs[0].kind] | @tsv')" "$(printf 'initial\tqueued\tindex')" \
    "initial, with its queued index job"
worker
is "$(api GET /api/libraries -H "$A")" 200 "library list"
is "$(body | jq -r '.total')" 1 "one library"
lib=$(body | jq -c '.libraries[0]')
is "$(jq -r '[.id, .url, .state, .runStatus, .gitops, .sourceType] | @tsv' <<<"$lib")" \
    "$(printf '/acme/axum\t%s\tfinalized\tok\tfalse\tgit' "${url%.git}")" "id, URL, state, run status, gitops flag"
like "$(jq -r '.lastIndexedCommit' <<<"$lib")" '^[0-9a-f]{40}$' "last indexed commit"
like "$(jq -r '.lastIndexedAt' <<<"$lib")" '^20[0-9-]+T[0-9:]+Z$' "last indexed date"
ok "$(jq -e '.documents > 0 and .snippets > 0 and .tokens > 0' <<<"$lib" >/dev/null; echo $?)" "counts"
commit1=$(jq -r .lastIndexedCommit <<<"$lib")
is "$(api GET '/api/libraries?state=error' -H "$A")" 200 "list filtered by state"
is "$(body | jq -r '.libraries | length')" 0 "no library in error"
is "$(api GET '/api/libraries?state=bogus' -H "$A")" 400 "a bad state filter: 400"
is "$(api GET '/api/libraries?limit=0' -H "$A")" 400 "limit 0: 400"
is "$(api GET '/api/libraries?limit=501' -H "$A")" 400 "limit above 500: 400"
is "$(api GET /api/libraries/acme/axum -H "$A")" 200 "detail"
is "$(body | jq -r '[.id, (.settings | has("folders")), (.jobs | length), .jobs[0].state] | @tsv')" \
    "$(printf '/acme/axum\ttrue\t1\tdone')" "detail has the source settings and recent jobs"
is "$(api GET /api/libraries/acme/nothing -H "$A")" 404 "unknown library: 404"
like "$(body | jq -r .error)" "library /acme/nothing does not exist" "and says which"
is "$(api GET /api/libraries/acme -H "$A")" 404 "a path with one segment: 404"
is "$(api GET /api/libraries/acme/axum/x/y -H "$A")" 404 "a path with four segments: 404"
is "$(api POST /api/libraries/acme/axum/rebuild -H "$A")" 405 "an unknown action: 405"
is "$(http_header Allow)" "GET, PATCH, DELETE" "an unknown action: the library's methods are allowed"
is "$(api PUT /api/libraries/acme/axum -H "$A")" 405 "PUT on a library: 405"
is "$(api GET /api/libraries/acme/axum/refresh -H "$A")" 405 "GET on refresh: 405"
is "$(api POST /api/libraries/acme/nothing/refresh -H "$A")" 404 "refresh of an unknown library: 404"
is "$(api POST '/api/libraries/acme/axum/refresh?force=maybe' -H "$A")" 400 "refresh with force=maybe: 400"

# Refresh picks up a new commit.
word=zyxqwerplumbus$r
git clone -q "$T/gitsrv/public/acme/axum.git" "$T/work" 2>/dev/null
printf '# Plumbus guide\n\nThe %s is configured with the plumbus builder.\n' "$word" >"$T/work/PLUMBUS.md"
git -C "$T/work" add PLUMBUS.md
git -C "$T/work" -c user.name=t -c user.email=t@example.com commit -q -m plumbus
git -C "$T/work" push -q origin HEAD 2>/dev/null
is "$(api POST /api/libraries/acme/axum/refresh -H "$A")" 202 "refresh accepted"
job2=$(body | jq -r .jobId)
like "$(body | jq -r .message)" "indexing of /acme/axum is queued as job $job2" "the answer names the job"
is "$(_sql "SELECT kind || ' ' || state || ' ' || force FROM jobs WHERE id = $job2")" "index queued 0" \
    "an index job is queued"
is "$(api POST /api/libraries/acme/axum/refresh -H "$A")" 202 "refresh again"
is "$(body | jq -r .jobId)" "$job2" "the queued job is reused"
worker
is "$(_sql "SELECT state FROM jobs WHERE id = $job2")" done "the refresh job ran"
is "$(api GET /api/libraries/acme/axum -H "$A")" 200 "detail after the refresh"
isnt "$(body | jq -r .lastIndexedCommit)" "$commit1" "a new commit is indexed"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/acme/axum --data-urlencode "query=$word plumbus")
like "$(http_body)" "$word" "the new document is searchable"
is "$(api POST '/api/libraries/acme/axum/refresh?force=true' -H "$A")" 202 "forced refresh"
job3=$(body | jq -r .jobId)
is "$(_sql "SELECT force FROM jobs WHERE id = $job3")" 1 "force=true queues a full re-index"
worker

# --- jobs -----------------------------------------------------------------------------------
is "$(api GET /api/jobs -H "$A")" 200 "job list"
is "$(body | jq -r '[.jobs[].id] | join(",")')" "$job3,$job2,$job1" "newest first"
is "$(api GET '/api/jobs?limit=1' -H "$A")" 200 "one job a page"
is "$(body | jq -r '[.jobs[0].id, .nextBefore] | @tsv')" "$(printf '%s\t%s' "$job3" "$job3")" "with the cursor of the next page"
is "$(api GET "/api/jobs?limit=1&before=$job3" -H "$A")" 200 "the next page"
is "$(body | jq -r '.jobs[0].id')" "$job2" "holds the next older job"
is "$(api GET "/api/jobs?library=/acme/axum&state=done&kind=index" -H "$A")" 200 "filtered list"
is "$(body | jq -r '.jobs | length')" 3 "three done index jobs of the library"
is "$(api GET "/api/jobs?library=/acme/other" -H "$A")" 200 "another library's jobs"
is "$(body | jq -r '.jobs | length')" 0 "none"
is "$(api GET '/api/jobs?state=sleeping' -H "$A")" 400 "a bad state filter: 400"
is "$(api GET '/api/jobs?limit=201' -H "$A")" 400 "limit above 200: 400"
is "$(api GET '/api/jobs?page=2' -H "$A")" 400 "an unknown parameter: 400"
is "$(api GET "/api/jobs/$job2" -H "$A")" 200 "job status"
is "$(body | jq -r '[.id, .libraryId, .kind, .state, .attempts] | @tsv')" \
    "$(printf '%s\t/acme/axum\tindex\tdone\t1' "$job2")" "the job's fields"
like "$(body | jq -r .message)" '^indexed commit' "its message"
ok "$(body | jq -e '.logLines > 0 and (.startedAt | length) > 0 and (.finishedAt | length) > 0' >/dev/null; echo $?)" \
    "log line count and times"
is "$(api GET "/api/jobs/$job2/log" -H "$A")" 200 "job log"
like "$(body | jq -r '.lines[0].line')" '^fetching ' "the log lines in order"
is "$(body | jq -r '.state')" done "the log answer carries the job state"
last=$(body | jq -r .nextAfter)
is "$(api GET "/api/jobs/$job2/log?after=$last" -H "$A")" 200 "log after the last line"
is "$(body | jq -r '.lines | length')" 0 "nothing new"
is "$(api GET "/api/jobs/$job2/log?limit=1" -H "$A")" 200 "log one line at a time"
is "$(body | jq -r '.lines | length')" 1 "one line"
is "$(api GET /api/jobs/999999 -H "$A")" 404 "unknown job: 404"
is "$(api GET /api/jobs/999999/log -H "$A")" 404 "log of an unknown job: 404"
is "$(api GET /api/jobs/abc -H "$A")" 404 "a job id that is not a number: 404"
is "$(api GET "/api/jobs/$job2/stop" -H "$A")" 404 "an unknown job action: 404"

# Cancel: a queued job at once; a running or finished one is refused.
api POST /api/libraries/acme/axum/refresh -H "$A" >/dev/null
job4=$(body | jq -r .jobId)
is "$(api GET "/api/jobs/$job4/cancel" -H "$A")" 405 "GET cancel: 405"
is "$(api POST "/api/jobs/$job4/cancel" -H "$A")" 200 "cancel a queued job"
is "$(body | jq -r '.state')" cancelled "it is cancelled"
is "$(_sql "SELECT state FROM jobs WHERE id = $job4")" cancelled "in the database"
is "$(api POST "/api/jobs/$job4/cancel" -H "$A")" 409 "cancel it again: 409"
like "$(body | jq -r .error)" "is cancelled: only a queued or running job can be cancelled" "and says why"
is "$(api POST "/api/jobs/$job2/cancel" -H "$A")" 409 "cancel a finished job: 409"
api POST /api/libraries/acme/axum/refresh -H "$A" >/dev/null
job5=$(body | jq -r .jobId)
isnt "$job5" "$job4" "a refresh after a cancel queues a new job"
_sql "UPDATE jobs SET state = 'running' WHERE id = $job5"
is "$(api POST "/api/jobs/$job5/cancel" -H "$A")" 202 "cancel a running job: 202 (t0440 runs it)"
is "$(body | jq -r '[.state, .cancelRequested] | @tsv')" "$(printf 'running\ttrue')" "cancellation requested"
_sql "UPDATE jobs SET state = 'queued', cancel_requested = 0 WHERE id = $job5"
is "$(api POST /api/jobs/999999/cancel -H "$A")" 404 "cancel an unknown job: 404"
worker
is "$(_sql "SELECT state FROM jobs WHERE id = $job4")" cancelled "the worker skips a cancelled job"

# A queued deletion: state 'delete'; refresh and parse refused; cancelling it restores the state.
is "$(api DELETE /api/libraries/acme/axum -H "$A")" 202 "delete queued"
jobd=$(body | jq -r .jobId)
is "$(api GET /api/libraries/acme/axum -H "$A")" 200 "detail while the deletion is queued"
is "$(body | jq -r '[.state, .jobs[0].kind, .jobs[0].state] | @tsv')" "$(printf 'delete\tdelete\tqueued')" \
    "state delete, with its delete job"
is "$(api DELETE /api/libraries/acme/axum -H "$A")" 202 "delete again"
is "$(body | jq -r .jobId)" "$jobd" "reuses the queued deletion"
is "$(api POST /api/libraries/acme/axum/refresh -H "$A")" 409 "refresh while deleting: 409"
like "$(body | jq -r .error)" "is being deleted" "and says why"
is "$(api POST /api/parse -H "$A" -H "$J" --data "{\"repoUrl\": \"$url\"}")" 409 "parse while deleting: 409"
_sql "UPDATE libraries SET state = 'finalized', run_status = 'ok' WHERE id = '/acme/axum'"
is "$(_sql "SELECT state FROM libraries WHERE id = '/acme/axum'")" delete \
    "an index run that ends meanwhile does not undo the state delete"
is "$(api POST "/api/jobs/$jobd/cancel" -H "$A")" 200 "cancel the deletion"
is "$(_sql "SELECT state FROM libraries WHERE id = '/acme/axum'")" finalized "the library is finalized again"
worker
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/acme/axum'")" 1 "and it is still there"

# --- support bundle -------------------------------------------------------------------------
is "$(api GET /api/support-bundle -H "$A")" 200 "support bundle"
is "$(http_header Content-Type)" application/gzip "a gzip file"
like "$(http_header Content-Disposition)" '^attachment; filename="ctxd-support-[0-9]{8}T[0-9]{6}Z\.tar\.gz"$' \
    "downloaded as a named attachment"
cp "$T/http.body" "$T/bundle.tar.gz"
mkdir -p "$T/bundle"
tar -xzf "$T/bundle.tar.gz" -C "$T/bundle"
ok $? "the bundle is a valid tar.gz"
d=$(echo "$T"/bundle/ctxd-support-*)
is "$(cd "$d" && ls | tr '\n' ' ')" "health.json jobs.json libraries.json license.json segments.json settings.json version.json " \
    "the bundle's files"
is "$(jq -r '.version' "$d/version.json")" "$(sed -n '1{s/^ctxd (//;s/).*//;p;}' "$top_srcdir/debian/changelog")" \
    "version"
is "$(jq -r '.schemaVersion' "$d/version.json")" "$SCHEMA_VERSION" "schema version"
is "$(jq -r '[.status, .plan, (.licensee | length > 0), (.expires | test("^[0-9]{4}-"))] | @tsv' "$d/license.json")" \
    "$(printf 'valid\ttrial\ttrue\ttrue')" "license summary: status, plan, licensee, expiry"
is "$(jq -r '.status' "$d/health.json")" ok "health"
is "$(jq -r '.["ai.llm.api_key"] | [.set, has("value")] | @tsv' "$d/settings.json")" "$(printf 'true\tfalse')" \
    "settings with secrets redacted"
is "$(jq -r '.["git.github.host"].value' "$d/settings.json")" github.com "and plain settings shown"
is "$(jq -r '.[0].id' "$d/libraries.json")" /acme/axum "libraries"
ok "$(jq -e 'length > 0 and (.[] | select(.id == '"$job2"') | .log | length > 0)' "$d/jobs.json" >/dev/null; echo $?)" \
    "recent jobs with their log lines"
ok "$(grep -rqF "$LICENSE_KEY" "$d"; echo $((1 - $?)))" "the license key is not in the bundle"
ok "$(grep -rqF "$word" "$d"; echo $((1 - $?)))" "no snippet content in the bundle"
for s in "${SECRETS[@]}" "$ADMIN" "$MEMBER"; do
	ok "$(grep -rqF "$s" "$d"; echo $((1 - $?)))" "secret ${s:0:6}… is not in the bundle"
	ok "$(zcat "$T/bundle.tar.gz" | grep -qaF "$s"; echo $((1 - $?)))" "nor anywhere in the archive"
done
is "$(api GET /api/support-bundle)" 401 "the bundle needs a key by default"
ctxd_admin settings set perm.anonymous_support_bundle true
is "$(api GET /api/support-bundle)" 200 "perm.anonymous_support_bundle allows it without a key"
ctxd_admin settings set perm.anonymous_refresh true
is "$(api POST /api/libraries/acme/axum/refresh)" 202 "perm.anonymous_refresh allows a refresh without a key"
is "$(api GET /api/libraries/acme/axum)" 401 "but not reading the library"
worker

# --- no secret anywhere ---------------------------------------------------------------------
for s in "${SECRETS[@]}"; do
	ok "$(grep -qF "$s" "$T/all-responses"; echo $((1 - $?)))" "secret ${s:0:6}… is in no response"
	ok "$(cat "$T"/log/*.log "$DATA_DIR"/*.log 2>/dev/null | grep -qF "$s"; echo $((1 - $?)))" \
	    "secret ${s:0:6}… is in no log"
done
# Repositories named like the actions under a library are libraries too.
for name in snippets flagged; do
	git clone -q --bare "$T/gitsrv/public/acme/axum.git" "$T/gitsrv/public/acme/$name.git"
	is "$(api POST /api/parse -H "$A" -H "$J" \
	    --data "{\"repoUrl\": \"${url%/axum.git}/$name.git\"}")" 202 "parse acme/$name"
	is "$(api GET "/api/libraries/acme/$name" -H "$A")" 200 "the library /acme/$name: 200"
	is "$(body | jq -r .id)" "/acme/$name" "... is /acme/$name, not an action of /acme"
done
is "$(api GET /api/libraries/acme/snippets/snippets -H "$A")" 200 "the snippets of /acme/snippets: 200"
is "$(api GET /api/libraries/acme/flagged/flagged -H "$A")" 200 "the flagged snippets of /acme/flagged: 200"

done_testing
