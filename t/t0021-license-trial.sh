#!/usr/bin/env bash
# The operator's license path without a key in the environment: ctxd-admin license trial
# (once per instance, recorded in the database), ctxd-admin license install FILE|-, the key
# file DATA_DIR/license.key (mode 0600; LICENSE_KEY in the environment wins), the
# development-build marker, and expiry checked with the clock override CTXD_LICENSE_NOW.
. "$top_srcdir/t/lib/harness.sh"

ctxd_setup
envkey=$LICENSE_KEY
unset LICENSE_KEY
today=$(date -u +%Y-%m-%d)
end=$(date -u -d '+29 days' +%Y-%m-%d)
after=$(date -u -d '+31 days' +%Y-%m-%d)

out=$(ctxd_admin license show)
isnt $? 0 "license show: no key anywhere exits non-zero"
like "$out" 'status: missing' "license show: missing"
like "$out" 'build: development' "license show says this is a development build"
out=$("$top_builddir/ctxd-worker" 2>&1)
isnt $? 0 "ctxd-worker refuses to start without a key"
like "$out" 'ctxd-admin license trial' "and names the trial step"

# The trial: one per instance.
out=$(ctxd_admin license trial)
is $? 0 "license trial starts the evaluation"
like "$out" "plan trial, licensee evaluation, valid until $end" "a trial lasts 30 days"
is "$(stat -c %a "$DATA_DIR/license.key")" 600 "the key file is mode 0600"
out=$(ctxd_admin license show)
is $? 0 "license show: the trial is valid"
like "$out" 'source: installed key file' "license show names where the key comes from"
"$top_builddir/ctxd-worker" >/dev/null 2>&1
is $? 0 "ctxd-worker starts with the installed trial"
out=$(ctxd_admin license trial 2>&1)
isnt $? 0 "a second trial is refused"
like "$out" "started its trial on $today; a trial is given once per instance" \
    "and says when the first one started"
rm -f "$DATA_DIR/license.key"
out=$(CTXD_LICENSE_NOW=$(date -u -d '+10 days' +%Y-%m-%d) ctxd_admin license trial 2>&1)
isnt $? 0 "deleting the key file does not give a new trial"
like "$(ctxd_admin license show)" "expires: $end" "the restored trial keeps its first start date"

# Expiry, with the clock override (honoured by development builds only).
out=$(CTXD_LICENSE_NOW=$after ctxd_admin license show)
isnt $? 0 "license show: after 30 days the trial is expired"
like "$out" 'status: expired' "license show: expired"
out=$(CTXD_LICENSE_NOW=$after "$top_builddir/ctxd-worker" 2>&1)
isnt $? 0 "ctxd-worker refuses to start with an expired trial"
is "$out" "ctxd-worker: the installed license key expired on $end (plan trial): install a new \
key with ctxd-admin license install FILE" "and says when it expired and what to do"
out=$(CTXD_LICENSE_NOW=$after ctxd_admin license trial 2>&1)
isnt $? 0 "an expired trial cannot be started again"
like "$out" 'install a purchased key' "and points to license install"

# Installing a purchased key: from a file and from standard input.
key=$(ctxd_admin license mint --key "$top_srcdir/keys/dev-license.key" --plan standard \
    --licensee "Acme Ltd" --days 365)
printf '%s\n' "$key" >"$T/purchased.key"
out=$(CTXD_LICENSE_NOW=$after ctxd_admin license install "$T/purchased.key")
is $? 0 "license install FILE"
like "$out" "plan standard, licensee Acme Ltd" "install prints plan and licensee"
is "$(stat -c %a "$DATA_DIR/license.key")" 600 "the installed key is mode 0600"
out=$(ctxd_admin license show)
like "$out" 'licensee: Acme Ltd' "license show: the installed key is in force"
before=$(cat "$DATA_DIR/license.key")
out=$(echo not-a-key | ctxd_admin license install - 2>&1)
isnt $? 0 "a malformed key is refused"
like "$out" 'not installed: the key is malformed' "and says why"
openssl genpkey -algorithm ed25519 -out "$T/other.key" 2>/dev/null
foreign=$(ctxd_admin license mint --key "$T/other.key" --days 30)
out=$(printf '%s' "$foreign" | ctxd_admin license install - 2>&1)
isnt $? 0 "a key from another signer is refused"
like "$out" 'not issued for this build' "and says why"
out=$(printf 'ctxd-trial.%s\n' "$today" | ctxd_admin license install - 2>&1)
isnt $? 0 "a hand-written trial token is refused by install"
is "$(cat "$DATA_DIR/license.key")" "$before" "refused keys change nothing"
printf '%s' "$key" | ctxd_admin license install - >/dev/null
is $? 0 "license install - reads standard input"

# LICENSE_KEY in the environment wins over the file.
out=$(LICENSE_KEY=$envkey ctxd_admin license show)
like "$out" 'source: LICENSE_KEY environment variable' "LICENSE_KEY wins over the key file"
like "$out" 'plan: trial' "and its terms are shown"

# The health report (Status page) shows the end date and the development-build marker.
ctxd_start
HK=$(ctxd_admin key create --admin health)
http GET "$BASE/api/health" -H "Authorization: Bearer $HK" >/dev/null
is "$(http_body | jq -r '.license.plan')" standard "health: the installed key's plan"
is "$(http_body | jq -r '.license.expires')" "$(date -u -d '+365 days' +%Y-%m-%d)" \
    "health: the end date"
is "$(http_body | jq -r '.license.development_build')" true "health: development build"

done_testing
