#!/usr/bin/env bash
# The web UI in Debian's chromium: the setup wizard's git step and Settings (Git tokens,
# Integrations, Advanced, Permissions) say in one sentence what each switch of what members
# can make the server read opens; perm.members_use_integrations toggled in the page is seen
# enforced on a member's wiki source. No job runs (CTXD_WORKER=/bin/true).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq node npm flock chromium nginx
export CTXD_WORKER=/bin/true

ctxd_setup
ui_install
ctxd_start
ctxd_admin_session
for s in setup.ai_provider setup.embedding setup.git_tokens setup.who_can_read; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
printf 'member password 1\n' | ctxd_admin user create mia >/dev/null 2>&1 ||
    bail_out "cannot create the member user"
MEMBER=$(ctxd_admin key create --user mia mia-key)
# The default address policy, but the loopback the wiki URL of the test is on.
ctxd_admin settings set fetch.allowed_networks "127.0.0.0/8"
ui_run t0825-safe-defaults.mjs "$BASE" "$ADMIN_PASSWORD" "$MEMBER"
is "$(ctxd_admin settings get perm.members_use_integrations)" false "the switch is off again"
done_testing
