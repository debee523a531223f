-- Version 18: the index segments stored in the database, for several nodes sharing one
-- PostgreSQL database (DATABASE_URL), each with its own DATA_DIR: a node's worker uploads
-- the segment it writes (DATA_DIR/segments/<lib_no>-<index_version>.seg), and another node
-- fetches it into its own DATA_DIR/segments on first use (lib/store/segstore.c). A segment
-- is a row of segment_files and its bytes in chunks of 1 MiB (segment_chunks, seq 0, 1, ...),
-- so that neither side holds a whole segment in memory. On SQLite both tables stay empty:
-- a single node keeps its segments in DATA_DIR only.
CREATE TABLE segment_files (
	name		TEXT PRIMARY KEY,		-- "<lib_no>-<index_version>.seg"
	lib_no		INTEGER NOT NULL REFERENCES libraries(lib_no) ON DELETE CASCADE,
	index_version	INTEGER NOT NULL,
	embed_version	INTEGER NOT NULL DEFAULT 0,	-- of the vectors it holds (0: none)
	vec_model	TEXT NOT NULL DEFAULT '',	-- their embedding model ('': none)
	size		INTEGER NOT NULL CHECK (size >= 0),	-- bytes of the file
	sha256		TEXT NOT NULL,			-- of the file, 64 lowercase hex digits
	stored_at	TEXT NOT NULL			-- ISO 8601
);
CREATE INDEX segment_files_lib ON segment_files(lib_no, index_version);
CREATE TABLE segment_chunks (
	name		TEXT NOT NULL REFERENCES segment_files(name) ON DELETE CASCADE,
	seq		INTEGER NOT NULL CHECK (seq >= 0),	-- bytes seq MiB .. seq+1 MiB
	data		BLOB NOT NULL,
	PRIMARY KEY (name, seq)
);
