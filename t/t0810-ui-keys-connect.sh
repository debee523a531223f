#!/usr/bin/env bash
# The web UI in Debian's chromium: API keys (create, copy, revoke, checked on the API),
# Connect a client, and the MCP connectivity test against a library indexed from the
# private git server, with MCP authentication off and required.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git node npm flock chromium nginx fcgiwrap

ctxd_setup
ui_install
gitserver_start
ctxd_start
ctxd_admin_session
for s in setup.ai_provider setup.embedding setup.git_tokens setup.who_can_read; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")
is "$code" 202 "parse requests: 202"
is "$(wait_job /corpora/requests)" finalized "requests indexed"

ui_run t0810-keys-connect.mjs "$BASE" "$ADMIN_PASSWORD" /corpora/requests
is "$(ctxd_admin settings get perm.require_mcp_auth)" true "the switch the browser turned on is stored"
done_testing
