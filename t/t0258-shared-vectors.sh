#!/usr/bin/env bash
# Embedding vectors shared by content across the versions of a library (migration
# sql/0011-shared-vectors.sql): with the vendors' stand-in as the embedder, the real worker
# and a real git server. A second version adds an embeddings row per snippet it stores (the
# snippets of the files it shares with main have theirs, sql/0012-shared-documents.sql) and
# a vector only for each text no other version has, and the stand-in is not asked for the
# texts it reuses; a re-index finds the vectors of the unchanged texts of a changed file and deletes
# the vector of the text it replaced; a database at schema version 10 (vectors inside
# embeddings, one copy per snippet) is migrated without losing a vector and answers a hybrid
# question as before; deleting one version keeps the vectors the other names, and its hybrid
# answers; deleting both leaves no vector. The worker runs that reuse, embed and delete, and
# a query process loading the shared vectors, run under valgrind when it is there. On
# PostgreSQL (whose first schema version is 16, with the vectors table) the upgrade is from
# that version instead: the same vectors and answers after it.
. "$top_srcdir/t/lib/harness.sh"

require_cmd curl jq git nginx fcgiwrap sqlite3 node openssl md5sum
ctxd_setup
standin_start
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
MODEL=emb-share
standin_embedder "$MODEL"

bare=$T/gitsrv/public/test/vs.git
work=$T/work
mkdir -p "${bare%/*}" "$work"
git init -q --bare "$bare" || bail_out "git init"
git -C "$work" init -q -b main || bail_out "git init work"
commit() {	# commit MESSAGE [TAG]
	git -C "$work" add -A &&
	    git -C "$work" -c user.name=t -c user.email=t@t commit -q -m "$1" &&
	    { [ -z "${2:-}" ] || git -C "$work" tag "$2"; } &&
	    git -C "$work" push -q -f --tags "$bare" main:main 2>"$T/log/push.log" ||
	    bail_out "cannot commit $1"
}
put() { mkdir -p "$(dirname "$work/$1")" && cat >"$work/$1"; }

# v1.0: six chapters of two sections, a page that only vectors find, release notes.
for i in 1 2 3 4 5 6; do
	{
		printf '# Chapter %s\n\nThe unchanging chapter %s explains storage engine topic %s.\n\n' \
		    "$i" "$i" "$i"
		printf '## Details of chapter %s\n\nMore unchanging words about compaction level %s %s.\n' \
		    "$i" "$i" "and its knobs"
	} | put "docs/chapter$i.md"
done
printf '# Frobnication\n\nThe frobnicator spins widgets backwards.\n' | put docs/frob.md
printf '# Release notes\n\nVersion one adds the OLDFEATURE switch.\n' | put docs/notes.md
commit one v1.0
# main: the release notes change and gain a section (FEATURE: the word that changes next).
notes() {
	printf '# Release notes\n\nVersion two adds the %s switch.\n\n## Upgrading\n\n' "$1"
	printf 'Run the UPGRADESTEP migration before restarting.\n'
}
notes NEWFEATURE | put docs/notes.md
commit two
LIB=/test/vs

vg_init	# VG: the query process below runs under it too
parse() {	# parse [EXTRA JSON]
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' \
	    --data "{\"repoUrl\": \"$GITBASE/public/test/vs.git\"${1:-}}"
}
joblog() { _sql "SELECT group_concat(line, '|') FROM job_log WHERE job_id =
    (SELECT max(id) FROM jobs WHERE library_id = '$1')"; }
# embedded_texts: the texts the stand-in was asked to embed so far, one a line (newlines
# inside a text made spaces).
embedded_texts() {
	curl -s "$SBASE/_log" | jq -r '.[] | select(.path == "/v1/embeddings") | .body |
	    (if type == "string" then fromjson else . end).input |
	    if type == "array" then .[] else . end | gsub("\n"; " ")'
}
count_texts() { embedded_texts | wc -l; }
kept() { _sql "SELECT count(*) FROM snippets WHERE library_id = '$1' AND dup_of IS NULL"; }
nvec() { _sql "SELECT count(*) FROM vectors"; }
nemb() { _sql "SELECT count(*) FROM embeddings"; }
# the distinct (model, hash) the embeddings rows name, and the vectors no row names
named() { _sql "SELECT count(*) FROM (SELECT DISTINCT model, hash FROM embeddings) AS n"; }
unnamed() { _sql "SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM embeddings e
    WHERE e.model = v.model AND e.hash = v.hash)"; }

# --- the first version ---------------------------------------------------------------------
is "$(parse)" 202 "parse the default branch"
worker
is "$(wait_job $LIB)" finalized "main indexed"
main_kept=$(kept $LIB)
ok "$([ "$main_kept" -ge 15 ]; echo $?)" "main has its snippets ($main_kept)"
is "$(nemb) $(nvec)" "$main_kept $main_kept" "one embeddings row and one vector per snippet"
is "$(count_texts)" "$main_kept" "the stand-in embedded each text once"
texts1=$(count_texts)
vec1=$(nvec)
emb1=$(nemb)
bytes1=$(_sql "SELECT sum(length(vector)) FROM vectors")

# --- a second version: rows, not vectors ---------------------------------------------------
is "$(parse ', "versions": ["v1.0"]')" 202 "parse with the version v1.0"
worker vg
is "$(wait_job $LIB/v1.0)" finalized "v1.0 indexed"
like "$(joblog $LIB/v1.0)" "reused 7 files of other versions of $LIB" \
    "v1.0 reuses the seven files main has unchanged"
v1_kept=$(kept $LIB/v1.0)
is "$(nemb)" "$((emb1 + v1_kept))" "v1.0 adds an embeddings row for each of the $v1_kept snippets it stores"
is "$(nvec)" "$((vec1 + 1))" "... and one vector: its release notes, the only text main lacks"
is "$(_sql "SELECT sum(length(vector)) FROM vectors") " "$((bytes1 + 256)) " \
    "v1.0 adds 256 bytes of vectors (one of 64 floats)"
is "$(nvec)" "$(named)" "the vectors are exactly the distinct texts named"
is "$(count_texts)" "$((texts1 + 1))" "the stand-in was asked for one more text"
like "$(embedded_texts | tail -n 1)" 'OLDFEATURE' "... the changed release notes"
is "$(embedded_texts | tail -n +$((texts1 + 1)) | grep -c 'unchanging\|frobnicator')" 0 \
    "... and not for a text v1.0 reuses"
is "$(_sql "SELECT count(*) FROM snippets s WHERE library_id = '$LIB/v1.0' AND dup_of IS NULL AND
    NOT EXISTS (SELECT 1 FROM embeddings e JOIN vectors v USING (model, hash)
    WHERE e.snippet_id = s.id AND e.model = '$MODEL')")" 0 "every snippet of v1.0 has its vector"

# --- hybrid answers from the shared vectors -------------------------------------------------
# A question made of words found in no document, each hashed by the stand-in into the bucket
# (and sign) of a word of the Frobnication snippet's embedded text: its vector is that
# snippet's, the lexical ranking finds nothing, so only the vectors can answer it.
frob=$(embedded_texts | grep -m1 frobnicator)
Q=$(node -e '
	function fnv1a(s) {
		let h = 0x811c9dc5;
		for (let i = 0; i < s.length; i++) {
			h ^= s.charCodeAt(i);
			h = Math.imul(h, 0x01000193) >>> 0;
		}
		return h >>> 0;
	}
	const name = (n) => { let s = ""; do { s = String.fromCharCode(97 + n % 26) + s;
	    n = Math.floor(n / 26); } while (n > 0); return "zq" + s; };
	let c = 0;
	const out = (process.argv[1].toLowerCase().match(/[a-z0-9_]+/g) || []).map((w) => {
		const h = fnv1a(w);
		for (;;) {
			const f = name(c++), g = fnv1a(f);
			if (g % 64 === h % 64 && (g & 0x80000000) === (h & 0x80000000))
				return f;
		}
	});
	console.log(out.join(" "));' "$frob")
ok "$([ -n "$frob" ] && [ -n "$Q" ]; echo $?)" \
    "a vector-only question for the Frobnication snippet ($Q)"
hits=0
for w in $Q; do grep -rqiw -- "$w" "$work/docs" && hits=$((hits + 1)); done
is "$hits" 0 "no word of it is in a document"
ask() {	# ask LIBID: the answer to the vector-only question (fast: no reranking)
	http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$1" \
	    --data-urlencode "query=$Q" --data-urlencode fast=true >"$T/code"
	http_body
}
main_answer=$(ask $LIB)
is "$(cat "$T/code")" 200 "main answers the vector-only question"
is "$(grep -m1 '^### ' <<<"$main_answer")" "### Frobnication" \
    "... with the page only the vectors find"
v1_answer=$(ask $LIB/v1.0)
is "$(grep -m1 '^### ' <<<"$v1_answer")" "### Frobnication" \
    "so does v1.0, through the shared vector"

# --- a re-index: the unchanged texts of a changed file keep their vectors ------------------
notes NEWERFEATURE | put docs/notes.md
commit three
before=$(count_texts)
is "$(http POST "$BASE/api/libraries$LIB/refresh" -H "Authorization: Bearer $ADMIN")" 202 \
    "re-index main after a change of one section"
worker
is "$(_sql "SELECT indexed_commit FROM libraries WHERE id = '$LIB'")" \
    "$(git -C "$work" rev-parse HEAD)" "the new commit is indexed"
is "$(count_texts)" "$((before + 1))" "one text embedded: the changed section"
like "$(embedded_texts | tail -n 1)" 'NEWERFEATURE' "... the new release notes"
like "$(joblog $LIB)" 'embedded 2 snippets \(1 reused\)' \
    "the unchanged Upgrading section found its vector by hash"
like "$(joblog $LIB)" 'deleted 1 vectors no snippet uses any more' \
    "the replaced text's vector is deleted at the end of the job"
is "$(_sql "SELECT count(*) FROM vectors v JOIN embeddings e USING (model, hash)
    JOIN snippets s ON s.id = e.snippet_id WHERE s.text LIKE '%NEWFEATURE%'")" 0 \
    "no snippet has the replaced text"
is "$(unnamed) $(nvec)" "0 $(named)" "no vector is left unnamed"

# --- the upgrade from schema version 10 (PostgreSQL: 16) -----------------------------------
main_answer=$(ask $LIB)
v1_answer=$(ask $LIB/v1.0)
# every snippet's vector, to compare after the migration
vector_dump() {
	_sql "SELECT e.snippet_id || ' ' || e.model || ' ' || hex(v.vector) FROM embeddings e JOIN
	    vectors v USING (model, hash) ORDER BY 1" | md5sum
}
dump=$(vector_dump)
rows=$(nemb)
ctxd_stop
if [ "$(ctxd_test_engine)" = postgres ]; then
	# PostgreSQL's first version (sql/pg/schema.sql, 16: vectors already a table of their own),
	# made of this one: every later migration of sql/pg/ undone (drop what it added, newest
	# first; each new one adds its undo here), then migrated again by ctxd-admin init.
	_sql "BEGIN;
	-- 0020-claim-order.sql
	DROP INDEX jobs_claim_no;
	-- 0019-notify.sql: nothing (it runs again as it is: idempotent)
	-- 0018-segment-store.sql
	DROP TABLE segment_chunks;
	DROP TABLE segment_files;
	-- 0017-drop-fts.sql: nothing (PostgreSQL never had the full-text table)
	UPDATE ctxd_schema SET version = 16;
	COMMIT;" 2>"$T/log/downgrade.err"
	ok $? "a database at schema version 16 made of this one" || diag "$(cat "$T/log/downgrade.err")"
	is "$(schema_version) $(_sql "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'segment_%'")" \
	    "16 0" "no table of the later versions"
	ctxd_admin init >"$T/log/init2.log" 2>&1
	ok $? "ctxd-admin init migrates it" || diag "$(cat "$T/log/init2.log")"
	is "$(schema_version)" "$SCHEMA_VERSION" "to this build's version"
	is "$(_sql "SELECT from_version || ' ' || to_version FROM schema_history ORDER BY id DESC LIMIT 1")" \
	    "16 $SCHEMA_VERSION" "which schema_history records"
	is "$(_sql "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM
	    information_schema.columns WHERE table_schema = current_schema() AND
	    table_name = 'embeddings'")" "snippet_id,model,hash" "embeddings names the vectors"
	is "$(vector_dump)" "$dump" "every snippet has the same vector as before"
	is "$(nemb) $(nvec) $(unnamed)" "$rows $(named) 0" "one vector per distinct text, none unnamed"
else
	# Version 10 as the build before 0011 left it: each embeddings row with its own copy of the
	# vector (sql/schema.sql's table), no table vectors. 0011 and 0012 are undone here (0011 is
	# the last migration that changes these tables), and so is every later migration, which
	# ctxd-admin init runs again: each one adds its undo below (drop what it added, newest
	# first). 0012's documents that show another version's snippets (documents.snippets_from)
	# keep it in a table of the test, t0258_shares, put back after the migration: a database of
	# version 10 had copies instead.
	ddl=$(sed -n '/^CREATE TABLE embeddings (/,/^);/p; /^CREATE INDEX embeddings_hash/p' \
	    "$top_srcdir/sql/schema.sql")
	sqlite3 -batch "$DATA_DIR/ctxd.db" "BEGIN;
	-- 0020-claim-order.sql
	DROP INDEX jobs_claim_no;
	-- 0018-segment-store.sql
	DROP TABLE segment_chunks;
	DROP TABLE segment_files;
	-- 0017-drop-fts.sql (FTS5's own tokenizer: the sqlite3 shell lacks ctxd's)
	CREATE VIRTUAL TABLE snippets_fts USING fts5(lib, title, breadcrumb, body, code, path,
		tokenize = 'porter unicode61');
	INSERT INTO snippets_fts (rowid, lib, title, breadcrumb, body, code, path)
		SELECT s.id, 'l' || l.lib_no, s.title, s.breadcrumb, s.text, s.code, d.path
		FROM snippets s JOIN documents d ON d.id = s.document_id
		JOIN libraries l ON l.id = s.library_id WHERE s.dup_of IS NULL;
	-- 0016-job-leases.sql
	DROP INDEX jobs_lease;
	DROP INDEX jobs_queuer_claims;
	ALTER TABLE jobs DROP COLUMN lease_holder;
	ALTER TABLE jobs DROP COLUMN lease_until;
	ALTER TABLE jobs DROP COLUMN claim_no;
	ALTER TABLE jobs DROP COLUMN queued_admin;
	-- 0014-job-queuer.sql
	DROP INDEX jobs_queued_by;
	ALTER TABLE jobs DROP COLUMN queued_via;
	ALTER TABLE jobs DROP COLUMN queued_by;
	-- 0013-library-guard.sql
	DROP INDEX libraries_id_nocase;
	DROP TRIGGER libraries_rebind_host;
	DROP TRIGGER libraries_bind_host;
	DROP TABLE library_hosts;
	ALTER TABLE libraries DROP COLUMN created_anonymously;
	-- 0012 and 0011
	CREATE TABLE t0258_shares AS SELECT id, snippets_from FROM documents WHERE snippets_from IS NOT NULL;
	DROP VIEW library_snippets;
	DROP INDEX documents_shown;
	DROP INDEX documents_snippets_from;
	ALTER TABLE documents DROP COLUMN shows;
	ALTER TABLE documents DROP COLUMN snippets_from;
	CREATE TEMP TABLE old AS SELECT e.snippet_id, e.model, v.dim, e.hash, v.vector
	    FROM embeddings e JOIN vectors v USING (model, hash);
	DROP TABLE embeddings;
	DROP TABLE vectors;
	$ddl
	INSERT INTO embeddings (snippet_id, model, dim, hash, vector)
	    SELECT snippet_id, model, dim, hash, vector FROM old;
	PRAGMA user_version = 10;
	COMMIT;" 2>"$T/log/downgrade.err"
	ok $? "a database at schema version 10 made of this one" || diag "$(cat "$T/log/downgrade.err")"
	is "$(_sql "SELECT count(*) FROM sqlite_schema WHERE name = 'vectors'") $(_sql 'SELECT count(*)
	    FROM embeddings WHERE length(vector) = 256')" "0 $rows" \
	    "no vectors table; each of its $rows embeddings rows holds a vector"
	ctxd_admin init >"$T/log/init2.log" 2>&1
	ok $? "ctxd-admin init migrates it" || diag "$(cat "$T/log/init2.log")"
	_sql "UPDATE documents SET snippets_from = (SELECT snippets_from FROM t0258_shares s WHERE
	    s.id = documents.id) WHERE id IN (SELECT id FROM t0258_shares); DROP TABLE t0258_shares"
	is "$(_sql 'PRAGMA user_version')" "$SCHEMA_VERSION" "to this build's version"
	is "$(_sql "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'snippets_fts%'")" 0 \
	    "the full-text table of version 16 is gone"
	is "$(_sql "SELECT group_concat(name) FROM pragma_table_info('embeddings')")" \
	    "snippet_id,model,hash" "embeddings keeps only the rows that name a vector"
	is "$(vector_dump)" "$dump" "every snippet has the same vector as before"
	is "$(nemb) $(nvec) $(unnamed)" "$rows $(named) 0" "one vector per distinct text, none unnamed"
	is "$(_sql 'PRAGMA foreign_key_check')" "" "no row names a missing vector or snippet"
	is "$(_sql 'PRAGMA integrity_check')" ok "the migrated database is sound"
fi
ctxd_start
is "$(ask $LIB)" "$main_answer" "main answers the vector-only question as before the migration"
is "$(grep -m1 '^### ' <<<"$(ask $LIB/v1.0)")" "### Frobnication" "so does v1.0"
is "$(ask $LIB/v1.0)" "$v1_answer" "... with the same answer as before"
if [ "${#VG[@]}" -gt 0 ]; then
	# one request in CGI mode (valgrind 3.19 does not know seccomp(2): CTXD_SECCOMP=off)
	env REQUEST_METHOD=GET DOCUMENT_URI=/api/v2/context CTXD_SECCOMP=off \
	    QUERY_STRING="libraryId=$LIB/v1.0&fast=true&query=$(jq -rn --arg q "$Q" '$q | @uri')" \
	    "${VG[@]}" --log-file="$T/log/vg.%p" "$top_builddir/ctxd-query" >"$T/cgi.out" 2>"$T/cgi.err"
	is $? 0 "ctxd-query loads the migrated, shared vectors valgrind-clean"
	cat "$T"/log/vg.* 2>/dev/null | head -40 | while read -r l; do diag "$l"; done
	is "$(grep -m1 '^### ' "$T/cgi.out")" "### Frobnication" "... and answers from them"
else
	skip "valgrind is not there or the build has sanitizers" 2
fi

# --- deleting one version keeps the vectors the other names ---------------------------------
only_v1=$(_sql "SELECT count(*) FROM (SELECT DISTINCT e.hash FROM embeddings e JOIN snippets s
    ON s.id = e.snippet_id WHERE s.library_id = '$LIB/v1.0' AND NOT EXISTS (SELECT 1 FROM
    embeddings f JOIN snippets t ON t.id = f.snippet_id WHERE t.library_id <> '$LIB/v1.0'
    AND f.model = e.model AND f.hash = e.hash)) AS o")
is "$only_v1" 1 "one vector is v1.0's alone (its release notes)"
vecs=$(nvec)
is "$(http DELETE "$BASE/api/libraries$LIB/v1.0" -H "Authorization: Bearer $ADMIN")" 202 \
    "delete v1.0"
worker vg
is "$(_sql "SELECT count(*) FROM libraries WHERE id = '$LIB/v1.0'")" 0 "v1.0 is deleted"
like "$(joblog $LIB/v1.0)" "deleted library $LIB/v1.0: .* 1 vectors no other library uses" \
    "the delete job counts the vector only it used"
is "$(nvec)" "$((vecs - 1))" "that vector is gone"
is "$(nvec) $(unnamed)" "$(named) 0" "main's vectors all stay"
is "$(ask $LIB)" "$main_answer" "main still answers the vector-only question the same way"

# --- deleting both leaves no vector -------------------------------------------------------------
is "$(parse ', "versions": ["v1.0"]')" 202 "v1.0 again"
worker
is "$(wait_job $LIB/v1.0)" finalized "v1.0 indexed again"
is "$(nvec)" "$vecs" "with its one vector of its own"
is "$(http DELETE "$BASE/api/libraries$LIB" -H "Authorization: Bearer $ADMIN")" 202 \
    "delete the library and its version"
worker
is "$(_sql "SELECT count(*) FROM libraries WHERE id LIKE '$LIB%'")" 0 "both are deleted"
is "$(nemb) $(nvec)" "0 0" "no embeddings row and no vector is left"

done_testing
