#!/usr/bin/env bash
# ctxd-hook through nginx: the route /api/webhooks/github reaches it (no 502), a POST gets
# the JSON error saying webhooks come with the GitOps feature, any other method 405.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx

ctxd_setup
ctxd_start
URL=$BASE/api/webhooks/github

code=$(http POST "$URL" -H 'Content-Type: application/json' -H 'X-GitHub-Event: ping' \
    --data '{"zen":"Keep it logically awesome."}')
is "$code" 404 "POST: 404 (not handled yet)"
like "$(http_header Content-Type)" '^application/json' "POST: a JSON answer"
like "$(http_body | jq -r .error)" 'GitOps' "POST: the error says webhooks come with GitOps"
code=$(http GET "$URL")
is "$code" 405 "GET: 405"
is "$(http_header Allow)" POST "GET: Allow: POST"
like "$(http_body | jq -r .error)" 'accepts only POST' "GET: a JSON error"
code=$(http POST "$BASE/api/webhooks/gitlab" -H 'Content-Type: application/json' --data '{}')
is "$code" 404 "another webhook path: 404 (ctxd-web has no such route)"
code=$(http POST "$URL" -H 'Content-Type: application/json' -H "Authorization: Bearer nonsense" \
    --data '{}')
is "$code" 404 "a credential is not looked at"

done_testing
