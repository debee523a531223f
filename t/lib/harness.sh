# t/lib/harness.sh: shared library of the TAP shell tests (t/tNNNN-area-what.sh).
#
# Source it first thing:   . "$top_srcdir/t/lib/harness.sh"
#
# make check runs the tests from the build directory with top_srcdir, top_builddir (absolute)
# and CORPORA (the shared git bundles) in the environment; when a test is run by hand they
# default to the tree this file is in. Set CTXD_KEEP_TMP=1 to keep the test's temp dir ($T).
#
# TAP:        plan N | ok STATUS DESC | is GOT WANT DESC | isnt GOT UNWANTED DESC |
#             like GOT ERE DESC | unlike GOT ERE DESC | pass DESC | fail DESC |
#             skip REASON [N] | diag MSG... | skip_all REASON | bail_out REASON | done_testing
#             (STATUS is an exit status: 0 passes. Example: grep -q x f; ok $? "has x")
# Service:    ctxd_setup | ctxd_start | ctxd_stop | ctxd_admin ARGS... | pick_port
# Git server: gitserver_start | gitserver_add_bundle NAME public|private [OWNER]
# Fixture web sites (websites, llms.txt, OpenAPI, wiki): t/lib/fixtures.sh
# Helpers:    http METHOD URL [CURL ARGS...] | http_body | http_header NAME | wait_job LIBID |
#             require_cmd CMD...
#
# Everything started here (responders, nginx, fcgiwrap, and any ctxd process whose DATA_DIR is
# this test's) is stopped when the test script exits.

set -u

if [ -z "${top_srcdir:-}" ]; then
	top_srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fi
top_builddir=${top_builddir:-$top_srcdir}
CORPORA=${CORPORA:-$top_srcdir/t/corpora}
export top_srcdir top_builddir CORPORA
# The schema version this build writes: 1 + the migrations sql/NNNN-name.sql (script/sql2c;
# their PostgreSQL twins in sql/pg/ not counted).
SCHEMA_VERSION=$((1 + $(find "$top_srcdir/sql" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.sql' | wc -l)))
export SCHEMA_VERSION
# The responders start ctxd-worker themselves: let them find the one just built.
PATH="$top_builddir:$PATH"
export PATH

# ------------------------------------------------------------------------------------ TAP

_tap_n=0
_tap_failed=0
_tap_planned=""

# plan N: announce the number of tests up front (otherwise done_testing prints the plan).
plan() {
	_tap_planned=$1
	echo "1..$1"
}

# skip_all REASON: the whole test is skipped; exits.
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# bail_out REASON: abort the test run (TAP "Bail out!"); exits non-zero.
bail_out() {
	echo "Bail out! $*"
	exit 1
}

# diag MSG...: each line of each MSG as a TAP comment (shows up in the test's .log).
diag() {
	local arg line
	for arg in "$@"; do
		while IFS= read -r line; do
			echo "# $line"
		done <<<"$arg"
	done
}

# _tap_result OK DESC: print one test point.
_tap_result() {
	_tap_n=$((_tap_n + 1))
	local desc=${2//#/\\#}
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $desc"
	else
		_tap_failed=$((_tap_failed + 1))
		echo "not ok $_tap_n - $desc"
		local caller_line=${BASH_LINENO[1]:-?} caller_file=${BASH_SOURCE[2]:-?}
		diag "  Failed test '$2' at ${caller_file##*/} line $caller_line."
	fi
	return "$1"
}

pass() { _tap_result 0 "$1"; }
fail() { _tap_result 1 "$1" || true; return 1; }

# ok STATUS DESC: passes when STATUS (an exit status) is 0.
ok() {
	local st=1
	[ "$1" = 0 ] && st=0
	_tap_result "$st" "$2"
}

# is GOT WANT DESC: string equality.
is() {
	if [ "$1" = "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3" || true
		diag "         got: '$1'" "    expected: '$2'"
		return 1
	fi
}

# isnt GOT UNWANTED DESC
isnt() {
	if [ "$1" != "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3" || true
		diag "         got: '$1'" "    expected: anything else"
		return 1
	fi
}

# like GOT ERE DESC: GOT matches the extended regular expression ERE (bash =~).
like() {
	if [[ $1 =~ $2 ]]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3" || true
		diag "                  '${1:0:2000}'" "    doesn't match '$2'"
		return 1
	fi
}

# unlike GOT ERE DESC
unlike() {
	if ! [[ $1 =~ $2 ]]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3" || true
		diag "                  '${1:0:2000}'" "          matches '$2'"
		return 1
	fi
}

# skip REASON [N]: N (default 1) skipped test points.
skip() {
	local i n=${2:-1}
	for ((i = 0; i < n; i++)); do
		_tap_n=$((_tap_n + 1))
		echo "ok $_tap_n # skip $1"
	done
}

# done_testing: print the plan (unless plan was called) and exit: 0 when every test passed.
done_testing() {
	if [ -z "$_tap_planned" ]; then
		echo "1..$_tap_n"
	elif [ "$_tap_planned" -ne "$_tap_n" ]; then
		diag "planned $_tap_planned tests but ran $_tap_n"
		exit 1
	fi
	[ "$_tap_failed" -eq 0 ] || exit 1
	exit 0
}

# require_cmd CMD...: skip the whole test when a command is missing.
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "$c is not installed"
	done
}

# ------------------------------------------------------------------------- process control

T=""
_harness_pids=()	# process group leaders started with setsid, stopped at exit
_nginx_pid=""
_git_nginx_pid=""
_fcgiwrap_pid=""
_responder_pids=()

# _spawn LOG CMD...: start CMD in its own session/process group, output appended to LOG;
# sets _spawned to its pid (= its process group id).
_spawn() {
	local log=$1
	shift
	setsid "$@" </dev/null >>"$log" 2>&1 &
	_spawned=$!
	_harness_pids+=("$_spawned")
}

# _alive PID: PID is running (a zombie, i.e. exited but not yet waited for, is not).
_alive() {
	local stat
	[ -n "$1" ] || return 1
	read -r stat 2>/dev/null </proc/"$1"/stat || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# _stop_group PID [SIGNAL]: signal the process group PID (and PID itself), wait up to 5 s for
# it to go, then SIGKILL the group.
_stop_group() {
	local pid=$1 sig=${2:-TERM} i
	[ -n "$pid" ] || return 0
	kill -"$sig" -- "-$pid" 2>/dev/null || kill -"$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		_alive "$pid" || break
		sleep 0.1
	done
	kill -KILL -- "-$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# _kill_strays: kill any process left whose environment has this test's DATA_DIR, or the
# DATA_DIR of another instance under $T (ctxd_second_start's), e.g. a ctxd-worker that a
# responder spawned detached.
_kill_strays() {
	[ -n "$T" ] || return 0
	local f pid found=() re
	re=$(printf '%s' "$T" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
	for f in /proc/[0-9]*/environ; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" = "$$" ] && continue
		if grep -qzE "^DATA_DIR=$re(/[^/]+)?/data\$" "$f" 2>/dev/null; then
			found+=("$pid")
		fi
	done
	[ "${#found[@]}" -gt 0 ] || return 0
	kill -TERM "${found[@]}" 2>/dev/null || true
	sleep 0.3
	kill -KILL "${found[@]}" 2>/dev/null || true
}

_harness_cleanup() {
	local st=$? pid
	trap - EXIT INT TERM
	if _alive "$_nginx_pid"; then
		_stop_group "$_nginx_pid" QUIT
	fi
	if _alive "$_git_nginx_pid"; then
		_stop_group "$_git_nginx_pid" QUIT
	fi
	for pid in "${_harness_pids[@]}"; do
		_stop_group "$pid" TERM
	done
	# What a helper library started outside the process groups above (t/lib/pg.sh's cluster).
	for pid in "${_harness_hooks[@]}"; do
		"$pid" || true
	done
	_kill_strays
	if [ -n "$T" ] && [ -d "$T" ]; then
		if [ -n "${CTXD_KEEP_TMP:-}" ]; then
			echo "# kept $T" >&2
		else
			rm -rf "$T"
		fi
	fi
	exit "$st"
}
_harness_hooks=()
trap _harness_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# _show_log FILE: the tail of a log as TAP comments.
_show_log() {
	[ -s "$1" ] || return 0
	diag "--- ${1#"$T"/} (last 30 lines):"
	diag "$(tail -n 30 "$1")"
}

# -------------------------------------------------------------------------------- service

# ctxd_admin ARGS...: run the ctxd-admin just built, with this test's environment.
ctxd_admin() {
	"$top_builddir/ctxd-admin" "$@"
}

# ctxd_setup: create $T (removed at exit), DATA_DIR=$T/data, a LICENSE_KEY minted with the
# development key (extra mint options in $LICENSE_MINT_ARGS), run ctxd-admin init, and set
# fetch.allowed_networks to $CTXD_TEST_NETWORKS (the loopback listed) and
# git.plain_http_hosts to 127.0.0.1.
ctxd_setup() {
	if [ -z "$T" ]; then
		T=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-test.XXXXXX") || bail_out "mktemp failed"
		chmod 755 "$T"
	fi
	mkdir -p "$T/log" "$T/run"
	DATA_DIR=$T/data
	export DATA_DIR T
	_engine_setup
	[ -x "$top_builddir/ctxd-admin" ] || bail_out "$top_builddir/ctxd-admin is not built"
	local key
	# LICENSE_MINT_ARGS is split on blanks on purpose.
	# shellcheck disable=SC2086
	if ! key=$(ctxd_admin license mint --key "$top_srcdir/keys/dev-license.key" \
	    ${LICENSE_MINT_ARGS:-} 2>"$T/log/mint.err"); then
		_show_log "$T/log/mint.err"
		bail_out "ctxd-admin license mint failed"
	fi
	LICENSE_KEY=$(printf '%s\n' "$key" | sed -n '/[^[:space:]]/{s/^[[:space:]]*//;s/[[:space:]]*$//;p;q;}')
	export LICENSE_KEY
	if ! ctxd_admin init >"$T/log/init.log" 2>&1; then
		_show_log "$T/log/init.log"
		bail_out "ctxd-admin init failed"
	fi
	# The git server and the stand-ins of the tests listen on the loopback, which the
	# default address policy refuses: list it (t0125 checks the default), and let the
	# tokens go to the test git server over plain http.
	ctxd_admin settings set fetch.allowed_networks "$CTXD_TEST_NETWORKS" >>"$T/log/init.log" 2>&1 &&
	    ctxd_admin settings set git.plain_http_hosts 127.0.0.1 >>"$T/log/init.log" 2>&1 ||
	    bail_out "cannot set fetch.allowed_networks: $(cat "$T/log/init.log")"
}

# The address policy of the tests: the default private ranges and the loopback.
CTXD_TEST_NETWORKS="127.0.0.0/8, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7"

# pick_port: print a random TCP port in 20000-60000 that nothing listens on.
pick_port() {
	local port i
	for ((i = 0; i < 100; i++)); do
		port=$((20000 + (RANDOM * 32768 + RANDOM) % 40001))
		if [ -z "$(ss -ltnH "sport = :$port" 2>/dev/null)" ]; then
			echo "$port"
			return 0
		fi
	done
	return 1
}

# _http_code URL: the HTTP status of a GET, 000 when nothing answers.
_http_code() {
	curl -s -o /dev/null -m 5 -w '%{http_code}' "$1" 2>/dev/null || true
}

# _nginx_start PREFIX LOG VAR_PID VAR_PORT: start nginx (config already rendered for the port
# in VAR_PORT, re-rendered by the RENDER callback on retry) and wait until it answers.
# Retries with another port when the port was taken meanwhile (tests run in parallel).
# Returns 1 when it does not come up.
_nginx_up() {
	local prefix=$1 log=$2 port=$3 i
	_spawn "$log" nginx -p "$prefix/" -c "$prefix/nginx.conf" -e stderr
	for ((i = 0; i < 100; i++)); do
		if ! _alive "$_spawned"; then
			wait "$_spawned" 2>/dev/null || true
			return 1
		fi
		[ "$(_http_code "http://127.0.0.1:$port/")" != 000 ] && return 0
		sleep 0.1
	done
	return 1
}

# ctxd_nginx_start: render the ctxd nginx config for a free port into $T/nginx and start nginx
# (no responders). Exports PORT and BASE. Used by ctxd_start.
ctxd_nginx_start() {
	local try
	[ -n "$T" ] || bail_out "ctxd_setup first"
	for ((try = 0; try < 5; try++)); do
		PORT=$(pick_port) || bail_out "no free port"
		"$top_srcdir/script/nginx-conf" "$T/nginx" "127.0.0.1:$PORT" "$T/run" \
		    "$top_srcdir/htdocs" || bail_out "script/nginx-conf failed"
		if _nginx_up "$T/nginx" "$T/log/nginx.log" "$PORT"; then
			_nginx_pid=$_spawned
			BASE=http://127.0.0.1:$PORT
			export PORT BASE
			return 0
		fi
		grep -q 'Address already in use' "$T/log/nginx.log" 2>/dev/null || break
	done
	_show_log "$T/log/nginx.log"
	bail_out "nginx did not start"
}

# ctxd_start: start ctxd-query, ctxd-web, ctxd-mcp and ctxd-hook (--socket in $T/run, --workers 2)
# and nginx on a free port; wait until /api/v2/libs/search answers. Exports PORT and BASE.
ctxd_start() {
	local name i code all names=(query web mcp hook)
	[ -n "$T" ] || ctxd_setup
	_responder_pids=()
	for name in "${names[@]}"; do
		rm -f "$T/run/$name.sock"
		_spawn "$T/log/$name.log" "$top_builddir/ctxd-$name" \
		    --socket "$T/run/$name.sock" --workers 2
		_responder_pids+=("$_spawned")
	done
	for ((i = 0; i < 100; i++)); do
		all=1
		for name in "${names[@]}"; do
			[ -S "$T/run/$name.sock" ] || all=0
		done
		[ "$all" -eq 1 ] && break
		for name in "${!names[@]}"; do
			if ! _alive "${_responder_pids[$name]}"; then
				for name in "${names[@]}"; do
					_show_log "$T/log/$name.log"
				done
				bail_out "a responder exited at start"
			fi
		done
		sleep 0.1
	done
	if [ "$all" -ne 1 ]; then
		for name in "${names[@]}"; do
			_show_log "$T/log/$name.log"
		done
		bail_out "the responders did not create their sockets"
	fi
	ctxd_nginx_start
	for ((i = 0; i < 100; i++)); do
		code=$(_http_code "$BASE/api/v2/libs/search")
		case $code in
		000 | 502 | 503 | 504) ;;
		*) return 0 ;;
		esac
		sleep 0.1
	done
	_show_log "$T/log/nginx.log"
	_show_log "$T/log/query.log"
	bail_out "ctxd does not answer on $BASE (last status $code)"
}

# ctxd_stop: stop nginx and the responders started by ctxd_start (the data stays).
ctxd_stop() {
	local pid keep=() p
	if _alive "$_nginx_pid"; then
		_stop_group "$_nginx_pid" QUIT
	fi
	for pid in "${_responder_pids[@]}"; do
		_stop_group "$pid" TERM
	done
	for p in "${_harness_pids[@]}"; do
		[ "$p" = "$_nginx_pid" ] && continue
		case " ${_responder_pids[*]} " in *" $p "*) continue ;; esac
		keep+=("$p")
	done
	_harness_pids=("${keep[@]}")
	_nginx_pid=""
	_responder_pids=()
}

# ------------------------------------------------------------------------------ git server

# gitserver_start: a second nginx + fcgiwrap + git-http-backend serving $T/gitsrv over smart
# HTTP. Repositories under /git/public/ are open; under /git/private/ they need basic auth as
# user "git" with password $GIT_TOKEN (default: random). Exports GITPORT, GITBASE
# (http://127.0.0.1:GITPORT/git), GIT_USER (default git) and GIT_TOKEN. GITSERVER_CHILDREN
# (default 2) is the number of fcgiwrap processes, i.e. of git requests served at once.
gitserver_start() {
	local prefix try backend=/usr/lib/git-core/git-http-backend i
	[ -n "$T" ] || ctxd_setup
	# The corpora it serves: checked here, in the test's own shell (gitserver_add_bundle
	# runs in $(...), where a bail-out would end only the subshell and leave the test waiting
	# on a job that cannot clone).
	"$top_srcdir/t/lib/prereq.sh" corpora 2>"$T/log/prereq.log" ||
	    bail_out "$(sed 's/^test: //' "$T/log/prereq.log")"
	[ -x "$backend" ] || bail_out "$backend not found (run script/bootstrap: package git)"
	command -v fcgiwrap >/dev/null 2>&1 ||
	    bail_out "fcgiwrap is not installed (run script/bootstrap)"
	prefix=$T/gitnginx
	mkdir -p "$prefix/tmp" "$T/gitsrv/public" "$T/gitsrv/private" "$T/run"
	GIT_USER=${GIT_USER:-git}
	GIT_TOKEN=${GIT_TOKEN:-$(openssl rand -hex 16)}
	export GIT_USER GIT_TOKEN
	printf '%s:%s\n' "$GIT_USER" "$(openssl passwd -apr1 "$GIT_TOKEN")" >"$prefix/htpasswd"

	rm -f "$T/run/fcgiwrap.sock"
	case ${GITSERVER_CHILDREN:-2} in
	'' | *[!0-9]* | 0) bail_out "GITSERVER_CHILDREN must be a positive number" ;;
	esac
	_spawn "$T/log/fcgiwrap.log" fcgiwrap -c "${GITSERVER_CHILDREN:-2}" \
	    -s "unix:$T/run/fcgiwrap.sock"
	_fcgiwrap_pid=$_spawned
	for ((i = 0; i < 50; i++)); do
		[ -S "$T/run/fcgiwrap.sock" ] && break
		_alive "$_fcgiwrap_pid" || break
		sleep 0.1
	done
	if [ ! -S "$T/run/fcgiwrap.sock" ]; then
		_show_log "$T/log/fcgiwrap.log"
		bail_out "fcgiwrap did not start"
	fi

	for ((try = 0; try < 5; try++)); do
		GITPORT=$(pick_port) || bail_out "no free port"
		_gitserver_conf "$prefix" "$backend"
		if _nginx_up "$prefix" "$T/log/gitnginx.log" "$GITPORT"; then
			_git_nginx_pid=$_spawned
			GITBASE=http://127.0.0.1:$GITPORT/git
			export GITPORT GITBASE
			return 0
		fi
		grep -q 'Address already in use' "$T/log/gitnginx.log" 2>/dev/null || break
	done
	_show_log "$T/log/gitnginx.log"
	bail_out "the git server's nginx did not start"
}

# _gitserver_conf PREFIX BACKEND: write the git server's nginx.conf for $GITPORT.
_gitserver_conf() {
	local prefix=$1 backend=$2 user_line=""
	[ "$(id -u)" -eq 0 ] && user_line="user root root;"
	cat >"$prefix/fastcgi-git.conf" <<EOF
fastcgi_pass unix:$T/run/fcgiwrap.sock;
fastcgi_param SCRIPT_FILENAME $backend;
fastcgi_param GIT_PROJECT_ROOT $T/gitsrv;
fastcgi_param GIT_HTTP_EXPORT_ALL "";
fastcgi_param PATH_INFO \$1;
fastcgi_param REMOTE_USER \$remote_user;
fastcgi_param REQUEST_METHOD \$request_method;
fastcgi_param QUERY_STRING \$query_string;
fastcgi_param CONTENT_TYPE \$content_type;
fastcgi_param CONTENT_LENGTH \$content_length;
fastcgi_param REQUEST_URI \$request_uri;
fastcgi_param SERVER_PROTOCOL \$server_protocol;
fastcgi_param REMOTE_ADDR \$remote_addr;
fastcgi_param SERVER_NAME \$server_name;
fastcgi_param SERVER_PORT \$server_port;
fastcgi_param GIT_CONFIG_NOSYSTEM 1;
fastcgi_param HOME $T/gitsrv;
EOF
	cat >"$prefix/nginx.conf" <<EOF
$user_line
daemon off;
worker_processes 1;
pid $prefix/nginx.pid;
error_log stderr warn;
events { worker_connections 256; }
http {
	access_log off;
	default_type application/octet-stream;
	client_body_temp_path $prefix/tmp/client_body;
	proxy_temp_path $prefix/tmp/proxy;
	fastcgi_temp_path $prefix/tmp/fastcgi;
	uwsgi_temp_path $prefix/tmp/uwsgi;
	scgi_temp_path $prefix/tmp/scgi;
	server {
		listen 127.0.0.1:$GITPORT;
		server_tokens off;
		client_max_body_size 100m;
		location = / { return 200 "test git server"; }
		location ~ ^/git(/private/.*)\$ {
			auth_basic "ctxd test git server";
			auth_basic_user_file $prefix/htpasswd;
			include $prefix/fastcgi-git.conf;
		}
		location ~ ^/git(/.*)\$ {
			include $prefix/fastcgi-git.conf;
		}
	}
}
EOF
}

# gitserver_add_bundle NAME public|private [OWNER]: clone $CORPORA/NAME.bundle bare into
# $T/gitsrv/VISIBILITY/OWNER/NAME.git (OWNER default "corpora") and print its clone URL
# ($GITBASE/VISIBILITY/OWNER/NAME.git).
gitserver_add_bundle() {
	local name=$1 vis=$2 owner=${3:-corpora} dir
	case $vis in
	public | private) ;;
	*) bail_out "gitserver_add_bundle: visibility must be public or private, not '$vis'" ;;
	esac
	[ -r "$CORPORA/$name.bundle" ] || bail_out "no bundle $CORPORA/$name.bundle: restore the" \
	    "corpora with git checkout -- t/corpora, or point CORPORA at the folder of the bundles"
	dir=$T/gitsrv/$vis/$owner/$name.git
	mkdir -p "${dir%/*}"
	if ! git clone -q --bare "$CORPORA/$name.bundle" "$dir" >"$T/log/bundle-$name.log" 2>&1 ||
	    ! git -C "$dir" update-server-info >>"$T/log/bundle-$name.log" 2>&1; then
		_show_log "$T/log/bundle-$name.log"
		bail_out "cannot serve bundle $name"
	fi
	echo "${GITBASE:-http://127.0.0.1:0/git}/$vis/$owner/$name.git"
}

# ---------------------------------------------------------------------------------- helpers

# http METHOD URL [CURL ARGS...]: make a request; prints the HTTP status (000 when nothing
# answered). The body is in $T/http.body (see http_body), the headers in $T/http.headers.
# Always returns 0.
http() {
	local method=$1 url=$2
	shift 2
	local out="${T:-${TMPDIR:-/tmp}}"
	local args=(-sS -o "$out/http.body" -D "$out/http.headers" -w '%{http_code}' -m 60)
	if [ "$method" = HEAD ]; then
		args+=(-I)
	else
		args+=(-X "$method")
	fi
	rm -f "$out/http.body" "$out/http.headers"
	curl "${args[@]}" "$@" "$url" || true
	: >>"$out/http.body"
	: >>"$out/http.headers"
}

# http_body: the body of the last http request.
http_body() {
	cat "${T:-${TMPDIR:-/tmp}}/http.body"
}

# http_header NAME: the value of header NAME (case-insensitive) of the last http request.
http_header() {
	local name
	name=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')
	tr -d '\r' <"${T:-${TMPDIR:-/tmp}}/http.headers" |
	    awk -v n="$name" 'BEGIN { FS = ": *" } tolower($1) == n { sub(/^[^:]*: */, ""); v = $0 } END { if (v != "") print v }'
}

# _sql QUERY: run a read query against the instance's store with a busy timeout:
# $DATA_DIR/ctxd.db, or with CTXD_TEST_ENGINE=postgres the instance's PostgreSQL database
# (rows unaligned, fields split by |; a lone boolean as 1 or 0; t/lib/pg-shims.sql gives it
# the few SQLite functions the tests' queries use).
_sql() {
	if [ "$(ctxd_test_engine)" = postgres ]; then
		# A lone boolean reads as SQLite's 1 or 0 (psql prints t or f).
		local out rc
		out=$(PGOPTIONS='-c client_min_messages=warning' "$_PG_BIN/psql" -X -q -A -t \
		    -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "$1")
		rc=$?
		case $out in t) out=1 ;; f) out=0 ;; esac
		[ -z "$out" ] || printf '%s\n' "$out"
		return "$rc"
	fi
	sqlite3 -batch -noheader -cmd '.timeout 5000' "$DATA_DIR/ctxd.db" "$1"
}

# hold_writer SECONDS TABLE: in the background, another connection holds the store's writer
# for SECONDS: on SQLite the one writer (BEGIN IMMEDIATE), on PostgreSQL, whose writers lock
# rows, TABLE against every write (LOCK TABLE ... IN EXCLUSIVE MODE); reads go on. Sets
# HOLDER to its pid (wait "$HOLDER" when it should be over); its errors go to
# $T/log/holder.log.
hold_writer() {
	if [ "$(ctxd_test_engine)" = sqlite ]; then
		printf 'BEGIN IMMEDIATE;\n.shell sleep %s\nCOMMIT;\n' "$1" |
		    sqlite3 -batch "$DATA_DIR/ctxd.db" >/dev/null 2>"$T/log/holder.log" &
	else
		_sql "BEGIN; LOCK TABLE $2 IN EXCLUSIVE MODE; SELECT pg_sleep($1); COMMIT;" \
		    >/dev/null 2>"$T/log/holder.log" &
	fi
	HOLDER=$!
}

# ------------------------------------------------------------------------ storage engine

# ctxd_test_engine: the engine the tests' instances use: sqlite (the default) or postgres
# (CTXD_TEST_ENGINE=postgres: script/test --engine postgres).
ctxd_test_engine() {
	case ${CTXD_TEST_ENGINE:-sqlite} in
	postgres | pg) echo postgres ;;
	*) echo sqlite ;;
	esac
}

# engine_sqlite_only REASON: the test checks something only the SQLite engine has (its
# file, its shell): skipped under CTXD_TEST_ENGINE=postgres. Call it before ctxd_setup.
engine_sqlite_only() {
	[ "$(ctxd_test_engine)" = postgres ] && skip_all "SQLite only: $*"
	return 0
}

# schema_version [N]: print the instance's schema version (SQLite's PRAGMA user_version,
# PostgreSQL's ctxd_schema row: lib/store/db.c), or with N set it (a faked older or newer
# database).
schema_version() {
	if [ "$(ctxd_test_engine)" = postgres ]; then
		if [ $# -eq 0 ]; then
			_sql 'SELECT version FROM ctxd_schema'
		else
			_sql "UPDATE ctxd_schema SET version = $(($1))"
		fi
	elif [ $# -eq 0 ]; then
		_sql 'PRAGMA user_version'
	else
		_sql "PRAGMA user_version = $(($1))"
	fi
}

_engine_instances=0
# _engine_setup: with CTXD_TEST_ENGINE=postgres, a throwaway cluster for the test (t/lib/pg.sh,
# started once) and a database of the instance's own (each ctxd_setup: a second instance gets
# another), with the tests' SQLite shims; exports DATABASE_URL. Nothing with SQLite.
# With CTXD_TEST_DATABASE_URL set too (a database of the cluster pg_start started), every
# instance uses that one database instead: the nodes of one service (t0146), which share
# their store; the shims are loaded into it once.
_engine_setup() {
	[ "$(ctxd_test_engine)" = postgres ] || return 0
	if [ -n "${CTXD_TEST_DATABASE_URL:-}" ]; then
		[ -n "${_PG_BIN:-}" ] || bail_out "CTXD_TEST_DATABASE_URL: pg_start (t/lib/pg.sh) first"
		export DATABASE_URL=$CTXD_TEST_DATABASE_URL
		[ "$("$_PG_BIN/psql" -X -q -A -t "$DATABASE_URL" \
		    -c "SELECT to_regproc('group_concat_step1') IS NULL")" = f ] && return 0
		PGOPTIONS='-c client_min_messages=warning' "$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
		    "$DATABASE_URL" -f "$top_srcdir/t/lib/pg-shims.sql" >/dev/null ||
		    bail_out "t/lib/pg-shims.sql"
		return 0
	fi
	if [ -z "${_pg_dir:-}" ]; then
		. "$top_srcdir/t/lib/pg.sh"
		pg_start
		_ENGINE_PG_BASE=${DATABASE_URL%/*}
	fi
	_engine_instances=$((_engine_instances + 1))
	local db=ctxd$_engine_instances
	"$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$_ENGINE_PG_BASE/ctxd" -c "CREATE DATABASE $db" ||
	    bail_out "CREATE DATABASE $db"
	export DATABASE_URL=$_ENGINE_PG_BASE/$db
	PGOPTIONS='-c client_min_messages=warning' "$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
	    "$DATABASE_URL" -f "$top_srcdir/t/lib/pg-shims.sql" >/dev/null ||
	    bail_out "t/lib/pg-shims.sql"
}

# index_check: each library's index segment (of its current version) is the one its database
# rows make, byte for byte (t/unit/index-check writes it again through the worker's path):
# prints "ok" or what differs.
index_check() {
	"$top_builddir/t/unit/index-check" "$DATA_DIR" 2>/dev/null
}

# wait_job LIBID: wait (up to ${WAIT_TIMEOUT:-120} s) until library LIBID's state is
# "finalized" (returns 0) or "error" (returns 1; also on timeout). Prints the last state.
wait_job() {
	local id=${1//\'/\'\'} state="" deadline
	deadline=$((SECONDS + ${WAIT_TIMEOUT:-120}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		state=$(_sql "SELECT state FROM libraries WHERE id = '$id';" 2>/dev/null || true)
		case $state in
		finalized) echo "$state"; return 0 ;;
		error) echo "$state"; return 1 ;;
		esac
		sleep 0.2
	done
	echo "${state:-missing}"
	diag "wait_job $1: timed out after ${WAIT_TIMEOUT:-120} s (state ${state:-missing})" >&2
	return 1
}

# wait_jobid ID: wait (up to ${WAIT_TIMEOUT:-120} s) until job ID is done or failed. Prints
# nothing; returns 0 when done, 1 when failed or on timeout.
wait_jobid() {
	local state="" deadline
	deadline=$((SECONDS + ${WAIT_TIMEOUT:-120}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		state=$(_sql "SELECT state FROM jobs WHERE id = ${1//[^0-9]/};" 2>/dev/null || true)
		case $state in
		done) return 0 ;;
		failed) return 1 ;;
		esac
		sleep 0.2
	done
	diag "wait_jobid $1: timed out after ${WAIT_TIMEOUT:-120} s (state ${state:-missing})"
	return 1
}

# test_repo OWNER/NAME: a repository a test writes, served by the local git server: a bare
# repository $bare ($T/gitsrv/public/OWNER/NAME.git, cloned as $GITBASE/public/OWNER/NAME.git)
# and its work tree $work ($T/work), branch main. Defines put PATH (the work tree's file PATH
# from standard input) and commit MESSAGE [TAG] (commits the work tree, tags it when TAG is
# given, and pushes main and the tags; bails out on failure).
test_repo() {
	bare=$T/gitsrv/public/$1.git
	work=$T/work
	mkdir -p "${bare%/*}" "$work"
	git init -q --bare "$bare" || bail_out "git init $bare"
	git -C "$work" init -q -b main || bail_out "git init $work"
	put() { mkdir -p "$(dirname "$work/$1")" && cat >"$work/$1"; }
	commit() {
		git -C "$work" add -A &&
		    git -C "$work" -c user.name=t -c user.email=t@t commit -q -m "$1" &&
		    { [ -z "${2:-}" ] || git -C "$work" tag "$2"; } &&
		    git -C "$work" push -q -f --tags "$bare" main:main 2>"$T/log/push.log" ||
		    bail_out "cannot commit $1"
	}
}

# worker [vg]: one run of ctxd-worker, its stderr in $T/log/workerN.log (N counts the runs,
# in worker_runs); with vg, under the command in the array VG (vg_init's valgrind, unless the
# test set VG itself; nothing when valgrind cannot run).
# Checks that it exits 0 and that its log holds no sanitizer or valgrind report.
worker_runs=0
worker() {
	local wrap=() log
	worker_runs=$((worker_runs + 1))
	log=$T/log/worker$worker_runs.log
	if [ "${1:-}" = vg ]; then
		[ -n "${VG+set}" ] || vg_init
		wrap=("${VG[@]}")
	fi
	"${wrap[@]}" "$top_builddir/ctxd-worker" 2>"$log"
	is $? 0 "worker run $worker_runs exits 0${wrap:+ (valgrind-clean)}"
	if grep -qE 'Sanitizer|runtime error|==[0-9]+==' "$log"; then
		fail "worker run $worker_runs: sanitizer or valgrind report"
		diag "$(head -40 "$log")"
	fi
}

# vg_init: VG=(valgrind and its options) when valgrind is installed and the build has no
# sanitizers (an ASan binary cannot run under it), else VG=() (worker vg then runs it bare).
vg_init() {
	VG=()
	if command -v valgrind >/dev/null 2>&1 && ! ldd "$top_builddir/ctxd-worker" | grep -q libasan; then
		VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
		    --errors-for-leak-kinds=definite,indirect --track-fds=no)
	fi
}

# standin_embedder MODEL: the vendors' stand-in (standin_start first) as the OpenAI LLM and
# embedder, with embedding model MODEL and a key it accepts; bails out when a setting fails.
standin_embedder() {
	ctxd_admin settings set ai.llm.provider openai >/dev/null &&
	    ctxd_admin settings set ai.llm.base_url "$SBASE" >/dev/null &&
	    ctxd_admin settings set ai.embed.model "$1" >/dev/null &&
	    printf 'sk-good-%s\n' "$(openssl rand -hex 6)" | ctxd_admin settings set ai.llm.api_key - >/dev/null ||
	    bail_out "cannot set the embedder"
}

# standin_start: start the AI vendors' stand-in (t/standin/vendors.js, Node) on a free port
# (stopped at exit with the rest). Sets standin_pid, SPORT and SBASE (http://127.0.0.1:SPORT).
standin_start() {
	[ -n "$T" ] || ctxd_setup
	_spawn "$T/log/standin.log" node "$top_srcdir/t/standin/vendors.js" 0
	standin_pid=$_spawned
	SPORT=$(_standin_port "$T/log/standin.log" "$standin_pid") ||
	    bail_out "the vendor stand-in did not start"
	SBASE=http://127.0.0.1:$SPORT
}

# _standin_port LOG PID: wait (up to 10 s) for the port that stand-in PID prints on the
# first line of LOG, and print it; on failure show LOG and return 1.
_standin_port() {
	local i port=""
	for ((i = 0; i < 100; i++)); do
		port=$(sed -n '1{/^[0-9][0-9]*$/p;}' "$1" 2>/dev/null)
		[ -n "$port" ] && break
		_alive "$2" || break
		sleep 0.1
	done
	[ -n "$port" ] || { _show_log "$1" >&2; return 1; }
	echo "$port"
}

# wiki_standin_start KIND [ARGS...]: start the wiki stand-in (t/standin/wiki.js, Node) of
# KIND (cloud or datacenter) on a free port, with its options ARGS (--token, --email,
# --context, --limit; stopped at exit with the rest). Sets wiki_standin_pid, WPORT and
# WBASE (http://127.0.0.1:WPORT). Its log is $T/log/wiki-standin.N.log (N counts the starts).
wiki_standin_start() {
	local kind=$1 log
	shift
	[ -n "$T" ] || ctxd_setup
	[ -d "$CORPORA/fixtures/wiki/storage/testdata" ] ||
	    bail_out "no wiki fixtures in $CORPORA/fixtures/wiki: restore the corpora with" \
	    "git checkout -- t/corpora, or point CORPORA at the folder of the bundles"
	_wiki_standins=$((${_wiki_standins:-0} + 1))
	log=$T/log/wiki-standin.$_wiki_standins.log
	_spawn "$log" node "$top_srcdir/t/standin/wiki.js" "$kind" 0 \
	    --data "$CORPORA/fixtures/wiki/storage/testdata" "$@"
	wiki_standin_pid=$_spawned
	WPORT=$(_standin_port "$log" "$wiki_standin_pid") ||
	    bail_out "the wiki stand-in did not start"
	WBASE=http://127.0.0.1:$WPORT
}

# github_standin_start ARGS...: start the GitHub App API stand-in (t/standin/github.js,
# Node) on a free port with its options ARGS (--app-id, --public-key, --token,
# --installation, --repos, --ttl; stopped at exit with the rest). Sets github_standin_pid,
# GHPORT and GHBASE (http://127.0.0.1:GHPORT). Its log is $T/log/github-standin.log.
github_standin_start() {
	[ -n "$T" ] || ctxd_setup
	_spawn "$T/log/github-standin.log" node "$top_srcdir/t/standin/github.js" 0 "$@"
	github_standin_pid=$_spawned
	GHPORT=$(_standin_port "$T/log/github-standin.log" "$github_standin_pid") ||
	    bail_out "the GitHub stand-in did not start"
	GHBASE=http://127.0.0.1:$GHPORT
}

# ------------------------------------------------------------------------------ accounts

# ctxd_login USER PASSWORD [JAR]: sign in with POST /api/session; the session cookie goes to
# the cookie jar JAR (default $T/cookies; pass it to curl with -b JAR) and the CSRF token is
# printed (send it as -H "X-CSRF-Token: ..." on every state-changing call). Returns 1 when
# the sign-in fails (the answer is in http_body).
ctxd_login() {
	local jar=${3:-$T/cookies} code
	code=$(http POST "$BASE/api/session" -c "$jar" -H 'Content-Type: application/json' \
	    --data "$(jq -cn --arg u "$1" --arg p "$2" '{username: $u, password: $p}')")
	[ "$code" = 200 ] || return 1
	http_body | jq -r .csrfToken
}

# ctxd_admin_session [PASSWORD]: sign in as the default admin/admin, change the password to
# PASSWORD (default $ADMIN_PASSWORD, else a fixed test one) and export ADMIN_PASSWORD,
# ADMIN_JAR (cookie jar of that session) and ADMIN_CSRF. Bails out on failure.
ctxd_admin_session() {
	ADMIN_PASSWORD=${1:-${ADMIN_PASSWORD:-admin test password 1}}
	ADMIN_JAR=$T/cookies.admin
	ADMIN_CSRF=$(ctxd_login admin admin "$ADMIN_JAR") || bail_out "sign-in as admin/admin failed: $(http_body)"
	[ "$(http POST "$BASE/api/password" -b "$ADMIN_JAR" -H "X-CSRF-Token: $ADMIN_CSRF" \
	    -H 'Content-Type: application/json' --data "$(jq -cn --arg p "$ADMIN_PASSWORD" \
	    '{currentPassword: "admin", newPassword: $p}')")" = 200 ] ||
	    bail_out "changing the admin password failed: $(http_body)"
	export ADMIN_PASSWORD ADMIN_JAR ADMIN_CSRF
}

# ctxd_clock_shim: build $T/clock.so, a preload library whose time() is ahead of the real
# clock by the seconds written in the file $CTXD_TEST_CLOCK (exported; absent: no offset),
# and export CTXD_CLOCK_SO. Start the server with LD_PRELOAD=$CTXD_CLOCK_SO ctxd_start to
# move its clock later (a license that expires while the server runs).
ctxd_clock_shim() {
	require_cmd cc
	cat >"$T/clock.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
time_t
time(time_t *t)
{
	static time_t (*real)(time_t *);
	const char *p = getenv("CTXD_TEST_CLOCK");
	long off = 0;
	FILE *f;
	time_t now;

	if (real == NULL)
		real = (time_t (*)(time_t *))dlsym(RTLD_NEXT, "time");
	if (p != NULL && (f = fopen(p, "r")) != NULL) {
		if (fscanf(f, "%ld", &off) != 1)
			off = 0;
		fclose(f);
	}
	now = real(NULL) + off;
	if (t != NULL)
		*t = now;
	return now;
}
C
	cc -shared -fPIC -o "$T/clock.so" "$T/clock.c" -ldl || bail_out "cannot build the clock shim"
	CTXD_CLOCK_SO=$T/clock.so
	CTXD_TEST_CLOCK=$T/clock-offset
	# a sanitizer build: ASan must come first in the library list, which a preload breaks;
	# the shim only defines time(), so the order does not matter to it
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	export CTXD_CLOCK_SO CTXD_TEST_CLOCK ASAN_OPTIONS
}

# ------------------------------------------------------------------------------ web UI

# ui_install: install the browser driver (playwright-core, pinned in t/e2e/ui/package-lock.json)
# into $top_builddir/t/e2e/ui and copy the test scripts there; sets UI_DIR. Skips the whole
# test when Debian's chromium is missing (script/bootstrap installs it).
ui_install() {
	command -v chromium >/dev/null 2>&1 || skip_all "chromium is not installed (script/bootstrap installs it)"
	UI_DIR=$top_builddir/t/e2e/ui
	# In-tree, script/bootstrap has installed playwright-core: when it has not, fail at once
	# with what to do rather than wait on npm.
	if [ "$top_srcdir" -ef "$top_builddir" ] &&
	    ! "$top_srcdir/t/lib/prereq.sh" npm 2>"$T/log/prereq.log"; then
		diag "$(cat "$T/log/prereq.log")"
		bail_out "$(head -n 1 "$T/log/prereq.log")"
	fi
	if ! "$top_srcdir/t/e2e/install.sh" "$UI_DIR" "$top_srcdir/t/e2e/ui" >"$T/log/npm-ui.log" 2>&1; then
		_show_log "$T/log/npm-ui.log"
		bail_out "npm ci of t/e2e/ui failed"
	fi
	# The browser writes nothing outside the test's folder.
	export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache
	export SHOTS=$top_builddir/t/screenshots
	mkdir -p "$HOME" "$SHOTS"
}

# ui_run SCRIPT ARGS...: run the browser test script $UI_DIR/SCRIPT (120 s at most); each
# "CHECK STATUS DESCRIPTION" line it prints is one TAP result, other lines are diagnostics.
ui_run() {
	local script=$1 st desc line rc
	shift
	timeout 120 node "$UI_DIR/$script" "$@" >"$T/log/$script.out" 2>"$T/log/$script.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"CHECK "*)
			line=${line#CHECK }
			st=${line%% *}
			desc=${line#* }
			ok "$st" "$desc" || true
			;;
		*) diag "$line" ;;
		esac
	done <"$T/log/$script.out"
	ok "$rc" "$script ran to its end (exit $rc)" || _show_log "$T/log/$script.err"
}

# ------------------------------------------------------------------------- second instance

# ctxd_second_start NAME: a second, independent ctxd instance (its own data folder
# $T/NAME/data with its own license and settings, its own responders and nginx on another
# free port), for the tests where one instance is the other's upstream. Call it after
# ctxd_setup and before ctxd_start of the test's own instance, whose variables (T, DATA_DIR,
# LICENSE_KEY, PORT, BASE, DATABASE_URL) it leaves as they were. Exports SECOND_BASE,
# SECOND_DATA_DIR, SECOND_DATABASE_URL (its PostgreSQL database under
# CTXD_TEST_ENGINE=postgres, else empty: DATA_DIR=$SECOND_DATA_DIR
# DATABASE_URL=$SECOND_DATABASE_URL CMD reaches its store on either engine) and SECOND_PIDS
# (its nginx and responders: ctxd_second_stop stops them).
ctxd_second_start() {
	local name=$1 t=$T data=$DATA_DIR lic=$LICENSE_KEY url=${DATABASE_URL-}
	[ -n "$T" ] || bail_out "ctxd_setup first"
	[ -z "${_nginx_pid:-}" ] || bail_out "ctxd_second_start before ctxd_start"
	T=$t/$name
	unset DATA_DIR
	ctxd_setup
	ctxd_start
	SECOND_BASE=$BASE SECOND_DATA_DIR=$DATA_DIR SECOND_DATABASE_URL=${DATABASE_URL-}
	SECOND_PIDS=("$_nginx_pid" "${_responder_pids[@]}")
	export SECOND_BASE SECOND_DATA_DIR SECOND_DATABASE_URL
	_nginx_pid="" _responder_pids=()
	T=$t DATA_DIR=$data LICENSE_KEY=$lic
	# the test's own instance keeps its database (ctxd_setup gave the second one another)
	if [ "$(ctxd_test_engine)" = postgres ]; then export DATABASE_URL=$url; fi
	unset PORT BASE
	export T DATA_DIR LICENSE_KEY
}

# ctxd_second_stop: stop the second instance (its data stays).
ctxd_second_stop() {
	local pid
	for pid in "${SECOND_PIDS[@]}"; do
		_stop_group "$pid" TERM
	done
	SECOND_PIDS=()
}
