#!/usr/bin/env bash
# Who may change what: re-posting /api/parse for a library that
# exists keeps its stored source settings where the body leaves them out, and other values
# need an admin or the user who added the library (403 naming the fields for anyone else,
# nothing changed), also with perm.anonymous_parse on; the support bundle is admin-only
# unless perm.anonymous_support_bundle is on. One real re-index shows that a member's plain
# re-parse keeps the admin's folders (the documents stay those of the chosen folder).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ctxd_admin_session
J='Content-Type: application/json'
worker() { "$top_builddir/ctxd-worker" 2>>"$T/log/worker-runs.log"; }

# Users: admin (signed in), members mia and bob; their keys; an operator admin key.
for u in mia bob; do
	printf '%s\n' "password of $u 12345" | ctxd_admin user create "$u" >/dev/null ||
	    bail_out "user create $u"
done
ADMIN_KEY=$(ctxd_admin key create --user admin admin-key)
MIA=$(ctxd_admin key create --user mia mia-key)
BOB=$(ctxd_admin key create --user bob bob-key)
OPS=$(ctxd_admin key create --admin ops)
GONE=$(ctxd_admin key create --user bob revoked-key)
ctxd_admin key revoke "$(ctxd_admin key list | awk -F'\t' '$2 == "revoked-key" { print $1 }')" ||
    bail_out "key revoke"

# parse KEY BODY: POST /api/parse with KEY ("" for none); prints the status.
parse() {
	if [ -n "$1" ]; then
		http POST "$BASE/api/parse" -H "Authorization: Bearer $1" -H "$J" --data "$2"
	else
		http POST "$BASE/api/parse" -H "$J" --data "$2"
	fi
}
# stored ID: the stored branch and source settings of library ID, one line.
stored() {
	_sql "SELECT branch || ' ' || settings FROM libraries WHERE id = '$1'"
}

url=$(gitserver_add_bundle axum public acme)
LIB=/acme/axum
is "$(parse "$ADMIN_KEY" "{\"repoUrl\": \"$url\", \"folders\": [\"axum\"], \"excludeFiles\": [\"CHANGELOG.md\"]}")" \
    202 "the admin adds $LIB with folders [axum]"
is "$(_sql "SELECT created_by = (SELECT id FROM users WHERE name = 'admin') FROM libraries WHERE id = '$LIB'")" 1 \
    "the library records who added it"
worker
docs=$(_sql "SELECT total_documents FROM libraries WHERE id = '$LIB'")
all=$(git -C "$T/gitsrv/public/acme/axum.git" ls-tree -r --name-only HEAD | grep -c '\.md$')
ok "$([ "$docs" -gt 1 ] && [ "$docs" -lt "$all" ]; echo $?)" \
    "only the chosen folder is indexed ($docs documents of $all Markdown files)"
want=$(stored $LIB)

# A member's plain re-parse re-indexes with the stored settings.
is "$(parse "$MIA" "{\"repoUrl\": \"$url\"}")" 202 "a member's plain re-parse: 202"
is "$(stored $LIB)" "$want" "it keeps the stored branch and settings"
worker
is "$(_sql "SELECT total_documents FROM libraries WHERE id = '$LIB'")" "$docs" \
    "and the re-index keeps the admin's folder (still $docs documents)"
is "$(parse "$MIA" "{\"repoUrl\": \"$url\", \"folders\": [\"axum\"], \"excludeFiles\": [\"CHANGELOG.md\"], \"indexSourceCode\": false, \"branch\": \"\"}")" \
    202 "the stored values sent again: 202"
is "$(stored $LIB)" "$want" "nothing changes"

# Other values from a member: 403 naming them, nothing changed.
is "$(parse "$MIA" "{\"repoUrl\": \"$url\", \"folders\": [\"examples\"]}")" 403 \
    "a member sending other folders: 403"
like "$(http_body | jq -r .error)" "source settings of library $LIB \\(folders\\) needs an admin or the user who added it" \
    "the error names the field and who may change it"
is "$(stored $LIB)" "$want" "the settings are unchanged"
is "$(parse "$BOB" "{\"repoUrl\": \"$url\", \"branch\": \"dev\", \"excludeFiles\": [], \"indexSourceCode\": true}")" \
    403 "another member sending a branch, an empty list and indexSourceCode: 403"
like "$(http_body | jq -r .error)" '\(branch, excludeFiles, indexSourceCode\)' "all three are named"
u2=$(sed -E 's|/git/public/|/GIT/public/|' <<<"$url")
is "$(parse "$MIA" "{\"repoUrl\": \"$u2\"}")" 403 "the same repository spelled with other capitals: 403"
like "$(http_body | jq -r .error)" '\(repoUrl\)' "the URL is named"
is "$(stored $LIB)" "$want" "still unchanged"
is "$(_sql "SELECT url FROM libraries WHERE id = '$LIB'")" "${url%.git}" "and so is the URL"

# An admin (operator key, signed-in admin) may change them.
is "$(parse "$OPS" "{\"repoUrl\": \"$url\", \"folders\": [\"examples\"]}")" 202 \
    "an operator admin key changes the folders: 202"
like "$(stored $LIB)" '"folders":\["examples"\],"excludeFolders":\[\],"excludeFiles":\["CHANGELOG.md"\]' \
    "new folders, the excluded files left out are kept"
is "$(http POST "$BASE/api/parse" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" \
    --data "{\"repoUrl\": \"$url\", \"folders\": [\"axum\"]}")" 202 "the admin's session: 202"
like "$(stored $LIB)" '"folders":\["axum"\]' "folders back to axum"

# A member's own library: the member may rescope it, another member may not.
url2=$(gitserver_add_bundle requests public mia)
is "$(parse "$MIA" "{\"repoUrl\": \"$url2\", \"folders\": [\"docs\"]}")" 202 "mia adds /mia/requests"
is "$(parse "$MIA" "{\"repoUrl\": \"$url2\", \"folders\": [\"docs\", \"src\"]}")" 202 \
    "mia changes the folders of her library: 202"
like "$(stored /mia/requests)" '"folders":\["docs","src"\]' "stored"
is "$(parse "$BOB" "{\"repoUrl\": \"$url2\", \"folders\": []}")" 403 "bob may not: 403"
is "$(parse "$ADMIN_KEY" "{\"repoUrl\": \"$url2\", \"folders\": [\"docs\"]}")" 202 "an admin may"

# perm.anonymous_parse on: anyone re-parses, but the settings still need an admin or the
# creator; a valid admin key is still recognised, a revoked key counts as no credential.
ctxd_admin settings set perm.anonymous_parse true
want=$(stored $LIB)
is "$(parse "" "{\"repoUrl\": \"$url\"}")" 202 "switch on: an anonymous plain re-parse: 202"
is "$(stored $LIB)" "$want" "which keeps the settings"
is "$(parse "" "{\"repoUrl\": \"$url\", \"folders\": [\"examples\"]}")" 403 \
    "switch on: anonymous other folders: 403"
is "$(parse "$GONE" "{\"repoUrl\": \"$url\", \"folders\": [\"examples\"]}")" 403 \
    "switch on: a revoked key is anonymous: 403"
is "$(parse "$MIA" "{\"repoUrl\": \"$url2\", \"folders\": [\"src\"]}")" 202 \
    "switch on: mia is still recognised as the creator of her library"
is "$(parse "$OPS" "{\"repoUrl\": \"$url\", \"folders\": [\"examples\"]}")" 202 \
    "switch on: an admin key still may"
is "$(parse "" "{\"repoUrl\": \"https://github.com/anon/new\"}")" 202 "switch on: anyone adds a library"
is "$(_sql "SELECT created_by IS NULL FROM libraries WHERE id = '/anon/new'")" 1 "created by no user"
ctxd_admin settings set perm.anonymous_parse false

# A deleted creator is forgotten (a later user with the same id is not the creator).
is "$(http DELETE "$BASE/api/users/mia" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF")" 200 \
    "the admin deletes mia"
is "$(_sql "SELECT created_by IS NULL FROM libraries WHERE id = '/mia/requests'")" 1 \
    "her library no longer names a creator"

# The support bundle holds settings and job logs that members may not read.
is "$(http GET "$BASE/api/support-bundle" -H "Authorization: Bearer $BOB")" 403 \
    "the support bundle with a member key: 403"
like "$(http_body | jq -r .error)" 'downloading the support bundle needs an admin' "saying why"
bob_csrf=$(ctxd_login bob "password of bob 12345" "$T/cookies.bob") || bail_out "bob sign-in"
is "$(http GET "$BASE/api/support-bundle" -b "$T/cookies.bob")" 403 \
    "with a member session: 403"
is "$(http GET "$BASE/api/support-bundle")" 401 "without a credential: 401"
is "$(http GET "$BASE/api/support-bundle" -H "Authorization: Bearer $OPS")" 200 "an admin key: 200"
is "$(http GET "$BASE/api/support-bundle" -b "$ADMIN_JAR")" 200 "an admin session: 200"
ctxd_admin settings set perm.anonymous_support_bundle true
is "$(http GET "$BASE/api/support-bundle")" 200 "perm.anonymous_support_bundle on: anyone"
is "$(http GET "$BASE/api/support-bundle" -H "Authorization: Bearer $BOB")" 200 "a member too"
ctxd_admin settings set perm.anonymous_support_bundle false
: "$bob_csrf"

done_testing
