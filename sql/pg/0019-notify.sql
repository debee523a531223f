-- Version 19 (sql/0019-notify.sql: nothing on SQLite): the tables a query or MCP worker
-- caches between requests (lib/store/db.h, enum db_cache) announce every change on channel
-- ctxd_changes, with the table's name as the payload, from the writer's own transaction
-- (delivered at its commit; one notification per table and transaction, as PostgreSQL
-- folds identical ones). Triggers rather than calls in the writers: every writer of these
-- tables is covered, today's and tomorrow's (the libraries row alone has some twenty).
-- Per row, and an UPDATE only when it changes the row, so that a statement that changes
-- nothing (a recovery pass finding no orphan) drops no cache. Idempotent (a faked
-- downgrade runs it again).
CREATE OR REPLACE FUNCTION ctxd_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('ctxd_changes', TG_TABLE_NAME);
	RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS libraries_notify ON libraries;
CREATE TRIGGER libraries_notify AFTER INSERT OR DELETE ON libraries
	FOR EACH ROW EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS libraries_notify_update ON libraries;
CREATE TRIGGER libraries_notify_update AFTER UPDATE ON libraries
	FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS libraries_notify_truncate ON libraries;
CREATE TRIGGER libraries_notify_truncate AFTER TRUNCATE ON libraries
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS settings_notify ON settings;
CREATE TRIGGER settings_notify AFTER INSERT OR DELETE ON settings
	FOR EACH ROW EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS settings_notify_update ON settings;
CREATE TRIGGER settings_notify_update AFTER UPDATE ON settings
	FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS settings_notify_truncate ON settings;
CREATE TRIGGER settings_notify_truncate AFTER TRUNCATE ON settings
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS api_keys_notify ON api_keys;
CREATE TRIGGER api_keys_notify AFTER INSERT OR DELETE ON api_keys
	FOR EACH ROW EXECUTE FUNCTION ctxd_notify_change();
-- A key's use (last_used_at, written at most once a minute a process) changes no lookup.
DROP TRIGGER IF EXISTS api_keys_notify_update ON api_keys;
CREATE TRIGGER api_keys_notify_update AFTER UPDATE ON api_keys
	FOR EACH ROW WHEN ((OLD.hash, OLD.admin, OLD.revoked_at, OLD.user_id) IS DISTINCT FROM
	    (NEW.hash, NEW.admin, NEW.revoked_at, NEW.user_id))
	EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS api_keys_notify_truncate ON api_keys;
CREATE TRIGGER api_keys_notify_truncate AFTER TRUNCATE ON api_keys
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS users_notify ON users;
CREATE TRIGGER users_notify AFTER INSERT OR DELETE ON users
	FOR EACH ROW EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS users_notify_update ON users;
CREATE TRIGGER users_notify_update AFTER UPDATE ON users
	FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ctxd_notify_change();
DROP TRIGGER IF EXISTS users_notify_truncate ON users;
CREATE TRIGGER users_notify_truncate AFTER TRUNCATE ON users
	FOR EACH STATEMENT EXECUTE FUNCTION ctxd_notify_change();
