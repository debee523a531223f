#!/usr/bin/env bash
# Answers end to end (nginx, ctxd-query, a repository on a real git server), issue 16:
# a section alternating prose and code is answered in document order, each code block after
# the sentence that introduces it (text answer and MCP query-docs); the stop rule: pages
# that match the question far worse than the best are left out even when the budget has room;
# packing by the ranking's scores with each page's best section first in the answer; and a
# section before the subsections it encloses.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)

test_repo tests/fixture
mkdir -p "$work/docs"
cat >"$work/docs/timeouts.md" <<'EOF'
# Gadget

## Quuxtimeouts

You can set quuxtimeouts for an individual gadget:

```sh
gadget --quuxtimeout 5
```

Or disable quuxtimeouts for an individual gadget:

```sh
gadget --quuxtimeout none
```

- a list item after the code
- and another
EOF
# One page that is all about frobnicating zorblaxes ...
{
	printf '# Frobnicate\n\n## Frobnicate a zorblax\n\n'
	for _ in 1 2 3; do
		printf 'To frobnicate a zorblax, call frobnicate on the zorblax. '
	done
	printf '\n'
} >"$work/docs/frobnicate.md"
# ... and six that name a zorblax once in passing, among other words.
for i in 1 2 3 4 5 6; do
	{
		printf '# Page %d\n\n## Notes %d\n\n' "$i" "$i"
		for _ in $(seq 1 8); do printf 'Plain words about cables, boxes and shelves. '; done
		printf 'A zorblax is mentioned here once.\n'
	} >"$work/docs/page$i.md"
done
# A page with three long sections about wibblefrosts, and another page with one that names
# them in its heading and once in its text: a weaker match, but better than half as good.
filler() {
	local _
	for _ in $(seq 1 24); do printf 'Plain words about cables, boxes and shelves. '; done
	printf '\n'
}
{
	printf '# Wibble\n'
	for part in setup tuning limits; do
		printf '\n## Wibblefrost %s\n\nThe wibblefrost %s: a wibblefrost needs a wibblefrost.\n\n' \
		    "$part" "$part"
		filler
	done
} >"$work/docs/wibble.md"
{
	printf '# Other\n\n## Wibblefrost in passing\n\nA wibblefrost, once.\n\n'
	filler
} >"$work/docs/other.md"
# A section and its two subsections, which say more about zapquuxes than it does: with what
# they inherit from it they outscore it, yet the answer shows it before them.
cat >"$work/docs/zap.md" <<'EOF'
# Zap

## Zapquux

What a zapquux is.

### Zapquux hosts

Each zapquux host runs a zapquux; a zapquux host lists its zapquux peers.

### Zapquux options

A zapquux option sets how the zapquux runs; zapquux options go in zapquux.toml.
EOF
commit fixture

code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/tests/fixture.git\"}")
is "$code" 202 "parse the fixture: 202"
is "$(wait_job /tests/fixture)" finalized "fixture indexed"

# context QUERY [TYPE [TOKENS]]
context() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/fixture \
	    --data-urlencode "query=$1" --data-urlencode "type=${2:-txt}" \
	    ${3:+--data-urlencode "tokens=$3"}
}

# Snippet order: each code block right after its sentence, the list after the second.
want='You can set quuxtimeouts for an individual gadget:

```sh
gadget --quuxtimeout 5
```

Or disable quuxtimeouts for an individual gadget:

```sh
gadget --quuxtimeout none
```

- a list item after the code
- and another'
is "$(context 'quuxtimeouts')" 200 "quuxtimeouts: 200"
block=$(http_body | awk '/^-{32}$/ { exit } { print }')
like "$(sed -n 1p <<<"$block")" '^### Quuxtimeouts$' "the section answers"
is "$(sed -n '5,$p' <<<"$block")" "$want" "prose and code in document order"
mcp=$(http POST "$BASE/mcp" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' --data "$(jq -nc \
    '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "query-docs",
      arguments: {libraryId: "/tests/fixture", query: "quuxtimeouts"}}}')")
is "$mcp" 200 "MCP query-docs: 200"
like "$(http_body | jq -r '.result.content[0].text')" \
    'individual gadget:..```sh.gadget --quuxtimeout 5.```..Or disable' \
    "MCP: the same order"

# Stop rule: the six passing mentions would fit in the budget, but score far below the page
# about the question (under 0.1 of its score): only its page and the best other are answered.
is "$(context 'how to frobnicate a zorblax')" 200 "frobnicate: 200"
like "$(http_body | grep -m1 '^Source:')" 'docs/frobnicate\.md' "the page about it ranks first"
n=$(http_body | grep -c '^Source:')
[ "$n" -le 2 ]
ok $? "the weak matches are left out ($n snippets)"
bytes=$(http_body | wc -c)
# ... while a question they all match alike still fills the answer with them.
is "$(context 'zorblax mentioned')" 200 "zorblax mentioned: 200"
n=$(http_body | grep -c '^Source:')
[ "$n" -ge 6 ]
ok $? "similar scores are all answered ($n snippets; the stopped answer: $bytes bytes)"

# Packing and order: which snippets are answered follows the ranking's own scores, so a tight
# budget goes to the three sections of the page about the question, not to the weaker page
# (damping a page's further sections before packing would have put other.md second) ...
is "$(context 'wibblefrost' txt 1000)" 200 "wibblefrost, 1000 tokens: 200"
is "$(http_body | grep '^Source:' | sed 's/.*docs\///')" 'wibble.md#wibblefrost-setup
wibble.md#wibblefrost-tuning
wibble.md#wibblefrost-limits' "a tight budget: the strong page's three sections"
# ... and with room for all four, the answer opens with the best section of each page.
is "$(context 'wibblefrost')" 200 "wibblefrost: 200"
is "$(http_body | grep '^Source:' | sed 's/.*docs\///')" 'wibble.md#wibblefrost-setup
other.md#wibblefrost-in-passing
wibble.md#wibblefrost-tuning
wibble.md#wibblefrost-limits' "room for all: each page's best first, then the rest"

# A section before the subsections it encloses, whatever their scores.
is "$(context 'zapquux')" 200 "zapquux: 200"
is "$(http_body | grep '^Source:' | sed 's/.*docs\///')" 'zap.md#zapquux
zap.md#zapquux-hosts
zap.md#zapquux-options' "the section first, then its subsections"

done_testing
