#!/usr/bin/env bash
# The web UI in Debian's chromium (checks in t/e2e/ui/t0830-who-can-read.mjs): the setup
# wizard's Who can read step end to end (the admin's first sign-in lands on it; anonymous
# reads chosen, then the current choice shown again; reads needing a key chosen, seen
# refused without one), the Add library form's warning for a repository that would be
# read with the instance's token while anonymous reads are on, the job log's warning once
# the private repository was read with it (its setting a link), and every Settings tab
# showing the server's label of each setting with its raw name. Screenshots at 360 and
# 1440 px go to $top_builddir/t/screenshots/who-*.png. The state words on the Jobs and
# Libraries pages are the API's, each explained.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node npm flock chromium

ctxd_setup
ui_install
GIT_USER=oauth2 gitserver_start
GIT_URL=$(gitserver_add_bundle requests private)
ctxd_admin settings set git.gitlab.host "127.0.0.1:$GITPORT" >/dev/null &&
    printf '%s\n' "$GIT_TOKEN" | ctxd_admin settings set git.gitlab.token - ||
    bail_out "cannot set the git token"
ctxd_start
ctxd_admin_session
# The first three steps are behind the admin; who can read is still to decide.
for s in setup.ai_provider setup.embedding setup.git_tokens; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
rm -f "$SHOTS"/who-*.png

ui_run t0830-who-can-read.mjs "$BASE" "$ADMIN_PASSWORD" "$GIT_URL"

# What the browser did, seen from the server.
is "$(ctxd_admin settings get setup.who_can_read)" done "the step is recorded as done"
is "$(ctxd_admin settings get perm.require_mcp_auth)" true "reads need a key at the end"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=requests&query=x")" 401 "an anonymous read is refused"
is "$(_sql "SELECT count(*) FROM job_log WHERE level = 'warning' AND line LIKE '%anonymous reads are on%'")" 1 \
    "the private repository's job logged the warning once"
for page in step step-chosen add-warning job-warning jobs-legend libraries-legend settings-ai settings-embeddings settings-git \
    settings-integrations settings-upstream settings-permissions settings-advanced; do
	for w in 360 1440; do
		ok "$([ -s "$SHOTS/who-$page-$w.png" ]; echo $?)" "screenshot who-$page-$w.png"
	done
done
done_testing
