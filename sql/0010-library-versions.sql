-- Version 10: the versions of a git library. A version is a library of its own,
-- id "/owner/repo/<version>", branch = the tag or branch, with its own snippets; version_of
-- names the library ("/owner/repo", the default branch) it is a version of. Deleting that
-- library deletes its versions (lib/library.c queues their delete jobs).
ALTER TABLE libraries ADD COLUMN version_of TEXT;
CREATE INDEX libraries_version_of ON libraries(version_of);
