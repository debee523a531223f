-- Version 13: no member can swap the source behind a library id.
-- Agents trust an id (/acme/demo) as naming one source. Deleting a library is for its creator
-- and for admins (a GitOps-managed one: the manifest or an admin), and an id stays bound to the
-- source host it was first added from: once deleted, a non-admin may add it again only from
-- that host, ever (a grace period would only delay a takeover; an admin rebinds it by adding
-- it from the other host). lib/library.c reads both.

-- 1 when the library was added by an anonymous caller (the perm.anonymous_parse switch): with
-- perm.anonymous_delete on, anonymous callers may delete such libraries only. 0 for those
-- added by a user (created_by), an operator key, GitOps or before this version.
ALTER TABLE libraries ADD COLUMN created_anonymously INTEGER NOT NULL DEFAULT 0;

-- The source host each id was last added from by an admin, GitOps or (the first time) anyone,
-- kept after the library is deleted. Ids compare without case, as the hosted API's do.
CREATE TABLE library_hosts (
	id		TEXT PRIMARY KEY COLLATE NOCASE,	-- "/owner/repo"
	host		TEXT NOT NULL,				-- host[:port] of its source
	bound_at	TEXT NOT NULL
);
INSERT OR IGNORE INTO library_hosts (id, host, bound_at)
	SELECT id, host, created_at FROM libraries ORDER BY created_at;

-- Every insert of a library row binds its id to its host; lib/library.c refuses a
-- non-admin's insert whose host differs from the bound one before it gets here, so a
-- rebinding insert is an admin's or a GitOps sync's. (SQLite: an upsert in a trigger.)
CREATE TRIGGER libraries_bind_host AFTER INSERT ON libraries
BEGIN
	INSERT INTO library_hosts (id, host, bound_at) VALUES (NEW.id, NEW.host, NEW.created_at)
	    ON CONFLICT (id) DO UPDATE SET host = excluded.host, bound_at = excluded.bound_at;
END;
CREATE TRIGGER libraries_rebind_host AFTER UPDATE OF host ON libraries
BEGIN
	UPDATE library_hosts SET host = NEW.host, bound_at = NEW.updated_at WHERE id = NEW.id;
END;

-- Ids differing only in case name one library (library_upsert looks them up this way).
CREATE INDEX libraries_id_nocase ON libraries(id COLLATE NOCASE);
