#!/usr/bin/env bash
# Repository size, file count and file size limits end in a clear job error or log line, not
# a crash; the library keeps serving what it had.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq git nginx fcgiwrap

ctxd_setup
gitserver_start
export CTXD_WORKER=/bin/true
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
parse() {
	http POST "$BASE/api/parse" -H "Authorization: Bearer $ADMIN" \
	    -H 'Content-Type: application/json' --data "{\"repoUrl\": \"$1\"}" >/dev/null
	http_body | jq -r .jobId
}

# Repository size: curl's bundle is over 1 MB.
ctxd_admin settings set limits.max_repo_mb 1
job=$(parse "$(gitserver_add_bundle curl public)")
"$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
is $? 0 "the worker exits normally"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" failed "a repository over the size limit fails"
like "$(_sql "SELECT message FROM jobs WHERE id = $job")" 'larger than the limit of 1 MB' \
    "the job says the repository is over the limit"
is "$(_sql "SELECT state FROM libraries WHERE id = '/corpora/curl'")" error "never indexed: error"
ctxd_admin settings unset limits.max_repo_mb

# File count.
ctxd_admin settings set limits.max_files 10
job=$(parse "$(gitserver_add_bundle requests public)")
"$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" failed "too many documentation files fail the job"
like "$(_sql "SELECT message FROM jobs WHERE id = $job")" \
    'documentation files, more than the limit of 10 \(setting limits.max_files\)' \
    "the job names the limit and the setting"
ctxd_admin settings unset limits.max_files

# File size: larger files are skipped with a log line, the rest is indexed.
ctxd_admin settings set limits.max_file_kb 8
job=$(parse "$GITBASE/public/corpora/requests.git")
"$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
is "$(_sql "SELECT state FROM jobs WHERE id = $job")" done "files over the size limit are skipped"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = $job")" \
    'skipped docs/user/[a-z]+\.rst: [0-9]+ bytes is more than the limit of 8 KB' \
    "each skipped file has a log line"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '/corpora/requests' AND path = 'docs/user/quickstart.rst'")" 0 \
    "the large file is not indexed"
like "$(_sql "SELECT total_documents FROM libraries WHERE id = '/corpora/requests'")" '^[1-9][0-9]*$' \
    "the small files are"
ctxd_admin settings unset limits.max_file_kb

# Lifting the limit and parsing again indexes the skipped files.
job=$(parse "$GITBASE/public/corpora/requests.git")
"$top_builddir/ctxd-worker" 2>>"$T/log/worker.log"
is "$(_sql "SELECT count(*) FROM documents WHERE library_id = '/corpora/requests' AND path = 'docs/user/quickstart.rst'")" 1 \
    "a skipped file is indexed once the limit allows it"

done_testing
