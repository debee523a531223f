-- Version 16: several job runners at once (ctxd-worker's pool, and later several nodes).
-- A runner claims a queued job by writing its lease: lease_holder names it ("host:pid" of
-- the ctxd-worker that runs the pool) and lease_until is when the claim lapses unless the
-- holder renews it (every few seconds while the job's process lives). A job whose lease
-- lapsed (or that has none: the jobs of the worker before this version) is an orphan that
-- jobs_recover requeues or ends; a live lease keeps its job, and its library, to its holder.
ALTER TABLE jobs ADD COLUMN lease_holder TEXT;
ALTER TABLE jobs ADD COLUMN lease_until TEXT;
-- The order of the claims (1, 2, ...): the queuer served longest ago goes next (jobs_claim).
ALTER TABLE jobs ADD COLUMN claim_no INTEGER;
-- Queued by an admin (a user or an operator key with the admin role): ahead of members.
ALTER TABLE jobs ADD COLUMN queued_admin INTEGER NOT NULL DEFAULT 0;
-- The last claim of each queuer.
CREATE INDEX jobs_queuer_claims ON jobs(queued_via, queued_by, claim_no)
	WHERE claim_no IS NOT NULL;
-- The jobs a runner holds (renewal, and the check that a library has no live job).
CREATE INDEX jobs_lease ON jobs(library_id, lease_until) WHERE lease_until IS NOT NULL;
