#!/usr/bin/env bash
# The push webhook, through nginx to ctxd-hook: a delivery signed with the webhook secret
# (X-Hub-Signature-256) and pushing to the GitOps manifest repository's branch queues one
# sync (a gitops_runs row, trigger webhook) and answers 202 at once; a bad or missing
# signature is 401; another branch, another repository, ping and other events are
# acknowledged (200) and start nothing; a repeated X-GitHub-Delivery is ignored, and so is
# the same body under a new delivery id within 5 minutes (a replay); an oversized body is
# 413; without a secret, 503.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx openssl

ctxd_setup
ctxd_start
URL=$BASE/api/webhooks/github
SECRET=hook-secret-$(openssl rand -hex 8)
REPO=https://github.example/acme/docs-manifest

# sign BODY: the X-Hub-Signature-256 value of BODY under $SECRET.
sign() {
	printf 'sha256=%s' "$(printf '%s' "$1" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)"
}
# deliver EVENT ID BODY [SIGNATURE]: POST a delivery; prints the status.
deliver() {
	local sig=${4-$(sign "$3")}
	local hdr=(-H 'Content-Type: application/json' -H "X-GitHub-Event: $1"
	    -H "X-GitHub-Delivery: $2")
	[ -n "$sig" ] && hdr+=(-H "X-Hub-Signature-256: $sig")
	http POST "$URL" "${hdr[@]}" --data-binary "$3"
}
# push REF [CLONE_URL] [DEFAULT_BRANCH]: a push event's payload.
push() {
	jq -cn --arg ref "$1" --arg clone "${2:-$REPO.git}" --arg dflt "${3:-main}" '{
	    ref: $ref, before: "0000000000000000000000000000000000000000",
	    after: "1111111111111111111111111111111111111111", created: false, deleted: false,
	    repository: {id: 1, name: ($clone | sub(".*/"; "") | sub("\\.git$"; "")),
	        full_name: "acme/docs-manifest", clone_url: $clone,
	        html_url: ($clone | sub("\\.git$"; "")), default_branch: $dflt},
	    pusher: {name: "octocat"}, commits: []}'
}
runs() {
	_sql "SELECT count(*) FROM gitops_runs WHERE trigger = 'webhook'"
}

# No secret: 503, the check cannot be made.
is "$(deliver push d-0 "$(push refs/heads/main)")" 503 "no webhook secret: 503"
like "$(http_body | jq -r .error)" 'git.github.webhook_secret' "the error names the setting"

ctxd_admin settings set git.github.webhook_secret "$SECRET" >/dev/null
ctxd_admin settings set gitops.enabled true >/dev/null
ctxd_admin settings set gitops.repo_url "$REPO" >/dev/null
ctxd_admin settings set gitops.branch manifests >/dev/null
_sql "DELETE FROM gitops_runs"

body=$(push refs/heads/manifests)
is "$(deliver push d-1 "$body" '')" 401 "missing signature: 401"
like "$(http_body | jq -r .error)" 'no X-Hub-Signature-256' "the error says it is missing"
is "$(deliver push d-2 "$body" "sha256=$(printf '%064d' 0)")" 401 "wrong signature: 401"
like "$(http_body | jq -r .error)" 'does not match' "the error says it does not match"
is "$(deliver push d-3 "$body" "$(sign "$body x")")" 401 "signature of another body: 401"
is "$(deliver push d-4 "$body" "sha1=$(printf '%040d' 0)")" 401 "a sha1 signature: 401"
is "$(runs)" 0 "no sync queued by an unsigned or badly signed delivery"

is "$(deliver ping d-5 '{"zen":"Design for failure.","hook_id":1}')" 200 "ping: 200"
is "$(http_body | jq -r .status)" pong "ping answered pong"
is "$(deliver issues d-6 '{"action":"opened"}')" 200 "another event: 200"
is "$(http_body | jq -r .status)" ignored "and ignored"
is "$(deliver push d-7 "$(push refs/heads/main)")" 200 "a push to another branch: 200"
like "$(http_body | jq -r .reason)" 'another branch' "ignored: another branch"
is "$(deliver push d-8 "$(push refs/heads/manifests https://github.example/acme/other.git)")" 200 \
    "a push to another repository: 200"
like "$(http_body | jq -r .reason)" 'another repository' "ignored: another repository"
is "$(deliver push d-9 "$(push refs/tags/manifests)")" 200 "a tag push of the branch's name: 200"
is "$(http_body | jq -r .status)" ignored "ignored"
is "$(deliver push d-10 '[1, 2')" 400 "a push that is not JSON: 400"
is "$(runs)" 0 "no sync queued by any of them"

# The manifest repository's branch: one sync, queued at once.
is "$(deliver push d-11 "$body")" 202 "a push to the manifest's branch: 202"
is "$(http_body | jq -r .status)" queued "the sync is queued"
sync=$(http_body | jq -r .syncId)
is "$(runs)" 1 "one sync queued with trigger webhook"
is "$(_sql "SELECT id FROM gitops_runs WHERE trigger = 'webhook'")" "$sync" "its id is answered"

# The same delivery again (GitHub's redelivery): acknowledged, ignored.
_sql "UPDATE gitops_runs SET state = 'done'"
is "$(deliver push d-11 "$body")" 200 "a repeated delivery: 200"
like "$(http_body | jq -r .reason)" 'repeated' "ignored as repeated"
is "$(runs)" 1 "no second sync"

# The same signed body under a new delivery id within 5 minutes (a replay): ignored too.
is "$(deliver push d-11b "$body")" 200 "the same body with a new delivery id: 200"
like "$(http_body | jq -r .reason)" 'repeated.*same body' "ignored as a replay"
is "$(runs)" 1 "no second sync"
like "$(grep -c 'delivery d-11b repeats the body' "$T/log/hook.log")" '^1$' "the replay is logged"
# More than 5 minutes later the same body is a new delivery (a push of the same commit).
_sql "UPDATE hook_deliveries SET received_at = received_at - 301"
is "$(deliver push d-11c "$body")" 202 "the same body more than 5 minutes later: 202"
is "$(runs)" 2 "a second sync"
_sql "UPDATE gitops_runs SET state = 'done'"

# Case and a .git suffix aside, the same repository; branch blank: the default branch.
ctxd_admin settings set gitops.branch '' >/dev/null
ctxd_admin settings set gitops.repo_url "https://GitHub.Example/ACME/docs-manifest.git/" >/dev/null
is "$(deliver push d-12 "$(push refs/heads/manifests "$REPO.git" trunk)")" 200 \
    "branch blank: a push to a branch other than the default is ignored"
is "$(deliver push d-13 "$(push refs/heads/trunk "$REPO.git" trunk)")" 202 \
    "branch blank: a push to the default branch queues a sync"
is "$(runs)" 3 "the third sync"

# GitOps off: acknowledged, nothing queued.
ctxd_admin settings set gitops.enabled false >/dev/null
is "$(deliver push d-14 "$(push refs/heads/trunk "$REPO" trunk)")" 200 "GitOps off: 200"
like "$(http_body | jq -r .reason)" 'not enabled' "ignored: GitOps is not enabled"
is "$(runs)" 3 "no sync while GitOps is off"

# Over the size limit: refused (nginx's client_max_body_size and ctxd-hook's own limit).
head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$T/big.json"
code=$(http POST "$URL" -H 'Content-Type: application/json' -H 'X-GitHub-Event: push' \
    -H 'X-GitHub-Delivery: d-15' -H "X-Hub-Signature-256: sha256=$(printf '%064d' 0)" \
    --data-binary "@$T/big.json")
is "$code" 413 "a 5 MB body: 413"

# Other methods and paths.
is "$(http GET "$URL")" 405 "GET: 405"
is "$(http_header Allow)" POST "Allow: POST"
is "$(_sql "SELECT count(*) FROM hook_deliveries WHERE id NOT LIKE 'sha256:%'")" 12 \
    "the signed deliveries are remembered"
is "$(_sql "SELECT count(*) FROM hook_deliveries WHERE id LIKE 'sha256:%'")" 10 \
    "and their bodies' hashes"

done_testing
