#!/usr/bin/env bash
# Permission matrix: every account endpoint, /api/parse and /api/v2/* with each kind of
# caller (no credential, member key, admin key, revoked key, session without and with its
# CSRF token, the default-password session), with perm.require_mcp_auth off and on. Keys are
# shown once; 401 errors say "missing" or "invalid"; last use of a key is recorded.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq sqlite3 curl

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start
J='Content-Type: application/json'

# The default-password session first (before the admin changes it).
DEF_JAR=$T/cookies.default
DEF_CSRF=$(ctxd_login admin admin "$DEF_JAR") || bail_out "admin/admin sign-in failed"

# creds WHO: the curl arguments of a caller.
creds() {
	case $1 in
	none) ;;
	mkey) printf '%s\n' -H "Authorization: Bearer $MKEY" ;;
	akey) printf '%s\n' -H "Authorization: Bearer $AKEY" ;;
	rkey) printf '%s\n' -H "Authorization: Bearer $RKEY" ;;
	nocsrf) printf '%s\n' -b "$ADMIN_JAR" ;;
	csrf) printf '%s\n' -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" ;;
	default) printf '%s\n' -b "$DEF_JAR" -H "X-CSRF-Token: $DEF_CSRF" ;;
	esac
}
WHO=(none mkey akey rkey nocsrf csrf default)
n=0
# row METHOD PATH BODY EXPECT...: one endpoint against every caller in WHO (EXPECT "-" skips).
row() {
	local method=$1 path=$2 body=$3 i code args want
	shift 3
	want=("$@")
	for i in "${!WHO[@]}"; do
		[ "${want[$i]}" = - ] && continue
		n=$((n + 1))
		mapfile -t args < <(creds "${WHO[$i]}")
		# Unique names, so that creating twice is not a conflict.
		local b=${body//@N@/$n}
		if [ -n "$b" ]; then
			code=$(http "$method" "$BASE$path" "${args[@]}" -H "$J" --data "$b")
		else
			code=$(http "$method" "$BASE$path" "${args[@]}")
		fi
		is "$code" "${want[$i]}" "$method $path as ${WHO[$i]}" ||
		    diag "$(http_body)"
		case $code in
		401)
			like "$(http_body | jq -r .error)" 'missing|invalid' \
			    "$method $path as ${WHO[$i]}: 401 says missing or invalid"
			# /api/v2 and /mcp name their realm (ACCESS_READER, lib/http/access.c).
			like "$(http_header WWW-Authenticate)" '^Bearer( realm="ctxd".*)?$' \
			    "$method $path as ${WHO[$i]}: WWW-Authenticate: Bearer" ;;
		esac
	done
}

# The default-password session's row, while the password is still the default one.
WHO=(default)
row GET /api/session "" 200
is "$(http_body | jq -r .mustChangePassword)" true "the default session is told to change the password"
row GET /api/keys "" 403
like "$(http_body | jq -r .error)" 'must be changed first' "the 403 says the password must be changed"
row POST /api/keys '{"name":"k@N@"}' 403
row DELETE /api/keys/999999 "" 403
row GET /api/users "" 403
row POST /api/users '{"name":"u@N@","password":"user password 1"}' 403
row GET /api/users/admin "" 403
row PATCH /api/users/admin '{"role":"admin"}' 403
row DELETE /api/users/nobody "" 403
row POST /api/password '{}' 400
row POST /api/parse '{"repoUrl":"https://github.com/a/b"}' 403
row GET '/api/v2/libs/search?libraryName=b' "" 200
row GET '/api/v2/context?libraryId=/a/b&query=x' "" 404

ctxd_admin_session
is "$(http GET "$BASE/api/session" -b "$DEF_JAR")" 401 "changing the password ended the admin's other session"
is "$(http POST "$BASE/api/users" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" \
    --data '{"name":"mia","password":"mia password 1","mustChangePassword":false}')" 201 "the admin creates member mia"
is "$(http_body | jq -r .role)" member "members by default"
MIA_JAR=$T/cookies.mia
MIA_CSRF=$(ctxd_login mia 'mia password 1' "$MIA_JAR") || bail_out "mia cannot sign in"

# Keys: shown once, listed without their value.
is "$(http POST "$BASE/api/keys" -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF" -H "$J" --data '{"name":"mia laptop"}')" 201 \
    "mia creates a personal key"
MKEY=$(http_body | jq -r .key)
MKEY_ID=$(http_body | jq -r .id)
like "$MKEY" '^ctxd_[A-Za-z0-9_-]{43}$' "the key has the ctxd_ prefix and 43 random characters"
is "$(http_body | jq -r .admin)" false "a member's key is not an admin key"
is "$(http GET "$BASE/api/keys" -b "$MIA_JAR")" 200 "mia lists her keys"
is "$(http_body | jq -r '.keys[0] | "\(.name) \(.prefix) \(.lastUsedAt)"')" "mia laptop ${MKEY:0:12} null" \
    "the list has name, prefix, last use"
is "$(http_body | jq -r '.keys[0] | has("createdAt")')" true "and creation time"
unlike "$(http_body)" "${MKEY:12}" "the list never holds the key's value"
unlike "$(http_body)" "$(printf '%s' "$MKEY" | sha256sum | cut -d' ' -f1)" "nor its hash"
is "$(http POST "$BASE/api/keys" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"name":"admin laptop"}')" 201 \
    "the admin creates a personal key"
AKEY=$(http_body | jq -r .key)
is "$(http_body | jq -r .admin)" true "an admin's key is an admin key"
is "$(http POST "$BASE/api/keys" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"name":"to revoke"}')" 201 \
    "and one more"
RKEY=$(http_body | jq -r .key)
RKEY_ID=$(http_body | jq -r .id)
is "$(http DELETE "$BASE/api/keys/$MKEY_ID" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF")" 200 \
    "an admin may revoke anyone's key..."
_sql "UPDATE api_keys SET revoked_at = NULL WHERE id = $MKEY_ID"
is "$(http DELETE "$BASE/api/keys/$RKEY_ID" -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF")" 404 \
    "a member may not revoke another user's key"
is "$(http DELETE "$BASE/api/keys/$RKEY_ID" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF")" 200 "the owner revokes it"
is "$(http DELETE "$BASE/api/keys/$RKEY_ID" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF")" 404 "a revoked key cannot be revoked again"
is "$(http GET "$BASE/api/keys" -b "$ADMIN_JAR")" 200 "the admin lists his keys"
is "$(http_body | jq -r '[.keys[] | select(.revokedAt != null)] | length')" 1 "the revoked key is listed as revoked"
is "$(http GET "$BASE/api/keys?all=true" -b "$ADMIN_JAR")" 200 "an admin lists every key"
is "$(http_body | jq -r '[.keys[].owner] | unique | join(",")')" "admin,mia" "with their owners"
is "$(http GET "$BASE/api/keys?all=true" -b "$MIA_JAR")" 403 "a member may not"
is "$(http POST "$BASE/api/keys" -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF" -H "$J" --data '{"name":""}')" 400 \
    "a key needs a name"
is "$(http POST "$BASE/api/keys" -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF" -H "$J" --data '{"name":5}')" 400 \
    "a string name"
is "$(http POST "$BASE/api/keys" -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF" --data '{"name":"x"}')" 415 \
    "in a JSON body"

# The matrix, perm.require_mcp_auth off (the default).
WHO=(none mkey akey rkey nocsrf csrf)
#                                                                     none mkey akey rkey nocsrf csrf
row GET /api/session "" 200 200 200 401 200 200
row GET /api/keys "" 401 200 200 401 200 200
row POST /api/keys '{"name":"k@N@"}' 401 201 201 401 403 201
row DELETE /api/keys/999999 "" 401 404 404 401 403 404
row GET /api/users "" 401 403 200 401 200 200
row POST /api/users '{"name":"u@N@","password":"user password 1"}' 401 403 201 401 403 201
row GET /api/users/mia "" 401 403 200 401 200 200
row PATCH /api/users/mia '{"role":"member"}' 401 403 200 401 403 200
row DELETE /api/users/nobody "" 401 403 404 401 403 404
row POST /api/password '{}' 401 400 400 401 403 400
row DELETE /api/session "" 401 400 400 401 403 -
row POST /api/parse '{"repoUrl":"https://github.com/a/b"}' 401 202 202 401 403 202
row GET '/api/v2/libs/search?libraryName=b' "" 200 200 200 200 200 200
row GET '/api/v2/context?libraryId=/a/b&query=x' "" 202 202 202 202 202 202
ctxd_admin settings set perm.anonymous_parse true
row POST /api/parse '{"repoUrl":"https://github.com/a/b"}' 202 202 202 202 202 202
ctxd_admin settings set perm.anonymous_parse false

# The matrix, perm.require_mcp_auth on: /api/v2 needs a personal key (a session is no key).
ctxd_admin settings set perm.require_mcp_auth true
row GET '/api/v2/libs/search?libraryName=b' "" 401 200 200 401 401 401
row GET '/api/v2/context?libraryId=/a/b&query=x' "" 401 202 202 401 401 401
http GET "$BASE/api/v2/context?libraryId=/a/b&query=x" >/dev/null
like "$(http_body | jq -r .error)" 'API key is missing' "401 without a key says missing"
http GET "$BASE/api/v2/context?libraryId=/a/b&query=x" -H "Authorization: Bearer $RKEY" >/dev/null
like "$(http_body | jq -r .error)" 'API key is invalid' "401 with a revoked key says invalid"
http GET "$BASE/api/v2/context?libraryId=/a/b&query=x" -H "Authorization: Bearer ctxd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" >/dev/null
is "$(http_body | jq -r .error)" "$(http GET "$BASE/api/v2/context?libraryId=/a/b&query=x" -H "Authorization: Bearer $RKEY" >/dev/null; http_body | jq -r .error)" \
    "an unknown key and a revoked key get the same answer"
row POST /api/parse '{"repoUrl":"https://github.com/a/b"}' 401 202 202 401 403 202
ctxd_admin settings set perm.require_mcp_auth false
is "$(http GET "$BASE/api/v2/libs/search?libraryName=b")" 200 "require off again: no key needed"

# Last use: recorded by the read-only query responder too (a key never used on ctxd-web).
is "$(http POST "$BASE/api/keys" -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF" -H "$J" --data '{"name":"mcp"}')" 201 \
    "mia creates a key for her MCP client"
QKEY=$(http_body | jq -r .key)
QKEY_ID=$(http_body | jq -r .id)
is "$(_sql "SELECT count(*) FROM api_keys WHERE id = $QKEY_ID AND last_used_at IS NULL")" 1 "never used yet"
ctxd_admin settings set perm.require_mcp_auth true
is "$(http GET "$BASE/api/v2/libs/search?libraryName=b" -H "Authorization: Bearer $QKEY")" 200 "the key queries /api/v2"
like "$(_sql "SELECT last_used_at FROM api_keys WHERE id = $QKEY_ID")" '^20[0-9-]+T' \
    "and ctxd-query recorded its last use"
is "$(http GET "$BASE/api/keys" -b "$MIA_JAR")" 200 "mia lists her keys"
like "$(http_body | jq -r '.keys[] | select(.name == "mcp") | .lastUsedAt')" '^20[0-9-]+T' \
    "and sees when the key was last used"

# Operator keys (ctxd-admin key create) keep working and have no user.
OKEY=$(ctxd_admin key create --admin ops)
MOKEY=$(ctxd_admin key create reader)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $OKEY" -H "$J" --data '{"repoUrl":"https://github.com/a/b"}')" 202 \
    "an operator admin key parses"
is "$(http GET "$BASE/api/users" -H "Authorization: Bearer $OKEY")" 200 "and manages users"
is "$(http GET "$BASE/api/users" -H "Authorization: Bearer $MOKEY")" 403 "an operator member key does not"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=b" -H "Authorization: Bearer $MOKEY")" 200 \
    "but queries with require on"
is "$(http POST "$BASE/api/password" -H "Authorization: Bearer $OKEY" -H "$J" --data '{}')" 403 \
    "an operator key has no password to change"

# Roles: a member made admin has admin keys at once; demoted, not any more.
is "$(http PATCH "$BASE/api/users/mia" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"role":"admin"}')" 200 \
    "mia becomes an admin"
is "$(http GET "$BASE/api/users" -H "Authorization: Bearer $MKEY")" 200 "her key is now an admin key"
is "$(http PATCH "$BASE/api/users/mia" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"role":"member"}')" 200 \
    "and a member again"
is "$(http GET "$BASE/api/users" -H "Authorization: Bearer $MKEY")" 403 "her key is a member key again"
is "$(http PATCH "$BASE/api/users/mia" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"role":"boss"}')" 400 \
    "an unknown role is refused"
is "$(http PATCH "$BASE/api/users/admin" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"disabled":true}')" 409 \
    "an admin cannot disable himself"
is "$(http DELETE "$BASE/api/users/admin" -H "Authorization: Bearer $OKEY")" 409 "nor can the last admin be deleted"
like "$(http_body | jq -r .error)" 'last enabled admin' "which the error says"
is "$(http POST "$BASE/api/users" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"name":"MIA","password":"other password 1"}')" 409 \
    "user names are unique whatever their case"
is "$(http POST "$BASE/api/users" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"name":"bad name","password":"other password 1"}')" 400 \
    "a user name has no spaces"
# An admin resets mia's password: her sessions end and she must change it.
is "$(http PATCH "$BASE/api/users/mia" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"password":"reset password 1"}')" 200 \
    "an admin resets mia's password"
is "$(http_body | jq -r .mustChangePassword)" true "she must change it at her next sign-in"
is "$(http GET "$BASE/api/session" -b "$MIA_JAR")" 401 "her session is ended"
# Deleting a user removes her keys and sessions.
is "$(http DELETE "$BASE/api/users/mia" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF")" 200 "the admin deletes mia"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=b" -H "Authorization: Bearer $MKEY")" 401 "her key is gone"
is "$(_sql "SELECT count(*) FROM api_keys WHERE id = $MKEY_ID")" 0 "with its row"

done_testing
