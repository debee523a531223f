#!/usr/bin/env bash
# A missing prerequisite of the test suite (t/lib/prereq.sh, run by script/test before it
# builds, and by the browser tests' ui_install) fails at once, naming what is missing and
# what installs it: corpora (CORPORA pointing at an empty folder), chromium (a PATH without
# it), and all present passes silently; a single test run without the corpora bails out at
# once.
. "$top_srcdir/t/lib/harness.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-test.XXXXXX") || bail_out "mktemp failed"
P=$top_srcdir/t/lib/prereq.sh

mkdir -p "$T/empty"
start=$SECONDS
CORPORA=$T/empty "$P" corpora git >"$T/out" 2>"$T/err"
rc=$?
is "$rc" 1 "corpora missing: the check fails"
ok "$([ $((SECONDS - start)) -le 10 ]; echo $?)" "... at once"
like "$(cat "$T/err")" "missing prerequisite: the test corpora \\(no \\*\\.bundle in $T/empty\\)" \
    "... naming the corpora and the folder"
like "$(cat "$T/err")" "git checkout -- t/corpora" "... and how to restore them"
unlike "$(cat "$T/err")" "git \\(not in PATH\\)" "... and not git, which is there"

# A PATH without chromium (only what the check itself runs).
mkdir -p "$T/bin"
for c in dirname git; do ln -s "$(command -v "$c")" "$T/bin/$c"; done
start=$SECONDS
PATH=$T/bin "$(command -v bash)" "$P" chromium git >"$T/out" 2>"$T/err"
rc=$?
elapsed=$((SECONDS - start))
is "$rc" 1 "chromium missing: the check fails"
ok "$([ "$elapsed" -le 10 ]; echo $?)" "... at once (${elapsed} s)"
like "$(cat "$T/err")" "missing prerequisite: chromium \\(not in PATH\\): run script/bootstrap" \
    "... naming chromium and script/bootstrap"

# The corpora of the tree and git present: nothing said, status 0.
"$P" corpora git >"$T/out" 2>"$T/err"
is "$?" 0 "all present: the check passes"
is "$(cat "$T/out" "$T/err")" "" "... silently"

# A single test that serves the corpora (t0015, through gitserver_start) with CORPORA
# pointing at an empty folder bails out at once with what to do, rather than waiting on a job
# that cannot clone.
start=$SECONDS
CORPORA=$T/empty timeout 100 bash "$top_srcdir/t/t0015-file-modes.sh" >"$T/single.out" 2>&1
rc=$?
elapsed=$((SECONDS - start))
isnt "$rc" 0 "a single test without the corpora fails"
ok "$([ "$elapsed" -le 30 ]; echo $?)" "... at once (${elapsed} s)"
like "$(cat "$T/single.out")" "Bail out! missing prerequisite: the test corpora .*git checkout -- t/corpora" \
    "... naming the corpora and what to do" || diag "$(tail -5 "$T/single.out")"

# script/test runs the check before it builds.
grep -q 't/lib/prereq.sh' "$top_srcdir/script/test"
ok $? "script/test runs the check"
done_testing
