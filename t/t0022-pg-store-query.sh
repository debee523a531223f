#!/usr/bin/env bash
# The store's modules of the query path on PostgreSQL (lib/store/query.c, flags.c,
# inspect.c, embeddings.c, uploads.c, fts.c), on a throwaway cluster of this test's own
# (t/lib/pg.sh): t/unit/test-store-query makes the same calls on SQLite and on the server
# (a library's rows, its flags, vectors byte for byte, the scans of a whole library that
# PostgreSQL reads in pages, the uploads, the doctor's look, a collection of vectors that
# waits for another connection, the errors) and must get the same answers.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
engine_sqlite_only "starts its own PostgreSQL and checks both engines"

ctxd_setup
pg_start
out=$("$top_builddir/t/unit/test-store-query" 2>&1); rc=$?
is "$rc" 0 "test-store-query: the query path's store on SQLite and PostgreSQL"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -40)"
unlike "$out" 'DATABASE_URL unset' "... not skipped"
like "$(grep -c '^ok .* - postgres: ' <<<"$out")" '^[0-9]{3,}$' \
    "... PostgreSQL's checks ran ($(grep -c '^ok .* - postgres: ' <<<"$out") of them)"
like "$out" 'ok [0-9]+ - SQLite and PostgreSQL answered alike' "... and answered as SQLite did"
is "$(pg_sql "SELECT count(*) FROM pg_namespace WHERE nspname = 'storequery'")" 0 \
    "test-store-query left no schema behind"
done_testing
