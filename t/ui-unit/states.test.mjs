// states.test.mjs: one vocabulary of states. The words the UI explains
// (htdocs/js/parts/states.js) are exactly the server's (lib/store/jobs.h's X-macro lists,
// the schema's CHECKs of GitOps runs and job log levels, the setup steps' choices in the
// settings table), and ctxd(7), STATES lists each of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as st from "../../htdocs/js/parts/states.js";

const read = (p) => readFileSync(new URL("../../" + p, import.meta.url), "utf8");
const jobsH = read("lib/store/jobs.h");
const words = (list) => {
	const m = new RegExp("#define " + list + "\\(X\\)((?:.*\\\\\\n)*.*)").exec(jobsH);
	assert.ok(m, list + " in jobs.h");
	return [...m[1].matchAll(/X\(\w+, "([a-z]+)"\)/g)].map((x) => x[1]);
};
const check = (sql, table, column) => {
	const m = new RegExp("CREATE TABLE " + table + " \\([^;]*?" + column + "\\s[^;]*?CHECK \\(" + column + " IN \\(([^)]*)\\)").exec(sql);
	assert.ok(m, table + "." + column + " CHECK");
	return [...m[1].matchAll(/'([a-z]+)'/g)].map((x) => x[1]);
};
const keys = (t) => Object.keys(t).sort();

test("the UI explains exactly the server's state words", () => {
	assert.deepEqual(keys(st.LIBRARY_STATES), words("JOBS_LIBRARY_STATE_LIST").sort(), "library states");
	assert.deepEqual(keys(st.RUN_STATUSES), words("JOBS_RUN_STATUS_LIST").sort(), "run statuses");
	assert.deepEqual(keys(st.JOB_STATES), words("JOBS_STATE_LIST").sort(), "job states");
	assert.deepEqual(keys(st.GITOPS_STATES), check(read("sql/0005-gitops.sql"), "gitops_runs", "state").sort(), "GitOps runs");
	assert.deepEqual(keys(st.LOG_LEVELS), check(read("sql/schema.sql"), "job_log", "level").sort(), "log levels");
	const setup = /"setup\.who_can_read", SET_ENUM, "pending"[^}]*"([a-z|]+)" \}/.exec(read("lib/store/settings.c"));
	assert.ok(setup, "setup.who_can_read's choices");
	assert.deepEqual(keys(st.SETUP_STATES), setup[1].split("|").sort(), "setup steps");
	for (const t of [st.LIBRARY_STATES, st.RUN_STATUSES, st.JOB_STATES, st.GITOPS_STATES, st.SETUP_STATES, st.LOG_LEVELS])
		for (const [w, m] of Object.entries(t))
			assert.ok(m.length > 8 && !/[.]$/.test(m), `${w}: a meaning in words`);
	assert.equal(st.meaning(st.JOB_STATES, "constructor"), null, "an unknown word has no meaning");
});

test("ctxd(7), STATES, lists every state word", () => {
	const man = read("man/ctxd.7");
	const sec = /\n\.Sh STATES\n([\s\S]*?)\n\.Sh /.exec(man);
	assert.ok(sec, "ctxd(7) has a STATES section");
	for (const [name, t] of Object.entries({ LIBRARY_STATES: st.LIBRARY_STATES, RUN_STATUSES: st.RUN_STATUSES,
	    JOB_STATES: st.JOB_STATES, GITOPS_STATES: st.GITOPS_STATES, SETUP_STATES: st.SETUP_STATES, LOG_LEVELS: st.LOG_LEVELS }))
		for (const w of Object.keys(t))
			assert.match(sec[1], new RegExp("\\.It Cm " + w + "\\b"), `${name}: ${w} is explained`);
});
