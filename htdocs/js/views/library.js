// A library (#/libraries/ID): its settings, its last runs, re-index, delete (confirmed by
// name), the snippet browser (filter, pages; title, source, text, code) and the "try a
// question" box, which shows exactly what an agent receives from GET /api/v2/context and,
// asked, why (the ranking's candidates from GET /api/libraries/ID/explain).
import { el, clear, field, showStatus, button, timeEl } from "../dom.js";
import * as api from "../api.js";
import { TYPE_NAMES, stateInWords, runBadge, gitopsBadge, num } from "../parts/badges.js";
import { jobState, duration } from "../parts/jobs.js";
import { snippetBody } from "../parts/mdview.js";
import { libSettingsForm } from "../forms/libsettings.js";

export const title = (params) => params.id;

const PAGE = 10;

export async function render(root, params, ctx) {
	const id = params.id;
	let lib;
	try {
		lib = await api.get("/api/libraries/" + api.enc(id));
	} catch (e) {
		if (e.status !== 404)
			throw e;
		root.append(el("h1", null, id), el("p", { class: "empty" }, "There is no library " + id + ". ",
		    el("a", { href: "#/libraries" }, "Back to the libraries"), "."));
		return;
	}
	const tab = TABS.some(([t]) => t === ctx.query().get("tab")) ? ctx.query().get("tab") : "overview";
	const base = "#/libraries/" + api.enc(lib.id) + "?tab=";
	const h1 = el("h1", null, lib.title || lib.id);
	root.append(el("p", { class: "crumbs" }, el("a", { href: "#/libraries" }, "Libraries"), " / "),
	    el("div", { class: "title-row" }, h1, gitopsBadge(lib)),
	    el("nav", { class: "tabs", "aria-label": "Library sections" },
		TABS.map(([t, label]) => el("a", { href: base + t, id: "tab-" + t,
		    "aria-current": t === tab ? "page" : null }, label))));
	const show = {
		overview: () => [lib.versionOf ? versions(lib, ctx) : null, actions(lib, ctx), settings(lib)],
		try: () => tryBox(lib),
		snippets: () => snippetBrowser(lib),
		runs: () => runs(lib),
		versions: () => versions(lib, ctx) || el("p", { class: "empty" },
		    "Only git libraries have versions (tags or branches indexed besides the default branch)."),
		// a saved title shows at once in the page's heading
		settings: () => libSettingsForm(lib, (a) => { if (a && a.title) h1.textContent = a.title; }),
	};
	root.append(el("div", { id: "lib-" + tab }, show[tab]()));
}

// The sections of a library's page, each its own address (#/libraries/ID?tab=NAME);
// "Try a question" comes right after the overview.
const TABS = [
	["overview", "Overview"],
	["try", "Try a question"],
	["snippets", "Snippets"],
	["runs", "Runs"],
	["versions", "Versions"],
	["settings", "Settings"],
];

// versions(lib, ctx): a git library's versions (tags or branches besides its default branch,
// each the library ID/VERSION), added and removed by re-posting the entry with "versions";
// a version links back to its library.
function versions(lib, ctx) {
	if (lib.versionOf)
		return el("p", null, "A version of ", el("a", { href: "#/libraries/" + api.enc(lib.versionOf) },
		    lib.versionOf), ".");
	if (lib.sourceType !== "git")
		return null;
	const have = (lib.versions || []).filter((v) => v.state !== "delete");
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const save = async (list, what) => {
		try {
			const a = await api.post("/api/libraries", { type: "git", url: lib.url, versions: list });
			showStatus(status, true, what + " (job " + a.jobId + ").");
			setTimeout(() => ctx.navigate("#/libraries/" + api.enc(lib.id) + "?tab=versions"), 800);
		} catch (e) {
			showStatus(status, false, e.message);
		}
	};
	const names = have.map((v) => v.version);
	const input = el("input", { type: "text", id: "version-name", autocomplete: "off", placeholder: "v1.2.3" });
	const add = button("Add version", () => {
		const v = input.value.trim();
		if (v && !names.includes(v))
			save(names.concat([v]), "Version " + v + " is queued for indexing");
	}, { id: "add-version" });
	const box = el("section", { class: "panel", "aria-labelledby": "ver-h" }, el("h2", { id: "ver-h" }, "Versions"));
	if (have.length === 0)
		box.append(el("p", { class: "empty" }, "Only the default branch is indexed."));
	else
		box.append(el("div", { class: "table-wrap" }, el("table", { id: "versions", class: "stack beside" },
		    el("thead", null, el("tr", null, ["Version", "Library id", "State", "Snippets", ""].map((h) =>
			el("th", { scope: "col" }, h)))),
		    el("tbody", null, have.map((v) => el("tr", null,
			el("th", { scope: "row" }, v.version),
			el("td", { "data-label": "Library id" }, el("a", { href: "#/libraries/" + api.enc(v.id) },
			    el("code", null, v.id))),
			el("td", { "data-label": "State" }, v.state), el("td", { "data-label": "Snippets" }, num(v.snippets)),
			el("td", null, button("Remove", () => save(names.filter((n) => n !== v.version),
			    "Version " + v.version + " is being deleted"), { class: "secondary" }))))))));
	box.append(el("div", { class: "actions" }, field("Tag or branch", input), add), status);
	return box;
}

// actions(lib): re-index and delete (with a confirmation naming the library).
function actions(lib, ctx) {
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const box = el("div", { class: "actions" });
	const reindex = button("Re-index", async () => {
		try {
			const a = await api.post("/api/libraries/" + api.enc(lib.id) + "/refresh");
			showStatus(status, true, "Re-indexing is queued (job " + a.jobId + ").");
			status.append(" ", el("a", { href: "#/jobs/" + encodeURIComponent(a.jobId) }, "Follow it"));
		} catch (e) {
			showStatus(status, false, e.message);
		}
	});
	const ask = () => {
		const yes = button("Delete " + lib.id, async () => {
			try {
				const a = await api.del("/api/libraries/" + api.enc(lib.id));
				ctx.navigate("#/jobs/" + encodeURIComponent(a.jobId));
			} catch (e) {
				showStatus(status, false, e.message);
			}
		}, { class: "danger", id: "confirm-delete" });
		const no = button("Keep it", () => { clear(box, reindex, del); del.focus(); }, { class: "secondary" });
		clear(box, el("p", { class: "warning", role: "alert" }, "Delete " + lib.id +
		    "? Its snippets, embeddings and runs are removed; agents can no longer query it." +
		    (lib.gitops ? " It is in the GitOps manifest: it comes back at the next reconcile unless removed there." : "")),
		    yes, no);
		yes.focus();
	};
	const del = button("Delete…", ask, { class: "danger", id: "delete-library" });
	box.append(reindex, del);
	return el("div", null, box, status);
}

// settings(lib): what the library is and how it is indexed.
function settings(lib) {
	const kv = [
		["Library id", el("code", null, lib.id)],
		["Type", TYPE_NAMES[lib.sourceType] || lib.sourceType],
		["Source", lib.url],
		["State", stateInWords(lib)],
		["Last run", runBadge(lib.runStatus)],
		["Last indexed", timeEl(lib.lastIndexedAt)],
		["Indexed version", lib.lastIndexedCommit ? el("code", null, lib.lastIndexedCommit.slice(0, 12)) : "none"],
		["Documents", num(lib.documents)],
		["Snippets", num(lib.snippets)],
		["Tokens", num(lib.tokens)],
	];
	if (lib.branch)
		kv.splice(3, 0, ["Branch", lib.branch]);
	if (lib.description)
		kv.push(["Description", lib.description]);
	// a source setting is named by its type's field label (GET /api/sources/types)
	const named = [];
	for (const [k, v] of Object.entries(lib.settings || {})) {
		const dt = el("dt", { "data-field": k, title: k }, k);
		named.push(dt);
		kv.push([dt, Array.isArray(v) ? (v.length ? v.join(", ") : "none") : typeof v === "boolean" ? (v ? "yes" : "no") : String(v)]);
	}
	if (lib.lastError)
		kv.push(["Last error", el("span", { class: "error" }, lib.lastError)]);
	if (named.length)
		api.get("/api/sources/types").then((types) => {
			const t = (types || []).find((x) => x.type === lib.sourceType);
			for (const dt of named) {
				const f = t && (t.fields || []).find((x) => x.name === dt.dataset.field);
				if (f && f.label)
					dt.textContent = f.label;
			}
		}, () => {});
	return el("section", { class: "panel", "aria-labelledby": "set-h" }, el("h2", { id: "set-h" }, "About this library"),
	    el("dl", { class: "kv" }, kv.map(([k, v]) => [typeof k === "string" ? el("dt", null, k) : k, el("dd", null, v)])));
}

// runs(lib): its last jobs.
function runs(lib) {
	const box = el("section", { "aria-labelledby": "runs-h" }, el("h2", { id: "runs-h" }, "Last runs"));
	if (!lib.jobs || lib.jobs.length === 0) {
		box.append(el("p", { class: "empty" }, "No runs yet."));
		return box;
	}
	box.append(el("div", { class: "table-wrap" }, el("table", { class: "stack beside" },
	    el("thead", null, el("tr", null, ["Job", "Kind", "State", "Queued", "Duration", "Message"].map((h) =>
		el("th", { scope: "col" }, h)))),
	    el("tbody", null, lib.jobs.map((j) => el("tr", null,
		el("th", { scope: "row" }, el("a", { href: "#/jobs/" + j.id }, "#" + j.id)),
		el("td", { "data-label": "Kind" }, j.kind), el("td", { "data-label": "State" }, jobState(j)),
		el("td", { "data-label": "Queued" }, timeEl(j.createdAt)), el("td", { "data-label": "Duration" }, duration(j)),
		el("td", { "data-label": "Message" }, j.message || "")))))));
	return box;
}

// snippetBrowser(lib): a filter and pages of the library's snippets.
function snippetBrowser(lib) {
	const q = el("input", { type: "search", id: "snippet-filter", autocomplete: "off",
	    placeholder: "words in the title, text, code or path" });
	const list = el("div", { class: "snippets", "aria-live": "polite" });
	const info = el("p", { class: "muted", role: "status", id: "snippet-count" });
	const prev = button("Previous", () => load(offset - PAGE), { class: "secondary", id: "snippets-prev" });
	const next = button("Next", () => load(offset + PAGE), { class: "secondary", id: "snippets-next" });
	let offset = 0;
	const load = async (off) => {
		const p = new URLSearchParams({ limit: String(PAGE), offset: String(Math.max(0, off)) });
		if (q.value.trim() !== "")
			p.set("q", q.value.trim());
		try {
			const a = await api.get("/api/libraries/" + api.enc(lib.id) + "/snippets?" + p);
			offset = a.offset;
			info.textContent = a.total === 0 ? (a.q ? "No snippet holds \"" + a.q + "\"." : "This library has no snippets yet.") :
			    `Snippets ${a.offset + 1}–${a.offset + a.snippets.length} of ${num(a.total)}` +
			    (a.q ? ` holding "${a.q}"` : "");
			info.classList.remove("error");
			prev.disabled = a.offset === 0;
			next.disabled = a.offset + a.snippets.length >= a.total;
			clear(list, a.snippets.map((s) => snippet(s, a.q)));
		} catch (e) {
			info.textContent = e.message;
			info.classList.add("error");
		}
	};
	const form = el("form", { role: "search", on: { submit: (ev) => { ev.preventDefault(); load(0); } } },
	    el("div", { class: "field" }, el("label", { for: q.id }, "Filter snippets"),
		el("div", { class: "actions" }, q, el("button", { type: "submit" }, "Filter"))));
	load(0);
	return el("section", { class: "panel", "aria-labelledby": "snip-h" }, el("h2", { id: "snip-h" }, "Snippets"),
	    form, info, list, el("div", { class: "actions pager" }, prev, next));
}

// A link to a source, only for an http(s) address; else the text.
function sourceLink(s) {
	if (s && /^https?:\/\//.test(s))
		return el("a", { href: s, rel: "noopener noreferrer", target: "_blank" }, s);
	return el("span", null, s || "");
}

// snippet(s, q): a snippet as the agent's answer has it (prose and code in order, the prose's
// Markdown shown as formatted text), the filter's words marked.
function snippet(s, q) {
	return el("article", { class: "snippet", dataset: { id: String(s.id) } },
	    el("h3", null, s.title || "(untitled)"),
	    s.breadcrumb ? el("p", { class: "muted small" }, s.breadcrumb) : null,
	    el("p", { class: "small" }, "Source: ", sourceLink(s.source), " · ", num(s.tokens), " tokens",
		s.flags ? el("span", { class: "badge error" }, "flagged: " + s.flags) : null),
	    snippetBody(s, q));
}

// tryBox(lib): asks GET /api/v2/context as an agent does; shows the text, tokens and time.
function tryBox(lib) {
	const question = el("input", { type: "text", id: "try-question", autocomplete: "off",
	    placeholder: "How do I …?", maxlength: 500 });
	const budget = el("input", { type: "text", inputmode: "numeric", id: "try-tokens", autocomplete: "off",
	    placeholder: "2000" });
	const key = el("input", { type: "password", id: "try-key", autocomplete: "off", spellcheck: "false" });
	const out = el("div", { "aria-live": "polite", id: "try-answer" });
	const submit = el("button", { type: "submit" }, "Ask");
	const form = el("form", { on: { submit: async (ev) => {
		ev.preventDefault();
		if (question.value.trim() === "") {
			clear(out, el("p", { class: "error" }, "Type a question first."));
			question.focus();
			return;
		}
		const p = new URLSearchParams({ libraryId: lib.id, query: question.value.trim() });
		if (budget.value.trim() !== "")
			p.set("tokens", budget.value.trim());
		submit.disabled = true;
		clear(out, el("p", { class: "muted" }, "Asking…"));
		const t0 = performance.now();
		try {
			const headers = { Accept: "text/plain" };
			if (key.value.trim() !== "")
				headers.Authorization = "Bearer " + key.value.trim();
			const res = await api.request("GET", "/api/v2/context?" + p, { headers });
			const text = await res.text();
			const ms = Math.round(performance.now() - t0);
			const tokens = res.headers.get("X-Ctxd-Tokens");
			clear(out, el("p", { class: "muted", id: "try-meta" }, `${tokens !== null ? num(tokens) : "?"} tokens · ${ms} ms`),
			    el("pre", { class: "answer", tabindex: "0", "aria-label": "The answer as an agent receives it" }, text),
			    whyBox(lib, p.get("query"), p.get("tokens")));
		} catch (e) {
			clear(out, el("p", { class: "error", role: "alert" }, e.message +
			    (e.status === 401 ? " Agents need a key here: MCP authentication is required (Settings > Permissions). Paste one of your API keys above." : "")));
			if (e.status === 401)
				key.focus();
		} finally {
			submit.disabled = false;
		}
	} } },
	    field("Question", question, "What a coding agent would ask about this library."),
	    field("Token budget (optional)", budget, "The most tokens the answer may hold, as an agent's tokens parameter (default 2000)."),
	    field("API key (optional)", key, "Only when MCP authentication is required: sent as an agent sends it, never stored."),
	    el("div", { class: "actions" }, submit));
	return el("section", { class: "panel", "aria-labelledby": "try-h" }, el("h2", { id: "try-h" }, "Try a question"),
	    el("p", { class: "help" }, "Shows exactly the text an agent receives from this library, its size in tokens and the time it took."),
	    form, out);
}

const WHY_FIRST = 20;

// whyBox(lib, query, tokens): "Why these snippets?", which asks GET /api/libraries/ID/explain
// with the question and budget of the answer shown and shows the ranking's candidates, best
// first, and what became of each (the first WHY_FIRST, then all on request).
function whyBox(lib, query, tokens) {
	const box = el("div", { id: "try-why", "aria-live": "polite" });
	const ask = button("Why these snippets?", async () => {
		const p = new URLSearchParams({ query });
		if (tokens !== null)
			p.set("tokens", tokens);	/* taken and clamped as the agent's endpoint does */
		ask.disabled = true;
		clear(box, el("p", { class: "muted" }, "Asking…"));
		try {
			showWhy(box, await api.get("/api/libraries/" + api.enc(lib.id) + "/explain?" + p));
		} catch (e) {
			clear(box, el("p", { class: "error", role: "alert" }, e.message));
		} finally {
			ask.disabled = false;
		}
	}, { class: "secondary", id: "try-why-ask" });
	return el("div", null, el("div", { class: "actions" }, ask), box);
}

// showWhy(box, x): the summary and the candidates table of an explain answer x.
function showWhy(box, x) {
	const cands = x.candidates || [];
	const terms = x.terms || [];
	clear(box, el("h3", null, "Why these snippets"),
	    el("p", { class: "help" }, "The snippets that matched the question, best first, and what became of each."),
	    el("p", { id: "why-summary" }, "Search terms: ",
		terms.length ? terms.map((w, i) => [i ? ", " : "", el("code", null, w)]) : "none", ". ",
		`The answer holds ${num(x.placed)} of ${num(cands.length)} candidates, ${num(x.used)} of ${num(x.tokens)} tokens; ` +
		`${x.ranking} ranking${x.reranked ? ", reranked by the LLM" : ""}.`));
	if (cands.length === 0) {
		box.append(el("p", { class: "empty" }, "No snippet matched the question."));
		return;
	}
	const body = el("tbody", null, cands.slice(0, WHY_FIRST).map(whyRow));
	box.append(el("div", { class: "table-wrap" }, el("table", { class: "stack beside explain", id: "why-table" },
	    el("thead", null, el("tr", null, [["Rank"], ["Score", "num"], ["Tokens", "num"], ["Outcome"], ["Section"]].map(([h, c]) =>
		el("th", { scope: "col", class: c || null }, h)))),
	    body)));
	if (cands.length > WHY_FIRST) {
		const all = button("Show all " + num(cands.length), () => {
			body.append(...cands.slice(WHY_FIRST).map(whyRow));
			all.remove();
			body.rows[WHY_FIRST].querySelector("th").focus();
		}, { class: "secondary", id: "why-all" });
		box.append(el("div", { class: "actions" }, all));
	}
}

// whyRow(c): one candidate; a placed one (in the answer) is a tr.placed.
function whyRow(c) {
	const outcome = c.place > 0 ? "in the answer, place " + c.place + (c.fate === "cut" ? ", cut to fit" : "") : c.why;
	return el("tr", { class: c.place > 0 ? "placed" : null, dataset: { place: String(c.place), snippet: String(c.snippetId) } },
	    el("th", { scope: "row", tabindex: "-1" }, "#" + c.rank),
	    el("td", { class: "num", "data-label": "Score" }, Number(c.score).toFixed(2)),
	    el("td", { class: "num", "data-label": "Tokens" }, num(c.tokens)),
	    el("td", { class: "outcome", "data-label": "Outcome" }, outcome),
	    el("td", { class: "section", "data-label": "Section" }, el("div", null,
		el("div", null, c.breadcrumb || c.title || "(untitled)"),
		el("div", { class: "muted small" }, c.source || ""))));
}
