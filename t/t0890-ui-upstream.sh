#!/usr/bin/env bash
# The web UI in Debian's chromium: Settings > Upstream saves the upstream's URL and its
# "Save and test" button checks it against a second real instance, then against a port where
# nothing listens.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq node npm flock chromium nginx fcgiwrap

ctxd_setup
ui_install
ctxd_second_start up
ctxd_start
ctxd_admin_session
for s in setup.ai_provider setup.embedding setup.git_tokens setup.who_can_read; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
dead=$(pick_port) || bail_out "no free port"
ui_run t0890-upstream.mjs "$BASE" "$ADMIN_PASSWORD" "$SECOND_BASE/api" "http://127.0.0.1:$dead/api"
is "$(ctxd_admin settings get upstream.url)" "http://127.0.0.1:$dead/api" \
    "the URL typed in the browser is saved"
done_testing
