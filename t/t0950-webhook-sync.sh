#!/usr/bin/env bash
# End to end: a push to the private manifest repository, delivered as a signed webhook,
# queues a GitOps sync; ctxd-worker reads the manifest with the GitHub-type App's
# installation token (no personal token is set: the stand-in mints it after verifying the
# JWT) and adds the library; a second push syncs again with the cached token. Then the
# manifest repository's host as the GitLab-type host: the sync reads it with the GitLab-type
# token (none set: it fails and says so).
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/gitops.sh"
require_cmd jq git nginx fcgiwrap node openssl

ctxd_setup
GIT_USER=x-access-token gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
REQ=$(gitserver_add_bundle requests public)
gitops_repo_init acme/gitops
SECRET=hook-$(openssl rand -hex 8)

openssl genrsa -traditional -out "$T/app.pem" 2048 2>/dev/null || bail_out "openssl genrsa"
openssl rsa -in "$T/app.pem" -pubout -out "$T/app.pub" 2>/dev/null || bail_out "openssl rsa"
github_standin_start --app-id 7 --public-key "$T/app.pub" --token "$GIT_TOKEN" \
    --installation 77 --repos acme/gitops
is "$(http PUT "$BASE/api/settings" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "$(jq -cn --arg h "127.0.0.1:$GITPORT" \
    --arg api "$GHBASE" --rawfile pem "$T/app.pem" --arg s "$SECRET" --arg u "$GITOPS_URL" \
    '{"git.github.host": $h, "git.github.api_url": $api, "git.github.app_id": 7,
    "git.github.app_private_key": $pem, "git.github.webhook_secret": $s,
    "gitops.enabled": true, "gitops.repo_url": $u}')")" 200 "App, webhook and GitOps set"

# deliver ID: a signed push of main (its head commit) to the manifest repository; prints
# the status.
deliver() {
	local body
	body=$(jq -cn --arg u "$GITOPS_URL" --arg after "$(git -C "$GW" rev-parse HEAD)" \
	    '{ref: "refs/heads/main", after: $after, deleted: false,
	    repository: {full_name: "acme/gitops", clone_url: $u, default_branch: "main"}}')
	http POST "$BASE/api/webhooks/github" -H 'Content-Type: application/json' \
	    -H 'X-GitHub-Event: push' -H "X-GitHub-Delivery: $1" -H "X-Hub-Signature-256: sha256=$(
	    printf '%s' "$body" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)" \
	    --data-binary "$body"
}
mints() { curl -sS "$GHBASE/_stats" | jq -r .mints; }

c1=$(gitops_push <<YAML
repos:
  - url: $REQ
YAML
)
is "$(deliver e2e-1)" 202 "the push webhook is accepted"
is "$(_sql "SELECT state || ' ' || trigger FROM gitops_runs")" "queued webhook" \
    "a sync is queued with trigger webhook"
gitops_run
is "$(gitops_last .state)" done "the sync is done"
is "$(gitops_last .trigger)" webhook "it is the webhook's"
is "$(gitops_last .manifestCommit)" "$c1" "it read the pushed commit of the private repository"
is "$(gitops_last .counts.created)" 1 "the manifest's library is created"
is "$(mints)" 1 "with the App's installation token"

gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
    folders: [docs]
YAML
is "$(deliver e2e-2)" 202 "a second push is accepted"
gitops_run
is "$(gitops_last .state)" done "the second sync is done"
is "$(gitops_last .counts.updated)" 1 "the changed entry is updated"
is "$(mints)" 1 "the cached token was used"
is "$(_sql "SELECT count(*) FROM settings WHERE name = 'git.github.token'")" 0 \
    "no personal token was ever set"

# The GitLab-type host: no App there, its token (user oauth2) reads the manifest.
printf 'oauth2:%s\n' "$(openssl passwd -apr1 "$GIT_TOKEN")" >>"$T/gitnginx/htpasswd"
ctxd_admin settings set git.github.host github.com >/dev/null
ctxd_admin settings set git.gitlab.host "127.0.0.1:$GITPORT" >/dev/null
c3=$(gitops_push <<YAML
repos:
  - url: $REQ
    folders: [docs, src]
YAML
)
is "$(http POST "$BASE/api/gitops/reconcile" -H "Authorization: Bearer $ADMIN")" 202 \
    "a sync requested (GitLab-type host, no token)"
gitops_run
is "$(gitops_last .state)" failed "without the GitLab-type token the sync fails"
like "$(gitops_last .message)" "no git credential .*127.0.0.1:$GITPORT" "and says why"
printf '%s\n' "$GIT_TOKEN" | ctxd_admin settings set git.gitlab.token - >/dev/null
is "$(http POST "$BASE/api/gitops/reconcile" -H "Authorization: Bearer $ADMIN")" 202 \
    "a sync requested (GitLab-type token set)"
gitops_run
is "$(gitops_last .state)" done "the manifest is read with the GitLab-type token"
is "$(gitops_last .manifestCommit)" "$c3" "at the pushed commit"
is "$(mints)" 1 "the App is not asked for another host"

done_testing
