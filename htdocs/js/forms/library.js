// forms/library.js: the "Add library" form, built from the source types the server declares
// (GET /api/sources/types: each type's label, what it indexes, what its URL is, and its
// fields with their labels, help, bounds and defaults), each field checked in the browser
// with those bounds (forms/checks.js: sourceFields). The server stays the judge: its 400
// error is shown next to the field it names.
import { el, clear, field, showStatus, newId } from "../dom.js";
import * as api from "../api.js";
import { lines, sourceFields, checkText, readWithCredentials } from "./checks.js";
import { withSettingLinks } from "../parts/settinglinks.js";

// credentialsWarning(type, via): what the form says when a source would be read with the
// instance's credentials (via, in words) while anonymous reads are on.
function credentialsWarning(type, via) {
	const what = type === "wiki" ? "Its pages are read with " + via + ", so anyone" :
	    "If this repository is private, it is read with " + via + ", and anyone";
	return "Anonymous reads are on. " + what + " who reaches this server can then read its documentation " +
	    "through MCP clients and /api/v2, without a key. To require an API key to read, turn on perm.require_mcp_auth.";
}

// modesOf(type): the alternatives of a type's form: the groups of its fields ("A whole
// space" or "Some pages" of a wiki), and an upload when the type takes one (an OpenAPI
// file); null when the form has one set of fields.
function modesOf(type) {
	const fields = sourceFields(type);
	const groups = [...new Set(fields.filter((f) => f.group).map((f) => f.group))];
	const modes = groups.map((g) => ({ mode: g, label: g,
	    fields: fields.filter((f) => !f.group || f.group === g) }));
	if (type.upload) {
		const up = type.upload;
		const keep = (n) => fields.find((f) => f.name === n);
		if (!modes.length)
			modes.push({ mode: "url", label: "By URL", fields });
		modes.push({ mode: "upload", label: "Upload a file", upload: up, fields: [
		    { name: up.field, label: type.label + " file", kind: "file", maxBytes: up.maxBytes,
		      help: `A JSON or YAML file, at most ${Math.round(up.maxBytes / 1048576)} MiB.` },
		    Object.assign({}, keep("title"), { name: "projectTitle",
		      help: "The name shown for the library; by default the file name.",
		      check: checkText((type.fields.find((f) => f.name === "title") || {}).max || 200) }),
		    keep("description")].filter(Boolean) });
	}
	return modes.length ? modes : null;
}

// control(f): the input of a field.
function control(f) {
	switch (f.kind) {
	case "textarea":
	case "list":
		return el("textarea", { name: f.name, rows: f.kind === "list" ? 3 : 2, spellcheck: "false" });
	case "check":
		return el("input", { type: "checkbox", name: f.name });
	case "number":
		return el("input", { type: "text", inputmode: "numeric", name: f.name, autocomplete: "off" });
	case "file":
		return el("input", { type: "file", name: f.name, accept: ".json,.yaml,.yml,application/json,application/yaml" });
	default:
		return el("input", { type: f.kind === "url" ? "url" : "text", name: f.name, autocomplete: "off",
		    spellcheck: "false" });
	}
}

// row(f): the field's row; row.field is f, row.input its control.
function row(f) {
	const input = control(f);
	let r;
	if (f.kind === "check") {
		input.id = newId("f");
		const help = el("p", { class: "help", id: input.id + "-help" }, f.help);
		input.setAttribute("aria-describedby", help.id);
		const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
		r = el("div", { class: "field check" }, input, el("label", { for: input.id }, f.label), help, status);
		r.status = status;
	} else {
		r = field(f.label, input, f.help);
	}
	r.dataset.field = f.name;
	r.field = f;
	r.input = input;
	return r;
}

// check(r): shows the field's browser-side error (or clears it); true when valid.
function check(r) {
	const f = r.field;
	let err = null;
	if (f.kind === "file")
		err = r.input.files.length === 0 ? "Choose a file." :
		    r.input.files[0].size > f.maxBytes ?
		    `The file is larger than ${Math.round(f.maxBytes / 1048576)} MiB.` : null;
	else if (f.check)
		err = f.check(r.input.value.trim());
	setError(r, err);
	return err === null;
}

function setError(r, err) {
	if (err) {
		showStatus(r.status, false, err);
		r.input.setAttribute("aria-invalid", "true");
	} else {
		r.status.textContent = "";
		r.status.classList.remove("error", "ok");
		r.input.removeAttribute("aria-invalid");
	}
}

// value(r): the field's value as the server takes it, undefined when left empty.
function value(r) {
	const f = r.field, v = r.input.value.trim();
	switch (f.kind) {
	case "check":
		return r.input.checked ? true : undefined;
	case "list":
		return lines(r.input.value).length ? lines(r.input.value) : undefined;
	case "number":
		return v === "" ? undefined : Number(v);
	default:
		return v === "" ? undefined : v;
	}
}

// The server's other names of the form's fields (a git entry's url is checked as repoUrl).
const ALIASES = { repoUrl: "url" };

// serverField(message, rows): the row a server error names ("field 'maxDepth' ...", "field
// 'pageUrls[2]' ..."), or null.
function serverField(message, rows) {
	for (const m of message.matchAll(/'([A-Za-z]+)(?:\[\d+\])?'/g)) {
		const name = ALIASES[m[1]] || m[1];
		const r = rows.find((x) => x.field.name === name);
		if (r)
			return r;
	}
	return null;
}

// addForm(onAdded): the "Add library" form; onAdded(answer) after a 202. The source types
// come from the server; until they have, the form says so.
export function addForm(onAdded) {
	const typeSel = el("select", { name: "type" });
	const typeRow = field("Source type", typeSel, "Loading the source types…");
	const about = typeRow.querySelector(".help");
	const modeBox = el("div");
	const fieldsBox = el("div");
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const warn = el("p", { class: "warning credentials-warning", role: "status", hidden: true });
	const submit = el("button", { type: "submit", disabled: true }, "Add library");
	let types = [], rows = [], mode = null, inst = null;

	// The warning of a source read with the instance's credentials under anonymous reads
	// (GET /api/settings: perm.require_mcp_auth off, and the credential of its host set).
	const updateWarn = () => {
		const open = inst && inst["perm.require_mcp_auth"] && !inst["perm.require_mcp_auth"].value;
		const url = rows.find((r) => r.field.name === "url");
		const via = open && !(mode && mode.upload) ?
		    readWithCredentials(typeSel.value, url ? url.input.value.trim() : "", inst) : null;
		warn.hidden = !via;
		clear(warn, via ? withSettingLinks(credentialsWarning(typeSel.value, via)) : null);
	};
	const showFields = (fields) => {
		rows = fields.map(row);
		for (const r of rows) {
			r.input.addEventListener("change", () => check(r));
			r.input.addEventListener("input", updateWarn);
		}
		clear(fieldsBox, rows);
		updateWarn();
	};
	const showType = () => {
		const t = types.find((x) => x.type === typeSel.value);
		if (!t)
			return;
		about.textContent = t.about;
		clear(modeBox);
		status.textContent = "";
		const modes = modesOf(t);
		if (!modes) {
			mode = null;
			showFields(sourceFields(t));
			return;
		}
		const name = newId("mode");
		const radios = modes.map((m, i) => {
			const r = el("input", { type: "radio", name, value: m.mode, checked: i === 0, id: newId("m"),
			    on: { change: () => { mode = m; showFields(m.fields); } } });
			return el("span", { class: "radio" }, r, " ", el("label", { for: r.id }, m.label));
		});
		modeBox.append(el("fieldset", { class: "modes" }, el("legend", null, "How"), radios));
		mode = modes[0];
		showFields(mode.fields);
	};
	typeSel.addEventListener("change", showType);

	const form = el("form", { class: "panel add-library", novalidate: true, on: { submit: async (ev) => {
		ev.preventDefault();
		status.textContent = "";
		const bad = rows.filter((r) => !check(r));
		if (bad.length) {
			showStatus(status, false, "Correct the fields marked above.");
			bad[0].input.focus();
			return;
		}
		submit.disabled = true;
		try {
			const answer = await send(typeSel.value, mode, rows);
			showStatus(status, true, "Added " + answer.libraryId + ": its indexing is queued.");
			onAdded(answer);
		} catch (e) {
			const r = e instanceof api.ApiError && e.status === 400 ? serverField(e.message, rows) : null;
			if (r) {
				setError(r, e.message);
				r.input.focus();
				showStatus(status, false, "The server refused a field: see above.");
			} else {
				showStatus(status, false, e.message);
			}
		} finally {
			submit.disabled = false;
		}
	} } },
	    el("h2", { id: "add-h" }, "Add a library"), typeRow, modeBox, fieldsBox, warn, status,
	    el("div", { class: "actions" }, submit));
	form.setAttribute("aria-labelledby", "add-h");
	api.get("/api/sources/types").then((list) => {
		types = list;
		clear(typeSel, types.map((t) => el("option", { value: t.type }, t.label)));
		submit.disabled = false;
		showType();
	}, (e) => showStatus(status, false, "The source types could not be read: " + e.message));
	api.get("/api/settings").then((r) => { inst = r.settings; updateWarn(); }, () => {});
	return form;
}

// send(type, mode, rows): POST /api/libraries (or the type's upload path); the 202 answer.
async function send(type, mode, rows) {
	if (mode && mode.upload) {
		const fd = new FormData();
		for (const r of rows) {
			if (r.field.kind === "file")
				fd.append(r.field.name, r.input.files[0]);
			else if (value(r) !== undefined)
				fd.append(r.field.name, value(r));
		}
		const res = await api.request("POST", mode.upload.path, { raw: fd });
		return res.json();
	}
	const body = { type };
	for (const r of rows) {
		const v = value(r);
		if (v !== undefined)
			body[r.field.name] = v;
	}
	return api.post("/api/libraries", body);
}
