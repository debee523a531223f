#!/usr/bin/env bash
# Every route of the responders' tables (fcgi/web.c web_routes, fcgi/query.c, fcgi/mcp.c,
# fcgi/hook.c) is a row of a permission matrix: t0330 (admin API, parse, /api/v2, /mcp) or
# t0310-accounts-permissions (the account API), so that a new route cannot ship without its
# authorization cells.
# The few routes that are no matrix's business are listed below, each with its reason and
# the test that covers it. Reads the sources only (no server).
. "$top_srcdir/t/lib/harness.sh"

# Routes no matrix row needs: "METHOD PATTERN" and why.
declare -A EXEMPT=(
	["POST /api/session"]="signing in is public by nature; t0300 and t0310 sign in with good and bad credentials"
	["POST /api/webhooks/github"]="public, authenticated by the payload's HMAC signature; t0530 and t0945 (webhooks)"
)

routes=$(for f in fcgi/web.c fcgi/query.c fcgi/mcp.c fcgi/hook.c; do
	# A route row: { "METHOD", "/path", ... (the first two strings of a table row).
	sed -n 's/^[[:space:]]*{ "\(GET\|POST\|PUT\|PATCH\|DELETE\)", "\(\/[^"]*\)",.*/\1 \2/p' \
	    "$top_srcdir/$f"
done)
[ -n "$routes" ] || bail_out "no route rows found in fcgi/*.c"

# The matrix rows: row METHOD PATH ... (PATH quoted or not; a query string and shell
# variables in it are dropped or stand for one segment).
rows=$(sed -n "s/^[[:space:]]*row \([A-Z]*\) '\{0,1\}\([^' ]*\).*/\1 \2/p" \
    "$top_srcdir/t/t0330-permission-matrix.sh" "$top_srcdir/t/t0310-accounts-permissions.sh" |
    sed 's/?.*//; s/\$[A-Za-z_]*/1/g; s/"//g')
[ "$(printf '%s\n' "$rows" | wc -l)" -gt 40 ] || bail_out "too few matrix rows found: $rows"

n=0
while read -r method pattern; do
	n=$((n + 1))
	if [ -n "${EXEMPT["$method $pattern"]+set}" ]; then
		pass "$method $pattern: no matrix row needed (${EXEMPT["$method $pattern"]})"
		continue
	fi
	# {x} is one segment, {x*} one or more.
	re="^$method $(printf '%s' "$pattern" | sed 's/{[a-z_]*\*}/.+/g; s/{[a-z_]*}/[^\/]+/g')\$"
	if printf '%s\n' "$rows" | grep -Eq -- "$re"; then
		pass "$method $pattern: a permission matrix row"
	else
		fail "$method $pattern: no row of t0330 or t0310 calls it (add one, or an exemption with its reason)"
	fi
done <<<"$routes"
ok "$([ "$n" -ge 45 ] && echo 0 || echo 1)" "all $n routes checked"
done_testing
