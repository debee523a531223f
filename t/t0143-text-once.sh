#!/usr/bin/env bash
# The database holds a snippet's text once (sql/0017-drop-fts.sql): no full-text table keeps
# a second copy, and the pages the database uses stay under a bound made of the text it
# stores (TEXT_BOUND times the bytes of the snippets' title, breadcrumb, text and code: the
# rows with their indexes and the other tables take the rest; these two corpora need 1.7,
# and 3.1 with the full-text table of version 16). A database of the previous
# schema (version 16, with its snippets_fts: made here from this one) is over that bound;
# ctxd-admin init migrates it in place (the table goes, its pages become free pages), every
# library answers as before (from its segment, and built from the rows without one), and
# ctxd-admin compact gives the free pages back to the file system.
# On PostgreSQL (CTXD_TEST_ENGINE=postgres), which never had the full-text table, the same
# bound holds for its tables (the stored copies of the segments aside: SQLite keeps them as
# files), the libraries answer from the segments and from the rows alike, and compact runs
# and names the database; the database of version 16 is SQLite's alone.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap sqlite3

TEXT_BOUND=2.0

ctxd_setup
sqlite=$([ "$(ctxd_test_engine)" = sqlite ] && echo 1)
# (PostgreSQL's rows take more room, a header of 24 bytes each and 8-byte integers: these
# corpora need 1.9 there; a second copy of the text would take it near 3.)
[ -n "$sqlite" ] || TEXT_BOUND=2.5
# used: the bytes of the database's pages that hold rows (free pages not counted; on
# PostgreSQL its tables with their indexes and TOAST after a VACUUM, the segments' copies
# aside, less what they took before the first library: PostgreSQL gives each table and index
# of the schema pages of its own even empty, some 1.7 MB); text: the bytes of the snippets'
# text columns.
used0=0
used() {
	local n
	if [ -n "$sqlite" ]; then
		_sql "SELECT sum(pgsize) FROM dbstat"
	else
		_sql "VACUUM" >/dev/null
		n=$(_sql "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n
		    ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' AND
		    c.relname NOT IN ('segment_files', 'segment_chunks')")
		echo $((n - used0))
	fi
}
[ -n "$sqlite" ] || used0=$(used)
text() {
	if [ -n "$sqlite" ]; then
		_sql "SELECT sum(length(CAST(title AS BLOB)) + length(CAST(breadcrumb AS BLOB)) +
		    length(CAST(text AS BLOB)) + length(CAST(code AS BLOB))) FROM snippets"
	else
		_sql "SELECT sum(octet_length(title) + octet_length(breadcrumb) + octet_length(text) +
		    octet_length(code)) FROM snippets"
	fi
}

gitserver_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
for b in requests express; do
	url=$(gitserver_add_bundle $b public)
	is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$url\"}")" 202 "parse $b"
	is "$(wait_job /corpora/$b)" finalized "$b indexed"
done

# within: "yes" when used <= TEXT_BOUND * text
within() { awk -v u="$1" -v t="$2" -v k="$TEXT_BOUND" 'BEGIN { print (u <= k * t) ? "yes" : "no" }'; }
ratio() { awk -v u="$1" -v t="$2" 'BEGIN { printf "%.2f", u / t }'; }

QS=("How do I set a timeout?" "session cookies" "routing parameters" "custom headers")
answers() {
	local q lib
	for lib in requests express; do
		for q in "${QS[@]}"; do
			http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=/corpora/$lib \
			    --data-urlencode "query=$q" --data-urlencode fast=true >/dev/null
			http_body
			echo
		done
	done
}

# --- this schema ------------------------------------------------------------------------------
if [ -n "$sqlite" ]; then
	is "$(_sql "SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%USING fts5%' OR
	    name LIKE 'snippets_fts%'")" 0 "no full-text table"
else
	is "$(_sql "SELECT count(*) FROM pg_class WHERE relname LIKE 'snippets_fts%'")" 0 \
	    "no full-text table"
fi
u=$(used)
t=$(text)
ok "$([ "$t" -gt 500000 ]; echo $?)" "the libraries hold enough text to weigh ($t bytes)"
is "$(within "$u" "$t")" yes \
    "the database uses $(ratio "$u" "$t") bytes a byte of text (at most $TEXT_BOUND)"
want=$(answers)
like "$want" 'Source: ' "the libraries answer"
is "$(index_check)" ok "each segment is the one its rows make"

# --- a database of version 16 (SQLite's alone) ------------------------------------------------
# snippets_fts as sql/schema.sql made it, with a row for each kept snippet as the writers of
# version 16 wrote it (the sqlite3 shell lacks the ctxd tokenizer: FTS5's own here), and
# without the tables of the later versions (18: the stored segments').
ctxd_stop
if [ -n "$sqlite" ]; then
	_sql "BEGIN;
	DROP TABLE segment_chunks;
	DROP TABLE segment_files;
	CREATE VIRTUAL TABLE snippets_fts USING fts5(lib, title, breadcrumb, body, code, path,
		tokenize = 'porter unicode61');
	INSERT INTO snippets_fts (rowid, lib, title, breadcrumb, body, code, path)
		SELECT s.id, 'l' || l.lib_no, s.title, s.breadcrumb, s.text,
		    (SELECT coalesce(group_concat(json_extract(value, '$.code') || char(10), ''), '')
		    FROM json_each(s.code)), d.path
		FROM snippets s JOIN documents d ON d.id = s.document_id
		JOIN libraries l ON l.id = s.library_id WHERE s.dup_of IS NULL;
	PRAGMA user_version = 16;
	COMMIT;" 2>"$T/log/downgrade.err"
	ok $? "a database at schema version 16 made of this one" || diag "$(cat "$T/log/downgrade.err")"
	u16=$(used)
	is "$(within "$u16" "$t")" no \
	    "with its full-text copy it uses $(ratio "$u16" "$t") bytes a byte of text: over the bound"
	ctxd_admin init >"$T/log/init-migrate.log" 2>&1
	ok $? "ctxd-admin init migrates it" || diag "$(cat "$T/log/init-migrate.log")"
	is "$(_sql 'PRAGMA user_version')" "$SCHEMA_VERSION" "to this build's version"
	is "$(_sql "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'snippets_fts%'")" 0 \
	    "snippets_fts and its shadow tables are gone"
	is "$(within "$(used)" "$t")" yes "the pages in use are under the bound again"
	ok "$([ "$(_sql 'PRAGMA freelist_count')" -gt 0 ]; echo $?)" "its pages are free pages of the file"
	is "$(_sql 'PRAGMA integrity_check')" ok "the migrated database is sound"
fi
ctxd_start
is "$(answers)" "$want" "every library answers as before (from its segment)"
ctxd_stop
mv "$DATA_DIR/segments" "$DATA_DIR/segments.away"
# (PostgreSQL's copies of the segments too, else the query workers fetch them.)
[ -n "$sqlite" ] || _sql "DELETE FROM segment_files" >/dev/null
ctxd_start
is "$(answers)" "$want" "... and as before without segments (built from the rows)"
ctxd_stop
mv "$DATA_DIR/segments.away" "$DATA_DIR/segments"

# --- the space back -----------------------------------------------------------------------------
if [ -n "$sqlite" ]; then
	before=$(stat -c %s "$DATA_DIR/ctxd.db")
	ctxd_admin compact >"$T/log/compact.log" 2>&1
	ok $? "ctxd-admin compact" || diag "$(cat "$T/log/compact.log")"
	after=$(stat -c %s "$DATA_DIR/ctxd.db")
	ok "$([ "$after" -lt "$before" ]; echo $?)" "the file shrinks ($before -> $after bytes)"
	is "$(within "$after" "$t")" yes "the whole file is under the bound ($(ratio "$after" "$t"))"
	is "$(_sql 'PRAGMA freelist_count')" 0 "no free page left"
else
	ctxd_admin compact >"$T/log/compact.log" 2>"$T/log/compact.err"
	ok $? "ctxd-admin compact" || diag "$(cat "$T/log/compact.err")"
	like "$(cat "$T/log/compact.log")" '^compacted the PostgreSQL database at host .* \(VACUUM\): ' \
	    "... names the database it compacted"
	unlike "$(cat "$T/log/compact.log")" 'ctxd\.db' "... not a SQLite file"
	u=$(used)
	is "$(within "$u" "$t")" yes "the tables are under the bound ($(ratio "$u" "$t"))"
fi
ctxd_start
is "$(answers)" "$want" "the libraries still answer as before"

done_testing
