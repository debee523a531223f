# t/lib/pg.sh: a throwaway PostgreSQL cluster for the tests (source it after harness.sh).
#
# pg_start: initdb in a temporary folder (as the postgres user when the tests run as root:
# initdb refuses root), a server on 127.0.0.1 at a free port with fsync off (a test's data
# need not survive a crash), trust authentication on loopback only, a role and a database
# named ctxd; exports DATABASE_URL. The cluster is stopped and removed at the test's end.
# Nothing leaves 127.0.0.1. PG_BIN overrides the folder of initdb and pg_ctl. PG_SERVER_OPTS
# adds server options after those (a later -c wins: bench/scale turns fsync back on and sizes
# the buffers as an operator would).

_pg_dir=
_pg_as=()

pg_start() {
	local bin port
	bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
	[ -n "$bin" ] && [ -x "$bin/initdb" ] ||
	    bail_out "PostgreSQL is not installed (run script/bootstrap: package postgresql-15)"
	_pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-pg.XXXXXX") || bail_out "pg_start: no temporary folder"
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres: "$_pg_dir" || bail_out "pg_start: no postgres user to run initdb as"
		_pg_as=(runuser -u postgres --)
	fi
	_PG_BIN=$bin
	_harness_hooks+=(pg_stop)
	"${_pg_as[@]}" "$bin/initdb" -D "$_pg_dir/data" -U ctxd -A trust -E UTF8 --locale=C \
	    --no-sync >"$_pg_dir/initdb.log" 2>&1 ||
	    bail_out "initdb failed: $(tail -n 5 "$_pg_dir/initdb.log")"
	# A free port can be taken by another test between pick_port and the bind: a few tries.
	local try started=
	for try in 1 2 3 4 5; do
		port=$(pick_port) || bail_out "pg_start: no free port"
		if "${_pg_as[@]}" "$bin/pg_ctl" -D "$_pg_dir/data" -l "$_pg_dir/server.log" -w \
		    -t 120 -o "-c listen_addresses=127.0.0.1 -p $port -k $_pg_dir -c fsync=off -c full_page_writes=off -c synchronous_commit=off ${PG_SERVER_OPTS:-}" \
		    start >/dev/null 2>&1; then
			started=1
			break
		fi
		grep -q "could not bind" "$_pg_dir/server.log" 2>/dev/null || break
	done
	[ -n "$started" ] ||
	    bail_out "PostgreSQL did not start: $(tail -n 5 "$_pg_dir/server.log" 2>/dev/null)"
	PG_PORT=$port
	"$bin/createdb" -h 127.0.0.1 -p "$port" -U ctxd ctxd ||
	    bail_out "createdb ctxd failed"
	export DATABASE_URL="postgresql://ctxd@127.0.0.1:$port/ctxd"
}

# pg_sql SQL: runs SQL in the test's database, prints its rows unaligned (fields split by |).
pg_sql() {
	"$_PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "$1"
}

pg_stop() {
	[ -n "$_pg_dir" ] || return 0
	"${_pg_as[@]}" "$_PG_BIN/pg_ctl" -D "$_pg_dir/data" -m immediate stop >/dev/null 2>&1
	if [ -n "${CTXD_KEEP_TMP:-}" ]; then
		echo "# kept $_pg_dir" >&2
	else
		rm -rf "$_pg_dir"
	fi
	_pg_dir=
}
