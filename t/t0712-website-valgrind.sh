#!/usr/bin/env bash
# The website crawler is valgrind-clean: no invalid access, no uninitialised use, no leak,
# over a crawl of the mkdocs fixture site (robots.txt 404, a sitemap naming another host,
# HTML pages, canonical links to another host, 404 assets, noindex stubs, maxPages) and a
# re-index (conditional GETs, 304s, the previous run's links).
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd valgrind jq nginx curl sqlite3
if ldd "$top_builddir/ctxd-worker" | grep -q libasan; then
	skip_all "built with sanitizers (valgrind cannot run ASan binaries)"
fi

ctxd_setup
fixture_site mkdocs "$FIXTURES/websites/mkdocs/html"
fixtures_start
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --track-fds=no)
vg_worker() {	# vg_worker DESC: one worker run under valgrind
	"${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
	is "$?" 0 "ctxd-worker: $1: valgrind-clean" ||
	    diag "$(cat "$T"/log/vg.* 2>/dev/null | head -40)"
	rm -f "$T"/log/vg.*
}

http POST "$BASE/api/libraries" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"type\":\"website\",\"url\":\"$FIX_MKDOCS/index.html\",\"maxPages\":12}" >/dev/null
ID=$(http_body | jq -r .libraryId)
vg_worker "crawl and index"
is "$(_sql "SELECT state FROM libraries WHERE id = '$ID'")" finalized "indexed"
n=$(_sql "SELECT count(*) FROM documents WHERE library_id = '$ID'")
ok "$([ "$n" -ge 5 ]; echo $?)" "$n pages are documents"
http POST "$BASE/api/libraries$ID/refresh" -H "Authorization: Bearer $ADMIN" >/dev/null
vg_worker "re-index with 304s"
like "$(fixtures_requests mkdocs | awk '$4 == 304' | wc -l)" "^[1-9]" "the re-index had 304s"

done_testing
