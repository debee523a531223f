// Libraries (#/libraries): the list (type, state, snippet and token counts, last indexed,
// run status, a GitOps badge) with a filter box, and the "Add library" form.
import { el, clear, timeEl, button } from "../dom.js";
import * as api from "../api.js";
import { addForm } from "../forms/library.js";
import { TYPE_NAMES, stateBadge, runBadge, gitopsBadge, num, legend } from "../parts/badges.js";
import { LIBRARY_STATES, RUN_STATUSES } from "../parts/states.js";

export const title = "Libraries";

export async function render(root, params, ctx) {
	const listBox = el("section", { "aria-labelledby": "libs-h" });
	const addBox = el("div");
	const toggle = button("Add library", () => {
		if (addBox.firstChild) {
			clear(addBox);
			toggle.setAttribute("aria-expanded", "false");
			return;
		}
		clear(addBox, addForm((a) => ctx.navigate("#/jobs/" + encodeURIComponent(a.jobId))));
		toggle.setAttribute("aria-expanded", "true");
		addBox.querySelector("select").focus();
	}, { "aria-expanded": "false", id: "add-library" });
	root.append(el("div", { class: "title-row" }, el("h1", null, "Libraries"), toggle), addBox, listBox);
	if (ctx.query().get("add") !== null)
		toggle.click();
	await list(listBox);
}

async function list(box) {
	const { libraries, total } = await api.get("/api/libraries?limit=500");
	clear(box, el("h2", { id: "libs-h", class: "visually-hidden" }, "All libraries"));
	if (libraries.length === 0) {
		box.append(el("p", { class: "empty" }, "No libraries yet — add one with the button above."));
		return;
	}
	const filter = el("input", { type: "search", id: "lib-filter", placeholder: "id, title, URL or type",
	    autocomplete: "off" });
	const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
	const tbody = el("tbody");
	const rows = libraries.map((l) => ({ lib: l, tr: libRow(l),
	    text: [l.id, l.title, l.url, l.sourceType, TYPE_NAMES[l.sourceType]].join(" ").toLowerCase() }));
	const apply = () => {
		const q = filter.value.trim().toLowerCase();
		const shown = rows.filter((r) => q === "" || r.text.includes(q));
		clear(tbody, shown.map((r) => r.tr));
		count.textContent = q === "" ? `${total} ${total === 1 ? "library" : "libraries"}` :
		    `${shown.length} of ${total} match "${filter.value.trim()}"`;
		if (shown.length === 0)
			tbody.append(el("tr", null, el("td", { colspan: 8, class: "empty" }, "No library matches the filter.")));
	};
	filter.addEventListener("input", apply);
	box.append(el("div", { class: "field filter" }, el("label", { for: filter.id }, "Filter"), filter), count,
	    el("div", { class: "table-wrap" }, el("table", { class: "libraries stack beside" },
		el("thead", null, el("tr", null, ["Library", "Type", "State", "Snippets", "Tokens", "Last indexed",
		    "Last run", ""].map((h) => el("th", { scope: "col",
			class: h === "Snippets" || h === "Tokens" ? "num" : null }, h)))),
		tbody)),
	    legend("What the states and last runs mean", ["State", LIBRARY_STATES], ["Last run", RUN_STATUSES]));
	apply();
}

function libRow(l) {
	return el("tr", { dataset: { lib: l.id } },
	    el("th", { scope: "row" }, el("a", { href: "#/libraries/" + api.enc(l.id) }, l.id),
		l.title && l.title !== l.id ? el("div", { class: "muted small" }, l.title) : null),
	    el("td", { "data-label": "Type" }, TYPE_NAMES[l.sourceType] || l.sourceType),
	    el("td", { "data-label": "State" }, stateBadge(l)),
	    el("td", { class: "num", "data-label": "Snippets" }, num(l.snippets)),
	    el("td", { class: "num", "data-label": "Tokens" }, num(l.tokens)),
	    el("td", { "data-label": "Last indexed" }, timeEl(l.lastIndexedAt)),
	    el("td", { "data-label": "Last run" }, runBadge(l.runStatus)),
	    el("td", null, gitopsBadge(l)));
}
