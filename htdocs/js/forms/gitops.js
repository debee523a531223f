// forms/gitops.js: the GitOps tab of Settings (#/settings?tab=gitops, admins): the configuration
// (PUT /api/gitops/config, the server's error next to the field it names), "Sync now"
// (POST /api/gitops/reconcile, then GET /api/gitops/status while the run is not finished)
// with its counts and per-entry outcomes, and the last sync's outcome. ctxd-manifest(5)
// describes the manifest; ctxd-web(8) the three routes.
import { el, clear, field, checkField, showStatus, button, timeEl, newId } from "../dom.js";
import * as api from "../api.js";
import { poll } from "../parts/poll.js";
import { GITOPS_STATES, meaning } from "../parts/states.js";
import { settingText, withName } from "./settings.js";

// The schedule's presets as the server names them, and what the select shows.
const PRESETS = [
	["hourly", "Hourly"],
	["every 6 hours", "Every 6 hours"],
	["daily", "Daily"],
	["weekly", "Weekly"],
	["cron", "Cron expression…"],
	["manual", "Manual only"],
];

const TRIGGERS = {
	start: "instance start", schedule: "schedule", manual: "Sync now",
	webhook: "push webhook", api: "reconcile API",
};


const COUNTS = ["created", "updated", "unchanged", "pruned", "skipped", "failed"];

const POLL_MS = 2000;		/* GET /api/gitops/status while a sync runs */
const POLL_MAX_MS = 10 * 60 * 1000;

// gitopsTab(body): fills body with the three panels; reads GET /api/gitops/status.
export async function gitopsTab(body) {
	const [status, { settings }] = await Promise.all([api.get("/api/gitops/status"), api.get("/api/settings")]);
	const last = el("section", { class: "panel gitops-last", "aria-labelledby": "gitops-last-h" });
	const showLast = (s) => clear(last, el("h2", { id: "gitops-last-h" }, "Last sync"),
	    s.pendingSync ? el("p", { class: "notice", role: "status" }, "A sync is " + s.pendingSync.state +
		" (" + (TRIGGERS[s.pendingSync.trigger] || s.pendingSync.trigger) + "), queued ",
		timeEl(s.pendingSync.createdAt), ".") : null,
	    s.lastSync ? runView(s.lastSync) : el("p", { class: "empty" },
		"No sync yet. Save a manifest repository above, then press Sync now."),
	    s.lastProcessedCommit ? el("dl", { class: "kv" }, el("dt", null, "Manifest commit last processed"),
		el("dd", null, el("code", null, s.lastProcessedCommit))) : null);
	showLast(status);
	body.append(configForm(status.config, showLast, settings), syncPanel(showLast), last);
}

// The settings behind the form's fields: their labels and help are the server's.
const SETTING = { enabled: "gitops.enabled", repoUrl: "gitops.repo_url", manifestPath: "gitops.manifest_path",
	branch: "gitops.branch", schedule: "gitops.schedule", prune: "gitops.prune" };

// configForm(config, showLast, settings): the settings form (labels and help of settings,
// GET /api/settings's); a save answers the status again.
function configForm(config, showLast, settings) {
	const enabled = el("input", { type: "checkbox", id: newId("gitops"), name: "enabled", checked: !!config.enabled });
	const repoUrl = el("input", { type: "url", name: "repoUrl", value: config.repoUrl || "", spellcheck: "false",
	    autocapitalize: "none", placeholder: "https://github.com/acme/ctxd-manifest.git" });
	const manifestPath = el("input", { type: "text", name: "manifestPath", value: config.manifestPath || "",
	    spellcheck: "false", autocapitalize: "none", placeholder: "repos.yaml" });
	const branch = el("input", { type: "text", name: "branch", value: config.branch || "", spellcheck: "false",
	    autocapitalize: "none", placeholder: "the repository's default branch" });
	const sched = (config.schedule || "manual").toLowerCase();
	const preset = PRESETS.some(([v]) => v === sched && v !== "cron") ? sched :
	    sched === "manual only" ? "manual" : "cron";
	const schedule = el("select", { name: "schedule" },
	    PRESETS.map(([v, label]) => el("option", { value: v, selected: v === preset }, label)));
	const cron = el("input", { type: "text", name: "cron", class: "mono", spellcheck: "false", autocapitalize: "none",
	    value: preset === "cron" ? config.schedule : "", placeholder: "30 2 * * 1-5" });
	const prune = el("input", { type: "checkbox", id: newId("gitops"), name: "prune", checked: !!config.prune });

	const text = (name) => settingText(settings, SETTING[name]);
	const rows = {
		enabled: checkField(enabled, ...text("enabled")),
		repoUrl: field(text("repoUrl")[0], repoUrl, text("repoUrl")[1]),
		manifestPath: field(text("manifestPath")[0], manifestPath, text("manifestPath")[1]),
		branch: field(text("branch")[0], branch, text("branch")[1]),
		schedule: field(text("schedule")[0], schedule, text("schedule")[1]),
		cron: field("Cron expression", cron, "Five fields: minute hour day-of-month month day-of-week, e.g. 30 2 * * 1-5."),
		prune: checkField(prune, ...text("prune")),
	};
	for (const [name, setting] of Object.entries(SETTING))
		withName(rows[name], setting);
	for (const [name, row] of Object.entries(rows))
		row.dataset.field = name;
	const showCron = () => { rows.cron.hidden = schedule.value !== "cron"; };
	schedule.addEventListener("change", () => {
		showCron();
		if (schedule.value === "cron")
			cron.focus();
	});
	showCron();

	const formStatus = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const save = el("button", { type: "submit" }, "Save");
	const values = () => ({
		enabled: enabled.checked, repoUrl: repoUrl.value.trim(), manifestPath: manifestPath.value.trim(),
		branch: branch.value.trim(), prune: prune.checked,
		schedule: schedule.value === "cron" ? cron.value.trim() : schedule.value,
	});
	return el("form", { class: "panel gitops-config", novalidate: true, on: { submit: async (ev) => {
		ev.preventDefault();
		for (const row of Object.values(rows))
			showStatus(row.status, true, "");
		showStatus(formStatus, true, "");
		const v = values();
		if (schedule.value === "cron" && v.schedule === "") {
			showStatus(rows.cron.status, false, "Type a cron expression, or choose a preset.");
			cron.focus();
			return;
		}
		save.disabled = true;
		try {
			const s = await api.put("/api/gitops/config", v);
			showStatus(formStatus, true, "Saved." + (s.config.enabled ? " GitOps is on." : " GitOps is off: only Sync now syncs."));
			showLast(s);
		} catch (e) {
			const name = errorField(e.message, schedule.value === "cron");
			showStatus(name ? rows[name].status : formStatus, false, e.message);
			if (name)
				rows[name].querySelector("input, select").focus();
		} finally {
			save.disabled = false;
		}
	} } },
	    el("h2", null, "GitOps"),
	    el("p", null, "Declare the libraries in a YAML manifest in a git repository (see ctxd-manifest(5)); " +
		"ctxd adds, re-indexes and (with prune) deletes libraries to match it. Libraries it manages carry a GitOps badge."),
	    Object.values(rows), formStatus, el("div", { class: "actions" }, save));
}

// errorField(msg, cron): the form row a 400 of PUT /api/gitops/config concerns: the
// server names the setting (gitops.NAME: ...) or the body's field ('repoUrl').
function errorField(msg, cron) {
	const names = [["gitops.repo_url", "repoUrl"], ["gitops.manifest_path", "manifestPath"],
	    ["gitops.branch", "branch"], ["gitops.schedule", "schedule"], ["gitops.enabled", "enabled"],
	    ["gitops.prune", "prune"]];
	for (const [setting, name] of names)
		if (msg.includes(setting) || msg.includes("'" + name + "'"))
			return name === "schedule" && cron ? "cron" : name;
	return null;
}

// syncPanel(showLast): "Sync now" and the outcome of the run it starts.
function syncPanel(showLast) {
	const out = el("div", { class: "gitops-result", role: "status", "aria-live": "polite" });
	const btn = button("Sync now", run);
	async function run() {
		btn.disabled = true;
		clear(out, el("p", { class: "muted" }, "Reading the manifest and reconciling…"));
		try {
			let r;
			try {
				r = await api.post("/api/gitops/reconcile?wait=20");
			} catch (e) {
				if (!(e instanceof api.ApiError) || e.status !== 422 || !e.body)
					throw e;
				r = e.body;	/* the failed run, with its errors */
			}
			if (r.state === "queued" || r.state === "running") {
				clear(out, el("p", { class: "muted" }, "The sync is " + r.state + "; this page follows it."));
				r = await follow(r.id, out);
				if (!r)
					return;
			}
			clear(out, runView(r));
			showLast(await api.get("/api/gitops/status"));
		} catch (e) {
			clear(out, el("p", { class: "notice error", role: "alert" }, e.message));
		} finally {
			btn.disabled = false;
		}
	}
	return el("section", { class: "panel gitops-sync", "aria-labelledby": "gitops-sync-h" },
	    el("h2", { id: "gitops-sync-h" }, "Sync now"),
	    el("p", null, "Reads the manifest now (also with GitOps off) and shows what changed. The index jobs it queues run after it, under Jobs."),
	    el("div", { class: "actions" }, btn), out);
}

// follow(id, out): polls GET /api/gitops/status until run id is the last finished sync;
// the run, or null when the page was left or the wait ran out (said in out).
async function follow(id, out) {
	const run = await poll(out, async () => {
		const s = await api.get("/api/gitops/status");
		return s.lastSync && s.lastSync.id === id ? s.lastSync : true;
	}, { every: POLL_MS, upTo: POLL_MAX_MS });
	if (run === null && out.isConnected)
		clear(out, el("p", { class: "notice error" }, "The sync has not finished yet; see the last sync below later."));
	return run;
}

// runView(r): a sync run: when, trigger, outcome, counts, errors and per-entry outcomes.
export function runView(r) {
	const ok = r.state === "done" || r.state === "skipped";
	const counts = r.counts || {};
	const shown = COUNTS.concat(counts.kept ? ["kept"] : []);
	return el("div", { class: "gitops-run", dataset: { run: String(r.id), state: r.state } },
	    el("dl", { class: "kv" },
		el("dt", null, "Time"), el("dd", null, timeEl(r.finishedAt || r.startedAt || r.createdAt)),
		el("dt", null, "Trigger"), el("dd", null, TRIGGERS[r.trigger] || r.trigger),
		el("dt", null, "Outcome"), el("dd", null, el("span", { class: "badge " + (ok ? "ok" : r.state === "failed" ? "error" : "running"),
		    dataset: { outcome: r.state }, title: meaning(GITOPS_STATES, r.state) }, r.state),
		    meaning(GITOPS_STATES, r.state) ? el("span", { class: "muted small" }, " " + meaning(GITOPS_STATES, r.state)) : null),
		r.manifestCommit ? [el("dt", null, "Manifest commit"), el("dd", null, el("code", null, r.manifestCommit))] : null,
		r.message ? [el("dt", null, "Message"), el("dd", { class: r.state === "failed" ? "error" : null }, r.message)] : null),
	    el("ul", { class: "gitops-counts", "aria-label": "Counts" },
		shown.map((k) => el("li", { dataset: { count: k } }, el("strong", null, String(counts[k] || 0)), " " + k))),
	    r.errors && r.errors.length ? el("div", { class: "gitops-errors" }, el("h3", null, "Errors"),
		el("ul", null, r.errors.map((e) => el("li", { class: "mono error" }, e)))) : null,
	    r.entries && r.entries.length ? entriesTable(r.entries) : null);
}

// entriesTable(entries): one row per manifest entry (and per library that left it); a
// library that exists links to its page.
function entriesTable(entries) {
	return el("div", { class: "table-wrap" }, el("table", { class: "stack gitops-entries" },
	    el("caption", { class: "visually-hidden" }, "Per-entry outcomes"),
	    el("thead", null, el("tr", null, ["Library", "Type", "Outcome", "Why"].map((h) => el("th", { scope: "col" }, h)))),
	    el("tbody", null, entries.map((e) => el("tr", { dataset: { id: e.id || "", action: e.action } },
		el("th", { scope: "row" }, e.id && !["failed", "pruned"].includes(e.action) ?
		    el("a", { href: "#/libraries/" + api.enc(e.id) }, e.id) : e.id || e.url),
		el("td", { "data-label": "Type" }, e.type || "git"),
		el("td", { "data-label": "Outcome" }, e.action),
		el("td", { "data-label": e.reason ? "Why" : null }, e.reason || ""))))));
}
