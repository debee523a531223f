#!/usr/bin/env bash
# The web UI's first launch in Debian's chromium (playwright-core, pinned in
# t/e2e/ui/package-lock.json): sign-in as admin/admin, the forced password change, the wizard
# with real provider calls to the vendor stand-in and who can read decided, status (with an alert of failed
# sign-ins), support bundle, Settings.
# Screenshots of each page at 360 and 1440 px go to $top_builddir/t/screenshots.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq node npm flock chromium nginx

ctxd_setup
# ui_install and ui_run: t/lib/harness.sh.
ui_install
standin_start
ctxd_start

# 12 failed sign-ins for one name from 6 addresses: an alert on the admin's Status page.
for a in 21 22 23 24 25 26; do
	for i in 1 2; do
		http POST "$BASE/api/session" --interface "127.0.0.$a" -H 'Content-Type: application/json' \
		    --data '{"username": "mallory", "password": "a guess"}' >/dev/null
	done
done

PW="a new admin password 1"
ui_run t0800-first-launch.mjs "$BASE" "$SBASE" "$PW" "$T"

# What the browser did, seen from the server.
is "$(ctxd_admin settings get ai.llm.provider)" custom "the wizard saved the LLM provider"
is "$(ctxd_admin settings get ai.embed.model)" local-embed "the wizard saved the embedding model"
is "$(ctxd_admin settings get setup.git_tokens)" skipped "the git step is recorded as skipped"
is "$(ctxd_admin settings get setup.ai_provider)" done "the AI step is recorded as done"
is "$(ctxd_admin settings get setup.who_can_read)" done "the who-can-read step is recorded as done"
is "$(ctxd_admin settings get perm.require_mcp_auth)" true "the wizard turned on perm.require_mcp_auth"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x&query=x")" 401 "an anonymous read is refused"
is "$(http POST "$BASE/mcp" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')" 401 "so is an anonymous MCP call"
ok "$(ctxd_login admin "$PW" >/dev/null; echo $?)" "admin signs in with the new password"
isnt "$(ctxd_login admin admin >/dev/null; echo $?)" 0 "admin/admin no longer works"
ok "$(tar -tzf "$T/bundle.tar.gz" | grep -q "^ctxd-support-[0-9TZ]*/health.json$"; echo $?)" "the downloaded support bundle is a tar.gz with health.json"
done_testing
