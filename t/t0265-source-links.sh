#!/usr/bin/env bash
# The Source line of a git library on a host of no known web layout is a link: the
# repository URL (without .git) and the path; git.web_url_template gives an operator's
# forge pattern ({repo}, {commit}, {path}); a known forge type has its blob URL at the
# indexed commit (t0120 checks both types); an unusable pattern is refused.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)

test_repo tests/links
put docs/guide/linkwidget.md <<'EOF2'
# Linkwidget

## Configuring a linkwidget

A linkwidget is configured in linkwidget.toml.
EOF2
commit fixture
sha=$(git -C "$work" rev-parse HEAD)

parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$1\"}"
}
source_line() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/links \
	    --data-urlencode "query=configure linkwidget" >/dev/null
	http_body | sed -n 's/^Source: //p' | head -1
}

is "$(parse "$GITBASE/public/tests/links.git")" 202 "parse: 202"
is "$(wait_job /tests/links)" finalized "indexed"
is "$(source_line)" "$GITBASE/public/tests/links/docs/guide/linkwidget.md#configuring-a-linkwidget" \
    "no known layout: the repository URL and the path"

# An operator's forge pattern (a Gitea-like layout), used from the next index of a commit on.
ctxd_admin settings set git.web_url_template '{repo}/src/commit/{commit}/{path}' >/dev/null
ok $? "git.web_url_template set"
echo 'More about linkwidgets.' >>"$work/docs/guide/linkwidget.md"
commit second
sha=$(git -C "$work" rev-parse HEAD)
is "$(parse "$GITBASE/public/tests/links.git")" 202 "re-parse: 202"
wait_jobid "$(http_body | jq -r .jobId)"
ok $? "re-indexed"
is "$(source_line)" \
    "$GITBASE/public/tests/links/src/commit/$sha/docs/guide/linkwidget.md#configuring-a-linkwidget" \
    "the pattern at the indexed commit"

# Patterns that are no web address, or name no path, are refused and change nothing.
for bad in 'javascript:alert(1)/{path}' '{repo}/src' 'https://x.example/a b/{path}'; do
	ctxd_admin settings set git.web_url_template "$bad" >/dev/null 2>&1
	isnt $? 0 "refused: $bad"
done
is "$(ctxd_admin settings get git.web_url_template)" '{repo}/src/commit/{commit}/{path}' \
    "the pattern is unchanged"

# A GitHub-type host: its blob URL at the indexed commit, the pattern not used there.
ctxd_admin settings set git.github.host "127.0.0.1:$GITPORT" >/dev/null
echo 'Even more about linkwidgets.' >>"$work/docs/guide/linkwidget.md"
commit third
sha=$(git -C "$work" rev-parse HEAD)
is "$(parse "$GITBASE/public/tests/links.git")" 202 "re-parse on a GitHub-type host: 202"
wait_jobid "$(http_body | jq -r .jobId)"
ok $? "re-indexed"
is "$(source_line)" \
    "$GITBASE/public/tests/links/blob/$sha/docs/guide/linkwidget.md#configuring-a-linkwidget" \
    "a known forge type: its blob URL at the indexed commit"

done_testing
