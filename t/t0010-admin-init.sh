#!/usr/bin/env bash
# ctxd-admin: init (database, WAL, schema version, secret key), settings, API keys, and the
# refusal of a database newer than the build. On PostgreSQL (CTXD_TEST_ENGINE=postgres) the
# same: the schema in the database of DATABASE_URL (no SQLite file), a database at
# PostgreSQL's first schema version migrated with its rows kept, a newer one refused.
. "$top_srcdir/t/lib/harness.sh"
require_cmd sqlite3

ctxd_setup
if [ "$(ctxd_test_engine)" = sqlite ]; then
	ok "$([ -f "$DATA_DIR/ctxd.db" ]; echo $?)" "init creates ctxd.db"
else
	is "$(_sql 'SELECT count(*) FROM ctxd_schema')" 1 "init creates the schema in PostgreSQL"
fi
is "$(stat -c %a "$DATA_DIR/secret.key")" 600 "secret.key is 0600"
is "$(stat -c %s "$DATA_DIR/secret.key")" 32 "secret.key holds 32 bytes"
is "$(schema_version)" "$SCHEMA_VERSION" "schema version recorded (user_version, ctxd_schema)"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	is "$(_sql 'PRAGMA journal_mode')" wal "database in WAL mode"
else
	ok "$([ ! -e "$DATA_DIR/ctxd.db" ]; echo $?)" "no SQLite file in DATA_DIR"
fi
sum=$(md5sum <"$DATA_DIR/secret.key")
out=$(ctxd_admin init 2>/dev/null)
ok $? "init is idempotent"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	like "$out" "^initialised $DATA_DIR \\(database ctxd\\.db, schema version $SCHEMA_VERSION," \
	    "init names the database it made"
else
	like "$out" "^initialised $DATA_DIR \\(secret\\.key\\) and the PostgreSQL database at host .* \\(schema version $SCHEMA_VERSION\\)$" \
	    "init names the database it made"
fi
is "$(md5sum <"$DATA_DIR/secret.key")" "$sum" "a second init keeps the secret key"

# Settings: secrets are sealed and write-only.
printf 'ghp_SuperSecretToken123\n' | ctxd_admin settings set git.github.token - 2>"$T/err"
ok $? "set a secret from stdin"
is "$(ctxd_admin settings get git.github.token)" "(set)" "a secret reads back as (set)"
stored=$(_sql "SELECT value FROM settings WHERE name = 'git.github.token'")
like "$stored" '^v1:' "the secret is stored sealed"
unlike "$stored" 'SuperSecret' "the plain token is not in the database"
ok "$(grep -rqa SuperSecret "$DATA_DIR"; echo $((1 - $?)))" "no file in DATA_DIR holds the plain token"
like "$(ctxd_admin settings list)" 'git\.github\.token = \(set\)' "list shows (set)"
unlike "$(ctxd_admin settings list)" 'SuperSecret' "list never shows the token"
ctxd_admin settings set git.gitlab.host git.example.com:8443
is "$(ctxd_admin settings get git.gitlab.host)" git.example.com:8443 "plain setting reads back"
is "$(ctxd_admin settings get git.github.host)" github.com "default host"
ctxd_admin settings set perm.anonymous_parse yes 2>"$T/err"
isnt $? 0 "a boolean must be true or false"
like "$(cat "$T/err")" 'perm.anonymous_parse must be true or false' "the error names the setting"
ctxd_admin settings set no.such.setting 1 2>"$T/err"
isnt $? 0 "unknown setting refused"
like "$(cat "$T/err")" "unknown setting 'no.such.setting'" "unknown setting named"
ctxd_admin settings set limits.max_files 0 2>"$T/err"
isnt $? 0 "a number out of range refused"
ctxd_admin settings set ai.llm.provider anthropic
is "$(ctxd_admin settings get ai.llm.provider)" anthropic "an AI provider setting reads back"
ctxd_admin settings set ai.llm.provider openia 2>"$T/err"
isnt $? 0 "an unknown vendor is refused"
like "$(cat "$T/err")" 'ai.llm.provider must be one of openai\|anthropic\|gemini\|bedrock\|custom' \
    "the error lists the vendors"
is "$(ctxd_admin settings get ai.embed.provider)" same "embeddings default to the LLM provider"
ctxd_admin settings set ai.llm.base_url 'ftp://x' 2>"$T/err"
isnt $? 0 "a base URL must be http(s)"
ctxd_admin settings unset git.gitlab.host
is "$(ctxd_admin settings get git.gitlab.host)" gitlab.com "unset goes back to the default"

# API keys are shown once and stored hashed.
key=$(ctxd_admin key create --admin ops)
like "$key" '^ctxd_[A-Za-z0-9_-]{43}$' "admin key format"
is "$(_sql "SELECT count(*) FROM api_keys WHERE hash = '$(printf '%s' "$key" | sha256sum | cut -d' ' -f1)' AND admin = 1")" 1 \
    "the key's SHA-256 is stored, marked admin"
is "$(_sql "SELECT count(*) FROM api_keys WHERE hash LIKE '%$key%' OR prefix = '$key'")" 0 \
    "the key itself is not stored"
ctxd_admin key create 2>/dev/null
isnt $? 0 "key create needs a name"

# A version 1 database (sql/schema.sql as the first release wrote it) is migrated by every
# migration in order, its rows kept. On PostgreSQL: a database at its first version
# (sql/pg/schema.sql), in a database of its own.
OLD_LIB="INSERT INTO libraries (id, lib_no, url, host, title, branch, settings, created_at,
    updated_at) VALUES ('/old/lib', 1, 'https://example.org/old/lib', 'example.org', 'lib',
    'main', '{}', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')"
v1=$T/v1
mkdir -p "$v1" && chmod 700 "$v1"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	# (The sqlite3 shell lacks ctxd's FTS tokenizer: the v1 file gets FTS5's own for this.)
	sed "s/tokenize = 'porter ctxd'/tokenize = 'porter unicode61'/" "$top_srcdir/sql/schema.sql" |
	    sqlite3 "$v1/ctxd.db" && sqlite3 "$v1/ctxd.db" "PRAGMA user_version = 1; $OLD_LIB" 2>"$T/err"
	ok $? "a version 1 database made from sql/schema.sql"
	v1_sql() { DATA_DIR=$v1 _sql "$1"; }
	v1_env=(DATA_DIR="$v1")
	v1_version() { DATA_DIR=$v1 schema_version; }
else
	v1_url=${DATABASE_URL%/*}/ctxd_v1
	_sql "CREATE DATABASE ctxd_v1" && DATABASE_URL=$v1_url _sql "$(cat "$top_srcdir/sql/pg/schema.sql")
	    $OLD_LIB" 2>"$T/err"
	ok $? "a database at PostgreSQL's first version made from sql/pg/schema.sql"
	v1_sql() { DATABASE_URL=$v1_url _sql "$1"; }
	v1_env=(DATA_DIR="$v1" DATABASE_URL="$v1_url")
	v1_version() { DATABASE_URL=$v1_url schema_version; }
	first=$(v1_version)
fi
cp "$DATA_DIR/secret.key" "$v1/secret.key"
env "${v1_env[@]}" "$top_builddir/ctxd-admin" init >"$T/out" 2>&1
ok $? "init migrates it"
is "$(v1_version)" "$SCHEMA_VERSION" "to this build's version"
is "$(v1_sql "SELECT url || ' ' || coalesce(CAST(created_by AS text), 'none') FROM libraries")" \
    "https://example.org/old/lib none" "the library kept, with no creator (version 2)"
if [ "$(ctxd_test_engine)" = sqlite ]; then
	is "$(v1_sql 'PRAGMA integrity_check')" ok "the migrated database is sound"
else
	is "$(v1_sql "SELECT from_version || ' ' || to_version FROM schema_history")" \
	    "$first $SCHEMA_VERSION" "the migration is in schema_history"
fi

# A database newer than the build is refused, with a message saying so.
schema_version 99
ctxd_admin init >"$T/out" 2>&1
isnt $? 0 "init refuses a newer schema"
like "$(cat "$T/out")" 'schema version 99, newer than this build' "the refusal says why"
REQUEST_METHOD=GET QUERY_STRING='libraryName=x' DOCUMENT_URI=/api/v2/libs/search \
    "$top_builddir/ctxd-query" >"$T/out" 2>&1 </dev/null
isnt $? 0 "ctxd-query refuses a newer schema"
like "$(cat "$T/out")" 'newer than this build' "ctxd-query says why"

done_testing
