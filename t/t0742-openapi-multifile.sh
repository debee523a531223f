#!/usr/bin/env bash
# Multi-file OpenAPI descriptions at the shape the large public APIs publish: t/openapi-split
# turns one-file specs of the fixtures into trees of files (one per operation, per parameter
# group, per schema and other component; every $ref relative), served by the fixtures' nginx.
# Each split spec gives the same snippets as its original (3.0 YAML, 2.0 split to YAML and to
# JSON, 3.1 JSON), every file fetched once and every $ref resolved; the file-count and byte-total
# limits (settings) leave files out with a job-log line saying which setting was reached.
. "$top_srcdir/t/lib/harness.sh"
. "$top_srcdir/t/lib/fixtures.sh"
require_cmd jq nginx curl python3
python3 -c 'import yaml' 2>/dev/null || skip_all "python3 has no yaml module"

ctxd_setup
SPLIT=$T/split
O=$FIXTURES/openapi
mkdir -p "$SPLIT"
"$top_srcdir/t/openapi-split" "$O/twilio/spec/yaml/twilio_messaging_v1.yaml" "$SPLIT/msg" >/dev/null &&
    "$top_srcdir/t/openapi-split" "$O/argo-cd/assets/swagger.json" "$SPLIT/argo" --format yaml >/dev/null &&
    "$top_srcdir/t/openapi-split" "$O/argo-cd/assets/swagger.json" "$SPLIT/argojson" >/dev/null &&
    "$top_srcdir/t/openapi-split" "$O/discord/specs/openapi.json" "$SPLIT/discord" >/dev/null ||
    bail_out "t/openapi-split failed"
# the originals on the same site: a 2.0 spec without host resolves its server on the spec's URL
mkdir -p "$SPLIT/orig"
cp "$O/twilio/spec/yaml/twilio_messaging_v1.yaml" "$O/argo-cd/assets/swagger.json" \
    "$O/discord/specs/openapi.json" "$SPLIT/orig/" || bail_out "cp"
cp -r "$SPLIT/msg" "$SPLIT/msg-files" && cp -r "$SPLIT/msg" "$SPLIT/msg-bytes" &&
    cp -r "$SPLIT/msg" "$SPLIT/msg-policy" || bail_out "cp"
# msg-policy: one more operation, in a file whose URL redirects to the cloud metadata address
python3 -c 'import sys, yaml
p = sys.argv[1]; d = yaml.safe_load(open(p))
d["paths"]["/meta"] = {"get": {"$ref": "meta.yaml"}}
yaml.safe_dump(d, open(p, "w"), sort_keys=False)' "$SPLIT/msg-policy/openapi.yaml" ||
    bail_out "python3"
fixture_site split "$SPLIT" \
    'location = /msg-policy/meta.yaml { return 302 http://169.254.169.254/latest/meta-data; }'
fixtures_start
ctxd_start
ADMIN=$(ctxd_admin key create --admin tests)
A="Authorization: Bearer $ADMIN"

# add URL: POST /api/libraries for the spec at URL; prints the library id.
add() {
	http POST "$BASE/api/libraries" -H "$A" -H 'Content-Type: application/json' \
	    --data "{\"type\":\"openapi\",\"url\":\"$1\"}" >/dev/null
	http_body | jq -r .libraryId
}
# snippets ID: every snippet of the library as text: title, anchor, text and code, in order.
snippets() {
	_sql "SELECT title || char(10) || anchor || char(10) || text || char(10) || code
	    FROM snippets WHERE library_id = '$1' ORDER BY ord;"
}
# joblog ID: the lines of the library's last job.
joblog() {
	_sql "SELECT line FROM job_log WHERE job_id = (SELECT max(id) FROM jobs
	    WHERE library_id = '$1') ORDER BY id;"
}
files() { find "$1" -type f | wc -l; }

# name ORIGINAL SPLIT-DIR what
for c in "twilio_messaging_v1.yaml msg 3.0-YAML" \
    "swagger.json argo 2.0-split-to-YAML" \
    "swagger.json argojson 2.0-JSON" \
    "openapi.json discord 3.1-JSON"; do
	set -- $c
	orig=$(add "$FIX_SPLIT/orig/$1")
	root=openapi.yaml
	[ -f "$SPLIT/$2/openapi.json" ] && root=openapi.json
	split=$(add "$FIX_SPLIT/$2/$root")
	is "$(wait_job "$orig")" finalized "$3: the one-file spec is indexed"
	is "$(wait_job "$split")" finalized "$3: the split spec ($(files "$SPLIT/$2") files) is indexed"
	n=$(_sql "SELECT count(*) FROM snippets WHERE library_id = '$split'")
	ok "$([ "$n" -gt 50 ]; echo $?)" "$3: $n snippets"
	snippets "$orig" >"$T/orig.txt"
	snippets "$split" >"$T/split.txt"
	if cmp -s "$T/orig.txt" "$T/split.txt"; then
		ok 0 "$3: the split spec gives the same snippets as the original"
	else
		ok 1 "$3: the split spec gives the same snippets as the original"
		diff "$T/orig.txt" "$T/split.txt" | head -20 | sed 's/^/# /'
	fi
	log=$(joblog "$split")
	# every file fetched once (some of the tree no $ref names: components nothing uses)
	fixtures_requests split | awk -v p="/$2/" '$3 ~ "^" p { print $3 }' | sort >"$T/req.txt"
	n=$(wc -l <"$T/req.txt")
	is "$(sort -u "$T/req.txt" | wc -l)" "$n" "$3: $n files fetched, each once"
	like "$log" "OpenAPI [23].*, $((n - 1)) files next to it" "$3: ... all in the document"
	unlike "$log" 'do not resolve|not fetched|stay unresolved' "$3: every \$ref resolves"
done

# The limits: a file count and a byte total, each a job-log line when reached.
ctxd_admin settings set sources.openapi_max_files 20 >/dev/null
lim=$(add "$FIX_SPLIT/msg-files/openapi.yaml")
is "$(wait_job "$lim")" finalized "past sources.openapi_max_files the spec is still indexed"
log=$(joblog "$lim")
like "$log" "OpenAPI 3.x, .*, 20 files next to it" "... with 20 files"
like "$log" "the spec names more than 20 files \(setting sources.openapi_max_files\): [0-9]+ files are not fetched" \
    "... and a job-log line saying the file limit was reached"
like "$log" '\$refs do not resolve' "... the other \$refs shown as names"
ctxd_admin settings set sources.openapi_max_files 10000 >/dev/null
ctxd_admin settings set sources.openapi_max_total_kb 100 >/dev/null
lim=$(add "$FIX_SPLIT/msg-bytes/openapi.yaml")
is "$(wait_job "$lim")" finalized "past sources.openapi_max_total_kb the spec is still indexed"
log=$(joblog "$lim")
like "$log" "the spec's files reach 100 KB in all \(setting sources.openapi_max_total_kb\).*: [0-9]+ files are not fetched" \
    "... with a job-log line saying the byte total was reached"
kb=$(sed -n 's/.*files next to it (\([0-9]*\) KB in all).*/\1/p' <<<"$log")
ok "$([ -n "$kb" ] && [ "$kb" -le 100 ]; echo $?)" "... and ${kb:-?} KB fetched in all"
ctxd_admin settings set sources.openapi_max_total_kb 65536 >/dev/null

# A file is fetched as the spec is: through the address policy, each redirect hop too.
pol=$(add "$FIX_SPLIT/msg-policy/openapi.yaml")
is "$(wait_job "$pol")" finalized "a file that redirects to 169.254.169.254 does not fail the spec"
like "$(joblog "$pol")" "the \\\$refs to meta.yaml stay unresolved: could not fetch .*169.254.169.254.* not allowed by fetch.allowed_networks" \
    "... the job log says the address policy refused it"
is "$(_sql "SELECT total_snippets FROM libraries WHERE id = '$pol'")" \
    "$(_sql "SELECT total_snippets FROM libraries WHERE id = '$(add "$FIX_SPLIT/msg/openapi.yaml")'")" \
    "... and the other operations are indexed"

done_testing
