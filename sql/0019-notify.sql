-- Version 19: nothing on SQLite. On PostgreSQL (sql/pg/0019-notify.sql) the tables a query
-- process caches between requests announce their changes on channel ctxd_changes; a single
-- SQLite node reads them locally for each request and caches nothing.
SELECT 1;
