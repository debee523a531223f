#!/usr/bin/env bash
# OpenAPI uploads leave nothing behind: the file POST /api/parse-openapi-upload keeps in
# DATA_DIR/uploads lives while a library names it. A re-upload replaces the library's file
# (one file left), an add that is refused (id taken, forbidden, being deleted, not a spec)
# leaves none, a delete removes it (five 15 MB uploads and a delete leave the folder as it
# was), a file two libraries share stays until both are gone; the uploads kept for one user
# are capped (uploads.max_mb_per_user: 413 naming the cap, nothing written; callers without
# a user account count as one user, admins are exempt). The jobs run only where the test
# runs the worker (CTXD_WORKER=/bin/true).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx curl sha256sum

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"
UP=$DATA_DIR/uploads

# spec FILE TAG [KB]: an OpenAPI 3 JSON description in $T/FILE whose version is TAG, padded
# to about KB kilobytes.
spec() {
	{
		printf '{"openapi":"3.0.3","info":{"title":"T","version":"%s"},"paths":{},"x-pad":"' "$2"
		head -c $((${3:-1} * 1024)) /dev/zero | tr '\0' a
		printf '"}\n'
	} >"$T/$1"
}

# upload FILE TITLE [CURL ARGS...]: POST the upload as the admin (unless the arguments give
# other credentials); prints the status.
upload() {
	local f=$1 title=$2
	shift 2
	http POST "$BASE/api/parse-openapi-upload" -F "openapiFile=@$T/$f" \
	    -F "projectTitle=$title" "$@"
}

# listing: the names in DATA_DIR/uploads, one a line (nothing when there is no folder).
listing() { ls -A "$UP" 2>/dev/null; }
kept() { sha256sum "$T/$1" | cut -d' ' -f1; }

# --- a library to keep, so that the folder exists -----------------------------------------------
spec keep.json k1
is "$(upload keep.json Keep -H "$A")" 202 "an upload: 202"
is "$(listing)" "$(kept keep.json).json" "... its file is kept"
before=$(listing)

# --- five 15 MB uploads of one library, then its delete ------------------------------------------
for n in 1 2 3 4 5; do
	spec big.json "b$n" $((15 * 1024))
	is "$(upload big.json Big -H "$A")" 202 "15 MB upload $n: 202"
	is "$(listing | sort)" "$(printf '%s\n' "$before" "$(kept big.json).json" | sort)" \
	    "... replaces the one before: one file for the library"
done
is "$(_sql "SELECT json_extract(settings, '\$.upload') FROM libraries WHERE id = '/openapi/big'")" \
    "$(kept big.json).json" "the library names the last upload"
is "$(http DELETE "$BASE/api/libraries/openapi/big" -H "$A")" 202 "delete the library"
worker
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/openapi/big'")" 0 "... it is deleted"
is "$(listing)" "$before" "five 15 MB uploads and a delete leave DATA_DIR/uploads as it was"

# --- refused adds leave no file -------------------------------------------------------------------
spec other.json k2
is "$(upload other.json Keep -H "$A")" 409 "the id taken by another file name: 409"
like "$(http_body | jq -r .error)" "already exists" "... says so"
is "$(listing)" "$before" "... and leaves no file"
MEMBER=$(ctxd_admin key create reader)
spec keep.json k3
is "$(upload keep.json Keep -H "Authorization: Bearer $MEMBER")" 403 \
    "a member replacing the admin's upload: 403"
is "$(listing)" "$before" "... and leaves no file"
spec gone.json g1
is "$(upload gone.json Gone -H "$A")" 202 "another library"
gone=$(kept gone.json).json
is "$(http DELETE "$BASE/api/libraries/openapi/gone" -H "$A")" 202 "... its delete is queued"
spec gone.json g2
is "$(upload gone.json Gone -H "$A")" 409 "an upload to a library being deleted: 409"
is "$(listing | sort)" "$(printf '%s\n' "$before" "$gone" | sort)" "... and leaves no file"
printf 'just: yaml\n' >"$T/not.yaml"
is "$(upload not.yaml Not -H "$A")" 400 "a file that is not a spec: 400"
worker
is "$(listing)" "$before" "the delete removes the library's file"

# --- a file two libraries name stays until both are gone -------------------------------------------
spec shared.json s1
is "$(upload shared.json One -H "$A") $(upload shared.json Two -H "$A")" "202 202" \
    "one file for two libraries"
shared=$(kept shared.json).json
is "$(http DELETE "$BASE/api/libraries/openapi/one" -H "$A")" 202 "delete one"
worker
is "$(listing | sort)" "$(printf '%s\n' "$before" "$shared" | sort)" "... the other keeps the file"
spec shared.json s2
is "$(upload shared.json Two -H "$A")" 202 "the other replaces it"
is "$(listing | sort)" "$(printf '%s\n' "$before" "$(kept shared.json).json" | sort)" \
    "... and the shared file goes"
is "$(http DELETE "$BASE/api/libraries/openapi/two" -H "$A")" 202 "delete the other"
worker
is "$(listing)" "$before" "... and its file goes"

# --- the cap per user --------------------------------------------------------------------------------
ctxd_admin settings set perm.anonymous_parse true >/dev/null
ctxd_admin settings set uploads.max_mb_per_user 1 >/dev/null
spec anon1.json a1 500
is "$(upload anon1.json Anon1)" 202 "an anonymous upload of 0.5 MB within the cap of 1 MB: 202"
anon=$(listing)
spec anon2.json a2 600
is "$(upload anon2.json Anon2)" 413 "another one of 0.6 MB: 413"
like "$(http_body | jq -r .error)" "cap of 1 MB per user \\(setting uploads.max_mb_per_user\\)" \
    "... naming the cap"
is "$(listing)" "$anon" "... nothing written"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/openapi/anon2'")" 0 "... no library"
is "$(upload anon2.json Anon2 -H "Authorization: Bearer $MEMBER")" 413 \
    "an operator key without a user counts with the anonymous callers"
is "$(upload anon1.json Anon1)" 202 "the same file again (a re-index) does not count twice: 202"

# a user with an account has a cap of their own, and replacing a file frees its bytes
ctxd_admin_session
is "$(http POST "$BASE/api/users" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" \
    -H 'Content-Type: application/json' \
    --data '{"name":"mia","password":"mia password 1","mustChangePassword":false}')" 201 "member mia"
MIA_JAR=$T/cookies.mia
MIA_CSRF=$(ctxd_login mia 'mia password 1' "$MIA_JAR") || bail_out "mia cannot sign in"
is "$(http POST "$BASE/api/keys" -b "$MIA_JAR" -H "X-CSRF-Token: $MIA_CSRF" \
    -H 'Content-Type: application/json' --data '{"name":"mia"}')" 201 "... with a key"
M="Authorization: Bearer $(http_body | jq -r .key)"
spec mia.json m1 900
is "$(upload mia.json Mia -H "$M")" 202 "mia's 0.9 MB upload: 202 (her own cap)"
spec mia.json m2 950
is "$(upload mia.json Mia -H "$M")" 202 "her 0.95 MB re-upload replaces it: 202"
before=$(listing)
spec mia2.json m3 200
is "$(upload mia2.json Mia2 -H "$M")" 413 "her next 0.2 MB upload: 413"
like "$(http_body | jq -r .error)" "your libraries would take 1.1 MB" "... saying how much"
is "$(listing)" "$before" "... nothing written"
is "$(upload anon2.json Anon2 -H "$A")" 202 "an admin is exempt: 202"

done_testing
