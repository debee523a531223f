#!/usr/bin/env bash
# Include directives resolved at index time (t/corpora/includes: one page per tool's
# syntax): the answer holds the included file's named lines as code, never the directive;
# a path out of the repository, a missing file and one over the size limit leave a one-line
# note; a changed included file is noticed although the page did not change.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)

test_repo tests/includes
cp -R "$top_srcdir/t/corpora/includes/." "$work/"
# A file over the size limit (limits.max_file_kb 2) and a page that includes it.
for i in $(seq 1 200); do echo "print('bigfile line $i')"; done >"$work/docs_src/big.py"
printf '# Big\n\n## Bigquail include\n\nThe bigquail example:\n\n{* ../../docs_src/big.py *}\n' \
    >"$work/docs/en/docs/big.md"
commit corpus
ctxd_admin settings set limits.max_file_kb 2 >/dev/null

is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$GITBASE/public/tests/includes.git\"}")" 202 "parse: 202"
is "$(wait_job /tests/includes)" finalized "indexed"

# answer QUERY: the text answer of the library for QUERY into $T/answer.
answer() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/includes \
	    --data-urlencode "query=$1" >/dev/null
	http_body >"$T/answer"
}
has() { grep -qF -- "$1" "$T/answer"; ok $? "$2" || diag "$(cat "$T/answer")"; }
# (not counting the Source lines, whose anchors are the headings')
hasnt() { ! grep -v '^Source: ' "$T/answer" | grep -qF -- "$1"; ok $? "$2" || diag "$(cat "$T/answer")"; }

answer 'corsplum CORSMiddleware'
has 'app.add_middleware(CORSMiddleware, allow_origins=origins)' "FastAPI {* *}: the file's code"
has '```python' "FastAPI: fenced with the file's language"
hasnt '{*' "FastAPI: no directive left"
hasnt 'hl[' "FastAPI: no highlight marker"
is "$(grep -c '^from fastapi import FastAPI$' "$T/answer")" 2 "FastAPI ln[1:2]: its lines too"
is "$(grep -c '^app = FastAPI()$' "$T/answer")" 1 "FastAPI ln[1:2]: not the lines after them"

answer 'outside the repository missing file'
has '(included file ../../../../../../etc/passwd: outside the repository)' \
    "a path out of the repository: a one-line note"
has '(included file ../../docs_src/cors/nothere.py: not found)' "a missing file: a one-line note"
hasnt 'root:' "nothing of a file outside the repository"

answer 'bigquail include'
has '(included file ../../docs_src/big.py: over the size limit)' \
    "a file over limits.max_file_kb: a one-line note"
hasnt 'bigfile line' "none of its lines"

answer 'snippear named section'
has 'def snippear():' "pymdownx.snippets --8<--: the file's code"
has 'import os' "pymdownx.snippets: the whole file"
hasnt '--8<-- [start' "pymdownx.snippets: section markers dropped"
answer 'escaped'
has '--8<-- "examples/snip.py"' "pymdownx.snippets: an escaped ;--8<-- shows the directive"

answer 'mdquince function'
has 'pub fn mdquince() -> u32 {' "mdBook {{#include file:anchor}}: the anchor's lines"
hasnt 'ANCHOR' "mdBook: anchor markers dropped"
hasnt '{{#include' "mdBook: no directive left"
answer 'std fmt'
has 'use std::fmt;' "mdBook {{#include file:1:1}}: the line range"

answer 'calling sphinxfig'
has 'def sphinxfig():' "Sphinx literalinclude: the file's lines"
hasnt '# header' "Sphinx :lines: honoured"
hasnt 'literalinclude' "Sphinx: no directive left"

answer 'vitelime region import'
has 'export function vitelime() {' "VitePress <<< @/file#region: the region"
hasnt '<<<' "VitePress: no directive left"
hasnt '#region' "VitePress: region markers dropped"
has 'export const after = 2' "VitePress <<< ./file: the whole file, relative to the page"

answer 'dokiwi raw loader file fence'
has "export default function dokiwi() { return 'dokiwi'; }" "Docusaurus: the file's code"
hasnt 'raw-loader' "Docusaurus: no raw-loader import left"
hasnt 'placeholder' "Docusaurus file= fence: filled from the file"

answer 'jekyllplum hugodate include readfile'
has '<p class="jekyllplum">jekyllplum note</p>' "Jekyll {% include %}: from _includes"
is "$(grep -c '^echo hugodate$' "$T/answer")" 2 "Jekyll include_relative and Hugo readfile"
hasnt '{%' "Jekyll: no directive left"
hasnt '{{<' "Hugo: no shortcode left"

# An included file changes, the page does not: the next run re-parses the page.
echo 'print("corsfig second version")  # corsplum' >>"$work/docs_src/cors/tutorial001.py"
commit included-changed
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$GITBASE/public/tests/includes.git\"}" >/dev/null
wait_jobid "$(http_body | jq -r .jobId)"
ok $? "re-indexed"
answer 'corsplum CORSMiddleware'
has 'print("corsfig second version")' "a changed included file: the page shows its new lines"
# ... and a run where neither a page nor an included file changed keeps every page.
echo 'unused = 1' >"$work/examples/unused.py"
commit unrelated
http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$GITBASE/public/tests/includes.git\"}" >/dev/null
job=$(http_body | jq -r .jobId)
wait_jobid "$job"
ok $? "re-indexed, nothing changed"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = $job")" \
    'files: 0 parsed' "nothing re-parsed when neither a page nor an included file changed"

done_testing
