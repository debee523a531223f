// jobs.test.mjs: what the job list says of a queued job (htdocs/js/parts/jobs.js), from the
// server's queue place (GET /api/jobs: queue.position, queue.waitsForJob), without a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { queueText, progressText } from "../../htdocs/js/parts/jobs.js";

const queued = (queue) => ({ state: "queued", queue, progress: {} });

test("a queued job's place in line", () => {
	assert.equal(queueText(queued({ position: 1, waitsForJob: null })), "next in line");
	assert.match(queueText(queued({ position: 2, waitsForJob: null })), /^2nd in line: 1 job goes first/);
	assert.match(queueText(queued({ position: 3, waitsForJob: null })), /^3rd in line: 2 jobs go first/);
	assert.match(queueText(queued({ position: 11, waitsForJob: null })), /^11th in line/);
	assert.match(queueText(queued({ position: 21, waitsForJob: null })), /^21st in line/);
	assert.match(queueText(queued({ position: 112, waitsForJob: null })), /^112th in line/);
});

test("a job waiting for its library's running job says so", () => {
	assert.equal(queueText(queued({ position: 1, waitsForJob: 12 })),
	    "waits for job 12 of the same library (or a version of it) to end");
});

test("without a queue place (an older server) it waits for the worker", () => {
	assert.equal(queueText({ state: "queued", progress: {} }), "waiting for the worker");
	assert.equal(progressText(queued({ position: 4, waitsForJob: null })).startsWith("4th in line"), true);
});

test("a running job writing its index segment says so", () => {
	assert.equal(progressText({ state: "running", progress: { phase: "segment" } }),
	    "writing the index segment");
});
