#!/usr/bin/env bash
# nginx's own errors outside /api/ are ours: a folder without its slash, a file that does
# not exist, a method the static files do not answer, /api and /api/v2 without their slash
# each get a JSON {"error": ...} with its status (no redirect to a folder listing nginx
# would refuse), never nginx's HTML page, and nginx never names its version.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq nginx curl

ctxd_setup
export CTXD_WORKER=/bin/true
ctxd_start

# json_error STATUS DESC METHOD PATH [CURL ARGS...]: the answer is STATUS, a JSON error.
json_error() {
	local want=$1 desc=$2 method=$3 path=$4
	shift 4
	is "$(http "$method" "$BASE$path" "$@")" "$want" "$desc: $want"
	like "$(http_header Content-Type)" '^application/json' "$desc: Content-Type application/json"
	ok "$(jq -er '.error | strings' "$T/http.body" >/dev/null 2>&1; echo $?)" \
	    "$desc: the body is {\"error\": ...}"
	unlike "$(http_body)" '<html|<center>|nginx' "$desc: not nginx's HTML page"
	unlike "$(http_header Server)" '[0-9]' "$desc: no version in Server"
}

json_error 404 "a folder without its slash (/js)" GET /js
is "$(http_header Location)" "" "... no redirect"
json_error 404 "a folder with its slash (/css/)" GET /css/
json_error 404 "a file that does not exist" GET /nope.html
json_error 404 "a path below a file" GET /favicon.svg/x
json_error 404 "an internal error page from outside" GET /.ctxd-error/404
json_error 405 "POST to a static file" POST /index.html --data x
like "$(http_header Allow)" 'GET, HEAD' "... Allow names GET and HEAD"
json_error 405 "DELETE of a static file" DELETE /js/app.js
json_error 405 "POST to /" POST / --data x
json_error 404 "/api without its slash" GET /api
json_error 404 "/api/v2 without its slash" GET /api/v2

# What is served still is.
is "$(http GET "$BASE/")" 200 "/ serves the web UI"
like "$(http_header Content-Type)" '^text/html' "... as HTML"
is "$(http GET "$BASE/index.html")" 200 "/index.html too"
is "$(http GET "$BASE/favicon.svg")" 200 "a static file"
is "$(http HEAD "$BASE/favicon.svg")" 200 "HEAD of a static file"
is "$(http GET "$BASE/api/v2/libs/search?libraryName=x")" 200 "the API under /api/v2/"

done_testing
