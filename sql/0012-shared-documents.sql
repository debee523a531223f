-- Version 12: the versions of a library share the snippets of unchanged files.
-- A version's file with the path and git blob of a file another library of its family has
-- indexed gets a documents row of its own (its library, path, title; the Source line shows
-- that library's commit) whose snippets_from names the document that holds the snippets:
-- no snippets, full-text or embeddings rows are written for it. snippets_from is NULL for a
-- document that owns its snippets, and never names a document that has one itself (no
-- chains: lib/share.c follows it once when it shares). Before an owner is deleted its
-- snippets move to one of the documents showing them (share_disown); the foreign key is the
-- safety net. Databases indexed before keep their copies: each copy owns its snippets.
ALTER TABLE documents ADD COLUMN snippets_from INTEGER REFERENCES documents(id);
-- The documents showing an owner's snippets (share_disown, share_unshare).
CREATE INDEX documents_snippets_from ON documents(snippets_from);
-- The document whose snippets a document shows (its own id when it owns them). A column of
-- its own so that an index holds it: SQLite 3.40 uses an index on the expression for a
-- constant but not for a join (library_snippets looked up from a snippet).
ALTER TABLE documents ADD COLUMN shows INTEGER GENERATED ALWAYS AS
	(coalesce(snippets_from, id)) VIRTUAL;
-- The document of a snippet in one library: library_snippets from a snippet (the answer's
-- Source line, the ranking in SQLite).
CREATE INDEX documents_shown ON documents(library_id, shows);

-- The snippets a library shows: those of its own documents and those of the documents its
-- documents share. library_id and document_id are the showing library's and document's
-- (the Source line, the page of a snippet); owner_id and owner_document_id the row's own.
CREATE VIEW library_snippets AS
	SELECT d.library_id AS library_id, d.id AS document_id, s.id AS id,
	    s.library_id AS owner_id, s.document_id AS owner_document_id, s.ord AS ord,
	    s.title AS title, s.breadcrumb AS breadcrumb, s.anchor AS anchor, s.text AS text,
	    s.code AS code, s.tokens AS tokens, s.hash AS hash, s.sig AS sig,
	    s.dup_of AS dup_of, s.heading AS heading, s.described AS described
	FROM documents d JOIN snippets s ON s.document_id = d.shows;
