-- Version 5: GitOps (lib/gitops.c). A sync is not a row of jobs (whose kind CHECK names
-- index and delete, and whose rows all belong to one library): gitops_runs is the queue
-- and the record of syncs, run by ctxd-worker before the index jobs. At most one run is
-- queued at a time (gitops_queue_sync joins a request to the queued one).
CREATE TABLE gitops_runs (
	id		INTEGER PRIMARY KEY,
	trigger		TEXT NOT NULL
			CHECK (trigger IN ('start', 'schedule', 'manual', 'webhook', 'api')),
	state		TEXT NOT NULL DEFAULT 'queued'
			CHECK (state IN ('queued', 'running', 'done', 'skipped', 'failed')),
	attempts	INTEGER NOT NULL DEFAULT 0,	-- starts (a worker may die mid-run)
	manifest_commit	TEXT,				-- commit of the manifest repository read
	result		TEXT,				-- JSON: counts, entries, errors
	message		TEXT,				-- one line: the outcome, or why it failed
	created_at	TEXT NOT NULL,
	started_at	TEXT,
	finished_at	TEXT
);
CREATE INDEX gitops_runs_state ON gitops_runs(state, id);

-- One row: what the last applied sync read, and the schedule's last fired slot.
CREATE TABLE gitops_state (
	id		INTEGER PRIMARY KEY CHECK (id = 1),
	last_commit	TEXT,		-- manifest commit last processed (applied cleanly)
	last_config	TEXT,		-- repo URL, branch, path and prune it was processed with
	last_slot	TEXT		-- schedule: the minute (UTC ISO 8601) last evaluated as run
);
INSERT INTO gitops_state (id) VALUES (1);
