#!/usr/bin/env bash
# A git library's versions on the web UI's library page in Chromium (the checks are in
# t/e2e/ui/t0870-versions.mjs): the Versions panel lists them, adds one and removes one by
# re-posting the entry with "versions"; a version's page links to its library. A console
# error, a CSP violation or a control without a label fails. The worker that the responders
# start indexes.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node npm flock sqlite3 chromium

ctxd_setup
ui_install
gitserver_start
test_repo test/kv
for v in 1.0 2.0 3.0; do
	printf '# Timeouts\n\nIn %s the default timeout is %s0 seconds.\n' "$v" "$v" | put README.md
	commit "$v" "v$v"
done
ctxd_start
ctxd_admin_session
ADMIN=$(ctxd_admin key create --admin tests)
is "$(http POST "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"type\": \"git\", \"url\": \"$GITBASE/public/test/kv.git\", \"versions\": [\"v1.0\"]}")" 202 \
    "POST /api/libraries with a version"
is "$(wait_job /test/kv/v1.0)" finalized "v1.0 indexed"
rm -f "$SHOTS"/uiver-*.png
ui_run t0870-versions.mjs "$BASE" "$ADMIN_PASSWORD" "$top_srcdir/t/lib/sql-run"
for w in 360 1440; do
	ok "$([ -s "$SHOTS/uiver-library-$w.png" ]; echo $?)" "screenshot uiver-library-$w.png"
done
done_testing
