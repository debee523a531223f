#!/usr/bin/env bash
# Retrieval behaviour end to end (nginx, ctxd-query, a repository on a real git server):
# proximity ranking (question terms standing together beat the same terms apart) and
# neighbour expansion (a code-only EXAMPLE section carries its page's NAME line; the second
# part of a long split section carries the section's opening paragraph).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)

# A small repository made for these checks.
work=$T/fixture
mkdir -p "$work/docs/opts"
git init -q -b main "$work"
# Two pages with the same words in the same amounts; only the second (indexed later, so it
# loses a tie) says "retry budget".
printf '# Alpha\n\nSet the retry words here, then budget fill the rest of this text.\n' \
    >"$work/docs/alpha.md"
printf '# Bravo\n\nSet the retry budget here, then words fill the rest of this text.\n' \
    >"$work/docs/bravo.md"
# A man page: the EXAMPLE section is code only.
cat >"$work/docs/opts/FROBNICATE.md" <<'EOF'
# NAME

FROBNICATE - turn the gizmo inside out

# DESCRIPTION

Pass a long. Set to 1 to enable or 0 to disable.

# EXAMPLE

```c
int main(void)
{
  rotate_sprocket(handle, 1L);
  return 0;
}
```
EOF
# A section long enough to be split in parts; the unusual word is in its last paragraph.
{
	printf '# Handbook\n\n## Huge section\n\nThe huge section opening line explains the whole section.\n\n'
	for i in $(seq 1 16); do
		printf 'Paragraph %d of filler prose. ' "$i"
		for _ in $(seq 1 14); do printf 'More words to make the section long enough. '; done
		printf '\n\n'
	done
	printf 'The last paragraph mentions zanzibar once.\n'
} >"$work/docs/handbook.md"
git -C "$work" add -A
git -C "$work" -c user.email=t@example.com -c user.name=t commit -qm fixture
bare=$T/gitsrv/public/tests/fixture.git
mkdir -p "${bare%/*}"
git clone -q --bare "$work" "$bare"
git -C "$bare" update-server-info

code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/tests/fixture.git\"}")
is "$code" 202 "parse the fixture: 202"
is "$(wait_job /tests/fixture)" finalized "fixture indexed"
parts=$(_sql "SELECT count(*) FROM snippets s JOIN documents d ON d.id = s.document_id WHERE d.path = 'docs/handbook.md' AND s.title = 'Huge section'")
[ "$parts" -ge 2 ]
ok $? "the long section is split in parts ($parts)"

context() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/fixture \
	    --data-urlencode "query=$1" --data-urlencode "type=${2:-txt}"
}

# Proximity: BM25 scores both pages the same; the one with the phrase ranks first.
is "$(context 'How do I set the retry budget?')" 200 "retry budget: 200"
like "$(http_body | grep -m1 '^Source:')" 'docs/bravo\.md' \
    "the page with the terms side by side ranks first"
like "$(http_body | grep '^Source:' | sed -n 2p)" 'docs/alpha\.md' \
    "the page with the terms apart ranks second"

# Neighbour expansion of a code-only snippet: the page's NAME line comes with it.
is "$(context 'rotate_sprocket example' json)" 200 "rotate_sprocket (json): 200"
is "$(http_body | jq -r '.codeSnippets[0].codeTitle')" EXAMPLE "the EXAMPLE section ranks first"
like "$(http_body | jq -r '.codeSnippets[0].codeDescription')" \
    'FROBNICATE - turn the gizmo inside out' "it carries the page's NAME line"
is "$(context 'rotate_sprocket example')" 200 "rotate_sprocket (text): 200"
like "$(http_body | sed -n '/^### EXAMPLE$/,/^```c$/p' | tr '\n' ' ')" \
    'FROBNICATE - turn the gizmo inside out' "the text answer shows it above the code"

# Neighbour expansion of a split section: the later part carries the opening paragraph.
is "$(context 'zanzibar')" 200 "zanzibar: 200"
like "$(http_body | sed -n 1p)" '^### Huge section$' "the later part of the section answers"
body=$(http_body | awk '/^-{32}$/ { exit } { print }')
like "$body" 'The huge section opening line explains the whole section\.' \
    "it carries the section's opening paragraph"
like "$body" 'zanzibar' "and its own text"
is "$(grep -c 'The huge section opening line' <<<"$body")" 1 "the opening appears once"

done_testing
