#!/usr/bin/env bash
# The web UI's Policies tab (Settings > Policies) in Chromium (the checks are in
# t/e2e/ui/t0880-policies.mjs): each control with one line of help, the policies saved
# through PUT /api/policies (a bad glob refused next to its field), the try box with the
# decision and its reason, the audit trail, and an expired license (the server's clock moved
# by ctxd_clock_shim) shown in words instead of the form. Any console error or CSP
# violation, or a control without a label, fails. Screenshots at 360 and 1440 px go to
# $top_builddir/t/screenshots/policies*.png.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx fcgiwrap node

ctxd_setup
ui_install
ctxd_clock_shim
LD_PRELOAD=$CTXD_CLOCK_SO ctxd_start
ctxd_admin_session
for s in setup.ai_provider setup.embedding setup.git_tokens setup.who_can_read; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
rm -f "$SHOTS"/policies*.png

ui_run t0880-policies.mjs "$BASE" "$ADMIN_PASSWORD" "$CTXD_TEST_CLOCK"
is "$(_sql "SELECT value FROM settings WHERE name = 'policy.block'")" "/vercel/*" \
    "the block list saved in the browser is the policy.block setting"
is "$(_sql "SELECT actor FROM audit_log")" "user admin (session)" "one audit row, the signed-in admin's"
for page in policies policies-expired; do
	for w in 360 1440; do
		ok "$([ -s "$SHOTS/$page-$w.png" ]; echo $?)" "screenshot $page-$w.png"
	done
done

done_testing
