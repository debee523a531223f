-- Version 20: the claim statement numbers each claim one past the highest claim_no of all
-- jobs (lib/store/jobs.c, jobs_claim); with this index that maximum is one index probe
-- instead of a scan of the jobs table, which keeps every job ever queued. Idempotent (a
-- faked downgrade runs it again). Its PostgreSQL twin is sql/pg/0020-claim-order.sql.
CREATE INDEX IF NOT EXISTS jobs_claim_no ON jobs(claim_no);
