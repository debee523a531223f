#!/usr/bin/env bash
# Duplicate snippets (lib/index/dedup.c) through the real path: a repository holding a versioned
# copy (docs/v1, docs/v2), a near copy (one word changed) and an Installation section
# copied from the README is indexed; only one copy of each is searchable (lexically and
# by vector), the same paragraph under two headings stays twice; when the kept copy
# changes, then is deleted, the former duplicate is searchable again (incremental runs).
. "$top_srcdir/t/lib/harness.sh"

require_cmd node curl jq git nginx fcgiwrap
ctxd_setup
standin_start
gitserver_start
export CTXD_WORKER=/bin/true	# the test runs the worker itself
ctxd_start
ctxd_admin settings set ai.llm.provider openai >/dev/null || bail_out "cannot set the provider"
ctxd_admin settings set ai.llm.base_url "$SBASE" >/dev/null || bail_out "cannot set base_url"
ctxd_admin settings set ai.embed.model emb-dup >/dev/null || bail_out "cannot set the model"
printf 'sk-good-%s\n' "$(openssl rand -hex 4)" | ctxd_admin settings set ai.llm.api_key - \
    >/dev/null || bail_out "cannot set the key"
ADMIN=$(ctxd_admin key create --admin tests)
LIB=/test/dup

# The repository: a bare repository served by the git server, filled from a work tree.
test_repo test/dup
mkdir -p "$work/docs/v1" "$work/docs/v2"
guide() {	# guide old|new START-KEYWORD
	if [ "$1" = old ]; then
		configure="The widget reads its settings once at start-up: pass the zebrafrob option
to turn the cache on, set the size in megabytes, and give the directory where the cache
files live. Settings changed later are ignored until the next start of the process.

\`\`\`js
widget.configure({ zebrafrob: true, size: 64, dir: '/var/cache/widget' });
\`\`\`"
	else
		configure="Since version two the settings live in a file named widget.toml next to
the program, which is read again whenever it changes, so no restart is needed any more
and every option can be changed while the process keeps running.

\`\`\`toml
size = 64
\`\`\`"
	fi
	cat <<EOF
# Widget guide

## Configure the widget

$configure

## Start the widget

Call start once the settings are in place; it opens the cache directory, loads the saved
entries, and begins to answer lookups from the quokkaplex table at once, falling back to
the network for the entries it does not hold yet.

\`\`\`js
$2 w = widget.start();
\`\`\`
EOF
}
guide old const >"$work/docs/v2/guide.md"
guide old var >"$work/docs/v1/guide.md"
cat >"$work/README.md" <<'EOF'
# Dup project

## Installation

Install the package with npm and import it in your module; the package has no native
parts, so it installs the same way on every platform that runs a recent Node release.

```sh
npm install wombatic-widget
```
EOF
cat >"$work/docs/install.md" <<'EOF'
# Install

## Installation

Install the package with npm and import it in your module; the package has no native
parts, so it installs the same way on every platform that runs a recent Node release.

```sh
npm install wombatic-widget
```
EOF
cat >"$work/docs/api.md" <<'EOF'
# API

## app.get()

- `path` (String) The path for which the handler is invoked; a string, a pattern or a
  regular expression that the request path must match for the platypod handler to run.

## app.post()

- `path` (String) The path for which the handler is invoked; a string, a pattern or a
  regular expression that the request path must match for the platypod handler to run.
EOF
# Templated reference pages: a very short section means what its trail says.
printf '# OPT_A\n\n## DEFAULT\n\nNULL\n' >"$work/docs/opt-a.md"
printf '# OPT_B\n\n## DEFAULT\n\nNULL\n' >"$work/docs/opt-b.md"
commit first

parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' \
	    --data "{\"repoUrl\": \"$GITBASE/public/test/dup.git\"}"
}
# sources QUERY: the Source lines' paths of the context answer, one a line (the library is
# small: every snippet that matches a word of QUERY is in the answer).
sources() {
	# fast: no LLM reranking (the stand-in reverses the order)
	http GET "$BASE/api/v2/context" -G --data-urlencode libraryId=$LIB \
	    --data-urlencode "query=$1" --data-urlencode fast=true >/dev/null
	http_body | sed -n 's|^Source: [^ ]*/git/public/[^/]*/[^/]*/\([^#]*\).*|\1|p'
}
kept() {
	_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND dup_of IS NULL"
}
# consistent: the index rows match the kept snippets exactly.
consistent() {
	local k emb tot
	k=$(kept)
	emb=$(_sql "SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id
	    WHERE s.library_id = '$LIB' AND s.dup_of IS NULL AND e.model = 'emb-dup'")
	tot=$(_sql "SELECT total_snippets FROM libraries WHERE id = '$LIB'")
	is "$emb $tot" "$k $k" "$1: one vector per kept snippet, counted ($k)"
	is "$(_sql "SELECT count(*) FROM embeddings e JOIN snippets s ON s.id = e.snippet_id
	    WHERE s.library_id = '$LIB' AND s.dup_of IS NOT NULL")" 0 "$1: duplicates have no vector"
	is "$(_sql "SELECT count(*) FROM snippets s WHERE s.library_id = '$LIB' AND
	    s.dup_of IS NOT NULL AND NOT EXISTS (SELECT 1 FROM snippets k WHERE k.id = s.dup_of
	    AND k.dup_of IS NULL)")" 0 "$1: every duplicate points at a kept snippet"
}
joblog() {
	_sql "SELECT line FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE
	    library_id = '$LIB') ORDER BY id"
}

is "$(parse)" 202 "parse"
worker
is "$(wait_job $LIB)" finalized "indexed"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND dup_of IS NOT NULL")" 3 \
    "three duplicates: the v1 sections (exact and near) and the Installation copy"
consistent "first index"
like "$(joblog)" "3 duplicate snippets left out \\(2 exact, 1 near copies" "the job log counts them"
# count PATH QUERY: how many snippets of PATH answer QUERY.
count() {
	sources "$2" | grep -cxF "$1"
}
Q="widget zebrafrob quokkaplex wombatic platypod"
is "$(count docs/v2/guide.md "$Q")" 2 "the higher version's sections answer"
is "$(count docs/v1/guide.md "$Q")" 0 "its exact and near copies in v1 do not"
is "$(count README.md "$Q")" 1 "the README's Installation answers"
is "$(count docs/install.md "$Q")" 0 "its copy in docs/ does not"
is "$(count docs/api.md "$Q")" 2 "the same paragraph under two headings answers twice"
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND heading = 'DEFAULT'
    AND dup_of IS NULL")" 2 "a very short section under two trails is kept twice"

# The kept copy changes: the v1 section is searchable again; the near copy stays out.
guide new const >"$work/docs/v2/guide.md"
commit second
is "$(parse)" 202 "parse the second commit"
worker
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND dup_of IS NOT NULL")" 2 \
    "two duplicates left"
like "$(joblog)" "2 duplicate snippets left out \\(1 exact, 1 near copies; 0 newly, 1 restored\\)" \
    "the job log says one was restored"
consistent "kept copy changed"
is "$(count docs/v1/guide.md "$Q")" 1 "the former exact duplicate answers"
is "$(sources zebrafrob | head -1)" docs/v1/guide.md "first for its own words"

# The kept copy is deleted: the near copy in v1 is searchable again.
git -C "$work" rm -q docs/v2/guide.md
commit third
is "$(parse)" 202 "parse the third commit"
worker
is "$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$LIB' AND dup_of IS NOT NULL")" 1 \
    "only the Installation copy is a duplicate"
consistent "kept copy deleted"
is "$(count docs/v1/guide.md "$Q")" 2 "the former near copy answers too"
is "$(count docs/v2/guide.md "$Q")" 0 "nothing of the deleted file"

# A higher version arrives: it is kept, the v1 sections (with vectors by now) become
# duplicates again and no query returns them, the vectors a query process holds included.
is "$(count docs/v1/guide.md "$Q")" 2 "(v1 answers before)"
mkdir -p "$work/docs/v3"
cp "$work/docs/v1/guide.md" "$work/docs/v3/guide.md"
commit fourth
is "$(parse)" 202 "parse the fourth commit"
worker
consistent "higher version added"
is "$(count docs/v3/guide.md "$Q") $(count docs/v1/guide.md "$Q")" "2 0" "v3 answers, v1 no more"

# New settings re-index every file: the same decisions.
is "$(http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$GITBASE/public/test/dup.git\",
    \"excludeFiles\": [\"nonexistent.md\"]}")" 202 "parse with new settings"
worker
consistent "full re-index"
is "$(count docs/v3/guide.md "$Q") $(count docs/install.md "$Q")" "2 0" "the same copies answer"

done_testing
