#!/usr/bin/env bash
# The web UI in Debian's chromium: the Status page shows the license's end date and whether
# this is a development build; its license card installs a purchased key into
# DATA_DIR/license.key and refuses a foreign one. Screenshots at 360 and 1440 px.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq node npm flock chromium nginx openssl
export CTXD_WORKER=/bin/true

ctxd_setup
# The service runs on the instance's trial, installed in DATA_DIR, not on LICENSE_KEY.
unset LICENSE_KEY
ctxd_admin license trial >/dev/null || bail_out "license trial failed"
ui_install
ctxd_start
ctxd_admin_session
for s in setup.ai_provider setup.embedding setup.git_tokens setup.who_can_read; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
good=$(ctxd_admin license mint --key "$top_srcdir/keys/dev-license.key" --plan standard \
    --licensee "Acme Ltd" --days 365)
openssl genpkey -algorithm ed25519 -out "$T/other.key" 2>/dev/null
bad=$(ctxd_admin license mint --key "$T/other.key" --days 30)
ui_run t0805-license.mjs "$BASE" "$ADMIN_PASSWORD" "$good" "$bad"
is "$(cat "$DATA_DIR/license.key" 2>/dev/null)" "$good" "the card wrote the key to DATA_DIR/license.key"
is "$(stat -c %a "$DATA_DIR/license.key" 2>/dev/null)" 600 "mode 0600"
done_testing
