#!/usr/bin/env bash
# The module graph (script/modgraph over the built objects): no cycle between modules, no
# call from a lower folder of lib/ into a higher one, and no module of lib/ outside its
# folders. First the check itself: on a tree of small modules made here, a cycle, an
# upward call and an unfiled module are found (exit 1), and the tree without them passes.
. "$top_srcdir/t/lib/harness.sh"
require_cmd python3 nm cc

mg="$top_srcdir/script/modgraph"
rm -rf "$T/g"
mkdir -p "$T/g/lib/base" "$T/g/lib/net" "$T/g/lib/store"
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
cc -c -o "$T/g/lib/base/a.o" "$T/g/a.c" && cc -c -o "$T/g/lib/base/b.o" "$T/g/b.c" &&
    cc -c -o "$T/g/lib/net/up.o" "$T/g/up.c" && cc -c -o "$T/g/lib/store/ai.o" "$T/g/ai.c" &&
    cc -c -o "$T/g/lib/loose.o" "$T/g/ai.c" -Dai_fn=loose_fn ||
    bail_out "cannot compile the test modules"
out=$(python3 "$mg" "$T/g" 2>&1)
is $? 1 "a tree with a cycle, an upward call and an unfiled module fails"
like "$out" "NEW cycle: lib/base/a lib/base/b" "... naming the cycle"
like "$out" "UP: lib/net/up -> lib/store/ai" "... and the call from lib/net into lib/store"
like "$out" "UNFILED: lib/loose " "... and the module outside the folders"
rm "$T/g/lib/base/b.o" "$T/g/lib/net/up.o" "$T/g/lib/loose.o"
cat >"$T/g/b.c" <<'C'
int b_fn(void) { return 2; }
C
cc -c -o "$T/g/lib/base/b.o" "$T/g/b.c" || bail_out "cannot compile"
out=$(python3 "$mg" "$T/g" 2>&1)
is $? 0 "without them the tree passes" || diag "$out"
unlike "$out" "NEW cycle" "without the call back, no cycle"
unlike "$out" "UP:" "without the upward call, no layer broken"
unlike "$out" "UNFILED" "without the loose module, every module is in its folder"

# A header of a later folder included by an earlier one is found too.
mkdir -p "$T/g/lib/store"
printf '#include "store/x.h"\n' >"$T/g/lib/net/inc.c"
out=$(python3 "$mg" "$T/g" 2>&1)
like "$out" "UPINCLUDE: lib/net/inc.c includes store/x.h" "an upward #include is found"
rm "$T/g/lib/net/inc.c"

# The real tree.
out=$(python3 "$mg" "$top_builddir" "$top_srcdir" 2>&1)
rc=$?
is "$rc" 0 "ctxd's modules: no new cycle and no upward call" || diag "$out"
like "$out" "[1-9][0-9]* modules, [1-9][0-9]* edges, 0 problems" "... over the whole build"
done_testing
