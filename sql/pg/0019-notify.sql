-- Version 19 (sql/0019-notify.sql: nothing on SQLite): the tables a query or MCP worker
-- caches between requests (lib/store/db.h, enum db_cache) announce every change on channel
-- ctxd_changes, with the table's name as the payload, from the writer's own transaction
-- (delivered at its commit; one notification per table and transaction). Triggers rather
-- than calls in the writers: every writer of these tables is covered, today's and
-- tomorrow's (the libraries row alone has some twenty). Per statement, so a statement that
-- changes many rows costs one notification. Idempotent (a faked downgrade runs it again).
CREATE OR REPLACE FUNCTION ctxd_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('ctxd_changes', TG_TABLE_NAME);
	RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS libraries_notify ON libraries;
CREATE TRIGGER libraries_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON libraries
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS settings_notify ON settings;
CREATE TRIGGER settings_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON settings
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS api_keys_notify ON api_keys;
CREATE TRIGGER api_keys_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS users_notify ON users;
CREATE TRIGGER users_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
