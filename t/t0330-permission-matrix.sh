#!/usr/bin/env bash
# Permission matrix of the admin API (fcgi/web.c's route table), /api/parse, /api/v2/* and /mcp: every
# endpoint against every kind of caller (no credential, member key, admin key, revoked key,
# admin session without and with its CSRF token, member session, the default-password
# session), with the perm.anonymous_* switches off and on and perm.require_mcp_auth off and
# on; one TAP line per cell. (The account API's matrix is t0310.) State-changing cells work
# on a nonexistent library or job where a 404 shows that authorization passed, so that no
# cell destroys what the others read. Last: no answer of the whole matrix holds a key, a
# password, a cookie value, a CSRF token or a secret setting the test used.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq sqlite3 curl tar

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start
J='Content-Type: application/json'
BODIES=$T/bodies.all
: >"$BODIES"
GL_SECRET=glpat-matrix-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')

# Fixtures, made with an operator key (no user, so untouched by the admin's password
# change): library /a/b (state initial: the worker is /bin/true) and its queued index job.
OKEY=$(ctxd_admin key create --admin fixtures)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $OKEY" -H "$J" \
    --data '{"repoUrl":"https://github.com/a/b"}')" 202 "fixture: library /a/b queued"
JOB=$(http_body | jq -r .jobId)
like "$JOB" '^[0-9]+$' "fixture: its job id"

# The default-password session must be opened before the admin changes the password.
DEF_JAR=$T/cookies.default
DEF_CSRF=$(ctxd_login admin admin "$DEF_JAR") || bail_out "admin/admin sign-in failed"

# Every caller (a column of the matrix), its name in the TAP lines and its curl arguments.
ALL=(none mkey akey rkey nocsrf csrf msess default)
declare -A NAME=([none]="no credential" [mkey]="member key" [akey]="admin key"
    [rkey]="revoked key" [nocsrf]="admin session without CSRF token"
    [csrf]="admin session with CSRF token" [msess]="member session"
    [default]="default-password session")
creds() {
	case $1 in
	none) ;;
	mkey) printf '%s\n' -H "Authorization: Bearer $MKEY" ;;
	akey) printf '%s\n' -H "Authorization: Bearer $AKEY" ;;
	rkey) printf '%s\n' -H "Authorization: Bearer $RKEY" ;;
	nocsrf) printf '%s\n' -b "$ADMIN_JAR" ;;
	csrf) printf '%s\n' -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" ;;
	msess) printf '%s\n' -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF" ;;
	default) printf '%s\n' -b "$DEF_JAR" -H "X-CSRF-Token: $DEF_CSRF" ;;
	esac
}

# collect: append the last answer's body to $BODIES (a tar.gz unpacked) for the final check.
collect() {
	if [ "$(head -c 2 "$T/http.body" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		tar -xzOf "$T/http.body" >>"$BODIES" 2>/dev/null ||
		    echo "(a gzip answer that does not unpack)" >>"$BODIES"
	else
		cat "$T/http.body" >>"$BODIES"
	fi
	echo >>"$BODIES"
}

# row METHOD PATH BODY EXPECT x 8: one endpoint against the callers in WHO; EXPECT is in the
# order of ALL. A 401 must come with WWW-Authenticate: Bearer.
WHO=()
row() {
	local method=$1 path=$2 body=$3 i who code args
	shift 3
	local want=("$@")
	[ "${#want[@]}" -eq "${#ALL[@]}" ] || bail_out "row $method $path: ${#want[@]} columns"
	for i in "${!ALL[@]}"; do
		who=${ALL[$i]}
		[[ " ${WHO[*]} " == *" $who "* ]] || continue
		mapfile -t args < <(creds "$who")
		case $path in
		/mcp) args+=(-H 'Accept: application/json, text/event-stream') ;;
		esac
		if [ -n "$body" ]; then
			code=$(http "$method" "$BASE$path" "${args[@]}" -H "$J" --data-binary "$body")
		else
			code=$(http "$method" "$BASE$path" "${args[@]}")
		fi
		collect
		if [ "$code" = 401 ] && [[ ! $(http_header WWW-Authenticate) =~ ^Bearer ]]; then
			code="401 without WWW-Authenticate: Bearer"
		fi
		is "$code" "${want[$i]}" "$method ${path%%\?*}${SUFFIX:-}, ${NAME[$who]}: ${want[$i]}" ||
		    diag "$(head -c 400 "$T/http.body")"
	done
}
set_() { ctxd_admin settings set "$1" "$2" >/dev/null || bail_out "settings set $1 $2"; }

PING='{"jsonrpc":"2.0","id":1,"method":"ping"}'
SETTINGS_BODY="{\"git.gitlab.token\":\"$GL_SECRET\"}"
# The whole matrix. Columns: none mkey akey rkey nocsrf csrf msess default.
matrix() {
	SUFFIX=""
	# Public: no credential needed, a bad one is not even looked at.
	row GET /api/health "" 200 200 200 200 200 200 200 200
	row GET /api/ready "" 200 200 200 200 200 200 200 200
	row GET /api/client-config "" 200 200 200 200 200 200 200 200
	# Admin only.
	row GET /api/settings "" 401 403 200 401 200 200 403 403
	row GET /api/license "" 401 403 200 401 200 200 403 403
	row POST /api/license '{"key":"not-a-key"}' 401 403 400 401 403 400 403 403
	row PUT /api/settings "$SETTINGS_BODY" 401 403 200 401 403 200 403 403
	row PATCH /api/settings "$SETTINGS_BODY" 401 403 200 401 403 200 403 403
	row GET /api/setup "" 401 403 200 401 200 200 403 403
	row POST /api/setup/git-tokens "$SETTINGS_BODY" 401 403 200 401 403 200 403 403
	row POST /api/setup/embedding/skip "" 401 403 200 401 403 200 403 403
	row POST /api/providers/test '{"kind": "llm"}' 401 403 200 401 403 200 403 403
	row POST /api/upstream/test '{}' 401 403 200 401 403 200 403 403
	row GET /api/libraries "" 401 403 200 401 200 200 403 403
	row GET /api/libraries/a/b "" 401 403 200 401 200 200 403 403
	row PATCH /api/libraries/a/b '{"description":"the a/b library"}' 401 403 200 401 403 200 403 403
	row GET /api/libraries/a/b/flagged "" 401 200 200 401 200 200 200 403
	row GET /api/libraries/a/b/snippets "" 401 403 200 401 200 200 403 403
	row GET "/api/libraries/a/b/explain?query=x" "" 401 403 202 401 202 202 403 403
	row GET /api/jobs "" 401 403 200 401 200 200 403 403
	row GET "/api/jobs/$JOB" "" 401 403 200 401 200 200 403 403
	row GET "/api/jobs/$JOB/log" "" 401 403 200 401 200 200 403 403
	row POST /api/jobs/999999/cancel "" 401 403 404 401 403 404 403 403
	row GET /api/gitops/status "" 401 403 200 401 200 200 403 403
	row PUT /api/gitops/config '{"prune":false}' 401 403 200 401 403 200 403 403
	row POST '/api/gitops/reconcile?wait=0' "" 401 403 202 401 403 202 403 403
	row GET /api/policies "" 401 403 200 401 200 200 403 403
	row PUT /api/policies '{"other":true}' 401 403 200 401 403 200 403 403
	row POST /api/policies/try '{"libraryId":"/a/b"}' 401 403 200 401 403 200 403 403
	row GET /api/policies/audit "" 401 403 200 401 200 200 403 403
	# Permissioned, switches off: any user's key or session (+ CSRF token); the support
	# bundle, which holds settings and job logs, an admin's.
	row POST /api/libraries/a/b/refresh "" 401 202 202 401 403 202 202 403
	row DELETE /api/libraries/nobody/none "" 401 404 404 401 403 404 404 403
	row GET /api/support-bundle "" 401 403 200 401 200 200 403 403
	row POST /api/parse '{"repoUrl":"https://github.com/a/b"}' 401 202 202 401 403 202 202 403
	# The other ways of adding a source, with a body that does not validate: a 400 shows
	# that authorization let the call through.
	row POST /api/libraries '{}' 401 400 400 401 403 400 400 403
	row POST /api/parse-website '{}' 401 400 400 401 403 400 400 403
	row POST /api/parse-openapi '{}' 401 400 400 401 403 400 400 403
	row POST /api/parse-openapi-upload '{}' 401 415 415 401 403 415 415 403
	row GET /api/sources/types "" 401 200 200 401 200 200 200 403
	# Switches on: anyone, whatever credential comes along.
	set_ perm.anonymous_refresh true
	set_ perm.anonymous_delete true
	set_ perm.anonymous_support_bundle true
	set_ perm.anonymous_parse true
	SUFFIX=" (anonymous on)"
	row POST /api/libraries/a/b/refresh "" 202 202 202 202 202 202 202 202
	row DELETE /api/libraries/nobody/none "" 404 404 404 404 404 404 404 404
	row GET /api/support-bundle "" 200 200 200 200 200 200 200 200
	row POST /api/parse '{"repoUrl":"https://github.com/a/b"}' 202 202 202 202 202 202 202 202
	row POST /api/libraries '{}' 400 400 400 400 400 400 400 400
	row POST /api/parse-website '{}' 400 400 400 400 400 400 400 400
	row POST /api/parse-openapi '{}' 400 400 400 400 400 400 400 400
	row POST /api/parse-openapi-upload '{}' 415 415 415 415 415 415 415 415
	row GET /api/sources/types "" 200 200 200 200 200 200 200 200
	# The switches are per operation: the admin-only calls stay admin-only.
	row GET /api/jobs "" 401 403 200 401 200 200 403 403
	set_ perm.anonymous_refresh false
	set_ perm.anonymous_delete false
	set_ perm.anonymous_support_bundle false
	set_ perm.anonymous_parse false
	# The query paths and /mcp, require off: no credential needed.
	SUFFIX=" (require off)"
	row GET '/api/v2/libs/search?libraryName=b' "" 200 200 200 200 200 200 200 200
	row GET '/api/v2/context?libraryId=/a/b&query=x' "" 202 202 202 202 202 202 202 202
	row POST /mcp "$PING" 200 200 200 200 200 200 200 200
	# Require on: a valid personal key; a session is no key.
	set_ perm.require_mcp_auth true
	SUFFIX=" (require on)"
	row GET '/api/v2/libs/search?libraryName=b' "" 401 200 200 401 401 401 401 401
	row GET '/api/v2/context?libraryId=/a/b&query=x' "" 401 202 202 401 401 401 401 401
	row POST /mcp "$PING" 401 200 200 401 401 401 401 401
	row GET /api/client-config "" 200 200 200 200 200 200 200 200
	set_ perm.require_mcp_auth false
	SUFFIX=""
}

# The default-password session's column, while the password is still the default one.
WHO=(default)
matrix

# The other callers: the admin changes the password (ending the default session), creates
# member mia, and each makes keys; one of the admin's keys is revoked.
ctxd_admin_session
is "$(http GET "$BASE/api/session" -b "$DEF_JAR")" 401 "changing the password ended the default session"
MIA_PASSWORD="mia password $RANDOM$RANDOM"
is "$(http POST "$BASE/api/users" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" \
    --data "$(jq -cn --arg p "$MIA_PASSWORD" '{name: "mia", password: $p, mustChangePassword: false}')")" 201 \
    "the admin creates member mia"
MIA_JAR=$T/cookies.mia
MIA_CSRF=$(ctxd_login mia "$MIA_PASSWORD" "$MIA_JAR") || bail_out "mia cannot sign in"
newkey() { # JAR CSRF NAME: a personal key of the session's user
	[ "$(http POST "$BASE/api/keys" -b "$1" -H "X-CSRF-Token: $2" -H "$J" --data "{\"name\":\"$3\"}")" = 201 ] ||
	    bail_out "key $3: $(http_body)"
	http_body | jq -r .key
}
MKEY=$(newkey "$MIA_JAR" "$MIA_CSRF" mia)
AKEY=$(newkey "$ADMIN_JAR" "$ADMIN_CSRF" admin)
RKEY=$(newkey "$ADMIN_JAR" "$ADMIN_CSRF" revoked)
RKEY_ID=$(http_body | jq -r .id)
is "$(http DELETE "$BASE/api/keys/$RKEY_ID" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF")" 200 "a key is revoked"

WHO=(none mkey akey rkey nocsrf csrf msess)
matrix

# The matrix's effects: the refused calls changed nothing, the allowed ones what they should.
is "$(_sql "SELECT count(*) FROM libraries")" 1 "no cell created or deleted a library"
is "$(_sql "SELECT state FROM jobs WHERE id = $JOB")" queued "the fixture job is still queued"
is "$(_sql "SELECT value FROM settings WHERE name = 'setup.embedding'")" skipped "the embedding step was skipped"
is "$(http GET "$BASE/api/settings" -H "Authorization: Bearer $AKEY")" 200 "the settings read back"
is "$(http_body | jq -c '.settings["git.gitlab.token"] | [.secret, .set, has("value")]')" '[true,true,false]' \
    "the GitLab token a cell set is set, shown only as set"
collect

# Deleting a library, then adding its id again from another source host (a member must not
# be able to swap the source behind an id that agents use). Sources on 127.0.0.1:9 and
# 127.0.0.2:9 (nothing listens: their index jobs fail at once) derive the same ids.
SRC_A=http://127.0.0.1:9 SRC_B=http://127.0.0.2:9
is "$(http POST "$BASE/api/jobs/$JOB/cancel" -H "Authorization: Bearer $AKEY")" 200 \
    "takeover: the fixture job is cancelled (the worker runs from here on)"
add() { # WHO URL: POST /api/parse as caller WHO (none, mkey or akey); prints the code
	local args
	mapfile -t args < <(creds "$1")
	http POST "$BASE/api/parse" "${args[@]}" -H "$J" --data "{\"repoUrl\":\"$2\"}"
}
del() { # WHO ID
	local args
	mapfile -t args < <(creds "$1")
	http DELETE "$BASE/api/libraries$2" "${args[@]}"
}
exists() { _sql "SELECT count(*) FROM libraries WHERE id = '$1'"; }
host_of() { _sql "SELECT host FROM libraries WHERE id = '$1'"; }
set_ perm.anonymous_parse true
set_ perm.anonymous_delete true
is "$(add akey "$SRC_A/acme/demo")" 202 "takeover: the admin adds /acme/demo from host A"
is "$(add mkey "$SRC_A/mia/own")" 202 "takeover: member mia adds /mia/own"
is "$(add none "$SRC_A/anon/own")" 202 "takeover: an anonymous caller adds /anon/own"
worker
# Who may delete what: the creator and admins; anonymous callers what was added anonymously.
is "$(del mkey /acme/demo)" 403 "takeover: mia cannot delete the admin's library"
like "$(http_body | jq -r .error)" "needs an admin or the user who added it" \
    "takeover: ... and the error says who may"
is "$(del none /acme/demo)" 403 "takeover: an anonymous caller cannot delete it (anonymous delete on)"
is "$(del none /mia/own)" 403 "takeover: nor mia's library"
is "$(del mkey /anon/own)" 403 "takeover: mia cannot delete the anonymous caller's library"
is "$(exists /acme/demo)$(exists /mia/own)$(exists /anon/own)" 111 "takeover: the refused deletions changed nothing"
_sql "UPDATE libraries SET gitops = 1 WHERE id = '/mia/own'" || bail_out "gitops flag"
is "$(del mkey /mia/own)" 403 "takeover: mia cannot delete her library once GitOps manages it"
like "$(http_body | jq -r .error)" "managed by GitOps" "takeover: ... and the error says so"
_sql "UPDATE libraries SET gitops = 0 WHERE id = '/mia/own'" || bail_out "gitops flag"
is "$(del mkey /mia/own)" 202 "takeover: mia deletes her own library"
is "$(del none /anon/own)" 202 "takeover: an anonymous caller deletes the anonymously added library"
is "$(del akey /acme/demo)" 202 "takeover: the admin deletes /acme/demo"
worker
is "$(exists /acme/demo)$(exists /mia/own)$(exists /anon/own)" 000 "takeover: the three are deleted"
# Re-adding from another host: never by a non-admin, not even the creator; the same host is fine.
is "$(add mkey "$SRC_B/acme/demo")" 403 "takeover: mia cannot add /acme/demo again from host B"
like "$(http_body | jq -r .error)" "was added from 127.0.0.1:9 before; only an admin can add it from 127.0.0.2:9" \
    "takeover: ... the error names both hosts"
is "$(add none "$SRC_B/acme/demo")" 403 "takeover: nor can an anonymous caller"
is "$(add mkey "$SRC_B/mia/own")" 403 "takeover: nor mia her own deleted library"
is "$(add none "$SRC_B/anon/own")" 403 "takeover: nor the anonymous caller its own"
is "$(exists /acme/demo)$(exists /mia/own)$(exists /anon/own)" 000 "takeover: the refused adds stored nothing"
is "$(add mkey "$SRC_A/mia/own")" 202 "takeover: mia adds /mia/own again from its own host"
is "$(add none "$SRC_A/MIA/own")" 409 "takeover: an id differing only in case is the same library"
like "$(http_body | jq -r .error)" "already exists as /mia/own" "takeover: ... the error names it"
is "$(add akey "$SRC_B/acme/demo")" 202 "takeover: the admin adds /acme/demo from host B (rebinds it)"
is "$(host_of /acme/demo)" 127.0.0.2:9 "takeover: /acme/demo now comes from host B"
is "$(del akey /acme/demo)" 202 "takeover: the admin deletes it again"
worker
is "$(add mkey "$SRC_A/acme/demo")" 403 "takeover: now host A is the other host for mia"
is "$(add mkey "$SRC_B/acme/demo")" 202 "takeover: and host B is fine"
set_ perm.anonymous_parse false
set_ perm.anonymous_delete false

# No answer of the matrix, and no log of the responders and nginx, holds a secret the test
# used: keys (and their unshown part), their hashes, passwords (but "admin", which is also the
# user name), session cookie values, CSRF tokens, the secret setting.
ok "$([ "$(wc -c <"$BODIES")" -gt 10000 ] && echo 0 || echo 1)" "the answers were collected ($(wc -c <"$BODIES") bytes)"
secrets=("$OKEY" "$MKEY" "$AKEY" "$RKEY" "${OKEY:12}" "${MKEY:12}" "${AKEY:12}" "${RKEY:12}"
    "$ADMIN_PASSWORD" "$MIA_PASSWORD" "$ADMIN_CSRF" "$MIA_CSRF" "$DEF_CSRF" "$GL_SECRET")
for k in "$OKEY" "$MKEY" "$AKEY" "$RKEY"; do
	secrets+=("$(printf '%s' "$k" | sha256sum | cut -d' ' -f1)")
done
for jar in "$ADMIN_JAR" "$MIA_JAR" "$DEF_JAR"; do
	c=$(awk '$6 == "ctxd_session" { print $7 }' "$jar")
	secrets+=("$c")
done
for s in "${secrets[@]}"; do
	[ -n "$s" ] || { fail "a secret of the test is empty"; continue; }
	if grep -qF -- "$s" "$BODIES"; then
		fail "an answer holds a secret of the test (${s:0:8}...)"
	elif grep -rqF -- "$s" "$T/log"; then
		fail "a log holds a secret of the test (${s:0:8}...): $(grep -rlF -- "$s" "$T/log")"
	else
		pass "no answer or log holds ${s:0:8}..."
	fi
done

done_testing
