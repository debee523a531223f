#!/usr/bin/env bash
# ctxd setup --mcp for every agent into a temporary HOME and project folder, against a real
# deployment (nginx + ctxd-web answering /api/client-config): the files are parsed (JSON with
# jq, TOML with python3's tomllib), existing settings and servers are kept, a second run is
# byte-identical, and MCP authentication off and on decides whether a key is written.
. "$top_srcdir/t/lib/harness.sh"
require_cmd jq python3 nginx sha256sum setsid
python3 -c 'import tomllib' 2>/dev/null || skip_all "python3 has no tomllib (needs 3.11)"

ctxd_setup
ctxd_start
CTXD=$top_builddir/ctxd
ALL=(--claude --cursor --vscode --codex --opencode)
U=$BASE/mcp
EXTRA_ENV=()

# ctxd_in DIR HOME ARGS...: run ctxd in folder DIR with HOME, none of ctxd's variables set;
# stdout in $T/out, stderr in $T/err; prints the exit status.
ctxd_in() {
	local dir=$1 home=$2 rc=0
	shift 2
	(cd "$dir" && env -u CTXD_API_KEY -u CTXD_BASE_URL -u XDG_CONFIG_HOME -u CODEX_HOME \
	    HOME="$home" ${EXTRA_ENV:+"${EXTRA_ENV[@]}"} "$CTXD" "$@") \
	    >"$T/out" 2>"$T/err" </dev/null || rc=$?
	echo "$rc"
}
# sums DIR: checksums and modes of every file below DIR (symbolic links as links).
sums() {
	(cd "$1" && find . \( -type f -o -type l \) -printf '%p %m %l\n' | sort &&
	    find . -type f -print0 | sort -z | xargs -0r sha256sum)
}
# toml FILE EXPR: a Python expression over d = the parsed TOML file; prints its value.
toml() {
	python3 -c 'import sys, tomllib, json
d = tomllib.load(open(sys.argv[1], "rb"))
print(json.dumps(eval(sys.argv[2]), sort_keys=True))' "$1" "$2"
}

# -------------------------------------------------------------------- the public endpoint
is "$(http GET "$BASE/api/client-config")" 200 "GET /api/client-config without a key: 200"
is "$(http_body | jq -c '[.mcpAuthRequired, .mcpUrl]')" '[false,"/mcp"]' \
    "client-config: auth off by default, mcpUrl /mcp"
like "$(http_body | jq -r .version)" '^[0-9]+\.[0-9]+' "client-config: the version"
is "$(http POST "$BASE/api/client-config")" 405 "POST /api/client-config: 405"

# -------------------------------------------------------------------- global, auth off
H=$T/home
P=$T/proj
mkdir -p "$H/.cursor" "$H/.config/Code/User" "$H/.codex" "$H/.config/opencode" "$P"
cat >"$H/.claude.json" <<'EOF'
{"numStartups": 7, "mcpServers": {"other": {"type": "stdio", "command": "other-mcp", "args": ["-v"]}},
 "projects": {"/src/x": {"allowedTools": [], "history": [{"display": "hi", "n": 1.50}]}}}
EOF
echo '{"mcpServers": {"other": {"url": "https://other.example/mcp"}}}' >"$H/.cursor/mcp.json"
chmod 640 "$H/.cursor/mcp.json"
echo '{"inputs": [{"id": "tok", "type": "promptString"}], "servers": {"gh": {"type": "http", "url": "https://gh.example/mcp"}}}' \
    >"$H/.config/Code/User/mcp.json"
echo '{"$schema": "https://opencode.ai/config.json", "theme": "dark", "mcp": {"local": {"type": "local", "command": ["x"]}}}' \
    >"$H/.config/opencode/opencode.json"
cat >"$H/.codex/config.toml" <<'EOF'
# Codex settings, kept as they are
model = "o3"   # the model
approval_policy = "on-request"

[mcp_servers.other]
command = "npx"
args = [
  "-y",
  "[mcp_servers.ctxd]",   # not a table: inside an array
]
env = { "A" = "1" }

[profiles.fast]
model = "o4-mini"
notes = """
[mcp_servers.ctxd]
inside a multi-line string
"""
EOF
cp "$H/.codex/config.toml" "$T/config.toml.orig"
printf '# My global agent rules\n\nBe concise.\n' >"$H/.codex/AGENTS.md"

rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$BASE" "${ALL[@]}")
is "$rc" 0 "setup for all five agents (auth off): exit 0"
[ "$rc" -eq 0 ] || diag "$(cat "$T/err")"
like "$(cat "$T/out")" 'no authentication' "setup says no key is written"

c=$H/.claude.json
is "$(jq -c .mcpServers.ctxd "$c")" "{\"type\":\"http\",\"url\":\"$U\"}" "claude: entry"
is "$(jq -c '[.numStartups, .mcpServers.other.command, .projects["/src/x"].history[0].display]' "$c")" \
    '[7,"other-mcp","hi"]' "claude: other settings and servers kept"
grep -q '"n": 1.50' "$c"
ok $? "claude: a number keeps its text (1.50)"
is "$(jq -c .mcpServers.ctxd "$H/.cursor/mcp.json")" "{\"url\":\"$U\"}" "cursor: entry"
is "$(jq -r .mcpServers.other.url "$H/.cursor/mcp.json")" https://other.example/mcp \
    "cursor: other server kept"
is "$(stat -c %a "$H/.cursor/mcp.json")" 640 "cursor: the file's mode is kept"
v=$H/.config/Code/User/mcp.json
is "$(jq -c .servers.ctxd "$v")" "{\"type\":\"http\",\"url\":\"$U\"}" "vscode: entry"
is "$(jq -c '[.inputs[0].id, .servers.gh.url]' "$v")" '["tok","https://gh.example/mcp"]' \
    "vscode: inputs and other server kept"
o=$H/.config/opencode/opencode.json
is "$(jq -c .mcp.ctxd "$o")" "{\"type\":\"remote\",\"url\":\"$U\",\"enabled\":true}" \
    "opencode: entry"
is "$(jq -c '[."$schema", .theme, .mcp.local.type]' "$o")" \
    '["https://opencode.ai/config.json","dark","local"]' "opencode: other settings kept"
t=$H/.codex/config.toml
is "$(toml "$t" 'd["mcp_servers"]["ctxd"]')" "{\"url\": \"$U\"}" \
    "codex: [mcp_servers.ctxd] parses with tomllib"
is "$(toml "$t" '[d["model"], d["mcp_servers"]["other"]["args"][1], d["mcp_servers"]["other"]["env"], d["profiles"]["fast"]["model"]]')" \
    '["o3", "[mcp_servers.ctxd]", {"A": "1"}, "o4-mini"]' "codex: other settings and servers kept"
orig_len=$(stat -c %s "$T/config.toml.orig")
cmp -s <(head -c "$orig_len" "$t") "$T/config.toml.orig"
ok $? "codex: every line of the old file is byte-identical (the tables are appended)"
grep -q 'http_headers' "$t"
ok $((!$?)) "codex: no headers table without authentication"

for f in "$H/.claude/rules/ctxd.md" "$H/.cursor/rules/ctxd.mdc" \
    "$H/.config/Code/User/prompts/ctxd.instructions.md" "$H/.codex/AGENTS.md" \
    "$H/.config/opencode/AGENTS.md"; do
	grep -q 'resolve-library-id' "$f" && grep -q 'query-docs' "$f" && grep -q '/owner/repo' "$f"
	ok $? "rule ${f#"$H"/}: resolve-library-id first unless /owner/repo, then query-docs"
done
is "$(sed -n '1p;3p' "$H/.cursor/rules/ctxd.mdc" | tr '\n' '|')" '---|alwaysApply: true|' \
    "cursor rule: front matter with alwaysApply: true"
is "$(sed -n 2p "$H/.config/Code/User/prompts/ctxd.instructions.md")" 'applyTo: "**"' \
    "vscode instructions: applyTo all files"
like "$(head -3 "$H/.codex/AGENTS.md" | tr '\n' '|')" '^# My global agent rules\|\|Be concise\.\|$' \
    "codex AGENTS.md: the user's text kept"
is "$(grep -c '^<!-- ctxd:begin -->$' "$H/.codex/AGENTS.md")" 1 "codex AGENTS.md: one marked block"
for f in "$H/.claude/skills/ctxd/SKILL.md" "$H/.cursor/skills/ctxd/SKILL.md" \
    "$H/.copilot/skills/ctxd/SKILL.md" "$H/.agents/skills/ctxd/SKILL.md"; do
	[ "$(sed -n '1p;2p' "$f" | tr '\n' '|')" = '---|name: ctxd|' ] &&
	    grep -q 'resolve-library-id' "$f" && grep -q 'query-docs' "$f"
	ok $? "skill ${f#"$H"/}: front matter and the flow"
done
grep -rqi 'authorization\|bearer' "$H"
ok $((!$?)) "no credential anywhere with authentication off"

sums "$H" >"$T/sums1"
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$BASE/" "${ALL[@]}")
is "$rc" 0 "second run (base URL with a trailing /): exit 0"
sums "$H" >"$T/sums2"
cmp -s "$T/sums1" "$T/sums2"
ok $? "second run: every file byte-identical, same modes"
[ $? -eq 0 ] || diag "$(diff "$T/sums1" "$T/sums2")"
is "$(grep -c ': unchanged$' "$T/out")" 15 "second run reports 15 files unchanged"
is "$(find "$P" -mindepth 1 | wc -l)" 0 "global setup writes nothing in the current folder"

# -------------------------------------------------------------------- project, auth off
echo '{"mcpServers": {"db": {"command": "db-mcp"}}}' >"$P/.mcp.json"
printf '# Project\n\nUse tabs.\n' >"$P/AGENTS.md"
rc=$(ctxd_in "$P" "$H" setup --mcp --project --base-url "$BASE" "${ALL[@]}")
is "$rc" 0 "setup --project for all five agents: exit 0"
like "$(cat "$T/out")" "Project folder: $P" "setup --project names the folder"
sums "$H" >"$T/sums3"
cmp -s "$T/sums1" "$T/sums3"
ok $? "setup --project leaves HOME alone"
is "$(jq -c '[.mcpServers.db.command, .mcpServers.ctxd.url]' "$P/.mcp.json")" "[\"db-mcp\",\"$U\"]" \
    "project claude: .mcp.json entry, other server kept"
is "$(jq -r .mcpServers.ctxd.url "$P/.cursor/mcp.json")" "$U" "project cursor: .cursor/mcp.json"
is "$(jq -r .servers.ctxd.type "$P/.vscode/mcp.json")" http "project vscode: .vscode/mcp.json"
is "$(jq -r .mcp.ctxd.type "$P/opencode.json")" remote "project opencode: opencode.json"
is "$(toml "$P/.codex/config.toml" 'd["mcp_servers"]["ctxd"]["url"]')" "\"$U\"" \
    "project codex: .codex/config.toml"
for f in .claude/rules/ctxd.md .cursor/rules/ctxd.mdc .github/instructions/ctxd.instructions.md \
    .claude/skills/ctxd/SKILL.md .cursor/skills/ctxd/SKILL.md .github/skills/ctxd/SKILL.md \
    .agents/skills/ctxd/SKILL.md; do
	[ -s "$P/$f" ]
	ok $? "project: $f"
done
is "$(grep -c '^<!-- ctxd:begin -->$' "$P/AGENTS.md")" 1 \
    "project AGENTS.md: one block for codex and opencode together"
is "$(head -3 "$P/AGENTS.md" | tr '\n' '|')" '# Project||Use tabs.|' "project AGENTS.md: text kept"
sums "$P" >"$T/psums1"
rc=$(ctxd_in "$P" "$H" setup --mcp --project --base-url "$BASE" "${ALL[@]}")
sums "$P" >"$T/psums2"
cmp -s "$T/psums1" "$T/psums2"
ok $? "project second run: byte-identical"

# -------------------------------------------------------------------- auth on
ctxd_admin settings set perm.require_mcp_auth true >/dev/null
http GET "$BASE/api/client-config" >/dev/null
is "$(http_body | jq .mcpAuthRequired)" true "client-config: mcpAuthRequired true once the setting is on"

rc=$(ctxd_in "$P" "$H" setup --mcp --yes --base-url "$BASE" "${ALL[@]}")
is "$rc" 1 "auth on, --yes and no key: exit 1"
like "$(cat "$T/err")" 'requires an API key.*--api-key KEY or set CTXD_API_KEY' \
    "--yes without a key says how to give one"
sums "$H" >"$T/sums4"
cmp -s "$T/sums1" "$T/sums4"
ok $? "--yes without a key changes nothing"
rc=$(cd "$P" && env -u CTXD_API_KEY HOME="$H" setsid -w "$CTXD" setup --mcp --base-url "$BASE" \
    --claude </dev/null >"$T/out" 2>"$T/err"; echo $?)
is "$rc" 1 "auth on, no key and no terminal: exit 1"
like "$(cat "$T/err")" 'no terminal' "no terminal: says so"

KEY=ctxd_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' | head -c 43)
H2=$T/home2
mkdir -p "$H2"
rc=$(ctxd_in "$P" "$H2" setup --mcp --base-url "$BASE" --api-key "$KEY" "${ALL[@]}")
is "$rc" 0 "auth on with --api-key into an empty HOME: exit 0"
grep -qF -- "$KEY" "$T/out" "$T/err"
ok $((!$?)) "the key is never printed"
is "$(cat "$T/err")" "" "a ctxd_ key: no warning"
for f in .claude.json .cursor/mcp.json .config/Code/User/mcp.json .config/opencode/opencode.json \
    .codex/config.toml; do
	is "$(stat -c %a "$H2/$f")" 600 "new $f holding the key: mode 0600"
done
is "$(jq -r .mcpServers.ctxd.headers.Authorization "$H2/.claude.json")" "Bearer $KEY" \
    "claude: Authorization header"
is "$(jq -c .mcpServers.ctxd "$H2/.cursor/mcp.json")" \
    "{\"url\":\"$U\",\"headers\":{\"Authorization\":\"Bearer $KEY\"}}" "cursor: url and headers"
is "$(jq -r .servers.ctxd.headers.Authorization "$H2/.config/Code/User/mcp.json")" "Bearer $KEY" \
    "vscode: Authorization header"
is "$(jq -r .mcp.ctxd.headers.Authorization "$H2/.config/opencode/opencode.json")" "Bearer $KEY" \
    "opencode: Authorization header"
is "$(toml "$H2/.codex/config.toml" 'd["mcp_servers"]["ctxd"]')" \
    "{\"http_headers\": {\"Authorization\": \"Bearer $KEY\"}, \"url\": \"$U\"}" \
    "codex: url and [mcp_servers.ctxd.http_headers]"
is "$(stat -c %a "$H2/.claude/rules/ctxd.md")" "$(printf '%o' $((0666 & ~0$(umask))))" \
    "a rule file (no key) gets the usual mode"
sums "$H2" >"$T/k1"
rc=$(ctxd_in "$P" "$H2" setup --mcp --base-url "$BASE" --api-key "$KEY" "${ALL[@]}")
sums "$H2" >"$T/k2"
cmp -s "$T/k1" "$T/k2"
ok $? "auth on, second run: byte-identical"

H5=$T/home5
mkdir -p "$H5"
rc=$(ctxd_in "$P" "$H5" setup --mcp --base-url "$BASE" --api-key "  sk-other  " --cursor)
is "$rc" 0 "a key of another form: written"
like "$(cat "$T/err")" 'does not start with "ctxd_"' "a key of another form: a warning"
is "$(jq -r .mcpServers.ctxd.headers.Authorization "$H5/.cursor/mcp.json")" "Bearer sk-other" \
    "the key is trimmed"
rc=$(ctxd_in "$P" "$H5" setup --mcp --base-url "$BASE" --api-key "a b" --cursor)
is "$rc" 1 "a key with a blank inside: refused"

# The key from CTXD_API_KEY, into the existing HOME (existing files keep their mode).
EXTRA_ENV=(CTXD_API_KEY="$KEY")
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$BASE" --yes "${ALL[@]}")
EXTRA_ENV=()
is "$rc" 0 "auth on, key from CTXD_API_KEY under --yes: exit 0"
is "$(jq -r .mcpServers.ctxd.headers.Authorization "$H/.cursor/mcp.json")" "Bearer $KEY" \
    "CTXD_API_KEY: written"
is "$(stat -c %a "$H/.cursor/mcp.json")" 640 "an existing file keeps its mode"
like "$(cat "$T/err")" 'mcp.json holds the API key and other users can read it' \
    "a warning names an existing file others can read"
is "$(jq -c '[.mcpServers.other.command, .numStartups]' "$H/.claude.json")" '["other-mcp",7]' \
    "claude: other entries still kept"
is "$(toml "$t" 'd["mcp_servers"]["ctxd"]["http_headers"]["Authorization"]')" "\"Bearer $KEY\"" \
    "codex: the headers table added"
cmp -s <(head -c "$orig_len" "$t") "$T/config.toml.orig"
ok $? "codex: the old lines still byte-identical"
is "$(toml "$t" 'sorted(d["mcp_servers"])')" '["ctxd", "other"]' \
    "codex: still valid TOML with two servers (a duplicated table would not parse)"

# The hidden prompt, through a pseudo-terminal: the key typed is not echoed and is written.
H3=$T/home3
mkdir -p "$H3"
cat >"$T/ptydrive.py" <<'EOF'
import os, pty, sys, time
key = sys.argv[1].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out, sent, deadline = b"", False, time.time() + 30
while time.time() < deadline:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if not sent and b"(input hidden): " in out:
        time.sleep(0.2)
        os.write(fd, key + b"\n")
        sent = True
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status) if sent else 99)
EOF
rc=0
(cd "$P" && env -u CTXD_API_KEY HOME="$H3" python3 "$T/ptydrive.py" "$KEY" "$CTXD" setup --mcp \
    --base-url "$BASE" --claude --codex) >"$T/pty.out" 2>&1 || rc=$?
is "$rc" 0 "hidden prompt through a pseudo-terminal: exit 0"
like "$(cat "$T/pty.out")" 'API key for http://127\.0\.0\.1:[0-9]+ \(input hidden\)' "the prompt is shown"
grep -qF -- "$KEY" "$T/pty.out"
ok $((!$?)) "the typed key is not echoed"
[ $? -eq 0 ] || diag "$(cat "$T/pty.out")"
is "$(jq -r .mcpServers.ctxd.headers.Authorization "$H3/.claude.json")" "Bearer $KEY" \
    "the typed key is written"
is "$(toml "$H3/.codex/config.toml" 'd["mcp_servers"]["ctxd"]["http_headers"]["Authorization"]')" \
    "\"Bearer $KEY\"" "the typed key is written to the TOML file too"

# Auth off again: the credential goes away on the next run.
ctxd_admin settings set perm.require_mcp_auth false >/dev/null
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$BASE" --api-key "$KEY" "${ALL[@]}")
is "$rc" 0 "auth off again: exit 0"
like "$(cat "$T/out")" 'not needed and not written' "a key given while auth is off is not written"
grep -rqF -- "$KEY" "$H"
ok $((!$?)) "auth off again: the key is gone from every file"
sums "$H" >"$T/sums5"
cmp -s "$T/sums1" "$T/sums5"
ok $? "auth off again: the files are byte for byte as after the first run"

# -------------------------------------------------------------------- base URLs and errors
for bad in "$BASE/mcp" "$BASE/mcp/" "$BASE/api" "$BASE/api/v2/"; do
	rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$bad" --claude)
	is "$rc" 2 "base URL $bad: rejected (exit 2)"
	like "$(cat "$T/err")" "root URL" "base URL ${bad#"$BASE"}: the message asks for the root"
done
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "ftp://127.0.0.1:$PORT" --claude)
is "$rc" 2 "an ftp:// base URL: rejected"
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "http://u:p@127.0.0.1:$PORT" --claude)
is "$rc" 2 "a base URL with credentials: rejected"
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$BASE?x=1" --claude)
is "$rc" 2 "a base URL with a query: rejected"
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$BASE")
is "$rc" 2 "no agent chosen: exit 2"
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "$BASE/nothing" --claude)
is "$rc" 1 "a URL that is not a ctxd deployment: exit 1"
like "$(cat "$T/err")" 'does not look like a ctxd deployment' "not a deployment: says so"
port=$(pick_port)
rc=$(ctxd_in "$P" "$H" setup --mcp --base-url "http://127.0.0.1:$port" --claude)
is "$rc" 1 "nothing listening: exit 1"
like "$(cat "$T/err")" 'cannot reach' "nothing listening: says so"
sums "$H" >"$T/sums6"
cmp -s "$T/sums5" "$T/sums6"
ok $? "the rejected runs changed nothing"

# -------------------------------------------------------------------- forms it refuses
H4=$T/home4
mkdir -p "$H4/.codex" "$H4/.cursor" "$T/dotfiles"
printf '# inline\nmcp_servers = { other = { url = "http://x" } }\n' >"$H4/.codex/config.toml"
printf '{\n  // my servers\n  "mcpServers": {}\n}\n' >"$H4/.cursor/mcp.json"
echo '{"mcpServers": {}}' >"$T/dotfiles/claude.json"
ln -s "$T/dotfiles/claude.json" "$H4/.claude.json"
sums "$H4" >"$T/r1"
rc=$(ctxd_in "$P" "$H4" setup --mcp --base-url "$BASE" --codex --cursor --claude)
is "$rc" 1 "refused forms: exit 1"
like "$(cat "$T/err")" 'config.toml: not changed: line 2 defines mcp_servers with a dotted key or an inline table' \
    "an inline mcp_servers table is refused, naming the line"
like "$(cat "$T/err")" 'mcp.json: not changed: it holds comments' "JSON with comments is refused"
is "$(sed -n 2p "$H4/.codex/config.toml")" 'mcp_servers = { other = { url = "http://x" } }' \
    "the refused TOML file is untouched"
grep -q '// my servers' "$H4/.cursor/mcp.json"
ok $? "the refused JSON file is untouched"
[ -L "$H4/.claude.json" ]
ok $? "a symbolic link stays a link"
is "$(jq -r .mcpServers.ctxd.url "$T/dotfiles/claude.json")" "$U" "the link's target is edited"
[ -s "$H4/.agents/skills/ctxd/SKILL.md" ]
ok $? "the other files of a refused agent are still written"

done_testing
