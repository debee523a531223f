// parts/jobs.js: a job shown anywhere (the jobs list, a job's page, a library's runs): its
// state as a badge, its duration and its progress in words and as a bar.
import { el } from "../dom.js";
import { JOB_STATES, meaning } from "./states.js";

// The states in which a job still changes (a page showing one polls).
export const ACTIVE = new Set(["queued", "running"]);

// jobState(j): the job's state as a badge (the API's word, its meaning as the title); a
// running job asked to stop says so beside it.
export function jobState(j) {
	const cls = j.state === "done" ? "ok" : j.state === "failed" ? "error" : j.state === "running" ? "running" : "";
	const badge = el("span", { class: "badge " + cls, title: meaning(JOB_STATES, j.state) }, j.state);
	return j.state === "running" && j.cancelRequested ?
	    el("span", null, badge, el("span", { class: "muted small" }, " cancel requested")) : badge;
}

// seconds between two ISO times (or now), or null.
function secs(from, to) {
	if (!from)
		return null;
	const a = new Date(from).getTime(), b = to ? new Date(to).getTime() : Date.now();
	return Number.isNaN(a) || Number.isNaN(b) ? null : Math.max(0, Math.round((b - a) / 1000));
}

// duration(j): how long the job ran (or has been running), in words.
export function duration(j) {
	const s = secs(j.startedAt, j.finishedAt);
	if (s === null)
		return j.state === "queued" ? "waiting" : "—";
	return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` :
	    `${Math.floor(s / 3600)} h ${Math.floor(s % 3600 / 60)} min`;
}

// progressText(j): the job's step in words ("parsing 12 of 18 documents").
export function progressText(j) {
	const p = j.progress || {};
	switch (p.phase) {
	case "fetching":
		// a crawl or a wiki space counts its pages (of those known so far, when it knows)
		if (p.documentsDone > 0)
			return p.documentsTotal > 0 ? `fetching: ${p.documentsDone} of ${p.documentsTotal} pages`
			    : `fetching: ${p.documentsDone} pages`;
		return "fetching the source";
	case "parsing":
		return `parsing: ${p.documentsDone} of ${p.documentsTotal} documents`;
	case "writing":
		return "writing the index";
	case "describing":
		return `describing: ${p.described} of ${p.describeTotal} snippets`;
	case "embedding":
		return `embedding: ${p.embedded} of ${p.embedTotal} snippets`;
	case "segment":
		return "writing the index segment";
	default:
		return j.state === "queued" ? queueText(j) : "";
	}
}

// queueText(j): where a queued job stands and why it waits ("3rd in line", "waits for job
// 12 of the same library"), from the server's queue place.
export function queueText(j) {
	const q = j.queue;
	if (!q)
		return "waiting for the worker";
	if (q.waitsForJob !== null && q.waitsForJob !== undefined)
		return `waits for job ${q.waitsForJob} of the same library (or a version of it) to end`;
	if (q.position === 1)
		return "next in line";
	const n = q.position, r = n % 100;
	const suffix = r >= 11 && r <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th";
	return `${n}${suffix} in line: ${n - 1} job${n === 2 ? "" : "s"} go${n === 2 ? "es" : ""} first (jobs run a few at a time, users' jobs in turn)`;
}

// progressBar(j): a <progress> of the job's current step (indeterminate while writing, and
// while fetching unless the source counts its pages), with its words.
export function progressBar(j) {
	const p = j.progress || {};
	let value = null, max = null;
	if (j.state === "done") {
		value = 1; max = 1;
	} else if ((p.phase === "parsing" || p.phase === "fetching") && p.documentsTotal > 0) {
		value = p.documentsDone; max = p.documentsTotal;
	} else if (p.phase === "describing" && p.describeTotal > 0) {
		value = p.described; max = p.describeTotal;
	} else if (p.phase === "embedding" && p.embedTotal > 0) {
		value = p.embedded; max = p.embedTotal;
	}
	const text = progressText(j);
	if (!ACTIVE.has(j.state) && j.state !== "done")
		return el("span", { class: "muted" }, text ? "stopped " + text : "");
	const bar = el("progress", { "aria-label": text || j.state });
	if (max !== null) {
		bar.max = max;
		bar.value = value;
	}
	return el("span", { class: "progress" }, bar, " ", el("span", { class: "small" }, j.state === "done" ? "done" : text));
}
