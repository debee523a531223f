-- ctxd database schema, version 1 (PRAGMA user_version).
-- A fresh database runs this file; later versions add sql/NNNN-name.sql migrations that
-- bring an older database up to date. Every executable refuses a newer database.

CREATE TABLE libraries (
	id		TEXT PRIMARY KEY,		-- "/owner/repo"
	lib_no		INTEGER NOT NULL UNIQUE,	-- short number used in the FTS index
	source_type	TEXT NOT NULL DEFAULT 'git'
			CHECK (source_type IN ('git', 'wiki', 'website', 'llmstxt', 'openapi')),
	url		TEXT NOT NULL,			-- repository URL, never with credentials
	host		TEXT NOT NULL,			-- host[:port] of url
	branch		TEXT NOT NULL DEFAULT '',	-- requested branch, '' = default branch
	settings	TEXT NOT NULL DEFAULT '{}',	-- JSON: folders, excludeFolders, excludeFiles, indexSourceCode
	title		TEXT NOT NULL,
	description	TEXT NOT NULL DEFAULT '',
	state		TEXT NOT NULL DEFAULT 'initial'
			CHECK (state IN ('initial', 'processing', 'finalized', 'error', 'delete')),
	gitops		INTEGER NOT NULL DEFAULT 0,
	indexed_commit	TEXT,				-- commit of the index being served
	indexed_branch	TEXT,
	indexed_settings TEXT,				-- settings the served index was built with
	blob_prefix	TEXT,				-- web URL prefix of files: <prefix><commit>/<path>
	index_version	INTEGER NOT NULL DEFAULT 0,	-- new (unique in the table) at every index write
	embed_version	INTEGER NOT NULL DEFAULT 0,	-- new (unique) at every write of its vectors
	run_status	TEXT CHECK (run_status IN ('running', 'ok', 'failed', 'unfinished',
			    'degraded', 'cancelled')),
	run_started	TEXT,
	run_finished	TEXT,
	last_error	TEXT,
	total_documents	INTEGER NOT NULL DEFAULT 0,
	total_snippets	INTEGER NOT NULL DEFAULT 0,
	total_tokens	INTEGER NOT NULL DEFAULT 0,
	created_at	TEXT NOT NULL,
	updated_at	TEXT NOT NULL
);

CREATE TABLE documents (
	id		INTEGER PRIMARY KEY,
	library_id	TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
	path		TEXT NOT NULL,
	blob		TEXT NOT NULL,			-- git blob id of the parsed content
	title		TEXT NOT NULL,
	UNIQUE (library_id, path)
);

CREATE TABLE snippets (
	id		INTEGER PRIMARY KEY,
	library_id	TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
	document_id	INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	ord		INTEGER NOT NULL,		-- position in the document
	title		TEXT NOT NULL,
	breadcrumb	TEXT NOT NULL,
	anchor		TEXT NOT NULL,
	text		TEXT NOT NULL,
	code		TEXT NOT NULL DEFAULT '[]',	-- JSON [{"language": …, "code": …}]
	tokens		INTEGER NOT NULL,
	-- duplicate detection (lib/dedup.c): a duplicate keeps its row but has no
	-- snippets_fts row and no embedding, so no query returns it
	hash		TEXT NOT NULL DEFAULT '',	-- SHA-256 hex of the normalised text + code
	sig		INTEGER,			-- simhash of its word shingles; NULL: too short
	dup_of		INTEGER,			-- snippets.id of the copy kept, NULL: kept
	-- LLM titles and descriptions (lib/describe.c): title and text may hold them
	heading		TEXT NOT NULL DEFAULT '',	-- the section's own heading (title as parsed)
	described	INTEGER NOT NULL DEFAULT 0	-- 1: the describe pass has seen it
);
-- (document_id, ord): a page's snippets in order (neighbour expansion in lib/search.c)
CREATE INDEX snippets_document ON snippets(document_id, ord);
CREATE INDEX snippets_library ON snippets(library_id);

-- Full-text index, one row per snippet (rowid = snippets.id). "lib" holds "l<lib_no>" so a
-- query is restricted to one library inside the index; the ctxd tokenizer is code-aware
-- and porter stems its output.
CREATE VIRTUAL TABLE snippets_fts USING fts5(
	lib, title, breadcrumb, body, code, path,
	tokenize = 'porter ctxd'
);

-- Embedding vectors of snippets, one row per (snippet, model): dim float32 values in the
-- host's byte order (little-endian), L2-normalised (lib/vector.c). hash is the SHA-256
-- hex of the text that was embedded: a snippet whose text is unchanged keeps its vector
-- (and embeddings_hash finds a vector to reuse for the same text under a new snippet
-- id); a changed model has no rows yet, so its snippets are embedded again.
-- Version 11 (sql/0011-shared-vectors.sql) moves the vectors to a table of their own, one per
-- (model, hash), and leaves embeddings the rows that name them.
CREATE TABLE embeddings (
	snippet_id	INTEGER NOT NULL REFERENCES snippets(id) ON DELETE CASCADE,
	model		TEXT NOT NULL,			-- the embedding model's name
	dim		INTEGER NOT NULL CHECK (dim > 0 AND dim <= 8192),
	hash		TEXT NOT NULL,			-- SHA-256 hex of the embedded text
	vector		BLOB NOT NULL CHECK (length(vector) = 4 * dim),
	PRIMARY KEY (snippet_id, model)
);
CREATE INDEX embeddings_hash ON embeddings(model, hash);

-- library_id has no foreign key: a library's delete job outlives the library as the record
-- of the deletion (the delete job removes the library's other jobs itself, lib/library.c).
CREATE TABLE jobs (
	id		INTEGER PRIMARY KEY,
	library_id	TEXT NOT NULL,
	kind		TEXT NOT NULL CHECK (kind IN ('index', 'delete')),
	state		TEXT NOT NULL DEFAULT 'queued'
			CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	force		INTEGER NOT NULL DEFAULT 0,	-- re-index even if the commit is unchanged
	attempts	INTEGER NOT NULL DEFAULT 0,	-- runs started (a worker may die mid-run)
	cancel_requested INTEGER NOT NULL DEFAULT 0,	-- POST /api/jobs/ID/cancel on a running job
	message		TEXT,
	created_at	TEXT NOT NULL,
	started_at	TEXT,
	finished_at	TEXT
);
CREATE INDEX jobs_state ON jobs(state, id);

CREATE TABLE job_log (
	id		INTEGER PRIMARY KEY,
	job_id		INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	at		TEXT NOT NULL,
	level		TEXT NOT NULL CHECK (level IN ('info', 'warning', 'error')),
	line		TEXT NOT NULL
);
CREATE INDEX job_log_job ON job_log(job_id, id);

CREATE TABLE settings (
	name		TEXT PRIMARY KEY,
	value		TEXT NOT NULL,			-- sealed with secret.key when a secret
	updated_at	TEXT NOT NULL
);

CREATE TABLE api_keys (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL,
	prefix		TEXT NOT NULL,			-- first characters, for display
	hash		TEXT NOT NULL UNIQUE,		-- SHA-256 hex of the whole key
	admin		INTEGER NOT NULL DEFAULT 0,
	created_at	TEXT NOT NULL,
	last_used_at	TEXT,
	revoked_at	TEXT,
	user_id		INTEGER REFERENCES users(id) ON DELETE CASCADE	-- NULL: operator key
);

-- Accounts: users of the web UI and the admin API, their sign-in sessions and the
-- login throttle. api_keys.user_id ties a personal key to its user (lib/apikey.c).
CREATE TABLE users (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE COLLATE NOCASE,
	role		TEXT NOT NULL CHECK (role IN ('admin', 'member')),
	password	TEXT NOT NULL,			-- scrypt$LOG2N$R$P$salt$hash (lib/user.c)
	disabled	INTEGER NOT NULL DEFAULT 0,
	must_change_password INTEGER NOT NULL DEFAULT 0,
	created_at	TEXT NOT NULL,
	updated_at	TEXT NOT NULL
);
CREATE INDEX api_keys_user ON api_keys(user_id);

-- A fresh instance has one admin, "admin" with the password "admin", who must change it
-- before doing anything else.
INSERT INTO users (name, role, password, must_change_password, created_at, updated_at)
VALUES ('admin', 'admin', 'scrypt$15$8$1$SblK_THMWHlEAd8JMlbEvw$AezytBo02SmJVncd_OQQDIhmjeK5GwSWUyRosYfPSgU', 1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),
	strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));

-- Sign-in sessions: only the SHA-256 of the cookie's token is stored. Times in Unix seconds.
CREATE TABLE sessions (
	id		INTEGER PRIMARY KEY,
	user_id		INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	hash		TEXT NOT NULL UNIQUE,
	created		INTEGER NOT NULL,
	last_seen	INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

-- Failed sign-ins per user name (scope 'user', lowercased) and client address ('addr').
CREATE TABLE login_throttle (
	scope		TEXT NOT NULL CHECK (scope IN ('user', 'addr')),
	key		TEXT NOT NULL,
	failures	INTEGER NOT NULL,
	last_at		INTEGER NOT NULL,		-- Unix seconds of the last failure
	locked_until	INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (scope, key)
);

-- Admin API (lib/catalog.c, lib/library.c): a library's jobs, newest first (detail, job
-- list filter, deletion). While a library has a delete job queued or running its state
-- stays 'delete', even when an index run that was already under way finishes and writes
-- its own state.
CREATE INDEX jobs_library ON jobs(library_id, id);
CREATE TRIGGER libraries_keep_delete AFTER UPDATE OF state ON libraries
WHEN OLD.state = 'delete' AND NEW.state <> 'delete' AND EXISTS (SELECT 1 FROM jobs
    WHERE jobs.library_id = NEW.id AND jobs.kind = 'delete'
    AND jobs.state IN ('queued', 'running'))
BEGIN
	UPDATE libraries SET state = 'delete' WHERE id = NEW.id;
END;
-- LLM-generated titles and descriptions of code snippets (lib/describe.c), by the SHA-256
-- of the text sent for a snippet (page title, breadcrumb, prose, code) and the model: a
-- re-index, or another library with the same snippet, reuses them without a request.
CREATE TABLE snippet_descriptions (
	hash		TEXT NOT NULL,
	model		TEXT NOT NULL,
	title		TEXT NOT NULL,
	description	TEXT NOT NULL,
	created_at	TEXT NOT NULL,
	PRIMARY KEY (hash, model)
);
