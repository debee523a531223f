#!/usr/bin/env bash
# The admin API handlers of ctxd-web, ctxd-admin explain and the worker's delete job are
# valgrind-clean (no invalid access, no uninitialised use, no leak), on success and error
# answers: each request is served in CGI mode (one request, then exit) under valgrind.
. "$top_srcdir/t/lib/harness.sh"
require_cmd valgrind jq git nginx fcgiwrap tar
if ldd "$top_builddir/ctxd-web" | grep -q libasan; then
	skip_all "built with sanitizers (valgrind cannot run ASan binaries)"
fi

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle axum public acme)
VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --track-fds=no)

# cgi METHOD PATH QUERY [BODY]: one ctxd-web request in CGI mode under valgrind; the status
# line is checked against WANT ($want).
cgi() {
	local method=$1 path=$2 qs=$3 body=${4:-} rc
	printf '%s' "$body" | env REQUEST_METHOD="$method" DOCUMENT_URI="$path" QUERY_STRING="$qs" \
	    CONTENT_TYPE=application/json CONTENT_LENGTH=${#body} \
	    HTTP_AUTHORIZATION="Bearer $ADMIN" \
	    "${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-web" >"$T/cgi.out" 2>"$T/cgi.err"
	rc=$?
	is "$rc" 0 "$method $path${qs:+?$qs}: valgrind-clean"
	[ "$rc" -eq 0 ] || diag "$(cat "$T"/log/vg.* 2>/dev/null | head -40)"
	rm -f "$T"/log/vg.*
	like "$(head -1 "$T/cgi.out")" "^Status: $want " "$method $path${qs:+?$qs}: $want"
}

http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$url\"}" >/dev/null
"$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
is "$(wait_job /acme/axum)" finalized "a library to work on"

want=200 cgi GET /api/settings ''
want=200 cgi PATCH /api/settings '' '{"ai.llm.api_key": "sk-vg-1", "limits.max_files": 900, "perm.anonymous_delete": false, "wiki.site_url": ""}'
want=400 cgi PATCH /api/settings '' '{"ai.llm.model": "m", "no.such": 1}'
want=400 cgi PATCH /api/settings '' '{"ai.llm.model": '
want=200 cgi GET /api/setup ''
want=200 cgi POST /api/setup/git-tokens '' '{"git.gitlab.token": "glpat-vg"}'
want=400 cgi POST /api/setup/ai-provider '' '{"ai.llm.provider": null}'
want=200 cgi POST /api/setup/embedding/skip ''
want=400 cgi POST /api/setup/who-can-read '' '{"perm.require_mcp_auth": null}'
want=200 cgi POST /api/setup/who-can-read '' '{"perm.require_mcp_auth": false}'
want=200 cgi POST /api/providers/test '' '{"kind": "embed"}'
want=400 cgi POST /api/providers/test '' '{"kind": "other"}'
# A provider test whose call fails (nothing listens on port 1): the report is answered.
ctxd_admin settings set ai.llm.provider custom >/dev/null &&
    ctxd_admin settings set ai.llm.base_url http://127.0.0.1:1/v1 >/dev/null &&
    ctxd_admin settings set ai.llm.model vg >/dev/null
want=200 cgi POST /api/providers/test '' '{"kind": "llm"}'
like "$(sed '1,/^\r$/d' "$T/cgi.out" | jq -r '[.ok, .configured, .message] | join(" ")')" \
    '^false true llm: FAILED \(connect\)' "a failed provider call is reported in words"
ctxd_admin settings unset ai.llm.provider >/dev/null
want=200 cgi GET /api/libraries 'state=finalized&limit=5'
want=400 cgi GET /api/libraries 'state=nope'
want=200 cgi GET /api/libraries/acme/axum ''
want=404 cgi GET /api/libraries/acme/nothing ''
want=200 cgi GET /api/libraries/acme/axum/snippets 'limit=3&q=router'
want=400 cgi GET /api/libraries/acme/axum/snippets 'limit=0'
want=404 cgi GET /api/libraries/acme/nothing/snippets ''
want=200 cgi GET /api/libraries/acme/axum/explain 'query=how+do+I+route+a+request&tokens=1500'
want=400 cgi GET /api/libraries/acme/axum/explain ''
want=404 cgi GET /api/libraries/acme/nothing/explain 'query=router'
# ctxd-admin explain, text and TSV, and a library that is not there.
for args in "/acme/axum router" "--tsv --tokens 1200 /acme/axum router"; do
	# shellcheck disable=SC2086
	"${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-admin" explain $args >/dev/null 2>&1
	is "$?" 0 "ctxd-admin explain $args: valgrind-clean"
	rm -f "$T"/log/vg.*
done
"${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-admin" explain /acme/nothing router >/dev/null 2>&1
is "$?" 1 "ctxd-admin explain of a library that is not there: valgrind-clean, exit 1"
rm -f "$T"/log/vg.*
want=202 cgi POST /api/libraries/acme/axum/refresh 'force=true'
job=$(_sql "SELECT max(id) FROM jobs")
want=200 cgi GET /api/jobs 'library=/acme/axum&limit=1'
want=200 cgi GET "/api/jobs/$job" ''
want=200 cgi GET /api/jobs/1/log 'limit=3'
want=200 cgi POST "/api/jobs/$job/cancel" ''
want=409 cgi POST "/api/jobs/$job/cancel" ''
want=404 cgi GET /api/jobs/999 ''
want=200 cgi GET /api/support-bundle ''
sed '1,/^\r$/d' "$T/cgi.out" | tar -tzf - >/dev/null
ok $? "the bundle from CGI mode is a valid tar.gz"
want=200 cgi GET /api/health ''
want=200 cgi GET /api/ready ''
want=405 cgi POST /api/ready ''
want=202 cgi DELETE /api/libraries/acme/axum ''
"${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
rc=$?
is "$rc" 0 "ctxd-worker: delete job, valgrind-clean"
[ "$rc" -eq 0 ] || diag "$(cat "$T"/log/vg.* 2>/dev/null | head -40)"
is "$(_sql "SELECT count(*) FROM libraries")" 0 "the library is deleted"
done_testing
