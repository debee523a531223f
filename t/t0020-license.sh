#!/usr/bin/env bash
# Every long-running executable refuses to start without a valid LICENSE_KEY and says why in
# one line; ctxd-admin license mint/show.
. "$top_srcdir/t/lib/harness.sh"

ctxd_setup
good=$LICENSE_KEY
expired=$(ctxd_admin license mint --key "$top_srcdir/keys/dev-license.key" --days -3)
openssl genpkey -algorithm ed25519 -out "$T/other.key" 2>/dev/null
foreign=$(ctxd_admin license mint --key "$T/other.key" --days 30)
expiry=$(date -u -d '-3 days' +%Y-%m-%d)
missing="LICENSE_KEY is missing: set it to your ctxd license key, or run ctxd-admin license \
trial (a 30-day evaluation) or ctxd-admin license install FILE"
renew=": install a new key with ctxd-admin license install FILE"

# run_refused PROG VALUE|unset WANT DESC
check() {
	local prog=$1 value=$2 want=$3 desc=$4 out rc
	if [ "$value" = unset ]; then
		out=$(env -u LICENSE_KEY "$top_builddir/$prog" --socket "$T/run/x.sock" 2>&1 </dev/null)
	else
		out=$(LICENSE_KEY=$value "$top_builddir/$prog" --socket "$T/run/x.sock" 2>&1 </dev/null)
	fi
	rc=$?
	isnt "$rc" 0 "$prog refuses: $desc"
	is "$out" "$prog: $want" "$prog says: $desc"
}
for prog in ctxd-query ctxd-web; do
	check $prog unset "$missing" missing
	check $prog "not-a-key" "LICENSE_KEY is malformed: not a ctxd license key" malformed
	check $prog "$foreign" "LICENSE_KEY has a bad signature: it was not issued for this build" \
	    "bad signature"
	check $prog "$expired" "LICENSE_KEY expired on $expiry (plan trial)$renew" expired
done
out=$(env -u LICENSE_KEY "$top_builddir/ctxd-worker" 2>&1)
isnt $? 0 "ctxd-worker refuses a missing key"
is "$out" "ctxd-worker: $missing" \
    "ctxd-worker says the key is missing"
out=$(LICENSE_KEY=$expired "$top_builddir/ctxd-worker" 2>&1)
is "$out" "ctxd-worker: LICENSE_KEY expired on $expiry (plan trial)$renew" "ctxd-worker says expired"

# With a valid key they start (the worker runs and exits; a responder serves).
LICENSE_KEY=$good "$top_builddir/ctxd-worker"
is $? 0 "ctxd-worker starts with a valid key"
ctxd_start
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x")" 200 "responders serve with a valid key"

# license show prints the fields.
out=$(ctxd_admin license show "$good")
is $? 0 "license show: valid key exits 0"
like "$out" 'plan: trial' "license show: plan"
like "$out" "expires: $(date -u -d '+30 days' +%Y-%m-%d)" "license show: a trial lasts 30 days"
like "$out" "issued: $(date -u +%Y-%m-%d)" "license show: issue date"
like "$out" 'status: valid' "license show: status"
out=$(ctxd_admin license show "$expired")
isnt $? 0 "license show: expired key exits non-zero"
like "$out" 'status: expired' "license show: expired"
ctxd_admin license mint --key /nonexistent.pem >/dev/null 2>&1
isnt $? 0 "mint without a readable private key fails"

done_testing
