// summary.mjs DIR: reads the checks.json files the conformance runner wrote under DIR
// (DIR/<spec version>/server-<scenario>-<time>/checks.json) and prints one line per check:
// "<spec version> <scenario> <check id> <STATUS> <name>[: <error>]" (blanks in the name
// and error kept; the line ends at the first line break of the error).
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
for (const spec of readdirSync(dir).sort()) {
	const sdir = join(dir, spec);
	let runs;
	try {
		runs = readdirSync(sdir).sort();
	} catch {
		continue;
	}
	for (const run of runs) {
		const file = join(sdir, run, "checks.json");
		const m = /^server-(.*)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(run);
		if (!m || !existsSync(file))
			continue;
		let checks;
		try {
			checks = JSON.parse(readFileSync(file, "utf8"));
		} catch (e) {
			console.log(`${spec} ${m[1]} checks.json INVALID ${e.message}`);
			continue;
		}
		for (const c of checks) {
			const err = c.errorMessage ? `: ${String(c.errorMessage).split("\n")[0]}` : "";
			console.log(`${spec} ${m[1]} ${c.id} ${c.status} ${c.name}${err}`);
		}
	}
}
