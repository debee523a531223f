#!/usr/bin/env bash
# Fuzz smoke run: the parsers of documentation files (fuzz-doc, and one target per parser:
# fuzz-markdown, fuzz-rst, fuzz-source) and of network input (fuzz-request, fuzz-query, fuzz-crawl,
# fuzz-json, fuzz-headers) take real files from the corpora and thousands of random
# mutations of them without a crash (under --enable-sanitizers, without a sanitizer report
# either). fuzz-mcp and fuzz-cliedit have their own (t0520, t0620). script/fuzz runs every
# target under libFuzzer for longer.
. "$top_srcdir/t/lib/harness.sh"
require_cmd git

T=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-fuzz.XXXXXX") || bail_out "mktemp"	# removed at exit by the harness
seeds=$T/seeds
mkdir -p "$seeds"
n=0
for c in curl vite express pydantic requests with-source; do
	git clone -q "$CORPORA/$c.bundle" "$T/$c" || bail_out "cannot clone $c"
	# A few files of every kind the parsers see; the first byte of a seed picks the parser
	# (fuzz-doc.c): 0 md, 1 mdx, 2 rst, 5 rs, 11 curl cmdline-opts md.
	while IFS= read -r f; do
		case $f in
		*/cmdline-opts/*.md) k='\013' ;;
		*.mdx) k='\001' ;;
		*.md) k='\000' ;;
		*.rst) k='\002' ;;
		*.rs) k='\005' ;;
		*) continue ;;
		esac
		n=$((n + 1))
		{ printf "$k"; head -c 20000 "$T/$c/$f"; } >"$seeds/$n"
	done < <(git -C "$T/$c" ls-files | grep -E '\.(md|mdx|rst|rs)$' | awk 'NR % 17 == 1' | head -12)
done
ok "$([ "$n" -ge 30 ]; echo $?)" "$n seed files from the corpora"
out=$("$top_builddir/t/fuzz/fuzz-doc" -n 60 -s 7 "$seeds"/* 2>&1)
ok $? "fuzz-doc: no crash"
like "$out" "ok 1 - [0-9]+ inputs" "fuzz-doc ran"
[ -n "$(grep -v '^ok\|^1\.\.' <<<"$out")" ] && diag "$out"

req=$T/req
mkdir -p "$req"
printf '%s' '{"repoUrl":"https://github.com/a/b","branch":"main","folders":["docs"],"excludeFolders":["old"],"excludeFiles":["*.txt"],"indexSourceCode":true}' >"$req/1"
printf '%s' 'http://user@127.0.0.1:8080/git/private/acme/docs.git/' >"$req/2"
printf '%s' '/owner/repo@v1.2.3' >"$req/3"
printf '%s' 'How do I call curl_easy_setopt(CURLOPT_URL) with --max-time "quoted" NEAR(a b) AND *?' >"$req/4"
ctxd_admin license mint --key "$top_srcdir/keys/dev-license.key" >"$req/5" 2>/dev/null
printf '%s' 'a%20b+c%2F%zz%00' >"$req/6"
out=$("$top_builddir/t/fuzz/fuzz-request" -n 3000 -s 7 "$req"/* 2>&1)
ok $? "fuzz-request: no crash"
like "$out" "ok 1 - [0-9]+ inputs" "fuzz-request ran"

# smoke NAME N SEEDS...: fuzz-NAME over the seeds and N mutations of each.
smoke() {
	local name=$1 n=$2 out
	shift 2
	out=$("$top_builddir/t/fuzz/fuzz-$name" -n "$n" -s 7 "$@" 2>&1)
	ok $? "fuzz-$name: no crash"
	like "$out" "ok 1 - [0-9]+ inputs" "fuzz-$name ran"
	[ -n "$(grep -v '^ok\|^1\.\.' <<<"$out")" ] && diag "$out"
}
# The per-parser targets take the doc seeds of their kind (their first byte picks the
# dialect: fuzz-markdown 0 md, 1 mdx, 2 cmdline-opts; fuzz-source 0 rs).
mkdir -p "$T/md" "$T/rst" "$T/src"
for f in "$seeds"/*; do
	case $(head -c 1 "$f" | od -An -tu1 | tr -d ' ') in
	0) cp "$f" "$T/md/" ;;
	1) cp "$f" "$T/md/" ;;
	11) { printf '\002'; tail -c +2 "$f"; } >"$T/md/${f##*/}" ;;
	2) tail -c +2 "$f" >"$T/rst/${f##*/}" ;;
	5) { printf '\000'; tail -c +2 "$f"; } >"$T/src/${f##*/}" ;;
	esac
done
{ printf '\002'; head -c 20000 "$top_srcdir/lib/doc.c"; } >"$T/src/c1"
{ printf '\001'; cat <<'EOF'; } >"$T/src/py1"
class A:
    """Doc.

    >>> a()
    """
    def f(self):
        '''F::

            x
        '''
EOF
smoke markdown 40 "$T/md"/*
smoke rst 60 "$T/rst"/*
smoke source 60 "$T/src"/*

q=$T/q
mkdir -p "$q"
printf '\000libraryId=/corpora/curl&query=how+do+I+follow%%20redirects%%3F&tokens=2000&type=txt&fast=true' >"$q/1"
printf '\001state=running&limit=50&offset=0&force=true' >"$q/2"
printf '\002a=1&&b=%%41&c&libraryId=%%2Fa%%2Fb' >"$q/3"
smoke query 3000 "$q"/*

j=$T/j
mkdir -p "$j"
printf '\000{"name":"alice","password":"correct horse","role":"member","disabled":false}' >"$j/1"
printf '\001{"repoUrl":"https://github.com/a/b","branch":"main","folders":["docs","a/b"],"indexSourceCode":true,"maxFiles":10,"settings":{"name":"x"}}' >"$j/2"
printf '\002{"repoUrl":"x","unknown":[1,2.5e3,null,{"a":"\\u00e9"}]}' >"$j/3"
printf '\003{"repoUrl":"https://github.com/a/b","folders":["docs"],"excludeFiles":["*.txt"]}' >"$j/4"
smoke json 3000 "$j"/*

h=$T/h
mkdir -p "$h"
# lines: method, path, Authorization, Cookie, X-CSRF-Token, x-api-key, context7-api-key,
# Origin, Host; @KEY@, @ADMINKEY@, @SESSION@, @CSRF@ become real credentials
printf 'GET\n/u\nBearer @KEY@\n' >"$h/1"
printf 'POST\n/u\n\nctxd_session=@SESSION@; theme=dark\n@CSRF@\n' >"$h/2"
printf 'GET\n/r\n\n\n\n@KEY@\n\nhttp://example.com:3000\nexample.com:3000' >"$h/3"
printf 'DELETE\n/libs/acme/docs\nBearer @ADMINKEY@\n' >"$h/4"
smoke headers 1500 "$h"/*

# fuzz-crawl: robots.txt (0), a sitemap (1), the links of HTML (2) and Markdown (3) pages
c=$T/crawl
mkdir -p "$c"
printf '\000User-agent: *\nDisallow: /\nUser-agent: ctxd\nDisallow: /private\nAllow: /private/open$\nDisallow: /*.pdf$\nCrawl-delay: 1.5\nSitemap: http://h/s.xml\n' >"$c/r1"
{ printf '\001'; cat "$CORPORA/fixtures/websites/mkdocs/html/sitemap.xml"; } >"$c/s1"
printf '\001<sitemapindex><sitemap><loc>http://h/a.xml</loc></sitemap></sitemapindex>' >"$c/s2"
{ printf '\002'; head -c 30000 "$CORPORA/fixtures/websites/typer/html/tutorial/options/help/index.html"; } >"$c/h1"
{ printf '\002'; cat "$CORPORA/fixtures/websites/mkdocs/html/user-guide/plugins.html"; } >"$c/h2"
printf '\003# T\n[a](a.md) <https://h/x> [b](b.html "t")\n' >"$c/m1"
smoke crawl 200 "$c"/*

# Web pages (a few of each fixture site) and wiki storage-format bodies (all of them).
w=$T/web
mkdir -p "$w"
for f in $(find "$CORPORA/fixtures/websites" -name '*.html' | sort | awk 'NR % 9 == 1'); do
	head -c 30000 "$f" >"$w/$(echo "$f" | tr / _)"
done
smoke html 30 "$w"/*
smoke storage 60 "$CORPORA"/fixtures/wiki/storage/testdata/*.html

l=$T/llms
mkdir -p "$l"
cp "$CORPORA"/fixtures/llmstxt/llmstxt-org/site/llms.txt "$l/1"
cp "$CORPORA"/fixtures/llmstxt/llmstxt-org/site/llms-ctx.txt "$l/2"
cp "$CORPORA"/fixtures/llmstxt/1mcp/docs/public/llms-en.txt "$l/3"
printf '<documents><document><source>/x</source><document_content># A\n</document_content></document>' >"$l/4"
printf 'x\n# A\nSource: https://h/a\n```\n# no\n```\n# B\n- [a](/a): n\n' >"$l/5"
smoke llmstxt 3000 "$l"/*
w=$T/w
mkdir -p "$w"
printf '\000{"spaceKey":"ENG","spaceId":"98305"}' >"$w/1"
printf '\000{"pageUrls":["https://w.example/wiki/x/AQAB","https://w/display/K/A+b%%2B"],"includeSubPages":true}' >"$w/2"
printf '\001https://w.example/wiki/spaces/ENG/pages/65538/Code+Samples' >"$w/3"
printf '\001https://w.example/wiki/spaces/ENG/pages/edit-v2/65542' >"$w/4"
printf '\001http://127.0.0.1:8090/confluence/pages/viewpage.action?a=1&pageId=131074' >"$w/5"
printf '\001https://w.example/confluence/display/OPS/Runbook+Headers%%20%%C3%%A9' >"$w/6"
printf '\001https://w.example/x/_-AQ' >"$w/7"
smoke wiki 1500 "$w"/*

# OpenAPI: the small specs of the fixtures, first byte 0 JSON, 1 YAML
oa=$T/openapi
mkdir -p "$oa"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	case $f in
	*.json) k='\000' ;;
	*) k='\001' ;;
	esac
	{ printf "$k"; head -c 20000 "$f"; } >"$oa/$n"
done < <(find "$CORPORA/fixtures/openapi/learn-openapis" -type f \( -name '*.json' -o -name '*.yaml' \) | sort | awk 'NR % 4 == 1')
printf '\001a: &a [1]\nb: &a [*a, *a]\nc: &a [*a, *a]\nd: {<<: {x: 1}, y: *a}\n' >"$oa/aliases"
smoke openapi 40 "$oa"/*

# The multi-file OpenAPI loader: petstore-separate as a tree of files (the spec, then
# "\001name\n" and each file), with a cycle, a missing file and a huge file added
ot=$T/openapitree
mkdir -p "$ot"
for e in json yaml; do
	s=$CORPORA/fixtures/openapi/learn-openapis/examples/v2.0/$e/petstore-separate
	{ cat "$s/spec/swagger.$e"
	  for g in Pet NewPet parameters; do printf '\001%s\n' "$g.$e"; cat "$s/spec/$g.$e"; done
	  printf '\001../common/Error.%s\n' "$e"; cat "$s/common/Error.$e"
	} >"$ot/sep-$e"
done
printf '%s\001a.yaml\n%s\001b.yaml+big\n%s\n' \
    'openapi: 3.0.0\npaths:\n  /x:\n    get: {$ref: "a.yaml"}\n  /y: {$ref: "missing.yaml"}\n' \
    'responses: {"200": {description: ok, content: {a/json: {schema: {$ref: "b.yaml+big#/x"}}}}}\nx: {$ref: "a.yaml"}\n' \
    'x: {type: object, properties: {a: {$ref: "../a.yaml#/x"}}}' >"$ot/cycle"
smoke openapitree 300 "$ot"/*

# The GitOps manifest: every validation case (t/fuzz/seeds/manifest)
smoke manifest 2000 "$top_srcdir"/t/fuzz/seeds/manifest/*.yaml

# The webhook: push payloads and signatures (first byte: the configured branch)
wh=$T/webhook
mkdir -p "$wh"
printf '\001{"ref":"refs/heads/main","deleted":false,"repository":{"full_name":"acme/manifest","clone_url":"https://github.com/acme/manifest.git","html_url":"https://github.com/acme/manifest","default_branch":"main"},"commits":[]}' >"$wh/1"
printf '\000{"ref":"refs/heads/trunk","repository":{"clone_url":"https://GitHub.com/ACME/manifest.git/","default_branch":"trunk"}}' >"$wh/2"
printf '\002{"ref":"refs/tags/a/b","repository":{"clone_url":"http://127.0.0.1:8080/git/private/acme/manifest.git","html_url":"https://x@github.com/acme/manifest?q#f"}}' >"$wh/3"
printf '\001sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' >"$wh/4"
smoke webhook 1500 "$wh"/*

# The policies: glob lists, a trust minimum and a library id (first byte: type and trust)
po=$T/policy
mkdir -p "$po"
printf '\000/vercel/*\n/vercel/*, /facebook/*\n5\n/vercel/next.js' >"$po/1"
printf '\201*a*a*a*a*b\n**,,*\nnan\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab' >"$po/2"
printf '\037/a b, /c\n/x/*$\n-1\n/x/y$' >"$po/3"
smoke policy 3000 "$po"/*

# The index segment reader: a small valid segment, one with vectors and a lexical index with
# its places (searched when accepted), as they are (first byte 0) and with the checksums made
# right after each mutation (first byte 1), t/fuzz/seeds/segment
smoke segment 3000 "$top_srcdir"/t/fuzz/seeds/segment/*

# Include directives: each page of t/corpora/includes as "path NUL page NUL file", the file
# being what every directive of the page reads
inc=$T/include
mkdir -p "$inc"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	{ printf '%s\0' "$f"; cat "$CORPORA/includes/$f"; printf '\0'
	  cat "$CORPORA/includes/sphinx/example.py"; } >"$inc/$n"
done < <(cd "$CORPORA/includes" && find . -type f \( -name '*.md' -o -name '*.mdx' -o \
    -name '*.rst' -o -name '*.html' \) | sed 's|^\./||' | sort)
ok "$([ "$n" -ge 8 ]; echo $?)" "include seeds from t/corpora/includes ($n)"
# (and t/fuzz/seeds/include: pages ending inside a directive's option lines)
smoke include 3000 "$inc"/* "$top_srcdir"/t/fuzz/seeds/include/*

done_testing
