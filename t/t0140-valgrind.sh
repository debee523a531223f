#!/usr/bin/env bash
# The responders and the worker are valgrind-clean: no invalid access, no uninitialised use,
# no leak, over a parse, an index, context and library-search answers and error answers.
. "$top_srcdir/t/lib/harness.sh"
require_cmd valgrind jq git nginx fcgiwrap
if ldd "$top_builddir/ctxd-query" | grep -q libasan; then
	skip_all "built with sanitizers (valgrind cannot run ASan binaries)"
fi

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --track-fds=no)

# cgi PROG METHOD PATH QUERY [BODY]: one request in CGI mode under valgrind. valgrind 3.19
# does not know seccomp(2), so the filter of ctxd-query stays out (CTXD_SECCOMP=off, see
# ctxd-query(8)); t/unit/test-sandbox and t0165 check the filter itself.
cgi() {
	local prog=$1 method=$2 path=$3 qs=$4 body=${5:-}
	printf '%s' "$body" | env REQUEST_METHOD="$method" DOCUMENT_URI="$path" QUERY_STRING="$qs" \
	    CONTENT_TYPE=application/json CONTENT_LENGTH=${#body} CTXD_SECCOMP=off \
	    HTTP_AUTHORIZATION="Bearer $ADMIN" \
	    "${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/$prog" >"$T/cgi.out" 2>"$T/cgi.err"
}
vg_clean() {
	local rc=$1 desc=$2
	is "$rc" 0 "$desc: valgrind-clean"
	[ "$rc" -eq 0 ] || diag "$(cat "$T"/log/vg.* 2>/dev/null | head -40)"
	rm -f "$T"/log/vg.*
}

cgi ctxd-web POST /api/parse '' "{\"repoUrl\": \"$url\", \"folders\": [\"docs\"]}"
vg_clean $? "ctxd-web: parse"
like "$(head -1 "$T/cgi.out")" '^Status: 202' "ctxd-web answered 202"
cgi ctxd-web POST /api/parse '' '{"repoUrl": 5}'
vg_clean $? "ctxd-web: bad request"
"${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-worker" 2>"$T/log/worker.log"
vg_clean $? "ctxd-worker: clone and index"
is "$(_sql "SELECT state FROM libraries WHERE id = '/corpora/requests'")" finalized "indexed"
# A second run: fetch, unchanged commit.
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$url\"}" >/dev/null
"${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
vg_clean $? "ctxd-worker: fetch and re-index with new settings"
cgi ctxd-query GET /api/v2/context 'libraryId=/corpora/requests&query=how+do+I+set+a+timeout'
vg_clean $? "ctxd-query: context (text)"
like "$(head -1 "$T/cgi.out")" '^Status: 200' "context answered 200"
cgi ctxd-query GET /api/v2/context 'libraryId=/corpora/requests&query=session+cookies&type=json'
vg_clean $? "ctxd-query: context (json)"
cgi ctxd-query GET /api/v2/libs/search 'libraryName=requests'
vg_clean $? "ctxd-query: libs/search"
cgi ctxd-query GET /api/v2/context 'libraryId=/no/such&query=x'
vg_clean $? "ctxd-query: 404"
cgi ctxd-query GET /api/v2/context 'query=x'
vg_clean $? "ctxd-query: 400"

done_testing
