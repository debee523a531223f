// A job (#/jobs/ID): its live progress bars, status, duration, the log with levels and
// times, and cancel. Polls every second while the job is queued or running (the new log
// lines only, ?after=), and stops when the job ends or the view is left.
import { el, clear, showStatus, button, timeEl } from "../dom.js";
import * as api from "../api.js";
import { ACTIVE, jobState, duration, progressBar } from "../parts/jobs.js";
import { JOB_STATES, meaning } from "../parts/states.js";
import { poll } from "../parts/poll.js";
import { withSettingLinks } from "../parts/settinglinks.js";

export const title = (params) => "Job " + params.id;

const POLL_MS = 1000;

export async function render(root, params) {
	const id = params.id;
	let job;
	try {
		job = await api.get("/api/jobs/" + encodeURIComponent(id));
	} catch (e) {
		if (e.status !== 404)
			throw e;
		root.append(el("h1", null, "Job " + id), el("p", { class: "empty" }, "There is no job " + id + ". ",
		    el("a", { href: "#/jobs" }, "Back to the jobs"), "."));
		return;
	}
	const head = el("div");
	const bars = el("div", { class: "bars", id: "job-progress" });
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const cancelBox = el("div", { class: "actions" });
	const logBody = el("tbody");
	const logEmpty = el("p", { class: "empty" }, "No log lines yet.");
	let after = 0;

	const cancel = button("Cancel job", async () => {
		try {
			job = await api.post("/api/jobs/" + encodeURIComponent(id) + "/cancel");
			showStatus(status, true, job.state === "cancelled" ? "The job is cancelled." :
			    "Cancellation requested: the worker stops at its next checkpoint, within seconds.");
			update();
		} catch (e) {
			showStatus(status, false, e.message);
		}
	}, { class: "danger", id: "cancel-job" });

	const update = () => {
		const lib = job.kind === "delete" ? el("span", null, job.libraryId) :
		    el("a", { href: "#/libraries/" + api.enc(job.libraryId) }, job.libraryId);
		clear(head, el("dl", { class: "kv" },
		    el("dt", null, "Library"), el("dd", null, lib),
		    el("dt", null, "Kind"), el("dd", null, job.kind + (job.force ? " (every file)" : "")),
		    el("dt", null, "State"), el("dd", null, el("span", { id: "job-state" }, jobState(job)),
			meaning(JOB_STATES, job.state) ? el("span", { class: "muted small" }, " " + meaning(JOB_STATES, job.state)) : null),
		    el("dt", null, "Queued"), el("dd", null, timeEl(job.createdAt)),
		    el("dt", null, "Started"), el("dd", null, timeEl(job.startedAt)),
		    el("dt", null, "Finished"), el("dd", null, job.finishedAt ? timeEl(job.finishedAt) : "not yet"),
		    el("dt", null, "Duration"), el("dd", null, duration(job)),
		    el("dt", null, "Message"), el("dd", { id: "job-message" }, job.message ? withSettingLinks(job.message) : "—")));
		clear(bars, progressBar(job), details(job));
		const can = ACTIVE.has(job.state) && !(job.kind === "delete" && job.state === "running") &&
		    !job.cancelRequested;
		clear(cancelBox, can ? cancel : null);
	};
	const loadLog = async () => {
		const a = await api.get(`/api/jobs/${encodeURIComponent(id)}/log?after=${after}`);
		after = a.nextAfter;
		for (const l of a.lines)
			logBody.append(el("tr", { class: "level-" + l.level },
			    el("td", { class: "nowrap" }, logTime(l.at)),
			    el("td", null, el("span", { class: "badge " + (l.level === "error" ? "error" : l.level === "warning" ? "warn" : "") },
				l.level)),
			    el("td", { class: "log-line" }, withSettingLinks(l.line))));
		logEmpty.hidden = logBody.childElementCount > 0;
	};
	// Reloads the job and its new log lines; the loop ends with the job or the view.
	const tick = async () => {
		try {
			job = await api.get("/api/jobs/" + encodeURIComponent(id));
			update();
			await loadLog();
		} catch (e) {
			showStatus(status, false, e.message);
		}
		return ACTIVE.has(job.state);
	};

	root.append(el("p", { class: "crumbs" }, el("a", { href: "#/jobs" }, "Jobs"), " / "),
	    el("h1", null, "Job " + id), bars, head, cancelBox, status,
	    el("section", { "aria-labelledby": "log-h" }, el("h2", { id: "log-h" }, "Log"), logEmpty,
		el("div", { class: "table-wrap" }, el("table", { class: "log" },
		    el("thead", null, el("tr", null, ["Time", "Level", "Line"].map((h) => el("th", { scope: "col" }, h)))),
		    logBody))));
	update();
	await loadLog();
	if (ACTIVE.has(job.state))
		poll(root, tick, { every: POLL_MS });
}

// logTime(iso): a log line's time to the second, in the browser's time zone.
function logTime(t) {
	const d = new Date(t);
	if (Number.isNaN(d.getTime()))
		return el("span", null, String(t));
	return el("time", { datetime: d.toISOString(), title: d.toLocaleString() },
	    d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" }));
}

// details(job): the counts of every step so far, in words.
function details(job) {
	const p = job.progress || {};
	const parts = [];
	if (p.phase === "fetching" && p.documentsDone > 0)
		parts.push(p.documentsTotal > 0 ? `${p.documentsDone} of ${p.documentsTotal} pages fetched`
		    : `${p.documentsDone} pages fetched`);
	else if (p.documentsTotal > 0)
		parts.push(`${p.documentsDone} of ${p.documentsTotal} documents parsed`);
	if (p.snippetsTotal > 0)
		parts.push(`${p.snippetsTotal} snippets written`);
	if (p.describeTotal > 0)
		parts.push(`${p.described} of ${p.describeTotal} described`);
	if (p.embedTotal > 0)
		parts.push(`${p.embedded} of ${p.embedTotal} embedded`);
	return parts.length ? el("p", { class: "muted small", id: "job-counts" }, parts.join(" · ")) : null;
}
