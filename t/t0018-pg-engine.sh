#!/usr/bin/env bash
# PostgreSQL through libpq (lib/store/pg.c), on a throwaway cluster of this test's own
# (t/lib/pg.sh: initdb, a server on 127.0.0.1, removed at the end): t/unit/test-pg's engine
# checks (statements, parameters, bytes, NULLs, transactions, errors, a statement run
# while another's rows are read, a lock not granted in time) against the real server.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"

pg_start
is "$(pg_sql "SELECT current_user || ' ' || current_database()")" "ctxd ctxd" \
    "a cluster of the test's own, role and database ctxd"
like "$(pg_sql "SHOW server_version")" '^1[5-9]' "PostgreSQL 15 or later"
out=$("$top_builddir/t/unit/test-pg" 2>&1); rc=$?
is "$rc" 0 "test-pg against the server: every check passes"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -40)"
like "$(grep -c '^ok' <<<"$out")" '^[0-9]{2,}$' "... and the engine's checks ran ($(grep -c '^ok' <<<"$out") of them)"
unlike "$out" 'DATABASE_URL unset' "... not skipped"
is "$(pg_sql "SELECT count(*) FROM pg_tables WHERE tablename = 't'")" 0 "test-pg left no table behind"
done_testing
