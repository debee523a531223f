-- Version 6: the GitHub-type App (lib/ghapp.c) and its push webhook (fcgi/hook.c).
-- ghapp_tokens caches the App's installation access tokens, sealed with secret.key, until
-- shortly before they expire (expires_at: Unix seconds). hook_deliveries remembers the
-- X-GitHub-Delivery ids of recent webhook deliveries (received_at: Unix seconds), so that
-- a repeated delivery is acknowledged and ignored; ctxd-hook keeps it bounded.
CREATE TABLE IF NOT EXISTS ghapp_tokens (
	installation_id	INTEGER PRIMARY KEY,
	token		TEXT NOT NULL,
	expires_at	INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS hook_deliveries (
	id		TEXT PRIMARY KEY,
	received_at	INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS hook_deliveries_received ON hook_deliveries(received_at);
