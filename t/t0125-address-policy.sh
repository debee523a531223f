#!/usr/bin/env bash
# The address policy of outbound connections (fetch.allowed_networks) for git clones and AI
# provider calls: the default refuses the loopback and the metadata address before any
# connection (an address in a source's URL already when the source is added, with 400), a
# listed network is reached, a redirect to a refused address is refused, a git token never
# follows a redirect to another host:port nor goes over plain http to a host that
# git.plain_http_hosts does not list, and a caller who is not an admin sees "could not
# fetch" without the network detail. The stand-in t/standin/redirect.js records what
# reaches it (the Authorization header included).
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap node curl

ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
MEMBER=$(ctxd_admin key create reader)
url=$(gitserver_add_bundle requests public acme)
url=${url%.git}		# as the library stores it
GITHUB_TOKEN=ghp_policytest$(openssl rand -hex 8)

# standin NAME [HOST]: start t/standin/redirect.js on HOST (default 127.0.0.1), logging to
# $T/NAME.log; sets PORT_<NAME>.
standin() {
	local name=$1 host=${2:-127.0.0.1} i port=""
	: >"$T/$name.log"
	_spawn "$T/log/standin-$name.out" node "$top_srcdir/t/standin/redirect.js" \
	    "$T/$name.log" 0 "$host"
	for ((i = 0; i < 100; i++)); do
		port=$(sed -n '1{/^[0-9][0-9]*$/p;}' "$T/log/standin-$name.out" 2>/dev/null)
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || bail_out "the redirect stand-in $name did not start"
	printf -v "PORT_$name" '%s' "$port"
}
standin A
standin B
standin C 127.0.0.2

# parse KEY URL: POST /api/parse as KEY; prints the job id (empty unless 202).
parse() {
	local code
	code=$(http POST "$BASE/api/parse" -H "Authorization: Bearer $1" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$2\"}")
	[ "$code" = 202 ] && http_body | jq -r .jobId
}

# job_message ID: the job's message after it ended (waits).
job_message() {
	wait_jobid "$1" >/dev/null 2>&1
	_sql "SELECT state || ': ' || coalesce(message, '') FROM jobs WHERE id = $1"
}

policy() {
	ctxd_admin settings set fetch.allowed_networks "$1" || bail_out "cannot set the policy"
}

# ---------------------------------------------------------------- the default policy
ctxd_admin settings unset fetch.allowed_networks
is "$(ctxd_admin settings get fetch.allowed_networks)" "" \
    "the default lists no network (public addresses only; t0126 has the private ranges)"
# An address in the URL is judged when the source is added: 400, nothing stored or queued.
# refused_add URL ADDR: a member's POST /api/parse of URL is refused naming ADDR and the setting.
refused_add() {
	is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $MEMBER" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$1\"}")" 400 \
	    "$1: refused when added (400)"
	like "$(http_body | jq -r .error)" "^address ${2//./\\.} of host .* is not allowed by fetch\\.allowed_networks" \
	    "... naming the address and the setting"
}
refused_add "$url" 127.0.0.1
is "$(_sql "SELECT count(*) FROM libraries")" 0 "nothing was stored"
# A name is judged when the job resolves it: the job says which address and setting.
job=$(parse "$MEMBER" "http://localhost:$GITPORT/public/acme/refused")
like "$job" '^[0-9]+$' "a member queues a repository on localhost"
msg=$(job_message "$job")
like "$msg" "^failed: could not fetch http://localhost:$GITPORT/public/acme/refused: address (127\\.0\\.0\\.1|::1) of host localhost:$GITPORT is not allowed by fetch\\.allowed_networks\$" \
    "the default policy refuses the loopback; the job says which address and setting"
is "$(http GET "$BASE/api/jobs/$job" -H "Authorization: Bearer $ADMIN")" 200 "an admin reads the job"
like "$(http_body | jq -r .message)" 'not allowed by fetch\.allowed_networks' "and sees the detail"
is "$(http GET "$BASE/api/v2/context?libraryId=/acme/refused&query=session" \
    -H "Authorization: Bearer $MEMBER")" 422 "the member's query: 422, the library exists but its indexing failed"
is "$(http_body | jq -r .error)" \
    "indexing /acme/refused failed: could not fetch http://localhost:$GITPORT/public/acme/refused; it has no index to answer from" \
    "the member sees 'could not fetch' without the network detail"
is "$(http GET "$BASE/api/v2/context?libraryId=/acme/refused&query=session" \
    -H "Authorization: Bearer $ADMIN")" 422 "an admin's query: 422 too"
like "$(http_body | jq -r .error)" \
    "^indexing /acme/refused failed: could not fetch http://localhost:$GITPORT/public/acme/refused: address .* is not allowed by fetch\\.allowed_networks; it has no index to answer from\$" \
    "... and the admin reads why in full"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=refused" -H "Authorization: Bearer $MEMBER")" 200 \
    "libs/search finds the library"
is "$(http_body | jq -r '.results[] | select(.id == "/acme/refused") | .state')" error \
    "... with its state"

# Nothing reached the stand-in: the address is refused before a connection.
job=$(parse "$MEMBER" "http://localhost:$PORT_A/acme/probe")
like "$(job_message "$job")" "address (127\\.0\\.0\\.1|::1) of host localhost:$PORT_A is not allowed" \
    "a repository on a loopback stand-in (by name): refused"
is "$(wc -l <"$T/A.log")" 0 "no request reached the stand-in"
refused_add "http://127.0.0.1:$PORT_A/acme/probe" 127.0.0.1
is "$(wc -l <"$T/A.log")" 0 "... by address: refused when added, no request either"

# https: libgit2's TLS stream runs on the same checked sockets.
job=$(parse "$MEMBER" "https://localhost:$PORT_A/acme/tls")
like "$(job_message "$job")" \
    "^failed: could not fetch https://localhost:$PORT_A/acme/tls: address (127\\.0\\.0\\.1|::1) of host localhost:$PORT_A is not allowed by fetch\\.allowed_networks\$" \
    "an https repository on the loopback: refused by the same policy"

# The metadata address: refused, even with the link-local range listed (only alone).
refused_add "http://169.254.169.254/latest/meta" 169.254.169.254
policy "169.254.0.0/16"
refused_add "http://169.254.169.254/latest/meta" 169.254.169.254

# A closed port and a missing repository look alike to a member: no port scan.
policy "127.0.0.0/8"
closed=$(pick_port)
job=$(parse "$MEMBER" "http://127.0.0.1:$closed/acme/closed")
like "$(job_message "$job")" "failed to connect to 127\.0\.0\.1:$closed" "a closed port: the admin sees why"
http GET "$BASE/api/v2/context?libraryId=/acme/closed&query=x" -H "Authorization: Bearer $MEMBER" >/dev/null
is "$(http_body | jq -r .error)" \
    "indexing /acme/closed failed: could not fetch http://127.0.0.1:$closed/acme/closed; it has no index to answer from" \
    "the member sees no connection detail"
job=$(parse "$MEMBER" "$GITBASE/public/acme/missing")
like "$(job_message "$job")" 'repository not found' "a missing repository: the admin sees why"
http GET "$BASE/api/v2/context?libraryId=/acme/missing&query=x" -H "Authorization: Bearer $MEMBER" >/dev/null
is "$(http_body | jq -r .error)" \
    "indexing /acme/missing failed: could not fetch $GITBASE/public/acme/missing; it has no index to answer from" \
    "the member sees the same shape of message"

# ---------------------------------------------------------------- the loopback listed
job=$(parse "$MEMBER" "$url")
like "$(job_message "$job")" '^done: indexed commit' "with 127.0.0.0/8 listed the repository is indexed" ||
    diag "$(_sql "SELECT line FROM job_log WHERE job_id = $job")"

# A redirect from an allowed host to a refused address: refused, nothing reaches it.
policy "127.0.0.1/32"
job=$(parse "$MEMBER" "http://127.0.0.1:$PORT_A/r302/127.0.0.2:$PORT_C/acme/moved")
like "$(job_message "$job")" \
    "failed: could not fetch .*: address 127\.0\.0\.2 of host 127\.0\.0\.2:$PORT_C is not allowed by fetch\.allowed_networks" \
    "a redirect to 127.0.0.2 (not listed) is refused"
like "$(cat "$T/A.log")" "GET /r302/127\.0\.0\.2:$PORT_C/acme/moved/info/refs" "the first host was asked"
is "$(wc -l <"$T/C.log")" 0 "the refused address got no request"
policy "127.0.0.0/8"
job=$(parse "$MEMBER" "http://127.0.0.1:$PORT_A/r302/127.0.0.2:$PORT_C/acme/moved2")
like "$(job_message "$job")" 'failed: .*authentication failed' \
    "with 127.0.0.0/8 listed the redirect is followed (to a server that wants a password)"
is "$(grep -c /acme/moved2/ "$T/C.log")" 1 "the second host was asked this time"

# ---------------------------------------------------------------- the git token
ctxd_admin settings set git.github.host "127.0.0.1:$PORT_A"
printf '%s\n' "$GITHUB_TOKEN" | ctxd_admin settings set git.github.token -
: >"$T/A.log"
: >"$T/B.log"
# A 302 to another port, before and after the first host asked for the token.
job=$(parse "$ADMIN" "http://127.0.0.1:$PORT_A/r302/127.0.0.1:$PORT_B/acme/away")
like "$(job_message "$job")" \
    "failed: could not fetch .*: the server redirected to 127\.0\.0\.1:$PORT_B: with a git token" \
    "a redirect to another port with a token: refused, and the job says why"
job=$(parse "$ADMIN" "http://127.0.0.1:$PORT_A/a302/127.0.0.1:$PORT_B/acme/away2")
like "$(job_message "$job")" "the server redirected to 127\.0\.0\.1:$PORT_B" \
    "a redirect after the token was accepted: refused too"
like "$(grep /acme/away2/ "$T/A.log")" 'Basic ' "the repository's own host got the token"
is "$(wc -l <"$T/B.log")" 0 "the other host:port got no request, so never the token"
unlike "$(cat "$T/B.log" "$T/C.log")" 'Basic' "no stand-in but the token's host saw an Authorization"

# Plain http: the token only to a host of git.plain_http_hosts.
ctxd_admin settings set git.plain_http_hosts ""
: >"$T/A.log"
job=$(parse "$ADMIN" "http://127.0.0.1:$PORT_A/acme/plain")
is "$(job_message "$job")" \
    "failed: could not fetch http://127.0.0.1:$PORT_A/acme/plain: the git token is not sent over plain http to 127.0.0.1:$PORT_A (list the host in git.plain_http_hosts to allow it)" \
    "no token over plain http to an unlisted host"
unlike "$(cat "$T/A.log")" 'Basic' "the host asked but got no Authorization"
ctxd_admin settings set git.plain_http_hosts "example.org, 127.0.0.1:$PORT_A"
job=$(parse "$ADMIN" "http://127.0.0.1:$PORT_A/acme/plain")
like "$(job_message "$job")" 'authentication failed' "the host listed with its port: the token is sent"
like "$(grep /acme/plain/ "$T/A.log")" 'Basic ' "and the stand-in got it"
ctxd_admin settings set git.plain_http_hosts '127.0.0.1, example.org/x' 2>"$T/err"
isnt $? 0 "git.plain_http_hosts refuses a malformed list"
ctxd_admin settings set fetch.allowed_networks '127.0.0.0/33' 2>"$T/err"
isnt $? 0 "fetch.allowed_networks refuses a malformed network"
like "$(cat "$T/err")" 'not a network: "127\.0\.0\.0/33"' "and names it"

# ---------------------------------------------------------------- AI providers (libcurl)
standin_start
ctxd_admin settings set ai.llm.provider openai
printf 'sk-good-%s\n' "$(openssl rand -hex 4)" | ctxd_admin settings set ai.llm.api_key -
ctxd_admin settings set ai.llm.base_url "$SBASE"
ctxd_admin settings unset fetch.allowed_networks
out=$(ctxd_admin provider test 2>&1)
isnt $? 0 "the default policy: the provider on 127.0.0.1 is refused"
like "$out" "llm: FAILED \(connect\): cannot connect to 127\.0\.0\.1:$SPORT \(address 127\.0\.0\.1 of host 127\.0\.0\.1:$SPORT is not allowed by fetch\.allowed_networks\)" \
    "the provider's error names the address and the setting"
policy "127.0.0.0/8"
out=$(ctxd_admin provider test 2>&1)
ok $? "with the loopback listed the provider answers" || diag "$out"

done_testing
