#!/usr/bin/env bash
# The Debian package, end to end, on this machine (root; systemd need not run): build it
# (script/package: dpkg-buildpackage + lintian) and a newer one (a higher version with one
# more migration, made for this test); install this tree's package; verify the units with systemd-analyze; start
# the installed responders the way the units do (user ctxd, the sockets of ctxd@.socket as
# fd 0, /etc/default/ctxd as their environment) behind the installed nginx site on a free
# loopback port; the UI, /api/v2/context after indexing a repository of the local git
# server, /mcp; backup while indexing, restore (refused while running); upgrade (the data
# survives, the schema is migrated); remove (data and configuration stay); purge (nothing
# is left). The machine is left as it was found. Two package builds: about 45 s each.
. "$top_srcdir/t/lib/harness.sh"

[ "$(id -u)" -eq 0 ] || skip_all "installs a package: needs root"
require_cmd dpkg-buildpackage dh lintian apt-get spawn-fcgi nginx runuser systemd-analyze jq
# pkg_status: dpkg's state of ctxd ("not-installed" when it has none).
pkg_status() {
	local st
	st=$(dpkg-query -W -f='${db:Status-Status}' ctxd 2>/dev/null)
	echo "${st:-not-installed}"
}
if [ "$(pkg_status)" != not-installed ]; then
	skip_all "a ctxd package is installed on this machine: the test would replace it"
fi
getent passwd ctxd >/dev/null && skip_all "a user ctxd exists on this machine"
[ -e /var/lib/ctxd ] && skip_all "/var/lib/ctxd exists on this machine"
[ -e /etc/nginx/sites-available/ctxd ] && skip_all "an nginx site ctxd exists on this machine"

ctxd_setup
gitserver_start
# The maintainer scripts find the installed programs on a system PATH (not the harness's,
# which puts the build tree first).
SYSPATH=/usr/sbin:/usr/bin:/sbin:/bin
APT=(env PATH=$SYSPATH apt-get -y -q -o DPkg::Lock::Timeout=120 -o Dpkg::Options::=--force-confold)
LIB=/var/lib/ctxd
RUN=/run/ctxd
had_run=0
[ -e "$RUN" ] && had_run=1
pkg_pids=()

# pkg_admin ARGS...: the installed ctxd-admin as the service's user.
pkg_admin() { runuser -u ctxd -- env DATA_DIR="$LIB" /usr/bin/ctxd-admin "$@"; }
# pkg_sql QUERY: a read query on the installed database.
pkg_sql() { sqlite3 -batch -noheader -cmd '.timeout 5000' "$LIB/ctxd.db" "$1"; }

# pkg_kill_strays: stop any process whose DATA_DIR is the package's (a worker a responder
# started detached).
pkg_kill_strays() {
	local f pid found=()
	for f in /proc/[0-9]*/environ; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" = "$$" ] && continue
		grep -qzxF "DATA_DIR=$LIB" "$f" 2>/dev/null && found+=("$pid")
	done
	[ "${#found[@]}" -gt 0 ] || return 0
	kill -TERM "${found[@]}" 2>/dev/null || true
	sleep 0.3
	kill -KILL "${found[@]}" 2>/dev/null || true
}

# pkg_stop: stop the responders and nginx started by pkg_start.
pkg_stop() {
	local pid
	for pid in "${pkg_pids[@]}"; do
		_stop_group "$pid" TERM
	done
	pkg_pids=()
	pkg_kill_strays
}

# pkg_start: what the units do without systemd: each responder as the user ctxd, with
# /etc/default/ctxd as its environment (and HOME, USER as systemd sets them) and umask 027, on the socket of ctxd@.socket
# (/run/ctxd/NAME.sock, ctxd:www-data 0660) passed as fd 0; then nginx (workers as
# www-data) with the installed site and nothing else. Waits until / answers.
pkg_start() {
	local n i
	mkdir -p "$RUN"
	chmod 0755 "$RUN"
	for n in query web mcp hook; do
		rm -f "$RUN/$n.sock"
		_spawn "$T/log/pkg-$n.log" sh -c 'umask 027; set -a; . /etc/default/ctxd; set +a;
		    export HOME=/var/lib/ctxd USER=ctxd LOGNAME=ctxd;
		    exec spawn-fcgi -n -s "$1" -M 0660 -U ctxd -G www-data -u ctxd -g ctxd \
		    -- "$2"' sh "$RUN/$n.sock" "/usr/bin/ctxd-$n"
		pkg_pids+=("$_spawned")
	done
	mkdir -p "$T/pkgnginx/tmp"
	chown -R www-data "$T/pkgnginx/tmp"
	cat >"$T/pkgnginx/nginx.conf" <<EOF
user www-data;
daemon off;
worker_processes 1;
pid $T/pkgnginx/nginx.pid;
error_log stderr warn;
events { worker_connections 256; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	access_log off;
	client_body_temp_path $T/pkgnginx/tmp/client_body;
	proxy_temp_path $T/pkgnginx/tmp/proxy;
	fastcgi_temp_path $T/pkgnginx/tmp/fastcgi;
	uwsgi_temp_path $T/pkgnginx/tmp/uwsgi;
	scgi_temp_path $T/pkgnginx/tmp/scgi;
	include /etc/nginx/sites-enabled/ctxd;
}
EOF
	_spawn "$T/log/pkg-nginx.log" nginx -c "$T/pkgnginx/nginx.conf" -e stderr
	pkg_pids+=("$_spawned")
	for ((i = 0; i < 100; i++)); do
		[ -S "$RUN/query.sock" ] && [ -S "$RUN/web.sock" ] && [ -S "$RUN/mcp.sock" ] &&
		    [ -S "$RUN/hook.sock" ] && [ "$(_http_code "$PBASE/")" = 200 ] && return 0
		sleep 0.1
	done
	for n in query web mcp hook nginx; do
		_show_log "$T/log/pkg-$n.log"
	done
	return 1
}

# pkg_serve: pkg_start, on another port when another test took this one between its pick and
# nginx's bind (tests run in parallel): the new PORT set in /etc/default/ctxd and the site
# made again by dpkg-reconfigure, as an operator would; up to 5 tries.
pkg_serve() {
	local try
	for try in 1 2 3 4 5; do
		: >"$T/log/pkg-nginx.log"
		pkg_start && return 0
		grep -q 'Address already in use' "$T/log/pkg-nginx.log" || return 1
		pkg_stop
		PORT=$(pick_port) || return 1
		sed -i "s|^PORT=.*|PORT=127.0.0.1:$PORT|" /etc/default/ctxd
		env PATH=$SYSPATH dpkg-reconfigure -f noninteractive ctxd >>"$T/log/apt.log" 2>&1 ||
		    return 1
		PBASE=http://127.0.0.1:$PORT
		diag "port taken by another test: trying $PORT"
	done
	return 1
}

# pkg_cleanup: leave the machine as it was: processes stopped, the package purged, its user,
# files and folders gone.
pkg_cleanup() {
	pkg_stop
	if [ "$(pkg_status)" != not-installed ]; then
		"${APT[@]}" purge ctxd >>"$T/log/apt.log" 2>&1 || dpkg --purge ctxd >/dev/null 2>&1 || true
	fi
	dpkg-query -W -f='${db:Status-Status}' ctxd-client 2>/dev/null | grep -q installed &&
	    { dpkg --purge ctxd-client >/dev/null 2>&1 || true; }
	getent passwd ctxd >/dev/null && userdel ctxd 2>/dev/null
	getent group ctxd >/dev/null && groupdel ctxd 2>/dev/null
	rm -rf "$LIB" /etc/nginx/sites-enabled/ctxd /etc/nginx/sites-available/ctxd
	[ "$had_run" -eq 1 ] || rm -rf "$RUN"
	return 0
}
_pkg_exit() {
	local st=$?
	pkg_cleanup
	(exit "$st")
	_harness_cleanup
}
trap _pkg_exit EXIT

# build_packages: the package of this tree (script/package: the build, and lintian with no
# error and no warning), installed first as OLD, and a newer one, NEW: this tree at a higher
# version with one more migration (sql/NNNN-t1000-upgrade.sql, a table of its own), the
# schema that the upgrade migrates. (An older package made by removing this tree's last
# migration would run code that needs it.) Sets NEW and OLD.
build_packages() {
	local start=$SECONDS last
	DEB_BUILD_OPTIONS="nocheck parallel=2" "$top_srcdir/script/package" "$T/new" \
	    >"$T/log/package.out" 2>"$T/log/package.log"
	ok $? "script/package builds the package and lintian passes it" || _show_log "$T/log/package.log"
	OLD=$(sed -n 1p "$T/log/package.out")
	CLIENT=$(sed -n 2p "$T/log/package.out")
	like "$CLIENT" "/ctxd-client_${VERSION//./\\.}_[a-z0-9]+\\.deb\$" \
	    "and the client's, ctxd-client_<version>_<arch>.deb"
	like "$OLD" "/ctxd_${VERSION//./\\.}_[a-z0-9]+\\.deb\$" "named ctxd_<version>_<arch>.deb"
	grep -q "^PACKAGE_VERSION='$VERSION'" "$top_builddir/config.status" 2>/dev/null ||
	    grep -q "PACKAGE_VERSION \"$VERSION\"" "$top_builddir/config.h"
	ok $? "configure.ac takes the version from debian/changelog"
	diag "package build and lintian: $((SECONDS - start)) s"

	# The newer package: one more migration.
	start=$SECONDS
	last=$(ls "$top_srcdir"/sql/[0-9][0-9][0-9][0-9]-*.sql | sort | tail -1)
	last=sql/${last##*/}
	next=$(printf 'sql/%04d-t1000-upgrade.sql' $((10#${last:4:4} + 1)))
	mkdir -p "$T/next/src"
	(cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard |
	    tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$T/next/src"
	printf -- '-- t1000: the migration the upgrade runs.\nCREATE TABLE t1000_upgrade (id INTEGER PRIMARY KEY);\n' \
	    >"$T/next/src/$next"
	# ... and its PostgreSQL twin, which every migration has (sql2c refuses a build without).
	printf -- '-- t1000: the migration the upgrade runs.\nCREATE TABLE t1000_upgrade (id bigint PRIMARY KEY);\n' \
	    >"$T/next/src/sql/pg/${next#sql/}"
	# (each list names the last migration somewhere, whatever its line breaks: the new one
	# follows it; the PostgreSQL twin has the same name under sql/pg/)
	sed -i "s|sql/pg/${last#sql/}|sql/pg/${last#sql/} sql/pg/${next#sql/}|; s|$last|$last $next|" \
	    "$T/next/src/Makefile.am"
	{
		printf 'ctxd (%s) unstable; urgency=medium\n\n  * The test t1000 newer package.\n\n' "$NEWV"
		printf ' -- t1000 <t1000@localhost>  %s\n\n' "$(date -R)"
		cat "$top_srcdir/debian/changelog"
	} >"$T/next/src/debian/changelog"
	(cd "$T/next/src" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
	    >"$T/log/new-build.log" 2>&1
	ok $? "the newer package builds" || _show_log "$T/log/new-build.log"
	NEW=$(ls "$T"/next/ctxd_*.deb)
	diag "newer package build: $((SECONDS - start)) s"
}

# ---------------------------------------------------------------------------------- build
# Both packages are kept in t/t1000.cache/<hash of the tree's files>: a later run on the very
# same tree reuses them (CTXD_T1000_REBUILD=1 builds anew); the cache keeps one tree's.
VERSION=$(sed -n '1{s/^ctxd (//;s/).*//;p;}' "$top_srcdir/debian/changelog")
NEWV="$VERSION+t1000"	# sorts after VERSION (dpkg --compare-versions)
tree_hash=$( (cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read --sort=name --mtime=@0 --owner=0 --group=0 \
    -cf - 2>/dev/null) | sha256sum | cut -c1-16)
CACHE=$top_builddir/t/t1000.cache/$tree_hash
if [ -z "${CTXD_T1000_REBUILD:-}" ] && [ -f "$CACHE/ok" ]; then
	NEW=$(ls "$CACHE"/new/ctxd_*.deb)
	OLD=$(ls "$CACHE"/old/ctxd_*.deb)
	CLIENT=$(ls "$CACHE"/old/ctxd-client_*.deb)
	skip "the packages of this very tree were built and passed lintian in an earlier run" 5
else
	build_packages
	rm -rf "$top_builddir/t/t1000.cache"
	mkdir -p "$CACHE/new" "$CACHE/old"
	cp "$NEW" "$CACHE/new/" && cp "$OLD" "$CLIENT" "$CACHE/old/" && [ "$_tap_failed" -eq 0 ] &&
	    touch "$CACHE/ok"
fi

# ----------------------------------------------------------------------------- the client
# ctxd-client: the tool ctxd and its man page alone, needing libcurl and json-c (and libc),
# not the server; the server's package does not ship them too.
deps=$(dpkg-deb -f "$CLIENT" Depends)
like "$deps" "libcurl" "ctxd-client depends on libcurl" || diag "$deps"
like "$deps" "libjson-c" "... and json-c"
unlike "$deps" "nginx|adduser|libsqlite|libgit2|libfcgi|(^|[ ,])ctxd([ ,(]|\$)" \
    "... and not on the server or its libraries" || diag "$deps"
files=$(dpkg-deb -c "$CLIENT" | awk '{print $6}' | grep -v '/$' | grep -v '^\./usr/share/doc/' |
    tr '\n' ' ')
is "$files" "./usr/bin/ctxd ./usr/share/man/man1/ctxd.1.gz " "ctxd-client: the tool and its man page"
dpkg-deb -c "$OLD" | awk '{print $6}' | grep -Eq '^\./usr/(bin/ctxd|share/man/man1/ctxd\.1\.gz)$'
isnt $? 0 "the server's package ships neither"
"${APT[@]}" install "$CLIENT" >"$T/log/apt-client.log" 2>&1
ok $? "apt-get install ctxd-client alone" || _show_log "$T/log/apt-client.log"
is "$(pkg_status)" not-installed "... without the server"
/usr/bin/ctxd --help >"$T/log/client-help.out" 2>&1
ok $? "ctxd --help runs" || _show_log "$T/log/client-help.out"
like "$(cat "$T/log/client-help.out")" "ctxd" "... and says how to use it"

# -------------------------------------------------------------------------------- install
"${APT[@]}" install "$OLD" >"$T/log/apt.log" 2>&1
ok $? "apt-get install the package (with ctxd-client installed: both together)" ||
    _show_log "$T/log/apt.log"
[ -x /usr/bin/ctxd ] && [ -x /usr/bin/ctxd-admin ]
ok $? "... the client and the server both installed"
getent passwd ctxd >/dev/null
ok $? "system user ctxd"
is "$(stat -c '%U:%G %a' "$LIB")" "ctxd:ctxd 750" "$LIB is ctxd's, 0750"
is "$(stat -c '%U %a' "$LIB/secret.key")" "ctxd 600" "secret.key is ctxd's, 0600"
is "$(pkg_sql 'PRAGMA user_version')" "$SCHEMA_VERSION" "this tree's schema"
dpkg-query -W -f='${Conffiles}\n' ctxd | grep -q '^ */etc/default/ctxd '
ok $? "/etc/default/ctxd is a conffile"
is "$(stat -c '%U:%G %a' /etc/default/ctxd)" "root:ctxd 640" "/etc/default/ctxd root:ctxd 0640"
grep -q '^LICENSE_KEY=$' /etc/default/ctxd && grep -q '^PORT=127.0.0.1:3000$' /etc/default/ctxd &&
    grep -q "^DATA_DIR=$LIB\$" /etc/default/ctxd
ok $? "/etc/default/ctxd: LICENSE_KEY, PORT, DATA_DIR"
is "$(readlink /etc/nginx/sites-enabled/ctxd)" /etc/nginx/sites-available/ctxd "nginx site enabled"
grep -Eq '^[[:space:]]*listen 127\.0\.0\.1:3000;' /etc/nginx/sites-available/ctxd
ok $? "the site listens on PORT (127.0.0.1:3000: this machine only, by default)"
grep -q 'default_server' /etc/nginx/sites-available/ctxd
isnt $? 0 "the site does not take over Debian's default site"
[ -f /etc/cron.d/ctxd ] && [ -f /usr/share/ctxd/htdocs/index.html ] &&
    [ -f /usr/share/man/man7/ctxd.7.gz ]
ok $? "cron entry, web UI and ctxd(7) installed"

is "$(cd /usr/share/ctxd/htdocs && find . -type f | sort | md5sum)" \
    "$(cd "$top_srcdir/htdocs" && find . -type f | sort | md5sum)" "the whole web UI is installed"

# The units, as systemd would load them.
out=$(cd /lib/systemd/system && systemd-analyze verify --man=no ctxd.target ctxd@query.socket \
    ctxd@query.service ctxd@web.service ctxd@mcp.service ctxd@hook.service \
    ctxd-worker.service ctxd-worker.timer 2>&1)
ok $? "systemd-analyze verify passes the units"
is "$out" "" "systemd-analyze verify: no complaint"
for o in 'User=ctxd' 'StandardInput=socket' 'ProtectSystem=strict' 'ProtectHome=yes' \
    'PrivateTmp=yes' 'NoNewPrivileges=yes' "ReadWritePaths=$LIB" 'EnvironmentFile=/etc/default/ctxd'; do
	grep -qxF "$o" /lib/systemd/system/ctxd@.service
	ok $? "ctxd@.service: $o"
done
grep -qxF "ListenStream=$RUN/%i.sock" /lib/systemd/system/ctxd@.socket
ok $? "ctxd@.socket: $RUN/%i.sock"

# Without a license key the responder does not start and says why in one line.
out=$(sh -c 'set -a; . /etc/default/ctxd; exec runuser -u ctxd -- /usr/bin/ctxd-query' \
    </dev/null 2>&1)
isnt $? 0 "no LICENSE_KEY: the responder does not start"
is "$(printf '%s\n' "$out" | wc -l)" 1 "no LICENSE_KEY: one line"
like "$out" 'LICENSE_KEY is missing' "no LICENSE_KEY: says why"

# ---------------------------------------------------------------------- configure, serve
PORT=$(pick_port) || bail_out "no free port"
sed -i "s|^LICENSE_KEY=.*|LICENSE_KEY=$LICENSE_KEY|; s|^PORT=.*|PORT=127.0.0.1:$PORT|" /etc/default/ctxd
env PATH=$SYSPATH dpkg-reconfigure -f noninteractive ctxd >>"$T/log/apt.log" 2>&1
ok $? "dpkg-reconfigure ctxd (a new PORT)"
grep -Eq "^[[:space:]]*listen 127\\.0\\.0\\.1:$PORT;" /etc/nginx/sites-available/ctxd
ok $? "the site follows PORT"
PBASE=http://127.0.0.1:$PORT
pkg_admin settings set fetch.allowed_networks "$CTXD_TEST_NETWORKS" >/dev/null &&
    pkg_admin settings set git.plain_http_hosts 127.0.0.1 >/dev/null
ok $? "settings for the local git server"
KEY=$(pkg_admin key create --admin t1000)
pkg_serve
ok $? "the installed responders and site start" || bail_out "the package's service did not start"
is "$(stat -c '%U:%G %a' "$RUN/query.sock")" "ctxd:www-data 660" "socket ctxd:www-data 0660"
grep -q 'serving with [0-9]* workers on fd 0' "$T/log/pkg-query.log"
ok $? "the responder answers on the socket passed as fd 0"
is "$(ps -o user= -p "$(pgrep -f -o "^/usr/bin/ctxd-query")")" ctxd "the responders run as ctxd"

code=$(http GET "$PBASE/")
is "$code" 200 "the web UI answers"
like "$(http_body)" '<html' "the web UI is HTML"

url=$(gitserver_add_bundle requests public)
code=$(http POST "$PBASE/api/parse" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")
is "$code" 202 "parse a repository of the local git server: 202"
wait_lib() {
	local state="" i
	for ((i = 0; i < 600; i++)); do
		state=$(pkg_sql "SELECT state FROM libraries WHERE id = '$1'" 2>/dev/null)
		case $state in finalized | error) break ;; esac
		sleep 0.2
	done
	echo "$state"
}
is "$(wait_lib /corpora/requests)" finalized "indexed by the worker the responder started"
code=$(http GET "$PBASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=how to send a POST request with a JSON body")
is "$code" 200 "/api/v2/context: 200"
like "$(http_body)" 'Source: ' "/api/v2/context: snippets"
code=$(http POST "$PBASE/mcp" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t1000","version":"1"}}}')
is "$code" 200 "/mcp initialize: 200"
is "$(http_body | jq -r .result.protocolVersion)" 2025-06-18 "/mcp answers"

# ------------------------------------------------------------------ backup and restore
# A backup while a repository is being indexed (as root, DATA_DIR from /etc/default/ctxd).
url=$(gitserver_add_bundle vite public)
code=$(http POST "$PBASE/api/parse" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")
is "$code" 202 "parse a second repository"
env -u DATA_DIR /usr/bin/ctxd-admin backup "$T/backup.db" >"$T/log/backup.out" 2>"$T/log/backup.err"
ok $? "ctxd-admin backup while indexing" || _show_log "$T/log/backup.err"
like "$(cat "$T/log/backup.err")" 'warning: secret.key is not in' "backup: warns that secret.key is not in it"
is "$(sqlite3 "$T/backup.db" 'PRAGMA integrity_check')" ok "the backup passes the integrity check"
is "$(sqlite3 "$T/backup.db" "SELECT state FROM libraries WHERE id = '/corpora/requests'")" \
    finalized "the backup has the indexed library"
is "$(stat -c '%a' "$T/backup.db")" 600 "the backup is 0600"
is "$(wait_lib /corpora/vite)" finalized "the indexing went on"
pkg_admin key create later >/dev/null
env -u DATA_DIR /usr/bin/ctxd-admin restore "$T/backup.db" >/dev/null 2>"$T/log/restore.err"
isnt $? 0 "restore refuses while the service runs"
like "$(cat "$T/log/restore.err")" 'service is running' "restore says why"
pkg_stop
printf 'not a database' >"$T/bad.db"
env -u DATA_DIR /usr/bin/ctxd-admin restore "$T/bad.db" >/dev/null 2>"$T/log/restore.err"
isnt $? 0 "restore refuses a file that is not a database"
env -u DATA_DIR /usr/bin/ctxd-admin restore "$T/backup.db" >"$T/log/restore.out" 2>"$T/log/restore.err"
ok $? "restore once stopped" || _show_log "$T/log/restore.err"
is "$(pkg_sql "SELECT count(*) FROM api_keys WHERE name = 'later'")" 0 "restored: the later key is gone"
is "$(stat -c '%U %a' "$LIB/ctxd.db")" "ctxd 640" "restored database is ctxd's, 0640"

# ---------------------------------------------------------------------------------- upgrade
"${APT[@]}" install "$NEW" >>"$T/log/apt.log" 2>&1
ok $? "upgrade to the newer package" || _show_log "$T/log/apt.log"
is "$(dpkg-query -W -f='${Version}' ctxd)" "$NEWV" "the newer version is installed"
is "$(pkg_sql 'PRAGMA user_version')" "$((SCHEMA_VERSION + 1))" "the upgrade migrated the schema"
is "$(pkg_sql "SELECT count(*) FROM sqlite_schema WHERE name = 't1000_upgrade'")" 1 \
    "... by the newer package's migration"
is "$(pkg_sql 'SELECT from_version || ">" || to_version FROM schema_history ORDER BY id DESC LIMIT 1')" \
    "$SCHEMA_VERSION>$((SCHEMA_VERSION + 1))" "schema_history records the migration"
grep -q "^LICENSE_KEY=$LICENSE_KEY\$" /etc/default/ctxd
ok $? "the upgrade kept /etc/default/ctxd"
pkg_serve
ok $? "the upgraded service starts"
code=$(http GET "$PBASE/api/v2/context" -G --data-urlencode libraryId=/corpora/requests \
    --data-urlencode "query=how to send a POST request with a JSON body")
is "$code" 200 "the data survived the upgrade: /api/v2/context 200"
like "$(http_body)" 'Source: ' "the data survived the upgrade: snippets"
is "$(env -u DATA_DIR /usr/bin/ctxd-admin settings get worker.concurrency 2>&1)" 0 \
    "every ctxd-admin command run by hand as root uses the service's DATA_DIR (/etc/default/ctxd)"
env -u DATA_DIR /usr/bin/ctxd-admin doctor >"$T/log/doctor.out" 2>&1
like "$(cat "$T/log/doctor.out")" "ok   database: schema version $((SCHEMA_VERSION + 1)) \\(from $SCHEMA_VERSION" \
    "doctor: the schema and its last migration"
like "$(cat "$T/log/doctor.out")" 'ok   license: valid' "doctor: the license"
like "$(cat "$T/log/doctor.out")" 'ok   nginx: site' "doctor: the nginx site"
# As the service user, doctor reaches the same verdicts as root (nginx -t needs root: as ctxd
# it does not count a working nginx as broken).
runuser -u ctxd -- env -u DATA_DIR /usr/bin/ctxd-admin doctor >"$T/log/doctor-ctxd.out" 2>&1
verdicts() { grep -E '^(ok|FIX) +(license|database|disk|nginx|cron|units)' "$1" | awk '{print $1, $2}' | tr '\n' ' '; }
is "$(verdicts "$T/log/doctor-ctxd.out")" "$(verdicts "$T/log/doctor.out")" \
    "doctor as the user ctxd agrees with doctor as root" || diag "$(cat "$T/log/doctor-ctxd.out")"
like "$(cat "$T/log/doctor-ctxd.out")" 'ok   nginx: site' "doctor as ctxd: nginx is not reported broken"
# The client tool of ctxd-client asks the server.
mkdir -p "$T/client-home"
HOME=$T/client-home CTXD_BASE_URL=$PBASE /usr/bin/ctxd docs /corpora/requests \
    "how to send a POST request with a JSON body" >"$T/log/client-docs.out" 2>&1
ok $? "ctxd (ctxd-client) queries the server" || _show_log "$T/log/client-docs.out"
[ -s "$T/log/client-docs.out" ]
ok $? "... and prints the documentation"
pkg_stop

# ------------------------------------------------------------------- DATABASE_URL
# With DATABASE_URL in /etc/default/ctxd the installed service's store is that PostgreSQL
# database (a throwaway cluster: t/lib/pg.sh): ctxd-admin run by hand takes it from the file,
# the responders started as the units start them answer from it (a key and an empty library
# list only it holds), and doctor names it. The file is put back as it was.
. "$top_srcdir/t/lib/pg.sh"
pg_start
url=$DATABASE_URL
unset DATABASE_URL
cp -p /etc/default/ctxd "$T/default.saved"
printf 'DATABASE_URL=%s\n' "$url" >>/etc/default/ctxd
pkg_admin_file() { runuser -u ctxd -- env -u DATA_DIR -u DATABASE_URL /usr/bin/ctxd-admin "$@"; }
pkg_admin_file init >"$T/log/pg-init.log" 2>&1
ok $? "with DATABASE_URL in /etc/default/ctxd: ctxd-admin init" || _show_log "$T/log/pg-init.log"
is "$(DATABASE_URL=$url pg_sql "SELECT version FROM ctxd_schema")" "$((SCHEMA_VERSION + 1))" "... makes the schema in PostgreSQL"
PGKEY=$(pkg_admin_file key create --admin pg 2>&1 | grep -o 'ctxd_[A-Za-z0-9_-]*' | head -n 1)
pkg_serve
ok $? "the service starts on PostgreSQL"
is "$(http GET "$PBASE/api/health" -H "Authorization: Bearer $PGKEY")" 200 \
    "... and knows the key made in PostgreSQL"
is "$(http_body | jq -r '.database.ok, .libraries' | tr '\n' ' ')" "true 0 " \
    "... with PostgreSQL's (empty) libraries, not the SQLite database's"
pkg_admin_file doctor >"$T/log/pg-doctor.out" 2>&1
like "$(cat "$T/log/pg-doctor.out")" "ok   database: PostgreSQL [0-9.]+ at host 127\\.0\\.0\\.1, port $PG_PORT, database ctxd, user ctxd \\(DATABASE_URL in /etc/default/ctxd\\)" \
    "doctor: the connection, from /etc/default/ctxd" || diag "$(cat "$T/log/pg-doctor.out")"
pkg_stop
cp -p "$T/default.saved" /etc/default/ctxd
pg_stop

# ------------------------------------------------------------------------- remove, purge
"${APT[@]}" remove ctxd >>"$T/log/apt.log" 2>&1
ok $? "apt-get remove" || _show_log "$T/log/apt.log"
[ -f "$LIB/ctxd.db" ] && [ -f "$LIB/secret.key" ] && [ -f /etc/default/ctxd ]
ok $? "remove leaves the data and the configuration"
[ ! -e /etc/nginx/sites-enabled/ctxd ] && [ ! -e /usr/bin/ctxd-query ]
ok $? "remove disables the site and removes the programs"
"${APT[@]}" purge ctxd >>"$T/log/apt.log" 2>&1
ok $? "apt-get purge" || _show_log "$T/log/apt.log"
left=$(ls -d "$LIB" /etc/default/ctxd /etc/cron.d/ctxd /etc/nginx/sites-*/ctxd /usr/share/ctxd \
    /usr/lib/ctxd /lib/systemd/system/ctxd* 2>/dev/null)
is "$left" "" "purge leaves no file"
getent passwd ctxd >/dev/null || getent group ctxd >/dev/null
isnt $? 0 "purge removes the user and group ctxd"
is "$(pkg_status)" not-installed "dpkg forgot ctxd"

done_testing
