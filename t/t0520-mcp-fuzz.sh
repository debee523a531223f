#!/usr/bin/env bash
# Fuzz smoke run of the MCP protocol code (t/fuzz/fuzz-mcp.c: lib/mcp/mcp.c, lib/mcp/mcp2026.c
# and the real tools of lib/mcp/mcp_tools.c on a small temporary database):
# real JSON-RPC messages and batches, and thousands of random mutations of them, without a
# crash (under --enable-sanitizers, without a sanitizer report either).
. "$top_srcdir/t/lib/harness.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-fuzz.XXXXXX") || bail_out "mktemp"	# removed at exit
s=$T/seeds
mkdir -p "$s"
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}' >"$s/1"
printf '%s' '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"query-docs","arguments":{"libraryId":"/a/b","query":"how"}}}' >"$s/2"
printf '%s' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"b","userQuery":"x"}}}' >"$s/3"
printf '%s' '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]' >"$s/4"
printf '%s' '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"context7CompatibleLibraryID":"/a/b","topic":"t","tokens":"1200"}}}' >"$s/5"
printf '%s\n%s' 'application/json;q=0, */*;q=0.5, http://example.com:3000' '{"jsonrpc":"2.0","id":6,"result":{}}' >"$s/6"
# ids past 64 bits (echoed from the body's text), a comment, an escaped member name
printf '%s' '[{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"},/* c */{"\u0069d":-99999999999999999999,"jsonrpc":"2.0","method":"tools/list"},{"id":-0,"jsonrpc":"2.0","method":"x"}]' >"$s/7"
# MCP 2026-07-28: the first line is the Mcp-Method and Mcp-Name headers (Base64 form too)
printf '%s\n%s' 'tools/call' '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"tools/call","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' >"$s/8"
printf '%s\n%s' '=?base64?c2VydmVyL2Rpc2NvdmVy?=' '{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' >"$s/9"
out=$("$top_builddir/t/fuzz/fuzz-mcp" -n 3000 -s 7 "$s"/* 2>&1)
ok $? "fuzz-mcp: no crash"
like "$out" "ok 1 - [0-9]+ inputs" "fuzz-mcp ran"
done_testing
