#!/usr/bin/env bash
# The web UI's Libraries and Jobs pages in Chromium (driven by playwright-core, pinned in
# t/e2e/ui/package-lock.json; the checks are in t/e2e/ui/t0850-libraries-jobs.mjs): the add forms' browser
# checks per source type and the server's 400 shown next to its field; adding a private
# repository and watching its job reach done with the progress bar moving, the log with
# levels and times; the list (states, counts, GitOps badge, filter); a library's settings,
# snippet browser (pages, filter, code) and try box (exactly the agent's text, its tokens
# and time; "Why these snippets?": the explain API's summary and candidates, 20 then all,
# those in the answer marked and in its order, the API's error in words, a raised budget
# explained as used); cancelling a running job; the libraries list, a library's last runs,
# the candidates and the jobs list on a 360 px screen without sideways scrolling (every
# cell's value on screen; each job's library, kind, state and progress), and still tables
# at 1440 px; deleting a library after a confirmation naming it.
# Any console error or CSP violation, or a control without a label, fails. Screenshots at 360 and 1440 px go to
# $top_builddir/t/screenshots/uilib-*.png. The worker that the responders start is slowed
# by CTXD_TEST_FILE_DELAY_MS (a test-only knob) so that a parse takes a few seconds.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node npm flock sqlite3 chromium

ctxd_setup
# ui_install and ui_run: t/lib/harness.sh.
ui_install
GIT_USER=oauth2 gitserver_start
GIT_URL=$(gitserver_add_bundle requests private)
SLOW_URL=$(gitserver_add_bundle express public)
ctxd_admin settings set git.gitlab.host "127.0.0.1:$GITPORT" >/dev/null &&
    printf '%s\n' "$GIT_TOKEN" | ctxd_admin settings set git.gitlab.token - ||
    bail_out "cannot set the git token"
export CTXD_TEST_FILE_DELAY_MS=250
ctxd_start
ctxd_admin_session
rm -f "$SHOTS"/uilib-*.png

ui_run t0850-libraries-jobs.mjs "$BASE" "$ADMIN_PASSWORD" "$GIT_URL" "$SLOW_URL" "$top_srcdir/t/lib/sql-run"
for page in libraries add library library-try library-snippets library-settings why job jobs job-refused settings-wanted; do
	for w in 360 1440; do
		ok "$([ -s "$SHOTS/uilib-$page-$w.png" ]; echo $?)" "screenshot uilib-$page-$w.png"
	done
done
done_testing
