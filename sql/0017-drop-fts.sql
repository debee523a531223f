-- Version 17: no full-text table. snippets_fts (FTS5) held a second copy of every kept
-- snippet's text (title, breadcrumb, body, code, path) and an inverted index over it. The
-- lexical index a library is ranked from is its index segment (DATA_DIR/segments, written
-- by the worker) or, without one, an index a query process builds from the snippets and
-- documents rows (lib/store/fts.c makes the same columns from them); nothing reads the
-- table any more. Dropping it frees its pages inside ctxd.db (about two thirds of the file
-- for a large instance): `ctxd-admin compact` gives them back to the file system.
DROP TABLE snippets_fts;
