#!/usr/bin/env bash
# The index segments stored in PostgreSQL (lib/store/segstore.c), on a throwaway cluster of
# this test's own (t/lib/pg.sh): t/unit/test-store-segments puts a 2.5 MiB segment of three
# chunks and fetches it byte for byte, replaces it, keeps a library's newest version only,
# refuses a tampered, short, missing or extra chunk, a wrong size and a size over the limit
# at fetch (nothing left behind), serializes two puts of one library and lets a fetch read
# past an uncommitted put; on SQLite every call is a no-op ("not stored") and the answers
# that do not depend on what is stored are the same on both engines.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
engine_sqlite_only "starts its own PostgreSQL and checks both engines"

ctxd_setup
pg_start
out=$("$top_builddir/t/unit/test-store-segments" 2>&1); rc=$?
is "$rc" 0 "test-store-segments against the server: every check passes"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -40)"
like "$(grep -c '^ok .* - postgres: ' <<<"$out")" '^[0-9]{2,}$' \
    "... PostgreSQL's checks ran ($(grep -c '^ok .* - postgres: ' <<<"$out") of them)"
unlike "$out" 'DATABASE_URL unset' "... not skipped"
like "$out" 'ok [0-9]+ - SQLite and PostgreSQL answered alike' "... and answered alike where they should"
like "$out" 'ok [0-9]+ - postgres: fetch refuses it' "... a tampered chunk refused"
is "$(pg_sql "SELECT count(*) FROM pg_namespace WHERE nspname = 'storesegs'")" 0 \
    "test-store-segments left no schema behind"
done_testing
