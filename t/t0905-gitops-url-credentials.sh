#!/usr/bin/env bash
# A manifest repository URL with credentials in it (user:secret@host) is refused by every
# way of setting it (PUT /api/gitops/config naming the field, PUT /api/settings,
# ctxd-admin settings set), as is any URL setting's; one stored before that rule is shown
# with its credentials redacted (GitOps status, the settings, ctxd-admin settings list, the
# support bundle) and a sync refuses it without naming them.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/gitops.sh"
require_cmd jq nginx sqlite3 curl tar

ctxd_setup
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'
SECRET=tok3nS3cretValue
URL="http://alice:$SECRET@127.0.0.1:1/acme/manifest.git"
stored() { _sql "SELECT count(*) FROM settings WHERE name = 'gitops.repo_url'"; }

is "$(http PUT "$BASE/api/gitops/config" -H "$A" -H "$J" --data "{\"repoUrl\": \"$URL\"}")" \
    400 "PUT /api/gitops/config with user:secret@ in repoUrl: 400"
like "$(http_body | jq -r .error)" "^field 'repoUrl' .*must not carry credentials" \
    "the error names the field and says why"
unlike "$(http_body)" "$SECRET" "the answer does not repeat the secret"
is "$(stored)" 0 "nothing was stored"
is "$(http PUT "$BASE/api/gitops/config" -H "$A" -H "$J" \
    --data "{\"repoUrl\": \"https://$SECRET@127.0.0.1:1/a.git\", \"schedule\": \"daily\"}")" \
    400 "a token alone as the user name: 400 too"
is "$(_sql "SELECT count(*) FROM settings WHERE name LIKE 'gitops.%'")" 0 \
    "all or nothing: the schedule given with it was not stored either"

is "$(http PUT "$BASE/api/settings" -H "$A" -H "$J" --data "{\"gitops.repo_url\": \"$URL\"}")" \
    400 "PUT /api/settings with gitops.repo_url carrying credentials: 400"
like "$(http_body | jq -r .error)" "gitops.repo_url must not carry credentials" \
    "the error names the setting"
is "$(http PUT "$BASE/api/settings" -H "$A" -H "$J" \
    --data '{"upstream.url": "https://u:p@127.0.0.1:1/"}')" 400 "so does any URL setting"
ctxd_admin settings set gitops.repo_url "$URL" >/dev/null 2>"$T/set.err"
isnt "$?" 0 "ctxd-admin settings set refuses it"
like "$(cat "$T/set.err")" "must not carry credentials" "and says why"
is "$(stored)" 0 "nothing was stored"

is "$(http PUT "$BASE/api/gitops/config" -H "$A" -H "$J" \
    --data '{"repoUrl": "http://127.0.0.1:1/a@b/manifest.git"}')" 200 "an @ in the path is no credential"

# A value stored before the rule (written to the database directly).
_sql "UPDATE settings SET value = '$URL' WHERE name = 'gitops.repo_url'"
is "$(http GET "$BASE/api/gitops/status" -H "$A")" 200 "GitOps status"
is "$(http_body | jq -r .config.repoUrl)" "http://[redacted]@127.0.0.1:1/acme/manifest.git" \
    "shows the stored URL with its credentials redacted"
is "$(http GET "$BASE/api/settings" -H "$A")" 200 "the settings"
is "$(http_body | jq -r '.settings["gitops.repo_url"].value')" \
    "http://[redacted]@127.0.0.1:1/acme/manifest.git" "show it redacted too"
unlike "$(ctxd_admin settings list)" "$SECRET" "ctxd-admin settings list does not show the secret"
is "$(http GET "$BASE/api/support-bundle" -H "$A")" 200 "the support bundle"
mkdir -p "$T/bundle"
tar -xzf "$T/http.body" -C "$T/bundle"
ok $? "is a tar.gz"
ok "$(grep -rqF "$SECRET" "$T/bundle"; echo $((1 - $?)))" "that does not hold the secret"
ok "$(grep -rqF '[redacted]@127.0.0.1:1' "$T/bundle"; echo $?)" "but the redacted URL"

is "$(http POST "$BASE/api/gitops/reconcile?wait=0" -H "$A")" 202 "a sync is queued"
gitops_run
is "$(gitops_last .state)" failed "the sync fails"
like "$(gitops_last .message)" "carries credentials" "saying the URL carries credentials"
unlike "$(http_body)" "$SECRET" "without naming them"
ok "$(cat "$T"/log/*.log "$DATA_DIR"/*.log 2>/dev/null | grep -qF "$SECRET"; echo $((1 - $?)))" \
    "the secret is in no log"

done_testing
