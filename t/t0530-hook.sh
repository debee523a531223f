#!/usr/bin/env bash
# ctxd-hook through nginx: the route /api/webhooks/github reaches it (no 502); without a
# webhook secret a delivery is refused with a JSON error naming the setting (503); any
# other method 405; an API key does not replace the signature. (The deliveries themselves:
# t0945-webhook.)
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx

ctxd_setup
ctxd_start
URL=$BASE/api/webhooks/github

code=$(http POST "$URL" -H 'Content-Type: application/json' -H 'X-GitHub-Event: ping' \
    --data '{"zen":"Keep it logically awesome."}')
is "$code" 503 "POST without a webhook secret: 503"
like "$(http_header Content-Type)" '^application/json' "POST: a JSON answer"
like "$(http_body | jq -r .error)" 'git.github.webhook_secret' "POST: the error names the setting"
code=$(http GET "$URL")
is "$code" 405 "GET: 405"
is "$(http_header Allow)" POST "GET: Allow: POST"
like "$(http_body | jq -r .error)" 'accepts only POST' "GET: a JSON error"
code=$(http POST "$BASE/api/webhooks/gitlab" -H 'Content-Type: application/json' --data '{}')
is "$code" 404 "another webhook path: 404 (ctxd-web has no such route)"
ctxd_admin settings set git.github.webhook_secret "secret-$RANDOM" >/dev/null
ADMIN=$(ctxd_admin key create --admin tests)
code=$(http POST "$URL" -H 'Content-Type: application/json' -H 'X-GitHub-Event: ping' \
    -H 'X-GitHub-Delivery: 1' -H "Authorization: Bearer $ADMIN" --data '{}')
is "$code" 401 "an admin key without a signature: 401 (a credential is not looked at)"

done_testing
