-- Version 14: who queued a job, so that one user cannot fill the queue that the one worker
-- runs in order (setting jobs.max_queued_per_user, lib/jobs.c jobs_queuer_begin).
-- queued_via says through what a request queued it: 'user' (a user's key or session; the
-- user is queued_by), 'key' (an operator key, which has no user) or 'anonymous' (a
-- perm.anonymous_* switch). NULL: the service itself (a GitOps sync, a webhook, the worker's
-- follow-ups, ctxd-admin), and the jobs queued before this version.
ALTER TABLE jobs ADD COLUMN queued_by INTEGER REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE jobs ADD COLUMN queued_via TEXT CHECK (queued_via IN ('user', 'key', 'anonymous'));
-- The queued jobs of one requester (jobs_queuer_begin counts them).
CREATE INDEX jobs_queued_by ON jobs(queued_via, queued_by) WHERE state = 'queued';
