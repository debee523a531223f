#!/usr/bin/env bash
# A private repository behind basic auth (git http-backend), cloned with the token stored in
# the settings for its host type; the token never shows in a log, a job message, an error or
# the clone's config.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
# A GitLab-type host takes a token as the password of user "oauth2".
GIT_USER=oauth2 gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle axum private acme)

parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$1\"}"
}

# No token for the host: the job fails with a clear message.
is "$(parse "$url")" 202 "parse of the private repository accepted"
is "$(wait_job /acme/axum)" error "without a token the first index fails"
msg=$(_sql "SELECT last_error FROM libraries WHERE id = '/acme/axum'")
like "$msg" 'authentication failed' "the error says authentication failed"
code=$(http GET "$BASE/api/v2/context?libraryId=/acme/axum&query=routing")
is "$code" 422 "context of a library whose only indexing failed: 422"
like "$(http_body | jq -r .error)" '^indexing /acme/axum failed: ' "the error says the indexing failed"

# A wrong token for the GitLab-type host: still refused, and the wrong token is not echoed.
ctxd_admin settings set git.gitlab.host "127.0.0.1:$GITPORT"
printf 'wrong-%s\n' "$GIT_TOKEN" | ctxd_admin settings set git.gitlab.token -
is "$(parse "$url")" 202 "parse again with a wrong token"
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" failed "a wrong token fails the job"
like "$(_sql "SELECT message FROM jobs WHERE id = $job")" 'authentication failed' "and says why"

# The right token, stored for the GitLab-type host only.
printf '%s\n' "$GIT_TOKEN" | ctxd_admin settings set git.gitlab.token -
is "$(parse "$url")" 202 "parse with the right token"
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "the private repository is indexed"
is "$(_sql "SELECT state FROM libraries WHERE id = '/acme/axum'")" finalized "library finalized"
like "$(_sql "SELECT blob_prefix FROM libraries WHERE id = '/acme/axum'")" '/acme/axum/-/blob/$' \
    "sources use the GitLab-type file URL"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/acme/axum \
    --data-urlencode "query=how do I share state between handlers")
is "$code" 200 "context of the private library: 200"
like "$(http_body)" "Source: $GITBASE/private/acme/axum/-/blob/[0-9a-f]{40}/" \
    "Source lines point at the file on the host"

# Read with the token while anonymous reads are on (perm.require_mcp_auth off, the
# default): the job log warns that anyone who reaches the server can now read it.
WARN="this repository is not public: it was read with the instance"
warned() { _sql "SELECT count(*) FROM job_log WHERE job_id = $1 AND level = 'warning' AND instr(line, '$WARN') > 0"; }
is "$(warned "$job")" 1 "a private repository read under anonymous reads: a warning in its job log"
like "$(_sql "SELECT line FROM job_log WHERE job_id = $job AND level = 'warning'")" \
    'anyone who reaches the server can read its documentation.*perm\.require_mcp_auth' \
    "the warning says who can read it and names the setting that closes it"
# A public repository on the same host, the token set: never asked for, no warning.
purl=$(gitserver_add_bundle axum public pub)
is "$(parse "$purl")" 202 "parse of a public repository on the host with a token"
pjob=$(http_body | jq -r .jobId)
wait_jobid "$pjob"
is "$(_sql "SELECT state FROM jobs WHERE id = $pjob")" done "the public repository is indexed"
is "$(warned "$pjob")" 0 "a public repository is read without credentials: no warning"
# With an API key required to read, the private repository's refresh warns no more.
ctxd_admin settings set perm.require_mcp_auth true
is "$(parse "$url")" 202 "parse the private repository again, reads now need a key"
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "indexed again"
is "$(warned "$job")" 0 "reads need a key: no warning"
ctxd_admin settings set perm.require_mcp_auth false

# The token is nowhere: not in the clone's config, the logs, the job log or any message.
clone=$(find "$DATA_DIR/repos" -name config -path '*axum.git*' | head -1)
ok "$([ -n "$clone" ]; echo $?)" "the clone exists under DATA_DIR/repos"
ok "$(grep -q "$GIT_TOKEN" "$clone"; echo $((1 - $?)))" "the token is not in the clone's config"
ok "$(grep -rqF "$GIT_TOKEN" "$DATA_DIR/repos"; echo $((1 - $?)))" "the token is in no file of the clone"
ok "$(cat "$T"/log/*.log "$DATA_DIR"/*.log 2>/dev/null | grep -qF "$GIT_TOKEN"; echo $((1 - $?)))" \
    "the token is in no log"
is "$(_sql "SELECT count(*) FROM job_log WHERE instr(line, '$GIT_TOKEN') > 0")" 0 "nor in the job log"
is "$(_sql "SELECT count(*) FROM jobs WHERE instr(coalesce(message, ''), '$GIT_TOKEN') > 0")" 0 \
    "nor in a job message"
is "$(_sql "SELECT count(*) FROM libraries WHERE instr(coalesce(last_error, ''), '$GIT_TOKEN') > 0")" 0 \
    "nor in a library error"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	ok "$(grep -qaF "$GIT_TOKEN" "$DATA_DIR/ctxd.db" "$DATA_DIR/ctxd.db-wal" 2>/dev/null; echo $((1 - $?)))" \
	    "nor in plain text in the database"
else
	"$_PG_BIN/pg_dump" "$DATABASE_URL" >"$T/dump.sql" || bail_out "pg_dump failed"
	ok "$(grep -qaF "$GIT_TOKEN" "$T/dump.sql"; echo $((1 - $?)))" \
	    "nor in plain text in the database (pg_dump)"
fi

# A token is only used for its own host type: with the host set to the GitHub type and the
# token kept under GitLab, the clone is refused.
ctxd_admin settings unset git.gitlab.host
ctxd_admin settings set git.github.host "127.0.0.1:$GITPORT"
rm -rf "$DATA_DIR/repos"
is "$(parse "$url")" 202 "parse with the host now GitHub-type"
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" failed \
    "the GitLab-type token is not sent to a GitHub-type host"

done_testing
