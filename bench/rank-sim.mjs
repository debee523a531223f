#!/usr/bin/env node
// bench/rank-sim.mjs: replays the answers' packing offline, from the candidates that
// `EXPLAIN=DIR bench/eval` wrote (`ctxd-admin explain --tsv` of every dev question), so that a
// stop rule, a cap or a budget can be tried in a second instead of a full bench/eval run.
//
//   node bench/rank-sim.mjs DIR [QUESTIONS]    (QUESTIONS: t/corpora/dev-questions.json)
//
// Prints (1) how faithful the replay is: for how many questions the replayed packing picks
// exactly the snippets the service placed (the replay follows search_context: the stop ratio
// on the ranking's scores, the two best always kept, packing in rank order, only the first
// snippet cut to fit (a later one too big for the room left is skipped), and past four
// sections and 0.4 of the budget only candidates scoring 0.6 of the best (the soft stop; the
// covered stop is not replayed, though the explain TSV's terms column has what it reads); it differs
// where the service cut the first snippet at a paragraph end well before the room ran out);
// (2) where the `must_contain` strings of the unanswered questions stand among the candidates
// (rank and fate of the first candidate holding each); (3) answered and the answer's median
// and 90th-percentile size for a few stop ratios, snippet caps and budgets. Sizes count the
// candidates' texts as the answer shows them and the separators; a cut snippet counts in
// proportion to the tokens it keeps. Environment: TOKENS (the budget explain ran with;
// default 2000).
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2];
if (!dir) {
	console.error('usage: node bench/rank-sim.mjs EXPLAIN_DIR [QUESTIONS_JSON]');
	process.exit(2);
}
const qfile = process.argv[3] ||
    join(process.env.CORPORA || join(here, '..', 't', 'corpora'), 'dev-questions.json');
const budget = Number(process.env.TOKENS || 2000);
const STOP_MIN = 2, SEPARATOR = 36;	/* "\n\n" + 32 dashes + "\n\n" */
const SOFT_SHARE = 0.4, SOFT_RATIO = 0.6, SOFT_MIN = 4;	/* search.c's SEARCH_SOFT_* */

const unescape = (s) => s.replace(/\\(.)/g, (_, c) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c);
function load(file) {
	const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
	const head = lines.shift().split('\t');
	return lines.map((l) => {
		const f = l.split('\t'), r = {};
		head.forEach((h, i) => { r[h] = f[i] ?? ''; });
		return { rank: +r.rank, id: +r.id, score: +r.score, tokens: +r.tokens, place: +r.place,
		    fate: r.fate, source: r.source, text: unescape(r.text) };
	});
}

// The snippets a rule packs: [{c, take}] in packing order.
function pack(cands, { ratio = 0.1, cap = Infinity, tokens = budget, cutMin = Infinity,
    softShare = SOFT_SHARE, softRatio = SOFT_RATIO, softMin = SOFT_MIN } = {}) {
	const live = cands.filter((c) => c.fate !== 'held: flagged' && c.fate !== 'gone');
	const best = Math.max(0, ...live.map((c) => c.score));
	let kept = live.filter((c) => c.score >= ratio * best);
	if (kept.length < STOP_MIN)
		kept = [...live].sort((a, b) => b.score - a.score).slice(0, STOP_MIN);
	kept.sort((a, b) => b.score - a.score || a.rank - b.rank);
	const out = [];
	let used = 0;
	for (const c of kept) {
		if (used >= tokens || out.length >= cap)
			break;
		if (out.length >= Math.max(1, softMin) && used >= softShare * tokens &&
		    c.score < softRatio * best)
			continue;
		if (out.length > 0 && used + c.tokens > tokens && tokens - used < cutMin)
			continue;
		const take = Math.min(c.tokens, tokens - used);
		out.push({ c, take });
		used += take;
	}
	return out;
}
const textOf = ({ c, take }) => take < c.tokens ?
    c.text.slice(0, Math.floor(c.text.length * take / Math.max(1, c.tokens))) : c.text;
const answered = (q, packed) => {
	const t = packed.map(textOf).join('\n');
	return q.must_contain.every((m) => t.includes(m));
};
const size = (packed) => packed.reduce((n, p) => n + textOf(p).length, 0) +
    SEPARATOR * Math.max(0, packed.length - 1);
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

const questions = JSON.parse(readFileSync(qfile, 'utf8'));
const have = new Set(readdirSync(dir).filter((f) => f.endsWith('.tsv')).map((f) => f.slice(0, -4)));
const qs = questions.filter((q) => have.has(q.id)).map((q) => ({ ...q, cands: load(join(dir, `${q.id}.tsv`)) }));
if (qs.length === 0) {
	console.error(`rank-sim: no <question id>.tsv of ${qfile} in ${dir}`);
	process.exit(1);
}

// (1) Faithfulness of the replay.
let same = 0;
for (const q of qs) {
	const placed = q.cands.filter((c) => c.place > 0).map((c) => c.id).sort();
	const replay = pack(q.cands).map((p) => p.c.id).sort();
	if (placed.join() === replay.join())
		same++;
	else
		console.log(`replay differs: ${q.id} placed ${placed.length}, replayed ${replay.length}`);
}
console.log(`replay: the service's packing reproduced for ${same} of ${qs.length} questions\n`);

// (2) Where the facts of the unanswered questions stand.
console.log('unanswered: the first candidate holding each must_contain string (rank, fate)');
for (const q of qs) {
	const placed = q.cands.filter((c) => c.place > 0).map((c) => ({ c, take: c.tokens }));
	if (answered(q, placed))
		continue;
	const where = q.must_contain.map((m) => {
		const c = q.cands.find((x) => x.text.includes(m));
		return `${JSON.stringify(m)}: ${c ? `rank ${c.rank}, ${c.fate}` : `none of ${q.cands.length}`}`;
	});
	console.log(`  ${q.id} (${placed.length} placed) | ${where.join('; ')}`);
}

// (3) Rules.
console.log('\nrule                          answered   med_B   p90_B');
const rules = [['today (ratio 0.1, soft stop)', {}],
    ['no soft stop, cut at 500 left', { softShare: Infinity, cutMin: 500 }],
    ['no soft stop', { softShare: Infinity }]];
for (const [share, r, m] of [[0.4, 0.6, 1], [0.75, 0.45, 1], [0.5, 0.6, 4]])
	rules.push([`soft stop ${share} of budget, ${r}, from section ${m + 1}`,
	    { softShare: share, softRatio: r, softMin: m }]);
for (const ratio of [0.2, 0.3, 0.5])
	rules.push([`stop ratio ${ratio}`, { ratio }]);
for (const cap of [4, 6, 8])
	rules.push([`at most ${cap} snippets`, { cap }]);
for (const tokens of [1000, 1500])
	rules.push([`budget ${tokens}`, { tokens }]);
for (const [name, opt] of rules) {
	const packs = qs.map((q) => pack(q.cands, opt));
	const n = qs.filter((q, i) => answered(q, packs[i])).length;
	const sizes = packs.map(size);
	console.log(`${name.padEnd(30)}${(n / qs.length).toFixed(2).padStart(8)}${String(pct(sizes, 0.5)).padStart(8)}${String(pct(sizes, 0.9)).padStart(8)}`);
}
