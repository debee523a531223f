-- Version 7: a job's progress as the worker goes (lib/jobs.c, jobs_progress), for the web
-- UI's progress bar and GET /api/jobs: the step it is in (fetching, parsing, writing,
-- describing, embedding), the documents selected and those done (parsed, kept unchanged or
-- skipped), the snippets written, and the snippets to describe and to embed with those
-- done. The worker writes them at most every JOBS_PROGRESS_MS and at each step's end.
ALTER TABLE jobs ADD COLUMN phase TEXT;
ALTER TABLE jobs ADD COLUMN docs_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN docs_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN snippets_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN describe_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN described INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN embed_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN embedded INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN progress_at TEXT;
