#!/usr/bin/env bash
# Development files (contributing guide, code of conduct, CI and release notes, changelogs,
# to-do lists, the documentation of internals and of tests) rank below user documentation
# of a similar score, without being dropped: a question about contributing still finds the
# guide first.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)

test_repo tests/devdocs
put docs/connections.md <<'EOF2'
# Connections

## Retry failed connections

Set the retry option of the client's settings to retry failed connections, with a pause
between two tries and a limit on the number of tries; the default is not to retry.
EOF2
# Development files whose sections are shorter, and would outrank the user guide on their words.
put CONTRIBUTING.md <<'EOF2'
# Contributing

## Retry failed connections in CI

Retry failed connections in CI. Open a pull request with a test.
EOF2
put docs/release-process.md <<'EOF2'
# Release process

## Retry failed connections while releasing

Retry failed connections to the registry.
EOF2
put docs/internals/pool.md <<'EOF2'
# Connection pool internals

## Retry failed connections inside the pool

Retry failed connections: the pool retries failed connections.
EOF2
put docs/tests/retry.md <<'EOF2'
# Retry tests

## Retry failed connections under test

Retry failed connections in the test server.
EOF2
put docs/TODO.md <<'EOF2'
# To do

## Retry failed connections faster

Retry failed connections sooner.
EOF2
# Release notes entries (CHANGELOG files and folders are not indexed by default):
# the current major version's is user documentation, an older one's is not.
put docs/pool.md <<'EOF2'
# Pool

## Connection reuse

Keepalive sockets stay open between two requests to one host; the client's keepalive
setting sets for how long, and the pool size how many of them.
EOF2
put docs/releases/v2.md <<'EOF2'
# Release notes 2

## 2.0.0

Keepalive sockets stay open.
EOF2
put docs/releases/v1.md <<'EOF2'
# Release notes 1

## 1.0.0

Keepalive sockets stay open longer.
EOF2
commit fixture

is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' \
    --data "{\"repoUrl\": \"$GITBASE/public/tests/devdocs.git\"}")" 202 "parse: 202"
is "$(wait_job /tests/devdocs)" finalized "indexed"

sources() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/devdocs \
	    --data-urlencode "query=$1" >/dev/null
	http_body | sed -n 's/^Source: .*devdocs\///p'
}
out=$(sources 'retry failed connections')
is "$(head -1 <<<"$out")" 'docs/connections.md#retry-failed-connections' \
    "the user guide first, above development files that say more about it"
like "$out" 'CONTRIBUTING.md' "the contributing guide is still answered"
for f in docs/internals/pool.md docs/tests/retry.md docs/TODO.md; do
	like "$out" "$f" "$f is still answered"
done
is "$(sources 'connection pool internals retry' | head -1)" \
    'docs/internals/pool.md#retry-failed-connections-inside-the-pool' \
    "a question about the internals finds them"
is "$(sources 'open a pull request contributing' | head -1)" 'CONTRIBUTING.md#retry-failed-connections-in-ci' \
    "a question about contributing finds the guide"

# titles QUERY: the answer's headings in order.
titles() {
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/tests/devdocs \
	    --data-urlencode "query=$1" >/dev/null
	http_body | sed -n 's/^### //p'
}
order=$(titles 'keepalive sockets' | grep -n -e '^2\.0\.0$' -e '^1\.0\.0$' -e '^Connection reuse$')
diag "order: $order"
is "$(cut -d: -f2 <<<"$order" | paste -sd,)" '2.0.0,Connection reuse,1.0.0' \
    "the current major version's changelog entry ranks as documentation, an older one below"

done_testing
