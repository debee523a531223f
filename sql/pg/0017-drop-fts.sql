-- Version 17 (sql/0017-drop-fts.sql): SQLite's full-text table snippets_fts goes. A
-- PostgreSQL database never had it (questions are ranked from the index segments); the
-- statement only keeps both engines at the same version.
DROP TABLE IF EXISTS snippets_fts;
