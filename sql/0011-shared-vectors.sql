-- Version 11: embedding vectors shared by content. Versions of a library hold the
-- same texts; each kept a full copy of every vector. A vector is now stored once per
-- (model, hash of the embedded text) in vectors, and embeddings keeps one small row per
-- (snippet, model) naming it. The embedder writes a vector with its first embeddings row in
-- one transaction and deletes the vectors no row names any more (lib/embedder.c,
-- embedder_gc), so every committed state has a vector for each embeddings row: a query
-- process reading both in one statement (lib/vector.c) never misses one.
--
-- vectors is a rowid table: a vector of 1536 floats (6 KB) fits a page and one overflow page
-- there, while a WITHOUT ROWID row keeps only about 1 KB in its b-tree page and needs two
-- overflow pages (measured: 5,000 such vectors take 41.6 MB, 43.9 MB WITHOUT ROWID).
CREATE TABLE vectors (
	model		TEXT NOT NULL,			-- the embedding model's name
	hash		TEXT NOT NULL,			-- SHA-256 hex of the embedded text
	dim		INTEGER NOT NULL CHECK (dim > 0 AND dim <= 8192),
	vector		BLOB NOT NULL CHECK (length(vector) = 4 * dim),	-- float32, L2-normalised
	PRIMARY KEY (model, hash)
);
-- Every stored vector moves; where several rows had the same model and hash (copies made by
-- the reuse by hash), the newest row's vector is kept and the others name it.
INSERT OR IGNORE INTO vectors (model, hash, dim, vector)
	SELECT model, hash, dim, vector FROM embeddings ORDER BY snippet_id DESC;

CREATE TABLE embeddings_new (
	snippet_id	INTEGER NOT NULL REFERENCES snippets(id) ON DELETE CASCADE,
	model		TEXT NOT NULL,
	hash		TEXT NOT NULL,
	PRIMARY KEY (snippet_id, model),
	FOREIGN KEY (model, hash) REFERENCES vectors(model, hash)
) WITHOUT ROWID;
INSERT INTO embeddings_new (snippet_id, model, hash)
	SELECT e.snippet_id, e.model, e.hash FROM embeddings e
	WHERE EXISTS (SELECT 1 FROM snippets s WHERE s.id = e.snippet_id);
DROP TABLE embeddings;
ALTER TABLE embeddings_new RENAME TO embeddings;
-- The vectors a text's hash names (the embedder's reuse) and those still named (the
-- garbage collection, and the check of the foreign key when a vector is deleted).
CREATE INDEX embeddings_hash ON embeddings(model, hash);
