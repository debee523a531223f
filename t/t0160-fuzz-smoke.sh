#!/usr/bin/env bash
# Fuzz smoke run: the parsers of documentation files and of network input take real files
# from the corpora and thousands of random mutations of them without a crash (under
# --enable-sanitizers, without a sanitizer report either). script/fuzz runs the same
# targets under libFuzzer for longer.
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

done_testing
