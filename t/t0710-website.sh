#!/usr/bin/env bash
# The website source (lib/sources/website.c) on a small site made here, served by the
# fixtures' nginx (t/lib/fixtures.sh): scope, robots.txt (our group, longest match),
# sitemap, maxDepth, excludePatterns, duplicates, size and type limits, Accept
# text/markdown answered by a .md variant, redirects (in scope followed; out of scope,
# to a metadata address or a loopback address, never requested), re-index with ETag
# (304s, pages unchanged, snippets kept), and what the job log says.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl sqlite3

ctxd_setup
S=$T/site
mkdir -p "$S/docs/secret" "$S/docs/private" "$S/docs/skip"
cat >"$S/robots.txt" <<'R'
User-agent: *
Disallow: /

User-agent: otherbot
User-agent: ctxd
Disallow: /docs/secret
Allow: /docs/secret/ok$
Crawl-delay: 0

Sitemap: http://127.0.0.1:PORT/smap/index.xml
R
page() {	# page FILE TITLE BODY: an HTML page
	printf '<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1>%s</body></html>\n' \
	    "$2" "$2" "$3" >"$S/$1"
}
page docs/index.html Home '<p>Start here.</p>
<a href="guide.html">guide</a> <a href="guide.html#part">again</a> <a href="./guide.html?">same</a>
<a href="secret/a.html">secret</a> <a href="secret/ok">ok</a> <a href="private/p.html">private</a>
<a href="../outside.html">outside</a> <a href="/other/x.html">other</a>
<a href="skip/x.html">skipped</a> <a href="d1.html">deep</a> <a href="big.html">big</a>
<a href="data.json">data</a> <a href="copy.html">copy</a> <a href="moved">moved</a>
<a href="go-meta">meta</a> <a href="go-loop">loop</a> <a href="missing.html">missing</a>
<a href="stub.html">stub</a> <a href="mailto:a@b.example">mail</a> <a href="alias.html">alias</a>
<a href="slow.html">slow</a>'
page docs/guide.html Guide '<p>The HTML guide.</p>'
printf '# Guide\n\nThe wombat setting controls burrows.\n\nSee [the FAQ](faq.html).\n' >"$S/docs/guide.md"
printf '# FAQ\n\nQuokkas answer questions.\n' >"$S/docs/faq.md"
page docs/faq.html FAQ '<p>HTML FAQ.</p>'
page docs/secret/a.html Secret '<p>no</p>'
page docs/secret/ok Ok '<p>allowed by the longer rule</p>'
page docs/private/p.html Private '<p>only the * group forbids it</p>'
page docs/skip/x.html Skip '<p>excluded</p>'
page docs/d1.html D1 '<a href="d2.html">d2</a>'
page docs/d2.html D2 '<a href="d3.html">d3</a>'
page docs/d3.html D3 '<a href="d4.html">d4</a>'
page docs/d4.html D4 '<p>too deep</p>'
page docs/big.html Big "<p>$(head -c 3000 /dev/zero | tr '\0' x)</p>"
echo '{"a":1}' >"$S/docs/data.json"
cp "$S/docs/guide.md" "$S/docs/copy.md"
page docs/copy.html Copy '<p>copy</p>'
page docs/moved-here.html Moved '<p>moved here</p>'
page docs/orphan.html Orphan '<p>only the sitemap names me</p>'
page docs/stub.html Stub '<meta name="robots" content="noindex"><a href="stubchild.html">c</a>'
page docs/stubchild.html StubChild '<p>linked from a noindex page</p>'
page docs/alias.html Alias '<link rel="canonical" href="/docs/aliased.html"><p>the capybara page under two names</p>'
page docs/slow.html Slow "<p>$(head -c 1500 /dev/zero | tr '\0' s)</p>"
page outside.html Outside '<p>out of scope</p>'
# robots.txt names a sitemap index outside the start folder; its sitemap names pages
mkdir -p "$S/smap"
cat >"$S/smap/index.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://127.0.0.1:PORT/smap/pages.xml</loc></sitemap>
</sitemapindex>
EOF
cat >"$S/smap/pages.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://127.0.0.1:PORT/docs/orphan.html</loc></url>
<url><loc>http://elsewhere.example/docs/x.html</loc></url>
</urlset>
EOF
cp "$S/smap/pages.xml" "$S/docs/sitemap.xml"	# not read: robots.txt names one
fixture_site site "$S" '
	set $md "";
	if ($http_accept ~ "text/markdown") { set $md ".md"; }
	location ~ ^(?<base>/docs/.*)\.html$ { try_files $base$md $uri =404; }
	location = /docs/moved { return 301 /docs/moved-here.html; }
	location = /docs/go-meta { return 302 http://169.254.169.254/latest/meta-data/; }
	location = /docs/go-loop { return 302 http://127.0.0.2:$server_port/docs/guide.html; }
	location = /docs/secret/ok { default_type text/html; }
	location = /docs/slow.html { limit_rate 100; }
	location /boom/ { return 500; }
	location /auth/ { return 401; }
	location = /docs/old/ { return 301 /docs/old/none.html; }
	location = /docs/away/ { return 301 /elsewhere/; }'
fixtures_start
sed -i "s/PORT/$FIXPORT_SITE/" "$S/docs/sitemap.xml" "$S/smap/"*.xml "$S/robots.txt"
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'
ctxd_admin settings set sources.max_page_kb 2 >/dev/null
ctxd_admin settings set sources.page_timeout_s 1 >/dev/null

# add SETTINGS-JSON: POST /api/libraries; prints the job id
add() {
	http POST "$BASE/api/libraries" -H "$A" -H "$J" --data "$1" >/dev/null
	http_body | jq -r .jobId
}
joblog() { _sql "SELECT line FROM job_log WHERE job_id = $1 ORDER BY id;"; }
fetched() { fixtures_requests site | awk '{ print $3 }' | sort -u; }
ID=/websites/127_0_0_1_${FIXPORT_SITE}_docs

job=$(add "{\"type\":\"website\",\"url\":\"$FIX_SITE/docs/index.html\",\"excludePatterns\":[\"/docs/skip/*\"]}")
is "$(wait_job "$ID")" finalized "the site is indexed"
joblog "$job" >"$T/log1"
diag "$(cat "$T/log1")"
fetched >"$T/got1"
for p in /robots.txt /smap/index.xml /smap/pages.xml /docs/index.html /docs/guide.html /docs/faq.html \
    /docs/secret/ok /docs/private/p.html /docs/d1.html /docs/d2.html /docs/d3.html \
    /docs/orphan.html /docs/moved /docs/moved-here.html /docs/go-meta /docs/go-loop \
    /docs/stub.html /docs/stubchild.html /docs/missing.html; do
	grep -qxF "$p" "$T/got1"
	ok $? "fetched $p"
done
for p in /docs/secret/a.html /outside.html /other/x.html /docs/skip/x.html /docs/d4.html \
    '/docs/guide.html?' /docs/x.html /docs/sitemap.xml; do
	grep -qxF "$p" "$T/got1"
	ok $((!$?)) "not fetched: $p"
done
is "$(fixtures_requests site | grep -c ' /docs/guide.html ')" 1 "a page is fetched once (fragment and empty query normalised)"
is "$(fixtures_requests | grep -vc "^$FIXPORT_SITE ")" 0 "nothing was asked of another address"
is "$(fixtures_requests site | awk '$3 == "/docs/index.html" { print $5 }')" \
    '"text/markdown,' "pages are asked for as Markdown first"
fixtures_requests site | grep ' /docs/index.html ' | grep -q '"ctxd"$'
ok $? "the user agent is ctxd"
docs=$(_sql "SELECT path || ' ' || url FROM documents WHERE library_id = '$ID' ORDER BY path;")
diag "$docs"
like "$docs" "/docs/guide.html $FIX_SITE/docs/guide.html" "the Markdown variant of the guide is a document under its page URL"
like "$docs" "/docs/faq.html $FIX_SITE/docs/faq.html" "a link of a Markdown page is followed"
unlike "$docs" "copy" "the same content under another URL is kept once"
unlike "$docs" "stub.html" "a noindex page is not a document"
like "$docs" "/docs/aliased.html $FIX_SITE/docs/aliased.html" "a page is kept under its canonical URL in scope"
unlike "$docs" "/docs/alias.html" "... not under the URL that linked to it"
grep -qxF /docs/aliased.html "$T/got1"
ok $((!$?)) "... and the canonical URL is not fetched again"
like "$(cat "$T/log1")" "skipped $FIX_SITE/docs/go-meta: redirected out of scope to http://169.254.169.254/latest/meta-data/" \
    "a redirect to the metadata address is refused, and the log says why"
like "$(cat "$T/log1")" "skipped $FIX_SITE/docs/go-loop: redirected out of scope to http://127.0.0.2:$FIXPORT_SITE/docs/guide.html" \
    "a redirect to another loopback address is refused, and the log says why"
like "$(cat "$T/log1")" "skipped $FIX_SITE/docs/big.html: .*" "a page over sources.max_page_kb is skipped and said"
like "$(cat "$T/log1")" "skipped $FIX_SITE/docs/data.json: its type is application/json" "a JSON answer is skipped"
like "$(cat "$T/log1")" "could not fetch $FIX_SITE/docs/missing.html: HTTP 404 Not Found" "a missing page is a warning naming URL and status"
like "$(cat "$T/log1")" "could not fetch $FIX_SITE/docs/slow.html: .*(time|deadline)" "a page slower than sources.page_timeout_s is a warning"
like "$(cat "$T/log1")" "1 links disallowed by robots.txt" "the summary counts the robots.txt refusal"
like "$(cat "$T/log1")" "1 links excluded by excludePatterns" "... the excluded link"
like "$(cat "$T/log1")" "1 links deeper than maxDepth" "... the link deeper than maxDepth"
like "$(cat "$T/log1")" "1 pages too big" "... the page too big"
like "$(cat "$T/log1")" "2 pages redirected out of scope" "... the redirects out of scope"
like "$(cat "$T/log1")" "sitemap $FIX_SITE/smap/index.xml: 1 sitemaps" "the sitemap index robots.txt names is read"
like "$(cat "$T/log1")" "sitemap $FIX_SITE/smap/pages.xml: 2 pages" "... and the sitemap it names"
snip=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$ID' AND text LIKE '%wombat%';")
is "$snip" 1 "the guide's text is a snippet"
code=$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$ID" --data-urlencode "query=wombat setting")
like "$(http_body)" "Source: $FIX_SITE/docs/guide.html#guide" "a query answers with the page URL and anchor"

# --- re-index: conditional GETs, 304s, pages unchanged, snippets kept ----------------------
# (a site of Markdown pages: the guide and the FAQ it links to)
job=$(add "{\"type\":\"website\",\"url\":\"$FIX_SITE/docs/guide.html\",\"excludePatterns\":[\"*/orphan.html\"]}")
MD=$(http_body | jq -r .libraryId)
is "$(wait_job "$MD")" finalized "the Markdown pages are indexed"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '$MD';")" 2 "... two documents"
fixtures_requests_reset
code=$(http POST "$BASE/api/libraries$MD/refresh" -H "$A")
is "$code" 202 "re-index queued"
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
ok $? "re-indexed"
joblog "$job" >"$T/log2"
diag "$(cat "$T/log2")"
is "$(fixtures_requests site | awk '$3 == "/docs/guide.html" { print $4 }')" 304 \
    "the guide is asked for with its validators and answers 304"
like "$(fixtures_requests site | grep ' /docs/guide.html ')" 'x22[0-9a-f]+-[0-9a-f]+.x22' "... with its ETag"
is "$(fixtures_requests site | awk '$3 == "/docs/faq.html" { print $4 }')" 304 \
    "a link of a 304 page is followed from the previous run's links"
like "$(cat "$T/log2")" "2 unchanged" "the job log counts the unchanged pages"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$MD' AND text LIKE '%wombat%';")" 1 \
    "the unchanged page keeps its snippet"
fixtures_requests_reset
http POST "$BASE/api/libraries$MD/refresh" -H "$A" >/dev/null
wait_jobid "$(http_body | jq -r .jobId)"
is "$(fixtures_requests site | awk '$3 ~ /^\/docs\/(guide|faq).html$/ { print $3, $4 }' | sort | tr '\n' ' ')" \
    "/docs/faq.html 304 /docs/guide.html 304 " "a third run: the links of a 304 page are still known"
rm "$DATA_DIR"/crawl/*.links
fixtures_requests_reset
http POST "$BASE/api/libraries$MD/refresh" -H "$A" >/dev/null
wait_jobid "$(http_body | jq -r .jobId)"
is "$(fixtures_requests site | awk '$3 ~ /^\/docs\/(guide|faq).html$/ { print $3, $4 }' | sort | tr '\n' ' ')" \
    '/docs/faq.html 200 /docs/guide.html 200 ' "without the links file, pages are sent again"
fixtures_requests site | grep ' /docs/guide.html ' | grep -q '"-" "-" "0" "ctxd"$'
ok $? "... asked for without validators"

# --- politeness: sources.crawl_delay_ms spaces the requests ----------------------------------
ctxd_admin settings set sources.crawl_delay_ms 400 >/dev/null
t0=$EPOCHREALTIME
job=$(add "{\"type\":\"website\",\"url\":\"$FIX_SITE/docs/d1.html\",\"maxDepth\":2}")
wait_jobid "$job"
ok $? "a crawl with a pause between requests"
t1=$EPOCHREALTIME
n=$(joblog "$job" | sed -n 's/^fetched \([0-9]*\) pages.*/\1/p')
is "$n" 4 "... of 4 pages (d1, d2, d3 and the sitemap's)"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.2) }'
ok $? "... takes at least 3 pauses of 400 ms ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s)"
ctxd_admin settings set sources.crawl_delay_ms 0 >/dev/null

# --- a start URL that fails fails the job, naming the URL and the status, never the query ---
fail_start() {	# fail_start URL-PATH WANT
	local job
	job=$(add "{\"type\":\"website\",\"url\":\"$FIX_SITE$1\"}")
	wait_jobid "$job"
	ok $((!$?)) "$1: the job fails"
	msg=$(_sql "SELECT message FROM jobs WHERE id = $job;")
	like "$msg" "$2" "... saying: $2"
	unlike "$msg" "s3cret" "... without the query"
}
fail_start '/gone/?token=s3cret' "could not fetch $FIX_SITE/gone/: HTTP 404 Not Found"
fail_start '/boom/?token=s3cret' "could not fetch $FIX_SITE/boom/: HTTP 500 Internal Server Error"
fail_start '/auth/?token=s3cret' "could not fetch $FIX_SITE/auth/: HTTP 401 Unauthorized"
fail_start '/docs/old/' "could not fetch $FIX_SITE/docs/old/none.html: HTTP 404 Not Found"
fail_start '/docs/away/' "the start URL $FIX_SITE/docs/away/ redirects out of its scope to $FIX_SITE/elsewhere/"

# --- the address policy: an address not listed is never connected to -----------------------
ctxd_admin settings set fetch.allowed_networks 127.0.0.1/32 >/dev/null
fixtures_requests_reset
is "$(http POST "$BASE/api/libraries" -H "$A" -H "$J" \
    --data "{\"type\":\"website\",\"url\":\"http://127.0.0.2:$FIXPORT_SITE/docs/\"}")" 400 \
    "a start URL on an address fetch.allowed_networks does not list is refused when added"
is "$(http_body | jq -r .error)" "address 127.0.0.2 of host 127.0.0.2:$FIXPORT_SITE is not allowed by fetch.allowed_networks: the server reaches public addresses only, and the networks an admin lists there" \
    "... and says why"
is "$(fixtures_requests | wc -l)" 0 "... and nothing was requested"
ctxd_admin settings set fetch.allowed_networks "$CTXD_TEST_NETWORKS" >/dev/null

# --- delete: the library's links file goes with it ------------------------------------------
links=$DATA_DIR/crawl/$(printf '%s' "$MD" | sha256sum | cut -d' ' -f1).links
test -s "$links"
ok $? "the crawl kept its links file for the next run's 304 pages"
is "$(http DELETE "$BASE/api/libraries${MD}" -H "$A")" 202 "delete the library: 202"
for ((i = 0; i < 100; i++)); do
	[ "$(_sql "SELECT count(*) FROM libraries WHERE id = '$MD';")" = 0 ] && break
	sleep 0.1
done
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '$MD';")" 0 "... it is deleted"
test ! -e "$links"
ok $? "... and so is its links file"

done_testing
