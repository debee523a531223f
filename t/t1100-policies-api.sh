#!/usr/bin/env bash
# The policies API of ctxd-web (ctxd-web(8), ADMIN API: policies): admin only; the switches
# per source type, the allow and block lists (the block list wins) and the minimum trust
# written and tried (POST /api/policies/try); validation errors naming the field, all or
# nothing; the audit trail (who changed what, from the API and from ctxd-admin); policy.*
# kept out of /api/settings; and a license that expires while the server runs turns public
# documentation off and refuses the policies (403).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx fcgiwrap cc

ctxd_setup
ctxd_clock_shim
LD_PRELOAD=$CTXD_CLOCK_SO ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
MEMBER=$(ctxd_admin key create reader)
A="Authorization: Bearer $ADMIN"
J='Content-Type: application/json'

api() { local m=$1 p=$2; shift 2; http "$m" "$BASE$p" "$@"; }
err() { http_body | jq -r .error; }
try() {
	api POST /api/policies/try -H "$A" -H "$J" --data "$1" >/dev/null
	http_body | jq -r '[.allowed, .why] | @tsv'
}

# --- who may call ---------------------------------------------------------------------------
for e in "GET /api/policies" "PUT /api/policies" "POST /api/policies/try" "GET /api/policies/audit"; do
	m=${e%% *} p=${e#* }
	is "$(api "$m" "$p" -H "$J" --data '{}')" 401 "$e without a key: 401"
	is "$(api "$m" "$p" -H "$J" -H "Authorization: Bearer $MEMBER" --data '{}')" 403 "$e with a member key: 403"
done

# --- read, defaults ----------------------------------------------------------------------------
is "$(api GET /api/policies -H "$A")" 200 "policies read"
is "$(http_body | jq -c .)" \
    '{"git":true,"website":true,"llmstxt":true,"openapi":true,"other":true,"allow":[],"block":[],"minTrust":null}' \
    "defaults: every type on, no lists, no minimum"
is "$(try '{"libraryId": "/vercel/next.js", "sourceType": "git"}')" \
    "$(printf 'true\tallowed by policy')" "try: allowed by default"

# --- write and try ---------------------------------------------------------------------------
is "$(api PUT /api/policies -H "$A" -H "$J" --data '{"website": false, "block": ["/vercel/*"],
    "allow": ["/vercel/*", "/facebook/*"], "minTrust": 5}')" 200 "policies written"
is "$(http_body | jq -c '[.website, .git, .allow, .block, .minTrust]')" \
    '[false,true,["/vercel/*","/facebook/*"],["/vercel/*"],5]' "the answer shows them"
is "$(ctxd_admin settings get policy.allow)" "/vercel/*, /facebook/*" "stored as the setting policy.allow"
is "$(try '{"libraryId": "/facebook/docs", "sourceType": "website"}')" \
    "$(printf 'false\tblocked by policy: source type websites is off')" "try: a switched-off type"
is "$(try '{"libraryId": "/vercel/next.js", "sourceType": "git"}')" \
    "$(printf 'false\tblocked by policy: /vercel/* is on the block list')" \
    "try: the block list wins over the allow list"
is "$(try '{"libraryId": "/mongodb/docs", "sourceType": "git"}')" \
    "$(printf 'false\tblocked by policy: /mongodb/docs is not on the allow list')" "try: not on the allow list"
is "$(try '{"libraryId": "/facebook/react", "sourceType": "git", "trustScore": 3.1}')" \
    "$(printf 'false\tblocked by policy: trust score 3.1 is below the minimum 5')" "try: trust below the minimum"
is "$(try '{"libraryId": "/facebook/react", "sourceType": "git", "trustScore": 7.5}')" \
    "$(printf 'true\tallowed by policy')" "try: trust above the minimum"
is "$(try '{"libraryId": "/facebook/react"}')" "$(printf 'true\tallowed by policy')" \
    "try: no type (other) and no trust reported"
is "$(api PUT /api/policies -H "$A" -H "$J" --data '{"other": false}')" 200 "other switched off"
is "$(try '{"libraryId": "/facebook/react", "sourceType": "confluence"}')" \
    "$(printf 'false\tblocked by policy: source type other is off')" "try: an unknown type is other"
is "$(http_body | jq -r .allowed)" false "allowed is a JSON boolean"

# --- validation: the field named, nothing changed -------------------------------------------
bad() {
	is "$(api "$1" "$2" -H "$A" -H "$J" --data "$3")" 400 "$4: 400"
	like "$(err)" "$5" "$4: the error says why"
}
bad PUT /api/policies '{"git": "yes"}' "a switch not a boolean" "field 'git' must be true or false"
bad PUT /api/policies '{"minTrust": 101}' "trust above 100" "field 'minTrust' must be a number from 0 to 100"
bad PUT /api/policies '{"minTrust": "5"}' "trust as a string" "field 'minTrust' must be a number"
bad PUT /api/policies '{"block": ["/a b"]}' "a glob with a blank" "field 'block' entry 1"
bad PUT /api/policies '{"allow": ["/a,/b"]}' "a glob with a comma" "must not contain ','"
bad PUT /api/policies '{"allow": "/a/*"}' "a list as a string" "field 'allow' must be a list"
bad PUT /api/policies '{"git": false, "nope": 1}' "an unknown field" "nope"
is "$(api GET /api/policies -H "$A" && http_body | jq -r .git)" "200true" "a refused body changed nothing"
bad POST /api/policies/try '{}' "try without libraryId" "libraryId"
bad POST /api/policies/try '{"libraryId": "/a/b", "trustScore": -1}' "try with a bad trust" "trustScore"
bad GET "/api/policies/audit?limit=0" "" "audit limit 0" "parameter .limit."
bad PUT /api/settings '{"policy.git": "false"}' "a policy through /api/settings" "PUT /api/policies"
is "$(api GET /api/settings -H "$A" && http_body | jq '[.settings | keys[] | select(startswith("policy."))] | length')" \
    2000 "GET /api/settings shows no policy"

# --- audit trail -----------------------------------------------------------------------------
ctxd_admin settings set policy.min_trust 6.5 >/dev/null || fail "ctxd-admin settings set policy.min_trust"
ctxd_admin settings unset policy.block >/dev/null || fail "ctxd-admin settings unset policy.block"
is "$(_sql 'SELECT count(*) FROM audit_log')" 4 "four changes, four audit rows (nothing for refused bodies)"
is "$(api GET /api/policies/audit -H "$A")" 200 "audit read"
is "$(http_body | jq -r '.entries | length')" 4 "four entries"
is "$(http_body | jq -c '.entries[3] | [(.actor | test("^operator API key [0-9]+$")), .action, .changes.website, .changes.minTrust, .changes.block]')" \
    '[true,"policies",{"from":true,"to":false},{"from":null,"to":5},{"from":[],"to":["/vercel/*"]}]' \
    "the first: an operator key, what changed from what to what"
is "$(http_body | jq -c '.entries[2].changes')" '{"other":{"from":true,"to":false}}' "only what changed"
is "$(http_body | jq -c '.entries[1] | [(.actor | test("^ctxd-admin \\(uid [0-9]+\\)$")), .changes.minTrust]')" \
    '[true,{"from":5,"to":6.5}]' "ctxd-admin settings set is recorded"
is "$(http_body | jq -c '.entries[0].changes.block')" '{"from":["/vercel/*"],"to":[]}' "ctxd-admin settings unset is recorded"
is "$(api GET '/api/policies/audit?limit=1' -H "$A" && http_body | jq '.entries | length')" 2001 "limit"
ctxd_admin_session
is "$(api PUT /api/policies -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" --data '{"git": false}')" \
    200 "an admin session changes a policy"
is "$(api GET /api/policies/audit -H "$A" && http_body | jq -r '.entries[0].actor')" "200user admin (session)" \
    "the audit names the signed-in admin"

# --- the license expires while the server runs ----------------------------------------------
echo $((40 * 86400)) >"$CTXD_TEST_CLOCK"
is "$(api GET /api/policies -H "$A")" 403 "expired license: reading the policies is refused"
like "$(err)" "public documentation is off: the license is expired" "expired license: the error says why"
is "$(api PUT /api/policies -H "$A" -H "$J" --data '{"git": true}')" 403 "expired license: no change"
is "$(api POST /api/policies/try -H "$A" -H "$J" --data '{"libraryId": "/a/b"}')" 403 "expired license: no try"
is "$(api GET /api/policies/audit -H "$A")" 200 "the audit trail stays readable"
rm -f "$CTXD_TEST_CLOCK"
is "$(api GET /api/policies -H "$A")" 200 "a valid license again: the policies are readable"

done_testing
