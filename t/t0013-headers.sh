#!/usr/bin/env bash
# Every header of lib/ compiles on its own (with the warnings of the build, as errors):
# each includes or declares what it uses, so a module includes the headers of the
# modules it calls and nothing else. lib/ holds no umbrella header: only its folders.
. "$top_srcdir/t/lib/harness.sh"
require_cmd cc pkg-config

cflags=$(pkg-config --cflags json-c libcurl libxml-2.0 yaml-0.1 libgit2 2>/dev/null)
n=0
while IFS= read -r h; do
	rel=${h#"$top_srcdir/lib/"}
	printf '#include "config.h"\n#include "%s"\n' "$rel" >"$T/one.c"
	# shellcheck disable=SC2086
	if out=$(cc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$top_builddir" \
	    -I"$top_srcdir/lib" $cflags -c "$T/one.c" -o "$T/one.o" 2>&1); then
		n=$((n + 1))
	else
		fail "lib/$rel compiles on its own" || true
		diag "$out"
	fi
done < <(find "$top_srcdir/lib" -name '*.h' | sort)
ok $((n <= 40)) "$n headers compile on their own"

# And the check fails on a header that leans on another being included first.
mkdir -p "$T/lib/x"
printf '#ifndef X_H\n#define X_H\nstruct buf b_of_x;\n#endif\n' >"$T/lib/x/x.h"
printf '#include "config.h"\n#include "x/x.h"\n' >"$T/one.c"
cc -std=gnu11 -Wall -Wextra -Werror -I"$top_builddir" -I"$T/lib" -c "$T/one.c" \
    -o "$T/one.o" 2>/dev/null
ok $(($? == 0)) "a header that does not include what it uses fails to compile"

loose=$(find "$top_srcdir/lib" -maxdepth 1 -name '*.[ch]')
is "$loose" "" "lib/ itself holds no source or header, only folders"
done_testing
