-- Version 2: who added each library, so that only an admin or the library's creator may
-- change its source settings by re-parsing it (NULL: added anonymously, by an operator key,
-- or before this version; such libraries' settings change only for admins).
ALTER TABLE libraries ADD COLUMN created_by INTEGER REFERENCES users(id) ON DELETE SET NULL;
