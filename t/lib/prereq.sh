#!/usr/bin/env bash
# t/lib/prereq.sh [WHAT...]: check the test suite's prerequisites at once, before any test
# waits on them: WHAT is any of corpora, chromium, npm, nginx, git, fcgiwrap, node (default
# all). Each missing one is named on stderr with what to do; the exit status is 1 when any
# is missing, else 0 (silent). CORPORA (default t/corpora) is the folder of the git bundles.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
CORPORA=${CORPORA:-$top/t/corpora}
missing=0
need() {
	echo "test: missing prerequisite: $1: $2" >&2
	missing=1
}
cmd() {
	command -v "$1" >/dev/null 2>&1 || need "$1 (not in PATH)" "run script/bootstrap (it installs the Debian package ${2:-$1})"
}
[ $# -gt 0 ] || set -- corpora chromium npm nginx git fcgiwrap node
for what in "$@"; do
	case $what in
	corpora)
		n=0
		for b in "$CORPORA"/*.bundle; do
			[ -r "$b" ] && n=$((n + 1))
		done
		[ "$n" -gt 0 ] || need "the test corpora (no *.bundle in $CORPORA)" \
		    "restore them with git checkout -- t/corpora, or point CORPORA at the folder of the bundles"
		;;
	chromium) cmd chromium ;;
	nginx) cmd nginx ;;
	git) cmd git ;;
	fcgiwrap) [ -x /usr/sbin/fcgiwrap ] || cmd fcgiwrap ;;
	node) cmd node nodejs ;;
	npm)
		if ! command -v npm >/dev/null 2>&1; then
			need "npm (not in PATH), for playwright-core and the MCP clients" "run script/bootstrap"
		elif [ ! -d "$top/t/e2e/ui/node_modules/playwright-core" ]; then
			need "the npm package playwright-core (t/e2e/ui/node_modules)" \
			    "run script/bootstrap (it runs npm ci in t/e2e/ui)"
		fi
		;;
	*) echo "prereq: unknown prerequisite $what" >&2; exit 2 ;;
	esac
done
exit "$missing"
