#!/usr/bin/env bash
# Three nodes of one service on the loopback, as README "Running on several machines" sets
# them up: each its own DATA_DIR (secret.key copied from A to B and C before they start),
# nginx port, responders and worker; one PostgreSQL (a cluster of the test's own, whatever
# CTXD_TEST_ENGINE says); an nginx upstream in front. A library added on A is answered by B
# and C (each fetches the segment from PostgreSQL); a session made on A works on C; a
# credential stored on A serves a job on B; B's worker killed in the middle of a job: C
# finishes it, once; node A stopped while questions go through the upstream: none fails; a
# GitOps sync triggered on all three nodes runs once.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/pg.sh"
. "$top_srcdir/t/lib/gitops.sh"
require_cmd jq git nginx fcgiwrap curl

pg_start
# Every node's store is the one database (t/lib/harness.sh _engine_setup), _sql reads it.
export CTXD_TEST_ENGINE=postgres CTXD_TEST_DATABASE_URL=$DATABASE_URL
# No responder starts a worker: the test starts each node's, as cron does every minute, so
# that it decides which node runs which job.
export CTXD_WORKER=/bin/true
export CTXD_TEST_WORKER_LEASE_S=10	# a lease of 10 s (renewed every second): C waits less

# Node A is the test's own instance ($T/data); B and C are $T/B/data and $T/C/data.
ctxd_setup
GIT_USER=x-access-token gitserver_start
declare -A DIR NBASE NPORT
DIR[A]=$DATA_DIR
for n in B C; do
	# README: copy DATA_DIR/secret.key from the first node to every other before it starts
	mkdir -p "$T/$n/data" && chmod 750 "$T/$n/data" &&
	    cp "${DIR[A]}/secret.key" "$T/$n/data/secret.key" || bail_out "cannot copy secret.key"
	ctxd_second_start "$n"
	DIR[$n]=$SECOND_DATA_DIR
	NBASE[$n]=$SECOND_BASE
	NPORT[$n]=${SECOND_BASE##*:}
done
ctxd_start
NBASE[A]=$BASE
NPORT[A]=$PORT
# holder NODE: the start of the lease holder of NODE's worker (host:data folder:pid).
holder() {
	printf '%s:%s:' "$(hostname)" "$(realpath "${DIR[$1]}")"
}
is "$(cmp "${DIR[A]}/secret.key" "${DIR[B]}/secret.key" && cmp "${DIR[A]}/secret.key" \
    "${DIR[C]}/secret.key" && echo same)" same "the three nodes have the one secret.key"
is "$(_sql "SELECT count(*) FROM ctxd_schema")" 1 "one schema in the one database"

ADMIN=$(ctxd_admin key create --admin tests)
J='Content-Type: application/json'
# parse NODE BODY: POST /api/parse on NODE; prints the status.
parse() {
	http POST "${NBASE[$1]}/api/parse" -H "Authorization: Bearer $ADMIN" -H "$J" --data "$2"
}
# context NODE LIBID QUERY: GET /api/v2/context through NODE's own port; prints the status.
context() {
	http GET "${NBASE[$1]}/api/v2/context" -G --data-urlencode "libraryId=$2" \
	    --data-urlencode "query=$3"
}
# node_worker NODE [ENV...]: one run of NODE's ctxd-worker in the foreground (as cron starts it).
node_worker() {
	local n=$1
	shift
	env DATA_DIR="${DIR[$n]}" "$@" "$top_builddir/ctxd-worker" 2>>"$T/log/worker-$n.log"
}
# segs NODE: the number of index segments in NODE's DATA_DIR.
segs() {
	find "${DIR[$1]}/segments" -name '*.seg' 2>/dev/null | wc -l
}

# --- A library added on A is answered on B and C ----------------------------------------
url=$(gitserver_add_bundle requests public)
is "$(parse A "{\"repoUrl\": \"$url\"}")" 202 "a library added through A's admin API"
node_worker A
is "$(wait_job /corpora/requests)" finalized "A's worker indexed it"
is "$(segs A)" 1 "A wrote its segment"
is "$(_sql "SELECT count(*) FROM segment_files")" 1 "... and stored it in PostgreSQL"
is "$(segs B) $(segs C)" "0 0" "B and C have no segment of it yet"
for n in B C; do
	is "$(context "$n" /corpora/requests "how do I send a session cookie")" 200 \
	    "node $n answers a question about it"
	like "$(http_body)" 'requests' "... from its documentation"
	is "$(segs "$n")" 1 "... from the segment it fetched into its own DATA_DIR"
done
ok "$(cmp -s "$(find "${DIR[A]}/segments" -name '*.seg')" \
    "$(find "${DIR[C]}/segments" -name '*.seg')"; echo $?)" "C's copy is A's segment byte for byte"

# --- A session made on A works on C -------------------------------------------------------
ctxd_admin_session
is "$(http GET "${NBASE[C]}/api/session" -b "$ADMIN_JAR")" 200 "A's session cookie on C: 200"
is "$(http_body | jq -r '.user.name + " " + .user.role')" "admin admin" "... the same user"
is "$(http_body | jq -r .csrfToken)" "$ADMIN_CSRF" "... the same CSRF token"
is "$(http GET "${NBASE[C]}/api/settings" -b "$ADMIN_JAR")" 200 "... and C's admin API serves it"
is "$(http POST "${NBASE[B]}/api/keys" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" -H "$J" \
    --data '{"name":"made on B"}')" 201 "the session and its CSRF token change things on B"
is "$(http DELETE "${NBASE[C]}/api/session" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF")" 200 \
    "signed out on C"
is "$(http GET "${NBASE[A]}/api/session" -b "$ADMIN_JAR")" 401 "... which ends the session on A"
ADMIN_CSRF=$(ctxd_login admin "$ADMIN_PASSWORD" "$ADMIN_JAR") || bail_out "sign-in again failed"

# --- A credential stored on A serves a job on B -------------------------------------------
private=$(gitserver_add_bundle axum private acme)
is "$(http PATCH "${NBASE[A]}/api/settings" -H "Authorization: Bearer $ADMIN" -H "$J" \
    --data "$(jq -cn --arg h "127.0.0.1:$GITPORT" --arg t "$GIT_TOKEN" \
    '{"git.github.host": $h, "git.github.token": $t}')")" 200 \
    "the git token stored through A's admin API (sealed with secret.key)"
is "$(_sql "SELECT count(*) FROM settings WHERE name = 'git.github.token' AND
    value LIKE '%$GIT_TOKEN%'")" 0 "the database holds it sealed"
is "$(parse A "{\"repoUrl\": \"$private\"}")" 202 "a private repository added on A"
job=$(http_body | jq -r .jobId)
node_worker B
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "B's worker cloned it with A's token"
is "$(_sql "SELECT lease_holder FROM jobs WHERE id = $job" | sed 's/[0-9]*$//')" "$(holder B)" \
    "... the job ran on B"
is "$(context C /acme/axum "share state between handlers")" 200 "C answers from it"
# The copy of secret.key is what makes it work: a node set up with a key of its own (the
# step of the README skipped) cannot unseal the token, and its job fails.
DIR[D]=$T/D/data
DATA_DIR=${DIR[D]} ctxd_admin init >"$T/log/init-D.log" 2>&1 || bail_out "init of node D failed"
ok "$(cmp -s "${DIR[A]}/secret.key" "${DIR[D]}/secret.key"; echo $((1 - $?)))" \
    "node D has a secret.key of its own"
is "$(parse A "{\"repoUrl\": \"$(gitserver_add_bundle axum private keyless)\"}")" 202 \
    "another private repository added on A"
job=$(http_body | jq -r .jobId)
node_worker D
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" failed "node D's worker cannot clone it"
like "$(_sql "SELECT message FROM jobs WHERE id = $job")" 'authentication failed|token' \
    "... for want of the token"

# --- B's worker killed mid-job: C finishes it ---------------------------------------------
slow=$(gitserver_add_bundle requests public slow)
is "$(parse A "{\"repoUrl\": \"$slow\"}")" 202 "another library added on A"
job=$(http_body | jq -r .jobId)
# B's job is slow (a pause before each file), C's runs at the normal pace.
env DATA_DIR="${DIR[B]}" CTXD_TEST_FILE_DELAY_MS=1000 "$top_builddir/ctxd-worker" \
    2>>"$T/log/worker-B.log" &
bpid=$!
for ((i = 0; i < 600; i++)); do
	[ "$(_sql "SELECT state FROM jobs WHERE id = $job")" = running ] && break
	sleep 0.1
done
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" running "B's worker runs the job"
is "$(_sql "SELECT lease_holder FROM jobs WHERE id = $job")" "$(holder B)$bpid" \
    "... leased to B's pool"
# Another node's worker that starts meanwhile leaves a live job alone (the three nodes share
# a host name here: a worker's own earlier claims are its node's, not its host's).
node_worker C
is "$(_sql "SELECT state || ' ' || attempts FROM jobs WHERE id = $job")" "running 1" \
    "a worker starting on C leaves B's live job to B"
is "$(_sql "SELECT lease_holder FROM jobs WHERE id = $job")" "$(holder B)$bpid" \
    "... still leased to B"
kill -9 "$bpid"
wait "$bpid" 2>/dev/null
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" running "B's worker killed in the middle of it"
# A's worker is not running (nothing starts it): only C's can take the job, once B's lease
# has lapsed. Cron would start it every minute; here every second.
start=$SECONDS
while [ $((SECONDS - start)) -lt 180 ]; do
	node_worker C
	case $(_sql "SELECT state FROM jobs WHERE id = $job") in done | failed) break ;; esac
	sleep 1
done
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "C finished the job"
is "$(_sql "SELECT lease_holder FROM jobs WHERE id = $job" | sed 's/[0-9]*$//')" "$(holder C)" \
    "... leased to C's pool"
is "$(_sql "SELECT attempts FROM jobs WHERE id = $job")" 2 "started on B, then once on C"
is "$(_sql "SELECT count(*) FROM jobs WHERE library_id = '/slow/requests'")" 1 \
    "one job for the library, run to done once"
like "$(cat "$T/log/worker-C.log")" "ran 1 job" "C's log has the run"
is "$(wait_job /slow/requests)" finalized "the library is indexed"
is "$(context B /slow/requests "how do I send a session cookie")" 200 "B answers from it"

# --- Node A stopped while questions go through the upstream: none fails --------------------
lb=$T/lb
mkdir -p "$lb/tmp"
user_line=""
[ "$(id -u)" -eq 0 ] && user_line="user root root;"
lb_conf() {
	cat >"$lb/nginx.conf" <<EOF
$user_line
daemon off;
worker_processes 1;
pid $lb/nginx.pid;
error_log stderr warn;
events { worker_connections 256; }
http {
	log_format up '\$status|\$upstream_addr|\$upstream_status';
	access_log $lb/access.log up;
	client_body_temp_path $lb/tmp/client_body;
	proxy_temp_path $lb/tmp/proxy;
	fastcgi_temp_path $lb/tmp/fastcgi;
	uwsgi_temp_path $lb/tmp/uwsgi;
	scgi_temp_path $lb/tmp/scgi;
	upstream ctxd {
		server 127.0.0.1:${NPORT[A]} max_fails=1 fail_timeout=30s;
		server 127.0.0.1:${NPORT[B]} max_fails=1 fail_timeout=30s;
		server 127.0.0.1:${NPORT[C]} max_fails=1 fail_timeout=30s;
	}
	server {
		listen 127.0.0.1:$LBPORT;
		location / {
			proxy_pass http://ctxd;
			proxy_set_header Host \$host;
			proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
			proxy_next_upstream error timeout http_502 http_503 http_504;
			proxy_connect_timeout 2s;
		}
	}
}
EOF
}
for ((try = 0; try < 5; try++)); do
	LBPORT=$(pick_port) || bail_out "no free port"
	lb_conf
	_nginx_up "$lb" "$T/log/lb.log" "$LBPORT" && break
	LBPORT=
done
[ -n "$LBPORT" ] || { _show_log "$T/log/lb.log"; bail_out "the upstream nginx did not start"; }
LB=http://127.0.0.1:$LBPORT
: >"$lb/access.log"
N=200
(
	for ((i = 0; i < N; i++)); do
		curl -s -o /dev/null -m 30 -w '%{http_code}\n' -G "$LB/api/v2/context" \
		    --data-urlencode libraryId=/corpora/requests \
		    --data-urlencode "query=how do I send a session cookie $i"
	done
) >"$T/codes" &
loop=$!
for ((i = 0; i < 600; i++)); do
	[ "$(wc -l <"$T/codes")" -ge 40 ] && break
	sleep 0.1
done
ctxd_stop
stopped_at=$(wc -l <"$T/codes")
wait "$loop"
is "$(wc -l <"$T/codes")" "$N" "$N questions sent through the upstream"
is "$(grep -vc '^200$' "$T/codes")" 0 "every one answered 200 while A stopped (after $stopped_at)"
# answered_by LINES: of the upstream's log lines LINES, how many each node answered (the
# last address of a line: the node the request went to in the end), as "A B C".
answered_by() {
	local n out=""
	for n in A B C; do
		out+=" $(sed -n "$1p" "$lb/access.log" |
		    awk -F'|' -v a="127.0.0.1:${NPORT[$n]}" '{ k = split($2, u, ", "); if (u[k] == a) c++ } END { print c + 0 }')"
	done
	echo "${out# }"
}
read -r a b c <<<"$(answered_by "1,${stopped_at}")"
ok "$([ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$c" -gt 0 ]; echo $?)" \
    "before the stop the three nodes answered ($a $b $c)"
read -r a b c <<<"$(answered_by "$((N - 40)),\$")"
is "$a" 0 "B and C answered the last 40 ($b $c)"
ok "$(grep -q "|127.0.0.1:${NPORT[A]}, " "$lb/access.log"; echo $?)" \
    "a question that A could not take went on to the next node (proxy_next_upstream)"
is "$(_http_code "${NBASE[A]}/api/v2/libs/search")" 000 "node A is down"
is "$(http GET "$LB/api/session" -b "$ADMIN_JAR")" 200 "the session made on A still works through the upstream"
is "$(http_body | jq -r .user.name)" admin "... as the same user"

# --- A GitOps sync triggered on all three nodes runs once ---------------------------------
gitops_repo_init acme/gitops
gitops_push <<YAML >/dev/null
repos:
  - url: $GITBASE/public/corpora/requests.git
  - url: $(gitserver_add_bundle axum public gitops)
YAML
is "$(http PUT "${NBASE[B]}/api/gitops/config" -H "Authorization: Bearer $ADMIN" -H "$J" \
    --data "$(jq -cn --arg u "$GITOPS_URL" '{repoUrl: $u}')")" 200 "GitOps configured on B"
# A is back (on another port), and the three nodes trigger a sync at the same moment.
ctxd_start
NBASE[A]=$BASE
pids=()
for n in A B C; do
	curl -s -o /dev/null -w '%{http_code}' -m 60 -X POST -H "Authorization: Bearer $ADMIN" \
	    "${NBASE[$n]}/api/gitops/reconcile?wait=0" >"$T/reconcile.$n" 2>&1 &
	pids+=($!)
done
wait "${pids[@]}"
for n in A B C; do
	like "$(cat "$T/reconcile.$n")" '^20[02]$' "Sync now on $n: accepted"
done
is "$(_sql "SELECT count(*) FROM gitops_runs")" 1 "one sync queued for the three triggers"
pids=()
for n in A B C; do
	node_worker "$n" &
	pids+=($!)
done
wait "${pids[@]}"
is "$(_sql "SELECT state || ' ' || attempts FROM gitops_runs")" "done 1" \
    "the three nodes' workers ran it once"
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '/gitops/axum'")" 1 "its library made once"
is "$(_sql "SELECT count(*) FROM jobs WHERE library_id = '/gitops/axum'")" 1 "... with one index job"
is "$(wait_job /gitops/axum)" finalized "... indexed"
is "$(context A /gitops/axum "share state between handlers")" 200 "A answers from it"

done_testing
