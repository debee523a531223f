#!/usr/bin/env bash
# What members can make the server read, by default and once an admin opens it: a source
# on an address of a private range is refused when added (400 naming fetch.allowed_networks)
# until an admin lists its network; a wiki source, or a repository on a host the instance
# holds a git token or the GitHub App for, is refused to a member (403 naming
# perm.members_use_integrations) and allowed to an admin, and to the member once the switch
# is on. Migration 15 on a database of the previous schema writes the old values only when
# libraries need them. No job runs (CTXD_WORKER=/bin/true): nothing connects anywhere.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx curl sqlite3
export CTXD_WORKER=/bin/true

ctxd_setup
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
printf 'member password 1\n' | ctxd_admin user create mia >/dev/null 2>&1 ||
    bail_out "cannot create the member user"
MEMBER=$(ctxd_admin key create --user mia mia-key)
J='Content-Type: application/json'

# add KEY JSON: POST /api/libraries as KEY; prints the status (the body in http_body).
add() {
	http POST "$BASE/api/libraries" -H "Authorization: Bearer $1" -H "$J" --data "$2"
}
# parse KEY URL: POST /api/parse (a git repository) as KEY; prints the status.
parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $1" -H "$J" \
	    --data "{\"repoUrl\": \"$2\"}"
}
err() { http_body | jq -r .error; }
web() { printf '{"type": "website", "url": "%s"}' "$1"; }

# ---------------------------------------------------------------- migration: nothing needed
# The database as the previous schema left it: no value written by this version.
# Version 15 made the safe defaults; what later versions added is taken out with it, so that
# the migrations after 14 run again (16: the job leases; 17: no full-text table; 18: the
# stored segments' tables; 20: the index of claim numbers).
# before_15: the schema as version 14 left it (what versions 16 to 20 changed undone; the
# full-text table of version 16 with FTS5's own tokenizer: the sqlite3 shell lacks ctxd's).
before_15() {
	_sql "DROP TABLE segment_chunks; DROP TABLE segment_files;
	    CREATE VIRTUAL TABLE snippets_fts USING fts5(lib, title, breadcrumb, body, code,
	    path, tokenize = 'porter unicode61');
	    INSERT INTO snippets_fts (rowid, lib, title, breadcrumb, body, code, path)
	    SELECT s.id, 'l' || l.lib_no, s.title, s.breadcrumb, s.text, s.code, d.path
	    FROM snippets s JOIN documents d ON d.id = s.document_id JOIN libraries l ON
	    l.id = s.library_id WHERE s.dup_of IS NULL;
	    DROP INDEX jobs_claim_no; DROP INDEX jobs_lease; DROP INDEX jobs_queuer_claims;
	    ALTER TABLE jobs DROP COLUMN lease_holder; ALTER TABLE jobs DROP COLUMN lease_until;
	    ALTER TABLE jobs DROP COLUMN claim_no; ALTER TABLE jobs DROP COLUMN queued_admin;
	    PRAGMA user_version = 14"
}
# PostgreSQL's schema starts after version 15 (sql/pg/schema.sql): no PostgreSQL database
# was ever at version 14, so there the settings alone are taken out and init migrates nothing.
downgrade() {
	_sql "DELETE FROM settings WHERE name IN ('fetch.allowed_networks',
	    'perm.members_use_integrations')"
	[ "$(ctxd_test_engine)" = postgres ] || before_15
}
migrate() {
	ctxd_admin init >"$T/log/init-migrate.log" 2>&1 ||
	    diag "$(cat "$T/log/init-migrate.log")"
	is "$(schema_version)" "$SCHEMA_VERSION" "$1: migrated to this build's version"
}
setting_row() { _sql "SELECT coalesce((SELECT value FROM settings WHERE name = '$1'), '(unset)')"; }

downgrade
migrate "no library"
is "$(setting_row fetch.allowed_networks) / $(setting_row perm.members_use_integrations)" \
    "(unset) / (unset)" "an instance without libraries gets the closed defaults"
is "$(ctxd_admin settings get fetch.allowed_networks)" "" "fetch.allowed_networks lists nothing by default"
is "$(ctxd_admin settings get perm.members_use_integrations)" false \
    "perm.members_use_integrations is off by default"

# ---------------------------------------------------------------- private ranges
for url in http://10.1.2.3/docs http://172.20.0.9:8080/guide http://192.168.1.5/ \
    'http://[fd12:3456::1]/docs'; do
	is "$(add "$MEMBER" "$(web "$url")")" 400 "default policy: a member's website $url is refused"
	like "$(err)" "^address [0-9a-f:.]+ of host .* is not allowed by fetch\.allowed_networks" \
	    "... naming the address and the setting"
done
is "$(add "$ADMIN" "$(web http://10.1.2.3/docs)")" 400 "an admin's too: the policy is the server's"
is "$(parse "$MEMBER" http://192.168.1.5/acme/internal)" 400 "a git repository on 192.168.1.5: refused"
like "$(err)" "address 192\.168\.1\.5 of host 192\.168\.1\.5 is not allowed by fetch\.allowed_networks" \
    "... with the same message"
is "$(_sql "SELECT count(*) FROM libraries")" 0 "nothing was stored"
is "$(add "$MEMBER" "$(web http://93.184.215.14/docs)")" 202 "a public address is accepted"
ctxd_admin settings set fetch.allowed_networks "127.0.0.0/8, 10.0.0.0/8" ||
    bail_out "cannot list 10.0.0.0/8"
is "$(add "$MEMBER" "$(web http://10.1.2.3/docs)")" 202 "10.0.0.0/8 listed: the member's website on 10.1.2.3 is accepted"
is "$(add "$MEMBER" "$(web http://192.168.1.5/)")" 400 "192.168.1.5 is still refused"

# ---------------------------------------------------------------- wiki sources
WIKI='{"type": "wiki", "url": "http://127.0.0.1:9/", "spaceKey": "ENG"}'
is "$(add "$MEMBER" "$WIKI")" 403 "a member's wiki source: 403"
is "$(err)" "a wiki source is read with the instance's wiki credentials (wiki.token): only an admin may add one, unless an admin turns on perm.members_use_integrations" \
    "... naming the credential and the setting"
is "$(_sql "SELECT count(*) FROM libraries WHERE source_type = 'wiki'")" 0 "nothing was stored"
is "$(add "$ADMIN" "$WIKI")" 202 "an admin's wiki source: accepted"
ctxd_admin settings set perm.members_use_integrations true
is "$(add "$MEMBER" '{"type": "wiki", "url": "http://127.0.0.1:9/", "spaceKey": "OPS"}')" 202 \
    "with perm.members_use_integrations on, the member's wiki source is accepted"
ctxd_admin settings set perm.members_use_integrations false

# ---------------------------------------------------------------- git tokens and the App
GH=127.0.0.1:9
is "$(parse "$MEMBER" "http://$GH/acme/public")" 202 "no token for the host: a member's repository is accepted"
ctxd_admin settings set git.github.host "$GH"
printf 'ghp_defaults%s\n' "$(openssl rand -hex 8)" | ctxd_admin settings set git.github.token -
is "$(parse "$MEMBER" "http://$GH/acme/private")" 403 "a token for the host: the member's repository is refused"
is "$(err)" "repositories on $GH are cloned with the instance's token git.github.token: only an admin may add one, unless an admin turns on perm.members_use_integrations" \
    "... naming the token and the setting"
is "$(parse "$MEMBER" "http://$GH/acme/public")" 403 "... a re-add of one added before the token too"
is "$(parse "$ADMIN" "http://$GH/acme/private")" 202 "an admin's: accepted"
ctxd_admin settings set perm.members_use_integrations true
is "$(parse "$MEMBER" "http://$GH/acme/private2")" 202 "the switch on: the member's is accepted"
ctxd_admin settings set perm.members_use_integrations false
ctxd_admin settings unset git.github.token
is "$(parse "$MEMBER" "http://$GH/acme/private3")" 202 "the token removed: accepted again"
ctxd_admin settings set git.github.app_id 12345
printf -- '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n' |
    ctxd_admin settings set git.github.app_private_key -
is "$(parse "$MEMBER" "http://$GH/acme/private4")" 403 "the GitHub App set up: refused"
like "$(err)" "with the instance's GitHub App \(git\.github\.app_id\).*perm\.members_use_integrations" \
    "... naming the App and the setting"
ctxd_admin settings unset git.github.app_id
ctxd_admin settings unset git.github.app_private_key
ctxd_admin settings set git.gitlab.host 127.0.0.1:7
printf 'glpat-defaults%s\n' "$(openssl rand -hex 8)" | ctxd_admin settings set git.gitlab.token -
is "$(parse "$MEMBER" "http://127.0.0.1:7/team/docs")" 403 "a GitLab-type token for the host: refused"
like "$(err)" "token git\.gitlab\.token.*perm\.members_use_integrations" "... naming that token"
is "$(add "$MEMBER" "$(web http://127.0.0.1:7/site)")" 202 "a website on that host: no credential, accepted"

# ---------------------------------------------------------------- migration with libraries
# (SQLite only: migration 15 has no PostgreSQL twin, as above.)
[ "$(ctxd_test_engine)" = sqlite ] || done_testing
# The libraries above as an instance of the previous version has them: the member's website
# on 10.1.2.3 and wiki space OPS (added by mia, a member), a repository of mia's on the host
# of the token.
printf 'ghp_defaults%s\n' "$(openssl rand -hex 8)" | ctxd_admin settings set git.github.token -
downgrade
migrate "libraries on private addresses and read with the credentials"
is "$(setting_row fetch.allowed_networks)" "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7" \
    "the old list is written: the website on 10.1.2.3 keeps working"
is "$(setting_row perm.members_use_integrations)" true "members keep the integrations they used"
is "$(add "$MEMBER" "$(web http://10.1.2.3/docs)")" 202 "the member re-adds the website on 10.1.2.3"
# (The test's hosts are on the loopback, which no default lists.)
ctxd_admin settings set fetch.allowed_networks "$(setting_row fetch.allowed_networks), 127.0.0.0/8"
is "$(add "$MEMBER" '{"type": "wiki", "url": "http://127.0.0.1:9/", "spaceKey": "OPS"}')" 202 \
    "... and the wiki space"
is "$(parse "$MEMBER" "http://$GH/acme/private2")" 202 "... and the repository on the token's host"

# Only the libraries of members count for the switch; an explicit value is kept.
_sql "DELETE FROM libraries WHERE created_by IS NOT NULL; DELETE FROM library_hosts"
ctxd_admin settings set fetch.allowed_networks "127.0.0.0/8"
_sql "DELETE FROM settings WHERE name = 'perm.members_use_integrations'"
before_15
migrate "an admin's wiki library, an explicit list"
is "$(setting_row perm.members_use_integrations)" "(unset)" \
    "an admin's wiki library alone does not open the switch"
is "$(setting_row fetch.allowed_networks)" "127.0.0.0/8" "an explicit list is kept as it was"
downgrade
_sql "INSERT INTO libraries (id, lib_no, source_type, url, host, title, created_at, updated_at)
    VALUES ('/websites/wiki_intra', 99, 'website', 'http://wiki/', 'wiki', 'w', '2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00Z')"
migrate "a website on a name without a dot"
is "$(setting_row fetch.allowed_networks)" "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7" \
    "an intranet name keeps the old list"

done_testing
