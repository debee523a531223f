#!/usr/bin/env bash
# The web UI in Debian's chromium: each permission switch toggled in Settings and seen
# enforced on the API; users added, disabled and reset; a member who cannot see admin pages.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq node npm flock chromium nginx

ctxd_setup
ui_install
ctxd_start
ctxd_admin_session
for s in setup.ai_provider setup.embedding setup.git_tokens setup.who_can_read; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
ui_run t0820-permissions-users.mjs "$BASE" "$ADMIN_PASSWORD"
is "$(ctxd_admin user list 2>/dev/null | grep -c mia)" 1 "the user added in the browser exists"
done_testing
