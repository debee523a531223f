// Jobs (#/jobs): the jobs, newest first, with their state, progress and duration. Live by
// polling every 2 s while a job is queued or running, stopped when the view is left.
import { el, clear, timeEl, button } from "../dom.js";
import * as api from "../api.js";
import { ACTIVE, jobState, duration, progressBar } from "../parts/jobs.js";
import { poll } from "../parts/poll.js";
import { legend } from "../parts/badges.js";
import { JOB_STATES } from "../parts/states.js";

export const title = "Jobs";

const POLL_MS = 2000;

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
	// Reload while a job shown is active (the loop ends when the view is left).
	const tick = async () => {
		if (jobs.some((j) => ACTIVE.has(j.state))) {
			try {
				await load(false);
			} catch (e) {
				/* shown at the next successful load; keep polling */
			}
		}
		return true;
	};
	state.addEventListener("change", () => load(false));
	root.append(el("h1", null, "Jobs"),
	    el("div", { class: "field filter" }, el("label", { for: state.id }, "State"), state),
	    legend("What the states mean", [null, JOB_STATES]), box, more);
	await load(false);
	poll(root, tick, { every: POLL_MS });
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
