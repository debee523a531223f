// Personal settings > API keys (#/keys): create (the value shown once, with a copy button
// and a warning), list (name, prefix, created, last used), revoke.
import { el, clear, field, showStatus, button, timeEl } from "../dom.js";
import * as api from "../api.js";

export const title = "API keys";

export async function render(root, params, ctx) {
	root.append(el("h1", null, "API keys"),
	    el("p", null, "A personal key lets a coding agent, the ctxd tool or a script act as you: send it as ",
		el("code", null, "Authorization: Bearer KEY"), ". ",
		ctx.session.admin ? "Your keys are admin keys while you are an admin." : "Your keys have a member's rights."));
	const created = el("div", { "aria-live": "polite" });
	const listBox = el("section", { class: "panel", "aria-labelledby": "keys-h" });
	root.append(createForm(created, () => list(listBox)), created, listBox);
	await list(listBox);
}

function createForm(created, reload) {
	const name = el("input", { type: "text", required: true, maxlength: 100, autocomplete: "off",
	    placeholder: "laptop, CI, Cursor…" });
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const f = el("form", { class: "panel narrow", on: { submit: async (ev) => {
		ev.preventDefault();
		try {
			const k = await api.post("/api/keys", { name: name.value });
			f.reset();
			showStatus(status, true, "Key “" + k.name + "” created.");
			clear(created, shownOnce(k));
			created.querySelector("input").focus();
			await reload();
		} catch (e) {
			showStatus(status, false, e.message);
		}
	} } },
	    el("h2", null, "Create an API key"),
	    field("Key name", name, "What the key is for, so that you know which one to revoke later."), status,
	    el("div", { class: "actions" }, el("button", { type: "submit" }, "Create API key")));
	return f;
}

// shownOnce(k): the new key's value, a copy button and the warning.
function shownOnce(k) {
	const value = el("input", { type: "text", readonly: true, value: k.key, class: "mono key-value",
	    id: "new-key-value", spellcheck: "false" });
	const status = el("span", { class: "copy-status", role: "status", "aria-live": "polite" });
	const copy = button("Copy", async () => {
		try {
			await navigator.clipboard.writeText(value.value);
			status.textContent = "Copied to the clipboard.";
		} catch (e) {
			value.select();
			status.textContent = "Copying is not allowed here: the key is selected, press Ctrl+C.";
		}
	});
	return el("section", { class: "panel warning-panel", "aria-labelledby": "new-key-h" },
	    el("h2", { id: "new-key-h" }, "Your new key “" + k.name + "”"),
	    el("p", { class: "warning" }, "Copy it now: this is the only time it is shown. Only its hash is stored; if you lose it, revoke it and create another."),
	    el("div", { class: "field" }, el("label", { for: value.id }, "Key value"),
		el("div", { class: "actions" }, value, copy, status)));
}

async function list(box) {
	const { keys } = await api.get("/api/keys");
	const live = keys.filter((k) => !k.revokedAt);
	clear(box, el("h2", { id: "keys-h" }, "Your keys"));
	if (live.length === 0) {
		box.append(el("p", { class: "empty" }, "No API keys yet — create one above."));
		return;
	}
	box.append(el("div", { class: "table-wrap" }, el("table", { class: "stack" },
	    el("thead", null, el("tr", null, ["Name", "Prefix", "Created", "Last used", ""].map((h) =>
		el("th", { scope: "col" }, h)))),
	    el("tbody", null, live.map((k) => keyRow(k, () => list(box)))))));
}

function keyRow(k, reload) {
	const cell = el("td");
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const ask = () => clear(cell,
	    el("span", null, "Revoke " + k.name + "? Clients using it stop working. "),
	    button("Revoke", async () => {
		try {
			await api.del("/api/keys/" + encodeURIComponent(k.id));
			await reload();
		} catch (e) {
			showStatus(status, false, e.message);
			cell.append(status);
		}
	    }, { class: "danger small", "aria-label": "Confirm revoking " + k.name }),
	    " ", button("Cancel", () => { clear(cell, revoke); revoke.focus(); }, { class: "secondary small" }));
	const revoke = button("Revoke", () => { ask(); cell.querySelector("button").focus(); },
	    { class: "danger small", "aria-label": "Revoke " + k.name });
	clear(cell, revoke);
	return el("tr", { dataset: { key: String(k.id) } },
	    el("th", { scope: "row" }, k.name),
	    el("td", { "data-label": "Prefix" }, el("code", null, k.prefix + "…")),
	    el("td", { "data-label": "Created" }, timeEl(k.createdAt)),
	    el("td", { "data-label": "Last used" }, k.lastUsedAt ? timeEl(k.lastUsedAt) : el("span", { class: "muted" }, "never")),
	    cell);
}
