#!/usr/bin/env bash
# The data folder is the service's alone: even under a umask of 022, DATA_DIR is 0750, the
# database with its WAL and SHM and the worker's log 0640, secret.key 0600, repos/ 0700; a
# looser mode found there (an older install, a chmod by hand) is tightened at the next start,
# with a log line, and a symbolic link in the folder is left alone. On PostgreSQL
# (CTXD_TEST_ENGINE=postgres) DATA_DIR holds no database file; the rest is the same.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap stat

umask 022	# what a careless service manager or shell leaves
ctxd_setup
gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
url=$(gitserver_add_bundle requests public)
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 "parse accepted"
is "$(wait_job /corpora/requests)" finalized "the worker indexed it"

# mode NAME: the octal mode of DATA_DIR/NAME (of DATA_DIR itself for ".").
mode() {
	stat -c %a "$DATA_DIR/$1"
}
sqlite=$([ "$(ctxd_test_engine)" = sqlite ] && echo 1)
is "$(mode .)" 750 "DATA_DIR is 0750"
if [ -n "$sqlite" ]; then
	is "$(mode ctxd.db)" 640 "ctxd.db is 0640"
	is "$(mode ctxd.db-wal)" 640 "its WAL is 0640"
	is "$(mode ctxd.db-shm)" 640 "its SHM is 0640"
else
	is "$(find "$DATA_DIR" -maxdepth 1 -name 'ctxd.db*' | wc -l)" 0 "no SQLite file in DATA_DIR"
fi
is "$(mode worker.log)" 640 "worker.log is 0640"
is "$(mode secret.key)" 600 "secret.key is 0600"
is "$(mode repos)" 700 "repos/ is 0700"
is "$(find "$DATA_DIR" -maxdepth 1 -perm /o=rwx | wc -l)" 0 "nothing in DATA_DIR is open to others"

# Looser modes are tightened at the next start, with a log line; a link is not followed.
chmod 0755 "$DATA_DIR"
[ -z "$sqlite" ] || chmod 0644 "$DATA_DIR/ctxd.db" "$DATA_DIR/ctxd.db-wal" "$DATA_DIR/ctxd.db-shm"
chmod 0666 "$DATA_DIR/worker.log"
chmod 0644 "$DATA_DIR/secret.key"
echo outside >"$T/outside"
chmod 0644 "$T/outside"
ln -s "$T/outside" "$DATA_DIR/link"
ctxd_admin settings get git.github.host >/dev/null 2>"$T/admin.err"
is "$(mode .)" 750 "DATA_DIR tightened back to 0750"
[ -z "$sqlite" ] || is "$(mode ctxd.db) $(mode ctxd.db-wal) $(mode ctxd.db-shm)" "640 640 640" \
    "the database, WAL and SHM back to 0640"
is "$(mode worker.log)" 640 "worker.log back to 0640"
is "$(mode secret.key)" 600 "secret.key back to 0600"
is "$(stat -c %a "$T/outside")" 644 "the target of a link is left alone"
if [ -n "$sqlite" ]; then
	like "$(cat "$T/admin.err")" "tightened the mode of $DATA_DIR/ctxd\.db from 0644 to 0640" \
	    "the change is logged"
else
	like "$(cat "$T/admin.err")" "tightened the mode of $DATA_DIR/worker\.log from 0666 to 0640" \
	    "the change is logged"
fi
like "$(cat "$T/admin.err")" "tightened the mode of $DATA_DIR from 0755 to 0750" \
    "for the folder too"
ctxd_admin settings get git.github.host >/dev/null 2>"$T/admin.err"
is "$(cat "$T/admin.err")" "" "nothing to say the next time"

# A database created by a responder's first start is 0640 as well (on PostgreSQL: the
# secret key of a new DATA_DIR is 0600).
rm -f "$DATA_DIR/link"
ctxd_stop
mkdir -m 0755 "$T/data2"
DATA_DIR=$T/data2 ctxd_admin init >/dev/null 2>&1
if [ -n "$sqlite" ]; then
	is "$(stat -c %a "$T/data2/ctxd.db")" 640 "a new database is created 0640"
else
	is "$(stat -c %a "$T/data2/secret.key")" 600 "a new secret.key is created 0600"
fi
is "$(stat -c %a "$T/data2")" 750 "in a folder made private"

done_testing
