#!/usr/bin/env bash
# The editors of ctxd setup on mutated input. (1) fuzz-cliedit: no crash, and every edit that
# succeeds is a fixed point (editing its output again changes nothing), for the TOML, JSON
# and AGENTS.md editors. (2) Against python3's tomllib: for every mutated config.toml that
# tomllib accepts, the TOML editor either refuses it or writes a file tomllib accepts, with
# exactly the ctxd entry set and every other value unchanged.
. "$top_srcdir/t/lib/harness.sh"
require_cmd python3
python3 -c 'import tomllib' 2>/dev/null || skip_all "python3 has no tomllib (needs 3.11)"

T=$(mktemp -d "${TMPDIR:-/tmp}/ctxd-clifuzz.XXXXXX") || bail_out "mktemp"	# removed at exit
s=$T/seeds
mkdir -p "$s"
# The first byte picks the editor (fuzz-cliedit.c): 0 TOML, 1 JSON, 2 block; +3 with a key.
printf '\003# c\nmodel = "o3"  # m\n[mcp_servers.other]\nargs = [\n "x", # ]\n [1, 2],\n]\nenv = { "A" = "1" }\n[mcp_servers.ctxd]\nurl = "x"\n\n[mcp_servers.ctxd.http_headers]\nA = """\nb ] [x]\n"""\n# tail\n[z]\ns = '"'"'lit\\'"'"'\n[[arr]]\nx = 1\n' >"$s/toml1"
printf '\000[ mcp_servers . "ctxd" ]\r\nurl = '"'"'y'"'"'\r\n[d]\r\n' >"$s/toml2"
printf '\000mcp_servers = { a = { url = "b" } }\n' >"$s/toml3"
printf '\001{"a": [1, 2.50, {"b": null}], "mcp": {"x": {}}, "s": "\\u00e9/"}' >"$s/json1"
printf '\004{"mcpServers": {"ctxd": {"url": "old"}, "o": {"command": "x"}}}\n' >"$s/json2"
printf '\002# x\n<!-- ctxd:begin -->\nold\n<!-- ctxd:end -->\ntail' >"$s/block1"
printf '\005text\n\n' >"$s/block2"
out=$("$top_builddir/t/fuzz/fuzz-cliedit" -n 4000 -s 11 "$s"/* 2>&1)
ok $? "fuzz-cliedit: no crash, every successful edit is a fixed point"
like "$out" "ok 1 - [0-9]+ inputs" "fuzz-cliedit ran"
[ -n "$(grep -v '^ok\|^1\.\.' <<<"$out")" ] && diag "$out"

cat >"$T/diff.py" <<'EOF'
import random, subprocess, sys, tomllib
filt, n = sys.argv[1], int(sys.argv[2])
seeds = [
    '# c\nmodel = "o3"   # m\n[mcp_servers.other]\nargs = [\n "x", # comment ]\n [1,2],\n]\n'
    'env = { "A" = "1", B = \'x]\' }\n[mcp_servers.ctxd]\nurl = "x"\n\n'
    '[mcp_servers.ctxd.http_headers]\nA = """\nb ] [x]\n"""\n# tail\n[z]\ns = \'lit\\\'\n'
    't = """a\\"""b"""\n[[arr]]\nx = 1\n[[arr]]\nx = 2\n',
    'a.b.c = 1\n"q.k" = 2\n[ mcp_servers . "ctxd" ]\nurl = \'y\'\n[mcp_servers.other.env]\nX = "1"\n',
    '[mcp_servers]\nother = { url = "u" }\n[mcp_servers.x]\nurl = "v"\n',
    'mcp_servers.ctxd.url = "a"\nx = 1\n[t]\ny = 2\n',
    'mcp_servers = { a = { url = "b" } }\n',
    '[mcp_servers]\nctxd = { url = "c" }\n[mcp_servers.ctxd.env]\nA = 1\n',
    '[[mcp_servers]]\nx = 1\n',
]
rng = random.Random(7)
alphabet = list('[]{}"\'#=.\n \\abc') + ['ctxd', '"""', "'''", '\n[', 'mcp_servers.ctxd', '\r\n']
def mutate(s):
    s = list(s)
    for _ in range(rng.randint(1, 4)):
        op, pos = rng.randrange(3), rng.randrange(len(s) + 1)
        if op == 0 and s:
            del s[min(pos, len(s) - 1)]
        elif op == 1:
            s.insert(pos, rng.choice(alphabet))
        elif s:
            s[min(pos, len(s) - 1)] = rng.choice(alphabet)
    return ''.join(s)
def others(d):
    d = dict(d)
    m = d.get('mcp_servers')
    if isinstance(m, dict):
        m = {k: v for k, v in m.items() if k != 'ctxd'}
        if m:
            d['mcp_servers'] = m
        else:
            del d['mcp_servers']
    return d
count = {'valid': 0, 'refused': 0, 'edited': 0}
for i in range(n):
    src = mutate(seeds[i % len(seeds)]) if i >= len(seeds) else seeds[i]
    try:
        before = tomllib.loads(src)
    except Exception:
        continue
    count['valid'] += 1
    key = i % 2 == 1
    p = subprocess.run([filt] + (['k'] if key else []), input=src.encode(), capture_output=True)
    if p.returncode != 0:
        count['refused'] += 1
        continue
    out = p.stdout.decode()
    try:
        after = tomllib.loads(out)
    except Exception as e:
        sys.exit('output not TOML (%s):\n%r\n->\n%r' % (e, src, out))
    want = {'url': 'http://h:1/mcp'}
    if key:
        want['http_headers'] = {'Authorization': 'Bearer k'}
    if after.get('mcp_servers', {}).get('ctxd') != want:
        sys.exit('wrong entry:\n%r\n->\n%r' % (src, out))
    if others(after) != others(before):
        sys.exit('other values changed:\n%r\n->\n%r' % (src, out))
    count['edited'] += 1
print(count['valid'], count['refused'], count['edited'])
EOF
if res=$(python3 "$T/diff.py" "$top_builddir/t/unit/tomledit-filter" 2500 2>&1); then
	pass "tomllib agrees: valid TOML in, valid TOML out with only the ctxd entry changed"
	read -r valid refused edited <<<"$res"
	diag "mutated files tomllib accepts: $valid, refused: $refused, edited: $edited"
	[ "$edited" -ge 200 ] && [ "$refused" -ge 20 ]
	ok $? "enough files edited ($edited) and refused ($refused) for the check to mean something"
else
	fail "tomllib agrees: valid TOML in, valid TOML out with only the ctxd entry changed"
	diag "$res"
fi

done_testing
