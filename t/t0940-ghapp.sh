#!/usr/bin/env bash
# The GitHub-type App: a private repository on the GitHub-type host is cloned with an
# installation token that ctxd mints with its RS256 JWT (verified by the GitHub API
# stand-in), the installation looked up for the repository or taken from the setting; the
# token is cached (sealed) and minted again only shortly before it expires; an App the API
# refuses falls back to the personal token, and the job log says why.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node openssl

ctxd_setup
# GitHub-type hosts take a token as the password of user "x-access-token".
GIT_USER=x-access-token gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle axum private acme)

openssl genrsa -traditional -out "$T/app.pem" 2048 2>/dev/null || bail_out "openssl genrsa"
openssl rsa -in "$T/app.pem" -pubout -out "$T/app.pub" 2>/dev/null || bail_out "openssl rsa"
openssl genrsa -traditional -out "$T/other.pem" 2048 2>/dev/null || bail_out "openssl genrsa"
github_standin_start --app-id 31337 --public-key "$T/app.pub" --token "$GIT_TOKEN" \
    --installation 4242 --repos acme/axum

settings() {
	http PUT "$BASE/api/settings" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "$1"
}
stat() {
	curl -sS "$GHBASE/_stats" | jq -r ".$1"
}
# index: parse the repository and wait for its job: LASTJOB is its id, STATE its state.
index() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}" >/dev/null
	LASTJOB=$(http_body | jq -r .jobId)
	wait_jobid "$LASTJOB" || true
	STATE=$(_sql "SELECT state FROM jobs WHERE id = $LASTJOB")
}

is "$(settings "$(jq -cn --arg h "127.0.0.1:$GITPORT" --arg api "$GHBASE" \
    '{"git.github.host": $h, "git.github.api_url": $api, "git.github.app_id": 31337}')")" 200 \
    "the App's settings saved"
# The private key (a PEM of many lines) from standard input, as an operator would set it.
ctxd_admin settings set git.github.app_private_key - <"$T/app.pem"
is "$?" 0 "ctxd-admin settings set: the PEM from standard input"
is "$(ctxd_admin settings get git.github.app_private_key)" "(set)" "the key is set (and not shown)"

# The installation is looked up for acme/axum, a token minted, the clone authenticated.
index
is "$STATE" done "a private repository is indexed with the App's installation token"
is "$(stat lookups)" 1 "the installation was looked up for the repository"
is "$(stat mints)" 1 "one token minted"
is "$(stat refused)" 0 "the stand-in verified the JWT (signature, iss, iat, exp)"
is "$(_sql "SELECT count(*) FROM ghapp_tokens WHERE installation_id = 4242 AND
    expires_at > CAST(strftime('%s', 'now') AS integer) + 3000")" 1 "the token is cached with its expiry"
# the store's bytes: SQLite's files, or a dump of the PostgreSQL database
store_bytes() {
	if [ "$(ctxd_test_engine)" = postgres ]; then
		"$_PG_BIN/pg_dump" "$DATABASE_URL" || echo "pg_dump failed: $GIT_TOKEN"
	else
		cat "$DATA_DIR/ctxd.db" "$DATA_DIR/ctxd.db-wal" 2>/dev/null
	fi
}
ok "$(store_bytes | grep -qaF "$GIT_TOKEN"; echo $((1 - $?)))" \
    "the cached token is sealed (not in plain text in the database)"

# Again: the cached token, no new mint.
index
is "$STATE" done "indexed again"
is "$(stat mints)" 1 "the cached token was used (no second mint)"

# The installation id from the setting: no lookup.
settings '{"git.github.app_installation_id": 4242}' >/dev/null
index
is "$STATE" done "indexed with the installation id of the setting"
is "$(stat lookups)" 2 "no lookup when the installation id is set"

# A cached token close to its expiry is replaced.
_sql "UPDATE ghapp_tokens SET expires_at = CAST(strftime('%s', 'now') AS integer) + 120"
index
is "$STATE" done "indexed with a token about to expire"
is "$(stat mints)" 2 "a token within 5 minutes of its expiry is minted again"
is "$(_sql "SELECT count(*) FROM ghapp_tokens WHERE expires_at > CAST(strftime('%s', 'now') AS integer) + 3000")" 1 \
    "the new token replaced it in the cache"

# A wrong installation id: the mint is refused (404), no personal token: the clone fails.
_sql "DELETE FROM ghapp_tokens"
settings '{"git.github.app_installation_id": 999}' >/dev/null
index
is "$STATE" failed "a wrong installation id fails the clone (no personal token)"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = $LASTJOB")" \
    "GitHub App: could not fetch $GHBASE/app/installations/999/access_tokens: HTTP 404.*using no token" \
    "the job log names the URL and HTTP status"

# A key the App does not have: the JWT is refused (401); the personal token is the fallback.
settings "$(jq -cn --rawfile pem "$T/other.pem" --arg tok "$GIT_TOKEN" \
    '{"git.github.app_installation_id": 4242, "git.github.app_private_key": $pem,
    "git.github.token": $tok}')" >/dev/null
refused=$(stat refused)
index
is "$STATE" done "with a refused JWT the personal token is used"
is "$(stat refused)" $((refused + 1)) "the stand-in refused the JWT signed with another key"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = $LASTJOB")" \
    'GitHub App: .*HTTP 401.*using the personal token git.github.token' \
    "the job log says the App failed and the personal token was used"

# No App: the personal token alone, no call to the API.
settings '{"git.github.app_id": null}' >/dev/null
mints=$(stat mints) lookups=$(stat lookups) refused=$(stat refused)
index
is "$STATE" done "without the App the personal token is used"
is "$(( $(stat mints) + $(stat lookups) + $(stat refused) ))" $((mints + lookups + refused)) \
    "and the App's API is not called"

# The tokens are in no log.
ok "$(cat "$T"/log/*.log "$DATA_DIR"/*.log 2>/dev/null | grep -qF "$GIT_TOKEN"; echo $((1 - $?)))" \
    "the token is in no log"
is "$(_sql "SELECT count(*) FROM job_log WHERE instr(line, '$GIT_TOKEN') > 0")" 0 "nor in the job log"

done_testing
