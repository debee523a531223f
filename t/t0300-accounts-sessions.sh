#!/usr/bin/env bash
# Accounts: the default admin/admin that must change its password, sessions (cookie
# attributes, CSRF token, logout, idle and absolute expiry, a password change ending the
# other sessions), login throttling per user and per address, ctxd-admin passwd and user.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq sqlite3 curl

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start
J='Content-Type: application/json'
S=$BASE/api/session

# login NAME PASSWORD [CURL ARGS...]: POST /api/session; prints the status.
login() {
	local u=$1 p=$2
	shift 2
	http POST "$S" -H "$J" --data "$(jq -cn --arg u "$u" --arg p "$p" \
	    '{username: $u, password: $p}')" "$@"
}
# cookie_of: the session token the last answer set.
cookie_of() {
	http_header Set-Cookie | sed -n 's/^ctxd_session=\([^;]*\).*/\1/p'
}
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }

# --- the default admin
is "$(_sql "SELECT name, role, must_change_password FROM users")" "admin|admin|1" \
    "a fresh instance has one admin that must change its password"
is "$(login admin wrong-password)" 401 "a wrong password is refused"
like "$(http_body | jq -r .error)" 'wrong user name or password' "without saying which was wrong"
is "$(login nosuchuser whatever-password)" 401 "an unknown user gets the same answer"
is "$(http_body | jq -r .error)" "wrong user name or password" "the same words"
is "$(login admin admin)" 200 "admin/admin signs in"
D=$(cookie_of)
DCSRF=$(http_body | jq -r .csrfToken)
is "$(http_body | jq -r .mustChangePassword)" true "the answer says the password must change"
setc=$(http_header Set-Cookie)
like "$setc" '^ctxd_session=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=[0-9]+$' \
    "the cookie is HttpOnly, SameSite=Strict, Path=/ (no Secure over plain HTTP)"
like "$DCSRF" '^[A-Za-z0-9_-]{43}$' "a CSRF token comes with it"
isnt "$DCSRF" "$D" "the CSRF token is not the cookie"
is "$(_sql "SELECT count(*) FROM sessions WHERE hash = '$(sha "$D")'")" 1 "the session is stored as the cookie's SHA-256"
is "$(_sql "SELECT count(*) FROM sessions WHERE hash = '$D'")" 0 "and not in the clear"
login admin admin -H 'X-Forwarded-Proto: https' >/dev/null
like "$(http_header Set-Cookie)" '; Secure$' "Secure when the request came over HTTPS (X-Forwarded-Proto)"
DC="Cookie: ctxd_session=$D"
is "$(http GET "$S" -H "$DC")" 200 "the default-password session reads itself"
is "$(http GET "$BASE/api/users" -H "$DC")" 403 "but may not list users"
like "$(http_body | jq -r .error)" 'password of admin must be changed first' "403 says the password must be changed"
is "$(http POST "$BASE/api/keys" -H "$DC" -H "X-CSRF-Token: $DCSRF" -H "$J" --data '{"name":"k"}')" 403 \
    "nor create a key"
like "$(http_body | jq -r .error)" 'must be changed first' "same reason"
is "$(http POST "$BASE/api/parse" -H "$DC" -H "X-CSRF-Token: $DCSRF" -H "$J" --data '{"repoUrl":"https://github.com/a/b"}')" 403 \
    "nor parse"
pw() { jq -cn --arg c "$1" --arg n "$2" '{currentPassword: $c, newPassword: $n}'; }
is "$(http POST "$BASE/api/password" -H "$DC" -H "$J" --data "$(pw admin 'first real password')")" 403 \
    "changing the password with a session needs the CSRF token"
like "$(http_body | jq -r .error)" 'X-CSRF-Token' "the error names the header"
is "$(http POST "$BASE/api/password" -H "$DC" -H "X-CSRF-Token: ${DCSRF}x" -H "$J" --data "$(pw admin 'first real password')")" 403 \
    "a wrong CSRF token is refused"
is "$(http POST "$BASE/api/password" -H "$DC" -H "X-CSRF-Token: $DCSRF" -H "$J" --data "$(pw admin short)")" 400 \
    "a short new password is refused"
like "$(http_body | jq -r .error)" 'at least 10 characters' "with the rule"
is "$(http POST "$BASE/api/password" -H "$DC" -H "X-CSRF-Token: $DCSRF" -H "$J" --data '{"currentPassword":"admin"}')" 400 \
    "a body without newPassword is refused"
is "$(http POST "$BASE/api/password" -H "$DC" -H "X-CSRF-Token: $DCSRF" -H "$J" --data '{"currentPassword":"admin","newPassword":"x1234567890","extra":1}')" 400 \
    "an unknown field is refused"
like "$(http_body | jq -r .error)" "unknown field 'extra'" "and named"
is "$(_sql "SELECT must_change_password FROM users WHERE name = 'admin'")" 1 "bad requests changed nothing"
# A second admin/admin session, to be ended by the change.
login admin admin >/dev/null
OTHER=$(cookie_of)
is "$(http POST "$BASE/api/password" -H "$DC" -H "X-CSRF-Token: $DCSRF" -H "$J" --data "$(pw admin 'first real password')")" 200 \
    "the default password is changed"
is "$(http GET "$BASE/api/users" -H "$DC")" 200 "now the session may do the rest"
is "$(http GET "$S" -H "Cookie: ctxd_session=$OTHER")" 401 "the change ended the admin's other session"
like "$(http_body | jq -r .error)" 'invalid' "401 says the session is invalid"
is "$(login admin admin)" 401 "admin/admin no longer signs in"
is "$(login ADMIN 'first real password')" 200 "the new password does (user names ignore case)"
is "$(http POST "$BASE/api/password" -H "$DC" -H "X-CSRF-Token: $DCSRF" -H "$J" --data "$(pw 'wrong current pw' 'second real password')")" 403 \
    "a wrong current password is refused"

# --- logout
login admin 'first real password' >/dev/null
L=$(cookie_of)
LCSRF=$(http_body | jq -r .csrfToken)
is "$(http DELETE "$S" -H "Cookie: ctxd_session=$L")" 403 "logout needs the CSRF token"
is "$(http GET "$S" -H "Cookie: ctxd_session=$L")" 200 "so the session still works"
is "$(http_body | jq -r .csrfToken)" "$LCSRF" "GET /api/session gives the same CSRF token again"
is "$(http DELETE "$S" -H "Cookie: ctxd_session=$L" -H "X-CSRF-Token: $LCSRF")" 200 "logout"
like "$(http_header Set-Cookie)" '^ctxd_session=; .*Max-Age=0' "logout clears the cookie"
is "$(http GET "$S" -H "Cookie: ctxd_session=$L")" 401 "the old cookie is dead server-side"
is "$(_sql "SELECT count(*) FROM sessions WHERE hash = '$(sha "$L")'")" 0 "its row is gone"

# --- expiry
login admin 'first real password' >/dev/null
E1=$(cookie_of)
login admin 'first real password' >/dev/null
E2=$(cookie_of)
_sql "UPDATE sessions SET last_seen = last_seen - 8 * 3600 - 5 WHERE hash = '$(sha "$E1")'"
is "$(http GET "$S" -H "Cookie: ctxd_session=$E1")" 401 "a session idle for 8 hours has expired"
_sql "UPDATE sessions SET created = created - 24 * 3600 - 5 WHERE hash = '$(sha "$E2")'"
is "$(http GET "$S" -H "Cookie: ctxd_session=$E2")" 401 "a session older than 24 hours has expired, used or not"
is "$(http GET "$S" -H "Cookie: ctxd_session=garbage")" 401 "a made-up cookie is refused"

# --- ctxd-admin passwd and user
login admin 'first real password' >/dev/null
P1=$(cookie_of)
printf 'console password 1\n' | ctxd_admin passwd admin >"$T/out" 2>&1
ok $? "ctxd-admin passwd reads the new password from stdin"
is "$(http GET "$S" -H "Cookie: ctxd_session=$P1")" 401 "and ends the user's sessions"
is "$(login admin 'first real password')" 401 "the old password is gone"
is "$(login admin 'console password 1')" 200 "the new one works"
printf 'short\n' | ctxd_admin passwd admin >"$T/out" 2>&1
isnt $? 0 "passwd refuses a short password"
printf 'tess password 1\n' | ctxd_admin user create tess >/dev/null 2>&1
ok $? "ctxd-admin user create"
printf 'member password 1\n' | ctxd_admin user create --temporary mo >/dev/null 2>&1
like "$(ctxd_admin user list)" 'mo	member	enabled,must-change-password' "a temporary password must be changed"
ctxd_admin user delete admin >"$T/out" 2>&1
isnt $? 0 "the last admin cannot be deleted"
like "$(cat "$T/out")" 'last enabled admin' "and ctxd-admin says why"

# --- disabled users
is "$(login tess 'tess password 1')" 200 "tess signs in"
TS=$(cookie_of)
TK=$(ctxd_admin key create --user tess laptop)
is "$(http GET "$BASE/api/keys" -H "Authorization: Bearer $TK")" 200 "tess's key works"
ctxd_admin user disable tess >/dev/null
is "$(http GET "$S" -H "Cookie: ctxd_session=$TS")" 401 "disabling a user ends their sessions"
is "$(http GET "$BASE/api/keys" -H "Authorization: Bearer $TK")" 401 "and their keys stop working"
is "$(login tess 'tess password 1')" 403 "a disabled user cannot sign in"
like "$(http_body | jq -r .error)" 'disabled' "and is told so"
ctxd_admin user enable tess >/dev/null
is "$(http GET "$BASE/api/keys" -H "Authorization: Bearer $TK")" 200 "enabled again, the key works again"

# --- throttling per user (from 127.0.0.8, so that 127.0.0.1 keeps few failures)
T8=(--interface 127.0.0.8)
for i in 1 2 3; do
	login tess "wrong password $i" "${T8[@]}" >/dev/null
done
is "$(http_body | jq -r .error)" "wrong user name or password" "three failures are plain 401s"
is "$(login tess 'tess password 1' "${T8[@]}")" 429 "the next attempt right away is slowed down: 429"
ra=$(http_header Retry-After)
like "$ra" '^[1-5]$' "with Retry-After of a few seconds"
like "$(http_body | jq -r .error)" "try again in $ra seconds" "the error says when"
is "$(login Tess 'tess password 1' "${T8[@]}")" 429 "the user name is counted whatever its case"
# Let the delays pass (moving the last failure back) until the lock at 10 failures.
back() { _sql "UPDATE login_throttle SET last_at = last_at - 400"; }
for i in 4 5 6 7 8 9 10; do
	back
	login tess "wrong password $i" "${T8[@]}" >/dev/null
done
back
is "$(login tess 'tess password 1' "${T8[@]}")" 429 \
    "after 10 failures from one address the user is refused there even with the right password"
ra=$(http_header Retry-After)
ok "$([ "$ra" -ge 800 ] && [ "$ra" -le 900 ]; echo $?)" "for 15 minutes (Retry-After $ra)"
like "$(grep -c 'failed sign-ins for tess from 1 address in the last 15 min' "$T/log/web.log")" '^1$' \
    "the log has an alert at 10 failed sign-ins for one user"
HK=$(ctxd_admin key create --admin health)
is "$(http GET "$BASE/api/health" -H "Authorization: Bearer $HK" | head -c0; http_body | jq -r '.alerts[]')" \
    "10 failed sign-ins for tess from 1 address in the last 15 min" "and so has the health report for admins"
is "$(http GET "$BASE/api/health"; http_body | jq -r 'has("alerts")')" "200false" "but not the anonymous one"
is "$(login admin 'console password 1')" 200 "other users are not affected"
is "$(login tess 'tess password 1' --interface 127.0.0.9)" 200 \
    "nor is the same user from another address: failures from one address cannot lock a user out"
is "$(login tess 'tess password 1' "${T8[@]}")" 429 "that sign-in does not lift the lock of the first address"
ctxd_admin user unlock tess >/dev/null
is "$(login tess 'tess password 1' "${T8[@]}")" 200 "ctxd-admin user unlock lifts the lock"

# --- guessing spread over many addresses: 3 failures from each of 10 addresses (none of
# them slowed down alone) reach the user's ceiling of 30, which slows the user down
for a in 10 11 12 13 14 15 16 17 18 19; do
	for i in 1 2 3; do
		login tess "spread guess $a $i" --interface "127.0.0.$a" >/dev/null
	done
done
is "$(http_body | jq -r .error)" "wrong user name or password" "30 failures spread over 10 addresses are plain 401s"
is "$(login tess 'tess password 1' --interface 127.0.0.20)" 429 \
    "then the user is slowed down from any address"
like "$(http_header Retry-After)" '^[1-5]$' "for a few seconds only (Retry-After), not locked"
is "$(http GET "$BASE/api/health" -H "Authorization: Bearer $HK" | head -c0; http_body | jq -r '.alerts[]')" \
    "30 failed sign-ins for tess from 10 addresses in the last 15 min" "the health report names the user and the addresses"
like "$(grep -c 'failed sign-ins for tess from 10 addresses' "$T/log/web.log")" '^1$' "as does the log"
back
is "$(login tess 'tess password 1' --interface 127.0.0.20)" 200 "once the delay passed the user signs in"

# --- throttling per client address (another loopback address: 127.0.0.7)
for i in 1 2 3 4 5 6 7 8 9 10; do
	login "someone$i" 'not the password' --interface 127.0.0.7 >/dev/null
done
is "$(login tess 'tess password 1' --interface 127.0.0.7)" 429 \
    "10 failures from one address (as 10 different users) slow that address down"
like "$(http_header Retry-After)" '^[0-9]+$' "with Retry-After"
is "$(login tess 'tess password 1')" 200 "another address is not affected"
like "$(grep -c 'failed sign-in as someone' "$T/log/web.log")" '^10$' "failed sign-ins are logged"

# --- no secret in any log or answer
ctxd_stop
secrets=("first real password" "console password 1" "tess password 1" "member password 1" "$D" "$DCSRF" "$L" "$LCSRF" "$TK" "$TS")
found=""
for s in "${secrets[@]}"; do
	grep -rqF -- "$s" "$T/log" && found="$found ${s:0:6}..."
done
is "$found" "" "no password, cookie, CSRF token or key appears in any log"

done_testing
