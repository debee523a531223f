// forms/policies.js: the Policies tab of Settings (#/settings?tab=policies, admins): which public
// libraries of the upstream the instance answers for (GET/PUT /api/policies, the server's
// error next to the field it names), a "try" box (POST /api/policies/try) that says whether
// a library id would be allowed and why, and the audit trail of the changes
// (GET /api/policies/audit). ctxd-web(8) describes the four routes.
import { el, clear, field, checkField, showStatus, timeEl, newId } from "../dom.js";
import * as api from "../api.js";

// The source types as the API names them, their labels and what each switch does. (GET
// /api/settings leaves the policy.* settings out, so their labels are these.)
const TYPES = [
	["git", "Git repositories", "Libraries the upstream parsed from git repositories."],
	["website", "Websites", "Libraries the upstream crawled from documentation websites."],
	["llmstxt", "llms.txt", "Libraries the upstream read from llms.txt files."],
	["openapi", "OpenAPI", "Libraries the upstream built from OpenAPI specifications."],
	["other", "Other source types", "Libraries of any other source type, or whose type the upstream does not report."],
];

// policiesTab(body): the policies form, the try box and the audit trail. Without a valid
// license the form and the try box give way to the server's reason.
export async function policiesTab(body) {
	const audit = el("section", { class: "panel policy-audit", "aria-labelledby": "policy-audit-h" });
	const showAudit = async () => {
		const { entries } = await api.get("/api/policies/audit?limit=50");
		clear(audit, el("h2", { id: "policy-audit-h" }, "Changes"),
		    el("p", null, "Every change of the policies, newest first, with who made it."),
		    entries.length === 0 ? el("p", { class: "empty" }, "No change yet.") : auditTable(entries));
	};
	let policies;
	try {
		policies = await api.get("/api/policies");
	} catch (e) {
		if (!(e instanceof api.ApiError) || e.status !== 403)
			throw e;
		body.append(el("section", { class: "panel" }, el("h2", null, "Policies"),
		    el("p", { class: "notice error", role: "status" }, e.message)), audit);
		await showAudit();
		return;
	}
	body.append(policyForm(policies, showAudit), tryPanel(), audit);
	await showAudit();
}

// lines(text): the non-blank lines of a textarea, trimmed.
function lines(text) {
	return text.split("\n").map((s) => s.trim()).filter((s) => s !== "");
}

// policyForm(p, showAudit): the switches, the lists and the minimum trust; Save writes them.
function policyForm(p, showAudit) {
	const rows = {};
	const inputs = {};
	for (const [name, label, help] of TYPES) {
		inputs[name] = el("input", { type: "checkbox", id: newId("policy"), name, checked: !!p[name] });
		rows[name] = checkField(inputs[name], label, help);
	}
	inputs.allow = el("textarea", { name: "allow", rows: 3, spellcheck: "false", autocapitalize: "none",
	    class: "mono", placeholder: "/vercel/*" }, (p.allow || []).join("\n"));
	rows.allow = field("Allow list", inputs.allow,
	    "Library ids answered, one glob per line (* is any run of characters). Empty: every library.");
	inputs.block = el("textarea", { name: "block", rows: 3, spellcheck: "false", autocapitalize: "none",
	    class: "mono", placeholder: "/example/*" }, (p.block || []).join("\n"));
	rows.block = field("Block list", inputs.block,
	    "Library ids never answered, one glob per line; the block list wins over the allow list.");
	inputs.minTrust = el("input", { type: "number", name: "minTrust", min: 0, max: 100, step: "any",
	    inputmode: "decimal", value: p.minTrust === null || p.minTrust === undefined ? "" : String(p.minTrust) });
	rows.minTrust = field("Minimum trust score", inputs.minTrust,
	    "Libraries whose trust score, when the upstream reports one, is lower are refused. Blank: no minimum.");
	for (const [name, row] of Object.entries(rows))
		row.dataset.field = name;

	const formStatus = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const save = el("button", { type: "submit" }, "Save");
	const values = () => {
		const v = { allow: lines(inputs.allow.value), block: lines(inputs.block.value) };
		for (const [name] of TYPES)
			v[name] = inputs[name].checked;
		const t = inputs.minTrust.value.trim();
		v.minTrust = t === "" ? null : Number(t);
		return v;
	};
	return el("form", { class: "panel policy-form", novalidate: true, on: { submit: async (ev) => {
		ev.preventDefault();
		for (const row of Object.values(rows))
			showStatus(row.status, true, "");
		showStatus(formStatus, true, "");
		const v = values();
		if (v.minTrust !== null && !Number.isFinite(v.minTrust)) {
			showStatus(rows.minTrust.status, false, "Type a number from 0 to 100, or leave it blank.");
			inputs.minTrust.focus();
			return;
		}
		save.disabled = true;
		try {
			await api.put("/api/policies", v);
			showStatus(formStatus, true, "Saved.");
			await showAudit();
		} catch (e) {
			const name = errorField(e.message);
			showStatus(name ? rows[name].status : formStatus, false, e.message);
			if (name)
				inputs[name].focus();
		} finally {
			save.disabled = false;
		}
	} } },
	    el("h2", null, "Policies"),
	    el("p", null, "Which public libraries of the upstream this instance answers for. " +
		"They never affect the libraries parsed here."),
	    el("fieldset", null, el("legend", null, "Source types"), TYPES.map(([name]) => rows[name])),
	    rows.allow, rows.block, rows.minTrust, formStatus, el("div", { class: "actions" }, save));
}

// errorField(msg): the form row a 400 concerns: the server names the body's field
// ('minTrust') or the setting (policy.allow: ...).
function errorField(msg) {
	const names = [["policy.allow", "allow"], ["policy.block", "block"], ["policy.min_trust", "minTrust"]];
	for (const [setting, name] of names)
		if (msg.includes(setting) || msg.includes("'" + name + "'"))
			return name;
	for (const [name] of TYPES)
		if (msg.includes("'" + name + "'"))
			return name;
	return null;
}

// tryPanel(): a library id, its source type and trust score, and the decision in words.
function tryPanel() {
	const id = el("input", { type: "text", name: "libraryId", required: true, spellcheck: "false",
	    autocapitalize: "none", class: "mono", placeholder: "/vercel/next.js" });
	const type = el("select", { name: "sourceType" },
	    TYPES.map(([name, label]) => el("option", { value: name }, label)));
	const trust = el("input", { type: "number", name: "trustScore", min: 0, max: 100, step: "any",
	    inputmode: "decimal" });
	const rows = {
		libraryId: field("Library id", id, "The upstream's library id, as an agent would ask for it."),
		sourceType: field("Source type", type, "The source type the upstream reports for it."),
		trustScore: field("Trust score", trust, "The trust score the upstream reports for it. Blank: not reported."),
	};
	const out = el("p", { class: "field-status policy-result", role: "status", "aria-live": "polite" });
	return el("form", { class: "panel policy-try", novalidate: true, on: { submit: async (ev) => {
		ev.preventDefault();
		for (const row of Object.values(rows))
			showStatus(row.status, true, "");
		showStatus(out, true, "");
		if (id.value.trim() === "") {
			showStatus(rows.libraryId.status, false, "Type a library id, such as /vercel/next.js.");
			id.focus();
			return;
		}
		const q = { libraryId: id.value.trim(), sourceType: type.value };
		if (trust.value.trim() !== "")
			q.trustScore = Number(trust.value);
		try {
			const r = await api.post("/api/policies/try", q);
			showStatus(out, r.allowed, (r.allowed ? "Allowed: " : "Blocked: ") + r.why);
		} catch (e) {
			const name = Object.keys(rows).find((n) => e.message.includes("'" + n + "'"));
			showStatus(name ? rows[name].status : out, false, e.message);
		}
	} } },
	    el("h2", null, "Try a library"),
	    el("p", null, "Whether the saved policies would answer for a library of the upstream, and why."),
	    Object.values(rows), el("div", { class: "actions" }, el("button", { type: "submit" }, "Try")), out);
}

// change(v): a value of the audit trail in words.
function change(v) {
	if (v === null || v === undefined)
		return "none";
	if (Array.isArray(v))
		return v.length === 0 ? "empty" : v.join(", ");
	if (typeof v === "boolean")
		return v ? "on" : "off";
	return String(v);
}

// auditTable(entries): when, who and what changed (from → to).
function auditTable(entries) {
	return el("div", { class: "table-wrap" }, el("table", { class: "stack" },
	    el("thead", null, el("tr", null, ["When", "Who", "What changed"].map((h) => el("th", { scope: "col" }, h)))),
	    el("tbody", null, entries.map((e) => el("tr", { dataset: { audit: String(e.id) } },
		el("td", { "data-label": "When" }, timeEl(e.at)),
		el("td", { "data-label": "Who" }, e.actor),
		el("td", { "data-label": "What changed" }, el("ul", null,
		    Object.entries(e.changes || {}).map(([k, c]) =>
			el("li", null, k + ": " + change(c.from) + " → " + change(c.to))))))))));
}

