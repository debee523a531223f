#!/usr/bin/env bash
# The validators an llms.txt source keeps after a 304 (lib/sources/llmstxt.c): a server may
# send a new ETag with its 304 (RFC 9110: it is the current one), and the next run must ask
# with that one, not with the one stored before. nginx repeats the ETag it was asked with, so
# a small server here sends "v1" with the page, "v2" with its first 304, and records the
# If-None-Match of every request. (The llms.txt itself is read whole every run: its links
# are the list of pages.)
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq node curl sqlite3

ctxd_setup
cat >"$T/etag-server.js" <<'EOS'
'use strict';
// node etag-server.js LOG EXTRA: /llms.txt (with the text of the file EXTRA appended when it
// exists) and /page.md; a conditional request with a page's current ETag "<page>-vN" gets a
// 304 carrying the next one, "<page>-vN+1".
const http = require('node:http');
const fs = require('node:fs');
const log = process.argv[2];
const extra = process.argv[3];
const pages = {
	'/llms.txt': '# Etags\n\n> A test-made llms.txt.\n\n## Docs\n\n- [Page](/page.md): the page\n',
	'/page.md': '# Wombat settings\n\nSet WOMBATLEVEL to choose how deep the wombat digs.\n',
};
const current = {};
const server = http.createServer((req, res) => {
	const inm = req.headers['if-none-match'] || '-';
	fs.appendFileSync(log, `${req.url} ${inm}\n`);
	let body = pages[req.url];
	if (req.url === '/llms.txt' && fs.existsSync(extra))
		body += fs.readFileSync(extra, 'utf8');
	if (body === undefined) {
		res.writeHead(404, { 'Content-Type': 'text/plain' });
		res.end('not found\n');
		return;
	}
	const name = req.url.slice(1);
	if (current[req.url] === undefined)
		current[req.url] = 1;
	if (inm !== '-' && inm === `"${name}-v${current[req.url]}"`) {
		current[req.url]++;
		res.writeHead(304, { ETag: `"${name}-v${current[req.url]}"` });
		res.end();
		return;
	}
	res.writeHead(200, { 'Content-Type': 'text/markdown', ETag: `"${name}-v${current[req.url]}"` });
	res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
EOS
: >"$T/etag.log"
_spawn "$T/log/etag-server.out" node "$T/etag-server.js" "$T/etag.log" "$T/extra.md"
EPORT=$(_standin_port "$T/log/etag-server.out" "$_spawned") || bail_out "the ETag server did not start"
ctxd_start
A="Authorization: Bearer $(ctxd_admin key create --admin tests)"

http POST "$BASE/api/libraries" -H "$A" -H 'Content-Type: application/json' \
    --data "{\"type\":\"llmstxt\",\"url\":\"http://127.0.0.1:$EPORT/llms.txt\"}" >/dev/null
ID=$(http_body | jq -r .libraryId)
is "$(wait_job "$ID")" finalized "the llms.txt and its page are indexed"
etag() { _sql "SELECT coalesce(etag, '-') FROM documents WHERE library_id = '$ID' AND path = '$1';"; }
is "$(etag page.md)" '"page.md-v1"' "the page's ETag is stored"
refresh() {
	: >"$T/etag.log"
	is "$(http POST "$BASE/api/libraries/${ID#/}/refresh" -H "$A")" 202 "refresh: 202"
	wait_jobid "$(http_body | jq -r .jobId)"
}
# A run that writes (the llms.txt changed), then one that has nothing to write: both keep
# the ETag of the page's 304.
printf '\n- [Other](/other.md): a page that is not there\n' >"$T/extra.md"
refresh
grep -qxF '/page.md "page.md-v1"' "$T/etag.log"
ok $? "the re-index asks with the stored ETag"
is "$(etag page.md)" '"page.md-v2"' "after the 304 of a run that wrote the index, the document has the ETag the 304 sent"
refresh
grep -qxF '/page.md "page.md-v2"' "$T/etag.log"
ok $? "the next run asks with it" || diag "$(cat "$T/etag.log")"
like "$(_sql "SELECT group_concat(line, ' | ') FROM job_log WHERE job_id = (SELECT max(id) FROM jobs WHERE library_id = '$ID')")" \
    'already indexed; nothing to do' "... a run with nothing to write"
is "$(etag page.md)" '"page.md-v3"' "which keeps the ETag of its 304 too"
refresh
grep -qxF '/page.md "page.md-v3"' "$T/etag.log"
ok $? "and the run after asks with that one" || diag "$(cat "$T/etag.log")"
like "$(http GET "$BASE/api/v2/context" -G --data-urlencode "libraryId=$ID" \
    --data-urlencode 'query=WOMBATLEVEL' >/dev/null; http_body)" 'WOMBATLEVEL' \
    "the kept page still answers"

done_testing
