// forms/libsettings.js: a library's settings (its title, description and its type's source
// fields: for git the branch, folders and exclusions) as a form filled with the stored
// values, built from GET /api/sources/types. A changed title or description alone is
// saved at once through PATCH /api/libraries/ID (no job); a changed source setting turns
// the button into "Save and re-index", which saves through POST /api/libraries: it
// validates the entry as it does every source entry (lib/sources/entry.c) and re-indexes
// the library with the new settings. The server's 400 is shown next to the field it names.
import { el, field, showStatus, checkField } from "../dom.js";
import * as api from "../api.js";
import { lines, sourceFields } from "./checks.js";

// The fields a library's page does not change: its identity, and the versions (their tab).
const FIXED = new Set(["url", "versions", "openapiFile", "upload"]);

// current(lib, name): the stored value of a field.
function current(lib, name) {
	if (name === "title" || name === "description" || name === "branch")
		return lib[name] || "";
	const v = (lib.settings || {})[name];
	return v === undefined || v === null ? "" : v;
}

// libSettingsForm(lib, onSaved): the form; onSaved(answer) after a 202.
export function libSettingsForm(lib, onSaved) {
	const box = el("div", { class: "fields" }, el("p", { class: "muted" }, "Loading the fields…"));
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const submit = el("button", { type: "submit", disabled: true }, "Save");
	let rows = [];
	// value(r): what row r holds now, as the API takes it.
	const value = (r) => r.kind === "check" ? r.input.checked : r.kind === "list" ? lines(r.input.value) :
	    r.kind === "number" ? (r.input.value.trim() === "" ? undefined : Number(r.input.value.trim())) :
	    r.input.value.trim();
	const NAMES = new Set(["title", "description"]);
	const changed = () => rows.filter((r) => JSON.stringify(value(r)) !== JSON.stringify(r.stored));
	// The button says what saving does: nothing to save, save, or save and re-index.
	const offer = () => {
		const c = changed();
		const reindex = c.some((r) => !NAMES.has(r.name));
		submit.disabled = c.length === 0;
		submit.textContent = reindex ? "Save and re-index" : "Save";
		hint.textContent = c.length === 0 ? "No unsaved changes." : reindex ?
		    "A source setting changed: saving re-indexes the library with it; until that run is done, agents get the index made with the old settings." :
		    "Only the title or the description changed: saved at once, no re-index.";
	};
	const hint = el("p", { class: "muted", "aria-live": "polite" });
	const form = el("form", { class: "panel lib-settings", novalidate: true, on: { submit: async (ev) => {
		ev.preventDefault();
		for (const r of rows)
			showStatus(r.status, true, "");
		const bad = rows.filter((r) => r.check && r.kind !== "check" && r.check(r.input.value.trim()));
		if (bad.length) {
			for (const r of bad)
				showStatus(r.status, false, r.check(r.input.value.trim()));
			showStatus(status, false, "Correct the fields marked above.");
			bad[0].input.focus();
			return;
		}
		const c = changed();
		if (c.length === 0)
			return;
		submit.disabled = true;
		try {
			if (c.every((r) => NAMES.has(r.name))) {
				const body = {};
				for (const r of c)
					body[r.name] = value(r);
				const a = await api.patch("/api/libraries/" + api.enc(lib.id), body);
				for (const r of rows)
					r.stored = value(r);
				showStatus(status, true, "Saved.");
				if (onSaved)
					onSaved(a);
				return;
			}
			const body = { type: lib.sourceType, url: lib.url };
			for (const r of rows) {
				const v = value(r);
				if (v !== undefined && !(r.name === "title" && v === ""))
					body[r.name] = v;
			}
			const a = await api.post("/api/libraries", body);
			for (const r of rows)
				r.stored = value(r);
			showStatus(status, true, "Saved: re-indexing with these settings is queued (job " + a.jobId + ").");
			status.append(" ", el("a", { href: "#/jobs/" + encodeURIComponent(a.jobId) }, "Follow it"));
			if (onSaved)
				onSaved(a);
		} catch (e) {
			const m = /'([A-Za-z]+)/.exec(e.message);
			const r = m ? rows.find((x) => x.name === m[1]) : null;
			if (r) {
				showStatus(r.status, false, e.message);
				r.input.focus();
			}
			showStatus(status, false, r ? "The server refused a field: see above." : e.message);
		} finally {
			offer();
		}
	}, input: () => offer(), change: () => offer() } }, el("h2", { id: "libset-h" }, "Settings"),
	    el("p", { class: "help intro" }, "Saving checks the settings as adding a library does. A new title or description is saved at once; a changed source setting re-indexes the library."),
	    box, hint, status, el("div", { class: "actions" }, submit));
	form.setAttribute("aria-labelledby", "libset-h");
	if (lib.gitops || lib.versionOf || /^upload:/.test(lib.url || "")) {
		box.replaceChildren(el("p", { class: "notice" }, lib.gitops ?
		    "This library is managed by the GitOps manifest: change its settings there." : lib.versionOf ?
		    "A version follows the settings of its library " + lib.versionOf + "." :
		    "An uploaded OpenAPI description is changed by uploading it again."));
		return form;
	}
	api.get("/api/sources/types").then((types) => {
		const t = types.find((x) => x.type === lib.sourceType);
		if (!t) {
			box.replaceChildren(el("p", { class: "error" }, "The server does not describe the type " + lib.sourceType + "."));
			return;
		}
		// the title and the description first: what most edits change, and saved at once
		const fields = sourceFields(t).filter((f) => !FIXED.has(f.name) && !f.group);
		fields.sort((a, b) => NAMES.has(b.name) - NAMES.has(a.name));
		rows = fields.map((f) => {
			const v = current(lib, f.name);
			let input, row;
			if (f.kind === "check") {
				input = el("input", { type: "checkbox", name: f.name, checked: v === true });
				row = checkField(input, f.label, f.help);
			} else {
				input = f.kind === "list" || f.kind === "textarea" ?
				    el("textarea", { name: f.name, rows: f.kind === "list" ? 3 : 2, spellcheck: "false" }) :
				    el("input", { type: "text", name: f.name, autocomplete: "off", spellcheck: "false" });
				input.value = Array.isArray(v) ? v.join("\n") : String(v);
				row = field(f.label.replace(/ \(optional\)$/, ""), input, f.help);
			}
			row.dataset.field = f.name;
			const r = { name: f.name, kind: f.kind, check: f.check, input, status: row.status, row };
			r.stored = value(r);
			return r;
		});
		box.replaceChildren(...rows.map((r) => r.row));
		offer();
	}, (e) => box.replaceChildren(el("p", { class: "error" }, "The fields could not be read: " + e.message)));
	return form;
}
