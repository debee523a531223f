#!/usr/bin/env bash
# Answers stop when their sections stop being about the question, not when the budget is
# spent: a question with one clearly right section, in a repository where forty
# sections name its subject once in passing (each scoring well above the stop ratio, under
# half the best), gets that section first and an answer well under its budget, of whole
# sections (none cut to fit, and a later section too big for the room left is left out,
# not cut); a question that all of them answer alike still fills the budget. The right
# section's Example subsection, scoring below every passing mention, comes with it. An
# answer that holds every question word any section holds stops adding sections under
# 0.6 of the best past 0.7 of its budget (the covered stop); one that lacks a word goes on.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start

test_repo tests/padding
mkdir -p "$work/docs"
cat >"$work/docs/glorp.md" <<'EOF'
# Glorptangle

## Rotate a glorptangle

To rotate a glorptangle, call `glorptangle rotate` with the glorptangle's angle. A
glorptangle rotates about its glorptangle axis.

```sh
glorptangle rotate --angle 90
```
EOF
# Forty pages whose one section names a glorptangle once among many other words.
for i in $(seq 1 40); do
	{
		printf '# Shelf %d\n\n## Shelf notes %d\n\n' "$i" "$i"
		for _ in $(seq 1 8); do printf 'Plain words about cables, boxes and shelves. '; done
		printf 'A glorptangle stands on shelf %d; rotate the shelf, not the glorptangle.\n' "$i"
	} >"$work/docs/shelf$i.md"
done
# And eighty that never name one, so that the word is rare enough to count.
for i in $(seq 1 80); do
	printf '# Cable %d\n\n## Cable notes %d\n\nPlain words about cables and boxes.\n' "$i" "$i" \
	    >"$work/docs/cable$i.md"
done
# A short section about a compass, and a long list of bearings that names compasses twice:
# it (about 3,500 tokens) ranks second and does not fit in what is left of the budget.
cat >"$work/docs/compass.md" <<'EOF'
# Compass

## Zindlecompass

A zindlecompass points north. Set the zindlecompass first: a zindlecompass keeps its
zindlecompass needle level.
EOF
{
	printf '# Bearings\n\n## Bearings table\n\nEvery bearing a zindlecompass shows. '
	for i in $(seq 1 400); do printf 'Bearing %04d lies east of the last. ' "$i"; done
	printf 'That is every bearing of a zindlecompass.\n'
} >"$work/docs/bearings.md"
commit padding

code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $(ctxd_admin key create --admin tests)" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/tests/padding.git\"}")
is "$code" 202 "parse the fixture: 202"
is "$(wait_job /tests/padding)" finalized "fixture indexed"

# The weak sections score between the stop ratio (0.1 of the best) and half the best, so
# that only the soft stop, not the stop ratio, keeps them out of the answer.
scores=$(ctxd_admin explain --tsv /tests/padding 'how do I rotate a glorptangle' |
    awk -F'\t' 'NR == 2 { best = $3 } NR > 2 && $7 ~ /shelf/ { r = $3 / best;
	if (n == 0 || r < lo) lo = r; if (n == 0 || r > hi) hi = r; n++ }
	END { printf "%d %.2f %.2f", n, lo, hi }')
read -r nweak lo hi <<<"$scores"
is "$nweak" 40 "explain: the right section and forty weak ones"
ok "$(awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > 0.1 && hi < 0.45) }'; echo $?)" \
    "the weak ones score $lo to $hi of the best"

# answer QUERY [BUDGET]: GET /api/v2/context, text.
answer() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/padding \
	    --data-urlencode "query=$1" ${2:+--data-urlencode "tokens=$2"}
}
# used QUERY [BUDGET]: the tokens of the answer's snippets, as explain counts them.
used() {
	ctxd_admin explain --tsv ${2:+--tokens "$2"} /tests/padding "$1" |
	    awk -F'\t' 'NR > 1 && $5 > 0 { n += $4 } END { print n + 0 }'
}
q='how do I rotate a glorptangle'
for budget in 2000 4000; do
	is "$(answer "$q" "$budget")" 200 "rotate a glorptangle, $budget tokens: 200"
	like "$(http_body | grep -m1 '^Source:')" 'docs/glorp\.md#rotate-a-glorptangle' \
	    "the right section first"
	ok "$(! http_body | grep -q 'cut to fit the token budget'; echo $?)" "no section cut to fit"
	# Filling the budget would be $budget tokens; the soft stop ends the answer at the
	# first section past three quarters of it (each weak section is about 120 tokens).
	n=$(used "$q" "$budget")
	max=$((budget * 3 / 4 + 150))
	ok "$([ "$n" -le "$max" ]; echo $?)" "the answer stops well under its budget: $n tokens (at most $max)"
	is "$(http_body | grep -c '^Source:')" "$(ctxd_admin explain --tsv --tokens "$budget" \
	    /tests/padding "$q" | awk -F'\t' 'NR > 1 && $5 > 0' | wc -l)" \
	    "explain places the answer's sections"
done
# Only the first section is ever cut: a later one too big for the room left is left out
# (whole sections are answered), not cut to fill the budget.
is "$(answer zindlecompass)" 200 "zindlecompass: 200"
like "$(http_body | grep -m1 '^Source:')" 'docs/compass\.md#zindlecompass' "the short section first"
ok "$(! http_body | grep -q 'cut to fit the token budget'; echo $?)" \
    "the long list is not cut to fit"
like "$(ctxd_admin explain /tests/padding zindlecompass | tr '\n' ' ')" \
    'too big for the room left.{0,300}bearings\.md#bearings-table' \
    "explain: the long list had no room"
# A question the forty sections answer alike fills the budget with them.
is "$(answer 'glorptangle shelf cables boxes')" 200 "shelves: 200"
bytes=$(http_body | wc -c)
ok "$([ "$bytes" -ge 6400 ]; echo $?)" "alike sections fill the answer ($bytes bytes)"

# The covered stop: forty sections that name both words of the question once score
# between the soft stop's ratio (0.45) and the covered stop's (0.6) of the one right
# section. That section holds every word of the question, so the answer ends at the first
# section past 0.7 of the budget. Asked with a word that only a long, weak table holds, the
# answer lacks it, and the soft stop alone applies: the passing mentions fill the answer.
test_repo tests/covered
mkdir -p "$work/docs"
cat >"$work/docs/sprocket.md" <<'EOF'
# Sprocket

## Align a sprocket

To align a sprocket, turn the sprocket until the sprocket marks align. An aligned sprocket
runs quietly.
EOF
# The second best section, with an example that holds none of the question's words.
{
	printf '# Tuning\n\n## Tune the drive\n\nAlign the sprocket before you tune the drive: '
	printf 'a sprocket out of line wears the chain.\n\n### Example\n\n```sh\n'
	for i in $(seq 1 20); do printf 'tool set --step %d --mode fine\n' "$i"; done
	printf '```\n'
} >"$work/docs/tuning.md"
for i in $(seq 1 40); do
	{
		printf '# Gear %d\n\n## Gear notes %d\n\n' "$i" "$i"
		printf 'Align the sprocket of gear %d with care. ' "$i"
		for _ in 1 2 3; do printf 'Plain words about cables, boxes and shelves. '; done
		printf '\n'
	} >"$work/docs/gear$i.md"
done
for i in $(seq 1 80); do
	printf '# Cable %d\n\n## Cable notes %d\n\nPlain words about cables and boxes.\n' "$i" "$i" \
	    >"$work/docs/cable$i.md"
done
{
	printf '# Rows\n\n## Row table\n\n'
	for i in $(seq 1 300); do printf 'Row %04d of the table. ' "$i"; done
	printf 'A flange.\n'
} >"$work/docs/rows.md"
commit covered
code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $(ctxd_admin key create --admin tests)" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/tests/covered.git\"}")
is "$code" 202 "parse the covered fixture: 202"
is "$(wait_job /tests/covered)" finalized "covered fixture indexed"
q='how do I align a sprocket'
scores=$(ctxd_admin explain --tsv /tests/covered "$q" | awk -F'\t' 'NR == 2 { best = $3; first = $7 }
    NR > 2 && $7 ~ /gear/ { r = $3 / best; if (n == 0 || r < lo) lo = r; if (n == 0 || r > hi) hi = r; n++ }
    END { printf "%s %d %.2f %.2f", first, n, lo, hi }')
read -r first ngear lo hi <<<"$scores"
read -r trank ex <<<"$(ctxd_admin explain --tsv /tests/covered "$q" | awk -F'\t' 'NR == 2 { best = $3 }
    $7 ~ /tuning\.md#tune-the-drive$/ { r = $1 } $7 ~ /tuning\.md#example$/ { e = $3 / best }
    END { printf "%d %.2f", r, e }')"
like "$first" 'docs/sprocket\.md#align-a-sprocket' "explain: the right section first"
is "$ngear" 40 "explain: forty passing mentions"
ok "$(awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo >= 0.45 && hi < 0.6) }'; echo $?)" \
    "they score $lo to $hi of the best: the soft stop alone keeps them"
is "$trank" 2 "explain: the section with an example second"
# Its example holds none of the question's words: it scores what it inherits, below every
# passing mention and the soft stop's ratio, so only its section takes it into the answer.
ok "$(awk -v ex="$ex" -v lo="$lo" 'BEGIN { exit !(ex >= 0.1 && ex < 0.45 && ex < lo) }'; echo $?)" \
    "the example scores $ex of the best"
# covered_used QUERY: the tokens of the answer's snippets, as explain counts them.
covered_used() {
	ctxd_admin explain --tsv /tests/covered "$1" |
	    awk -F'\t' 'NR > 1 && $5 > 0 { n += $4 } END { print n + 0 }'
}
n=$(covered_used "$q")
# 0.7 of the budget, the section that crosses it (about 50 tokens) and the example (about
# 150); without the covered stop the passing mentions would fill all 2,000.
ok "$([ "$n" -le $((2000 * 7 / 10 + 200)) ]; echo $?)" \
    "covered: the answer ends past 0.7 of its budget ($n tokens)"
is "$(http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/covered \
    --data-urlencode "query=$q")" 200 "align a sprocket: 200"
is "$(http_body | grep -c '^Source:')" "$(ctxd_admin explain --tsv /tests/covered "$q" |
    awk -F'\t' 'NR > 1 && $5 > 0' | wc -l)" "explain places the covered answer's sections"
is "$(http_body | grep -c '^Source: .*docs/tuning\.md#example$')" 1 \
    "the example comes with its section"
is "$(ctxd_admin explain --tsv /tests/covered "$q" | awk -F'\t' '$7 ~ /tuning\.md#example$/ { print $6 }')" \
    answer "explain: the example is answered"
like "$(ctxd_admin explain --tsv /tests/covered "$q flange" | awk -F'\t' '$7 ~ /rows\.md/ { print $6 }')" \
    'below the stop ratio|too big' "explain: only the long table holds flange, and it is not answered"
n=$(covered_used "$q flange")
ok "$([ "$n" -ge $((2000 * 3 / 4)) ]; echo $?)" \
    "not covered (flange): the passing mentions fill the answer ($n tokens)"

done_testing
