// Jobs (#/jobs): the jobs, newest first, with their state, progress and duration. Live by
// polling every 2 s while a job is queued or running, stopped when the view is left.
import { el, clear, timeEl, button } from "../dom.js";
import * as api from "../api.js";

export const title = "Jobs";

const POLL_MS = 2000;
const ACTIVE = new Set(["queued", "running"]);

// jobState(j): the job's state as a badge.
export function jobState(j) {
	const cls = j.state === "done" ? "ok" : j.state === "failed" ? "error" : j.state === "running" ? "running" : "";
	const word = j.state === "running" && j.cancelRequested ? "cancelling" : j.state;
	return el("span", { class: "badge " + cls }, word);
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
	default:
		return j.state === "queued" ? "waiting for the worker" : "";
	}
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

export async function render(root, params, ctx) {
	const state = el("select", { id: "jobs-state-filter" }, ["", "queued", "running", "done", "failed", "cancelled"].map((s) =>
	    el("option", { value: s }, s === "" ? "all" : s)));
	const box = el("div");
	const more = el("div", { class: "actions" });
	let before = null, jobs = [];
	const load = async (append) => {
		const p = new URLSearchParams({ limit: "50" });
		if (state.value)
			p.set("state", state.value);
		if (append && before)
			p.set("before", String(before));
		const a = await api.get("/api/jobs?" + p);
		jobs = append ? jobs.concat(a.jobs) : a.jobs;
		before = a.nextBefore;
		show();
	};
	const show = () => {
		if (jobs.length === 0) {
			clear(box, el("p", { class: "empty" }, state.value ? "No " + state.value + " jobs." :
			    "No jobs yet — adding or re-indexing a library starts one."));
		} else {
			clear(box, el("div", { class: "table-wrap" }, el("table", { class: "jobs stack beside" },
			    el("thead", null, el("tr", null, ["Job", "Library", "Kind", "State", "Progress", "Queued",
				"Duration"].map((h) => el("th", { scope: "col" }, h)))),
			    el("tbody", null, jobs.map(jobRow)))));
		}
		clear(more, before ? button("Older jobs", () => load(true), { class: "secondary" }) : null);
	};
	// Poll while a job shown is active and the view is on screen.
	const tick = async () => {
		if (!root.isConnected)
			return;
		if (jobs.some((j) => ACTIVE.has(j.state))) {
			try {
				await load(false);
			} catch (e) {
				/* shown at the next successful load; keep polling */
			}
		}
		if (root.isConnected)
			setTimeout(tick, POLL_MS);
	};
	state.addEventListener("change", () => load(false));
	root.append(el("h1", null, "Jobs"),
	    el("div", { class: "field filter" }, el("label", { for: state.id }, "State"), state), box, more);
	await load(false);
	setTimeout(tick, POLL_MS);
}

function jobRow(j) {
	return el("tr", { dataset: { job: String(j.id) } },
	    el("th", { scope: "row" }, el("a", { href: "#/jobs/" + j.id }, "#" + j.id)),
	    el("td", { "data-label": "Library" }, j.kind === "delete" ? j.libraryId :
		el("a", { href: "#/libraries/" + api.enc(j.libraryId) }, j.libraryId)),
	    el("td", { "data-label": "Kind" }, j.kind),
	    el("td", { "data-label": "State" }, jobState(j)),
	    el("td", { "data-label": "Progress" }, progressBar(j)),
	    el("td", { "data-label": "Queued" }, timeEl(j.createdAt)),
	    el("td", { "data-label": "Duration" }, duration(j)));
}
