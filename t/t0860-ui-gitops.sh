#!/usr/bin/env bash
# The web UI's GitOps tab (Settings > GitOps) in Chromium (the checks are in
# t/e2e/ui/t0860-gitops.mjs) against a real manifest repository on the local git server:
# the configuration saved through PUT /api/gitops/config (a bad cron expression refused next
# to its field), Sync now with its counts and per-entry outcomes, the libraries it created
# in the Libraries list with their GitOps badge, a manifest that does not parse (branch
# "broken") shown with its file, line and column, the last sync's time in the browser's
# time zone, and a member who sees none of it. Any console error or CSP violation, or a
# control without a label, fails. Screenshots at 360 and 1440 px go to
# $top_builddir/t/screenshots/gitops-*.png.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/gitops.sh"
require_cmd jq git nginx fcgiwrap node npm flock sqlite3 chromium

ctxd_setup
ui_install
GIT_USER=x-access-token gitserver_start
REQ=$(gitserver_add_bundle requests public)
AXUM=$(gitserver_add_bundle axum public)
gitops_repo_init acme/gitops
gitops_credentials
gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
    folders: [docs]
  - repoUrl: $AXUM
  - type: wiki
    url: https://wiki.example.com/wiki
    spaceKey: ENG
YAML
# The wiki entry fails alone (no wiki integration is configured).
# Branch "broken": a manifest with a field of another type (line 4, column 5).
git -C "$GW" checkout -q -b broken || bail_out "git checkout -b broken"
gitops_push <<YAML >/dev/null
repos:
  - url: $REQ
    folders: [docs]
    maxPages: 10
YAML
git -C "$GW" push -q origin broken 2>>"$T/log/gitops-push.log" || bail_out "git push broken"
ctxd_start
ctxd_admin_session
for s in setup.ai_provider setup.embedding setup.git_tokens setup.who_can_read; do
	ctxd_admin settings set "$s" skipped >/dev/null || bail_out "cannot skip $s"
done
is "$(http POST "$BASE/api/users" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" \
    -H 'Content-Type: application/json' \
    --data '{"name": "mia", "password": "mia first password", "role": "member"}')" 201 \
    "a member user added" || diag "$(http_body)"
rm -f "$SHOTS"/gitops-*.png

ui_run t0860-gitops.mjs "$BASE" "$ADMIN_PASSWORD" "$GITOPS_URL"
is "$(_sql "SELECT group_concat(id, ' ') FROM (SELECT id FROM libraries WHERE gitops = 1 ORDER BY id) AS l")" \
    "/corpora/axum /corpora/requests" "the libraries of the manifest are GitOps-managed"
is "$(_sql "SELECT value FROM settings WHERE name = 'gitops.branch'")" broken \
    "the branch saved in the browser is the gitops.branch setting"
for page in gitops gitops-error; do
	for w in 360 1440; do
		ok "$([ -s "$SHOTS/$page-$w.png" ]; echo $?)" "screenshot $page-$w.png"
	done
done
done_testing
