// forms/settings.js: a form over named settings of GET /api/settings (or a setup step's
// "settings"), one field per setting, each with its label and its one-line help (both the
// server's: lib/store/settings.c), its name beside the label when asked, and a status
// line where the outcome of a save is shown. Secrets are write-only: the field shows "set"
// or "not set" and is sent only when something is typed (or "Clear" is pressed).
import { el, field, newId, showStatus, button } from "../dom.js";
import * as api from "../api.js";
import { aiSettingShown } from "./checks.js";

// Choice names as people write them; an AI vendor's label comes from the server
// (choiceLabels: the vendor table), so that a vendor added there needs nothing here.
const CHOICE_LABELS = {
	"": "None",
	same: "Same as the LLM provider",
	cloud: "Cloud",
	datacenter: "Data Center",
};

// Which fields show when (others always show); the AI fields by aiSettingShown.
const SHOW_WHEN = {
	"wiki.email": (v) => v["wiki.kind"] !== "datacenter",
};

// sentence(s): a help text of the settings table (lower case, no full stop) as a sentence.
export function sentence(s) {
	return s ? s.charAt(0).toUpperCase() + s.slice(1) + "." : null;
}

// settingText(settings, name): [label, help as a sentence] of a setting as the server
// describes it (GET /api/settings), for a tab whose form is not settingsForm's.
export function settingText(settings, name) {
	const m = (settings && settings[name]) || {};
	return [m.label || name, sentence(m.help)];
}

// withName(row, name): the setting's raw name beside the label of its row; returns row.
export function withName(row, name) {
	const label = row.querySelector("label");
	const code = el("code", { class: "setting-name muted small" }, name);
	if (row.classList.contains("check"))
		label.after(" ", code);
	else {	/* a label above its control: the name on the label's line */
		const line = el("div", { class: "label-row" });
		label.replaceWith(line);
		line.append(label, " ", code);
	}
	return row;
}

// control(name, meta): the input of one setting; returns { input, get(), extra }.
function control(name, meta) {
	if (meta.secret) {
		const attrs = { autocomplete: "new-password", name, spellcheck: "false",
		    placeholder: meta.set ? "set: type to replace" : "not set" };
		const input = /private_key/.test(name) ? el("textarea", Object.assign({ rows: 4, class: "mono" }, attrs)) :
		    el("input", Object.assign({ type: "password" }, attrs));
		let cleared = false;
		const state = el("span", { class: "badge " + (meta.set ? "ok" : "") }, meta.set ? "set" : "not set");
		const clearBtn = meta.set ? button("Clear", () => {
			cleared = true;
			input.value = "";
			state.textContent = "will be cleared on save";
		}, { class: "secondary small", "aria-label": "Clear " + (meta.label || name) }) : null;
		return { input, extra: el("span", { class: "secret-state" }, state, clearBtn),
		    get: () => (input.value !== "" ? input.value : cleared ? "" : undefined) };
	}
	if (meta.type === "bool") {
		const input = el("input", { type: "checkbox", name, checked: !!meta.value });
		return { input, get: () => input.checked };
	}
	if (meta.type === "enum") {
		const opts = (meta.choices || []).slice();
		if (!opts.includes(meta.default) || meta.default === "")
			opts.unshift("");
		const input = el("select", { name },
		    opts.map((c) => el("option", { value: c, selected: c === meta.value },
		    (meta.choiceLabels || {})[c] || CHOICE_LABELS[c] || c)));
		return { input, get: () => input.value };
	}
	const type = meta.type === "number" ? "number" : meta.type === "url" ? "url" : "text";
	const input = el("input", { type, name, value: meta.value === undefined || meta.value === null ? "" : String(meta.value),
	    min: meta.min, max: meta.max, spellcheck: "false", autocapitalize: "none",
	    placeholder: meta.default !== undefined && meta.default !== null && meta.default !== "" ? String(meta.default) : null });
	return { input, get: () => (type === "number" && input.value !== "" ? Number(input.value) : input.value) };
}

// settingsForm(settings, names, opts): { node, fields, values(), changed(), showError(err),
// showOk(text), status }. settings: NAME -> meta as GET /api/settings answers;
// opts.names: each label shows the setting's name beside it.
export function settingsForm(settings, names, opts) {
	const fields = {};
	const node = el("div", { class: "settings-form" });
	for (const name of names) {
		const meta = settings[name];
		if (!meta)
			continue;
		const c = control(name, meta);
		// the server's label (lib/store/settings.c), else the name
		const label = meta.label || name;
		let row;
		if (meta.type === "bool") {
			c.input.id = newId("f");
			row = el("div", { class: "field check" }, c.input, el("label", { for: c.input.id }, label),
			    el("p", { class: "help" }, sentence(meta.help)));
			row.status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
			row.append(row.status);
		} else {
			row = field(label, c.input, sentence(meta.help));
			if (c.extra)
				row.insertBefore(c.extra, row.querySelector(".help"));
		}
		if (opts && opts.names && label !== name)
			withName(row, name);
		row.dataset.setting = name;
		fields[name] = { row, input: c.input, get: c.get, meta };
		node.append(row);
		c.input.addEventListener("change", update);
	}
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	node.append(status);

	function current() {
		const v = {};
		for (const [name, f] of Object.entries(settings))
			v[name] = fields[name] ? fields[name].get() : f.value;
		for (const [name, f] of Object.entries(fields))
			if (f.meta.type === "enum")
				v[name] = f.input.value;
		return v;
	}
	const takes = (settings["ai.llm.provider"] || {}).choiceTakes ||
	    (settings["ai.embed.provider"] || {}).choiceTakes || {};
	function update() {
		const v = current();
		for (const [name, f] of Object.entries(fields)) {
			const ai = aiSettingShown(name, v, takes);
			const show = ai !== undefined ? ai : SHOW_WHEN[name] ? SHOW_WHEN[name](v) : true;
			f.row.hidden = !show;
		}
	}
	update();

	return {
		node, fields, status,
		// values(): the settings to send: every visible plain field, and the secrets typed
		// or cleared.
		values() {
			const out = {};
			for (const [name, f] of Object.entries(fields)) {
				if (f.row.hidden)
					continue;
				const v = f.get();
				if (v !== undefined)
					out[name] = v;
			}
			return out;
		},
		// showError(err): the server's error next to the setting it names, else below.
		showError(err) {
			for (const f of Object.values(fields))
				showStatus(f.row.status, true, "");
			const msg = err.message || String(err);
			const named = Object.keys(fields).filter((n) => msg.includes(n))
			    .sort((a, b) => b.length - a.length)[0];
			const target = named ? fields[named].row.status : status;
			showStatus(target, false, msg);
			if (named)
				fields[named].input.focus();
		},
		showOk(text) {
			for (const f of Object.values(fields))
				showStatus(f.row.status, true, "");
			showStatus(status, true, text);
		},
	};
}

// providerTest(form, kind, what): a "Test" button and its outcome: saves the form's
// values (PATCH /api/settings), then makes one real call to the provider through the
// server (POST /api/providers/test) and shows the result in words.
export function providerTest(form, kind, what) {
	return saveAndTest(form, what + " provider", "/api/providers/test", { kind },
	    (r) => r.lines.join("\n"));
}

// saveAndTest(form, noun, path, body, detail): a "Save and test" button and its outcome:
// saves the form's values (PATCH /api/settings), then POSTs body to path (one real call
// of the service named noun, made by the server) and shows in words whether it is set and
// answered, with detail(answer) below.
export function saveAndTest(form, noun, path, body, detail) {
	const out = el("div", { class: "test-result", role: "status", "aria-live": "polite" });
	const btn = button("Save and test", run, { class: "secondary" });
	async function run() {
		btn.disabled = true;
		out.replaceChildren(el("p", { class: "muted" }, "Saving, then calling the " + noun + "…"));
		try {
			await api.patch("/api/settings", form.values());
			const r = await api.post(path, body);
			const head = !r.configured ? "No " + noun + " is set: nothing to test." :
			    r.ok ? "The " + noun + " answered: it works." :
			    "The " + noun + " call failed.";
			out.replaceChildren(el("p", { class: "notice " + (r.ok ? "ok" : "error") }, head),
			    el("pre", { class: "test-lines" }, detail(r)));
		} catch (e) {
			out.replaceChildren();
			form.showError(e);
		} finally {
			btn.disabled = false;
		}
	}
	return { button: btn, output: out };
}
