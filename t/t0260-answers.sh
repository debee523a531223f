#!/usr/bin/env bash
# Answers end to end (nginx, ctxd-query, a repository on a real git server):
# a section alternating prose and code is answered in document order, each code block after
# the sentence that introduces it (text answer and MCP query-docs); the stop rule: pages
# that match the question far worse than the best are left out even when the budget has room;
# packing by the ranking's scores with each page's best section first in the answer; and
# the best section first, a subsection read before its section carrying its heading trail.
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
is "$(sed -n 5p <<<"$block")" 'Under: Gadget' "its page's title as its heading trail"
is "$(sed -n '7,$p' <<<"$block")" "$want" "prose and code in document order"
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

# Best first: subsections that outscore the section enclosing them keep their places and
# carry its heading trail.
is "$(context 'zapquux')" 200 "zapquux: 200"
is "$(http_body | grep '^Source:' | sed 's/.*docs\///')" 'zap.md#zapquux-hosts
zap.md#zapquux-options
zap.md#zapquux' "the best subsection first, the enclosing section after them"
is "$(http_body | grep '^Under: ')" 'Under: Zap > Zapquux
Under: Zap > Zapquux
Under: Zap' "each subsection carries its section's heading trail, the section its page's"

# Best first: for every question, explain's best candidate (rank 1) is place 1 of the answer.
for q in zapquux 'zapquux hosts' quuxtimeouts wibblefrost 'how to frobnicate a zorblax' \
    'zorblax mentioned' 'wibblefrost limits'; do
	is "$(ctxd_admin explain --tsv /tests/fixture "$q" | awk -F'\t' '$1 == 1 { print $5 }')" 1 \
	    "explain '$q': the best candidate is place 1 of the answer"
done

# ctxd-admin explain: the candidates of an answer and what became of each. The places it
# gives are the answer's snippets in order, its texts theirs.
# placed QUERY [TOKENS]: the sources explain places in the answer, in answer order.
placed() {
	ctxd_admin explain --tsv ${2:+--tokens "$2"} /tests/fixture "$1" |
	    awk -F'\t' 'NR > 1 && $5 > 0 { print $5 "\t" $7 }' | sort -n | cut -f2
}
for q in 'how to frobnicate a zorblax' 'wibblefrost' 'zapquux' 'zorblax mentioned'; do
	is "$(context "$q")" 200 "$q: 200"
	is "$(placed "$q")" "$(http_body | sed -n 's/^Source: //p')" \
	    "explain '$q': its placed candidates are the answer's sources, in order"
done
is "$(context 'wibblefrost' txt 1000)" 200 "wibblefrost, 1000 tokens: 200"
is "$(placed wibblefrost 1000)" "$(http_body | sed -n 's/^Source: //p')" \
    "explain --tokens 1000: the same as the answer with tokens=1000"
# The text column is the snippet as the answer shows it.
is "$(context 'how to frobnicate a zorblax')" 200 "frobnicate again: 200"
first=$(ctxd_admin explain --tsv /tests/fixture 'how to frobnicate a zorblax' |
    awk -F'\t' '$5 == 1 { print $10 }' | sed 's/\\n/\n/g')
is "$first" "$(http_body | sed '/^--------------------------------$/,$d')" \
    "explain --tsv: the first snippet's text as answered"
# The fates in words: the weak pages are below the stop ratio; with 1000 tokens the other
# page's section finds no room.
out=$(ctxd_admin explain /tests/fixture 'how to frobnicate a zorblax')
like "$out" '^/tests/fixture, 2000 tokens: the answer holds [12] of 7 candidates \([0-9]+ tokens\); lexical ranking' \
    "explain: the summary line"
like "$out" 'question terms: "frobnicate" "zorblax"' "explain: the question's terms"
like "$(grep -A2 'answer (place 1)' <<<"$out")" 'Source: .*docs/frobnicate\.md#frobnicate-a-zorblax' \
    "explain: the page about it is placed first"
is "$(grep -c 'below the stop ratio' <<<"$out")" 5 "explain: five weak pages below the stop ratio"
out=$(ctxd_admin explain --tokens 1000 /tests/fixture wibblefrost)
like "$(grep -A2 'too big for the room left' <<<"$out")" 'other\.md#wibblefrost-in-passing' \
    "explain --tokens 1000: the weaker page's section had no room"
out=$(ctxd_admin explain --limit 1 /tests/fixture 'zorblax mentioned')
is "$(grep -c 'Source:' <<<"$out")" 1 "explain --limit 1: one candidate"
like "$out" '\([0-9]+ more; --limit N shows more\)' "explain --limit: says how many more"
# Mistakes are named, with the status of a failed command.
explain_err() {
	ctxd_admin explain "$@" 2>&1 >/dev/null
	echo "exit $?"
}
like "$(explain_err /tests/nothing 'x y')" 'library /tests/nothing does not exist.*exit 1$' \
    "explain: an unknown library is named (exit 1)"
like "$(explain_err nothing 'x y')" "must look like /owner/repo.*exit 1$" \
    "explain: a malformed id is named (exit 1)"
like "$(explain_err /tests/fixture '')" 'the question must be 1 to 500 characters.*exit 2$' \
    "explain: an empty question (exit 2)"
like "$(explain_err --tokens 5 /tests/fixture 'x')" '--tokens must be a whole number from 1000 to 100000.*exit 2$' \
    "explain: a budget out of range (exit 2)"
like "$(explain_err --verbose /tests/fixture 'x')" "unknown option '--verbose'.*exit 2$" \
    "explain: an unknown option (exit 2)"
like "$(explain_err /tests/fixture)" 'usage: ctxd-admin explain .*exit 2$' \
    "explain: a missing question shows the usage (exit 2)"

# GET /api/libraries/OWNER/REPO/explain: the same for the web UI, as JSON, for admins.
explain_api() {
	http GET "$BASE/api/libraries/tests/fixture/explain" -G -H "Authorization: Bearer ${KEY:-$ADMIN}" \
	    ${1:+--data-urlencode "query=$1"} ${2:+--data-urlencode "tokens=$2"}
}
for q in 'how to frobnicate a zorblax' 'wibblefrost'; do
	is "$(context "$q")" 200 "$q: 200"
	sources=$(http_body | sed -n 's/^Source: //p')
	is "$(explain_api "$q")" 200 "explain API '$q': 200"
	is "$(http_body | jq -r '.candidates | map(select(.place > 0)) | sort_by(.place) | .[].source')" \
	    "$sources" "explain API '$q': the placed candidates are the answer's sources, in order"
done
is "$(explain_api 'how to frobnicate a zorblax')" 200 "explain API: 200"
is "$(http_body | jq -c '[.libraryId, .query, .tokens, .ranking, .reranked, .terms]')" \
    '["/tests/fixture","how to frobnicate a zorblax",2000,"lexical",false,["frobnicate","zorblax"]]' \
    "explain API: the library, question, budget, ranking and terms"
is "$(http_body | jq -r '[.candidates[] | select(.fate == "stop")] | length')" 5 \
    "explain API: five candidates below the stop ratio"
is "$(http_body | jq -r '.candidates[0] | [.rank, .place, .fate, .why, .title] | @tsv')" \
    "$(printf '1\t1\tanswer\tanswer\tFrobnicate a zorblax')" "explain API: the first candidate"
is "$(http_body | jq -r '.placed == ([.candidates[] | select(.place > 0)] | length) and
    .used <= .tokens and (.candidates[0].snippetId | type) == "number"')" true \
    "explain API: placed and used add up"
is "$(explain_api wibblefrost 1000)" 200 "explain API, 1000 tokens: 200"
is "$(http_body | jq -r '.candidates[] | select(.fate == "room") | .source' | sed 's/.*docs\///')" \
    'other.md#wibblefrost-in-passing' "explain API, 1000 tokens: the weaker section had no room"
# Mistakes: named, nothing else.
is "$(explain_api)" 400 "explain API without a question: 400"
like "$(http_body | jq -r .error)" "query" "naming the parameter"
is "$(explain_api wibblefrost lots)" 400 "explain API with tokens=lots: 400"
like "$(http_body | jq -r .error)" "tokens" "naming the parameter"
is "$(explain_api wibblefrost -5)" 200 "explain API with tokens=-5: 200, as /api/v2/context"
is "$(http_body | jq .tokens)" 1000 "the budget raised to 1000"
is "$(http GET "$BASE/api/libraries/tests/nothing/explain?query=x" -H "Authorization: Bearer $ADMIN")" \
    404 "explain API, an unknown library: 404"
like "$(http_body | jq -r .error)" 'library /tests/nothing does not exist here' "naming it"
is "$(http GET "$BASE/api/libraries/tests/fixture/explain?query=x")" 401 \
    "explain API without a key: 401"
printf 'member password 1\n' | ctxd_admin user create mia >/dev/null 2>&1 ||
    bail_out "cannot create the member mia"
is "$(KEY=$(ctxd_admin key create --user mia laptop) explain_api wibblefrost)" 403 \
    "explain API with a member's key: 403"

done_testing
