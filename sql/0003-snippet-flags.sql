-- Version 3: snippets flagged by the content rules at indexing (lib/inject.c, ctxd-content(7)):
-- one row per snippet and rule, with the passage that made the rule flag it. A snippet's rows
-- go with it (a re-index deletes and re-inserts the snippets of changed files). The query
-- path holds flagged snippets back or marks them as the setting content.injection says.
CREATE TABLE IF NOT EXISTS snippet_flags (
	snippet_id	INTEGER NOT NULL REFERENCES snippets(id) ON DELETE CASCADE,
	library_id	TEXT NOT NULL,
	rule		TEXT NOT NULL,			-- the rule's id (override, role-tag, ...)
	excerpt		TEXT NOT NULL,			-- at most 160 bytes around the passage
	PRIMARY KEY (snippet_id, rule)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS snippet_flags_library ON snippet_flags(library_id, snippet_id);
