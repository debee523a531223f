#!/usr/bin/env bash
# The module graph (script/modgraph over the built objects): no cycle between modules but
# the one still listed as known there, and no call from a lower folder of lib/ into a
# higher one. First the check itself: on a tree of three small modules made here, a cycle
# and an upward call are found (exit 1), and the tree without them passes.
. "$top_srcdir/t/lib/harness.sh"
require_cmd python3 nm cc

mg="$top_srcdir/script/modgraph"
mkdir -p "$T/g/lib/store" "$T/g/lib/ai"
cat >"$T/g/a.c" <<'C'
int b_fn(void);
int a_fn(void) { return b_fn() + 1; }
C
cat >"$T/g/b.c" <<'C'
int a_fn(void);
int b_fn(void) { return 2; }
int b_back(void) { return a_fn(); }
C
cat >"$T/g/up.c" <<'C'
int ai_fn(void);
int store_fn(void) { return ai_fn(); }
C
cat >"$T/g/ai.c" <<'C'
int ai_fn(void) { return 3; }
C
cc -c -o "$T/g/lib/a.o" "$T/g/a.c" && cc -c -o "$T/g/lib/b.o" "$T/g/b.c" &&
    cc -c -o "$T/g/lib/store/up.o" "$T/g/up.c" && cc -c -o "$T/g/lib/ai/ai.o" "$T/g/ai.c" ||
    bail_out "cannot compile the test modules"
out=$(python3 "$mg" "$T/g" 2>&1)
is $? 1 "a tree with a cycle and an upward call fails"
like "$out" "NEW cycle: lib/a lib/b" "... naming the cycle"
like "$out" "UP: lib/store/up -> lib/ai/ai" "... and the call from lib/store into lib/ai"
rm "$T/g/lib/b.o" "$T/g/lib/store/up.o"
cat >"$T/g/b.c" <<'C'
int b_fn(void) { return 2; }
C
cc -c -o "$T/g/lib/b.o" "$T/g/b.c" || bail_out "cannot compile"
out=$(python3 "$mg" "$T/g" 2>&1)
# Only the known cycle of the real tree is missing here, which the check reports too.
unlike "$out" "NEW cycle" "without the call back, no cycle"
unlike "$out" "UP:" "without the upward call, no layer broken"

# The real tree.
out=$(python3 "$mg" "$top_builddir" 2>&1)
rc=$?
is "$rc" 0 "ctxd's modules: no new cycle and no upward call" || diag "$out"
like "$out" "[1-9][0-9]* modules, [1-9][0-9]* edges, 0 problems" "... over the whole build"
done_testing
