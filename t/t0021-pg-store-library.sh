#!/usr/bin/env bash
# The libraries rows and the index's write path (lib/store/library.c, snippets.c,
# documents.c, dedup.c, share.c, describe.c) on either engine, against a throwaway
# PostgreSQL cluster of this test's own (t/lib/pg.sh): t/unit/test-store-library makes the
# same calls on SQLite and on PostgreSQL (libraries created, updated, bound to their host,
# deleted; documents and snippets written through reused statements with code JSON, long
# text and NULLs, in bounded batches on PostgreSQL; dedup, sharing between versions,
# describe; constraints refused) and checks that both answered alike, then PostgreSQL's
# locks with a second connection.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
engine_sqlite_only "starts its own PostgreSQL and checks both engines"

ctxd_setup
pg_start
out=$("$top_builddir/t/unit/test-store-library" 2>&1); rc=$?
is "$rc" 0 "test-store-library against the server: every check passes"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -60)"
like "$(grep -c '^ok .* - postgres: ' <<<"$out")" '^[0-9]{3,}$' \
    "... PostgreSQL's checks ran ($(grep -c '^ok .* - postgres: ' <<<"$out") of them)"
unlike "$out" 'DATABASE_URL unset' "... not skipped"
is "$(grep -c '^ok [0-9]* - SQLite and PostgreSQL answered alike$' <<<"$out")" 1 \
    "... and answered as SQLite did"
is "$(grep -c '^ok [0-9]* - postgres: \.\.\. another waits for it (busy)$' <<<"$out")" 1 \
    "... a second connection waited for the numbers' lock"
is "$(grep -c '^ok [0-9]* - postgres: \.\.\. a new viewer waits for it (busy)$' <<<"$out")" 1 \
    "... and for the owner documents' lock"
is "$(grep -c '^ok [0-9]* - postgres: batch: 300 snippets without ids: 256 written before' <<<"$out")" 1 \
    "... the snippets whose ids were not asked for written in batches of 256"
is "$(grep -c '^ok [0-9]* - postgres: a failing batch: a NULL title refused by the flush, 0 of its rows written$' <<<"$out")" 1 \
    "... a failing row failed its whole batch, nothing of it written"
is "$(pg_sql "SELECT count(*) FROM pg_namespace WHERE nspname = 'storelibrary'")" 0 \
    "test-store-library left no schema behind"
done_testing
