#!/usr/bin/env bash
# The job queue's store modules on PostgreSQL, on a throwaway cluster of this test's own
# (t/lib/pg.sh): t/unit/test-store-jobs runs the same calls on SQLite and PostgreSQL (jobs,
# claims and their order, the family rule, leases and the recovery of orphans, the job and
# library lists, GitOps syncs and the schedule's slot, webhook deliveries and App tokens)
# and compares the answers; then several connections claim as several nodes would: a claim
# waits for another's decision, two processes claiming at once take every job once and
# never two of one library family at a time, one node runs a GitOps sync, a job's start and
# a deletion queued at the same instant lock their rows in one order.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
engine_sqlite_only "starts its own PostgreSQL and checks both engines"

ctxd_setup
pg_start
out=$("$top_builddir/t/unit/test-store-jobs" 2>&1); rc=$?
is "$rc" 0 "test-store-jobs: the job queue's store on SQLite and PostgreSQL"
[ "$rc" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$out" | head -60)"
like "$(grep -c '^ok .* - postgres: ' <<<"$out")" '^[0-9]{3,}$' "... PostgreSQL's checks ran ($(grep -c '^ok .* - postgres: ' <<<"$out") of them)"
unlike "$out" 'DATABASE_URL unset' "... not skipped"
is "$(grep -c '^ok [0-9]* - SQLite and PostgreSQL answered alike' <<<"$out")" 1 \
    "... and answered as SQLite did"
is "$(grep -c '^ok [0-9]* - postgres: \(every job ran\|... each claimed once\)' <<<"$out")" 2 \
    "... two processes claimed the queue between them, each job once"
is "$(grep -c '^ok [0-9]* - postgres: .*never had two of a family live' <<<"$out")" 2 \
    "... never two jobs of one family at a time"
is "$(grep -c '^ok [0-9]* - postgres: B finds nothing to run' <<<"$out")" 1 \
    "... one node runs a GitOps sync"
is "$(grep -c '^ok [0-9]* - postgres: \(B, a deletion, waits for A\|A starts the job (no deadlock)\|B.s deletion is queued\)' <<<"$out")" 3 \
    "... a start and a deletion at once take the rows in one order (no deadlock)"
is "$(pg_sql "SELECT count(*) FROM pg_namespace WHERE nspname = 'storejobs'")" 0 \
    "test-store-jobs left no schema behind"
done_testing
