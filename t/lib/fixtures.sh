# t/lib/fixtures.sh: a second nginx serving the non-git fixtures (t/corpora/fixtures)
# and test-made pages over plain HTTP on loopback, one port per site, for the website,
# llms.txt, OpenAPI and wiki tests (t07xx). Source it after t/lib/harness.sh.
#
#   fixture_site NAME ROOT [CONF]   declare a site: files under ROOT (a folder), CONF extra
#                                   nginx directives inside its server block (locations,
#                                   rewrites, returns); call before fixtures_start
#   fixtures_start                  start the one nginx; for each site NAME (uppercased,
#                                   '-' made '_') exports FIXPORT_NAME and FIX_NAME
#                                   (http://127.0.0.1:PORT)
#   fixtures_requests [NAME]        the access log lines (of site NAME only), one request a
#                                   line: PORT METHOD URI STATUS "ACCEPT" "IF-NONE-MATCH"
#                                   "IF-MODIFIED-SINCE" "AUTHORIZATION-PRESENT(0/1)"
#                                   "USER-AGENT"
#   fixtures_requests_reset         empty the access log (between runs of a test)
#   bench_questions QFILE CORPUS LIBID ORIGIN
#                                   the questions of bench/questions/QFILE over a
#                                   library, as TAP (below)
#   bench_questions QFILE CORPUS LIBID ORIGIN
#                                   the questions of bench/questions/QFILE over a library, as TAP
#
# $FIXTURES is the fixtures folder. Sites get nginx's own ETag, Last-Modified and
# conditional GET (If-None-Match / If-Modified-Since give 304). .md is text/markdown,
# .txt text/plain, .yaml/.yml application/yaml, .json application/json.

FIXTURES=${FIXTURES:-$CORPORA/fixtures}
export FIXTURES

_fix_names=()
_fix_roots=()
_fix_confs=()
_fix_nginx_pid=""

fixture_site() {
	local name=$1 root=$2 conf=${3:-}
	[ -d "$root" ] || bail_out "fixture_site $name: no folder $root"
	[ -z "$_fix_nginx_pid" ] || bail_out "fixture_site $name: declare sites before fixtures_start"
	_fix_names+=("$name")
	_fix_roots+=("$root")
	_fix_confs+=("$conf")
}

# _fixtures_conf PREFIX: write nginx.conf for the ports in _fix_ports.
_fixtures_conf() {
	local prefix=$1 user_line="" i
	[ "$(id -u)" -eq 0 ] && user_line="user root root;"
	{
		cat <<EOF
$user_line
daemon off;
worker_processes 1;
pid $prefix/nginx.pid;
error_log stderr warn;
events { worker_connections 512; }
http {
	log_format fix '\$server_port \$request_method \$request_uri \$status "\$http_accept" "\$http_if_none_match" "\$http_if_modified_since" "\$fix_auth" "\$http_user_agent"';
	map \$http_authorization \$fix_auth { default 1; "" 0; }
	access_log $T/log/fixtures-access.log fix;
	types {
		text/html html htm;
		text/css css;
		text/markdown md;
		text/plain txt;
		application/json json;
		application/yaml yaml yml;
		application/xml xml;
		application/javascript js;
		image/png png;
		image/svg+xml svg;
	}
	default_type application/octet-stream;
	client_body_temp_path $prefix/tmp/client_body;
	proxy_temp_path $prefix/tmp/proxy;
	fastcgi_temp_path $prefix/tmp/fastcgi;
	uwsgi_temp_path $prefix/tmp/uwsgi;
	scgi_temp_path $prefix/tmp/scgi;
	server_tokens off;
EOF
		for i in "${!_fix_names[@]}"; do
			cat <<EOF
	server {
		listen 127.0.0.1:${_fix_ports[$i]};
		root ${_fix_roots[$i]};
		${_fix_confs[$i]}
	}
EOF
		done
		echo "}"
	} >"$prefix/nginx.conf"
}

fixtures_start() {
	local prefix try i n var ok
	[ -n "$T" ] || ctxd_setup
	[ "${#_fix_names[@]}" -gt 0 ] || bail_out "fixtures_start: no fixture_site declared"
	prefix=$T/fixnginx
	mkdir -p "$prefix/tmp" "$T/log"
	for ((try = 0; try < 5; try++)); do
		_fix_ports=()
		for i in "${!_fix_names[@]}"; do
			_fix_ports+=("$(pick_port)") || bail_out "no free port"
		done
		_fixtures_conf "$prefix"
		ok=0
		_spawn "$T/log/fixnginx.log" nginx -p "$prefix/" -c "$prefix/nginx.conf" -e stderr
		_fix_nginx_pid=$_spawned
		for ((n = 0; n < 100; n++)); do
			_alive "$_fix_nginx_pid" || break
			if [ "$(_http_code "http://127.0.0.1:${_fix_ports[0]}/")" != 000 ]; then
				ok=1
				break
			fi
			sleep 0.1
		done
		[ "$ok" -eq 1 ] && break
		_fix_nginx_pid=""
		grep -q 'Address already in use' "$T/log/fixnginx.log" 2>/dev/null || break
	done
	if [ "$ok" -ne 1 ]; then
		_show_log "$T/log/fixnginx.log"
		bail_out "the fixtures' nginx did not start"
	fi
	for i in "${!_fix_names[@]}"; do
		var=$(printf '%s' "${_fix_names[$i]}" | tr 'a-z-' 'A-Z_')
		printf -v "FIXPORT_$var" '%s' "${_fix_ports[$i]}"
		printf -v "FIX_$var" '%s' "http://127.0.0.1:${_fix_ports[$i]}"
		export "FIXPORT_$var" "FIX_$var"
	done
	# the first request above is in the log: start it empty
	: >"$T/log/fixtures-access.log"
}

fixtures_requests() {
	local i
	if [ $# -eq 0 ]; then
		cat "$T/log/fixtures-access.log" 2>/dev/null
		return 0
	fi
	for i in "${!_fix_names[@]}"; do
		if [ "${_fix_names[$i]}" = "$1" ]; then
			grep "^${_fix_ports[$i]} " "$T/log/fixtures-access.log" 2>/dev/null
			return 0
		fi
	done
	bail_out "fixtures_requests: no site $1"
}

fixtures_requests_reset() {
	: >"$T/log/fixtures-access.log"
}

# The route map of llmstxt/1mcp (its README), as fixture_site's CONF for the ROOT
# $FIXTURES/llmstxt/1mcp/docs/en: /llms*.txt from docs/public, /x from docs/en/x.md, /x/
# from docs/en/x/index.md, nothing else (so /x.md and the /zh/ routes are 404s).
FIXCONF_1MCP='
	location ~ ^/llms[^/]*\.txt$ { root '"$FIXTURES"'/llmstxt/1mcp/docs/public; }
	location ~ /$ { try_files ${uri}index.md =404; }
	location / { try_files $uri.md =404; }'

# bench_questions QFILE CORPUS LIBID ORIGIN: ask LIBID each question of bench/questions/QFILE
# whose corpus is CORPUS (GET /api/v2/context, text) and test, as TAP, that one of its
# `files` is among the first five Sources (ORIGIN, the fragment and a leading '/' taken off
# both sides) and that the answer holds every `must_contain` token.
bench_questions() {
	local qfile=$top_srcdir/bench/questions/$1 corpus=$2 lib=$3 origin=$4 rec qid f hit tok top5
	[ -r "$qfile" ] || bail_out "bench_questions: no $qfile"
	while IFS= read -r rec; do
		qid=$(jq -r .id <<<"$rec")
		http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$lib" \
		    --data-urlencode "query=$(jq -r .q <<<"$rec")" >/dev/null
		http_body >"$T/answer.txt"
		top5=$(sed -n "s|^Source: $origin||p" "$T/answer.txt" | head -5 | sed 's|#.*||; s|^/||')
		hit=1
		while IFS= read -r f; do
			grep -qxF -- "${f#/}" <<<"$top5" && hit=0
		done < <(jq -r '.files[]' <<<"$rec")
		ok $hit "$qid: an expected document is among the first five sources"
		[ $hit -eq 0 ] || diag "top 5 for $qid:" "$top5"
		while IFS= read -r tok; do
			grep -qF -- "$tok" "$T/answer.txt"
			ok $? "$qid: the answer contains $tok"
		done < <(jq -r '.must_contain[]' <<<"$rec")
	done < <(jq -c --arg c "$corpus" '.[] | select(.corpus == $c)' "$qfile")
}
