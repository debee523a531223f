-- Version 8: the history of the database's own schema. Every change of its version (created
-- by ctxd-admin init, migrated by the package's upgrade, which runs ctxd-admin init, or by a
-- restore of an older backup) leaves a row: from which version (0: a new database) to which,
-- by which ctxd release, when. ctxd-admin doctor shows the last one, so that an operator sees
-- which upgrade last migrated the data.
CREATE TABLE schema_history (
	id INTEGER PRIMARY KEY,
	from_version INTEGER NOT NULL,
	to_version INTEGER NOT NULL,
	release TEXT NOT NULL,
	at INTEGER NOT NULL
);
