#!/usr/bin/env bash
# The storage boundary: every SQL statement lives in lib/store/, behind functions named for
# what they do. No other file of lib/, fcgi/ or batch/ includes <sqlite3.h>, calls a
# sqlite3_ function, hands SQL text to db_run or db_exec, or holds a string that is an SQL
# statement (comments do not count).
. "$top_srcdir/t/lib/harness.sh"
require_cmd perl

# Folders (under the root) whose SQL has not moved into lib/store/ yet: they are not
# checked. Empty this list as they move; the test then holds for the whole tree.
STORAGE_BOUNDARY_PENDING=""

# Prints "FILE: what" for each file under root $1 that crosses the boundary.
crossings() {
	local root=$1 f rel p skip
	while IFS= read -r f; do
		rel=${f#"$root/"}
		skip=0
		for p in $STORAGE_BOUNDARY_PENDING; do
			case $rel in "$p"/*) skip=1 ;; esac
		done
		[ "$skip" = 1 ] && continue
		perl -0777 -ne '
			my $f = $ARGV;
			s{/\*.*?\*/}{ }gs;		# comments go, SQL text stays
			s{//[^\n]*}{}g;
			print "$f: includes <sqlite3.h>\n" if /#\s*include\s*<sqlite3\.h>/;
			print "$f: calls $1\n" if /\b(sqlite3_\w+)\s*\(/;
			print "$f: passes SQL text to $1\n"
			    if /\b(db_(?:run|exec))\s*\(\s*[^,()]*,\s*"/s;
			print "$f: holds SQL text \"$1\"\n"
			    if /"((?:SELECT|INSERT (?:OR [A-Z]+ )?INTO|UPDATE \w+ SET|DELETE FROM|CREATE (?:TABLE|INDEX|VIRTUAL)|DROP TABLE|PRAGMA|WITH \w+ AS) )/;
		' "$f" | sed "s|^$root/||"
	done < <(find "$root/lib" "$root/fcgi" "$root/batch" -name '*.[ch]' \
	    -not -path "$root/lib/store/*" | sort)
}

out=$(crossings "$top_srcdir")
is "$out" "" "no file outside lib/store includes sqlite3.h, calls SQLite or holds SQL text"

# The check finds each kind of crossing in a copy of the tree.
mkdir -p "$T/tree/lib/auth" "$T/tree/lib/http" "$T/tree/lib/store" "$T/tree/fcgi" "$T/tree/batch"
cat >"$T/tree/lib/auth/x.c" <<'C'
#include <sqlite3.h>
/* sqlite3_errmsg(db) in a comment is no call */
int x(struct sqlite3 *db) { return sqlite3_changes(db); }
C
cat >"$T/tree/fcgi/y.c" <<'C'
int y(struct sqlite3 *db) { return db_run(db,
    "DELETE FROM users WHERE id = ?1", "I", 1LL); }
C
cat >"$T/tree/batch/z.c" <<'C'
int z(struct sqlite3 *db) { return db_exec(db, "VACUUM"); }
C
cat >"$T/tree/lib/http/w.c" <<'C'
static const char *const w_sql = "DELETE FROM sessions WHERE id = ?1";
/* "SELECT 1" in a comment is no SQL */
static const char *const w_text = "select a library";
C
cat >"$T/tree/lib/store/ok.c" <<'C'
#include <sqlite3.h>
int ok(struct sqlite3 *db) { return db_exec(db, "VACUUM") + sqlite3_changes(db); }
C
out=$(crossings "$T/tree")
like "$out" 'lib/auth/x.c: includes <sqlite3.h>' "an include of sqlite3.h is found"
like "$out" 'lib/auth/x.c: calls sqlite3_changes' "... and a call of SQLite"
like "$out" 'fcgi/y.c: passes SQL text to db_run' "... and SQL text given to db_run"
like "$out" 'batch/z.c: passes SQL text to db_exec' "... and to db_exec"
like "$out" 'lib/http/w.c: holds SQL text "DELETE FROM "' "... and an SQL statement kept elsewhere"
ok $([[ $out != *errmsg* && $out != *store/* && $out != *SELECT* && $out != *select* ]]; \
    echo $?) "comments, words and lib/store itself are not crossings"
printf 'int w(struct sqlite3 *db) { return db_begin(db); }\n' >"$T/tree/lib/auth/x.c"
rm "$T/tree/fcgi/y.c" "$T/tree/batch/z.c" "$T/tree/lib/http/w.c"
is "$(crossings "$T/tree")" "" "without them the copy passes"
done_testing
