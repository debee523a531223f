-- Version 20 (sql/0020-claim-order.sql): the claim statement numbers each claim one past
-- the highest claim_no of all jobs (lib/store/jobs.c, JOBS_CLAIM_SQL_PG), under the claim
-- lock; with this index that maximum is one backward index probe instead of a scan of the
-- jobs table, which keeps every job ever queued. Idempotent (a faked downgrade runs it
-- again).
CREATE INDEX IF NOT EXISTS jobs_claim_no ON jobs(claim_no);
