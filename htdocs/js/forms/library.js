// forms/library.js: the "Add library" form, one set of fields per source type, each explained in
// one line and checked in the browser as the server checks it (lib/sources/entry.c, lib/index/library.c:
// the server stays the judge; its 400 error is shown next to the field it names).
import { el, clear, field, showStatus, newId } from "../dom.js";
import * as api from "../api.js";
import {
	DESCRIPTION_MAX, MAX_DEPTH, MAX_PAGES, TITLE_MAX, UPLOAD_MAX, checkBranch,
	checkInt, checkList, checkPageUrls, checkPatterns, checkSpaceKey, checkText,
	checkUrl, lines
} from "./checks.js";

// The fields: name (the server's), label, kind, help, check, and for a kind "list" how
// its value is sent (an array of lines).
const F = {
	url: (help, type) => ({ name: "url", label: "URL", kind: "url", help,
	    check: (v) => checkUrl(v, type) }),
	title: { name: "title", label: "Title (optional)", kind: "text",
	    help: "The name shown for the library; by default one is made from the source.",
	    check: checkText(TITLE_MAX) },
	description: { name: "description", label: "Description (optional)", kind: "textarea",
	    help: "A sentence on what the library documents, shown to agents that search libraries.",
	    check: checkText(DESCRIPTION_MAX) },
	branch: { name: "branch", label: "Branch (optional)", kind: "text",
	    help: "The branch to index; empty: the repository's default branch.", check: checkBranch },
	folders: { name: "folders", label: "Folders (optional)", kind: "list",
	    help: "One folder a line: index only below these (empty: the whole tree).", check: checkList },
	excludeFolders: { name: "excludeFolders", label: "Exclude folders (optional)", kind: "list",
	    help: "One folder a line to skip, such as tests or vendor.", check: checkList },
	excludeFiles: { name: "excludeFiles", label: "Exclude files (optional)", kind: "list",
	    help: "One file name or glob a line to skip, such as CHANGELOG.md.", check: checkList },
	indexSourceCode: { name: "indexSourceCode", label: "Index source code", kind: "check",
	    help: "Also index the documentation comments of source files, not only the docs." },
	maxPages: { name: "maxPages", label: "Maximum pages (optional)", kind: "number",
	    help: `How many pages to index at most, 1 to ${MAX_PAGES} (default 100; the server's limit may cut it).`,
	    check: checkInt(1, MAX_PAGES) },
	maxDepth: { name: "maxDepth", label: "Maximum depth (optional)", kind: "number",
	    help: `How many links away from the start page to follow, 0 to ${MAX_DEPTH} (default 3).`,
	    check: checkInt(0, MAX_DEPTH) },
	excludePatterns: { name: "excludePatterns", label: "Exclude patterns (optional)", kind: "list",
	    help: "One glob on the URL path a line, such as /blog/*, for pages to leave out.",
	    check: checkPatterns },
	spaceKey: { name: "spaceKey", label: "Space key", kind: "text",
	    help: "The key of the wiki space to index whole, such as DOCS.", check: checkSpaceKey },
	spaceId: { name: "spaceId", label: "Space id (optional)", kind: "text",
	    help: "The space's numeric id, when the wiki needs it to list the pages.", check: checkText(64) },
	spaceName: { name: "spaceName", label: "Space name (optional)", kind: "text",
	    help: "The space's name, used for the title when none is given.", check: checkText(255) },
	pageUrls: { name: "pageUrls", label: "Page URLs", kind: "list",
	    help: "One wiki page address a line: index these pages only.", check: checkPageUrls },
	includeSubPages: { name: "includeSubPages", label: "Include sub-pages", kind: "check",
	    help: "Also index the pages below each page listed." },
	openapiFile: { name: "openapiFile", label: "OpenAPI file", kind: "file",
	    help: "A JSON or YAML OpenAPI description, at most 16 MiB." },
	projectTitle: { name: "projectTitle", label: "Title (optional)", kind: "text",
	    help: "The name shown for the library; by default the file name.", check: checkText(TITLE_MAX) },
};

// The source types: their label, one line on what they are and their fields. A type
// with modes (OpenAPI: URL or upload; wiki: space or pages) shows one mode's fields.
const TYPES = [
	{ type: "git", label: "Git repository",
	  about: "A repository on GitHub, GitLab or any git server; private ones use the tokens in Settings.",
	  fields: [F.url("The repository's address, such as https://github.com/owner/repo.", "git"), F.branch,
	      F.folders, F.excludeFolders, F.excludeFiles, F.indexSourceCode, F.title, F.description] },
	{ type: "website", label: "Website",
	  about: "A documentation site, crawled from its start page within the same site.",
	  fields: [F.url("The start page, such as https://docs.example.com/.", "website"), F.maxPages,
	      F.maxDepth, F.excludePatterns, F.title, F.description] },
	{ type: "llmstxt", label: "llms.txt",
	  about: "A site's llms.txt file and the pages it lists.",
	  fields: [F.url("The address of llms.txt, llms-full.txt or llms-small.txt.", "llmstxt"), F.maxPages,
	      F.title, F.description] },
	{ type: "openapi", label: "OpenAPI", about: "An OpenAPI (Swagger) description of an HTTP API.",
	  modes: [
	      { mode: "url", label: "By URL", fields: [F.url("The address of the JSON or YAML description.", "openapi"),
		  F.title, F.description] },
	      { mode: "upload", label: "Upload a file", fields: [F.openapiFile, F.projectTitle,
		  Object.assign({}, F.description)] }] },
	{ type: "wiki", label: "Wiki",
	  about: "Pages of the wiki set up in Settings > Integrations (its site and credentials).",
	  modes: [
	      { mode: "space", label: "A whole space", fields: [F.spaceKey, F.spaceId, F.spaceName, F.title,
		  F.description] },
	      { mode: "pages", label: "Some pages", fields: [F.pageUrls, F.includeSubPages, F.title,
		  F.description] }] },
];

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
		    r.input.files[0].size > UPLOAD_MAX ? "The file is larger than 16 MiB." : null;
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

// addForm(onAdded): the "Add library" form; onAdded(answer) after a 202.
export function addForm(onAdded) {
	const typeSel = el("select", { name: "type" },
	    TYPES.map((t) => el("option", { value: t.type }, t.label)));
	const typeRow = field("Source type", typeSel, TYPES[0].about);
	const about = typeRow.querySelector(".help");
	const modeBox = el("div");
	const fieldsBox = el("div");
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const submit = el("button", { type: "submit" }, "Add library");
	let rows = [], mode = null;

	const showFields = (fields) => {
		rows = fields.map(row);
		for (const r of rows)
			r.input.addEventListener("change", () => check(r));
		clear(fieldsBox, rows);
	};
	const showType = () => {
		const t = TYPES.find((x) => x.type === typeSel.value);
		about.textContent = t.about;
		clear(modeBox);
		status.textContent = "";
		if (!t.modes) {
			mode = null;
			showFields(t.fields);
			return;
		}
		const name = newId("mode");
		const radios = t.modes.map((m, i) => {
			const r = el("input", { type: "radio", name, value: m.mode, checked: i === 0, id: newId("m"),
			    on: { change: () => { mode = m; showFields(m.fields); } } });
			return el("span", { class: "radio" }, r, " ", el("label", { for: r.id }, m.label));
		});
		modeBox.append(el("fieldset", { class: "modes" }, el("legend", null, "How"), radios));
		mode = t.modes[0];
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
	    el("h2", { id: "add-h" }, "Add a library"), typeRow, modeBox, fieldsBox, status,
	    el("div", { class: "actions" }, submit));
	form.setAttribute("aria-labelledby", "add-h");
	showType();
	return form;
}

// send(type, mode, rows): POST /api/libraries (or the upload endpoint); the 202 answer.
async function send(type, mode, rows) {
	if (type === "openapi" && mode && mode.mode === "upload") {
		const fd = new FormData();
		for (const r of rows) {
			if (r.field.kind === "file")
				fd.append("openapiFile", r.input.files[0]);
			else if (value(r) !== undefined)
				fd.append(r.field.name, value(r));
		}
		const res = await api.request("POST", "/api/parse-openapi-upload", { raw: fd });
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
