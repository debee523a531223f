#!/usr/bin/env bash
# Secrets at rest and in answers: a copy of the database without secret.key holds none of
# the secrets the test sets (provider keys, git tokens, passwords, API keys, session cookies,
# CSRF tokens); no API answer or log returns them after they were set.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq sqlite3 curl

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start
J='Content-Type: application/json'
secrets=()
rnd() { openssl rand -hex 12; }

# Provider keys and git tokens (sealed settings).
for s in ai.llm.api_key ai.embed.api_key git.github.token git.gitlab.token; do
	v="sk-$(rnd)"
	secrets+=("$v")
	printf '%s\n' "$v" | ctxd_admin settings set "$s" - || fail "set $s"
done
# Passwords, personal keys, cookies and CSRF tokens.
ADMIN_PASSWORD="admin pw $(rnd)"
ctxd_admin_session
secrets+=("$ADMIN_PASSWORD" "$ADMIN_CSRF" "$(sed -n 's/.*ctxd_session\t//p' "$ADMIN_JAR")")
BOB_PASSWORD="bob pw $(rnd)"
is "$(http POST "$BASE/api/users" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" \
    --data "$(jq -cn --arg p "$BOB_PASSWORD" '{name: "bob", password: $p, mustChangePassword: false}')")" 201 \
    "an admin creates bob"
unlike "$(http_body)" "$BOB_PASSWORD|scrypt" "the answer holds neither the password nor its hash"
BOB_CSRF=$(ctxd_login bob "$BOB_PASSWORD" "$T/cookies.bob") || fail "bob signs in"
secrets+=("$BOB_PASSWORD" "$BOB_CSRF" "$(sed -n 's/.*ctxd_session\t//p' "$T/cookies.bob")")
for i in 1 2; do
	http POST "$BASE/api/keys" -b "$T/cookies.bob" -H "X-CSRF-Token: $BOB_CSRF" -H "$J" \
	    --data "{\"name\":\"k$i\"}" >/dev/null
	secrets+=("$(http_body | jq -r .key)")
done
secrets+=("$(ctxd_admin key create --admin ops)" "$(ctxd_admin key create --user bob cli)")
NEW_BOB="bob new pw $(rnd)"
is "$(http POST "$BASE/api/password" -b "$T/cookies.bob" -H "X-CSRF-Token: $BOB_CSRF" -H "$J" \
    --data "$(jq -cn --arg c "$BOB_PASSWORD" --arg n "$NEW_BOB" '{currentPassword: $c, newPassword: $n}')")" 200 \
    "bob changes his password"
secrets+=("$NEW_BOB")
for s in "${secrets[@]}"; do
	[ -n "$s" ] || fail "a secret of the test is empty"
done
diag "${#secrets[@]} secrets set"

# Every answer that lists things.
answers=""
for path in /api/session /api/keys '/api/keys?all=true' /api/users /api/users/bob; do
	http GET "$BASE$path" -b "$ADMIN_JAR" >/dev/null
	# (GET /api/session gives a session its own CSRF token back, by design.)
	answers+=$(http_body | jq -c 'del(.csrfToken)')
done
http GET "$BASE/api/session" -b "$T/cookies.bob" >/dev/null
answers+=$(http_body | jq -c 'del(.csrfToken)')
found=""
for s in "${secrets[@]}"; do
	case $answers in *"$s"*) found="$found ${s:0:8}..." ;; esac
done
is "$found" "" "no list or read answer returns a password, key, cookie or other session's token"
unlike "$answers" 'scrypt|"hash"|"password"' "nor a password hash"

# A copy of the database (SQLite: its file with its WAL; PostgreSQL: a pg_dump, loaded into a
# database of its own) and nothing else: no secret in it, raw or dumped.
ctxd_stop
mkdir -p "$T/copy"
if [ "$(ctxd_test_engine)" = postgres ]; then
	"$_PG_BIN/pg_dump" "$DATABASE_URL" >"$T/copy/dump.sql" || fail "pg_dump"
	copy_url=${DATABASE_URL%/*}/ctxd_copy
	_sql "CREATE DATABASE ctxd_copy" &&
	    PGOPTIONS='-c client_min_messages=warning' "$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
	    "$copy_url" -f "$T/copy/dump.sql" >/dev/null || fail "the dump does not load"
	copy_sql() { DATABASE_URL=$copy_url _sql "$1"; }
else
	cp "$DATA_DIR"/ctxd.db* "$T/copy/"
	sqlite3 "$T/copy/ctxd.db" .dump >"$T/copy/dump.sql"
	copy_url=
	copy_sql() { sqlite3 "$T/copy/ctxd.db" "$1"; }
fi
ok "$([ ! -e "$T/copy/secret.key" ]; echo $?)" "the copy has no secret.key"
found=""
for s in "${secrets[@]}"; do
	grep -rqaF -- "$s" "$T/copy" && found="$found ${s:0:8}..."
done
is "$found" "" "the copied database (raw files and SQL dump) reveals none of the ${#secrets[@]} secrets"
is "$(copy_sql "SELECT count(*) FROM settings WHERE name IN ('ai.llm.api_key', 'ai.embed.api_key', 'git.github.token', 'git.gitlab.token') AND value LIKE 'v1:%'")" 4 \
    "provider keys and git tokens are sealed (AES-256-GCM)"
is "$(copy_sql "SELECT count(*) FROM users WHERE password NOT LIKE 'scrypt\$%'")" 0 \
    "every password is an scrypt hash"
is "$(copy_sql "SELECT count(*) FROM api_keys WHERE length(hash) != 64")" 0 \
    "every key is a SHA-256"
is "$(copy_sql "SELECT count(*) FROM sessions WHERE length(hash) != 64")" 0 \
    "every session is a SHA-256"
DATA_DIR=$T/copy DATABASE_URL=$copy_url ctxd_admin settings get ai.llm.api_key >"$T/copy.out" 2>&1
unlike "$(cat "$T/copy.out")" "${secrets[0]}" "without secret.key the copy cannot open a sealed setting"
# Nor does anything under DATA_DIR but secret.key, nor any log.
found=""
for s in "${secrets[@]}"; do
	grep -rqaF --exclude=secret.key -- "$s" "$DATA_DIR" "$T/log" && found="$found ${s:0:8}..."
done
is "$found" "" "no file in DATA_DIR (but secret.key) and no log holds a secret"

done_testing
