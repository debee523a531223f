-- Version 18 (sql/0018-segment-store.sql): the index segments stored once in PostgreSQL,
-- so that every node sharing the database can fetch a segment another node's worker wrote
-- (lib/store/segstore.c). Rows of 1 MiB chunks (bytea, TOASTed out of line and not
-- compressed: a segment's arrays are mostly incompressible), so that no statement moves a
-- whole segment at once.
CREATE TABLE segment_files (
	name		text PRIMARY KEY,
	lib_no		bigint NOT NULL REFERENCES libraries(lib_no) ON DELETE CASCADE DEFERRABLE,
	index_version	bigint NOT NULL,
	embed_version	bigint NOT NULL DEFAULT 0,
	vec_model	text NOT NULL DEFAULT '',
	size		bigint NOT NULL CHECK (size >= 0),
	sha256		text NOT NULL,
	stored_at	text NOT NULL
);
CREATE INDEX segment_files_lib ON segment_files(lib_no, index_version);
CREATE TABLE segment_chunks (
	name		text NOT NULL REFERENCES segment_files(name) ON DELETE CASCADE DEFERRABLE,
	seq		bigint NOT NULL CHECK (seq >= 0),
	data		bytea NOT NULL,
	PRIMARY KEY (name, seq)
);
ALTER TABLE segment_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
