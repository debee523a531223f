#!/usr/bin/env bash
# The web UI's modules without a browser (Node's test runner over t/ui-unit/*.test.mjs): the
# router's matcher (htdocs/js/router.js), the forms' checks (htdocs/js/forms/checks.js) and
# the layout of the modules (no view imports another). One TAP line per Node test.
. "$top_srcdir/t/lib/harness.sh"
require_cmd node

out=$(cd "$top_srcdir" && node --test --test-reporter=tap t/ui-unit/ 2>&1)
rc=$?
n=0
while IFS= read -r line; do
	case $line in
	"ok "*) n=$((n + 1)); pass "${line#ok * - }" ;;
	"not ok "*) n=$((n + 1)); fail "${line#not ok * - }" ;;
	esac
done <<<"$out"
[ "$rc" -eq 0 ] || diag "$(printf '%s\n' "$out" | grep -v '^ *duration_ms\|^ *\.\.\.\|^ *---' | tail -40)"
ok "$([ "$n" -ge 18 ] && [ "$rc" -eq 0 ] && echo 0 || echo 1)" "node --test ran $n tests and exited $rc"
done_testing
